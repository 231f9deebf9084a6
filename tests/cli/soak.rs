//! `xad-harness soak` (src/commands/soak/endurance.rs, kernels/include/xad_soak.inc): on the
//! emulator, on the emulated HIP device library with an injected `v_xad_u32`
//! fault, against kernels whose on-device check lies, and the refusals.
//! No assertion depends on wall-clock speed.

use crate::common::{self};
use crate::support;
use std::process::Command;

#[test]
fn soak_on_the_emulator_passes_and_reports_rate_and_coverage() {
    let dir = common::scratch("soak_emu");
    let json = dir.join("soak.json");
    let r = common::run(common::harness().args([
        "soak",
        "--duration",
        "1",
        "--backend",
        "emu",
        "--seed",
        "5",
        "--json",
        json.to_str().unwrap(),
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
    for needle in [
        "soak [emulated gfx1100]:",
        "M xad/s",
        "seed 0x5",
        "coverage [emulated gfx1100]: 8 units ran waves",
        "emulated hardware ids",
        "SE0.SA1.WGP3",
        "host re-check:",
        "PASS: no mismatch",
    ] {
        assert!(
            r.stdout.contains(needle),
            "{needle:?} missing:\n{}",
            r.all()
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["command"], "soak");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["executor"], "emulated gfx1100");
    assert_eq!(report["coverage"].as_object().unwrap().len(), 8);
    assert!(report["xads"].as_u64().unwrap() > 0);
    assert!(report["lanes_rechecked"].as_u64().unwrap() > 0);
}

#[test]
fn an_injected_fault_on_the_emulated_hip_library_is_caught_on_the_device_and_confirmed() {
    let lib = support::library();
    // The same soak, with and without the knob.
    let soak = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xad-harness"));
        cmd.args([
            "soak",
            "--backend",
            "hip",
            "--duration",
            "0.2",
            "--seed",
            "9",
        ]);
        cmd
    };
    let output = support::run(soak(), Some(&lib), &[("XAD_EMUHIP_XAD_FAULT", "5:3")]).unwrap();
    let text = support::transcript(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "soak [hardware: xad-harness emulated gfx1100 (gfx1100)",
        "dispatch 0 lane 5 (input index 0x5, iteration 0): confirmed",
        "differing bits 0x00000008",
        "FAIL: v_xad_u32 mismatches confirmed by the host",
        "(the runtime reports 48 compute units)",
    ] {
        assert!(stdout.contains(needle), "{needle:?} missing:\n{text}");
    }
    let (a, b, c) = xad_harness::model::inputs::uniform_sources(9, 5);
    assert!(
        stdout.contains(&format!("a={a:#010x} b={b:#010x} c={c:#010x}")),
        "{text}"
    );
    // Without the knob the same soak passes.
    let output = support::run(soak(), Some(&lib), &[]).unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        support::transcript(&output)
    );
}

#[test]
fn soak_demanding_hardware_without_a_device_is_skipped() {
    let r = common::run(common::harness().args(["soak", "--duration", "1", "--backend", "hip"]));
    assert_eq!(r.code, 77, "{}", r.all());
    assert!(r.stderr.contains("no HIP device that runs"), "{}", r.all());
    assert!(r.stdout.is_empty(), "nothing executed: {}", r.all());
}

#[test]
fn bad_durations_are_usage_errors() {
    for args in [
        &["soak", "--duration", "0"][..],
        &["soak", "--duration", "-5"],
        &["soak", "--duration", "soon"],
        &["soak", "--duration", "8d"],
        &["soak"],
    ] {
        let r = common::run(common::harness().args(args));
        assert_eq!(r.code, 2, "{args:?}: {}", r.all());
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.all());
        assert!(r.stdout.is_empty());
    }
    let r = common::run(common::harness().args(["soak", "--duration", "0"]));
    assert!(
        r.stderr.contains("must be a duration from 0.1 s to 7 days"),
        "{}",
        r.all()
    );
}

#[test]
fn a_soak_that_faults_still_writes_its_json_report() {
    let lib = support::library();
    let dir = tempfile::tempdir().unwrap();
    // A failed copy stops the soak mid-run; a failed allocation before the
    // first dispatch; no device at all before the soak starts.
    for (knob, value, dispatches) in [
        ("XAD_EMUHIP_FAIL_COPY", "5", None),
        ("XAD_EMUHIP_FAIL_ALLOC", "1", Some(0)),
        ("XAD_EMUHIP_DEVICES", "gfx801", Some(0)),
    ] {
        let json = dir.path().join(format!("{knob}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xad-harness"));
        cmd.args([
            "soak",
            "--backend",
            "hip",
            "--duration",
            "0.3",
            "--seed",
            "3",
            "--json",
        ])
        .arg(&json);
        let output = support::run(cmd, Some(&lib), &[(knob, value)]).unwrap();
        let text = support::transcript(&output);
        let code = output.status.code();
        let report: serde_json::Value = serde_json::from_slice(
            &std::fs::read(&json)
                .unwrap_or_else(|e| panic!("{knob}: no --json report ({e}): {text}")),
        )
        .unwrap();
        assert_eq!(report["command"], "soak", "{knob}");
        assert_eq!(report["seed"], 3, "{knob}");
        assert_eq!(
            Some(report["exit_code"].as_i64().unwrap() as i32),
            code,
            "{knob}: {text}"
        );
        assert!(report["error"].is_string(), "{knob}: {report}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let ours: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("xad-harness:"))
            .collect();
        assert_eq!(ours.len(), 1, "{knob}: one error line: {text}");
        assert!(
            ours[0].contains(report["error"].as_str().unwrap()),
            "{knob}: {text}"
        );
        if let Some(n) = dispatches {
            assert_eq!(report["dispatches"], n, "{knob}: {report}");
        }
        assert_ne!(code, Some(0), "{knob}: {text}");
    }
}
