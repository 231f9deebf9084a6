//! The VOP3 modifiers on `v_xad_u32` (NEG, ABS, CLAMP, OPSEL, OMOD): what the
//! emulator computes where a reading is documented, and what it marks
//! unsettled everywhere else. The decoder only reads the fields
//! ([`crate::isa::Modifiers`]); which target has a documented reading is
//! data ([`Feature::XadModifiersMeasured`] on the target rows), decided once
//! per kernel at load ([`unsettled`]), so the execution of an unmodified
//! `v_xad_u32` (the hot path) only tests `inst.mods.any()`.
//!
//! What is documented, and where from: the ISA guides, AMD's ISA XML, LLVM
//! (which refuses `neg`, `clamp` and `op_sel` on `v_xad_u32`), Mesa ACO and
//! gem5 say nothing about these fields on an integer op. The public RDNA4
//! simulator yoshou/amdgpu-sim keeps integer VOP3 vectors (`tests/isa/`)
//! whose expected values, by its own statement, were captured on a gfx1200
//! part: `v_xad_u32` of (0xDEADBEEF, 0x0000FFFF, 0x10) with NEG on src0,
//! src1 or src2, or ABS on src0, gives 0x5EAD4120 instead of 0xDEAD4120;
//! across its integer vectors ABS clears, then NEG flips, the raw operand's
//! bit 31; CLAMP saturates unsigned add/sub and changed nothing where
//! nothing overflowed (no `v_xad_u32` vector overflows with CLAMP set);
//! OMOD changed nothing in 57 vectors, none of them `v_xad_u32`. So on the
//! rows with the feature (gfx1200, gfx1201 and gfx12-generic: one
//! generation, one VALU; not CDNA5's gfx1250/gfx1251, another product line)
//! the emulator computes, per source, ABS (clear bit 31) then NEG (flip bit
//! 31), then `(S0 ^ S1) + S2`, and CLAMP with a sum that fits 32 bits is the
//! plain result. Everything else is unsettled per lane, never a pass: CLAMP
//! in a lane whose sum overflows (only that lane), CLAMP on other targets,
//! OPSEL and OMOD everywhere, NEG and ABS before RDNA4 and on CDNA5. The
//! value written there is the bit-31 reading (for NEG/ABS) or the plain
//! result; it is never compared.
//!
//! The candidate readings are named here as plain text only; the CPU model
//! holds its own (the model and the emulator share no code).

use crate::isa::{Inst, Modifiers};
use crate::platform::target::{Feature, Target};

/// What a modified `v_xad_u32` leaves unsettled on one target, decided at
/// load. `None` from [`unsettled`] when nothing is (no field set, or only
/// fields the target has a documented reading for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsettled {
    /// Every lane the instruction writes is unsettled: the origin text,
    /// naming each field with no documented reading and its candidates.
    pub all: Option<String>,
    /// Only the lanes whose `(S0 ^ S1) + S2` overflows 32 bits are
    /// unsettled (CLAMP where only the non-overflowing case is documented).
    pub overflow: Option<String>,
}

/// What `inst`'s modifiers leave unsettled on `target` (`None`: a program
/// decoded for an instruction set alone, where no reading is documented;
/// `generation` names it then).
pub fn unsettled(inst: &Inst, target: Option<&Target>) -> Option<Unsettled> {
    let m = inst.mods;
    if !m.any() {
        return None;
    }
    let documented = target.is_some_and(|t| t.has(Feature::XadModifiersMeasured));
    let name = target.map_or_else(|| inst.generation.to_string(), |t| t.name.to_string());
    let mut fields = Vec::new();
    if !documented {
        sign_fields(m, &name, &mut fields);
    }
    if m.clamp && !documented {
        fields.push(format!(
            "CLAMP set on v_xad_u32: no reading is documented for {name} (candidates: {CLAMP})"
        ));
    }
    for i in 0..4 {
        if m.op_sel >> i & 1 == 1 {
            fields.push(op_sel_field(i, &name));
        }
    }
    if m.omod != 0 {
        fields.push(omod_field(m.omod, &name));
    }
    let overflow = (m.clamp && documented).then(|| {
        format!(
            "CLAMP set on v_xad_u32 and (S0 ^ S1) + S2 overflows 32 bits in this lane: the \
             vectors captured on gfx1200 never overflow with CLAMP set, so no reading is \
             documented for {name} (candidates: {CLAMP})"
        )
    });
    let all = (!fields.is_empty()).then(|| fields.join("; "));
    (all.is_some() || overflow.is_some()).then_some(Unsettled { all, overflow })
}

