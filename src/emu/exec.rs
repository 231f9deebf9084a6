//! One wave's execution: scalar state, a VGPR file of lane arrays, and the
//! interpreter loop over a pre-decoded [`Program`]. Vector instructions run
//! once per wave over `[u32; W]` arrays (W = 32 or 64, a const parameter so
//! the lane loops have fixed trip counts and vectorise).
//!
//! EXEC, VCC and M0 live in the SGPR array at their operand codes (126/127,
//! 106/107, 125), so every instruction that names them reads and writes the
//! same state; SCC is a separate bool. Emulator choice (undocumented on the
//! hardware): in wave32, EXEC_HI and VCC_HI are ordinary stored registers
//! (initially 0), ignored for masking and readable as data.

// Lane loops index several lane arrays (and EXEC bits) by the same lane number.
#![allow(clippy::needless_range_loop)]

use super::decode::{Dpp, Inst, Src, EXEC, NULL, VCC};
use super::memory::{Buffer, Memory};
use super::ops::{self, Op, Shape};
use crate::device::DeviceError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// VGPR slots per wave: v0-v255 plus room for a 4-dword access starting at v255.
pub const VGPR_FILE: usize = 259;
/// SGPRs a new wave starts from (pair reads at 127 touch index 128; nothing reads further).
pub const SGPR_INIT: usize = 130;

/// A kernel's code, decoded once. Slot `i` is the `i`-th instruction from the
/// entry; bytes that do not decode become an error that fires only if executed.
#[derive(Debug, Clone)]
pub struct Program {
    pub insts: Vec<Result<Inst, String>>,
    /// Index of the taken-branch target for SOPP branches; `usize::MAX` when
    /// the target is not an instruction boundary of the decoded code.
    pub targets: Vec<usize>,
    /// Byte offset just past the decoded code.
    pub end_offset: u64,
}

impl Program {
    /// Decode `code` (the section holding the kernel, at virtual address
    /// `base`) from `entry` to the section end. Instructions touching VGPRs at
    /// or past `vgpr_count` become errors.
    pub fn decode(code: &[u8], base: u64, entry: u64, vgpr_count: u32) -> Program {
        let mut insts = Vec::new();
        let mut pos = entry.saturating_sub(base) as usize;
        while pos < code.len() {
            match super::decode::decode_at(code, pos, base) {
                Ok(inst) => {
                    pos += inst.len as usize;
                    if inst.vgpr_end() > vgpr_count {
                        insts.push(Err(format!(
                            "instruction at offset 0x{:x} ({inst}) uses VGPRs up to v{} but the kernel descriptor allocates {vgpr_count}",
                            inst.offset,
                            inst.vgpr_end() - 1
                        )));
                    } else {
                        insts.push(Ok(inst));
                    }
                }
                Err(e) => {
                    insts.push(Err(e.to_string()));
                    // Resynchronise on the next dword, as a linear-sweep disassembler does.
                    pos += 4;
                }
            }
        }
        let offsets: Vec<u64> = {
            let mut p = entry;
            insts
                .iter()
                .map(|i| {
                    let here = p;
                    p += i.as_ref().map(|i| u64::from(i.len)).unwrap_or(4);
                    here
                })
                .collect()
        };
        let targets = insts
            .iter()
            .map(|i| match i {
                Ok(inst) if ops::info(inst.op).shape == Shape::Branch => {
                    offsets.binary_search(&inst.branch_target()).unwrap_or(usize::MAX)
                }
                _ => usize::MAX,
            })
            .collect();
        Program { insts, targets, end_offset: base + code.len() as u64 }
    }
}

/// What a wave needs from its launch.
pub struct Ctx<'a> {
    pub mem: &'a Memory,
    pub prog: &'a Program,
    pub step_budget: u64,
    pub started: Instant,
    pub timeout: Duration,
    pub abort: &'a AtomicBool,
}

/// Why [`Wave::run`] returned without error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ended,
    /// Stopped at `s_barrier`; resume with another `run`.
    Barrier,
}

pub struct Wave<const W: usize> {
    /// s0-s105 and the special registers at their operand codes; 256 entries
    /// so any u8 index (plus one for pairs) is in bounds.
    pub s: [u32; 256],
    pub scc: bool,
    pub v: Vec<[u32; W]>,
    pub pc: usize,
    pub steps: u64,
    /// Scratch rows for splatted or DPP sources and results (see `map3`).
    ta: [u32; W],
    tb: [u32; W],
    tr: [u32; W],
    bits: [u8; W],
    /// 4 * lane, for the contiguity check of dword accesses.
    dword_offsets: [u32; W],
}

impl<const W: usize> Default for Wave<W> {
    fn default() -> Self {
        Wave {
            s: [0; 256],
            scc: false,
            v: vec![[0; W]; VGPR_FILE],
            pc: 0,
            steps: 0,
            ta: [0; W],
            tb: [0; W],
            tr: [0; W],
            bits: [0; W],
            dword_offsets: std::array::from_fn(|i| 4 * i as u32),
        }
    }
}

const fn full_mask(w: usize) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn emu(msg: String) -> DeviceError {
    DeviceError::Emulation(msg)
}

impl<const W: usize> Wave<W> {
    const FULL: u64 = full_mask(W);

    /// Reset for a new wave: s0-s129 from `sgprs` (a launch's template, so
    /// one copy instead of a clear and a copy), SCC clear, v0 from `v0` and
    /// v1 up to `vgprs` zeroed.
    pub fn reset(&mut self, sgprs: &[u32; SGPR_INIT], v0: &[u32], vgprs: usize) {
        self.s[..SGPR_INIT].copy_from_slice(sgprs);
        self.scc = false;
        self.v[0].copy_from_slice(v0);
        // One clear of the rows as a flat slice (a row at a time is a call each).
        let n = vgprs.clamp(1, VGPR_FILE);
        self.v[1..n].as_flattened_mut().fill(0);
        self.pc = 0;
        self.steps = 0;
    }

    #[inline(always)]
    pub fn exec(&self) -> u64 {
        self.mask_at(EXEC)
    }

    #[inline(always)]
    fn mask_at(&self, r: u8) -> u64 {
        let lo = u64::from(self.s[r as usize]);
        if W == 64 {
            lo | u64::from(self.s[r as usize + 1]) << 32
        } else {
            lo
        }
    }

    #[inline(always)]
    fn set_mask(&mut self, r: u8, m: u64) {
        if r == NULL {
            return;
        }
        self.s[r as usize] = m as u32;
        if W == 64 {
            self.s[r as usize + 1] = (m >> 32) as u32;
        }
    }

    #[inline(always)]
    fn ws(&mut self, r: u8, v: u32) {
        if r != NULL {
            self.s[r as usize] = v;
        }
    }

    #[inline(always)]
    fn ws64(&mut self, r: u8, v: u64) {
        if r != NULL {
            self.s[r as usize] = v as u32;
            self.s[r as usize + 1] = (v >> 32) as u32;
        }
    }

    /// A scalar (uniform) 32-bit read. VGPR sources never reach here: the
    /// decoder only produces them for vector operand slots.
    #[inline(always)]
    fn s32(&self, src: Src) -> u32 {
        match src {
            Src::Sgpr(r) => self.s[r as usize],
            Src::Const(c) => c as u32,
            Src::Lit(l) => l,
            Src::Null => 0,
            Src::Scc => self.scc as u32,
            Src::Vccz => (self.mask_at(VCC) == 0) as u32,
            Src::Execz => (self.exec() == 0) as u32,
            Src::Vgpr(r) => self.v[r as usize][0],
        }
    }

    #[inline(always)]
    fn s64(&self, src: Src) -> u64 {
        match src {
            Src::Sgpr(r) => u64::from(self.s[r as usize]) | u64::from(self.s[r as usize + 1]) << 32,
            Src::Const(c) => c,
            Src::Lit(l) => u64::from(l),
            other => u64::from(self.s32(other)),
        }
    }

    /// A lane-mask source (carry in, cndmask select): W bits.
    fn mask_src(&self, src: Src, inst: &Inst) -> Result<u64, DeviceError> {
        if W == 32 {
            return Ok(u64::from(self.s32(src)));
        }
        match src {
            Src::Sgpr(r) if r % 2 == 1 => Err(emu(format!(
                "instruction at offset 0x{:x} ({inst}): wave64 lane mask in odd register {}",
                inst.offset,
                super::decode::reg_name(r)
            ))),
            Src::Sgpr(_) => Ok(self.s64(src)),
            // Inline integers are sign-extended integers at any width.
            Src::Const(c) => Ok(c as u32 as i32 as i64 as u64),
            Src::Lit(l) if l >> 31 == 1 => Err(emu(format!(
                "unsettled: instruction at offset 0x{:x} ({inst}): 32-bit literal with bit 31 as a wave64 lane mask",
                inst.offset
            ))),
            other => Ok(self.s64(other)),
        }
    }

