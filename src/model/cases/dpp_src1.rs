//! DPP with a scalar src1: an SGPR, a special scalar register or an inline
//! constant as src1 of `v_xad_u32_e64_dpp`, DPP16 and DPP8 (kernels:
//! kernels/include/xad_dpp_src1.inc, same op order). Only gfx115x (RDNA3.5)
//! and gfx12 (RDNA4) accept the form (LLVM's `FeatureDPPSrc1SGPR`; gfx1100-1103
//! and gfx11-generic refuse it at assembly), so every case here requires
//! [`Feature::DppSrc1Scalar`] and exists only on those targets.
//!
//! DPP permutes src0 only: src1 reads the same scalar value in every lane, as
//! without DPP; [`super::model::run`] of the table already says so (its
//! `read` of src1 never looks at the DPP control). Scalar argument k sits in
//! s[20+k]; the kernels copy s22 to s105, s23 to vcc_lo, s24 to vcc_hi
//! (wave64) and s25 to m0, as the `sreg` kernels do.

use super::declare::{case, Spec};
use super::op_table::{
    int, quad_perm, row, row_ror, row_share, row_shl, row_shr, row_xmask, Dpp, Exec, Lane::*, Op,
    SccFrom, Src, Src::*, INLINE_CODES, M0, ROW_HALF_MIRROR, ROW_MIRROR, VCC_HI, VCC_LO,
};
use crate::platform::target::Feature;

const A_: Src = V(2, A);
const B_: Src = V(3, B);
const C_: Src = V(4, C);

const fn s(k: usize) -> Src {
    Sreg(20 + k as u16, k)
}
const S105: Src = Sreg(105, 2);
const VCCLO: Src = Sreg(VCC_LO, 3);
const VCCHI: Src = Sreg(VCC_HI, 4);
const MZERO: Src = Sreg(M0, 5);

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
const fn lane8(sel: [u8; 8], fi: bool) -> Dpp {
    Dpp::Lane8 { sel, fi }
}
/// A 32-bit pattern, repeated in both halves (wave32 uses the low half).
const fn pat(p: u32) -> Exec {
    Exec::Pattern(p as u64 | (p as u64) << 32)
}

/// DPP16, scalar src1 (and a few scalar src2). Wave32 runs the first 24 ops
/// (vcc_hi and exec_hi as data are unsettled in wave32), wave64 all 28. Ops
/// with lanes off use fi=1 (the unsettled DPP16 combination needs fi=0).
const SGPR16: [Op; 28] = [
    op(
        0,
        [A_, s(0), C_],
        row(quad_perm([1, 0, 3, 2]), false, false),
    ),
    op(1, [A_, s(1), C_], row(row_shl(1), false, false)),
    op(2, [A_, s(2), C_], row(row_shl(4), true, false)),
    op(3, [A_, s(3), C_], row(row_shr(2), false, false)),
    op(4, [A_, s(4), C_], row(row_shr(15), true, false)),
    op(5, [A_, s(5), C_], row(row_ror(5), false, false)),
    op(6, [A_, s(6), C_], row(ROW_MIRROR, false, false)),
    op(7, [A_, s(7), C_], row(ROW_HALF_MIRROR, false, false)),
    op(8, [A_, S105, C_], row(row_share(3), false, false)),
    op(9, [A_, VCCLO, C_], row(row_xmask(9), false, false)),
    op(
        10,
        [A_, MZERO, C_],
        masked(quad_perm([3, 2, 1, 0]), 0x5, 0x6, false, false),
    ),
    op(
        11,
        [A_, ExecLo, C_],
        row(quad_perm([0, 0, 2, 2]), false, false),
    ),
    op(12, [A_, Null, C_], row(row_shl(2), true, false)),
    op(
        13,
        [A_, Scc(SccFrom::One), C_],
        row(row_ror(1), false, false),
    ),
    op(
        14,
        [A_, Scc(SccFrom::Zero), C_],
        row(row_shr(1), true, false),
    ),
    op(
        15,
        [A_, Scc(SccFrom::Less(6, 7)), C_],
        row(row_share(15), false, false),
    ),
    op(
        16,
        [A_, s(0), s(1)],
        row(quad_perm([2, 3, 0, 1]), false, false),
    ),
    op(17, [A_, s(1), s(1)], row(row_xmask(1), false, false)),
    op(18, [A_, s(0), int(7)], row(ROW_MIRROR, false, false)),
    op(19, [A_, MZERO, Null], row(row_shl(8), true, true)),
    op(20, [B_, s(0), A_], row(row_ror(11), false, false)),
    op(
        21,
        [A_, VCCLO, MZERO],
        masked(row_shr(5), 0xa, 0x3, true, false),
    ),
    op(
        22,
        [A_, ExecLo, C_],
        row(quad_perm([1, 0, 3, 2]), false, true),
    )
    .exec(pat(0x5555_5555)),
    op(23, [A_, ExecLo, s(1)], row(row_xmask(2), false, true)).exec(Exec::Scalar(0)),
    op(24, [A_, VCCHI, C_], row(row_share(6), false, false)),
    op(25, [A_, ExecHi, C_], row(row_ror(9), false, false)),
    op(
        26,
        [A_, ExecHi, C_],
        row(quad_perm([1, 2, 3, 0]), false, true),
    )
    .exec(pat(0x0f0f_0f0f)),
    op(27, [A_, VCCHI, VCCLO], row(row_shl(3), true, false)),
];

