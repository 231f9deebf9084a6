//! CDNA5's `s_set_vgpr_msb` (gfx1250/gfx1251: 1024 VGPRs, the 8-bit VGPR
//! fields' bits 9:8 from the wave's setting) in the decoder and in the
//! program pass that resolves it. No GPU and no target row are involved: the
//! decoder runs for `Isa::GFX1250`, the program for a hand-made allocation.
//!
//! - llvm-mc-22 -mcpu=gfx1250 bytes (recorded; re-measured when llvm-mc-22 is
//!   installed) decode and print back as LLVM prints them.
//! - A program of settings and `v_xad_u32` (VOP3, VOP3-DPP16, VOP3-DPP8) and
//!   global load/store resolves to the 10-bit numbers llvm-objdump-22 prints
//!   in its comments (recorded; re-measured when llvm-objdump-22 is there).
//! - Negative controls: gfx1201 refuses the same bytes; two paths reaching an
//!   instruction with different settings make it a fault naming both; a
//!   VGPR past the allocation is found after resolution.

use crate::decode_tables::{self};
use crate::support::{decode_table, llvm_mc_rows, parts};
use std::path::Path;
use std::process::Command;
use xad_harness::isa::{decode_one_for, Isa, Op, Src};
use xad_harness::platform::emu::program::{Allocation, Program};
use xad_harness::platform::emu::FaultKind;

/// The assembly [`ROWS`] were measured from (llvm-mc-22 -triple=amdgcn
/// -mcpu=gfx1250 -show-encoding, LLVM 22.1.8).
const SOURCE: &str =
    "s_set_vgpr_msb 0\ns_set_vgpr_msb 3\ns_set_vgpr_msb 64\ns_set_vgpr_msb 0x41\ns_set_vgpr_msb 0xe4\ns_set_vgpr_msb 0xe455\ns_set_vgpr_msb 0xffff\n";

const ROWS: &[(&str, [u8; 4])] = &[
    ("s_set_vgpr_msb 0", [0x00, 0x00, 0x86, 0xbf]),
    ("s_set_vgpr_msb 3", [0x03, 0x00, 0x86, 0xbf]),
    ("s_set_vgpr_msb 64", [0x40, 0x00, 0x86, 0xbf]),
    ("s_set_vgpr_msb 0x41", [0x41, 0x00, 0x86, 0xbf]),
    ("s_set_vgpr_msb 0xe4", [0xe4, 0x00, 0x86, 0xbf]),
    ("s_set_vgpr_msb 0xe455", [0x55, 0xe4, 0x86, 0xbf]),
    ("s_set_vgpr_msb 0xffff", [0xff, 0xff, 0x86, 0xbf]),
];

/// A straight-line program, and llvm-objdump-22 -d --mcpu=gfx1250's text
/// for each instruction of its code (LLVM 22.1.8; the encoding comments cut).
const PROGRAM: &str = "s_set_vgpr_msb 0xe4
v_xad_u32 v5, v1, v2, v3
s_set_vgpr_msb 0xe41b
v_xad_u32_e64_dpp v5, v1, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
s_set_vgpr_msb 0x1bc0
v_xad_u32_e64_dpp v5, v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]
s_set_vgpr_msb 0xc0c4
global_load_b32 v4, v1, s[4:5]
global_store_b32 v1, v5, s[10:11]
s_set_vgpr_msb 0xc400
v_xad_u32 v5, v1, v2, v3
s_endpgm
";

const PROGRAM_WORDS: &[u32] = &[
    0xBF86_00E4,
    0xD645_0005,
    0x040E_0501,
    0xBF86_E41B,
    0xD645_0005,
    0x040E_04FA,
    0xFF00_B101,
    0xBF86_1BC0,
    0xD645_0005,
    0x040E_04E9,
    0x0539_7701,
    0xBF86_C0C4,
    0xEE05_0004,
    0x0000_0004,
    0x0000_0001,
    0xEE06_800A,
    0x0280_0000,
    0x0000_0001,
    0xBF86_C400,
    0xD645_0005,
    0x040E_0501,
    0xBFB0_0000,
];

