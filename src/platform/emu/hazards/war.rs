//! gfx1010's write-after-read rules (LLVM's `fix*` rules for gfx1010-1013):
//! a register read, then written before the rule's clearing instruction; the
//! hazard is attached to the earlier reader.

use std::collections::HashMap;

use super::regs::*;
use super::rules::*;
use crate::isa::{Inst, Op, Shape, EXEC, M0, NULL};
use crate::platform::emu::deps::{Deps, SCC_BIT};

/// gfx1010's write-after-read rules: from each reader, forward along every
/// path until the rule's clearing instruction; a writer of what it read
/// before that is a hazard, attached to the reader.
pub(super) fn rdna1_war(
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: &impl Fn(usize) -> [Option<usize>; 2],
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    let exec = sgpr(EXEC) | sgpr(EXEC + 1);
    for (p, inst) in insts.iter().enumerate() {
        let Some(inst) = inst else { continue };
        let d = &deps[p];
        let smem = matches!(inst.shape(), Shape::Load(_));
        let mut rules: Vec<(usize, u128)> = Vec::new();
        if is_vmem(inst) {
            // SGPR operands, and EXEC (read implicitly).
            rules.push((
                VMEM_SCALAR_WRITE_10,
                (sgpr_reads(d) | exec) & !untracked_but_exec(),
            ));
        }
        if smem {
            rules.push((SMEM_VECTOR_WRITE_10, sgpr_reads(d)));
        }
        if !is_valu(inst) && (is_vmem(inst) || sgpr_reads(d) & exec != 0) {
            rules.push((EXEC_WAR_10, exec));
        }
        for (rule, read) in rules {
            if read == 0 {
                continue;
            }
            if let Some((writer, r)) = war_writer(p, rule, read, insts, deps, successors) {
                let (reg, post) = war_victim(inst, d, r);
                found.entry(p).or_default().push(Hazard {
                    rule,
                    producer: writer,
                    reg,
                    post,
                });
            }
        }
    }
}
/// What the reader of a write-after-read hazard gets wrong: an SGPR source
/// (made undefined while it reads), or for EXEC (which the shadow cannot
/// hold as undefined) its first VGPR source, or for an SALU its result.
fn war_victim(inst: &Inst, d: &Deps, reg: u8) -> (u16, bool) {
    if reg != EXEC && reg != EXEC + 1 {
        return (u16::from(reg), false);
    }
    if let Some(v) = first_vgpr_source(inst) {
        return (v, false);
    }
    let dst = sgpr_writes(inst, d) & !(sgpr(EXEC) | sgpr(EXEC + 1));
    if dst != 0 {
        (dst.trailing_zeros() as u16, true)
    } else {
        (u16::from(reg), false)
    }
}
/// SGPR codes the gfx10 rules ignore (M0, SCC); EXEC counts for them.
fn untracked_but_exec() -> u128 {
    sgpr(M0) | (1u128 << SCC_BIT)
}
/// The first instruction after `p` on some path that writes one of `read`
/// (as `rule` defines the writer) before the rule's clearing instruction.
fn war_writer(
    p: usize,
    rule: usize,
    read: u128,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: &impl Fn(usize) -> [Option<usize>; 2],
) -> Option<(usize, u8)> {
    let mut seen = vec![false; insts.len()];
    let mut work: Vec<usize> = successors(p).into_iter().flatten().collect();
    while let Some(q) = work.pop() {
        if std::mem::replace(&mut seen[q], true) {
            continue;
        }
        let Some(inst) = insts[q] else { continue };
        let d = &deps[q];
        let writes = sgpr_writes(inst, d) & read;
        let (hit, clears) = match rule {
            VMEM_SCALAR_WRITE_10 => {
                let scalar = is_salu(inst) || matches!(inst.shape(), Shape::Load(_));
                let waits_all = inst.op == Op::SWaitcnt && inst.imm == 0;
                let vm_vsrc = depctr(inst).is_some() && (inst.imm as u32 >> 2) & 7 == 0;
                (scalar && writes != 0, is_valu(inst) || waits_all || vm_vsrc)
            }
            SMEM_VECTOR_WRITE_10 => {
                let lgkm0 = (inst.op == Op::SWaitcnt
                    && inst
                        .generation
                        .memory_counters()
                        .waitcnt(inst.imm as u16)
                        .lgkmcnt
                        == 0)
                    || (inst.op == Op::SWaitcntLgkmcnt && inst.sgpr_dst() == NULL && inst.imm == 0);
                (is_valu(inst) && writes != 0, is_salu(inst) || lgkm0)
            }
            _ => {
                let sa_sdst = depctr(inst).is_some_and(|(sa, _, _)| sa);
                let valu_sgpr = is_valu(inst) && sgpr_writes(inst, d) != 0;
                (is_valu(inst) && writes != 0, sa_sdst || valu_sgpr)
            }
        };
        if hit {
            return Some((q, writes.trailing_zeros() as u8));
        }
        if !clears && inst.op != Op::SEndpgm {
            work.extend(successors(q).into_iter().flatten());
        }
    }
    None
}
