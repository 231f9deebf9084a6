//! A wave issuing memory accesses and waiting for them: the run-time half
//! of [`super::counters`]. An access's destination registers go in flight
//! when it issues ([`super::in_flight::InFlight`]) and land, with the taint
//! the loaded value has, when a wait covers it; a read before that is
//! undefined, naming the load and the wait it needs.

use super::counters::{dest_lanes, dest_regs, Dest};
use super::in_flight::Access;
use super::deps::{Deps, VGPR_WORDS};
use super::shadow::Landing;
use super::wave::{Ctx, Wave};
use crate::isa::Inst;
use crate::platform::device::Origin;

impl<const W: usize> Wave<W> {
    /// `inst` (at index `pc`) issued: count it, and put the registers it
    /// loads in flight until a wait covers it. Called after it executed (its
    /// destination's shadow then holds the loaded value's taint).
    #[inline]
    pub(super) fn issued(&mut self, inst: &Inst, pc: usize, ctx: &Ctx<'_>) {
        if ctx.prog.counters_clean::<W>() {
            return;
        }
        let dest = Dest::of(inst, self.exec());
        self.issue_slow(inst, pc, dest, ctx);
    }

    #[inline(never)]
    fn issue_slow(&mut self, inst: &Inst, pc: usize, dest: Dest, ctx: &Ctx<'_>) {
        let completed = self.inflight.make_room(inst);
        self.land_all(&completed);
        self.inflight.recycle(completed);
        let regs = dest_regs(dest);
        // An earlier access still to write one of these registers: one that
        // returns in order with this one lands first and is superseded;
        // otherwise which lands last is a race, and the register is undefined.
        let mut before = [None; 16];
        for (i, &r) in regs.iter().enumerate() {
            before[i] = self.inflight.writer_of(r);
        }
        let Some(k) = self.inflight.push(inst, pc, dest) else {
            return;
        };
        let lanes = dest_lanes(dest);
        for (i, &reg) in regs.iter().enumerate() {
            let mut landing = self.take_in_flight(reg, lanes);
            if let Some((j, di)) = before[i] {
                if !self.inflight.ordered(inst.generation, j, k) {
                    landing = self.clobbered(ctx, reg, inst, j);
                    self.inflight.accesses[j].set_landing(usize::from(di), landing);
                    self.inflight.accesses[j].clobbered |= 1 << di;
                    self.inflight.accesses[k].clobbered |= 1 << i;
                }
                self.inflight.accesses[j].live &= !(1 << di);
            }
            self.inflight.accesses[k].set_landing(i, landing);
        }
        self.inflight.recompute_masks();
    }

    /// A wait executed: land the accesses it completes.
    #[inline(always)]
    pub(super) fn waited(&mut self, inst: &Inst) {
        if self.inflight.is_empty() {
            return;
        }
        let landed = self.inflight.wait(inst);
        self.land_all(&landed);
        self.inflight.recycle(landed);
    }

    /// Land the registers of completed accesses, oldest first.
    fn land_all(&mut self, landed: &[Access]) {
        for a in landed {
            let lanes = dest_lanes(a.dest);
            for (i, &reg) in dest_regs(a.dest).iter().enumerate() {
                if a.live >> i & 1 == 1 {
                    self.land(reg, lanes, a.landing(i));
                }
            }
        }
        if !landed.is_empty() {
            self.update_clean();
        }
    }

    /// Whether `d`'s instruction touches a register some access will still write.
    #[inline(always)]
    pub(super) fn touches_in_flight(&self, d: &Deps) -> bool {
        let f = &self.inflight;
        (d.s & f.s) != 0 || (0..VGPR_WORDS).fold(0, |acc, k| acc | (d.v[k] & f.v[k])) != 0
    }

    /// After the taint step of `inst`, which touches in-flight registers: one
    /// whose shadow no longer says "in flight" was written while its load may
    /// still land, so it is undefined now and stays so when the load lands.
    pub(super) fn check_in_flight_writes(&mut self, inst: &Inst, ctx: &Ctx<'_>) {
        for k in 0..self.inflight.accesses.len() {
            let a = &self.inflight.accesses[k];
            let (dest, live) = (a.dest, a.live);
            let lanes = dest_lanes(dest);
            for (i, &reg) in dest_regs(dest).iter().enumerate() {
                if live >> i & 1 == 0 || self.still_in_flight(reg, lanes) {
                    continue;
                }
                let a = &self.inflight.accesses[k];
                let landing = if a.clobbered >> i & 1 == 1 {
                    a.landing(i)
                } else {
                    self.clobbered(ctx, reg, inst, k)
                };
                let a = &mut self.inflight.accesses[k];
                a.set_landing(i, landing);
                a.clobbered |= 1 << i;
                self.land(reg, lanes, landing);
            }
        }
    }

    /// The undefined taint of register `reg`, written by `inst` while access
    /// `k` may still write it.
    fn clobbered(&self, ctx: &Ctx<'_>, reg: u16, inst: &Inst, k: usize) -> Landing {
        let a = &self.inflight.accesses[k];
        let load = match &ctx.prog.insts[a.pc] {
            Ok(load) => load.to_string(),
            Err(_) => String::from("?"),
        };
        let name = reg_text(reg);
        let wait = self.inflight.needed_wait(k, inst.generation);
        let key = (150, reg, inst.offset ^ a.offset << 32);
        let origin = ctx.mem.taint.origin(key, || Origin {
            what: format!(
                "{name} written while `{load}` at 0x{:x} may still write it (which lands last is a race): needs {wait} before the write",
                a.offset
            ),
            offset: inst.offset,
            instruction: inst.to_string(),
        });
        Landing::undefined(origin)
    }

    /// The text of an in-flight read's origin: `reg` read by `inst` before
    /// the access that writes it was waited for.
    pub(super) fn in_flight_text(&self, ctx: &Ctx<'_>, reg: u16) -> String {
        let name = reg_text(reg);
        let Some((k, _)) = self.inflight.writer_of(reg) else {
            return format!("{name} read while a memory access may still write it");
        };
        let a = &self.inflight.accesses[k];
        // Only an instruction that decoded executes, so only one issues.
        let Ok(load) = &ctx.prog.insts[a.pc] else {
            return format!("{name} read while a memory access may still write it");
        };
        format!(
            "{name} read before `{load}` at 0x{:x} was waited for: needs {}",
            a.offset,
            self.inflight.needed_wait(k, load.generation)
        )
    }
}

fn reg_text(reg: u16) -> String {
    if reg >= 256 {
        format!("v{}", reg - 256)
    } else {
        crate::isa::reg_name(reg as u8)
    }
}