const PROGRAM_TEXT: &[&str] = &[
    "s_set_vgpr_msb 0xe4",
    "v_xad_u32 v5 /*v773*/, v1, v2 /*v258*/, v3 /*v515*/",
    "s_set_vgpr_msb 0xe41b",
    "v_xad_u32_e64_dpp v5, v1 /*v769*/, v2 /*v514*/, v3 /*v259*/ quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
    "s_set_vgpr_msb 0x1bc0",
    "v_xad_u32_e64_dpp v5 /*v773*/, v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]",
    "s_set_vgpr_msb 0xc0c4",
    "global_load_b32 v4 /*v772*/, v1, s[4:5]",
    "global_store_b32 v1, v5 /*v261*/, s[10:11]",
    "s_set_vgpr_msb 0xc400",
    "v_xad_u32 v5, v1, v2, v3",
    "s_endpgm",
];

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn allocation(vgprs: u32) -> Allocation {
    Allocation {
        vgprs,
        vgpr_origin: "test".into(),
        sgprs: None,
        sgpr_origin: String::new(),
        wave64: false,
        xnack_off: false,
    }
}

fn program(words: &[u32], vgprs: u32) -> Program {
    Program::decode(Isa::GFX1250, &bytes(words), 0, 0, &allocation(vgprs))
}

/// `tool`'s stdout for `args` with `stdin`, `None` (and a note) when absent.
fn tool(tool: &str, args: &[&str], stdin: &str) -> Option<String> {
    use std::io::Write;
    use std::process::Stdio;
    let Ok(mut child) = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("note: {tool} is not installed; the recorded rows stand");
        return None;
    };
    child.stdin.take()?.write_all(stdin.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn set_vgpr_msb_decodes_and_prints_as_llvm_22() {
    if let Some(out) = tool(
        "llvm-mc-22",
        &["-triple=amdgcn", "-mcpu=gfx1250", "-show-encoding"],
        SOURCE,
    ) {
        let measured: Vec<(String, Vec<u8>)> = out
            .lines()
            .filter_map(|l| l.split_once("; encoding: ["))
            .map(|(text, enc)| {
                let b = enc
                    .trim_end_matches(']')
                    .split(',')
                    .map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap())
                    .collect();
                (text.trim().to_string(), b)
            })
            .collect();
        let recorded: Vec<(String, Vec<u8>)> = ROWS
            .iter()
            .map(|(t, b)| (t.to_string(), b.to_vec()))
            .collect();
        assert_eq!(measured, recorded, "llvm-mc-22 no longer agrees");
    }
    for (text, b) in ROWS {
        let (inst, len) =
            decode_one_for(Isa::GFX1250, b).unwrap_or_else(|e| panic!("{text} {b:02x?}: {e}"));
        assert_eq!(
            (len, inst.op, inst.to_string()),
            (4, Op::SSetVgprMsb, text.to_string()),
            "{b:02x?}"
        );
    }
}

#[test]
fn gfx1201_refuses_set_vgpr_msb_bytes() {
    for (text, b) in ROWS {
        let err = decode_one_for(Isa::GFX12, b)
            .map(|(inst, _)| inst.to_string())
            .expect_err(text)
            .to_string();
        assert!(
            err.contains("s_set_vgpr_msb") && err.contains("CDNA5") && !err.contains('\n'),
            "{text}: {err}"
        );
    }
    // And as a program on gfx1201: the instruction is a fault, and the
    // v_xad_u32 after it keeps its 8-bit numbers.
    let p = Program::decode(
        Isa::GFX12,
        &bytes(&PROGRAM_WORDS[..3]),
        0,
        0,
        &allocation(256),
    );
    assert!(p.insts[0].is_err());
    let inst = p.insts[1].as_ref().unwrap();
    assert_eq!(inst.src, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)]);
    assert_eq!(inst.dst, 5);
}

