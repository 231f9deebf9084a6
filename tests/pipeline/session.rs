//! The run loop of `xad-harness run` (`execute::run_cases`) over a fake device
//! that fails on request: the stop-after-timeout rule follows the error's type
//! (never its text), release failures reach the report, and the exit code is
//! chosen from types.

use crate::common::HostMemory;

use std::time::Duration;

use xad_harness::commands::run::execute::{self, Progress};
use xad_harness::commands::run::plan::Planned;
use xad_harness::error::{exit, RunError};
use xad_harness::model::cases::{self, Case};
use xad_harness::pipeline::interrupt::{Interrupt, Signal};
use xad_harness::pipeline::run::{Options, Status};
use xad_harness::platform::device::*;
use xad_harness::report::{self, RunReport};

/// Host memory standing in for a device; its "kernel" is the basic case's
/// model, so every case here is `basic`.
struct Fake {
    mem: HostMemory,
    launches: usize,
    /// The 1-based launch that returns this error instead of running.
    fail_launch: Option<(usize, DeviceError)>,
    /// Every `free` fails (after releasing the memory, as a runtime might).
    fail_free: bool,
    /// Launches store nothing (every lane stays poisoned: a mismatch).
    store_nothing: bool,
    /// The 1-based launch during which this signal "arrives" (the launch
    /// itself completes, as a dispatch in flight does).
    signal_at: Option<(usize, Interrupt, Signal)>,
}

impl Fake {
    fn new() -> Fake {
        Fake {
            mem: HostMemory::default(),
            launches: 0,
            fail_launch: None,
            fail_free: false,
            store_nothing: false,
            signal_at: None,
        }
    }
}

impl Device for Fake {
    fn executor(&self) -> Executor {
        Executor::Emulated {
            arch: "gfx1100 (session test fake)".into(),
        }
    }
    fn arch_name(&self) -> String {
        "gfx1100".into()
    }
    fn memory_bytes(&self) -> u64 {
        1 << 30
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        Ok(self.mem.alloc(bytes))
    }
    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.mem.free(ptr);
        if self.fail_free {
            return Err(DeviceError::Runtime {
                call: "hipFree".into(),
                code: 999,
                name: "hipErrorUnknown".into(),
                description: "injected".into(),
            });
        }
        Ok(())
    }
    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        self.mem.write(dst, src);
        Ok(())
    }
    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        self.mem.read(src, dst);
        Ok(())
    }
    fn load(&mut self, _image: &[u8]) -> Result<ModuleId, DeviceError> {
        Ok(ModuleId(0))
    }
    fn launch(
        &mut self,
        _m: ModuleId,
        _k: &str,
        kernarg: &[u8],
        _d: Dispatch,
        _t: Duration,
    ) -> Result<(), DeviceError> {
        self.launches += 1;
        if let Some((n, flag, signal)) = &self.signal_at {
            if *n == self.launches {
                flag.request(*signal);
            }
        }
        if let Some((n, e)) = &self.fail_launch {
            if *n == self.launches {
                return Err(e.clone());
            }
        }
        if self.store_nothing {
            return Ok(());
        }
        let ptr = |i: usize| u64::from_le_bytes(kernarg[i * 8..i * 8 + 8].try_into().unwrap());
        let count = u32::from_le_bytes(kernarg[32..36].try_into().unwrap()) as u64;
        for lane in 0..count {
            let [a, b, c] = [0, 1, 2].map(|i| self.mem.words(ptr(i) + 4 * lane, 1)[0]);
            self.mem
                .write(ptr(3) + 4 * lane, &cases::xad(a, b, c).to_le_bytes());
        }
        Ok(())
    }
}

fn basic_times(n: usize) -> Vec<Case> {
    let basic = cases::select("basic").unwrap().remove(0);
    vec![basic; n]
}

/// Run `cases` on `dev` as `xad-harness run` does; returns the report and the
/// lines printed for each progress step.
fn run_on(dev: &mut Fake, cases: &[Case]) -> (RunReport, Vec<String>) {
    run_with(
        dev,
        cases,
        Options {
            lanes: 512,
            seed: 3,
            ..Options::default()
        },
    )
}

/// Run `cases` on `dev` with `opts`, as `run_on` does.
fn run_with(dev: &mut Fake, cases: &[Case], opts: Options) -> (RunReport, Vec<String>) {
    let mut report = RunReport::new(opts.seed, opts.lanes);
    let mut printed = Vec::new();
    let gfx1100 = xad_harness::platform::target::find("gfx1100").unwrap();
    let planned: Vec<Planned> = cases
        .iter()
        .map(|c| Planned::new(c.clone(), gfx1100))
        .collect();
    execute::run_cases(
        dev,
        "emulator:gfx1100",
        &planned,
        None,
        &opts,
        &mut report,
        &mut |step: Progress<'_>| printed.extend(step.lines(Default::default())),
    )
    .expect("the loop itself does not fail");
    (report, printed)
}