/// NEG[i] and ABS[i] where no reading is documented.
fn sign_fields(m: Modifiers, name: &str, fields: &mut Vec<String>) {
    for i in 0..3 {
        if m.abs >> i & 1 == 1 {
            fields.push(format!(
                "ABS[{i}] set on v_xad_u32: no reading is documented for {name} (candidates: \
                 {ABS}; gfx1200 clears the sign bit)"
            ));
        }
        if m.neg >> i & 1 == 1 {
            fields.push(format!(
                "NEG[{i}] set on v_xad_u32: no reading is documented for {name} (candidates: \
                 {NEG}; gfx1200 flips the sign bit)"
            ));
        }
    }
}

/// OPSEL[i]: a source's half (i < 3) or the destination's (i = 3).
fn op_sel_field(i: u32, name: &str) -> String {
    let candidates = if i < 3 { OPSEL_SRC } else { OPSEL_DST };
    format!(
        "OPSEL[{i}] set on v_xad_u32: no reading is documented for {name} (candidates: {candidates})"
    )
}

/// OMOD 1, 2, 3 (LLVM's `mul:2`, `mul:4`, `div:2` on float ops).
fn omod_field(omod: u8, name: &str) -> String {
    let text = match omod {
        1 => "mul:2",
        2 => "mul:4",
        _ => "div:2",
    };
    format!(
        "OMOD={omod} ({text}) set on v_xad_u32: no reading is documented for {name} \
         (candidates: {OMOD}; 57 integer vectors of other ops captured on gfx1200 ignore it)"
    )
}

// The candidate readings of each field, by the names the CPU model gives
// them (`cases::modifier_readings::readings`; the names only: the two share no
// code, and `tests/emu/modifiers.rs` holds the lists equal).
const NEG: &str = "ignored; sign bit flipped; two's-complement negated; bitwise not";
const ABS: &str = "ignored; sign bit cleared; integer absolute value";
const CLAMP: &str = "ignored; unsigned saturation of the add; signed saturation of the add; \
                     float clamp to [0.0, 1.0]";
const OPSEL_SRC: &str = "ignored; high half of the source; halves of the source swapped";
const OPSEL_DST: &str = "ignored; high-half write; result halves swapped";
const OMOD: &str = "ignored; float multiply; integer shift";

/// Per source, the AND and XOR masks of the measured reading: ABS clears
/// bit 31, then NEG flips it.
pub(super) fn sign_masks(m: Modifiers) -> [(u32, u32); 3] {
    std::array::from_fn(|i| {
        let abs = if m.abs >> i & 1 == 1 { 0x7fff_ffff } else { !0 };
        let neg = if m.neg >> i & 1 == 1 { 0x8000_0000 } else { 0 };
        (abs, neg)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::target::find;

    fn xad(mods: Modifiers) -> Inst {
        // v_xad_u32 v5, v1, v2, v3 (gfx1201's VOP3 encoding), then the fields.
        let bytes = [0x05u8, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04];
        let isa = find("gfx1201").expect("row").isa;
        let (mut inst, _) = crate::isa::decode_one_for(isa, &bytes).expect("decodes");
        inst.mods = mods;
        inst
    }

    #[test]
    fn rdna4_rows_compute_sign_modifiers_and_leave_the_rest_unsettled() {
        let neg0 = Modifiers {
            neg: 1,
            ..Modifiers::NONE
        };
        for name in ["gfx1200", "gfx1201", "gfx12-generic"] {
            assert_eq!(unsettled(&xad(neg0), find(name)), None, "{name}");
        }
        for name in ["gfx1100", "gfx1151", "gfx1030", "gfx90a", "gfx1250"] {
            let u = unsettled(&xad(neg0), find(name)).expect(name);
            let all = u.all.expect("every lane");
            assert!(all.contains("NEG[0]") && all.contains(name), "{all}");
        }
        let clamp = Modifiers {
            clamp: true,
            ..Modifiers::NONE
        };
        let u = unsettled(&xad(clamp), find("gfx1201")).expect("overflow lanes");
        assert!(u.all.is_none() && u.overflow.is_some_and(|t| t.contains("overflows")));
        let op_sel = Modifiers {
            op_sel: 2,
            ..Modifiers::NONE
        };
        let u = unsettled(&xad(op_sel), find("gfx1201")).expect("unsettled");
        assert!(u
            .all
            .is_some_and(|t| t.contains("OPSEL[1]") && t.contains("high half")));
    }

    #[test]
    fn sign_masks_clear_then_flip_bit_31() {
        let m = Modifiers {
            neg: 0b101,
            abs: 0b011,
            ..Modifiers::NONE
        };
        let f = |x: u32, (a, n): (u32, u32)| (x & a) ^ n;
        let [s0, s1, s2] = sign_masks(m);
        assert_eq!(f(0xdead_beef, s0), 0xdead_beef); // cleared, then flipped
        assert_eq!(f(0xdead_beef, s1), 0x5ead_beef); // cleared
        assert_eq!(f(0x0000_0010, s2), 0x8000_0010); // flipped
    }
}
