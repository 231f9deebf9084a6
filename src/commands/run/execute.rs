//! Executing a [`Plan`]: each device's targets in order (several HIP
//! devices at once, one thread each), each target's cases through
//! [`run::run_case`], then a not-supported outcome for each case the target
//! lacks. A watchdog timeout stops that device; a signal stops the run at the
//! next dispatch boundary or between cases. Each step reaches the caller as a
//! [`Progress`] the moment it completes; what ran and why the rest did not
//! return as [`Executed`], which [`super::fold`] turns into the report.

use super::plan::{Plan, Planned, TargetPlan};
use crate::error::{Error, Result, RunError};
use crate::model::cases::Case;
use crate::pipeline::interrupt::Signal;
use crate::pipeline::run::{self, CaseResult, Loaded, Options, Status};
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

/// What executing a plan hands the report ([`super::fold`]): every planned
/// case of every device, in device then target order, as the result of
/// running it or as why it did not run; each device's time; where a signal
/// stopped the run; the error that stopped it, if one did. Execution decides
/// nothing the report shows: the fold turns these into results, the
/// interruption's record, and the devices' errors.
#[derive(Default)]
pub struct Executed {
    pub cases: Vec<Outcome>,
    /// Each device that finished its share, with its wall time in seconds.
    pub seconds: Vec<(String, f64)>,
    /// Where a signal stopped a device: one per device it stopped.
    pub stops: Vec<Stop>,
    /// The error that stopped the run (a case's code object that would not
    /// load, a `--kernel` the device refuses); what ran before it is kept.
    pub failed: Option<Error>,
}

/// One planned case on one device.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a run holds a few thousand at most, each moved once
pub enum Outcome {
    Ran(CaseResult),
    NotRun(Unrun),
}

/// A planned case that did not run, with where it would have and why.
#[derive(Debug, Clone)]
pub struct Unrun {
    pub case: Case,
    /// The code object's target (the case's result names it).
    pub target: String,
    pub device: String,
    pub executor: String,
    pub why: Why,
}

/// Why a planned case did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The target or device lacks what the case needs (a result, `not_supported`).
    NotSupported(String),
    /// An earlier kernel on its device missed its watchdog (a result, skipped).
    AfterTimeout,
    /// A signal stopped its device inside its target (named in the
    /// interruption's record, bare).
    Interrupted,
    /// A signal stopped the run before its target started on its device
    /// (named in the interruption's record as `case (target)`).
    TargetNotStarted,
}

/// Where a signal stopped one device: after its last result, which it may
/// have cut short part-way.
#[derive(Debug, Clone)]
pub struct Stop {
    pub signal: Signal,
    pub cut_short: Option<CutShort>,
}

impl Executed {
    fn ran(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases.iter().filter_map(|o| match o {
            Outcome::Ran(r) => Some(r),
            Outcome::NotRun(_) => None,
        })
    }

    /// Whether a signal has stopped the run.
    pub fn interrupted(&self) -> bool {
        !self.stops.is_empty()
    }

