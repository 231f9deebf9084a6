//! Per-lane definedness: which register lanes hold a value the ISA does not
//! define (undefined) or one that rests on a rule the ISA guide contradicts
//! (unsettled), and where that came from.
//!
//! Sources of taint: registers the dispatch did not initialise (every SGPR
//! past the user and system ones, SCC, VCC, M0, VGPRs other than v0, v0 in
//! lanes outside the launch), VGPRs after `s_sendmsg
//! sendmsg(MSG_DEALLOC_VGPRS)`, exec_hi/vcc_hi read as data in wave32
//! (undefined before a write; unsettled after one, since the guide does not
//! say a write is kept), and a DPP16 read of an inactive in-range lane with
//! bound_ctrl=0, fi=0 (unsettled: RDNA3 ISA 7.7.1 vs table 93). Taint flows
//! lane-wise through vector ops (OR of the sources; DPP permutes src0's),
//! into SGPRs, SCC and lane masks as the OR over the active lanes, and into
//! memory through stores ([`super::memory::MemTaint`]).
//!
//! The clean path pays one test per instruction: [`Deps`] (decoded once)
//! names every register an instruction reads or writes as bit masks, and a
//! wave whose tainted registers it does not touch runs as before. Only a
//! touching instruction takes [`Wave::taint_step`], which updates the shadow
//! before the instruction executes (so sources are seen before a
//! destination overwrites them), and may stop the wave: a branch, an EXEC
//! change or a memory address that depends on a tainted value ends that
//! wave only (reported as a [`WaveStop`]).

// Lane loops index several lane masks by the same lane number.
#![allow(clippy::needless_range_loop)]

use super::deps::{
    half_of, is_saveexec, reads_scc, vsrc_count, vsrc_width, writes, writes_scc, Deps, VMask,
    EXEC_HI, F_DPP, F_HAZ, F_HI, F_MEM, F_MODS, F_RUNTIME, F_SLOW, F_UNDOC, HI, SCC_BIT, VCC_HI,
    VGPR_WORDS,
};
use super::launch_setup::InitialRegisters;
use super::memory::Mark;
use super::shadow::{Flow, Shadow, WaveStop, DEALLOC, HI_WRITTEN, IN_FLIGHT, L, S, UNINIT};
use super::wave::{Ctx, Wave};
use crate::platform::device::{DeviceError, Origin, Taint};
use crate::isa::{reg_name, Dpp, Inst, Op, Shape, Src, EXEC, NULL, VCC};

/// Whether an instruction with `flags` needs no taint step in a wave (or a
/// lockstep group) with no taint anywhere: it has no runtime flag, or only
/// the memory one while the memory shadow is empty (memory ops are common,
/// so they test the atomic shadow flag inline).
#[inline(always)]
pub(super) fn clean_wave_skips(flags: u8, ctx: &Ctx<'_>) -> bool {
    let f = flags & F_RUNTIME;
    f == 0 || (f == F_MEM && !ctx.mem.taint.is_active())
}

