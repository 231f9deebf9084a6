//! Encodings LLVM assembles that the emulator does not implement, by
//! generation, with LLVM 19's mnemonic: so a refusal can say "the emulator
//! does not implement v_cmpx_t_i64" instead of treating a real instruction
//! as noise. Not the whole ISA: the encodings users and the decoder tests
//! have met (every refused row of the llvm-mc tables under tests/ is listed;
//! tests/isa/decode_oracle.rs checks that). An opcode
//! neither decoded nor listed is reported as no instruction the emulator
//! knows on that generation. Numbers read off `llvm-mc-19 -show-encoding`
//! (gfx90a for gfx9).
//!
//! This list is the offline fallback: where the error is reported (the
//! kernel handle, `src/pipeline/handle.rs`), the LLVM that proves for the target
//! names the bits ([`opcode_refusal`] reads the refusal back, [`named_by_llvm`]
//! and [`not_by_llvm`] word its answer); without one, [`refusal`]'s text stays.

use super::table::Format::{self, *};
use super::Generation::{self, *};

/// (generation, format, opcode, mnemonic).
pub static UNEMULATED: &[(Generation, Format, u16, &str)] = &[
    (Gfx9, Sopp, 0x10, "s_sendmsg"),
    (Gfx9, Vop2, 0x01, "v_add_f32"),
    // VOP3P (gfx9 encodes it in the VOP3 space from 0x380).
    (Gfx9, Vop3, 0x38a, "v_pk_add_u16"),
    (Gfx9, Vopc, 0xe0, "v_cmp_f_i64"),
    (Gfx9, Vopc, 0xe7, "v_cmp_t_i64"),
    (Gfx9, Vopc, 0xe8, "v_cmp_f_u64"),
    (Gfx9, Vopc, 0xef, "v_cmp_t_u64"),
    (Gfx9, Vopc, 0xf0, "v_cmpx_f_i64"),
    (Gfx9, Vopc, 0xf7, "v_cmpx_t_i64"),
    (Gfx9, Vopc, 0xf8, "v_cmpx_f_u64"),
    (Gfx9, Vopc, 0xff, "v_cmpx_t_u64"),
    // gfx10 (gfx1030's numbers; gfx1010 encodes them alike).
    (Gfx10, Sop1, 0x1f, "s_getpc_b64"),
    (Gfx10, Sop1, 0x20, "s_setpc_b64"),
    (Gfx10, Sopp, 0x10, "s_sendmsg"),
    (Gfx10, Vop1, 0x07, "v_cvt_u32_f32"),
    (Gfx10, Vopc, 0x88, "v_cmp_class_f32"),
    (Gfx10, Vopc, 0xa9, "v_cmp_lt_u16"),
    (Gfx10, Global, 0x32, "global_atomic_add"),
    // gfx11 (gfx1100; gfx115x alike).
    (Gfx11, Sop1, 0x47, "s_getpc_b64"),
    (Gfx11, Sop1, 0x48, "s_setpc_b64"),
    (Gfx11, Vop1, 0x07, "v_cvt_u32_f32"),
    (Gfx11, Vopc, 0x39, "v_cmp_lt_u16"),
    (Gfx11, Vopc, 0x7e, "v_cmp_class_f32"),
    (Gfx11, Global, 0x35, "global_atomic_add_u32"),
    // gfx12 (gfx1200).
    (Gfx12, Sop1, 0x47, "s_getpc_b64"),
    (Gfx12, Sop1, 0x48, "s_setpc_b64"),
    (Gfx12, Sop1, 0x4e, "s_barrier_signal"),
    (Gfx12, Sopp, 0x14, "s_barrier_wait"),
    (Gfx12, Vop1, 0x07, "v_cvt_u32_f32"),
    (Gfx12, Vop2, 0x1f, "v_lshlrev_b64"),
    (Gfx12, Vopc, 0x39, "v_cmp_lt_u16"),
    (Gfx12, Vopc, 0x7e, "v_cmp_class_f32"),
    (Gfx12, Global, 0x35, "global_atomic_add_u32"),
];

/// LLVM's mnemonic for an encoding the emulator does not implement, if listed.
pub fn unemulated(generation: Generation, format: Format, opcode: u16) -> Option<&'static str> {
    UNEMULATED
        .iter()
        .find(|(g, f, n, _)| *g == generation && *f == format && *n == opcode)
        .map(|(_, _, _, m)| *m)
}

/// Why `format` opcode `opcode` does not decode on `generation`: an
/// instruction the emulator lacks (named), or no instruction it knows.
pub fn refusal(generation: Generation, format: Format, opcode: u32) -> String {
    let listed = u16::try_from(opcode)
        .ok()
        .and_then(|n| unemulated(generation, format, n));
    match listed {
        Some(mnemonic) => format!(
            "{mnemonic} ({} opcode {opcode}, 0x{opcode:x}) is a {generation} instruction the emulator does not implement",
            format.name()
        ),
        None => format!(
            "{} opcode {opcode} (0x{opcode:x}) is not an instruction on {generation} that the emulator knows",
            format.name()
        ),
    }
}

