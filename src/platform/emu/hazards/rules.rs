//! The hazard rules, one row each ([`RULES`]), and what the analysis
//! reports when it finds one ([`Hazard`]).

use crate::isa::HazardRules;

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
pub(super) const VALU_VGPR_DPP: usize = 0;
pub(super) const VALU_EXEC_DPP: usize = 1;
pub(super) const VALU_SGPR_VMEM: usize = 2;
pub(super) const VALU_SGPR_LANESEL: usize = 3;
pub(super) const STORE_DATA_VALU: usize = 4;
pub(super) const VALU_SGPR_VALU_940: usize = 5;
pub(super) const VALU_EXEC_LANE_940: usize = 6;
pub(super) const VALU_VGPR_READLANE_940: usize = 7;
pub(super) const MASK_WRITE_11: usize = 8;
pub(super) const SALU_SGPR_12: usize = 9;
pub(super) const VALU_SGPR_12: usize = 10;
pub(super) const VALU_VCC_12: usize = 11;
pub(super) const VMEM_SCALAR_WRITE_10: usize = 12;
pub(super) const SMEM_VECTOR_WRITE_10: usize = 13;
pub(super) const EXEC_WAR_10: usize = 14;
pub(super) const XCNT_1250: usize = 16;
pub(super) const XCNT_COUNTER_1250: usize = 17;
pub(super) const GETREG_9: usize = 15;
pub(super) const SETREG_9: usize = 18;
pub(super) const SOFT_CLAUSE_9: usize = 19;
pub(super) const SOFT_CLAUSE_10: usize = 20;
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
/// Where a gfx9 `s_setreg` hazard leaves its mark when the consumer is
/// itself an `s_setreg`: the hardware register, which only `s_getreg_b32`
/// reads (taint.rs keeps it per wave).
pub const HWREG_VICTIM: u16 = u16::MAX;