#[test]
fn a_typed_timeout_stops_the_run_and_is_a_fault() {
    let mut dev = Fake::new();
    dev.fail_launch = Some((2, DeviceError::Timeout(Duration::from_millis(1500))));
    let (report, printed) = run_on(&mut dev, &basic_times(4));
    assert_eq!(
        dev.launches, 2,
        "no case after the timed-out one was launched"
    );
    assert_eq!(report.cases.len(), 4, "every case has a result");
    assert_eq!(report.cases[0].status(), Status::Pass);
    assert_eq!(report.cases[1].status(), Status::Timeout);
    assert_eq!(
        (report.cases[2].status(), report.cases[3].status()),
        (Status::Skipped, Status::Skipped),
        "later cases are not run"
    );
    assert_eq!(report.cases[2].tally.lanes_checked, 0);
    assert!(
        matches!(report.cases[1].error, Some(DeviceError::Timeout(t)) if t == Duration::from_millis(1500)),
        "{:?}",
        report.cases[1].error
    );
    assert!(
        matches!(report.error, Some(RunError::StoppedAfterTimeout)),
        "{:?}",
        report.error
    );
    assert_eq!(report.exit_code(), exit::FAULT);
    // Lines appear per case as each completes: two status lines, the second with its error.
    assert_eq!(
        printed
            .iter()
            .filter(|l| l.starts_with("PASS ") || l.starts_with("TIMEOUT "))
            .count(),
        2,
        "{printed:#?}"
    );
    // The reports carry the errors' text, as before.
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["error"], "stopped after a watchdog timeout");
    assert_eq!(
        json["devices"][0]["cases"][1]["error"],
        DeviceError::Timeout(Duration::from_millis(1500)).to_string()
    );
    assert!(json["devices"][0]["cases"][0]["error"].is_null());
    assert!(
        json.get("release_errors").is_none(),
        "no release errors, no field: {json}"
    );
}

/// Negative control: an error that merely mentions the watchdog is not a
/// timeout, so the run goes on.
#[test]
fn an_error_mentioning_the_watchdog_is_not_a_timeout() {
    let mut dev = Fake::new();
    let lookalike = DeviceError::Runtime {
        call: "hipModuleLaunchKernel".into(),
        code: 719,
        name: "hipErrorLaunchFailure".into(),
        description: "kernel did not complete within 1s (watchdog; raise it with --timeout)".into(),
    };
    dev.fail_launch = Some((2, lookalike.clone()));
    let (report, _) = run_on(&mut dev, &basic_times(3));
    assert_eq!(report.cases.len(), 3, "every case ran");
    assert!(
        matches!(
            &report.cases[1].error,
            Some(DeviceError::Runtime { code: 719, .. })
        ),
        "{:?}",
        report.cases[1].error
    );
    assert_eq!(
        report.cases[1].error.as_ref().map(ToString::to_string),
        Some(lookalike.to_string())
    );
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(
        report.exit_code(),
        exit::FAULT,
        "a case error is still a fault"
    );
}

