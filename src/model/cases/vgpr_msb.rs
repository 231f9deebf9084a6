//! VGPRs past v255 (CDNA5: gfx1250, gfx1251): `v_xad_u32` with its
//! destination, then each source, then every operand in v256-v1023 through
//! `s_set_vgpr_msb`. Kernel: kernels/include/xad_vgpr_msb.inc.
//!
//! The table holds each operand's encoded 8 bits (what the instruction's
//! words hold: v773 is `v5`) and the kernel's `s_set_vgpr_msb` setting
//! before the op, which gives bits 9:8 ([`Op::vgpr_msb`]). The kernel zeroes every high
//! operand's low twin first, so a wrong setting (or an executor ignoring
//! it) reads 0 or an unwritten VGPR and fails the case.

use super::declare::{case, Spec};
use super::op_table::{Lane::*, Op, Src::*};
use crate::platform::target::Feature;

const OPS: [Op; 5] = [
    Op::new(0, 5, [V(9, A), V(10, B), V(11, C)]).vgpr_msb(0xc0), // v773 = (a ^ b) + c
    Op::new(1, 17, [V(2, A), V(10, B), V(11, C)]).vgpr_msb(0x01), // src0 v258
    Op::new(2, 18, [V(9, A), V(3, B), V(11, C)]).vgpr_msb(0x08), // src1 v515
    Op::new(3, 19, [V(9, A), V(10, B), V(255, C)]).vgpr_msb(0x30), // src2 v1023
    // v774 = (v515 ^ v1023) + v258
    Op::new(4, 6, [V(3, B), V(255, C), V(2, A)]).vgpr_msb(0xde),
];

const DESCRIPTION: &str = "VGPRs v256-v1023 through s_set_vgpr_msb (CDNA5): vdst v773, src0 v258, \
src1 v515, src2 v1023, then all four (v774 = (v515 ^ v1023) + v258); their low twins zeroed";

pub(super) static SPECS: &[Spec] = &[case!(
    "vgpr_msb_w32",
    wave: 32,
    ops: &OPS,
    scalars: 0,
    description: DESCRIPTION,
    requires: &[Feature::Wave32, Feature::VgprMsb]
)];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_lane() {
        // a = 0xF0F0F0F0, b = 0x0FF00FF0, c = 0x80000001: a^b = 0xFF00FF00,
        // b^c = 0x8FF00FF1.
        let (a, b, c) = (0xF0F0_F0F0u32, 0x0FF0_0FF0u32, 0x8000_0001u32);
        let abc = 0x7F00_FF01; // (a^b)+c
        let bca = 0x80E1_00E1; // (b^c)+a = 0x8FF00FF1 + 0xF0F0F0F0 (wraps)
        let got = model_out(spec(SPECS, "vgpr_msb_w32"), &[a], &[b], &[c], &[], &[]);
        assert_eq!(got, [abc, abc, abc, abc, bca]);
    }
}
