//! The emulator lends the pipeline its memory (`Device::host_words`), so
//! inputs are generated and outputs checked in place; every other device is
//! copied to and from. Both ways must give the same result to the lane: the
//! same counts and the same failure records, whose inputs are the lane's own.

use crate::common::Through;
use xad_harness::model::cases::{self, Case, LaneData};
use xad_harness::model::inputs;
use xad_harness::pipeline::run::{self, CaseResult, Options, Status};
use xad_harness::platform::device::*;
use xad_harness::platform::emu::EmuDevice;

const SEED: u64 = 0x600d;

/// Several chunks and a short last one.
fn opts() -> Options {
    Options {
        lanes: 3 * 65536 + 1000,
        seed: SEED,
        chunk_lanes: 1 << 16,
        keep: 40,
        ..Options::default()
    }
}

fn run_both(case: &Case) -> (CaseResult, CaseResult) {
    let loaded = run::embedded(
        case,
        xad_harness::platform::target::find("gfx1100").unwrap(),
    )
    .unwrap();
    let k = run::kernel_for(&loaded, case).unwrap();
    let mut direct = EmuDevice::new();
    let a = run::run_case(
        &mut direct,
        case,
        &loaded.code,
        k,
        loaded.source.clone(),
        &opts(),
    );
    // The emulator with its host views hidden: the pipeline must copy.
    let mut copying = Through(EmuDevice::new(), |dev, m, k, arg, d, t| {
        dev.launch(m, k, arg, d, t)
    });
    let b = run::run_case(
        &mut copying,
        case,
        &loaded.code,
        k,
        loaded.source.clone(),
        &opts(),
    );
    (a, b)
}

/// A model of the wrong function (add3), so the correct kernel fails on most
/// lanes and the records show what the pipeline read back.
fn add3_model(data: &LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
    for (o, i) in out.iter_mut().zip(lanes) {
        *o = data.a[i].wrapping_add(data.b[i]).wrapping_add(data.c[i]);
    }
}

#[test]
fn in_place_and_copied_runs_agree_on_failures() {
    let case = Case {
        model: add3_model,
        ..cases::select("basic").unwrap().remove(0)
    };
    let (direct, copied) = run_both(&case);
    assert_eq!(
        direct.status(),
        Status::Fail,
        "seed {SEED}: {:?}",
        direct.error
    );
    assert!(
        direct.tally.lanes_failed > opts().lanes / 2,
        "seed {SEED}: {:?}",
        direct.tally
    );
    assert_eq!(direct.tally, copied.tally, "seed {SEED}");
    assert_eq!(direct.tally.first.len(), 40);
    for m in &direct.tally.first {
        assert_eq!(
            (m.a, m.b, m.c),
            inputs::lane_sources(SEED, m.lane),
            "seed {SEED} lane {}",
            m.lane
        );
        assert_eq!(
            m.got,
            cases::xad(m.a, m.b, m.c),
            "seed {SEED} lane {}",
            m.lane
        );
        assert_eq!(
            m.expected,
            m.a.wrapping_add(m.b).wrapping_add(m.c),
            "seed {SEED} lane {}",
            m.lane
        );
    }
}

#[test]
fn in_place_and_copied_runs_agree_on_passing_cases() {
    // exec_w32 keeps some lanes (prefill); dpp16_shift_w32 has many outputs per lane.
    for name in ["basic", "exec_w32", "dpp16_shift_w32"] {
        let case = cases::select(name).unwrap().remove(0);
        let (direct, copied) = run_both(&case);
        assert_eq!(
            direct.status(),
            Status::Pass,
            "{name} seed {SEED}: {:?} {:?}",
            direct.error,
            direct.tally.first.first()
        );
        assert_eq!(direct.tally, copied.tally, "{name} seed {SEED}");
        assert_eq!(direct.tally.lanes_checked, opts().lanes, "{name}");
    }
}
