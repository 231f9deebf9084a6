//! `run --kernel file.s` on a hostile machine: an unusable TMPDIR is named as
//! such (not blamed on LLVM), the private scratch directory is removed after
//! use, and assembler runs that hang or flood their output are bounded.

use crate::common::*;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn assert_one_line(r: &Ran, code: i32, needle: &str) {
    assert_eq!(r.code, code, "exit code; output:\n{}", r.all());
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one stderr line, got:\n{}",
        r.stderr
    );
    assert!(
        lines[0].contains(needle),
        "{:?} does not mention {needle:?}",
        lines[0]
    );
    assert!(!r.all().contains("panicked"), "{}", r.all());
}

/// The basic kernel's source as a `--kernel` file in `dir`.
fn kernel_source(dir: &Path) -> PathBuf {
    let src = dir.join("k.s");
    std::fs::write(&src, basic_source()).unwrap();
    src
}

fn run_kernel(src: &Path) -> std::process::Command {
    let mut cmd = harness();
    cmd.args(["run", "--backend", "emu", "--lanes", "256", "--kernel"])
        .arg(src);
    cmd
}

#[test]
fn an_unusable_tmpdir_is_named_not_blamed_on_the_toolchain() {
    let dir = scratch("tc-tmpdir");
    let src = kernel_source(&dir);
    let missing = dir.join("no-such-tmp");
    let r = run(run_kernel(&src).env("TMPDIR", &missing));
    assert_one_line(
        &r,
        3,
        &format!(
            "temporary directory TMPDIR={} is unusable: it does not exist",
            missing.display()
        ),
    );
    assert!(!r.stderr.contains("no LLVM toolchain"), "{}", r.stderr);
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let r = run(run_kernel(&src).env("TMPDIR", &file));
    assert_one_line(&r, 3, "is unusable: it is not a directory");
    // Not writable: only meaningful when permissions bind (not as root).
    let locked = dir.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
    if std::fs::write(locked.join("probe"), "").is_err() {
        let r = run(run_kernel(&src).env("TMPDIR", &locked));
        assert_one_line(&r, 3, "cannot create a private directory in it");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn the_scratch_directory_is_private_and_removed_and_symlinks_in_tmpdir_are_not_followed() {
    let dir = scratch("tc-scratch");
    let src = kernel_source(&dir);
    let tmp = dir.join("tmp");
    let victim = dir.join("victim");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    // Names an attacker could pre-place: the old predictable `xad-harness-<pid>`
    // for the next few hundred pids, each a symlink into the victim directory.
    let next = std::process::id();
    for pid in next..next + 300 {
        std::os::unix::fs::symlink(&victim, tmp.join(format!("xad-harness-{pid}"))).unwrap();
    }
    let r = run(run_kernel(&src).env("TMPDIR", &tmp));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("PASS          basic"), "{}", r.stdout);
    assert_eq!(
        std::fs::read_dir(&victim).unwrap().count(),
        0,
        "nothing was written through a symlink"
    );
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.is_symlink())
        .collect();
    assert!(
        left.is_empty(),
        "the scratch directory is removed after use: {left:?}"
    );
}

/// A directory holding a fake `clang` (the given shell script) and `ld.lld`.
fn fake_llvm(dir: &Path, clang_script: &str) -> PathBuf {
    let bin = dir.join("fake-llvm");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in [("clang", clang_script), ("ld.lld", "exit 0")] {
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

#[test]
fn an_assembler_that_hangs_is_killed_after_the_limit() {
    let dir = scratch("tc-hang");
    let src = kernel_source(&dir);
    // Not `exec`: the shell's child keeps the pipes open for 5 s after the
    // shell is killed at 0.5 s; the harness waits for them only briefly.
    let bin = fake_llvm(&dir, "sleep 5");
    let r = run(run_kernel(&src)
        .env("XAD_LLVM_DIR", &bin)
        .env("XAD_TOOL_TIMEOUT", "0.5"));
    assert_one_line(&r, 3, "did not finish within 0.5 s and was killed");
}

#[test]
fn an_assembler_flooding_its_output_is_cut_to_the_cap() {
    let dir = scratch("tc-flood");
    let src = kernel_source(&dir);
    // 4 MiB on stderr, then failure.
    let bin = fake_llvm(&dir, "head -c 4194304 /dev/zero | tr '\\0' x >&2; exit 1");
    let r = run(run_kernel(&src).env("XAD_LLVM_DIR", &bin));
    assert_eq!(r.code, 3, "{}", &r.stderr[..r.stderr.len().min(2000)]);
    assert_eq!(r.stderr.lines().count(), 1);
    assert!(
        r.stderr.len() < xad_harness::platform::toolchain::OUTPUT_CAP + 4096,
        "{} bytes",
        r.stderr.len()
    );
    assert!(
        r.stderr.contains(&format!(
            "({} more bytes not kept)",
            4194304 - xad_harness::platform::toolchain::OUTPUT_CAP
        )),
        "{}",
        &r.stderr[r.stderr.len() - 300..]
    );
}
