//! The loads a wave issued and has not waited for ([`InFlight`]): run time's
//! half of the memory counters. What each generation counts, and how a wait
//! decodes, is [`super::counters`]'s ([`Model`]); here each access is queued
//! when it issues, completed as waits cover it (or as a full in-order counter
//! stalls the next issue), and handed to `waits.rs` to land its registers
//! with the taint they really have. A register some access will still write
//! is *in flight*: its shadow says undefined until a wait covers the access.

use super::counters::{Dest, Model, DS, LOAD, SLOTS};
use super::deps::{VMask, VGPR_WORDS};
use super::shadow::Landing;
use crate::isa::{Generation, Inst};

/// One issued access not yet complete on every counter it counts on.
#[derive(Debug, Clone)]
pub(super) struct Access {
    /// Instruction index (for its text) and byte offset.
    pub(super) pc: usize,
    pub(super) offset: u64,
    /// Slots it counts on, and those on which it is complete.
    counts: u8,
    done: u8,
    pub(super) dest: Dest,
    /// Per destination register (bit i = register first + i): still to land.
    /// A later in-order load of the same register supersedes it.
    pub(super) live: u16,
    /// Per destination register: written (or raced) while in flight, so it
    /// lands undefined.
    pub(super) clobbered: u16,
    /// The taint each destination register takes when the access lands
    /// (index i = register first + i; lanes of `exec` for VGPRs).
    /// `None` while every one lands clean (the common case: kept out of line
    /// so an access stays small, since waves push and drop one per access).
    landing: Option<Box<[Landing; 16]>>,
}

impl Access {
    /// The taint destination register `i` takes when the access lands.
    pub(super) fn landing(&self, i: usize) -> Landing {
        self.landing
            .as_ref()
            .map_or_else(Landing::default, |l| l[i])
    }

    pub(super) fn set_landing(&mut self, i: usize, l: Landing) {
        if l.is_clean() && self.landing.is_none() {
            return;
        }
        self.landing.get_or_insert_with(Default::default)[i] = l;
    }
}

/// A wave's accesses in flight, oldest first.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    pub(super) accesses: Vec<Access>,
    /// VGPRs and SGPRs some in-flight access will still write.
    pub(super) v: VMask,
    pub(super) s: u128,
    /// Per counter slot, the accesses still pending on it.
    pending: [u16; SLOTS],
    /// Completed accesses on their way to land (kept for its capacity: a
    /// wave lands accesses at every wait, and allocating each time shows).
    landed: Vec<Access>,
}

impl InFlight {
    pub(super) fn clear(&mut self) {
        self.accesses.clear();
        self.pending = [0; SLOTS];
        self.v = [0; VGPR_WORDS];
        self.s = 0;
    }

    pub(super) fn is_empty(&self) -> bool {
        self.accesses.is_empty()
    }

    /// Make room for `inst`: a full in-order counter stalls the issue until
    /// its oldest access returns, which completes it. Returns the accesses
    /// now complete on every counter (removed; to land), oldest first.
    pub(super) fn make_room(&mut self, inst: &Inst) -> Vec<Access> {
        self.landed.clear();
        let model = Model::of(inst.generation);
        let counts = model.counts(inst);
        let mut completed = false;
        for slot in 0..SLOTS {
            if counts >> slot & 1 == 1 && model.in_order[slot] {
                let pending = self.pending_on(slot);
                if pending >= usize::from(model.max[slot]) {
                    self.complete_oldest(slot, pending + 1 - usize::from(model.max[slot]));
                    completed = true;
                }
            }
        }
        if completed {
            self.take_completed();
        }
        std::mem::take(&mut self.landed)
    }

    /// Record `inst` (at index `pc`) as issued, writing `dest` when it
    /// lands. Returns the index of the new access, or `None` when `inst`
    /// counts on no counter.
    pub(super) fn push(&mut self, inst: &Inst, pc: usize, dest: Dest) -> Option<usize> {
        let model = Model::of(inst.generation);
        let counts = model.counts(inst);
        // An access that writes no register matters only by its place in an
        // in-order counter that loads share (gfx9's vmcnt, gfx12's dscnt);
        // elsewhere (stores on vscnt/storecnt, messages on lgkmcnt) nothing
        // it does can change what a wait lands, so it is not kept.
        let shares_loads = counts & (1 << LOAD | 1 << DS) != 0
            && (0..SLOTS)
                .any(|s| counts >> s & 1 == 1 && model.in_order[s] && (s == LOAD || s == DS));
        if counts == 0 || (dest == Dest::None && !shares_loads) {
            return None;
        }
        for slot in 0..SLOTS {
            if counts >> slot & 1 == 1 {
                self.pending[slot] += 1;
            }
        }
        self.accesses.push(Access {
            pc,
            offset: inst.offset,
            counts,
            done: 0,
            dest,
            live: match dest {
                Dest::None => 0,
                Dest::Vgprs { n, .. } | Dest::Sgprs { n, .. } => ((1u32 << n) - 1) as u16,
            },
            clobbered: 0,
            landing: None,
        });
        Some(self.accesses.len() - 1)
    }

