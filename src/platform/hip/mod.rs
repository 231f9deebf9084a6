//! HIP backend, layered as in cudarc:
//!
//! | layer       | what it is                                                              |
//! |-------------|-------------------------------------------------------------------------|
//! | [`sys`]     | raw FFI: bindgen output from the installed headers, `hipError_t` = `c_int`, plus the device-info shim |
//! | [`checked`] | one function per call, status -> `Result<_, DeviceError>` with the runtime's own name and text; `hipInit` once |
//! | [`safe`]    | RAII `DeviceBuffer`, `Module`, `Stream`; the launch check against code object metadata; the watchdog |
//! | [`HipDevice`] | the [`crate::platform::device::Device`] seam over one device, addresses as u64 |
//! | [`probe()`] | what the runtime sees, never failing: version, statuses, devices and the target each runs |
//! | [`comgr`] | the code object's metadata as the HIP runtime reads it, through comgr (`dlopen`ed): typed per kernel, the fields CLR needs that are missing, why the runtime would refuse a file |
//! | [`emulated_kfd`] | under the emulated KFD device: the emulator's per-word verdicts, asked of the preloaded device |
//!
//! This is the only module allowed `unsafe` code. The runtime functions used
//! are exactly those in [`FUNCTIONS`] (plus `hipGetDeviceProperties`
//! via `shim.c`), so a stand-in library exporting that set runs everything here.

pub mod checked;
pub mod comgr;
mod device;
pub mod emulated_kfd;
mod functions;
mod probe;
pub mod safe;
pub mod sys;

pub use checked::DeviceInfo;
pub use device::HipDevice;
pub use functions::FUNCTIONS;
pub use probe::{
    probe, runtime_label, target_runs_on, visibility_variables, Probe, ProbedDevice,
    RuntimeVersion, VISIBILITY_VARIABLES,
};