#[test]
fn settings_resolve_to_the_numbers_llvm_objdump_22_prints() {
    if let Some(text) = objdump(PROGRAM) {
        assert_eq!(text, PROGRAM_TEXT, "llvm-objdump-22 no longer agrees");
    }
    let p = program(PROGRAM_WORDS, 1024);
    let got: Vec<String> = p
        .insts
        .iter()
        .map(|i| match i {
            Ok(inst) => inst.to_string(),
            Err(f) => panic!("{f}"),
        })
        .collect();
    assert_eq!(got, PROGRAM_TEXT);
    // The numbers themselves, slot by slot (the text could hide a swap).
    let at = |i: usize| p.insts[i].as_ref().unwrap();
    assert_eq!(
        (at(1).dst, at(1).src),
        (773, [Src::Vgpr(1), Src::Vgpr(258), Src::Vgpr(515)])
    );
    assert_eq!(
        (at(3).dst, at(3).src),
        (5, [Src::Vgpr(769), Src::Vgpr(514), Src::Vgpr(259)])
    );
    assert_eq!(
        (at(5).dst, at(5).src),
        (773, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)])
    );
    assert_eq!((at(7).dst, at(7).addr), (772, 1));
    assert_eq!((at(8).addr, at(8).data), (1, 261));
    assert_eq!(
        (at(10).dst, at(10).src),
        (5, [Src::Vgpr(1), Src::Vgpr(2), Src::Vgpr(3)])
    );
}

/// Assemble `source` for gfx1250 and disassemble it with LLVM 22, the
/// instruction text of each line; `None` (with a note) without LLVM 22.
fn objdump(source: &str) -> Option<Vec<String>> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("isa_decode_vgpr_msb");
    std::fs::create_dir_all(&dir).unwrap();
    let (src, obj) = (dir.join("program.s"), dir.join("program.o"));
    std::fs::write(&src, source).unwrap();
    let assembled = Command::new("llvm-mc-22")
        .args(["-triple=amdgcn", "-mcpu=gfx1250", "-filetype=obj", "-o"])
        .arg(&obj)
        .arg(&src)
        .status();
    if !assembled.is_ok_and(|s| s.success()) {
        eprintln!("note: llvm-mc-22 did not assemble for gfx1250; the recorded text stands");
        return None;
    }
    let out = tool(
        "llvm-objdump-22",
        &["-d", "--mcpu=gfx1250", obj.to_str().unwrap()],
        "",
    )?;
    Some(
        out.lines()
            .filter_map(|l| l.split_once("//").map(|(text, _)| text.trim()))
            .filter(|t| !t.is_empty())
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect(),
    )
}

/// s_cbranch_scc0 over an `s_set_vgpr_msb`: the v_xad_u32 after the join
/// is reached with 0x40 on one path and 0 on the other.
const DIVERGENT: &[u32] = &[
    0xBFA1_0001, // s_cbranch_scc0 1 (over the next instruction)
    0xBF86_0040, // s_set_vgpr_msb 0x40
    0xD645_0005, // v_xad_u32 v5, v1, v2, v3
    0x040E_0501,
    0xBFB0_0000, // s_endpgm
];

#[test]
fn an_instruction_reached_with_two_settings_is_refused() {
    let p = program(DIVERGENT, 1024);
    let f = p.insts[2].as_ref().expect_err("ambiguous VGPRs executed");
    assert_eq!(f.kind, FaultKind::Unsupported);
    assert!(
        f.message.contains("0x40")
            && f.message.contains("0x00")
            && f.message.contains("v_xad_u32")
            && f.message.contains("offset 0x8")
            && !f.message.contains('\n'),
        "{}",
        f.message
    );
    // s_endpgm names no VGPR: the same join does not make it a fault.
    assert!(p.insts[3].is_ok());
    // Both paths agreeing (the setting restated after the join) is fine.
    let mut agreed = DIVERGENT.to_vec();
    agreed.insert(2, 0xBF86_0040);
    let p = program(&agreed, 1024);
    assert!(p.insts.iter().all(Result::is_ok), "{:?}", p.insts);
    assert_eq!(p.insts[3].as_ref().unwrap().dst, 261);
}

