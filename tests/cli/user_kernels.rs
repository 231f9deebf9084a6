//! A user's own gfx942 (CDNA3) and gfx1030 (RDNA2) kernels, written without
//! the harness's frames (tests/kernels/user/), run through `--kernel` on the
//! emulator: as sources the harness assembles (their `.amdgcn_target` picks
//! the emulated target) and as code objects assembled here. The default case
//! follows the kernel's wave size (gfx942's is wave64: `basic_w64`). A copy
//! with v_xad_u32's src1 and src2 swapped must fail, on every lane's word it
//! changes, with the seed in the replay line.

use crate::common;
use crate::common::{compile, harness, run, scratch};
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
            r.stdout.contains(&format!("PASS          {case}")),
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
            r.stdout.contains(&format!("PASS          {case}"))
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
    assert!(
        r.stdout.contains("PASS          basic_w64 "),
        "{}",
        r.stdout
    );
}

/// gfx9 keeps VCC, XNACK_MASK and FLAT_SCRATCH in the last six of a wave's
/// SGPRs. With `.amdhsa_next_free_sgpr 16` gfx908 allocates 24, so s22/s23
/// are VCC's storage and s20/s21 XNACK_MASK's: the user kernel (which
/// compares into VCC) writing s23 used to pass, and so did s21 although the
/// code object leaves xnack "any" (the hardware may write XNACK_MASK). Both
/// are a fault naming the register and who else writes it. The twins pass:
/// s21 with `xnack-` pinned, and s23 with the SGPRs allocated past it.
#[test]
fn gfx908_sgprs_holding_vcc_or_xnack_mask_fault() {
    let dir = scratch("user-kernels-sgpr-specials");
    let base = gfx9_source("gfx908");
    let writing = |sgpr: &str| {
        edit(
            &base,
            XAD_LINE,
            &format!("{XAD_LINE}  s_mov_b32 {sgpr}, 0\n  v_add_u32 v5, {sgpr}, v5\n"),
        )
    };
    for (sgpr, special, writer) in [
        ("s23", "VCC", "the kernel uses VCC at offset 0x"),
        ("s21", "XNACK_MASK", "the hardware writes XNACK_MASK"),
    ] {
        let r = run_edited(&dir, &format!("{sgpr}.s"), &writing(sgpr), None);
        assert_eq!(
            r.code,
            3,
            "{sgpr} shares storage with {special}: {}",
            r.all()
        );
        let line = r
            .stderr
            .lines()
            .find(|l| l.contains(&format!("uses {sgpr}, which holds {special}")))
            .unwrap_or_else(|| panic!("no line names {sgpr} as {special}: {}", r.all()));
        for part in [writer, "24 SGPRs", "GRANULATED_WAVEFRONT_SGPR_COUNT=2"] {
            assert!(line.contains(part), "{part:?} missing: {line}");
        }
        assert!(!r.stdout.contains("PASS"), "{}", r.stdout);
    }
    let pinned = edit(
        &writing("s21"),
        "amdgcn-amd-amdhsa--gfx908\"",
        "amdgcn-amd-amdhsa--gfx908:xnack-\"",
    );
    let pinned = edit(
        &pinned,
        "amdhsa.target: amdgcn-amd-amdhsa--gfx908\n",
        "amdhsa.target: amdgcn-amd-amdhsa--gfx908:xnack-\n",
    );
    let r = run_edited(&dir, "s21_xnack_off.s", &pinned, None);
    assert_eq!(r.code, 0, "s21 with xnack- pinned: {}", r.all());
    let allocated = edit(
        &writing("s23"),
        ".amdhsa_next_free_sgpr 16",
        ".amdhsa_next_free_sgpr 24",
    );
    let r = run_edited(&dir, "s23_allocated.s", &allocated, None);
    assert_eq!(r.code, 0, "s23 allocated: {}", r.all());
    assert!(
        r.stdout.contains("PASS          basic_w64 "),
        "{}",
        r.stdout
    );
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
        &format!("{XAD_LINE}  v_cmpx_t_i64 vcc, v[2:3], v[4:5]\n"),
    );
    let r = run_edited(&dir, "cmpx_t_i64.s", &lacking, None);
    assert_eq!(r.code, 3, "{}", r.all());
    // Named by the LLVM that assembled it (tests/cli/refusal_names.rs has
    // the static reason, for a run without one).
    assert!(
        r.stderr
            .contains("v_cmpx_t_i64_e32 vcc, v[2:3], v[4:5] (VOPC opcode 247) is a gfx908 instruction the emulator does not implement (named by llvm-mc-"),
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

/// The replay line of a failing `--kernel` run is a command that reproduces
/// it: the kernel below names no `.amdgcn_target`, so only `--target gfx1030`
/// assembles it for the target that ran (without it the file is built for
/// the default gfx1100 and refused), and `--backend emu` keeps an `auto` run
/// on a GPU host from running it elsewhere. Run again, the line gives the
/// same failing lanes.
#[test]
fn a_kernel_runs_replay_line_names_target_and_backend_and_reproduces() {
    let dir = scratch("user-kernels-replay");
    let source = std::fs::read_to_string(user_source("gfx1030_xad.s")).unwrap();
    let untargeted: String = source
        .lines()
        .filter(|l| !l.starts_with(".amdgcn_target"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v4, v3");
    assert!(!untargeted.contains(".amdgcn_target") && untargeted.contains("v2, v4, v3"));
    let path = dir.join("wrong.s");
    std::fs::write(&path, untargeted).unwrap();
    let first = run(harness()
        .args(["run", "--backend", "emu", "--target", "gfx1030"])
        .args(["--lanes", "700", "--seed", "11", "--kernel"])
        .arg(&path));
    assert_eq!(first.code, 1, "{}", first.all());
    let replay = first
        .stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("replay: xad-harness "))
        .unwrap_or_else(|| panic!("no replay line: {}", first.stdout));
    for needed in [
        "--backend emu",
        "--target gfx1030",
        "--seed 11",
        "--lanes 700",
    ] {
        assert!(replay.contains(needed), "{needed} missing from {replay:?}");
    }
    // The scratch path has no spaces, so the line splits into its arguments.
    let again = run(harness().args(replay.split_whitespace()));
    assert_eq!(again.code, 1, "{replay}: {}", again.all());
    let failing = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.trim_start().starts_with("lane ") || l.starts_with("FAIL"))
            .map(|l| l.split(", 0.").next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(
        failing(&again.stdout),
        failing(&first.stdout),
        "{}",
        again.stdout
    );
    assert!(!failing(&first.stdout).is_empty());
    // Without --target, as the line used to be, the run is not reproduced.
    let without = replay.replace("--target gfx1030 ", "");
    let lost = run(harness().args(without.split_whitespace()));
    assert_ne!(lost.code, 1, "{}", lost.all());
}

/// `source` with each `(from, to)` edit made; each must apply.
fn edited(source: &str, edits: &[(&str, &str)]) -> String {
    edits.iter().fold(source.to_string(), |s, (from, to)| {
        assert!(s.contains(from), "{from:?} not in the kernel");
        s.replacen(from, to, 1)
    })
}

/// An unsettled SGPR's origin says what it is on the generation that ran:
/// gfx908's and gfx1030's private segment buffer (s0, the runtime's scratch
/// setup) and gfx1201's system SGPR s2 (its workgroup ids live in ttmp9).
/// Each kernel adds the register (0 in the emulator) to its result, so
/// every word is unsettled: nothing is verified (exit 77), and each origin
/// names its own generation's register and reason, never another's.
#[test]
fn unsettled_sgpr_origins_name_their_own_generations_register() {
    let dir = scratch("user-kernels-unsettled-origins");
    // Enable the private segment buffer (s0-s3), keep s0 in s16, move the
    // kernarg pointer and workgroup id back where the kernel expects them,
    // and add s16 to the result.
    let scratch_edits = |add: &'static str| -> Vec<(&'static str, String)> {
        vec![
            (
                "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n",
                "  .amdhsa_user_sgpr_private_segment_buffer 1\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n".into(),
            ),
            ("  .amdhsa_next_free_sgpr 16\n", "  .amdhsa_next_free_sgpr 20\n".into()),
            (
                "user_xad:\n",
                "user_xad:\n  s_mov_b32 s16, s0\n  s_mov_b64 s[0:1], s[4:5]\n  s_mov_b32 s2, s6\n".into(),
            ),
            (
                "  global_store_dword v1, v5, s[10:11]",
                format!("  {add} v5, s16, v5\n  global_store_dword v1, v5, s[10:11]"),
            ),
        ]
    };
    let mut gfx908 = scratch_edits("v_add_u32");
    gfx908.extend([
        (
            "\"amdgcn-amd-amdhsa--gfx942\"",
            "\"amdgcn-amd-amdhsa--gfx908\"".to_string(),
        ),
        (
            "target: amdgcn-amd-amdhsa--gfx942",
            "target: amdgcn-amd-amdhsa--gfx908".into(),
        ),
        ("  .amdhsa_accum_offset 8\n", String::new()), // gfx90a+ only
    ]);
    let kernels = [
        (
            "gfx908",
            edited_owned(
                &std::fs::read_to_string(user_source("gfx942_xad.s")).unwrap(),
                &gfx908,
            ),
            "s0 read: a gfx9 (gfx908) private segment buffer user SGPR",
        ),
        (
            "gfx1030",
            edited_owned(
                &std::fs::read_to_string(user_source("gfx1030_xad.s")).unwrap(),
                &scratch_edits("v_add_nc_u32"),
            ),
            "s0 read: a gfx10 (gfx1030) private segment buffer user SGPR",
        ),
        (
            "gfx1201",
            edited(
                &std::fs::read_to_string(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/kernels/include/xad_basic_gfx12.s"
                ))
                .unwrap(),
                &[("s_lshl_b32 s13, ttmp9, 8", "s_lshl_b32 s13, s2, 8")],
            ),
            "s2 read: a gfx12 system SGPR (workgroup id/info)",
        ),
    ];
    let markers = ["a gfx9 (", "a gfx10 (", "a gfx12 system SGPR"];
    for (target, source, want) in kernels {
        let path = dir.join(format!("{target}.s"));
        std::fs::write(&path, source).unwrap();
        let r = run(harness()
            .args(["run", "--backend", "emu", "--target", target])
            // Each unsettled word's line (its origin) is printed with --verbose.
            .args(["--lanes", "300", "--seed", "2", "--verbose", "--kernel"])
            .arg(&path));
        assert_eq!(r.code, 77, "{target}: every word unsettled: {}", r.all());
        let origins: Vec<&str> = r
            .stdout
            .lines()
            .filter(|l| l.contains("unsettled, neither pass nor fail"))
            .collect();
        assert!(!origins.is_empty(), "{target}: {}", r.stdout);
        for line in &origins {
            assert!(line.contains(want), "{target}: {line}");
            for other in markers.iter().filter(|m| !want.contains(**m)) {
                assert!(!line.contains(other), "{target} names {other:?}: {line}");
            }
        }
    }
}

