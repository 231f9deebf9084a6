//! Memory counters and in-flight registers: what a wave may not read yet.
//!
//! On hardware a memory instruction only *issues*: its result lands in the
//! destination registers later, and the wave learns that it has landed only
//! through a wait on the counter the instruction incremented (AMD's ISA
//! guides, "Data dependency resolution" and the `S_WAITCNT` /
//! `S_WAIT_*CNT` descriptions; LLVM `SIInsertWaitcnts.cpp`, which inserts
//! the waits a compiler needs). The emulator executes the access at once, so
//! without this module a kernel missing a wait computes the right answer
//! here and a wrong one on silicon.
//!
//! Each wave keeps the loads it issued and not yet waited for
//! ([`super::in_flight::InFlight`], run time's half; this file is the
//! counters' static half: what each generation counts and how a wait
//! decodes, and the pass that lets a correct kernel skip the queue).
//! A load's destination registers are *in flight* from issue until a wait
//! covers it: their shadow says undefined (origin [`super::shadow::IN_FLIGHT`],
//! resolved on read into a text naming the load and the wait it needs), and
//! the taint the loaded value really has is kept here to land when a wait
//! covers the load. A write to an in-flight register leaves it undefined
//! after the load lands too (the load may land after the write).
//!
//! Counters per generation ([`Model`], one value each; widths from the
//! guides' S_WAITCNT field layouts, checked against llvm-mc 19's encodings):
//!
//! | generation | counters (max) |
//! |---|---|
//! | gfx9 | vmcnt 63 (loads and stores, in order), lgkmcnt 15, expcnt 7 |
//! | gfx10, gfx11 | vmcnt 63 (loads), vscnt 63 (stores), lgkmcnt 63, expcnt 7 |
//! | gfx12 | loadcnt 63, storecnt 63, kmcnt 31, dscnt 63, samplecnt 63, bvhcnt 7, expcnt 7 |
//!
//! Vector memory of one kind returns in issue order, so `vmcnt(N)` completes
//! all but the N youngest. Scalar memory may return out of order, so only a
//! wait for 0 on lgkmcnt/kmcnt covers an SMEM load (LLVM forces 0 there for
//! the same reason). FLAT instructions count on the vector counter only:
//! the guides tell a shader that cannot know whether a FLAT address reaches
//! LDS to wait on both vmcnt and lgkmcnt ("use S_WAITCNT on both"), but the
//! emulator executes every FLAT address as global memory (an LDS or scratch
//! aperture address is unmapped and faults), and a FLAT access that reaches
//! global memory returns its data under vmcnt alone: LLVM waits on lgkmcnt
//! for a FLAT access only when it may reach LDS (SIInsertWaitcnts,
//! `mayAccessLDSThroughFlat`), and AMD's own ROCr blit kernels, run by every
//! ROCm program, wait `vmcnt(0)` alone after `flat_load_dwordx4` (seen
//! through the emulated KFD device). lgkmcnt is treated as out of order
//! throughout, as SMEM and LDS share it. A counter at its maximum stalls the next
//! issue until the oldest in-order access returns, which completes it.
//! `s_waitcnt_*cnt` with an SGPR operand other than `null` (which LLVM does
//! not assemble) waits for nothing here: the guides do not say how the SGPR
//! combines with the immediate, and waiting less is the strict reading.

use super::deps::{Deps, VMask, VGPR_WORDS};
use crate::isa::{Generation, Inst, MemoryCounters, Op, Shape, NULL};

/// Counter slots. Every generation uses the same slot for the same role;
/// [`Model`] names them and says which exist.
pub(super) const LOAD: usize = 0;
pub(super) const SCALAR: usize = 1;
const EXP: usize = 2;
pub(super) const STORE: usize = 3;
pub(super) const DS: usize = 4;
const SAMPLE: usize = 5;
const BVH: usize = 6;
pub(super) const SLOTS: usize = 7;

