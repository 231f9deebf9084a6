//! The code object version is chosen, not inherited from whichever LLVM is
//! found: it follows the HIP runtime the build used (its `hip_version.h`:
//! v4 for a processor a runtime before 5.3 knows, v6 for generic targets, v5
//! otherwise; crates/xad-build/src/code_object_policy.rs), every assembly passes it as
//! `-mcode-object-version`, and the canary proves the ELF ABI version as well
//! as the bytes. A clang that quietly emits another version (here: a wrapper
//! that overrides the flag, as an LLVM ignoring it would) is not used.

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::toolchain;

/// The clang and ld.lld build.rs proved, found at build time.
fn real_llvm() -> Option<(PathBuf, PathBuf)> {
    let clang = PathBuf::from(option_env!("XAD_BUILD_CLANG")?);
    let lld = PathBuf::from(option_env!("XAD_BUILD_LLD")?);
    (clang.is_file() && lld.is_file()).then_some((clang, lld))
}

/// A directory whose `clang` runs the real one with `extra` appended (the
/// last `-mcode-object-version` wins) and whose `ld.lld` is the real one.
fn wrapped_llvm(dir: &Path, extra: &str) -> Option<PathBuf> {
    let (clang, lld) = real_llvm()?;
    let bin = dir.join("wrapped-llvm");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("clang");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec '{}' \"$@\" {extra}\n", clang.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_file(bin.join("ld.lld"));
    std::os::unix::fs::symlink(lld, bin.join("ld.lld")).unwrap();
    Some(bin)
}

fn run_kernel(dir: &Path, llvm: &Path, json: &Path) -> Ran {
    let src = dir.join("k.s");
    std::fs::write(&src, basic_source()).unwrap();
    run(harness()
        .args(["run", "--backend", "emu", "--lanes", "300", "--kernel"])
        .arg(&src)
        .arg("--json")
        .arg(json)
        .env("XAD_LLVM_DIR", llvm))
}

/// Every embedded code object's ELF ABI version and metadata version are the
/// policy's for the HIP the build used; and, stated without the policy: a
/// HIP 5.2 build embeds v4 (ABI 2, `[1, 1]`) for gfx1030, gfx1010, gfx908
/// and gfx90a and v5 for gfx1100; a 6.x/7.x build v5 for every processor.
/// Generic targets are v6 under all.
/// `run --kernel` of a copy of the gfx10 reference kernel (in `dir`) on an
/// emulated gfx1030, with `XAD_LLVM_DIR` set to `llvm` when given; the
/// copy's path and the run.
fn run_gfx1030_kernel(dir: &Path, llvm: Option<&Path>) -> (PathBuf, Ran) {
    let src = dir.join("k.s");
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/include/xad_basic_gfx10.s");
    std::fs::copy(reference, &src).unwrap();
    let mut cmd = harness();
    cmd.args([
        "run",
        "--backend",
        "emu",
        "--target",
        "gfx1030",
        "--lanes",
        "300",
    ])
    .arg("--kernel")
    .arg(&src);
    if let Some(llvm) = llvm {
        cmd.env("XAD_LLVM_DIR", llvm);
    }
    (src, run(&mut cmd))
}

/// `run --kernel` assembles a user's source with the same policy: a gfx1030
/// source is v4 under a HIP 5.2 build (v5 under 6.x/7.x) and runs on the
/// emulator either way.
#[test]
fn a_user_kernel_is_assembled_for_the_same_runtime() {
    let (src, r) = run_gfx1030_kernel(&scratch("tc-user-cov"), None);
    assert_eq!(r.code, 0, "{}", r.all());
    let bytes = toolchain::assemble_file(&src, "gfx1030").unwrap();
    let version = CodeObject::parse(&bytes).unwrap().metadata.version;
    let want = if before_v5(header_version()) {
        (2, (1, 1))
    } else {
        (3, (1, 2))
    };
    assert_eq!((bytes[8], version), want);
}

#[test]
fn a_clang_emitting_another_code_object_version_fails_the_canary() {
    let dir = scratch("tc-cov");
    let Some(llvm) = wrapped_llvm(&dir, "-mcode-object-version=4") else {
        eprintln!("skipped: build.rs recorded no LLVM toolchain");
        return;
    };
    let r = run_kernel(&dir, &llvm, &dir.join("r.json"));
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr.contains("ELF ABI version 2 (want 3)"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}

/// The canary holds a v4 target to v4 too: under a HIP 5.2 build a clang
/// that emits v5 for gfx1030 is refused (and under 6.x/7.x one emitting v4),
/// so a quietly ignored `-mcode-object-version=4` cannot ship v5 objects to
/// a runtime that refuses them.
#[test]
fn a_clang_emitting_v5_for_a_v4_target_fails_the_canary() {
    let dir = scratch("tc-cov-gfx1030");
    let (right, wrong) = if before_v5(header_version()) {
        (4, 5)
    } else {
        (5, 4)
    };
    let Some(llvm) = wrapped_llvm(&dir, &format!("-mcode-object-version={wrong}")) else {
        eprintln!("skipped: build.rs recorded no LLVM toolchain");
        return;
    };
    let (_, r) = run_gfx1030_kernel(&dir, Some(&llvm));
    assert_eq!(r.code, 3, "{}", r.all());
    let want = format!("ELF ABI version {} (want {})", wrong - 2, right - 2);
    assert!(r.stderr.contains(&want), "{want}: {}", r.stderr);
}

/// Control: the same wrapper asking for v5 explicitly is accepted, so the
/// refusal above is about the version and nothing else in the wrapper.
#[test]
fn the_same_wrapper_asking_for_v5_is_used() {
    let dir = scratch("tc-cov5");
    let Some(llvm) = wrapped_llvm(&dir, "-mcode-object-version=5") else {
        eprintln!("skipped: build.rs recorded no LLVM toolchain");
        return;
    };
    let r = run_kernel(&dir, &llvm, &dir.join("r.json"));
    assert_eq!(r.code, 0, "{}", r.all());
}

/// An OpenCL kernel computing what the basic case checks, for `clang -x cl`.
const USER_XAD_CL: &str = "__attribute__((reqd_work_group_size(256,1,1))) kernel void \
user_xad(global const uint *a, global const uint *b, global const uint *c, global uint *out, \
uint count) { uint i = __builtin_amdgcn_workgroup_id_x()*256 + __builtin_amdgcn_workitem_id_x(); \
if (i < count) out[i] = (a[i]^b[i]) + c[i]; }\n";

/// clang-22 (on PATH or in Debian's /usr/lib/llvm-22), or `None` after
/// saying SKIPPED (a failure in CI, where it must be installed).
fn clang22() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("clang-22"))
            .find(|p| p.is_file())
    });
    let found = on_path
        .or_else(|| Some(PathBuf::from("/usr/lib/llvm-22/bin/clang")).filter(|p| p.is_file()));
    if found.is_none() {
        let why = "clang-22 not installed: the fallback to a newer LLVM for a .s is not checked";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("SKIPPED: {why}");
    }
    found
}

