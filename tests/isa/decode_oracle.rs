//! The decoder against LLVM's assembler, table by table: every row of the generated tables
//! (`decode_tables`: llvm-mc-19's canonical text and bytes for gfx1100, gfx1200, gfx1151,
//! gfx1030 in wave32 and wave64, gfx90a) must decode, as its generation, to an instruction of
//! the same length whose disassembly equals LLVM's text, which checks every operand field,
//! modifier and DPP control; rows LLVM accepts that the emulator does not execute are refused
//! with a value naming why. The opcode table's columns are checked cell by cell against the
//! measured rows. When llvm-mc-19 is installed, the tables are re-generated from the `.part`
//! lists and must still match (gfx1010 and gfx942 must encode them alike). Failures print the hex.

use crate::decode_tables::{self, Table};
use crate::support::{decode_table, decode_table_with, hex, llvm_mc_rows, parts};
use std::path::Path;
use xad_harness::isa::{decode_one_for, gfx9, table, Dpp, Format, Generation, Isa, Op, Src, M0};

#[test]
fn every_table_row_decodes_as_llvm_encoded_it() {
    let (failures, unsupported) = decode_table(Isa::GFX11, decode_tables::GFX1100);
    // Rows the emulator deliberately does not execute (16-bit/float ops in the
    // scalar/vector lists, clamp, atomics, cvt) must fail with a value, never a
    // panic; every v_xad_u32 row must decode.
    let xad_unsupported: Vec<_> = unsupported
        .iter()
        .filter(|u| u.contains("v_xad_u32"))
        .collect();
    assert!(
        xad_unsupported.is_empty(),
        "v_xad_u32 forms rejected:\n{}",
        xad_unsupported
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let expected_unsupported = [
        "v_cvt_u32_f32",
        "v_cmp_lt_u16",
        "v_cmp_class_f32",
        "global_atomic_add_u32",
        "clamp",
        "s_getpc",
        "s_setpc",
    ];
    for u in &unsupported {
        assert!(
            expected_unsupported.iter().any(|e| u.contains(e)),
            "unexpectedly unsupported: {u}"
        );
    }
}

#[test]
fn every_gfx12_table_row_decodes_as_llvm_encoded_it() {
    let (failures, unsupported) = decode_table(Isa::GFX12, decode_tables::GFX1200);
    let xad_unsupported: Vec<_> = unsupported
        .iter()
        .filter(|u| u.contains("v_xad_u32"))
        .collect();
    assert!(
        xad_unsupported.is_empty(),
        "v_xad_u32 forms rejected on gfx12:\n{xad_unsupported:?}"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // As for gfx11, plus what gfx12 added that the emulator does not execute:
    // the split barrier and scratch (v_lshlrev_b64's new VOP2 home decodes).
    let expected_unsupported = [
        "v_cvt_u32_f32",
        "v_cmp_lt_u16",
        "v_cmp_class_f32",
        "global_atomic_add_u32",
        "clamp",
        "s_getpc",
        "s_setpc",
        "s_barrier_signal",
        "s_barrier_wait",
        "scratch_load_b32",
    ];
    for u in &unsupported {
        assert!(
            expected_unsupported.iter().any(|e| u.contains(e)),
            "unexpectedly unsupported on gfx12: {u}"
        );
    }
    // The gfx12 column is exercised: waits, SMEM and VGLOBAL rows decoded.
    for must in [
        "s_wait_kmcnt 0x0",
        "s_wait_loadcnt 0x0",
        "s_load_b256 s[4:11], s[0:1], 0x0",
        "global_store_b32 v7, v5, s[10:11] offset:4",
    ] {
        assert!(
            decode_tables::GFX1200.iter().any(|(t, _)| *t == must),
            "table lacks {must}"
        );
    }
}

#[test]
fn dpp_src1_scalar_decodes_only_where_the_isa_has_it() {
    assert!(!decode_tables::GFX1151.is_empty());
    for isa in [Isa::GFX115X, Isa::GFX12] {
        let (failures, unsupported) = decode_table(isa, decode_tables::GFX1151);
        assert!(
            failures.is_empty() && unsupported.is_empty(),
            "{isa:?}: {failures:?} {unsupported:?}"
        );
    }
    // gfx1151 and gfx1200 encode these forms alike (the same rows in both tables).
    for row in decode_tables::GFX1151 {
        assert!(
            decode_tables::GFX1200.contains(row),
            "gfx1200 encodes {} differently",
            row.0
        );
    }
    // Without the feature every one is refused, naming the rule.
    for (text, bytes) in decode_tables::GFX1151 {
        let err = decode_one_for(Isa::GFX11, bytes).expect_err(text);
        assert!(
            err.to_string()
                .contains("DPP src1 must be a VGPR on gfx1100-1103"),
            "{text}: {err}"
        );
    }
    // v_xad_u32_e64_dpp v5, v1, s2, v3 quad_perm:[3,2,1,0]: src1 is the SGPR, src0 stays the DPP VGPR.
    let bytes = [
        0x05, 0x00, 0x45, 0xd6, 0xfa, 0x04, 0x0c, 0x04, 0x01, 0x1b, 0x00, 0xff,
    ];
    let (inst, len) = decode_one_for(Isa::GFX115X, &bytes).unwrap();
    assert_eq!(
        (len, inst.src),
        (12, [Src::Vgpr(1), Src::Sgpr(2), Src::Vgpr(3)])
    );
    // ... and DPP8 with inline 5 as src1.
    let bytes = [
        0x05, 0x00, 0x45, 0xd6, 0xe9, 0x0a, 0x0d, 0x04, 0x01, 0x77, 0x39, 0x05,
    ];
    let (inst, _) = decode_one_for(Isa::GFX12, &bytes).unwrap();
    assert_eq!(inst.src, [Src::Vgpr(1), Src::Const(5), Src::Vgpr(3)]);
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: false
        })
    );
    // A literal still cannot accompany a DPP word (src1 = 255 with a literal dword).
    let mut lit = bytes;
    lit[5] = 0xfe;
    lit[6] = 0x0d | 0x01;
    assert!(decode_one_for(Isa::GFX12, &lit).is_err());
}

