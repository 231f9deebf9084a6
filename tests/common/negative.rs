//! The negative controls' reference kernel edits and their inputs, shared by the `cli` crate's
//! `negative` (through the binary) and the `pipeline` crate's (through the library): how many
//! lanes each wrong kernel must fail is counted here from the inputs the harness generates.

use xad_harness::model::inputs;

pub const LANES: usize = 100_000;

pub const SEED: u64 = 0x5eed;

pub const XAD_LINE: &str =
    "  v_xad_u32 v5, v2, v3, v4                  // the instruction under test";

/// The inputs the harness generates for `SEED`, to count failures independently.
pub fn sources() -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut a, mut b, mut c) = (vec![0; LANES], vec![0; LANES], vec![0; LANES]);
    inputs::fill_sources(SEED, 0, &mut a, &mut b, &mut c);
    (a, b, c)
}

// ---- gfx12 (RDNA4) controls: the same kind of edits on kernels/include/xad_basic_gfx12.s,
// run on the emulated gfx1201.
pub const GFX12: &str = "gfx1201";

/// kernels/include/xad_basic_gfx12.s made self-contained for gfx1201, with `from`
/// replaced by `to` (which must occur).
pub fn gfx12_variant(from: &str, to: &str) -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/include/xad_basic_gfx12.s");
    let src = std::fs::read_to_string(path).unwrap();
    assert!(src.contains(".include \"xad_target.inc\"\n"));
    assert!(
        src.contains(from),
        "kernels/include/xad_basic_gfx12.s no longer contains {from:?}"
    );
    src.replace(
        ".include \"xad_target.inc\"\n",
        &xad_harness::platform::toolchain::target_include(GFX12),
    )
    .replace(from, to)
    .replace(".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 8")
}

/// (name, edit of the xad line, expected result per lane) of the gfx12 wrong kernels.
pub type Wrong = (&'static str, &'static str, fn(u32, u32, u32) -> u32);

pub const GFX12_WRONG: [Wrong; 3] = [
    (
        "add_then_xor",
        "  v_add_nc_u32 v5, v2, v3\n  v_xor_b32 v5, v5, v4",
        |a, b, c| a.wrapping_add(b) ^ c,
    ),
    ("swapped", "  v_xad_u32 v5, v2, v4, v3", |a, b, c| {
        (a ^ c).wrapping_add(b)
    }),
    ("add3", "  v_add3_u32 v5, v2, v3, v4", |a, b, c| {
        a.wrapping_add(b).wrapping_add(c)
    }),
];

/// Lanes where `wrong` differs from v_xad_u32 for the harness's inputs.
pub fn lanes_differing(wrong: fn(u32, u32, u32) -> u32) -> u64 {
    let (a, b, c) = sources();
    (0..LANES)
        .filter(|&i| wrong(a[i], b[i], c[i]) != (a[i] ^ b[i]).wrapping_add(c[i]))
        .count() as u64
}
