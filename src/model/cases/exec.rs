//! v_xad_u32 under explicit EXEC lane patterns (kernels/include/xad_exec.inc):
//! all but one lane, alternating lanes, one half off, one lane, none, and
//! random patterns from scalar arguments; some ops also read EXEC or a scalar,
//! an inline constant or a literal. Lanes switched off must keep the prefill
//! of their destination, which the kernel loaded from `out`.

use super::declare::{case, Spec};
use super::op_table::{int, Exec, Lane::*, Op, Src, Src::*};
use crate::platform::target::Feature;

const ABC: [Src; 3] = [V(2, A), V(3, B), V(4, C)];
const S24: Src = Sreg(24, 4);

const fn pattern(j: u16, p: u64) -> Op {
    Op::new(j, 16 + j as u8, ABC).exec(Exec::Pattern(p))
}

const W32_OPS: [Op; 14] = [
    pattern(0, 0xffff_fffe),
    pattern(1, 0x7fff_ffff),
    pattern(2, 0xffff_dfff),
    pattern(3, 0x5555_5555),
    pattern(4, 0xaaaa_aaaa),
    pattern(5, 0x0000_ffff),
    pattern(6, 0xffff_0000),
    pattern(7, 0x80),
    pattern(8, 0),
    Op::new(9, 25, ABC).exec(Exec::Scalar(0)),
    Op::new(10, 26, [ExecLo, V(3, B), V(4, C)]).exec(Exec::Pattern(0x5555_5555)),
    Op::new(11, 27, [S24, int(7), V(4, C)]).exec(Exec::Pattern(0xaaaa_aaaa)),
    Op::new(12, 28, [Lit(0x1234_5678), V(3, B), S24]).exec(Exec::Pattern(0x0f0f_0f0f)),
    Op::new(13, 29, ABC).exec(Exec::Scalar(2)),
];

/// The wave64 ops with `x` (a literal, or an inline constant where VOP3 has
/// no literal) in op 12's src0.
const fn w64_ops(x: Src) -> [Op; 15] {
    [
        pattern(0, !1),
        pattern(1, !(1 << 63)),
        pattern(2, !(1 << 40)),
        pattern(3, 0x5555_5555_5555_5555),
        pattern(4, 0xaaaa_aaaa_aaaa_aaaa),
        pattern(5, 0x0000_0000_ffff_ffff),
        pattern(6, 0xffff_ffff_0000_0000),
        pattern(7, 1 << 45),
        pattern(8, 0),
        Op::new(9, 25, ABC).exec(Exec::Scalar(0)),
        Op::new(10, 26, [ExecLo, V(3, B), V(4, C)]).exec(Exec::Pattern(0x5555_5555_5555_5555)),
        Op::new(11, 27, [S24, int(7), V(4, C)]).exec(Exec::Pattern(0xaaaa_aaaa_aaaa_aaaa)),
        Op::new(12, 28, [x, V(3, B), S24]).exec(Exec::Pattern(0x0f0f_0f0f_0f0f_0f0f)),
        Op::new(13, 29, ABC).exec(Exec::Scalar(2)),
        Op::new(14, 30, [V(2, A), ExecHi, V(4, C)]).exec(Exec::Pattern(0xf0f0_f0f0_0f0f_0f0f)),
    ]
}

const W64_OPS: [Op; 15] = w64_ops(Lit(0x1234_5678));
/// gfx9 has no VOP3 literal: 1/(2*pi) (inline code 248) takes op 12's.
const W64_INLINE_OPS: [Op; 15] = w64_ops(Src::Inline(248));

pub(super) static SPECS: &[Spec] = &[
    case!(
        "exec_w32", wave: 32, ops: &W32_OPS, scalars: 8,
        description: "a, b, c (and exec_lo, random SGPR, inline 7, a literal) under EXEC = all but lane 0/31/13, \
                even, odd, low half, high half, lane 7, none, two random masks; masked lanes keep their prefill",
        requires: &[Feature::Wave32, Feature::Vop3Literal, Feature::TwoScalarReads]
    ),
    case!(
        "exec_w64", wave: 64, ops: &W64_OPS, scalars: 8,
        description: "wave64: a, b, c (and exec_lo, exec_hi, SGPR, inline, literal) under EXEC = all but lane \
                0/63/40, even, odd, each half, lane 45, none, two random 64-bit masks; masked lanes keep their prefill",
        requires: &[Feature::Wave64, Feature::Vop3Literal, Feature::TwoScalarReads]
    ),
    case!(
        "exec_inline_w64", wave: 64, ops: &W64_INLINE_OPS, scalars: 8,
        description: "as exec_w64 with inline 1/(2pi) where exec_w64 has its literal (beside s24: one scalar value per \
                op): the EXEC set gfx9 can encode",
        requires: &[Feature::Wave64]
    ),
];

