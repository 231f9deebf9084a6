//! Test crate `llvm22`. The newer LLVM (22: llvm-mc-22, llvm-objdump-22, ld.lld-22) as the
//! oracle for what only it knows: CDNA5's (gfx1250) decoding and its `s_set_vgpr_msb`, run on
//! the emulator, and the modifier probe words against llvm-mc for gfx950 and gfx1250 beside the
//! LLVM 19 targets. Behind the slow switch (`cargo test-all`, `test = false`): every test here
//! starts LLVM 22 (skipping, saying so, where it is not installed). The decode helpers and
//! tables are the `isa` crate's, included with `#[path]`. See CONTRIBUTING.md, "Test crates".

#[allow(dead_code)]
#[path = "../isa/decode_tables.rs"]
mod decode_tables;
#[allow(dead_code)]
#[path = "../isa/support.rs"]
mod support;

mod decode;
mod exec;
mod modifiers;
