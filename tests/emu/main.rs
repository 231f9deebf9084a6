//! Test crate `emu`. The embedded emulator's semantics: per-instruction execution, the
//! catalogue's kernels on every generation, DPP, the kernel descriptor and the initial wave
//! state, kernels LLVM's code generator made, each target's device, definedness and modifiers,
//! run exactly. Part of the fast loop (`cargo test`). One module per file; helpers shared across
//! crates are in tests/common, this crate's in `support`. No process-global state is changed
//! here (no `set_var`, no signal handlers installed in this process, no HIP runtime initialised
//! in this process): see CONTRIBUTING.md, "Test crates".

#[path = "../common/mod.rs"]
mod common;

mod catalogue;

mod compiled;

mod definedness;

mod descriptors;

mod dpp;

mod exec;

mod initial_state;

mod modifiers;

mod support;

mod targets;

mod xad_basic;
