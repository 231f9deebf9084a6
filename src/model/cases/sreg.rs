//! Scalar and special-register sources. Kernels: kernels/include/xad_sreg.inc
//! and kernels/cases/xad_sreg_hi_w32.s. Scalar argument k sits in s[20+k];
//! the kernels copy s22 to s105, s23 to vcc_lo, s24 to vcc_hi, s25 to m0
//! (and s25 to exec_hi in the wave32 "hi" kernel).

use super::declare::{case, Spec};
use super::op_table::{
    int, Lane::*, Op, SccFrom, Src, Src::*, EXEC_HI, FLAT_SCRATCH_HI, FLAT_SCRATCH_LO, M0, VCC_HI,
    VCC_LO, XNACK_MASK_HI, XNACK_MASK_LO,
};
use crate::platform::target::Feature;

const fn s(k: usize) -> Src {
    Sreg(20 + k as u16, k)
}
const S105: Src = Sreg(105, 2);
const VCCLO: Src = Sreg(VCC_LO, 3);
const VCCHI: Src = Sreg(VCC_HI, 4);
const MZERO: Src = Sreg(M0, 5);
const ONE_F32: Src = Src::Inline(242);

/// Three ops putting `x` in src0, src1, src2 in turn (a, b, c elsewhere).
const fn slots(first_word: u16, x: Src) -> [Op; 3] {
    let w = first_word;
    let r = 16 + w as u8;
    [
        Op::new(w, r, [x, V(3, B), V(4, C)]),
        Op::new(w + 1, r + 1, [V(2, A), x, V(4, C)]),
        Op::new(w + 2, r + 2, [V(2, A), V(3, B), x]),
    ]
}

const fn join<const N: usize>(parts: &[&[Op]]) -> [Op; N] {
    let mut out = [Op::new(0, 0, [Null, Null, Null]); N];
    let (mut n, mut p) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N, "join: length");
    out
}

/// Wave32 runs the first 36 ops; wave64 all 44.
const OPS: [Op; 44] = join(&[
    &slots(0, s(0)),
    &[
        Op::new(3, 19, [s(0), s(1), V(4, C)]),
        Op::new(4, 20, [s(0), V(3, B), s(1)]),
        Op::new(5, 21, [V(2, A), s(0), s(1)]),
        Op::new(6, 22, [s(1), s(0), V(4, C)]),
        Op::new(7, 23, [s(0), s(0), s(0)]),
        Op::new(8, 24, [s(1), s(0), s(1)]),
        Op::new(9, 25, [V(2, A), S105, V(4, C)]),
    ],
    &slots(10, VCCLO),
    &slots(13, MZERO),
    &slots(16, ExecLo),
    &slots(19, Null),
    &slots(22, Scc(SccFrom::One)),
    &slots(25, Scc(SccFrom::Zero)),
    &slots(28, Scc(SccFrom::Less(6, 7))),
    &[
        Op::new(31, 47, [VCCLO, MZERO, V(4, C)]),
        Op::new(32, 48, [Null, s(1), ExecLo]),
        Op::new(33, 49, [s(0), int(7), V(4, C)]),
        Op::new(34, 50, [int(-16), V(3, B), s(1)]),
        Op::new(35, 51, [ONE_F32, V(3, B), s(7)]),
    ],
    &slots(36, VCCHI),
    &slots(39, ExecHi),
    &[
        Op::new(42, 58, [ExecLo, ExecHi, V(4, C)]),
        Op::new(43, 59, [V(2, A), VCCHI, s(0)]),
    ],
]);

const HI_OPS: [Op; 6] = join(&[&slots(0, VCCHI), &slots(3, Sreg(EXEC_HI, 5))]);

/// One scalar value per op (gfx9's constant bus limit): every scalar source
/// gfx9 and gfx10+ share, s101 (the last SGPR gfx9 addresses) instead of s105,
/// no null. Kernel: XAD_SREG_ONE_BODY (s101 = s22, vcc = s23/s24, m0 = s25).
const ONE_OPS: [Op; 37] = join(&[
    &slots(0, s(0)),
    &[
        Op::new(3, 19, [s(0), s(0), s(0)]),
        Op::new(4, 20, [s(1), V(3, B), s(1)]),
    ],
    &slots(5, Sreg(101, 2)),
    &slots(8, VCCLO),
    &slots(11, VCCHI),
    &slots(14, MZERO),
    &slots(17, ExecLo),
    &slots(20, ExecHi),
    &slots(23, Scc(SccFrom::One)),
    &slots(26, Scc(SccFrom::Zero)),
    &slots(29, Scc(SccFrom::Less(6, 7))),
    &[
        Op::new(32, 48, [s(0), int(7), V(4, C)]),
        Op::new(33, 49, [int(-16), V(3, B), s(1)]),
        Op::new(34, 50, [ONE_F32, V(3, B), s(7)]),
        Op::new(35, 51, [VCCLO, int(5), VCCLO]),
        Op::new(36, 52, [MZERO, MZERO, int(-1)]),
    ],
]);

