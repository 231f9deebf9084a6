//! CDNA5's XCNT (gfx1250): a memory instruction's register rewritten before
//! its address translation is known done (LLVM 22's `s_wait_xcnt`).

use std::collections::HashMap;

use super::regs::*;
use super::rules::*;
use crate::isa::{Inst, Op, Shape, EXEC, M0, NULL};
use crate::platform::emu::deps::Deps;

/// CDNA5's XCNT (gfx1250): a vector or scalar memory instruction's address
/// translation may be replayed (XNACK) until XCNT says it is done, and a
/// replay reads the instruction's registers again. So from each memory
/// instruction, forward along every path: a write to a register it reads
/// before the translation is known done is a hazard, attached to the memory
/// instruction, whose access then is the undefined one (a load's result, a
/// store's data or address). What is known to complete a translation is what
/// LLVM 22 relies on when it inserts `s_wait_xcnt` for gfx1250 (each case
/// measured with llc-22, see `xcnt_agrees_with_llc_22` below): `s_wait_xcnt N` with
/// at most N younger accesses of the same kind (vector memory in order;
/// scalar memory only at 0), `s_wait_idle`, and a memory instruction of the
/// other kind (LLVM waits for nothing across the switch between scalar and
/// vector memory). A wait on the access's own counter that covers it
/// (loadcnt, storecnt in order; kmcnt at 0) is not one for LLVM 22, which
/// still waits for XCNT after it; whether a completed access can be
/// replayed is written nowhere we found, so a write there makes the access
/// unsettled (the second XCNT rule), not undefined. A load's own destination
/// is not a later write.
pub(super) fn xcnt_war(
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: &impl Fn(usize) -> [Option<usize>; 2],
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    for (p, inst) in insts.iter().enumerate() {
        let Some(inst) = inst else { continue };
        let Some(kind) = XKind::of(inst) else {
            continue;
        };
        let d = &deps[p];
        let read = Regs {
            s: sgpr_reads(d) & !(sgpr(EXEC) | sgpr(EXEC + 1) | sgpr(M0)),
            v: d.rv,
        };
        if read.is_empty() {
            continue;
        }
        let Some((writer, reg, counter_waited)) =
            xcnt_writer(p, kind, &read, insts, deps, successors)
        else {
            continue;
        };
        let rule = if counter_waited {
            XCNT_COUNTER_1250
        } else {
            XCNT_1250
        };
        for (victim, post) in xcnt_victims(inst, kind, reg) {
            found.entry(p).or_default().push(Hazard {
                rule,
                producer: writer,
                reg: victim,
                post,
            });
        }
    }
}
/// The kinds of access XCNT counts, with the counter each completes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum XKind {
    VmemLoad,
    VmemStore,
    Smem,
}
impl XKind {
    fn of(inst: &Inst) -> Option<XKind> {
        match inst.shape() {
            Shape::MemLoad(_) => Some(XKind::VmemLoad),
            Shape::MemStore(_) => Some(XKind::VmemStore),
            Shape::Load(_) => Some(XKind::Smem),
            _ => None,
        }
    }
    fn vector(self) -> bool {
        self != XKind::Smem
    }
}
/// The first instruction after `p` on some path that writes one of `read`
/// before an XCNT wait covers `p`, the register, and whether a wait on `p`'s
/// own counter covered it first on that path (the unsettled rule).
fn xcnt_writer(
    p: usize,
    kind: XKind,
    read: &Regs,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: &impl Fn(usize) -> [Option<usize>; 2],
) -> Option<(usize, u16, bool)> {
    // State: (instruction, younger accesses of p's kind on XCNT, younger
    // accesses on p's own counter, p's counter waited for), the counts
    // capped: a bound above 64 waits for nothing more. An undefined hit
    // wins over an unsettled one found first.
    let mut seen = std::collections::HashSet::new();
    let mut work: Vec<(usize, u8, u8, bool)> = successors(p)
        .into_iter()
        .flatten()
        .map(|q| (q, 0, 0, false))
        .collect();
    let mut unsettled = None;
    while let Some((q, younger_x, younger_c, counter_waited)) = work.pop() {
        if !seen.insert((q, younger_x, younger_c, counter_waited)) {
            continue;
        }
        let Some(inst) = insts[q] else { continue };
        let d = &deps[q];
        let writes = Regs {
            s: sgpr_writes(inst, d),
            v: vgpr_writes(inst, d),
        };
        if let Some(reg) = writes.overlap(read) {
            if !counter_waited {
                return Some((q, reg, false));
            }
            unsettled.get_or_insert((q, reg, true));
            continue;
        }
        let (xcnt, counter) = xcnt_cleared(inst, kind, younger_x, younger_c);
        if xcnt || inst.op == Op::SEndpgm {
            continue;
        }
        let counter_waited = counter_waited || counter;
        let (mut x, mut c) = (younger_x, younger_c);
        if let Some(k) = XKind::of(inst) {
            if k.vector() != kind.vector() {
                continue; // the switch to the other kind completes p's translation
            }
            x = x.saturating_add(1).min(64);
            if k == kind {
                c = c.saturating_add(1).min(64);
            }
        }
        work.extend(
            successors(q)
                .into_iter()
                .flatten()
                .map(|n| (n, x, c, counter_waited)),
        );
    }
    unsettled
}
/// Whether wait `inst` covers an access of `kind` with `younger_x` younger
/// accesses of its kind and `younger_c` younger ones on its own counter:
/// (on XCNT, on its own counter).
fn xcnt_cleared(inst: &Inst, kind: XKind, younger_x: u8, younger_c: u8) -> (bool, bool) {
    use crate::platform::emu::counters::{wait_covers, LOAD, SCALAR, STORE};
    match inst.op {
        Op::SWaitIdle => (true, true),
        Op::SWaitXcnt if kind.vector() => (u16::from(younger_x) >= inst.imm as u16, false),
        Op::SWaitXcnt => (inst.imm as u16 == 0, false),
        _ => {
            let slot = match kind {
                XKind::VmemLoad => LOAD,
                XKind::VmemStore => STORE,
                XKind::Smem => SCALAR,
            };
            (false, wait_covers(inst, slot, u16::from(younger_c)))
        }
    }
}
/// What goes wrong when register `reg` of a memory instruction is rewritten
/// before its translation is done: a load's result (every destination
/// register, after it executes), or the store's register read again (its
/// data, or its address).
fn xcnt_victims(inst: &Inst, kind: XKind, reg: u16) -> Vec<(u16, bool)> {
    match (kind, inst.shape()) {
        (XKind::VmemLoad, Shape::MemLoad(bytes)) => (0..bytes.div_ceil(4))
            .map(|i| (256 + inst.dst + u16::from(i), true))
            .collect(),
        (XKind::Smem, Shape::Load(n)) if inst.sgpr_dst() != NULL => (0..n)
            .map(|i| (inst.dst + u16::from(i), true))
            .filter(|&(r, _)| r < 128)
            .collect(),
        _ => vec![(reg, false)],
    }
}
