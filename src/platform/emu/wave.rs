//! One wave's state and its run loop: scalar registers, SCC, a VGPR file of
//! lane arrays, the program counter, and [`Wave::step`], the one exhaustive
//! `match` over [`Op`] whose arms call into the instruction families
//! ([`super::valu`], [`super::salu`], [`super::vmem`], [`super::smem`]).
//! It has no `_` arm, so an opcode added to the table without behaviour does
//! not compile. Vector instructions run once per wave over `[u32; W]` arrays
//! (W = 32 or 64, a const parameter so the lane loops have fixed trip counts
//! and vectorise).
//!
//! EXEC, VCC and M0 live in the SGPR array at their operand codes (126/127,
//! 106/107, 125), so every instruction that names them reads and writes the
//! same state; SCC is a separate bool. Emulator choice (undocumented on the
//! hardware): in wave32, EXEC_HI and VCC_HI are ordinary stored registers
//! (initially 0), ignored for masking and readable as data; the shadow
//! (`super::taint`) marks such reads undefined (unsettled after a write).
//! Before an instruction executes, [`Wave::needs_taint`] decides whether the
//! shadow must follow it: never for a wave holding no taint (the common case).

use super::in_flight::InFlight;
use super::fault::{Fault, FaultKind, WaveAt};
use super::memory::Memory;
use super::program::Program;
use super::shadow::{Flow, Shadow, WaveStop};
use crate::isa::{Inst, Op, Src, EXEC, NULL, VCC};
use crate::platform::device::DeviceError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// VGPR slots a wave starts with: v0-v255 plus room for a 4-dword access
/// starting at v255. A CDNA5 wave allocating more grows it ([`Wave::reset`]).
pub const VGPR_FILE: usize = 259;
/// SGPRs a new wave starts from (pair reads at 127 touch index 128; nothing reads further).
pub const SGPR_INIT: usize = 130;

/// What a wave needs from its launch.
pub struct Ctx<'a> {
    pub mem: &'a Memory,
    pub prog: &'a Program,
    pub step_budget: u64,
    pub started: Instant,
    pub timeout: Duration,
    pub abort: &'a AtomicBool,
    /// Waves stopped by taint, collected as their workgroups finish.
    pub stops: &'a std::sync::Mutex<Vec<WaveStop>>,
    /// Wrong `v_xad_u32` results to produce (fault injection; empty normally).
    pub xad_faults: &'a [super::emulated::XadFault],
    /// What a modified `v_xad_u32` computes in place of the emulator's own
    /// reading (the emulated HIP library's fixture; `None` normally).
    pub stand_in: Option<&'a dyn super::emulated::ModifierStandIn>,
    /// The device's launch number, from 1 (what a stand-in may vary by).
    pub launch: u64,
    /// Compute units the `s_getreg_b32` hardware ids spread workgroups over.
    pub compute_units: u32,
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
    /// Where this wave is in the launch, for faults.
    pub(super) at: WaveAt,
    /// Global lane number of lane 0.
    pub(super) first_lane: u64,
    /// Scratch rows for splatted or DPP sources and results (see `map3`).
    pub(super) ta: [u32; W],
    pub(super) tb: [u32; W],
    pub(super) tr: [u32; W],
    pub(super) bits: [u8; W],
    /// 4 * lane, for the contiguity check of dword accesses.
    pub(super) dword_offsets: [u32; W],
    /// Which register lanes are undefined or unsettled (see [`super::taint`]).
    pub(super) shadow: Shadow,
    /// Memory accesses issued and not yet waited for (see [`super::counters`]).
    pub(super) inflight: InFlight,
    /// The MODE bits `s_setreg*` wrote (only bits that change nothing the
    /// emulator runs are accepted, `isa::ModeLayout`), and which bits those
    /// are: `s_getreg_b32` reads them back; other bits are unsettled.
    pub(super) mode: u32,
    pub(super) mode_written: u32,
    /// MODE was written inside an `s_setreg` hazard window: the origin of
    /// the undefined value every later `s_getreg_b32` of it reads.
    pub(super) mode_undefined: Option<u32>,
}

