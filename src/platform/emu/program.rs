//! A kernel's code, decoded once at load: the instructions from the entry to
//! the section end, each branch's target index, and the faults that bytes
//! which do not decode (or name registers the kernel descriptor did not
//! allocate, [`Allocation`]) raise if, and only if, they are executed.

use super::allocation::deps_of;
pub use super::allocation::Allocation;
use super::counters;
use super::deps::{self, Deps, VMask, VGPR_WORDS};
use super::fault::{Fault, FaultKind};
use super::hazards::{self, Hazard};
use super::modifiers::{self, Unsettled};
use super::shared_sgprs;
use super::unwritten;
use crate::isa::{Inst, Isa, Op, Shape};
use crate::platform::target::Target;
use std::collections::HashMap;

/// A kernel's code, decoded once. Slot `i` is the `i`-th instruction from the
/// entry; bytes that do not decode become a fault that fires only if executed.
#[derive(Debug, Clone)]
pub struct Program {
    pub insts: Vec<Result<Inst, Fault>>,
    /// Index of the taken-branch target for SOPP branches; `None` for other
    /// instructions and when the target is not an instruction boundary of
    /// the decoded code.
    pub targets: Vec<Option<usize>>,
    /// Byte offset just past the decoded code.
    pub end_offset: u64,
    /// Per instruction, the registers it touches ([`Deps`]) in wave32 and
    /// wave64 (lane masks are one or two SGPRs wide).
    pub(crate) deps: [Vec<Deps>; 2],
    /// Per instruction and wave size, `deps`' flags alone: the one byte the
    /// run loop reads for every instruction of a clean wave, kept dense
    /// (a `Deps` spans several cache lines since VGPR masks cover 1024).
    pub(crate) flags: [Vec<u8>; 2],
    /// Per wave size, the registers a path may read before writing them.
    pub(crate) may: [(u128, VMask); 2],
    /// Per wave size, the hazards each instruction consumes ([`hazards`]):
    /// only instructions listed here carry [`deps::F_HAZ`].
    pub(crate) hazards: [HashMap<usize, Vec<Hazard>>; 2],
    /// Per wave size: no path touches a register a memory access may still
    /// write ([`counters::statically_clean`]), so waves skip the in-flight
    /// bookkeeping.
    pub(crate) counters_clean: [bool; 2],
    /// Per instruction index, what a modified `v_xad_u32` leaves unsettled
    /// on the target ([`modifiers::unsettled`]): only instructions listed
    /// here carry [`deps::F_MODS`].
    pub(crate) unsettled_modifiers: HashMap<usize, Unsettled>,
    /// The hazards [`Program::waive_hazards`] dropped, described (empty for
    /// a kernel under test).
    pub(crate) waived_hazards: Vec<String>,
}

impl Program {
    /// Decode `code` (the section holding the kernel, at virtual address
    /// `base`) from `entry` to the section end as `isa`'s instructions.
    /// Instructions naming registers past `allocation` become faults. No
    /// target is named, so no modifier reading is documented: every
    /// `v_xad_u32` modifier is unsettled ([`Program::decode_for`] knows the
    /// target's).
    pub fn decode(
        isa: Isa,
        code: &[u8],
        base: u64,
        entry: u64,
        allocation: &Allocation,
    ) -> Program {
        Program::decode_with(isa, None, code, base, entry, allocation)
    }

    /// [`Program::decode`] for `target`: its Isa, and the modifier readings
    /// its row documents ([`crate::platform::target::Feature::XadModifiersMeasured`]).
    pub fn decode_for(
        target: &Target,
        code: &[u8],
        base: u64,
        entry: u64,
        allocation: &Allocation,
    ) -> Program {
        Program::decode_with(target.isa, Some(target), code, base, entry, allocation)
    }

