//! DPP through a move (kernels/include/xad_dpp_mov.inc): `v_mov_b32 vT, <old>`
//! then `v_mov_b32_dpp vT, vA <control>` feeding a source of `v_xad_u32`
//! ([`Src::Moved`](super::op_table::Src::Moved)). gfx9 and gfx10 have no VOP3
//! DPP, so this is the only way DPP reaches `v_xad_u32` there; gfx11 and gfx12
//! run the same kernels (their `v_mov_b32_dpp` is the same instruction).
//!
//! Lanes the move does not write (row_mask/bank_mask, an out-of-range source
//! with bound_ctrl 0) read `old`, the "old value" rule of the Vega, RDNA1/2
//! and RDNA3 guides' DPP sections; with bound_ctrl 1 they read 0. Controls by
//! generation ([`crate::platform::target::Feature`]): quad_perm, row_shl/shr/ror,
//! row_mirror, row_half_mirror and the masks everywhere; wave_shl/rol/shr/ror:1
//! and row_bcast:15/31 on gfx9 only ([`Feature::DppWaveControls`]); row_share,
//! row_xmask ([`Feature::DppRowShare`]), DPP8 ([`Feature::Dpp8`]) and fi
//! ([`Feature::DppFetchInactive`]) from gfx10. Lane rules:
//! [`super::model::dpp16_source`]; the row_bcast rows the guides leave
//! undefined are always row-masked (test `undefined_bcast_rows_are_masked`).
//!
//! Registers: the move for src0/src1/src2 writes v10/v11/v12; op j writes
//! v[16+j] and out word j; `old` is 0x0DEF0000 + 16 * j + slot.

use super::declare::{case, Spec};
use super::op_table::{
    moved, quad_perm, row_ror, row_share, row_shl, row_shr, row_xmask, Dpp, Exec, Lane, Lane::*,
    Op, Src, Src::*, ROW_BCAST15, ROW_BCAST31, ROW_HALF_MIRROR, ROW_MIRROR, WAVE_ROL1, WAVE_ROR1,
    WAVE_SHL1, WAVE_SHR1,
};
use crate::platform::target::Feature::{self, *};

/// The lane-source VGPR holding `from`.
const fn vreg(from: Lane) -> u8 {
    match from {
        A => 2,
        B => 3,
        C => 4,
    }
}

/// The source in `slot` of op `j`: `from`, moved by `dpp` into v[10+slot].
const fn mv(j: u16, slot: u8, from: Lane, dpp: Dpp) -> Src {
    moved(
        10 + slot,
        vreg(from),
        from,
        dpp,
        0x0DEF_0000 + 16 * j as u32 + slot as u32,
    )
}

const fn dpp16(ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool, fi: bool) -> Dpp {
    Dpp::Row {
        ctrl,
        row_mask,
        bank_mask,
        bound_ctrl,
        fi,
    }
}
/// Every row and bank on, bound_ctrl and fi off.
const fn all(ctrl: u16) -> Dpp {
    dpp16(ctrl, 0xf, 0xf, false, false)
}
const fn bc(ctrl: u16) -> Dpp {
    dpp16(ctrl, 0xf, 0xf, true, false)
}

/// Op j: src0 = a moved by `dpp`, src1 = b, src2 = c; whole wave.
const fn src0(j: u16, dpp: Dpp) -> Op {
    Op::new(j, 16 + j as u8, [mv(j, 0, A, dpp), V(3, B), V(4, C)]).exec(Exec::Wave)
}
/// Op j with its own sources; whole wave.
const fn op(j: u16, src: [Src; 3]) -> Op {
    Op::new(j, 16 + j as u8, src).exec(Exec::Wave)
}

const SWAP: u16 = quad_perm([1, 0, 3, 2]);

