//! Test crate `cli`. The command line: error paths and exit codes, interrupts, man pages, the
//! house's layers and function lengths (`house`), the reports' schema, the run loop, microbench,
//! and a user's `--kernel` through the toolchain. One module per former test file; helpers shared
//! across crates are in tests/common. No process-global state is changed here (no `set_var`, no
//! signal handlers installed in this process, no HIP runtime initialised in this process): see
//! CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;
#[path = "../emuhip/tests/support/mod.rs"]
mod support;

mod cli;
mod completions;
mod error_table;
mod findings;
mod house;
mod html;
mod interrupt;
mod kernel_input;
mod man_pages;
mod microbench;
mod refusal_names;
mod report_schema;
mod session;
mod toolchain_limits;
mod toolchain_version;
mod user_kernels_gfx9_gfx10;
