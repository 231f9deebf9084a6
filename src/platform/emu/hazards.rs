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

use super::deps::{Deps, SCC_BIT};
use super::deps::{VMask, VGPR_WORDS};
use crate::isa::{Format, HazardRules, Hwreg, Inst, Isa, Op, Shape, Src, EXEC, M0, NULL, VCC};
use std::collections::HashMap;

/// One hazard rule. (`family` and `checked` are read by the tests,
/// which keep the table honest, not by the analysis.)
#[derive(Debug)]
#[allow(dead_code)]
pub struct Rule {
    /// Short name, as in the messages.
    pub name: &'static str,
    /// What must separate the two instructions.
    pub needs: &'static str,
    /// Where the rule is written.
    pub source: &'static str,
    /// The family of rules it belongs to (an [`Isa`]'s `hazards`).
    pub family: HazardRules,
    /// Whether the emulator checks it (false: listed for completeness).
    pub checked: bool,
    /// Write after read: the *earlier* instruction's read may see the later
    /// write, so the hazard is attached to the earlier one.
    pub war: bool,
    /// The value read inside the window is unsettled (no document says
    /// whether the hardware needs the wait) rather than undefined.
    pub unsettled: bool,
}

impl Rule {
    /// What a write-after-read hazard's `post` victim is: the reader's own
    /// result (an SALU that read EXEC; a load whose address XCNT still held).
    pub fn result_text(&self) -> &'static str {
        match self.family {
            HazardRules::Xcnt => {
                "loaded (the load's address may be read again after it was rewritten)"
            }
            // gfx9's s_setreg rules: the register read back, or written again.
            HazardRules::WaitStates if std::ptr::eq(self, &RULES[SETREG_9]) => {
                "written (which write the hardware register keeps is undefined)"
            }
            HazardRules::WaitStates => "read from the hardware register",
            _ => "computed from EXEC",
        }
    }
}

/// Index of each rule in [`RULES`].
const VALU_VGPR_DPP: usize = 0;
const VALU_EXEC_DPP: usize = 1;
const VALU_SGPR_VMEM: usize = 2;
const VALU_SGPR_LANESEL: usize = 3;
const STORE_DATA_VALU: usize = 4;
const VALU_SGPR_VALU_940: usize = 5;
const VALU_EXEC_LANE_940: usize = 6;
const VALU_VGPR_READLANE_940: usize = 7;
const MASK_WRITE_11: usize = 8;
const SALU_SGPR_12: usize = 9;
const VALU_SGPR_12: usize = 10;
const VALU_VCC_12: usize = 11;
const VMEM_SCALAR_WRITE_10: usize = 12;
const SMEM_VECTOR_WRITE_10: usize = 13;
const EXEC_WAR_10: usize = 14;
const XCNT_1250: usize = 16;
const XCNT_COUNTER_1250: usize = 17;

const GETREG_9: usize = 15;
const SETREG_9: usize = 18;
const SOFT_CLAUSE_9: usize = 19;
const SOFT_CLAUSE_10: usize = 20;

