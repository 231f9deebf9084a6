//! Test crate `emu`. The embedded emulator's semantics: per-instruction execution, definedness,
//! each generation's kernels and modifiers run exactly. Part of the fast loop (`cargo test`). One
//! module per file; helpers shared across crates are in tests/common. No process-global state is
//! changed here (no `set_var`, no signal handlers installed in this process, no HIP runtime
//! initialised in this process): see CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;

mod emu_definedness;
mod emu_exec;
mod emu_gfx10;
mod emu_gfx12;
mod emu_gfx9;
mod emu_gfx940_lshl;
mod emu_modifiers;
mod emu_xad_basic;
