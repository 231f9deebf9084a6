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

use crate::backend::{self, BackendChoice};
use crate::cases::{self, Case};
use crate::codeobj::elf::MAX_CODE_OBJECT_BYTES;
use crate::codeobj::launch::{self, CaseAbi};
use crate::codeobj::CodeObject;
use crate::device::{Device, DeviceError};
use crate::error::{exit, Error, Result, RunError};
use crate::interrupt::Interrupt;
use crate::report::{self, CutShort, Interrupted, RunReport};
use crate::run::{self, CaseResult, KernelSource, Loaded, Options};
use crate::target::{self, Choice, Target};
use crate::{hip, inputs, toolchain};

/// What the user asked `run` for.
#[derive(Debug, Clone)]
pub struct Request {
    /// Lanes per case.
    pub lanes: u64,
    /// Seed for inputs and scalar arguments; a fresh one when `None`.
    pub seed: Option<u64>,
    /// HIP device index (the emulator is device 0).
    pub device: Option<usize>,
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
}

impl Progress<'_> {
    /// The text lines the CLI prints for this step.
    pub fn lines(&self) -> Vec<String> {
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
            Progress::Case(result) => report::case_lines(result),
            Progress::Interrupted(interrupted) => vec![interrupted.line()],
            Progress::Finished(report) => {
                let mut lines = report::release_lines(report);
                lines.extend(report::target_lines(report));
                lines.push(report::summary_line(report));
                lines
            }
        }
    }
}

impl Progress<'_> {
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
            Progress::Finished(report) => {
                let stopped = report
                    .error
                    .iter()
                    .filter(|e| matches!(e, RunError::StoppedAfterTimeout))
                    .map(ToString::to_string);
                stopped
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
        interrupted.cases_completed = report.cases.len();
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
    let user = match &request.kernel {
        Some(path) => Some(UserKernel::open(path, request.target)?),
        None => None,
    };
    let chosen = choose_cases(request, user.as_ref())?;
    if user.is_some() && chosen.len() != 1 {
        return Err(kernel_needs_one_case(request, chosen.len()));
    }
    let choice = user.as_ref().map_or(request.target, UserKernel::choice);
    let mut selected = backend::select(request.backend, request.device, choice)?;
    if user.is_none() {
        leave_out_unbuilt(&mut selected, crate::kernels::unbuilt)?;
    }
    let named = request.cases.is_some() || user.is_some();
    let plan = plan(&chosen, &selected.targets, request.target, named)?;
    // Only the targets that have one of the chosen cases run, and are named.
    selected.targets = plan.iter().map(|(t, _)| *t).collect();
    report.executor = selected.describe();
    report.backend_note = (!selected.notes.is_empty()).then(|| selected.notes.join("; "));
    report.targets = selected
        .targets
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let user = match user {
        // The one case, for the one target the run has.
        Some(user) => Some(user.load(&chosen[0], selected.targets[0])?),
        None => None,
    };
    on_progress(Progress::Started {
        report,
        cases: plan.iter().map(|(_, c)| c.len()).sum(),
    });
    let opts = Options {
        lanes: request.lanes,
        seed: report.seed,
        timeout: request.timeout,
        keep: request.max_mismatches,
        interrupt: request.interrupt.clone(),
        dump: request.dump.clone(),
        ..Options::default()
    };
    for (i, (target, cases)) in plan.iter().enumerate() {
        let device = selected.device_for(target);
        if let Some(user) = &user {
            // A user's kernel for another target is bad input: refuse before launch.
            run::check_target(&user.code, &device.arch_name())
                .map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
        }
        let executor = device.executor().to_string();
        on_progress(Progress::Target {
            target,
            cases: cases.len(),
            executor: &executor,
        });
        run_cases(
            device,
            target,
            cases,
            user.as_ref(),
            &opts,
            report,
            on_progress,
        )?;
        if report.interrupted.is_some() || report.error.is_some() {
            if let Some(interrupted) = &mut report.interrupted {
                // The cases of the targets after this one never started either.
                let later = plan[i + 1..].iter().flat_map(|(t, cases)| {
                    cases
                        .iter()
                        .map(move |c| format!("{} ({})", c.name, t.name))
                });
                interrupted.not_run.extend(later);
            }
            break;
        }
    }
    Ok(())
    // `selected` drops here, releasing the device it holds.
}

/// Drop the targets this binary has no code objects for (build.rs found no
/// LLVM that knows them), naming each in the notes; when none is left, that
/// is the run's error (exit 3), not an empty pass.
/// `unbuilt` is [`crate::kernels::unbuilt`] (a parameter so tests can name
/// a target unbuilt: a normal build has none).
fn leave_out_unbuilt(
    selected: &mut backend::Selected,
    unbuilt: fn(&str) -> Option<&'static str>,
) -> Result<()> {
    // One look-up per target: built, or the reason it was not.
    let mut built = Vec::new();
    let mut reasons = Vec::new();
    for &t in &selected.targets {
        match unbuilt(t.name) {
            None => built.push(t),
            Some(why) => reasons.push(crate::toolchain::ToolchainError::NotBuilt {
                target: t.name.to_string(),
                why: why.to_string(),
            }),
        }
    }
    if built.is_empty() && !reasons.is_empty() {
        return Err(Error::Toolchain(
            reasons.into_iter().next().expect("not empty"),
        ));
    }
    selected
        .notes
        .extend(reasons.iter().map(|r| format!("{r}; not run")));
    selected.targets = built;
    Ok(())
}