const QUAD_PERM: [Op; 14] = [
    src0(0, all(quad_perm([0, 1, 2, 3]))),
    src0(1, all(quad_perm([0, 0, 0, 0]))),
    src0(2, all(quad_perm([3, 2, 1, 0]))),
    src0(3, all(SWAP)),
    src0(4, bc(quad_perm([2, 0, 3, 1]))),
    op(
        5,
        [V(2, A), mv(5, 1, B, all(quad_perm([1, 2, 3, 0]))), V(4, C)],
    ),
    op(
        6,
        [V(2, A), V(3, B), mv(6, 2, C, all(quad_perm([3, 3, 1, 0])))],
    ),
    op(
        7,
        [
            mv(7, 0, A, all(quad_perm([1, 2, 3, 0]))),
            mv(7, 1, B, all(quad_perm([3, 0, 1, 2]))),
            V(4, C),
        ],
    ),
    op(
        8,
        [
            mv(8, 0, C, all(quad_perm([0, 2, 1, 3]))),
            mv(8, 1, A, all(quad_perm([2, 3, 0, 1]))),
            mv(8, 2, B, all(quad_perm([1, 1, 3, 3]))),
        ],
    ),
    op(
        9,
        [
            mv(9, 0, A, all(quad_perm([3, 1, 0, 0]))),
            V(3, B),
            Sreg(20, 0),
        ],
    ),
    op(
        10,
        [
            mv(10, 0, A, all(quad_perm([1, 3, 0, 2]))),
            V(3, B),
            Inline(133),
        ],
    ),
    src0(11, dpp16(SWAP, 0x5, 0x3, false, false)),
    src0(12, dpp16(SWAP, 0xa, 0xc, true, false)),
    op(
        13,
        [
            V(2, A),
            mv(
                13,
                1,
                B,
                dpp16(quad_perm([2, 2, 0, 0]), 0x0, 0xf, false, false),
            ),
            V(4, C),
        ],
    ),
];

/// Kernel order: for k in 1..=15: shl bc0, shl bc1, shr bc0, shr bc1, ror.
const SHIFT: [Op; 75] = {
    let mut out = [src0(0, all(0)); 75];
    let mut k = 1u16;
    while k <= 15 {
        let i = (k - 1) as usize;
        out[5 * i] = src0(k - 1, all(row_shl(k)));
        out[5 * i + 1] = src0(15 + k - 1, bc(row_shl(k)));
        out[5 * i + 2] = src0(30 + k - 1, all(row_shr(k)));
        out[5 * i + 3] = src0(45 + k - 1, bc(row_shr(k)));
        out[5 * i + 4] = src0(60 + k - 1, all(row_ror(k)));
        k += 1;
    }
    out
};

const ROW: [Op; 10] = [
    src0(0, all(ROW_MIRROR)),
    src0(1, all(ROW_HALF_MIRROR)),
    op(2, [V(2, A), mv(2, 1, B, all(ROW_MIRROR)), V(4, C)]),
    op(3, [V(2, A), V(3, B), mv(3, 2, C, all(ROW_HALF_MIRROR))]),
    src0(4, dpp16(ROW_MIRROR, 0x9, 0x6, false, false)),
    src0(5, dpp16(ROW_HALF_MIRROR, 0x6, 0x9, false, false)),
    src0(6, dpp16(row_shl(1), 0x3, 0xf, true, false)),
    src0(7, dpp16(row_shr(3), 0xe, 0x7, false, false)),
    op(
        8,
        [
            V(2, A),
            V(3, B),
            mv(8, 2, C, dpp16(row_ror(4), 0xc, 0xf, false, false)),
        ],
    ),
    op(
        9,
        [
            mv(9, 0, B, dpp16(row_shr(15), 0xf, 0xf, true, false)),
            V(2, A),
            V(4, C),
        ],
    ),
];

