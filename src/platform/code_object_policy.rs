//! Which code object version a HIP runtime's loader accepts: the policy lives
//! in the `xad-build` crate (`crates/xad-build/src/code_object_policy.rs`),
//! which the build script chooses the embedded kernels' versions with too;
//! re-exported here so the library names it by one path.

pub use xad_build::code_object_policy::*;
