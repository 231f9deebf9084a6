//! XNACK's soft clauses (gfx9, gfx1010): back-to-back memory instructions
//! the hardware may replay, so a register one of them writes that one reads
//! is read undefined.

use std::collections::HashMap;

use super::regs::*;
use super::rules::*;
use crate::isa::{Inst, Shape, EXEC, M0};
use crate::platform::emu::deps::Deps;

/// XNACK's soft clauses: with XNACK on, the hardware may replay a run of
/// back-to-back scalar memory instructions (and on gfx9 vector memory ones)
/// after some of them returned, and a replayed instruction reads its
/// registers again. So in a run of two or more, a register one writes that
/// one reads (itself included) makes that reader's access undefined: the
/// read register is marked for it, as it may hold the new value. A run ends
/// at any other instruction, as LLVM's clause does (a clause that mixes
/// loads and stores to one address is not modelled: LLVM breaks every such
/// clause at the store without knowing whether the addresses meet).
pub(super) fn soft_clauses(
    insts: &[Option<&Inst>],
    deps: &[Deps],
    rule: usize,
    vector_too: bool,
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    let kind = |inst: &Inst| match inst.shape() {
        Shape::Load(_) => Some(false),
        Shape::MemLoad(_) | Shape::MemStore(_) if vector_too => Some(true),
        _ => None,
    };
    let mut i = 0;
    while i < insts.len() {
        let Some(k) = insts[i].and_then(kind) else {
            i += 1;
            continue;
        };
        let end = (i..insts.len())
            .find(|&j| insts[j].and_then(kind) != Some(k))
            .unwrap_or(insts.len());
        if end - i >= 2 {
            clause_hazards(i..end, insts, deps, rule, found);
        }
        i = end;
    }
}
/// The hazards of one soft clause `run` (two or more instructions).
fn clause_hazards(
    run: std::ops::Range<usize>,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    rule: usize,
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    let written = |j: usize| Regs {
        s: sgpr_writes(insts[j].expect("in the run"), &deps[j]),
        v: deps[j].wv,
    };
    for r in run.clone() {
        let read = Regs {
            s: sgpr_reads(&deps[r]) & !(sgpr(EXEC) | sgpr(EXEC + 1) | sgpr(M0)),
            v: deps[r].rv,
        };
        let hit = run
            .clone()
            .find_map(|w| written(w).overlap(&read).map(|reg| (w, reg)));
        if let Some((writer, reg)) = hit {
            found.entry(r).or_default().push(Hazard {
                rule,
                producer: writer,
                reg,
                post: false,
            });
        }
    }
}