/// gfx9's wave-wide controls; row_bcast always with its undefined rows masked.
const WAVE: [Op; 14] = [
    src0(0, all(WAVE_SHL1)),
    src0(1, bc(WAVE_SHL1)),
    src0(2, all(WAVE_ROL1)),
    src0(3, all(WAVE_SHR1)),
    src0(4, bc(WAVE_SHR1)),
    src0(5, all(WAVE_ROR1)),
    op(6, [V(2, A), mv(6, 1, B, all(WAVE_SHL1)), V(4, C)]),
    op(7, [V(2, A), V(3, B), mv(7, 2, C, all(WAVE_ROR1))]),
    src0(8, dpp16(ROW_BCAST15, 0xe, 0xf, false, false)),
    src0(9, dpp16(ROW_BCAST15, 0xa, 0xf, true, false)),
    src0(10, dpp16(ROW_BCAST31, 0xc, 0xf, false, false)),
    src0(11, dpp16(ROW_BCAST31, 0x8, 0x5, false, false)),
    src0(12, dpp16(WAVE_ROL1, 0x6, 0x9, false, false)),
    op(
        13,
        [
            V(2, A),
            mv(13, 1, B, dpp16(ROW_BCAST15, 0xe, 0xf, false, false)),
            V(4, C),
        ],
    ),
];

/// Kernel order: for k in 0..16: share:k, xmask:k; then two masked forms.
const SHARE: [Op; 34] = {
    let mut out = [src0(0, all(0)); 34];
    let mut k = 0u16;
    while k < 16 {
        out[2 * k as usize] = src0(k, all(row_share(k)));
        out[2 * k as usize + 1] = src0(16 + k, all(row_xmask(k)));
        k += 1;
    }
    out[32] = src0(32, dpp16(row_share(3), 0x5, 0xa, false, false));
    out[33] = op(33, [V(2, A), mv(33, 1, B, all(row_xmask(7))), V(4, C)]);
    out
};

const fn lane8(sel: [u8; 8], fi: bool) -> Dpp {
    Dpp::Lane8 { sel, fi }
}
const REVERSE: [u8; 8] = [7, 6, 5, 4, 3, 2, 1, 0];
const PAIRS: [u8; 8] = [1, 0, 3, 2, 5, 4, 7, 6];

const DPP8: [Op; 8] = [
    src0(0, lane8(REVERSE, false)),
    src0(1, lane8(PAIRS, true)),
    src0(2, lane8([0; 8], false)),
    src0(3, lane8([3, 7, 1, 5, 0, 4, 2, 6], false)),
    op(
        4,
        [
            V(2, A),
            mv(4, 1, B, lane8([6, 2, 7, 3, 1, 5, 0, 4], false)),
            V(4, C),
        ],
    ),
    op(
        5,
        [
            V(2, A),
            V(3, B),
            mv(5, 2, C, lane8([5, 5, 2, 2, 7, 0, 1, 3], true)),
        ],
    ),
    op(
        6,
        [
            mv(6, 0, C, lane8([2, 3, 0, 1, 6, 7, 4, 5], false)),
            mv(6, 1, A, lane8(REVERSE, false)),
            V(3, B),
        ],
    ),
    op(
        7,
        [
            mv(7, 0, A, lane8([4, 5, 6, 7, 0, 1, 2, 3], false)),
            V(3, B),
            Sreg(20, 0),
        ],
    ),
];

/// A 32-bit pattern, repeated in both halves (wave32 uses the low half).
const fn pat(p: u32) -> Exec {
    Exec::Pattern(p as u64 | (p as u64) << 32)
}
/// Op j, src0 = a moved by `dpp`, move and op under `exec`.
const fn under(j: u16, dpp: Dpp, exec: Exec) -> Op {
    src0(j, dpp).exec(exec)
}

