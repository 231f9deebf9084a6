//! End to end through the real ROCm 5.2 stack (Debian 12's libamdhip64,
//! libhsa-runtime64 and libhsakmt, unmodified; the `fetched` tests: the
//! ROCm 6.4/7.2 the HIP matrix builds against) on the emulated KFD device
//! (tests/emukfd, preloaded): the unchanged `xad-harness` binary finds
//! emulated GPUs through the real thunk and runtime, and every dispatch the
//! runtime sends (ours and ROCr's own blit kernels) runs on the emulator.
//!
//! What is proven here and nowhere else: the real runtime loads our code
//! objects (HIP 5.2 refuses code object v5, so the build embeds v4 for the
//! targets it knows), reads their metadata, builds the dispatch packets and
//! completes them; the verdicts equal `--backend emu`'s on the same seed; a
//! kernel that computes the wrong function, skips a lane or writes past its
//! output is caught through the real stack on the same lanes.
//!
//! The device library is `target/<profile>/libxad_emukfd.so` (`cargo build
//! --workspace`, as ci/test.sh does, builds it); when missing or older than
//! its sources it is built with `cargo build -p xad-emukfd` into the separate
//! `target/emukfd`. Nothing here is a hardware result: the device name says
//! "emulated KFD", and the tests check that every result line says so.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");
const NAME: &str = "xad-harness emulated KFD";

fn repo() -> PathBuf {
    support::repo_root(env!("CARGO_MANIFEST_DIR"))
}

fn newest(path: &Path) -> Option<std::time::SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        std::fs::read_dir(path)
            .ok()?
            .filter_map(|e| e.ok())
            .filter_map(|e| newest(&e.path()))
            .max()
    } else {
        meta.modified().ok()
    }
}

/// The device library, fresh.
fn library() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let root = repo();
        let exe = std::env::current_exe().expect("current_exe");
        let profile = exe.parent().and_then(Path::parent).expect("target/<profile>");
        let primary = profile.join("libxad_emukfd.so");
        let sources = ["src", "tests/emukfd/src", "tests/emukfd/build.rs", "Cargo.lock"];
        let newest_source = sources.iter().filter_map(|s| newest(&root.join(s))).max();
        let built = std::fs::metadata(&primary).and_then(|m| m.modified()).ok();
        if let (Some(b), Some(s)) = (built, newest_source) {
            if b >= s {
                return primary;
            }
        }
        let separate = profile.parent().expect("target").join("emukfd");
        let release = profile.file_name().is_some_and(|n| n == "release");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(&root)
            .args(["build", "-p", "xad-emukfd"])
            .env("CARGO_TARGET_DIR", &separate)
            .env("HIP_PATH", support::hip_root());
        if release {
            build.arg("--release");
        }
        let out = build.output().expect("running cargo build -p xad-emukfd");
        assert!(
            out.status.success(),
            "cargo build -p xad-emukfd failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        separate
            .join(if release { "release" } else { "debug" })
            .join("libxad_emukfd.so")
    })
}

/// Whether this test binary runs on HIP 5.x (the device serves the system's
/// 5.2 stack; a harness built against a fetched 6.x/7.x root is the HIP
/// matrix's, which runs it under another loader).
fn on_hip5() -> bool {
    support::runtime_soname(&support::hip_root()).is_ok_and(|s| s == "libamdhip64.so.5")
}

/// Run the harness on the emulated KFD device with `devices`.
fn kfd(args: &[&str], devices: &str, extra_env: &[(&str, &str)]) -> (Output, String) {
    let preload = library().display().to_string();
    let mut env = vec![("LD_PRELOAD", preload.as_str()), ("XAD_KFD_DEVICES", devices)];
    env.extend_from_slice(extra_env);
    support::run_transcribed(Command::new(HARNESS), args, None, &env)
}

fn emu(args: &[&str]) -> (Output, String) {
    support::run_transcribed(Command::new(HARNESS), args, None, &[])
}

/// The part of a JSON report these tests compare, read as types (unknown
/// fields are the rest of the report, ignored here).
#[derive(serde::Deserialize)]
struct Report {
    devices: Vec<DeviceReport>,
}

#[derive(serde::Deserialize)]
struct DeviceReport {
    cases: Vec<CaseReport>,
}

#[derive(serde::Deserialize)]
struct CaseReport {
    case: String,
    status: String,
}

/// (case, status) of every case of a JSON report.
fn verdicts(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let report: Report = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: Vec<(String, String)> = report
        .devices
        .into_iter()
        .flat_map(|d| d.cases)
        .map(|c| (c.case, c.status))
        .collect();
    out.sort();
    out
}

/// Every result line names the emulated device: none says hardware alone.
fn assert_labelled(t: &str) {
    for line in t.lines().filter(|l| l.contains("hardware:")) {
        assert!(line.contains(NAME), "a hardware label without the emulated device name: {line}\n{t}");
    }
}