    fn decode_with(
        isa: Isa,
        target: Option<&Target>,
        code: &[u8],
        base: u64,
        entry: u64,
        allocation: &Allocation,
    ) -> Program {
        let (mut insts, offsets) = sweep(isa, code, base, entry);
        if allocation.wave64 {
            refuse_vopd_in_wave64(&mut insts);
        }
        let targets = branch_targets(&insts, &offsets);
        if isa.gfx1250_insts {
            resolve_vgpr_msb(&mut insts, &targets);
        }
        check_allocation(allocation, &mut insts, &targets);
        let deps_for = |wave64: bool| -> Vec<Deps> {
            insts
                .iter()
                .map(|i| {
                    i.as_ref()
                        .map_or(Deps::default(), |inst| deps_of(inst, wave64))
                })
                .collect()
        };
        let mut deps = [deps_for(false), deps_for(true)];
        let successors = |i: usize| successors(&insts, &targets, i);
        let may = [
            unwritten::may_read_unwritten(&deps[0], successors),
            unwritten::may_read_unwritten(&deps[1], successors),
        ];
        let decoded: Vec<Option<&Inst>> = insts.iter().map(|i| i.as_ref().ok()).collect();
        let hazards = [false, true].map(|wave64| {
            hazards::analyse(
                isa,
                &decoded,
                &deps[usize::from(wave64)],
                successors,
                wave64,
                !allocation.xnack_off,
            )
        });
        let counters_clean = [false, true].map(|wave64| {
            counters::statically_clean(&decoded, &deps[usize::from(wave64)], successors)
        });
        for (w, found) in hazards.iter().enumerate() {
            for &i in found.keys() {
                deps[w][i].flags |= deps::F_HAZ;
            }
        }
        let unsettled_modifiers: HashMap<usize, Unsettled> = decoded
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| Some((i, modifiers::unsettled((*inst)?, target)?)))
            .collect();
        for &i in unsettled_modifiers.keys() {
            deps[0][i].flags |= deps::F_MODS;
            deps[1][i].flags |= deps::F_MODS;
        }
        let flags = [0, 1].map(|w| deps[w].iter().map(|d| d.flags).collect());
        Program {
            insts,
            targets,
            end_offset: base + code.len() as u64,
            deps,
            flags,
            may,
            hazards,
            counters_clean,
            unsettled_modifiers,
            waived_hazards: Vec::new(),
        }
    }

    /// Run as written: drop the wait-state hazards found (no instruction
    /// keeps [`deps::F_HAZ`], so no read inside a window is marked) and
    /// return them described, one line each. Only for the runtime's own
    /// kernels ([`super::packet::Issuer::Runtime`]): a kernel under test keeps
    /// every hazard as a verdict.
    pub(crate) fn waive_hazards(&mut self) -> Vec<String> {
        let mut found: Vec<(usize, &Hazard)> = self.hazards[1]
            .iter()
            .chain(&self.hazards[0])
            .flat_map(|(&i, hs)| hs.iter().map(move |h| (i, h)))
            .collect();
        found.sort_by_key(|(i, h)| (*i, h.rule, h.producer, h.reg));
        found.dedup_by_key(|(i, h)| (*i, h.rule, h.producer, h.reg));
        let text = |i: usize| match self.insts.get(i) {
            Some(Ok(inst)) => format!("`{inst}` at 0x{:x}", inst.offset),
            _ => String::from("an instruction"),
        };
        // One line per rule: how many reads, and the first.
        let mut rules: Vec<usize> = found.iter().map(|(_, h)| h.rule).collect();
        rules.sort_unstable();
        rules.dedup();
        let described = rules
            .into_iter()
            .map(|r| {
                let of_rule: Vec<_> = found.iter().filter(|(_, h)| h.rule == r).collect();
                let (i, h) = of_rule[0];
                let rule = &hazards::RULES[r];
                format!(
                    "{} read(s) inside the window of \"{}\" (needs {}; {}), first {} after {}",
                    of_rule.len(),
                    rule.name,
                    rule.needs,
                    rule.source,
                    text(*i),
                    text(h.producer)
                )
            })
            .collect();
        for w in 0..2 {
            self.hazards[w].clear();
            for d in &mut self.deps[w] {
                d.flags &= !deps::F_HAZ;
            }
            self.flags[w] = self.deps[w].iter().map(|d| d.flags).collect();
        }
        described
    }

    /// What the modifiers of instruction `pc` leave unsettled, if anything.
    pub(crate) fn unsettled_modifiers_at(&self, pc: usize) -> Option<&Unsettled> {
        self.unsettled_modifiers.get(&pc)
    }

    /// [`unwritten::may_read_unwritten`] for a wave of `W` lanes.
    pub(crate) fn may_read_unwritten<const W: usize>(&self) -> &(u128, VMask) {
        &self.may[usize::from(W == 64)]
    }

    /// The [`Deps`] of instruction `pc` in a wave of `W` lanes (none past the end).
    #[inline(always)]
    pub(crate) fn deps_at<const W: usize>(&self, pc: usize) -> &Deps {
        static NONE: Deps = Deps {
            s: 0,
            v: [0; VGPR_WORDS],
            rs: 0,
            rv: [0; VGPR_WORDS],
            ws: 0,
            wv: [0; VGPR_WORDS],
            xv: [0; VGPR_WORDS],
            flags: 0,
        };
        self.deps[usize::from(W == 64)].get(pc).unwrap_or(&NONE)
    }

    /// The [`Deps`] flags of instruction `pc` in a wave of `W` lanes (0 past the end).
    #[inline(always)]
    pub(crate) fn flags_at<const W: usize>(&self, pc: usize) -> u8 {
        self.flags[usize::from(W == 64)]
            .get(pc)
            .copied()
            .unwrap_or(0)
    }

    /// Whether waves of `W` lanes skip the in-flight bookkeeping.
    #[inline(always)]
    pub(crate) fn counters_clean<const W: usize>(&self) -> bool {
        self.counters_clean[usize::from(W == 64)]
    }

    /// The hazards instruction `pc` consumes in a wave of `W` lanes.
    pub(crate) fn hazards_at<const W: usize>(&self, pc: usize) -> &[Hazard] {
        self.hazards[usize::from(W == 64)]
            .get(&pc)
            .map_or(&[], |v| v.as_slice())
    }
}

