//! Every inline constant in every slot: integers 0..64 and -1..-16, and the
//! f32 constants 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi), each read
//! as its bit pattern. One kernel per slot and wave size
//! (kernels/include/xad_inline.inc); op j holds [`INLINE_CODES`]`[j]`.

use super::declare::{case, Spec};
use super::op_table::{Lane::*, Op, Src, Src::*, INLINE_CODES};
use crate::platform::target::Feature;

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

pub(super) static SPECS: &[Spec] = &[
    case!("inline_src0_w32", wave: 32, ops: &SRC0, scalars: 0,
        description: "src0 = each inline constant (-16..64, and 0.5..4.0, their negatives, 1/(2pi) as f32 bits); src1 = b, src2 = c", requires: &[Feature::Wave32]),
    case!("inline_src1_w32", wave: 32, ops: &SRC1, scalars: 0,
        description: "src1 = each inline integer -16..64 and f32 constant (as bits); src0 = a, src2 = c", requires: &[Feature::Wave32]),
    case!("inline_src2_w32", wave: 32, ops: &SRC2, scalars: 0,
        description: "src2 = each inline integer -16..64 and f32 constant (as bits); src0 = a, src1 = b", requires: &[Feature::Wave32]),
    case!("inline_src0_w64", wave: 64, ops: &SRC0, scalars: 0,
        description: "wave64: src0 = each inline integer and f32 constant (as bits); src1 = b, src2 = c",
        requires: &[Feature::Wave64]
    ),
    case!("inline_src1_w64", wave: 64, ops: &SRC1, scalars: 0,
        description: "wave64: src1 = each inline integer and f32 constant (as bits); src0 = a, src2 = c",
        requires: &[Feature::Wave64]
    ),
    case!("inline_src2_w64", wave: 64, ops: &SRC2, scalars: 0,
        description: "wave64: src2 = each inline integer and f32 constant (as bits); src0 = a, src1 = b",
        requires: &[Feature::Wave64]
    ),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_constants() {
        // a = b = c = 0 makes every slot yield the constant itself:
        // (k ^ 0) + 0 = (0 ^ k) + 0 = (0 ^ 0) + k = k.
        let want_head = [0u32, 1, 2, 3];
        for name in [
            "inline_src0_w32",
            "inline_src1_w32",
            "inline_src2_w32",
            "inline_src0_w64",
            "inline_src1_w64",
            "inline_src2_w64",
        ] {
            let got = model_out(spec(SPECS, name), &[0], &[0], &[0], &[], &[]);
            assert_eq!(got[..4], want_head, "{name}");
            assert_eq!(got[64], 64, "{name}");
            assert_eq!(got[65], 0xFFFF_FFFF, "{name}: -1");
            assert_eq!(got[80], 0xFFFF_FFF0, "{name}: -16");
            assert_eq!(
                got[81..90],
                [
                    0x3F00_0000,
                    0xBF00_0000,
                    0x3F80_0000,
                    0xBF80_0000,
                    0x4000_0000,
                    0xC000_0000,
                    0x4080_0000,
                    0xC080_0000,
                    0x3E22_F983
                ],
                "{name}: f32 patterns"
            );
        }
        // a = 3, b = 5, c = 0x10: 1.0 in src0: (0x3F800000 ^ 5) + 0x10 = 0x3F800015;
        // -16 in src1: (3 ^ 0xFFFFFFF0) + 0x10 = 0xFFFFFFF3 + 0x10 = 0x03 (wraps);
        // 1/(2pi) in src2: (3 ^ 5) + 0x3E22F983 = 0x3E22F989.
        assert_eq!(
            model_out(
                spec(SPECS, "inline_src0_w32"),
                &[3],
                &[5],
                &[0x10],
                &[],
                &[]
            )[83],
            0x3F80_0015
        );
        assert_eq!(
            model_out(
                spec(SPECS, "inline_src1_w32"),
                &[3],
                &[5],
                &[0x10],
                &[],
                &[]
            )[80],
            0x0000_0003
        );
        assert_eq!(
            model_out(
                spec(SPECS, "inline_src2_w64"),
                &[3],
                &[5],
                &[0x10],
                &[],
                &[]
            )[89],
            0x3E22_F989
        );
    }
}