    /// Each of `cases` on `device`, not run for `why`.
    fn not_run<'c>(
        &mut self,
        cases: impl Iterator<Item = &'c Case>,
        at: (&str, &str, &str),
        why: &dyn Fn(&Case) -> Why,
    ) {
        let (target, device, executor) = at;
        self.cases.extend(cases.map(|c| {
            Outcome::NotRun(Unrun {
                case: *c,
                target: target.to_string(),
                device: device.to_string(),
                executor: executor.to_string(),
                why: why(c),
            })
        }));
    }

    /// The cases `unit` would have run in `targets`, none of which started:
    /// a signal came first ([`Why::TargetNotStarted`]), or an earlier kernel
    /// missed its watchdog ([`Why::AfterTimeout`]).
    fn unstarted(
        &mut self,
        unit: &Unit,
        targets: &[&'static Target],
        plan: &[TargetPlan],
        why: Why,
    ) {
        for t in targets {
            if let Some(p) = plan.iter().find(|p| p.target.name == t.name) {
                let at = (t.name, unit.id.as_str(), unit.executor.as_str());
                self.not_run(p.runs.iter().map(|r| &r.case), at, &|_| why.clone());
            }
        }
    }

    /// Another device's share, after this one's.
    fn append(&mut self, other: Executed) {
        self.cases.extend(other.cases);
        self.seconds.extend(other.seconds);
        self.stops.extend(other.stops);
        if self.failed.is_none() {
            self.failed = other.failed;
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

/// Execute `plan` with `opts`: HIP devices at once when there are several,
/// the rest one after another, each device's outcomes in device order.
/// After a signal, the cases of the devices and targets that never started
/// are outcomes too ([`Why::TargetNotStarted`]).
pub fn execute(
    plan: &mut Plan,
    opts: &Options,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Executed {
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
    let mut out = Executed::default();
    let (hip, rest): (Vec<&mut Unit>, Vec<&mut Unit>) =
        selected.units.iter_mut().partition(|u| u.is_hip());
    let (concurrent, one_by_one) = if hip.len() > 1 {
        (hip, rest)
    } else {
        (Vec::new(), hip.into_iter().chain(rest).collect())
    };
    if !concurrent.is_empty() {
        out = run_concurrently(concurrent, work, on_progress);
    }
    for unit in one_by_one {
        if out.failed.is_some() {
            break;
        }
        if out.interrupted() {
            out.unstarted(unit, &unit.targets, targets, Why::TargetNotStarted);
        } else {
            run_unit(unit, work, &mut out, on_progress);
        }
    }
    out
}

/// Run `units` (HIP devices) at once, one host thread each (the HIP current
/// device is per thread; each device's calls set it). Each thread executes
/// its own share; its steps reach `on_progress` as [`Progress::Relayed`]
/// lines, in the order they happen, and the shares join in device order
/// when all have finished.
fn run_concurrently(
    units: Vec<&mut Unit>,
    work: Work<'_>,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Executed {
    let shares: Vec<Executed> = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Relayed>();
        let handles: Vec<_> = units
            .into_iter()
            .map(|unit| {
                let tx = tx.clone();
                scope.spawn(move || {
                    let mut share = Executed::default();
                    run_unit(unit, work, &mut share, &mut |step| {
                        let _ = tx.send(Relayed::of(&step));
                    });
                    share
                })
            })
            .collect();
        drop(tx);
        relay(&rx, on_progress);
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Executed {
                    failed: Some(Error::Io(
                        "a device thread panicked; its results are lost".into(),
                    )),
                    ..Executed::default()
                })
            })
            .collect()
    });
    let mut out = Executed::default();
    for share in shares {
        out.append(share);
    }
    out
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

/// How a device's run of one target's cases ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every case ran.
    Ran,
    /// A case's kernel missed its watchdog: the device may still be running
    /// it, so nothing more runs on that device.
    TimedOut,
    /// A signal stopped it.
    Interrupted,
}

