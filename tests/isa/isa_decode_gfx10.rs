//! gfx10 (RDNA1/2: gfx1010, gfx1030) decoder tests against the assembler:
//! every row of the generated tables (llvm-mc-19's canonical text + bytes for
//! gfx1030, wave32 and wave64) must decode to an instruction of the same
//! length whose disassembly equals LLVM's text. Rows LLVM accepts that the
//! emulator does not execute must be refused with a value naming why. When
//! llvm-mc-19 is installed, the tables are re-generated from the `.part`
//! lists (and gfx1010 must encode them alike). Failures print the hex.

use crate::isa_decode_table_gfx10;
use crate::isa_decode_table_gfx10_w64;
use crate::support::llvm_mc_rows;

use std::path::Path;
use xad_harness::isa::{
    decode, decode_one_for, DecodeError, Dpp, Generation, Isa, Op, Src, M0, NULL,
};

type Table = &'static [(&'static str, &'static [u8])];

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
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
fn decode_table(rows: Table, wave64: bool) -> (Vec<String>, Vec<String>) {
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    for (text, bytes) in rows {
        match decode_one_for(Isa::GFX10, bytes) {
            Ok((inst, len)) => {
                let shown = inst.to_string();
                if len != bytes.len()
                    || !same_text(text, &shown, wave64)
                    || inst.generation != Generation::Gfx10
                {
                    failures.push(format!(
                        "[{}] llvm: {text}\n      emu: {shown} (len {len})",
                        hex(bytes)
                    ));
                }
            }
            Err(e) => unsupported.push(format!("[{}] {text}: {e}", hex(bytes))),
        }
    }
    if std::env::var("EMU_LIST_UNSUPPORTED").is_ok() {
        eprintln!("{}", unsupported.join("\n"));
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
    (failures, unsupported)
}

#[test]
fn every_gfx10_table_row_decodes_as_llvm_encoded_it() {
    let (failures, unsupported) = decode_table(isa_decode_table_gfx10::TABLE, false);
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
    let rows = isa_decode_table_gfx10::TABLE;
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
    let (failures, unsupported) = decode_table(isa_decode_table_gfx10_w64::TABLE, true);
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
    assert!(isa_decode_table_gfx10_w64::TABLE
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
fn gfx10_fields_decode_faithfully() {
    // v_xad_u32 v5, v1, v2, v3 is D7450005 040E0501 (opcode 837).
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0x0e, 0x04],
    )
    .unwrap();
    assert_eq!(
        (len, inst.op, inst.dst, inst.src),
        (
            8,
            Op::VXadU32,
            5,
            [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]
        )
    );
    // m0 is code 124 and null 125 on gfx10: v_xad_u32 v5, m0, null, v1.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd7, 0x7c, 0xfa, 0x04, 0x04],
    )
    .unwrap();
    assert_eq!(inst.src, [Src::Sgpr(M0), Src::Null, Src::Vgpr(1)]);
    // The same dwords read as gfx11 mean null, m0 (and a different opcode): never confused.
    assert!(decode_one_for(
        Isa::GFX11,
        &[0x05, 0x00, 0x45, 0xd7, 0x7c, 0xfa, 0x04, 0x04]
    )
    .is_err());
    // s_mov_b32 null, s1 (sdst 125) and s_mov_b32 m0, s1 (sdst 124).
    let (inst, _) = decode_one_for(Isa::GFX10, &[0x01, 0x03, 0xfd, 0xbe]).unwrap();
    assert_eq!((inst.op, inst.sgpr_dst()), (Op::SMovB32, NULL));
    let (inst, _) = decode_one_for(Isa::GFX10, &[0x01, 0x03, 0xfc, 0xbe]).unwrap();
    assert_eq!(inst.sgpr_dst(), M0);
    // A VOP3 literal (gfx10 has them): v_xad_u32 v5, v1, s2, 0x4d2.
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[
            0x05, 0x00, 0x45, 0xd7, 0x01, 0x05, 0xfc, 0x03, 0xd2, 0x04, 0x00, 0x00,
        ],
    )
    .unwrap();
    assert_eq!(
        (len, inst.src),
        (12, [Src::Vgpr(1), Src::Sgpr(2), Src::Lit(0x4d2)])
    );
    // s_load_dword s0, s[2:3], -0x10: 21-bit signed offset, soffset null.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x01, 0x00, 0x00, 0xf4, 0xf0, 0xff, 0x1f, 0xfa],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.imm, inst.saddr),
        (Op::SLoadB32, 0, 2, -0x10, None)
    );
    // s_load_dword s0, s[2:3], m0: soffset code 124 is m0 here.
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x01, 0x00, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8],
    )
    .unwrap();
    assert_eq!(inst.saddr, Some(M0));
    // global_load_dword v2, v[4:5], off offset:-2048 (saddr 125 = off).
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x00, 0x88, 0x30, 0xdc, 0x04, 0x00, 0x7d, 0x02],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.dst, inst.addr, inst.saddr, inst.imm),
        (Op::GlobalLoadB32, 2, 4, None, -2048)
    );
    // global_store_dword v1, v5, s[10:11].
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0x00, 0x80, 0x70, 0xdc, 0x01, 0x05, 0x0a, 0x00],
    )
    .unwrap();
    assert_eq!(
        (inst.op, inst.addr, inst.data, inst.saddr),
        (Op::GlobalStoreB32, 1, 5, Some(10))
    );
    // DPP16 row_xmask:15 with fi, and DPP8 with fi (0xEA) on VOP1.
    let (inst, len) = decode_one_for(
        Isa::GFX10,
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x6f, 0x05, 0x30],
    )
    .unwrap();
    assert_eq!(len, 8);
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp16 {
            ctrl: 0x16f,
            row_mask: 0x3,
            bank_mask: 0x0,
            bound_ctrl: false,
            fi: true
        })
    );
    let (inst, _) = decode_one_for(
        Isa::GFX10,
        &[0xea, 0x02, 0x02, 0x7e, 0x02, 0x00, 0x00, 0x00],
    )
    .unwrap();
    assert_eq!(
        inst.dpp,
        Some(Dpp::Dpp8 {
            sel: [0; 8],
            fi: true
        })
    );
    // SOPP numbers: s_endpgm is BF810000, s_waitcnt 0 prints all three counters.
    let (inst, _) = decode_one_for(Isa::GFX10, &0xbf81_0000u32.to_le_bytes()).unwrap();
    assert_eq!(inst.op, Op::SEndpgm);
    let (inst, _) = decode_one_for(Isa::GFX10, &0xbf8c_0000u32.to_le_bytes()).unwrap();
    assert_eq!(inst.to_string(), "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)");
}

