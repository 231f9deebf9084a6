//! The platform: what runs a code object and what the harness stands on.
pub mod backend;
pub mod code_object_policy;
pub mod codeobj;
pub mod device;
pub mod embedded;
pub mod emu;
pub mod files;
#[allow(unsafe_code)] // the one room for FFI; see hip/mod.rs
pub mod hip;
pub mod target;
pub mod toolchain;
