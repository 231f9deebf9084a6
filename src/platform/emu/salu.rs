//! The scalar ALU: SOP1, SOP2, SOPC and SOPK operations on SGPRs and SCC,
//! EXEC save-and-modify, and SOPP branches. Called from [`Wave::step`], which
//! holds each op's semantics as a closure beside its opcode.

use super::fault::FaultKind;
use super::wave::{Ctx, Wave};
use crate::isa::{Hwreg, Inst, EXEC};
use crate::platform::device::DeviceError;

impl<const W: usize> Wave<W> {
    /// D = f(S0, S1).0; SCC = f(S0, S1).1 when it is `Some`.
    #[inline(always)]
    pub(super) fn sop2(&mut self, inst: &Inst, f: impl Fn(u32, u32) -> (u32, Option<bool>)) {
        let (d, scc) = f(self.s32(inst.src[0]), self.s32(inst.src[1]));
        self.ws(inst.sgpr_dst(), d);
        if let Some(c) = scc {
            self.scc = c;
        }
    }

    /// D.64 = f(S0.64, S1.64); SCC = D != 0.
    #[inline(always)]
    pub(super) fn sop2_64(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> u64) {
        let d = f(self.s64(inst.src[0]), self.s64(inst.src[1]));
        self.ws64(inst.sgpr_dst(), d);
        self.scc = d != 0;
    }

    /// D.64 = f(S0.64, S1.64), SCC untouched (gfx12's `s_add_nc_u64` and
    /// `s_sub_nc_u64`: "nc", no carry).
    pub(super) fn sop2_64_nc(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> u64) {
        let d = f(self.s64(inst.src[0]), self.s64(inst.src[1]));
        self.ws64(inst.sgpr_dst(), d);
    }

    /// D = f(S0).0; SCC = f(S0).1 when it is `Some`.
    #[inline(always)]
    pub(super) fn sop1(&mut self, inst: &Inst, f: impl Fn(u32) -> (u32, Option<bool>)) {
        let (d, scc) = f(self.s32(inst.src[0]));
        self.ws(inst.sgpr_dst(), d);
        if let Some(c) = scc {
            self.scc = c;
        }
    }

    /// D.64 = f(S0.64).0; SCC = f(S0.64).1 when it is `Some`.
    #[inline(always)]
    pub(super) fn sop1_64(&mut self, inst: &Inst, f: impl Fn(u64) -> (u64, Option<bool>)) {
        let (d, scc) = f(self.s64(inst.src[0]));
        self.ws64(inst.sgpr_dst(), d);
        if let Some(c) = scc {
            self.scc = c;
        }
    }

    /// SCC = f(S0, S1).
    #[inline(always)]
    pub(super) fn sopc(&mut self, inst: &Inst, f: impl Fn(u32, u32) -> bool) {
        self.scc = f(self.s32(inst.src[0]), self.s32(inst.src[1]));
    }

    /// SCC = f(S0.64, S1.64).
    #[inline(always)]
    pub(super) fn sopc64(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> bool) {
        self.scc = f(self.s64(inst.src[0]), self.s64(inst.src[1]));
    }

    /// SOPK compare: SCC = f(D, simm16).
    #[inline(always)]
    pub(super) fn sopk_cmp(&mut self, inst: &Inst, f: impl Fn(u32, i32) -> bool) {
        self.scc = f(self.s[usize::from(inst.sgpr_dst())], inst.imm);
    }

    pub(super) fn s_addc(&mut self, inst: &Inst) {
        let t = u64::from(self.s32(inst.src[0]))
            + u64::from(self.s32(inst.src[1]))
            + u64::from(self.scc);
        self.ws(inst.sgpr_dst(), t as u32);
        self.scc = t >> 32 != 0;
    }

    pub(super) fn s_subb(&mut self, inst: &Inst) {
        let (a, b, c) = (
            self.s32(inst.src[0]),
            self.s32(inst.src[1]),
            u32::from(self.scc),
        );
        self.ws(inst.sgpr_dst(), a.wrapping_sub(b).wrapping_sub(c));
        self.scc = u64::from(b) + u64::from(c) > u64::from(a);
    }

    /// 64-bit shifts: D.64 = f(S0.64, S1[5:0]); SCC = D != 0.
    pub(super) fn s_shift64(&mut self, inst: &Inst, f: impl Fn(u64, u32) -> u64) {
        let d = f(self.s64(inst.src[0]), self.s32(inst.src[1]) & 63);
        self.ws64(inst.sgpr_dst(), d);
        self.scc = d != 0;
    }

    /// s_lshl<n>_add_u32: D = (S0 << n) + S1; SCC = the result overflowed 32 bits.
    pub(super) fn s_lshl_add(&mut self, inst: &Inst, n: u32) {
        let t = (u64::from(self.s32(inst.src[0])) << n) + u64::from(self.s32(inst.src[1]));
        self.ws(inst.sgpr_dst(), t as u32);
        self.scc = t >> 32 != 0;
    }

    pub(super) fn s_cselect(&mut self, inst: &Inst) {
        let d = if self.scc {
            self.s32(inst.src[0])
        } else {
            self.s32(inst.src[1])
        };
        self.ws(inst.sgpr_dst(), d);
    }

    pub(super) fn s_cselect64(&mut self, inst: &Inst) {
        let d = if self.scc {
            self.s64(inst.src[0])
        } else {
            self.s64(inst.src[1])
        };
        self.ws64(inst.sgpr_dst(), d);
    }