#[test]
fn the_allocation_is_checked_on_the_resolved_numbers() {
    // v_xad_u32 v5 /*v773*/ ... needs 774 VGPRs: 768 allocated fault, 784 do not.
    let words = &PROGRAM_WORDS[..3];
    let short = program(words, 768);
    let f = short.insts[1].as_ref().expect_err("v773 past 768 VGPRs");
    assert_eq!(f.kind, FaultKind::VgprOutOfRange);
    assert!(f.message.contains("up to v773"), "{}", f.message);
    assert!(program(words, 784).insts.iter().all(Result::is_ok));
}

/// Faults of a program's instructions, as (index, message).
fn faults(p: &Program) -> Vec<(usize, String)> {
    p.insts
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| inst.as_ref().err().map(|f| (i, f.message.clone())))
        .collect()
}

const S_ENDPGM: u32 = 0xbfb0_0000;

/// `s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 25, 1), <literal>` (llvm-mc-22 -mcpu=gfx1250).
const SETREG_MODE_25: u32 = 0xb980_0641;

/// CDNA5 MODE writes (llvm-mc-22 -mcpu=gfx1250 bytes): LLVM 22's entry
/// write (bit 25 := 1) runs; bit 25 := 0 is refused (what it does is not
/// known here); a write whose literal's bits 19:12 differ from the VGPR MSB
/// setting is refused (some parts copy them into the MSBs, llvm-project PR
/// 174681), one whose bits agree runs; an SGPR-valued write to MODE is
/// refused. IB_STS2's cluster field (bits 9:6) reads on gfx1250 only.
#[test]
fn cdna5_mode_writes_and_the_cluster_field() {
    let prologue = program(&[SETREG_MODE_25, 1, S_ENDPGM], 8);
    assert_eq!(faults(&prologue), []);
    let cleared = program(&[SETREG_MODE_25, 0, S_ENDPGM], 8);
    // (The sweep then resynchronises on the literal: a fault of its own.)
    let f = faults(&cleared);
    assert!(f[0].0 == 0 && f[0].1.contains("bits 0x02000000"), "{f:?}");
    // s_set_vgpr_msb 0x41, then the prologue write (literal bits 19:12 = 0).
    let disagrees = program(&[0xbf86_0041, SETREG_MODE_25, 1, S_ENDPGM], 8);
    let f = faults(&disagrees);
    assert!(
        f.len() == 1
            && f[0]
                .1
                .contains("may set the VGPR MSBs to 0x00 while s_set_vgpr_msb has them at 0x41"),
        "{f:?}"
    );
    let agrees = program(&[0xbf86_0041, SETREG_MODE_25, 0x41001, S_ENDPGM], 8);
    assert_eq!(faults(&agrees), []);
    // s_setreg_b32 hwreg(HW_REG_WAVE_MODE, 0, 4), s2
    let from_sgpr = program(&[0xb902_1801, S_ENDPGM], 8);
    let f = faults(&from_sgpr);
    assert!(f.len() == 1 && f[0].1.contains("from an SGPR"), "{f:?}");
    // s_getreg_b32 s5, hwreg(HW_REG_IB_STS2, 6, 4), then (..., 0, 4)
    let cluster = bytes(&[0xb885_199c]);
    let (inst, _) = decode_one_for(Isa::GFX1250, &cluster).expect("cluster field on gfx1250");
    assert_eq!(inst.op, Op::SGetregB32);
    assert_eq!(
        inst.to_string(),
        "s_getreg_b32 s5, hwreg(HW_REG_IB_STS2, 6, 4)"
    );
    let e = decode_one_for(Isa::GFX12, &cluster)
        .unwrap_err()
        .to_string();
    assert!(e.contains("only bits 9:6 on CDNA5"), "{e}");
    let e = decode_one_for(Isa::GFX1250, &bytes(&[0xb885_181c]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("HW_REG_IB_STS2 bits 3:0"), "{e}");
}

/// CDNA5's decoding measured with llvm-mc-22: the gfx12 table's sources
/// assembled for gfx1250 decode (as `Isa::GFX1250`) to what LLVM 22 prints,
/// bar the gfx12 spellings it still accepts (`s_getpc_b64` for its
/// `s_get_pc_i64`, ...); every gfx12 row whose op llvm-mc-22 drops for
/// gfx1250 (`table::NOT_ON_GFX1250`) is refused, and every row it keeps has
/// gfx12's bytes. (Rows it refuses only for an odd-aligned 64-bit VGPR
/// tuple, `v[1:2]`, still decode: the alignment rule is not enforced.)
/// Skipped, saying so, without llvm-mc-22.
#[test]
fn gfx1250_decodes_what_llvm_mc_22_assembles_and_refuses_what_it_drops() {
    let source = parts(".") + &parts("gfx12");
    let Some(rows) = llvm_mc_rows("llvm-mc-22", "gfx1250", "", &source) else {
        eprintln!("SKIPPED: llvm-mc-22 not found; gfx1250 decoding is not re-checked");
        return;
    };
    assert!(rows.len() > 350, "{} rows", rows.len());
    // LLVM 22's spellings where the decoder prints LLVM 19's gfx12 ones
    // (which LLVM 22 still accepts): two ops renamed for gfx1250, and the
    // hardware-id and MODE registers LLVM 22 renamed for all of gfx12.
    let renamed = [
        ("s_get_pc_i64", "s_getpc_b64"),
        ("s_set_pc_i64", "s_setpc_b64"),
        ("HW_REG_WAVE_HW_ID1", "HW_REG_HW_ID1"),
        ("HW_REG_WAVE_MODE", "HW_REG_MODE"),
    ];
    let renamed_rows: Vec<(String, Vec<u8>)> = rows
        .iter()
        .map(|(t, b)| {
            let t = renamed
                .iter()
                .fold(t.clone(), |t, (llvm, ours)| t.replace(llvm, ours));
            (t, b.clone())
        })
        .collect();
    let as_table: Vec<(&str, &[u8])> = renamed_rows
        .iter()
        .map(|(t, b)| (t.as_str(), b.as_slice()))
        .collect();
    let (failures, unsupported) = decode_table(Isa::GFX1250, &as_table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // What the emulator does not implement for gfx12 it does not for gfx1250,
    // and nothing more.
    let (_, unsupported12) = decode_table(Isa::GFX12, &as_table);
    assert_eq!(unsupported.len(), unsupported12.len(), "{unsupported:#?}");
    for (text, bytes) in &rows {
        assert!(
            decode_tables::GFX1200
                .iter()
                .any(|(_, b)| *b == bytes.as_slice()),
            "{text}: gfx1250 bytes that no gfx12 row has"
        );
    }
    let mut refused = 0;
    for (text, bytes) in decode_tables::GFX1200 {
        if rows.iter().any(|(_, b)| b.as_slice() == *bytes) {
            continue;
        }
        let Ok((gfx12, _)) = decode_one_for(Isa::GFX12, bytes) else {
            continue;
        };
        if xad_harness::isa::table::NOT_ON_GFX1250.contains(&gfx12.op) {
            assert!(
                decode_one_for(Isa::GFX1250, bytes).is_err(),
                "{text} decodes on gfx1250"
            );
            refused += 1;
        } else {
            assert!(
                text.contains("v[1:2]"),
                "{text}: dropped by llvm-mc-22 for gfx1250, kept here"
            );
        }
    }
    assert_eq!(refused, 6, "the dropped s_waitcnt/s_wait_*cnt rows");
    // And the CDNA5-only waits are no instruction on gfx1201.
    let xcnt = [0x00, 0x00, 0xc5, 0xbf];
    assert!(decode_one_for(Isa::GFX1250, &xcnt).is_ok());
    assert!(decode_one_for(Isa::GFX12, &xcnt).is_err());
}