#[test]
fn gfx10_waitcnt_prints_as_llvm_does() {
    // Values and texts from llvm-mc-19 -mcpu=gfx1030 -disassemble.
    for (simm16, text) in [
        (0xffffu32, "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"),
        (0xc07f, "s_waitcnt lgkmcnt(0)"),
        (0x3f70, "s_waitcnt vmcnt(0)"),
        (0x0080, "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"),
        (0xcf7f, "s_waitcnt lgkmcnt(15)"),
        (0x4000, "s_waitcnt vmcnt(16) expcnt(0) lgkmcnt(0)"),
        (0x3f23, "s_waitcnt vmcnt(3) expcnt(2)"),
    ] {
        let (inst, _) = decode_one_for(Isa::GFX10, &(0xbf8c_0000 | simm16).to_le_bytes()).unwrap();
        assert_eq!(inst.to_string(), text, "simm16 0x{simm16:04x}");
    }
}

#[test]
fn gfx10_unknown_and_reserved_encodings_are_errors() {
    let refused = |bytes: &[u8], needle: &str| {
        let err = decode_one_for(Isa::GFX10, bytes).unwrap_err();
        assert!(
            matches!(err, DecodeError::Unsupported { .. }) && err.to_string().contains(needle),
            "[{}] {err}",
            hex(bytes)
        );
    };
    // No VOP3 DPP on gfx10 (src0 0xFA / 0xE9 / 0xEA).
    for code in [0xfa, 0xe9, 0xea] {
        refused(
            &[
                0x05, 0x00, 0x45, 0xd7, code, 0x04, 0x0e, 0x04, 0x01, 0x1b, 0x00, 0xff,
            ],
            "no DPP form on gfx10",
        );
    }
    // gfx11's v_xad_u32 opcode (581) is another op on gfx10, not v_xad_u32.
    assert!(decode_one_for(
        Isa::GFX10,
        &[0x05, 0x00, 0x45, 0xd6, 0x01, 0x05, 0x0e, 0x04]
    )
    .map_or(true, |(i, _)| i.op != Op::VXadU32));
    // gfx11's s_endpgm (BFB00000) is not an instruction the gfx10 column has.
    refused(
        &0xbfb0_0000u32.to_le_bytes(),
        "is not an instruction on gfx10",
    );
    // Unknown VOP3 opcode; the gfx9-only DPP controls row_bcast15 (0x142) and wave_shl (0x130).
    refused(&[0, 0, 0xff, 0xd7, 0, 0, 0, 0], "VOP3");
    refused(
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x42, 0x01, 0xff],
        "DPP16 control 0x142 is not valid on gfx10",
    );
    refused(
        &[0xfa, 0x02, 0x02, 0x7e, 0x02, 0x30, 0x01, 0xff],
        "DPP16 control 0x130 is not valid on gfx10",
    );
    // SMEM reserved bits 15 and 17 of dword 0 and 24:21 of dword 1.
    let load = [0x01u8, 0x00, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xfa];
    for (byte, bit) in [(1, 0x80), (2, 0x02), (6, 0x20)] {
        let mut b = load;
        b[byte] |= bit;
        refused(&b, "reserved SMEM");
    }
    // FLAT: lds, reserved bit 25, segment 3, scratch, flat offset bit 11, saddr on flat.
    let global = [0x00u8, 0x80, 0x30, 0xdc, 0x01, 0x00, 0x04, 0x02];
    let mut lds = global;
    lds[1] |= 0x20;
    refused(&lds, "lds");
    let mut reserved = global;
    reserved[3] |= 0x02;
    refused(&reserved, "reserved FLAT");
    refused(
        &[0x00, 0xc0, 0x30, 0xdc, 0x01, 0x00, 0x04, 0x02],
        "segment 3",
    );
    refused(&[0x00, 0x40, 0x30, 0xdc, 0x01, 0x00, 0x7d, 0x02], "scratch");
    refused(
        &[0x00, 0x08, 0x30, 0xdc, 0x04, 0x00, 0x7d, 0x02],
        "flat offset bit 11",
    );
    refused(
        &[0x00, 0x00, 0x30, 0xdc, 0x04, 0x00, 0x04, 0x02],
        "flat instructions take no saddr",
    );
    // A missing literal and a missing second dword are Truncated, with the offset.
    let err = decode(
        Isa::GFX10,
        &[0, 0, 0, 0, 0x05, 0x00, 0x45, 0xd7, 0xff, 0x02, 0xfe, 0x03],
        4,
        0x1000,
    )
    .unwrap_err();
    assert!(
        matches!(err, DecodeError::Truncated { needed: 12, .. })
            && err.to_string().contains("0x1004"),
        "{err}"
    );
    assert!(matches!(
        decode_one_for(Isa::GFX10, &global[..4]),
        Err(DecodeError::Truncated { needed: 8, .. })
    ));
}