#[test]
fn opcode_table_has_no_duplicate_generation_format_opcode() {
    let mut seen = std::collections::HashMap::new();
    for row in table::TABLE {
        for generation in Generation::ALL {
            if let Some(encoding) = row.encoding(generation) {
                if let Some(other) = seen.insert((generation, encoding), row.mnemonic) {
                    panic!(
                        "{generation} {} opcode 0x{:x}: both {other} and {}",
                        encoding.format.name(),
                        encoding.opcode,
                        row.mnemonic
                    );
                }
            }
        }
        // Every row exists in gfx11 or gfx12 (but gfx90a's and gfx940's own ops, which only
        // gfx9's list numbers), and looking its number up finds the row.
        assert!(
            row.opcode(Generation::Gfx11).is_some()
                || row.opcode(Generation::Gfx12).is_some()
                || xad_harness::isa::gfx9::GFX940_ONLY.contains(&row.op)
                || xad_harness::isa::gfx9::GFX90A_ONLY.contains(&row.op),
            "{}",
            row.mnemonic
        );
        for generation in Generation::ALL {
            if let Some(e) = row.encoding(generation) {
                assert_eq!(
                    table::lookup(generation, e.format, e.opcode).map(|r| r.op),
                    Some(row.op),
                    "{generation} {}",
                    row.mnemonic
                );
            }
        }
    }
    // The numbers measured for v_xad_u32 on each generation (design notes).
    let xad = table::info(Op::VXadU32);
    assert_eq!(
        [
            Generation::Gfx9,
            Generation::Gfx10,
            Generation::Gfx11,
            Generation::Gfx12
        ]
        .map(|g| xad.opcode(g)),
        [Some(0x1f3), Some(0x345), Some(0x245), Some(0x245)]
    );
}