/// A decode refusal of an opcode the emulator has no row for, read back
/// from its message ([`super::DecodeError::Unsupported`] with a
/// [`refusal`] reason), so the layer that reports it can ask an LLVM
/// disassembler what the bits are ([`named_by_llvm`], [`not_by_llvm`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpcodeRefusal<'m> {
    /// The message up to the reason: `unsupported instruction at offset
    /// 0x..: dwords [..] decoded as VOP1: `.
    pub head: &'m str,
    /// The format whose opcode it is (`VOP1` also when VOP3 encodes it).
    pub format: &'static str,
    pub opcode: u32,
}

/// Read a message that is a [`super::DecodeError::Unsupported`] whose
/// reason [`refusal`] wrote; `None` for every other message (a refusal of
/// modifiers, operands or a form, an execution fault), which says more
/// than "this opcode".
pub fn opcode_refusal(message: &str) -> Option<OpcodeRefusal<'_>> {
    if !message.starts_with("unsupported instruction at offset 0x") {
        return None;
    }
    let after = message.find("] decoded as ")? + "] decoded as ".len();
    let reason_at = after + message[after..].find(": ")? + 2;
    let (head, reason) = message.split_at(reason_at);
    let known = reason.ends_with(" that the emulator knows")
        && reason.contains(" is not an instruction on ");
    let listed = reason.ends_with(" instruction the emulator does not implement");
    if !known && !listed {
        return None;
    }
    let (before, after) = reason.split_once(" opcode ")?;
    let name = before.rsplit(['(', ' ']).next()?;
    let format = ALL_FORMATS.iter().map(|f| f.name()).find(|n| *n == name)?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    Some(OpcodeRefusal {
        head,
        format,
        opcode: digits.parse().ok()?,
    })
}

const ALL_FORMATS: [Format; 12] = [
    Sop1, Sop2, Sopk, Sopc, Sopp, Smem, Vop1, Vop2, Vopc, Vop3, Flat, Global,
];

/// The reason for an opcode refusal that an LLVM disassembler (`tool`,
/// e.g. `llvm-mc-19`) decodes as `text` on `target`.
pub fn named_by_llvm(refused: &OpcodeRefusal<'_>, text: &str, target: &str, tool: &str) -> String {
    format!(
        "{text} ({} opcode {}) is a {target} instruction the emulator does not implement (named by {tool})",
        refused.format, refused.opcode
    )
}

/// The reason for an opcode refusal whose bits the LLVM disassembler
/// `tool` does not decode on `target` either.
pub fn not_by_llvm(target: &str, tool: &str) -> String {
    format!("these bits are not an instruction on {target} ({tool} does not decode them either)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::DecodeError;

    fn message(generation: Generation, format: Format, opcode: u32, shown_as: &str) -> String {
        DecodeError::Unsupported {
            offset: 0x165c,
            dwords: vec![0x7e0c6b04],
            format: shown_as.to_string(),
            reason: refusal(generation, format, opcode),
        }
        .to_string()
    }

    #[test]
    fn every_opcode_refusal_reads_back() {
        for generation in Generation::ALL {
            for format in ALL_FORMATS {
                for opcode in [0, 53, 0x7f, 241, 906] {
                    let text = message(generation, format, opcode, "VOP3");
                    let read = opcode_refusal(&text).unwrap_or_else(|| panic!("{text}"));
                    assert_eq!(
                        (read.format, read.opcode),
                        (format.name(), opcode),
                        "{text}"
                    );
                    assert_eq!(
                        read.head,
                        "unsupported instruction at offset 0x165c: dwords [7E0C6B04] decoded as VOP3: "
                    );
                }
            }
        }
        // A listed one, with LLVM 19's mnemonic in front.
        let text = message(Gfx9, Vopc, 247, "VOPC");
        assert!(text.contains("v_cmpx_t_i64 (VOPC opcode 247"), "{text}");
        let read = opcode_refusal(&text).unwrap();
        assert_eq!((read.format, read.opcode), ("VOPC", 247));
    }

    #[test]
    fn other_refusals_and_faults_are_not_opcode_refusals() {
        for other in [
            "unsupported instruction at offset 0x10: dwords [D1F30005] decoded as VOP3: opcode 499 (0x1f3) is v_foo only on gfx940+ (gfx942, gfx950, gfx9-4-generic); this target has no such instruction".to_string(),
            "unsupported instruction at offset 0x10: dwords [7E0C6B04] decoded as VOP1: DPP is not supported on this instruction".to_string(),
            "instruction at offset 0x10 (v_mov_b32 v1, v2) is reached with s_set_vgpr_msb settings".to_string(),
            refusal(Gfx12, Vop1, 53),
        ] {
            assert_eq!(opcode_refusal(&other), None, "{other}");
        }
    }

    #[test]
    fn llvm_reasons_name_the_instruction_or_say_it_is_none() {
        let text = message(Gfx12, Vop1, 53, "VOP1");
        let read = opcode_refusal(&text).unwrap();
        assert_eq!(
            named_by_llvm(&read, "v_sin_f32_e32 v6, v4", "gfx1201", "llvm-mc-19"),
            "v_sin_f32_e32 v6, v4 (VOP1 opcode 53) is a gfx1201 instruction the emulator does not implement (named by llvm-mc-19)"
        );
        assert_eq!(
            not_by_llvm("gfx1201", "llvm-mc-19"),
            "these bits are not an instruction on gfx1201 (llvm-mc-19 does not decode them either)"
        );
    }
}
