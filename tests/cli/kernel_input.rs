//! A user's `--kernel` through the real CLI: a file too large, a kernel whose
//! wave size or argument layout does not fit the case's ABI, and a mutated
//! code object whose program headers point past its end are all bad input
//! (one line, exit 2), and the last is refused before the HIP runtime is
//! called (checked on the emulated HIP device library, whose
//! `hipModuleLoadData` is made to fail loudly if it is ever reached).

use crate::common::*;
use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;
use xad_harness::platform::codeobj::descriptor::KernelDescriptor;
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::device::Device;
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::toolchain::Toolchain;

fn assert_one_line_error(r: &Ran, code: i32, needles: &[&str]) {
    assert_eq!(r.code, code, "exit code; output:\n{}", r.all());
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one stderr line, got:\n{}",
        r.stderr
    );
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "{:?} does not mention {needle:?}",
            lines[0]
        );
    }
    assert!(!r.all().contains("panicked"), "panic:\n{}", r.all());
}

/// An embedded code object written out as a user's file.
fn embedded_file(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.hsaco"));
    std::fs::write(
        &path,
        xad_harness::platform::embedded::find("gfx1100", name)
            .expect("embedded")
            .bytes,
    )
    .unwrap();
    path
}

fn run_kernel(kernel: &Path, case: &str) -> Ran {
    run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--lanes",
            "512",
            "--seed",
            "1",
            "--case",
            case,
            "--kernel",
        ])
        .arg(kernel))
}

#[test]
fn a_kernel_file_over_the_size_cap_is_refused_without_reading_it() {
    let dir = scratch("kernel-input-big");
    let path = dir.join("big.hsaco");
    // Sparse: 64 GiB the harness would need minutes and all memory to read.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(64 << 30).expect("a sparse 64 GiB file");
    drop(file);
    let r = run_kernel(&path, "basic");
    assert_one_line_error(
        &r,
        2,
        &["--kernel", "68719476736 bytes", "limited to 67108864 bytes"],
    );
    // One byte over the cap, and a source file over it, too.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    assert_one_line_error(
        &run_kernel(&path, "basic"),
        2,
        &["limited to 67108864 bytes"],
    );
    let source = dir.join("big.s");
    std::fs::File::create(&source)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    assert_one_line_error(
        &run_kernel(&source, "basic"),
        2,
        &["limited to 67108864 bytes"],
    );
}

