//! The report's step of a run: what execution returned ([`Executed`])
//! folded into the [`RunReport`]. A case that ran is its result; one that did
//! not is a result that says why (not supported there, skipped after a
//! watchdog timeout) or, after a signal, a name in the interruption's record;
//! each device's time, and the stop a timeout forces, join the report too.

use super::execute::{Executed, Outcome, Why};
use crate::error::{Error, RunError};
use crate::pipeline::run::{CaseResult, NotRun, Options};
use crate::platform::device::DeviceError;
use crate::report::{Interrupted, RunReport};

/// Why a case after a watchdog timeout did not run.
const SKIPPED_AFTER_TIMEOUT: &str =
    "not run: an earlier kernel on this device missed its watchdog and may still be running";

/// Fold `executed` (run with `opts`) into `report`, in its order; returns
/// the error that stopped execution, if one did (the caller decides what it
/// means for the run).
pub fn fold(report: &mut RunReport, executed: Executed, opts: &Options) -> Option<Error> {
    let Executed {
        cases,
        seconds,
        stops,
        failed,
    } = executed;
    // A signal names the unstarted cases of the targets it stopped bare,
    // first, then those of targets that never started as `case (target)`.
    let (mut inside, mut not_started) = (Vec::new(), Vec::new());
    let mut ran = 0;
    for outcome in cases {
        let unrun = match outcome {
            Outcome::Ran(result) => {
                ran += 1;
                if matches!(result.error, Some(DeviceError::Timeout(_))) {
                    timed_out(report, &result.device);
                }
                report.cases.push(result);
                continue;
            }
            Outcome::NotRun(unrun) => unrun,
        };
        let reason = match unrun.why {
            Why::NotSupported(why) => NotRun::NotSupported(why),
            Why::AfterTimeout => NotRun::Skipped(SKIPPED_AFTER_TIMEOUT.into()),
            Why::Interrupted => {
                inside.push(unrun.case.name.to_string());
                continue;
            }
            Why::TargetNotStarted => {
                not_started.push(format!("{} ({})", unrun.case.name, unrun.target));
                continue;
            }
        };
        report.cases.push(CaseResult::not_run(
            &unrun.case,
            &unrun.target,
            &unrun.device,
            &unrun.executor,
            opts,
            reason,
        ));
    }
    for (id, s) in seconds {
        if let Some(d) = report.devices.iter_mut().find(|d| d.id == id) {
            d.seconds = s;
        }
    }
    if let Some(first) = stops.first() {
        let mut interrupted = Interrupted::new(first.signal);
        let cut: Vec<_> = stops.iter().filter_map(|s| s.cut_short.clone()).collect();
        interrupted.cases_completed = ran - cut.len();
        interrupted.cut_short = cut.into_iter().next();
        interrupted.not_run = inside.into_iter().chain(not_started).collect();
        report.interrupted = Some(interrupted);
    }
    failed
}

/// A kernel on `device` missed its watchdog: the run stops that device,
/// and says so.
fn timed_out(report: &mut RunReport, device: &str) {
    report.error.get_or_insert(RunError::StoppedAfterTimeout);
    if let Some(d) = report.devices.iter_mut().find(|d| d.id == device) {
        d.error = Some(RunError::StoppedAfterTimeout.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::run::execute::{Stop, Unrun};
    use crate::model::cases;
    use crate::pipeline::interrupt::Signal;
    use crate::pipeline::run::Status;
    use crate::report::DeviceRun;
    use std::time::Duration;

    fn case(name: &str) -> cases::Case {
        cases::select(name).unwrap().remove(0)
    }

    fn unrun(name: &str, target: &str, device: &str, why: Why) -> Outcome {
        Outcome::NotRun(Unrun {
            case: case(name),
            target: target.into(),
            device: device.into(),
            executor: "emulated gfx1100".into(),
            why,
        })
    }

    /// A result that ran to its end on `device`, or timed out there.
    fn ran(name: &str, device: &str, opts: &Options, timeout: bool) -> Outcome {
        let mut r = CaseResult::not_run(
            &case(name),
            "gfx1100",
            device,
            "e",
            opts,
            NotRun::Skipped(String::new()),
        );
        r.not_run = None;
        r.tally.lanes_checked = r.lanes;
        if timeout {
            r.error = Some(DeviceError::Timeout(Duration::from_secs(1)));
        }
        Outcome::Ran(r)
    }

    fn device(id: &str) -> DeviceRun {
        DeviceRun {
            id: id.into(),
            executor: "e".into(),
            identity: crate::platform::backend::Identity::Unrecorded,
            targets: Vec::new(),
            notes: Vec::new(),
            error: None,
            seconds: 0.0,
        }
    }

    /// Each reason lands where the report shows it: not supported and after a
    /// timeout as results, interrupted bare and target-not-started as
    /// `case (target)` in the record, the bare ones first whatever the device
    /// order; a timeout stops its device and the run.
    #[test]
    fn each_reason_lands_in_its_place() {
        let opts = Options {
            lanes: 64,
            seed: 9,
            ..Options::default()
        };
        let mut report = RunReport::new(9, 64);
        report.devices = vec![device("hip:0"), device("hip:1")];
        let executed = Executed {
            cases: vec![
                ran("basic", "hip:0", &opts, false),
                unrun(
                    "vgpr_w32",
                    "gfx1100",
                    "hip:0",
                    Why::NotSupported("lacks".into()),
                ),
                unrun("basic", "gfx1030", "hip:0", Why::TargetNotStarted),
                ran("basic", "hip:1", &opts, true),
                unrun("vgpr_w32", "gfx1100", "hip:1", Why::AfterTimeout),
                unrun("literal_w32", "gfx1100", "hip:1", Why::Interrupted),
            ],
            seconds: vec![("hip:1".into(), 2.5)],
            stops: vec![Stop {
                signal: Signal::Int,
                cut_short: None,
            }],
            failed: None,
        };
        assert!(fold(&mut report, executed, &opts).is_none());
        let statuses: Vec<Status> = report.cases[1..].iter().map(|r| r.status()).collect();
        assert_eq!(
            statuses,
            [Status::NotSupported, Status::Timeout, Status::Skipped]
        );
        assert!(
            report.cases[0].not_run.is_none(),
            "what ran is its own result"
        );
        assert_eq!(report.cases[3].device, "hip:1");
        let interrupted = report.interrupted.expect("a stop is an interruption");
        assert_eq!(interrupted.not_run, ["literal_w32", "basic (gfx1030)"]);
        assert_eq!(interrupted.cases_completed, 2);
        assert!(matches!(report.error, Some(RunError::StoppedAfterTimeout)));
        assert_eq!(report.devices[0].error, None);
        assert!(report.devices[1].error.is_some());
        assert_eq!(report.devices[1].seconds, 2.5);
    }

    /// No stop, no interruption: the fold does not make one up.
    #[test]
    fn no_stop_no_interruption() {
        let opts = Options::default();
        let mut report = RunReport::new(0, opts.lanes);
        let executed = Executed {
            cases: vec![ran("basic", "emulator:gfx1100", &opts, false)],
            ..Executed::default()
        };
        assert!(fold(&mut report, executed, &opts).is_none());
        assert!(report.interrupted.is_none() && report.error.is_none());
        assert_eq!(report.cases.len(), 1);
    }
}
