//! The model.
pub mod cases;
pub mod check;
pub mod inputs;
