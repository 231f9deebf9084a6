//! Every inline constant in every slot: integers 0..64 and -1..-16, and the
//! f32 constants 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi), each read
//! as its bit pattern. One kernel per slot and wave size
//! (kernels/include/xad_inline.inc); op j holds [`INLINE_CODES`]`[j]`.

use super::forms::{program_model, Lane::*, Op, Program, Spec, Src, Src::*, INLINE_CODES};
use super::Case;

const fn ops(slot: usize) -> [Op; 90] {
    let mut out = [Op::new(0, 0, [Null, Null, Null]); 90];
    let mut j = 0;
    while j < 90 {
        let mut src = [V(2, A), V(3, B), V(4, C)];
        src[slot] = Src::Inline(INLINE_CODES[j]);
        out[j] = Op::new(j as u16, 16 + j as u8, src);
        j += 1;
    }
    out
}

const SRC0: [Op; 90] = ops(0);
const SRC1: [Op; 90] = ops(1);
const SRC2: [Op; 90] = ops(2);

macro_rules! inline_cases {
    ($(($name:literal, $kernel:literal, $wave:literal, $ops:ident, $prog:ident, $model:ident, $desc:literal)),* $(,)?) => {
        $(
            static $prog: Program = Program { wave: $wave, words: 90, ops: &$ops };
            program_model!($model, $prog);
        )*
        pub(super) static SPECS: &[Spec] = &[$(
            Spec {
                case: Case {
                    name: $name,
                    description: $desc,
                    kernel: $kernel,
                    wave_size: $wave,
                    outputs_per_lane: 90,
                    scalar_args: 0,
                    keeps_lanes: false,
                    model: $model,
                    unsettled: None,
                },
                program: &$prog,
            },
        )*];
    };
}

inline_cases![
    ("inline_src0_w32", "xad_inline_src0_w32", 32, SRC0, P0_W32, m0_w32,
        "src0 = each inline constant (-16..64, and 0.5..4.0, their negatives, 1/(2pi) as f32 bits); src1 = b, src2 = c"),
    ("inline_src1_w32", "xad_inline_src1_w32", 32, SRC1, P1_W32, m1_w32,
        "src1 = each inline integer -16..64 and f32 constant (as bits); src0 = a, src2 = c"),
    ("inline_src2_w32", "xad_inline_src2_w32", 32, SRC2, P2_W32, m2_w32,
        "src2 = each inline integer -16..64 and f32 constant (as bits); src0 = a, src1 = b"),
    ("inline_src0_w64", "xad_inline_src0_w64", 64, SRC0, P0_W64, m0_w64,
        "wave64: src0 = each inline integer and f32 constant (as bits); src1 = b, src2 = c"),
    ("inline_src1_w64", "xad_inline_src1_w64", 64, SRC1, P1_W64, m1_w64,
        "wave64: src1 = each inline integer and f32 constant (as bits); src0 = a, src2 = c"),
    ("inline_src2_w64", "xad_inline_src2_w64", 64, SRC2, P2_W64, m2_w64,
        "wave64: src2 = each inline integer and f32 constant (as bits); src0 = a, src1 = b"),
];

#[cfg(test)]
mod tests {
    use super::super::forms::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_constants() {
        // a = b = c = 0 makes every slot yield the constant itself:
        // (k ^ 0) + 0 = (0 ^ k) + 0 = (0 ^ 0) + k = k.
        let want_head = [0u32, 1, 2, 3];
        for name in ["inline_src0_w32", "inline_src1_w32", "inline_src2_w32", "inline_src0_w64", "inline_src1_w64", "inline_src2_w64"] {
            let got = model_out(spec(SPECS, name), &[0], &[0], &[0], &[], &[]);
            assert_eq!(got[..4], want_head, "{name}");
            assert_eq!(got[64], 64, "{name}");
            assert_eq!(got[65], 0xFFFF_FFFF, "{name}: -1");
            assert_eq!(got[80], 0xFFFF_FFF0, "{name}: -16");
            assert_eq!(
                got[81..90],
                [0x3F00_0000, 0xBF00_0000, 0x3F80_0000, 0xBF80_0000, 0x4000_0000, 0xC000_0000, 0x4080_0000, 0xC080_0000, 0x3E22_F983],
                "{name}: f32 patterns"
            );
        }
        // a = 3, b = 5, c = 0x10: 1.0 in src0: (0x3F800000 ^ 5) + 0x10 = 0x3F800015;
        // -16 in src1: (3 ^ 0xFFFFFFF0) + 0x10 = 0xFFFFFFF3 + 0x10 = 0x03 (wraps);
        // 1/(2pi) in src2: (3 ^ 5) + 0x3E22F983 = 0x3E22F989.
        assert_eq!(model_out(spec(SPECS, "inline_src0_w32"), &[3], &[5], &[0x10], &[], &[])[83], 0x3F80_0015);
        assert_eq!(model_out(spec(SPECS, "inline_src1_w32"), &[3], &[5], &[0x10], &[], &[])[80], 0x0000_0003);
        assert_eq!(model_out(spec(SPECS, "inline_src2_w64"), &[3], &[5], &[0x10], &[], &[])[89], 0x3E22_F989);
    }
}
