//! The op table's vocabulary: one [`Op`] per `v_xad_u32` in a case kernel,
//! saying what the instruction encodes and what each source reads, and the
//! [`Program`] of a case (its ops in execution order). Also the operand codes
//! and DPP control values the tables are written with.
//!
//! A source may be a VGPR a `v_mov_b32_dpp` wrote just before the op
//! ([`Src::Moved`]): the kernel first sets it to the move's old value, so a
//! lane the move leaves unwritten reads that value and the op still writes
//! every lane of its EXEC.
//!
//! Kernel contract for ops whose lanes may keep their destination (an EXEC
//! pattern, or a VOP3 DPP16 control that may leave a lane unwritten): the kernel
//! loads the op's destination VGPR from its `out` word first, so a lane that is
//! not written stores back its prefill. Such programs keep lanes
//! ([`Program::keeps_lanes`]).

/// Which per-lane source buffer a VGPR was loaded from. Lanes at or past
/// `count` hold 0 (the frame zeroes v2-v4 before the masked loads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    A,
    B,
    C,
}

/// How the kernel set SCC before the op (`s_cmp_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SccFrom {
    One,
    Zero,
    /// `s_cmp_lt_u32 s[20+k], s[20+m]`: scalar argument k < m, unsigned.
    Less(usize, usize),
}

/// A source operand: its encoding and what it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// VGPR `reg` holding the lane's a, b or c.
    V(u8, Lane),
    /// VGPR `reg` holding op `j`'s result (a chain).
    Res(u8, usize),
    /// Scalar register by its 9-bit source code (s0-s105 = 0-105, vcc_lo 106,
    /// vcc_hi 107, m0 125, exec_hi 127 when the kernel wrote it in wave32) that
    /// the kernel set to scalar argument `k`.
    Sreg(u16, usize),
    /// EXEC_LO / EXEC_HI read as data: the EXEC mask the op runs under.
    ExecLo,
    ExecHi,
    /// `null` (code 124) reads 0.
    Null,
    /// `src_scc` (code 253) reads SCC: 0 or 1.
    Scc(SccFrom),
    /// Inline constant by code: 128-192 = 0..64, 193-208 = -1..-16, 240-248 the
    /// f32 constants read as their bit patterns (see
    /// [`inline_value`](super::model::inline_value)).
    Inline(u16),
    /// A 32-bit literal (code 255, the dword after the instruction).
    Lit(u32),
    /// VGPR `reg` written just before the op by `v_mov_b32 reg, <old>` then
    /// `v_mov_b32_dpp reg, v<from> <control>` under the op's EXEC: DPP reaching
    /// `v_xad_u32` through a move (the only way on gfx9/gfx10, which have no
    /// VOP3 DPP). Lanes the move does not write read `old`.
    Moved(u8, Mov),
    /// A gfx9-only scalar register by its code: flat_scratch_lo/hi (102/103),
    /// xnack_mask_lo/hi (104/105); gfx10+ reads s102-s105 there. The kernel set
    /// it to scalar argument `k` first.
    Gfx9Sreg(u16, usize),
}

impl Src {
    /// Does the source take the constant bus (an SGPR, special register,
    /// src_scc or literal)? Inline constants and `null` do not.
    pub const fn is_scalar(&self) -> bool {
        matches!(
            self,
            Src::Sreg(..)
                | Src::Gfx9Sreg(..)
                | Src::ExecLo
                | Src::ExecHi
                | Src::Scc(_)
                | Src::Lit(_)
        )
    }
}

/// A `v_mov_b32_dpp` feeding one source of a `v_xad_u32` ([`Src::Moved`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mov {
    /// The VGPR moved (`v_mov_b32_dpp <dst>, v<src>`) and what it holds.
    pub src: u8,
    pub from: Lane,
    /// The DPP16 or DPP8 control of the move ([`Dpp::None`] is not a move).
    pub dpp: Dpp,
    /// The destination's value before the move (a `v_mov_b32` of this value).
    pub old: u32,
}

/// A moved source: VGPR `dst` := DPP `dpp` of VGPR `src` (holding `from`),
/// lanes not written reading `old`.
pub const fn moved(dst: u8, src: u8, from: Lane, dpp: Dpp, old: u32) -> Src {
    Src::Moved(
        dst,
        Mov {
            src,
            from,
            dpp,
            old,
        },
    )
}

