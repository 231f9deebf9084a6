//! The ISA model: what a [`Program`] computes on every lane, by the ISA
//! guides' rules (RDNA3 for what every generation shares; the Vega/CDNA guides
//! for gfx9's wave_*/row_bcast DPP controls), reading operand values from the
//! encoded fields (inline constant codes, DPP controls) rather than from a
//! second hand-written copy. One DPP rule serves a VOP3 DPP src0 and a
//! `v_mov_b32_dpp` feeding a source ([`Src::Moved`]: lanes the move leaves
//! unwritten read its old value). Every table-built case's CPU model is
//! [`run`] of its program.

use std::ops::Range;

use super::op_table::{
    Dpp, Exec, Lane, Op, Program, SccFrom, Src, ROW_BCAST15, ROW_BCAST31, ROW_HALF_MIRROR,
    ROW_MIRROR, WAVE_ROL1, WAVE_ROR1, WAVE_SHL1, WAVE_SHR1,
};
use super::{xad, LaneData};

/// What an inline constant code reads in a 32-bit integer operand (RDNA3 ISA
/// guide, "Scalar ALU Operands"/"VALU operands" source-operand table: integer
/// inline constants are sign-extended; the float constants 0.5, -0.5, 1.0, -1.0,
/// 2.0, -2.0, 4.0, -4.0 and 1/(2*pi) are supplied as their f32 bit patterns
/// regardless of the opcode's type).
pub const fn inline_value(code: u16) -> Option<u32> {
    Some(match code {
        128..=192 => (code - 128) as u32,
        193..=208 => (192i32 - code as i32) as u32,
        240 => 0x3f00_0000,
        241 => 0xbf00_0000,
        242 => 0x3f80_0000,
        243 => 0xbf80_0000,
        244 => 0x4000_0000,
        245 => 0xc000_0000,
        246 => 0x4080_0000,
        247 => 0xc080_0000,
        248 => 0x3e22_f983,
        _ => return None,
    })
}

/// The lane `n` of DPP16 row control `ctrl` reads from, in wave lanes, or None
/// when the source is out of range (RDNA3 ISA guide section 7.7, "DPP16";
/// rows are 16 lanes): quad_perm `(n&~3)+sel[n&3]`; row_shl:k n+k within the row;
/// row_shr:k n-k within the row; row_ror:k rotates within the row; row_mirror
/// base+15-(n&15); row_half_mirror (n&~7)+7-(n&7); row_share:k base+k;
/// row_xmask:k base+((n&15)^k).
///
/// gfx9's wave controls (Vega/CDNA ISA guides, "DPP_CTRL"; gfx9 is wave64, so
/// the wave is 64 lanes): wave_shl:1 n+1 and wave_shr:1 n-1 (out of range past
/// either end of the wave), wave_rol:1 (n+1)%64, wave_ror:1 (n-1)%64;
/// row_bcast:15 "broadcast the 15th lane of each row to the next row": row r
/// reads lane 16r-1; row_bcast:31 "broadcast lane 31 to rows 2 and 3". Which
/// lane row 0 (row_bcast:15) or rows 0-1 (row_bcast:31) read the guides do
/// not say: None here, and [`dpp_lane_undefined`] names them so a case masks
/// them with row_mask.
pub fn dpp16_source(ctrl: u16, n: usize) -> Option<usize> {
    let (base, i, k) = (n & !15, n & 15, usize::from(ctrl & 15));
    match ctrl {
        0x000..=0x0ff => Some((n & !3) + (usize::from(ctrl) >> (2 * (n & 3)) & 3)),
        0x101..=0x10f => (i + k < 16).then_some(n + k),
        0x111..=0x11f => (i >= k).then(|| n - k),
        0x121..=0x12f => Some(base + ((i + 16 - k) & 15)),
        WAVE_SHL1 => (n + 1 < 64).then_some(n + 1),
        WAVE_ROL1 => Some((n + 1) % 64),
        WAVE_SHR1 => n.checked_sub(1),
        WAVE_ROR1 => Some((n + 63) % 64),
        ROW_MIRROR => Some(base + 15 - i),
        ROW_HALF_MIRROR => Some((n & !7) + 7 - (n & 7)),
        ROW_BCAST15 => (n >= 16).then(|| base - 1),
        ROW_BCAST31 => (n >= 32).then_some(31),
        0x150..=0x15f => Some(base + k),
        0x160..=0x16f => Some(base + (i ^ k)),
        _ => None,
    }
}

/// Lanes whose DPP16 source the ISA guides leave undefined (row 0 of
/// row_bcast:15, rows 0-1 of row_bcast:31): a case must mask them (row_mask),
/// never assert them.
pub fn dpp_lane_undefined(ctrl: u16, n: usize) -> bool {
    match ctrl {
        ROW_BCAST15 => n < 16,
        ROW_BCAST31 => n < 32,
        _ => false,
    }
}

