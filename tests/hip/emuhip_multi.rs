//! Several emulated devices through the HIP path: the real `xad-harness`
//! binary on the emulated HIP device library (tests/emuhip) with
//! `XAD_EMUHIP_DEVICES` giving it three "GPUs". Checks what a multi-GPU host
//! must show: every device with its arch and its own PCI address, ROCm's
//! `HIP_VISIBLE_DEVICES` renumbering, `run --device N` on the right card, and
//! a fault injected into one device only (`XAD_EMUHIP_FAULT_DEVICE`).
//!
//! The library is found or built as for tests/hip/emuhip_e2e.rs (the shared
//! support module; `cargo build -p xad-emuhip` first makes this fast).
//! Nothing here is a hardware result: each device calls itself
//! `xad-harness emulated <arch>`, and the tests check that it does.

use crate::support::{self, library};

use std::process::{Command, Output};

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");
const THREE: (&str, &str) = ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201");

/// Run the harness on the stand-in with `knobs` (and no other XAD_EMUHIP_* or
/// visibility variable); returns the output and a transcript for messages.
fn harness(args: &[&str], knobs: &[(&str, &str)]) -> (Output, String) {
    support::run_transcribed(Command::new(HARNESS), args, Some(&library()), knobs)
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `devices --json` on the stand-in: the document, after checking it exited 0.
fn devices_json(knobs: &[(&str, &str)]) -> (serde_json::Value, String) {
    let (output, transcript) = harness(&["devices", "--json"], knobs);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    let doc = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("devices --json is not JSON ({e})\n{transcript}"));
    (doc, transcript)
}

/// (index, arch, name, pci_bus_id) of each listed device.
fn rows(doc: &serde_json::Value) -> Vec<(u64, String, String, String)> {
    doc["devices"]
        .as_array()
        .expect("a devices array")
        .iter()
        .map(|d| {
            let field = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (
                d["index"].as_u64().unwrap_or(u64::MAX),
                field("arch"),
                field("name"),
                field("pci_bus_id"),
            )
        })
        .collect()
}

#[test]
fn three_devices_are_listed_with_their_archs_and_distinct_pci_addresses() {
    let (doc, transcript) = devices_json(&[THREE]);
    let rows = rows(&doc);
    let archs: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(archs, ["gfx1100", "gfx1030", "gfx1201"], "{transcript}");
    for (i, (index, arch, name, pci)) in rows.iter().enumerate() {
        assert_eq!(*index, i as u64, "{transcript}");
        assert_eq!(
            name,
            &format!("xad-harness emulated {arch}"),
            "{transcript}"
        );
        assert!(
            pci.len() == 12 && pci.ends_with(".0") && pci.as_bytes()[4] == b':',
            "DDDD:BB:DD.0, got {pci:?}\n{transcript}"
        );
    }
    let mut pcis: Vec<&str> = rows.iter().map(|r| r.3.as_str()).collect();
    pcis.sort_unstable();
    pcis.dedup();
    assert_eq!(pcis.len(), 3, "distinct PCI addresses\n{transcript}");
    assert!(doc["visible_devices"].is_null(), "{transcript}");
    for d in doc["devices"].as_array().unwrap() {
        assert_eq!(d["runnable"], true, "{transcript}");
    }
}

#[test]
fn hip_visible_devices_selects_and_renumbers_in_the_listed_order() {
    let (all, _) = devices_json(&[THREE]);
    let all = rows(&all);
    let (doc, transcript) = devices_json(&[THREE, ("HIP_VISIBLE_DEVICES", "2,0")]);
    let seen = rows(&doc);
    assert_eq!(seen.len(), 2, "{transcript}");
    // Renumbered from 0; each card keeps its arch and PCI address.
    assert_eq!(
        (seen[0].0, &seen[0].1, &seen[0].3),
        (0, &all[2].1, &all[2].3),
        "{transcript}"
    );
    assert_eq!(
        (seen[1].0, &seen[1].1, &seen[1].3),
        (1, &all[0].1, &all[0].3),
        "{transcript}"
    );
    assert_eq!(
        doc["visible_devices"],
        serde_json::json!({"HIP_VISIBLE_DEVICES": "2,0"}),
        "{transcript}"
    );
    // The text listing says so too.
    let (output, transcript) = harness(&["devices"], &[THREE, ("HIP_VISIBLE_DEVICES", "2,0")]);
    assert!(
        text(&output).contains("device visibility: HIP_VISIBLE_DEVICES=2,0"),
        "{transcript}"
    );
}

#[test]
fn an_invalid_entry_ends_the_visibility_list() {
    let (doc, transcript) = devices_json(&[THREE, ("HIP_VISIBLE_DEVICES", "1,x,0")]);
    let seen = rows(&doc);
    assert_eq!(seen.len(), 1, "only the entry before x\n{transcript}");
    assert_eq!(
        (seen[0].0, seen[0].1.as_str()),
        (0, "gfx1030"),
        "{transcript}"
    );
}

#[test]
fn rocr_visible_devices_empty_hides_every_device() {
    let (doc, transcript) = devices_json(&[THREE, ("ROCR_VISIBLE_DEVICES", "")]);
    assert!(rows(&doc).is_empty(), "{transcript}");
    assert!(
        doc["no_devices_reason"]
            .as_str()
            .is_some_and(|r| r.contains("hipGetDeviceCount returned hipErrorNoDevice (100)")),
        "{transcript}"
    );
    assert_eq!(
        doc["visible_devices"],
        serde_json::json!({"ROCR_VISIBLE_DEVICES": ""}),
        "{transcript}"
    );
}