/// Source lanes switched off: DPP16 only with fi=1 (with fi=0 and bound_ctrl=0
/// the guide is unsettled), DPP8 with fi 0 (reads 0) and 1 (reads the lane).
const INACTIVE: [Op; 10] = [
    under(0, dpp16(SWAP, 0xf, 0xf, false, true), pat(0x5555_5555)),
    under(
        1,
        dpp16(row_shl(1), 0xf, 0xf, false, true),
        pat(0x5555_5555),
    ),
    under(2, dpp16(row_shl(1), 0xf, 0xf, true, true), pat(0xaaaa_aaaa)),
    under(
        3,
        dpp16(ROW_MIRROR, 0xf, 0xf, false, true),
        pat(0xffff_fffe),
    ),
    under(
        4,
        dpp16(row_share(5), 0xf, 0xf, false, true),
        Exec::Scalar(0),
    ),
    under(
        5,
        dpp16(row_xmask(1), 0xf, 0xf, true, true),
        Exec::Scalar(2),
    ),
    under(6, lane8(PAIRS, false), pat(0x5555_5555)),
    under(7, lane8(PAIRS, true), pat(0x5555_5555)),
    under(8, lane8(REVERSE, false), pat(0x0f0f_0f0f)),
    under(9, lane8([4, 5, 6, 7, 0, 1, 2, 3], false), Exec::Scalar(4)),
];

const D_QP: &str = "v_mov_b32_dpp quad_perm (identity, broadcast, reversal, random) into src0, src1, src2, two and \
three slots at once, beside s20 or inline 5; row_mask/bank_mask subsets (masked lanes read the move's old value); whole wave";
const D_SHIFT: &str = "v_mov_b32_dpp row_shl and row_shr 1..15 with bound_ctrl 0 (edge lanes read the old value) and 1 \
(edge lanes read 0), row_ror 1..15, into src0; whole wave";
const D_ROW: &str = "v_mov_b32_dpp row_mirror and row_half_mirror into each slot; masked mirrors, shifts and rotates; \
whole wave";
const D_WAVE: &str = "gfx9 v_mov_b32_dpp wave_shl:1, wave_rol:1, wave_shr:1, wave_ror:1 (lanes cross rows; bound_ctrl 0 \
and 1 at the wave's ends), row_bcast:15 and row_bcast:31 with their undefined rows masked, into src0/src1/src2";
const D_SHARE: &str = "v_mov_b32_dpp row_share 0..15 and row_xmask 0..15 into src0, a masked row_share and a row_xmask \
into src1; whole wave";
const D_DPP8: &str = "v_mov_b32_dpp dpp8 (reverse, pairs, broadcast, random selectors; fi 0 and 1) into each slot, two \
slots at once, beside s20; whole wave";
const D_INACTIVE: &str =
    "v_mov_b32_dpp with source lanes off under EXEC patterns (alternating, all-but-one, random): \
DPP16 fi=1 reads them, DPP8 fi=0 reads 0 and fi=1 the lane; lanes off keep their prefill";

const W32: Feature = Wave32;

pub(super) static SPECS: &[Spec] = &[
    case!("dpp_mov_quad_perm_w32", wave: 32, ops: &QUAD_PERM, scalars: 8, description: D_QP, requires: &[W32]),
    case!("dpp_mov_quad_perm_w64", wave: 64, ops: &QUAD_PERM, scalars: 8, description: D_QP, requires: &[Feature::Wave64]),
    case!("dpp_mov_shift_w32", wave: 32, ops: &SHIFT, scalars: 0, description: D_SHIFT, requires: &[W32]),
    case!("dpp_mov_shift_w64", wave: 64, ops: &SHIFT, scalars: 0, description: D_SHIFT, requires: &[Feature::Wave64]),
    case!("dpp_mov_row_w32", wave: 32, ops: &ROW, scalars: 0, description: D_ROW, requires: &[W32]),
    case!("dpp_mov_row_w64", wave: 64, ops: &ROW, scalars: 0, description: D_ROW, requires: &[Feature::Wave64]),
    case!("dpp_mov_wave_w64", wave: 64, ops: &WAVE, scalars: 0, description: D_WAVE, requires: &[Feature::Wave64, DppWaveControls]),
    case!("dpp_mov_share_w32", wave: 32, ops: &SHARE, scalars: 0, description: D_SHARE, requires: &[W32, DppRowShare]),
    case!("dpp_mov_share_w64", wave: 64, ops: &SHARE, scalars: 0, description: D_SHARE, requires: &[Feature::Wave64, DppRowShare]),
    case!("dpp_mov_dpp8_w32", wave: 32, ops: &DPP8, scalars: 8, description: D_DPP8, requires: &[W32, Dpp8, DppFetchInactive]),
    case!("dpp_mov_dpp8_w64", wave: 64, ops: &DPP8, scalars: 8, description: D_DPP8, requires: &[Feature::Wave64, Dpp8, DppFetchInactive]),
    case!("dpp_mov_inactive_w32", wave: 32, ops: &INACTIVE, scalars: 8, description: D_INACTIVE,
        requires: &[W32, DppRowShare, Dpp8, DppFetchInactive]),
    case!("dpp_mov_inactive_w64", wave: 64, ops: &INACTIVE, scalars: 8, description: D_INACTIVE,
        requires: &[Feature::Wave64, DppRowShare, Dpp8, DppFetchInactive]),
];