/// The DPP16 controls the inline sweep cycles through (op j uses
/// `CTRL16[j % 12]`; XAD_DPP_SRC1_INLINE16 in the kernel).
const CTRL16: [Dpp; 12] = [
    row(quad_perm([2, 3, 0, 1]), false, false),
    row(row_shl(1), false, false),
    row(row_shr(3), true, false),
    row(row_ror(7), false, false),
    row(ROW_MIRROR, false, false),
    row(ROW_HALF_MIRROR, false, false),
    row(row_share(9), false, false),
    row(row_xmask(6), false, false),
    masked(quad_perm([3, 1, 2, 0]), 0x5, 0xa, false, false),
    row(row_shl(15), true, true),
    row(row_shr(1), false, true),
    masked(row_xmask(15), 0xe, 0xf, true, false),
];

/// The DPP8 selectors the inline sweep cycles through (op j uses
/// `SEL8[j % 5]`, fi = j odd; XAD_DPP_SRC1_INLINE8 in the kernel).
const SEL8: [[u8; 8]; 5] = [
    [7, 6, 5, 4, 3, 2, 1, 0],
    [1, 0, 3, 2, 5, 4, 7, 6],
    [0; 8],
    [3, 7, 1, 5, 0, 4, 2, 6],
    [5, 5, 2, 2, 7, 0, 1, 3],
];

/// src2 of inline-sweep op j: s20 when j % 9 == 4, the integer 3 when
/// j % 9 == 8 (two inline constants, off the constant bus), else c.
const fn inline_src2(j: usize) -> Src {
    match j % 9 {
        4 => s(0),
        8 => int(3),
        _ => C_,
    }
}

/// Every inline constant (in [`INLINE_CODES`] order) as src1, with DPP16
/// (`dpp8 == false`) or DPP8 on src0 = a.
const fn inline_sweep(dpp8: bool) -> [Op; 90] {
    let mut out = [op(0, [A_, A_, A_], Dpp::None); 90];
    let mut j = 0;
    while j < 90 {
        let dpp = if dpp8 {
            lane8(SEL8[j % 5], j % 2 == 1)
        } else {
            CTRL16[j % 12]
        };
        out[j] = op(j as u16, [A_, Inline(INLINE_CODES[j]), inline_src2(j)], dpp);
        j += 1;
    }
    out
}
const INLINE16: [Op; 90] = inline_sweep(false);
const INLINE8: [Op; 90] = inline_sweep(true);

