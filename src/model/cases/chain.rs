//! Dependent v_xad_u32 back to back (kernels/include/xad_chain.inc): each link
//! reads the previous link's result in the very next instruction, so a wrong
//! forwarding path shows as a wrong link. Chain A keeps every link (out words
//! 0-23); chain B runs 16 links in place in one VGPR (word 24 = its last).

use super::declare::{case, Spec};
use super::op_table::{int, Lane::*, Op, Src, Src::*};
use crate::platform::target::Feature;

/// The two non-forwarded operands of link `j`, in slot order; `x3` is link
/// j%4 == 3's first one (a literal, or an inline constant where VOP3 has no
/// literal).
const fn others(j: usize, x3: Src) -> (Src, Src) {
    match j % 4 {
        0 => (V(3, B), V(4, C)),
        1 => (Sreg(20, 0), V(4, C)),
        2 => (int(-7), V(2, A)),
        _ => (x3, V(3, B)),
    }
}

/// Link `j`: `prev` in slot j%3, the others around it.
const fn link(j: usize, prev: Src, x3: Src) -> [Src; 3] {
    let (x, y) = others(j, x3);
    match j % 3 {
        0 => [prev, x, y],
        1 => [x, prev, y],
        _ => [x, y, prev],
    }
}

const fn chain(x3: Src) -> [Op; 40] {
    let mut out = [Op::new(0, 16, [V(2, A), V(3, B), V(4, C)]); 40];
    let mut j = 1;
    while j < 24 {
        out[j] = Op::new(
            j as u16,
            16 + j as u8,
            link(j, Res(15 + j as u8, j - 1), x3),
        );
        j += 1;
    }
    let mut i = 0;
    while i < 16 {
        let prev = if i == 0 {
            V(40, A)
        } else {
            Res(40, 24 + i - 1)
        };
        let op = Op::new(24, 40, link(i, prev, x3));
        out[24 + i] = if i == 15 { op } else { op.unstored() };
        i += 1;
    }
    out
}

const OPS: [Op; 40] = chain(Lit(0x5a5a_5a5a));
/// gfx9 has no VOP3 literal: 1/(2*pi) (inline code 248) takes its place.
const INLINE_OPS: [Op; 40] = chain(Src::Inline(248));

const DESCRIPTION: &str =
    "24 dependent links, each reading the previous result at once in a rotating slot beside b/c, \
random s20, inline -7 or literal 0x5a5a5a5a; 16 links in place (vdst = forwarded source)";

pub(super) static SPECS: &[Spec] = &[
    case!("chain_w32", wave: 32, ops: &OPS, scalars: 8, description: DESCRIPTION, requires: &[Feature::Wave32, Feature::Vop3Literal]),
    case!("chain_w64", wave: 64, ops: &OPS, scalars: 8, description: DESCRIPTION, requires: &[Feature::Wave64, Feature::Vop3Literal]),
    case!("chain_inline_w64", wave: 64, ops: &INLINE_OPS, scalars: 8,
        description: "as chain_w64 with inline 1/(2pi) (0x3e22f983) where chain_w64 has its literal: the chain gfx9 can encode",
        requires: &[Feature::Wave64]
    ),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_links() {
        // a = 1, b = 2, c = 3, s20 = 0x100, worked link by link with a calculator:
        // r0 = (1^2)+3 = 6; r1 = (s20 ^ r0) + c = 0x106 + 3 = 0x109;
        // r2 = (-7 ^ a) + r1 = 0xFFFFFFF8 + 0x109 = 0x101 (wraps);
        // r3 = (r2 ^ 0x5a5a5a5a) + b = 0x5A5A5B5B + 2 = 0x5A5A5B5D;
        // r4 = (b ^ r3) + c = 0x5A5A5B5F + 3 = 0x5A5A5B62.
        for name in ["chain_w32", "chain_w64"] {
            let got = model_out(
                spec(SPECS, name),
                &[1],
                &[2],
                &[3],
                &[0x100, 0, 0, 0, 0, 0, 0, 0],
                &[],
            );
            assert_eq!(
                got[..5],
                [6, 0x109, 0x101, 0x5A5A_5B5D, 0x5A5A_5B62],
                "{name}"
            );
            assert_eq!(got[23], 0xB4B4_BB09, "{name}: link 23");
            assert_eq!(got[24], 0x0000_3AD9, "{name}: chain B");
        }
    }
}
