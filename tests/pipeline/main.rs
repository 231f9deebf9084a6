//! Test crate `pipeline`. The pipeline in this process, no binary spawned: every case of the
//! catalogue on the emulator with its CPU model, the negative controls through the library (wrong
//! kernels caught), the run loop over host and emulator memory, the session's plan and report,
//! soak's and microbench's engines, the sha256 workload's kernels and model, the target table
//! against the docs and the stubs, the man pages and completions rendered from the clap tree, and
//! the house as its imports draw it (`house`: layers, circles, function lengths, the maps in
//! lib.rs, ARCHITECTURE.md and CONTRIBUTING.md). Part of the fast loop (`cargo test`). One module
//! per file; helpers shared across crates are in tests/common. No process-global state is changed
//! here (no `set_var`, no signal handlers installed in this process, no HIP runtime initialised in
//! this process): see CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;

mod cases_emu;
mod completions;
mod host_views;
mod house;
mod man_pages;
mod microbench;
mod negative;
mod pipeline;
mod session;
mod sha256;
mod soak;
mod targets;