/// DPP8, scalar src1 (and a few scalar src2). Wave32 runs the first 17 ops,
/// wave64 all 20. DPP8 always writes its lane, so lanes off only mean
/// inactive sources: fi=0 reads 0 from them, fi=1 their value.
const SGPR8: [Op; 20] = [
    op(0, [A_, s(0), C_], lane8([7, 6, 5, 4, 3, 2, 1, 0], false)),
    op(1, [A_, s(1), C_], lane8([1, 0, 3, 2, 5, 4, 7, 6], true)),
    op(2, [A_, S105, C_], lane8([0; 8], false)),
    op(3, [A_, VCCLO, C_], lane8([3, 7, 1, 5, 0, 4, 2, 6], true)),
    op(4, [A_, MZERO, C_], lane8([6, 2, 7, 3, 1, 5, 0, 4], false)),
    op(5, [A_, ExecLo, C_], lane8([5, 5, 2, 2, 7, 0, 1, 3], true)),
    op(6, [A_, Null, C_], lane8([2, 3, 0, 1, 6, 7, 4, 5], false)),
    op(
        7,
        [A_, Scc(SccFrom::One), C_],
        lane8([4, 5, 6, 7, 0, 1, 2, 3], false),
    ),
    op(
        8,
        [A_, Scc(SccFrom::Less(6, 7)), C_],
        lane8([1, 1, 1, 1, 6, 6, 6, 6], true),
    ),
    op(9, [A_, s(0), s(1)], lane8([7, 0, 6, 1, 5, 2, 4, 3], false)),
    op(10, [A_, s(2), s(2)], lane8([0, 1, 2, 3, 4, 5, 6, 7], false)),
    op(
        11,
        [A_, MZERO, int(-7)],
        lane8([3, 3, 3, 3, 4, 4, 4, 4], true),
    ),
    op(12, [B_, s(3), A_], lane8([6, 7, 4, 5, 2, 3, 0, 1], false)),
    op(13, [A_, ExecLo, C_], lane8([1, 0, 3, 2, 5, 4, 7, 6], false)).exec(pat(0x5555_5555)),
    op(14, [A_, s(0), C_], lane8([1, 0, 3, 2, 5, 4, 7, 6], true)).exec(pat(0x5555_5555)),
    op(
        15,
        [A_, ExecLo, s(1)],
        lane8([7, 6, 5, 4, 3, 2, 1, 0], false),
    )
    .exec(Exec::Scalar(0)),
    op(
        16,
        [A_, Inline(240), C_],
        lane8([2, 2, 2, 2, 5, 5, 5, 5], true),
    )
    .exec(Exec::Scalar(2)),
    op(17, [A_, VCCHI, C_], lane8([7, 6, 5, 4, 3, 2, 1, 0], false)),
    op(18, [A_, ExecHi, C_], lane8([1, 0, 3, 2, 5, 4, 7, 6], true)),
    op(19, [A_, ExecHi, VCCHI], lane8([0; 8], false)).exec(pat(0x0f0f_0f0f)),
];

const D_SGPR16: &str = "DPP16 on src0 = a with src1 = s20-s27, s105, vcc_lo, m0, exec_lo, null, src_scc (1, 0, random) \
under quad_perm, row_shl/shr (bound_ctrl 0 and 1), row_ror, row_mirror, row_half_mirror, row_share, row_xmask, masks; \
two SGPRs, one SGPR twice, SGPR + inline; exec_lo under EXEC patterns with fi=1";
const D_SGPR16_W64: &str = "as dpp_src1_sgpr_dpp16_w32 in wave64, plus vcc_hi and exec_hi (whole wave and an EXEC pattern) as src1";
const D_INLINE16: &str = "DPP16 on src0 = a with src1 = each inline constant (-16..64, 0.5..4.0, their negatives, 1/(2pi) as \
f32 bits), cycling through 12 DPP16 controls (quad_perm, row_shl/shr/ror, mirrors, row_share, row_xmask, masks, \
bound_ctrl, fi); src2 = c, s20 or the inline 3";
const D_SGPR8: &str = "DPP8 on src0 = a with src1 = s20-s23, s105, vcc_lo, m0, exec_lo, null, src_scc (1, random), two SGPRs, \
m0 + inline; then source lanes off under EXEC patterns (fi 0 reads 0, fi 1 the lane) with exec_lo, s20 or 0.5 as src1";
const D_SGPR8_W64: &str = "as dpp_src1_sgpr_dpp8_w32 in wave64, plus vcc_hi and exec_hi (whole wave and an EXEC pattern) as src1";
const D_INLINE8: &str = "DPP8 on src0 = a with src1 = each inline constant (-16..64, 0.5..4.0, their negatives, 1/(2pi) as \
f32 bits), cycling through 5 selector sets with fi 0 and 1; src2 = c, s20 or the inline 3";

