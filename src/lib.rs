//! xad-harness: proves, lane by lane, that an AMD GPU executes `v_xad_u32`
//! (`D = (S0 ^ S1) + S2`, u32) exactly as the ISA says.
//!
//! Data flows one way: case -> seeded inputs -> device executes the code object
//! -> outputs -> check against the CPU model -> report.
//!
//! `src/` is six wings, read from the top down: a command ([`commands`])
//! plans and runs cases through the [`pipeline`], which asks the [`model`]
//! what each lane should hold and the [`platform`] what the device left
//! there; the [`platform`] reads code objects with [`isa`]. The [`report`]s
//! are drawn from what the pipeline found, for the commands. [`error`] is
//! every wing's error vocabulary. Each wing is a folder of rooms, each room
//! importing only from the rooms below it (ARCHITECTURE.md, "Layers"):
//!
//! | module      | what it is                                                        |
//! |-------------|-------------------------------------------------------------------|
//! | [`commands`] | the command line as library code: the clap tree and `dispatch`; one room per command, its clap arguments in its `mod.rs` and its engine beside them |
//! | [`commands::shared`] | what every command uses: `Failure`, the usage check, `say`/`warn`, the value parsers, `backend_choice` |
//! | [`commands::run`] | `xad-harness run`: its arguments; `plan` (cases, devices, targets, each case's code object resolved once, the user's `--kernel`), `execute` (each device's targets and cases in order, HIP devices at once, a timeout or a signal stopping it; returns each planned case as ran or not run with why), `fold` (those outcomes folded into the report), `session` (plan, execute, fold: release errors, report files, exit code), `dump` (`run --dump`: `.npy` blocks, the code object, a manifest), `progress` (the bar) |
//! | [`commands::replay`] | `xad-harness replay`: `rerun` reads and validates a dump, runs its blocks again, says what reproduced |
//! | [`commands::merge`] | `xad-harness merge`: `combine` makes one JSON and JUnit report from a fleet's per-node reports; exit codes combined |
//! | [`commands::report`] | `xad-harness report`: a saved JSON report drawn as one HTML page |
//! | [`commands::soak`] | `xad-harness soak`: `endurance` runs `v_xad_u32` with on-device inputs and check for a duration; host re-check of recorded and sampled lanes; per-CU coverage |
//! | [`commands::microbench`] | `xad-harness microbench`: `timing` measures latency and throughput of `v_xad_u32` vs `v_xor_b32` + add and `v_add3_u32` from the GPU's cycle counter; hardware only |
//! | [`commands::bench`] | `xad-harness bench`: `measure` runs the emulator pipeline against a native loop, same data |
//! | [`commands::list`] | `xad-harness list`; `rows`: what `list` and `devices` show, typed rows for `--json` and text lines |
//! | [`commands::devices`] | `xad-harness devices`: the HIP devices and whether the harness runs on them |
//! | [`commands::kernels`] | `xad-harness kernels`: every target's embedded code objects written to a directory |
//! | [`commands::schema`] | `xad-harness schema`: the JSON Schema of the run report |
//! | [`report`]  | text, JSON, JUnit and HTML reports of a run (`RunReport`); the JSON reports' types (`report::document`); the report files' one rule (`report::outputs`) |
//! | [`pipeline`] | one case on one device |
//! | [`pipeline::run`] | the pipeline for one case on one device, in chunks of lanes: inputs, launch, check |
//! | [`pipeline::handle`] | one kernel loaded on one device: load, allocate, launch, read back, release (one release rule) |
//! | [`pipeline::guard`] | seeded guard words around every device buffer; stray writes named by buffer, word and lane |
//! | [`pipeline::findings`] | a probe case on a device: each lane's modifier words classified as the candidate readings they match; per field the reading the device follows |
//! | [`pipeline::pattern`] | where a case's verdicts fall: fixed-size counters per lane class, lane range and result bit, for the HTML page |
//! | [`pipeline::interrupt`] | SIGINT/SIGTERM set a flag; runs stop at the next dispatch boundary |
//! | [`model`]   | what each lane should hold |
//! | [`model::cases`] | the catalogue: kernel + CPU model + input plan per case |
//! | [`model::inputs`] | seeded random and edge-value input generation |
//! | [`model::check`] | lane comparison: pass, wrong, unwritten, undefined and unsettled words; mismatch records |
//! | [`platform`] | what runs a code object, and what the harness stands on |
//! | [`platform::code_object_policy`] | which code object version each HIP runtime's loader accepts: v4 before 5.3, v5, v6 for generic targets (re-exported from the `xad-build` crate, `crates/xad-build`, which `build.rs` uses too) |
//! | [`platform::target`] | the targets as data: ISA, features, the first runtime that knows each, cards; which target a device runs (re-exported from `xad-build`) |
//! | [`platform::toolchain`] | find and prove an LLVM that assembles each target (re-exported from `xad-build`, which also holds the HIP root `build.rs` uses); assemble `.s` files with the generated `xad_target.inc` |
//! | [`platform::files`] | the one rule for files the tool writes (temporary file, rename) and reads (regular files, size caps) |
//! | [`platform::codeobj`] | ELF, kernel descriptor, MessagePack metadata, kernarg layout, the one launch check |
//! | [`platform::device`] | the seam: the `Device` trait both backends implement, `Executor`, release errors |
//! | [`platform::embedded`] | the code objects `build.rs` assembled from `kernels/`, embedded; `code_object`: which one for a target and kernel, or why it was not built |
//! | [`platform::emu`] | embedded emulator of every target (gfx9, gfx10, gfx11, gfx12, gfx12.5): decode-time facts, the static passes on them (allocation, hazards, counters), then run time (waves, instruction families, shadow, workgroups, memory, faults) |
//! | [`platform::hip`] | HIP backend: `sys` (raw FFI) -> `checked` (status -> Result) -> `safe` (RAII); `comgr`, the metadata as the runtime reads it |
//! | [`platform::backend`] | choosing the executor: HIP device or emulator (`--backend`) |
//! | [`isa`]     | the machine encoding per generation: opcode table, operands, decoder, disassembler; `Generation` and `Isa` re-exported from `xad-build` |
//! | [`error`]   | the error types (`Error`, `RunError`, `ReleaseError`) and exit codes |
//!
//! All `unsafe` code lives in [`platform::hip`] (FFI); the emulator is safe Rust.

#![deny(unsafe_code)]

pub mod commands;
pub mod error;
pub mod isa;
pub mod model;
pub mod pipeline;
pub mod platform;
pub mod report;
