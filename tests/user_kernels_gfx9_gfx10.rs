//! A user's own gfx942 (CDNA3) and gfx1030 (RDNA2) kernels, written without
//! the harness's frames (tests/kernels/user/), run through `--kernel` on the
//! emulator: as sources the harness assembles (their `.amdgcn_target` picks
//! the emulated target) and as code objects assembled here. The default case
//! follows the kernel's wave size (gfx942's is wave64: `basic_w64`). A copy
//! with v_xad_u32's src1 and src2 swapped must fail, on every lane's word it
//! changes, with the seed in the replay line.

mod common;

use common::{harness, run, scratch};
use std::path::{Path, PathBuf};

fn user_source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels/user")
        .join(name)
}

/// (source file, target it names, the line an emulated run must end with)
const KERNELS: [(&str, &str, &str); 2] = [
    ("gfx942_xad.s", "gfx942", "basic_w64"),
    ("gfx1030_xad.s", "gfx1030", "basic"),
];

#[test]
fn a_users_gfx942_and_gfx1030_sources_pass_on_their_emulated_targets() {
    for (file, target, case) in KERNELS {
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "3000",
                "--seed",
                "7",
                "--kernel",
            ])
            .arg(user_source(file)));
        assert_eq!(r.code, 0, "{file}: {}", r.all());
        assert!(
            r.stdout.contains(&format!("PASS {case}")),
            "{file} ran as {case}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains(&format!("[emulated {target}]")),
            "{file}: {}",
            r.stdout
        );
        assert!(
            !r.all().contains("hardware:"),
            "{file}: an emulated run claims hardware: {}",
            r.all()
        );
    }
}

#[test]
fn the_same_kernels_as_code_objects_pass() {
    let dir = scratch("user-kernels-gfx9-gfx10");
    for (file, target, case) in KERNELS {
        let source = std::fs::read_to_string(user_source(file)).unwrap();
        let hsaco = common::assemble(&source, target, &dir, target);
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "2048",
                "--seed",
                "8",
                "--kernel",
            ])
            .arg(&hsaco));
        assert_eq!(r.code, 0, "{file}: {}", r.all());
        assert!(
            r.stdout.contains(&format!("PASS {case}"))
                && r.stdout.contains(&format!("[emulated {target}]")),
            "{}",
            r.stdout
        );
    }
}

/// Negative control: `v_xad_u32 v5, v2, v4, v3` computes (a ^ c) + b, which
/// differs from (a ^ b) + c on almost every random lane.
#[test]
fn a_users_wrong_kernel_fails_on_each_family() {
    let dir = scratch("user-kernels-gfx9-gfx10-wrong");
    for (file, target, _) in KERNELS {
        let source = std::fs::read_to_string(user_source(file)).unwrap();
        let wrong = source.replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v4, v3");
        assert_ne!(wrong, source, "{file}: the edit must change the kernel");
        let path = dir.join(file);
        std::fs::write(&path, wrong).unwrap();
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "1000",
                "--seed",
                "9",
                "--kernel",
            ])
            .arg(&path));
        assert_eq!(r.code, 1, "{file}: the wrong kernel must fail: {}", r.all());
        assert!(
            r.stdout.contains("FAIL") && r.stdout.contains(&format!("[emulated {target}]")),
            "{}",
            r.stdout
        );
        assert!(
            r.all().contains("--seed 9"),
            "the replay line names the seed: {}",
            r.all()
        );
    }
}

/// `source` written to `dir/file` and run with `--kernel` (and `--target`
/// when given) on the emulator.
fn run_edited(dir: &Path, file: &str, source: &str, target: Option<&str>) -> common::Ran {
    let path = dir.join(file);
    std::fs::write(&path, source).unwrap();
    let mut cmd = harness();
    cmd.args(["run", "--backend", "emu", "--lanes", "300", "--seed", "5"]);
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    run(cmd.arg("--kernel").arg(&path))
}

/// `from` replaced by `to` in `source`, which must contain it.
fn edit(source: &str, from: &str, to: &str) -> String {
    assert!(source.contains(from), "{from:?} is not in the kernel");
    source.replace(from, to)
}

/// The gfx942 user kernel retargeted to `target` (a gfx9 processor);
/// gfx908 has no ACCUM_OFFSET (its AGPRs are a file of their own).
fn gfx9_source(target: &str) -> String {
    let source = std::fs::read_to_string(user_source("gfx942_xad.s")).unwrap();
    let source = source.replace(
        "amdgcn-amd-amdhsa--gfx942",
        &format!("amdgcn-amd-amdhsa--{target}"),
    );
    if target == "gfx908" {
        edit(&source, "  .amdhsa_accum_offset 8\n", "")
    } else {
        source
    }
}