#[cfg(test)]
mod tests {
    //! The model against lane tables worked by hand from the guides' rules
    //! (which source lane each lane reads), not from the model's code. Sources:
    //! a = 0x100 + lane, b = lane << 12, c = lane << 20, so (x ^ y) + z of
    //! unmoved values is x | y | z and each word shows which lane each slot read.
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    const KEEP: u32 = 0xEEEE_0000;

    fn a(l: u32) -> u32 {
        0x100 + l
    }
    fn b(l: u32) -> u32 {
        l << 12
    }
    fn c(l: u32) -> u32 {
        l << 20
    }
    /// src0 read a of lane `x`, src1 b of `y`, src2 c of `z`.
    fn abc(x: u32, y: u32, z: u32) -> u32 {
        a(x) | b(y) | c(z)
    }
    /// The move's old value for op j, slot s.
    fn old(j: u32, s: u32) -> u32 {
        0x0DEF_0000 + 16 * j + s
    }
    fn xad(x: u32, y: u32, z: u32) -> u32 {
        (x ^ y).wrapping_add(z)
    }

    /// Words of case `name` over `n` lanes (all exist), prefill KEEP + word.
    fn words(name: &str, n: u32, scalars: &[u32]) -> impl Fn(u32, usize) -> u32 {
        let s = spec(SPECS, name);
        let k = s.case.outputs_per_lane;
        let (va, vb, vc): (Vec<u32>, Vec<u32>, Vec<u32>) = (
            (0..n).map(a).collect(),
            (0..n).map(b).collect(),
            (0..n).map(c).collect(),
        );
        let prefill: Vec<u32> = (0..n as usize * k).map(|i| KEEP + (i % k) as u32).collect();
        let out = model_out(s, &va, &vb, &vc, scalars, &prefill);
        move |lane, j| out[lane as usize * k + j]
    }

    #[test]
    fn quad_perm_by_hand() {
        for (name, n) in [("dpp_mov_quad_perm_w32", 32), ("dpp_mov_quad_perm_w64", 64)] {
            let w = words(name, n, &[0x40; 8]);
            // lane 6: quad 4..7, index 2.
            assert_eq!(
                [w(6, 0), w(6, 1), w(6, 2), w(6, 3), w(6, 4)],
                [
                    abc(6, 6, 6),
                    abc(4, 6, 6),
                    abc(5, 6, 6),
                    abc(7, 6, 6),
                    abc(7, 6, 6)
                ],
                "{name}"
            );
            assert_eq!(
                (w(6, 5), w(6, 6), w(6, 7)),
                (abc(6, 7, 6), abc(6, 6, 5), abc(7, 5, 6)),
                "{name}: src1, src2, two slots"
            );
            assert_eq!(
                w(6, 8),
                xad(c(5), a(4), b(7)),
                "{name}: three slots, c/a/b moved"
            );
            assert_eq!(
                (w(6, 9), w(6, 10)),
                (xad(a(4), b(6), 0x40), xad(a(4), b(6), 5)),
                "{name}: beside s20, 5"
            );
            // row_mask 5, bank_mask 3: lane 6 (row 0, bank 1) written, lane 8 (bank 2) reads old.
            assert_eq!(
                (w(6, 11), w(8, 11)),
                (abc(7, 6, 6), xad(old(11, 0), b(8), c(8))),
                "{name}: masks"
            );
            assert_eq!(
                w(16, 11),
                xad(old(11, 0), b(16), c(16)),
                "{name}: row 1 masked"
            );
            // row_mask 0xa, bank_mask 0xc: lane 6 (row 0) old; lane 24 (row 1, bank 2) reads 25.
            assert_eq!(
                (w(6, 12), w(24, 12)),
                (xad(old(12, 0), b(6), c(6)), abc(25, 24, 24)),
                "{name}: masks, bc"
            );
            assert_eq!(
                w(6, 13),
                xad(a(6), old(13, 1), c(6)),
                "{name}: row_mask 0, every lane reads old"
            );
        }
    }