/// Decode `code` from `entry` to its end, as a linear-sweep disassembler
/// does: each instruction (or fault) with its address.
/// Every instruction of `insts` checked against `allocation`
/// ([`Allocation::check`]), then gfx9's SGPRs that hold its special
/// registers ([`shared_sgprs`]).
fn check_allocation(
    allocation: &Allocation,
    insts: &mut [Result<Inst, Fault>],
    targets: &[Option<usize>],
) {
    for inst in insts.iter_mut() {
        if let Ok(decoded) = inst {
            *inst = allocation.check(*decoded);
        }
    }
    if allocation.sgprs.is_some() {
        let deps64: Vec<Deps> = insts
            .iter()
            .map(|i| {
                i.as_ref()
                    .map_or(Deps::default(), |inst| deps_of(inst, true))
            })
            .collect();
        let reachable = reachable(insts, targets);
        shared_sgprs::check(allocation, insts, &deps64, &reachable);
    }
}

fn sweep(isa: Isa, code: &[u8], base: u64, entry: u64) -> (Vec<Result<Inst, Fault>>, Vec<u64>) {
    let mut insts = Vec::new();
    let mut offsets = Vec::new();
    let mut pos = entry.saturating_sub(base) as usize;
    while pos < code.len() {
        offsets.push(base.wrapping_add(pos as u64));
        // A VOPD is its two halves at one offset (the X half has length 0).
        if let Some(pair) = crate::isa::vopd::decode_pair(isa, code, pos, base) {
            match pair {
                Ok([x, y]) => {
                    offsets.push(base.wrapping_add(pos as u64));
                    pos += y.len as usize;
                    insts.extend([Ok(x), Ok(y)]);
                }
                Err(e) => {
                    insts.push(Err(Fault::new(FaultKind::Unsupported, e.to_string())
                        .with_inst(e.offset(), e.dwords_hex())));
                    pos += 4;
                }
            }
            continue;
        }
        match crate::isa::decode(isa, code, pos, base) {
            Ok(inst) => {
                pos += inst.len as usize;
                insts.push(Ok(inst));
            }
            Err(e) => {
                insts.push(Err(Fault::new(FaultKind::Unsupported, e.to_string())
                    .with_inst(e.offset(), e.dwords_hex())));
                // Resynchronise on the next dword, as a linear-sweep disassembler does.
                pos += 4;
            }
        }
    }
    (insts, offsets)
}

