//! VGPR sources: every slot, one VGPR in several slots, high VGPR numbers, and
//! the destination aliasing each source. Kernels: kernels/include/xad_vgpr.inc.

use super::declare::{case, Spec};
use super::op_table::{Lane::*, Op, Src::*};
use crate::platform::target::Feature;

const OPS: [Op; 13] = [
    Op::new(0, 16, [V(2, A), V(3, B), V(4, C)]),
    Op::new(1, 17, [V(4, C), V(2, A), V(3, B)]),
    Op::new(2, 18, [V(3, B), V(4, C), V(2, A)]),
    Op::new(3, 19, [V(2, A), V(2, A), V(3, B)]),
    Op::new(4, 20, [V(3, B), V(4, C), V(4, C)]),
    Op::new(5, 21, [V(4, C), V(3, B), V(4, C)]),
    Op::new(6, 22, [V(2, A), V(2, A), V(2, A)]),
    Op::new(7, 250, [V(255, A), V(200, B), V(128, C)]),
    Op::new(8, 23, [V(23, A), V(3, B), V(4, C)]),
    Op::new(9, 24, [V(2, A), V(24, B), V(4, C)]),
    Op::new(10, 25, [V(2, A), V(3, B), V(25, C)]),
    Op::new(11, 26, [V(26, A), V(3, B), V(26, A)]),
    Op::new(12, 27, [V(27, B), V(27, B), V(27, B)]),
];

const DESCRIPTION: &str =
    "VGPR sources a/b/c in every slot order, one VGPR in two and three slots, \
v255/v200/v128, vdst = src0, src1, src2, src0+src2 and all three";

pub(super) static SPECS: &[Spec] = &[
    case!("vgpr_w32", wave: 32, ops: &OPS, scalars: 0, description: DESCRIPTION, requires: &[Feature::Wave32]),
    case!("vgpr_w64", wave: 64, ops: &OPS, scalars: 0, description: DESCRIPTION, requires: &[Feature::Wave64]),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_lane() {
        // a = 0xF0F0F0F0, b = 0x0FF00FF0, c = 0x80000001, worked by hand:
        // a^b = 0xFF00FF00, b^c = 0x8FF00FF1, c^a = 0x70F0F0F1.
        let (a, b, c) = (0xF0F0_F0F0u32, 0x0FF0_0FF0u32, 0x8000_0001u32);
        let want = [
            0x7F00_FF01, // (a^b)+c
            0x80E1_00E1, // (c^a)+b = 0x70F0F0F1 + 0x0FF00FF0
            0x80E1_00E1, // (b^c)+a = 0x8FF00FF1 + 0xF0F0F0F0 (wraps)
            0x0FF0_0FF0, // (a^a)+b
            0x0FF0_0FF2, // (b^c)+c = 0x8FF00FF1 + 0x80000001 (wraps)
            0x0FF0_0FF2, // (c^b)+c, as word 4
            0xF0F0_F0F0, // (a^a)+a
            0x7F00_FF01, // high VGPRs: (a^b)+c
            0x7F00_FF01, // vdst = src0
            0x7F00_FF01, // vdst = src1
            0x7F00_FF01, // vdst = src2
            0xEFF1_EFF0, // (a^b)+a = 0xFF00FF00 + 0xF0F0F0F0 (wraps)
            0x0FF0_0FF0, // (b^b)+b
        ];
        for name in ["vgpr_w32", "vgpr_w64"] {
            let got = model_out(spec(SPECS, name), &[a], &[b], &[c], &[], &[]);
            assert_eq!(got, want, "{name}");
        }
    }
}
