//! DPP8 on src0 (kernels/include/xad_dpp.inc, XAD_DPP8): lane n reads lane
//! (n & !7) | sel[n & 7]. Random selectors with the whole wave on (fi 0 and 1),
//! then source lanes switched off by EXEC patterns: fi=0 (src0 code 0xE9) reads
//! 0 from them, fi=1 (0xEA) reads their value (RDNA3 ISA guide section 7.7,
//! DPP8; section 15.3.9).

use super::declare::{case, Spec};
use super::op_table::{int, Dpp, Exec, Lane::*, Op, Src, Src::*};
use crate::platform::target::Feature;

const ABC: [Src; 3] = [V(2, A), V(3, B), V(4, C)];

const fn op(j: u16, src: [Src; 3], sel: [u8; 8], fi: bool, exec: Exec) -> Op {
    Op::new(j, 16 + j as u8, src)
        .exec(exec)
        .dpp(Dpp::Lane8 { sel, fi })
}
const fn pat(p: u32) -> Exec {
    Exec::Pattern(p as u64 | (p as u64) << 32)
}
const W: Exec = Exec::Wave;
const REVERSE: [u8; 8] = [7, 6, 5, 4, 3, 2, 1, 0];
const PAIRS: [u8; 8] = [1, 0, 3, 2, 5, 4, 7, 6];

const DPP8: [Op; 12] = [
    op(0, ABC, REVERSE, false, W),
    op(1, ABC, PAIRS, true, W),
    op(2, ABC, [0; 8], false, W),
    op(
        3,
        [V(2, A), V(3, B), Sreg(20, 0)],
        [3, 7, 1, 5, 0, 4, 2, 6],
        true,
        W,
    ),
    op(
        4,
        [V(4, C), V(2, A), V(3, B)],
        [6, 2, 7, 3, 1, 5, 0, 4],
        false,
        W,
    ),
    op(
        5,
        [V(2, A), V(3, B), int(-3)],
        [5, 5, 2, 2, 7, 0, 1, 3],
        true,
        W,
    ),
    op(6, ABC, PAIRS, false, pat(0x5555_5555)),
    op(7, ABC, PAIRS, true, pat(0x5555_5555)),
    op(8, ABC, REVERSE, false, pat(0x0f0f_0f0f)),
    op(9, ABC, [0; 8], false, pat(0xffff_fffe)),
    op(10, ABC, [2, 3, 0, 1, 6, 7, 4, 5], false, Exec::Scalar(0)),
    op(11, ABC, [4, 5, 6, 7, 0, 1, 2, 3], true, Exec::Scalar(2)),
];

const D_DPP8: &str = "DPP8 on src0 = a (c in one op): 6 random selector sets, fi 0 and 1, whole wave active; \
then source lanes off under EXEC patterns (alternating, half-bytes, all-but-one, random): fi=0 reads 0, fi=1 the lane";

pub(super) static SPECS: &[Spec] = &[
    case!("dpp8_w32", wave: 32, ops: &DPP8, scalars: 8, description: D_DPP8, requires: &[Feature::Wave32, Feature::Vop3Dpp, Feature::Dpp8, Feature::DppFetchInactive]),
    case!("dpp8_w64", wave: 64, ops: &DPP8, scalars: 8, description: D_DPP8, requires: &[Feature::Wave64, Feature::Vop3Dpp, Feature::Dpp8, Feature::DppFetchInactive]),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    const KEEP: u32 = 0xEEEE_0000;

    #[test]
    fn dpp8_by_hand() {
        // a = 0x100 + lane, b = c = 0; s20 = 0x0000_0F00 (lanes 8-11), s22 = 0x1 (lane 0).
        for (name, n) in [("dpp8_w32", 32usize), ("dpp8_w64", 64)] {
            let k = 12;
            let a: Vec<u32> = (0..n as u32).map(|l| 0x100 + l).collect();
            let z = vec![0u32; n];
            let prefill: Vec<u32> = (0..n * k).map(|i| KEEP + (i % k) as u32).collect();
            let out = model_out(
                spec(SPECS, name),
                &a,
                &z,
                &z,
                &[0xF00, 0, 1, 0, 0, 0, 0, 0],
                &prefill,
            );
            let w = |lane: usize, j: usize| out[lane * k + j];
            assert_eq!(w(9, 0), 0x10E, "{name}: reverse, 9 reads 14");
            assert_eq!(w(9, 1), 0x108, "{name}: pairs, 9 reads 8");
            assert_eq!(w(13, 2), 0x108, "{name}: zeros, 13 reads 8");
            assert_eq!(
                w(1, 4),
                0x101,
                "{name}: src0 = c of lane 2 (0), src1 = a: (0 ^ 0x101) + 0"
            );
            assert_eq!(
                (w(0, 6), w(1, 6)),
                (0, KEEP + 6),
                "{name}: fi=0: lane 0 reads inactive 1 as 0"
            );
            assert_eq!(w(0, 7), 0x101, "{name}: fi=1: lane 0 reads inactive 1");
            assert_eq!(
                (w(1, 8), w(4, 8)),
                (0, KEEP + 8),
                "{name}: reverse, lane 1 reads inactive 6: 0"
            );
            assert_eq!(
                (w(0, 9), w(7, 9)),
                (KEEP + 9, 0),
                "{name}: lane 7 reads inactive 0: 0"
            );
            assert_eq!(
                (w(8, 10), w(11, 10)),
                (0x10A, 0x109),
                "{name}: s20 lanes 8-11 read each other"
            );
            assert_eq!(w(0, 11), 0x104, "{name}: fi=1, lane 0 reads inactive 4");
        }
    }
}
