//! DPP16 on src0 (kernels/include/xad_dpp.inc): quad_perm, row_shl/shr/ror
//! 1..15 with bound_ctrl 0 and 1, row_mirror, row_half_mirror, row_share and
//! row_xmask 0..15, row_mask/bank_mask subsets, and inactive source lanes
//! under EXEC patterns with fi=1. Lane rules: [`super::model::dpp16_source`].

use super::declare::{case, Spec};
use super::op_table::{
    quad_perm, row, row_ror, row_share, row_shl, row_shr, row_xmask, Dpp, Exec, Lane::*, Op, Src,
    Src::*, ROW_HALF_MIRROR, ROW_MIRROR,
};
use crate::platform::target::Feature;

const ABC: [Src; 3] = [V(2, A), V(3, B), V(4, C)];

/// Op for word `j` (vdst v[16+j]) under the whole wave.
const fn op(j: u16, src: [Src; 3], dpp: Dpp) -> Op {
    Op::new(j, 16 + j as u8, src).exec(Exec::Wave).dpp(dpp)
}
const fn masked(ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool, fi: bool) -> Dpp {
    Dpp::Row {
        ctrl,
        row_mask,
        bank_mask,
        bound_ctrl,
        fi,
    }
}

const QUAD_PERM: [Op; 12] = [
    op(0, ABC, row(quad_perm([0, 1, 2, 3]), false, false)),
    op(1, ABC, row(quad_perm([0, 0, 0, 0]), false, false)),
    op(2, ABC, row(quad_perm([3, 3, 3, 3]), false, false)),
    op(3, ABC, row(quad_perm([3, 2, 1, 0]), false, false)),
    op(4, ABC, row(quad_perm([1, 0, 3, 2]), false, false)),
    op(
        5,
        [V(2, A), V(3, B), Sreg(20, 0)],
        row(quad_perm([2, 0, 3, 1]), false, false),
    ),
    op(
        6,
        [V(2, A), V(3, B), Inline(133)],
        row(quad_perm([1, 3, 0, 2]), false, false),
    ),
    op(
        7,
        [V(3, B), V(4, C), V(2, A)],
        row(quad_perm([3, 0, 2, 1]), false, false),
    ),
    op(
        8,
        [V(4, C), V(2, A), V(3, B)],
        row(quad_perm([0, 2, 1, 3]), false, false),
    ),
    op(
        9,
        [V(2, A), V(4, C), V(3, B)],
        row(quad_perm([2, 3, 1, 0]), true, false),
    ),
    op(10, ABC, row(quad_perm([1, 1, 2, 0]), false, true)),
    op(
        11,
        [V(2, A), V(3, B), Null],
        row(quad_perm([3, 1, 0, 0]), true, true),
    ),
];

/// Kernel order: for k in 1..=15: shl bc0, shl bc1, shr bc0, shr bc1, ror.
const SHIFT: [Op; 75] = {
    let mut out = [op(0, ABC, Dpp::None); 75];
    let mut k = 1u16;
    while k <= 15 {
        let i = (k - 1) as usize;
        out[5 * i] = op(k - 1, ABC, row(row_shl(k), false, false));
        out[5 * i + 1] = op(15 + k - 1, ABC, row(row_shl(k), true, false));
        out[5 * i + 2] = op(30 + k - 1, ABC, row(row_shr(k), false, false));
        out[5 * i + 3] = op(45 + k - 1, ABC, row(row_shr(k), true, false));
        out[5 * i + 4] = op(60 + k - 1, ABC, row(row_ror(k), false, false));
        k += 1;
    }
    out
};

/// Kernel order: mirror, half_mirror, then for k in 0..16: share:k, xmask:k.
const ROW: [Op; 34] = {
    let mut out = [op(0, ABC, row(ROW_MIRROR, false, false)); 34];
    out[1] = op(1, ABC, row(ROW_HALF_MIRROR, false, false));
    let mut k = 0u16;
    while k < 16 {
        out[2 + 2 * k as usize] = op(2 + k, ABC, row(row_share(k), false, false));
        out[3 + 2 * k as usize] = op(18 + k, ABC, row(row_xmask(k), false, false));
        k += 1;
    }
    out
};