    pub(super) fn s_cmov(&mut self, inst: &Inst) {
        if self.scc {
            let v = self.s32(inst.src[0]);
            self.ws(inst.sgpr_dst(), v);
        }
    }

    pub(super) fn s_cmov64(&mut self, inst: &Inst) {
        if self.scc {
            let v = self.s64(inst.src[0]);
            self.ws64(inst.sgpr_dst(), v);
        }
    }

    /// `s_getreg_b32`: a field of the hardware id register (HW_ID on gfx9,
    /// HW_ID1 on gfx10+) with the emulated values of [`super::hw_id`]; any
    /// other hardware register is unsupported, never a made-up value.
    pub(super) fn s_getreg(&mut self, inst: &Inst, ctx: &Ctx<'_>) -> Result<(), DeviceError> {
        let hwreg = Hwreg::of(inst.imm as u32);
        let (id, offset) = (hwreg.id, hwreg.offset);
        let hw_id_reg = inst.generation.hw_id().register;
        if id == inst.generation.mode_register().register {
            // The bits s_setreg wrote; the others are unsettled (taint.rs).
            self.ws(inst.sgpr_dst(), (self.mode >> offset) & hwreg.low_mask());
            return Ok(());
        }
        if id == crate::isa::IB_STS2 {
            // CDNA5's workgroup-cluster field, the only IB_STS2 bits the
            // decoder lets through: the emulator launches no clusters.
            self.ws(inst.sgpr_dst(), 0);
            return Ok(());
        }
        if id != hw_id_reg {
            return Err(self.fault(
                FaultKind::Unsupported,
                inst,
                format!(
                    "s_getreg_b32 of hardware register {id} is not emulated (only the hardware id, register {hw_id_reg} on {})",
                    inst.generation
                ),
            ));
        }
        let value = super::emulated::hw_id(inst.generation, self.at, ctx.compute_units);
        self.ws(inst.sgpr_dst(), (value >> offset) & hwreg.low_mask());
        Ok(())
    }

    /// `s_setreg_b32` / `s_setreg_imm32_b32`: a MODE field := S0. The decoder
    /// accepted only fields that change nothing the emulator runs, so this
    /// records the value for `s_getreg_b32` and nothing else.
    pub(super) fn s_setreg(&mut self, inst: &Inst) {
        let hwreg = Hwreg::of(inst.imm as u32);
        let field = hwreg.bits();
        let value = self.s32(inst.src[0]).checked_shl(hwreg.offset).unwrap_or(0);
        self.mode = (self.mode & !field) | (value & field);
        self.mode_written |= field;
    }

    pub(super) fn s_cmovk(&mut self, inst: &Inst) {
        if self.scc {
            self.ws(inst.sgpr_dst(), inst.imm as u32)
        }
    }

    pub(super) fn s_addk(&mut self, inst: &Inst) {
        let (d, o) = (self.s[usize::from(inst.sgpr_dst())] as i32).overflowing_add(inst.imm);
        self.ws(inst.sgpr_dst(), d as u32);
        self.scc = o;
    }

    pub(super) fn s_mulk(&mut self, inst: &Inst) {
        let d = (self.s[usize::from(inst.sgpr_dst())] as i32).wrapping_mul(inst.imm);
        self.ws(inst.sgpr_dst(), d as u32);
    }

    /// s_*_saveexec_b32: D = EXEC_LO; EXEC_LO = f(S0, EXEC_LO); SCC = EXEC_LO != 0.
    #[inline(always)]
    pub(super) fn saveexec32(&mut self, inst: &Inst, f: impl Fn(u32, u32) -> u32) {
        let ex = self.s[EXEC as usize];
        let new = f(self.s32(inst.src[0]), ex);
        self.ws(inst.sgpr_dst(), ex);
        self.s[EXEC as usize] = new;
        self.scc = new != 0;
    }

    /// s_*_saveexec_b64: D.64 = EXEC; EXEC = f(S0.64, EXEC); SCC = EXEC != 0.
    #[inline(always)]
    pub(super) fn saveexec64(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> u64) {
        let ex = u64::from(self.s[EXEC as usize]) | u64::from(self.s[EXEC as usize + 1]) << 32;
        let new = f(self.s64(inst.src[0]), ex);
        self.ws64(inst.sgpr_dst(), ex);
        self.s[EXEC as usize] = new as u32;
        self.s[EXEC as usize + 1] = (new >> 32) as u32;
        self.scc = new != 0;
    }

    /// A SOPP branch at index `pc`: when `taken`, continue at its target.
    #[inline(always)]
    pub(super) fn branch(
        &mut self,
        inst: &Inst,
        ctx: &Ctx<'_>,
        pc: usize,
        taken: bool,
    ) -> Result<(), DeviceError> {
        if taken {
            match ctx.prog.targets.get(pc).copied().flatten() {
                Some(target) => self.pc = target,
                None => return Err(self.bad_branch(inst)),
            }
        }
        Ok(())
    }

    #[cold]
    fn bad_branch(&self, inst: &Inst) -> DeviceError {
        let message = format!(
            "branch at offset 0x{:x} ({inst}) goes to 0x{:x}, which is not an instruction boundary of the kernel's code",
            inst.offset,
            inst.branch_target()
        );
        self.fault(FaultKind::BadBranch, inst, message)
    }

    #[cold]
    pub(super) fn code_end(&self, inst: &Inst) -> DeviceError {
        let message = format!(
            "executed s_code_end padding at offset 0x{:x} (missing s_endpgm?)",
            inst.offset
        );
        self.fault(FaultKind::CodeEnd, inst, message)
    }
}
