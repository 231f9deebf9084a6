//! The forward "pending hazard" rules of gfx11 (wave64 mask writes) and
//! gfx12 (`s_wait_alu`): a state per instruction, merged over incoming paths,
//! iterated to a fixpoint.

use std::collections::HashMap;

use super::regs::*;
use super::rules::*;
use crate::isa::{Format, Inst, Shape, Src, EXEC, M0, VCC};
use crate::platform::emu::deps::{Deps, SCC_BIT};

/// A forward "pending hazard" analysis: a state per instruction, merged by
/// union over incoming paths, iterated to a fixpoint.
pub(super) trait Pending: Copy {
    type State: Clone + PartialEq + Default;
    /// The hazards `inst` consumes in `state` (rule, producer, register).
    fn consume(self, inst: &Inst, d: &Deps, state: &Self::State, out: &mut Vec<Hazard>);
    /// The state after `inst` (instruction index `i`).
    fn step(self, inst: &Inst, d: &Deps, i: usize, state: &mut Self::State);
    fn merge(self, into: &mut Self::State, from: &Self::State);
}
pub(super) fn forward<P: Pending>(
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: &impl Fn(usize) -> [Option<usize>; 2],
    p: P,
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    let n = insts.len();
    if n == 0 {
        return;
    }
    let mut states: Vec<Option<P::State>> = vec![None; n];
    states[0] = Some(P::State::default());
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let (Some(inst), Some(mut st)) = (insts[i], states[i].clone()) else {
            continue;
        };
        p.step(inst, &deps[i], i, &mut st);
        for s in successors(i).into_iter().flatten() {
            let merged = match &states[s] {
                None => st.clone(),
                Some(old) => {
                    let mut m = old.clone();
                    p.merge(&mut m, &st);
                    m
                }
            };
            if states[s].as_ref() != Some(&merged) {
                states[s] = Some(merged);
                work.push(s);
            }
        }
    }
    for (i, inst) in insts.iter().enumerate() {
        if let (Some(inst), Some(st)) = (inst, &states[i]) {
            let mut out = Vec::new();
            p.consume(inst, &deps[i], st, &mut out);
            if !out.is_empty() {
                found.entry(i).or_default().extend(out);
            }
        }
    }
}
/// SGPRs with a pending hazard, and the instruction that produced each.
#[derive(Clone, PartialEq, Default)]
struct Sgprs {
    pending: u128,
    producer: Vec<(u8, usize)>,
}
impl Sgprs {
    fn set(&mut self, regs: u128, i: usize) {
        self.pending |= regs;
        self.producer.retain(|&(r, _)| regs >> r & 1 == 0);
        let mut bits = regs;
        while bits != 0 {
            let r = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            self.producer.push((r, i));
        }
        self.producer.sort_unstable();
    }
    fn clear(&mut self) {
        self.pending = 0;
        self.producer.clear();
    }
    fn clear_regs(&mut self, regs: u128) {
        self.pending &= !regs;
        self.producer.retain(|&(r, _)| regs >> r & 1 == 0);
    }
    fn hit(&self, rule: usize, reads: u128, out: &mut Vec<Hazard>) {
        let hit = self.pending & reads;
        if hit == 0 {
            return;
        }
        let reg = hit.trailing_zeros() as u8;
        let producer = self
            .producer
            .iter()
            .find(|&&(r, _)| r == reg)
            .map_or(0, |&(_, i)| i);
        out.push(Hazard {
            rule,
            producer,
            reg: u16::from(reg),
            post: false,
        });
    }
    fn merge(&mut self, o: &Sgprs) {
        self.pending |= o.pending;
        for &p in &o.producer {
            if !self.producer.iter().any(|&(r, _)| r == p.0) {
                self.producer.push(p);
            }
        }
        self.producer.sort_unstable();
    }
}
/// SGPRs the hazard rules ignore: EXEC, M0, null, SCC.
fn untracked() -> u128 {
    sgpr(EXEC) | sgpr(EXEC + 1) | sgpr(M0) | (1u128 << SCC_BIT)
}
/// Both SGPRs of every pair one of `regs` is in.
pub(super) fn pairs(regs: u128) -> u128 {
    let even = regs & 0x5555_5555_5555_5555_5555_5555_5555_5555;
    let odd = regs & !0x5555_5555_5555_5555_5555_5555_5555_5555u128;
    even | even << 1 | odd | odd >> 1
}
/// gfx12 `s_wait_alu` rules (AMDGPUWaitSGPRHazards.cpp): SGPR pairs a VALU
/// has read are tracked; an SALU write to a tracked SGPR is pending until
/// `depctr_sa_sdst(0)`, a VALU write until `depctr_va_sdst(0)` (VCC:
/// `depctr_va_vcc(0)`); SMEM and non-FLAT vector memory clear everything, an
/// SALU read of an SGPR clears the pending VALU writes (of VCC: VCC's).
#[derive(Clone, Copy)]
pub(super) struct Gfx12Alu;

