//! Negative controls through the real CLI on the emulator: kernels that compute
//! the wrong function, skip lanes or write out of bounds must be reported as
//! failing, with exactly the lane counts the inputs imply. If any of these
//! passed, the harness could not be trusted to catch a broken GPU.

mod common;
use common::*;
use std::path::PathBuf;
use xad_harness::inputs;

const LANES: usize = 100_000;
const SEED: u64 = 0x5eed;

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/kernels").join(name)
}

/// Run `--kernel` against the basic case on the emulator; returns the run and its JSON report.
fn run_user_kernel(file: &str) -> (Ran, serde_json::Value) {
    let dir = scratch(&format!("neg-{}", file.replace('/', "-")));
    let json = dir.join("report.json");
    let r = run(harness()
        .args(["run", "--backend", "emu", "--case", "basic", "--lanes", &LANES.to_string(), "--seed", &SEED.to_string()])
        .arg("--kernel")
        .arg(kernel(file))
        .arg("--json")
        .arg(&json));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default()).unwrap_or(serde_json::Value::Null);
    (r, report)
}

/// The inputs the harness generates for `SEED`, to count failures independently.
fn sources() -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut a, mut b, mut c) = (vec![0; LANES], vec![0; LANES], vec![0; LANES]);
    inputs::fill_sources(SEED, 0, &mut a, &mut b, &mut c);
    (a, b, c)
}

fn failed(report: &serde_json::Value) -> (u64, u64) {
    let t = &report["cases"][0]["tally"];
    (t["lanes_failed"].as_u64().unwrap(), t["lanes_unwritten"].as_u64().unwrap())
}

#[test]
fn correct_user_kernel_with_other_instructions_passes() {
    let (r, report) = run_user_kernel("user_xor_add.s");
    assert_eq!(r.code, 0, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (0, 0));
    assert!(r.stdout.contains("emulated gfx1100"), "{}", r.stdout);
}

#[test]
fn add3_instead_of_xad_is_caught_lane_for_lane() {
    let (a, b, c) = sources();
    let want = (0..LANES).filter(|&i| a[i].wrapping_add(b[i]).wrapping_add(c[i]) != (a[i] ^ b[i]).wrapping_add(c[i])).count();
    assert!(want > LANES / 2, "inputs should make add3 differ on most lanes (seed {SEED})");
    let (r, report) = run_user_kernel("negative/neg_add3.s");
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (want as u64, 0), "seed {SEED}");
    assert!(r.stdout.contains("differing bits"), "{}", r.stdout);
}

#[test]
fn swapped_sources_are_caught_lane_for_lane() {
    let (a, b, c) = sources();
    let want = (0..LANES).filter(|&i| (a[i] ^ c[i]).wrapping_add(b[i]) != (a[i] ^ b[i]).wrapping_add(c[i])).count();
    let (r, report) = run_user_kernel("negative/neg_swapped.s");
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (want as u64, 0), "seed {SEED}");
}

#[test]
fn skipped_lanes_are_reported_unwritten() {
    let want = (0..LANES).filter(|i| i % 64 == 37).count() as u64;
    let (r, report) = run_user_kernel("negative/neg_skip.s");
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (want, want), "every failing lane must be unwritten, not wrong");
    assert!(r.stdout.contains("lane 37: unwritten"), "{}", r.stdout);
}

#[test]
fn write_past_the_end_hits_the_guard() {
    let (r, report) = run_user_kernel("negative/neg_oob_guard.s");
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &report["cases"][0]["guard_violations"][0];
    assert_eq!(v["buffer"], "out");
    assert_eq!(v["side"], "after");
    assert_eq!(v["nearest_offset"], 0);
    assert!(r.stdout.contains("kernel wrote outside buffer `out`"), "{}", r.stdout);
}

#[test]
fn store_outside_every_allocation_is_a_memory_fault() {
    let (r, report) = run_user_kernel("negative/neg_oob_fault.s");
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(report["cases"][0]["error"].as_str().unwrap_or("").contains("memory fault"), "{report}");
    assert!(!r.all().contains("panicked"));
}
