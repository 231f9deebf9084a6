//! Every catalogue case passes on the embedded emulator, over lane counts that
//! leave partial waves and workgroups, and the comparison is able to fail:
//! deliberately wrong models (a DPP rule reversed, bound_ctrl ignored, an
//! inline float constant read as its integer value) are reported as failing.

use std::sync::OnceLock;
use std::time::Duration;

use crate::common::describe;

use xad_harness::model::cases::op_table::{int, Dpp, Op, Program, Src};
use xad_harness::model::cases::{self, catalogue, catalogue_for, model, Case, LaneData};
use xad_harness::pipeline::run::{run_case, CaseResult, KernelSource, Options, Status};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::embedded;
use xad_harness::platform::emu::EmuDevice;

fn run(case: &Case, lanes: u64, seed: u64) -> CaseResult {
    let embedded = embedded::find("gfx1100", case.kernel)
        .unwrap_or_else(|| panic!("{}: kernel {} not embedded", case.name, case.kernel));
    // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
    #[allow(clippy::unnecessary_to_owned)]
    let code = CodeObject::parse(&embedded.bytes.to_vec())
        .unwrap_or_else(|e| panic!("{}: {e}", case.kernel));
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
    let source = KernelSource::Embedded {
        source: embedded.source.to_string(),
    };
    run_case(&mut EmuDevice::new(), case, &code, &kernel, source, &opts)
}

/// 1000 + 13 lanes: the last wave of each size and the last workgroup are
/// partial; the first 729 lanes are the edge-value cross product.
const LANES: u64 = 1013;

#[test]
fn every_case_passes_on_the_emulator() {
    let mut failures = Vec::new();
    // gfx1100's cases (the DPP scalar-src1 forms are not: tests/isa/cases_dpp_src1.rs).
    for case in catalogue_for(xad_harness::platform::target::find("gfx1100").expect("gfx1100")) {
        for seed in [1u64, 0x5eed_0000_0000_0002] {
            let r = run(&case, LANES, seed);
            if !r.passed() || r.tally.lanes_checked != LANES {
                failures.push(format!("seed {seed:#x}: {}", describe(&r)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Counts at wave and workgroup boundaries and below one wave.
#[test]
fn boundary_lane_counts() {
    let names = [
        "sreg_w64",
        "exec_w32",
        "dpp16_shift_w32",
        "dpp16_inactive_w64",
        "dpp8_w64",
        "chain_w64",
    ];
    for case in catalogue().into_iter().filter(|c| names.contains(&c.name)) {
        for lanes in [1u64, 31, 33, 63, 64, 65, 255, 257] {
            let r = run(&case, lanes, 7);
            assert_eq!(
                r.status(),
                Status::Pass,
                "lanes {lanes}, seed 7: {}",
                describe(&r)
            );
        }
    }
}

fn case(name: &str) -> Case {
    catalogue()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// `program` with each op passed through `edit`, leaked for a `'static` model.
fn mutated(name: &str, edit: impl Fn(&mut Op)) -> &'static Program {
    let p = cases::program(name).expect("table-built case");
    let mut ops = p.ops.to_vec();
    ops.iter_mut().for_each(edit);
    Box::leak(Box::new(Program {
        ops: Box::leak(ops.into_boxed_slice()),
        ..*p
    }))
}

static SHL_AS_SHR: OnceLock<&'static Program> = OnceLock::new();
static BC_IGNORED: OnceLock<&'static Program> = OnceLock::new();
static FLOAT_AS_INT: OnceLock<&'static Program> = OnceLock::new();

fn shl_as_shr(d: &LaneData<'_>, l: std::ops::Range<usize>, o: &mut [u32]) {
    model::run(SHL_AS_SHR.get().expect("set"), d, l, o)
}
fn bc_ignored(d: &LaneData<'_>, l: std::ops::Range<usize>, o: &mut [u32]) {
    model::run(BC_IGNORED.get().expect("set"), d, l, o)
}
fn float_as_int(d: &LaneData<'_>, l: std::ops::Range<usize>, o: &mut [u32]) {
    model::run(FLOAT_AS_INT.get().expect("set"), d, l, o)
}

/// A model that swaps row_shl and row_shr fails against the kernel.
#[test]
fn negative_control_dpp_direction() {
    SHL_AS_SHR.get_or_init(|| {
        mutated("dpp16_shift_w32", |op| {
            if let Dpp::Row {
                ctrl: ctrl @ 0x101..=0x11f,
                ..
            } = &mut op.dpp
            {
                *ctrl ^= 0x010; // row_shl:k <-> row_shr:k
            }
        })
    });
    let r = run(
        &Case {
            model: shl_as_shr,
            ..case("dpp16_shift_w32")
        },
        LANES,
        3,
    );
    assert_eq!(r.status(), Status::Fail, "{}", describe(&r));
    assert!(r.tally.lanes_failed > LANES / 2, "{}", describe(&r));
}

/// A model that treats bound_ctrl=0 like bound_ctrl=1 (out-of-row lanes read 0
/// instead of keeping their value) fails on exactly the edge lanes.
#[test]
fn negative_control_dpp_bound_ctrl() {
    BC_IGNORED.get_or_init(|| {
        mutated("dpp16_shift_w32", |op| {
            if let Dpp::Row { bound_ctrl, .. } = &mut op.dpp {
                *bound_ctrl = true;
            }
        })
    });
    let r = run(
        &Case {
            model: bc_ignored,
            ..case("dpp16_shift_w32")
        },
        LANES,
        4,
    );
    assert_eq!(r.status(), Status::Fail, "{}", describe(&r));
    // Every lane has some row_shl/row_shr:k with k past its row edge.
    assert_eq!(r.tally.lanes_failed, LANES, "{}", describe(&r));
    assert!(
        r.tally
            .first
            .iter()
            .all(|m| m.word < 15 || (30..45).contains(&m.word)),
        "{}",
        describe(&r)
    );
}

/// A model that reads the inline float constants as their integer values
/// (1.0 as 1, 0.5 as 0, ...) fails on exactly those words.
#[test]
fn negative_control_inline_float_as_integer() {
    FLOAT_AS_INT.get_or_init(|| {
        mutated("inline_src1_w32", |op| {
            for s in &mut op.src {
                if let Src::Inline(code @ 240..=248) = *s {
                    let as_int: i32 = [0, 0, 1, -1, 2, -2, 4, -4, 0][usize::from(code - 240)];
                    *s = int(as_int);
                }
            }
        })
    });
    let r = run(
        &Case {
            model: float_as_int,
            ..case("inline_src1_w32")
        },
        LANES,
        5,
    );
    assert_eq!(r.status(), Status::Fail, "{}", describe(&r));
    assert_eq!(r.tally.lanes_failed, LANES, "{}", describe(&r));
    assert!(
        r.tally.first.iter().all(|m| m.word >= 81),
        "only the float words differ: {}",
        describe(&r)
    );
}