/// Run one device's targets in order, appending its outcomes to `out`: the
/// cases its target has, then one not-supported outcome for each chosen case
/// that target lacks (or for every case, on a device that runs nothing
/// asked). A timeout stops this device only; a signal stops it, and its
/// later targets are named not started.
fn run_unit(
    unit: &mut Unit,
    work: Work<'_>,
    out: &mut Executed,
    on_progress: &mut dyn FnMut(Progress<'_>),
) {
    let Work {
        targets: plan,
        user,
        opts,
    } = work;
    let started = std::time::Instant::now();
    let (id, executor) = (unit.id.clone(), unit.executor.clone());
    let targets = unit.targets.clone();
    let emu = crate::platform::emu::EmuOptions {
        step_budget: opts.step_budget,
        ..Default::default()
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
        let at = (target.name, id.as_str(), executor.as_str());
        let ended = match unit.device_with(target, emu) {
            Some(device) => {
                let ended = run_cases(device, &id, &p.runs, user, opts, out, on_progress);
                let lacks = |c: &Case| {
                    let needs: Vec<&str> = c.lacks_on(target).iter().map(|f| f.name()).collect();
                    Why::NotSupported(format!("{} lacks {}", target.name, needs.join(", ")))
                };
                out.not_run(p.lacks.iter(), at, &lacks);
                match ended {
                    Ok(ended) => ended,
                    Err(e) => {
                        out.failed = Some(e);
                        return;
                    }
                }
            }
            None => {
                let why = Why::NotSupported(unit.why_not().to_string());
                let cases = p.runs.iter().map(|r| &r.case).chain(&p.lacks);
                out.not_run(cases, at, &|_| why.clone());
                Ended::Ran
            }
        };
        let later = &targets[i + 1..];
        match ended {
            Ended::Ran => {}
            Ended::TimedOut => {
                // The device may still be running the kernel: nothing more on it.
                out.unstarted(unit, later, plan, Why::AfterTimeout);
                break;
            }
            Ended::Interrupted => {
                out.unstarted(unit, later, plan, Why::TargetNotStarted);
                break;
            }
        }
    }
    out.seconds.push((id, started.elapsed().as_secs_f64()));
}

/// Run `cases` in order on `device` with their embedded kernels built for
/// `target`, or all with `user`'s (refused, exit 2, when the device does
/// not run it), appending each outcome to `out`. After a case whose kernel
/// missed its watchdog ([`DeviceError::Timeout`]) the run stops: the device
/// may still be running that kernel, and later cases would only queue behind
/// it. A signal in `opts.interrupt` stops it too, between cases or (inside
/// [`run::run_case`]) between dispatches, and `out.stops` says where.
/// Errors recorded while releasing device resources during a case are
/// drained into that case's result. Each result names `device_id`
/// (`hip:1`, `emulator:gfx1030`) before it is shown, so its replay line can
/// name the backend and device that ran it.
pub fn run_cases(
    device: &mut dyn Device,
    device_id: &str,
    cases: &[Planned],
    user: Option<&Loaded>,
    opts: &Options,
    out: &mut Executed,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Ended> {
    if let Some(user) = user {
        // A user's kernel for another target is bad input: refuse before launch.
        crate::pipeline::handle::check_target(&user.code, &device.arch_name())
            .map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
    }
    for (i, planned) in cases.iter().enumerate() {
        let case = &planned.case;
        if let Some(signal) = opts.interrupt.requested() {
            let at = (device.arch_name(), device.executor().to_string());
            stop(
                signal,
                out,
                &cases[i..],
                (&at.0, device_id, &at.1),
                on_progress,
            );
            return Ok(Ended::Interrupted);
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
        // The cases it leaves unrun: the same code-object target and
        // executor as this case.
        let at = (result.target.clone(), result.executor.clone());
        out.cases.push(Outcome::Ran(result));
        if timed_out {
            let later = cases[i + 1..].iter().map(|p| &p.case);
            out.not_run(later, (&at.0, device_id, &at.1), &|_| Why::AfterTimeout);
            return Ok(Ended::TimedOut);
        }
        if let (Some(signal), true) = (opts.interrupt.requested(), cut_short) {
            let at = (at.0.as_str(), device_id, at.1.as_str());
            stop(signal, out, &cases[i + 1..], at, on_progress);
            return Ok(Ended::Interrupted);
        }
    }
    Ok(Ended::Ran)
}

/// A signal stopped a device with `unstarted` left of its target (`at`:
/// the target, device and executor): record where, name them, and tell the
/// caller what completed.
fn stop(
    signal: Signal,
    out: &mut Executed,
    unstarted: &[Planned],
    at: (&str, &str, &str),
    on_progress: &mut dyn FnMut(Progress<'_>),
) {
    let last = out
        .cases
        .last()
        .and_then(|o| match o {
            Outcome::Ran(r) => Some(r),
            Outcome::NotRun(_) => None,
        })
        .filter(|r| r.error.is_none() && r.tally.lanes_checked < r.lanes);
    let cut_short = last.map(|r| CutShort {
        case: r.case.clone(),
        target: r.target.clone(),
        lanes_checked: r.tally.lanes_checked,
        lanes: r.lanes,
    });
    // What the caller prints now: this device's share so far.
    let mut interrupted = Interrupted::new(signal);
    interrupted.cases_completed = out.ran().count() - usize::from(cut_short.is_some());
    interrupted.cut_short = cut_short.clone();
    interrupted.not_run = unstarted.iter().map(|p| p.case.name.to_string()).collect();
    on_progress(Progress::Interrupted(&interrupted));
    out.stops.push(Stop { signal, cut_short });
    let cases = unstarted.iter().map(|p| &p.case);
    out.not_run(cases, at, &|_| Why::Interrupted);
}
