//! One `xad-harness run` invocation, in three steps: plan ([`super::plan::make`]:
//! the cases, devices and targets, each case's code object resolved once, the
//! user's `--kernel`), execute ([`super::execute::execute`]: every case of the
//! plan, in order, stopping after a watchdog timeout or a signal; it returns
//! what ran and why the rest did not), then the report: the header from the
//! plan, the outcomes folded in ([`super::fold::fold`]), the release errors
//! the device seam recorded, the report files. The exit code is the report's
//! ([`RunReport::exit_code`]), chosen in [`finish`].
//!
//! Nothing here prints: each step is handed to the caller's callback as a
//! [`Progress`] the moment it completes, with the lines the CLI prints for it.
//!
//! A SIGINT or SIGTERM ([`Request::interrupt`]) stops the run at the next
//! dispatch boundary or between cases; the report then says what completed
//! ([`RunReport::interrupted`]) and the exit code is 128 + the signal's number.

use std::path::Path;

use super::execute::{self, Progress};
use super::fold;
use super::plan::{self, Request};
use crate::error::{Error, Result, RunError};
use crate::model::inputs;
use crate::pipeline::run::Options;
use crate::platform::backend::{Runner, Unit};
use crate::report::{self, DeviceRun, Interrupted, RunReport};

/// Run what `request` asks for, calling `on_progress` after each step. The
/// returned report holds everything, including the error that stopped the
/// run (`report.error`); [`finish`] writes the report files and chooses the
/// exit code.
pub fn run(request: &Request, on_progress: &mut dyn FnMut(Progress<'_>)) -> RunReport {
    let seed = request.seed.unwrap_or_else(inputs::fresh_seed);
    let mut report = RunReport::new(seed, request.lanes);
    let outcome = run_into(request, &mut report, on_progress);
    // The device was dropped on the way out, on the error paths too: whatever
    // its modules, stream and buffers failed to release is the run's.
    report
        .release_errors
        .extend(crate::platform::device::take_unreleased());
    if let (Some(signal), None) = (request.interrupt.requested(), &report.interrupted) {
        // The signal came before the first case or after the last one.
        let mut interrupted = Interrupted::new(signal);
        interrupted.cases_completed = report.cases.iter().filter(|r| r.not_run.is_none()).count();
        on_progress(Progress::Interrupted(&interrupted));
        report.interrupted = Some(interrupted);
    }
    match outcome {
        Ok(()) => on_progress(Progress::Finished(&report)),
        Err(e) => report.error = Some(RunError::Failed(e)),
    }
    report
}

fn run_into(
    request: &Request,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    report.command = request.command.clone();
    let mut plan = plan::make(request)?;
    let selected = &plan.selected;
    report.executor = selected.describe();
    report.backend_note = (!selected.notes.is_empty()).then(|| selected.notes.join("; "));
    report.targets = selected
        .targets()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    report.devices = selected.units.iter().map(device_run).collect();
    report.other_generations = plan
        .targets
        .iter()
        .filter(|p| p.other_generations > 0)
        .map(|p| (p.target.name.to_string(), p.other_generations))
        .collect();
    if let Some(refused) = plan.refused.take() {
        return Err(refused);
    }
    on_progress(Progress::Started {
        report,
        cases: plan.results(),
    });
    let opts = options(request, report.seed);
    let executed = execute::execute(&mut plan, &opts, on_progress);
    match fold::fold(report, executed, &opts) {
        None => Ok(()),
        Some(e) => Err(e),
    }
    // `plan` drops here, releasing the devices it holds.
}

/// The settings every case of the run shares.
fn options(request: &Request, seed: u64) -> Options {
    Options {
        lanes: request.lanes,
        seed,
        timeout: request.timeout,
        keep: request.max_mismatches,
        interrupt: request.interrupt.clone(),
        dump: request.dump.clone().map(|sink| {
            std::sync::Arc::new(sink) as std::sync::Arc<dyn crate::pipeline::run::Watcher>
        }),
        lanes_done: Some(request.lanes_done.clone()),
        step_budget: request.step_budget,
        ..Options::default()
    }
}

/// The report's entry for `unit` (its error and timing are filled in when
/// it has run).
fn device_run(unit: &Unit) -> DeviceRun {
    DeviceRun {
        id: unit.id.clone(),
        executor: unit.executor.clone(),
        identity: unit.identity.clone(),
        targets: unit.targets.iter().map(|t| t.name.to_string()).collect(),
        notes: match &unit.runner {
            Runner::Unsupported(why) => vec![why.clone()],
            _ => Vec::new(),
        },
        error: None,
        seconds: 0.0,
    }
}

/// How a `run` invocation ends: the exit code (or the error that decides
/// it), and errors the caller prints although they do not decide the code: a
/// report file that could not be written after the run had already failed,
/// or the error of a run a signal interrupted.
pub struct Ending {
    pub outcome: Result<i32>,
    pub also: Vec<Error>,
}

/// The report files a run writes (`--json`, `--junit`, `--html`).
#[derive(Default)]
pub struct Outputs<'a> {
    pub json: Option<&'a Path>,
    pub junit: Option<&'a Path>,
    pub html: Option<&'a Path>,
}

