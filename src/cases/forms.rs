//! Operand forms: one table entry per `v_xad_u32` in a case kernel, saying what
//! the instruction encodes and what each source reads, and the one CPU model
//! that evaluates such a table by the ISA's rules.
//!
//! A case kernel executes its table's ops in order (kernels/include/*.inc). The
//! encoding tests (tests/cases_encoding.rs) disassemble every kernel and check
//! that its `v_xad_u32` words are exactly [`encode`] of its ops, so the table
//! cannot claim a form the kernel does not contain; the model reads operand
//! values from the encoded fields (inline constant codes, DPP controls) by the
//! rules cited below, not from a second hand-written copy.
//!
//! Kernel contract for ops whose lanes may keep their destination (an EXEC
//! pattern, or a DPP control that may leave a lane unwritten): the kernel loads
//! the op's destination VGPR from its `out` word first, so a lane that is not
//! written stores back its prefill. Such cases set `keeps_lanes`.

use std::ops::Range;

use super::{xad, Case, LaneData};

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
    /// f32 constants read as their bit patterns (see [`inline_value`]).
    Inline(u16),
    /// A 32-bit literal (code 255, the dword after the instruction).
    Lit(u32),
}

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
    Src::Inline(if v >= 0 { 128 + v as u16 } else { 192 + (-v) as u16 })
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
    Row { ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool, fi: bool },
    /// DPP8 (src0 code 233, or 234 with fi; selectors 3 bits each from bit 8).
    Lane8 { sel: [u8; 8], fi: bool },
}

/// DPP16 control codes (`dpp_ctrl`, RDNA3 ISA guide section 15.3.8 / LLVM
/// SIDefines.h `DppCtrl`).
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
    Dpp::Row { ctrl, row_mask: 0xf, bank_mask: 0xf, bound_ctrl, fi }
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
}