/// The rules, one row each.
pub static RULES: [Rule; 21] = [
    Rule {
        name: "gfx9 VALU writes a VGPR, then DPP reads it",
        needs: "2 wait states (s_nop 1)",
        source: "LLVM GCNHazardRecognizer::checkDPPHazards (DppVgprWaitStates = 2)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx9 VALU writes EXEC, then a DPP instruction",
        needs: "5 wait states (s_nop 4)",
        source: "LLVM GCNHazardRecognizer::checkDPPHazards (DppExecWaitStates = 5)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx9 VALU writes an SGPR (or VCC, EXEC), then a vector memory instruction reads it",
        needs: "5 wait states (s_nop 4)",
        source: "LLVM GCNHazardRecognizer::checkVMEMHazards (VmemSgprWaitStates = 5)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx9 VALU writes an SGPR, then v_readlane/v_writelane selects the lane with it",
        needs: "4 wait states (s_nop 3)",
        source: "LLVM GCNHazardRecognizer::checkRWLaneHazards (RWLaneWaitStates = 4)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx9 vector store of more than 8 bytes, then a VALU writes its data VGPRs",
        needs: "1 wait state (2 on gfx940+: s_nop 1)",
        source: "LLVM GCNHazardRecognizer::checkVALUHazards / createsVALUHazard (VALUWaitStates)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx940+ VALU writes an SGPR, then a VALU reads it",
        needs: "2 wait states (s_nop 1)",
        source: "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteSGPRVALUReadWaitstates = 2, hasVDecCoExecHazard)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx940+ VALU writes EXEC, then v_readlane/v_readfirstlane/v_writelane",
        needs: "4 wait states (s_nop 3)",
        source: "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteEXECRWLane = 4)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx940+ VALU writes a VGPR, then v_readlane/v_readfirstlane reads it",
        needs: "1 wait state (s_nop 0)",
        source: "LLVM GCNHazardRecognizer::checkVALUHazards (VALUWriteVGPRReadlaneRead = 1)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx11 wave64 VALU reads an SGPR as a lane mask or carry, an SALU writes it, then it is read",
        needs: "s_waitcnt_depctr 0xfffe (sa_sdst(0)) after the SALU write",
        source: "LLVM GCNHazardRecognizer::fixVALUMaskWriteHazard (hasVALUMaskWriteHazard)",
        family: HazardRules::Wave64MaskWrite,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx12 SALU writes an SGPR a VALU has read, then it is read",
        needs: "s_wait_alu depctr_sa_sdst(0) (0xfffe)",
        source: "LLVM AMDGPUWaitSGPRHazards.cpp (WA_SALU)",
        family: HazardRules::WaitAlu,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx12 VALU writes an SGPR a VALU has read, then a VALU reads it",
        needs: "s_wait_alu depctr_va_sdst(0) (0xf1ff)",
        source: "LLVM AMDGPUWaitSGPRHazards.cpp (WA_VALU)",
        family: HazardRules::WaitAlu,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx12 VALU writes VCC (a VALU has read it), then a VALU reads VCC",
        needs: "s_wait_alu depctr_va_vcc(0) (0xfffd)",
        source: "LLVM AMDGPUWaitSGPRHazards.cpp (WA_VCC)",
        family: HazardRules::WaitAlu,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx1010 vector memory reads a register, then an SALU/SMEM writes it",
        needs: "s_waitcnt_depctr 0xffe3 (vm_vsrc(0)) or a VALU in between",
        source: "LLVM GCNHazardRecognizer::fixVMEMtoScalarWriteHazards (gfx1010-1013)",
        family: HazardRules::WriteAfterRead,
        checked: true,
        war: true,
        unsettled: false,
    },
    Rule {
        name: "gfx1010 SMEM reads an SGPR, then a VALU writes it",
        needs: "an SALU in between (s_mov_b32 null, 0)",
        source: "LLVM GCNHazardRecognizer::fixSMEMtoVectorWriteHazards (gfx1010-1013)",
        family: HazardRules::WriteAfterRead,
        checked: true,
        war: true,
        unsettled: false,
    },
    Rule {
        name: "gfx1010 a non-VALU reads EXEC, then a VALU (v_cmpx) writes it",
        needs: "s_waitcnt_depctr 0xfffe (sa_sdst(0))",
        source: "LLVM GCNHazardRecognizer::fixVcmpxExecWARHazard (gfx1010-1013)",
        family: HazardRules::WriteAfterRead,
        checked: true,
        war: true,
        unsettled: false,
    },
    Rule {
        name: "gfx9 s_setreg, then s_getreg of the same register",
        needs: "2 wait states (s_nop 1)",
        source: "LLVM GCNHazardRecognizer::checkGetRegHazards (GetRegWaitStates = 2)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx1250 (CDNA5) memory instruction reads a register (address, store data, scalar base) that a later instruction writes before XCNT covers it (a replayed address translation reads the new value)",
        needs: "s_wait_xcnt before the write (in order for vector memory, 0 for scalar memory), or a memory instruction of the other kind in between",
        source: "LLVM 22 SIInsertWaitcnts on gfx1250 (X_CNT), as llc-22 inserts it (checked against llc-22 by this module's tests)",
        family: HazardRules::Xcnt,
        checked: true,
        war: true,
        unsettled: false,
    },
    Rule {
        name: "gfx1250 (CDNA5) memory instruction reads a register that a later instruction writes after a wait on the access's own counter but before s_wait_xcnt",
        needs: "s_wait_xcnt (LLVM 22 waits for XCNT there too; whether a completed access can still be replayed is written nowhere we found)",
        source: "LLVM 22 SIInsertWaitcnts on gfx1250 (X_CNT), as llc-22 inserts it (checked against llc-22 by this module's tests)",
        family: HazardRules::Xcnt,
        checked: true,
        war: true,
        unsettled: true,
    },
    Rule {
        name: "gfx9 s_setreg, then s_setreg of the same register",
        needs: "2 wait states (s_nop 1)",
        source: "LLVM GCNHazardRecognizer::checkSetRegHazards (GCNSubtarget::getSetRegWaitStates = 2 on gfx8+)",
        family: HazardRules::WaitStates,
        checked: true,
        war: false,
        unsettled: false,
    },
    Rule {
        name: "gfx9 with XNACK: a soft clause (back-to-back scalar, or back-to-back vector, memory instructions) in which one writes a register one of them reads (a replayed access reads the new value)",
        needs: "a non-memory instruction between them (s_nop 0), or xnack- in the target ID",
        source: "LLVM GCNHazardRecognizer::checkSoftClauseHazards (isXNACKEnabled: xnack+ or any)",
        family: HazardRules::WaitStates,
        checked: true,
        war: true,
        unsettled: false,
    },
    Rule {
        name: "gfx1010 with XNACK: back-to-back scalar memory instructions in which one writes a register one of them reads (a replayed access reads the new value)",
        needs: "a non-SMEM instruction between them (s_nop 0), or xnack- in the target ID",
        source: "LLVM GCNHazardRecognizer::checkSoftClauseHazards via checkSMRDHazards (isXNACKEnabled)",
        family: HazardRules::WriteAfterRead,
        checked: true,
        war: true,
        unsettled: false,
    },
];

