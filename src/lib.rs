//! xad-harness: proves, lane by lane, that an AMD GPU executes `v_xad_u32`
//! (`D = (S0 ^ S1) + S2`, u32) exactly as the ISA says.
//!
//! Data flows one way: case -> seeded inputs -> device executes the code object
//! -> outputs -> check against the CPU model -> report.
//!
//! | module      | what it is                                                        |
//! |-------------|-------------------------------------------------------------------|
//! | [`target`]  | the targets as data: ISA, features, the first runtime that knows each, cards; which target a device runs |
//! | [`code_object_policy`] | which code object version each HIP runtime's loader accepts: v4 before 5.3, v5, v6 for generic targets |
//! | [`toolchain`] | find and prove an LLVM that assembles each target; assemble `.s` files with the generated `xad_target.inc` |
//! | [`kernels`] | the code objects `build.rs` assembled from `kernels/`, embedded; `code_object`: which one for a target and kernel, or why it was not built |
//! | [`codeobj`] | ELF, kernel descriptor, MessagePack metadata, kernarg layout       |
//! | [`backend`] | choosing the executor: HIP device or emulator (`--backend`)       |
//! | [`device`]  | the seam: the `Device` trait both backends implement, `Executor`, release errors |
//! | [`hip`]     | HIP backend: `sys` (raw FFI) -> `checked` (status -> Result) -> `safe` (RAII); `comgr`, the metadata as the runtime reads it |
//! | [`isa`]     | the machine encoding per generation: opcode table, operands, decoder, disassembler |
//! | [`emu`]     | embedded emulator of every target (gfx9, gfx10, gfx11, gfx12, gfx12.5): decode-time facts, the static passes on them (allocation, hazards, counters), then run time (waves, instruction families, shadow, workgroups, memory, faults) |
//! | [`cases`]   | the catalogue: kernel + CPU model + input plan per case            |
//! | [`inputs`]  | seeded random and edge-value input generation                      |
//! | [`check`]   | lane comparison: pass, wrong, unwritten, undefined and unsettled words; mismatch records |
//! | [`guard`]   | seeded guard words around every device buffer; stray writes named by buffer, word and lane |
//! | [`handle`]  | one kernel loaded on one device: load, allocate, launch, read back, release (one release rule) |
//! | [`report`]  | text, JSON, JUnit and HTML reports; the JSON reports' types (`report::document`) |
//! | [`files`]   | the one rule for files the tool writes (temporary file, rename) and reads (regular files, size caps) |
//! | [`findings`] | a probe case on a device: each lane's modifier words classified as the candidate readings they match; per field the reading the device follows |
//! | [`pattern`] | where a case's verdicts fall: fixed-size counters per lane class, lane range and result bit, for the HTML page |
//! | [`run`]     | the pipeline for one case on one device: inputs, launch, check     |
//! | [`dump`]    | `run --dump`: failing (or all) lanes' blocks as `.npy` files, the code object that ran, a manifest |
//! | [`replay`]  | `xad-harness replay`: read and validate a dump, run its blocks again, say what reproduced |
//! | [`interrupt`] | SIGINT/SIGTERM set a flag; runs stop at the next dispatch boundary |
//! | [`plan`]    | what a `run` will do, decided before anything launches: cases, devices and targets, each case's code object resolved once, the user's `--kernel` |
//! | [`execute`] | executing a plan: each device's targets and cases in order (HIP devices at once), not-supported results, stop after a timeout or a signal |
//! | [`session`] | one `run` invocation: plan, execute, report (gather release errors, write the report files, choose the exit code) |
//! | [`soak`]    | `xad-harness soak`: on-device generated inputs, `v_xad_u32` and an independent check for a duration; host re-check of recorded and sampled lanes; per-CU coverage |
//! | [`merge`]   | `xad-harness merge`: one JSON and JUnit report from a fleet's per-node reports; exit codes combined |
//! | [`microbench`] | `xad-harness microbench`: latency and throughput of v_xad_u32 vs v_xor_b32 + add and v_add3_u32 from the GPU's cycle counter; hardware only |
//! | [`listing`] | what `list` and `devices` show: typed rows for `--json`, text lines |
//! | [`commands`] | the command line as library code: the clap tree, one module per command, `dispatch` |
//! | [`bench`](mod@bench)   | `xad-harness bench`: emulator pipeline vs a native loop, same data  |
//! | [`error`]   | the error types (`Error`, `RunError`, `ReleaseError`) and exit codes |
//!
//! All `unsafe` code lives in [`hip`] (FFI); the emulator is safe Rust.

#![deny(unsafe_code)]

pub mod commands;
pub mod error;
pub mod isa;
pub mod model;
pub mod pipeline;
pub mod platform;
pub mod report;
