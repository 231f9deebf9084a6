//! The pipeline.
pub mod findings;
pub mod guard;
pub mod handle;
pub mod interrupt;
pub mod pattern;
pub mod run;
