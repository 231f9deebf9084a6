//! The modifier stand-in (issue 30): what the emulated device does with the
//! modifier bits of `v_xad_u32`, chosen per field from the candidate readings
//! the harness classifies against (`xad_harness::model::cases::modifier_readings`), so the
//! findings path runs end to end through the real HIP code.
//!
//! - `XAD_EMUHIP_MODIFIERS=KIND=READING[;KIND=READING...]`: KIND is `NEG`,
//!   `ABS`, `CLAMP`, `OPSEL` (sources 0-2), `OPSEL[3]` (the destination),
//!   `OMOD` or `NEG+ABS` (both on one source); READING one of that kind's
//!   candidate names (`sign bit flipped`, `ignored`, ...). Kinds not named
//!   follow `ignored`.
//! - `XAD_EMUHIP_MODIFIERS_DISAGREE=LANE`: that global lane follows, for
//!   every field, the reading after the chosen one (lanes disagree).
//! - `XAD_EMUHIP_MODIFIERS_DRIFT=1`: from the second launch on, every field
//!   follows the reading after the chosen one (words change between two
//!   dispatches of the same inputs).
//!
//! Setting either of the last two alone implies the first's defaults.

use xad_harness::isa::Modifiers;
use xad_harness::model::cases::modifier_readings::{Field, Pair, Probe, Reading};

/// The kinds of probe, by the name the knob uses, with one probe of each
/// (the readings of a kind are the same for all its members).
const KINDS: [(&str, Probe); 7] = [
    ("NEG", Probe::Field(Field::Neg(0))),
    ("ABS", Probe::Field(Field::Abs(0))),
    ("CLAMP", Probe::Field(Field::Clamp)),
    ("OPSEL", Probe::Field(Field::OpSel(0))),
    ("OPSEL[3]", Probe::Field(Field::OpSel(3))),
    ("OMOD", Probe::Field(Field::Omod(1))),
    ("NEG+ABS", Probe::Pair(Pair(Field::Neg(0), Field::Abs(0)))),
];

/// Which reading each kind follows, and the two faults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandIn {
    /// Per kind of [`KINDS`], the index of its reading.
    chosen: [usize; 7],
    pub disagree_lane: Option<u64>,
    pub drift: bool,
}

impl StandIn {
    /// Parse the three variables' values (`None`: unset).
    pub fn parse(
        readings: Option<&str>,
        disagree: Option<&str>,
        drift: Option<&str>,
    ) -> Result<StandIn, String> {
        let mut chosen = [0; 7];
        for part in readings
            .unwrap_or("")
            .split(';')
            .filter(|p| !p.trim().is_empty())
        {
            let var = "XAD_EMUHIP_MODIFIERS";
            let (kind, name) = part
                .split_once('=')
                .ok_or_else(|| format!("{var}: {part:?} is not KIND=READING"))?;
            let (kind, name) = (kind.trim(), name.trim());
            let k = KINDS.iter().position(|(n, _)| *n == kind).ok_or_else(|| {
                let kinds: Vec<&str> = KINDS.iter().map(|(n, _)| *n).collect();
                format!("{var}: no kind {kind:?} (kinds: {})", kinds.join(", "))
            })?;
            let readings = KINDS[k].1.readings();
            chosen[k] = readings
                .iter()
                .position(|r| r.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = readings.iter().map(|r| r.name).collect();
                    format!(
                        "{var}: {kind} has no reading {name:?} (readings: {})",
                        names.join("; ")
                    )
                })?;
        }
        let disagree_lane = match disagree {
            None => None,
            Some(v) => Some(v.trim().parse::<u64>().map_err(|_| {
                format!("XAD_EMUHIP_MODIFIERS_DISAGREE={v}: LANE must be a lane number")
            })?),
        };
        let drift = match drift.map(str::trim) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(format!("XAD_EMUHIP_MODIFIERS_DRIFT={v}: expected 1 or 0")),
        };
        Ok(StandIn {
            chosen,
            disagree_lane,
            drift,
        })
    }

    /// The reading `probe` follows in `lane` of launch `launch`.
    fn reading(&self, probe: Probe, lane: u64, launch: u64) -> &'static Reading {
        let readings = probe.readings();
        let k = KINDS
            .iter()
            .position(|(_, p)| p.readings().as_ptr() == readings.as_ptr())
            .expect("every probe is of a kind");
        let shifted = self.disagree_lane == Some(lane) || (self.drift && launch >= 2);
        &readings[(self.chosen[k] + usize::from(shifted)) % readings.len()]
    }
}