/// The gfx1030 user kernel retargeted to `target` (gfx10, gfx11 or gfx12:
/// gfx12 spells the loads by size, has a wait counter per kind and passes
/// the workgroup id in ttmp9).
fn rdna_source(target: &str) -> String {
    let source = std::fs::read_to_string(user_source("gfx1030_xad.s")).unwrap();
    let mut source = source.replace(
        "amdgcn-amd-amdhsa--gfx1030",
        &format!("amdgcn-amd-amdhsa--{target}"),
    );
    if target.starts_with("gfx12") {
        for (from, to) in [
            ("s_load_dwordx8", "s_load_b256"),
            ("s_load_dword ", "s_load_b32 "),
            ("global_load_dword", "global_load_b32"),
            ("global_store_dword", "global_store_b32"),
            ("s_waitcnt lgkmcnt(0)", "s_wait_kmcnt 0"),
            ("s_waitcnt vmcnt(0)", "s_wait_loadcnt 0"),
            // gfx12's architected workgroup id x (the s2 system SGPR is unsettled there).
            ("s_lshl_b32 s13, s2, 8", "s_lshl_b32 s13, ttmp9, 8"),
        ] {
            source = edit(&source, from, to);
        }
    }
    source
}

const XAD_LINE: &str = "  v_xad_u32 v5, v2, v3, v4\n";

/// Issue 26: a gfx908 kernel writing s27 and s101 with `.amdhsa_next_free_sgpr
/// 16` (24 SGPRs with VCC, FLAT_SCRATCH and XNACK_MASK: GRANULATED_WAVEFRONT_SGPR_COUNT
/// 2) used to pass; the SGPRs past the allocation are a fault (exit 3) naming
/// the register, the instruction, its offset and the allocation. The twin
/// that allocates them passes.
#[test]
fn gfx908_sgprs_past_the_descriptors_allocation_fault() {
    let dir = scratch("user-kernels-sgpr-alloc");
    let base = gfx9_source("gfx908");
    for sgpr in ["s27", "s101"] {
        let source = edit(
            &base,
            XAD_LINE,
            &format!("{XAD_LINE}  s_mov_b32 {sgpr}, s12\n"),
        );
        let r = run_edited(&dir, &format!("{sgpr}.s"), &source, None);
        assert_eq!(r.code, 3, "{sgpr} past the allocation: {}", r.all());
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains(sgpr))
            .unwrap_or_else(|| panic!("no line names {sgpr}: {}", r.all()));
        for part in [
            format!("s_mov_b32 {sgpr}, s12"),
            "offset 0x".into(),
            "24 SGPRs".into(),
            "GRANULATED_WAVEFRONT_SGPR_COUNT=2".into(),
        ] {
            assert!(line.contains(&part), "{part:?} missing: {line}");
        }
        assert!(!r.stdout.contains("PASS"), "{}", r.stdout);
    }
    let allocated = edit(
        &edit(
            &base,
            XAD_LINE,
            &format!("{XAD_LINE}  s_mov_b32 s27, s12\n"),
        ),
        ".amdhsa_next_free_sgpr 16",
        ".amdhsa_next_free_sgpr 28",
    );
    let r = run_edited(&dir, "s27_allocated.s", &allocated, None);
    assert_eq!(r.code, 0, "s27 allocated: {}", r.all());
    assert!(r.stdout.contains("PASS basic_w64 "), "{}", r.stdout);
}

/// gfx90a's unified file: the VGPRs end at ACCUM_OFFSET (the AGPRs start
/// there), even when GRANULATED_WORKITEM_VGPR_COUNT allocates more; a VGPR
/// at or past it faults, and the twin with ACCUM_OFFSET raised passes. The
/// same for a VGPR past the whole allocation on gfx1030, gfx1100 and gfx1201.
#[test]
fn vgprs_past_accum_offset_or_the_allocation_fault() {
    let dir = scratch("user-kernels-vgpr-alloc");
    let mov_v9 = format!("{XAD_LINE}  v_mov_b32 v9, v5\n");
    let gfx90a = edit(
        &edit(&gfx9_source("gfx90a"), XAD_LINE, &mov_v9),
        ".amdhsa_next_free_vgpr 6",
        ".amdhsa_next_free_vgpr 16",
    );
    let r = run_edited(&dir, "gfx90a_v9.s", &gfx90a, None);
    assert_eq!(r.code, 3, "v9 past ACCUM_OFFSET: {}", r.all());
    assert!(
        r.stderr.contains("v9, v5") && r.stderr.contains("ACCUM_OFFSET at 8"),
        "{}",
        r.stderr
    );
    let raised = edit(&gfx90a, ".amdhsa_accum_offset 8", ".amdhsa_accum_offset 12");
    let r = run_edited(&dir, "gfx90a_v9_raised.s", &raised, None);
    assert_eq!(r.code, 0, "v9 below ACCUM_OFFSET 12: {}", r.all());

    let mov_v13 = format!("{XAD_LINE}  v_mov_b32 v13, v5\n");
    for target in ["gfx1030", "gfx1100", "gfx1201"] {
        let past = edit(&rdna_source(target), XAD_LINE, &mov_v13);
        let r = run_edited(&dir, &format!("{target}_v13.s"), &past, None);
        assert_eq!(r.code, 3, "{target}: v13 past 8 VGPRs: {}", r.all());
        assert!(
            r.stderr.contains("v13, v5")
                && r.stderr.contains("allocates 8")
                && r.stderr.contains("granule 8 in wave32"),
            "{target}: {}",
            r.stderr
        );
        let allocated = edit(
            &past,
            ".amdhsa_next_free_vgpr 6",
            ".amdhsa_next_free_vgpr 14",
        );
        let r = run_edited(&dir, &format!("{target}_v13_allocated.s"), &allocated, None);
        assert_eq!(r.code, 0, "{target}: v13 allocated: {}", r.all());
        assert!(
            r.stdout.contains(&format!("[emulated {target}]")),
            "{}",
            r.stdout
        );
    }
}