#[cfg(test)]
mod tests {
    use super::super::declare::testing::{model_out, spec};
    use super::SPECS;

    #[test]
    fn hand_computed_masks() {
        // 32 lanes, a = lane, b = 0, c = 0x100; prefill = 0xEEEE0000 + word.
        // s20 = 0x00000003 (lanes 0, 1 on), s22 = 0x80000000 (lane 31 on).
        let n = 32;
        let a: Vec<u32> = (0..n as u32).collect();
        let (b, c) = (vec![0u32; n], vec![0x100u32; n]);
        let k = 14;
        let prefill: Vec<u32> = (0..n * k).map(|i| 0xEEEE_0000 + (i % k) as u32).collect();
        let scalars = [3, 0, 0x8000_0000, 0, 0x0000_0005, 0, 0, 0];
        let got = model_out(spec(SPECS, "exec_w32"), &a, &b, &c, &scalars, &prefill);
        let word = |lane: usize, j: usize| got[lane * k + j];
        let keep = |j: usize| 0xEEEE_0000 + j as u32;
        assert_eq!((word(0, 0), word(1, 0)), (keep(0), 0x101), "all but lane 0");
        assert_eq!(
            (word(31, 1), word(30, 1)),
            (keep(1), 0x11E),
            "all but lane 31"
        );
        assert_eq!((word(13, 2), word(12, 2)), (keep(2), 0x10C));
        assert_eq!((word(2, 3), word(3, 3)), (0x102, keep(3)), "even lanes");
        assert_eq!((word(2, 4), word(3, 4)), (keep(4), 0x103), "odd lanes");
        assert_eq!(
            (word(15, 5), word(16, 5)),
            (0x10F, keep(5)),
            "upper half off"
        );
        assert_eq!(
            (word(15, 6), word(16, 6)),
            (keep(6), 0x110),
            "lower half off"
        );
        assert_eq!(
            (word(7, 7), word(6, 7), word(8, 7)),
            (0x107, keep(7), keep(7)),
            "lane 7 only"
        );
        assert!((0..n).all(|l| word(l, 8) == keep(8)), "no lane");
        assert_eq!(
            (word(1, 9), word(2, 9)),
            (0x101, keep(9)),
            "random mask s20 = 3"
        );
        // exec_lo = 0x55555555 read as src0 by lane 4: (0x55555555 ^ 0) + 0x100.
        assert_eq!((word(4, 10), word(5, 10)), (0x5555_5655, keep(10)));
        // lane 1: (s24 = 5 ^ 7) + 0x100 = 0x102
        assert_eq!((word(1, 11), word(0, 11)), (0x102, keep(11)));
        // lane 0: (0x12345678 ^ 0) + 5
        assert_eq!((word(0, 12), word(4, 12)), (0x1234_567D, keep(12)));
        assert_eq!(
            (word(31, 13), word(0, 13)),
            (0x11F, keep(13)),
            "random mask s22 = 0x80000000"
        );
    }

    #[test]
    fn hand_computed_wave64_halves() {
        // 64 lanes of zeros, c = 1: exec_hi under 0xF0F0F0F0_0F0F0F0F reads 0xF0F0F0F0.
        let n = 64;
        let k = 15;
        let (a, b, c) = (vec![0u32; n], vec![0u32; n], vec![1u32; n]);
        let prefill = vec![0xDDDD_DDDDu32; n * k];
        let got = model_out(spec(SPECS, "exec_w64"), &a, &b, &c, &[0; 8], &prefill);
        let word = |lane: usize, j: usize| got[lane * k + j];
        assert_eq!(
            (word(40, 2), word(41, 2)),
            (0xDDDD_DDDD, 1),
            "all but lane 40"
        );
        assert_eq!(
            (word(31, 5), word(32, 5)),
            (1, 0xDDDD_DDDD),
            "upper half off"
        );
        assert_eq!((word(45, 7), word(44, 7)), (1, 0xDDDD_DDDD), "lane 45 only");
        assert_eq!(
            (word(0, 14), word(4, 14), word(36, 14)),
            (0xF0F0_F0F1, 0xDDDD_DDDD, 0xF0F0_F0F1)
        );
        assert!(
            (0..n).all(|l| word(l, 9) == 0xDDDD_DDDD),
            "random mask of zeros"
        );
    }
}
