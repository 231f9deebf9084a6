//! What an instruction reads and writes as the hazard rules see it:
//! registers as masks, the instruction kinds the rules name, and the
//! dependency-counter wait's fields.

use crate::isa::{Format, Inst, Op, Shape, Src, NULL};
use crate::platform::emu::deps::{Deps, VMask, SCC_BIT, VGPR_WORDS};

/// Registers as masks: SGPR codes (SCC excluded) and VGPRs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Regs {
    pub(super) s: u128,
    pub(super) v: VMask,
}
impl Regs {
    pub(super) fn overlap(&self, o: &Regs) -> Option<u16> {
        let s = self.s & o.s;
        if s != 0 {
            return Some(s.trailing_zeros() as u16);
        }
        (0..VGPR_WORDS).find_map(|k| {
            let v = self.v[k] & o.v[k];
            (v != 0).then(|| 256 + (64 * k) as u16 + v.trailing_zeros() as u16)
        })
    }
    pub(super) fn is_empty(&self) -> bool {
        self.s == 0 && self.v == [0; VGPR_WORDS]
    }
}
pub(super) fn sgpr(r: u8) -> u128 {
    if r < 128 && r != NULL {
        1u128 << r
    } else {
        0
    }
}
pub(super) fn vgprs(r: u16, n: u8) -> VMask {
    let mut m = [0u64; VGPR_WORDS];
    for r in (0..u16::from(n))
        .map(|i| usize::from(r + i))
        .filter(|&r| r < 64 * VGPR_WORDS)
    {
        m[r / 64] |= 1 << (r % 64);
    }
    m
}
pub(super) fn is_valu(inst: &Inst) -> bool {
    matches!(
        crate::isa::table::info(inst.op).format,
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
    )
}
pub(super) fn is_salu(inst: &Inst) -> bool {
    matches!(
        crate::isa::table::info(inst.op).format,
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk
    ) && inst.shape() != Shape::KWait
}
pub(super) fn is_vmem(inst: &Inst) -> bool {
    matches!(inst.shape(), Shape::MemLoad(_) | Shape::MemStore(_))
}
/// SGPRs `d` writes (full writes, and the partial ones it lists as reads
/// when they are the instruction's destination).
pub(super) fn sgpr_writes(inst: &Inst, d: &Deps) -> u128 {
    let partial = match inst.op {
        Op::SCmovB32 | Op::SCmovkI32 => sgpr(inst.sgpr_dst()),
        Op::SCmovB64 => sgpr(inst.sgpr_dst()) | sgpr(inst.sgpr_dst().wrapping_add(1)),
        _ => 0,
    };
    (d.ws | partial) & !(1u128 << SCC_BIT)
}
/// VGPRs `inst` writes, partial writes (DPP, v_writelane) included.
pub(super) fn vgpr_writes(inst: &Inst, d: &Deps) -> VMask {
    let mut v = d.wv;
    if is_valu(inst) && (inst.dpp.is_some() || inst.shape() == Shape::WriteLane) {
        let extra = vgprs(inst.dst, 1);
        for k in 0..VGPR_WORDS {
            v[k] |= extra[k];
        }
    }
    v
}
pub(super) fn sgpr_reads(d: &Deps) -> u128 {
    d.rs & !(1u128 << SCC_BIT)
}
/// The VGPR an instruction reads first: a memory address, or src0.
pub(super) fn first_vgpr_source(inst: &Inst) -> Option<u16> {
    if is_vmem(inst) {
        return Some(256 + inst.addr);
    }
    inst.src.iter().find_map(|s| match s {
        Src::Vgpr(r) => Some(256 + *r),
        _ => None,
    })
}
/// The `s_waitcnt_depctr`/`s_wait_alu` immediate fields (LLVM
/// AMDGPUAsmUtils DepCtrInfo): sa_sdst bit 0, va_vcc bit 1, va_sdst 11:9.
pub(super) fn depctr(inst: &Inst) -> Option<(bool, bool, bool)> {
    (inst.op == Op::SWaitcntDepctr).then(|| {
        let imm = inst.imm as u32;
        (imm & 1 == 0, imm >> 1 & 1 == 0, imm >> 9 & 7 == 0)
    })
}
