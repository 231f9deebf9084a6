//! gfx9's special registers live in the wave's own SGPRs.
//!
//! On GCN (gfx9, CDNA1-3) VCC, XNACK_MASK and FLAT_SCRATCH have no storage
//! of their own: the hardware keeps them in the last SGPRs of the wave's
//! allocation, which is why LLVM counts them in GRANULATED_WAVEFRONT_SGPR_COUNT
//! (AMDGPUUsage, compute_pgm_rsrc1: "includes the special SGPRs for VCC,
//! Flat Scratch (GFX7 onwards) and XNACK (for GFX8 onwards)") and reserves
//! them at the top, "FLAT_SCRATCH, XNACK, VCC (in that order)"
//! (GCNSubtarget::getBaseReservedNumSGPRs). So of a wave's `n` SGPRs,
//! s[n-2:n-1] hold VCC, s[n-4:n-3] XNACK_MASK and s[n-6:n-5] FLAT_SCRATCH.
//!
//! A kernel whose `.amdhsa_next_free_sgpr` leaves no room for them still
//! assembles, and the emulator, which keeps VCC apart, would compute it as
//! if it had. Silicon would not: writing VCC changes s23, writing s23 changes
//! VCC. So an instruction that names one of those SGPRs faults when executed
//! if the kernel also uses the special register that lives there (by name,
//! or implicitly, as `v_cmp_*_e32` writes VCC), or if the hardware writes it
//! on its own (XNACK_MASK, when the code object does not pin `xnack-`). A
//! kernel that uses none of them may use all its SGPRs: nothing else writes
//! them. gfx10 and later keep these registers apart (LLVM reserves only VCC
//! there, and the hardware allocates every SGPR), so nothing is checked.

use super::allocation::Allocation;
use super::deps::Deps;
use super::fault::{Fault, FaultKind};
use crate::isa::Inst;

/// One special register and the two SGPRs below the allocation's end that
/// hold it: (name, distance of its low half from the end, its operand codes).
const SPECIALS: [(&str, u32, u32); 3] = [
    ("VCC", 2, 106),
    ("XNACK_MASK", 4, 104),
    ("FLAT_SCRATCH", 6, 102),
];

/// gfx9's s0-s101: the SGPRs a kernel can name as `sN`.
const ADDRESSABLE: u32 = 102;

/// Who else writes a special register: an instruction of the kernel, or the
/// hardware.
enum Writer {
    Inst(u64, String),
    Hardware(&'static str),
}

/// Turn into faults the reachable instructions (`reachable[i]`) that name an
/// SGPR sharing storage with a special register the kernel or the hardware
/// also uses. `deps` are the wave64 [`Deps`] of `insts` (gfx9 is wave64 only).
pub(super) fn check(
    allocation: &Allocation,
    insts: &mut [Result<Inst, Fault>],
    deps: &[Deps],
    reachable: &[bool],
) {
    let Some(n) = allocation.sgprs else {
        return;
    };
    for (name, from_end, code) in SPECIALS {
        let Some(low) = n.checked_sub(from_end).filter(|&low| low < ADDRESSABLE) else {
            continue;
        };
        let storage = (0b11u128 << low) & ((1u128 << ADDRESSABLE) - 1);
        let special = 0b11u128 << code;
        let Some(writer) = user(name, special, allocation, insts, deps, reachable) else {
            continue;
        };
        for (i, slot) in insts.iter_mut().enumerate() {
            let Ok(inst) = slot else { continue };
            let named = deps[i].s & storage;
            if !reachable[i] || named == 0 {
                continue;
            }
            let reg = named.trailing_zeros();
            let by = match &writer {
                Writer::Inst(offset, text) => {
                    format!("the kernel uses {name} at offset 0x{offset:x} ({text})")
                }
                Writer::Hardware(why) => format!("the hardware writes {name} {why}"),
            };
            let message = format!(
                "instruction at offset 0x{:x} ({inst}) uses s{reg}, which holds {name} on gfx9: \
                 of the {n} SGPRs the kernel descriptor allocates ({}), the last 2 hold VCC, the 2 \
                 before them XNACK_MASK and the 2 before those FLAT_SCRATCH, and {by}; \
                 .amdhsa_next_free_sgpr must leave them out (LLVM reserves them)",
                inst.offset, allocation.sgpr_origin
            );
            *slot = Err(Fault::new(FaultKind::SgprOutOfRange, message)
                .with_inst(inst.offset, inst.to_string()));
        }
    }
}

/// The first reachable instruction that names the special register
/// (`special`: its two operand-code bits), else the hardware when it writes
/// the register by itself.
fn user(
    name: &str,
    special: u128,
    allocation: &Allocation,
    insts: &[Result<Inst, Fault>],
    deps: &[Deps],
    reachable: &[bool],
) -> Option<Writer> {
    let named = insts.iter().enumerate().find_map(|(i, inst)| {
        let inst = inst.as_ref().ok()?;
        (reachable[i] && deps[i].s & special != 0)
            .then(|| Writer::Inst(inst.offset, inst.to_string()))
    });
    named.or_else(|| {
        (name == "XNACK_MASK" && !allocation.xnack_off).then_some(Writer::Hardware(
            "when it replays a faulting memory access (the code object's target ID \
             does not pin xnack-)",
        ))
    })
}
