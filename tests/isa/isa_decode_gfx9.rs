//! gfx9 (GCN5/CDNA: gfx908, gfx90a, gfx942) decoder tests against the
//! assembler: every row of the generated table (llvm-mc-19 -mcpu=gfx90a's
//! canonical text + bytes from `tests/kernels/emu/gfx9/*.part`) must decode
//! to an instruction of the same length whose disassembly equals LLVM's text,
//! or be refused with a reason the test expects. The gfx9 column of
//! `isa::table` is checked cell by cell; when llvm-mc-19 is installed the
//! table is re-generated (for gfx90a and gfx942) and must still match.

use crate::isa_decode_table_gfx9;
use crate::support::llvm_mc_rows;

use std::path::Path;
use xad_harness::isa::{
    decode, decode_one_for, gfx9, table, DecodeError, Dpp, Format, Generation, Isa, Op, Src, M0,
    VCC,
};

/// The table is llvm-mc-19 -mcpu=gfx90a's: decoded as gfx90a (whose Isa has v_pk_mov_b32).
const ISA: Isa = Isa::GFX90A;

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// LLVM prints some operands symbolically (waitcnt fields, branch offsets,
/// cache bits); for those only the mnemonic is compared.
fn symbolic(text: &str) -> bool {
    [
        "s_waitcnt ",
        "s_branch",
        "s_cbranch",
        " glc",
        " slc",
        " sc0",
        " sc1",
        " nt",
    ]
    .iter()
    .any(|p| text.contains(p))
}