#[derive(Clone, PartialEq, Default)]
pub(super) struct Alu12 {
    tracked: u128,
    salu: Sgprs,
    valu: Sgprs,
    vcc: Sgprs,
}
impl Pending for Gfx12Alu {
    type State = Alu12;
    fn consume(self, inst: &Inst, d: &Deps, st: &Alu12, out: &mut Vec<Hazard>) {
        let reads = sgpr_reads(d) & !untracked();
        if is_valu(inst) || is_salu(inst) {
            st.salu.hit(SALU_SGPR_12, reads, out);
        }
        if is_valu(inst) {
            st.valu.hit(VALU_SGPR_12, reads, out);
            st.vcc.hit(VALU_VCC_12, reads, out);
        }
    }
    fn step(self, inst: &Inst, d: &Deps, i: usize, st: &mut Alu12) {
        let vcc = sgpr(VCC) | sgpr(VCC + 1);
        let reads = sgpr_reads(d) & !untracked();
        if let Some((sa, va_vcc, va)) = depctr(inst) {
            if sa {
                st.salu.clear();
            }
            if va_vcc {
                st.vcc.clear();
            }
            if va {
                st.valu.clear();
            }
            return;
        }
        let memory = matches!(inst.shape(), Shape::Load(_))
            || (is_vmem(inst) && crate::isa::table::info(inst.op).format != Format::Flat);
        if memory {
            st.salu.clear();
            st.valu.clear();
            st.vcc.clear();
        }
        if is_salu(inst) {
            if reads & !vcc != 0 {
                st.valu.clear();
            }
            if reads & vcc != 0 {
                st.vcc.clear();
            }
            let w = sgpr_writes(inst, d) & !untracked() & st.tracked;
            st.salu.set(w, i);
        }
        if is_valu(inst) {
            st.tracked |= pairs(reads);
            let w = sgpr_writes(inst, d) & !untracked() & st.tracked;
            st.valu.set(w & !vcc, i);
            st.vcc.set(w & vcc, i);
            // A VALU write supersedes a pending SALU write of the same SGPR.
            st.salu.clear_regs(w);
        }
    }
    fn merge(self, into: &mut Alu12, from: &Alu12) {
        into.tracked |= from.tracked;
        into.salu.merge(&from.salu);
        into.valu.merge(&from.valu);
        into.vcc.merge(&from.vcc);
    }
}
/// gfx11 wave64 mask-write rule (fixVALUMaskWriteHazard): an SGPR a VALU
/// read as a lane mask or carry-in (v_cndmask, v_add_co_ci and friends),
/// then written by an SALU, is not to be read until `depctr_sa_sdst(0)`.
#[derive(Clone, Copy)]
pub(super) struct Gfx11Mask;

#[derive(Clone, PartialEq, Default)]
pub(super) struct Mask11 {
    mask_read: u128,
    salu: Sgprs,
}
fn mask_operand(inst: &Inst, wave64: bool) -> u128 {
    match (inst.shape(), inst.src[2]) {
        (Shape::Cnd | Shape::Ci, Src::Sgpr(r)) => {
            sgpr(r) | if wave64 { sgpr(r.wrapping_add(1)) } else { 0 }
        }
        _ => 0,
    }
}
impl Pending for Gfx11Mask {
    type State = Mask11;
    fn consume(self, _: &Inst, d: &Deps, st: &Mask11, out: &mut Vec<Hazard>) {
        st.salu
            .hit(MASK_WRITE_11, sgpr_reads(d) & !untracked(), out);
    }
    fn step(self, inst: &Inst, d: &Deps, i: usize, st: &mut Mask11) {
        if let Some((sa, _, _)) = depctr(inst) {
            if sa {
                st.salu.clear();
            }
            return;
        }
        if is_valu(inst) {
            st.mask_read |= mask_operand(inst, true);
        }
        if is_salu(inst) {
            let w = sgpr_writes(inst, d) & st.mask_read & !untracked();
            st.salu.set(w, i);
        }
    }
    fn merge(self, into: &mut Mask11, from: &Mask11) {
        into.mask_read |= from.mask_read;
        into.salu.merge(&from.salu);
    }
}