/// One generation's counters: names, maxima, order, which slot a store
/// counts on (gfx9 counts stores on vmcnt) and which one LDS shares (`flat`:
/// lgkmcnt before gfx12, where a wait on it also waits for LDS; dscnt on gfx12).
#[derive(Debug)]
pub(super) struct Model {
    names: [&'static str; SLOTS],
    pub(super) max: [u16; SLOTS],
    pub(super) in_order: [bool; SLOTS],
    store: usize,
    flat: usize,
    /// How a wait is spelled: `s_waitcnt vmcnt(N)` or `s_wait_loadcnt N`.
    gfx12_waits: bool,
}

const GFX9: Model = Model {
    names: ["vmcnt", "lgkmcnt", "expcnt", "vmcnt", "lgkmcnt", "-", "-"],
    max: [63, 15, 7, 63, 15, 0, 0],
    in_order: [true, false, true, true, false, true, true],
    store: LOAD,
    flat: SCALAR,
    gfx12_waits: false,
};

const GFX10: Model = Model {
    names: ["vmcnt", "lgkmcnt", "expcnt", "vscnt", "lgkmcnt", "-", "-"],
    max: [63, 63, 7, 63, 63, 0, 0],
    in_order: [true, false, true, true, false, true, true],
    store: STORE,
    flat: SCALAR,
    gfx12_waits: false,
};

const GFX12: Model = Model {
    names: [
        "loadcnt",
        "kmcnt",
        "expcnt",
        "storecnt",
        "dscnt",
        "samplecnt",
        "bvhcnt",
    ],
    max: [63, 31, 7, 63, 63, 63, 7],
    in_order: [true, false, true, true, true, true, true],
    store: STORE,
    flat: DS,
    gfx12_waits: true,
};

impl Model {
    /// The model of a generation's counters (its [`MemoryCounters`] value).
    pub(super) fn of(generation: Generation) -> &'static Model {
        match generation.memory_counters() {
            MemoryCounters::VmcntLgkm4 => &GFX9,
            MemoryCounters::Vscnt | MemoryCounters::VscntPacked => &GFX10,
            MemoryCounters::Split => &GFX12,
        }
    }

    /// The counters `inst` increments as a bit set of slots (0 for none).
    /// A FLAT access counts on the vector counter only (see the module
    /// comment: its address is global memory whenever it executes here).
    pub(super) fn counts(&self, inst: &Inst) -> u8 {
        let vector = match inst.shape() {
            Shape::MemLoad(_) => LOAD,
            Shape::MemStore(_) => self.store,
            Shape::Load(_) => return 1 << SCALAR,
            _ if inst.op == Op::SSendmsg => return 1 << SCALAR,
            _ => return 0,
        };
        1 << vector
    }

    /// The wait `inst` performs, as a threshold per slot (`u16::MAX`: no wait).
    pub(super) fn thresholds(&self, inst: &Inst, generation: Generation) -> [u16; SLOTS] {
        let mut t = [u16::MAX; SLOTS];
        let imm = inst.imm as u16;
        let field = |shift: u32, bits: u32| (imm >> shift) & ((1 << bits) - 1);
        match inst.op {
            Op::SWaitcnt => {
                let w = generation.memory_counters().waitcnt(imm);
                (t[LOAD], t[EXP], t[SCALAR]) = (w.vmcnt, w.expcnt, w.lgkmcnt);
            }
            // SOPK waits (gfx10/11): only the `null` form has a documented count.
            Op::SWaitcntVmcnt | Op::SWaitcntVscnt | Op::SWaitcntLgkmcnt | Op::SWaitcntExpcnt
                if inst.sgpr_dst() == NULL =>
            {
                let slot = match inst.op {
                    Op::SWaitcntVmcnt => LOAD,
                    Op::SWaitcntVscnt => STORE,
                    Op::SWaitcntLgkmcnt => SCALAR,
                    _ => EXP,
                };
                t[slot] = imm;
            }
            Op::SWaitLoadcnt => t[LOAD] = imm,
            Op::SWaitStorecnt => t[STORE] = imm,
            Op::SWaitKmcnt => t[SCALAR] = imm,
            Op::SWaitDscnt => t[DS] = imm,
            Op::SWaitExpcnt => t[EXP] = imm,
            Op::SWaitSamplecnt => t[SAMPLE] = imm,
            Op::SWaitBvhcnt => t[BVH] = imm,
            Op::SWaitLoadcntDscnt => (t[LOAD], t[DS]) = (field(8, 6), field(0, 6)),
            Op::SWaitStorecntDscnt => (t[STORE], t[DS]) = (field(8, 6), field(0, 6)),
            Op::SWaitIdle => t = [0; SLOTS],
            _ => {}
        }
        // gfx9 has one vector counter for loads and stores; gfx9-11 one
        // lgkmcnt for SMEM and LDS: the aliased slots wait alike.
        if self.store == LOAD {
            t[STORE] = t[LOAD];
        }
        if self.flat == SCALAR {
            t[DS] = t[SCALAR];
        }
        t
    }

