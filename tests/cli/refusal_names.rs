//! An emulator refusal of an opcode it has no row for names the bits as the
//! LLVM that proves for the target reads them (`llvm-mc` beside its clang):
//! an instruction the emulator does not implement, or bits that are no
//! instruction there for LLVM either. Without a usable disassembler (none
//! found, no `llvm-mc`, a tool run past its time limit) the emulator's own
//! static reason stays, one line and exit 3.

use crate::common::{harness, run, scratch, Ran};
use std::path::{Path, PathBuf};

const XAD: &str = "  v_xad_u32 v5, v2, v3, v4";

/// The basic kernel of `target`'s generation, self-contained, with `line`
/// inserted before its `v_xad_u32`.
fn source_with(target: &str, line: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (file, retarget) = match target {
        "gfx942" | "gfx950" => ("tests/kernels/user/gfx942_xad.s", true),
        "gfx1100" => ("kernels/include/xad_basic_gfx11.s", false),
        _ => ("kernels/include/xad_basic_gfx12.s", false),
    };
    let source = std::fs::read_to_string(root.join(file)).unwrap();
    let source = if retarget {
        source.replace(
            "amdgcn-amd-amdhsa--gfx942",
            &format!("amdgcn-amd-amdhsa--{target}"),
        )
    } else {
        source.replace(
            ".include \"xad_target.inc\"\n",
            &xad_harness::platform::toolchain::target_include(target),
        )
    };
    assert!(source.contains(XAD), "{file}");
    source.replacen(XAD, &format!("  {line}\n{XAD}"), 1)
}

/// `source` run with `--kernel` on the emulated `target`, with `env` (the
/// toolchain variables are cleared first: the search's own order).
fn run_source(dir: &Path, target: &str, source: &str, env: &[(&str, &Path)]) -> Ran {
    let path = dir.join(format!("{target}.s"));
    std::fs::write(&path, source).unwrap();
    run_kernel(&path, target, env)
}

fn run_kernel(kernel: &Path, target: &str, env: &[(&str, &Path)]) -> Ran {
    let mut cmd = harness();
    cmd.env_remove("XAD_LLVM_DIR")
        .env_remove("XAD_TOOL_TIMEOUT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(cmd
        .args([
            "run",
            "--backend",
            "emu",
            "--lanes",
            "256",
            "--target",
            target,
        ])
        .arg("--kernel")
        .arg(kernel))
}

/// The one fault line on stderr, after checking the exit code and that it is one line.
fn fault_line(r: &Ran) -> &str {
    assert_eq!(r.code, 3, "{}", r.all());
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    r.stderr.trim_end()
}

/// Whether LLVM 22 is installed (gfx950 needs it); says SKIPPED when not,
/// and fails in CI, where it must be.
fn llvm22() -> bool {
    let there = ["/usr/lib/llvm-22/bin/llvm-mc", "/usr/bin/llvm-mc-22"]
        .iter()
        .any(|p| Path::new(p).is_file());
    if !there {
        let why = "LLVM 22 (llvm-mc-22) not installed: gfx950's naming not checked";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("SKIPPED: {why}");
    }
    there
}

/// (a): `v_sin_f32` is an instruction of every generation that the emulator
/// lacks; each target's LLVM names it with its operands, the opcode and the
/// disassembler. gfx950 is known to LLVM 22 only.
#[test]
fn an_instruction_the_emulator_lacks_is_named_by_llvm() {
    let dir = scratch("refusal-named");
    let mut targets = vec![
        ("gfx1201", 53, "19"),
        ("gfx1100", 53, "19"),
        ("gfx942", 41, "19"),
    ];
    if llvm22() {
        targets.push(("gfx950", 41, "22"));
    }
    for (target, opcode, llvm) in targets {
        let r = run_source(&dir, target, &source_with(target, "v_sin_f32 v6, v4"), &[]);
        let line = fault_line(&r);
        let want = format!(
            "v_sin_f32_e32 v6, v4 (VOP1 opcode {opcode}) is a {target} instruction the emulator \
             does not implement (named by llvm-mc-{llvm})"
        );
        assert!(line.contains(&want), "{target}: want {want}\n{line}");
        assert!(line.contains("decoded as VOP1: "), "{line}");
        assert!(
            r.stdout
                .contains("  error: emulator: unsupported instruction at offset"),
            "{}",
            r.stdout
        );
    }
}