/// One hazard the analysis found: instruction `producer` (an index) and the
/// instruction it is attached to are inside `rule`'s window; `reg` (SGPR
/// code, or 256 + VGPR number) is the register whose value that instruction
/// may see stale (for a write-after-read rule, `producer` is the later
/// writer). `post`: `reg` is the instruction's own result, undefined after it
/// (an SALU that read EXEC), rather than a source undefined while it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hazard {
    pub rule: usize,
    pub producer: usize,
    pub reg: u16,
    pub post: bool,
}

/// Registers as masks: SGPR codes (SCC excluded) and VGPRs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Regs {
    s: u128,
    v: VMask,
}

impl Regs {
    fn overlap(&self, o: &Regs) -> Option<u16> {
        let s = self.s & o.s;
        if s != 0 {
            return Some(s.trailing_zeros() as u16);
        }
        (0..VGPR_WORDS).find_map(|k| {
            let v = self.v[k] & o.v[k];
            (v != 0).then(|| 256 + (64 * k) as u16 + v.trailing_zeros() as u16)
        })
    }
    fn is_empty(&self) -> bool {
        self.s == 0 && self.v == [0; VGPR_WORDS]
    }
}

fn sgpr(r: u8) -> u128 {
    if r < 128 && r != NULL {
        1u128 << r
    } else {
        0
    }
}