fn run_on(device: &str, knobs: &[(&str, &str)]) -> (Output, String) {
    harness(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            device,
            "--case",
            "basic",
            "--lanes",
            "300",
            "--seed",
            "5",
        ],
        knobs,
    )
}

#[test]
fn run_on_device_1_executes_on_the_gfx1030_card() {
    let (output, transcript) = run_on("1", &[THREE]);
    assert_eq!(output.status.code(), Some(0), "{transcript}");
    let text = text(&output);
    assert!(text.contains("emulated gfx1030"), "{transcript}");
    assert!(!text.contains("emulated gfx1100"), "{transcript}");
}

#[test]
fn a_fault_on_device_1_fails_device_1_and_leaves_device_0_passing() {
    let knobs = [
        THREE,
        ("XAD_EMUHIP_FAULT_DEVICE", "1"),
        ("XAD_EMUHIP_FLIP_BIT", "5:3"),
    ];
    let (output, transcript) = run_on("1", &knobs);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a mismatch on device 1\n{transcript}"
    );
    let text1 = text(&output);
    assert!(
        text1.contains("emulated gfx1030") && text1.contains("lane 5") && text1.contains("(bit 3)"),
        "{transcript}"
    );
    let (output, transcript) = run_on("0", &knobs);
    assert_eq!(
        output.status.code(),
        Some(0),
        "device 0 is not a fault device\n{transcript}"
    );
    let text0 = text(&output);
    assert!(text0.contains("emulated gfx1100"), "{transcript}");
    assert!(
        !text0.contains("XAD_EMUHIP_FLIP_BIT"),
        "no fault fired\n{transcript}"
    );
}

#[test]
fn a_fault_device_beyond_the_visible_ones_is_a_loud_misconfiguration() {
    let (output, transcript) = harness(
        &["devices"],
        &[
            THREE,
            ("HIP_VISIBLE_DEVICES", "0"),
            ("XAD_EMUHIP_FAULT_DEVICE", "2"),
        ],
    );
    assert!(
        text(&output).contains("xad-emuhip: bad fault knob: XAD_EMUHIP_FAULT_DEVICE=2"),
        "{transcript}"
    );
}

/// The report's schema, to check a mixed report (one device ran, one could
/// not) is still one the schema accepts.
fn report_schema() -> jsonschema::Validator {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/report.schema.json");
    let text = std::fs::read_to_string(&path).expect("the schema is in the repository");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("a draft 2020-12 schema")
}

/// `--device 0,1 --target gfx1100` on a gfx1100 and a gfx1030: device 1
/// cannot run gfx1100 code objects. It was dropped without a word and the
/// run passed on device 0 alone, so a fleet job pinning the card passed with
/// the wrong card in the node. Every listed device must be in the report;
/// device 1's cases are not_supported, one stderr line names it and why, and
/// the run is 77 (docs/reports.md: one device of a multi-GPU host that ran nothing
/// makes the run 77, not a pass), under `hip` and under `auto` alike.
#[test]
fn a_listed_device_of_another_card_is_reported_not_supported_and_the_run_is_not_a_pass() {
    let two = ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030");
    for backend in ["hip", "auto"] {
        let dir =
            std::env::temp_dir().join(format!("xad-i27-devices-{}-{backend}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let json = dir.join("report.json");
        let (output, transcript) = harness(
            &[
                "run",
                "--backend",
                backend,
                "--device",
                "0,1",
                "--target",
                "gfx1100",
                "--case",
                "basic",
                "--lanes",
                "300",
                "--seed",
                "5",
                "--json",
                json.to_str().unwrap(),
            ],
            &[two],
        );
        assert_eq!(
            output.status.code(),
            Some(77),
            "--backend {backend}: device 1 ran nothing, so not a pass\n{transcript}"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let errors: Vec<String> = report_schema()
            .iter_errors(&doc)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{transcript}");
        let ids: Vec<&str> = doc["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["hip:0", "hip:1"], "--backend {backend}\n{transcript}");
        let statuses = |i: usize| -> Vec<String> {
            doc["devices"][i]["cases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["status"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(statuses(0), ["pass"], "{transcript}");
        assert_eq!(statuses(1), ["not_supported"], "{transcript}");
        assert_eq!(doc["devices"][0]["exit_code"], 0, "{transcript}");
        assert_eq!(doc["devices"][1]["exit_code"], 77, "{transcript}");
        assert_eq!(doc["exit_code"], 77, "{transcript}");
        // One stderr line for device 1, naming it, its card and the target.
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("hip:1")).collect();
        assert_eq!(lines.len(), 1, "{transcript}");
        assert!(
            lines[0].starts_with("xad-harness: ")
                && lines[0].contains("gfx1030")
                && lines[0].contains("does not run gfx1100 code objects"),
            "{transcript}"
        );
        assert!(!stderr.contains("hip:0"), "device 0 passed\n{transcript}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    // Device 1 alone stays what it was: nothing ran anywhere, 77, its line.
    let (output, transcript) = harness(
        &[
            "run",
            "--backend",
            "hip",
            "--device",
            "1",
            "--target",
            "gfx1100",
            "--case",
            "basic",
            "--lanes",
            "300",
        ],
        &[two],
    );
    assert_eq!(output.status.code(), Some(77), "{transcript}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("does not run gfx1100 code objects"),
        "{transcript}"
    );
}