#[test]
fn the_real_stack_lists_emulated_gpus_of_two_targets_and_maps_the_real_libraries() {
    if !on_hip5() {
        eprintln!("SKIPPED: built against HIP other than 5.x; the emulated KFD device serves the system's ROCm 5.2");
        return;
    }
    let (out, t) = kfd(&["devices"], "gfx1030,gfx90a", &[("XAD_KFD_TRACE", "1")]);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains(&format!("{NAME} gfx1030  gfx1030")), "{t}");
    assert!(t.contains(&format!("{NAME} gfx90a  gfx90a:sramecc-:xnack-")), "{t}");
    assert!(t.contains("HIP runtime 5.2"), "{t}");
    // The process mapped the real libraries from their packages, not a stand-in.
    for lib in ["libamdhip64.so.5", "libhsa-runtime64.so.1", "libhsakmt.so.1"] {
        assert!(
            t.lines().any(|l| l.contains("runtime library mapped: /usr/lib/") && l.contains(lib)),
            "{lib} not mapped from /usr/lib:\n{t}"
        );
    }
    assert!(!t.contains("xad_emuhip"), "{t}");
    // The trace shows the interface the real thunk drove.
    for step in ["open /dev/kfd", "ioctl GET_VERSION -> 1.", "ACQUIRE_VM", "amdgpu_get_marketing_name"] {
        assert!(t.contains(step), "no `{step}` in the trace:\n{t}");
    }
}

#[test]
fn a_target_the_runtime_does_not_know_is_its_own_refusal() {
    if !on_hip5() {
        return;
    }
    // ROCm 5.2 knows no gfx11: the real ROCr refuses the node itself.
    let (out, t) = kfd(&["run", "--backend", "hip", "--lanes", "64"], "gfx1100", &[]);
    assert_eq!(out.status.code(), Some(77), "{t}");
    assert!(t.contains("The GPU node has an unrecognized id"), "{t}");
}

#[test]
fn the_gfx1030_catalogue_through_the_real_stack_has_the_emulators_verdicts() {
    if !on_hip5() {
        return;
    }
    let t = catalogue_agrees("gfx1030", "4096", "7", 30);
    // With the runtime's default, ROCr copies through the SDMA engine; ROCm
    // 5.2's copy signals have event mailboxes: a FENCE and a TRAP each.
    assert_copies_with_sdma(&t);
    assert!(sdma_packets(&t, "TRAP") > 0, "{t}");
}

/// Run `target`'s catalogue (`lanes` lanes, `seed`) through the real stack
/// on the device, traced, and on `--backend emu`: both must end alike and
/// give the same verdicts, `min_pass` passes at least. Returns the device
/// run's transcript.
fn catalogue_agrees(target: &str, lanes: &str, seed: &str, min_pass: usize) -> String {
    let dir = support_dir(&format!("kfd-catalogue-{target}-{seed}"));
    let (hip_path, emu_path) = (dir.join("hip.json").display().to_string(), dir.join("emu.json").display().to_string());
    let common = ["run", "--target", target, "--lanes", lanes, "--seed", seed];
    let mut args: Vec<&str> = common.to_vec();
    args.extend(["--backend", "hip", "--json", &hip_path]);
    let (out, t) = kfd(&args, target, &[("XAD_KFD_TRACE", "1")]);
    assert_labelled(&t);
    let mut args: Vec<&str> = common.to_vec();
    args.extend(["--backend", "emu", "--json", &emu_path]);
    let (eout, et) = emu(&args);
    assert_eq!(out.status.code(), eout.status.code(), "{t}\n{et}");
    let (hip, emu) = (verdicts(Path::new(&hip_path)), verdicts(Path::new(&emu_path)));
    assert_eq!(hip, emu, "verdicts differ\nthrough the real stack:\n{t}\non the emulator:\n{et}");
    assert!(hip.iter().filter(|(_, s)| s == "pass").count() >= min_pass, "{t}");
    t
}

/// The runtime created SDMA queues and its copies ran on them as
/// COPY_LINEAR packets, each completed with the packets ROCr sends after a
/// copy; no SDMA queue stopped.
fn assert_copies_with_sdma(t: &str) {
    assert!(t.lines().any(|l| l.contains("ioctl CREATE_QUEUE SDMA ") && l.contains("packets")), "no SDMA queue:\n{t}");
    let sdma = |packet: &str| sdma_packets(t, packet);
    assert!(sdma("COPY_LINEAR") > 0, "no SDMA COPY_LINEAR packet:\n{t}");
    // Each copy's completion: the signal's decrement (ATOMIC, or FENCE where
    // the link has no 64-bit atomics).
    assert!(sdma("ATOMIC") + sdma("FENCE") >= sdma("COPY_LINEAR"), "{t}");
    assert!(!t.contains("stopped after the fault above"), "{t}");
}

/// SDMA packets of `packet`'s name in a trace.
fn sdma_packets(t: &str, packet: &str) -> usize {
    t.lines().filter(|l| l.contains("xad-emukfd: SDMA queue ") && l.contains(&format!(" {packet} "))).count()
}

