// Included by build.rs (the bindgen allowlist it hands xad-build's `hip_root`) and by the library
// (`hip::FUNCTIONS`); tests/emuhip exports exactly these plus
// hipGetDeviceProperties. Kept free of `//!` docs so `include!` works.

/// Exactly the runtime functions the backend calls. `hipGetDeviceProperties` is
/// reached only through the shim (its struct layout depends on the header version).
pub const FUNCTIONS: &[&str] = &[
    "hipInit",
    "hipRuntimeGetVersion",
    "hipDriverGetVersion",
    "hipGetDeviceCount",
    "hipSetDevice",
    "hipMalloc",
    "hipFree",
    "hipMemcpyHtoD",
    "hipMemcpyDtoH",
    "hipModuleLoadData",
    "hipModuleUnload",
    "hipModuleGetFunction",
    "hipModuleLaunchKernel",
    "hipStreamCreate",
    "hipStreamDestroy",
    "hipStreamQuery",
    "hipStreamSynchronize",
    "hipDeviceSynchronize",
    "hipGetErrorName",
    "hipGetErrorString",
];