impl Op {
    /// An op under the lanes-< count EXEC, stored to `word`.
    pub const fn new(word: u16, vdst: u8, src: [Src; 3]) -> Op {
        Op { vdst, src, exec: Exec::Count, dpp: Dpp::None, word: Some(word) }
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
    pub fn may_keep(&self) -> bool {
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

/// A catalogue case and the program its kernel runs.
pub struct Spec {
    pub case: Case,
    pub program: &'static Program,
}

/// Every case built on an op table, in catalogue order.
pub fn specs() -> impl Iterator<Item = &'static Spec> {
    [
        super::vgpr::SPECS,
        super::sreg::SPECS,
        super::inline::SPECS,
        super::literal::SPECS,
        super::exec::SPECS,
        super::chain::SPECS,
        super::dpp16::SPECS,
        super::dpp8::SPECS,
    ]
    .into_iter()
    .flatten()
}

/// The program of case `name`, when it is table-built.
pub fn program(name: &str) -> Option<&'static Program> {
    specs().find(|s| s.case.name == name).map(|s| s.program)
}

/// The 9-bit source field of a non-DPP operand.
pub fn src_code(src: &Src) -> u16 {
    match *src {
        Src::V(r, _) | Src::Res(r, _) => 256 + u16::from(r),
        Src::Sreg(code, _) => code,
        Src::ExecLo => EXEC_LO,
        Src::ExecHi => EXEC_HI,
        Src::Null => NULL,
        Src::Scc(_) => SRC_SCC,
        Src::Inline(code) => code,
        Src::Lit(_) => LITERAL,
    }
}

/// The instruction words the kernel must contain for `op` (VOP3 layout: dword0
/// = 0xD645_0000 | vdst with no clamp/op_sel/abs; dword1 = src0 | src1 << 9 |
/// src2 << 18 with no neg; then the literal or the DPP word). Errors name an
/// op no gfx11 encoding can express.
pub fn encode(op: &Op) -> Result<Vec<u32>, String> {
    let mut codes = op.src.map(|s| u32::from(src_code(&s)));
    let mut words = vec![0xD645_0000 | u32::from(op.vdst)];
    let literals: Vec<u32> = op.src.iter().filter_map(|s| if let Src::Lit(v) = s { Some(*v) } else { None }).collect();
    if literals.iter().any(|&v| v != literals[0]) {
        return Err(format!("{op:?}: two different literals"));
    }
    let dpp_word = match op.dpp {
        Dpp::None => None,
        Dpp::Row { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
            let Src::V(r, _) = op.src[0] else { return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR")) };
            codes[0] = u32::from(DPP16);
            Some(
                u32::from(r)
                    | u32::from(ctrl) << 8
                    | u32::from(fi) << 18
                    | u32::from(bound_ctrl) << 19
                    | u32::from(bank_mask & 15) << 24
                    | u32::from(row_mask & 15) << 28,
            )
        }
        Dpp::Lane8 { sel, fi } => {
            let Src::V(r, _) = op.src[0] else { return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR")) };
            codes[0] = u32::from(if fi { DPP8_FI } else { DPP8 });
            Some(sel.iter().enumerate().fold(u32::from(r), |w, (i, &s)| w | u32::from(s & 7) << (8 + 3 * i)))
        }
    };
    if dpp_word.is_some() && (!literals.is_empty() || !matches!(op.src[1], Src::V(..) | Src::Res(..))) {
        return Err(format!("{op:?}: DPP needs a VGPR src1 and no literal on gfx1100"));
    }
    words.push(codes[0] | codes[1] << 9 | codes[2] << 18);
    words.extend(literals.first());
    words.extend(dpp_word);
    Ok(words)
}

/// The lane `n` of DPP16 row control `ctrl` reads from, in wave lanes, or None
/// when the source is out of range (RDNA3 ISA guide section 7.7, "DPP16";
/// rows are 16 lanes): quad_perm `(n&~3)+sel[n&3]`; row_shl:k n+k within the row;
/// row_shr:k n-k within the row; row_ror:k rotates within the row; row_mirror
/// base+15-(n&15); row_half_mirror (n&~7)+7-(n&7); row_share:k base+k;
/// row_xmask:k base+((n&15)^k). gfx10+ has no row_bcast or wave_* controls.
pub fn dpp16_source(ctrl: u16, n: usize) -> Option<usize> {
    let (base, i, k) = (n & !15, n & 15, usize::from(ctrl & 15));
    match ctrl {
        0x000..=0x0ff => Some((n & !3) + (usize::from(ctrl) >> (2 * (n & 3)) & 3)),
        0x101..=0x10f => (i + k < 16).then_some(n + k),
        0x111..=0x11f => (i >= k).then(|| n - k),
        0x121..=0x12f => Some(base + ((i + 16 - k) & 15)),
        ROW_MIRROR => Some(base + 15 - i),
        ROW_HALF_MIRROR => Some((n & !7) + 7 - (n & 7)),
        0x150..=0x15f => Some(base + k),
        0x160..=0x16f => Some(base + (i ^ k)),
        _ => None,
    }
}

/// Is `ctrl` a DPP16 control gfx11 defines?
pub fn dpp16_ctrl_valid(ctrl: u16) -> bool {
    matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | ROW_MIRROR | ROW_HALF_MIRROR | 0x150..=0x16f)
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
    let full = if wave == 64 { u64::MAX } else { u64::from(u32::MAX) };
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

/// What the lane reads from a non-permuted source.
fn read(src: &Src, data: &LaneData<'_>, lane: usize, exec: u64, results: &[u32]) -> u32 {
    let scalar = |k: usize| data.scalars.get(k).copied().unwrap_or(0);
    match *src {
        Src::V(_, which) => lane_source(data, which, lane),
        Src::Res(_, j) => results.get(j).copied().unwrap_or(0),
        Src::Sreg(_, k) => scalar(k),
        Src::ExecLo => exec as u32,
        Src::ExecHi => (exec >> 32) as u32,
        Src::Null => 0,
        Src::Scc(SccFrom::One) => 1,
        Src::Scc(SccFrom::Zero) => 0,
        Src::Scc(SccFrom::Less(k, m)) => u32::from(scalar(k) < scalar(m)),
        Src::Inline(code) => inline_value(code).unwrap_or(0),
        Src::Lit(v) => v,
    }
}

/// The value DPP delivers as src0 to wave lane `n`, or None when the lane is
/// not written (it keeps its destination).
fn dpp_src0(op: &Op, data: &LaneData<'_>, wave: u32, wave_base: usize, n: usize, exec: u64) -> Option<u32> {
    let Src::V(_, which) = op.src[0] else { return None };
    let from = |s: usize| lane_source(data, which, wave_base + s);
    let active = |s: usize| exec >> s & 1 == 1;
    match op.dpp {
        Dpp::None => None, // not a DPP op: `run` reads src0 directly
        Dpp::Row { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
            // row_mask bit r / bank_mask bit b gate the write of lanes in row r
            // (lanes 16r..16r+15) and bank b (lanes with (n>>2)&3 == b): section
            // 7.7, DPP16 "row_mask"/"bank_mask" (masked lanes keep their value).
            if row_mask >> (n >> 4) & 1 == 0 || bank_mask >> ((n >> 2) & 3) & 1 == 0 {
                return None;
            }
            match dpp16_source(ctrl, n).filter(|&s| s < wave as usize) {
                // Out of range: bound_ctrl=1 reads 0 and writes the lane;
                // bound_ctrl=0 leaves the lane unwritten (section 7.7; LLVM
                // `bound_ctrl:1` sets BC=1 on gfx11).
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
            // it from the op's out word (module docs), or it is a chain link,
            // which always runs under the lanes-< count EXEC.
            let old = op.word.and_then(|w| data.prefill.get(lane * k + usize::from(w)).copied()).unwrap_or(0);
            let written = if exec >> n & 1 == 0 {
                None
            } else {
                let s0 = match op.dpp {
                    Dpp::None => Some(read(&op.src[0], data, lane, exec, &results)),
                    _ => dpp_src0(op, data, program.wave, wave_base, n, exec),
                };
                s0.map(|s0| xad(s0, read(&op.src[1], data, lane, exec, &results), read(&op.src[2], data, lane, exec, &results)))
            };
            results[j] = written.unwrap_or(old);
            if let Some(w) = op.word {
                out[slot * k + usize::from(w)] = results[j];
            }
        }
    }
}

/// Declares the model function of a table-built case.
macro_rules! program_model {
    ($model:ident, $program:expr) => {
        fn $model(data: &$crate::cases::LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
            $crate::cases::forms::run(&$program, data, lanes, out)
        }
    };
}
pub(crate) use program_model;

/// One table-built case: its kernel is `xad_<name>` (see `kernels/gfx1100/`).
macro_rules! spec {
    ($name:literal, wave: $wave:literal, words: $k:expr, scalars: $s:expr, keeps_lanes: $keeps:expr,
     $model:ident, $program:ident, $desc:expr $(, unsettled: $u:expr)? $(,)?) => {
        $crate::cases::forms::Spec {
            case: $crate::cases::Case {
                name: $name,
                description: $desc,
                kernel: concat!("xad_", $name),
                wave_size: $wave,
                outputs_per_lane: $k,
                scalar_args: $s,
                keeps_lanes: $keeps,
                model: $model,
                unsettled: $crate::cases::forms::spec!(@unsettled $($u)?),
            },
            program: &$program,
        }
    };
    (@unsettled) => { None };
    (@unsettled $u:expr) => { Some($u) };
}
pub(crate) use spec;

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the families' hand-computed model vectors.
    use super::*;

    /// Run `spec`'s model over `a`, `b`, `c` (count = their length), with
    /// `scalars` and `prefill` (empty when the case writes every word).
    pub fn model_out(spec: &Spec, a: &[u32], b: &[u32], c: &[u32], scalars: &[u32], prefill: &[u32]) -> Vec<u32> {
        let count = a.len();
        let mut out = vec![0u32; count * spec.case.outputs_per_lane];
        let data = LaneData { a, b, c, scalars, prefill, count };
        (spec.case.model)(&data, 0..count, &mut out);
        out
    }

    pub fn spec(specs: &'static [Spec], name: &str) -> &'static Spec {
        specs.iter().find(|s| s.case.name == name).unwrap_or_else(|| panic!("no case {name}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn encodings_match_llvm_mc() {
        // Words from llvm-mc-19 -mcpu=gfx1100 -show-encoding.
        use Lane::*;
        let basic = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]);
        assert_eq!(encode(&basic).unwrap(), vec![0xD645_0005, 0x0412_0702]);
        let lit = Op::new(0, 5, [Src::Lit(0x8000_0000), Src::Sreg(1, 0), Src::Lit(0x8000_0000)]);
        assert_eq!(encode(&lit).unwrap(), vec![0xD645_0005, 0x03FC_02FF, 0x8000_0000]);
        let qp = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)])
            .dpp(Dpp::Row { ctrl: quad_perm([1, 2, 3, 0]), row_mask: 5, bank_mask: 3, bound_ctrl: true, fi: true });
        assert_eq!(encode(&qp).unwrap(), vec![0xD645_0005, 0x0412_06FA, 0x530C_3902]);
        let d8 = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]).dpp(Dpp::Lane8 { sel: [7, 6, 5, 4, 3, 2, 1, 0], fi: false });
        assert_eq!(encode(&d8).unwrap(), vec![0xD645_0005, 0x0412_06E9, 0x0539_7702]);
        let two_lits = Op::new(0, 5, [Src::Lit(1), Src::Lit(2), Src::V(4, C)]);
        assert!(encode(&two_lits).is_err());
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