#[test]
fn every_gfx9_table_row_decodes_as_llvm_encoded_it() {
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for (text, bytes) in isa_decode_table_gfx9::TABLE {
        match decode_one_for(ISA, bytes) {
            Ok((inst, len)) => {
                let shown = inst.to_string();
                let same = if symbolic(text) {
                    text.split_whitespace().next() == shown.split_whitespace().next()
                } else {
                    shown == *text
                };
                if len != bytes.len() || !same {
                    failures.push(format!(
                        "[{}] llvm: {text}\n      emu: {shown} (len {len})",
                        hex(bytes)
                    ));
                }
            }
            Err(e) => unsupported.push(format!("[{}] {text}: {e}", hex(bytes))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // What the decoder refuses on purpose, each for a reason it names.
    let expected = [
        ("s_sendmsg", "s_sendmsg (SOPP opcode 16, 0x10) is a gfx9 instruction the emulator does not implement"),
        ("_sdwa", "SDWA"),
        ("scratch_load", "scratch"),
        ("ds_read", "DS"),
        ("v_add_f32", "v_add_f32 (VOP2 opcode 1, 0x1) is a gfx9 instruction the emulator does not implement"),
        ("clamp", "clamp"),
        ("v_pk_add_u16", "v_pk_add_u16 (VOP3 opcode 906, 0x38a) is a gfx9 instruction the emulator does not implement"),
        ("src_shared_base", "aperture"),
        (" a2,", "AGPR"),
        ("v_add_co_u32_dpp", "DPP on v_add_co_u32"),
        ("v_xor3_b32", "not supported"),
    ];
    for u in &unsupported {
        assert!(
            expected
                .iter()
                .any(|(what, why)| u.contains(what) && u.contains(why)),
            "unexpectedly unsupported on gfx9: {u}"
        );
    }
    // LLVM assembled every row, so none is "not an instruction": an opcode the
    // emulator lacks is refused by its mnemonic (src/isa/unemulated.rs).
    let misnamed: Vec<_> = unsupported
        .iter()
        .filter(|u| u.contains("is not an instruction on"))
        .collect();
    assert!(
        misnamed.is_empty(),
        "LLVM's encodings called no instruction: {misnamed:#?}"
    );
    assert!(
        unsupported.iter().all(|u| !u.contains("v_xad_u32")),
        "v_xad_u32 forms rejected: {unsupported:?}"
    );
}

#[test]
fn every_gfx9_opcode_entry_was_measured() {
    // Each row with a gfx9 column appears in the assembler's table (by its
    // gfx9 mnemonic) and looking its number up finds the same op.
    let gfx9_rows: Vec<_> = table::TABLE
        .iter()
        .filter_map(|row| Some((row, row.encoding(Generation::Gfx9)?)))
        .collect();
    assert!(
        gfx9_rows.len() > 200,
        "gfx9 column has {} ops",
        gfx9_rows.len()
    );
    for (row, encoding) in &gfx9_rows {
        let (format, opcode, op) = (encoding.format, encoding.opcode, &row.op);
        let mnemonic = table::mnemonic(*op, Generation::Gfx9);
        // gfx940-only ops are missing from this gfx90a-generated table (gfx90a
        // refuses them); tests/emu/emu_gfx940_lshl.rs measures them with -mcpu=gfx942.
        if gfx9::GFX940_ONLY.contains(op) {
            assert_eq!(
                decode_one_for(ISA, &[0, 0, 0x08, 0xd2, 0, 0, 0, 0]).ok(),
                None
            );
            continue;
        }
        assert_eq!(
            gfx9::lookup(format, opcode).map(|r| r.op),
            Some(*op),
            "{mnemonic}"
        );
        let measured = isa_decode_table_gfx9::TABLE.iter().any(|(text, bytes)| {
            let name = text.split_whitespace().next().unwrap_or("");
            let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
            base == mnemonic && decode_one_for(ISA, bytes).is_ok_and(|(i, _)| i.op == *op)
        });
        assert!(
            measured,
            "{mnemonic} ({} 0x{opcode:x}) has no decoded row in the gfx9 table",
            format.name()
        );
    }
    // No gfx9 (format, opcode) twice.
    for (i, (a, ea)) in gfx9_rows.iter().enumerate() {
        for (b, eb) in &gfx9_rows[i + 1..] {
            assert!(ea != eb, "{} and {}", a.mnemonic, b.mnemonic);
        }
    }
    // gfx9 puts the carry-out adds in VOP2 (VOP3-only from gfx10): the
    // column's format, not the row's, is the one gfx9 decodes.
    assert_eq!(gfx9::opcode(Op::VAddCoU32), Some((Format::Vop2, 0x19)));
    assert_eq!(table::info(Op::VAddCoU32).format, Format::Vop3);
    // v_xad_u32's gfx9 number agrees with the table's column and the design notes.
    assert_eq!(gfx9::opcode(Op::VXadU32), Some((Format::Vop3, 0x1f3)));
    assert_eq!(
        table::info(Op::VXadU32).opcode(Generation::Gfx9),
        Some(0x1f3)
    );
}

#[test]
fn xad_and_special_operands_decode_faithfully() {
    // v_xad_u32 v5, v1, v2, v3 (D1F30005 040E0501).
    let (inst, len) =
        decode_one_for(ISA, &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04]).unwrap();
    assert_eq!(
        (len, inst.op, inst.dst, inst.src),
        (
            8,
            Op::VXadU32,
            5,
            [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]
        )
    );
    assert_eq!(inst.generation, Generation::Gfx9);
    // v_xad_u32 v5, -1, 0.5, m0: gfx9's m0 (code 124) becomes the emulator's M0.
    let (inst, _) = decode_one_for(ISA, &[0x05, 0x00, 0xf3, 0xd1, 0xc1, 0xe0, 0xf1, 0x01]).unwrap();
    assert_eq!(
        inst.src,
        [
            Src::Const(0xffff_ffff),
            Src::Const(0x3f00_0000),
            Src::Sgpr(M0)
        ]
    );
    assert_eq!(inst.to_string(), "v_xad_u32 v5, -1, 0.5, m0");
    // The same bytes are a different instruction (or none) on gfx11: never confused.
    assert!(decode_one_for(
        Isa::GFX11,
        &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04]
    )
    .is_err());
    // v_mov_b32_dpp v0, v1 row_bcast:31 ... bound_ctrl:1: gfx9's broadcast control.
    let (inst, _) = decode_one_for(ISA, &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x43, 0x09, 0xff]).unwrap();
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp16 {
            ctrl: 0x143,
            row_mask: 0xf,
            bank_mask: 0xf,
            bound_ctrl: true,
            fi: false
        })
    );
    // v_add_co_u32_e32 v0, vcc, v1, v2: gfx9's VOP2 carry op writes VCC.
    let (inst, _) = decode_one_for(ISA, &[0x01, 0x05, 0x00, 0x32]).unwrap();
    assert_eq!((inst.op, inst.sdst), (Op::VAddCoU32, VCC));
    // s_load_dword s5, s[0:1], s4 offset:0x10 (soe + imm).
    let (inst, _) = decode_one_for(ISA, &[0x40, 0x41, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x08]).unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::SLoadB32, 5, 0, Some(4), 0x10)
    );
    // global_load_dword v2, v[4:5], off offset:-16: saddr 0x7f is `off`, 13-bit signed offset.
    let (inst, _) = decode_one_for(ISA, &[0xf0, 0x9f, 0x50, 0xdc, 0x04, 0x00, 0x7f, 0x02]).unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::GlobalLoadB32, 2, 4, None, -16)
    );
}

