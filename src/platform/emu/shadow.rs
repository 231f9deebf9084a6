//! A wave's shadow registers and the taint values that flow through them:
//! undefined and unsettled lanes with the origin of each ([`super::taint`]
//! updates them as instructions run; [`super::counters`] keeps the taint a
//! load will land with). Types only: no wave, no instruction.

use super::deps::{VMask, VGPR_WORDS};
use crate::platform::device::Taint;

/// Origin placeholders, replaced by a concrete origin naming the register
/// and the instruction when the register is first read.
pub(super) const UNINIT: u32 = u32::MAX;
pub(super) const DEALLOC: u32 = u32::MAX - 1;
pub(super) const HI_WRITTEN: u32 = u32::MAX - 2;
/// A register a memory access may still write ([`super::counters`]): the
/// text names the access and the wait it needs, resolved on each read.
pub(super) const IN_FLIGHT: u32 = u32::MAX - 3;

/// One wave's shadow registers.
pub struct Shadow {
    /// Per SGPR code (SCC at [`SCC_BIT`]): undefined, unsettled.
    pub(super) s_undef: u128,
    pub(super) s_unset: u128,
    /// Origin per SGPR, valid where `s_oset` has the bit (else [`UNINIT`]):
    /// a mask to clear per wave instead of a table to fill.
    pub(super) s_origin: [u32; 128],
    pub(super) s_oset: u128,
    /// Per VGPR: lanes undefined, lanes unsettled, one origin.
    pub(super) v_undef: Vec<u64>,
    pub(super) v_unset: Vec<u64>,
    pub(super) v_origin: Vec<u32>,
    /// VGPRs with any tainted lane (the clean-path test reads this).
    pub(super) v_any: VMask,
    /// Set when the wave was stopped on a tainted branch, EXEC or address.
    pub(super) stop: Option<WaveStop>,
    /// No register holds taint: instructions skip the test unless flagged.
    pub(super) clean: bool,
}

impl Default for Shadow {
    fn default() -> Self {
        Shadow {
            s_undef: 0,
            s_unset: 0,
            s_origin: [UNINIT; 128],
            s_oset: 0,
            v_undef: vec![0; 256],
            v_unset: vec![0; 256],
            v_origin: vec![UNINIT; 256],
            v_any: [0; VGPR_WORDS],
            stop: None,
            clean: false,
        }
    }
}

/// A wave stopped by taint: its global lane 0, lanes, kind and origin id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveStop {
    pub first_lane: u64,
    pub lanes: u64,
    pub taint: Taint,
    pub origin: u32,
}

/// Taint of a scalar value.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct S {
    pub(super) undef: bool,
    pub(super) unset: bool,
    pub(super) origin: u32,
}

impl S {
    pub(super) fn tainted(&self) -> bool {
        self.undef || self.unset
    }
    pub(super) fn or(self, o: S) -> S {
        let origin = if self.undef || (self.unset && !o.undef) {
            self.origin
        } else {
            o.origin
        };
        S {
            undef: self.undef || o.undef,
            unset: self.unset || o.unset,
            origin,
        }
    }
}

/// Taint of a lane array: undefined lanes, unsettled lanes, one origin.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct L {
    pub(super) u: u64,
    pub(super) n: u64,
    pub(super) origin: u32,
}

/// The taint a register takes when a memory access lands in it.
pub(super) type Landing = L;

impl L {
    /// Neither undefined nor unsettled anywhere.
    pub(super) fn is_clean(&self) -> bool {
        (self.u | self.n) == 0
    }

    /// Undefined in every lane, from `origin`.
    pub(super) fn undefined(origin: u32) -> L {
        L {
            u: u64::MAX,
            n: 0,
            origin,
        }
    }

    pub(super) fn or(self, o: L) -> L {
        let origin = if self.u != 0 || (self.n != 0 && o.u == 0) {
            self.origin
        } else {
            o.origin
        };
        L {
            u: self.u | o.u,
            n: self.n | o.n,
            origin,
        }
    }
    /// Only the `mask` lanes (so the origin kept is one that matters there).
    pub(super) fn masked(self, mask: u64) -> L {
        L {
            u: self.u & mask,
            n: self.n & mask,
            origin: self.origin,
        }
    }
    /// The scalar taint of a value computed from these lanes' `mask` lanes.
    pub(super) fn reduce(self, mask: u64) -> S {
        S {
            undef: self.u & mask != 0,
            unset: self.n & mask != 0,
            origin: self.origin,
        }
    }
    pub(super) fn lane(self, i: usize) -> S {
        self.reduce(1 << i)
    }
}

/// What the taint step decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Run,
    Stop,
}