/// The low `bits` bits set (all 64 from 64 on).
#[inline(always)]
fn ones(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Reset shadow word `k` (rows 64k..64k+63) of a wave: clear the rows tainted
/// before (only those: a row whose `v_any` bit is clear is all zero) and mark
/// `bits` undefined and uninitialised. Returns `bits`.
#[inline(always)]
fn shadow_word<const W: usize>(t: &mut Shadow, k: usize, bits: u64) -> u64 {
    for_bits(t.v_any[k], |b| {
        t.v_undef[64 * k + b] = 0;
        t.v_unset[64 * k + b] = 0;
    });
    for_bits(bits, |b| {
        t.v_undef[64 * k + b] = Wave::<W>::FULL;
        t.v_origin[64 * k + b] = UNINIT;
    });
    t.v_any[k] = bits;
    bits
}

/// Call `f` with the index of every set bit of `bits`, ascending.
#[inline(always)]
fn for_bits(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// The SGPRs the dispatch initialises, as the launch setup names them
/// ([`InitialRegisters`]): its user and system SGPR ranges (a gap between
/// them stays undefined), EXEC (EXEC_HI too in wave64) and on gfx12 the
/// workgroup-id trap temporaries. Returns (defined, unsettled): on gfx12 the
/// system SGPRs are written but unsettled, since gfx12 hands workgroup ids
/// over in ttmp7/ttmp9 (architected SGPRs) and AMD does not document whether
/// the system SGPRs are still filled; a result computed from them is neither
/// a pass nor a fail.
pub(super) fn initialised_sgprs(init: &InitialRegisters, wave64: bool) -> (u128, u128) {
    let mask = |r: &std::ops::Range<usize>| {
        r.clone()
            .filter(|&i| i < 106)
            .fold(0u128, |m, i| m | 1u128 << i)
    };
    let exec = if wave64 { 3u128 << EXEC } else { 1u128 << EXEC };
    let ttmps = if init.ttmp_ids {
        1u128 << super::launch_setup::TTMP7 | 1u128 << super::launch_setup::TTMP9
    } else {
        0
    };
    let system = mask(&init.system_sgprs);
    let (defined_system, unsettled) = if init.ttmp_ids {
        (0, system)
    } else {
        (system, 0)
    };
    (
        (mask(&init.user_sgprs) | defined_system | exec | ttmps) & !init.unmodelled,
        unsettled | init.unmodelled,
    )
}

impl L {
    /// What a read inside `rule`'s window gets, in every lane: undefined, or
    /// unsettled where no document settles whether the rule holds.
    fn of_rule(rule: &super::hazards::Rule, origin: u32) -> L {
        if rule.unsettled {
            L {
                u: 0,
                n: u64::MAX,
                origin,
            }
        } else {
            L::undefined(origin)
        }
    }

    fn splat<const W: usize>(s: S) -> L {
        let full = Wave::<W>::FULL;
        L {
            u: if s.undef { full } else { 0 },
            n: if s.unset { full } else { 0 },
            origin: s.origin,
        }
    }
}

impl<const W: usize> Wave<W> {
    /// Start a wave's shadow: everything undefined except what the dispatch
    /// initialised (`sgprs`, and v0 in the lanes of EXEC).
    /// `may` ([`may_read_unwritten`]) applies to a wave whose lanes are all
    /// launched; a partial wave starts with every uninitialised lane tainted.
    /// `ids`: the VGPRs from v0 the dispatch wrote work-item ids to (1, or 2-3
    /// where the ids are not packed into v0: gfx908, gfx10).
    pub(super) fn reset_shadow(
        &mut self,
        (sgprs, unsettled): (u128, u128),
        (vgprs, ids): (usize, usize),
        may: &(u128, VMask),
    ) {
        let exec = self.exec();
        let all_launched = exec == Self::FULL;
        let may_s = if all_launched { may.0 } else { u128::MAX };
        let may_v = |k: usize| if all_launched { may.1[k] } else { u64::MAX };
        let hi = if W == 32 { HI } else { 0 };
        let exec_bits = if W == 64 {
            3u128 << EXEC
        } else {
            1u128 << EXEC
        };
        // Computed in locals and stored once: reading back half-written
        // u128s stalls store forwarding, and this runs for every wave.
        let s_undef = ((!(sgprs | unsettled) | (1 << SCC_BIT)) & !exec_bits & may_s) | hi;
        let s_unset = unsettled & may_s;
        // The rows a wave allocates past v255 (CDNA5) exist from its first
        // such launch on; other targets keep the 256 rows they start with.
        let n = vgprs.clamp(1, 64 * VGPR_WORDS);
        if n > self.shadow.v_undef.len() {
            let t = &mut self.shadow;
            t.v_undef.resize(n, 0);
            t.v_unset.resize(n, 0);
            t.v_origin.resize(n, UNINIT);
        }
        let v0 = Self::FULL & !exec;
        let id_rows = ones(ids.clamp(1, 3));
        let t = &mut self.shadow;
        // A row whose `v_any` bit is clear is all zero, so only rows tainted
        // before (none, after a clean wave) need clearing. `v_any` has bits
        // only for the shadow's rows (256 unless a CDNA5 launch grew it), so
        // the words past them are zero and skipped: this runs for every wave.
        let rows = t.v_undef.len();
        let first = (ones(n) & may_v(0) & !id_rows) | if v0 != 0 { id_rows } else { 0 };
        let mut any_v = 0u64;
        // A constant trip count where the shadow has its 256 rows, so the
        // loop unrolls (and the row word inlines) as it did before CDNA5's
        // larger file existed; a closure here cost ~4% of a launch.
        if rows <= 256 {
            for k in 0..4 {
                let bits = if k == 0 {
                    first
                } else {
                    ones(n.saturating_sub(64 * k)) & may_v(k)
                };
                any_v |= shadow_word::<W>(t, k, bits);
            }
        } else {
            for k in 0..rows.div_ceil(64) {
                let bits = if k == 0 {
                    first
                } else {
                    ones(n.saturating_sub(64 * k)) & may_v(k)
                };
                any_v |= shadow_word::<W>(t, k, bits);
            }
        }
        if v0 != 0 {
            // (The id rows are otherwise zero already: the shadow rows stay
            // out of the cache in a clean run.)
            for_bits(id_rows, |b| t.v_undef[b] = v0);
        }
        (t.s_undef, t.s_unset, t.s_oset, t.stop) = (s_undef, s_unset, 0, None);
        t.clean = (s_undef & !hi) == 0 && s_unset == 0 && any_v == 0;
    }

    /// Whether no register holds taint (exec_hi/vcc_hi in wave32 aside:
    /// instructions touching them are flagged).
    pub(super) fn update_clean(&mut self) {
        let t = &mut self.shadow;
        let hi = if W == 32 { HI } else { 0 };
        t.clean = ((t.s_undef | t.s_unset) & !hi) == 0 && t.v_any == [0; VGPR_WORDS];
    }

    /// The clean-path test: does `d` touch a tainted register (or need the
    /// memory shadow, or a DPP16 read that may be unsettled)? True when the
    /// full [`Wave::taint_step`] must run; a tainted register `inst` only
    /// writes is cleaned here.
    /// `flags` are the instruction's dense flags (`Program::flags_at`): a
    /// clean wave reads nothing of `d`, which spans several cache lines.
    #[inline(always)]
    pub(super) fn needs_taint(&mut self, flags: u8, d: &Deps, ctx: &Ctx<'_>) -> bool {
        if self.shadow.clean && clean_wave_skips(flags, ctx) {
            return false;
        }
        let t = &self.shadow;
        let s = d.s & (t.s_undef | t.s_unset);
        let v = (0..VGPR_WORDS).fold(0, |acc, k| acc | (d.v[k] & t.v_any[k]));
        ((s != 0) | (v != 0) | (d.flags & F_RUNTIME != 0)) && self.touches_taint(d, ctx)
    }

    /// [`Wave::needs_taint`] past the first test: reads of taint (or flags)
    /// need the full step; writes alone clean their registers' written
    /// lanes (EXEC lanes for VGPRs: partial writes are reads in [`Deps`]).
    #[inline(never)]
    fn touches_taint(&mut self, d: &Deps, ctx: &Ctx<'_>) -> bool {
        // A register in flight is only ever touched through the full step,
        // which sees a write to it (see `check_in_flight_writes`).
        if self.touches_in_flight(d) {
            return true;
        }
        let exec = self.exec();
        let t = &mut self.shadow;
        let st = t.s_undef | t.s_unset;
        let rv = (0..VGPR_WORDS).fold(0, |acc, k| acc | (d.rv[k] & t.v_any[k]));
        let flagged = d.flags & (F_SLOW | F_HI | F_UNDOC | F_HAZ | F_MODS) != 0
            || (d.flags & F_MEM != 0 && ctx.mem.taint.is_active())
            || (d.flags & F_DPP != 0 && exec != Self::FULL);
        if (d.rs & st) != 0 || rv != 0 || flagged {
            return true;
        }
        t.s_undef &= !d.s;
        t.s_unset &= !d.s;
        for k in 0..VGPR_WORDS {
            let mut bits = d.v[k] & t.v_any[k];
            while bits != 0 {
                let r = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                t.v_undef[r] &= !exec;
                t.v_unset[r] &= !exec;
                if (t.v_undef[r] | t.v_unset[r]) == 0 {
                    t.v_any[k] &= !(1 << (r % 64));
                }
            }
        }
        self.update_clean();
        false
    }

    /// Update the shadow for `inst` before it executes; `Flow::Stop` when
    /// the wave must stop (recorded in the shadow).
    #[cold]
    #[inline(never)]
    pub(super) fn taint_step(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Result<Flow, DeviceError> {
        // `pc` already points past `inst` (step_one and lockstep set it first).
        // Only instructions flagged F_HAZ have hazards: the others skip the lookup.
        let pc = self.pc.wrapping_sub(1);
        let hazards = if ctx.prog.flags_at::<W>(pc) & F_HAZ != 0 {
            ctx.prog.hazards_at::<W>(pc)
        } else {
            &[]
        };
        let marked = if hazards.is_empty() {
            Vec::new()
        } else {
            self.mark_hazards(inst, ctx, hazards)
        };
        let flow = self.taint_effects(inst, ctx);
        if !hazards.is_empty() {
            self.mark_hazard_results(inst, ctx, hazards);
        }
        if !marked.is_empty() {
            let d = ctx.prog.deps_at::<W>(pc);
            for (reg, before, origin) in marked {
                // The stale read is over: the register is as it was, unless
                // `inst` wrote it (then it holds what `inst` computed).
                let now = self.reg_taint(reg, u64::MAX);
                if now.origin == origin && now.u != 0 && !writes(inst, d, reg) {
                    self.land(reg, now.u, before);
                }
            }
        }
        if !self.inflight.is_empty() {
            self.check_in_flight_writes(inst, ctx);
        }
        self.update_clean();
        flow
    }

    fn taint_effects(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Result<Flow, DeviceError> {
        use Shape::*;
        match inst.shape() {
            S1 | S1w | S2 | S2w | S2sh | Sc | Scw | K => Ok(self.taint_salu(inst, ctx)),
            Branch => Ok(self.taint_branch(inst, ctx)),
            Load(n) => Ok(self.taint_sload(inst, ctx, n)),
            MemLoad(_) | MemStore(_) => Ok(self.taint_vmem(inst, ctx)),
            Control => {
                if inst.op == Op::SSendmsg {
                    self.dealloc_vgprs();
                }
                Ok(Flow::Run)
            }
            KWait | Nop => Ok(Flow::Run),
            _ => Ok(self.taint_valu(inst, ctx)),
        }
    }

    /// After MSG_DEALLOC_VGPRS every VGPR is undefined.
    fn dealloc_vgprs(&mut self) {
        let t = &mut self.shadow;
        t.v_undef.fill(Self::FULL);
        t.v_origin.fill(DEALLOC);
        // Only the rows the shadow has (the wave's file) can be read again.
        let rows = t.v_undef.len();
        t.v_any = std::array::from_fn(|k| match rows.saturating_sub(64 * k) {
            0 => 0,
            1..=63 => (1u64 << rows.saturating_sub(64 * k)) - 1,
            _ => u64::MAX,
        });
    }

    /// A concrete origin for a read of register `name` at `inst`.
    fn origin_of(&self, ctx: &Ctx<'_>, placeholder: u32, reg: u16, name: &str, inst: &Inst) -> u32 {
        let what = match placeholder {
            DEALLOC => format!("{name} read after s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)"),
            HI_WRITTEN => format!("{name} read as data in wave32 after a write (the RDNA3 ISA guide does not say the write is kept)"),
            IN_FLIGHT => self.in_flight_text(ctx, reg),
            // Only the dispatch's own unsettled registers (gfx12's system
            // SGPRs, gfx9's and gfx10's scratch setup) are unsettled with no
            // origin of their own; the launch setup says why, per target.
            UNINIT if reg < 128 && self.shadow.s_unset >> reg & 1 != 0 && self.shadow.s_undef >> reg & 1 == 0 => format!(
                "{name} read: {}",
                ctx.mem.taint.sgpr_reason(reg).unwrap_or_else(|| "an SGPR the dispatch writes with a value the emulator does not know".into())
            ),
            _ if W == 32 && (reg == u16::from(EXEC_HI) || reg == u16::from(VCC_HI)) => {
                format!("{name} read as data in wave32 (not initialised, and the RDNA3 ISA guide does not say what it reads)")
            }
            _ => format!("{name} read before any write (the dispatch does not initialise it)"),
        };
        let reason = (u32::MAX - placeholder) as u8;
        ctx.mem.taint.origin((reason, reg, inst.offset), || Origin {
            what,
            offset: inst.offset,
            instruction: inst.to_string(),
        })
    }

    /// The taint of SGPR code `r` (SCC at [`SCC_BIT`]), placeholders resolved.
    fn s_reg(&mut self, r: u8, inst: &Inst, ctx: &Ctx<'_>) -> S {
        if r >= 128 {
            return S::default();
        }
        let t = &self.shadow;
        let bit = 1u128 << r;
        let origin = if t.s_oset & bit != 0 {
            t.s_origin[r as usize]
        } else {
            UNINIT
        };
        let s = S {
            undef: t.s_undef & bit != 0,
            unset: t.s_unset & bit != 0,
            origin,
        };
        if !s.tainted() || s.origin < IN_FLIGHT {
            return s;
        }
        let name = if r == SCC_BIT {
            "scc".to_string()
        } else {
            reg_name(r)
        };
        let origin = self.origin_of(ctx, s.origin, u16::from(r), &name, inst);
        if s.origin == IN_FLIGHT {
            // Kept: the register is in flight until a wait, each read says so.
            return S { origin, ..s };
        }
        self.shadow.s_origin[r as usize] = origin;
        self.shadow.s_oset |= 1 << r;
        S { origin, ..s }
    }

    /// The taint of a scalar source `n` registers wide.
    pub(super) fn s_src(&mut self, src: Src, n: u8, inst: &Inst, ctx: &Ctx<'_>) -> S {
        match src {
            Src::Sgpr(r) => (0..n).fold(S::default(), |acc, i| {
                acc.or(self.s_reg(r.wrapping_add(i), inst, ctx))
            }),
            Src::Scc => self.s_reg(SCC_BIT, inst, ctx),
            Src::Vccz => {
                let hi = if W == 64 {
                    self.s_reg(VCC_HI, inst, ctx)
                } else {
                    S::default()
                };
                self.s_reg(VCC, inst, ctx).or(hi)
            }
            Src::Vgpr(r) => self.v_reg(r, inst, ctx).lane(0),
            Src::Const(_) | Src::Lit(_) | Src::Null | Src::Execz => S::default(),
        }
    }

    /// The lane taint of VGPR `r`, placeholders resolved.
    fn v_reg(&mut self, r: u16, inst: &Inst, ctx: &Ctx<'_>) -> L {
        let t = &self.shadow;
        let l = L {
            u: t.v_undef[r as usize],
            n: t.v_unset[r as usize],
            origin: t.v_origin[r as usize],
        };
        if (l.u | l.n) == 0 || l.origin < IN_FLIGHT {
            return l;
        }
        let origin = self.origin_of(ctx, l.origin, 256 + r, &format!("v{r}"), inst);
        if l.origin == IN_FLIGHT {
            return L { origin, ..l };
        }
        self.shadow.v_origin[r as usize] = origin;
        L { origin, ..l }
    }

    /// A vector source `n` registers wide: VGPR lanes, or a scalar splat.
    fn v_src(&mut self, src: Src, n: u8, inst: &Inst, ctx: &Ctx<'_>) -> L {
        match src {
            Src::Vgpr(r) => (0..n).fold(L::default(), |acc, i| {
                acc.or(self.v_reg(r + u16::from(i), inst, ctx))
            }),
            other => L::splat::<W>(self.s_src(other, n, inst, ctx)),
        }
    }

    /// Write taint `l` to the `mask` lanes of VGPR `r`.
    fn set_v(&mut self, r: u16, l: L, mask: u64) {
        let t = &mut self.shadow;
        let i = r as usize;
        t.v_undef[i] = (t.v_undef[i] & !mask) | (l.u & mask);
        t.v_unset[i] = (t.v_unset[i] & !mask) | (l.n & mask);
        if (l.u | l.n) & mask != 0 {
            t.v_origin[i] = l.origin;
        }
        let bit = 1u64 << (i % 64);
        if (t.v_undef[i] | t.v_unset[i]) != 0 {
            t.v_any[i / 64] |= bit;
        } else {
            t.v_any[i / 64] &= !bit;
        }
    }

    /// Write taint `s` to SGPR code `r`. Returns false when that would make
    /// EXEC (as used for masking) depend on a tainted value.
    fn set_s(&mut self, r: u8, s: S) -> bool {
        if r >= 128 {
            return true;
        }
        let masking = r == EXEC || (W == 64 && r == EXEC_HI);
        if masking && s.tainted() {
            return false;
        }
        // In wave32 the guide does not say a write to exec_hi/vcc_hi is kept.
        let s = if W == 32 && (r == EXEC_HI || r == VCC_HI) {
            S {
                unset: !s.undef,
                origin: if s.tainted() { s.origin } else { HI_WRITTEN },
                ..s
            }
        } else {
            s
        };
        let t = &mut self.shadow;
        let bit = 1u128 << r;
        t.s_undef = if s.undef {
            t.s_undef | bit
        } else {
            t.s_undef & !bit
        };
        t.s_unset = if s.unset {
            t.s_unset | bit
        } else {
            t.s_unset & !bit
        };
        t.s_origin[r as usize] = s.origin;
        t.s_oset |= bit;
        true
    }

    /// Write `s` to `n` SGPRs from `r` (`null` discards).
    fn set_sn(&mut self, r: u8, n: u8, s: S) -> bool {
        if r == NULL {
            return true;
        }
        (0..n).all(|i| self.set_s(r.wrapping_add(i), s))
    }

    /// Record a stop at `inst`: `thing` depended on taint `s`.
    #[cold]
    pub(super) fn stop(&mut self, inst: &Inst, ctx: &Ctx<'_>, thing: &str, s: S) -> Flow {
        let inner = ctx
            .mem
            .taint
            .origin_text(s.origin)
            .map(|o| o.to_string())
            .unwrap_or_default();
        let kind = if s.undef { "undefined" } else { "unsettled" };
        let what = format!("wave stopped: {thing} depends on an {kind} value ({inner})");
        let key = (200, 0, inst.offset ^ (u64::from(s.origin) << 40));
        let origin = ctx.mem.taint.origin(key, || Origin {
            what,
            offset: inst.offset,
            instruction: inst.to_string(),
        });
        let taint = if s.undef {
            Taint::Undefined
        } else {
            Taint::Unsettled
        };
        self.shadow.stop = Some(WaveStop {
            first_lane: self.global_lane(0),
            lanes: W as u64,
            taint,
            origin,
        });
        Flow::Stop
    }

    /// The taint of register `reg` (SGPR code, or 256 + VGPR number) in
    /// `lanes` (VGPRs; an SGPR's taint is uniform).
    fn reg_taint(&self, reg: u16, lanes: u64) -> L {
        let t = &self.shadow;
        if reg >= 256 {
            let r = usize::from(reg - 256);
            return L {
                u: t.v_undef[r] & lanes,
                n: t.v_unset[r] & lanes,
                origin: t.v_origin[r],
            };
        }
        let bit = 1u128 << reg;
        L {
            u: if t.s_undef & bit != 0 { u64::MAX } else { 0 },
            n: if t.s_unset & bit != 0 { u64::MAX } else { 0 },
            origin: if t.s_oset & bit != 0 {
                t.s_origin[usize::from(reg)]
            } else {
                UNINIT
            },
        }
    }

    /// Make the registers `hazards` name undefined for `inst`'s read, with
    /// an origin naming the rule; returns what to restore afterwards.
    fn mark_hazards(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        hazards: &[super::hazards::Hazard],
    ) -> Vec<(u16, L, u32)> {
        let mut marked = Vec::new();
        for h in hazards {
            let rule = &super::hazards::RULES[h.rule];
            let producer = match ctx.prog.insts.get(h.producer) {
                Some(Ok(p)) => format!("`{p}` at 0x{:x}", p.offset),
                _ => String::from("an earlier instruction"),
            };
            let name = if h.reg == super::hazards::HWREG_VICTIM {
                inst.generation.hwreg_text(inst.imm as u16)
            } else if h.reg >= 256 {
                format!("v{}", h.reg - 256)
            } else {
                reg_name(h.reg as u8)
            };
            let key = (160 + h.rule as u8, h.reg, inst.offset);
            let (when, what) = match (rule.war, h.post) {
                (false, true) => ("after", format!("{name} {}", rule.result_text())),
                (false, false) => ("after", format!("{name} read")),
                (true, false) => ("before", format!("{name} read")),
                (true, true) => ("before", format!("{name} {}", rule.result_text())),
            };
            let origin = ctx.mem.taint.origin(key, || Origin {
                what: format!(
                    "{what} inside a hazard window {when} {producer}: {} (needs {}; {})",
                    rule.name, rule.needs, rule.source
                ),
                offset: inst.offset,
                instruction: inst.to_string(),
            });
            if h.post {
                continue;
            }
            let before = self.reg_taint(h.reg, u64::MAX);
            self.land(h.reg, u64::MAX, L::of_rule(rule, origin));
            marked.push((h.reg, before, origin));
        }
        self.shadow.clean = false;
        marked
    }

    /// The results `hazards` make undefined after `inst` (an SALU that read
    /// EXEC a later v_cmpx may have changed first).
    fn mark_hazard_results(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        hazards: &[super::hazards::Hazard],
    ) {
        for h in hazards.iter().filter(|h| h.post) {
            let key = (160 + h.rule as u8, h.reg, inst.offset);
            if let Some(origin) = ctx.mem.taint.origin_id(key) {
                if h.reg == super::hazards::HWREG_VICTIM {
                    self.mode_undefined = Some(origin);
                    continue;
                }
                let rule = &super::hazards::RULES[h.rule];
                self.land(h.reg, u64::MAX, L::of_rule(rule, origin));
            }
        }
    }

    /// Set register `reg`'s taint in `lanes` (VGPRs) to `l`.
    pub(super) fn land(&mut self, reg: u16, lanes: u64, l: L) {
        if reg >= 256 {
            self.set_v(reg - 256, l, lanes & Self::FULL);
        } else {
            // An SMEM load into EXEC stays as it is (set_s keeps EXEC clean).
            self.set_s(reg as u8, l.reduce(u64::MAX));
        }
    }

    /// Put `reg` in flight (undefined until a wait) in `lanes`; returns the
    /// taint it had (the loaded value's, to land later).
    pub(super) fn take_in_flight(&mut self, reg: u16, lanes: u64) -> L {
        let old = self.reg_taint(reg, lanes);
        self.land(reg, lanes, L::undefined(IN_FLIGHT));
        self.shadow.clean = false;
        old
    }

    /// Whether `reg` is still marked in flight in all of `lanes` (nothing wrote it since).
    pub(super) fn still_in_flight(&self, reg: u16, lanes: u64) -> bool {
        let lanes = if reg >= 256 { lanes & Self::FULL } else { 1 };
        let l = self.reg_taint(reg, lanes);
        lanes == 0 || (l.origin == IN_FLIGHT && l.u & lanes == lanes)
    }

    fn taint_salu(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Flow {
        use Op::*;
        use Shape::*;
        let shape = inst.shape();
        let wide0 = if matches!(shape, S1w | S2w | S2sh | Scw) {
            2
        } else {
            1
        };
        let wide1 = if matches!(shape, S2w | Scw) { 2 } else { 1 };
        let dst_n = if matches!(shape, S1w | S2w | S2sh) {
            2
        } else {
            1
        };
        let scc = if reads_scc(inst.op) {
            self.s_reg(SCC_BIT, inst, ctx)
        } else {
            S::default()
        };
        let s0 = if shape == K {
            self.s_reg(inst.sgpr_dst(), inst, ctx)
        } else {
            self.s_src(inst.src[0], wide0, inst, ctx)
        };
        let s1 = if matches!(shape, S2 | S2w | S2sh | Sc | Scw) {
            self.s_src(inst.src[1], wide1, inst, ctx)
        } else {
            S::default()
        };
        if is_saveexec(inst.op) {
            return self.taint_saveexec(inst, ctx, s0, dst_n);
        }
        let result = match inst.op {
            // A MODE field written from an undefined or unsettled value: the
            // register then holds it for good, so the wave stops here.
            SSetregB32 | SSetregImm32B32 if s0.tainted() => {
                return self.stop(inst, ctx, "the MODE write", s0)
            }
            SSetregB32 | SSetregImm32B32 => None,
            SGetregB32 => Some(self.getreg_taint(inst, ctx)),
            SMovkI32 => Some(S::default()),
            SCmovkI32 | SCmovB32 | SCmovB64 => {
                let src = if inst.op == SCmovkI32 {
                    S::default()
                } else {
                    s0
                };
                match (scc.tainted(), self.scc) {
                    (true, _) => Some(scc.or(src).or(self.s_reg(inst.sgpr_dst(), inst, ctx))),
                    (false, true) => Some(src),
                    (false, false) => None,
                }
            }
            SCselectB32 | SCselectB64 if scc.tainted() => Some(scc.or(s0).or(s1)),
            SCselectB32 | SCselectB64 => Some(if self.scc { s0 } else { s1 }),
            _ if matches!(shape, Sc | Scw)
                || (shape == K && inst.op != SAddkI32 && inst.op != SMulkI32) =>
            {
                None
            }
            _ => Some(s0.or(s1).or(scc)),
        };
        if let Some(r) = result {
            if !self.set_sn(inst.sgpr_dst(), dst_n, r) {
                return self.stop(inst, ctx, "the EXEC write", r);
            }
        }
        if writes_scc(inst.op) {
            self.set_s(SCC_BIT, s0.or(s1).or(scc));
        }
        Flow::Run
    }

    /// `s_*_saveexec`: an EXEC written from a tainted source stops the wave;
    /// otherwise the saved EXEC (and, in wave32, exec_hi with it) is as clean
    /// as EXEC, which is always clean.
    fn taint_saveexec(&mut self, inst: &Inst, ctx: &Ctx<'_>, s0: S, dst_n: u8) -> Flow {
        if s0.tainted() {
            return self.stop(inst, ctx, "the EXEC write", s0);
        }
        let hi = if dst_n == 2 && W == 32 {
            self.s_reg(EXEC_HI, inst, ctx)
        } else {
            S::default()
        };
        self.set_s(inst.sgpr_dst(), S::default());
        if dst_n == 2 {
            self.set_s(inst.sgpr_dst().wrapping_add(1), hi);
        }
        self.set_s(SCC_BIT, S::default());
        Flow::Run
    }

    /// What `s_getreg_b32` reads: the emulated hardware id, or MODE bits
    /// `s_setreg` wrote, are settled; MODE bits it did not write hold the
    /// descriptor's float modes and what the runtime set, which the emulator
    /// does not reproduce: unsettled.
    fn getreg_taint(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> S {
        let hwreg = crate::isa::Hwreg::of(inst.imm as u32);
        let mode = inst.generation.mode_register();
        let field = hwreg.bits();
        if hwreg.id != mode.register {
            return S::default();
        }
        if let Some(origin) = self.mode_undefined {
            return S {
                undef: true,
                unset: false,
                origin,
            };
        }
        if field & !self.mode_written == 0 {
            return S::default();
        }
        let key = (199, 0, inst.offset);
        let origin = ctx.mem.taint.origin(key, || Origin {
            what: format!(
                "{} bits 0x{:08x} read before s_setreg wrote them: their initial value comes from \
                 the kernel descriptor's float modes and the runtime, which the emulator does not \
                 reproduce",
                mode.register_name,
                field & !self.mode_written
            ),
            offset: inst.offset,
            instruction: inst.to_string(),
        });
        S {
            undef: false,
            unset: true,
            origin,
        }
    }

    fn taint_branch(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Flow {
        let cond = match inst.op {
            Op::SCbranchScc0 | Op::SCbranchScc1 => self.s_reg(SCC_BIT, inst, ctx),
            Op::SCbranchVccz | Op::SCbranchVccnz => self.s_src(Src::Vccz, 1, inst, ctx),
            _ => S::default(),
        };
        if cond.tainted() {
            self.stop(inst, ctx, "the branch condition", cond)
        } else {
            Flow::Run
        }
    }

    fn taint_sload(&mut self, inst: &Inst, ctx: &Ctx<'_>, n: u8) -> Flow {
        let mut addr = self.s_src(Src::Sgpr(inst.sgpr_addr()), 2, inst, ctx);
        if let Some(r) = inst.saddr {
            addr = addr.or(self.s_src(Src::Sgpr(r), 1, inst, ctx));
        }
        if addr.tainted() {
            return self.stop(inst, ctx, "the scalar load address", addr);
        }
        let base = self.smem_addr(inst);
        let marks = if ctx.mem.taint.is_active() {
            ctx.mem
                .taint
                .get((0..u64::from(n)).map(|k| (base / 4).wrapping_add(k)))
        } else {
            vec![Mark::default(); n as usize]
        };
        for (k, m) in marks.iter().enumerate() {
            let s = S {
                undef: m.undefined,
                unset: m.unsettled,
                origin: m.origin,
            };
            if !self.set_s(inst.sgpr_dst().wrapping_add(k as u8), s) {
                return self.stop(inst, ctx, "the EXEC write", s);
            }
        }
        Flow::Run
    }

    fn taint_vmem(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Flow {
        let exec = self.exec();
        let mut addr = self.v_src(
            Src::Vgpr(inst.addr),
            if inst.saddr.is_some() { 1 } else { 2 },
            inst,
            ctx,
        );
        if let Some(r) = inst.saddr {
            addr = addr.or(L::splat::<W>(self.s_src(Src::Sgpr(r), 2, inst, ctx)));
        }
        if (addr.u | addr.n) & exec != 0 {
            return self.stop(inst, ctx, "the memory address", addr.reduce(exec));
        }
        let (size, load) = match inst.shape() {
            Shape::MemLoad(n) => (u64::from(n), true),
            Shape::MemStore(n) => (u64::from(n), false),
            _ => return Flow::Run,
        };
        let lanes: Vec<(usize, u64)> = (0..W)
            .filter(|i| exec >> i & 1 == 1)
            .map(|i| (i, self.lane_addr(inst, i)))
            .collect();
        if load {
            self.taint_vmem_load(inst, ctx, &lanes, size, exec);
        } else {
            self.taint_vmem_store(inst, ctx, &lanes, size);
        }
        Flow::Run
    }

    /// A load of `size` bytes by each of `lanes` (active lane, address):
    /// each destination dword takes the marks of the words it reads.
    #[inline]
    fn taint_vmem_load(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        lanes: &[(usize, u64)],
        size: u64,
        exec: u64,
    ) {
        let active = ctx.mem.taint.is_active();
        for k in 0..size.div_ceil(4) as u8 {
            let mut l = L::default();
            if active {
                let words = lanes.iter().flat_map(|&(_, a)| {
                    let (w0, w1) = word_span(a, k, size);
                    [w0, w1]
                });
                let marks = ctx.mem.taint.get(words);
                for (j, &(i, _)) in lanes.iter().enumerate() {
                    for m in &marks[2 * j..2 * j + 2] {
                        l = l.or(L {
                            u: u64::from(m.undefined) << i,
                            n: u64::from(m.unsettled) << i,
                            origin: m.origin,
                        });
                    }
                }
            }
            self.set_v(inst.dst + u16::from(k), l, exec);
        }
    }

    /// A store of `size` bytes by each of `lanes` (active lane, address):
    /// the words it writes take the marks of the data stored.
    #[inline]
    fn taint_vmem_store(&mut self, inst: &Inst, ctx: &Ctx<'_>, lanes: &[(usize, u64)], size: u64) {
        let dwords = size.div_ceil(4) as u8;
        let mut marks = Vec::with_capacity(lanes.len() * dwords as usize);
        for k in 0..dwords {
            let data = self.v_reg(inst.data + u16::from(k), inst, ctx);
            for &(i, a) in lanes {
                if ctx
                    .mem
                    .resolve(a.wrapping_add(4 * u64::from(k)), size.min(4))
                    .is_none()
                {
                    continue; // the store faults; nothing to mark
                }
                let s = data.lane(i);
                let mark = Mark {
                    undefined: s.undef,
                    unsettled: s.unset,
                    origin: s.origin,
                };
                let (w0, w1) = word_span(a, k, size);
                // A partial-word store of clean data leaves the word's other bytes as they were.
                if mark.is_tainted() || size >= 4 {
                    marks.push((w0, mark));
                    if w1 != w0 {
                        marks.push((w1, mark));
                    }
                }
            }
        }
        if ctx.mem.taint.is_active() || marks.iter().any(|(_, m)| m.is_tainted()) {
            ctx.mem.taint.set(marks.into_iter());
        }
    }

    /// src0's lane taint, permuted by DPP, and the lanes the op may write.
    fn src0_taint(&mut self, inst: &Inst, ctx: &Ctx<'_>, exec: u64) -> (L, u64) {
        let shape = inst.shape();
        let Some(dpp) = inst.dpp else {
            let mask = if W == 64 { 2 } else { 1 };
            return (
                self.v_src(inst.src[0], vsrc_width(shape, 0, mask), inst, ctx),
                exec,
            );
        };
        let Src::Vgpr(r) = inst.src[0] else {
            return (L::default(), exec);
        };
        let src = self.v_reg(r, inst, ctx);
        let old = self.v_reg(inst.dst, inst, ctx);
        let mut out = L {
            origin: src.origin,
            ..L::default()
        };
        let mut writable = 0u64;
        let mut unsettled = None;
        for n in 0..W {
            let bit = 1u64 << n;
            match super::dpp::dpp_read(&dpp, exec, n) {
                super::dpp::DppRead::Lane(s) => {
                    out.u |= (src.u >> s & 1) << n;
                    out.n |= (src.n >> s & 1) << n;
                    writable |= bit;
                }
                super::dpp::DppRead::Zero => writable |= bit,
                super::dpp::DppRead::Keep => {}
                super::dpp::DppRead::Unsettled(s) => {
                    // Either the source lane's value (fi-like) or the old
                    // destination (not written): unsettled, and undefined if
                    // either of those is.
                    out.u |= ((src.u >> s & 1) | (old.u >> n & 1)) << n;
                    out.n |= bit;
                    writable |= bit;
                    unsettled.get_or_insert((s, n));
                }
            }
        }
        if let Some((s, n)) = unsettled {
            let gfx9 = match dpp {
                Dpp::Dpp16 { ctrl, .. } => super::dpp::unsettled_origin(ctrl, s, n),
                Dpp::Dpp8 { .. } => None,
            };
            let what = gfx9.unwrap_or_else(|| format!("DPP16 read of inactive lane {s} (by lane {n}, and maybe others) with bound_ctrl=0 fi=0: RDNA3 ISA 7.7.1 vs table 93"));
            let id = ctx.mem.taint.origin((100, 0, inst.offset), || Origin {
                what,
                offset: inst.offset,
                instruction: inst.to_string(),
            });
            if out.u == 0 {
                out.origin = id;
            }
        }
        (out, writable)
    }

    /// `acc` with the lanes a modified `v_xad_u32` leaves unsettled on this
    /// target ([`super::modifiers`]): every lane it writes, or (CLAMP where
    /// only a sum that fits is documented) the lanes whose sum overflows.
    /// Their origin names the fields and the candidate readings; an
    /// undefined source still wins.
    #[cold]
    fn modifier_taint(&mut self, inst: &Inst, ctx: &Ctx<'_>, acc: L, writable: u64) -> L {
        // `pc` already points past `inst` (as in `taint_step`).
        let Some(rule) = ctx.prog.unsettled_modifiers_at(self.pc.wrapping_sub(1)) else {
            return acc;
        };
        let (lanes, what, reason) = match (&rule.all, &rule.overflow) {
            (Some(text), _) => (writable, text, 220),
            (None, Some(text)) => (self.xad_overflow_lanes(inst) & writable, text, 221),
            (None, None) => return acc,
        };
        if lanes == 0 {
            return acc;
        }
        let origin = ctx.mem.taint.origin((reason, 0, inst.offset), || Origin {
            what: what.clone(),
            offset: inst.offset,
            instruction: inst.to_string(),
        });
        L {
            u: 0,
            n: lanes,
            origin,
        }
        .or(acc)
    }

    /// `acc` (src0's taint) joined with the other sources' over `seen`
    /// lanes, and the taint of a 64-bit result's low dword. The low dword
    /// of v_mad_{u64_u32,i64_i32}'s 64-bit sum depends on S0, S1 and the
    /// addend's low dword alone: carries run upward, so whatever its high
    /// dword holds (LLVM adds a workitem id as v[0:1] with v1 never written,
    /// then overwrites the result's high dword; silicon's low dword is
    /// defined there). For every other shape the two are the same.
    fn vsrc_taint(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        mut acc: L,
        seen: u64,
        mask: u8,
    ) -> (L, L) {
        let shape = inst.shape();
        let mut low = acc;
        for i in 1..vsrc_count(shape) {
            let t = self
                .v_src(inst.src[i], vsrc_width(shape, i, mask), inst, ctx)
                .masked(seen);
            acc = acc.or(t);
            low = low.or(if shape == Shape::Mad64 && i == 2 {
                self.v_src(inst.src[i], 1, inst, ctx).masked(seen)
            } else {
                t
            });
        }
        (acc, low)
    }

    fn taint_valu(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Flow {
        use Shape::*;
        let shape = inst.shape();
        let exec = self.exec();
        let mask = if W == 64 { 2 } else { 1 };
        // Lane-wise ops only see their active lanes; the lane moves may read any.
        let seen = if matches!(shape, ToScalar1 | ToScalar2 | WriteLane) {
            Self::FULL
        } else {
            exec
        };
        if matches!(shape, PkMov | Mov64) {
            // Each destination dword takes only its source dword (v_pk_mov_b32:
            // the half OPSEL picks; v_mov_b64: the same half of S0).
            let sel = if shape == PkMov { inst.mods.op_sel } else { 0b10 };
            let srcs = if shape == PkMov { [inst.src[0], inst.src[1]] } else { [inst.src[0]; 2] };
            for (k, src) in srcs.iter().enumerate() {
                let half = half_of(*src, sel >> k & 1);
                let t = self.v_src(half, 1, inst, ctx).masked(exec);
                self.set_v(inst.dst + k as u16, t, exec);
            }
            return Flow::Run;
        }
        let (acc, writable) = self.src0_taint(inst, ctx, exec);
        let (mut acc, low) = self.vsrc_taint(inst, ctx, acc.masked(seen), seen, mask);
        if inst.mods.any() {
            acc = self.modifier_taint(inst, ctx, acc, writable);
        }
        match shape {
            V1 | V2 | V3 | Cnd => self.set_v(inst.dst, acc, writable),
            Co | Ci | Mad64 | Sh64 | LshlAdd64 => {
                self.set_v(inst.dst, if shape == Mad64 { low } else { acc }, exec);
                if matches!(shape, Mad64 | Sh64 | LshlAdd64) {
                    self.set_v(inst.dst + 1, acc, exec);
                }
                // Only the carry ops write a lane mask.
                if matches!(shape, Co | Ci | Mad64)
                    && !self.set_sn(inst.sdst, mask, acc.reduce(exec))
                {
                    return self.stop(inst, ctx, "the EXEC write", acc.reduce(exec));
                }
            }
            Cmp | Cmpw | Cmpx | Cmpxw if !self.set_sn(inst.sdst, mask, acc.reduce(exec)) => {
                return self.stop(inst, ctx, "the EXEC write (v_cmpx)", acc.reduce(exec));
            }
            // gfx9's v_cmpx writes its SGPR pair too (its EXEC write passed above).
            Cmpx | Cmpxw => {
                if let Some(pair) = inst.cmpx_sgpr_dst() {
                    self.set_sn(pair, mask, acc.reduce(exec));
                }
            }
            ToScalar1 | ToScalar2 => {
                let lane = if shape == ToScalar2 {
                    self.s32(inst.src[1]) as usize % W
                } else if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                if !self.set_s(inst.sgpr_dst(), acc.lane(lane)) {
                    return self.stop(inst, ctx, "the EXEC write", acc.lane(lane));
                }
            }
            WriteLane => {
                let sel = self.s_src(inst.src[1], 1, inst, ctx);
                let lanes = if sel.tainted() {
                    Self::FULL
                } else {
                    1u64 << (self.s32(inst.src[1]) as usize % W)
                };
                self.set_v(inst.dst, acc, lanes);
            }
            _ => {}
        }
        Flow::Run
    }
}

/// The words dword `k` of an access of `size` bytes at `a` touches: its
/// first and last byte's.
#[inline]
fn word_span(a: u64, k: u8, size: u64) -> (u64, u64) {
    let start = a.wrapping_add(4 * u64::from(k));
    (start / 4, start.wrapping_add(size.min(4) - 1) / 4)
}
