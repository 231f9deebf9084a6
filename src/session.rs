//! One `xad-harness run` invocation: choose the cases, load the kernels
//! (embedded, or the user's `--kernel`, assembling a `.s` with the
//! toolchain), select the backend, run the cases in order, stop after a
//! watchdog timeout, gather what could not be released, and write the report
//! files. The exit code is the report's ([`RunReport::exit_code`]), chosen
//! in [`finish`].
//!
//! Nothing here prints: each step is handed to the caller's callback as a
//! [`Progress`] the moment it completes, with the lines the CLI prints for it.
//!
//! A SIGINT or SIGTERM ([`Request::interrupt`]) stops the run at the next
//! dispatch boundary or between cases; the report then says what completed
//! ([`RunReport::interrupted`]) and the exit code is 128 + the signal's number.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::backend::{self, BackendChoice, Runner, Selected, Unit};
use crate::cases::{self, Case};
use crate::codeobj::elf::MAX_CODE_OBJECT_BYTES;
use crate::codeobj::launch::{self, CaseAbi};
use crate::codeobj::CodeObject;
use crate::device::{Device, DeviceError};
use crate::error::{Error, Result, RunError};
use crate::interrupt::Interrupt;
use crate::report::{self, CutShort, DeviceRun, Interrupted, RunReport};
use crate::run::{self, CaseResult, KernelSource, Loaded, NotRun, Options, Status};
use crate::target::{self, Choice, Target};
use crate::{hip, inputs, toolchain};

/// What the user asked `run` for.
#[derive(Debug, Clone)]
pub struct Request {
    /// Lanes per case.
    pub lanes: u64,
    /// Seed for inputs and scalar arguments; a fresh one when `None`.
    pub seed: Option<u64>,
    /// HIP device indices (`--device 0,2`); every matching device when
    /// `None` (the emulator is device 0).
    pub devices: Option<Vec<usize>>,
    /// Case names or globs, comma separated; every case when `None` (only
    /// `basic` with a `kernel`).
    pub cases: Option<String>,
    /// The user's own kernel: a `.s`/`.S`/`.asm` source, or a code object.
    pub kernel: Option<PathBuf>,
    pub backend: BackendChoice,
    /// `--target`: the device's own (default), one, or all.
    pub target: Choice,
    /// Watchdog per dispatch.
    pub timeout: Duration,
    /// Failing lanes recorded per case.
    pub max_mismatches: usize,
    /// Set by SIGINT/SIGTERM; the run stops at the next dispatch boundary.
    pub interrupt: Interrupt,
    /// `--dump DIR`: where failing (or all) lanes are written.
    pub dump: Option<crate::dump::Sink>,
    /// The command line, for the report.
    pub command: Vec<String>,
    /// Lanes checked so far over every case and device, for a progress bar.
    pub lanes_done: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Instructions one emulated wave may execute (`--step-budget`,
    /// [`crate::emu::DEFAULT_STEP_BUDGET`] by default).
    pub step_budget: u64,
}

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
    report.release_errors.extend(hip::safe::take_drop_errors());
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
    let user = match &request.kernel {
        Some(path) => Some(UserKernel::open(path, request.target)?),
        None => None,
    };
    let chosen = choose_cases(request, user.as_ref())?;
    if user.is_some() && chosen.len() != 1 {
        return Err(kernel_needs_one_case(request, chosen.len()));
    }
    let (mut selected, plan) = select_and_plan(request, user.as_ref(), &chosen)?;
    report.executor = selected.describe();
    report.backend_note = (!selected.notes.is_empty()).then(|| selected.notes.join("; "));
    report.targets = selected
        .targets()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    report.devices = selected.units.iter().map(device_run).collect();
    report.other_generations = plan
        .iter()
        .filter(|p| p.other_generations > 0)
        .map(|p| (p.target.name.to_string(), p.other_generations))
        .collect();
    let user = match (user, selected.targets().first()) {
        // The one case, for the one target the run has.
        (Some(user), Some(target)) => Some(user.load(&chosen[0], target)?),
        _ => None,
    };
    if let Some(loaded) = &user {
        if selected.units.iter().any(Unit::is_hip) {
            refuse_what_the_runtime_would(loaded)?;
        }
    }
    let runs = |u: &Unit| -> usize {
        u.targets
            .iter()
            .filter_map(|t| plan.iter().find(|p| p.target.name == t.name))
            .map(|p| p.runs.len() + p.lacks.len())
            .sum()
    };
    on_progress(Progress::Started {
        report,
        cases: selected.units.iter().map(runs).sum(),
    });
    let opts = options(request, report.seed);
    let hip_units = selected.units.iter().filter(|u| u.is_hip()).count();
    if hip_units > 1 {
        run_concurrently(
            &mut selected.units,
            &plan,
            user.as_ref(),
            &opts,
            report,
            on_progress,
        )?;
    } else {
        for unit in &mut selected.units {
            run_unit(unit, &plan, user.as_ref(), &opts, report, on_progress)?;
            if report.interrupted.is_some() {
                break;
            }
        }
    }
    list_never_started(report, &selected.units, &plan);
    Ok(())
    // `selected` drops here, releasing the devices it holds.
}