    #[inline(always)]
    fn vsrc(&self, src: Src, out: &mut [u32; W]) {
        match src {
            Src::Vgpr(r) => *out = self.v[r as usize],
            other => *out = [self.s32(other); W],
        }
    }

    #[inline(always)]
    fn vsrc64(&self, src: Src, lo: &mut [u32; W], hi: &mut [u32; W]) {
        match src {
            Src::Vgpr(r) => {
                *lo = self.v[r as usize];
                *hi = self.v[r as usize + 1];
            }
            other => {
                let x = self.s64(other);
                *lo = [x as u32; W];
                *hi = [(x >> 32) as u32; W];
            }
        }
    }

    #[inline(always)]
    fn write_v(&mut self, dst: u8, r: &[u32; W], mask: u64) {
        let d = &mut self.v[dst as usize];
        if mask == Self::FULL {
            *d = *r;
        } else {
            for i in 0..W {
                if (mask >> i) & 1 != 0 {
                    d[i] = r[i];
                }
            }
        }
    }

    /// src0 for a vector op: permuted through DPP when present. Returns the
    /// lanes that may be written (EXEC narrowed by DPP's masks and bound_ctrl).
    #[inline(always)]
    fn src0(&self, inst: &Inst, out: &mut [u32; W]) -> Result<u64, DeviceError> {
        let exec = self.exec();
        match inst.dpp {
            Dpp::None => {
                self.vsrc(inst.src[0], out);
                Ok(exec)
            }
            _ => self.dpp_src0(inst, out, exec),
        }
    }

    /// DPP src0 by value, out of line: its staging array would otherwise be
    /// zeroed on every call of the function that inlines it.
    #[cold]
    #[inline(never)]
    fn dpp_row(&self, inst: &Inst) -> Result<([u32; W], u64), DeviceError> {
        let mut a = [0u32; W];
        let m = self.dpp_src0(inst, &mut a, self.exec())?;
        Ok((a, m))
    }