    /// The wait that completes an access `younger` accesses older than the
    /// newest on slot `slot` (0 for an out-of-order counter).
    pub(super) fn spell(&self, slot: usize, younger: u16) -> String {
        let n = if self.in_order[slot] { younger } else { 0 };
        if self.gfx12_waits {
            format!("s_wait_{} {n}", self.names[slot])
        } else {
            format!("s_waitcnt {}({n})", self.names[slot])
        }
    }
}

/// Whether wait `inst` completes an access counted on `slot` ([`LOAD`],
/// [`STORE`], [`SCALAR`]) that has `younger` younger accesses on it: the
/// generation's own wait decoding and ordering (the XCNT rule in
/// `hazards/xcnt.rs` asks this too).
pub(super) fn wait_covers(inst: &Inst, slot: usize, younger: u16) -> bool {
    let model = Model::of(inst.generation);
    let threshold = model.thresholds(inst, inst.generation)[slot];
    if model.in_order[slot] {
        younger >= threshold
    } else {
        threshold == 0
    }
}

/// The registers an access will write when it lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest {
    None,
    /// `n` VGPRs from `first`, in the lanes of `exec` at issue.
    Vgprs {
        first: u16,
        n: u8,
        exec: u64,
    },
    /// `n` SGPRs from `first`.
    Sgprs {
        first: u8,
        n: u8,
    },
}

