//! The catalogue's kernels (kernels/cases) on the emulator, generation by generation, against the
//! catalogue's CPU model on every lane, over partial waves and workgroups; no GPU is involved.
//!
//! - gfx9: every kernel assembled here for gfx908, gfx90a, gfx942, gfx9-generic, gfx9-4-generic
//!   (LLVM 19) and gfx950 (LLVM 22, skipped with a printed note when absent) passes on its
//!   emulated target.
//! - gfx10: the code objects build.rs embeds for gfx1010, gfx1030 and the gfx10-1/gfx10-3
//!   generic targets, and the same sources assembled here with LLVM 19, in wave32 and wave64;
//!   a wrong model fails against them (negative control).
//! - gfx12: every case the gfx1200, gfx1201 and gfx12-generic code objects build.rs embeds
//!   passes on the emulated gfx1200/gfx1201 (the generic build on both).

use crate::common;
use crate::support::*;
use std::path::Path;
use std::time::Duration;
use xad_harness::model::cases::op_table::Program;
use xad_harness::model::cases::{self, model, Case, LaneData};
use xad_harness::pipeline::run::{run_case, CaseResult, KernelSource, Options, Status};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::embedded;
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::{self, Target};
use xad_harness::platform::toolchain::{self, Toolchain};

// ---- the catalogue's gfx9 kernels ----

/// 1000 + 13 lanes: the last wave and the last workgroup are partial.
const LANES: u64 = 1013;

/// (the code object's target, the emulated device it runs on)
const CATALOGUE_RUNS: [(&str, &str); 7] = [
    ("gfx908", "gfx908"),
    ("gfx90a", "gfx90a"),
    ("gfx942", "gfx942"),
    ("gfx950", "gfx950"),
    ("gfx9-generic", "gfx9-generic"),
    ("gfx9-4-generic", "gfx9-4-generic"),
    // Generic code on a processor it covers.
    ("gfx9-4-generic", "gfx942"),
];

