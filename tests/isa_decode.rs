//! Decoder tests against the assembler: every row of the generated table
//! (llvm-mc-19's canonical text + bytes) must decode to an instruction of the
//! same length whose disassembly equals LLVM's text, which checks every
//! operand field, modifier and DPP control. Failures print the hex.

mod isa_decode_table;

use xad_harness::isa::{decode, decode_at, decode_one, table, DecodeError, Dpp, Generation, Op, Src};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// LLVM prints some operands symbolically (waitcnt fields, delay_alu,
/// sendmsg, branch offsets, cache bits); for those only the mnemonic is compared.
fn symbolic(text: &str) -> bool {
    ["s_waitcnt ", "s_delay_alu", "s_sendmsg", "s_branch", "s_cbranch", " glc", " slc", " dlc", "s_setpc", "s_getpc"]
        .iter()
        .any(|p| text.contains(p))
}

#[test]
fn every_table_row_decodes_as_llvm_encoded_it() {
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for (text, bytes) in isa_decode_table::TABLE {
        match decode_one(bytes) {
            Ok((inst, len)) => {
                let shown = inst.to_string();
                let ok = len == bytes.len()
                    && if symbolic(text) {
                        text.split_whitespace().next() == shown.split_whitespace().next()
                    } else {
                        shown == *text
                    };
                if !ok {
                    failures.push(format!("[{}] llvm: {text}\n      emu: {shown} (len {len})", hex(bytes)));
                }
            }
            Err(e) => unsupported.push(format!("[{}] {text}: {e}", hex(bytes))),
        }
    }
    if std::env::var("EMU_LIST_UNSUPPORTED").is_ok() { eprintln!("{}", unsupported.join("\n")); }
    // Rows the emulator deliberately does not execute (16-bit/float ops in the
    // scalar/vector lists, clamp, atomics, cvt) must fail with a value, never a
    // panic; every v_xad_u32 row must decode.
    let xad_unsupported: Vec<_> = unsupported.iter().filter(|u| u.contains("v_xad_u32")).collect();
    assert!(xad_unsupported.is_empty(), "v_xad_u32 forms rejected:\n{}", xad_unsupported.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    let expected_unsupported = ["v_cvt_u32_f32", "v_cmp_lt_u16", "v_cmp_class_f32", "global_atomic_add_u32", "clamp", "s_getpc", "s_setpc"];
    for u in &unsupported {
        assert!(expected_unsupported.iter().any(|e| u.contains(e)), "unexpectedly unsupported: {u}");
    }
}

#[test]
fn xad_fields_decode_faithfully() {
    // v_xad_u32_e64_dpp v5, v1, v2, v3 row_shl:1 row_mask:0xa bank_mask:0x5 bound_ctrl:1 fi:1
    let bytes = [0x05, 0x00, 0x45, 0xd6, 0xfa, 0x04, 0x0e, 0x04, 0x01, 0x01, 0x0d, 0xa5];
    let (inst, len) = decode_one(&bytes).unwrap();
    assert_eq!(len, 12);
    assert_eq!(inst.op, Op::VXadU32);
    assert_eq!(inst.dst, 5);
    assert_eq!(inst.src, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]);
    assert_eq!(inst.dpp, Some(Dpp::Dpp16 { ctrl: 0x101, row_mask: 0xa, bank_mask: 0x5, bound_ctrl: true, fi: true }));
    // v_xad_u32 v5, -1, 0.5, 0.15915494 (1/(2*pi))
    let (inst, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xc1, 0xe0, 0xe1, 0x03]).unwrap();
    assert_eq!(inst.src, [Src::Const(0xffff_ffff), Src::Const(0x3f00_0000), Src::Const(0x3e22_f983)]);
    // v_xad_u32 v5, src_scc, null, exec_hi
    let (inst, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xfd, 0xf8, 0xfc, 0x01]).unwrap();
    assert_eq!(inst.src, [Src::Scc, Src::Null, Src::Sgpr(127)]);
    // DPP8 with fi (0xEA)
    let (inst, _) = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xea, 0x04, 0x0e, 0x04, 0x01, 0x77, 0x39, 0x05]).unwrap();
    assert_eq!(inst.dpp, Some(Dpp::Dpp8 { sel: [7, 6, 5, 4, 3, 2, 1, 0], fi: true }));
}

#[test]
fn modifiers_on_integer_ops_are_unsupported_not_ignored() {
    let base = [0x05u8, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04];
    // clamp (bit 15), abs (10:8), op_sel (14:11), omod (59:58), neg (63:61)
    for (byte, bit, name) in [(1, 0x80, "clamp"), (1, 0x01, "abs"), (1, 0x08, "op_sel"), (7, 0x08, "omod"), (7, 0x20, "neg")] {
        let mut b = base;
        b[byte] |= bit;
        let err = decode_one(&b).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, DecodeError::Unsupported { .. }) && msg.contains(name), "{name}: {msg}");
        assert!(msg.contains("D645") && msg.contains("offset 0x0"), "{msg}");
    }
}