/// VOPD is a wave32 encoding (the ISA guide: "VOPD instructions are only
/// supported in wave32"): in a wave64 kernel its first half is a fault.
fn refuse_vopd_in_wave64(insts: &mut [Result<Inst, Fault>]) {
    for slot in insts.iter_mut() {
        if let Ok(inst) = slot {
            if inst.len == 0 {
                let text = inst.to_string();
                *slot = Err(Fault::new(
                    FaultKind::Unsupported,
                    format!("a VOPD (dual-issue) word at offset 0x{:x} in a wave64 kernel: VOPD is a wave32 encoding", inst.offset),
                )
                .with_inst(inst.offset, text));
            }
        }
    }
}

/// Per instruction, the index its branch goes to; `None` for another
/// instruction or a branch to no decoded instruction's start.
fn branch_targets(insts: &[Result<Inst, Fault>], offsets: &[u64]) -> Vec<Option<usize>> {
    insts
        .iter()
        .map(|i| match i {
            Ok(inst) if inst.shape() == Shape::Branch => {
                // The first instruction at the target (a VOPD's X half
                // shares its offset with the Y half after it).
                let t = inst.branch_target();
                let at = offsets.partition_point(|&o| o < t);
                (offsets.get(at) == Some(&t)).then_some(at)
            }
            _ => None,
        })
        .collect()
}

/// The instructions that may execute after instruction `i`: none after an
/// ending, a fault or an unresolved branch target.
fn successors(
    insts: &[Result<Inst, Fault>],
    targets: &[Option<usize>],
    i: usize,
) -> [Option<usize>; 2] {
    let next = (i + 1 < insts.len()).then_some(i + 1);
    match &insts[i] {
        Err(_) => [None, None],
        Ok(inst) => match inst.op {
            Op::SEndpgm | Op::SCodeEnd => [None, None],
            Op::SBranch => [targets[i], None],
            _ if inst.shape() == Shape::Branch => [targets[i], next],
            _ => [next, None],
        },
    }
}

/// Which instructions some path from the entry reaches.
fn reachable(insts: &[Result<Inst, Fault>], targets: &[Option<usize>]) -> Vec<bool> {
    let mut seen = vec![false; insts.len()];
    let mut todo = vec![0];
    while let Some(i) = todo.pop() {
        if i >= insts.len() || seen[i] {
            continue;
        }
        seen[i] = true;
        todo.extend(successors(insts, targets, i).into_iter().flatten());
    }
    seen
}

/// The `s_set_vgpr_msb` setting an instruction runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Msb {
    Known(u8),
    /// Two paths reach the instruction with these different settings.
    Mixed(u8, u8),
}

