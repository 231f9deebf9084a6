//! Test crate `real_hip`. The real HIP runtime this crate was linked with: the library API in this
//! process (`hip_runtime`) and the CLI's no-device behaviour (`hip_real_runtime`).
//!
//! A separate binary because the process itself is under test: ci/hip-matrix.sh runs this
//! executable under another dynamic loader and library path (`CARGO_TARGET_<triple>_RUNNER`, which
//! applies to a whole test binary) against HIP 6.4 and 7.2, and `hip_runtime` initialises that
//! runtime in-process (hipInit and its device count are per-process state). No other test may share
//! that process. One module per former test file; helpers shared across crates are in tests/common.

#[path = "../common/mod.rs"]
mod common;

mod hip_real_runtime;
mod hip_runtime;