/// Issue 26: `.amdgcn_target` with target features (`gfx90a:xnack+`,
/// `gfx942:sramecc+:xnack-`) is assembled with the full target ID (a bare
/// `-mcpu` made the assembler refuse the directive), and the emulator
/// loads the code object whose e_flags carry those settings.
#[test]
fn a_target_id_with_features_assembles_and_runs() {
    let dir = scratch("user-kernels-target-features");
    for (processor, id) in [
        ("gfx90a", "gfx90a:xnack+"),
        ("gfx942", "gfx942:sramecc+:xnack-"),
    ] {
        // The directive and the metadata's amdhsa.target both name the full ID.
        let source = gfx9_source(processor).replace(
            &format!("amdgcn-amd-amdhsa--{processor}"),
            &format!("amdgcn-amd-amdhsa--{id}"),
        );
        assert!(source.contains(id));
        for target in [None, Some(processor)] {
            let r = run_edited(&dir, &format!("{processor}.s"), &source, target);
            assert_eq!(r.code, 0, "{id} (--target {target:?}): {}", r.all());
            assert!(
                r.stdout.contains(&format!("[emulated {processor}]")),
                "{}",
                r.stdout
            );
        }
    }
}

/// Issue 26: a `.amdgcn_target` inside a comment is not the directive; the
/// real one (gfx942) decides the target.
#[test]
fn a_commented_out_amdgcn_target_is_not_read() {
    let dir = scratch("user-kernels-commented-target");
    let real = gfx9_source("gfx942");
    for comment in [
        "/*\n.amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n*/\n",
        "; .amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n",
        "  // .amdgcn_target \"amdgcn-amd-amdhsa--gfx1030\"\n",
    ] {
        let r = run_edited(&dir, "commented.s", &format!("{comment}{real}"), None);
        assert_eq!(r.code, 0, "{comment}: {}", r.all());
        assert!(r.stdout.contains("[emulated gfx942]"), "{}", r.stdout);
    }
}

/// Issue 26: an instruction LLVM assembles that the emulator lacks is named
/// as such (exit 3), not called an unknown opcode; gfx9's `v_cmpx_gt_u32`,
/// refused that way before, now runs.
#[test]
fn an_unemulated_instruction_is_named_and_gfx9_v_cmpx_runs() {
    let dir = scratch("user-kernels-unemulated");
    let base = gfx9_source("gfx908");
    let lacking = edit(
        &base,
        XAD_LINE,
        &format!("{XAD_LINE}  v_cmpx_lt_i64 vcc, v[2:3], v[4:5]\n"),
    );
    let r = run_edited(&dir, "cmpx_i64.s", &lacking, None);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr
            .contains("v_cmpx_lt_i64 (VOPC opcode 241, 0xf1) is a gfx9 instruction the emulator does not implement"),
        "{}",
        r.stderr
    );
    // v_cmpx_gt_u32 vcc, v1, v1 is false in every lane: EXEC becomes 0 before
    // the store, so no lane writes and every output word fails.
    let cmpx = edit(
        &base,
        XAD_LINE,
        // s_nop 4: a VALU write of EXEC needs 5 wait states before the
        // store reads it (gfx9 hazard, GCNHazardRecognizer::checkVMEMHazards).
        &format!("{XAD_LINE}  v_cmpx_gt_u32 vcc, v1, v1\n  s_nop 4\n"),
    );
    let r = run_edited(&dir, "cmpx_u32.s", &cmpx, None);
    assert_eq!(r.code, 1, "EXEC cleared, nothing stored: {}", r.all());
    assert!(!r.all().contains("not supported"), "{}", r.all());
    let cmpx_true = edit(
        &cmpx,
        "v_cmpx_gt_u32 vcc, v1, v1",
        "v_cmpx_ge_u32 vcc, v1, v1",
    );
    let r = run_edited(&dir, "cmpx_u32_true.s", &cmpx_true, None);
    assert_eq!(r.code, 0, "EXEC kept: {}", r.all());
}
