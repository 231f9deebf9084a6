//! The registers a kernel descriptor gives each wave ([`Allocation`]), and
//! the check that finds, when a kernel is decoded, every instruction naming
//! a register past them (it faults if executed, [`super::program`]).

use super::deps::{self, Deps, VGPR_WORDS};
use super::fault::{Fault, FaultKind};
use crate::isa::Inst;
use crate::platform::codeobj::descriptor::GRANULATED_WORKITEM_VGPR_COUNT;
use crate::platform::codeobj::KernelDescriptor;
use crate::platform::target::Target;

/// gfx9's user-addressable SGPRs are s0-s101; codes 102-105 are
/// flat_scratch and xnack_mask, then VCC, ttmp, m0 and EXEC: special
/// registers no allocation names.
const GFX9_ADDRESSABLE_SGPRS: u32 = 102;

/// The registers a kernel descriptor gives each wave on one target, and how
/// each count follows from the descriptor's fields (for the fault messages).
///
/// VGPRs: [`KernelDescriptor::vgpr_count_for`] (granules of 8 in wave32 and 4
/// in wave64 on gfx10+, 4 on gfx908 whose AGPRs are a separate file, and on
/// gfx90a/gfx940+ the unified file in granules of 8 with the AGPRs from
/// ACCUM_OFFSET). The launch clears only these rows and the shadow
/// (`taint`) marks only these undefined; no instruction reaching past them
/// executes, so no other row is ever read.
///
/// SGPRs: on gfx9 only, (GRANULATED_WAVEFRONT_SGPR_COUNT + 1) * 8 (the
/// field's encoding granule; LLVM's AMDGPUUsage, compute_pgm_rsrc1 table:
/// the count for GFX6-GFX9 includes the special SGPRs VCC, FLAT_SCRATCH and
/// XNACK_MASK). Which of those the assembler reserved (2, 4 or 6 SGPRs,
/// `.amdhsa_reserve_*`) is not in the descriptor, so the limit is the whole
/// count: an SGPR at or past it is past anything the kernel declared.
/// gfx10+ hardware ignores the field and allocates every SGPR (LLVM's
/// AMDGPUAsmPrinter writes 0 there since llvm-project PR 154666, "GFX10+ will
/// always allocate 128 SGPRs and this field must be 0", and llvm-objdump
/// calls set bits reserved on gfx10+), so there is no SGPR limit to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub vgprs: u32,
    pub vgpr_origin: String,
    /// `None`: every SGPR is available (gfx10+).
    pub sgprs: Option<u32>,
    pub sgpr_origin: String,
    /// Lane masks are SGPR pairs (wave64) or single SGPRs (wave32).
    pub wave64: bool,
    /// The code object's target ID says `xnack-`: the hardware never replays
    /// a memory access, so it never writes XNACK_MASK by itself.
    pub xnack_off: bool,
}

impl Allocation {
    /// What `kd` allocates on `target`.
    pub fn of(kd: &KernelDescriptor, target: &Target) -> Allocation {
        let arch = target.name;
        let granules = kd.get(GRANULATED_WORKITEM_VGPR_COUNT);
        let vgpr_origin = if target.has(crate::platform::target::Feature::UnifiedVgprs) {
            format!(
                "GRANULATED_WORKITEM_VGPR_COUNT={granules}: {} VGPRs and AGPRs in granules of 8 on {arch}, \
                 the AGPRs from ACCUM_OFFSET at {}",
                kd.unified_vgpr_file(),
                kd.accum_offset()
            )
        } else {
            format!(
                "GRANULATED_WORKITEM_VGPR_COUNT={granules}, granule {} in wave{}",
                kd.vgpr_count_for(arch) / (granules + 1),
                kd.wave_size()
            )
        };
        let counted = target.generation().descriptor_layout().counts_sgprs();
        let sgprs = counted.then(|| kd.gfx9_sgpr_count());
        let sgpr_origin = format!(
            "GRANULATED_WAVEFRONT_SGPR_COUNT={}, granule 8 on gfx9; VCC, FLAT_SCRATCH and XNACK_MASK included",
            kd.get(crate::platform::codeobj::descriptor::GRANULATED_WAVEFRONT_SGPR_COUNT_GFX9)
        );
        Allocation {
            vgprs: kd.vgpr_count_for(arch),
            vgpr_origin,
            sgprs,
            sgpr_origin,
            wave64: kd.wave_size() == 64,
            xnack_off: false,
        }
    }

    /// The same allocation for a code object whose target ID pins `xnack-`
    /// (`off` true) or leaves it on or "any".
    pub fn with_xnack_off(mut self, off: bool) -> Allocation {
        self.xnack_off = off;
        self
    }

    /// `inst` as decoded, or the fault it raises if executed because it
    /// names a register past the allocation (found from [`deps::deps`],
    /// which names every register an instruction reads or writes).
    pub(super) fn check(&self, inst: Inst) -> Result<Inst, Fault> {
        let deps = deps_of(&inst, self.wave64);
        let vgpr_end = (0..VGPR_WORDS)
            .rev()
            .find(|&k| deps.v[k] != 0)
            .map_or(0, |k| 64 * k as u32 + 64 - deps.v[k].leading_zeros());
        if vgpr_end > self.vgprs {
            let message = format!(
                "instruction at offset 0x{:x} ({inst}) uses VGPRs up to v{} but the kernel descriptor allocates {} ({})",
                inst.offset,
                vgpr_end - 1,
                self.vgprs,
                self.vgpr_origin
            );
            return Err(Fault::new(FaultKind::VgprOutOfRange, message)
                .with_inst(inst.offset, inst.to_string()));
        }
        if let Some(sgprs) = self.sgprs {
            let limit = sgprs.min(GFX9_ADDRESSABLE_SGPRS);
            let addressable = (1u128 << GFX9_ADDRESSABLE_SGPRS) - 1;
            let past = deps.s & addressable & !((1u128 << limit) - 1);
            if past != 0 {
                let message = format!(
                    "instruction at offset 0x{:x} ({inst}) uses s{}, past the {sgprs} SGPRs the kernel descriptor allocates ({})",
                    inst.offset,
                    127 - past.leading_zeros(),
                    self.sgpr_origin
                );
                return Err(Fault::new(FaultKind::SgprOutOfRange, message)
                    .with_inst(inst.offset, inst.to_string()));
            }
        }
        Ok(inst)
    }
}

/// [`deps::deps`], plus the SGPR pair a gfx9 `v_cmpx` writes besides EXEC
/// ([`Inst::cmpx_sgpr_dst`]), written in full.
pub(super) fn deps_of(inst: &Inst, wave64: bool) -> Deps {
    let mut deps = deps::deps(inst, wave64);
    if let Some(pair) = inst.cmpx_sgpr_dst() {
        let bits = (0..if wave64 { 2 } else { 1 })
            .map(|i| u32::from(pair) + i)
            .filter(|&r| r < 128)
            .fold(0u128, |m, r| m | 1 << r);
        deps.s |= bits;
        deps.ws |= bits;
    }
    deps
}