/// The cases each target runs: those of `chosen` its ISA has. A case `named`
/// explicitly (`--case`, or `--kernel`'s) that one `--target` lacks is a usage
/// error; in the whole catalogue, with `--target all` or on the device's
/// target, a case the ISA lacks simply does not exist there (`list --target`
/// says why). A target left with no case is dropped.
fn plan(
    chosen: &[Case],
    targets: &[&'static Target],
    choice: Choice,
    named: bool,
) -> Result<Vec<(&'static Target, Vec<Case>)>> {
    let mut plan = Vec::new();
    for &t in targets {
        let (runs, lacks): (Vec<Case>, Vec<Case>) = chosen.iter().partition(|c| c.runs_on(t));
        if let (Choice::One(_), true, Some(missing)) = (choice, named, lacks.first()) {
            let needs: Vec<&str> = missing.lacks_on(t).iter().map(|f| f.name()).collect();
            let needs = needs.join(", ");
            return Err(Error::Usage(format!(
                "case {} needs {needs}, which {} lacks; see `xad-harness list --target {}`",
                missing.name, t.name, t.name
            )));
        }
        if !runs.is_empty() {
            plan.push((t, runs));
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
/// `target`, or all with `user`'s, appending each result to `report`. After a case whose kernel
/// missed its watchdog ([`DeviceError::Timeout`]) the run stops: the device
/// may still be running that kernel, and later cases would only queue behind
/// it. A signal in `opts.interrupt` stops it too, between cases or (inside
/// [`run::run_case`]) between dispatches; `report.interrupted` then says
/// what completed. Errors recorded while releasing device resources during a
/// case are drained into that case's result.
pub fn run_cases(
    device: &mut dyn Device,
    target: &Target,
    cases: &[Case],
    user: Option<&Loaded>,
    opts: &Options,
    report: &mut RunReport,
    on_progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
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
        on_progress(Progress::Case(&result));
        let timed_out = matches!(result.error, Some(DeviceError::Timeout(_)));
        let cut_short = result.error.is_none() && result.tally.lanes_checked < result.lanes;
        report.cases.push(result);
        if timed_out {
            report.error = Some(RunError::StoppedAfterTimeout);
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
    interrupted.cases_completed = report.cases.len() - usize::from(interrupted.cut_short.is_some());
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
        if !path.is_file() {
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
fn directive_target(source: &str) -> std::result::Result<Option<&'static Target>, String> {
    let Some(line) = source
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".amdgcn_target"))
    else {
        return Ok(None);
    };
    let id = line.split('"').nth(1).unwrap_or_default();
    let processor = target::processor_of(id);
    target::find(processor).map(Some).ok_or_else(|| {
        format!(
            ".amdgcn_target names {processor}, which the harness has no target for; known: {}",
            target::names().join(", ")
        )
    })
}

/// Read `path` through a reader that stops after [`MAX_CODE_OBJECT_BYTES`]:
/// the size is checked before reading and again while reading (a file that
/// grows, or a device file whose size says 0, cannot get past the cap).
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let shown = path.display();
    let too_large = |size: String| {
        Error::Usage(format!(
            "--kernel {shown}: {size}; code objects are limited to {MAX_CODE_OBJECT_BYTES} bytes"
        ))
    };
    let file =
        std::fs::File::open(path).map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
    let len = file
        .metadata()
        .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?
        .len();
    if len > MAX_CODE_OBJECT_BYTES {
        return Err(too_large(format!("{len} bytes")));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_CODE_OBJECT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
    if bytes.len() as u64 > MAX_CODE_OBJECT_BYTES {
        return Err(too_large(format!(
            "more than {MAX_CODE_OBJECT_BYTES} bytes when read"
        )));
    }
    Ok(bytes)
}

/// How a `run` invocation ends: the exit code (or the error that decides
/// it), and errors the caller prints although they do not decide the code: a
/// report file that could not be written after the run had already failed,
/// or the error of a run a signal interrupted.
pub struct Ending {
    pub outcome: Result<i32>,
    pub also: Vec<Error>,
}

/// Write the reports asked for, whatever happened, and choose the exit code:
/// a signal's code wins; a report that cannot be written fails an otherwise
/// passing run.
pub fn finish(report: RunReport, json: Option<&Path>, junit: Option<&Path>) -> Ending {
    let written = write_reports(&report, json, junit);
    match (report.into_exit_code(), written) {
        ((Ok(exit::PASS), _), Err(e)) => Ending {
            outcome: Err(e),
            also: Vec::new(),
        },
        ((outcome, shown), written) => Ending {
            outcome,
            also: shown.into_iter().chain(written.err()).collect(),
        },
    }
}

/// Write the JSON and JUnit reports asked for. Both are attempted whatever
/// happened, so nothing the user asked for is lost; the last failure is
/// returned.
pub fn write_reports(report: &RunReport, json: Option<&Path>, junit: Option<&Path>) -> Result<()> {
    let mut failed = None;
    if let Some(path) = json {
        failed = write_file(path, &report.to_json()).err().or(failed);
    }
    if let Some(path) = junit {
        failed = write_file(path, &report::to_junit(report)).err().or(failed);
    }
    failed.map_or(Ok(()), Err)
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Executor, Selected};

    fn gfx950_unbuilt(target: &str) -> Option<&'static str> {
        (target == "gfx950").then_some("no LLVM toolchain that assembles gfx950 was found")
    }

    fn selected(names: &[&str]) -> Selected {
        let targets = names.iter().map(|n| target::find(n).unwrap()).collect();
        Selected {
            executor: Executor::Emulator(None),
            targets,
            notes: Vec::new(),
        }
    }

    #[test]
    fn an_unbuilt_target_is_named_and_left_out_of_a_run_with_others() {
        let mut s = selected(&["gfx942", "gfx950", "gfx1030"]);
        leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap();
        let names: Vec<&str> = s.targets.iter().map(|t| t.name).collect();
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