/// (b): VOP1 opcode 127 with these operands is no instruction on any of these
/// targets (`llvm-mc --disassemble` warns "invalid instruction encoding").
#[test]
fn bits_llvm_does_not_decode_either_are_no_instruction() {
    let dir = scratch("refusal-invalid");
    let mut targets = vec![("gfx1201", "19"), ("gfx1100", "19"), ("gfx942", "19")];
    if llvm22() {
        targets.push(("gfx950", "22"));
    }
    for (target, llvm) in targets {
        let r = run_source(&dir, target, &source_with(target, ".long 0x7e0cfe04"), &[]);
        let line = fault_line(&r);
        let want = format!(
            "dwords [7E0CFE04] decoded as VOP1: these bits are not an instruction on {target} \
             (llvm-mc-{llvm} does not decode them either)"
        );
        assert!(line.contains(&want), "{target}: want {want}\n{line}");
        assert!(!line.contains("does not implement"), "{line}");
    }
}

/// The clang and ld.lld build.rs proved, found at build time.
fn real_llvm() -> Option<(PathBuf, PathBuf)> {
    let clang = PathBuf::from(option_env!("XAD_BUILD_CLANG")?);
    let lld = PathBuf::from(option_env!("XAD_BUILD_LLD")?);
    (clang.is_file() && lld.is_file()).then_some((clang, lld))
}

/// (c): with no toolchain at all (a code object assembled beforehand, run
/// with XAD_LLVM_DIR an empty directory), with a toolchain that has no
/// `llvm-mc`, and with every tool run past its time limit, the refusal is
/// the emulator's static one, one line, exit 3.
#[test]
fn without_a_usable_disassembler_the_static_reason_stays() {
    let dir = scratch("refusal-static");
    let source = source_with("gfx1201", "v_sin_f32 v6, v4");
    let code = crate::common::assemble(&source, "gfx1201", &dir, "sin");
    let empty = dir.join("no-llvm");
    std::fs::create_dir_all(&empty).unwrap();
    let static_reason = "dwords [7E0C6B04] decoded as VOP1: VOP1 opcode 53 (0x35) is not an \
                         instruction on gfx12 that the emulator knows";
    let r = run_kernel(&code, "gfx1201", &[("XAD_LLVM_DIR", &empty)]);
    assert!(fault_line(&r).contains(static_reason), "{}", r.stderr);
    let r = run_kernel(
        &code,
        "gfx1201",
        &[("XAD_TOOL_TIMEOUT", Path::new("0.000001"))],
    );
    assert!(fault_line(&r).contains(static_reason), "{}", r.stderr);
    // Control: the same code object with the search's own toolchains is named.
    let r = run_kernel(&code, "gfx1201", &[]);
    assert!(fault_line(&r).contains("named by llvm-mc-"), "{}", r.stderr);
    let Some((clang, lld)) = real_llvm() else {
        eprintln!("SKIPPED: build.rs recorded no LLVM toolchain: the no-llvm-mc check");
        return;
    };
    let bare = dir.join("clang-only");
    std::fs::create_dir_all(&bare).unwrap();
    for (link, to) in [("clang", clang), ("ld.lld", lld)] {
        let _ = std::fs::remove_file(bare.join(link));
        std::os::unix::fs::symlink(to, bare.join(link)).unwrap();
    }
    let r = run_source(&dir, "gfx1201", &source, &[("XAD_LLVM_DIR", &bare)]);
    assert!(fault_line(&r).contains(static_reason), "{}", r.stderr);
}
