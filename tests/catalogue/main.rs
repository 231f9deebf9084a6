//! Test crate `catalogue`. The case catalogue and what it is built from: every case on every
//! target, the kernels' encodings, the code objects (parsing, validation, the loader fuzz pass) and
//! kernel descriptors. One module per former test file; helpers shared across crates are in
//! tests/common. No process-global state is changed here (no `set_var`, no signal handlers
//! installed in this process, no HIP runtime initialised in this process): see CONTRIBUTING.md,
//! "Test crates".

#[path = "../common/mod.rs"]
mod common;

mod cases_dpp_src1;
mod cases_emu;
mod cases_encoding;
mod codeobj;
mod codeobj_compiled;
mod codeobj_fuzz;
mod codeobj_validate;
mod descriptor;
mod kernels_gfx12;
mod kernels_gfx9_gfx10;
mod listings;
mod negative;
mod sha256;
mod targets;