/// Write the reports asked for, whatever happened, and choose the exit code
/// by the one rule ([`report::outputs::after_writing`]): a signal's code wins;
/// a report that cannot be written fails an otherwise passing run.
pub fn finish(report: RunReport, outputs: &Outputs<'_>) -> Ending {
    let written = report::outputs::write_all(
        (outputs
            .json
            .map(|path| (path, Ok(report.to_json())))
            .into_iter())
        .chain(
            outputs
                .junit
                .map(|path| (path, Ok(report::to_junit(&report)))),
        )
        .chain(outputs.html.map(|path| (path, report.to_html()))),
    );
    let (outcome, shown) = report.into_exit_code();
    let (outcome, unwritten) = report::outputs::after_writing(outcome, written);
    Ending {
        outcome,
        also: shown.into_iter().chain(unwritten).collect(),
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::interrupt::Interrupt;
    use crate::platform::backend::BackendChoice;
    use crate::platform::target::{self, Choice};
    use std::time::Duration;

    fn interrupted_before(target: Choice, cases: &str) -> Interrupted {
        let interrupt = Interrupt::default();
        interrupt.request(crate::pipeline::interrupt::Signal::Term);
        let request = Request {
            lanes: 1 << 10,
            seed: Some(5),
            devices: None,
            cases: Some(cases.into()),
            kernel: None,
            backend: BackendChoice::Emu,
            target,
            timeout: Duration::from_secs(60),
            max_mismatches: 10,
            interrupt,
            dump: None,
            command: Vec::new(),
            lanes_done: Default::default(),
            step_budget: crate::platform::emu::DEFAULT_STEP_BUDGET,
        };
        let report = run(&request, &mut |_| {});
        assert!(
            report.cases.iter().all(|r| r.not_run.is_some()),
            "nothing ran"
        );
        report.interrupted.expect("marked interrupted")
    }

    /// A signal before the first dispatch names each unstarted case once:
    /// the stopped target's bare, the others' as `case (target)` (the
    /// stopped target was once listed both ways).
    #[test]
    fn a_signal_before_the_first_dispatch_lists_each_case_once() {
        let one = interrupted_before(Choice::Device, "basic,vgpr_w32,vgpr_w64");
        assert_eq!(one.not_run, ["basic", "vgpr_w32", "vgpr_w64"]);
        let all = interrupted_before(Choice::All, "basic_w64");
        let mut names = all.not_run.clone();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.not_run.len(), "{:?}", all.not_run);
        assert_eq!(
            all.not_run.len(),
            target::TARGETS
                .iter()
                .filter(|t| t.has(target::Feature::Wave64))
                .count(),
            "{:?}",
            all.not_run
        );
        assert_eq!(all.not_run[0], "basic_w64", "{:?}", all.not_run);
    }
}
