//! Manually inserted wait states ("hazards"): pairs of instructions the
//! hardware does not interlock, so a kernel must separate them by enough
//! instructions (`s_nop N` counts N + 1) or by a dependency-counter wait
//! (`s_waitcnt_depctr`, spelled `s_wait_alu` on gfx12). Inside the window
//! the consumer may read a stale or half-written value: the emulator, which
//! would otherwise read the new one, makes that read **undefined** and names
//! the rule.
//!
//! The rules are one table ([`RULES`]), each row with its generations, the
//! producer and consumer, the window or the wait that resolves it, and where
//! it is written. Sources: LLVM `GCNHazardRecognizer.cpp` (the `check*`
//! wait-state rules of gfx6-9 and the `fix*` rules of gfx10+) and
//! `AMDGPUWaitSGPRHazards.cpp` (gfx12's `s_wait_alu` rules); AMD's ISA
//! guides' "Manually Inserted Wait States" tables hold the same gfx9 numbers.
//!
//! The analysis runs once per kernel at load, over every path into each
//! instruction, as LLVM's hazard recognizer does (a window is measured along
//! the shortest path; a pending `s_wait_alu` hazard survives a merge if it
//! is pending on any incoming path). So a verdict here agrees with what LLVM
//! would insert; a hazard only on a path a wave did not take is still
//! reported when the consumer runs (stricter than the one execution).
//! The runtime cost is nil for a kernel without hazards: only instructions
//! the analysis flags take the taint step ([`super::deps::F_HAZ`]).
//!
//! Not modelled (the emulator does not execute the instructions involved,
//! so no kernel it runs can contain them): M0 before `s_movrel`/LDS/
//! GDS, transcendental results (gfx11 `fixVALUTransUseHazard`), permlane,
//! LDS direct, MFMA/DOT. gfx1010's write-after-read hazards (VMEM or SMEM
//! reading a register a later SALU/VALU writes, before the clearing
//! instruction) are attached to the earlier reader, whose read then is the
//! undefined one.
//!
//! The files, in reading order: `rules` (the table, and what a found hazard
//! is), `regs` (what an instruction reads and writes as the rules see it),
//! then one file per family of rules: `wait_states` (gfx9's windows and
//! `s_setreg`), `clauses` (XNACK's soft clauses), `war` (gfx1010's
//! write-after-read), `xcnt` (gfx1250's XCNT), `pending` (gfx11's mask
//! writes and gfx12's `s_wait_alu`); this file chooses by the ISA's family.

mod clauses;
mod pending;
mod regs;
mod rules;
mod wait_states;
mod war;
mod xcnt;

pub use rules::{Hazard, Rule, HWREG_VICTIM, RULES};

use crate::isa::{HazardRules, Inst, Isa};
use crate::platform::emu::deps::Deps;
use rules::{SOFT_CLAUSE_10, SOFT_CLAUSE_9};
use std::collections::HashMap;

/// The hazards of a kernel's instructions in a wave of 32 or 64 lanes:
/// per instruction index, those it is the consumer of (most have none).
pub fn analyse(
    isa: Isa,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: impl Fn(usize) -> [Option<usize>; 2],
    wave64: bool,
    xnack: bool,
) -> HashMap<usize, Vec<Hazard>> {
    let n = insts.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for s in successors(i).into_iter().flatten() {
            preds[s].push(i);
        }
    }
    let mut found: HashMap<usize, Vec<Hazard>> = HashMap::new();
    match isa.hazards {
        HazardRules::WaitStates => {
            wait_states::window_hazards(isa, insts, deps, &preds, &mut found);
            wait_states::setreg_hazards(insts, &preds, &mut found);
            if xnack {
                clauses::soft_clauses(insts, deps, SOFT_CLAUSE_9, true, &mut found);
            }
        }
        HazardRules::WriteAfterRead if xnack => {
            war::rdna1_war(insts, deps, &successors, &mut found);
            clauses::soft_clauses(insts, deps, SOFT_CLAUSE_10, false, &mut found);
        }
        HazardRules::Wave64MaskWrite if wave64 => {
            pending::forward(insts, deps, &successors, pending::Gfx11Mask, &mut found)
        }
        HazardRules::WaitAlu => {
            pending::forward(insts, deps, &successors, pending::Gfx12Alu, &mut found)
        }
        HazardRules::WriteAfterRead => war::rdna1_war(insts, deps, &successors, &mut found),
        HazardRules::Xcnt => xcnt::xcnt_war(insts, deps, &successors, &mut found),
        HazardRules::Wave64MaskWrite | HazardRules::Interlocked => {}
    }
    found
}

#[cfg(test)]
mod tests;