fn vgprs(r: u16, n: u8) -> VMask {
    let mut m = [0u64; VGPR_WORDS];
    for r in (0..u16::from(n))
        .map(|i| usize::from(r + i))
        .filter(|&r| r < 64 * VGPR_WORDS)
    {
        m[r / 64] |= 1 << (r % 64);
    }
    m
}

fn is_valu(inst: &Inst) -> bool {
    matches!(
        crate::isa::table::info(inst.op).format,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
    )
}

fn is_salu(inst: &Inst) -> bool {
    matches!(
        crate::isa::table::info(inst.op).format,
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk
    ) && inst.shape() != Shape::KWait
}

fn is_vmem(inst: &Inst) -> bool {
    matches!(inst.shape(), Shape::MemLoad(_) | Shape::MemStore(_))
}

/// SGPRs `d` writes (full writes, and the partial ones it lists as reads
/// when they are the instruction's destination).
fn sgpr_writes(inst: &Inst, d: &Deps) -> u128 {
    let partial = match inst.op {
        Op::SCmovB32 | Op::SCmovkI32 => sgpr(inst.sgpr_dst()),
        Op::SCmovB64 => sgpr(inst.sgpr_dst()) | sgpr(inst.sgpr_dst().wrapping_add(1)),
        _ => 0,
    };
    (d.ws | partial) & !(1u128 << SCC_BIT)
}

/// VGPRs `inst` writes, partial writes (DPP, v_writelane) included.
fn vgpr_writes(inst: &Inst, d: &Deps) -> VMask {
    let mut v = d.wv;
    if is_valu(inst) && (inst.dpp.is_some() || inst.shape() == Shape::WriteLane) {
        let extra = vgprs(inst.dst, 1);
        for k in 0..VGPR_WORDS {
            v[k] |= extra[k];
        }
    }
    v
}

fn sgpr_reads(d: &Deps) -> u128 {
    d.rs & !(1u128 << SCC_BIT)
}