fn run_gfx1201(src: &Path, llvm_dir: Option<&Path>) -> Ran {
    let mut cmd = harness();
    cmd.env_remove("XAD_LLVM_DIR");
    if let Some(dir) = llvm_dir {
        cmd.env("XAD_LLVM_DIR", dir);
    }
    run(cmd
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1201",
            "--case",
            "basic",
        ])
        .args(["--lanes", "512", "--kernel"])
        .arg(src))
}

/// A `.s` LLVM 22 wrote for gfx1201 names `.amdhsa_inst_pref_size`, which
/// LLVM 19 (the first candidate) does not know: the next candidate that
/// proves for the target assembles it, and the kernel passes. A source no
/// candidate assembles is reported as the first failure, naming the others
/// tried, in one line.
#[test]
fn a_source_the_first_llvm_refuses_is_assembled_by_the_next() {
    let Some(clang) = clang22() else { return };
    let dir = scratch("tc-fallback");
    let cl = dir.join("k.cl");
    std::fs::write(&cl, USER_XAD_CL).unwrap();
    let src = dir.join("k22.s");
    let made = run(Command::new(&clang)
        .args(["-x", "cl", "-cl-std=CL2.0", "--target=amdgcn-amd-amdhsa"])
        .args(["-mcpu=gfx1201", "-O2", "-S", "-nogpulib"])
        .arg(&cl)
        .arg("-o")
        .arg(&src));
    assert_eq!(made.code, 0, "{}", made.all());
    let r = run_gfx1201(&src, None);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("1 passed, 0 failed"), "{}", r.stdout);
    // The premise: LLVM 19 alone refuses this source.
    let llvm19 = Path::new("/usr/lib/llvm-19/bin");
    if llvm19.join("clang").is_file() {
        let r = run_gfx1201(&src, Some(llvm19));
        assert_eq!(r.code, 2, "{}", r.all());
        assert!(
            r.stderr.contains("unknown .amdhsa_kernel directive | ")
                && r.stderr.contains(".amdhsa_inst_pref_size"),
            "{}",
            r.stderr
        );
        assert!(!r.stderr.contains("also tried"), "{}", r.stderr);
    }
    let bad = dir.join("bad.s");
    std::fs::write(&bad, "\tthis_is_no_instruction v1\n").unwrap();
    let r = run_gfx1201(&bad, None);
    assert_eq!(r.code, 2, "{}", r.all());
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    let line = r.stderr.trim_end();
    assert!(line.contains("does not assemble for gfx1201: `"), "{line}");
    let (first, also) = line
        .split_once("; also tried ")
        .expect("the others tried are named");
    assert!(first.contains("error: invalid instruction"), "{line}");
    assert!(
        also.contains("22") && also.contains("bad.s:1:2: error: invalid instruction"),
        "{line}"
    );
}

#[test]
fn canary_accepts_llvm19_and_rejects_gcn_bytes() {
    let dir = scratch("canary");
    let tc = xad_harness::platform::toolchain::discover("gfx1100", &dir)
        .expect("a gfx11 LLVM (clang-19) is installed here");
    assert!(tc.clang.to_string_lossy().contains("clang"));

    // A "clang" that is really LLVM 14's llvm-mc: accepts -mcpu=gfx1100 with a
    // warning (silenced here, as a wrapper script might) and emits GCN encodings.
    let fake = dir.join("fake-llvm");
    std::fs::create_dir_all(&fake).unwrap();
    let script = "#!/bin/sh\nsrc=; out=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift;; *.s) src=$1;; esac; shift; done\n\
                  exec /usr/bin/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx900 -filetype=obj \"$src\" -o \"$out\" 2>/dev/null\n";
    for tool in ["clang", "ld.lld"] {
        let p = fake.join(tool);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let r = run(harness()
        .env("XAD_LLVM_DIR", &fake)
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(dir.join("x.s")));
    // x.s does not exist: a usage error comes first, before any toolchain search.
    assert_eq!(r.code, 2, "{}", r.all());
    std::fs::write(dir.join("x.s"), basic_source()).unwrap();
    let r = run(harness()
        .env("XAD_LLVM_DIR", &fake)
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(dir.join("x.s")));
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr.contains("canary did not encode as gfx1100"),
        "{}",
        r.stderr
    );
}