// gfx9's names for codes 102-105 (s102-s105 on gfx10+).
pub const FLAT_SCRATCH_LO: u16 = 102;
pub const FLAT_SCRATCH_HI: u16 = 103;
pub const XNACK_MASK_LO: u16 = 104;
pub const XNACK_MASK_HI: u16 = 105;

// 9-bit source operand codes (RDNA3 ISA guide, "VALU operands").
pub const VCC_LO: u16 = 106;
pub const VCC_HI: u16 = 107;
pub const NULL: u16 = 124;
pub const M0: u16 = 125;
pub const EXEC_LO: u16 = 126;
pub const EXEC_HI: u16 = 127;
pub const SRC_SCC: u16 = 253;
pub const LITERAL: u16 = 255;
pub const DPP16: u16 = 250;
pub const DPP8: u16 = 233;
pub const DPP8_FI: u16 = 234;

/// Inline integer constant code for `v` in -16..=64.
pub const fn int(v: i32) -> Src {
    Src::Inline(if v >= 0 {
        128 + v as u16
    } else {
        192 + (-v) as u16
    })
}

/// Every inline constant code in code order: integers 0..64, -1..-16, then the
/// nine f32 constants.
pub const INLINE_CODES: [u16; 90] = {
    let mut codes = [0u16; 90];
    let mut i = 0;
    while i < 81 {
        codes[i] = 128 + i as u16;
        i += 1;
    }
    while i < 90 {
        codes[i] = 240 + (i - 81) as u16;
        i += 1;
    }
    codes
};

/// The EXEC mask an op runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    /// The lanes < count (what the frame leaves in EXEC).
    Count,
    /// The whole wave (DPP kernels, so every source lane is active).
    Wave,
    /// A fixed pattern of wave lanes (bit n = lane n; wave32 uses bits 0-31).
    Pattern(u64),
    /// Scalar argument k (wave32), or k | k+1 << 32 (wave64).
    Scalar(usize),
}

/// DPP on src0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dpp {
    None,
    /// DPP16 (src0 code 250, DPP word: ctrl 16:8, fi 18, bound_ctrl 19,
    /// bank_mask 27:24, row_mask 31:28).
    Row {
        ctrl: u16,
        row_mask: u8,
        bank_mask: u8,
        bound_ctrl: bool,
        fi: bool,
    },
    /// DPP8 (src0 code 233, or 234 with fi; selectors 3 bits each from bit 8).
    Lane8 {
        sel: [u8; 8],
        fi: bool,
    },
}

// DPP16 control codes (`dpp_ctrl`, RDNA3 ISA guide section 15.3.8 / LLVM
// SIDefines.h `DppCtrl`).
pub const fn quad_perm(s: [u8; 4]) -> u16 {
    (s[0] | s[1] << 2 | s[2] << 4 | s[3] << 6) as u16
}
pub const fn row_shl(k: u16) -> u16 {
    0x100 + k
}
pub const fn row_shr(k: u16) -> u16 {
    0x110 + k
}
pub const fn row_ror(k: u16) -> u16 {
    0x120 + k
}
// gfx9 only (GCN3/Vega ISA guide "DPP_CTRL"; gone in gfx10): whole-wave
// shifts and rotates by one lane, and the row broadcasts.
pub const WAVE_SHL1: u16 = 0x130;
pub const WAVE_ROL1: u16 = 0x134;
pub const WAVE_SHR1: u16 = 0x138;
pub const WAVE_ROR1: u16 = 0x13C;
pub const ROW_BCAST15: u16 = 0x142;
pub const ROW_BCAST31: u16 = 0x143;
pub const ROW_MIRROR: u16 = 0x140;
pub const ROW_HALF_MIRROR: u16 = 0x141;
pub const fn row_share(k: u16) -> u16 {
    0x150 + k
}
pub const fn row_xmask(k: u16) -> u16 {
    0x160 + k
}

/// A DPP16 control with every row and bank enabled.
pub const fn row(ctrl: u16, bound_ctrl: bool, fi: bool) -> Dpp {
    Dpp::Row {
        ctrl,
        row_mask: 0xf,
        bank_mask: 0xf,
        bound_ctrl,
        fi,
    }
}

