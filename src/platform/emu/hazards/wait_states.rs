//! gfx9's wait-state windows (LLVM's `check*` rules): a producer and a
//! consumer that must be at least a window of wait states apart along every
//! path (`s_nop N` counts N + 1), and the `s_setreg` windows.

use std::collections::HashMap;

use super::regs::*;
use super::rules::*;
use crate::isa::{Hwreg, Inst, Isa, Op, Shape, Src, EXEC};
use crate::platform::emu::deps::{Deps, VMask, VGPR_WORDS};

/// Wait states an instruction provides on gfx9: `s_nop N` is N + 1.
pub(super) fn wait_states(inst: &Inst) -> u32 {
    // A VOPD's X half (length 0) issues with its Y half: one instruction.
    if inst.len == 0 {
        0
    } else if inst.op == Op::SNop {
        (inst.imm as u32 & 0xf) + 1
    } else {
        1
    }
}
/// The VGPR store data of a vector store wider than 8 bytes.
fn wide_store_data(inst: &Inst) -> VMask {
    match inst.shape() {
        Shape::MemStore(bytes) if bytes > 8 => vgprs(inst.data, bytes.div_ceil(4)),
        _ => [0; VGPR_WORDS],
    }
}
/// A window rule of gfx9: what the producer writes that the consumer must
/// not read within `window` wait states.
struct Window {
    rule: usize,
    window: u32,
    producer: fn(&Inst, &Deps) -> Regs,
    consumer: fn(&Inst, &Deps) -> Regs,
}
fn valu_vgpr_writes(i: &Inst, d: &Deps) -> Regs {
    // LLVM: any instruction writing the VGPR (a load as much as a VALU).
    Regs {
        s: 0,
        v: vgpr_writes(i, d),
    }
}
fn dpp_vgpr_reads(i: &Inst, d: &Deps) -> Regs {
    if i.dpp.is_some() {
        Regs { s: 0, v: d.rv }
    } else {
        Regs::default()
    }
}
fn valu_exec_write(i: &Inst, d: &Deps) -> Regs {
    let exec = sgpr(EXEC) | sgpr(EXEC + 1);
    Regs {
        s: if is_valu(i) {
            sgpr_writes(i, d) & exec
        } else {
            0
        },
        v: [0; VGPR_WORDS],
    }
}
fn dpp_exec(i: &Inst, _: &Deps) -> Regs {
    Regs {
        s: if i.dpp.is_some() {
            sgpr(EXEC) | sgpr(EXEC + 1)
        } else {
            0
        },
        v: [0; VGPR_WORDS],
    }
}
fn valu_sgpr_writes(i: &Inst, d: &Deps) -> Regs {
    Regs {
        s: if is_valu(i) { sgpr_writes(i, d) } else { 0 },
        v: [0; VGPR_WORDS],
    }
}
fn vmem_sgpr_reads(i: &Inst, d: &Deps) -> Regs {
    // Every scalar the access uses, EXEC included.
    Regs {
        s: if is_vmem(i) {
            sgpr_reads(d) | sgpr(EXEC) | sgpr(EXEC + 1)
        } else {
            0
        },
        v: [0; VGPR_WORDS],
    }
}
fn lane_select(i: &Inst, _: &Deps) -> Regs {
    let s = match (i.op, i.src[1]) {
        (Op::VReadlaneB32 | Op::VWritelaneB32, Src::Sgpr(r)) => sgpr(r),
        _ => 0,
    };
    Regs {
        s,
        v: [0; VGPR_WORDS],
    }
}
fn store_data(i: &Inst, _: &Deps) -> Regs {
    Regs {
        s: 0,
        v: wide_store_data(i),
    }
}
fn valu_vgpr_writes_only(i: &Inst, d: &Deps) -> Regs {
    Regs {
        s: 0,
        v: if is_valu(i) {
            vgpr_writes(i, d)
        } else {
            [0; VGPR_WORDS]
        },
    }
}
fn valu_sgpr_reads(i: &Inst, d: &Deps) -> Regs {
    Regs {
        s: if is_valu(i) { sgpr_reads(d) } else { 0 },
        v: [0; VGPR_WORDS],
    }
}
fn lane_op_exec(i: &Inst, _: &Deps) -> Regs {
    let lane_op = matches!(
        i.op,
        Op::VReadlaneB32 | Op::VReadfirstlaneB32 | Op::VWritelaneB32
    );
    Regs {
        s: if lane_op {
            sgpr(EXEC) | sgpr(EXEC + 1)
        } else {
            0
        },
        v: [0; VGPR_WORDS],
    }
}
fn readlane_src0(i: &Inst, _: &Deps) -> Regs {
    match (i.op, i.src[0]) {
        (Op::VReadlaneB32 | Op::VReadfirstlaneB32, Src::Vgpr(r)) => Regs {
            s: 0,
            v: vgprs(r, 1),
        },
        _ => Regs::default(),
    }
}
/// gfx9's window rules; the gfx940 ones apply only with `gfx940_insts`.
fn windows(isa: Isa) -> Vec<Window> {
    let mut w = vec![
        Window {
            rule: VALU_VGPR_DPP,
            window: 2,
            producer: valu_vgpr_writes,
            consumer: dpp_vgpr_reads,
        },
        Window {
            rule: VALU_EXEC_DPP,
            window: 5,
            producer: valu_exec_write,
            consumer: dpp_exec,
        },
        Window {
            rule: VALU_SGPR_VMEM,
            window: 5,
            producer: valu_sgpr_writes,
            consumer: vmem_sgpr_reads,
        },
        Window {
            rule: VALU_SGPR_LANESEL,
            window: 4,
            producer: valu_sgpr_writes,
            consumer: lane_select,
        },
        Window {
            rule: STORE_DATA_VALU,
            window: if isa.gfx940_insts { 2 } else { 1 },
            producer: store_data,
            consumer: valu_vgpr_writes_only,
        },
    ];
    if isa.gfx940_insts {
        w.extend([
            Window {
                rule: VALU_SGPR_VALU_940,
                window: 2,
                producer: valu_sgpr_writes,
                consumer: valu_sgpr_reads,
            },
            Window {
                rule: VALU_EXEC_LANE_940,
                window: 4,
                producer: valu_exec_write,
                consumer: lane_op_exec,
            },
            Window {
                rule: VALU_VGPR_READLANE_940,
                window: 1,
                producer: valu_vgpr_writes_only,
                consumer: readlane_src0,
            },
        ]);
    }
    w
}
/// gfx9's `s_setreg` windows: an `s_getreg_b32` or `s_setreg*` of a hardware
/// register within 2 wait states of an `s_setreg*` of the same register.
/// The reader's result, or the register the second write leaves, is
/// undefined after it (`post`).
pub(super) fn setreg_hazards(
    insts: &[Option<&Inst>],
    preds: &[Vec<usize>],
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    for (i, inst) in insts.iter().enumerate() {
        let Some(inst) = inst else { continue };
        let (rule, reg) = match inst.op {
            Op::SGetregB32 => (GETREG_9, u16::from(inst.sgpr_dst())),
            Op::SSetregB32 | Op::SSetregImm32B32 => (SETREG_9, HWREG_VICTIM),
            _ => continue,
        };
        let id = Hwreg::of(inst.imm as u32).id;
        let is_setreg_of = |p: &Inst| {
            matches!(p.op, Op::SSetregB32 | Op::SSetregImm32B32) && Hwreg::of(p.imm as u32).id == id
        };
        if let Some(producer) = search_back_for(i, 0, 2, &is_setreg_of, insts, preds) {
            found.entry(i).or_default().push(Hazard {
                rule,
                producer,
                reg,
                post: true,
            });
        }
    }
}
/// The nearest instruction before `at` on some path for which `hit` holds,
/// within `window` wait states.
fn search_back_for(
    at: usize,
    dist: u32,
    window: u32,
    hit: &dyn Fn(&Inst) -> bool,
    insts: &[Option<&Inst>],
    preds: &[Vec<usize>],
) -> Option<usize> {
    for &p in &preds[at] {
        let Some(inst) = insts[p] else { continue };
        if hit(inst) {
            return Some(p);
        }
        let next = dist + wait_states(inst);
        if next < window {
            if let Some(found) = search_back_for(p, next, window, hit, insts, preds) {
                return Some(found);
            }
        }
    }
    None
}
/// The nearest producer of `w` before instruction `at` on some path, whose
/// write `wanted` overlaps, with fewer than `w.window` wait states between.
fn search_back(
    at: usize,
    dist: u32,
    w: &Window,
    wanted: &Regs,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    preds: &[Vec<usize>],
) -> Option<(usize, u16)> {
    for &p in &preds[at] {
        let Some(inst) = insts[p] else { continue };
        if let Some(reg) = (w.producer)(inst, &deps[p]).overlap(wanted) {
            return Some((p, reg));
        }
        let next = dist + wait_states(inst);
        if next < w.window {
            if let Some(hit) = search_back(p, next, w, wanted, insts, deps, preds) {
                return Some(hit);
            }
        }
    }
    None
}

/// Each consumer of a window rule of `isa` with its producer less than the
/// window away on some path.
pub(super) fn window_hazards(
    isa: Isa,
    insts: &[Option<&Inst>],
    deps: &[Deps],
    preds: &[Vec<usize>],
    found: &mut HashMap<usize, Vec<Hazard>>,
) {
    let rules = windows(isa);
    for (i, inst) in insts.iter().enumerate() {
        let Some(inst) = inst else { continue };
        for w in &rules {
            let wanted = (w.consumer)(inst, &deps[i]);
            if wanted.is_empty() {
                continue;
            }
            if let Some((producer, reg)) = search_back(i, 0, w, &wanted, insts, deps, preds) {
                // EXEC itself cannot hold a stale value in the shadow
                // (a tainted EXEC stops the wave): the stale read is
                // of the consumer's first VGPR source instead.
                let reg = if reg == u16::from(EXEC) || reg == u16::from(EXEC) + 1 {
                    first_vgpr_source(inst).unwrap_or(reg)
                } else {
                    reg
                };
                found.entry(i).or_default().push(Hazard {
                    rule: w.rule,
                    producer,
                    reg,
                    post: false,
                });
            }
        }
    }
}
