//! `xad-harness microbench`: hardware only. Nothing here times anything (no
//! machine this project is tested on has an AMD GPU):
//! - the embedded emulator (`--backend emu`, `XAD_BACKEND=emu`) and the
//!   emulated HIP device library (tests/emuhip, standing in for the runtime)
//!   are refused with one line on stderr, nothing on stdout, exit 77;
//! - the host math runs on synthetic counter values, a 20-bit wrap included;
//! - each target's embedded microbench code object holds its generation's
//!   cycle-counter reads around the six chains, checked in LLVM's own
//!   disassembly (`llvm-objdump --mcpu=<target>`, the one build.rs found; the
//!   project's decoder does not decode s_getreg_b32 or s_memtime).

use crate::support;
use std::process::{Command, Output};

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");

/// Run the harness; `emulated` puts the emulated HIP library on the loader path.
fn harness(args: &[&str], emulated: bool, knobs: &[(&str, &str)]) -> (Output, String) {
    let mut command = Command::new(HARNESS);
    command.env_remove("XAD_BACKEND");
    let library = emulated.then(support::library);
    support::run_transcribed(command, args, library.as_deref(), knobs)
}

/// Exit 77, nothing on stdout, exactly one stderr line holding `wording`,
/// and no number that could pass for a timing.
fn assert_refused(output: &Output, transcript: &str, wording: &str) {
    assert_eq!(output.status.code(), Some(77), "{transcript}");
    assert!(
        output.stdout.is_empty(),
        "stdout must be empty:\n{transcript}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line:\n{transcript}");
    assert!(
        lines[0].starts_with("xad-harness: microbench: "),
        "{transcript}"
    );
    assert!(lines[0].contains(wording), "{transcript}");
    assert!(lines[0].contains("nothing was run"), "{transcript}");
    for timing in ["tick/op", "cycles/op", "latency", "throughput"] {
        assert!(!lines[0].contains(timing), "{timing}:\n{transcript}");
    }
}

#[test]
fn the_emulator_backend_is_refused_with_exit_77() {
    let (output, t) = harness(&["microbench", "--backend", "emu"], false, &[]);
    assert_refused(&output, &t, "no timing exists on the embedded emulator");
    // A runner that sets XAD_BACKEND=emu for every invocation gets the same.
    let (output, t) = harness(&["microbench"], false, &[("XAD_BACKEND", "emu")]);
    assert_refused(&output, &t, "no timing exists on the embedded emulator");
    // Options do not change that: the refusal comes before any device.
    let (output, t) = harness(
        &[
            "microbench",
            "--backend",
            "emu",
            "--device",
            "3",
            "--iterations",
            "512",
        ],
        false,
        &[],
    );
    assert_refused(&output, &t, "no timing exists on the embedded emulator");
}

#[test]
fn an_emulated_hip_device_is_refused_with_exit_77() {
    for backend in ["hip", "auto"] {
        let (output, t) = harness(&["microbench", "--backend", backend], true, &[]);
        assert_refused(
            &output,
            &t,
            "HIP device 0 is \"xad-harness emulated gfx1100\", an emulated device: no timing exists there",
        );
    }
    // Every device of an emulated multi-GPU host, whatever its target.
    for (index, arch) in [("0", "gfx1201"), ("1", "gfx908"), ("2", "gfx1030")] {
        let (output, t) = harness(
            &["microbench", "--backend", "hip", "--device", index],
            true,
            &[("XAD_EMUHIP_DEVICES", "gfx1201,gfx908,gfx1030")],
        );
        assert_refused(
            &output,
            &t,
            &format!("HIP device {index} is \"xad-harness emulated {arch}\", an emulated device"),
        );
    }
    // An index the runtime does not list is a usage error, as for `run`.
    let (output, t) = harness(
        &["microbench", "--backend", "hip", "--device", "3"],
        true,
        &[],
    );
    assert_eq!(output.status.code(), Some(2), "{t}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--device 3 is out of range: the HIP runtime reports 1 device(s)"),
        "{t}"
    );
}

#[test]
fn no_hip_device_is_exit_77_naming_the_runtime() {
    // Debian's real runtime, no GPU here.
    let (output, t) = harness(&["microbench", "--backend", "hip"], false, &[]);
    assert_refused(&output, &t, "no HIP device to time: HIP runtime");
    let (output, t) = harness(&["microbench"], false, &[]);
    assert_refused(&output, &t, "the embedded emulator has no timing");
}

#[test]
fn bad_options_are_usage_errors() {
    for (option, value) in [
        ("--iterations", "0"),
        ("--iterations", "513"),
        ("--waves", "1"),
        ("--waves", "17"),
        ("--repeat", "0"),
        ("--timeout", "0"),
    ] {
        let (output, t) = harness(&["microbench", option, value], false, &[]);
        assert_eq!(output.status.code(), Some(2), "{t}");
        assert!(
            String::from_utf8_lossy(&output.stderr)
                .contains(&format!("invalid value '{value}' for '{option}")),
            "{t}"
        );
    }
}
