//! HIP backend.
use hip_sys as _;
pub mod sys;