/// The devices and targets of the run, each target with the chosen cases it
/// runs (or lacks); only targets with one of them stay, and a device left
/// with none is not part of the run (unless it is one that runs nothing
/// asked: it is reported, its cases not_supported).
fn select_and_plan(
    request: &Request,
    user: Option<&UserKernel>,
    chosen: &[Case],
) -> Result<(Selected, Vec<TargetPlan>)> {
    let choice = user.map_or(request.target, UserKernel::choice);
    let mut selected = backend::select(request.backend, request.devices.as_deref(), choice)?;
    if user.is_none() {
        leave_out_unbuilt(&mut selected, crate::kernels::built)?;
    }
    // A user's kernel stands for its one case; otherwise only the patterns
    // that are plain names ask for a case, a glob only picks among them.
    let named: Vec<&str> = match (user, &request.cases) {
        (Some(_), _) => chosen.iter().map(|c| c.name).collect(),
        (None, Some(patterns)) => cases::named_exactly(patterns),
        (None, None) => Vec::new(),
    };
    let plan = plan(chosen, &selected.targets(), request.target, &named)?;
    for unit in &mut selected.units {
        unit.targets
            .retain(|t| plan.iter().any(|p| p.target.name == t.name));
    }
    selected
        .units
        .retain(|u| !u.targets.is_empty() || matches!(u.runner, Runner::Unsupported(_)));
    Ok((selected, plan))
}

/// The settings every case of the run shares.
fn options(request: &Request, seed: u64) -> Options {
    Options {
        lanes: request.lanes,
        seed,
        timeout: request.timeout,
        keep: request.max_mismatches,
        interrupt: request.interrupt.clone(),
        dump: request
            .dump
            .clone()
            .map(|sink| std::sync::Arc::new(sink) as std::sync::Arc<dyn crate::run::Watcher>),
        lanes_done: Some(request.lanes_done.clone()),
        step_budget: request.step_budget,
        ..Options::default()
    }
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
            let ran = |c: &Case| {
                report
                    .cases
                    .iter()
                    .any(|r| r.device == unit.id && r.target == t.name && r.case == c.name)
            };
            let later = p.runs.iter().filter(|c| !ran(c));
            interrupted
                .not_run
                .extend(later.map(|c| format!("{} ({})", c.name, t.name)));
        }
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