impl<const W: usize> Default for Wave<W> {
    fn default() -> Self {
        Wave {
            s: [0; 256],
            scc: false,
            v: vec![[0; W]; VGPR_FILE],
            pc: 0,
            steps: 0,
            at: WaveAt {
                workgroup: [0; 3],
                index: 0,
            },
            first_lane: 0,
            ta: [0; W],
            tb: [0; W],
            tr: [0; W],
            bits: [0; W],
            dword_offsets: std::array::from_fn(|i| 4 * i as u32),
            shadow: Shadow::default(),
            inflight: InFlight::default(),
            mode: 0,
            mode_written: 0,
            mode_undefined: None,
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

impl<const W: usize> Wave<W> {
    pub(super) const FULL: u64 = full_mask(W);

    /// Reset for a new wave: s0-s129 from `sgprs` (a launch's template, so
    /// one copy instead of a clear and a copy), SCC clear, v0 from `v0` and
    /// v1 up to `vgprs` zeroed.
    pub fn reset(&mut self, sgprs: &[u32; SGPR_INIT], v0: &[u32], vgprs: usize) {
        self.s[..SGPR_INIT].copy_from_slice(sgprs);
        self.scc = false;
        self.v[0].copy_from_slice(v0);
        // CDNA5 allocates up to v1023: such a wave's file grows once, with
        // the same slack past the last row; other targets never grow it.
        if vgprs + VGPR_FILE - 256 > self.v.len() {
            self.v.resize(vgprs + VGPR_FILE - 256, [0; W]);
        }
        // One clear of the rows as a flat slice (a row at a time is a call each).
        let n = vgprs.clamp(1, self.v.len());
        self.v[1..n].as_flattened_mut().fill(0);
        self.pc = 0;
        self.steps = 0;
        self.inflight.clear();
        self.mode = 0;
        self.mode_written = 0;
        self.mode_undefined = None;
    }

    /// Name the wave's place in the launch (for faults): its workgroup, its
    /// index there and the global lane number of its lane 0.
    pub fn place(&mut self, at: WaveAt, first_lane: u64) {
        self.at = at;
        self.first_lane = first_lane;
    }

    /// A fault at `inst` in this wave.
    #[cold]
    #[inline(never)]
    pub(super) fn fault(&self, kind: FaultKind, inst: &Inst, message: String) -> DeviceError {
        DeviceError::from(self.fault_at(kind, inst, message))
    }

    /// The [`Fault`] of [`Wave::fault`], for callers that add lane or address.
    #[cold]
    pub(super) fn fault_at(&self, kind: FaultKind, inst: &Inst, message: String) -> Fault {
        Fault::new(kind, message)
            .with_inst(inst.offset, inst.to_string())
            .with_wave(self.at)
    }

    /// The global lane number of this wave's lane `lane`.
    pub(super) fn global_lane(&self, lane: usize) -> u64 {
        self.first_lane + lane as u64
    }

    #[inline(always)]
    pub fn exec(&self) -> u64 {
        self.mask_at(EXEC)
    }

    #[inline(always)]
    pub(super) fn mask_at(&self, r: u8) -> u64 {
        let lo = u64::from(self.s[r as usize]);
        if W == 64 {
            lo | u64::from(self.s[r as usize + 1]) << 32
        } else {
            lo
        }
    }

    #[inline(always)]
    pub(super) fn set_mask(&mut self, r: u8, m: u64) {
        if r == NULL {
            return;
        }
        self.s[r as usize] = m as u32;
        if W == 64 {
            self.s[r as usize + 1] = (m >> 32) as u32;
        }
    }

    #[inline(always)]
    pub(super) fn ws(&mut self, r: u8, v: u32) {
        if r != NULL {
            self.s[r as usize] = v;
        }
    }

    #[inline(always)]
    pub(super) fn ws64(&mut self, r: u8, v: u64) {
        if r != NULL {
            self.s[r as usize] = v as u32;
            self.s[r as usize + 1] = (v >> 32) as u32;
        }
    }

    /// A scalar (uniform) 32-bit read. VGPR sources never reach here: the
    /// decoder only produces them for vector operand slots.
    #[inline(always)]
    pub(super) fn s32(&self, src: Src) -> u32 {
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
    pub(super) fn s64(&self, src: Src) -> u64 {
        match src {
            Src::Sgpr(r) => u64::from(self.s[r as usize]) | u64::from(self.s[r as usize + 1]) << 32,
            Src::Const(c) => c,
            Src::Lit(l) => u64::from(l),
            other => u64::from(self.s32(other)),
        }
    }

    /// Run until `s_endpgm`, `s_barrier` or an error.
    pub fn run(&mut self, ctx: &Ctx<'_>) -> Result<Status, DeviceError> {
        // A wave stopped by taint has ended (its lanes have no result).
        if self.shadow.stop.is_some() {
            return Ok(Status::Ended);
        }
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
        let inst = fetch(ctx, pc, self.at)?;
        self.steps += 1;
        check_steps(ctx, self.steps, inst, self.at)?;
        self.pc = pc + 1;
        let (flags, deps) = (ctx.prog.flags_at::<W>(pc), ctx.prog.deps_at::<W>(pc));
        if self.needs_taint(flags, deps, ctx) && self.taint_step(inst, ctx)? == Flow::Stop {
            return Ok(Some(Status::Ended));
        }
        self.step(inst, ctx, pc, &mut [], &mut false)
    }

    /// Execute `inst` (at index `pc`): the one match over every opcode, each
    /// arm a call into the op's family with its semantics beside it. This is
    /// the behaviour column of the opcode table and as long as the table (a
    /// declarative list, not a function to split); no `_` arm, so the
    /// compiler proves every row has behaviour.
    ///
    /// `rest`: the other waves of a lockstep workgroup, at the same
    /// instruction. Lane-wise ALU ops (map3) and VOPC compares execute it for
    /// them too and set `grouped`, paying the dispatch once per workgroup;
    /// every other op touches `self` only and the caller steps the others.
    #[inline(always)]
    // Long by design: one arm per opcode (see above); splitting the match
    // would add a second dispatch per instruction on the hot path.
    pub(super) fn step(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        pc: usize,
        rest: &mut [Wave<W>],
        grouped: &mut bool,
    ) -> Result<Option<Status>, DeviceError> {
        use super::alu::{
            add_with_carry, bfe_i32, bfe_u32, med3, nz, nz64, perm, s_bfe_u32, sext24,
            sub_with_borrow, with_scc,
        };
        use Op::*;
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
        match inst.op {
            // ---- VALU (valu.rs) ----
            // Modifiers are decided at decode: only a modified v_xad_u32
            // leaves the hot path (`modifiers.rs`).
            VXadU32 if inst.mods.any() => {
                match ctx.stand_in {
                    Some(s) => self.xad_stand_in(s, ctx.launch, rest, grouped, inst)?,
                    None => self.xad_modified(rest, grouped, inst)?,
                }
                if !ctx.xad_faults.is_empty() {
                    self.inject_xad_faults(ctx.xad_faults, inst, rest, *grouped);
                }
            }
            VXadU32 => {
                v3!(|a, b, c| (a ^ b).wrapping_add(c));
                if !ctx.xad_faults.is_empty() {
                    self.inject_xad_faults(ctx.xad_faults, inst, rest, *grouped);
                }
            }
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
            VMulHiI32I24 => {
                v2!(|a, b| ((i64::from(sext24(a)) * i64::from(sext24(b))) >> 32) as u32)
            }
            VMulU32U24 => v2!(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
            VMulHiU32U24 => {
                v2!(|a, b| ((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32)
            }
            VMinI32 => v2!(|a, b| (a as i32).min(b as i32) as u32),
            VMaxI32 => v2!(|a, b| (a as i32).max(b as i32) as u32),
            VMinU32 => v2!(|a, b| a.min(b)),
            VMaxU32 => v2!(|a, b| a.max(b)),
            VMulLoU32 => v2!(|a, b| a.wrapping_mul(b)),
            VMulHiU32 => v2!(|a, b| ((u64::from(a) * u64::from(b)) >> 32) as u32),
            VMulHiI32 => v2!(|a, b| ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32),
            VBcntU32B32 => v2!(|a, b| a.count_ones().wrapping_add(b)),
            VMbcntLoU32B32 => self.mbcnt(inst, false)?,
            VMbcntHiU32B32 => self.mbcnt(inst, true)?,
            VMadI32I24 => v3!(|a, b, c| (sext24(a).wrapping_mul(sext24(b)) as u32).wrapping_add(c)),
            VMadU32U24 => {
                v3!(|a, b, c| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c))
            }
            VBfeU32 => v3!(|a, b, c| bfe_u32(a, b, c)),
            VBfeI32 => v3!(|a, b, c| bfe_i32(a, b, c)),
            VBfiB32 => v3!(|a, b, c| (a & b) | (!a & c)),
            VAlignbitB32 => v3!(|a, b, c| ((u64::from(a) << 32 | u64::from(b)) >> (c & 31)) as u32),
            VAlignbyteB32 => {
                v3!(|a, b, c| ((u64::from(a) << 32 | u64::from(b)) >> (8 * (c & 3))) as u32)
            }
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
            VCndmaskB32 => self.cndmask(inst)?,
            VAddCoU32 => self.carry(inst, |a, b, _| a.overflowing_add(b))?,
            VSubCoU32 => self.carry(inst, |a, b, _| a.overflowing_sub(b))?,
            VSubrevCoU32 => self.carry(inst, |a, b, _| b.overflowing_sub(a))?,
            VAddCoCiU32 => self.carry(inst, add_with_carry)?,
            VSubCoCiU32 => self.carry(inst, sub_with_borrow)?,
            VSubrevCoCiU32 => self.carry(inst, |a, b, c| sub_with_borrow(b, a, c))?,
            VMadU64U32 => self.mad64(inst, false),
            VMadI64I32 => self.mad64(inst, true),
            VLshlrevB64 | VLshlrevB64E32 => self.shift64(inst, |x, sh| x << sh),
            VLshrrevB64 => self.shift64(inst, |x, sh| x >> sh),
            VAshrrevI64 => self.shift64(inst, |x, sh| ((x as i64) >> sh) as u64),
            VLshlAddU64 => self.lshl_add64(inst),
            VPkMovB32 => self.pk_mov(inst),
            VMovB64 => self.mov64(inst),
            VReadfirstlaneB32 => self.readfirstlane(inst),
            VReadlaneB32 => self.readlane(inst),
            VWritelaneB32 => self.writelane(inst),
            VCmpFI32 | VCmpFU32 | VCmpxFI32 | VCmpxFU32 => self.set_compare_mask(inst, 0),
            VCmpTI32 | VCmpTU32 | VCmpxTI32 | VCmpxTU32 => self.compare_true(inst),
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
            VCmpLtI64 | VCmpxLtI64 => self.compare64(inst, |a, b| (a as i64) < (b as i64)),
            VCmpEqI64 | VCmpxEqI64 | VCmpEqU64 | VCmpxEqU64 => self.compare64(inst, |a, b| a == b),
            VCmpLeI64 | VCmpxLeI64 => self.compare64(inst, |a, b| (a as i64) <= (b as i64)),
            VCmpGtI64 | VCmpxGtI64 => self.compare64(inst, |a, b| (a as i64) > (b as i64)),
            VCmpNeI64 | VCmpxNeI64 | VCmpNeU64 | VCmpxNeU64 => self.compare64(inst, |a, b| a != b),
            VCmpGeI64 | VCmpxGeI64 => self.compare64(inst, |a, b| (a as i64) >= (b as i64)),
            VCmpLtU64 | VCmpxLtU64 => self.compare64(inst, |a, b| a < b),
            VCmpLeU64 | VCmpxLeU64 => self.compare64(inst, |a, b| a <= b),
            VCmpGtU64 | VCmpxGtU64 => self.compare64(inst, |a, b| a > b),
            VCmpGeU64 | VCmpxGeU64 => self.compare64(inst, |a, b| a >= b),

            // ---- vector memory (vmem.rs) and scalar memory (smem.rs) ----
            GlobalLoadU8 | GlobalLoadI8 | GlobalLoadU16 | GlobalLoadI16 | GlobalLoadB32
            | GlobalLoadB64 | GlobalLoadB96 | GlobalLoadB128 | FlatLoadU8 | FlatLoadI8
            | FlatLoadU16 | FlatLoadI16 | FlatLoadB32 | FlatLoadB64 | FlatLoadB96
            | FlatLoadB128 => {
                self.mem_load(inst, ctx.mem)?;
                self.issued(inst, pc, ctx);
            }
            GlobalStoreB8 | GlobalStoreB16 | GlobalStoreB32 | GlobalStoreB64 | GlobalStoreB96
            | GlobalStoreB128 | FlatStoreB8 | FlatStoreB16 | FlatStoreB32 | FlatStoreB64
            | FlatStoreB96 | FlatStoreB128 => {
                self.mem_store(inst, ctx.mem)?;
                self.issued(inst, pc, ctx);
            }
            SLoadB32 | SLoadB64 | SLoadB96 | SLoadB128 | SLoadB256 | SLoadB512 => {
                self.s_load(inst, ctx.mem)?;
                self.issued(inst, pc, ctx);
            }

            // ---- SOP2 (salu.rs) ----
            SAddU32 => self.sop2(inst, |a, b| with_scc(a.overflowing_add(b))),
            SSubU32 => self.sop2(inst, |a, b| with_scc(a.overflowing_sub(b))),
            SAddI32 => self.sop2(inst, |a, b| with_scc((a as i32).overflowing_add(b as i32))),
            SSubI32 => self.sop2(inst, |a, b| with_scc((a as i32).overflowing_sub(b as i32))),
            SAddcU32 => self.s_addc(inst),
            SSubbU32 => self.s_subb(inst),
            SLshlB32 => self.sop2(inst, |a, b| nz(a << (b & 31))),
            SLshrB32 => self.sop2(inst, |a, b| nz(a >> (b & 31))),
            SAshrI32 => self.sop2(inst, |a, b| nz(((a as i32) >> (b & 31)) as u32)),
            SLshlB64 => self.s_shift64(inst, |x, sh| x << sh),
            SLshrB64 => self.s_shift64(inst, |x, sh| x >> sh),
            SAshrI64 => self.s_shift64(inst, |x, sh| ((x as i64) >> sh) as u64),
            SLshl1AddU32 => self.s_lshl_add(inst, 1),
            SLshl2AddU32 => self.s_lshl_add(inst, 2),
            SLshl3AddU32 => self.s_lshl_add(inst, 3),
            SLshl4AddU32 => self.s_lshl_add(inst, 4),
            SMinI32 => self.sop2(inst, |a, b| {
                (
                    (a as i32).min(b as i32) as u32,
                    Some((a as i32) < (b as i32)),
                )
            }),
            SMinU32 => self.sop2(inst, |a, b| (a.min(b), Some(a < b))),
            SMaxI32 => self.sop2(inst, |a, b| {
                (
                    (a as i32).max(b as i32) as u32,
                    Some((a as i32) > (b as i32)),
                )
            }),
            SMaxU32 => self.sop2(inst, |a, b| (a.max(b), Some(a > b))),
            SAndB32 => self.sop2(inst, |a, b| nz(a & b)),
            SOrB32 => self.sop2(inst, |a, b| nz(a | b)),
            SXorB32 => self.sop2(inst, |a, b| nz(a ^ b)),
            SNandB32 => self.sop2(inst, |a, b| nz(!(a & b))),
            SNorB32 => self.sop2(inst, |a, b| nz(!(a | b))),
            SXnorB32 => self.sop2(inst, |a, b| nz(!(a ^ b))),
            SAndNot1B32 => self.sop2(inst, |a, b| nz(a & !b)),
            SOrNot1B32 => self.sop2(inst, |a, b| nz(a | !b)),
            SAndB64 => self.sop2_64(inst, |a, b| a & b),
            SOrB64 => self.sop2_64(inst, |a, b| a | b),
            SXorB64 => self.sop2_64(inst, |a, b| a ^ b),
            SNandB64 => self.sop2_64(inst, |a, b| !(a & b)),
            SNorB64 => self.sop2_64(inst, |a, b| !(a | b)),
            SXnorB64 => self.sop2_64(inst, |a, b| !(a ^ b)),
            SAndNot1B64 => self.sop2_64(inst, |a, b| a & !b),
            SOrNot1B64 => self.sop2_64(inst, |a, b| a | !b),
            SBfeU32 => self.sop2(inst, |a, b| nz(s_bfe_u32(a, b))),
            SMulI32 => self.sop2(inst, |a, b| (a.wrapping_mul(b), None)),
            SMulHiU32 => self.sop2(inst, |a, b| {
                (((u64::from(a) * u64::from(b)) >> 32) as u32, None)
            }),
            SCselectB32 => self.s_cselect(inst),
            SCselectB64 => self.s_cselect64(inst),
            SAddNcU64 => self.sop2_64_nc(inst, u64::wrapping_add),
            SSubNcU64 => self.sop2_64_nc(inst, u64::wrapping_sub),
            SPackLlB32B16 => self.sop2(inst, |a, b| ((b & 0xffff) << 16 | (a & 0xffff), None)),
            // ---- SOP1 ----
            SMovB32 => self.sop1(inst, |a| (a, None)),
            SMovB64 => self.sop1_64(inst, |a| (a, None)),
            SCmovB32 => self.s_cmov(inst),
            SCmovB64 => self.s_cmov64(inst),
            SBrevB32 => self.sop1(inst, |a| (a.reverse_bits(), None)),
            SCtzI32B32 => self.sop1(inst, |a| {
                (if a == 0 { u32::MAX } else { a.trailing_zeros() }, None)
            }),
            SSextI32I8 => self.sop1(inst, |a| (a as u8 as i8 as i32 as u32, None)),
            SSextI32I16 => self.sop1(inst, |a| (a as u16 as i16 as i32 as u32, None)),
            SAbsI32 => self.sop1(inst, |a| nz((a as i32).wrapping_abs() as u32)),
            SBcnt1I32B32 => self.sop1(inst, |a| nz(a.count_ones())),
            SNotB32 => self.sop1(inst, |a| nz(!a)),
            SNotB64 => self.sop1_64(inst, |a| nz64(!a)),
            SAndSaveexecB32 => self.saveexec32(inst, |a, e| a & e),
            SOrSaveexecB32 => self.saveexec32(inst, |a, e| a | e),
            SXorSaveexecB32 => self.saveexec32(inst, |a, e| a ^ e),
            SAndNot1SaveexecB32 => self.saveexec32(inst, |a, e| a & !e),
            SOrNot1SaveexecB32 => self.saveexec32(inst, |a, e| a | !e),
            SAndSaveexecB64 => self.saveexec64(inst, |a, e| a & e),
            SOrSaveexecB64 => self.saveexec64(inst, |a, e| a | e),
            SXorSaveexecB64 => self.saveexec64(inst, |a, e| a ^ e),
            SAndNot1SaveexecB64 => self.saveexec64(inst, |a, e| a & !e),
            SOrNot1SaveexecB64 => self.saveexec64(inst, |a, e| a | !e),
            // ---- SOPC ----
            SCmpEqI32 | SCmpEqU32 => self.sopc(inst, |a, b| a == b),
            SCmpLgI32 | SCmpLgU32 => self.sopc(inst, |a, b| a != b),
            SCmpGtI32 => self.sopc(inst, |a, b| (a as i32) > (b as i32)),
            SCmpGeI32 => self.sopc(inst, |a, b| (a as i32) >= (b as i32)),
            SCmpLtI32 => self.sopc(inst, |a, b| (a as i32) < (b as i32)),
            SCmpLeI32 => self.sopc(inst, |a, b| (a as i32) <= (b as i32)),
            SCmpGtU32 => self.sopc(inst, |a, b| a > b),
            SCmpGeU32 => self.sopc(inst, |a, b| a >= b),
            SCmpLtU32 => self.sopc(inst, |a, b| a < b),
            SCmpLeU32 => self.sopc(inst, |a, b| a <= b),
            SBitcmp0B32 => self.sopc(inst, |a, b| (a >> (b & 31)) & 1 == 0),
            SBitcmp1B32 => self.sopc(inst, |a, b| (a >> (b & 31)) & 1 == 1),
            SCmpEqU64 => self.sopc64(inst, |a, b| a == b),
            SCmpLgU64 => self.sopc64(inst, |a, b| a != b),
            // ---- SOPK ----
            SMovkI32 => self.ws(inst.sgpr_dst(), inst.imm as u32),
            SGetregB32 => self.s_getreg(inst, ctx)?,
            SSetregB32 | SSetregImm32B32 => self.s_setreg(inst),
            SCmovkI32 => self.s_cmovk(inst),
            SCmpkEqI32 => self.sopk_cmp(inst, |a, k| a as i32 == k),
            SCmpkLgI32 => self.sopk_cmp(inst, |a, k| a as i32 != k),
            SCmpkGtI32 => self.sopk_cmp(inst, |a, k| a as i32 > k),
            SCmpkGeI32 => self.sopk_cmp(inst, |a, k| a as i32 >= k),
            SCmpkLtI32 => self.sopk_cmp(inst, |a, k| (a as i32) < k),
            SCmpkLeI32 => self.sopk_cmp(inst, |a, k| a as i32 <= k),
            SCmpkEqU32 => self.sopk_cmp(inst, |a, k| a == k as u16 as u32),
            SCmpkLgU32 => self.sopk_cmp(inst, |a, k| a != k as u16 as u32),
            SCmpkGtU32 => self.sopk_cmp(inst, |a, k| a > k as u16 as u32),
            SCmpkGeU32 => self.sopk_cmp(inst, |a, k| a >= k as u16 as u32),
            SCmpkLtU32 => self.sopk_cmp(inst, |a, k| a < k as u16 as u32),
            SCmpkLeU32 => self.sopk_cmp(inst, |a, k| a <= k as u16 as u32),
            SAddkI32 => self.s_addk(inst),
            SMulkI32 => self.s_mulk(inst),
            // Waits land the accesses they cover (waits.rs).
            SWaitcntVscnt | SWaitcntVmcnt | SWaitcntExpcnt | SWaitcntLgkmcnt => self.waited(inst),
            // ---- SOPP ----
            SNop | SSleep | SSetInstPrefetchDistance | SClause | SDelayAlu | SWaitcntDepctr => {}
            // Resolved into every later instruction's VGPR numbers when the
            // program is decoded (program.rs, `resolve_vgpr_msb`).
            SSetVgprMsb => {}
            // XCNT tracks address translations, not data: what it orders is
            // checked before the kernel runs (hazards/xcnt.rs, the XCNT rule).
            SWaitXcnt => {}
            SSendmsg => self.issued(inst, pc, ctx),
            SWaitcnt | SWaitIdle | SWaitLoadcnt | SWaitStorecnt | SWaitSamplecnt | SWaitBvhcnt
            | SWaitExpcnt | SWaitDscnt | SWaitKmcnt | SWaitLoadcntDscnt | SWaitStorecntDscnt => {
                self.waited(inst)
            }
            SEndpgm => return Ok(Some(Status::Ended)),
            SBarrier => return Ok(Some(Status::Barrier)),
            SCodeEnd => return Err(self.code_end(inst)),
            SBranch => self.branch(inst, ctx, pc, true)?,
            SCbranchScc0 => self.branch(inst, ctx, pc, !self.scc)?,
            SCbranchScc1 => self.branch(inst, ctx, pc, self.scc)?,
            SCbranchVccz => self.branch(inst, ctx, pc, self.mask_at(VCC) == 0)?,
            SCbranchVccnz => self.branch(inst, ctx, pc, self.mask_at(VCC) != 0)?,
            SCbranchExecz => self.branch(inst, ctx, pc, self.exec() == 0)?,
            SCbranchExecnz => self.branch(inst, ctx, pc, self.exec() != 0)?,
        }
        Ok(None)
    }
}

/// The decoded instruction at `pc`, or the fault executing it raises.
#[inline(always)]
pub(super) fn fetch<'p>(ctx: &Ctx<'p>, pc: usize, wave: WaveAt) -> Result<&'p Inst, DeviceError> {
    match ctx.prog.insts.get(pc) {
        Some(Ok(inst)) => Ok(inst),
        Some(Err(fault)) => Err(undecoded(fault, wave)),
        None => Err(past_end(ctx, wave)),
    }
}

#[cold]
fn undecoded(fault: &Fault, wave: WaveAt) -> DeviceError {
    DeviceError::from(fault.clone().with_wave(wave))
}

#[cold]
fn past_end(ctx: &Ctx<'_>, wave: WaveAt) -> DeviceError {
    let message = format!(
        "execution ran past the end of the code (offset 0x{:x}) without s_endpgm",
        ctx.prog.end_offset
    );
    DeviceError::from(Fault::new(FaultKind::RanPastEnd, message).with_wave(wave))
}

/// Step budget, and every 16K steps the abort flag and the watchdog.
#[inline(always)]
pub(super) fn check_steps(
    ctx: &Ctx<'_>,
    steps: u64,
    inst: &Inst,
    wave: WaveAt,
) -> Result<(), DeviceError> {
    if steps > ctx.step_budget {
        return Err(budget_exhausted(ctx, inst, wave));
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
fn budget_exhausted(ctx: &Ctx<'_>, inst: &Inst, wave: WaveAt) -> DeviceError {
    let message = format!(
        "step budget of {} instructions per wave exhausted at offset 0x{:x} ({inst}): endless loop? (a longer kernel: raise it with `run --step-budget N`)",
        ctx.step_budget, inst.offset
    );
    DeviceError::from(
        Fault::new(FaultKind::StepBudget, message)
            .with_inst(inst.offset, inst.to_string())
            .with_wave(wave),
    )
}

/// The error a wave returns when another wave's failure stopped the launch.
pub fn aborted() -> DeviceError {
    DeviceError::from(Fault::new(
        FaultKind::Aborted,
        "aborted: another wave failed",
    ))
}

/// Whether `e` is [`aborted`]: a wave stopped by another's failure, not a failure itself.
pub fn is_aborted(e: &DeviceError) -> bool {
    matches!(e, DeviceError::Emulation(f) if f.kind == FaultKind::Aborted)
}
