//! Where a CI log looks: every case that ends in a fault (exit 3) puts one
//! `xad-harness: <case>: <what>` line on stderr, beside the indented detail
//! on stdout. Driven through the HIP path with the emulated HIP device
//! library (tests/emuhip) injecting the faults; nothing here is a hardware
//! result.

use crate::support::{self, library};

use std::process::{Command, Output};

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");

fn run_hip(cases: &str, extra: &[&str], knobs: &[(&str, &str)]) -> (Output, String) {
    let mut command = Command::new(HARNESS);
    command
        .args([
            "run",
            "--backend",
            "hip",
            "--case",
            cases,
            "--lanes",
            "4096",
            "--seed",
            "7",
        ])
        .args(extra);
    let output = support::run(command, Some(&library()), knobs).unwrap_or_else(|e| panic!("{e}"));
    let transcript = support::transcript(&output);
    (output, transcript)
}

fn stderr_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_case_that_faults_names_itself_on_stderr() {
    // The first copy fails: basic faults, vgpr_w32 then runs normally.
    let (output, transcript) = run_hip("basic,vgpr_w32", &[], &[("XAD_EMUHIP_FAIL_COPY", "1:700")]);
    assert_eq!(output.status.code(), Some(3), "{transcript}");
    let lines = stderr_lines(&output);
    let basic: Vec<&String> = lines
        .iter()
        .filter(|l| {
            l.starts_with(
                "xad-harness: basic [hardware: xad-harness emulated gfx1100 (gfx1100), HIP runtime",
            )
        })
        .collect();
    assert_eq!(
        basic.len(),
        1,
        "one line for the faulted case\n{transcript}"
    );
    assert!(basic[0].contains("hipErrorIllegalAddress"), "{transcript}");
    assert!(
        !lines.iter().any(|l| l.contains("vgpr_w32")),
        "a case that passed has no line\n{transcript}"
    );
}

#[test]
fn a_watchdog_timeout_names_the_case_and_the_stop() {
    let (output, transcript) = run_hip(
        "basic,vgpr_w32",
        &["--timeout", "1"],
        &[("XAD_EMUHIP_HANG", "1")],
    );
    assert_eq!(output.status.code(), Some(3), "{transcript}");
    let lines = stderr_lines(&output);
    assert!(
        lines.iter().any(|l| l.starts_with(
            "xad-harness: basic [hardware: xad-harness emulated gfx1100 (gfx1100), HIP runtime"
        ) && l.contains("watchdog")),
        "{transcript}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "xad-harness: stopped after a watchdog timeout"),
        "{transcript}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("vgpr_w32")),
        "the later case never ran\n{transcript}"
    );
}

#[test]
fn a_resource_that_cannot_be_released_names_its_case() {
    let (output, transcript) = run_hip("basic", &[], &[("XAD_EMUHIP_STATUS", "999:hipFree")]);
    assert_eq!(output.status.code(), Some(3), "{transcript}");
    let lines = stderr_lines(&output);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("xad-harness: basic [hardware: ")
                && l.contains("]: releasing a device buffer: hipFree failed"))
            .count(),
        4,
        "{transcript}"
    );
}

/// Negative control: passing and mismatching runs print no harness line on
/// stderr (the emulated library notes what it injected there itself).
#[test]
fn passing_and_failing_lanes_are_not_faults() {
    let (output, transcript) = run_hip("basic", &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    assert!(
        !stderr_lines(&output)
            .iter()
            .any(|l| l.starts_with("xad-harness:")),
        "{transcript}"
    );
    let (output, transcript) = run_hip("basic", &[], &[("XAD_EMUHIP_FLIP_BIT", "3:5")]);
    assert_eq!(output.status.code(), Some(1), "{transcript}");
    assert!(
        !stderr_lines(&output)
            .iter()
            .any(|l| l.starts_with("xad-harness:")),
        "{transcript}"
    );
}

#[test]
fn a_fault_with_stderr_closed_keeps_its_exit_code() {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&-")
        .arg(HARNESS);
    command.args([
        "run",
        "--backend",
        "hip",
        "--case",
        "basic",
        "--lanes",
        "4096",
    ]);
    let output = support::run(
        command,
        Some(&library()),
        &[("XAD_EMUHIP_FAIL_COPY", "1:700")],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        support::transcript(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("ERROR         basic"),
        "{}",
        support::transcript(&output)
    );
}