/// Run every HIP device of `units` at once, one host thread each (the HIP
/// current device is per thread; each device's calls set it), and the rest
/// after them. Each thread fills a report of its own; its steps reach
/// `on_progress` as [`Progress::Relayed`] lines, in the order they happen,
/// and its cases join `report` in device order when all have finished.
fn run_concurrently(
    units: &mut [Unit],
    plan: &[TargetPlan],
    user: Option<&Loaded>,
    opts: &Options,
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
                    let outcome = run_unit(unit, plan, user, opts, &mut shard, &mut |step| {
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
        run_unit(unit, plan, user, opts, report, on_progress)?;
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

/// A `not_supported` result for each of `cases` on `target`, each saying why.
fn not_supported<'c>(
    report: &mut RunReport,
    cases: impl Iterator<Item = &'c Case>,
    target: &Target,
    why: &dyn Fn(&Case) -> String,
    not_run: &dyn Fn(&Case, &Target, NotRun) -> CaseResult,
) {
    for c in cases {
        report
            .cases
            .push(not_run(c, target, NotRun::NotSupported(why(c))));
    }
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
        for c in &p.runs {
            report
                .cases
                .push(not_run(c, t, NotRun::Skipped(SKIPPED_AFTER_TIMEOUT.into())));
        }
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
    plan: &[TargetPlan],
    user: Option<&Loaded>,
    opts: &Options,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let started = std::time::Instant::now();
    let id = unit.id.clone();
    let executor = unit.executor.clone();
    let targets = unit.targets.clone();
    let emu = crate::emu::EmuOptions {
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
                run_cases(
                    device,
                    &id,
                    target,
                    &p.runs,
                    user,
                    opts,
                    report,
                    on_progress,
                )?;
                if let (false, Some(interrupted)) = (before, &mut report.interrupted) {
                    interrupted
                        .listed
                        .push((id.clone(), target.name.to_string()));
                }
                let lacks = |c: &Case| {
                    let needs: Vec<&str> = c.lacks_on(target).iter().map(|f| f.name()).collect();
                    format!("{} lacks {}", target.name, needs.join(", "))
                };
                not_supported(report, p.lacks.iter(), target, &lacks, &not_run);
            }
            None => {
                let why = unit.why_not().to_string();
                let cases = p.runs.iter().chain(&p.lacks);
                not_supported(report, cases, target, &|_| why.clone(), &not_run);
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

/// Drop the targets this binary has no code objects for (build.rs found no
/// LLVM that knows them), naming each in the notes; when none is left, that
/// is the run's error (exit 3), not an empty pass.
/// `built` is [`crate::kernels::built`] (a parameter so tests can name
/// a target unbuilt: a normal build has none).
fn leave_out_unbuilt(
    selected: &mut backend::Selected,
    built: fn(&Target) -> std::result::Result<(), crate::kernels::NotBuilt>,
) -> Result<()> {
    // One look-up per target: built, or the reason it was not.
    let all = selected.targets();
    let reasons: Vec<_> = all
        .iter()
        .filter_map(|&t| built(t).err().map(|e| (t.name, e)))
        .collect();
    if reasons.len() == all.len() && !reasons.is_empty() {
        return Err(Error::Toolchain(reasons[0].1.into_toolchain_error()));
    }
    selected
        .notes
        .extend(reasons.iter().map(|(_, r)| format!("{r}; not run")));
    for unit in &mut selected.units {
        unit.targets
            .retain(|t| !reasons.iter().any(|(n, _)| *n == t.name));
    }
    selected
        .units
        .retain(|u| !u.targets.is_empty() || matches!(u.runner, Runner::Unsupported(_)));
    Ok(())
}

/// One target's share of the run: the chosen cases its ISA has, those it
/// lacks that the user named (reported `not_supported`), and how many it
/// lacks that nobody named (cases of other generations: only counted).
struct TargetPlan {
    target: &'static Target,
    runs: Vec<Case>,
    lacks: Vec<Case>,
    other_generations: usize,
}

/// The cases each target runs: those of `chosen` its ISA has. A case `named`
/// by its exact name (`--case NAME`, or `--kernel`'s case) that one
/// `--target` lacks is a usage error: the user asked for it and it cannot
/// run; with `--target all` or on the device's target it is reported
/// `not_supported` where the ISA lacks it. A case a glob picked, like every
/// case of the whole catalogue, belongs to other generations where the ISA
/// lacks it: only counted (`list --target` says which): `--target gfx908
/// --case '*'` runs what gfx908 has. A target left with no case to run is
/// dropped; none left at all is a usage error.
fn plan(
    chosen: &[Case],
    targets: &[&'static Target],
    choice: Choice,
    named: &[&str],
) -> Result<Vec<TargetPlan>> {
    let mut plan = Vec::new();
    for &t in targets {
        let (runs, lacks): (Vec<Case>, Vec<Case>) = chosen.iter().partition(|c| c.runs_on(t));
        let missing = lacks.iter().find(|c| named.contains(&c.name));
        if let (Choice::One(_), Some(missing)) = (choice, missing) {
            let needs: Vec<&str> = missing.lacks_on(t).iter().map(|f| f.name()).collect();
            let needs = needs.join(", ");
            return Err(Error::Usage(format!(
                "case {} needs {needs}, which {} lacks; see `xad-harness list --target {}`",
                missing.name, t.name, t.name
            )));
        }
        if !runs.is_empty() {
            let (lacks, other): (Vec<Case>, Vec<Case>) =
                lacks.into_iter().partition(|c| named.contains(&c.name));
            plan.push(TargetPlan {
                target: t,
                runs,
                lacks,
                other_generations: other.len(),
            });
        }
    }
    if plan.is_empty() {
        let names: Vec<&str> = chosen.iter().map(|c| c.name).collect();
        let on: Vec<&str> = targets.iter().map(|t| t.name).collect();
        let have: Vec<&str> = target::TARGETS
            .iter()
            .filter(|t| chosen.iter().any(|c| c.runs_on(t)))
            .map(|t| t.name)
            .collect();
        return Err(Error::Usage(format!(
            "no target of this run ({}) has case(s) {}; --target {} or all has",
            on.join(", "),
            names.join(", "),
            have.join(", ")
        )));
    }
    Ok(plan)
}

/// The cases `request` selects: its patterns, else for a user's kernel the
/// basic case of its wave size ([`UserKernel::basic_case`]), else the whole
/// catalogue. Every pattern must match a case, even beside others that do: a
/// typo would otherwise silently drop a case.
fn choose_cases(request: &Request, user: Option<&UserKernel>) -> Result<Vec<Case>> {
    match (&request.cases, user) {
        (Some(p), _) => {
            let chosen = cases::select(p).map_err(Error::Usage)?;
            for one in p.split(',').map(str::trim).filter(|one| !one.is_empty()) {
                cases::select(one).map_err(Error::Usage)?;
            }
            Ok(chosen)
        }
        (None, Some(user)) => cases::select(user.basic_case()).map_err(Error::Usage),
        // Every case; `plan` keeps, per target, those its ISA has.
        (None, None) => Ok(cases::catalogue()),
    }
}

/// The usage errors in `request` that can be found without running
/// anything (case patterns, one case for a `--kernel`), so the CLI can show
/// them beside other refusals before it gives up.
pub fn check_request(request: &Request) -> Vec<Error> {
    if request.cases.is_none() {
        // The whole catalogue, or a kernel's basic case: nothing to refuse yet.
        return Vec::new();
    }
    match choose_cases(request, None) {
        Err(e) => vec![e],
        Ok(chosen) if request.kernel.is_some() && chosen.len() != 1 => {
            vec![kernel_needs_one_case(request, chosen.len())]
        }
        Ok(_) => Vec::new(),
    }
}

fn kernel_needs_one_case(request: &Request, matched: usize) -> Error {
    let path = request.kernel.as_deref().unwrap_or(Path::new(""));
    Error::Usage(format!(
        "--kernel {} needs exactly one case, but --case matched {matched}",
        path.display()
    ))
}

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
    target: &Target,
    cases: &[Case],
    user: Option<&Loaded>,
    opts: &Options,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    if let Some(user) = user {
        // A user's kernel for another target is bad input: refuse before launch.
        crate::handle::check_target(&user.code, &device.arch_name())
            .map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
    }
    for (i, case) in cases.iter().enumerate() {
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
                embedded = run::embedded(case, target).map_err(Error::Io)?;
                &embedded
            }
        };
        let kernel =
            run::kernel_for(loaded, case).map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
        let mut result = run::run_case(
            device,
            case,
            &loaded.code,
            kernel,
            loaded.source.clone(),
            opts,
        );
        result.release_errors.extend(hip::safe::take_drop_errors());
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
            for later in &cases[i + 1..] {
                let skipped = NotRun::Skipped(SKIPPED_AFTER_TIMEOUT.into());
                report.cases.push(CaseResult::not_run(
                    later, &target_of, "", &executor, opts, skipped,
                ));
            }
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
    signal: crate::interrupt::Signal,
    report: &RunReport,
    not_run: &[Case],
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
    interrupted.not_run = not_run.iter().map(|c| c.name.to_string()).collect();
    interrupted
}

/// The user's `--kernel`, opened before the backend is chosen so that its
/// target can choose the device: a code object is read and validated
/// ([`CodeObject::parse`], at most [`MAX_CODE_OBJECT_BYTES`], checked before
/// reading) and says its own target; a source (`.s`/`.S`/`.asm`) is
/// assembled later for `--target`, else the processor its `.amdgcn_target`
/// names, else the device's target. Anything wrong with the file itself is
/// bad input (exit 2); a missing or broken toolchain is a fault (exit 3).
pub enum UserKernel {
    Code {
        code: CodeObject,
        path: PathBuf,
        target: &'static Target,
    },
    Source {
        path: PathBuf,
        target: Option<&'static Target>,
    },
}

fn is_source(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "s" || e == "S" || e == "asm")
}

impl UserKernel {
    pub fn open(path: &Path, choice: Choice) -> Result<UserKernel> {
        let shown = path.display();
        // A FIFO, device or directory is refused by the read below, by name.
        if std::fs::metadata(path).is_err() {
            return Err(Error::Usage(format!("--kernel {shown}: no such file")));
        }
        if choice == Choice::All {
            return Err(Error::Usage(format!(
                "--kernel {shown} is built for one target; --target all runs the embedded kernels"
            )));
        }
        let bytes = read_bounded(path)?; // the same cap for a source, before the assembler reads it
        if is_source(path) {
            let target = match choice {
                Choice::One(t) => Some(t),
                _ => directive_target(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?,
            };
            return Ok(UserKernel::Source {
                path: path.to_path_buf(),
                target,
            });
        }
        let code = CodeObject::parse(&bytes)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        let built = target::find(&code.target.arch).ok_or_else(|| {
            Error::Usage(format!(
                "--kernel {shown} is built for {}, which the harness has no target for; known: {}",
                code.target.arch,
                target::names().join(", ")
            ))
        })?;
        let target = match choice {
            Choice::One(t) if target::code_runs_on(built.name, t.name) => t,
            Choice::One(t) => {
                return Err(Error::Usage(format!(
                    "--kernel {shown} is built for {}, which does not run on --target {}",
                    built.name, t.name
                )))
            }
            _ => built,
        };
        Ok(UserKernel::Code {
            code,
            path: path.to_path_buf(),
            target,
        })
    }

    /// The case a kernel given without `--case` is run as: `out = xad(a, b,
    /// c)`, one word per lane, in the kernel's wave size (`basic` is wave32,
    /// `basic_w64` wave64). A code object says its wave size; a source is
    /// wave64 on a target without wave32 (gfx9) and taken as wave32
    /// elsewhere (a wave64 source there needs `--case basic_w64`; the ABI
    /// check says so before launch).
    pub fn basic_case(&self) -> &'static str {
        let wave64 = match self {
            UserKernel::Code { code, .. } => code
                .kernels
                .first()
                .is_some_and(|k| k.meta.wavefront_size == 64),
            UserKernel::Source { target, .. } => {
                target.is_some_and(|t| !t.has(target::Feature::Wave32))
            }
        };
        if wave64 {
            "basic_w64"
        } else {
            "basic"
        }
    }

    /// The target choice the backend selects with.
    pub fn choice(&self) -> Choice {
        match self {
            UserKernel::Code { target, .. }
            | UserKernel::Source {
                target: Some(target),
                ..
            } => Choice::One(target),
            UserKernel::Source { target: None, .. } => Choice::Device,
        }
    }

    /// The code object standing in for `case` on `target` (a source is
    /// assembled now), its kernel fitting the case's ABI
    /// ([`launch::check_case_abi`]: wave size, explicit arguments).
    pub fn load(self, case: &Case, target: &Target) -> Result<Loaded> {
        let (code, path) = match self {
            UserKernel::Code { code, path, .. } => (code, path),
            UserKernel::Source { path, .. } => (assemble(&path, target)?, path),
        };
        let shown = path.display();
        let loaded = Loaded {
            code,
            source: KernelSource::User {
                path: shown.to_string(),
            },
        };
        let kernel = run::kernel_for(&loaded, case)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        let abi = CaseAbi {
            case: case.name,
            wave_size: case.wave_size,
            scalar_args: case.scalar_args,
        };
        launch::check_case_abi(&kernel.meta, &abi)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        Ok(loaded)
    }
}

/// A `--kernel` the HIP runtime in this process would refuse, said in one
/// line before it is handed over (exit 2): the runtime's own comgr cannot
/// name its ISA (comgr 5.2 and a code object v5), cannot read its metadata,
/// or a kernel lacks a field the runtime refuses a kernel without
/// ([`hip::comgr::refusal`]). Only where the runtime has loaded comgr, as CLR
/// does when it initialises: a runtime without it (the emulated HIP library)
/// is not asked about, and a CLR that found no comgr loads no code object at
/// all and says so itself.
fn refuse_what_the_runtime_would(loaded: &Loaded) -> Result<()> {
    let KernelSource::User { path } = &loaded.source else {
        return Ok(());
    };
    if !hip::comgr::loaded_in_process() {
        return Ok(());
    }
    let Ok(reading) = hip::comgr::read(&loaded.code.bytes) else {
        return Ok(());
    };
    match hip::comgr::refusal(&reading) {
        Some(why) => {
            let version = crate::codeobj::elf::validate(&loaded.code.bytes)
                .map(|facts| format!(" (code object v{})", facts.code_object_version))
                .unwrap_or_default();
            Err(Error::Usage(format!(
                "--kernel {path}{version}: the HIP runtime would refuse it: {why}"
            )))
        }
        None => Ok(()),
    }
}

/// Assemble the user's source for `target` and validate the result.
fn assemble(path: &Path, target: &Target) -> Result<CodeObject> {
    let shown = path.display();
    let bytes = match toolchain::assemble_file(path, target.name) {
        Ok(bytes) => bytes,
        Err(e @ crate::toolchain::ToolchainError::Failed { .. }) => {
            return Err(Error::Usage(format!(
                "--kernel {shown} does not assemble for {}: {e}",
                target.name
            )))
        }
        Err(e) => return Err(e.into()),
    };
    CodeObject::parse(&bytes).map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))
}

