//! Test crate `isa`. The instruction decoder against the assembler: the decode tests of each generation, and the
//! generated decode tables they read (modules here, not test binaries).
//! One module per former test file; helpers shared across crates are in tests/common.
//! No process-global state is changed here (no `set_var`, no signal handlers installed in this
//! process, no HIP runtime loaded by a test): see CONTRIBUTING.md, "Test crates".

mod isa_decode;
mod isa_decode_gfx9;
mod isa_decode_gfx10;
mod isa_decode_vgpr_msb;
#[rustfmt::skip]
mod isa_decode_table;
#[rustfmt::skip]
mod isa_decode_table_gfx10;
#[rustfmt::skip]
mod isa_decode_table_gfx10_w64;
#[rustfmt::skip]
mod isa_decode_table_gfx115x;
#[rustfmt::skip]
mod isa_decode_table_gfx12;
#[rustfmt::skip]
mod isa_decode_table_gfx9;