/// CDNA5's VGPRs past v255 (`s_set_vgpr_msb`, LLVM's
/// AMDGPULowerVGPREncoding.cpp): every VGPR field keeps its 8 encoded bits
/// and takes bits 9:8 from the wave's current setting, 0 at kernel entry.
///
/// Resolved here, once, rather than tracked in the wave: the allocation
/// check, the taint shadow's per-instruction [`Deps`], the hazard windows
/// and the static counter check all read an instruction's registers when
/// the program is decoded. With the full 10-bit numbers written into each
/// [`Inst`] they stay correct unchanged, and the run loop pays nothing. It
/// needs the setting at each instruction to be the same on every path (what
/// LLVM emits: it sets the mode before each use). A forward pass over the
/// control flow finds it; where two paths disagree, an instruction naming a
/// VGPR becomes a fault that fires if executed, naming it and both settings,
/// rather than a guess at which registers it means.
fn resolve_vgpr_msb(insts: &mut [Result<Inst, Fault>], targets: &[Option<usize>]) {
    if insts.is_empty() {
        return;
    }
    let mut at: Vec<Option<Msb>> = vec![None; insts.len()];
    at[0] = Some(Msb::Known(0));
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let Some(here) = at[i] else { continue };
        let after = match &insts[i] {
            Ok(inst) if inst.op == Op::SSetVgprMsb => Msb::Known(inst.imm as u8),
            _ => here,
        };
        for next in successors(insts, targets, i).into_iter().flatten() {
            let merged = match (at[next], after) {
                (None, m) => m,
                (Some(Msb::Known(a)), Msb::Known(b)) if a != b => Msb::Mixed(a, b),
                (Some(m @ Msb::Mixed(..)), _) => m,
                (Some(Msb::Known(_)), m @ Msb::Mixed(..)) => m,
                (Some(m), _) => m,
            };
            if at[next] != Some(merged) {
                at[next] = Some(merged);
                work.push(next);
            }
        }
    }
    for (slot, msb) in insts.iter_mut().zip(at) {
        let Ok(inst) = slot else { continue };
        if let Some(why) = mode_write_reaching_msbs(inst, msb) {
            let message = format!(
                "instruction at offset 0x{:x} ({inst}) {why}: on some CDNA5 parts a MODE write \
                 also writes the VGPR MSBs (MODE 19:12) from the value's bits 19:12 (LLVM \
                 AMDGPULowerVGPREncoding, llvm-project PR 174681), and the emulator resolves \
                 them when the kernel loads",
                inst.offset
            );
            *slot = Err(Fault::new(FaultKind::Unsupported, message)
                .with_inst(inst.offset, inst.to_string()));
            continue;
        }
        match msb {
            None | Some(Msb::Known(0)) => {}
            Some(Msb::Known(bits)) => *inst = with_vgpr_msb(*inst, bits),
            Some(Msb::Mixed(a, b)) if names_a_vgpr(inst) => {
                let message = format!(
                    "instruction at offset 0x{:x} ({inst}) is reached with s_set_vgpr_msb settings 0x{a:02x} and 0x{b:02x} on different paths: which VGPRs it names is ambiguous, so it is not executed",
                    inst.offset
                );
                *slot = Err(Fault::new(FaultKind::Unsupported, message)
                    .with_inst(inst.offset, inst.to_string()));
            }
            Some(Msb::Mixed(..)) => {}
        }
    }
}

/// Why a CDNA5 `s_setreg*` to MODE cannot run under VGPR MSB setting
/// `msb`: its value is known only at run time (`s_setreg_b32`), or its
/// literal's bits 19:12 differ from the setting (so parts that copy them
/// would change which VGPRs later instructions name). LLVM 22's prologue
/// write (`hwreg(HW_REG_WAVE_MODE, 25, 1), 1` at the entry, setting 0)
/// agrees on every part.
fn mode_write_reaching_msbs(inst: &Inst, msb: Option<Msb>) -> Option<String> {
    let mode = inst.generation.mode_register().register;
    if !matches!(inst.op, Op::SSetregB32 | Op::SSetregImm32B32)
        || crate::isa::Hwreg::of(inst.imm as u32).id != mode
    {
        return None;
    }
    let copied = match inst.src[0] {
        crate::isa::Src::Lit(v) => ((v >> 12) & 0xff) as u8,
        _ => return Some("writes MODE from an SGPR, a value known only at run time".into()),
    };
    match msb {
        None => None,
        Some(Msb::Known(k)) if k == copied => None,
        Some(Msb::Known(k)) => Some(format!(
            "may set the VGPR MSBs to 0x{copied:02x} while s_set_vgpr_msb has them at 0x{k:02x}"
        )),
        Some(Msb::Mixed(a, b)) => Some(format!(
            "is reached with VGPR MSB settings 0x{a:02x} and 0x{b:02x} and may set them to 0x{copied:02x}"
        )),
    }
}

/// Whether `inst` has a VGPR operand an `s_set_vgpr_msb` setting extends.
fn names_a_vgpr(inst: &Inst) -> bool {
    with_vgpr_msb(*inst, 0xff) != *inst
}