/// One `v_xad_u32` of a case kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub vdst: u8,
    pub src: [Src; 3],
    pub exec: Exec,
    pub dpp: Dpp,
    /// The lane's `out` word the result is stored to (None: an intermediate of
    /// a chain, consumed by later ops only).
    pub word: Option<u16>,
    /// The `s_set_vgpr_msb` setting the kernel makes before the op (CDNA5):
    /// bits 9:8 of src0's VGPR (bits 1:0), src1's (3:2), src2's (5:4) and
    /// vdst's (7:6). The VGPR numbers above are the encoded 8 bits. 0 on
    /// every other target.
    pub vgpr_msb: u8,
}

impl Op {
    /// An op under the lanes-< count EXEC, stored to `word`.
    pub const fn new(word: u16, vdst: u8, src: [Src; 3]) -> Op {
        Op {
            vdst,
            src,
            exec: Exec::Count,
            dpp: Dpp::None,
            word: Some(word),
            vgpr_msb: 0,
        }
    }
    pub const fn vgpr_msb(self, vgpr_msb: u8) -> Op {
        Op { vgpr_msb, ..self }
    }
    /// Bits 9:8 of the VGPR in operand slot `slot` (0-2 the sources, 3 vdst).
    pub const fn vgpr_high(&self, slot: u32) -> u16 {
        ((self.vgpr_msb >> (2 * slot)) & 3) as u16
    }
    pub const fn exec(self, exec: Exec) -> Op {
        Op { exec, ..self }
    }
    pub const fn dpp(self, dpp: Dpp) -> Op {
        Op { dpp, ..self }
    }
    pub const fn unstored(self) -> Op {
        Op { word: None, ..self }
    }
    /// May some lane < count keep its destination (so the case must keep lanes)?
    pub const fn may_keep(&self) -> bool {
        !matches!(self.exec, Exec::Count | Exec::Wave) || matches!(self.dpp, Dpp::Row { .. })
    }
}

/// The ops of one case kernel, in execution order.
#[derive(Debug, Clone, Copy)]
pub struct Program {
    pub wave: u32,
    /// Output words per lane.
    pub words: usize,
    pub ops: &'static [Op],
}

impl Program {
    /// The program of a `wave`-lane kernel running `ops`; its words per lane
    /// are the ops' highest stored word + 1 (every word from 0 up is stored
    /// once: test `every_table_is_consistent`).
    pub const fn new(wave: u32, ops: &'static [Op]) -> Program {
        assert!(wave == 32 || wave == 64, "wave size must be 32 or 64");
        let mut words = 0;
        let mut j = 0;
        while j < ops.len() {
            if let Some(w) = ops[j].word {
                if w as usize + 1 > words {
                    words = w as usize + 1;
                }
            }
            j += 1;
        }
        Program { wave, words, ops }
    }

    /// May some lane keep its `out` word (some op may leave its destination
    /// unwritten)? Such a case gets a prefill instead of poisoned outputs.
    pub const fn keeps_lanes(&self) -> bool {
        let mut j = 0;
        while j < self.ops.len() {
            if self.ops[j].may_keep() {
                return true;
            }
            j += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_derives_words_and_kept_lanes() {
        use Lane::*;
        static OPS: [Op; 3] = [
            Op::new(1, 16, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]),
            Op::new(0, 17, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]).unstored(),
            Op::new(0, 18, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]),
        ];
        let p = Program::new(64, &OPS);
        assert_eq!((p.wave, p.words, p.keeps_lanes()), (64, 2, false));
        static MASKED: [Op; 1] =
            [Op::new(0, 16, [Src::Null, Src::Null, Src::Null]).exec(Exec::Pattern(1))];
        assert!(Program::new(32, &MASKED).keeps_lanes());
        static DPP8_WAVE: [Op; 1] = [Op::new(0, 16, [Src::V(2, A), Src::V(3, B), Src::V(4, C)])
            .exec(Exec::Wave)
            .dpp(Dpp::Lane8 {
                sel: [0; 8],
                fi: false,
            })];
        assert!(
            !Program::new(32, &DPP8_WAVE).keeps_lanes(),
            "DPP8 always writes its lane"
        );
        static DPP16_WAVE: [Op; 1] = [Op::new(0, 16, [Src::V(2, A), Src::V(3, B), Src::V(4, C)])
            .exec(Exec::Wave)
            .dpp(row(ROW_MIRROR, true, false))];
        assert!(
            Program::new(32, &DPP16_WAVE).keeps_lanes(),
            "a DPP16 row or bank mask may leave a lane"
        );
    }
}