/// The `.part` lists and `llvm-mc-19` produce the checked-in tables (skipped,
/// saying so, where llvm-mc-19 is not installed).
#[test]
fn generated_tables_match_llvm_mc_when_present() {
    let tables: [(&str, String, Table); 3] = [
        ("gfx1100", parts("."), decode_tables::GFX1100),
        (
            "gfx1200",
            parts(".") + &parts("gfx12"),
            decode_tables::GFX1200,
        ),
        ("gfx1151", parts("gfx115x"), decode_tables::GFX1151),
    ];
    for (mcpu, source, table) in tables {
        let Some(rows) = llvm_mc_rows("llvm-mc-19", mcpu, "", &source) else {
            eprintln!("SKIPPED: llvm-mc-19 not found; the {mcpu} decode table is not re-checked");
            return;
        };
        let want: Vec<(String, Vec<u8>)> = table
            .iter()
            .map(|(t, b)| (t.to_string(), b.to_vec()))
            .collect();
        assert_eq!(
            rows, want,
            "{mcpu}: regenerate with sh tests/kernels/emu/gen_decode_table.sh"
        );
    }
}

/// LLVM prints branch targets as bare offsets (the disassembler adds the
/// address), so for branches only the mnemonic and the offset are compared;
/// `s_waitcnt_depctr` fields are symbolic (only the mnemonic is compared), and
/// cache-policy bits (glc, slc, dlc: no effect here) are not printed.
fn same_text(llvm: &str, ours: &str, wave64: bool) -> bool {
    if llvm.starts_with("s_branch") || llvm.starts_with("s_cbranch") {
        return ours.starts_with(llvm);
    }
    if llvm.starts_with("s_waitcnt_depctr ") {
        return ours.starts_with("s_waitcnt_depctr ");
    }
    let cache = |t: &&str| !matches!(*t, "glc" | "slc" | "dlc");
    let (l, o): (Vec<&str>, Vec<&str>) = (
        llvm.split(' ').filter(cache).collect(),
        ours.split(' ').collect(),
    );
    l.len() == o.len()
        && l.iter()
            .zip(&o)
            .all(|(l, o)| l == o || (wave64 && wave64_mask_alias(l, o)))
}

/// The decoder does not know the wave size, so a wave64 lane mask prints as
/// its first register: LLVM's `vcc` is our `vcc_lo`, `s[4:5]` our `s4`.
fn wave64_mask_alias(llvm: &str, ours: &str) -> bool {
    let (l, o) = (llvm.trim_end_matches(','), ours.trim_end_matches(','));
    match l.strip_prefix("s[").and_then(|r| r.split_once(':')) {
        Some((first, _)) => o == format!("s{first}"),
        None => l == "vcc" && o == "vcc_lo",
    }
}

/// Decode every row as gfx10: the mismatches, and the refused rows with the reason.
fn decode_gfx10_table(rows: Table, wave64: bool) -> (Vec<String>, Vec<String>) {
    decode_table_with(Isa::GFX10, rows, |text, inst| {
        same_text(text, &inst.to_string(), wave64) && inst.generation == Generation::Gfx10
    })
}

#[test]
fn every_gfx10_table_row_decodes_as_llvm_encoded_it() {
    let (failures, unsupported) = decode_gfx10_table(decode_tables::GFX1030, false);
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // What LLVM accepts for gfx1030 and the emulator deliberately does not
    // execute (float/16-bit ops, atomics, scratch, clamp, pc moves, messages
    // other than gfx11's), each refused with a reason.
    let expected = [
        "v_cvt_u32_f32",
        "v_cmp_lt_u16",
        "v_cmp_class_f32",
        "global_atomic_add",
        "scratch_load_dword",
        "clamp",
        "s_getpc",
        "s_setpc",
        "s_sendmsg",
        "src_shared_base",
    ];
    for u in &unsupported {
        assert!(
            expected.iter().any(|e| u.contains(e)),
            "unexpectedly unsupported on gfx10: {u}"
        );
    }
    assert!(
        unsupported.len() <= 12,
        "too many refused rows:\n{}",
        unsupported.join("\n")
    );
    // Every v_xad_u32 row and the forms a gfx10 kernel needs are in the table and decode.
    let rows = decode_tables::GFX1030;
    assert!(
        rows.iter()
            .filter(|(t, _)| t.starts_with("v_xad_u32"))
            .count()
            >= 25
    );
    for must in [
        "s_load_dwordx2 s[4:5], s[0:1], 0x8",
        "global_load_dword v2, v1, s[4:5] offset:-2048",
        "global_store_dword v1, v5, s[10:11]",
        "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
        "s_waitcnt_vscnt null, 0x0",
        "s_endpgm",
        "s_and_saveexec_b32 s0, s1",
        "s_and_saveexec_b64 s[0:1], s[2:3]",
        "v_mov_b32_dpp v1, v2 row_share:15 row_mask:0xf bank_mask:0xf",
        "v_mov_b32_dpp v1, v2 row_xmask:15 row_mask:0x3 bank_mask:0x0 fi:1",
        "v_mov_b32_dpp v1, v2 dpp8:[0,0,0,0,0,0,0,0] fi:1",
        "v_xad_u32 v5, 0x12345678, v1, 0x12345678",
    ] {
        let row = rows
            .iter()
            .find(|(t, _)| *t == must)
            .unwrap_or_else(|| panic!("table lacks {must}"));
        assert!(decode_one_for(Isa::GFX10, row.1).is_ok(), "{must}");
    }
}

