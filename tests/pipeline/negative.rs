//! Negative controls through the library on the emulator: the gfx12 wrong kernels (edits of
//! `kernels/include/xad_basic_gfx12.s`, tests/common/negative.rs) assembled and run as the
//! basic case on `EmuDevice::for_target(gfx1201)` must fail on exactly the lanes the inputs
//! imply. The same controls through the binary, and the gfx11 ones, are the `cli` crate's
//! `negative`.

use crate::common::negative::*;
use crate::common::*;

/// Library API: assemble `source` for gfx1201 and run it as the basic case on
/// `EmuDevice::for_target(gfx1201)`.
fn run_gfx12_on_library(name: &str, source: &str) -> xad_harness::pipeline::run::CaseResult {
    use xad_harness::pipeline::run::{run_case, KernelSource, Options};
    let dir = scratch(&format!("neg12-lib-{name}"));
    let path = assemble(source, GFX12, &dir, name);
    let bytes = std::fs::read(&path).unwrap();
    let code = xad_harness::platform::codeobj::CodeObject::parse(&bytes)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let kernel = code
        .kernel("xad_basic")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .clone();
    let case = xad_harness::model::cases::catalogue()
        .into_iter()
        .find(|c| c.name == "basic")
        .expect("basic case");
    let device = xad_harness::platform::target::find(GFX12).expect("gfx1201 target");
    let opts = Options {
        lanes: LANES as u64,
        seed: SEED,
        ..Options::default()
    };
    let source = KernelSource::User {
        path: path.display().to_string(),
    };
    run_case(
        &mut xad_harness::platform::emu::EmuDevice::for_target(device),
        &case,
        &code,
        &kernel,
        source,
        &opts,
    )
}

#[test]
fn gfx12_wrong_kernels_fail_lane_for_lane_through_the_library() {
    use xad_harness::pipeline::run::Status;
    let r = run_gfx12_on_library("unedited", &gfx12_variant(XAD_LINE, XAD_LINE));
    assert_eq!(
        r.status(),
        Status::Pass,
        "the unedited gfx12 kernel must pass (seed {SEED}): {:?}",
        r.error
    );
    assert_eq!(
        (r.executor.as_str(), r.tally.lanes_checked),
        ("emulated gfx1201", LANES as u64)
    );
    for (name, edit, wrong) in GFX12_WRONG {
        let want = lanes_differing(wrong);
        assert!(
            want > LANES as u64 / 2,
            "{name}: the inputs should expose it on most lanes (seed {SEED})"
        );
        let r = run_gfx12_on_library(name, &gfx12_variant(XAD_LINE, edit));
        assert_eq!(
            r.status(),
            Status::Fail,
            "{name} on gfx1201 must fail (seed {SEED}): {:?}",
            r.error
        );
        assert_eq!(
            (r.tally.lanes_failed, r.tally.lanes_unwritten),
            (want, 0),
            "{name}, seed {SEED}"
        );
    }
}
