//! A kernel's code, decoded once at load: the instructions from the entry to
//! the section end, each branch's target index, and the faults that bytes
//! which do not decode (or use VGPRs the kernel did not allocate) raise if,
//! and only if, they are executed.

use super::fault::{Fault, FaultKind};
use super::counters;
use super::hazards::{self, Hazard};
use super::taint::{self, Deps};
use std::collections::HashMap;
use crate::isa::{Inst, Isa, Op, Shape};

/// A kernel's code, decoded once. Slot `i` is the `i`-th instruction from the
/// entry; bytes that do not decode become a fault that fires only if executed.
#[derive(Debug, Clone)]
pub struct Program {
    pub insts: Vec<Result<Inst, Fault>>,
    /// Index of the taken-branch target for SOPP branches; `None` for other
    /// instructions and when the target is not an instruction boundary of
    /// the decoded code.
    pub targets: Vec<Option<usize>>,
    /// Byte offset just past the decoded code.
    pub end_offset: u64,
    /// Per instruction, the registers it touches ([`Deps`]) in wave32 and
    /// wave64 (lane masks are one or two SGPRs wide).
    pub(crate) deps: [Vec<Deps>; 2],
    /// Per wave size, the registers a path may read before writing them.
    pub(crate) may: [(u128, [u64; 4]); 2],
    /// Per wave size, the hazards each instruction consumes ([`hazards`]):
    /// only instructions listed here carry [`taint::F_HAZ`].
    pub(crate) hazards: [HashMap<usize, Vec<Hazard>>; 2],
    /// Per wave size: no path touches a register a memory access may still
    /// write ([`counters::statically_clean`]), so waves skip the in-flight
    /// bookkeeping.
    pub(crate) counters_clean: [bool; 2],
}

impl Program {
    /// Decode `code` (the section holding the kernel, at virtual address
    /// `base`) from `entry` to the section end as `isa`'s instructions.
    /// Instructions touching VGPRs at or past `vgpr_count` become faults.
    pub fn decode(isa: Isa, code: &[u8], base: u64, entry: u64, vgpr_count: u32) -> Program {
        let mut insts = Vec::new();
        let mut offsets = Vec::new();
        let mut pos = entry.saturating_sub(base) as usize;
        while pos < code.len() {
            offsets.push(base.wrapping_add(pos as u64));
            match crate::isa::decode(isa, code, pos, base) {
                Ok(inst) => {
                    pos += inst.len as usize;
                    insts.push(check_vgprs(inst, vgpr_count));
                }
                Err(e) => {
                    insts.push(Err(Fault::new(FaultKind::Unsupported, e.to_string())
                        .with_inst(e.offset(), e.dwords_hex())));
                    // Resynchronise on the next dword, as a linear-sweep disassembler does.
                    pos += 4;
                }
            }
        }
        let targets: Vec<Option<usize>> = insts
            .iter()
            .map(|i| match i {
                Ok(inst) if inst.shape() == Shape::Branch => {
                    offsets.binary_search(&inst.branch_target()).ok()
                }
                _ => None,
            })
            .collect();
        let deps_for = |wave64: bool| -> Vec<Deps> {
            insts
                .iter()
                .map(|i| {
                    i.as_ref()
                        .map_or(Deps::default(), |inst| taint::deps(inst, wave64))
                })
                .collect()
        };
        let mut deps = [deps_for(false), deps_for(true)];
        let n = insts.len();
        let successors = |i: usize| -> [Option<usize>; 2] {
            let next = (i + 1 < n).then_some(i + 1);
            match &insts[i] {
                Err(_) => [None, None],
                Ok(inst) => match inst.op {
                    Op::SEndpgm | Op::SCodeEnd => [None, None],
                    Op::SBranch => [targets[i], None],
                    _ if inst.shape() == Shape::Branch => [targets[i], next],
                    _ => [next, None],
                },
            }
        };
        let may = [
            taint::may_read_unwritten(&deps[0], successors),
            taint::may_read_unwritten(&deps[1], successors),
        ];
        let decoded: Vec<Option<&Inst>> = insts.iter().map(|i| i.as_ref().ok()).collect();
        let hazards = [false, true].map(|wave64| {
            hazards::analyse(isa, &decoded, &deps[usize::from(wave64)], successors, wave64)
        });
        let counters_clean = [false, true]
            .map(|wave64| counters::statically_clean(&decoded, &deps[usize::from(wave64)], successors));
        for (w, found) in hazards.iter().enumerate() {
            for &i in found.keys() {
                deps[w][i].flags |= taint::F_HAZ;
            }
        }
        Program {
            insts,
            targets,
            end_offset: base + code.len() as u64,
            deps,
            may,
            hazards,
            counters_clean,
        }
    }

    /// [`taint::may_read_unwritten`] for a wave of `W` lanes.
    pub(crate) fn may_read_unwritten<const W: usize>(&self) -> &(u128, [u64; 4]) {
        &self.may[usize::from(W == 64)]
    }

    /// The [`Deps`] of instruction `pc` in a wave of `W` lanes (none past the end).
    #[inline(always)]
    pub(crate) fn deps_at<const W: usize>(&self, pc: usize) -> &Deps {
        static NONE: Deps = Deps {
            s: 0,
            v: [0; 4],
            rs: 0,
            rv: [0; 4],
            ws: 0,
            wv: [0; 4],
            xv: [0; 4],
            flags: 0,
        };
        self.deps[usize::from(W == 64)].get(pc).unwrap_or(&NONE)
    }

    /// Whether waves of `W` lanes skip the in-flight bookkeeping.
    #[inline(always)]
    pub(crate) fn counters_clean<const W: usize>(&self) -> bool {
        self.counters_clean[usize::from(W == 64)]
    }

    /// The hazards instruction `pc` consumes in a wave of `W` lanes.
    pub(crate) fn hazards_at<const W: usize>(&self, pc: usize) -> &[Hazard] {
        self.hazards[usize::from(W == 64)]
            .get(&pc)
            .map_or(&[], |v| v.as_slice())
    }
}

fn check_vgprs(inst: Inst, vgpr_count: u32) -> Result<Inst, Fault> {
    if inst.vgpr_end() <= vgpr_count {
        return Ok(inst);
    }
    let message = format!(
        "instruction at offset 0x{:x} ({inst}) uses VGPRs up to v{} but the kernel descriptor allocates {vgpr_count}",
        inst.offset,
        inst.vgpr_end() - 1
    );
    Err(Fault::new(FaultKind::VgprOutOfRange, message).with_inst(inst.offset, inst.to_string()))
}