impl Dest {
    /// What `inst` loads into, in the lanes of `exec` for a vector load.
    pub(super) fn of(inst: &Inst, exec: u64) -> Dest {
        match inst.shape() {
            Shape::MemLoad(bytes) => Dest::Vgprs {
                first: inst.dst,
                n: bytes.div_ceil(4),
                exec,
            },
            Shape::Load(n) if inst.sgpr_dst() != NULL => Dest::Sgprs {
                first: inst.sgpr_dst(),
                n,
            },
            _ => Dest::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(words: &[u32], isa: crate::isa::Isa) -> Inst {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        crate::isa::decode(isa, &bytes, 0, 0).expect("decodes")
    }

    /// `s_waitcnt` fields as llvm-mc 19 encodes `vmcnt(1) expcnt(2) lgkmcnt(3)`.
    #[test]
    fn waitcnt_fields_per_generation() {
        use crate::isa::Isa;
        for (isa, word, generation) in [
            (Isa::GFX9, 0xbf8c_0321u32, Generation::Gfx9),
            (Isa::GFX10, 0xbf8c_0321, Generation::Gfx10),
            (Isa::GFX11, 0xbf89_0432, Generation::Gfx11),
        ] {
            let i = inst(&[word], isa);
            let t = Model::of(generation).thresholds(&i, generation);
            assert_eq!(
                (t[LOAD], t[EXP], t[SCALAR]),
                (1, 2, 3),
                "{word:08x} on {generation}"
            );
        }
        // The SOPK forms with `null` (llvm-mc 19): vmcnt 1, vscnt 2, lgkmcnt 0.
        for (isa, words, generation) in [
            (
                Isa::GFX10,
                [0xbc7d_0001u32, 0xbbfd_0002, 0xbd7d_0000],
                Generation::Gfx10,
            ),
            (
                Isa::GFX11,
                [0xbcfc_0001, 0xbc7c_0002, 0xbdfc_0000],
                Generation::Gfx11,
            ),
        ] {
            let t: Vec<[u16; SLOTS]> = words
                .iter()
                .map(|&w| Model::of(generation).thresholds(&inst(&[w], isa), generation))
                .collect();
            assert_eq!(
                (t[0][LOAD], t[1][STORE], t[2][SCALAR]),
                (1, 2, 0),
                "{generation}"
            );
            assert_eq!(
                (t[0][STORE], t[1][LOAD]),
                (u16::MAX, u16::MAX),
                "{generation}"
            );
        }
        // gfx12 s_wait_loadcnt_dscnt 0x102: loadcnt 1, dscnt 2.
        let i = inst(&[0xbfc8_0102], crate::isa::Isa::GFX12);
        let t = GFX12.thresholds(&i, Generation::Gfx12);
        assert_eq!((t[LOAD], t[DS]), (1, 2));
    }
}

/// The lanes an access writes (all of them for SGPRs).
pub(super) fn dest_lanes(dest: Dest) -> u64 {
    match dest {
        Dest::Vgprs { exec, .. } => exec,
        _ => u64::MAX,
    }
}

/// The registers of `dest` as SGPR codes or 256 + VGPR number (at most 16:
/// `s_load_b512`), without allocating: this runs for every memory access.
pub(super) fn dest_regs(dest: Dest) -> Regs {
    let mut out = Regs {
        regs: [0; 16],
        len: 0,
    };
    let (first, n, vgpr) = match dest {
        Dest::None => return out,
        Dest::Vgprs { first, n, .. } => (first, n, true),
        Dest::Sgprs { first, n } => (u16::from(first), n, false),
    };
    for i in 0..n.min(16) {
        let r = first + u16::from(i);
        if vgpr {
            out.regs[usize::from(out.len)] = 256 + r;
        } else if r < 128 {
            out.regs[usize::from(out.len)] = r;
        } else {
            break;
        }
        out.len += 1;
    }
    out
}

/// A short list of registers.
#[derive(Clone, Copy)]
pub(super) struct Regs {
    regs: [u16; 16],
    len: u8,
}

impl Regs {
    pub(super) fn iter(&self) -> std::slice::Iter<'_, u16> {
        self.regs[..usize::from(self.len)].iter()
    }
}

/// Whether no path through a kernel touches a register while a memory
/// access may still write it: then a wave of it needs no in-flight
/// bookkeeping at all (the loads land where they issue, as before), and a
/// correct kernel pays nothing for this module. A forward analysis to a
/// fixpoint over an over-approximation of what may be in flight: per issuing
/// instruction, the counters it may still be pending on and, per counter, a
/// lower bound on the accesses issued after it (a wait for N completes an
/// in-order access with at least N younger ones; fewer known younger ones
/// keeps it in flight longer, which is the safe side). Counter maxima are
/// ignored for the same reason. `false` as soon as an instruction touches a
/// register some entry may still write.
pub fn statically_clean(
    insts: &[Option<&Inst>],
    deps: &[Deps],
    successors: impl Fn(usize) -> [Option<usize>; 2],
) -> bool {
    let n = insts.len();
    if n == 0 {
        return true;
    }
    let mut states: Vec<Option<Outstanding>> = vec![None; n];
    states[0] = Some(Outstanding::new());
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let (Some(inst), Some(mut st)) = (insts[i], states[i].clone()) else {
            continue;
        };
        if touches_in_flight(insts, &st, &deps[i]) {
            return false;
        }
        let model = Model::of(inst.generation);
        retire_covered(&mut st, model, inst);
        let counts = model.counts(inst);
        if counts != 0 {
            issue(&mut st, inst, i, counts);
        }
        for next in successors(i).into_iter().flatten() {
            let merged = match &states[next] {
                None => st.clone(),
                Some(old) => join(old, &st),
            };
            if states[next].as_ref() != Some(&merged) {
                states[next] = Some(merged);
                work.push(next);
            }
        }
    }
    true
}