#[test]
fn every_gfx10_wave64_row_decodes_as_llvm_encoded_it() {
    let (failures, unsupported) = decode_gfx10_table(decode_tables::GFX1030_W64, true);
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        unsupported.is_empty(),
        "refused:\n{}",
        unsupported.join("\n")
    );
    // The alias is exercised, and is not a blanket pass: a wrong register fails.
    assert!(decode_tables::GFX1030_W64
        .iter()
        .any(|(t, _)| t.contains("s[4:5], v1, v2")));
    assert!(!same_text(
        "v_add_co_u32 v0, s[4:5], v1, v2",
        "v_add_co_u32 v0, s6, v1, v2",
        true
    ));
    assert!(!same_text(
        "v_cmp_eq_u32_e32 vcc, v1, v2",
        "v_cmp_eq_u32_e32 vcc_hi, v1, v2",
        true
    ));
}

#[test]
fn gfx11_and_gfx12_decoding_is_unchanged_for_the_same_bytes() {
    // gfx11's v_xad_u32 with m0 (125) and null (124) keeps gfx11's numbering.
    let (inst, _) = decode_one_for(
        Isa::GFX11,
        &[0x05, 0x00, 0x45, 0xd6, 0x7d, 0xf8, 0x04, 0x04],
    )
    .unwrap();
    assert_eq!(inst.src, [Src::Sgpr(M0), Src::Null, Src::Vgpr(1)]);
    assert_eq!(inst.to_string(), "v_xad_u32 v5, m0, null, v1");
    // gfx11 VOP3 opcode 0x143 is still not a VOP3-only op there (gfx10's range only).
    assert!(decode_one_for(
        Isa::GFX11,
        &[0x00, 0x00, 0x43, 0xd5, 0x01, 0x05, 0x0e, 0x04]
    )
    .is_err());
    // The gfx10 spelling is per generation: gfx11 and gfx12 keep theirs.
    let (inst, _) = decode_one_for(
        Isa::GFX11,
        &[0x01, 0x00, 0x04, 0xf4, 0x10, 0x00, 0x00, 0xf8],
    )
    .unwrap();
    assert!(inst.to_string().starts_with("s_load_b64"), "{inst}");
}

