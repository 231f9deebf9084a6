//! 32-bit literal sources (kernels/include/xad_literal.inc): six values (the
//! sign boundary both sides, 65 and -17 just outside the inline range, two
//! random-looking words) each in every slot, slot pair and all three slots;
//! literal beside an SGPR; and raw-encoded literals whose values also have inline
//! codes (0xffffffff, 0x3f800000, 64).

use super::declare::{case, Spec};
use super::op_table::{Lane::*, Op, Src, Src::*};
use crate::platform::target::Feature;

const VALUES: [u32; 6] = [
    0x8000_0000,
    0x7fff_ffff,
    65,
    (-17i32) as u32,
    0x6a09_e667,
    0x9e37_79b9,
];
const RAW_VALUES: [u32; 3] = [0xffff_ffff, 0x3f80_0000, 64];

const fn s(k: usize) -> Src {
    Sreg(20 + k as u16, k)
}

const OPS: [Op; 55] = {
    let mut out = [Op::new(0, 0, [Null, Null, Null]); 55];
    let (a, b, c) = (V(2, A), V(3, B), V(4, C));
    let mut v = 0;
    while v < 6 {
        let l = Lit(VALUES[v]);
        let forms = [
            [l, b, c],
            [a, l, c],
            [a, b, l],
            [l, l, c],
            [l, b, l],
            [a, l, l],
            [l, l, l],
        ];
        let mut f = 0;
        while f < 7 {
            let j = v * 7 + f;
            out[j] = Op::new(j as u16, 16 + j as u8, forms[f]);
            f += 1;
        }
        v += 1;
    }
    out[42] = Op::new(42, 58, [s(0), Lit(0x6a09_e667), c]);
    out[43] = Op::new(43, 59, [Lit(0x9e37_79b9), b, s(1)]);
    out[44] = Op::new(44, 60, [a, s(0), Lit(0x8000_0000)]);
    out[45] = Op::new(45, 61, [Lit(0x7fff_ffff), s(1), Lit(0x7fff_ffff)]);
    let mut r = 0;
    while r < 9 {
        let j = 46 + r;
        let mut src = [a, b, c];
        src[r % 3] = Lit(RAW_VALUES[r / 3]);
        out[j] = Op::new(j as u16, 16 + j as u8, src);
        r += 1;
    }
    out
};

const DESCRIPTION: &str = "literals 0x80000000, 0x7fffffff, 65, -17, 0x6a09e667, 0x9e3779b9 in each slot, each slot pair \
and all three; literal + random SGPR; raw-encoded literals 0xffffffff, 0x3f800000, 64 in each slot";

pub(super) static SPECS: &[Spec] = &[
    case!("literal_w32", wave: 32, ops: &OPS, scalars: 8, description: DESCRIPTION, requires: &[Feature::Wave32, Feature::Vop3Literal, Feature::TwoScalarReads]),
    case!("literal_w64", wave: 64, ops: &OPS, scalars: 8, description: DESCRIPTION, requires: &[Feature::Wave64, Feature::Vop3Literal, Feature::TwoScalarReads]),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_literals() {
        // a = 1, b = 2, c = 4, s20 = 0x10, s21 = 0x20; worked by calculator.
        let scalars = [0x10, 0x20, 0, 0, 0, 0, 0, 0];
        for name in ["literal_w32", "literal_w64"] {
            let got = model_out(spec(SPECS, name), &[1], &[2], &[4], &scalars, &[]);
            // 0x80000000: (L^2)+4, (1^L)+4, (1^2)+L, (L^L)+4, (L^2)+L, (1^L)+L, (L^L)+L
            assert_eq!(
                got[0..7],
                [0x8000_0006, 0x8000_0005, 0x8000_0003, 4, 2, 1, 0x8000_0000],
                "{name}"
            );
            // -17 = 0xFFFFFFEF: (L^2)+4 = 0xFFFFFFED+4 = 0xFFFFFFF1; (1^L)+4 = 0xFFFFFFEE+4;
            // (1^2)+L = 0xFFFFFFF2; (L^L)+4 = 4; (L^2)+L wraps to 0xFFFFFFDC; (1^L)+L = 0xFFFFFFDD
            assert_eq!(
                got[21..28],
                [
                    0xFFFF_FFF1,
                    0xFFFF_FFF2,
                    0xFFFF_FFF2,
                    4,
                    0xFFFF_FFDC,
                    0xFFFF_FFDD,
                    0xFFFF_FFEF
                ],
                "{name}"
            );
            assert_eq!(got[42], 0x6A09_E67B, "{name}: (0x10 ^ 0x6a09e667) + 4");
            assert_eq!(
                got[45], 0xFFFF_FFDE,
                "{name}: (0x7fffffff ^ 0x20) + 0x7fffffff"
            );
            // raw 0xffffffff: (L^2)+4 = 0xFFFFFFFD+4 = 1; (1^L)+4 = 2; (1^2)+L = 2 (all wrap)
            assert_eq!(got[46..49], [1, 2, 2], "{name}");
            assert_eq!(
                got[49..55],
                [0x3F80_0006, 0x3F80_0005, 0x3F80_0003, 0x46, 0x45, 0x43],
                "{name}"
            );
        }
    }
}
