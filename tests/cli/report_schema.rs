//! The reports a CI runner reads, checked as a runner would: every JSON
//! report validated against the versioned schema in the repository
//! (src/report/report.schema.json, draft 2020-12), every JUnit report read
//! back with an independent parser (`junit-parser`), on passing and failing
//! runs, several emulated devices at once, a device of the wrong card, a
//! hung kernel, and a runner that demands hardware where there is none.
//!
//! The HIP runs use the emulated HIP device library (tests/emuhip): each
//! device calls itself `xad-harness emulated <arch>`; nothing here is a
//! hardware result.

use crate::support::{self, library};

use std::path::Path;
use std::process::{Command, Output};

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/report.schema.json"),
    )
    .expect("the schema is in the repository");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema is a valid draft 2020-12 schema")
}

/// One run's outputs: exit code, stdout+stderr, the JSON report (validated)
/// and the JUnit report (parsed).
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stderr: String,
    pub(crate) transcript: String,
    pub(crate) json: serde_json::Value,
    pub(crate) junit: junit_parser::TestSuites,
}

/// Run the harness with `args` plus `--json`/`--junit` into a fresh
/// directory; `hip` puts the emulated HIP library under it with `knobs`.
pub(crate) fn run(args: &[&str], hip: bool, knobs: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (json, xml) = (dir.path().join("r.json"), dir.path().join("r.xml"));
    let mut command = Command::new(HARNESS);
    command
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&xml);
    let lib = hip.then(library);
    let output: Output =
        support::run(command, lib.as_deref(), knobs).unwrap_or_else(|e| panic!("{e}"));
    let transcript = format!(
        "xad-harness {} with {knobs:?}\n{}",
        args.join(" "),
        support::transcript(&output)
    );
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("no JSON report ({e})\n{transcript}"));
    let doc: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{transcript}"));
    let errors: Vec<String> = schema()
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "the report breaks the schema: {errors:#?}\n{transcript}"
    );
    let file =
        std::fs::File::open(&xml).unwrap_or_else(|e| panic!("no JUnit report ({e})\n{transcript}"));
    let junit = junit_parser::from_reader(std::io::BufReader::new(file))
        .unwrap_or_else(|e| panic!("JUnit does not parse: {e}\n{transcript}"));
    Run {
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        transcript,
        json: doc,
        junit,
    }
}