/// Is `ctrl` a DPP16 control gfx11 defines?
pub fn dpp16_ctrl_valid(ctrl: u16) -> bool {
    matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | ROW_MIRROR | ROW_HALF_MIRROR | 0x150..=0x16f)
}

/// Is `ctrl` a gfx9-only DPP16 control (wave_shl/rol/shr/ror:1, row_bcast:15/31)?
pub fn dpp16_ctrl_gfx9_only(ctrl: u16) -> bool {
    matches!(
        ctrl,
        WAVE_SHL1 | WAVE_ROL1 | WAVE_SHR1 | WAVE_ROR1 | ROW_BCAST15 | ROW_BCAST31
    )
}

/// Is `ctrl` a gfx10+ DPP16 control (row_share, row_xmask)?
pub fn dpp16_ctrl_gfx10_on(ctrl: u16) -> bool {
    matches!(ctrl, 0x150..=0x16f)
}

fn lane_source(data: &LaneData<'_>, which: Lane, lane: usize) -> u32 {
    if lane >= data.count {
        return 0; // the frame zeroes v2-v4 in lanes that do not exist
    }
    match which {
        Lane::A => data.a[lane],
        Lane::B => data.b[lane],
        Lane::C => data.c[lane],
    }
}

fn exec_mask(exec: Exec, wave: u32, wave_base: usize, data: &LaneData<'_>) -> u64 {
    let full = if wave == 64 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let scalar = |k: usize| u64::from(data.scalars.get(k).copied().unwrap_or(0));
    match exec {
        Exec::Count => {
            let live = data.count.saturating_sub(wave_base).min(wave as usize);
            if live >= 64 {
                u64::MAX
            } else {
                (1u64 << live) - 1
            }
        }
        Exec::Wave => full,
        Exec::Pattern(p) => p & full,
        Exec::Scalar(k) if wave == 64 => scalar(k) | scalar(k + 1) << 32,
        Exec::Scalar(k) => scalar(k),
    }
}

/// One lane of one op: the dispatch's data, the lane's wave (size, first
/// lane), its index in the wave and the EXEC mask the op runs under.
struct At<'a, 'd> {
    data: &'a LaneData<'d>,
    wave: u32,
    wave_base: usize,
    n: usize,
    exec: u64,
}

impl At<'_, '_> {
    fn lane(&self) -> usize {
        self.wave_base + self.n
    }

    /// What the lane reads from a source that is not VOP3-DPP-permuted.
    fn read(&self, src: &Src, results: &[u32]) -> u32 {
        let scalar = |k: usize| self.data.scalars.get(k).copied().unwrap_or(0);
        match *src {
            Src::V(_, which) => lane_source(self.data, which, self.lane()),
            Src::Res(_, j) => results.get(j).copied().unwrap_or(0),
            Src::Sreg(_, k) | Src::Gfx9Sreg(_, k) => scalar(k),
            Src::ExecLo => self.exec as u32,
            Src::ExecHi => (self.exec >> 32) as u32,
            Src::Null => 0,
            Src::Scc(SccFrom::One) => 1,
            Src::Scc(SccFrom::Zero) => 0,
            Src::Scc(SccFrom::Less(k, m)) => u32::from(scalar(k) < scalar(m)),
            Src::Inline(code) => inline_value(code).unwrap_or(0),
            Src::Lit(v) => v,
            // The move wrote the lane, or left the `old` the kernel put there.
            Src::Moved(_, mov) => self.dpp(mov.dpp, mov.from).unwrap_or(mov.old),
        }
    }

    /// The value DPP control `dpp` delivers to this lane from the VGPR holding
    /// `which`, or None when the lane is not written (it keeps its
    /// destination). The same rules for a VOP3 DPP src0 and a `v_mov_b32_dpp`.
    fn dpp(&self, dpp: Dpp, which: Lane) -> Option<u32> {
        let (n, exec) = (self.n, self.exec);
        let from = |s: usize| lane_source(self.data, which, self.wave_base + s);
        let active = |s: usize| exec >> s & 1 == 1;
        match dpp {
            Dpp::None => None, // not a DPP form: read directly
            Dpp::Row {
                ctrl,
                row_mask,
                bank_mask,
                bound_ctrl,
                fi,
            } => {
                // row_mask bit r / bank_mask bit b gate the write of lanes in row r
                // (lanes 16r..16r+15) and bank b (lanes with (n>>2)&3 == b): section
                // 7.7, DPP16 "row_mask"/"bank_mask" (masked lanes keep their value).
                if row_mask >> (n >> 4) & 1 == 0 || bank_mask >> ((n >> 2) & 3) & 1 == 0 {
                    return None;
                }
                match dpp16_source(ctrl, n).filter(|&s| s < self.wave as usize) {
                    // Out of range: bound_ctrl=1 reads 0 and writes the lane;
                    // bound_ctrl=0 leaves the lane unwritten (section 7.7; LLVM
                    // `bound_ctrl:1` sets BC=1 on every generation).
                    None => bound_ctrl.then_some(0),
                    Some(s) if active(s) || fi => Some(from(s)),
                    // An inactive in-range source with fi=0: bound_ctrl=1 reads 0.
                    // With bound_ctrl=0 the guide contradicts itself (section 7.7.1
                    // text and table 31 vs table 93); no case uses that combination
                    // (test `no_case_uses_the_unsettled_dpp16_combination`), and
                    // the lane is reported unwritten rather than guessed.
                    Some(_) => bound_ctrl.then_some(0),
                }
            }
            // DPP8: lane n reads (n&~7)|sel[n&7]; an inactive source reads 0 with
            // src0 code 0xE9 and its value with 0xEA (fi=1); the lane is always
            // written (section 7.7, "DPP8"; section 15.3.9).
            Dpp::Lane8 { sel, fi } => {
                let s = (n & !7) | usize::from(sel[n & 7] & 7);
                Some(if active(s) || fi { from(s) } else { 0 })
            }
        }
    }