    #[test]
    fn shifts_by_hand() {
        for (name, n) in [("dpp_mov_shift_w32", 32), ("dpp_mov_shift_w64", 64)] {
            let w = words(name, n, &[]);
            // lane 17: row 1, index 1.
            assert_eq!(w(17, 2), abc(20, 17, 17), "{name}: row_shl:3");
            assert_eq!(
                w(17, 14),
                xad(old(14, 0), b(17), c(17)),
                "{name}: row_shl:15 out of row, bc 0: old"
            );
            assert_eq!(
                w(17, 29),
                xad(0, b(17), c(17)),
                "{name}: row_shl:15 out of row, bc 1: 0"
            );
            assert_eq!(w(17, 30), abc(16, 17, 17), "{name}: row_shr:1");
            assert_eq!(
                w(17, 31),
                xad(old(31, 0), b(17), c(17)),
                "{name}: row_shr:2 out of row, bc 0: old"
            );
            assert_eq!(
                w(17, 46),
                xad(0, b(17), c(17)),
                "{name}: row_shr:2 out of row, bc 1: 0"
            );
            assert_eq!(
                w(17, 62),
                abc(30, 17, 17),
                "{name}: row_ror:3 reads index 14"
            );
        }
    }

    #[test]
    fn rows_by_hand() {
        let w = words("dpp_mov_row_w64", 64, &[]);
        // lane 18: row 1, index 2.
        assert_eq!(
            (w(18, 0), w(18, 1)),
            (abc(29, 18, 18), abc(21, 18, 18)),
            "mirror, half mirror"
        );
        assert_eq!(
            (w(18, 2), w(18, 3)),
            (abc(18, 29, 18), abc(18, 18, 21)),
            "into src1, src2"
        );
        // mirror rows 0x9 banks 0x6: lane 5 (row 0, bank 1) reads 10; lane 18 (row 1) old; lane 48 (row 3, bank 0) old.
        assert_eq!(
            (w(5, 4), w(18, 4), w(48, 4)),
            (
                abc(10, 5, 5),
                xad(old(4, 0), b(18), c(18)),
                xad(old(4, 0), b(48), c(48))
            )
        );
        // shl:1 rows 0-1, bc 1: lane 15 out of row reads 0; lane 33 (row 2) old.
        assert_eq!(
            (w(15, 6), w(14, 6), w(33, 6)),
            (
                xad(0, b(15), c(15)),
                abc(15, 14, 14),
                xad(old(6, 0), b(33), c(33))
            )
        );
        // shr:3 rows 1-3 banks 0-2: lane 17 out of row, bc 0: old; lane 20 reads 17; lane 30 (bank 3) old.
        assert_eq!(
            (w(17, 7), w(20, 7), w(30, 7)),
            (
                xad(old(7, 0), b(17), c(17)),
                abc(17, 20, 20),
                xad(old(7, 0), b(30), c(30))
            )
        );
        // ror:4 into src2, rows 2-3: lane 33 reads c of 32 + ((1 - 4) & 15) = 45.
        assert_eq!(
            (w(33, 8), w(3, 8)),
            (abc(33, 33, 45), xad(a(3), b(3), old(8, 2)))
        );
        // b moved by shr:15 bc 1 into src0, a in src1: lane 31 reads b of 16; lane 30 out of row reads 0.
        assert_eq!(
            (w(31, 9), w(30, 9)),
            (xad(b(16), a(31), c(31)), xad(0, a(30), c(30)))
        );
    }