/// Random dwords behind each gfx10 encoding prefix, at every length: values, never panics.
#[test]
fn gfx10_random_bytes_never_panic() {
    let seed = 0x5eed_0010u32;
    let mut x = seed;
    let mut decoded = 0;
    for i in 0..20_000u32 {
        let mut b = [0u8; 12];
        for byte in &mut b {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        // Steer a share of the cases into the families gfx10 decodes.
        if i % 2 == 0 {
            b[3] = [
                0xbe, 0xbf, 0xb0, 0x80, 0xf4, 0xdc, 0xd7, 0xd5, 0xd4, 0x7e, 0x7d, 0x4a,
            ][(i / 2) as usize % 12];
        }
        for n in [0, 3, 4, 8, 12] {
            if decode_one_for(Isa::GFX10, &b[..n]).is_ok() {
                decoded += 1;
            }
        }
    }
    // The sweep reaches the decoder's accepting paths too (seed 0x{seed:08x}).
    assert!(
        decoded > 1000,
        "seed 0x{seed:08x}: only {decoded} random encodings decoded"
    );
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
        ("gfx1030", "", &w32, isa_decode_table_gfx10::TABLE),
        ("gfx1010", "", &w32, isa_decode_table_gfx10::TABLE),
        (
            "gfx1030",
            "+wavefrontsize64",
            &w64,
            isa_decode_table_gfx10_w64::TABLE,
        ),
        (
            "gfx1010",
            "+wavefrontsize64",
            &w64,
            isa_decode_table_gfx10_w64::TABLE,
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
