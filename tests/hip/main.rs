//! Test crate `hip`. The HIP path on the emulated HIP device library (tests/emuhip) and, through the
//! real ROCm 5.2 libraries, on the emulated KFD device (tests/emukfd), the shim's
//! layout, the checks before a launch, and the metadata as the real comgr reads it (`comgr_metadata`). The tests that load the real runtime are `real_hip`. One
//! module per former test file; helpers shared across crates are in tests/common. No process-global
//! state is changed here (no `set_var`, no signal handlers installed in this process, no HIP
//! runtime initialised in this process): see CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;
#[path = "../emuhip/tests/support/mod.rs"]
mod support;

mod comgr_metadata;
mod emuhip_e2e;
mod emuhip_multi;
mod emukfd_e2e;
mod fault_lines;
mod hip_launch_check;
mod hip_layout;