#[test]
fn a_kernel_of_the_wrong_wave_size_is_bad_input() {
    let dir = scratch("kernel-input-wave");
    // The wave64 build of the same operand forms, standing in for the wave32 case.
    let r = run_kernel(&embedded_file(&dir, "xad_vgpr_w64"), "vgpr_w32");
    assert_one_line_error(
        &r,
        2,
        &[
            "--kernel",
            "xad_vgpr_w64 is wave64 but case vgpr_w32 is wave32",
        ],
    );
    let r = run_kernel(&embedded_file(&dir, "xad_basic"), "vgpr_w64");
    assert_one_line_error(&r, 2, &["xad_basic is wave32 but case vgpr_w64 is wave64"]);
    // Control: the right wave size passes.
    let r = run_kernel(&embedded_file(&dir, "xad_vgpr_w32"), "vgpr_w32");
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn a_kernel_with_another_argument_layout_is_bad_input() {
    let dir = scratch("kernel-input-layout");
    // Eight scalar arguments more than the basic case passes.
    let r = run_kernel(&embedded_file(&dir, "xad_sreg_w32"), "basic");
    assert_one_line_error(
        &r,
        2,
        &[
            "--kernel",
            "takes 13 explicit arguments",
            "case basic passes 5",
        ],
    );
    // And the reverse: the scalars missing.
    let r = run_kernel(&embedded_file(&dir, "xad_basic"), "sreg_w32");
    assert_one_line_error(
        &r,
        2,
        &["takes 5 explicit arguments", "case sreg_w32 passes 13"],
    );
    // The basic kernel with an 8-byte count: same number of arguments, other layout.
    let source = basic_source().replace(
        "{ .name: count, .offset: 32, .size: 4, .value_kind: by_value }",
        "{ .name: count, .offset: 32, .size: 8, .value_kind: by_value }",
    );
    assert!(
        source.contains(".size: 8, .value_kind: by_value"),
        "the metadata line moved"
    );
    let wide = assemble(&source, "gfx1100", &dir, "xad_basic_wide_count");
    let r = run_kernel(&wide, "basic");
    assert_one_line_error(
        &r,
        2,
        &[
            "argument 4 is count: by_value of 8 bytes",
            "count: by_value of 4 bytes",
        ],
    );
    // Two arguments at one offset.
    let source = basic_source().replace(
        "{ .name: b, .offset: 8, .size: 8,",
        "{ .name: b, .offset: 0, .size: 8,",
    );
    let clash = assemble(&source, "gfx1100", &dir, "xad_basic_clash");
    assert_one_line_error(
        &run_kernel(&clash, "basic"),
        2,
        &["argument 1 (b) at offset 0 overlaps argument 0"],
    );
}

/// `xad_basic` with program header 1's file size running one byte past the end.
fn segment_past_the_end(dir: &Path) -> PathBuf {
    let mut bytes = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .unwrap()
        .bytes
        .to_vec();
    let phoff = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let ph = phoff + 56;
    let offset = u64::from_le_bytes(bytes[ph + 8..ph + 16].try_into().unwrap());
    let past = bytes.len() as u64 + 1 - offset;
    bytes[ph + 32..ph + 40].copy_from_slice(&past.to_le_bytes());
    let path = dir.join("segment_past_the_end.hsaco");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// On the HIP path (the emulated runtime), with `hipModuleLoadData` made to
/// fail with status 999 whenever it is called: the mutated file is exit 2
/// and the runtime's load is never reached; the intact file reaches it (the
/// control that shows the knob would have caught a call).
#[test]
fn program_headers_past_the_end_are_refused_before_any_runtime_call() {
    let dir = scratch("kernel-input-hip");
    let library = support::library();
    let knobs = [("XAD_EMUHIP_STATUS", "999:hipModuleLoadData")];
    let run_hip = |kernel: &Path| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_xad-harness"));
        command
            .args([
                "run",
                "--backend",
                "hip",
                "--case",
                "basic",
                "--lanes",
                "512",
                "--seed",
                "1",
                "--kernel",
            ])
            .arg(kernel);
        let output =
            support::run(command, Some(&library), &knobs).unwrap_or_else(|e| panic!("{e}"));
        (output.status.code(), support::transcript(&output))
    };
    let (code, transcript) = run_hip(&segment_past_the_end(&dir));
    assert_eq!(code, Some(2), "{transcript}");
    assert!(
        transcript.contains("program header 1") && transcript.contains("past the end"),
        "{transcript}"
    );
    assert!(
        !transcript.contains("hipModuleLoadData"),
        "the runtime's load was called:\n{transcript}"
    );

    let (code, transcript) = run_hip(&embedded_file(&dir, "xad_basic"));
    assert_eq!(
        code,
        Some(3),
        "control: the intact file reaches hipModuleLoadData\n{transcript}"
    );
    assert!(
        transcript.contains("hipModuleLoadData") && transcript.contains("999"),
        "{transcript}"
    );
}

/// A user's copy of a `kernels/cases` stub names no generation: `run --kernel`
/// writes `xad_frame.inc` for the target beside `xad_target.inc`, so the same
/// copy assembles with gfx9's, gfx10's, gfx11's and gfx12's frame, and what
/// runs is the copy as edited (an operand swap fails, the unedited copy passes).
#[test]
fn an_edited_copy_of_a_case_stub_assembles_for_every_generation() {
    let dir = scratch("kernel-input-stub");
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    // The layout `run --kernel` resolves `.include` in: the source's
    // directory and a sibling include/.
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    for entry in std::fs::read_dir(kernels.join("include")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("include").join(path.file_name().unwrap())).unwrap();
    }
    let stub = std::fs::read_to_string(kernels.join("cases/xad_basic_w64.s")).unwrap();
    let xad = "v_xad_u32 v5, v2, v3, v4";
    assert!(stub.contains(".include \"xad_frame.inc\"") && stub.contains(xad));
    let same = dir.join("mine/same.s");
    let swapped = dir.join("mine/swapped.s");
    std::fs::write(&same, &stub).unwrap();
    // (a ^ c) + b instead of (a ^ b) + c.
    std::fs::write(&swapped, stub.replace(xad, "v_xad_u32 v5, v2, v4, v3")).unwrap();
    for target in ["gfx90a", "gfx1030", "gfx1100", "gfx1201"] {
        let run_on = |kernel: &Path| {
            run(harness()
                .args(["run", "--backend", "emu", "--target", target])
                .args(["--lanes", "512", "--seed", "1", "--case", "basic_w64"])
                .arg("--kernel")
                .arg(kernel))
        };
        let r = run_on(&same);
        assert_eq!(r.code, 0, "{target}, the copy as is: {}", r.all());
        let r = run_on(&swapped);
        assert_eq!(r.code, 1, "{target}, operands swapped: {}", r.all());
        assert!(
            r.stdout.contains("FAIL          basic_w64"),
            "{target}: {}",
            r.stdout
        );
    }
}