const SWAP: u16 = quad_perm([1, 0, 3, 2]);
const MASKS: [Op; 16] = [
    op(0, ABC, masked(SWAP, 0x1, 0xf, false, false)),
    op(1, ABC, masked(SWAP, 0x2, 0xf, false, false)),
    op(2, ABC, masked(SWAP, 0x4, 0xf, false, false)),
    op(3, ABC, masked(SWAP, 0xa, 0xf, false, false)),
    op(4, ABC, masked(SWAP, 0x0, 0xf, false, false)),
    op(5, ABC, masked(SWAP, 0xf, 0x1, false, false)),
    op(6, ABC, masked(SWAP, 0xf, 0x2, false, false)),
    op(7, ABC, masked(SWAP, 0xf, 0x4, false, false)),
    op(8, ABC, masked(SWAP, 0xf, 0x8, false, false)),
    op(9, ABC, masked(SWAP, 0xf, 0x5, false, false)),
    op(10, ABC, masked(SWAP, 0xf, 0xa, false, false)),
    op(11, ABC, masked(SWAP, 0xf, 0x0, false, false)),
    op(12, ABC, masked(row_shl(1), 0x1, 0x3, true, false)),
    op(13, ABC, masked(row_shr(2), 0x6, 0xc, false, false)),
    op(14, ABC, masked(row_ror(5), 0xd, 0x9, false, true)),
    op(
        15,
        [V(2, A), V(3, B), Sreg(20, 0)],
        masked(row_share(7), 0x5, 0x6, true, false),
    ),
];

/// A 32-bit pattern, repeated in both halves (wave32 uses the low half).
const fn pat(p: u32) -> Exec {
    Exec::Pattern(p as u64 | (p as u64) << 32)
}
const INACTIVE: [Op; 10] = [
    op(0, ABC, row(SWAP, false, true)).exec(pat(0x5555_5555)),
    op(1, ABC, row(row_shl(1), false, true)).exec(pat(0x5555_5555)),
    op(2, ABC, row(row_shl(1), true, true)).exec(pat(0xaaaa_aaaa)),
    op(3, ABC, row(row_shr(3), true, true)).exec(pat(0x0000_ffff)),
    op(4, ABC, row(row_ror(8), false, true)).exec(pat(0x00ff_00ff)),
    op(5, ABC, row(ROW_MIRROR, false, true)).exec(pat(0xffff_fffe)),
    op(6, ABC, row(ROW_HALF_MIRROR, false, true)).exec(pat(0x0f0f_0f0f)),
    op(7, ABC, row(row_share(5), false, true)).exec(Exec::Scalar(0)),
    op(8, ABC, row(row_xmask(1), true, true)).exec(Exec::Scalar(2)),
    op(9, ABC, masked(SWAP, 0x1, 0x5, false, true)).exec(pat(0xaaaa_aaaa)),
];

const D_QP: &str =
    "DPP16 quad_perm on src0 = a (b, c in some ops): identity, broadcasts, reversal and 7 random \
permutations; src2 = c, random s20, inline 5 or null; whole wave active";
const D_SHIFT: &str = "DPP16 row_shl and row_shr 1..15 with bound_ctrl 0 (edge lanes keep their prefill) and 1 (edge \
lanes read 0), row_ror 1..15, on src0 = a; src1 = b, src2 = c; whole wave active";
const D_ROW: &str = "DPP16 row_mirror, row_half_mirror, row_share 0..15, row_xmask 0..15 on src0 = a; whole wave active";
const D_MASKS: &str =
    "DPP16 row_mask and bank_mask subsets (masked lanes keep their prefill) with quad_perm, \
row_shl, row_shr, row_ror, row_share; whole wave active";
const D_INACTIVE: &str =
    "DPP16 with fi=1 reading source lanes switched off by EXEC patterns (alternating, half, \
all-but-one, random); out-of-range lanes with bound_ctrl 0 and 1; lanes off keep their prefill";

/// row_share/row_xmask and fi (gfx10+ DPP controls; needed by the tables that use them).
const SHARE: Feature = Feature::DppRowShare;
const FI: Feature = Feature::DppFetchInactive;

