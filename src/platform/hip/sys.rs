//! Raw FFI: declarations bindgen generated at build time from the installed HIP
//! headers (see `crates/xad-build/src/hip_root.rs`), with `hipError_t` a plain `c_int`, plus the
//! device-info shim (`shim.c`). Only the functions the backend calls are declared.
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code
)]
#![allow(clippy::all)]

// hip-sys's build script is what links libamdhip64 (`-lamdhip64` plus its search
// path); naming the crate keeps it, and that directive, in the link. None of its
// declarations are used: its hipError_t is a Rust enum (see crates/xad-build/src/hip_root.rs).
use hip_sys as _;

include!(concat!(env!("OUT_DIR"), "/hip_sys.rs"));

// `hip_runtime_api.h` defines these as `((void*)0x01)` .. `((void*)0x03)`,
// which bindgen cannot translate; the values are fixed ABI (and match CUDA's).
pub const HIP_LAUNCH_PARAM_BUFFER_POINTER: *mut ::std::os::raw::c_void = 0x01 as *mut _;
pub const HIP_LAUNCH_PARAM_BUFFER_SIZE: *mut ::std::os::raw::c_void = 0x02 as *mut _;
pub const HIP_LAUNCH_PARAM_END: *mut ::std::os::raw::c_void = 0x03 as *mut _;