// ---------------------------------------------------------------------------
// The basic xad kernel with each enable added, through the CLI.

/// xad_basic.s with `enables` added, its kernarg pointer read from `kernarg`
/// and its workgroup id x from `wg_x`; the kernel's own temporaries move to
/// s20 and up, clear of every initial SGPR.
fn basic_with(enables: &[&str], kernarg: &str, wg_x: &str) -> String {
    let mut src = basic_source();
    for (from, to) in [
        ("s[4:11]", "s[20:27]"),
        ("s[4:5]", "s[20:21]"),
        ("s[6:7]", "s[22:23]"),
        ("s[8:9]", "s[24:25]"),
        ("s[10:11]", "s[26:27]"),
        ("s12", "s28"),
        ("s13", "s29"),
        ("s14", "s30"),
        (
            "s_lshl_b32 s29, s2, 8",
            &format!("s_lshl_b32 s29, {wg_x}, 8"),
        ),
        ("s[0:1]", kernarg),
        (".amdhsa_next_free_sgpr 15", ".amdhsa_next_free_sgpr 32"),
        (
            ".amdhsa_kernarg_size 40",
            &format!(
                ".amdhsa_kernarg_size 40\n{}",
                enables
                    .iter()
                    .map(|e| format!("  .amdhsa_{e}\n"))
                    .collect::<String>()
            ),
        ),
    ] {
        assert!(
            src.contains(from),
            "xad_basic.s no longer contains {from:?}"
        );
        src = src.replace(from, to);
    }
    src
}

#[test]
fn basic_kernel_with_each_enable_passes_on_the_emulator() {
    let dir = scratch("descriptor-basic");
    if gfx1100_toolchain(&dir).is_none() {
        return;
    }
    // xad_basic.s already sets the kernarg pointer, workgroup id x and work-item ids.
    let everything: Vec<&str> = ALL_ENABLES
        .iter()
        .copied()
        .filter(|e| {
            !e.contains("kernarg_segment_ptr")
                && !e.contains("id_x")
                && !e.contains("workitem")
                && !e.contains("fixed_size")
        })
        .collect();
    let variants: &[(&str, &[&str], &str, &str)] = &[
        ("plain", &[], "s[0:1]", "s2"),
        (
            "dispatch_ptr",
            &["user_sgpr_dispatch_ptr 1"],
            "s[2:3]",
            "s4",
        ),
        ("queue_ptr", &["user_sgpr_queue_ptr 1"], "s[2:3]", "s4"),
        (
            "both_ptrs",
            &["user_sgpr_dispatch_ptr 1", "user_sgpr_queue_ptr 1"],
            "s[4:5]",
            "s6",
        ),
        ("dispatch_id", &["user_sgpr_dispatch_id 1"], "s[0:1]", "s4"),
        (
            "private_segment_size",
            &["user_sgpr_private_segment_size 1"],
            "s[0:1]",
            "s3",
        ),
        (
            "user_sgpr_count_gap",
            &["user_sgpr_count 7"],
            "s[0:1]",
            "s7",
        ),
        (
            "workgroup_y_z_info",
            &[
                "system_sgpr_workgroup_id_y 1",
                "system_sgpr_workgroup_id_z 1",
                "system_sgpr_workgroup_info 1",
            ],
            "s[0:1]",
            "s2",
        ),
        ("everything", &everything, "s[4:5]", "s9"),
    ];
    for (name, enables, kernarg, wg_x) in variants {
        let file = dir.join(format!("{name}.s"));
        std::fs::write(&file, basic_with(enables, kernarg, wg_x)).unwrap();
        let json = dir.join(format!("{name}.json"));
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--case",
                "basic",
                "--lanes",
                "3000",
                "--seed",
                "77",
                "--kernel",
            ])
            .arg(&file)
            .arg("--json")
            .arg(&json));
        assert_eq!(r.code, 0, "{name} (seed 77): {}", r.all());
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let tally = &report["devices"][0]["cases"][0]["tally"];
        assert_eq!(tally["lanes_failed"].as_u64(), Some(0), "{name}: {tally}");
        assert_eq!(
            tally["lanes_unwritten"].as_u64(),
            Some(0),
            "{name}: {tally}"
        );
    }
}