    fn dpp_src0(&self, inst: &Inst, out: &mut [u32; W], exec: u64) -> Result<u64, DeviceError> {
        let Src::Vgpr(r) = inst.src[0] else { return Err(emu("DPP source is not a VGPR".into())) };
        let v = &self.v[r as usize];
        let mut writable = 0u64;
        match inst.dpp {
            Dpp::None => unreachable_none(),
            Dpp::Dpp8 { sel, fi } => {
                for n in 0..W {
                    let s = (n & !7) | sel[n & 7] as usize;
                    out[n] = if fi || (exec >> s) & 1 == 1 { v[s] } else { 0 };
                }
                writable = exec;
            }
            Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
                for n in 0..W {
                    out[n] = 0;
                    if (exec >> n) & 1 == 0 || (row_mask >> (n / 16)) & 1 == 0 || (bank_mask >> ((n % 16) / 4)) & 1 == 0 {
                        continue;
                    }
                    let base = n & !15;
                    let i = n & 15;
                    let k = (ctrl & 15) as usize;
                    let source: Option<usize> = match ctrl {
                        0x000..=0x0ff => Some((n & !3) + ((ctrl as usize >> (2 * (n & 3))) & 3)),
                        0x101..=0x10f => (i + k < 16).then_some(n + k),
                        0x111..=0x11f => (i >= k).then(|| n - k),
                        0x121..=0x12f => Some(base + ((i + 16 - k) & 15)),
                        0x140 => Some(base + 15 - i),
                        0x141 => Some((n & !7) + 7 - (n & 7)),
                        0x150..=0x15f => Some(base + k),
                        0x160..=0x16f => Some(base + (i ^ k)),
                        _ => None,
                    };
                    match source {
                        Some(s) if (exec >> s) & 1 == 1 || fi => {
                            out[n] = v[s];
                            writable |= 1 << n;
                        }
                        Some(s) if !bound_ctrl => {
                            return Err(emu(format!(
                                "unsettled: DPP16 read of inactive lane {s} with bound_ctrl=0 fi=0, RDNA3 ISA 7.7.1 vs table 93 \
                                 (instruction at offset 0x{:x}: {inst}, lane {n})",
                                inst.offset
                            )));
                        }
                        _ if bound_ctrl => writable |= 1 << n, // reads 0
                        _ => {}
                    }
                }
            }
        }
        Ok(writable)
    }

    /// Run until `s_endpgm`, `s_barrier` or an error.
    pub fn run(&mut self, ctx: &Ctx<'_>) -> Result<Status, DeviceError> {
        loop {
            if let Some(status) = self.step_one(ctx)? {
                return Ok(status);
            }
        }
    }

    /// Execute the instruction at `pc`. `Some` when the wave ended or reached a barrier.
    #[inline(always)]
    pub fn step_one(&mut self, ctx: &Ctx<'_>) -> Result<Option<Status>, DeviceError> {
        let pc = self.pc;
        let inst = fetch(ctx, pc)?;
        self.steps += 1;
        check_steps(ctx, self.steps, inst)?;
        self.pc = pc + 1;
        self.step(inst, ctx, pc, &mut [], &mut false)
    }

    /// `rest`: the other waves of a lockstep workgroup, at the same
    /// instruction. Lane-wise ALU ops (map3) and VOPC compares execute it for
    /// them too and set `grouped`, paying the dispatch once per workgroup;
    /// every other op touches `self` only and the caller steps the others.
    #[inline(always)]
    fn step(&mut self, inst: &Inst, ctx: &Ctx<'_>, pc: usize, rest: &mut [Wave<W>], grouped: &mut bool) -> Result<Option<Status>, DeviceError> {
        use Op::*;
        // A reference: copying the three operands per instruction shows in profiles.
        let s = &inst.src;
        macro_rules! v3 {
            (|$a:ident, $b:ident, $c:ident| $e:expr) => {
                self.map3(rest, grouped, inst, |$a, $b, $c| $e)?
            };
        }
        macro_rules! v2 {
            (|$a:ident, $b:ident| $e:expr) => {
                self.map3(rest, grouped, inst, |$a, $b, _| $e)?
            };
        }
        macro_rules! v1 {
            (|$a:ident| $e:expr) => {
                self.map3(rest, grouped, inst, |$a, _, _| $e)?
            };
        }
        macro_rules! cmp {
            (|$a:ident, $b:ident| $e:expr) => {
                self.compare(rest, grouped, inst, |$a, $b| $e)
            };
        }
        macro_rules! cmp64 {
            (|$a:ident, $b:ident| $e:expr) => {
                self.compare64(inst, |$a, $b| $e)
            };
        }
        // Carry-producing ops: f returns (result, carry).
        macro_rules! carry {
            (|$a:ident, $b:ident, $c:ident| $e:expr) => {{
                let mut a = [0u32; W];
                let mut b = [0u32; W];
                self.vsrc(s[0], &mut a);
                self.vsrc(s[1], &mut b);
                let cin = if ops::info(inst.op).shape == Shape::Ci { self.mask_src(s[2], inst)? } else { 0 };
                let mut r = [0u32; W];
                let mut m = 0u64;
                for i in 0..W {
                    let ($a, $b, $c) = (a[i], b[i], ((cin >> i) & 1) as u32);
                    let (res, co): (u32, bool) = $e;
                    r[i] = res;
                    m |= u64::from(co) << i;
                }
                let exec = self.exec();
                self.write_v(inst.dst, &r, exec);
                self.set_mask(inst.sdst, m & exec);
            }};
        }
        macro_rules! sop2 {
            (|$a:ident, $b:ident| $e:expr) => {{
                let ($a, $b) = (self.s32(s[0]), self.s32(s[1]));
                let (d, scc): (u32, Option<bool>) = $e;
                self.ws(inst.dst, d);
                if let Some(c) = scc {
                    self.scc = c;
                }
            }};
        }
        macro_rules! sop2w {
            (|$a:ident, $b:ident| $e:expr) => {{
                let ($a, $b) = (self.s64(s[0]), self.s64(s[1]));
                let d: u64 = $e;
                self.ws64(inst.dst, d);
                self.scc = d != 0;
            }};
        }
        macro_rules! sopc {
            (|$a:ident, $b:ident| $e:expr) => {{
                let ($a, $b) = (self.s32(s[0]), self.s32(s[1]));
                self.scc = $e;
            }};
        }
        macro_rules! sopk_cmp {
            (|$a:ident, $k:ident| $e:expr) => {{
                let $a = self.s[inst.dst as usize];
                let $k = inst.imm;
                self.scc = $e;
            }};
        }
        macro_rules! saveexec32 {
            (|$src:ident, $ex:ident| $e:expr) => {{
                let $src = self.s32(s[0]);
                let $ex = self.s[EXEC as usize];
                let new: u32 = $e;
                self.ws(inst.dst, $ex);
                self.s[EXEC as usize] = new;
                self.scc = new != 0;
            }};
        }
        macro_rules! saveexec64 {
            (|$src:ident, $ex:ident| $e:expr) => {{
                let $src = self.s64(s[0]);
                let $ex = u64::from(self.s[EXEC as usize]) | u64::from(self.s[EXEC as usize + 1]) << 32;
                let new: u64 = $e;
                self.ws64(inst.dst, $ex);
                self.s[EXEC as usize] = new as u32;
                self.s[EXEC as usize + 1] = (new >> 32) as u32;
                self.scc = new != 0;
            }};
        }
        let nz = |d: u32| Some(d != 0);
        match inst.op {
            // ---- VALU ----
            VXadU32 => v3!(|a, b, c| (a ^ b).wrapping_add(c)),
            VNop => {}
            VMovB32 => v1!(|a| a),
            VNotB32 => v1!(|a| !a),
            VBfrevB32 => v1!(|a| a.reverse_bits()),
            VClzI32U32 => v1!(|a| if a == 0 { u32::MAX } else { a.leading_zeros() }),
            VCtzI32B32 => v1!(|a| if a == 0 { u32::MAX } else { a.trailing_zeros() }),
            VAddNcU32 => v2!(|a, b| a.wrapping_add(b)),
            VSubNcU32 => v2!(|a, b| a.wrapping_sub(b)),
            VSubrevNcU32 => v2!(|a, b| b.wrapping_sub(a)),
            VLshlrevB32 => v2!(|a, b| b << (a & 31)),
            VLshrrevB32 => v2!(|a, b| b >> (a & 31)),
            VAshrrevI32 => v2!(|a, b| ((b as i32) >> (a & 31)) as u32),
            VAndB32 => v2!(|a, b| a & b),
            VOrB32 => v2!(|a, b| a | b),
            VXorB32 => v2!(|a, b| a ^ b),
            VXnorB32 => v2!(|a, b| !(a ^ b)),
            VMulI32I24 => v2!(|a, b| (sext24(a).wrapping_mul(sext24(b))) as u32),
            VMulHiI32I24 => v2!(|a, b| ((i64::from(sext24(a)) * i64::from(sext24(b))) >> 32) as u32),
            VMulU32U24 => v2!(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
            VMulHiU32U24 => v2!(|a, b| ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32),
            VMinI32 => v2!(|a, b| (a as i32).min(b as i32) as u32),
            VMaxI32 => v2!(|a, b| (a as i32).max(b as i32) as u32),
            VMinU32 => v2!(|a, b| a.min(b)),
            VMaxU32 => v2!(|a, b| a.max(b)),
            VMulLoU32 => v2!(|a, b| a.wrapping_mul(b)),
            VMulHiU32 => v2!(|a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32),
            VMulHiI32 => v2!(|a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32),
            VBcntU32B32 => v2!(|a, b| a.count_ones().wrapping_add(b)),
            VMbcntLoU32B32 | VMbcntHiU32B32 => {
                let mut a = [0u32; W];
                let mut b = [0u32; W];
                let mask = self.src0(inst, &mut a)?;
                self.vsrc(s[1], &mut b);
                let hi = inst.op == VMbcntHiU32B32;
                let mut r = [0u32; W];
                for i in 0..W {
                    let below = (1u64 << i) - 1;
                    let part = if hi { (below >> 32) as u32 } else { below as u32 };
                    r[i] = (a[i] & part).count_ones().wrapping_add(b[i]);
                }
                self.write_v(inst.dst, &r, mask);
            }
            VMadI32I24 => v3!(|a, b, c| (sext24(a).wrapping_mul(sext24(b)) as u32).wrapping_add(c)),
            VMadU32U24 => v3!(|a, b, c| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)),
            VBfeU32 => v3!(|a, b, c| bfe_u32(a, b, c)),
            VBfeI32 => v3!(|a, b, c| bfe_i32(a, b, c)),
            VBfiB32 => v3!(|a, b, c| (a & b) | (!a & c)),
            VAlignbitB32 => v3!(|a, b, c| ((u64::from(a) << 32 | u64::from(b)) >> (c & 31)) as u32),
            VAlignbyteB32 => v3!(|a, b, c| ((u64::from(a) << 32 | u64::from(b)) >> (8 * (c & 3))) as u32),
            VMin3I32 => v3!(|a, b, c| (a as i32).min(b as i32).min(c as i32) as u32),
            VMin3U32 => v3!(|a, b, c| a.min(b).min(c)),
            VMax3I32 => v3!(|a, b, c| (a as i32).max(b as i32).max(c as i32) as u32),
            VMax3U32 => v3!(|a, b, c| a.max(b).max(c)),
            VMed3I32 => v3!(|a, b, c| med3(a as i32, b as i32, c as i32) as u32),
            VMed3U32 => v3!(|a, b, c| med3(a, b, c)),
            VSadU32 => v3!(|a, b, c| a.abs_diff(b).wrapping_add(c)),
            VXor3B32 => v3!(|a, b, c| a ^ b ^ c),
            VPermB32 => v3!(|a, b, c| perm(a, b, c)),
            VLshlAddU32 => v3!(|a, b, c| (a << (b & 31)).wrapping_add(c)),
            VAddLshlU32 => v3!(|a, b, c| a.wrapping_add(b) << (c & 31)),
            VAdd3U32 => v3!(|a, b, c| a.wrapping_add(b).wrapping_add(c)),
            VLshlOrB32 => v3!(|a, b, c| (a << (b & 31)) | c),
            VAndOrB32 => v3!(|a, b, c| (a & b) | c),
            VOr3B32 => v3!(|a, b, c| a | b | c),
            VCndmaskB32 => {
                let sel = self.mask_src(s[2], inst)?;
                let mut a = [0u32; W];
                let mut b = [0u32; W];
                let mask = self.src0(inst, &mut a)?;
                self.vsrc(s[1], &mut b);
                let mut r = [0u32; W];
                for i in 0..W {
                    r[i] = if (sel >> i) & 1 == 1 { b[i] } else { a[i] };
                }
                self.write_v(inst.dst, &r, mask);
            }
            VAddCoU32 => carry!(|a, b, _c| a.overflowing_add(b)),
            VSubCoU32 => carry!(|a, b, _c| a.overflowing_sub(b)),
            VSubrevCoU32 => carry!(|a, b, _c| b.overflowing_sub(a)),
            VAddCoCiU32 => carry!(|a, b, c| {
                let t = u64::from(a) + u64::from(b) + u64::from(c);
                (t as u32, t >> 32 != 0)
            }),
            VSubCoCiU32 => carry!(|a, b, c| (a.wrapping_sub(b).wrapping_sub(c), u64::from(b) + u64::from(c) > u64::from(a))),
            VSubrevCoCiU32 => carry!(|a, b, c| (b.wrapping_sub(a).wrapping_sub(c), u64::from(a) + u64::from(c) > u64::from(b))),
            VMadU64U32 | VMadI64I32 => {
                let mut a = [0u32; W];
                let mut b = [0u32; W];
                let (mut cl, mut ch) = ([0u32; W], [0u32; W]);
                self.vsrc(s[0], &mut a);
                self.vsrc(s[1], &mut b);
                self.vsrc64(s[2], &mut cl, &mut ch);
                let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
                let mut m = 0u64;
                let signed = inst.op == VMadI64I32;
                for i in 0..W {
                    let c = u64::from(cl[i]) | u64::from(ch[i]) << 32;
                    let (d, co) = if signed {
                        let p = i64::from(a[i] as i32) * i64::from(b[i] as i32);
                        let (d, o) = p.overflowing_add(c as i64);
                        (d as u64, o)
                    } else {
                        (u64::from(a[i]) * u64::from(b[i])).overflowing_add(c)
                    };
                    lo[i] = d as u32;
                    hi[i] = (d >> 32) as u32;
                    m |= u64::from(co) << i;
                }
                let exec = self.exec();
                self.write_v(inst.dst, &lo, exec);
                self.write_v(inst.dst.wrapping_add(1), &hi, exec);
                self.set_mask(inst.sdst, m & exec);
            }
            VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => {
                let mut a = [0u32; W];
                let (mut bl, mut bh) = ([0u32; W], [0u32; W]);
                self.vsrc(s[0], &mut a);
                self.vsrc64(s[1], &mut bl, &mut bh);
                let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
                for i in 0..W {
                    let x = u64::from(bl[i]) | u64::from(bh[i]) << 32;
                    let sh = a[i] & 63;
                    let d = match inst.op {
                        VLshlrevB64 => x << sh,
                        VLshrrevB64 => x >> sh,
                        _ => ((x as i64) >> sh) as u64,
                    };
                    lo[i] = d as u32;
                    hi[i] = (d >> 32) as u32;
                }
                let exec = self.exec();
                self.write_v(inst.dst, &lo, exec);
                self.write_v(inst.dst.wrapping_add(1), &hi, exec);
            }
            VReadfirstlaneB32 => {
                let exec = self.exec();
                let lane = if exec == 0 { 0 } else { exec.trailing_zeros() as usize };
                let v = match s[0] {
                    Src::Vgpr(r) => self.v[r as usize][lane],
                    other => self.s32(other),
                };
                self.ws(inst.dst, v);
            }
            VReadlaneB32 => {
                let lane = self.s32(s[1]) as usize % W;
                let v = match s[0] {
                    Src::Vgpr(r) => self.v[r as usize][lane],
                    other => self.s32(other),
                };
                self.ws(inst.dst, v);
            }
            VWritelaneB32 => {
                let lane = self.s32(s[1]) as usize % W;
                let value = self.s32(s[0]);
                self.v[inst.dst as usize][lane] = value;
            }
            VCmpFI32 | VCmpFU32 | VCmpxFI32 | VCmpxFU32 => self.set_mask(inst.sdst, 0),
            VCmpTI32 | VCmpTU32 | VCmpxTI32 | VCmpxTU32 => {
                let e = self.exec();
                self.set_mask(inst.sdst, e)
            }
            VCmpLtI32 | VCmpxLtI32 => cmp!(|a, b| (a as i32) < (b as i32)),
            VCmpEqI32 | VCmpxEqI32 | VCmpEqU32 | VCmpxEqU32 => cmp!(|a, b| a == b),
            VCmpLeI32 | VCmpxLeI32 => cmp!(|a, b| (a as i32) <= (b as i32)),
            VCmpGtI32 | VCmpxGtI32 => cmp!(|a, b| (a as i32) > (b as i32)),
            VCmpNeI32 | VCmpxNeI32 | VCmpNeU32 | VCmpxNeU32 => cmp!(|a, b| a != b),
            VCmpGeI32 | VCmpxGeI32 => cmp!(|a, b| (a as i32) >= (b as i32)),
            VCmpLtU32 | VCmpxLtU32 => cmp!(|a, b| a < b),
            VCmpLeU32 | VCmpxLeU32 => cmp!(|a, b| a <= b),
            VCmpGtU32 | VCmpxGtU32 => cmp!(|a, b| a > b),
            VCmpGeU32 | VCmpxGeU32 => cmp!(|a, b| a >= b),
            VCmpLtI64 => cmp64!(|a, b| (a as i64) < (b as i64)),
            VCmpEqI64 | VCmpEqU64 | VCmpxEqU64 => cmp64!(|a, b| a == b),
            VCmpLeI64 => cmp64!(|a, b| (a as i64) <= (b as i64)),
            VCmpGtI64 => cmp64!(|a, b| (a as i64) > (b as i64)),
            VCmpNeI64 | VCmpNeU64 | VCmpxNeU64 => cmp64!(|a, b| a != b),
            VCmpGeI64 => cmp64!(|a, b| (a as i64) >= (b as i64)),
            VCmpLtU64 | VCmpxLtU64 => cmp64!(|a, b| a < b),
            VCmpLeU64 => cmp64!(|a, b| a <= b),
            VCmpGtU64 => cmp64!(|a, b| a > b),
            VCmpGeU64 => cmp64!(|a, b| a >= b),

            // ---- memory ----
            GlobalLoadU8 | GlobalLoadI8 | GlobalLoadU16 | GlobalLoadI16 | GlobalLoadB32 | GlobalLoadB64 | GlobalLoadB96
            | GlobalLoadB128 | FlatLoadU8 | FlatLoadI8 | FlatLoadU16 | FlatLoadI16 | FlatLoadB32 | FlatLoadB64
            | FlatLoadB96 | FlatLoadB128 => self.mem_load(inst, ctx.mem)?,
            GlobalStoreB8 | GlobalStoreB16 | GlobalStoreB32 | GlobalStoreB64 | GlobalStoreB96 | GlobalStoreB128
            | FlatStoreB8 | FlatStoreB16 | FlatStoreB32 | FlatStoreB64 | FlatStoreB96 | FlatStoreB128 => {
                self.mem_store(inst, ctx.mem)?
            }
            SLoadB32 | SLoadB64 | SLoadB128 | SLoadB256 | SLoadB512 => self.s_load(inst, ctx.mem)?,

            // ---- SOP2 ----
            SAddU32 => sop2!(|a, b| {
                let (d, c) = a.overflowing_add(b);
                (d, Some(c))
            }),
            SSubU32 => sop2!(|a, b| {
                let (d, c) = a.overflowing_sub(b);
                (d, Some(c))
            }),
            SAddI32 => sop2!(|a, b| {
                let (d, o) = (a as i32).overflowing_add(b as i32);
                (d as u32, Some(o))
            }),
            SSubI32 => sop2!(|a, b| {
                let (d, o) = (a as i32).overflowing_sub(b as i32);
                (d as u32, Some(o))
            }),
            SAddcU32 => {
                let t = u64::from(self.s32(s[0])) + u64::from(self.s32(s[1])) + u64::from(self.scc);
                self.ws(inst.dst, t as u32);
                self.scc = t >> 32 != 0;
            }
            SSubbU32 => {
                let (a, b, c) = (self.s32(s[0]), self.s32(s[1]), u32::from(self.scc));
                self.ws(inst.dst, a.wrapping_sub(b).wrapping_sub(c));
                self.scc = u64::from(b) + u64::from(c) > u64::from(a);
            }
            SLshlB32 => sop2!(|a, b| {
                let d = a << (b & 31);
                (d, nz(d))
            }),
            SLshrB32 => sop2!(|a, b| {
                let d = a >> (b & 31);
                (d, nz(d))
            }),
            SAshrI32 => sop2!(|a, b| {
                let d = ((a as i32) >> (b & 31)) as u32;
                (d, nz(d))
            }),
            SLshlB64 | SLshrB64 | SAshrI64 => {
                let x = self.s64(s[0]);
                let sh = self.s32(s[1]) & 63;
                let d = match inst.op {
                    SLshlB64 => x << sh,
                    SLshrB64 => x >> sh,
                    _ => ((x as i64) >> sh) as u64,
                };
                self.ws64(inst.dst, d);
                self.scc = d != 0;
            }
            SLshl1AddU32 | SLshl2AddU32 | SLshl3AddU32 | SLshl4AddU32 => {
                let n = match inst.op {
                    SLshl1AddU32 => 1,
                    SLshl2AddU32 => 2,
                    SLshl3AddU32 => 3,
                    _ => 4,
                };
                let t = (u64::from(self.s32(s[0])) << n) + u64::from(self.s32(s[1]));
                self.ws(inst.dst, t as u32);
                self.scc = t >> 32 != 0;
            }
            SMinI32 => sop2!(|a, b| ((a as i32).min(b as i32) as u32, Some((a as i32) < (b as i32)))),
            SMinU32 => sop2!(|a, b| (a.min(b), Some(a < b))),
            SMaxI32 => sop2!(|a, b| ((a as i32).max(b as i32) as u32, Some((a as i32) > (b as i32)))),
            SMaxU32 => sop2!(|a, b| (a.max(b), Some(a > b))),
            SAndB32 => sop2!(|a, b| (a & b, nz(a & b))),
            SOrB32 => sop2!(|a, b| (a | b, nz(a | b))),
            SXorB32 => sop2!(|a, b| (a ^ b, nz(a ^ b))),
            SNandB32 => sop2!(|a, b| (!(a & b), nz(!(a & b)))),
            SNorB32 => sop2!(|a, b| (!(a | b), nz(!(a | b)))),
            SXnorB32 => sop2!(|a, b| (!(a ^ b), nz(!(a ^ b)))),
            SAndNot1B32 => sop2!(|a, b| (a & !b, nz(a & !b))),
            SOrNot1B32 => sop2!(|a, b| (a | !b, nz(a | !b))),
            SAndB64 => sop2w!(|a, b| a & b),
            SOrB64 => sop2w!(|a, b| a | b),
            SXorB64 => sop2w!(|a, b| a ^ b),
            SNandB64 => sop2w!(|a, b| !(a & b)),
            SNorB64 => sop2w!(|a, b| !(a | b)),
            SXnorB64 => sop2w!(|a, b| !(a ^ b)),
            SAndNot1B64 => sop2w!(|a, b| a & !b),
            SOrNot1B64 => sop2w!(|a, b| a | !b),
            SBfeU32 => sop2!(|a, b| {
                let off = b & 31;
                let width = (b >> 16) & 0x7f;
                let d = if width == 0 {
                    0
                } else if width >= 32 {
                    a >> off
                } else {
                    (a >> off) & ((1u32 << width) - 1)
                };
                (d, nz(d))
            }),
            SMulI32 => sop2!(|a, b| (a.wrapping_mul(b), None)),
            SMulHiU32 => sop2!(|a, b| (((u64::from(a) * u64::from(b)) >> 32) as u32, None)),
            SCselectB32 => {
                let d = if self.scc { self.s32(s[0]) } else { self.s32(s[1]) };
                self.ws(inst.dst, d);
            }
            SCselectB64 => {
                let d = if self.scc { self.s64(s[0]) } else { self.s64(s[1]) };
                self.ws64(inst.dst, d);
            }
            SPackLlB32B16 => sop2!(|a, b| ((b & 0xffff) << 16 | (a & 0xffff), None)),
            // ---- SOP1 ----
            SMovB32 => {
                let v = self.s32(s[0]);
                self.ws(inst.dst, v);
            }
            SMovB64 => {
                let v = self.s64(s[0]);
                self.ws64(inst.dst, v);
            }
            SCmovB32 => {
                if self.scc {
                    let v = self.s32(s[0]);
                    self.ws(inst.dst, v);
                }
            }
            SCmovB64 => {
                if self.scc {
                    let v = self.s64(s[0]);
                    self.ws64(inst.dst, v);
                }
            }
            SBrevB32 => {
                let v = self.s32(s[0]).reverse_bits();
                self.ws(inst.dst, v);
            }
            SCtzI32B32 => {
                let a = self.s32(s[0]);
                self.ws(inst.dst, if a == 0 { u32::MAX } else { a.trailing_zeros() });
            }
            SSextI32I8 => {
                let v = self.s32(s[0]) as u8 as i8 as i32 as u32;
                self.ws(inst.dst, v);
            }
            SSextI32I16 => {
                let v = self.s32(s[0]) as u16 as i16 as i32 as u32;
                self.ws(inst.dst, v);
            }
            SAbsI32 => {
                let d = (self.s32(s[0]) as i32).wrapping_abs() as u32;
                self.ws(inst.dst, d);
                self.scc = d != 0;
            }
            SBcnt1I32B32 => {
                let d = self.s32(s[0]).count_ones();
                self.ws(inst.dst, d);
                self.scc = d != 0;
            }
            SNotB32 => {
                let d = !self.s32(s[0]);
                self.ws(inst.dst, d);
                self.scc = d != 0;
            }
            SNotB64 => {
                let d = !self.s64(s[0]);
                self.ws64(inst.dst, d);
                self.scc = d != 0;
            }
            SAndSaveexecB32 => saveexec32!(|a, e| a & e),
            SOrSaveexecB32 => saveexec32!(|a, e| a | e),
            SXorSaveexecB32 => saveexec32!(|a, e| a ^ e),
            SAndNot1SaveexecB32 => saveexec32!(|a, e| a & !e),
            SOrNot1SaveexecB32 => saveexec32!(|a, e| a | !e),
            SAndSaveexecB64 => saveexec64!(|a, e| a & e),
            SOrSaveexecB64 => saveexec64!(|a, e| a | e),
            SXorSaveexecB64 => saveexec64!(|a, e| a ^ e),
            SAndNot1SaveexecB64 => saveexec64!(|a, e| a & !e),
            SOrNot1SaveexecB64 => saveexec64!(|a, e| a | !e),
            // ---- SOPC ----
            SCmpEqI32 | SCmpEqU32 => sopc!(|a, b| a == b),
            SCmpLgI32 | SCmpLgU32 => sopc!(|a, b| a != b),
            SCmpGtI32 => sopc!(|a, b| (a as i32) > (b as i32)),
            SCmpGeI32 => sopc!(|a, b| (a as i32) >= (b as i32)),
            SCmpLtI32 => sopc!(|a, b| (a as i32) < (b as i32)),
            SCmpLeI32 => sopc!(|a, b| (a as i32) <= (b as i32)),
            SCmpGtU32 => sopc!(|a, b| a > b),
            SCmpGeU32 => sopc!(|a, b| a >= b),
            SCmpLtU32 => sopc!(|a, b| a < b),
            SCmpLeU32 => sopc!(|a, b| a <= b),
            SBitcmp0B32 => sopc!(|a, b| (a >> (b & 31)) & 1 == 0),
            SBitcmp1B32 => sopc!(|a, b| (a >> (b & 31)) & 1 == 1),
            SCmpEqU64 => self.scc = self.s64(s[0]) == self.s64(s[1]),
            SCmpLgU64 => self.scc = self.s64(s[0]) != self.s64(s[1]),
            // ---- SOPK ----
            SMovkI32 => self.ws(inst.dst, inst.imm as u32),
            SCmovkI32 => {
                if self.scc {
                    self.ws(inst.dst, inst.imm as u32)
                }
            }
            SCmpkEqI32 => sopk_cmp!(|a, k| a as i32 == k),
            SCmpkLgI32 => sopk_cmp!(|a, k| a as i32 != k),
            SCmpkGtI32 => sopk_cmp!(|a, k| a as i32 > k),
            SCmpkGeI32 => sopk_cmp!(|a, k| a as i32 >= k),
            SCmpkLtI32 => sopk_cmp!(|a, k| (a as i32) < k),
            SCmpkLeI32 => sopk_cmp!(|a, k| a as i32 <= k),
            SCmpkEqU32 => sopk_cmp!(|a, k| a == k as u16 as u32),
            SCmpkLgU32 => sopk_cmp!(|a, k| a != k as u16 as u32),
            SCmpkGtU32 => sopk_cmp!(|a, k| a > k as u16 as u32),
            SCmpkGeU32 => sopk_cmp!(|a, k| a >= k as u16 as u32),
            SCmpkLtU32 => sopk_cmp!(|a, k| a < k as u16 as u32),
            SCmpkLeU32 => sopk_cmp!(|a, k| a <= k as u16 as u32),
            SAddkI32 => {
                let (d, o) = (self.s[inst.dst as usize] as i32).overflowing_add(inst.imm);
                self.ws(inst.dst, d as u32);
                self.scc = o;
            }
            SMulkI32 => {
                let d = (self.s[inst.dst as usize] as i32).wrapping_mul(inst.imm);
                self.ws(inst.dst, d as u32);
            }
            SWaitcntVscnt | SWaitcntVmcnt | SWaitcntExpcnt | SWaitcntLgkmcnt => {}
            // ---- SOPP ----
            SNop | SSleep | SSetInstPrefetchDistance | SClause | SDelayAlu | SWaitcntDepctr | SWaitcnt | SSendmsg => {}
            SEndpgm => return Ok(Some(Status::Ended)),
            SBarrier => return Ok(Some(Status::Barrier)),
            SCodeEnd => {
                return Err(emu(format!("executed s_code_end padding at offset 0x{:x} (missing s_endpgm?)", inst.offset)))
            }
            SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz | SCbranchExecnz => {
                let taken = match inst.op {
                    SBranch => true,
                    SCbranchScc0 => !self.scc,
                    SCbranchScc1 => self.scc,
                    SCbranchVccz => self.mask_at(VCC) == 0,
                    SCbranchVccnz => self.mask_at(VCC) != 0,
                    SCbranchExecz => self.exec() == 0,
                    _ => self.exec() != 0,
                };
                if taken {
                    let t = ctx.prog.targets.get(pc).copied().unwrap_or(usize::MAX);
                    if t == usize::MAX {
                        return Err(emu(format!(
                            "branch at offset 0x{:x} ({inst}) goes to 0x{:x}, which is not an instruction boundary of the kernel's code",
                            inst.offset,
                            inst.branch_target()
                        )));
                    }
                    self.pc = t;
                }
            }
        }
        Ok(None)
    }

    /// D = f(S0, S1, S2) per lane, written under EXEC (and DPP's write mask).
    /// Not inlined: each op gets its own small instance, keeping the
    /// interpreter loop's stack frame small.
    #[inline(never)]
    fn map3(&mut self, rest: &mut [Wave<W>], grouped: &mut bool, inst: &Inst, f: impl Fn(u32, u32, u32) -> u32) -> Result<(), DeviceError> {
        self.map3_one(inst, &f)?;
        for w in rest.iter_mut() {
            w.map3_one(inst, &f)?;
        }
        *grouped = true;
        Ok(())
    }

    #[inline(always)]
    fn map3_one(&mut self, inst: &Inst, f: impl Fn(u32, u32, u32) -> u32) -> Result<(), DeviceError> {
        let s = &inst.src;
        // Operands and the result live in rows of memory (VGPRs or the
        // wave's scratch rows), never in by-value arrays, which LLVM splits
        // into dozens of scalar registers and spills.
        let mask = match (inst.dpp, s[0]) {
            (Dpp::None, Src::Vgpr(_)) => self.exec(),
            (Dpp::None, other) => {
                self.ta = [self.s32(other); W];
                self.exec()
            }
            _ => {
                let (a, m) = self.dpp_row(inst)?;
                self.ta = a;
                m
            }
        };
        let splat = |w: &Self, src: Src| match src {
            Src::Vgpr(_) => 0,
            other => w.s32(other),
        };
        let (kb, kc) = (splat(self, s[1]), splat(self, s[2]));
        let a: &[u32; W] = match (inst.dpp, s[0]) {
            (Dpp::None, Src::Vgpr(r)) => &self.v[r as usize],
            _ => &self.ta,
        };
        let r = &mut self.tr;
        match (s[1], s[2]) {
            (Src::Vgpr(rb), Src::Vgpr(rc)) => lanes3(r, a, &self.v[rb as usize], &self.v[rc as usize], f),
            (Src::Vgpr(rb), _) => lanes2(r, a, &self.v[rb as usize], |x, y| f(x, y, kc)),
            (_, Src::Vgpr(rc)) => lanes2(r, a, &self.v[rc as usize], |x, z| f(x, kb, z)),
            _ => lanes2(r, a, a, |x, _| f(x, kb, kc)),
        }
        let d = &mut self.v[inst.dst as usize];
        if mask == Self::FULL {
            *d = self.tr;
        } else {
            for i in 0..W {
                if (mask >> i) & 1 != 0 {
                    d[i] = self.tr[i];
                }
            }
        }
        Ok(())
    }

    /// A VOPC compare for this wave and `rest` (see `step`).
    #[inline(never)]
    fn compare(&mut self, rest: &mut [Wave<W>], grouped: &mut bool, inst: &Inst, f: impl Fn(u32, u32) -> bool) {
        self.compare_one(inst, &f);
        for w in rest.iter_mut() {
            w.compare_one(inst, &f);
        }
        *grouped = true;
    }

    #[inline(always)]
    fn compare_one(&mut self, inst: &Inst, f: impl Fn(u32, u32) -> bool) {
        if let Src::Vgpr(_) = inst.src[0] {
        } else {
            self.ta = [self.s32(inst.src[0]); W];
        }
        if let Src::Vgpr(_) = inst.src[1] {
        } else {
            self.tb = [self.s32(inst.src[1]); W];
        }
        let a: &[u32; W] = match inst.src[0] {
            Src::Vgpr(r) => &self.v[r as usize],
            _ => &self.ta,
        };
        let b: &[u32; W] = match inst.src[1] {
            Src::Vgpr(r) => &self.v[r as usize],
            _ => &self.tb,
        };
        // Bytes first (a loop that vectorises), then packed 8 lanes at a time.
        let bits = &mut self.bits;
        lanes_cmp(bits, a, b, f);
        let mut m = 0u64;
        for (j, chunk) in bits.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
            // Each byte is 0 or 1; the multiply gathers bit 0 of every byte into the top byte.
            let packed = (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) & 0xff;
            m |= packed << (8 * j);
        }
        let m = m & self.exec();
        self.set_mask(inst.sdst, m);
    }

    #[inline(never)]
    fn compare64(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> bool) {
        let (mut al, mut ah, mut bl, mut bh) = ([0u32; W], [0u32; W], [0u32; W], [0u32; W]);
        self.vsrc64(inst.src[0], &mut al, &mut ah);
        self.vsrc64(inst.src[1], &mut bl, &mut bh);
        let mut m = 0u64;
        for i in 0..W {
            let a = u64::from(al[i]) | u64::from(ah[i]) << 32;
            let b = u64::from(bl[i]) | u64::from(bh[i]) << 32;
            m |= u64::from(f(a, b)) << i;
        }
        let m = m & self.exec();
        self.set_mask(inst.sdst, m);
    }

    /// Lane `i`'s address (slow paths; the fast paths use [`Wave::contiguous_start`]).
    #[inline(always)]
    fn lane_addr(&self, inst: &Inst, i: usize) -> u64 {
        let lo = u64::from(self.v[inst.addr as usize][i]);
        let off = i64::from(inst.imm);
        match inst.saddr {
            Some(sa) => (u64::from(self.s[sa as usize]) | u64::from(self.s[sa as usize + 1]) << 32)
                .wrapping_add_signed(off)
                .wrapping_add(lo),
            None => (lo | u64::from(self.v[inst.addr as usize + 1][i]) << 32).wrapping_add_signed(off),
        }
    }

    /// If EXEC is full and lane i's address is `a0 + i * size`, return a0.
    /// Checked on the 32-bit address VGPRs directly (a vectorisable compare)
    /// and only when the low words cannot carry; a carrying wave, which is
    /// still contiguous, takes the per-lane path and gets the same result.
    #[inline(always)]
    fn contiguous_start(&self, inst: &Inst, size: u64) -> Option<u64> {
        if self.exec() != Self::FULL {
            return None;
        }
        let lo = &self.v[inst.addr as usize];
        let l0 = lo[0];
        if u64::from(l0) + (W as u64 - 1) * size > u64::from(u32::MAX) {
            return None;
        }
        // Lane i must hold l0 + i * size (l0 cannot carry, checked above).
        let mut ok = true;
        if size == 4 {
            // Dword accesses, the common case: compare with a stored row of
            // offsets (SSE2 has no 32-bit vector multiply).
            ok = offsets_match(lo, l0, &self.dword_offsets);
        } else {
            let step = size as u32;
            for i in 1..W {
                ok &= lo[i].wrapping_sub(lo[i - 1]) == step;
            }
        }
        if !ok {
            return None;
        }
        let off = i64::from(inst.imm);
        match inst.saddr {
            Some(sa) => {
                let base = u64::from(self.s[sa as usize]) | u64::from(self.s[sa as usize + 1]) << 32;
                Some(base.wrapping_add_signed(off).wrapping_add(u64::from(l0)))
            }
            None => {
                let hi = &self.v[inst.addr as usize + 1];
                let h0 = hi[0];
                let mut same = true;
                for i in 0..W {
                    same &= hi[i] == h0;
                }
                same.then(|| (u64::from(l0) | u64::from(h0) << 32).wrapping_add_signed(off))
            }
        }
    }

    fn fault(&self, mem: &Memory, inst: &Inst, lane: usize, addr: u64, bytes: u64, what: &str) -> DeviceError {
        DeviceError::MemoryFault(format!(
            "address 0x{:x}, instruction at offset 0x{:x} ({inst}), lane {lane}, {what} of {bytes} bytes",
            mem.first_bad_byte(addr, bytes),
            inst.offset
        ))
    }

    /// The buffer and word-aligned offset of a whole-wave access when every
    /// lane is active and lane i touches `start + i * size` (dword sizes only):
    /// the fast path of global loads and stores.
    fn contiguous_range<'m>(&self, inst: &Inst, size: u64, mem: &'m Memory) -> Option<(&'m Buffer, u64)> {
        if size % 4 != 0 {
            return None;
        }
        self.contiguous_start(inst, size).and_then(|a0| mem.resolve(a0, size * W as u64)).filter(|(_, off)| off % 4 == 0)
    }

    #[inline(never)]
    fn mem_load(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        use std::sync::atomic::Ordering::Relaxed;
        let Shape::MemLoad(size) = ops::info(inst.op).shape else { return Ok(()) };
        let size = u64::from(size);
        let dwords = (size as usize).div_ceil(4);
        let fast = self.contiguous_range(inst, size, mem);
        if let Some((buf, off)) = fast {
            // EXEC is full on this path and every address was resolved, so
            // the destination rows can be written directly.
            let w0 = (off / 4) as usize;
            let words = &buf.words[w0..w0 + dwords * W];
            if dwords == 1 {
                let d = &mut self.v[inst.dst as usize];
                for (d, w) in d.iter_mut().zip(words) {
                    *d = w.load(Relaxed);
                }
            } else {
                for k in 0..dwords {
                    let d = &mut self.v[inst.dst.wrapping_add(k as u8) as usize];
                    for i in 0..W {
                        d[i] = words[i * dwords + k].load(Relaxed);
                    }
                }
            }
            return Ok(());
        }
        self.mem_load_lanes(inst, mem, size, dwords)
    }

    /// The general load: any EXEC, any addresses, faults named by lane.
    #[cold]
    #[inline(never)]
    fn mem_load_lanes(&mut self, inst: &Inst, mem: &Memory, size: u64, dwords: usize) -> Result<(), DeviceError> {
        let exec = self.exec();
        self.check_lanes(inst, mem, size, "load")?;
        let sign = ops::load_sign_extends(inst.op);
        // Lane i's address comes from lane i of the address VGPRs only, so
        // writing lane i's result before reading lane i+1's address is safe
        // even when the destination overlaps the address registers.
        for i in 0..W {
            if (exec >> i) & 1 == 0 {
                continue;
            }
            let a = self.lane_addr(inst, i);
            let Some((buf, off)) = mem.resolve(a, size) else { continue };
            match size {
                1 | 2 => {
                    let mut b = [0u8; 2];
                    buf.read(off, &mut b[..size as usize]);
                    self.v[inst.dst as usize][i] = match (size, sign) {
                        (1, false) => u32::from(b[0]),
                        (1, true) => b[0] as i8 as i32 as u32,
                        (_, false) => u32::from(u16::from_le_bytes(b)),
                        (_, true) => u16::from_le_bytes(b) as i16 as i32 as u32,
                    };
                }
                _ => {
                    let mut data = [0u32; 4];
                    for (k, d) in data.iter_mut().enumerate().take(dwords) {
                        *d = buf.load_u32(off + 4 * k as u64);
                    }
                    for (k, d) in data.iter().enumerate().take(dwords) {
                        self.v[inst.dst.wrapping_add(k as u8) as usize][i] = *d;
                    }
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn mem_store(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        use std::sync::atomic::Ordering::Relaxed;
        let Shape::MemStore(size) = ops::info(inst.op).shape else { return Ok(()) };
        let size = u64::from(size);
        let dwords = (size as usize).div_ceil(4);
        let fast = self.contiguous_range(inst, size, mem);
        if let Some((buf, off)) = fast {
            let w0 = (off / 4) as usize;
            let words = &buf.words[w0..w0 + dwords * W];
            if dwords == 1 {
                for (w, d) in words.iter().zip(&self.v[inst.data as usize]) {
                    w.store(*d, Relaxed);
                }
            } else {
                for i in 0..W {
                    for k in 0..dwords {
                        words[i * dwords + k].store(self.v[inst.data as usize + k][i], Relaxed);
                    }
                }
            }
            return Ok(());
        }
        self.mem_store_lanes(inst, mem, size, dwords)
    }

    /// Check every active lane's address before any is accessed, so a
    /// faulting load or store changes nothing; the fault names the first bad lane.
    fn check_lanes(&self, inst: &Inst, mem: &Memory, size: u64, access: &str) -> Result<(), DeviceError> {
        let exec = self.exec();
        for i in 0..W {
            if (exec >> i) & 1 == 1 {
                let a = self.lane_addr(inst, i);
                if mem.resolve(a, size).is_none() {
                    return Err(self.fault(mem, inst, i, a, size, access));
                }
            }
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn mem_store_lanes(&mut self, inst: &Inst, mem: &Memory, size: u64, dwords: usize) -> Result<(), DeviceError> {
        let exec = self.exec();
        self.check_lanes(inst, mem, size, "store")?;
        for i in 0..W {
            if (exec >> i) & 1 == 0 {
                continue;
            }
            let Some((buf, off)) = mem.resolve(self.lane_addr(inst, i), size) else { continue };
            match size {
                1 | 2 => {
                    let b = self.v[inst.data as usize][i].to_le_bytes();
                    buf.write(off, &b[..size as usize]);
                }
                _ => {
                    for k in 0..dwords {
                        buf.store_u32(off + 4 * k as u64, self.v[inst.data as usize + k][i]);
                    }
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn s_load(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        let Shape::Load(n) = ops::info(inst.op).shape else { return Ok(()) };
        let base = u64::from(self.s[inst.addr as usize]) | u64::from(self.s[inst.addr as usize + 1]) << 32;
        let soff = inst.saddr.map_or(0, |r| u64::from(self.s[r as usize]));
        let addr = base.wrapping_add_signed(i64::from(inst.imm)).wrapping_add(soff);
        let bytes = 4 * u64::from(n);
        if addr % 4 != 0 {
            return Err(emu(format!(
                "instruction at offset 0x{:x} ({inst}): scalar load from unaligned address 0x{addr:x} \
                 (the hardware's treatment of address bits 1:0 is not emulated)",
                inst.offset
            )));
        }
        let Some((buf, off)) = mem.resolve(addr, bytes) else {
            return Err(DeviceError::MemoryFault(format!(
                "address 0x{:x}, instruction at offset 0x{:x} ({inst}), scalar, load of {bytes} bytes",
                mem.first_bad_byte(addr, bytes),
                inst.offset
            )));
        };
        let (dst, n) = (inst.dst as usize, n as usize);
        if dst + n <= NULL as usize {
            // The common case: the registers are below `null`, no wrap, and
            // the address is word-aligned (checked above): a straight copy.
            let w0 = (off / 4) as usize;
            for (d, w) in self.s[dst..dst + n].iter_mut().zip(&buf.words[w0..w0 + n]) {
                *d = w.load(Ordering::Relaxed);
            }
        } else {
            for k in 0..n as u64 {
                let v = buf.load_u32(off + 4 * k);
                self.ws(inst.dst.wrapping_add(k as u8), v);
            }
        }
        Ok(())
    }
}

fn unreachable_none() {}

// Lane loops as functions: Rust marks `&mut` parameters noalias, which tells
// LLVM the result row does not overlap the sources (fields of one wave, so it
// cannot prove that itself), and the loops vectorise without runtime overlap
// checks or a scalar fallback.
#[inline(always)]
fn lanes3<const W: usize>(r: &mut [u32; W], a: &[u32; W], b: &[u32; W], c: &[u32; W], f: impl Fn(u32, u32, u32) -> u32) {
    for i in 0..W {
        r[i] = f(a[i], b[i], c[i]);
    }
}

#[inline(always)]
fn lanes2<const W: usize>(r: &mut [u32; W], a: &[u32; W], b: &[u32; W], f: impl Fn(u32, u32) -> u32) {
    for i in 0..W {
        r[i] = f(a[i], b[i]);
    }
}

#[inline(always)]
fn offsets_match<const W: usize>(lo: &[u32; W], l0: u32, offsets: &[u32; W]) -> bool {
    // An OR of differences, which vectorises; a chain of `&=` on compares
    // stayed scalar and cost more than the load it guards.
    let mut diff = 0;
    for i in 0..W {
        diff |= lo[i].wrapping_sub(l0) ^ offsets[i];
    }
    diff == 0
}

#[inline(always)]
fn lanes_cmp<const W: usize>(bits: &mut [u8; W], a: &[u32; W], b: &[u32; W], f: impl Fn(u32, u32) -> bool) {
    for i in 0..W {
        bits[i] = u8::from(f(a[i], b[i]));
    }
}

/// The decoded instruction at `pc`, or the error executing it would raise.
#[inline(always)]
fn fetch<'p>(ctx: &Ctx<'p>, pc: usize) -> Result<&'p Inst, DeviceError> {
    match ctx.prog.insts.get(pc) {
        Some(Ok(inst)) => Ok(inst),
        Some(Err(msg)) => Err(emu(msg.clone())),
        None => Err(past_end(ctx)),
    }
}

#[cold]
fn past_end(ctx: &Ctx<'_>) -> DeviceError {
    emu(format!("execution ran past the end of the code (offset 0x{:x}) without s_endpgm", ctx.prog.end_offset))
}

/// Step budget, and every 16K steps the abort flag and the watchdog.
#[inline(always)]
fn check_steps(ctx: &Ctx<'_>, steps: u64, inst: &Inst) -> Result<(), DeviceError> {
    if steps > ctx.step_budget {
        return Err(budget_exhausted(ctx, inst));
    }
    if steps & 0x3fff == 0 {
        if ctx.abort.load(Ordering::Relaxed) {
            return Err(aborted());
        }
        if ctx.started.elapsed() > ctx.timeout {
            return Err(DeviceError::Timeout(ctx.timeout));
        }
    }
    Ok(())
}

#[cold]
fn budget_exhausted(ctx: &Ctx<'_>, inst: &Inst) -> DeviceError {
    emu(format!(
        "step budget of {} instructions per wave exhausted at offset 0x{:x} ({inst}): endless loop?",
        ctx.step_budget, inst.offset
    ))
}

/// Run a workgroup's waves in lockstep: each instruction is fetched once and
/// executed for wave 0, 1, ... in turn, while every wave is at the same pc.
/// Returns `Ok(true)` when all waves ended, `Ok(false)` as soon as their pcs
/// differ (a branch went different ways); the caller then finishes them one
/// at a time, which is how they would have run anyway.
///
/// Same results as running each wave to its next barrier in turn: waves of
/// a workgroup only see each other's memory at barriers (anything else is a
/// race, any interleaving of which is a valid outcome on the hardware), each
/// wave counts its own steps, and s_barrier, reached by all at once here,
/// releases at once. Of several waves failing, the one failing first in this
/// order is reported.
pub fn run_lockstep<const W: usize>(waves: &mut [Wave<W>], ctx: &Ctx<'_>) -> Result<bool, DeviceError> {
    let Some(first) = waves.first() else { return Ok(true) };
    let (mut pc, mut steps) = (first.pc, first.steps);
    if waves.iter().any(|w| w.pc != pc || w.steps != steps) {
        return Ok(false);
    }
    // pc and steps are kept here while the waves agree and written back to
    // the waves only when lockstep ends, or before a branch (the one kind of
    // instruction that sets a wave's own pc).
    let leave = |waves: &mut [Wave<W>], pc: usize, steps: u64| {
        for w in waves.iter_mut() {
            (w.pc, w.steps) = (pc, steps);
        }
    };
    loop {
        let inst = fetch(ctx, pc)?;
        steps += 1;
        check_steps(ctx, steps, inst)?;
        let shape = ops::info(inst.op).shape;
        let group = match shape {
            // Only memory ops can take a workgroup path here: the shape test
            // is inline so other instructions pay no call.
            Shape::MemLoad(_) | Shape::MemStore(_) => mem_group(waves, inst, ctx.mem),
            Shape::Load(_) => sload_group(waves, inst, ctx.mem),
            // Waits and hints do nothing in a synchronous emulator.
            Shape::Nop | Shape::KWait => true,
            _ => false,
        };
        if group {
            pc += 1;
            continue;
        }
        let branch = shape == Shape::Branch;
        if branch {
            leave(waves, pc + 1, steps);
        }
        let Some((first, rest)) = waves.split_first_mut() else { return Ok(true) };
        let mut grouped = false;
        let mut status = first.step(inst, ctx, pc, rest, &mut grouped)?;
        if !grouped {
            for w in rest.iter_mut() {
                status = w.step(inst, ctx, pc, &mut [], &mut grouped)?;
            }
        }
        if status == Some(Status::Ended) {
            leave(waves, pc + 1, steps);
            return Ok(true);
        }
        if branch {
            pc = waves[0].pc;
            if waves.iter().any(|w| w.pc != pc) {
                return Ok(false);
            }
        } else {
            pc += 1;
        }
    }
}

/// A lockstep workgroup's global load or store as one access when every
/// wave's is whole and contiguous and the waves' ranges follow each other
/// (a kernel indexing by work-item id): one resolve and one bounds check for
/// the workgroup instead of one per wave. False, having done nothing, for
/// anything else; the waves then execute it one at a time (and fault there,
/// by lane, when an address is bad).
#[inline(never)]
fn mem_group<const W: usize>(waves: &mut [Wave<W>], inst: &Inst, mem: &Memory) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let (size, load) = match ops::info(inst.op).shape {
        Shape::MemLoad(n) => (u64::from(n), true),
        Shape::MemStore(n) => (u64::from(n), false),
        _ => return false,
    };
    // Sub-dword loads extend and multi-dword accesses interleave registers:
    // the per-wave paths handle those.
    if size != 4 || waves.len() < 2 {
        return false;
    }
    let span = 4 * W as u64;
    let lanes = (W * waves.len()) as u64;
    let Some(a0) = group_start(waves, inst, lanes) else { return false };
    let Some((buf, off)) = mem.resolve(a0, span * waves.len() as u64) else { return false };
    if off % 4 != 0 {
        return false;
    }
    let w0 = (off / 4) as usize;
    let words = &buf.words[w0..w0 + W * waves.len()];
    if load {
        let dst = inst.dst as usize;
        for (wave, words) in waves.iter_mut().zip(words.chunks_exact(W)) {
            for (d, w) in wave.v[dst].iter_mut().zip(words) {
                *d = w.load(Relaxed);
            }
        }
    } else {
        let data = inst.data as usize;
        for (wave, words) in waves.iter().zip(words.chunks_exact(W)) {
            for (w, d) in words.iter().zip(&wave.v[data]) {
                w.store(*d, Relaxed);
            }
        }
    }
    true
}

/// A lockstep workgroup's scalar load as one read when every wave loads
/// from the same address (kernel arguments): the words go to each wave's
/// SGPRs. False, having done nothing, when the addresses differ or the
/// common case of [`Wave::s_load`] does not apply; the waves then execute it
/// one at a time (and report any fault there).
#[inline(never)]
fn sload_group<const W: usize>(waves: &mut [Wave<W>], inst: &Inst, mem: &Memory) -> bool {
    let Shape::Load(n) = ops::info(inst.op).shape else { return false };
    let Some(first) = waves.first() else { return false };
    let addr_of = |w: &Wave<W>| {
        let base = u64::from(w.s[inst.addr as usize]) | u64::from(w.s[inst.addr as usize + 1]) << 32;
        let soff = inst.saddr.map_or(0, |r| u64::from(w.s[r as usize]));
        base.wrapping_add_signed(i64::from(inst.imm)).wrapping_add(soff)
    };
    let addr = addr_of(first);
    let (dst, n) = (inst.dst as usize, n as usize);
    if addr % 4 != 0 || dst + n > NULL as usize || n > 16 || waves.iter().any(|w| addr_of(w) != addr) {
        return false;
    }
    let Some((buf, off)) = mem.resolve(addr, 4 * n as u64) else { return false };
    let w0 = (off / 4) as usize;
    let mut data = [0u32; 16];
    for (d, w) in data.iter_mut().zip(&buf.words[w0..w0 + n]) {
        *d = w.load(Ordering::Relaxed);
    }
    for wave in waves.iter_mut() {
        wave.s[dst..dst + n].copy_from_slice(&data[..n]);
    }
    true
}

/// The address of lane 0 of wave 0 when every wave's EXEC is full and lane
/// i of wave w addresses `a0 + 4 * (w * W + i)`: [`Wave::contiguous_start`]
/// for the whole workgroup, with the checks that do not depend on the wave
/// (carry, base register) made once. Checked on the 32-bit address VGPRs and
/// only when their low words cannot carry across the workgroup; a carrying
/// workgroup takes the per-wave paths, with the same result.
#[inline(always)]
fn group_start<const W: usize>(waves: &[Wave<W>], inst: &Inst, lanes: u64) -> Option<u64> {
    let first = waves.first()?;
    let addr = inst.addr as usize;
    let l0 = first.v[addr][0];
    if u64::from(l0) + (lanes - 1) * 4 > u64::from(u32::MAX) {
        return None;
    }
    let mut base = l0;
    for wave in waves {
        // `base` cannot wrap: the whole workgroup's range was checked above.
        if wave.exec() != Wave::<W>::FULL || !offsets_match(&wave.v[addr], base, &wave.dword_offsets) {
            return None;
        }
        base = base.wrapping_add(4 * W as u32);
    }
    let off = i64::from(inst.imm);
    match inst.saddr {
        Some(sa) => {
            // Uniform SGPRs can still differ between waves (each wave's own).
            let sbase = |w: &Wave<W>| u64::from(w.s[sa as usize]) | u64::from(w.s[sa as usize + 1]) << 32;
            let b = sbase(first);
            if waves.iter().any(|w| sbase(w) != b) {
                return None;
            }
            Some(b.wrapping_add_signed(off).wrapping_add(u64::from(l0)))
        }
        None => {
            let h0 = first.v[addr + 1][0];
            for wave in waves {
                let hi = &wave.v[addr + 1];
                let mut same = true;
                for h in hi {
                    same &= *h == h0;
                }
                if !same {
                    return None;
                }
            }
            Some((u64::from(l0) | u64::from(h0) << 32).wrapping_add_signed(off))
        }
    }
}

/// The error a wave returns when another wave's failure stopped the launch.
pub fn aborted() -> DeviceError {
    emu("aborted: another wave failed".into())
}

#[inline(always)]
fn sext24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

#[inline(always)]
fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

#[inline(always)]
fn bfe_u32(a: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else if off + width < 32 {
        (a << (32 - off - width)) >> (32 - width)
    } else {
        a >> off
    }
}

#[inline(always)]
fn bfe_i32(a: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else if off + width < 32 {
        (((a << (32 - off - width)) as i32) >> (32 - width)) as u32
    } else {
        ((a as i32) >> off) as u32
    }
}

/// v_perm_b32 byte selection from the 64-bit value {S0, S1}.
#[inline(always)]
fn perm(a: u32, b: u32, sel: u32) -> u32 {
    let x = u64::from(a) << 32 | u64::from(b);
    let mut d = 0u32;
    for i in 0..4 {
        let s = (sel >> (8 * i)) & 0xff;
        let byte = match s {
            0..=7 => (x >> (8 * s)) as u8,
            8..=11 => {
                // Sign of byte 1, 3, 5 or 7, replicated.
                if (x >> (16 * (s - 8) + 15)) & 1 == 1 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        d |= u32::from(byte) << (8 * i);
    }
    d
}