/// `inst` with bits 9:8 of each VGPR operand taken from setting `bits`:
/// [1:0] src0 (a FLAT/GLOBAL address), [3:2] src1 (store data), [5:4]
/// src2, [7:6] the VGPR destination (llvm-objdump-22 reads them so).
fn with_vgpr_msb(mut inst: Inst, bits: u8) -> Inst {
    let high = |slot: u32| u16::from((bits >> (2 * slot)) & 3) << 8;
    for (slot, src) in inst.src.iter_mut().enumerate() {
        if let crate::isa::Src::Vgpr(r) = src {
            *r = (*r & 0xff) | high(slot as u32);
        }
    }
    let vector_dst = match inst.shape() {
        Shape::V1 => inst.op != Op::VNop,
        Shape::V2
        | Shape::V3
        | Shape::Cnd
        | Shape::Co
        | Shape::Ci
        | Shape::Mad64
        | Shape::Sh64
        | Shape::LshlAdd64
        | Shape::PkMov
        | Shape::Mov64
        | Shape::WriteLane
        | Shape::MemLoad(_) => true,
        _ => false,
    };
    if vector_dst {
        inst.dst = (inst.dst & 0xff) | high(3);
    }
    if let Shape::MemLoad(_) | Shape::MemStore(_) = inst.shape() {
        inst.addr = (inst.addr & 0xff) | high(0);
    }
    if let Shape::MemStore(_) = inst.shape() {
        inst.data = (inst.data & 0xff) | high(1);
    }
    inst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(isa: Isa, words: &[u32], sgprs: Option<u32>) -> Program {
        program_xnack(isa, words, sgprs, false)
    }

    fn program_xnack(isa: Isa, words: &[u32], sgprs: Option<u32>, xnack_off: bool) -> Program {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let allocation = Allocation {
            vgprs: 8,
            vgpr_origin: String::new(),
            sgprs,
            sgpr_origin: String::new(),
            wave64: true,
            xnack_off,
        };
        Program::decode(isa, &bytes, 0, 0, &allocation)
    }

    /// `s_mov_b32 sN, 0` (gfx9 SOP1).
    fn mov_zero(n: u32) -> u32 {
        0xbe80_0080 | n << 16
    }

    const S_ENDPGM: u32 = 0xbf81_0000;
    const VCC_FROM_EXEC: u32 = 0xbeea_017e; // s_mov_b64 vcc, exec
    const S0_FROM_FLAT_SCRATCH_LO: u32 = 0xbe80_0066; // s_mov_b32 s0, flat_scratch_lo

    /// Which of `words`' instructions fault, as (index, the special they name).
    fn special_faults(p: &Program) -> Vec<(usize, &'static str)> {
        p.insts
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| {
                let f = inst.as_ref().err()?;
                let special = ["VCC", "XNACK_MASK", "FLAT_SCRATCH"]
                    .into_iter()
                    .find(|s| f.message.contains(&format!("which holds {s} on gfx9")))?;
                Some((i, special))
            })
            .collect()
    }

    /// Of 24 gfx9 SGPRs, s22/s23 hold VCC, s20/s21 XNACK_MASK, s18/s19
    /// FLAT_SCRATCH: naming one faults when the kernel uses that special
    /// (or, for XNACK_MASK, unless the code object pins xnack-); an
    /// instruction no path reaches does not.
    #[test]
    fn sgprs_holding_gfx9_specials_fault_when_the_special_is_in_use() {
        let used = [
            VCC_FROM_EXEC,
            S0_FROM_FLAT_SCRATCH_LO,
            mov_zero(23),
            mov_zero(21),
            mov_zero(19),
            mov_zero(17),
            S_ENDPGM,
            mov_zero(22),
        ];
        let p = program(Isa::GFX9, &used, Some(24));
        assert_eq!(
            special_faults(&p),
            [(2, "VCC"), (3, "XNACK_MASK"), (4, "FLAT_SCRATCH")]
        );
        let f = p.insts[2].as_ref().unwrap_err();
        assert!(
            f.message.contains("uses VCC at offset 0x0"),
            "{}",
            f.message
        );
        let quiet = [mov_zero(23), mov_zero(21), mov_zero(19), S_ENDPGM];
        assert_eq!(
            special_faults(&program_xnack(Isa::GFX9, &quiet, Some(24), true)),
            []
        );
        assert_eq!(
            special_faults(&program_xnack(Isa::GFX9, &quiet, Some(24), false)),
            [(1, "XNACK_MASK")]
        );
        // Without an SGPR count (gfx10+) the specials have storage of their own.
        assert_eq!(special_faults(&program(Isa::GFX10, &used, None)), []);
    }

    /// gfx9 (llvm-mc-19 -mcpu=gfx908): VCC, EXEC, M0, flat_scratch,
    /// xnack_mask and ttmp are not SGPRs the count names; s17 is below the
    /// six of 24 that hold them, s24 and s101 are past it. Without an SGPR limit (gfx10+) none faults.
    #[test]
    fn special_sgprs_are_not_counted_and_the_first_past_the_count_faults() {
        let fine = [
            0xbeea_017e, // s_mov_b64 vcc, exec
            0xbefc_0000, // s_mov_b32 m0, s0
            0xbefe_0166, // s_mov_b64 exec, flat_scratch
            0xbee8_0001, // s_mov_b32 xnack_mask_lo, s1
            0xbe91_0080, // s_mov_b32 s17, 0 (below the six that hold the specials)
        ];
        let past = [
            0xbe98_0080, // s_mov_b32 s24, 0
            0xbee5_006d, // s_mov_b32 s101, ttmp1
        ];
        let code: Vec<u32> = fine.iter().chain(&past).copied().collect();
        let p = program(Isa::GFX9, &code, Some(24));
        for (i, inst) in p.insts.iter().enumerate() {
            match (i < fine.len(), inst) {
                (true, Ok(_)) => {}
                (false, Err(f)) => {
                    assert_eq!(f.kind, FaultKind::SgprOutOfRange);
                    let reg = if i == fine.len() { "s24" } else { "s101" };
                    assert!(
                        f.message
                            .contains(&format!("uses {reg}, past the 24 SGPRs")),
                        "{}",
                        f.message
                    );
                }
                (_, other) => panic!("instruction {i}: {other:?}"),
            }
        }
        let unlimited = program(Isa::GFX9, &code, None);
        assert!(unlimited.insts.iter().all(Result::is_ok));
    }
}