#[test]
fn every_gfx9_catalogue_kernel_passes_on_every_emulated_gfx9_target() {
    let scratch = common::scratch("emu_gfx9_catalogue");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (mcpu, device) in CATALOGUE_RUNS {
        let Some(tc) = toolchain_for(mcpu, &scratch) else {
            continue;
        };
        let dir = scratch.join(mcpu);
        toolchain::write_target_include(&dir, mcpu, Some(t(mcpu).frame())).expect("xad_target.inc");
        let include = Path::new(ROOT).join("kernels/include");
        let cases = cases::catalogue_for(t(mcpu));
        assert!(cases.len() >= 4, "{mcpu}: {} gfx9 cases", cases.len());
        for case in &cases {
            let src = Path::new(ROOT)
                .join("kernels/cases")
                .join(format!("{}.s", case.kernel));
            let out = dir.join(format!("{}.hsaco", case.kernel));
            tc.build_code_object(mcpu, &src, &out, &[&dir, &include])
                .unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
            let code = CodeObject::parse(&std::fs::read(&out).unwrap())
                .unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
            let kernel = code.kernel(case.kernel).unwrap().clone();
            for seed in [1u64, 0x5eed_0000_0000_0009] {
                let opts = Options {
                    lanes: LANES,
                    seed,
                    timeout: Duration::from_secs(120),
                    keep: 4,
                    ..Options::default()
                };
                let source = KernelSource::User {
                    path: out.display().to_string(),
                };
                let r = run_case(
                    &mut EmuDevice::for_target(t(device)),
                    case,
                    &code,
                    &kernel,
                    source,
                    &opts,
                );
                if !r.passed() || r.tally.lanes_checked != LANES {
                    failures.push(format!(
                        "{mcpu} on emulated {device}, {} seed {seed:#x}: {:?}, {} of {} lanes failed, error {:?}, first {:x?}",
                        case.name, r.status(), r.tally.lanes_failed, r.tally.lanes_checked, r.error, r.tally.first
                    ));
                }
                assert_eq!(
                    r.executor,
                    format!("emulated {device}"),
                    "the result names the emulator"
                );
                ran += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{ran} gfx9 catalogue runs passed (emulated)");
}

/// Assemble kernels/cases/`kernel`.s for `mcpu` into `dir`.
fn build(tc: &Toolchain, mcpu: &str, kernel: &str, dir: &Path) -> Vec<u8> {
    std::fs::create_dir_all(dir).expect("scratch dir");
    toolchain::write_target_include(dir, mcpu, Some(t(mcpu).frame())).expect("xad_target.inc");
    let src = Path::new(ROOT)
        .join("kernels/cases")
        .join(format!("{kernel}.s"));
    let out = dir.join(format!("{kernel}.hsaco"));
    let include = Path::new(ROOT).join("kernels/include");
    tc.build_code_object(mcpu, &src, &out, &[dir, &include])
        .unwrap_or_else(|e| panic!("{mcpu} {kernel}: {e}"));
    std::fs::read(&out).expect("code object")
}

/// Run `case` from the code object `image` on an emulated `device`.
fn run(device: &'static Target, case: &Case, image: &[u8], lanes: u64, seed: u64) -> CaseResult {
    let code =
        CodeObject::parse(image).unwrap_or_else(|e| panic!("{} {}: {e}", device.name, case.kernel));
    let kernel = code
        .kernel(case.kernel)
        .unwrap_or_else(|e| panic!("{}: {e}", case.kernel))
        .clone();
    let opts = Options {
        lanes,
        seed,
        timeout: Duration::from_secs(120),
        keep: 4,
        chunk_lanes: 1 << 19,
        ..Options::default()
    };
    let source = KernelSource::User {
        path: format!("kernels/cases/{}.s", case.kernel),
    };
    run_case(
        &mut EmuDevice::for_target(device),
        case,
        &code,
        &kernel,
        source,
        &opts,
    )
}

/// The code object build.rs embedded for `target`'s `kernel` (a Vec: the ELF
/// parser wants an allocator-aligned buffer).
fn embedded(target: &str, kernel: &str) -> Vec<u8> {
    embedded::find(target, kernel)
        .unwrap_or_else(|| panic!("{target}: kernel {kernel} not embedded"))
        .bytes
        .to_vec()
}

fn describe(r: &CaseResult) -> String {
    format!(
        "{} ({}): status {:?}, {} of {} lanes failed, error {:?}, guards {:?}, first {:#x?}",
        r.case,
        r.executor,
        r.status(),
        r.tally.lanes_failed,
        r.tally.lanes_checked,
        r.error,
        r.guard_violations,
        r.tally.first
    )
}

/// Every catalogue case of each gfx10 target, from the code objects build.rs
/// assembled for it, on the emulated target; generic code objects also on
/// the processors they cover. Two seeds each.
#[test]
fn every_gfx10_kernel_matches_the_model_on_every_gfx10_target() {
    let runs = [
        ("gfx1010", "gfx1010"),
        ("gfx1030", "gfx1030"),
        ("gfx10-1-generic", "gfx10-1-generic"),
        ("gfx10-3-generic", "gfx10-3-generic"),
        ("gfx10-1-generic", "gfx1010"),
        ("gfx10-3-generic", "gfx1030"),
    ];
    let mut failures = Vec::new();
    let mut ran = 0;
    for (code, device) in runs {
        let cases = cases::catalogue_for(t(code));
        assert!(
            cases.len() >= 18,
            "{code}: the gfx10 catalogue has {} cases",
            cases.len()
        );
        for case in cases {
            let image = embedded(code, case.kernel);
            for seed in [1u64, 0x5eed_0000_0000_0010] {
                let r = run(t(device), &case, &image, LANES, seed);
                ran += 1;
                if !r.passed() || r.tally.lanes_checked != LANES || !r.executor.contains(device) {
                    failures.push(format!(
                        "{code} code, seed {seed:#x} on emulated {device}: {}",
                        describe(&r)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The same kernels assembled here with LLVM 19 for gfx1010 and gfx1030
/// (not only what build.rs embedded) run exactly, too.
#[test]
fn gfx10_kernels_assembled_with_llvm19_run_exactly() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let mut failures = Vec::new();
    for target in ["gfx1010", "gfx1030"] {
        for case in cases::catalogue_for(t(target)) {
            let image = build(&tc, target, case.kernel, &scratch.path().join(target));
            let r = run(t(target), &case, &image, LANES, 0x10_1e19);
            if !r.passed() || r.tally.lanes_checked != LANES {
                failures.push(format!(
                    "seed 0x101e19 on emulated {target}: {}",
                    describe(&r)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The catalogue's programs with src1 and src2 of every op swapped: a model
/// of (a ^ c) + b, which the gfx10 kernels must fail.
static SWAPPED: std::sync::OnceLock<&'static Program> = std::sync::OnceLock::new();

fn swapped_model(d: &LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
    model::run(SWAPPED.get().expect("set"), d, lanes, out)
}

/// Negative control on the catalogue path: `vgpr_w64` checked against a
/// model with src1 and src2 swapped fails on (nearly) every lane, on gfx1030.
#[test]
fn a_wrong_model_fails_against_a_gfx10_kernel() {
    let case = cases::catalogue_for(t("gfx1030"))
        .into_iter()
        .find(|c| c.name == "vgpr_w64")
        .expect("vgpr_w64");
    SWAPPED.get_or_init(|| {
        let p = cases::program(case.name).expect("table-built case");
        let ops: Vec<_> = p
            .ops
            .iter()
            .map(|op| {
                let mut op = *op;
                op.src.swap(1, 2);
                op
            })
            .collect();
        Box::leak(Box::new(Program {
            ops: Box::leak(ops.into_boxed_slice()),
            ..*p
        }))
    });
    let wrong = Case {
        model: swapped_model,
        ..case
    };
    let r = run(
        t("gfx1030"),
        &wrong,
        &embedded("gfx1030", case.kernel),
        LANES,
        9,
    );
    assert_eq!(r.status(), Status::Fail, "seed 9: {}", describe(&r));
    assert!(
        r.tally.lanes_failed > LANES * 9 / 10,
        "seed 9: {}",
        describe(&r)
    );
}

/// Run `case` with the code object built for `built_for` on an emulated `device`.
fn run_on_emulator(
    case: &Case,
    built_for: &str,
    device: &str,
    lanes: u64,
    seed: u64,
) -> CaseResult {
    let embedded = embedded::find(built_for, case.kernel).unwrap_or_else(|| {
        panic!(
            "{}: {} not embedded for {built_for}",
            case.name, case.kernel
        )
    });
    // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
    let bytes = embedded.bytes.to_vec();
    let code = CodeObject::parse(&bytes)
        .unwrap_or_else(|e| panic!("{} for {built_for}: {e}", case.kernel));
    let kernel = code
        .kernel(case.kernel)
        .unwrap_or_else(|e| panic!("{} for {built_for}: {e}", case.kernel))
        .clone();
    let opts = Options {
        lanes,
        seed,
        timeout: Duration::from_secs(120),
        keep: 4,
        ..Options::default()
    };
    let source = KernelSource::Embedded {
        source: embedded.source.to_string(),
    };
    let device = target::find(device).unwrap_or_else(|| panic!("no target {device}"));
    run_case(
        &mut EmuDevice::for_target(device),
        case,
        &code,
        &kernel,
        source,
        &opts,
    )
}

/// Every case `built_for` has passes with that target's code objects on each
/// emulated device: 1013 lanes leave partial waves and a partial workgroup.
fn every_case_passes(built_for: &str, devices: &[&str]) {
    let t = target::find(built_for).expect("target");
    let mut failures = Vec::new();
    let mut runs = 0;
    for device in devices {
        for case in cases::catalogue_for(t) {
            let seed = 0x5eed_1200 ^ runs;
            let r = run_on_emulator(&case, built_for, device, 1013, seed);
            if !r.passed()
                || r.tally.lanes_checked != 1013
                || r.executor != format!("emulated {device}")
            {
                failures.push(format!(
                    "{} built for {built_for} on emulated {device}, seed {seed:#x}: {:?}, {} lanes failed, error {:?}, executor {:?}",
                    case.name,
                    r.status(),
                    r.tally.lanes_failed,
                    r.error,
                    r.executor
                ));
            }
            runs += 1;
        }
    }
    assert!(runs >= 30 * devices.len() as u64, "only {runs} runs");
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_gfx1201_case_passes_on_the_emulated_gfx1201() {
    every_case_passes("gfx1201", &["gfx1201"]);
}

#[test]
fn every_gfx1200_case_passes_on_the_emulated_gfx1200() {
    every_case_passes("gfx1200", &["gfx1200"]);
}

/// The generic build on both processors it covers. `run_case` refuses a
/// generic code object on this branch; main's `TargetId::runs_on` accepts one
/// for the processors its target covers.
#[test]
fn every_gfx12_generic_case_passes_on_both_gfx12_processors() {
    every_case_passes("gfx12-generic", &["gfx1200", "gfx1201"]);
}