fn statuses(device: &serde_json::Value) -> Vec<(String, String)> {
    device["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["case"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// (tests, failures, errors, skipped) of a suite, counted from its
/// testcases as the parser reads them; the suite's own totals must agree.
fn counts(suite: &junit_parser::TestSuite) -> (u64, u64, u64, u64) {
    let of = |f: fn(&junit_parser::TestStatus) -> bool| {
        suite.cases.iter().filter(|c| f(&c.status)).count() as u64
    };
    let counted = (
        suite.cases.len() as u64,
        of(|s| matches!(s, junit_parser::TestStatus::Failure(_))),
        of(|s| matches!(s, junit_parser::TestStatus::Error(_))),
        of(|s| matches!(s, junit_parser::TestStatus::Skipped(_))),
    );
    assert_eq!(
        (suite.tests, suite.failures, suite.errors),
        (counted.0, counted.1, counted.2),
        "suite {} totals disagree with its testcases",
        suite.name
    );
    counted
}

#[test]
fn an_emulator_run_reports_pass_unsettled_and_not_supported_in_schema() {
    let r = run(
        &[
            "run",
            "--backend",
            "emu",
            "--lanes",
            "300",
            "--seed",
            "5",
            "--case",
            "basic,sreg_hi_w32,sreg_gfx9_w64",
        ],
        false,
        &[],
    );
    assert_eq!(r.code, Some(0), "{}", r.transcript);
    assert_eq!(
        r.json["schema_version"],
        xad_harness::report::SCHEMA_VERSION
    );
    assert_eq!(r.json["seed"], 5);
    assert!(r.json["tool"]["git_describe"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    let device = &r.json["devices"][0];
    assert_eq!(device["identity"]["kind"], "emulated", "{}", r.transcript);
    assert_eq!(device["executor"], "emulated gfx1100");
    let got = statuses(device);
    assert_eq!(
        got,
        [
            ("basic".to_string(), "pass".to_string()),
            // Every word of it is unsettled: unsettled, as a case with some
            // words unsettled is, never a pass (basic's pass makes the run 0).
            ("sreg_hi_w32".into(), "unsettled".into()),
            ("sreg_gfx9_w64".into(), "not_supported".into())
        ],
        "{}",
        r.transcript
    );
    assert_eq!(r.json["summary"]["not_supported"], 1);
    assert_eq!(r.junit.suites.len(), 1);
    let suite = &r.junit.suites[0];
    assert_eq!(suite.name, "xad-harness emulator:gfx1100");
    assert_eq!(counts(suite), (3, 0, 0, 2), "{}", r.transcript);
}

#[test]
fn three_emulated_devices_each_get_a_device_entry_and_a_testsuite_and_one_fault_is_that_devices() {
    let knobs = [
        ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201"),
        ("XAD_EMUHIP_FAULT_DEVICE", "1"),
        ("XAD_EMUHIP_FLIP_BIT", "5:3"),
    ];
    let r = run(
        &[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "300",
            "--seed",
            "2",
        ],
        true,
        &knobs,
    );
    assert_eq!(r.code, Some(1), "{}", r.transcript);
    let devices = r.json["devices"].as_array().unwrap();
    let ids: Vec<&str> = devices.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["hip:0", "hip:1", "hip:2"], "{}", r.transcript);
    let archs: Vec<&str> = devices
        .iter()
        .map(|d| d["identity"]["gcn_arch_name"].as_str().unwrap())
        .collect();
    assert!(
        archs[0].starts_with("gfx1100")
            && archs[1].starts_with("gfx1030")
            && archs[2].starts_with("gfx1201"),
        "{archs:?}"
    );
    let pci: Vec<&str> = devices
        .iter()
        .map(|d| d["identity"]["pci_bus_id"].as_str().unwrap())
        .collect();
    assert!(pci[0] != pci[1] && pci[1] != pci[2], "{pci:?}");
    for d in devices {
        assert!(
            d["executor"].as_str().unwrap().contains("emulated"),
            "every label says emulated: {d}"
        );
    }
    let exit_codes: Vec<i64> = devices
        .iter()
        .map(|d| d["exit_code"].as_i64().unwrap())
        .collect();
    assert_eq!(exit_codes, [0, 1, 0], "{}", r.transcript);
    let bad = &devices[1]["cases"][0];
    assert_eq!(bad["status"], "fail");
    assert_eq!(bad["tally"]["first"][0]["lane"], 5);
    assert_eq!(bad["target"], "gfx1030");
    assert_eq!(r.json["summary"]["fail"], 1);
    assert_eq!(r.json["summary"]["pass"], 2);
    let suites: Vec<&str> = r.junit.suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        suites,
        [
            "xad-harness hip:0",
            "xad-harness hip:1",
            "xad-harness hip:2"
        ]
    );
    assert_eq!(counts(&r.junit.suites[1]), (1, 1, 0, 0));
    assert_eq!(counts(&r.junit.suites[0]), (1, 0, 0, 0));
}

#[test]
fn device_picks_a_subset_and_hip_visible_devices_renumbers() {
    let three = ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201");
    let r = run(
        &[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--device",
            "0,2",
        ],
        true,
        &[three],
    );
    assert_eq!(r.code, Some(0), "{}", r.transcript);
    let ids: Vec<&str> = r.json["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["hip:0", "hip:2"], "{}", r.transcript);
    let r = run(
        &[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "64",
        ],
        true,
        &[three, ("HIP_VISIBLE_DEVICES", "2")],
    );
    assert_eq!(r.code, Some(0), "{}", r.transcript);
    let devices = r.json["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1, "{}", r.transcript);
    assert!(devices[0]["identity"]["gcn_arch_name"]
        .as_str()
        .unwrap()
        .starts_with("gfx1201"));
    assert_eq!(r.json["environment"]["HIP_VISIBLE_DEVICES"], "2");
}

#[test]
fn a_device_of_another_card_is_not_supported_and_exit_77_with_one_line() {
    let r = run(
        &[
            "run",
            "--backend",
            "hip",
            "--target",
            "gfx1100",
            "--case",
            "basic,vgpr_w32",
            "--lanes",
            "64",
        ],
        true,
        &[("XAD_EMUHIP_ARCH", "gfx1101")],
    );
    assert_eq!(r.code, Some(77), "{}", r.transcript);
    let device = &r.json["devices"][0];
    assert!(device["identity"]["gcn_arch_name"]
        .as_str()
        .unwrap()
        .starts_with("gfx1101"));
    assert!(
        statuses(device).iter().all(|(_, s)| s == "not_supported"),
        "{}",
        r.transcript
    );
    assert_eq!(r.json["summary"]["not_supported"], 2);
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("xad-harness:"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", r.transcript);
    assert!(
        lines[0].contains("gfx1101") && lines[0].contains("not_supported"),
        "{}",
        lines[0]
    );
    assert_eq!(counts(&r.junit.suites[0]), (2, 0, 0, 2));
}

#[test]
fn a_hung_kernel_is_a_timeout_and_the_cases_after_it_are_skipped() {
    let r = run(
        &[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic,vgpr_w32,literal_w32",
            "--lanes",
            "64",
            "--timeout",
            "0.5",
        ],
        true,
        &[("XAD_EMUHIP_HANG", "1")],
    );
    assert_eq!(r.code, Some(3), "{}", r.transcript);
    let got: Vec<String> = statuses(&r.json["devices"][0])
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(got, ["timeout", "skipped", "skipped"], "{}", r.transcript);
    assert_eq!(
        r.json["devices"][0]["error"],
        "stopped after a watchdog timeout"
    );
    let suite = &r.junit.suites[0];
    assert_eq!(counts(suite), (3, 0, 1, 2), "{}", r.transcript);
}

#[test]
fn a_runner_that_demands_hardware_gets_77_from_the_environment_not_an_emulator_pass() {
    let r = run(
        &["run", "--case", "basic", "--lanes", "64"],
        false,
        &[("XAD_BACKEND", "hip")],
    );
    assert_eq!(r.code, Some(77), "{}", r.transcript);
    assert!(
        r.json["devices"].as_array().unwrap().is_empty(),
        "{}",
        r.transcript
    );
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.transcript);
    assert!(lines[0].contains("no HIP device"), "{}", lines[0]);
    // A flag beats the environment.
    let r = run(
        &[
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
        ],
        false,
        &[("XAD_BACKEND", "hip")],
    );
    assert_eq!(r.code, Some(0), "{}", r.transcript);
}

#[test]
fn a_bad_xad_backend_is_a_usage_error_naming_the_variable() {
    let mut command = Command::new(HARNESS);
    command.args(["run", "--case", "basic", "--lanes", "64"]);
    let output = support::run(command, None, &[("XAD_BACKEND", "gpu")]).unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        support::transcript(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("XAD_BACKEND=gpu"), "{stderr}");
}

#[test]
fn the_schema_subcommand_prints_the_schema_in_the_repository() {
    let output = Command::new(HARNESS).arg("schema").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/report.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(printed, file);
    assert_eq!(
        printed["properties"]["schema_version"]["const"],
        xad_harness::report::SCHEMA_VERSION
    );
}

/// A guard word no lane addresses is reported with `lane` null, and that
/// report is valid: a kernel whose lane 0 also stores one word past `out`.
#[test]
fn a_guard_word_no_lane_addresses_has_a_null_lane_in_schema() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/include/xad_basic_gfx11.s"),
    )
    .unwrap();
    let store = "  global_store_b32 v1, v5, s[10:11]";
    assert!(
        source.contains(store),
        "kernels/include/xad_basic_gfx11.s changed"
    );
    let stray = format!(
        "{store}\n  v_cmp_eq_u32 vcc_lo, 0, v1\n  s_and_b32 exec_lo, exec_lo, vcc_lo\n  global_store_b32 v1, v5, s[10:11] offset:1024"
    );
    let path = dir.path().join("past_end.s");
    std::fs::write(&path, source.replacen(store, &stray, 1)).unwrap();
    let r = run(
        &[
            "run",
            "--backend",
            "emu",
            "--lanes",
            "200",
            "--seed",
            "3",
            "--kernel",
            path.to_str().unwrap(),
        ],
        false,
        &[],
    );
    assert_eq!(r.code, Some(1), "{}", r.transcript);
    let v = &r.json["devices"][0]["cases"][0]["guard_violations"][0];
    assert_eq!(
        (&v["side"], &v["word"], &v["lane"]),
        (&"after".into(), &256.into(), &serde_json::Value::Null),
        "{}",
        r.transcript
    );
    assert_eq!(counts(&r.junit.suites[0]), (1, 1, 0, 0), "{}", r.transcript);
}