pub(super) static SPECS: &[Spec] = &[
    case!("dpp16_quad_perm_w32", wave: 32, ops: &QUAD_PERM, scalars: 8, description: D_QP, requires: &[Feature::Wave32, Feature::Vop3Dpp, Feature::NullSgpr, FI]),
    case!("dpp16_quad_perm_w64", wave: 64, ops: &QUAD_PERM, scalars: 8, description: D_QP, requires: &[Feature::Wave64, Feature::Vop3Dpp, Feature::NullSgpr, FI]),
    case!("dpp16_shift_w32", wave: 32, ops: &SHIFT, scalars: 8, description: D_SHIFT, requires: &[Feature::Wave32, Feature::Vop3Dpp]),
    case!("dpp16_shift_w64", wave: 64, ops: &SHIFT, scalars: 8, description: D_SHIFT, requires: &[Feature::Wave64, Feature::Vop3Dpp]),
    case!("dpp16_row_w32", wave: 32, ops: &ROW, scalars: 8, description: D_ROW, requires: &[Feature::Wave32, Feature::Vop3Dpp, SHARE]),
    case!("dpp16_row_w64", wave: 64, ops: &ROW, scalars: 8, description: D_ROW, requires: &[Feature::Wave64, Feature::Vop3Dpp, SHARE]),
    case!("dpp16_masks_w32", wave: 32, ops: &MASKS, scalars: 8, description: D_MASKS, requires: &[Feature::Wave32, Feature::Vop3Dpp, SHARE, FI]),
    case!("dpp16_masks_w64", wave: 64, ops: &MASKS, scalars: 8, description: D_MASKS, requires: &[Feature::Wave64, Feature::Vop3Dpp, SHARE, FI]),
    case!("dpp16_inactive_w32", wave: 32, ops: &INACTIVE, scalars: 8, description: D_INACTIVE, requires: &[Feature::Wave32, Feature::Vop3Dpp, SHARE, FI]),
    case!("dpp16_inactive_w64", wave: 64, ops: &INACTIVE, scalars: 8, description: D_INACTIVE, requires: &[Feature::Wave64, Feature::Vop3Dpp, SHARE, FI]),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    /// 32 lanes with a = 0x100 + lane, b = 0, c = 0 (so each word shows the
    /// source lane read, +0x100), prefill 0xEEEE0000 + word.
    fn lanes(name: &str, n: usize, count: usize, scalars: &[u32]) -> Vec<Vec<u32>> {
        let s = spec(SPECS, name);
        let k = s.case.outputs_per_lane;
        let a: Vec<u32> = (0..count as u32).map(|l| 0x100 + l).collect();
        let zeros = vec![0u32; count];
        let prefill: Vec<u32> = (0..count * k)
            .map(|i| 0xEEEE_0000 + (i % k) as u32)
            .collect();
        let out = model_out(s, &a, &zeros, &zeros, scalars, &prefill);
        (0..n.min(count))
            .map(|l| out[l * k..(l + 1) * k].to_vec())
            .collect()
    }
    const KEEP: u32 = 0xEEEE_0000;

    #[test]
    fn quad_perm_by_hand() {
        let w = lanes("dpp16_quad_perm_w32", 32, 32, &[0x40; 8]);
        // lane 6 (quad 4..7, index 2): identity 6, [0,0,0,0] 4, [3,3,3,3] 7, reverse 5, swap 7
        assert_eq!(w[6][..5], [0x106, 0x104, 0x107, 0x105, 0x107]);
        // [2,0,3,1] lane 6 reads 7, src2 = s20 = 0x40: 0x107 + 0x40
        assert_eq!(w[6][5], 0x147);
        // [1,3,0,2] lane 6 reads 4, src2 = inline 5: 0x104 + 5
        assert_eq!(w[6][6], 0x109);
    }

    #[test]
    fn shifts_by_hand() {
        // 20 lanes exist: lanes 20..31 of the wave are sources holding 0.
        let w = lanes("dpp16_shift_w32", 32, 20, &[0; 8]);
        let word = |lane: usize, j: usize| w[lane][j];
        assert_eq!(word(3, 0), 0x104, "row_shl:1 lane 3 reads 4");
        assert_eq!(
            word(15, 0),
            KEEP,
            "row_shl:1 lane 15 out of row, bc=0: kept"
        );
        assert_eq!(
            word(15, 15),
            0,
            "row_shl:1 lane 15 out of row, bc=1: reads 0"
        );
        assert_eq!(
            word(17, 15 + 4),
            0,
            "row_shl:5 lane 17 reads lane 22 >= count: 0"
        );
        assert_eq!(
            word(16, 30 + 2),
            KEEP + 32,
            "row_shr:3 lane 16 out of row, bc=0"
        );
        assert_eq!(word(19, 45 + 2), 0x110, "row_shr:3 lane 19 reads 16");
        assert_eq!(word(1, 60 + 2), 0x10E, "row_ror:3 lane 1 reads 14");
        assert_eq!(word(16, 60 + 14), 0x111, "row_ror:15 lane 16 reads 17");
    }

    #[test]
    fn rows_by_hand() {
        let w = lanes("dpp16_row_w32", 32, 32, &[0; 8]);
        assert_eq!(w[18][0], 0x11D, "mirror: 18 reads 29");
        assert_eq!(w[18][1], 0x115, "half mirror: 18 reads 21");
        assert_eq!(w[18][2 + 9], 0x119, "share:9: 18 reads 25");
        assert_eq!(w[18][18 + 5], 0x117, "xmask:5: 18 reads 23");
    }

    #[test]
    fn masks_by_hand() {
        let w = lanes("dpp16_masks_w32", 32, 32, &[0x40; 8]);
        assert_eq!((w[1][0], w[17][0]), (0x100, KEEP), "row_mask 1: row 0 only");
        assert_eq!(
            (w[1][1], w[17][1]),
            (KEEP + 1, 0x110),
            "row_mask 2: row 1 only"
        );
        assert!(
            w.iter().all(|l| l[2] == KEEP + 2 && l[4] == KEEP + 4),
            "no row of wave32 in 0x4, row_mask 0"
        );
        assert_eq!(
            (w[3][5], w[4][5]),
            (0x102, KEEP + 5),
            "bank_mask 1: lanes 0-3 of each row"
        );
        assert_eq!(
            (w[8][9], w[12][9]),
            (0x109, KEEP + 9),
            "bank_mask 5: banks 0 and 2"
        );
        // row_shl:1, rows 0, banks 0-1, bc=1: lane 7 reads 8; lane 8 masked
        assert_eq!((w[7][12], w[8][12]), (0x108, KEEP + 12));
        // row_share:7, row_mask 5 (row 0 of wave32), banks 1-2, src2 = 0x40: lane 4 reads 7
        assert_eq!(
            (w[4][15], w[0][15], w[20][15]),
            (0x147, KEEP + 15, KEEP + 15)
        );
    }

    #[test]
    fn inactive_sources_by_hand() {
        // s20 = 0x0000_00F0 (lanes 4-7 on), s22 = 0x0000_0003 (lanes 0-1 on).
        let w = lanes("dpp16_inactive_w32", 32, 32, &[0xF0, 0, 3, 0, 0, 0, 0, 0]);
        assert_eq!(
            (w[0][0], w[1][0]),
            (0x101, KEEP),
            "swap, even lanes on: lane 0 reads inactive 1 (fi=1)"
        );
        assert_eq!(
            (w[14][1], w[15][1]),
            (0x10F, KEEP + 1),
            "row_shl:1 even lanes: 14 reads 15; 15 is off"
        );
        assert_eq!(
            (w[15][2], w[13][2]),
            (0, 0x10E),
            "row_shl:1 bc=1 odd lanes: 15 out of row reads 0"
        );
        assert_eq!(w[2][3], 0, "row_shr:3 bc=1: lane 2 out of row reads 0");
        assert_eq!(w[4][3], 0x101, "row_shr:3: lane 4 reads 1");
        assert_eq!(w[0][4], 0x108, "row_ror:8: lane 0 reads inactive 8");
        assert_eq!(
            (w[15][5], w[0][5]),
            (0x100, KEEP + 5),
            "mirror: 15 reads inactive lane 0"
        );
        assert_eq!(w[1][6], 0x106, "half mirror: lane 1 reads inactive 6");
        assert_eq!((w[4][7], w[3][7]), (0x105, KEEP + 7), "share:5 under s20");
        assert_eq!(
            (w[0][8], w[1][8], w[2][8]),
            (0x101, 0x100, KEEP + 8),
            "xmask:1 under s22"
        );
        assert_eq!(
            (w[1][9], w[5][9], w[17][9]),
            (0x100, KEEP + 9, KEEP + 9),
            "swap, row 0, banks 0 and 2, odd lanes"
        );
    }
}
