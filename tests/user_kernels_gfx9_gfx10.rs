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