/// The `.part` lists and llvm-mc-19 produce the checked-in gfx10 tables,
/// and gfx1010 encodes every row as gfx1030 does (skipped, saying so, where
/// llvm-mc-19 is not installed).
#[test]
fn generated_gfx10_tables_match_llvm_mc_when_present() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/emu/gfx10");
    let parts = |d: &Path| -> String {
        let mut files: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "part"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    };
    let (w32, w64) = (parts(&dir), parts(&dir.join("wave64")));
    let checks: [(&str, &str, &String, Table); 4] = [
        ("gfx1030", "", &w32, decode_tables::GFX1030),
        ("gfx1010", "", &w32, decode_tables::GFX1030),
        (
            "gfx1030",
            "+wavefrontsize64",
            &w64,
            decode_tables::GFX1030_W64,
        ),
        (
            "gfx1010",
            "+wavefrontsize64",
            &w64,
            decode_tables::GFX1030_W64,
        ),
    ];
    for (mcpu, mattr, source, table) in checks {
        let Some(rows) = llvm_mc_rows("llvm-mc-19", mcpu, mattr, source) else {
            eprintln!("SKIPPED: llvm-mc-19 not found; the gfx10 decode tables are not re-checked");
            return;
        };
        let want: Vec<(String, Vec<u8>)> = table
            .iter()
            .map(|(t, b)| (t.to_string(), b.to_vec()))
            .collect();
        let first_difference = rows.iter().zip(&want).find(|(got, want)| got != want);
        assert!(
            rows.len() == want.len() && first_difference.is_none(),
            "{mcpu} {mattr}: {} rows from llvm-mc, {} in the table; first difference {first_difference:?}: regenerate with sh tests/kernels/emu/gen_decode_table.sh",
            rows.len(),
            want.len()
        );
    }
}

/// The table is llvm-mc-19 -mcpu=gfx90a's: decoded as gfx90a (whose Isa has v_pk_mov_b32).
const GFX90A_ROWS_ISA: Isa = Isa::GFX90A;

/// LLVM prints some operands symbolically (waitcnt fields, branch offsets,
/// cache bits); for those only the mnemonic is compared.
fn symbolic_on_gfx9(text: &str) -> bool {
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
    for (text, bytes) in decode_tables::GFX90A {
        match decode_one_for(GFX90A_ROWS_ISA, bytes) {
            Ok((inst, len)) => {
                let shown = inst.to_string();
                let same = if symbolic_on_gfx9(text) {
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
        // refuses them); decode_fields measures them with -mcpu=gfx942
        // (gfx942_encodings_decode_and_print_back).
        if gfx9::GFX940_ONLY.contains(op) {
            assert_eq!(
                decode_one_for(GFX90A_ROWS_ISA, &[0, 0, 0x08, 0xd2, 0, 0, 0, 0]).ok(),
                None
            );
            continue;
        }
        assert_eq!(
            gfx9::lookup(format, opcode).map(|r| r.op),
            Some(*op),
            "{mnemonic}"
        );
        let measured = decode_tables::GFX90A.iter().any(|(text, bytes)| {
            let name = text.split_whitespace().next().unwrap_or("");
            let base = name.trim_end_matches("_e32").trim_end_matches("_e64");
            base == mnemonic
                && decode_one_for(GFX90A_ROWS_ISA, bytes).is_ok_and(|(i, _)| i.op == *op)
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
    let want: Vec<(String, Vec<u8>)> = decode_tables::GFX90A
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
        let (inst, len) =
            decode_one_for(GFX90A_ROWS_ISA, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
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
    let same = decode_tables::GFX90A
        .iter()
        .filter(|(text, bytes)| {
            decode_one_for(Isa::GFX11, bytes)
                .is_ok_and(|(i, len)| len == bytes.len() && i.to_string() == *text)
        })
        .count();
    assert!(
        same * 4 < decode_tables::GFX90A.len(),
        "{same} of {} gfx9 rows read alike as gfx11",
        decode_tables::GFX90A.len()
    );
    let endpgm = [0x00, 0x00, 0x81, 0xbf];
    assert_eq!(
        decode_one_for(GFX90A_ROWS_ISA, &endpgm)
            .map(|(i, _)| i.op)
            .ok(),
        Some(Op::SEndpgm)
    );
    assert_ne!(
        decode_one_for(Isa::GFX11, &endpgm).map(|(i, _)| i.op).ok(),
        Some(Op::SEndpgm)
    );
    // gfx11's s_endpgm (BFB00000) is no gfx9 s_endpgm.
    assert_ne!(
        decode_one_for(GFX90A_ROWS_ISA, &[0x00, 0x00, 0xb0, 0xbf])
            .map(|(i, _)| i.op)
            .ok(),
        Some(Op::SEndpgm)
    );
}
