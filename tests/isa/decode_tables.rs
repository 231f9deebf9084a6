//! The decoder's oracle, generated: per target measured, llvm-mc-19's canonical text of every
//! line of the `tests/kernels/emu` `.part` lists it accepts and the bytes it encoded
//! (`sh tests/kernels/emu/gen_decode_table.sh` rewrites `tests/isa/decode_tables/<target>.rs`;
//! never edited by hand). `decode_oracle` decodes every row and re-measures them when
//! llvm-mc-19 is installed; the `llvm22` crate measures gfx1250 against the gfx1200 rows.

/// A generated decode table: llvm-mc's text and bytes per row.
pub type Table = &'static [(&'static str, &'static [u8])];

/// gfx1100 (gfx11): `*.part`.
pub const GFX1100: Table = include!("decode_tables/gfx1100.rs");
/// gfx1200 (gfx12): `*.part` and `gfx12/*.part`.
pub const GFX1200: Table = include!("decode_tables/gfx1200.rs");
/// gfx1151 (gfx115x): `gfx115x/*.part`.
pub const GFX1151: Table = include!("decode_tables/gfx1151.rs");
/// gfx1030 (gfx10), wave32: `gfx10/*.part`.
pub const GFX1030: Table = include!("decode_tables/gfx1030.rs");
/// gfx1030 (gfx10), wave64 (`-mattr=+wavefrontsize64`): `gfx10/wave64/*.part`.
pub const GFX1030_W64: Table = include!("decode_tables/gfx1030_w64.rs");
/// gfx90a (gfx9; gfx942 encodes the rows alike): `gfx9/*.part`.
pub const GFX90A: Table = include!("decode_tables/gfx90a.rs");