    /// gfx9's wave-wide controls cross rows: each case below reads a lane of
    /// another row (wave64).
    #[test]
    fn wave_controls_cross_rows_by_hand() {
        let w = words("dpp_mov_wave_w64", 64, &[]);
        let kept = |lane: u32, j: u32| xad(old(j, 0), b(lane), c(lane));
        assert_eq!(
            (w(15, 0), w(63, 0)),
            (abc(16, 15, 15), kept(63, 0)),
            "wave_shl:1, bc 0"
        );
        assert_eq!(
            w(63, 1),
            xad(0, b(63), c(63)),
            "wave_shl:1, bc 1: lane 63 reads 0"
        );
        assert_eq!(
            (w(31, 2), w(63, 2)),
            (abc(32, 31, 31), abc(0, 63, 63)),
            "wave_rol:1 wraps"
        );
        assert_eq!(
            (w(16, 3), w(32, 3), w(0, 3)),
            (abc(15, 16, 16), abc(31, 32, 32), kept(0, 3)),
            "wave_shr:1, bc 0"
        );
        assert_eq!(
            w(0, 4),
            xad(0, b(0), c(0)),
            "wave_shr:1, bc 1: lane 0 reads 0"
        );
        assert_eq!(
            (w(0, 5), w(48, 5)),
            (abc(63, 0, 0), abc(47, 48, 48)),
            "wave_ror:1 wraps"
        );
        assert_eq!(
            (w(47, 6), w(63, 6)),
            (abc(47, 48, 47), xad(a(63), old(6, 1), c(63))),
            "b moved by wave_shl:1"
        );
        assert_eq!(w(0, 7), abc(0, 0, 63), "c moved by wave_ror:1");
        // row_bcast:15, rows 1-3: row r reads lane 16r - 1; row 0 (undefined) masked.
        assert_eq!(
            [w(16, 8), w(31, 8), w(40, 8), w(63, 8), w(5, 8)],
            [
                abc(15, 16, 16),
                abc(15, 31, 31),
                abc(31, 40, 40),
                abc(47, 63, 63),
                kept(5, 8)
            ]
        );
        assert_eq!(
            [w(20, 9), w(40, 9), w(50, 9)],
            [abc(15, 20, 20), kept(40, 9), abc(47, 50, 50)],
            "rows 1 and 3, bc 1"
        );
        // row_bcast:31, rows 2-3 read lane 31; rows 0-1 (undefined) masked.
        assert_eq!(
            [w(40, 10), w(63, 10), w(20, 10)],
            [abc(31, 40, 40), abc(31, 63, 63), kept(20, 10)]
        );
        assert_eq!(
            [w(48, 11), w(52, 11), w(56, 11), w(40, 11)],
            [abc(31, 48, 48), kept(52, 11), abc(31, 56, 56), kept(40, 11)],
            "row 3, banks 0 and 2"
        );
        // wave_rol:1, rows 1-2, banks 0 and 3: lane 31 (bank 3) reads 32, lane 47 reads 48; lane 20 (bank 1) and 0 (row 0) old.
        assert_eq!(
            [w(31, 12), w(47, 12), w(20, 12), w(0, 12)],
            [abc(32, 31, 31), abc(48, 47, 47), kept(20, 12), kept(0, 12)]
        );
        assert_eq!(
            w(33, 13),
            abc(33, 31, 33),
            "b moved by row_bcast:15 into src1"
        );
    }

