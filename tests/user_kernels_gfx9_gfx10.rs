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
                    "/kernels/gfx12/xad_basic.s"
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
            .args(["--lanes", "300", "--seed", "2", "--kernel"])
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
