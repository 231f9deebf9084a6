//! Raw FFI: declarations bindgen generated at build time from the installed HIP
//! headers (see `build_support.rs`), with `hipError_t` a plain `c_int`.
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code)]
#![allow(clippy::all)]

include!(concat!(env!("OUT_DIR"), "/hip_sys.rs"));