/// [`edited`] with owned replacements.
fn edited_owned(source: &str, edits: &[(&str, String)]) -> String {
    let refs: Vec<(&str, &str)> = edits.iter().map(|(f, t)| (*f, t.as_str())).collect();
    edited(source, &refs)
}

/// A single-kernel version of `user_xad` whose ABI is basic_w64's (a, b, c,
/// out, count; wave64), for the CLI.
const BASIC_W64_IR: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @xad_w64(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                                   ptr addrspace(1) %out, i32 %count) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %count
  br i1 %in, label %body, label %done
body:
  %pa = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr i32, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr i32, ptr addrspace(1) %c, i32 %i
  %va = load i32, ptr addrspace(1) %pa
  %vb = load i32, ptr addrspace(1) %pb
  %vc = load i32, ptr addrspace(1) %pc
  %x = xor i32 %va, %vb
  %r = add i32 %x, %vc
  %po = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %r, ptr addrspace(1) %po
  br label %done
done:
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="256,256" "amdgpu-no-implicitarg-ptr" }
"#;

#[test]
fn the_cli_runs_a_compiled_gfx942_kernel_as_basic_w64() {
    let dir = scratch("emu_gfx940_lshl_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("xad_w64.ll");
    std::fs::write(&ll, BASIC_W64_IR).unwrap();
    let Some((image, asm)) = compile(&ll, "gfx942", &dir) else {
        return;
    };
    assert!(asm.contains("v_lshl_add_u64"), "{asm}");
    let hsaco = dir.join("xad_w64.hsaco");
    std::fs::write(&hsaco, &image).unwrap();
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic_w64",
            "--lanes",
            "3000",
        ])
        .args(["--seed", "5", "--kernel"])
        .arg(&hsaco));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("PASS          basic_w64") && r.stdout.contains("[emulated gfx942]"),
        "{}",
        r.stdout
    );
    assert!(!r.all().contains("hardware:"), "{}", r.all());
}