// ---------------------------------------------------------------------------
// 3. Refusals.

/// One way to spoil a descriptor.
type Edit = fn(&mut KernelDescriptor);

/// The assembled basic kernel with its descriptor edited by `edit`.
fn patched_basic(tc: &Toolchain, dir: &Path, edit: impl Fn(&mut KernelDescriptor)) -> PathBuf {
    let hsaco = build_gfx1100(tc, dir, "basic", &basic_source());
    let mut bytes = std::fs::read(&hsaco).unwrap();
    let kd = CodeObject::parse(&bytes)
        .unwrap()
        .kernel("xad_basic")
        .unwrap()
        .descriptor;
    let raw = kd.to_bytes();
    let at = bytes
        .windows(64)
        .position(|w| w == raw)
        .expect("descriptor bytes in the file");
    let mut edited = kd;
    edit(&mut edited);
    bytes[at..at + 64].copy_from_slice(&edited.to_bytes());
    let out = dir.join("patched.hsaco");
    std::fs::write(&out, bytes).unwrap();
    out
}

#[test]
fn reserved_bits_and_impossible_fields_are_refused_as_bad_input() {
    let dir = scratch("descriptor-refused");
    let Some(tc) = gfx1100_toolchain(&dir) else {
        return;
    };
    let edits: [(&str, Edit); 5] = [
        ("KERNEL_CODE_PROPERTIES RESERVED0", |k| {
            k.code_properties |= 1 << 7
        }),
        ("COMPUTE_PGM_RSRC2 RESERVED0", |k| k.rsrc2 |= 1 << 31),
        ("reserved1 byte at offset 24", |k| k.reserved1[0] = 0x80),
        ("ENABLE_SGPR_FLAT_SCRATCH_INIT", |k| {
            k.code_properties |= 1 << 5
        }),
        ("kernarg_preload", |k| k.kernarg_preload = 1 << 7 | 2),
    ];
    for (field, edit) in edits {
        let file = patched_basic(&tc, &dir, edit);
        let bytes = std::fs::read(&file).unwrap();
        let err = CodeObject::parse(&bytes).expect_err(field).to_string();
        assert!(err.contains(field), "{err:?} should name {field}");
        assert!(
            EmuDevice::new().load(&bytes).is_err(),
            "{field}: the emulator must refuse the load"
        );
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--case",
                "basic",
                "--lanes",
                "64",
                "--kernel",
            ])
            .arg(&file));
        assert_eq!(r.code, 2, "{field}: {}", r.all());
        assert!(r.stderr.contains(field), "{field}: {}", r.stderr);
    }
    // The control: the unpatched kernel loads.
    let file = patched_basic(&tc, &dir, |_| ());
    assert!(CodeObject::parse(&std::fs::read(file).unwrap()).is_ok());
}