#[test]
fn gfx9_reserved_and_unknown_encodings_are_errors() {
    // clamp, abs, op_sel, omod, neg on an integer op other than v_xad_u32
    // (v_add3_u32 v5, v1, v2, v3), which decodes them.
    let add3 = [0x05u8, 0x00, 0xff, 0xd1, 0x01, 0x05, 0x0e, 0x04];
    for (byte, bit, name) in [
        (1, 0x80, "clamp"),
        (1, 0x01, "abs"),
        (1, 0x08, "op_sel"),
        (7, 0x08, "omod"),
        (7, 0x20, "neg"),
    ] {
        let mut b = add3;
        b[byte] |= bit;
        let err = decode_one_for(ISA, &b).unwrap_err();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && err.to_string().contains(name),
            "{name}: {err}"
        );
        // v_xad_u32 v5, v1, v2, v3 decodes the same field (the emulator decides).
        let mut x = [0x05u8, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0x0e, 0x04];
        x[byte] |= bit;
        let (inst, _) = decode_one_for(ISA, &x).expect("v_xad_u32 decodes its modifiers");
        assert_eq!(inst.mods.names(), [name], "{inst}");
    }
    let refused = |bytes: &[u8], why: &str| {
        let err = decode_one_for(ISA, bytes).expect_err(why);
        assert!(err.to_string().contains(why), "expected '{why}': {err}");
    };
    // A literal in VOP3 (src2 = 255) does not exist on gfx9.
    refused(
        &[
            0x05, 0x00, 0xf3, 0xd1, 0x01, 0x05, 0xfe, 0x03, 0x34, 0x12, 0, 0,
        ],
        "no literal",
    );
    // Two different SGPRs in one VALU instruction (constant bus).
    refused(
        &[0x05, 0x00, 0xf3, 0xd1, 0x01, 0x04, 0x0c, 0x04],
        "constant bus",
    );
    // Code 125 is reserved on gfx9 (m0 lives at 124), and gfx10's DPP8 code 0xE9 is no operand.
    refused(
        &[0x05, 0x00, 0xf3, 0xd1, 0x7d, 0x04, 0x0e, 0x04],
        "reserved on gfx9",
    );
    refused(
        &[0xe9, 0x02, 0x00, 0x7e, 0x01, 0x00, 0x00, 0x00],
        "reserved on gfx9",
    );
    // gfx10+ DPP controls (row_share 0x150) and gfx9's reserved DPP bits.
    refused(
        &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x50, 0x01, 0xff],
        "not valid on gfx9",
    );
    refused(
        &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x43, 0x05, 0xff],
        "reserved DPP",
    );
    // VOP3 opcode 0x3ff, SOPP opcode 127, scratch, the gfx90a acc bit.
    refused(
        &[0x00, 0x00, 0xff, 0xd3, 0x01, 0x05, 0x0e, 0x04],
        "is not an instruction on gfx9",
    );
    refused(&[0x00, 0x00, 0xff, 0xbf], "is not an instruction on gfx9");
    refused(&[0x00, 0x40, 0x50, 0xdc, 0x04, 0x00, 0x7f, 0x02], "scratch");
    refused(&[0x00, 0x80, 0x50, 0xdc, 0x01, 0x00, 0x84, 0x02], "AGPR");
    // A ttmp destination, and s_mov_b64 into an odd pair.
    refused(&[0x01, 0x00, 0xec, 0xbe], "ttmp");
    refused(&[0x02, 0x01, 0x81, 0xbe], "pair");
    // Truncation: SMEM's second dword, a literal, a DPP word.
    for bytes in [
        &[0x40, 0x01, 0x02, 0xc0][..],
        &[0xff, 0x02, 0x00, 0x7e],
        &[0xfa, 0x02, 0x00, 0x7e],
    ] {
        let err = decode(ISA, bytes, 0, 0x40).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Truncated {
                    offset: 0x40,
                    needed: 8,
                    available: 4,
                    ..
                }
            ),
            "{err}"
        );
    }
}

