//! The CLI against the real HIP runtime this binary was linked with, found
//! through its own run path (no `LD_LIBRARY_PATH`): Debian 12's HIP 5.2 by
//! default, or HIP 6.4 / 7.2 in the version matrix (`ci/hip-matrix.sh`).
//! No GPU exists on the machines this runs on in CI, so what is checked is the
//! documented no-device behaviour; on a machine with a device, the no-device
//! assertions give way to consistency checks. Nothing here asserts a hardware
//! result.
//!
//! Environment (set by ci/hip-matrix.sh):
//! - `XAD_HIP_LOADER`, `XAD_HIP_LIBRARY_PATH`: run the binary under this
//!   dynamic loader with this library path (Debian's 6.4/7.2 runtimes need
//!   unstable's glibc and libstdc++, which Debian 12 does not have).
//! - `XAD_HIP_EXPECT`: the runtime version the binary must report (`6.4`),
//!   so the matrix cannot silently test another runtime than it meant to.

use crate::common::*;

use std::process::Command;

/// The binary, under the matrix's loader if one is given.
fn harness_on_real_runtime() -> Command {
    let bin = env!("CARGO_BIN_EXE_xad-harness");
    let mut cmd = match std::env::var_os("XAD_HIP_LOADER") {
        Some(loader) => {
            let mut cmd = Command::new(loader);
            if let Some(path) = std::env::var_os("XAD_HIP_LIBRARY_PATH") {
                cmd.arg("--library-path").arg(path);
            }
            cmd.arg(bin);
            cmd
        }
        None => Command::new(bin),
    };
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd
}

fn devices() -> (Ran, serde_json::Value) {
    let r = run(harness_on_real_runtime().args(["devices", "--json"]));
    assert_eq!(r.code, 0, "{}", r.all());
    let doc = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("devices --json: {e}\n{}", r.all()));
    (r, doc)
}

#[test]
fn devices_names_the_runtime_it_loaded() {
    let (r, doc) = devices();
    let runtime = doc["runtime"].as_str().unwrap_or_default();
    assert!(runtime.starts_with("HIP runtime "), "{}", r.all());
    if let Ok(expect) = std::env::var("XAD_HIP_EXPECT") {
        assert!(
            runtime.starts_with(&format!("HIP runtime {expect}.")),
            "wanted HIP {expect}, loaded {runtime}"
        );
    }
    println!("{runtime}");
    let devices = doc["devices"].as_array().unwrap();
    if devices.is_empty() {
        // Without a GPU: one reason, naming the runtime's own statuses.
        let why = doc["no_devices_reason"].as_str().unwrap_or_default();
        assert!(
            why.starts_with("no devices: hipInit returned hipError"),
            "{why}"
        );
        assert!(
            why.contains("hipGetDeviceCount returned hipErrorNoDevice (100)"),
            "{why}"
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    assert_eq!(doc["emulator"], "emulated gfx1100");
}

#[test]
fn hip_backend_without_a_device_is_exit_77_with_both_reports() {
    let (_, doc) = devices();
    if !doc["devices"].as_array().unwrap().is_empty() {
        println!("skipped: this machine has a HIP device; the no-device path cannot be taken");
        return;
    }
    let dir = scratch("real-hip-nodevice");
    let (json, junit) = (dir.join("r.json"), dir.join("r.xml"));
    let r = run(harness_on_real_runtime()
        .args(["run", "--backend", "hip", "--lanes", "1000", "--json"])
        .arg(&json)
        .arg("--junit")
        .arg(&junit));
    assert_eq!(r.code, 77, "{}", r.all());
    assert_eq!(r.stderr.lines().count(), 1, "one line: {}", r.stderr);
    assert!(
        r.stderr.starts_with("xad-harness: no HIP device"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stdout.contains("PASS"),
        "nothing may pass without execution:\n{}",
        r.stdout
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["devices"].as_array().unwrap().len(), 0);
    assert_eq!(report["executor"], "", "nothing executed");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .contains(doc["runtime"].as_str().unwrap()),
        "{report}"
    );
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testsuites"),
        "JUnit written"
    );
}