// Every dpp_src1 case needs a scalar DPP src1 (and VOP3 DPP); the SGPR
// tables also read null, s105 and two scalar values in one op.
// What the op tables need (test `every_case_requires_what_its_op_table_needs`):
// the DPP16 tables use row_share/row_xmask and fi, the DPP8 tables DPP8 and fi.
use Feature::{
    Dpp8, DppFetchInactive, DppRowShare, DppSrc1Scalar, HighSgprs, NullSgpr, TwoScalarReads,
    Vop3Dpp, Wave32,
};
const NEEDS16_W64: &[Feature] = &[
    Feature::Wave64,
    Vop3Dpp,
    DppSrc1Scalar,
    DppRowShare,
    DppFetchInactive,
];
const NEEDS16_W32: &[Feature] = &[
    Wave32,
    Vop3Dpp,
    DppSrc1Scalar,
    DppRowShare,
    DppFetchInactive,
];
const NEEDS8_W64: &[Feature] = &[
    Feature::Wave64,
    Vop3Dpp,
    DppSrc1Scalar,
    Dpp8,
    DppFetchInactive,
];
const NEEDS8_W32: &[Feature] = &[Wave32, Vop3Dpp, DppSrc1Scalar, Dpp8, DppFetchInactive];
const SGPR16_W64: &[Feature] = &[
    Feature::Wave64,
    Vop3Dpp,
    DppSrc1Scalar,
    TwoScalarReads,
    NullSgpr,
    HighSgprs,
    DppRowShare,
    DppFetchInactive,
];
const SGPR16_W32: &[Feature] = &[
    Wave32,
    Vop3Dpp,
    DppSrc1Scalar,
    TwoScalarReads,
    NullSgpr,
    HighSgprs,
    DppRowShare,
    DppFetchInactive,
];
const SGPR8_W64: &[Feature] = &[
    Feature::Wave64,
    Vop3Dpp,
    DppSrc1Scalar,
    TwoScalarReads,
    NullSgpr,
    HighSgprs,
    Dpp8,
    DppFetchInactive,
];
const SGPR8_W32: &[Feature] = &[
    Wave32,
    Vop3Dpp,
    DppSrc1Scalar,
    TwoScalarReads,
    NullSgpr,
    HighSgprs,
    Dpp8,
    DppFetchInactive,
];