/// Every target ROCm 5.2 knows, each on its own emulated GPU in one run:
/// every GPU is used, and each target's cases have the emulator's verdicts
/// (gfx908 and gfx90a through SDMA v4/v4.4, gfx1010 v5.0, gfx1030 v5.2).
#[test]
fn rocm_5_2s_targets_run_their_catalogues_on_four_emulated_gpus_in_one_run() {
    if !on_hip5() {
        return;
    }
    let targets = ["gfx1030", "gfx90a", "gfx908", "gfx1010"];
    let dir = support_dir("kfd-four");
    let hip_path = dir.join("hip.json").display().to_string();
    let common = ["run", "--lanes", "512", "--seed", "5", "--json"];
    let mut args = common.to_vec();
    args.extend([hip_path.as_str(), "--backend", "hip"]);
    let (out, t) = kfd(&args, &targets.join(","), &[]);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert_labelled(&t);
    let mut emu_verdicts = Vec::new();
    for target in targets {
        // The summary row of each target names its own emulated GPU.
        assert!(
            t.lines().any(|l| l.trim_start().starts_with(target) && l.contains(&format!("{NAME} {target}"))),
            "{target} did not run on its own GPU:\n{t}"
        );
        let emu_path = dir.join(format!("emu-{target}.json")).display().to_string();
        let mut args = common.to_vec();
        args.extend([emu_path.as_str(), "--backend", "emu", "--target", target]);
        let (eout, et) = emu(&args);
        assert_eq!(eout.status.code(), Some(0), "{et}");
        emu_verdicts.extend(verdicts(Path::new(&emu_path)));
    }
    emu_verdicts.sort();
    let hip = verdicts(Path::new(&hip_path));
    assert_eq!(hip, emu_verdicts, "verdicts differ\nthrough the real stack:\n{t}");
    assert!(hip.len() >= 90, "{t}");
}

fn support_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The gfx10 basic kernel with `edit` applied to its lines, written to `dir`.
fn edited(dir: &Path, stem: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let src = std::fs::read_to_string(repo().join("kernels/include/xad_basic_gfx10.s")).expect("basic source");
    let text: String = src.lines().map(|l| edit(l) + "\n").collect();
    assert_ne!(text, src, "the edit changed nothing");
    let path = dir.join(format!("{stem}.s"));
    std::fs::write(&path, text).expect("write kernel");
    path
}

/// The failing lanes a run printed (`  lane N: ...`).
fn failing_lanes(t: &str) -> Vec<String> {
    t.lines()
        .filter_map(|l| l.trim_start().strip_prefix("lane "))
        .filter_map(|l| l.split(':').next())
        .map(str::to_string)
        .collect()
}

/// Run `kernel` through the real stack and on the emulator; both must exit
/// `code` and print the same failing lanes; `must` is in both transcripts.
fn both_catch(kernel: &Path, code: i32, must: &str) {
    let k = kernel.display().to_string();
    let args = [
        "run", "--target", "gfx1030", "--case", "basic", "--lanes", "4096", "--seed", "7", "--max-mismatches", "8",
        "--kernel", &k,
    ];
    let mut hip_args = args.to_vec();
    hip_args.extend(["--backend", "hip"]);
    let (out, t) = kfd(&hip_args, "gfx1030", &[]);
    assert_labelled(&t);
    let mut emu_args = args.to_vec();
    emu_args.extend(["--backend", "emu"]);
    let (eout, et) = emu(&emu_args);
    assert_eq!(out.status.code(), Some(code), "through the real stack:\n{t}");
    assert_eq!(eout.status.code(), Some(code), "on the emulator:\n{et}");
    assert!(t.contains(must) && et.contains(must), "`{must}` missing:\n{t}\n{et}");
    let lanes = failing_lanes(&t);
    assert!(!lanes.is_empty() || must.contains("guard"), "{t}");
    assert_eq!(lanes, failing_lanes(&et), "different lanes:\n{t}\n{et}");
}

