//! [`Generation`] and [`Isa`]: they live in the `xad-build` crate
//! (`crates/xad-build/src/generation.rs`) beside the target table that names
//! each target's `Isa`, which the build script reads too; re-exported here so
//! the decoder's files import them from their own wing.

pub use xad_build::generation::*;
