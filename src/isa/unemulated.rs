//! Encodings LLVM assembles that the emulator does not implement, by
//! generation, with LLVM 19's mnemonic: so a refusal can say "the emulator
//! does not implement v_cmpx_lt_i64" instead of treating a real instruction
//! as noise. Not the whole ISA: the encodings users and the decoder tests
//! have met (every refused row of the llvm-mc tables under tests/ is listed;
//! tests/isa/isa_decode_gfx9.rs and tests/isa/isa_decode.rs check that). An opcode
//! neither decoded nor listed is reported as no instruction the emulator
//! knows on that generation. Numbers read off `llvm-mc-19 -show-encoding`
//! (gfx90a for gfx9).

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
    (Gfx9, Vopc, 0xf1, "v_cmpx_lt_i64"),
    (Gfx9, Vopc, 0xf2, "v_cmpx_eq_i64"),
    (Gfx9, Vopc, 0xf3, "v_cmpx_le_i64"),
    (Gfx9, Vopc, 0xf4, "v_cmpx_gt_i64"),
    (Gfx9, Vopc, 0xf5, "v_cmpx_ne_i64"),
    (Gfx9, Vopc, 0xf6, "v_cmpx_ge_i64"),
    (Gfx9, Vopc, 0xf7, "v_cmpx_t_i64"),
    (Gfx9, Vopc, 0xf8, "v_cmpx_f_u64"),
    (Gfx9, Vopc, 0xfb, "v_cmpx_le_u64"),
    (Gfx9, Vopc, 0xfc, "v_cmpx_gt_u64"),
    (Gfx9, Vopc, 0xfe, "v_cmpx_ge_u64"),
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