    /// Move the accesses complete on every counter to `landed`, oldest first.
    fn take_completed(&mut self) {
        let before = self.landed.len();
        let mut i = 0;
        while i < self.accesses.len() {
            if self.accesses[i].done == self.accesses[i].counts {
                self.landed.push(self.accesses.remove(i));
            } else {
                i += 1;
            }
        }
        if self.landed.len() != before {
            self.recompute_masks();
        }
    }

    /// Give back the buffer [`InFlight::make_room`] or [`InFlight::wait`] returned.
    pub(super) fn recycle(&mut self, mut landed: Vec<Access>) {
        landed.clear();
        self.landed = landed;
    }

    fn pending_on(&self, slot: usize) -> usize {
        usize::from(self.pending[slot])
    }

    fn complete_oldest(&mut self, slot: usize, mut n: usize) {
        for a in &mut self.accesses {
            if n == 0 {
                break;
            }
            if (a.counts & !a.done) >> slot & 1 == 1 {
                a.done |= 1 << slot;
                self.pending[slot] -= 1;
                n -= 1;
            }
        }
    }

    /// Apply the wait `inst`: mark what it covers complete on each counter.
    /// The accesses now complete on all their counters are removed and
    /// returned (to land their registers), oldest first.
    pub(super) fn wait(&mut self, inst: &Inst) -> Vec<Access> {
        self.landed.clear();
        let model = Model::of(inst.generation);
        let t = model.thresholds(inst, inst.generation);
        for (slot, &threshold) in t.iter().enumerate() {
            let pending = self.pending_on(slot);
            if pending <= usize::from(threshold) {
                continue;
            }
            if model.in_order[slot] {
                self.complete_oldest(slot, pending - usize::from(threshold));
            } else if threshold == 0 {
                self.complete_oldest(slot, pending);
            }
        }
        self.take_completed();
        std::mem::take(&mut self.landed)
    }

    pub(super) fn recompute_masks(&mut self) {
        let (mut v, mut s) = ([0u64; VGPR_WORDS], 0u128);
        for a in &self.accesses {
            for i in 0..16u8 {
                if a.live >> i & 1 == 0 {
                    continue;
                }
                match a.dest {
                    Dest::Vgprs { first, .. } => {
                        let r = usize::from(first + u16::from(i));
                        v[r / 64] |= 1 << (r % 64);
                    }
                    Dest::Sgprs { first, .. } => {
                        if let Some(r) = first.checked_add(i).filter(|&r| r < 128) {
                            s |= 1 << r;
                        }
                    }
                    Dest::None => {}
                }
            }
        }
        (self.v, self.s) = (v, s);
    }

    /// The in-flight access that will write register `reg` (SGPR code, or
    /// 256 + VGPR number), newest first, and its destination index.
    pub(super) fn writer_of(&self, reg: u16) -> Option<(usize, u8)> {
        self.accesses.iter().enumerate().rev().find_map(|(k, a)| {
            let i = match a.dest {
                Dest::Vgprs { first, n, .. } if reg >= 256 => {
                    (reg - 256).checked_sub(first).filter(|&i| i < u16::from(n))
                }
                Dest::Sgprs { first, n } if reg < 256 => reg
                    .checked_sub(u16::from(first))
                    .filter(|&i| i < u16::from(n)),
                _ => None,
            }?;
            (a.live >> i & 1 == 1).then_some((k, i as u8))
        })
    }

    /// Whether accesses `a` and `b` return in order with each other (they
    /// share an in-order counter and neither counts on an out-of-order one).
    pub(super) fn ordered(&self, generation: Generation, a: usize, b: usize) -> bool {
        let model = Model::of(generation);
        let (ca, cb) = (self.accesses[a].counts, self.accesses[b].counts);
        let shared_in_order = (0..SLOTS).any(|s| ca & cb >> s & 1 == 1 && model.in_order[s]);
        let out_of_order = (0..SLOTS).any(|s| (ca | cb) >> s & 1 == 1 && !model.in_order[s]);
        shared_in_order && !out_of_order
    }

    /// The wait that would complete access `k`, spelled for its generation:
    /// for each counter it is pending on, how many younger accesses may stay
    /// outstanding.
    pub(super) fn needed_wait(&self, k: usize, generation: Generation) -> String {
        let model = Model::of(generation);
        let a = &self.accesses[k];
        let mut parts = Vec::new();
        for slot in 0..SLOTS {
            if (a.counts & !a.done) >> slot & 1 == 0 {
                continue;
            }
            let younger = self.accesses[k + 1..]
                .iter()
                .filter(|b| (b.counts & !b.done) >> slot & 1 == 1)
                .count();
            parts.push(model.spell(slot, younger.min(usize::from(u16::MAX)) as u16));
        }
        parts.join(" and ")
    }
}