pub(super) static SPECS: &[Spec] = &[
    case!("dpp_src1_sgpr_dpp16_w32", wave: 32, ops: SGPR16.split_at(24).0, scalars: 8, description: D_SGPR16, requires: SGPR16_W32),
    case!("dpp_src1_sgpr_dpp16_w64", wave: 64, ops: &SGPR16, scalars: 8, description: D_SGPR16_W64, requires: SGPR16_W64),
    case!("dpp_src1_inline_dpp16_w32", wave: 32, ops: &INLINE16, scalars: 8, description: D_INLINE16, requires: NEEDS16_W32),
    case!("dpp_src1_inline_dpp16_w64", wave: 64, ops: &INLINE16, scalars: 8, description: D_INLINE16, requires: NEEDS16_W64),
    case!("dpp_src1_sgpr_dpp8_w32", wave: 32, ops: SGPR8.split_at(17).0, scalars: 8, description: D_SGPR8, requires: SGPR8_W32),
    case!("dpp_src1_sgpr_dpp8_w64", wave: 64, ops: &SGPR8, scalars: 8, description: D_SGPR8_W64, requires: SGPR8_W64),
    case!("dpp_src1_inline_dpp8_w32", wave: 32, ops: &INLINE8, scalars: 8, description: D_INLINE8, requires: NEEDS8_W32),
    case!("dpp_src1_inline_dpp8_w64", wave: 64, ops: &INLINE8, scalars: 8, description: D_INLINE8, requires: NEEDS8_W64),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::super::encode::encode_for;
    use super::SPECS;
    use crate::platform::target::TARGETS;

    const KEEP: u32 = 0xEEEE_0000;
    /// s20-s27; s26 < s27, so the random SCC is 1.
    const SCALARS: [u32; 8] = [
        0x1111_0000,
        0x2222_0000,
        0x3333_0000,
        0x4444_0000,
        0x5555_0000,
        0x6666_0000,
        9,
        10,
    ];

    /// Every word of `n` lanes of case `name` with a = 0x100 + lane, b =
    /// 0x2000 + lane, c = 0 (so a word shows the src0 lane read, ^ src1),
    /// prefill KEEP + word: `w[lane][word]`.
    fn lanes(name: &str, n: usize) -> Vec<Vec<u32>> {
        let s = spec(SPECS, name);
        let k = s.case.outputs_per_lane;
        let a: Vec<u32> = (0..n as u32).map(|l| 0x100 + l).collect();
        let b: Vec<u32> = (0..n as u32).map(|l| 0x2000 + l).collect();
        let c = vec![0u32; n];
        let prefill: Vec<u32> = (0..n * k).map(|i| KEEP + (i % k) as u32).collect();
        let out = model_out(s, &a, &b, &c, &SCALARS, &prefill);
        out.chunks(k).map(<[u32]>::to_vec).collect()
    }

    #[test]
    fn sgpr_dpp16_by_hand() {
        for name in ["dpp_src1_sgpr_dpp16_w32", "dpp_src1_sgpr_dpp16_w64"] {
            let w = lanes(name, 64);
            // Lane 6: row 0, quad 4..7, index 2. Worked from the DPP16 rules
            // (design notes) and D = (S0 ^ S1) + S2, not from the model.
            let want6: [u32; 22] = [
                0x1111_0107, // quad_perm [1,0,3,2]: 7, ^ s20
                0x2222_0107, // row_shl:1: 7, ^ s21
                0x3333_010A, // row_shl:4 bc1: 10, ^ s22
                0x4444_0104, // row_shr:2: 4, ^ s23
                0x5555_0000, // row_shr:15 bc1: out of row reads 0, ^ s24
                0x6666_0101, // row_ror:5: 1, ^ s25
                0x0000_0100, // row_mirror: 9, ^ s26 = 9
                0x0000_010B, // row_half_mirror: 1, ^ s27 = 10
                0x3333_0103, // row_share:3: 3, ^ s105 = s22
                0x4444_010F, // row_xmask:9: 15, ^ vcc_lo = s23
                0x6666_0105, // quad_perm [3,2,1,0], row 0 and bank 1 enabled: 5, ^ m0 = s25
                0xFFFF_FEF9, // quad_perm [0,0,2,2]: 6, ^ exec_lo = all ones
                0x0000_0108, // row_shl:2 bc1: 8, ^ null
                0x0000_0104, // row_ror:1: 5, ^ SCC 1
                0x0000_0105, // row_shr:1 bc1: 5, ^ SCC 0
                0x0000_010E, // row_share:15: 15, ^ SCC (9 < 10)
                0x3333_0104, // quad_perm [2,3,0,1]: (4 ^ s20) + s21
                0x4444_0107, // row_xmask:1: (7 ^ s21) + s21
                0x1111_0110, // row_mirror: (9 ^ s20) + 7
                0x6666_010E, // row_shl:8 bc1 fi1: (14 ^ m0) + null
                0x1111_2111, // row_ror:11 on b: (b[11] ^ s20) + a[6]
                KEEP + 21,   // row_mask 0xa: row 0 not written
            ];
            assert_eq!(w[6][..22], want6, "{name}");
            assert_eq!(
                (w[15][1], w[12][2], w[1][3], w[15][4]),
                (KEEP + 1, 0x3333_0000, KEEP + 3, 0x5555_0100),
                "{name}: row edges"
            );
            assert_eq!(
                (w[2][10], w[22][10]),
                (KEEP + 10, KEEP + 10),
                "{name}: bank 0 / row 1 masked"
            );
            assert_eq!(
                (w[14][12], w[0][14], w[8][19]),
                (0, 0, 0x6666_0000),
                "{name}: bc1 out of row reads 0"
            );
            // row_shr:5, rows 1 and 3, banks 0 and 1, bc1: (src ^ vcc_lo) + m0.
            assert_eq!(
                (w[17][21], w[22][21], w[24][21]),
                (0xAAAA_0000, 0xAAAA_0111, KEEP + 21),
                "{name}"
            );
            // EXEC 0x55555555, fi1: lane 6 reads inactive 7, ^ exec_lo; odd lanes keep.
            assert_eq!((w[6][22], w[7][22]), (0x5555_5452, KEEP + 22), "{name}");
            // EXEC = s20 (lanes 16, 20, 24, 28 of the low half): (18 ^ exec_lo) + s21.
            assert_eq!(
                (w[16][23], w[6][23], w[17][23]),
                (0x3333_0112, KEEP + 23, KEEP + 23),
                "{name}"
            );
        }
        let w = lanes("dpp_src1_sgpr_dpp16_w64", 64);
        // Lane 40: row 2 (base 32), index 8.
        assert_eq!(w[40][24], 0x5555_0126, "row_share:6: 38, ^ vcc_hi = s24");
        assert_eq!(
            w[40][25], 0xFFFF_FED0,
            "row_ror:9: 47, ^ exec_hi = all ones"
        );
        assert_eq!(
            (w[40][26], w[44][26]),
            (0x0F0F_0E26, KEEP + 26),
            "EXEC 0x0f0f0f0f both halves, fi1: 41 ^ exec_hi"
        );
        assert_eq!(
            (w[40][27], w[47][27]),
            (0x9999_012B, 0x9999_0000),
            "row_shl:3 bc1: (43 ^ vcc_hi) + vcc_lo"
        );
    }

    #[test]
    fn inline_dpp16_by_hand() {
        for name in ["dpp_src1_inline_dpp16_w32", "dpp_src1_inline_dpp16_w64"] {
            let w = lanes(name, 64);
            assert_eq!(w[6][0], 0x104, "{name}: quad_perm [2,3,0,1]: 4, ^ 0");
            assert_eq!(
                (w[6][1], w[15][1]),
                (0x106, KEEP + 1),
                "{name}: row_shl:1: 7 ^ 1; lane 15 out of row, bc0"
            );
            assert_eq!(w[6][4], 0x1111_010D, "{name}: row_mirror: (9 ^ 4) + s20");
            assert_eq!(
                (w[6][8], w[2][8]),
                (0x111, KEEP + 8),
                "{name}: quad_perm [3,1,2,0] bank 1: (6 ^ 8) + 3; bank 0 masked"
            );
            assert_eq!(w[6][65], 0xFFFF_FEFE, "{name}: row_half_mirror: 1 ^ -1");
            assert_eq!(
                w[5][80], 0xFFFF_FEF8,
                "{name}: quad_perm [3,1,2,0]: (5 ^ -16) + 3"
            );
            assert_eq!(
                (w[0][81], w[6][81]),
                (0x3F00_010F, 0x3F00_0000),
                "{name}: row_shl:15 bc1: 15 ^ 0.5; out of row 0 ^ 0.5"
            );
            assert_eq!(
                w[6][89], 0x3E22_F885,
                "{name}: row_half_mirror: (1 ^ 1/(2pi)) + 3"
            );
        }
    }

    #[test]
    fn dpp8_by_hand() {
        for name in ["dpp_src1_inline_dpp8_w32", "dpp_src1_inline_dpp8_w64"] {
            let w = lanes(name, 64);
            assert_eq!(w[9][0], 0x10E, "{name}: reverse: 14 ^ 0");
            assert_eq!(w[9][3], 0x10C, "{name}: [3,7,1,5,..]: 15 ^ 3");
            assert_eq!(w[9][4], 0x1111_0109, "{name}: [5,5,..]: (13 ^ 4) + s20");
            assert_eq!(w[9][86], 0xC000_0108, "{name}: pairs: 8 ^ -2.0");
            assert_eq!(
                w[4][89], 0x3E22_F887,
                "{name}: [5,5,2,2,7,..]: (7 ^ 1/(2pi)) + 3"
            );
        }
        for name in ["dpp_src1_sgpr_dpp8_w32", "dpp_src1_sgpr_dpp8_w64"] {
            let w = lanes(name, 64);
            let want9: [u32; 13] = [
                0x1111_010E, // reverse: 14, ^ s20
                0x2222_0108, // pairs: 8, ^ s21
                0x3333_0108, // zeros: 8, ^ s105 = s22
                0x4444_010F, // [3,7,..]: 15, ^ vcc_lo = s23
                0x6666_010A, // [6,2,..]: 10, ^ m0 = s25
                0xFFFF_FEF2, // [5,5,..]: 13, ^ exec_lo = all ones
                0x0000_010B, // [2,3,..]: 11, ^ null
                0x0000_010C, // [4,5,..]: 13, ^ SCC 1
                0x0000_0108, // [1,1,..]: 9, ^ SCC (9 < 10)
                0x3333_0108, // [7,0,..]: (8 ^ s20) + s21
                0x6666_0109, // identity: (9 ^ s22) + s22 = 0x33330109 + 0x33330000
                0x6666_0104, // [3,3,3,3,..]: (11 ^ m0) + -7
                0x4444_2118, // [6,7,..] on b: (b[15] ^ s23) + a[9]
            ];
            assert_eq!(w[9][..13], want9, "{name}");
            // EXEC 0x55555555: fi0 reads inactive 9 as 0; fi1 reads it.
            assert_eq!(
                (w[8][13], w[9][13], w[8][14]),
                (0x5555_5555, KEEP + 13, 0x1111_0109),
                "{name}"
            );
            // EXEC = s20 (lanes 16, 20, 24, 28), reverse, fi0: sources inactive: (0 ^ exec_lo) + s21.
            assert_eq!(
                (w[16][15], w[20][15], w[17][15]),
                (0x3333_0000, 0x3333_0000, KEEP + 15),
                "{name}"
            );
            // EXEC = s22 (lanes 16, 17, 20, 21, ...), fi1: 17 reads 18, 21 reads 21, ^ 0.5.
            assert_eq!(
                (w[17][16], w[21][16], w[18][16]),
                (0x3F00_0112, 0x3F00_0115, KEEP + 16),
                "{name}"
            );
        }
        let w = lanes("dpp_src1_sgpr_dpp8_w64", 64);
        assert_eq!(w[40][17], 0x5555_012F, "reverse: 47 ^ vcc_hi");
        assert_eq!(w[40][18], 0xFFFF_FED6, "pairs: 41 ^ exec_hi = all ones");
        // EXEC 0x0f0f0f0f both halves, zeros, fi0: (src ^ exec_hi) + vcc_hi.
        assert_eq!(
            (w[41][19], w[32][19], w[44][19]),
            (0x6464_0E27, 0x6464_0E2F, KEEP + 19)
        );
    }

    /// The cases exist exactly where the ISA takes the form, and each needs
    /// it: every case has an op a gfx1100-class ISA refuses to encode.
    #[test]
    fn only_targets_with_the_feature_have_them() {
        let with: Vec<&str> = TARGETS
            .iter()
            .filter(|t| SPECS.iter().all(|s| s.case.runs_on(t)))
            .map(|t| t.name)
            .collect();
        assert_eq!(
            with,
            [
                "gfx1150",
                "gfx1151",
                "gfx1152",
                "gfx1153",
                "gfx1200",
                "gfx1201",
                "gfx12-generic"
            ]
        );
        // The others run none, but a wave32-only target with the feature
        // (CDNA5), which runs exactly the wave32 ones.
        for t in TARGETS.iter().filter(|t| !with.contains(&t.name)) {
            for s in SPECS {
                let want = t.has(crate::platform::target::Feature::DppSrc1Scalar)
                    && !t.has(crate::platform::target::Feature::Wave64)
                    && s.case.wave_size == 32;
                assert_eq!(s.case.runs_on(t), want, "{} on {}", s.case.name, t.name);
            }
        }
        for s in SPECS {
            assert!(
                s.program.ops.iter().any(|op| encode_for(
                    op,
                    crate::platform::target::find("gfx1100").unwrap()
                )
                .is_err()),
                "{}: no op needs the feature",
                s.case.name
            );
            for op in s.program.ops {
                encode_for(op, crate::platform::target::find("gfx1151").unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", s.case.name));
            }
        }
    }
}
