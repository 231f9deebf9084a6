//! Executing a [`Plan`]: each device's targets in order (several HIP
//! devices at once, one thread each), each target's cases through
//! [`run::run_case`], then a `not_supported` result for each case the target
//! lacks. A watchdog timeout stops that device; a signal stops the run at the
//! next dispatch boundary or between cases. Each step reaches the caller as a
//! [`Progress`] the moment it completes.

use super::plan::{Plan, Planned, TargetPlan};
use crate::error::{Error, Result, RunError};
use crate::model::cases::Case;
use crate::pipeline::run::{self, CaseResult, Loaded, NotRun, Options, Status};
use crate::platform::backend::Unit;
use crate::platform::device::{Device, DeviceError};
use crate::platform::target::Target;
use crate::report::{self, CutShort, Interrupted, RunReport};

/// A step of the run, handed to the caller as it completes.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// The executor is chosen and `cases` cases will run.
    Started { report: &'a RunReport, cases: usize },
    /// The cases of `target` start, `cases` of them, on `executor`.
    Target {
        target: &'static Target,
        cases: usize,
        executor: &'a str,
    },
    /// One case finished (its release errors already drained into it).
    Case(&'a CaseResult),
    /// A signal stopped the run after the last `Case` step.
    Interrupted(&'a Interrupted),
    /// Every case that was going to run has run, and the device is released.
    Finished(&'a RunReport),
    /// A step of a device running in its own thread (several HIP devices
    /// run at once), with the lines it printed there.
    Relayed(&'a Relayed),
}

/// A step taken on another thread, as its lines (or, for a case, its
/// result, whose lines the view printing it chooses).
#[derive(Debug, Clone, Default)]
pub struct Relayed {
    pub lines: Vec<String>,
    pub case: Option<Box<CaseResult>>,
    pub fault_lines: Vec<String>,
    /// The step's own [`Progress::shown_when_quiet`].
    pub shown_when_quiet: bool,
}

impl Relayed {
    fn of(step: &Progress<'_>) -> Relayed {
        let case = match step {
            Progress::Case(result) => Some(Box::new((*result).clone())),
            _ => None,
        };
        Relayed {
            lines: step.lines(report::View::default()),
            case,
            fault_lines: step.fault_lines(),
            shown_when_quiet: step.shown_when_quiet(),
        }
    }
}

impl Progress<'_> {
    /// The text lines the CLI prints for this step, as much of each case as
    /// `view` shows ([`report::case_lines_in`]).
    pub fn lines(&self, view: report::View) -> Vec<String> {
        match self {
            Progress::Started { report, cases } => report::header_lines(report, *cases),
            Progress::Target {
                target,
                cases,
                executor,
            } => vec![format!(
                "target {} ({}: {}): {cases} case(s) on {executor}",
                target.name, target.architecture, target.cards
            )],
            Progress::Case(result) => report::case_lines_in(result, view),
            Progress::Relayed(r) => match &r.case {
                Some(result) => report::case_lines_in(result, view),
                None => r.lines.clone(),
            },
            Progress::Interrupted(interrupted) => vec![interrupted.line()],
            Progress::Finished(report) => {
                let mut lines = report::release_lines(report);
                lines.extend(report::target_lines(report));
                lines.extend(report::other_generations_line(report));
                lines.push(report::summary_line(report));
                lines
            }
        }
    }
}

impl Progress<'_> {
    /// Whether `--quiet` still prints this step: a case that did not pass
    /// (unsettled included; not one that was not supported), an
    /// interruption, the closing lines.
    pub fn shown_when_quiet(&self) -> bool {
        match self {
            // Unsettled did not pass either: shown (issue 42).
            Progress::Case(r) => !matches!(r.status(), Status::Pass | Status::NotSupported),
            Progress::Relayed(r) => r.shown_when_quiet,
            Progress::Interrupted(_) | Progress::Finished(_) => true,
            Progress::Started { .. } | Progress::Target { .. } => false,
        }
    }

    /// The lines for stderr, where a CI log reader looks: one
    /// `<case> [<executor>]: <what>` per fault that ends a case (the case's error, each
    /// resource it could not release) or the run. The CLI prefixes
    /// `xad-harness: `.
    pub fn fault_lines(&self) -> Vec<String> {
        match self {
            Progress::Case(result) => {
                let errors = result.error.iter().map(ToString::to_string);
                // Named by case, and by what ran it: with --target all the
                // same case runs once per target.
                let on = report::executed_on(result);
                errors
                    .chain(result.release_errors.iter().map(ToString::to_string))
                    .map(|e| format!("{} [{on}]: {e}", result.case))
                    .collect()
            }
            Progress::Relayed(r) => r.fault_lines.clone(),
            Progress::Finished(report) => {
                let stopped = report
                    .error
                    .iter()
                    .filter(|e| matches!(e, RunError::StoppedAfterTimeout))
                    .map(ToString::to_string);
                // A device that ran nothing asked (its cases not_supported):
                // one line each, where a CI log looks.
                let unsupported = report.devices.iter().flat_map(|d| {
                    d.notes
                        .iter()
                        .map(move |n| format!("{}: {n}; its cases are not_supported", d.id))
                });
                stopped
                    .chain(unsupported)
                    .chain(report.nothing_verified_line())
                    .chain(report.release_errors.iter().map(ToString::to_string))
                    .collect()
            }
            Progress::Started { .. } | Progress::Target { .. } | Progress::Interrupted(_) => {
                Vec::new()
            }
        }
    }
}

/// What every device's share of a run reads: the plan's targets, the user's
/// kernel, the run's settings.
#[derive(Clone, Copy)]
struct Work<'a> {
    targets: &'a [TargetPlan],
    user: Option<&'a Loaded>,
    opts: &'a Options,
}

/// Execute `plan` with `opts`, appending every result to `report` in device
/// order: HIP devices at once when there are several, the rest one after
/// another; after a signal, the cases of the devices and targets that never
/// started are named in `report.interrupted`.
pub fn execute(
    plan: &mut Plan,
    opts: &Options,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let Plan {
        selected,
        targets,
        user,
        ..
    } = plan;
    let work = Work {
        targets,
        user: user.as_ref(),
        opts,
    };
    let hip_units = selected.units.iter().filter(|u| u.is_hip()).count();
    if hip_units > 1 {
        run_concurrently(&mut selected.units, work, report, on_progress)?;
    } else {
        for unit in &mut selected.units {
            run_unit(unit, work, report, on_progress)?;
            if report.interrupted.is_some() {
                break;
            }
        }
    }
    list_never_started(report, &selected.units, targets);
    Ok(())
}

/// After a signal: the cases of the devices and targets that never started
/// (those of the target the signal stopped are listed already, by name).
fn list_never_started(report: &mut RunReport, units: &[Unit], plan: &[TargetPlan]) {
    let Some(interrupted) = &mut report.interrupted else {
        return;
    };
    for unit in units {
        let last = report.cases.iter().rev().find(|r| r.device == unit.id);
        for t in &unit.targets {
            let listed = interrupted
                .listed
                .iter()
                .any(|(d, name)| *d == unit.id && name == t.name);
            if listed || last.is_some_and(|r| r.target == t.name) {
                continue;
            }
            let Some(p) = plan.iter().find(|p| p.target.name == t.name) else {
                continue;
            };
            let ran = |c: &Planned| {
                report
                    .cases
                    .iter()
                    .any(|r| r.device == unit.id && r.target == t.name && r.case == c.case.name)
            };
            let later = p.runs.iter().filter(|c| !ran(c));
            interrupted
                .not_run
                .extend(later.map(|c| format!("{} ({})", c.case.name, t.name)));
        }
    }
}

/// Run every HIP device of `units` at once, one host thread each (the HIP
/// current device is per thread; each device's calls set it), and the rest
/// after them. Each thread fills a report of its own; its steps reach
/// `on_progress` as [`Progress::Relayed`] lines, in the order they happen,
/// and its cases join `report` in device order when all have finished.
fn run_concurrently(
    units: &mut [Unit],
    work: Work<'_>,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let (hip, rest): (Vec<&mut Unit>, Vec<&mut Unit>) = units.iter_mut().partition(|u| u.is_hip());
    let (seed, lanes) = (report.seed, report.lanes_per_case);
    let shards: Vec<(RunReport, Result<()>)> = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Relayed>();
        let handles: Vec<_> = hip
            .into_iter()
            .map(|unit| {
                let tx = tx.clone();
                let mut shard = RunReport::new(seed, lanes);
                shard.devices = report
                    .devices
                    .iter()
                    .filter(|d| d.id == unit.id)
                    .cloned()
                    .collect();
                scope.spawn(move || {
                    let outcome = run_unit(unit, work, &mut shard, &mut |step| {
                        let _ = tx.send(Relayed::of(&step));
                    });
                    (shard, outcome)
                })
            })
            .collect();
        drop(tx);
        relay(&rx, on_progress);
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let shard = RunReport::new(seed, lanes);
                    let e = Error::Io("a device thread panicked; its results are lost".into());
                    (shard, Err(e))
                })
            })
            .collect()
    });
    let mut first_error = None;
    for (shard, outcome) in shards {
        absorb(report, shard);
        if let Err(e) = outcome {
            first_error.get_or_insert(e);
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    for unit in rest {
        run_unit(unit, work, report, on_progress)?;
    }
    Ok(())
}

/// Hand the device threads' steps to `on_progress` until every thread has
/// hung up. The CLI's thread is worker 0 of rayon's global pool (main.rs),
/// and the device threads' input generation and checking run on that pool:
/// blocking here in `recv` would leave one worker for every device, so
/// between messages this thread runs pool jobs (`rayon::yield_now`).
fn relay(rx: &std::sync::mpsc::Receiver<Relayed>, on_progress: &mut dyn FnMut(Progress<'_>)) {
    use std::sync::mpsc::TryRecvError;
    loop {
        match rx.try_recv() {
            Ok(relayed) => on_progress(Progress::Relayed(&relayed)),
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
    }
}

/// Fold a device thread's report into the run's.
fn absorb(report: &mut RunReport, shard: RunReport) {
    for d in shard.devices {
        if let Some(mine) = report.devices.iter_mut().find(|m| m.id == d.id) {
            *mine = d;
        }
    }
    report.cases.extend(shard.cases);
    report.release_errors.extend(shard.release_errors);
    if shard.error.is_some() && report.error.is_none() {
        report.error = shard.error;
    }
    match (&mut report.interrupted, shard.interrupted) {
        (Some(mine), Some(theirs)) => {
            mine.cases_completed += theirs.cases_completed;
            mine.not_run.extend(theirs.not_run);
            mine.listed.extend(theirs.listed);
            if mine.cut_short.is_none() {
                mine.cut_short = theirs.cut_short;
            }
        }
        (mine @ None, Some(theirs)) => *mine = Some(theirs),
        _ => {}
    }
}

/// A result for each of `cases` that does not run, with its `reason`: the
/// one fold of the plan's cases that never reach a device (not supported
/// there, or skipped after a timeout); `result` makes each, on its device.
fn fold_not_run<'c>(
    report: &mut RunReport,
    cases: impl Iterator<Item = &'c Case>,
    reason: &dyn Fn(&Case) -> NotRun,
    result: &dyn Fn(&Case, NotRun) -> CaseResult,
) {
    report.cases.extend(cases.map(|c| result(c, reason(c))));
}

/// Why a case after a watchdog timeout did not run.
fn skipped_after_timeout(_: &Case) -> NotRun {
    NotRun::Skipped(SKIPPED_AFTER_TIMEOUT.into())
}

/// Whether a case from `first` on timed out and the run stops a device
/// after a timeout.
fn stopped_by_timeout(report: &RunReport, first: usize) -> bool {
    matches!(report.error, Some(RunError::StoppedAfterTimeout))
        && report.cases[first..]
            .iter()
            .any(|r| r.status() == Status::Timeout)
}

/// A device stopped after a timeout: each case of its `later` targets is
/// skipped, and the device's entry says why.
fn skip_after_timeout(
    report: &mut RunReport,
    id: &str,
    later: &[&'static Target],
    plan: &[TargetPlan],
    not_run: &dyn Fn(&Case, &Target, NotRun) -> CaseResult,
) {
    for t in later {
        let Some(p) = plan.iter().find(|p| p.target.name == t.name) else {
            continue;
        };
        let cases = p.runs.iter().map(|r| &r.case);
        fold_not_run(report, cases, &skipped_after_timeout, &|c, why| {
            not_run(c, t, why)
        });
    }
    if let Some(d) = report.devices.iter_mut().find(|d| d.id == id) {
        d.error = Some(RunError::StoppedAfterTimeout.to_string());
    }
}

/// Run one device's targets in order, appending its results to `report`:
/// the cases its target has, then one `not_supported` result for each
/// chosen case that target lacks (or for every case, on a device that runs
/// nothing asked). A timeout stops this device only.
fn run_unit(
    unit: &mut Unit,
    work: Work<'_>,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let Work {
        targets: plan,
        user,
        opts,
    } = work;
    let started = std::time::Instant::now();
    let id = unit.id.clone();
    let executor = unit.executor.clone();
    let targets = unit.targets.clone();
    let emu = crate::platform::emu::EmuOptions {
        step_budget: opts.step_budget,
        ..Default::default()
    };
    // A result on this device for a case that does not run.
    let not_run = |c: &Case, t: &Target, why: NotRun| {
        CaseResult::not_run(c, t.name, &id, &executor, opts, why)
    };
    for (i, target) in targets.iter().enumerate() {
        let Some(p) = plan.iter().find(|p| p.target.name == target.name) else {
            continue;
        };
        on_progress(Progress::Target {
            target,
            cases: p.runs.len() + p.lacks.len(),
            executor: &executor,
        });
        let first = report.cases.len();
        match unit.device_with(target, emu) {
            Some(device) => {
                let before = report.interrupted.is_some();
                run_cases(device, &id, &p.runs, user, opts, report, on_progress)?;
                if let (false, Some(interrupted)) = (before, &mut report.interrupted) {
                    interrupted
                        .listed
                        .push((id.clone(), target.name.to_string()));
                }
                let lacks = |c: &Case| {
                    let needs: Vec<&str> = c.lacks_on(target).iter().map(|f| f.name()).collect();
                    NotRun::NotSupported(format!("{} lacks {}", target.name, needs.join(", ")))
                };
                fold_not_run(report, p.lacks.iter(), &lacks, &|c, why| {
                    not_run(c, target, why)
                });
            }
            None => {
                let why = unit.why_not().to_string();
                let cases = p.runs.iter().map(|r| &r.case).chain(&p.lacks);
                let unsupported = |_: &Case| NotRun::NotSupported(why.clone());
                fold_not_run(report, cases, &unsupported, &|c, why| {
                    not_run(c, target, why)
                });
            }
        }
        for r in &mut report.cases[first..] {
            r.device.clone_from(&id);
        }
        if stopped_by_timeout(report, first) {
            // The device may still be running the kernel: nothing more on it.
            skip_after_timeout(report, &id, &targets[i + 1..], plan, &not_run);
            break;
        }
        if report.interrupted.is_some() {
            break;
        }
    }
    if let Some(d) = report.devices.iter_mut().find(|d| d.id == id) {
        d.seconds = started.elapsed().as_secs_f64();
    }
    Ok(())
}

/// Why a case after a watchdog timeout did not run.
const SKIPPED_AFTER_TIMEOUT: &str =
    "not run: an earlier kernel on this device missed its watchdog and may still be running";

/// Run `cases` in order on `device` with their embedded kernels built for
/// `target`, or all with `user`'s (refused, exit 2, when the device does
/// not run it), appending each result to `report`. After a case whose kernel
/// missed its watchdog ([`DeviceError::Timeout`]) the run stops: the device
/// may still be running that kernel, and later cases would only queue behind
/// it. A signal in `opts.interrupt` stops it too, between cases or (inside
/// [`run::run_case`]) between dispatches; `report.interrupted` then says
/// what completed. Errors recorded while releasing device resources during a
/// case are drained into that case's result. Each result names `device_id`
/// (`hip:1`, `emulator:gfx1030`) before it is shown, so its replay line can
/// name the backend and device that ran it.
#[allow(clippy::too_many_arguments)] // each is one independent input of the loop
pub fn run_cases(
    device: &mut dyn Device,
    device_id: &str,
    cases: &[Planned],
    user: Option<&Loaded>,
    opts: &Options,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    if let Some(user) = user {
        // A user's kernel for another target is bad input: refuse before launch.
        crate::pipeline::handle::check_target(&user.code, &device.arch_name())
            .map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
    }
    for (i, planned) in cases.iter().enumerate() {
        let case = &planned.case;
        if let Some(signal) = opts.interrupt.requested() {
            let interrupted = interrupted_at(signal, report, &cases[i..]);
            on_progress(Progress::Interrupted(&interrupted));
            report.interrupted = Some(interrupted);
            break;
        }
        let embedded;
        let loaded = match user {
            Some(user) => user,
            None => {
                embedded = planned.load()?;
                &embedded
            }
        };
        let kernel =
            run::kernel_for(loaded, case).map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
        let mut result = loaded.run(device, case, kernel, opts);
        result
            .release_errors
            .extend(crate::platform::device::take_unreleased());
        result.device = device_id.to_string();
        on_progress(Progress::Case(&result));
        let timed_out = matches!(result.error, Some(DeviceError::Timeout(_)));
        let cut_short = result.error.is_none() && result.tally.lanes_checked < result.lanes;
        report.cases.push(result);
        if timed_out {
            report.error = Some(RunError::StoppedAfterTimeout);
            // The cases it leaves unrun: the same code-object target and
            // executor as the case that timed out (the one just pushed).
            let (target_of, executor) = report
                .cases
                .last()
                .map(|r| (r.target.clone(), r.executor.clone()))
                .unwrap_or_default();
            let later = cases[i + 1..].iter().map(|p| &p.case);
            fold_not_run(report, later, &skipped_after_timeout, &|c, why| {
                CaseResult::not_run(c, &target_of, "", &executor, opts, why)
            });
            break;
        }
        if let (Some(signal), true) = (opts.interrupt.requested(), cut_short) {
            let interrupted = interrupted_at(signal, report, &cases[i + 1..]);
            on_progress(Progress::Interrupted(&interrupted));
            report.interrupted = Some(interrupted);
            break;
        }
    }
    Ok(())
}

/// What completed when `signal` stopped the run: every case in `report`
/// except a last one stopped part-way, and the names of `not_run`.
fn interrupted_at(
    signal: crate::pipeline::interrupt::Signal,
    report: &RunReport,
    not_run: &[Planned],
) -> Interrupted {
    let mut interrupted = Interrupted::new(signal);
    let last = report
        .cases
        .last()
        .filter(|r| r.error.is_none() && r.tally.lanes_checked < r.lanes);
    interrupted.cut_short = last.map(|r| CutShort {
        case: r.case.clone(),
        target: r.target.clone(),
        lanes_checked: r.tally.lanes_checked,
        lanes: r.lanes,
    });
    interrupted.cases_completed = report.cases.iter().filter(|r| r.not_run.is_none()).count()
        - usize::from(interrupted.cut_short.is_some());
    interrupted.not_run = not_run.iter().map(|p| p.case.name.to_string()).collect();
    interrupted
}