    #[test]
    fn share_and_xmask_by_hand() {
        for (name, n) in [("dpp_mov_share_w32", 32), ("dpp_mov_share_w64", 64)] {
            let w = words(name, n, &[]);
            // lane 18: row 1, index 2.
            assert_eq!(
                (w(18, 9), w(18, 16 + 5)),
                (abc(25, 18, 18), abc(23, 18, 18)),
                "{name}: share:9, xmask:5"
            );
            assert_eq!(
                (w(18, 0), w(18, 16)),
                (abc(16, 18, 18), abc(18, 18, 18)),
                "{name}: share:0, xmask:0"
            );
            // share:3, rows 0 and 2, banks 1 and 3: lane 6 reads 3; lane 2 (bank 0) and 18 (row 1) old.
            assert_eq!(
                [w(6, 32), w(2, 32), w(18, 32)],
                [
                    abc(3, 6, 6),
                    xad(old(32, 0), b(2), c(2)),
                    xad(old(32, 0), b(18), c(18))
                ],
                "{name}"
            );
            assert_eq!(w(18, 33), abc(18, 21, 18), "{name}: b moved by xmask:7");
        }
    }

    #[test]
    fn dpp8_by_hand() {
        for (name, n) in [("dpp_mov_dpp8_w32", 32), ("dpp_mov_dpp8_w64", 64)] {
            let w = words(name, n, &[0x40; 8]);
            // lane 9: group 8..15, index 1.
            assert_eq!(
                [w(9, 0), w(9, 1), w(9, 2), w(9, 3)],
                [abc(14, 9, 9), abc(8, 9, 9), abc(8, 9, 9), abc(15, 9, 9)],
                "{name}"
            );
            assert_eq!(
                (w(9, 4), w(9, 5)),
                (abc(9, 10, 9), abc(9, 9, 13)),
                "{name}: into src1, src2"
            );
            assert_eq!(w(9, 6), xad(c(11), a(14), b(9)), "{name}: c and a moved");
            assert_eq!(w(9, 7), xad(a(13), b(9), 0x40), "{name}: beside s20");
        }
    }

    #[test]
    fn inactive_sources_by_hand() {
        // s20 = 0xF0 (lanes 4-7), s22 = 3 (lanes 0-1), s24 = 0xF00 (lanes 8-11); wave64 takes s[k] | s[k+1] << 32.
        for (name, n) in [("dpp_mov_inactive_w32", 32), ("dpp_mov_inactive_w64", 64)] {
            let w = words(name, n, &[0xF0, 0, 3, 0, 0xF00, 0, 0, 0]);
            let zero = |l: u32| xad(0, b(l), c(l));
            assert_eq!(
                (w(0, 0), w(1, 0)),
                (abc(1, 0, 0), KEEP),
                "{name}: swap fi:1 reads inactive lane 1; lane 1 off"
            );
            assert_eq!(
                (w(14, 1), w(15, 1)),
                (abc(15, 14, 14), KEEP + 1),
                "{name}: row_shl:1 fi:1"
            );
            assert_eq!(
                (w(15, 2), w(13, 2)),
                (zero(15), abc(14, 13, 13)),
                "{name}: row_shl:1 bc 1: out of row reads 0"
            );
            assert_eq!(
                (w(15, 3), w(0, 3)),
                (abc(0, 15, 15), KEEP + 3),
                "{name}: mirror reads inactive lane 0"
            );
            assert_eq!(
                (w(4, 4), w(3, 4)),
                (abc(5, 4, 4), KEEP + 4),
                "{name}: share:5 under s20"
            );
            assert_eq!(
                (w(0, 5), w(1, 5), w(2, 5)),
                (abc(1, 0, 0), abc(0, 1, 1), KEEP + 5),
                "{name}: xmask:1 under s22"
            );
            assert_eq!(
                (w(0, 6), w(1, 6)),
                (zero(0), KEEP + 6),
                "{name}: DPP8 fi:0 reads an inactive lane as 0"
            );
            assert_eq!(w(0, 7), abc(1, 0, 0), "{name}: DPP8 fi:1 reads it");
            assert_eq!(
                (w(1, 8), w(8, 8), w(4, 8)),
                (zero(1), zero(8), KEEP + 8),
                "{name}: reverse under 0x0f0f0f0f"
            );
            assert_eq!(
                (w(8, 9), w(12, 9)),
                (zero(8), KEEP + 9),
                "{name}: lane 8 reads inactive 12 as 0"
            );
        }
    }
}