/// The target a source's `.amdgcn_target "amdgcn-amd-amdhsa--<processor>"`
/// directive names, if it has one (the assembler refuses a directive that
/// differs from `-mcpu`, so it decides what to assemble for).
/// A directive inside a comment is not one ([`toolchain::directive_target_id`]).
fn directive_target(source: &str) -> std::result::Result<Option<&'static Target>, String> {
    let Some(id) = toolchain::directive_target_id(source) else {
        return Ok(None);
    };
    let processor = target::processor_of(&id);
    target::find(processor).map(Some).ok_or_else(|| {
        format!(
            ".amdgcn_target names {processor}, which the harness has no target for; known: {}",
            target::names().join(", ")
        )
    })
}

/// Read `path` by the tool's rule for inputs ([`crate::files::read_input`]):
/// a regular file of at most [`MAX_CODE_OBJECT_BYTES`], checked before
/// reading and again while reading.
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    crate::files::read_input(
        &format!("--kernel {}", path.display()),
        path,
        MAX_CODE_OBJECT_BYTES,
    )
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
/// by the one rule ([`report::files::after_writing`]): a signal's code wins;
/// a report that cannot be written fails an otherwise passing run.
pub fn finish(report: RunReport, outputs: &Outputs<'_>) -> Ending {
    let written = report::files::write_all(
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
    let (outcome, unwritten) = report::files::after_writing(outcome, written);
    Ending {
        outcome,
        also: shown.into_iter().chain(unwritten).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Selected;

    fn gfx950_unbuilt(target: &Target) -> std::result::Result<(), crate::kernels::NotBuilt> {
        match target.name {
            "gfx950" => Err(crate::kernels::NotBuilt {
                target: "gfx950",
                kernel: "",
                why: Some("no LLVM toolchain that assembles gfx950 was found"),
            }),
            _ => Ok(()),
        }
    }

    fn selected(names: &[&str]) -> Selected {
        let targets = names.iter().map(|n| target::find(n).unwrap()).collect();
        Selected::emulated(targets, Vec::new())
    }

    fn interrupted_before(target: Choice, cases: &str) -> Interrupted {
        let interrupt = Interrupt::default();
        interrupt.request(crate::interrupt::Signal::Term);
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
            step_budget: crate::emu::DEFAULT_STEP_BUDGET,
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

    #[test]
    fn an_unbuilt_target_is_named_and_left_out_of_a_run_with_others() {
        let mut s = selected(&["gfx942", "gfx950", "gfx1030"]);
        leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap();
        let names: Vec<&str> = s.targets().iter().map(|t| t.name).collect();
        assert_eq!(
            s.units.len(),
            2,
            "the unbuilt target's emulated device is gone"
        );
        assert_eq!(names, ["gfx942", "gfx1030"]);
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(
            s.notes[0].contains("without code objects for gfx950")
                && s.notes[0].contains("clang-22"),
            "{}",
            s.notes[0]
        );
    }

    #[test]
    fn a_run_of_only_unbuilt_targets_is_a_toolchain_fault_not_an_empty_pass() {
        let mut s = selected(&["gfx950"]);
        let e = leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::FAULT);
        assert!(e.to_string().contains("gfx950"), "{e}");
        let mut s = selected(&["gfx1100"]);
        leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap();
        assert!(s.notes.is_empty());
    }
}