#[test]
fn wrong_kernels_are_caught_through_the_real_stack_on_the_same_lanes() {
    if !on_hip5() {
        return;
    }
    let dir = support_dir("kfd-negative");
    // The negative control: src1 and src2 swapped computes (a ^ c) + b.
    let swapped = edited(&dir, "swapped", |l| l.replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v4, v3"));
    both_catch(&swapped, 1, "FAIL");
    // Lane 5 never stores: its output word keeps the harness's fill.
    let skip = edited(&dir, "skip-lane", |l| {
        if l.trim_start().starts_with("v_cmp_gt_u32 vcc_lo, s12, v1") {
            format!("{l}\n  v_cmp_ne_u32_e64 s15, 5, v1\n  s_and_b32 vcc_lo, vcc_lo, s15")
        } else {
            l.replace(".amdhsa_next_free_sgpr 15", ".amdhsa_next_free_sgpr 16")
        }
    });
    both_catch(&skip, 1, "lane 5:");
    // Every lane also stores one word further on: the last lane writes the
    // rear guard.
    let past = edited(&dir, "past-end", |l| {
        if l.trim_start().starts_with("global_store_dword v1, v5, s[10:11]") {
            format!("{l}\n  global_store_dword v1, v5, s[10:11] offset:4")
        } else {
            l.to_string()
        }
    });
    both_catch(&past, 1, "guard");
}

/// An instruction the emulator refuses (gfx10's `v_cvt_u32_f32`: no
/// floating point is emulated) is reported as silicon's trap handler reports
/// an illegal instruction: the real runtime's own error (HIP 5.2 then aborts
/// the process, which the harness turns into one line), exit 3, and no wait
/// for a signal that never comes. `--backend emu` refuses the same kernel by
/// the instruction's name.
#[test]
fn an_instruction_the_emulator_refuses_is_the_runtimes_illegal_instruction_error() {
    if !on_hip5() {
        return;
    }
    let dir = support_dir("kfd-illegal");
    let kernel = edited(&dir, "unemulated", |l| {
        if l.trim_start().starts_with("v_xad_u32 v5, v2, v3, v4") {
            format!("{l}\n  v_cvt_u32_f32 v6, v5")
        } else {
            l.to_string()
        }
    });
    let k = kernel.display().to_string();
    let args = ["run", "--target", "gfx1030", "--case", "basic", "--lanes", "64", "--kernel", &k, "--backend", "hip"];
    let (out, t) = kfd(&args, "gfx1030", &[]);
    assert_labelled(&t);
    assert_eq!(out.status.code(), Some(3), "{t}");
    assert!(t.contains("error 0x40000000 reported through queue_inactive_signal"), "{t}");
    assert!(t.contains("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION"), "the runtime's own report:\n{t}");
    assert!(t.contains("v_cvt_u32_f32"), "the device names the instruction:\n{t}");
    let (eout, et) = emu(&["run", "--target", "gfx1030", "--case", "basic", "--lanes", "64", "--kernel", &k, "--backend", "emu"]);
    assert_eq!(eout.status.code(), Some(3), "{et}");
    assert!(et.contains("v_cvt_u32_f32"), "{et}");
}

#[test]
fn a_memory_fault_through_the_real_stack_is_the_runtimes_report_then_one_line_and_exit_3() {
    if !on_hip5() {
        return;
    }
    let dir = support_dir("kfd-fault");
    // Every lane stores to 0x100_0000_0000, an address no object maps.
    let fault = edited(&dir, "fault", |l| {
        if l.trim_start().starts_with("global_store_dword v1, v5, s[10:11]") {
            "  v_mov_b32 v6, 0\n  v_mov_b32 v7, 0x100\n  global_store_dword v[6:7], v5, off".to_string()
        } else {
            l.replace(".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 8")
        }
    });
    let k = fault.display().to_string();
    let args = ["run", "--backend", "hip", "--target", "gfx1030", "--case", "basic", "--lanes", "256", "--kernel", &k];
    let (out, t) = kfd(&args, "gfx1030", &[]);
    assert_eq!(out.status.code(), Some(3), "{t}");
    // The device names the instruction; ROCr reports the fault as it does
    // for hardware; the harness closes with one line of its own.
    assert!(t.contains("memory fault: address 0x10000000000"), "{t}");
    assert!(t.contains("Memory access fault by GPU node-1") && t.contains("on address 0x10000000000"), "{t}");
    assert!(t.contains("xad-harness: the HIP runtime aborted the process"), "{t}");
}

#[test]
fn a_wrong_device_list_is_one_line_and_no_gpu() {
    if !on_hip5() {
        return;
    }
    let (out, t) = kfd(&["run", "--backend", "hip", "--lanes", "64"], "gfx9999", &[]);
    assert_eq!(out.status.code(), Some(77), "{t}");
    let lines: Vec<&str> = t.lines().filter(|l| l.starts_with("xad-emukfd:")).collect();
    assert_eq!(lines.len(), 1, "{t}");
    assert!(lines[0].contains("XAD_KFD_DEVICES: \"gfx9999\" is not a target"), "{t}");
}

// ---- the stand-in's fault knobs on the device (XAD_KFD_*) -----------------------
//
// The same knobs as tests/emuhip's (xad_harness::platform::device::inject), acting on
// the harness's dispatches through the real stack; each must give the
// diagnosis tests/hip/emuhip_e2e.rs asserts for its XAD_EMUHIP_ twin. ROCr's
// blit kernels (the code upload and every copy) run untouched: were one
// taken for the harness's, the first dispatch would not be `xad_basic` and
// lane 5 would not be the one flipped.

/// The numbers of the failing lanes a run printed.
fn lane_numbers(t: &str) -> Vec<String> {
    failing_lanes(t)
        .iter()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// `basic` on gfx1030 through the real stack with `knobs` set.
fn knob_run(extra: &[&str], knobs: &[(&str, &str)]) -> (Output, String) {
    let mut args = vec!["run", "--backend", "hip", "--target", "gfx1030", "--case", "basic", "--lanes", "4096", "--seed", "7"];
    args.extend_from_slice(extra);
    let (out, t) = kfd(&args, "gfx1030", knobs);
    assert_labelled(&t);
    (out, t)
}

/// With `knob=value` exactly `lane` fails (exit 1), its line saying `says`;
/// the transcript.
fn only_lane_fails(knob: &str, value: &str, lane: &str, says: &str) -> String {
    let (out, t) = knob_run(&[], &[(knob, value)]);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(lane_numbers(&t), [lane], "{t}");
    let prefix = format!("lane {lane} ");
    let line = t.lines().find(|l| l.trim_start().starts_with(&prefix)).expect("the lane's line");
    assert!(line.contains(says), "{t}");
    t
}

#[test]
fn flip_bit_through_the_real_stack_fails_that_lane_with_that_bit() {
    if !on_hip5() {
        return;
    }
    let t = only_lane_fails("XAD_KFD_FLIP_BIT", "5:31", "5", "differing bits 0x80000000 (bit 31)");
    assert!(t.contains("XAD_KFD_FLIP_BIT: bit 31 of lane 5 of kernel xad_basic flipped"), "{t}");
}

/// The negative control of the SDMA engine: when it copies a wrong bit of
/// the output back to the host, that lane fails, alone, with that bit.
#[test]
fn an_sdma_copy_that_flips_a_bit_of_the_output_fails_that_lane_with_that_bit() {
    if !on_hip5() {
        return;
    }
    let t = only_lane_fails("XAD_KFD_SDMA_FLIP_BIT", "5:31", "5", "differing bits 0x80000000 (bit 31)");
    assert!(t.contains("XAD_KFD_SDMA_FLIP_BIT: SDMA queue"), "{t}");
    assert!(t.contains("flipped bit 31 of lane 5's output word"), "{t}");
}

/// The other SDMA families ROCm 5.2 drives: SDMA v4 (gfx908) and v4.4
/// (gfx90a) get ROCr's HDP flush (the register form of POLL_REGMEM) and no
/// GCR, v5.0 (gfx1010) GCR and no HDP flush; each copies the harness's
/// buffers and the case passes.
#[test]
fn each_sdma_family_rocm_5_2_knows_copies_the_harness_buffers() {
    if !on_hip5() {
        return;
    }
    for (target, case, family, sends, never) in [
        ("gfx908", "basic_w64", "SDMA v4 packets, 22-bit", "POLL_REGMEM register form", " GCR "),
        ("gfx90a", "basic_w64", "SDMA v4.4 packets, 30-bit", "POLL_REGMEM register form", " GCR "),
        ("gfx1010", "basic", "SDMA v5.0 packets, 22-bit", " GCR ", "POLL_REGMEM"),
    ] {
        let args = ["run", "--backend", "hip", "--target", target, "--case", case, "--lanes", "4096", "--seed", "2"];
        let (out, t) = kfd(&args, target, &[("XAD_KFD_TRACE", "1")]);
        assert_labelled(&t);
        assert_eq!(out.status.code(), Some(0), "{target}: {t}");
        assert!(t.contains(family), "{target}: {t}");
        assert_copies_with_sdma(&t);
        let sdma_lines = || t.lines().filter(|l| l.contains("xad-emukfd: SDMA queue "));
        assert!(sdma_lines().any(|l| l.contains(sends)), "{target}: no `{sends}`:\n{t}");
        assert!(!sdma_lines().any(|l| l.contains(never)), "{target}: `{never}`:\n{t}");
    }
}

/// `HSA_ENABLE_SDMA=0`: ROCr creates no SDMA queue and copies with its blit
/// kernels on the emulator, and the run still passes. The SDMA knob then has
/// nothing to act on, which shows it acts through the SDMA engine only.
#[test]
fn without_sdma_the_runtime_copies_with_blit_kernels_and_the_sdma_knob_has_nothing_to_corrupt() {
    if !on_hip5() {
        return;
    }
    let knobs = [("HSA_ENABLE_SDMA", "0"), ("XAD_KFD_TRACE", "1"), ("XAD_KFD_SDMA_FLIP_BIT", "5:31")];
    let (out, t) = knob_run(&[], &knobs);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(!t.contains("CREATE_QUEUE SDMA") && !t.contains("SDMA queue"), "{t}");
    assert!(!t.contains("SDMA_FLIP_BIT:"), "{t}");
    // The copies are kernel dispatches: ROCr's blit kernels, besides xad_basic.
    let dispatches = t.lines().filter(|l| l.contains("KERNEL_DISPATCH")).count();
    assert!(dispatches > 2, "{t}");
}

#[test]
fn skip_lane_through_the_real_stack_is_that_lane_unwritten() {
    if !on_hip5() {
        return;
    }
    // The harness's poison is still there.
    let t = only_lane_fails("XAD_KFD_SKIP_LANE", "7", "7", "unwritten (still holds");
    assert!(t.contains("XAD_KFD_SKIP_LANE: lane 7 of kernel xad_basic left unwritten"), "{t}");
}

#[test]
fn write_past_end_through_the_real_stack_is_caught_by_the_rear_guard() {
    if !on_hip5() {
        return;
    }
    let (out, t) = knob_run(&[], &[("XAD_KFD_WRITE_PAST_END", "2")]);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("kernel wrote outside buffer `out`: 2 guard words changed"), "{t}");
    assert!(failing_lanes(&t).is_empty(), "every lane itself is right: {t}");
}

#[test]
fn hang_through_the_real_stack_is_the_harness_watchdog_one_line_and_exit_3() {
    if !on_hip5() {
        return;
    }
    // The device's own watchdog (60 s by default) is far off: the harness's
    // --timeout fires first, and the hung device thread must not keep the
    // process from exiting.
    let (out, t) = knob_run(&["--timeout", "2"], &[("XAD_KFD_HANG", "1")]);
    assert_eq!(out.status.code(), Some(3), "{t}");
    assert!(t.contains("XAD_KFD_HANG: queue") && t.contains("(kernel xad_basic) never completes"), "{t}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let harness: Vec<&str> = stderr.lines().filter(|l| l.starts_with("xad-harness: basic [")).collect();
    assert_eq!(harness.len(), 1, "{t}");
    assert!(harness[0].contains(NAME) && harness[0].contains("kernel did not complete within 2s (watchdog"), "{t}");
    assert!(stderr.lines().any(|l| l == "xad-harness: stopped after a watchdog timeout"), "{t}");
}

#[test]
fn wrong_device_settings_are_one_line_naming_the_variable_and_no_gpu() {
    if !on_hip5() {
        return;
    }
    for (var, value, says) in [
        ("XAD_KFD_WATCHDOG", "soon", "XAD_KFD_WATCHDOG: \"soon\" is not a positive number of seconds"),
        ("XAD_KFD_WATCHDOG", "0", "XAD_KFD_WATCHDOG: \"0\" is not a positive number of seconds"),
        ("XAD_KFD_FLIP_BIT", "5", "XAD_KFD_FLIP_BIT=5: expected LANE:BIT"),
        ("XAD_KFD_FLIP_BIT", "5:32", "XAD_KFD_FLIP_BIT=5:32: BIT must be 0..31"),
        ("XAD_KFD_SKIP_LANE", "-1", "XAD_KFD_SKIP_LANE=-1: LANE"),
        ("XAD_KFD_WRITE_PAST_END", "0", "XAD_KFD_WRITE_PAST_END=0: N must be 1..65536 words"),
        ("XAD_KFD_HANG", "yes", "XAD_KFD_HANG=yes: expected 1 or 0"),
        ("XAD_KFD_SDMA_FLIP_BIT", "5:32", "XAD_KFD_SDMA_FLIP_BIT=5:32: BIT must be 0..31"),
    ] {
        let (out, t) = kfd(&["run", "--backend", "hip", "--lanes", "64"], "gfx1030", &[(var, value)]);
        assert_eq!(out.status.code(), Some(77), "{var}={value}: {t}");
        let lines: Vec<&str> = t.lines().filter(|l| l.starts_with("xad-emukfd:")).collect();
        assert_eq!(lines.len(), 1, "{var}={value}: {t}");
        assert!(lines[0].contains(says) && lines[0].ends_with("; presenting no GPU"), "{var}={value}: {t}");
    }
}

/// `ci/with-emulated-kfd.sh` with a runtime it does not know, or no command:
/// one line naming what is wrong, exit 2 (usage), nothing run.
#[test]
fn the_wrapper_refuses_an_unknown_runtime_and_no_command_in_one_line() {
    let script = repo().join("ci/with-emulated-kfd.sh");
    for (env, args, says) in [
        (Some("9.9"), &["true"][..], "XAD_KFD_RUNTIME must be 5.2, 6.4 or 7.2, not 9.9"),
        (None, &[][..], "usage:"),
    ] {
        let mut cmd = Command::new("bash");
        cmd.arg(&script).args(args);
        if let Some(v) = env {
            cmd.env("XAD_KFD_RUNTIME", v);
        }
        let out = cmd.output().expect("run bash");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.lines().count() == 1 && err.contains(says), "{err}");
    }
}

// ---- soak, replay and microbench on the device ---------------------------------

/// What a soak's JSON says, read as types (the rest is ignored).
#[derive(serde::Deserialize)]
struct Soak {
    executor: String,
    exit_code: i32,
    device_mismatches: u64,
    confirmed: u64,
    unreproduced: u64,
    lanes_rechecked: u64,
    xads: u64,
}

fn soak(path: &Path) -> Soak {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn soak_through_the_real_stack_says_emulated_and_agrees_with_the_emulator() {
    if !on_hip5() {
        return;
    }
    let dir = support_dir("kfd-soak");
    let (hip_json, emu_json) = (dir.join("hip.json"), dir.join("emu.json"));
    let (hip_path, emu_path) = (hip_json.display().to_string(), emu_json.display().to_string());
    let common = ["soak", "--duration", "0.3", "--seed", "9"];
    let mut args = common.to_vec();
    args.extend(["--backend", "hip", "--json", &hip_path]);
    let (out, t) = kfd(&args, "gfx1030", &[]);
    assert_labelled(&t);
    let mut args = common.to_vec();
    args.extend(["--backend", "emu", "--json", &emu_path]);
    let (eout, et) = emu(&args);
    let (hip, emu) = (soak(&hip_json), soak(&emu_json));
    assert!(hip.executor.contains(NAME) && emu.executor.starts_with("emulated "), "{t}\n{et}");
    assert_eq!(out.status.code(), eout.status.code(), "{t}\n{et}");
    assert_eq!((hip.exit_code, emu.exit_code), (0, 0), "{t}\n{et}");
    for (s, what) in [(&hip, &t), (&emu, &et)] {
        assert!(s.xads > 0 && s.lanes_rechecked > 0, "{what}");
        assert_eq!((s.device_mismatches, s.confirmed, s.unreproduced), (0, 0, 0), "{what}");
    }
}

/// A replay's result lines with the executor label (the closing `[...]`) taken out.
fn replay_lines(t: &str) -> Vec<String> {
    t.lines()
        .filter(|l| l.starts_with("FAIL ") || l.starts_with("PASS ") || l.starts_with("  ") || l.starts_with("replayed "))
        .map(|l| match (l.ends_with(']'), l.rfind(" [")) {
            (true, Some(at)) => format!("{} [EXECUTOR]", &l[..at]),
            _ => l.to_string(),
        })
        .collect()
}

#[test]
fn replay_through_the_real_stack_reproduces_what_the_emulator_does() {
    if !on_hip5() {
        return;
    }
    let dir = support_dir("kfd-replay");
    // A failing dump (the swapped-operand kernel: some lanes wrong), written by the emulator.
    let swapped = edited(&dir, "swapped", |l| l.replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v4, v3"));
    let (dump, k) = (dir.join("dump").display().to_string(), swapped.display().to_string());
    let (out, t) = emu(&[
        "run", "--backend", "emu", "--target", "gfx1030", "--case", "basic", "--lanes", "256", "--seed", "7", "--kernel", &k,
        "--dump", &dump,
    ]);
    assert_eq!(out.status.code(), Some(1), "{t}");
    let (out, t) = kfd(&["replay", &dump, "--backend", "hip", "--max-mismatches", "5"], "gfx1030", &[]);
    assert_labelled(&t);
    let (eout, et) = emu(&["replay", &dump, "--backend", "emu", "--max-mismatches", "5"]);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert_eq!(eout.status.code(), Some(1), "{et}");
    let (hip, emu_lines) = (replay_lines(&t), replay_lines(&et));
    assert!(hip.iter().any(|l| l.contains("recorded failing lanes:") && l.contains("reproduced, 0 now pass")), "{t}");
    assert!(hip.iter().all(|l| !l.contains("hardware:")), "a label left in: {hip:?}");
    assert_eq!(hip, emu_lines, "through the real stack:\n{t}\non the emulator:\n{et}");
}

#[test]
fn microbench_refuses_the_device_because_its_name_says_emulated() {
    if !on_hip5() {
        return;
    }
    let (out, t) = kfd(&["microbench"], "gfx1030", &[]);
    assert_eq!(out.status.code(), Some(77), "{t}");
    assert!(
        t.contains("microbench: HIP device 0 is \"xad-harness emulated KFD gfx1030\", an emulated device: no timing exists there"),
        "{t}"
    );
}

/// The fetched runtime (6.4 or 7.2) this binary was built against in the HIP
/// matrix (ci/hip-matrix.sh sets `XAD_HIP_EXPECT`), or `None` outside it.
/// There `support::run` starts the harness under that root's own loader.
fn fetched_runtime() -> Option<String> {
    std::env::var("XAD_HIP_EXPECT").ok().filter(|v| !v.is_empty() && !on_hip5() && support::root_loader().is_some())
}

/// Run `target`'s catalogue through the fetched runtime on the device and on
/// `--backend emu` (same seed and lanes); both must give the same verdicts.
/// Returns the device run's transcript.
fn fetched_catalogue_agrees(version: &str, target: &str, min_pass: usize) -> String {
    let t = catalogue_agrees(target, "1024", "11", min_pass);
    assert!(t.contains(&format!("HIP runtime {version}")), "{t}");
    // The fetched runtime's ROCr (thunk inside), not the system's 5.2.
    assert!(
        t.lines().any(|l| l.contains("runtime library mapped:") && l.contains("hip-matrix") && l.contains("libhsa-runtime64.so.1")),
        "the fetched libhsa-runtime64 was not mapped:\n{t}"
    );
    // Profiling queues get their packets' time stamps, as from a real
    // command processor (ROCr warns of invalid ones otherwise).
    assert!(!t.contains("time stamps may be invalid"), "{t}");
    t
}

/// ROCm 6.4 and 7.2 (their ROCr carries the thunk and asks libdrm's
/// `amdgpu_query_gpu_info`; 7.2's CREATE_QUEUE struct is longer than the
/// 1.11 header's) on the same device: the gfx1030 catalogue has the
/// emulator's verdicts through the HIP runtime's own copy kernels
/// (`__amd_rocclr_copyBuffer`, compiled by that runtime's comgr).
#[test]
fn the_fetched_runtime_runs_the_gfx1030_catalogue_with_the_emulators_verdicts() {
    let Some(version) = fetched_runtime() else {
        eprintln!("SKIPPED: outside the HIP matrix (ci/hip-matrix.sh runs this under ROCm 6.4 and 7.2)");
        return;
    };
    let t = fetched_catalogue_agrees(&version, "gfx1030", 30);
    assert!(t.contains("amdgpu_query_gpu_info -> family 143"), "{t}");
}

/// The fetched runtimes' HIP copies a small buffer with its own copy kernel
/// and pins a large one (1 MiB and more, CLR's `pinnedMinXferSize_`) for
/// ROCr's asynchronous copy, which goes to the SDMA engine: 4 MiB buffers
/// cross it as COPY_LINEAR packets (after POLL_REGMEM waits on the copies'
/// dependency signals) on gfx1030 (SDMA v5.2) and gfx1100 (v6), and each
/// run has the emulator's verdict.
#[test]
fn the_fetched_runtime_copies_large_buffers_with_sdma_and_keeps_the_emulators_verdict() {
    let Some(version) = fetched_runtime() else {
        return;
    };
    for (target, family) in [("gfx1030", "SDMA v5.2 packets"), ("gfx1100", "SDMA v6 packets")] {
        let args = ["run", "--target", target, "--case", "basic", "--lanes", "1048576", "--seed", "3"];
        let mut hip_args = args.to_vec();
        hip_args.extend(["--backend", "hip"]);
        let (out, t) = kfd(&hip_args, target, &[("XAD_KFD_TRACE", "1")]);
        assert_labelled(&t);
        assert!(t.contains(&format!("HIP runtime {version}")), "{t}");
        assert!(t.contains(family), "{target}: {t}");
        assert_copies_with_sdma(&t);
        let mut emu_args = args.to_vec();
        emu_args.extend(["--backend", "emu"]);
        let (eout, et) = emu(&emu_args);
        assert_eq!(out.status.code(), Some(0), "{t}");
        assert_eq!(eout.status.code(), Some(0), "{et}");
    }
}

/// RDNA3, which ROCm 5.2 does not know: the gfx1100 catalogue through 6.4
/// and 7.2 has the emulator's verdicts. The runtime's gfx1100 copy kernel
/// is LLVM code with VOPD (dual-issue) words, run as their two halves.
#[test]
fn the_fetched_runtime_runs_the_gfx1100_catalogue_with_the_emulators_verdicts() {
    let Some(version) = fetched_runtime() else {
        return;
    };
    let t = fetched_catalogue_agrees(&version, "gfx1100", 40);
    assert!(t.contains("amdgpu_query_gpu_info -> family 145"), "{t}");
}

/// CDNA2-4 and RDNA4 through 6.4 and 7.2: each catalogue has the emulator's
/// verdicts. On the way the runtime's own kernels needed `v_pk_mov_b32`
/// (gfx90a+), `v_mov_b64` (gfx940+), `s_add_nc_u64`/`s_sub_nc_u64` (gfx12)
/// and kernarg preloading (run as firmware without it), and they break two
/// rules that stay verdicts for the kernels under test: ROCr's gfx9 blit on
/// gfx940+ reads VCC inside LLVM's VALU-writes-SGPR window, and its gfx12
/// blit descriptor sets a reserved RSRC1 bit. Those are said once, as
/// findings about the runtime's kernels, and the run goes on.
#[test]
fn the_fetched_runtime_runs_the_cdna_and_rdna4_catalogues_with_the_emulators_verdicts() {
    let Some(version) = fetched_runtime() else {
        return;
    };
    // (target, passes at least, the finding said, the runtimes that refuse it)
    for (target, min_pass, finding, refused_by) in [
        ("gfx90a", 12, None, &[][..]),
        ("gfx942", 12, Some("gfx940+ VALU writes an SGPR, then a VALU reads it"), &[]),
        // HIP 6.4's CLR knows no gfx950 (its ROCr does): no device, exit 77.
        ("gfx950", 12, Some("gfx940+ VALU writes an SGPR, then a VALU reads it"), &["6.4"]),
        ("gfx1201", 40, Some("COMPUTE_PGM_RSRC1 RESERVED1 (gfx12)"), &[]),
        ("gfx1151", 40, None, &[]),
    ] {
        if refused_by.contains(&version.as_str()) {
            let (out, t) = kfd(&["run", "--target", target, "--lanes", "64", "--backend", "hip"], target, &[]);
            assert_eq!(out.status.code(), Some(77), "{t}");
            assert!(t.contains(&format!("no HIP device that runs {target} code objects: HIP runtime {version}")) && t.contains("hipErrorNoDevice"), "{t}");
            continue;
        }
        let t = fetched_catalogue_agrees(&version, target, min_pass);
        if let Some(finding) = finding {
            let said: Vec<&str> = t.lines().filter(|l| l.contains("finding in the runtime's own kernel")).collect();
            assert!(said.iter().any(|l| l.contains(finding)), "{target}: {finding} not said:\n{t}");
            // Once per process, however many dispatches ran the kernel.
            let mut unique = said.clone();
            unique.dedup();
            assert_eq!(said.len(), unique.len(), "{target}: a finding said twice:\n{t}");
        }
    }
}