/// What [`statically_clean`] knows of one access that may be in flight.
#[derive(Clone, Copy, PartialEq, Eq)]
struct OutstandingAccess {
    /// The counters it may still be pending on, a bit per slot.
    pending: u8,
    /// Per counter, a lower bound on the accesses issued after it.
    younger: [u8; SLOTS],
}

/// The accesses that may be in flight at an instruction, by the pc that
/// issued them.
type Outstanding = std::collections::BTreeMap<usize, OutstandingAccess>;

/// The scalar and vector registers `inst` writes, as masks.
fn dest_masks(inst: &Inst) -> (u128, VMask) {
    let (mut s, mut v) = (0u128, [0u64; VGPR_WORDS]);
    for &r in dest_regs(Dest::of(inst, 0)).iter() {
        if r >= 256 {
            let r = usize::from(r - 256);
            v[r / 64] |= 1 << (r % 64);
        } else {
            s |= 1 << r;
        }
    }
    (s, v)
}

/// Whether an instruction reading and writing `d` touches a register an
/// entry of `st` may still write.
fn touches_in_flight(insts: &[Option<&Inst>], st: &Outstanding, d: &Deps) -> bool {
    let (mut fs, mut fv) = (0u128, [0u64; VGPR_WORDS]);
    for &pc in st.keys() {
        if let Some(p) = insts[pc] {
            let (s, v) = dest_masks(p);
            fs |= s;
            for k in 0..VGPR_WORDS {
                fv[k] |= v[k];
            }
        }
    }
    d.s & fs != 0 || (0..VGPR_WORDS).any(|k| d.v[k] & fv[k] != 0)
}

/// Drop from `st` what the wait `inst` (if it is one) certainly covers.
fn retire_covered(st: &mut Outstanding, model: &Model, inst: &Inst) {
    let t = model.thresholds(inst, inst.generation);
    st.retain(|_, e| {
        for (slot, &threshold) in t.iter().enumerate() {
            if e.pending >> slot & 1 == 1 {
                let covered = if model.in_order[slot] {
                    u16::from(e.younger[slot]) >= threshold
                } else {
                    threshold == 0
                };
                if covered {
                    e.pending &= !(1 << slot);
                }
            }
        }
        e.pending != 0
    });
}

/// `inst` at pc `i` issues an access on the counters `counts`: every entry
/// gets one more younger access there, and `inst` becomes an entry when it
/// writes registers.
fn issue(st: &mut Outstanding, inst: &Inst, i: usize, counts: u8) {
    for e in st.values_mut() {
        for slot in 0..SLOTS {
            if counts >> slot & 1 == 1 {
                e.younger[slot] = e.younger[slot].saturating_add(1).min(64);
            }
        }
    }
    let (s, v) = dest_masks(inst);
    if s != 0 || v != [0; VGPR_WORDS] {
        // A re-issue from a loop: one entry, the weaker bound.
        st.insert(
            i,
            OutstandingAccess {
                pending: counts,
                younger: [0; SLOTS],
            },
        );
    }
}

/// Where two paths meet: what may be in flight on either, each entry with
/// the counters of both and the smaller bound.
fn join(old: &Outstanding, st: &Outstanding) -> Outstanding {
    let mut m = old.clone();
    for (&pc, e) in st {
        m.entry(pc)
            .and_modify(|o| {
                o.pending |= e.pending;
                for k in 0..SLOTS {
                    o.younger[k] = o.younger[k].min(e.younger[k]);
                }
            })
            .or_insert(*e);
    }
    m
}
