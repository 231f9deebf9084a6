//! What runs a code object and what the harness stands on: the targets as
//! data ([`target`], [`code_object_policy`]), the LLVM and HIP found for them
//! ([`toolchain`]), the embedded code objects ([`embedded`]) and their reader
//! ([`codeobj`]), the device seam ([`device`]) with its two backends, the
//! emulator ([`emu`]) and HIP ([`hip`], the one room for FFI), the choice
//! between them ([`backend`]), and the one rule for files ([`files`]).

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