    #[test]
    fn every_table_is_consistent() {
        for spec in specs() {
            let (case, p) = (&spec.case, spec.program);
            let name = case.name;
            assert_eq!(case.wave_size, p.wave, "{name}: wave size");
            assert_eq!(case.outputs_per_lane, p.words, "{name}: words per lane");
            let mut words: Vec<u16> = p.ops.iter().filter_map(|o| o.word).collect();
            words.sort_unstable();
            assert_eq!(words, (0..p.words as u16).collect::<Vec<_>>(), "{name}: every out word stored once");
            assert_eq!(case.keeps_lanes, p.ops.iter().any(Op::may_keep), "{name}: keeps_lanes");
            for (j, op) in p.ops.iter().enumerate() {
                encode(op).unwrap_or_else(|e| panic!("{name} op {j}: {e}"));
                if op.word.is_none() {
                    assert!(!op.may_keep(), "{name} op {j}: a chain link must always write");
                }
                if p.wave == 32 {
                    assert!(op.src.iter().all(|s| *s != Src::ExecHi), "{name} op {j}: exec_hi as data in wave32 is unsettled");
                }
                if let Dpp::Row { ctrl, .. } = op.dpp {
                    assert!(dpp16_ctrl_valid(ctrl), "{name} op {j}: ctrl {ctrl:#x}");
                }
                for s in &op.src {
                    if let Src::Res(_, i) = s {
                        assert!(*i < j, "{name} op {j}: reads a later result");
                    }
                    if let Src::Inline(code) = s {
                        assert!(inline_value(*code).is_some(), "{name} op {j}: code {code}");
                    }
                }
                let scalar_regs = op.src.iter().filter_map(|s| match s {
                    Src::Sreg(code, _) => Some(*code),
                    Src::ExecLo => Some(EXEC_LO),
                    Src::ExecHi => Some(EXEC_HI),
                    Src::Lit(_) => Some(LITERAL),
                    _ => None,
                });
                let mut distinct: Vec<u16> = scalar_regs.collect();
                distinct.sort_unstable();
                distinct.dedup();
                assert!(distinct.len() <= 2, "{name} op {j}: more than two constant-bus reads");
            }
        }
    }

    /// The DPP16 combination the ISA guide leaves unsettled (inactive in-range
    /// source, bound_ctrl=0, fi=0) needs a lane switched off; DPP16 ops with
    /// fi=0 therefore run with the whole wave on (bound_ctrl=1 with an inactive
    /// source is left out too: the guide's wording is clear only for fi=1).
    #[test]
    fn no_case_uses_the_unsettled_dpp16_combination() {
        for spec in specs() {
            for (j, op) in spec.program.ops.iter().enumerate() {
                if let Dpp::Row { fi: false, .. } = op.dpp {
                    assert!(matches!(op.exec, Exec::Wave), "{} op {j}: DPP16 fi=0 with lanes off", spec.case.name);
                }
            }
        }
    }
}