#[test]
fn unknown_and_truncated_encodings_are_errors_with_offset_and_hex() {
    // VOP3 opcode 0x3ff does not exist.
    let err = decode_at(&[0, 0, 0, 0, 0x00, 0x00, 0xff, 0xd7, 0, 0, 0, 0], 4, 0x1000).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("offset 0x1004") && msg.contains("D7FF0000") && msg.contains("VOP3"), "{msg}");
    // A literal that is missing at the end of the section.
    let err = decode_one(&[0xff, 0x02, 0x00, 0x7e]).unwrap_err();
    assert!(matches!(err, DecodeError::Truncated { needed: 8, available: 4, .. }), "{err}");
    // A DPP word that is missing.
    let err = decode_one(&[0x05, 0x00, 0x45, 0xd6, 0xfa, 0x04, 0x0e, 0x04, 0x01]).unwrap_err();
    assert!(matches!(err, DecodeError::Truncated { needed: 12, .. }), "{err}");
    // DS is a known family the emulator does not execute.
    let err = decode_one(&[0, 0, 0, 0xd8, 0, 0, 0, 0]).unwrap_err();
    assert!(err.to_string().contains("DS"), "{err}");
}

#[test]
fn unsettled_wide_literal_is_refused() {
    // s_mov_b64 s[0:1], 0xffffec78: sign- vs zero-extension is unsettled.
    let err = decode_one(&[0xff, 0x01, 0x80, 0xbe, 0x78, 0xec, 0xff, 0xff]).unwrap_err();
    assert!(err.to_string().contains("unsettled"), "{err}");
    // ... but a literal with bit 31 clear is unambiguous.
    let (inst, _) = decode_one(&[0xff, 0x01, 0x80, 0xbe, 0x78, 0xec, 0xff, 0x7f]).unwrap();
    assert_eq!(inst.src[0], Src::Lit(0x7fff_ec78));
}

#[test]
fn other_generations_are_a_decode_error_not_a_panic() {
    // v_xad_u32 v5, v1, v2, v3 as gfx9, gfx10 and gfx12 encode it.
    let by_generation: [(Generation, [u8; 8]); 3] = [
        (Generation::Gfx9, [0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
        (Generation::Gfx10, [0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0x0e, 0x04]),
        (Generation::Gfx12, [0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04]),
    ];
    for (generation, bytes) in by_generation {
        let err = decode(generation, &bytes, 0, 0x100).unwrap_err();
        assert_eq!(err, DecodeError::NotImplemented { generation, offset: 0x100 }, "{generation}");
        assert!(err.to_string().contains(&format!("decoding {generation} is not implemented")), "{err}");
    }
    // Random bytes and empty input for every generation: values, never panics.
    for generation in Generation::ALL {
        let _ = decode(generation, &[], 0, 0);
        let _ = decode(generation, &[0xff; 7], 3, 0);
    }
    // gfx11 through the generation entry point is the same decoder as decode_at.
    let bytes = [0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04];
    assert_eq!(decode(Generation::Gfx11, &bytes, 0, 0).unwrap(), decode_at(&bytes, 0, 0).unwrap());
}

#[test]
fn opcode_table_has_no_duplicate_generation_format_opcode() {
    let mut seen = std::collections::HashMap::new();
    for row in table::TABLE {
        for generation in Generation::ALL {
            if let Some(opcode) = row.opcode(generation) {
                if let Some(other) = seen.insert((generation, row.format, opcode), row.mnemonic) {
                    panic!("{generation} {} opcode 0x{opcode:x}: both {other} and {}", row.format.name(), row.mnemonic);
                }
            }
        }
        // Every row a gfx11 kernel can use has its gfx11 number, and looking it up finds the row.
        let gfx11 = row.opcode(Generation::Gfx11).unwrap_or_else(|| panic!("{} has no gfx11 opcode", row.mnemonic));
        assert_eq!(table::lookup(Generation::Gfx11, row.format, gfx11).map(|r| r.op), Some(row.op), "{}", row.mnemonic);
    }
    // The numbers measured for v_xad_u32 on each generation (design notes).
    let xad = table::info(Op::VXadU32);
    assert_eq!(
        [Generation::Gfx9, Generation::Gfx10, Generation::Gfx11, Generation::Gfx12].map(|g| xad.opcode(g)),
        [Some(0x1f3), Some(0x345), Some(0x245), Some(0x245)]
    );
}