/// gfx9's flat_scratch and xnack_mask (codes 102-105) in each slot, each set
/// from a scalar argument first (s22-s25). Kernel: kernels/cases/xad_sreg_gfx9_w64.s.
const GFX9_OPS: [Op; 13] = join(&[
    &slots(0, Gfx9Sreg(FLAT_SCRATCH_LO, 2)),
    &slots(3, Gfx9Sreg(FLAT_SCRATCH_HI, 3)),
    &slots(6, Gfx9Sreg(XNACK_MASK_LO, 4)),
    &slots(9, Gfx9Sreg(XNACK_MASK_HI, 5)),
    &[Op::new(
        12,
        28,
        [
            Gfx9Sreg(XNACK_MASK_HI, 5),
            int(3),
            Gfx9Sreg(XNACK_MASK_HI, 5),
        ],
    )],
]);

pub(super) static SPECS: &[Spec] = &[
    case!(
        "sreg_w32", wave: 32, ops: OPS.split_at(36).0, scalars: 8,
        description: "random scalars: SGPR in each slot, two SGPRs, one SGPR thrice, s105, vcc_lo, m0, \
                exec_lo (lanes < count), null (0), src_scc (1, 0, random) in each slot; mixes with inline constants",
        requires: &[Feature::Wave32, Feature::TwoScalarReads, Feature::NullSgpr, Feature::HighSgprs]
    ),
    case!(
        "sreg_w64", wave: 64, ops: &OPS, scalars: 8,
        description: "as sreg_w32 in wave64, plus vcc_hi and exec_hi (EXEC bits 63:32) in each slot",
        requires: &[Feature::Wave64, Feature::TwoScalarReads, Feature::NullSgpr, Feature::HighSgprs]
    ),
    case!(
        "sreg_hi_w32", wave: 32, ops: &HI_OPS, scalars: 8,
        description: "wave32: vcc_hi and exec_hi in each slot, each first written with a random scalar",
        unsettled: "the RDNA3 ISA guide does not say what vcc_hi and exec_hi read as data in wave32 (nor that a write \
                 to them is kept); the model expects the value the kernel wrote just before",
        requires: &[Feature::Wave32]
    ),
    case!(
        "sreg_one_w64", wave: 64, ops: &ONE_OPS, scalars: 8,
        description: "one scalar value per op (gfx9's constant bus): random SGPR in each slot and thrice, s101, \
                vcc_lo, vcc_hi, m0, exec_lo, exec_hi, src_scc (1, 0, random) in each slot; mixes with inline constants",
        requires: &[Feature::Wave64]
    ),
    case!(
        "sreg_gfx9_w64", wave: 64, ops: &GFX9_OPS, scalars: 8,
        description: "gfx9: flat_scratch_lo/hi and xnack_mask_lo/hi in each slot, each first written with a random scalar",
        unsettled: "the Vega/CDNA guides list FLAT_SCRATCH and XNACK_MASK as SALU-writable SGPR-space registers but do \
                 not say that XNACK_MASK keeps a written value when XNACK is off, nor that FLAT_SCRATCH does on gfx940+ \
                 (architected flat scratch); the model expects the value written just before",
        requires: &[Feature::Wave64, Feature::Gfx9SpecialSgprs]
    ),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    const SCALARS: [u32; 8] = [
        0x1111_1111,
        0x0000_00F0,
        0x2222_2222,
        0x3333_3333,
        0x4444_4444,
        0x5555_5555,
        9,
        10,
    ];

    #[test]
    fn hand_computed_wave32() {
        // One lane (count = 1, so EXEC = 1): a = 0x100, b = 0x0F, c = 0x1000.
        // Worked with a calculator from D = (S0 ^ S1) + S2, independently of the model.
        let got = model_out(
            spec(SPECS, "sreg_w32"),
            &[0x100],
            &[0x0F],
            &[0x1000],
            &SCALARS,
            &[],
        );
        let want: [u32; 36] = [
            0x1111_211E,
            0x1111_2011,
            0x1111_1220, // s20 = 0x11111111 in each slot
            0x1111_21E1,
            0x1111_120E,
            0x1111_1101,
            0x1111_21E1,
            0x1111_1111,
            0x1111_12D1, // pairs, thrice
            0x2222_3322, // s105 = 0x22222222
            0x3333_433C,
            0x3333_4233,
            0x3333_3442, // vcc_lo = 0x33333333
            0x5555_655A,
            0x5555_6455,
            0x5555_5664, // m0 = 0x55555555
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // exec_lo = 1
            0x0000_100F,
            0x0000_1100,
            0x0000_010F, // null = 0
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // SCC = 1
            0x0000_100F,
            0x0000_1100,
            0x0000_010F, // SCC = 0
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // SCC = (9 < 10) = 1
            0x6666_7666, // (vcc_lo ^ m0) + c
            0x0000_00F1, // (null ^ 0xF0) + exec_lo
            0x1111_2116, // (s20 ^ 7) + c
            0x0000_00EF, // (-16 ^ 0x0F) + 0xF0 wraps
            0x3F80_0019, // (1.0f ^ 0x0F) + 10
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn hand_computed_wave64_exec_halves() {
        // 40 lanes: the last wave's EXEC = 0x000000FF_FFFFFFFF.
        let n = 40;
        let (a, b, c) = (vec![0u32; n], vec![1u32; n], vec![2u32; n]);
        let got = model_out(spec(SPECS, "sreg_w64"), &a, &b, &c, &SCALARS, &[]);
        let lane39 = &got[39 * 44..40 * 44];
        assert_eq!(lane39[16..19], [0, 1, 0], "exec_lo = 0xFFFFFFFF");
        assert_eq!(
            lane39[36..44],
            [
                0x4444_4447,
                0x4444_4446,
                0x4444_4445,
                0x100,
                0x101,
                0x100,
                0xFFFF_FF02,
                0x5555_5555
            ],
            "vcc_hi, exec_hi = 0xFF"
        );
    }

    #[test]
    fn hand_computed_hi_wave32() {
        let got = model_out(
            spec(SPECS, "sreg_hi_w32"),
            &[0x100],
            &[0x0F],
            &[0x1000],
            &SCALARS,
            &[],
        );
        assert_eq!(
            got,
            [
                0x4444_544B,
                0x4444_5544,
                0x4444_4553,
                0x5555_655A,
                0x5555_6455,
                0x5555_5664
            ]
        );
    }

    #[test]
    fn hand_computed_one_scalar_per_op() {
        // One lane: a = 0x100, b = 0x0F, c = 0x1000; s20 = 0x11111111, s21 = 0xF0,
        // s101 = s22, vcc = s23:s24, m0 = s25, s26 = 9 < s27 = 10; EXEC = 1 (count 1).
        let got = model_out(
            spec(SPECS, "sreg_one_w64"),
            &[0x100],
            &[0x0F],
            &[0x1000],
            &SCALARS,
            &[],
        );
        let want: [u32; 37] = [
            0x1111_211E,
            0x1111_2011,
            0x1111_1220, // s20 in each slot
            0x1111_1111, // (s20 ^ s20) + s20
            0x0000_01EF, // (s21 ^ b) + s21 = 0xFF + 0xF0
            0x2222_322D,
            0x2222_3322,
            0x2222_2331, // s101 = 0x22222222
            0x3333_433C,
            0x3333_4233,
            0x3333_3442, // vcc_lo
            0x4444_544B,
            0x4444_5544,
            0x4444_4553, // vcc_hi
            0x5555_655A,
            0x5555_6455,
            0x5555_5664, // m0
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // exec_lo = 1
            0x0000_100F,
            0x0000_1100,
            0x0000_010F, // exec_hi = 0
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // SCC = 1
            0x0000_100F,
            0x0000_1100,
            0x0000_010F, // SCC = 0
            0x0000_100E,
            0x0000_1101,
            0x0000_0110, // SCC = (9 < 10) = 1
            0x1111_2116, // (s20 ^ 7) + c
            0x0000_00EF, // (-16 ^ 0x0F) + 0xF0 wraps
            0x3F80_0019, // (1.0f ^ 0x0F) + 10
            0x6666_6669, // (vcc_lo ^ 5) + vcc_lo = 0x33333336 + 0x33333333
            0xFFFF_FFFF, // (m0 ^ m0) + -1
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn hand_computed_gfx9_specials() {
        let got = model_out(
            spec(SPECS, "sreg_gfx9_w64"),
            &[0x100],
            &[0x0F],
            &[0x1000],
            &SCALARS,
            &[],
        );
        assert_eq!(
            got[..3],
            [0x2222_322D, 0x2222_3322, 0x2222_2331],
            "flat_scratch_lo = s22"
        );
        assert_eq!(
            got[9..12],
            [0x5555_655A, 0x5555_6455, 0x5555_5664],
            "xnack_mask_hi = s25"
        );
        assert_eq!(
            got[12], 0xAAAA_AAAB,
            "(xnack_mask_hi ^ 3) + xnack_mask_hi = 0x55555556 + 0x55555555"
        );
    }
}