/// The probe a `v_xad_u32`'s modifiers make, if they make one: one field,
/// or NEG and ABS on the same source.
fn probe_of(m: Modifiers) -> Option<Probe> {
    let one = |bits: u8| (bits.count_ones() == 1).then(|| bits.trailing_zeros() as u8);
    let field = match (m.neg, m.abs, m.clamp, m.op_sel, m.omod) {
        (n, 0, false, 0, 0) => Field::Neg(one(n)?),
        (0, a, false, 0, 0) => Field::Abs(one(a)?),
        (0, 0, true, 0, 0) => Field::Clamp,
        (0, 0, false, o, 0) => Field::OpSel(one(o)?),
        (0, 0, false, 0, v) => Field::Omod(v),
        (n, a, false, 0, 0) if n == a => {
            let i = one(n)?;
            return Some(Probe::Pair(Pair(Field::Neg(i), Field::Abs(i))));
        }
        _ => return None,
    };
    Some(Probe::Field(field))
}

impl xad_harness::platform::emu::ModifierStandIn for StandIn {
    /// A combination no probe makes computes the plain result.
    fn xad(&self, mods: Modifiers, s: [u32; 3], lane: u64, launch: u64) -> u32 {
        match probe_of(mods) {
            Some(p) => self.reading(p, lane, launch).eval(p.arg(), s),
            None => xad_harness::model::cases::modifier_readings::xad(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xad_harness::platform::emu::ModifierStandIn;

    const PUBLISHED: [u32; 3] = [0xDEAD_BEEF, 0x0000_FFFF, 0x10];

    fn neg(i: u8) -> Modifiers {
        Modifiers {
            neg: 1 << i,
            ..Modifiers::NONE
        }
    }

    #[test]
    fn each_kind_follows_its_chosen_reading() {
        let s = StandIn::parse(
            Some("NEG=sign bit flipped; CLAMP=signed saturation of the add"),
            None,
            None,
        )
        .expect("valid");
        assert_eq!(s.xad(neg(1), PUBLISHED, 0, 1), 0x5EAD_4120);
        let clamp = Modifiers {
            clamp: true,
            ..Modifiers::NONE
        };
        // 0x7FFF0000 ^ 0xFFF0 = 0x7FFFFFF0, + 0x20 overflows signed: saturates.
        assert_eq!(s.xad(clamp, [0x7FFF_0000, 0xFFF0, 0x20], 0, 1), 0x7FFF_FFFF);
        let abs = Modifiers {
            abs: 1,
            ..Modifiers::NONE
        };
        assert_eq!(
            s.xad(abs, PUBLISHED, 0, 1),
            0xDEAD_4120,
            "ABS not named: ignored"
        );
    }

    #[test]
    fn the_disagreeing_lane_and_the_drift_take_the_next_reading() {
        let s = StandIn::parse(Some("NEG=ignored"), Some("5"), None).expect("valid");
        assert_eq!(s.xad(neg(0), PUBLISHED, 4, 1), 0xDEAD_4120);
        assert_eq!(s.xad(neg(0), PUBLISHED, 5, 1), 0x5EAD_4120);
        let d = StandIn::parse(None, None, Some("1")).expect("valid");
        assert_eq!(d.xad(neg(2), PUBLISHED, 0, 1), 0xDEAD_4120);
        assert_eq!(d.xad(neg(2), PUBLISHED, 0, 2), 0x5EAD_4120);
    }

    #[test]
    fn modifiers_map_to_their_probe() {
        assert_eq!(probe_of(neg(2)), Some(Probe::Field(Field::Neg(2))));
        let pair = Modifiers {
            neg: 2,
            abs: 2,
            ..Modifiers::NONE
        };
        assert_eq!(
            probe_of(pair),
            Some(Probe::Pair(Pair(Field::Neg(1), Field::Abs(1))))
        );
        let two = Modifiers {
            neg: 3,
            ..Modifiers::NONE
        };
        assert_eq!(probe_of(two), None);
        assert_eq!(
            probe_of(Modifiers {
                omod: 3,
                ..Modifiers::NONE
            }),
            Some(Probe::Field(Field::Omod(3)))
        );
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for (r, d, x) in [
            (Some("NEG"), None, None),
            (Some("NOPE=ignored"), None, None),
            (Some("NEG=halved"), None, None),
            (None, Some("x"), None),
            (None, None, Some("yes")),
        ] {
            let err = StandIn::parse(r, d, x).expect_err("refused");
            assert!(
                err.starts_with("XAD_EMUHIP_MODIFIERS") && !err.contains('\n'),
                "{err}"
            );
        }
    }
}