/// The project's own kernels would compute wrong on hardware if they missed
/// a wait or broke a wait-state rule: every embedded code object, on the
/// target it was built for, must have no hazard and must pass the static
/// counter check (which also keeps their waves off the in-flight
/// bookkeeping, so the emulator's speed rests on this).
#[cfg(test)]
mod own_kernels {
    use crate::platform::device::Device;

    #[test]
    fn every_embedded_kernel_is_free_of_hazards_and_missing_waits() {
        let mut problems = Vec::new();
        for target in crate::platform::target::TARGETS {
            for k in crate::platform::embedded::for_target(target.name) {
                let mut dev = crate::platform::emu::EmuDevice::for_target(target);
                // A Vec, so the ELF parser gets an allocator-aligned buffer
                // (the embedded bytes are not aligned).
                #[allow(clippy::unnecessary_to_owned)]
                let module = match dev.load(&k.bytes.to_vec()) {
                    Ok(m) => m,
                    Err(e) => {
                        problems.push(format!("{} {}: {e}", target.name, k.name));
                        continue;
                    }
                };
                for kernel in dev.kernels(module).unwrap_or_default() {
                    let p = &kernel.program;
                    let w = usize::from(kernel.descriptor.wave_size() == 64);
                    for (pc, hazards) in &p.hazards[w] {
                        for h in hazards {
                            let at = |i: usize| match p.insts.get(i) {
                                Some(Ok(inst)) => format!("0x{:x} {inst}", inst.offset),
                                _ => format!("#{i}"),
                            };
                            problems.push(format!(
                                "{} {}: {} at {} (producer {})",
                                target.name,
                                k.name,
                                super::hazards::RULES[h.rule].name,
                                at(*pc),
                                at(h.producer)
                            ));
                        }
                    }
                    if !p.counters_clean[w] {
                        problems.push(format!(
                            "{} {}: a path touches a register a memory access may still write",
                            target.name, k.name
                        ));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