#[test]
fn random_gfx9_bytes_are_values_never_panics() {
    // A fixed-seed xorshift sweep over every encoding family's top byte.
    let tops = [
        0xbe, 0xbf, 0xb0, 0x80, 0xc0, 0xd1, 0xd0, 0xd2, 0xdc, 0x7e, 0x7d, 0x68, 0x32, 0xd8, 0xff,
    ];
    let mut decoded = 0u32;
    for seed in 0u32..20_000 {
        let mut x = seed.wrapping_mul(0x9e37_79b9) ^ 0x5eed_0009;
        let mut b = [0u8; 12];
        for byte in &mut b {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        b[3] = tops[seed as usize % tops.len()];
        for n in [0, 3, 4, 8, 12] {
            if let Ok((inst, len)) = decode_one_for(ISA, &b[..n]) {
                assert!(
                    len <= n && len % 4 == 0,
                    "seed {seed}: length {len} of {n} bytes"
                );
                let _ = inst.to_string();
                decoded += 1;
            }
        }
    }
    assert!(
        decoded > 1000,
        "the sweep decoded only {decoded} instructions"
    );
}

/// The `.part` lists and llvm-mc-19 produce the checked-in table for gfx90a
/// and gfx942 alike (skipped, saying so, where llvm-mc-19 is not installed).
#[test]
fn gfx9_table_matches_llvm_mc_when_present() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/emu/gfx9");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "part"))
        .collect();
    files.sort();
    let source: String = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let want: Vec<(String, Vec<u8>)> = isa_decode_table_gfx9::TABLE
        .iter()
        .map(|(t, b)| (t.to_string(), b.to_vec()))
        .collect();
    let Some(rows) = llvm_mc_rows("llvm-mc-19", "gfx90a", "", &source) else {
        eprintln!("SKIPPED: llvm-mc-19 not found; the gfx9 decode table is not re-checked");
        return;
    };
    assert_eq!(
        rows, want,
        "gfx90a: regenerate with sh tests/kernels/emu/gen_decode_table.sh"
    );
    // gfx908 (CDNA1) encodes the v_cmpx rows as gfx90a does (issue 26: they
    // were refused there before).
    let cmpx: String = source
        .lines()
        .filter(|l| l.starts_with("v_cmpx"))
        .map(|l| format!("{l}\n"))
        .collect();
    let gfx908 = llvm_mc_rows("llvm-mc-19", "gfx908", "", &cmpx).unwrap_or_default();
    assert!(
        gfx908.len() >= 20,
        "gfx908 accepted {} v_cmpx rows",
        gfx908.len()
    );
    for (text, bytes) in &gfx908 {
        assert!(
            want.iter().any(|(t, b)| t == text && b == bytes),
            "gfx908 encodes {text} as {}, not as the table",
            hex(bytes)
        );
    }
    // gfx942 encodes every row alike, except that it spells the cache bits
    // sc0/sc1/nt (gfx942.part) and refuses glc/slc; those rows decode too.
    let gfx942 = llvm_mc_rows("llvm-mc-19", "gfx942", "", &source).unwrap_or_default();
    assert!(
        gfx942.len() + 5 > want.len(),
        "gfx942 accepted only {} rows",
        gfx942.len()
    );
    for (text, bytes) in &gfx942 {
        if want.iter().any(|(t, b)| t == text && b == bytes) {
            continue;
        }
        assert!(
            [" sc0", " sc1", " nt"].iter().any(|c| text.contains(c)),
            "gfx942 encodes {text} differently: {}",
            hex(bytes)
        );
        let (inst, len) = decode_one_for(ISA, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            (len, inst.mnemonic()),
            (bytes.len(), text.split_whitespace().next().unwrap_or("")),
            "{text}"
        );
    }
    for (text, _) in want
        .iter()
        .filter(|(t, _)| !t.contains(" glc") && !t.contains(" slc"))
    {
        assert!(
            gfx942.iter().any(|(t, _)| t == text),
            "gfx942 refuses {text}"
        );
    }
}

/// Negative control: the comparison above can fail. Read as gfx11, most gfx9
/// rows are refused or print differently (and the differences include the
/// two encodings the design notes name: s_endpgm and v_xad_u32).
#[test]
fn gfx9_rows_are_not_gfx11_rows() {
    let same = isa_decode_table_gfx9::TABLE
        .iter()
        .filter(|(text, bytes)| {
            decode_one_for(Isa::GFX11, bytes)
                .is_ok_and(|(i, len)| len == bytes.len() && i.to_string() == *text)
        })
        .count();
    assert!(
        same * 4 < isa_decode_table_gfx9::TABLE.len(),
        "{same} of {} gfx9 rows read alike as gfx11",
        isa_decode_table_gfx9::TABLE.len()
    );
    let endpgm = [0x00, 0x00, 0x81, 0xbf];
    assert_eq!(
        decode_one_for(ISA, &endpgm).map(|(i, _)| i.op).ok(),
        Some(Op::SEndpgm)
    );
    assert_ne!(
        decode_one_for(Isa::GFX11, &endpgm).map(|(i, _)| i.op).ok(),
        Some(Op::SEndpgm)
    );
    // gfx11's s_endpgm (BFB00000) is no gfx9 s_endpgm.
    assert_ne!(
        decode_one_for(ISA, &[0x00, 0x00, 0xb0, 0xbf])
            .map(|(i, _)| i.op)
            .ok(),
        Some(Op::SEndpgm)
    );
}