#[test]
fn release_failures_reach_the_report_and_make_a_passing_run_a_fault() {
    let mut dev = Fake::new();
    dev.fail_free = true;
    let (report, printed) = run_on(&mut dev, &basic_times(2));
    assert_eq!(report.count(Status::Pass), 2, "the lanes themselves passed");
    for case in &report.cases {
        // a, b, c and out, each freed once at the end of the case.
        assert_eq!(case.release_errors.len(), 4, "{:?}", case.release_errors);
        assert_eq!(case.release_errors[0].what, "a device buffer");
        assert_eq!(
            case.release_errors[0].source.to_string(),
            "hipFree failed: hipErrorUnknown (999): injected"
        );
    }
    assert_eq!(report.exit_code(), exit::FAULT);
    let text = printed.join("\n");
    assert!(
        text.contains(
            "  error: releasing a device buffer: hipFree failed: hipErrorUnknown (999): injected"
        ),
        "{text}"
    );
    assert!(
        report::summary_line(&report).starts_with("2 passed, 0 failed, 8 release errors ["),
        "{}",
        report::summary_line(&report)
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let listed = json["devices"][0]["cases"][0]["release_errors"]
        .as_array()
        .expect("release_errors in the JSON");
    assert_eq!(listed.len(), 4);
    assert_eq!(
        listed[0],
        "releasing a device buffer: hipFree failed: hipErrorUnknown (999): injected"
    );
    let junit = report::to_junit(&report);
    assert!(
        junit.contains("releasing a device buffer: hipFree failed"),
        "{junit}"
    );
}

#[test]
fn a_wrong_lane_outranks_a_release_failure() {
    let mut dev = Fake::new();
    dev.fail_free = true;
    dev.store_nothing = true;
    let (report, _) = run_on(&mut dev, &basic_times(1));
    assert_eq!(report.cases[0].status(), Status::Fail);
    assert!(!report.cases[0].release_errors.is_empty());
    assert_eq!(report.exit_code(), exit::MISMATCH);
}

#[test]
fn a_clean_run_passes() {
    let (report, printed) = run_on(&mut Fake::new(), &basic_times(2));
    assert_eq!(report.exit_code(), exit::PASS, "{printed:#?}");
    assert!(report.error.is_none() && report.all_release_errors().next().is_none());
}

/// Four dispatches of 16384 lanes per case, with `flag` as the stop request.
fn run_chunked(dev: &mut Fake, cases: &[Case], flag: &Interrupt) -> (RunReport, Vec<String>) {
    run_with(
        dev,
        cases,
        Options {
            lanes: 4 << 14,
            seed: 3,
            chunk_lanes: 1 << 14,
            interrupt: flag.clone(),
            ..Options::default()
        },
    )
}

#[test]
fn a_signal_during_a_dispatch_stops_the_case_at_the_next_boundary() {
    let flag = Interrupt::default();
    let mut dev = Fake::new();
    dev.signal_at = Some((6, flag.clone(), Signal::Int)); // case 2, its second dispatch
    let (report, printed) = run_chunked(&mut dev, &basic_times(3), &flag);
    assert_eq!(dev.launches, 6, "no dispatch after the one in flight");
    assert_eq!(report.cases.len(), 2);
    assert_eq!(
        report.cases[1].tally.lanes_checked,
        2 << 14,
        "the in-flight dispatch is checked, the rest never launched"
    );
    let marker = report.interrupted.as_ref().expect("marked interrupted");
    assert_eq!(
        (marker.signal, marker.cases_completed, marker.not_run.len()),
        (Signal::Int, 1, 1)
    );
    let cut = marker.cut_short.as_ref().expect("case 2 was cut short");
    assert_eq!(
        (cut.case.as_str(), cut.lanes_checked, cut.lanes),
        ("basic", 2 << 14, 4 << 14)
    );
    assert_eq!(report.exit_code(), 130);
    assert!(printed.iter().any(|l| l.starts_with("interrupted by SIGINT: 1 case(s) completed, basic stopped after 32768 of 65536 lanes, 1 not run")), "{printed:#?}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["interrupted"]["signal"], "SIGINT");
    assert_eq!(json["interrupted"]["cut_short"]["lanes_checked"], 2 << 14);
    let summary = report::summary_line(&report);
    assert!(
        summary.starts_with("1 passed, 0 failed, 1 cut short, interrupted by SIGINT ["),
        "{summary}"
    );
}

#[test]
fn a_signal_in_a_case_last_dispatch_stops_between_cases() {
    let flag = Interrupt::default();
    let mut dev = Fake::new();
    dev.signal_at = Some((4, flag.clone(), Signal::Term)); // the last dispatch of case 1
    let (report, _) = run_chunked(&mut dev, &basic_times(3), &flag);
    assert_eq!(dev.launches, 4);
    let marker = report.interrupted.as_ref().expect("marked interrupted");
    assert_eq!(marker.cut_short, None, "case 1 finished all its lanes");
    assert_eq!((marker.cases_completed, marker.not_run.len()), (1, 2));
    assert_eq!(report.cases[0].status(), Status::Pass);
    assert_eq!(report.exit_code(), 143);
    let junit = report::to_junit(&report);
    assert_eq!(
        junit.matches("not run: interrupted by SIGTERM").count(),
        2,
        "{junit}"
    );
}

/// A signal outranks a mismatch found before it: the run is incomplete.
#[test]
fn a_signal_outranks_a_mismatch_but_the_mismatch_stays_reported() {
    let flag = Interrupt::default();
    let mut dev = Fake::new();
    dev.store_nothing = true;
    dev.signal_at = Some((1, flag.clone(), Signal::Int));
    let (report, _) = run_chunked(&mut dev, &basic_times(2), &flag);
    assert_eq!(report.cases[0].status(), Status::Fail);
    assert_eq!(report.exit_code(), 130);
    assert!(
        report::summary_line(&report).starts_with("0 passed, 1 failed, interrupted by SIGINT"),
        "{}",
        report::summary_line(&report)
    );
}

/// Negative control: a flag nobody sets changes nothing.
#[test]
fn an_unset_flag_runs_every_dispatch() {
    let flag = Interrupt::default();
    let mut dev = Fake::new();
    let (report, _) = run_chunked(&mut dev, &basic_times(2), &flag);
    assert_eq!(dev.launches, 8);
    assert!(report.interrupted.is_none());
    assert_eq!(report.exit_code(), exit::PASS);
}
