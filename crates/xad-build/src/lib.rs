//! What xad-harness's build script and its library both need, in one crate so
//! each compiles the same code the ordinary way (a build-dependency and a
//! dependency) rather than through `#[path]` includes: the build assembles a
//! kernel per target row with a toolchain proven for it, as the code object
//! version the HIP runtime it is built against loads; the library runs those
//! targets, and assembles a user's `--kernel` by the same search and proof.
//!
//! The library re-exports each module at its old place (`platform::target`,
//! `platform::code_object_policy`, `platform::toolchain`, `isa`'s generation
//! types), so its code and its readers keep one path per thing.
//!
//! | module | what it is |
//! |---|---|
//! | [`generation`] | `Generation` and `Isa`: which instruction set a code object is in, and what each generation lays out differently |
//! | [`code_object_policy`] | which code object version a HIP runtime's loader accepts; `HipVersion` read from `hip/hip_version.h` |
//! | [`target`] | the targets as data: one row per target with its `Isa`, cards, first runtime, features |
//! | [`toolchain`] | find an LLVM per target and prove it with a canary; assemble and link with it |
//! | `hip_root` | (feature `hip-root`, build time only) the HIP root and its version, the bindgen declarations and the device-properties shim |

pub mod generation;

pub mod code_object_policy;

pub mod target;

pub mod toolchain;

#[cfg(feature = "hip-root")]
pub mod hip_root;
