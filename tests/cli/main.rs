//! Test crate `cli`. The binary as a process, spawned as a user would: error paths and exit codes,
//! the negative controls (wrong user kernels reported failing), interrupts, every target's
//! catalogue through `run`, the reports (schema, HTML in chromium), microbench, a user's
//! `--kernel` through the toolchain, merge, dump and replay, Slurm, the Kubernetes manifest, soak,
//! and the outputs' snapshots (tests/cli/snapshots/*.snap). Behind the slow switch:
//! `cargo test-all` (`.cargo/config.toml`), which ci/test.sh runs. One module per file; helpers
//! shared across crates are in tests/common.
//! No process-global state is changed here (no `set_var`, no signal handlers installed in this
//! process, no HIP runtime initialised in this process): see CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;

#[path = "../emuhip/tests/support/mod.rs"]
mod support;

mod cli;

mod error_table;
mod findings;

mod html;

mod interrupt;

mod k8s_manifest;

mod kernel_input;

mod merge;

mod microbench;

mod negative;

mod refusal_names;

mod replay;

mod report_schema;

mod sha256;

mod slurm;

mod snapshots;

mod soak;

mod targets;

mod toolchain_limits;

mod toolchain_version;

mod user_kernels;
mod waits_and_hazards;