    /// The op's result in this lane, or None when the lane is not written.
    fn op(&self, op: &Op, results: &[u32]) -> Option<u32> {
        if self.exec >> self.n & 1 == 0 {
            return None;
        }
        let s0 = match (op.dpp, op.src[0]) {
            (Dpp::None, src) => Some(self.read(&src, results)),
            (dpp, Src::V(_, which)) => self.dpp(dpp, which),
            _ => None, // a VOP3 DPP src0 is a lane-source VGPR (encode refuses others)
        };
        s0.map(|s0| {
            xad(
                s0,
                self.read(&op.src[1], results),
                self.read(&op.src[2], results),
            )
        })
    }
}

/// The CPU model of a table-built case: runs `program` on every lane of
/// `lanes` and writes the lane's `words` output words.
pub fn run(program: &Program, data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]) {
    let k = program.words;
    let wave = program.wave as usize;
    let mut results = vec![0u32; program.ops.len()];
    for (slot, lane) in lanes.clone().enumerate() {
        let wave_base = lane - lane % wave;
        let n = lane - wave_base;
        for (j, op) in program.ops.iter().enumerate() {
            let exec = exec_mask(op.exec, program.wave, wave_base, data);
            // A lane that is not written keeps its destination: the kernel loaded
            // it from the op's out word (the kernel contract in `program`), or it is a chain link,
            // which always runs under the lanes-< count EXEC.
            let old = op
                .word
                .and_then(|w| data.prefill.get(lane * k + usize::from(w)).copied())
                .unwrap_or(0);
            let at = At {
                data,
                wave: program.wave,
                wave_base,
                n,
                exec,
            };
            let written = at.op(op, &results);
            results[j] = written.unwrap_or(old);
            if let Some(w) = op.word {
                out[slot * k + usize::from(w)] = results[j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cases::op_table::{
        int, quad_perm, row_ror, row_share, row_shl, row_shr, row_xmask,
    };

    #[test]
    fn inline_values_by_code() {
        assert_eq!(inline_value(128), Some(0));
        assert_eq!(inline_value(192), Some(64));
        assert_eq!(inline_value(193), Some(0xffff_ffff));
        assert_eq!(inline_value(208), Some(0xffff_fff0));
        assert_eq!(inline_value(242), Some(0x3f80_0000));
        assert_eq!(inline_value(248), Some(0x3e22_f983));
        for code in [0, 127, 209, 239, 249, 255] {
            assert_eq!(inline_value(code), None, "code {code}");
        }
        assert_eq!(int(-16), Src::Inline(208));
        assert_eq!(int(64), Src::Inline(192));
        assert_eq!(int(-1), Src::Inline(193));
    }

    #[test]
    fn dpp16_lane_selection() {
        // Hand-worked from the rules in section 7.7, lane 18 = row 1, index 2.
        assert_eq!(dpp16_source(quad_perm([3, 2, 1, 0]), 18), Some(17));
        assert_eq!(dpp16_source(row_shl(13), 18), Some(31));
        assert_eq!(dpp16_source(row_shl(14), 18), None);
        assert_eq!(dpp16_source(row_shr(2), 18), Some(16));
        assert_eq!(dpp16_source(row_shr(3), 18), None);
        assert_eq!(dpp16_source(row_ror(3), 18), Some(31));
        assert_eq!(dpp16_source(ROW_MIRROR, 18), Some(29));
        assert_eq!(dpp16_source(ROW_HALF_MIRROR, 18), Some(21));
        assert_eq!(dpp16_source(row_share(9), 18), Some(25));
        assert_eq!(dpp16_source(row_xmask(5), 18), Some(23));
        assert_eq!(dpp16_source(ROW_HALF_MIRROR, 60), Some(59));
        assert!(!dpp16_ctrl_valid(0x100) && !dpp16_ctrl_valid(0x130) && dpp16_ctrl_valid(0x16f));
    }
}
