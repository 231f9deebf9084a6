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