/// Wait states an instruction provides on gfx9: `s_nop N` is N + 1.
fn wait_states(inst: &Inst) -> u32 {
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
            let rules = windows(isa);
            for (i, inst) in insts.iter().enumerate() {
                let Some(inst) = inst else { continue };
                for w in &rules {
                    let wanted = (w.consumer)(inst, &deps[i]);
                    if wanted.is_empty() {
                        continue;
                    }
                    if let Some((producer, reg)) =
                        search_back(i, 0, w, &wanted, insts, deps, &preds)
                    {
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
            setreg_hazards(insts, &preds, &mut found);
            if xnack {
                soft_clauses(insts, deps, SOFT_CLAUSE_9, true, &mut found);
            }
        }
        HazardRules::WriteAfterRead if xnack => {
            rdna1_war(insts, deps, &successors, &mut found);
            soft_clauses(insts, deps, SOFT_CLAUSE_10, false, &mut found);
        }
        HazardRules::Wave64MaskWrite if wave64 => {
            forward(insts, deps, &successors, Gfx11Mask, &mut found)
        }
        HazardRules::WaitAlu => forward(insts, deps, &successors, Gfx12Alu, &mut found),
        HazardRules::WriteAfterRead => rdna1_war(insts, deps, &successors, &mut found),
        HazardRules::Xcnt => xcnt_war(insts, deps, &successors, &mut found),
        HazardRules::Wave64MaskWrite | HazardRules::Interlocked => {}
    }
    found
}

/// Where a gfx9 `s_setreg` hazard leaves its mark when the consumer is
/// itself an `s_setreg`: the hardware register, which only `s_getreg_b32`
/// reads (taint.rs keeps it per wave).
pub const HWREG_VICTIM: u16 = u16::MAX;

/// XNACK's soft clauses: with XNACK on, the hardware may replay a run of
/// back-to-back scalar memory instructions (and on gfx9 vector memory ones)
/// after some of them returned, and a replayed instruction reads its
/// registers again. So in a run of two or more, a register one writes that
/// one reads (itself included) makes that reader's access undefined: the
/// read register is marked for it, as it may hold the new value. A run ends
/// at any other instruction, as LLVM's clause does (a clause that mixes
/// loads and stores to one address is not modelled: LLVM breaks every such
/// clause at the store without knowing whether the addresses meet).
fn soft_clauses(
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

/// gfx9's `s_setreg` windows: an `s_getreg_b32` or `s_setreg*` of a hardware
/// register within 2 wait states of an `s_setreg*` of the same register.
/// The reader's result, or the register the second write leaves, is
/// undefined after it (`post`).
fn setreg_hazards(
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

/// gfx1010's write-after-read rules: from each reader, forward along every
/// path until the rule's clearing instruction; a writer of what it read
/// before that is a hazard, attached to the reader.
fn rdna1_war(
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
fn xcnt_war(
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
    use super::counters::{wait_covers, LOAD, SCALAR, STORE};
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

/// The VGPR an instruction reads first: a memory address, or src0.
fn first_vgpr_source(inst: &Inst) -> Option<u16> {
    if is_vmem(inst) {
        return Some(256 + inst.addr);
    }
    inst.src.iter().find_map(|s| match s {
        Src::Vgpr(r) => Some(256 + *r),
        _ => None,
    })
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

/// A forward "pending hazard" analysis: a state per instruction, merged by
/// union over incoming paths, iterated to a fixpoint.
trait Pending: Copy {
    type State: Clone + PartialEq + Default;
    /// The hazards `inst` consumes in `state` (rule, producer, register).
    fn consume(self, inst: &Inst, d: &Deps, state: &Self::State, out: &mut Vec<Hazard>);
    /// The state after `inst` (instruction index `i`).
    fn step(self, inst: &Inst, d: &Deps, i: usize, state: &mut Self::State);
    fn merge(self, into: &mut Self::State, from: &Self::State);
}

fn forward<P: Pending>(
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
fn pairs(regs: u128) -> u128 {
    let even = regs & 0x5555_5555_5555_5555_5555_5555_5555_5555;
    let odd = regs & !0x5555_5555_5555_5555_5555_5555_5555_5555u128;
    even | even << 1 | odd | odd >> 1
}

/// The `s_waitcnt_depctr`/`s_wait_alu` immediate fields (LLVM
/// AMDGPUAsmUtils DepCtrInfo): sa_sdst bit 0, va_vcc bit 1, va_sdst 11:9.
fn depctr(inst: &Inst) -> Option<(bool, bool, bool)> {
    (inst.op == Op::SWaitcntDepctr).then(|| {
        let imm = inst.imm as u32;
        (imm & 1 == 0, imm >> 1 & 1 == 0, imm >> 9 & 7 == 0)
    })
}

/// gfx12 `s_wait_alu` rules (AMDGPUWaitSGPRHazards.cpp): SGPR pairs a VALU
/// has read are tracked; an SALU write to a tracked SGPR is pending until
/// `depctr_sa_sdst(0)`, a VALU write until `depctr_va_sdst(0)` (VCC:
/// `depctr_va_vcc(0)`); SMEM and non-FLAT vector memory clear everything, an
/// SALU read of an SGPR clears the pending VALU writes (of VCC: VCC's).
#[derive(Clone, Copy)]
struct Gfx12Alu;

#[derive(Clone, PartialEq, Default)]
struct Alu12 {
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
struct Gfx11Mask;

#[derive(Clone, PartialEq, Default)]
struct Mask11 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_its_source_and_generation() {
        for r in &RULES {
            assert!(r.source.starts_with("LLVM "), "{}", r.name);
            // Each row is named for the first processors its family has.
            let named = match r.family {
                HazardRules::WaitStates => ["gfx9 ", "gfx940+ "],
                HazardRules::WriteAfterRead => ["gfx1010 ", "gfx1010 "],
                HazardRules::Wave64MaskWrite => ["gfx11 ", "gfx11 "],
                HazardRules::WaitAlu => ["gfx12 ", "gfx12 "],
                HazardRules::Xcnt => ["gfx1250 ", "gfx1250 "],
                HazardRules::Interlocked => panic!("{}: a rule of no family", r.name),
            };
            assert!(named.iter().any(|p| r.name.starts_with(p)), "{}", r.name);
        }
        // The analysis checks every rule of the table.
        let unchecked: Vec<&str> = RULES
            .iter()
            .filter(|r| !r.checked)
            .map(|r| r.name)
            .collect();
        assert_eq!(unchecked, Vec::<&str>::new());
    }

    /// `body` (MIR instructions) through llc-22's passes from `start` on, for
    /// `mcpu`: the instruction lines it prints (`None`: no llc-22 here).
    fn llc22(mcpu: &str, start: &str, body: &str) -> Option<Vec<String>> {
        let dir = std::env::temp_dir().join(format!("xad-hazards-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let mir = dir.join(format!(
            "{mcpu}-{:x}.mir",
            body.len() * 131 + body.bytes().map(usize::from).sum::<usize>()
        ));
        let text = format!(
            "---\nname: t\ntracksRegLiveness: false\nbody: |\n  bb.0:\n{body}\n    S_ENDPGM 0\n...\n"
        );
        std::fs::write(&mir, text).ok()?;
        let out = std::process::Command::new("llc-22")
            .args([
                "-mtriple=amdgcn-amd-amdhsa",
                &format!("-mcpu={mcpu}"),
                &format!("-start-before={start}"),
                "-o",
                "-",
            ])
            .arg(&mir)
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "llc-22: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let asm = String::from_utf8_lossy(&out.stdout);
        let body_lines = asm
            .lines()
            .map(str::trim)
            .skip_while(|l| !l.starts_with("t:"))
            .skip(1)
            .take_while(|l| !l.starts_with(".Lfunc_end") && !l.starts_with(".section"))
            .filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with('.'))
            .map(|l| l.split(" ;").next().unwrap_or(l).trim().to_string())
            .collect();
        Some(body_lines)
    }

    /// `lines` assembled by llvm-mc-22 for gfx1250 and decoded.
    fn decoded(lines: &[String]) -> Vec<Inst> {
        use std::io::Write;
        let mut child = std::process::Command::new("llvm-mc-22")
            .args(["-triple=amdgcn", "-mcpu=gfx1250", "-show-encoding"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("llvm-mc-22");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(lines.join("\n").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let mut bytes = Vec::new();
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some((_, enc)) = l.split_once("encoding: [") {
                bytes.extend(
                    enc.trim_end_matches(']').split(',').map(|b| {
                        u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()
                    }),
                );
            }
        }
        decode_all(Isa::GFX1250, &bytes)
    }

    /// Every instruction of `bytes`, in order.
    fn decode_all(isa: Isa, bytes: &[u8]) -> Vec<Inst> {
        let mut insts = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            let inst = crate::isa::decode(isa, bytes, pos, 0).expect("decodes");
            pos += usize::from(inst.len);
            insts.push(inst);
        }
        insts
    }

    /// [`analyse`] over straight-line code (each instruction falls through).
    fn straight_line(
        isa: Isa,
        insts: &[Inst],
        wave64: bool,
        xnack: bool,
    ) -> HashMap<usize, Vec<Hazard>> {
        let refs: Vec<Option<&Inst>> = insts.iter().map(Some).collect();
        let deps: Vec<Deps> = insts
            .iter()
            .map(|i| super::super::deps::deps(i, wave64))
            .collect();
        let n = insts.len();
        analyse(
            isa,
            &refs,
            &deps,
            |i| [(i + 1 < n).then_some(i + 1), None],
            wave64,
            xnack,
        )
    }

    /// gfx9's XNACK soft clause (llvm-mc-19 -mcpu=gfx90a bytes): two
    /// back-to-back `s_load`s, the second overwriting the address both read.
    /// With XNACK both readers are marked (the first by the second's write,
    /// the second by its own); `s_nop 0` between them, or XNACK off (`xnack-`),
    /// leaves none.
    #[test]
    fn an_xnack_soft_clause_is_a_hazard_only_with_xnack_and_without_a_break() {
        let load_s18 = [0xc002_0488u32, 0x20]; // s_load_dword s18, s[16:17], 0x20
        let load_s16 = [0xc006_0408u32, 0x0]; // s_load_dwordx2 s[16:17], s[16:17], 0x0
        let nop = [0xbf80_0000u32];
        let hazards = |words: &[u32], xnack: bool| -> Vec<(usize, usize)> {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let found = straight_line(Isa::GFX9, &decode_all(Isa::GFX9, &bytes), true, xnack);
            let mut v: Vec<(usize, usize)> = found
                .iter()
                .flat_map(|(&i, hs)| hs.iter().map(move |h| (i, h.producer)))
                .collect();
            v.sort();
            v
        };
        let clause: Vec<u32> = load_s18.iter().chain(&load_s16).copied().collect();
        assert_eq!(hazards(&clause, true), [(0, 1), (1, 1)]);
        assert_eq!(hazards(&clause, false), []);
        let broken: Vec<u32> = load_s18
            .iter()
            .chain(&nop)
            .chain(&load_s16)
            .copied()
            .collect();
        assert_eq!(hazards(&broken, true), []);
    }

    fn xcnt_hazards(insts: &[Inst]) -> usize {
        straight_line(Isa::GFX1250, insts, false, false)
            .values()
            .flatten()
            .filter(|h| h.rule == XCNT_1250 || h.rule == XCNT_COUNTER_1250)
            .count()
    }

    /// The XCNT rule against LLVM 22 as the oracle: for each sequence, llc-22
    /// inserts `s_wait_xcnt` for gfx1250 exactly where the analysis finds a
    /// hazard once those waits are removed, and none as LLVM wrote it. Covers
    /// a load's address, a store's data and address, a scalar load's base,
    /// in-order vector accesses (a partial `s_wait_xcnt 1`), two scalar loads
    /// (only 0), the switch between scalar and vector memory (no wait), and a
    /// load waited for on its own counter. Skipped, saying so, without llc-22.
    #[test]
    fn xcnt_agrees_with_llc_22() {
        const LOAD_V1: &str =
            "    $vgpr0 = GLOBAL_LOAD_DWORD_SADDR $sgpr0_sgpr1, $vgpr1, 0, 0, implicit $exec";
        let cases: &[(&str, String)] = &[
            ("load address", format!("{LOAD_V1}\n    $vgpr1 = V_MOV_B32_e32 5, implicit $exec")),
            ("load saddr", format!("{LOAD_V1}\n    $sgpr0 = S_MOV_B32 5")),
            ("store data", "    GLOBAL_STORE_DWORD_SADDR $vgpr1, $vgpr2, $sgpr0_sgpr1, 0, 0, implicit $exec\n    $vgpr2 = V_MOV_B32_e32 5, implicit $exec".into()),
            ("store address", "    GLOBAL_STORE_DWORD_SADDR $vgpr1, $vgpr2, $sgpr0_sgpr1, 0, 0, implicit $exec\n    $vgpr1 = V_MOV_B32_e32 5, implicit $exec".into()),
            ("scalar base", "    $sgpr4 = S_LOAD_DWORD_IMM $sgpr0_sgpr1, 0, 0\n    $sgpr0 = S_MOV_B32 5".into()),
            ("two loads", format!("{LOAD_V1}\n    $vgpr3 = GLOBAL_LOAD_DWORD_SADDR $sgpr0_sgpr1, $vgpr2, 0, 0, implicit $exec\n    $vgpr1 = V_MOV_B32_e32 5, implicit $exec\n    $vgpr2 = V_MOV_B32_e32 5, implicit $exec")),
            ("two scalar loads", "    $sgpr4 = S_LOAD_DWORD_IMM $sgpr8_sgpr9, 0, 0\n    $sgpr5 = S_LOAD_DWORD_IMM $sgpr10_sgpr11, 0, 0\n    $sgpr8 = S_MOV_B32 5".into()),
            ("vector then scalar", format!("{LOAD_V1}\n    $sgpr4 = S_LOAD_DWORD_IMM $sgpr8_sgpr9, 0, 0\n    $vgpr1 = V_MOV_B32_e32 5, implicit $exec")),
            ("scalar then vector", format!("    $sgpr4 = S_LOAD_DWORD_IMM $sgpr8_sgpr9, 0, 0\n{LOAD_V1}\n    $sgpr8 = S_MOV_B32 5")),
            ("load waited for at the write", format!("{LOAD_V1}\n    $vgpr1 = V_ADD_U32_e64 $vgpr0, $vgpr0, 0, implicit $exec")),
            ("load waited for before the write", format!("{LOAD_V1}\n    $vgpr4 = V_ADD_U32_e64 $vgpr0, $vgpr0, 0, implicit $exec\n    $vgpr1 = V_MOV_B32_e32 5, implicit $exec")),
        ];
        for (what, body) in cases {
            let Some(lines) = llc22("gfx1250", "si-insert-waitcnts", body) else {
                eprintln!("SKIPPED: no llc-22 here (ci/setup.sh installs it); XCNT not checked against LLVM");
                return;
            };
            let inserted = lines.iter().any(|l| l.starts_with("s_wait_xcnt"));
            assert_eq!(
                xcnt_hazards(&decoded(&lines)),
                0,
                "{what}: as LLVM wrote it: {lines:?}"
            );
            let stripped: Vec<String> = lines
                .into_iter()
                .filter(|l| !l.starts_with("s_wait_xcnt"))
                .collect();
            assert_eq!(
                xcnt_hazards(&decoded(&stripped)) > 0,
                inserted,
                "{what}: LLVM inserted s_wait_xcnt: {inserted}; {stripped:?}"
            );
        }
    }

    /// gfx12's `s_wait_alu` rules are not gfx1250's: llc-22 pads the same
    /// SALU-after-VALU-read and VALU-SGPR sequences for gfx1201 and not for
    /// gfx1250, which is why [`Isa::GFX1250`] has the XCNT family only.
    #[test]
    fn gfx1250_has_no_s_wait_alu_hazards_in_llc_22() {
        let body = "    $vgpr0 = V_ADD_U32_e64 $sgpr0, $vgpr1, 0, implicit $exec\n    $sgpr0 = S_MOV_B32 5\n    $vgpr2 = V_ADD_U32_e64 $sgpr0, $vgpr1, 0, implicit $exec\n    $sgpr2 = V_READFIRSTLANE_B32 $vgpr0, implicit $exec\n    $vgpr3 = V_ADD_U32_e64 $sgpr2, $vgpr1, 0, implicit $exec";
        let (Some(g12), Some(g125)) = (
            llc22("gfx1201", "amdgpu-wait-sgpr-hazards", body),
            llc22("gfx1250", "amdgpu-wait-sgpr-hazards", body),
        ) else {
            eprintln!("SKIPPED: no llc-22 here");
            return;
        };
        let waits = |l: &[String]| l.iter().filter(|l| l.starts_with("s_wait_alu")).count();
        assert_eq!(waits(&g12), 2, "{g12:?}");
        assert_eq!(waits(&g125), 0, "{g125:?}");
        assert_eq!(Isa::GFX12.hazards, HazardRules::WaitAlu);
        assert_eq!(Isa::GFX1250.hazards, HazardRules::Xcnt);
    }

    #[test]
    fn pairs_cover_both_halves() {
        assert_eq!(pairs(1 << 4), 0b11 << 4);
        assert_eq!(pairs(1 << 5), 0b11 << 4);
        assert_eq!(pairs(1 << 7 | 1 << 10), 0b11 << 6 | 0b11 << 10);
    }
}
