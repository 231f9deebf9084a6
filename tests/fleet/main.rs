//! Test crate `fleet`. Runs beyond one process: merge, dump and replay, Slurm, the Kubernetes
//! manifest, soak. One module per former test file; helpers shared across crates are in
//! tests/common. No process-global state is changed here (no `set_var`, no signal handlers
//! installed in this process, no HIP runtime initialised in this process): see CONTRIBUTING.md,
//! "Test crates".

#[path = "../common/mod.rs"]
mod common;
#[path = "../emuhip/tests/support/mod.rs"]
mod support;

mod k8s_manifest;
mod merge;
mod replay;
mod slurm;
mod soak;
