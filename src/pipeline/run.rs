//! The pipeline for one case on one device: seeded inputs -> CPU model ->
//! poisoned output -> launch -> read back -> compare every lane -> result.
//!
//! Lanes are processed in chunks with buffers reused across chunks, so memory
//! stays bounded whatever `--lanes` is, and the working set stays cache-sized.
//! Each chunk is one dispatch whose `count` is the chunk's lane count; lane
//! indices in results are global (chunk start + lane). On a device whose
//! memory the host can address (the emulator, `Device::host_words`) inputs
//! are generated and results checked in place; on others (HIP) through
//! staging copies. Either way the same words are compared.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::error::ReleaseError;
use crate::model::cases::{Case, LaneData};
use crate::model::check::{self, Compare, Prefill, Tally};
use crate::model::inputs;
use crate::pipeline::findings::{Classifier, Findings};
use crate::pipeline::guard::{GuardViolation, GuardedBuffer};
use crate::pipeline::handle::KernelHandle;
use crate::platform::codeobj::{ArgValue, CodeObject, Kernel};
use crate::platform::device::{Device, DeviceError, DevicePtr};

/// What watches a run as it goes: each case as it starts and ends, and each
/// checked dispatch. `--dump` is the one watcher ([`crate::commands::run::dump::Sink`]); the
/// trait is declared here so the run does not depend on what watches it.
pub trait Watcher: Send + Sync + std::fmt::Debug {
    /// A case starts: `result` is its fresh result (executor, target, seed,
    /// scalars), `code` and `kernel` what will run.
    fn begin_case(&self, case: &Case, code: &CodeObject, kernel: &Kernel, result: &CaseResult);
    /// One dispatch was checked.
    fn chunk(&self, compare: &Compare<'_>);
    /// The case is done: `result` is final.
    fn end_case(&self, result: &CaseResult);
}

/// Largest `--lanes`: the kernel ABI counts lanes in 32 bits.
pub const MAX_LANES: u64 = 1 << 32;

/// Run settings shared by every case.
#[derive(Debug, Clone)]
pub struct Options {
    pub lanes: u64,
    pub seed: u64,
    /// Watchdog for one dispatch.
    pub timeout: Duration,
    /// Detailed mismatch records kept per case.
    pub keep: usize,
    /// Output words per dispatch (lanes x outputs per lane), rounded up to whole
    /// pieces of `inputs::BLOCK_LANES` lanes. 2^17 measured best for the
    /// emulator here (16K to 256K tried): a dispatch's buffers stay in L3.
    pub chunk_lanes: usize,
    /// Set by SIGINT/SIGTERM: the chunk loop stops before its next dispatch,
    /// leaving the lanes checked so far in the result.
    pub interrupt: crate::pipeline::interrupt::Interrupt,
    /// `--dump`: told of each case and each checked dispatch (the sink is
    /// [`crate::commands::run::dump::Sink`]).
    pub dump: Option<std::sync::Arc<dyn Watcher>>,
    /// Lanes checked so far, over every case of the run (read by a progress
    /// bar on another thread); `None` counts nothing.
    pub lanes_done: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// Instructions one emulated wave may execute (`--step-budget`); the
    /// emulator only: hardware has the watchdog.
    pub step_budget: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lanes: 1 << 20,
            seed: 0,
            timeout: Duration::from_secs(60),
            keep: 10,
            chunk_lanes: 1 << 17,
            interrupt: Default::default(),
            dump: None,
            lanes_done: None,
            step_budget: crate::platform::emu::DEFAULT_STEP_BUDGET,
        }
    }
}

/// Where the code object of a case came from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelSource {
    Embedded { source: String },
    User { path: String },
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: String,
    pub description: String,
    pub kernel: String,
    pub kernel_source: KernelSource,
    /// The device it ran on, as the report's `devices` name it (`hip:0`,
    /// `emulator:gfx1100`); set by the session.
    pub device: String,
    /// What executed it: `hardware: ...` or `emulated gfx1100`.
    pub executor: String,
    /// The target the code object was built for (its target ID's processor,
    /// e.g. `gfx1101` or `gfx11-generic`).
    pub target: String,
    pub seed: u64,
    /// The seed of the guard words around every buffer ([`crate::pipeline::guard`]),
    /// derived from `seed`.
    pub guard_seed: u64,
    pub lanes: u64,
    pub scalars: Vec<u32>,
    pub tally: Tally,
    /// Where the verdicts fall, every lane counted in fixed memory ([`crate::pipeline::pattern`]).
    pub pattern: crate::pipeline::pattern::Pattern,
    pub guard_violations: Vec<GuardViolation>,
    /// Set when the case could not run to the end (device fault, timeout, ...).
    /// Typed, so callers match on it (a timeout stops the run); reports carry
    /// its one-line text.
    pub error: Option<DeviceError>,
    /// Set when the case has a result but never ran: not supported there, or
    /// skipped. Left out of JSON otherwise.
    pub not_run: Option<NotRun>,
    /// Device resources this case could not give back (see [`ReleaseError`]);
    /// they do not change the case's status, but make the run's exit code 3
    /// when nothing worse happened. Left out of JSON when empty.
    pub release_errors: Vec<ReleaseError>,
    pub seconds: f64,
    pub unsettled: Option<String>,
    /// For embedded multi-output kernels: the disassembly of the instruction
    /// behind each output word (word j is the kernel's j-th `v_xad_u32`), so a
    /// failing word names the operand form that failed.
    pub forms: Vec<String>,
    /// `--step-budget` when the run set one other than the default, so the
    /// replay line reproduces the run. Not in JSON (`command` has it).
    pub step_budget: Option<u64>,
    /// A probe case run on an executor (HIP): what its probe words showed
    /// ([`crate::pipeline::findings`]). `None` otherwise, and left out of JSON.
    pub findings: Option<Findings>,
}

/// A case's verdict, as conformance suites name theirs (Vulkan CTS: Pass,
/// Fail, QualityWarning, NotSupported, InternalError, Timeout, ...). Each maps
/// onto one JUnit kind ([`Status::junit`]) and one exit code
/// ([`Status::exit_code`]); the run's code is the worst of its cases'.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every lane was checked and every word matched the model.
    Pass,
    /// A lane was wrong, unwritten or undefined, or a guard word changed.
    Fail,
    /// No lane failed, but some words (or every word) depend on behaviour
    /// the ISA guides leave open: neither pass nor fail (counted in the
    /// tally). Never a pass: JUnit shows it skipped, and a run needs a case
    /// that passed to exit 0.
    Unsettled,
    /// A probe case on an executor: no lane failed, and every probe word's
    /// lanes agree on the readings they follow ([`CaseResult::findings`]).
    /// What the device does with bits the ISA leaves open: never a pass or a
    /// fail of the ISA.
    Finding,
    /// The target (or the device) lacks what the case needs; nothing ran.
    NotSupported,
    /// The case could not run to its end (device, runtime or emulator fault).
    Error,
    /// The kernel missed its watchdog.
    Timeout,
    /// Not run, or stopped part-way (a signal, or the run stopped after an
    /// earlier timeout), or run to its end with nothing verified and nothing
    /// unsettled (every word one the kernel must leave unwritten,
    /// [`CaseResult::nothing_verified`]): no green without evidence.
    Skipped,
}

/// JUnit's three non-success kinds, and success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JunitKind {
    Success,
    Failure,
    Error,
    Skipped,
}

impl Status {
    /// Every status, in the order reports list their counts.
    pub const ALL: [Status; 8] = [
        Status::Pass,
        Status::Fail,
        Status::Unsettled,
        Status::Finding,
        Status::NotSupported,
        Status::Error,
        Status::Timeout,
        Status::Skipped,
    ];

    /// The JSON spelling (`not_supported`).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unsettled => "unsettled",
            Status::Finding => "finding",
            Status::NotSupported => "not_supported",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Skipped => "skipped",
        }
    }

    /// How JUnit shows it: a finding is a success with properties (word 0
    /// passed; the findings are listed); unsettled, not_supported and
    /// skipped are skipped, so CI never shows a case green whose words were
    /// not all verified.
    pub fn junit(self) -> JunitKind {
        match self {
            Status::Pass | Status::Finding => JunitKind::Success,
            Status::Fail => JunitKind::Failure,
            Status::Error | Status::Timeout => JunitKind::Error,
            Status::Unsettled | Status::NotSupported | Status::Skipped => JunitKind::Skipped,
        }
    }

    /// The exit code this status alone would give: 1 for a failure, 3 for a
    /// fault, 0 for a pass or a finding, 77 for a case that did not run or
    /// left words unsettled. A run combines its cases' codes with
    /// [`crate::report::cases_exit_code`], so one passing case beside
    /// unsettled or skipped ones is a pass, but a run with none (`0
    /// passed`) is 77.
    pub fn exit_code(self) -> i32 {
        use crate::error::exit;
        match self {
            Status::Pass | Status::Finding => exit::PASS,
            Status::Fail => exit::MISMATCH,
            Status::Error | Status::Timeout => exit::FAULT,
            Status::Unsettled | Status::NotSupported | Status::Skipped => exit::SKIPPED,
        }
    }
}

/// Why a case has a result but never ran (or was stopped before its end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRun {
    /// The target or device lacks what the case needs.
    NotSupported(String),
    /// Left out: a signal, or a stop after an earlier timeout.
    Skipped(String),
}

impl CaseResult {
    /// The verdict, from the fields only. Fail beats everything: a wrong lane
    /// is a finding even if the case later faulted or was cut short.
    pub fn status(&self) -> Status {
        let inconsistent = self
            .findings
            .as_ref()
            .is_some_and(|f| f.failure().is_some());
        if self.tally.lanes_failed > 0 || !self.guard_violations.is_empty() || inconsistent {
            Status::Fail
        } else if let Some(DeviceError::Timeout(_)) = self.error {
            Status::Timeout
        } else if self.error.is_some() {
            Status::Error
        } else if let Some(NotRun::NotSupported(_)) = self.not_run {
            Status::NotSupported
        } else if self.not_run.is_some() || self.tally.lanes_checked < self.lanes {
            // Stopped between two dispatches by a signal: not finished.
            Status::Skipped
        } else if self.tally.words_unsettled > 0 {
            // Some words or all of them unsettled: one status either way.
            Status::Unsettled
        } else if self.nothing_verified().is_some() {
            // Ran to its end, failed nothing, proved nothing: no green
            // without evidence.
            Status::Skipped
        } else if self.findings.is_some() {
            Status::Finding
        } else {
            Status::Pass
        }
    }

    /// Why a case that ran every lane and failed none still verified
    /// nothing: each word it compared was unsettled or one the model expects
    /// the kernel to leave alone. `None` when some word was verified, or the
    /// case failed, faulted or did not run to its end (its status says so).
    pub fn nothing_verified(&self) -> Option<String> {
        let t = &self.tally;
        let finished = self.error.is_none()
            && self.not_run.is_none()
            && t.lanes_checked >= self.lanes
            && t.lanes_failed == 0
            && self.guard_violations.is_empty();
        if !finished || t.words_verified() > 0 {
            return None;
        }
        let lanes = t.lanes_checked;
        Some(match (t.words_unsettled, t.lanes_unsettled) {
            (0, _) => format!(
                "every word of the {lanes} lanes checked is one the kernel must leave unwritten"
            ),
            (words, unsettled) if unsettled >= lanes => format!(
                "all {lanes} lanes checked are unsettled ({words} words; neither pass nor fail)"
            ),
            (words, unsettled) => format!(
                "of the {lanes} lanes checked, {unsettled} are unsettled ({words} words) and the rest hold only words the kernel must leave unwritten"
            ),
        })
    }

    /// Whether the case came out as its catalogue entry promises: a pass,
    /// or unsettled when the case declares the unsettled ISA point its
    /// words rest on (`unsettled`; `sreg_hi_w32` rests on it with every
    /// word), with nothing failed either way. Unsettled is as promised,
    /// though never a pass of the run.
    pub fn passed(&self) -> bool {
        match self.status() {
            Status::Pass | Status::Finding => true,
            Status::Unsettled => self.unsettled.is_some(),
            _ => false,
        }
    }

    /// A result for `case` that never ran on `device` (`executor`), for
    /// `reason`.
    pub fn not_run(
        case: &Case,
        target: &str,
        device: &str,
        executor: &str,
        opts: &Options,
        reason: NotRun,
    ) -> CaseResult {
        CaseResult {
            case: case.name.to_string(),
            description: case.description.to_string(),
            kernel: case.kernel.to_string(),
            kernel_source: KernelSource::Embedded {
                source: String::new(),
            },
            device: device.to_string(),
            executor: executor.to_string(),
            target: target.to_string(),
            seed: opts.seed,
            guard_seed: crate::pipeline::guard::guard_seed(opts.seed),
            lanes: opts.lanes,
            scalars: Vec::new(),
            tally: Tally::default(),
            pattern: Default::default(),
            guard_violations: Vec::new(),
            error: None,
            not_run: Some(reason),
            release_errors: Vec::new(),
            seconds: 0.0,
            unsettled: case.unsettled.map(str::to_string),
            forms: Vec::new(),
            step_budget: None,
            findings: None,
        }
    }
}

/// Run `case` with `kernel` from `code` on `dev`. Never panics on device
/// errors: they end up in `CaseResult::error`, with the lanes checked so far.
pub fn run_case(
    dev: &mut dyn Device,
    case: &Case,
    code: &CodeObject,
    kernel: &Kernel,
    kernel_source: KernelSource,
    opts: &Options,
) -> CaseResult {
    let started = Instant::now();
    let scalars = inputs::scalars(opts.seed ^ inputs::name_salt(case.name), case.scalar_args);
    let mut result = CaseResult {
        case: case.name.to_string(),
        description: case.description.to_string(),
        kernel: kernel.meta.name.clone(),
        kernel_source,
        device: String::new(),
        executor: dev.executor().to_string(),
        target: code.target.arch.clone(),
        seed: opts.seed,
        guard_seed: crate::pipeline::guard::guard_seed(opts.seed),
        lanes: opts.lanes,
        scalars: scalars.clone(),
        tally: Tally::default(),
        pattern: Default::default(),
        guard_violations: Vec::new(),
        error: None,
        not_run: None,
        release_errors: Vec::new(),
        seconds: 0.0,
        unsettled: case.unsettled.map(str::to_string),
        forms: Vec::new(),
        step_budget: (opts.step_budget != crate::platform::emu::DEFAULT_STEP_BUDGET)
            .then_some(opts.step_budget),
        findings: None,
    };
    if let Some(dump) = &opts.dump {
        dump.begin_case(case, code, kernel, &result);
    }
    if let Err(e) = execute(dev, case, code, kernel, opts, &scalars, &mut result) {
        result.error = Some(e);
    }
    if result.tally.lanes_failed > 0
        && matches!(result.kernel_source, KernelSource::Embedded { .. })
    {
        result.forms = word_forms(case, code, kernel);
    }
    result.seconds = started.elapsed().as_secs_f64();
    if let Some(dump) = &opts.dump {
        dump.end_case(&result);
    }
    result
}

/// The disassembly of the `v_xad_u32` behind each output word of an embedded
/// case kernel: the kernel's j-th `v_xad_u32` is the case table's op j (checked
/// by tests/isa/cases_encoding.rs), and op j names the word it stores to.
fn word_forms(case: &Case, code: &CodeObject, kernel: &Kernel) -> Vec<String> {
    // A workload case (SHA-256) has no op table: no instruction stands
    // behind one output word.
    let Some(words) = crate::model::cases::op_words(case.name) else {
        return Vec::new();
    };
    let instructions = xad_instructions(code, kernel);
    let mut forms = vec![String::new(); case.outputs_per_lane];
    for (word, text) in words.iter().zip(instructions) {
        if let Some(form) = word.and_then(|w| forms.get_mut(usize::from(w))) {
            *form = text;
        }
    }
    forms
}

/// The `v_xad_u32` instructions of `kernel` in program order, disassembled.
fn xad_instructions(code: &CodeObject, kernel: &Kernel) -> Vec<String> {
    kernel_instructions(code, kernel)
        .iter()
        .filter(|inst| inst.mnemonic().starts_with("v_xad_u32"))
        .map(ToString::to_string)
        .collect()
}

/// The instructions of `kernel` from its entry point to the end of its code
/// section (or the first undecodable padding word), in the code object's own
/// instruction set (gfx12 spells memory and waits differently). Empty when no
/// section holds the entry point.
pub fn kernel_instructions(code: &CodeObject, kernel: &Kernel) -> Vec<crate::isa::Inst> {
    let Some((base, text)) = code.code.iter().find(|(base, text)| {
        kernel.entry_address >= *base && kernel.entry_address - base < text.len() as u64
    }) else {
        return Vec::new();
    };
    let mut pos = (kernel.entry_address - base) as usize;
    // A processor with no row decodes as the generic target covering it, or
    // else as the default target's instruction set.
    let Some(isa) = crate::platform::target::find(&code.target.arch)
        .or_else(|| crate::platform::target::for_processor(&code.target.arch))
        .or_else(|| crate::platform::target::find(crate::platform::target::DEFAULT))
        .map(|t| t.isa)
    else {
        return Vec::new();
    };
    let mut insts = Vec::new();
    while let Ok(inst) = crate::isa::decode(isa, text, pos, *base) {
        pos += inst.len as usize;
        insts.push(inst);
    }
    insts
}

fn execute(
    dev: &mut dyn Device,
    case: &Case,
    code: &CodeObject,
    kernel: &Kernel,
    opts: &Options,
    scalars: &[u32],
    result: &mut CaseResult,
) -> Result<(), DeviceError> {
    let mut handle = KernelHandle::load(dev, code, kernel)?;
    let mut bufs: Vec<GuardedBuffer> = Vec::new();
    let outcome = run_chunks(&mut handle, &mut bufs, case, opts, scalars, result);
    for buf in bufs {
        handle.free_guarded(buf);
    }
    result.release_errors.extend(handle.release());
    outcome
}

/// Lanes per dispatch: whole pieces of the input generator's block, bounding
/// the words per dispatch rather than the lanes, so a case with 90 outputs
/// per lane uses no more memory than the basic one.
fn chunk_lanes(case: &Case, opts: &Options) -> usize {
    let block = inputs::BLOCK_LANES;
    let widest = case.outputs_per_lane.max(case.inputs.words[0]);
    ((opts.chunk_lanes / widest).max(1).div_ceil(block) * block).min(opts.lanes as usize)
}

/// The case's lanes, one chunk per dispatch: size the buffers, stage the
/// inputs, launch, read back and compare, until every lane ran or a signal
/// asks to stop. `bufs` stay the caller's, so they are freed on every path.
fn run_chunks(
    handle: &mut KernelHandle<'_>,
    bufs: &mut Vec<GuardedBuffer>,
    case: &Case,
    opts: &Options,
    scalars: &[u32],
    result: &mut CaseResult,
) -> Result<(), DeviceError> {
    let k = case.outputs_per_lane;
    let [wa, wb, wc] = case.inputs.words;
    let chunk = chunk_lanes(case, opts);
    let mut host = HostBuffers::default();
    let sources = |lane: u64| case.inputs.first_words(opts.seed, lane);
    // A probe case on an executor: its probe words are classified, not compared.
    let mut classifier = (!case.probes.is_empty() && !handle.device().models_isa())
        .then(|| Classifier::new(case.probes));
    let mut first_lane = 0u64;
    while first_lane < opts.lanes {
        if opts.interrupt.requested().is_some() {
            break; // a dispatch boundary: the session marks the run interrupted
        }
        let count = chunk.min((opts.lanes - first_lane) as usize);
        size_buffers(handle, bufs, count, [wa, wb, wc, k], result.guard_seed)?;
        let ranges = [
            (bufs[0].ptr(), count * wa),
            (bufs[1].ptr(), count * wb),
            (bufs[2].ptr(), count * wc),
            (bufs[3].ptr(), count * k),
        ];
        stage(
            handle.device(),
            &mut host,
            &bufs,
            &ranges,
            Chunk {
                case,
                seed: opts.seed,
                first_lane,
                count,
                scalars,
            },
        )?;
        launch(handle, bufs, count, scalars, opts.timeout)?;
        let first_dispatch = (classifier.as_ref())
            .map(|_| dispatch_again(handle, bufs, [count, k], scalars, opts.timeout))
            .transpose()?;
        // Before anything touches `out`: which words the device left undefined or unsettled.
        let dev = handle.device();
        let taint = dev.definedness(bufs[3].ptr(), count * k)?;
        for buf in bufs.iter() {
            buf.check(dev, first_lane, count as u64, &mut result.guard_violations)?;
        }
        let got: &[u32] = match dev.host_words(&ranges[3..]) {
            Some(views) => views?.pop().ok_or_else(views_refused)?,
            None => read_staged(dev, &mut host.staging, &bufs[3], case, count)?,
        };
        let compare = Compare {
            first_lane,
            outputs_per_lane: k,
            sources: &sources,
            prefill: prefill_of(case, &host.prefill, count * k),
            expected: &host.expected[..count * k],
            got,
            taint: &taint,
        };
        let probed = classifier.as_mut().zip(first_dispatch.as_deref());
        record(result, &compare, case, probed, opts);
        first_lane += count as u64;
        if let Some(done) = &opts.lanes_done {
            done.fetch_add(count as u64, std::sync::atomic::Ordering::Relaxed);
        }
    }
    Ok(())
}

/// The `out` words of the dispatch just made (`count` lanes), copied into
/// `staging`, for a device without host views.
fn read_staged<'a>(
    dev: &mut dyn Device,
    staging: &'a mut Option<Staging>,
    out: &GuardedBuffer,
    case: &Case,
    count: usize,
) -> Result<&'a [u32], DeviceError> {
    let words = count * case.outputs_per_lane;
    let staged = staging.get_or_insert_with(Staging::default);
    staged.resize(count, case.inputs.words, case.outputs_per_lane);
    out.read(dev, &mut staged.got[..words])?;
    Ok(&staged.got[..words])
}

/// Count one dispatch: the tally, where its verdicts fall, and the dump;
/// for a probe case on an executor (`probed`: its classifier and the first
/// of the chunk's two dispatches), the findings instead ([`classify`]).
fn record(
    result: &mut CaseResult,
    compare: &Compare<'_>,
    case: &Case,
    probed: Option<(&mut Classifier, &[u32])>,
    opts: &Options,
) {
    if let Some((classifier, first)) = probed {
        let k = compare.outputs_per_lane;
        classifier.compare_repeat(compare.first_lane, k, first, compare.got);
        return classify(classifier, compare, result, case, opts);
    }
    let before = (result.tally.lanes_failed, result.tally.words_unsettled);
    result.tally.add(compare, opts.keep);
    if compare.taint.is_empty()
        && before == (result.tally.lanes_failed, result.tally.words_unsettled)
    {
        // Clean by the tally's own count: no second pass over the words.
        let count = (compare.got.len() / compare.outputs_per_lane.max(1)) as u64;
        result
            .pattern
            .add_passing(compare.first_lane, count, opts.lanes, case.wave_size);
    } else {
        result.pattern.add(compare, opts.lanes, case.wave_size);
    }
    if let Some(dump) = &opts.dump {
        dump.chunk(compare);
    }
}

/// A probe case on an executor: read the words of the dispatch just made
/// (`count` lanes of `k` words), then dispatch the same inputs again (the
/// caller reads the second), so a word that changes between two dispatches
/// is seen.
fn dispatch_again(
    handle: &mut KernelHandle<'_>,
    bufs: &[GuardedBuffer],
    [count, k]: [usize; 2],
    scalars: &[u32],
    timeout: Duration,
) -> Result<Vec<u32>, DeviceError> {
    let mut first = vec![0u32; count * k];
    bufs[3].read(handle.device(), &mut first)?;
    launch(handle, bufs, count, scalars, timeout)?;
    Ok(first)
}

/// A probe case's dispatch on an executor: the probe words (1..) are
/// classified into findings; only word 0, the plain instruction, is
/// compared with the model and counted. A dump keeps every word, with the
/// probe words as their own expected values: their verdicts are the
/// findings, not the model's guess.
fn classify(
    classifier: &mut Classifier,
    cmp: &Compare<'_>,
    result: &mut CaseResult,
    case: &Case,
    opts: &Options,
) {
    let k = cmp.outputs_per_lane;
    classifier.add(cmp.first_lane, k, cmp.got, cmp.sources);
    result.findings = Some(classifier.findings());
    let plain = |words: &[u32]| -> Vec<u32> { words.iter().step_by(k).copied().collect() };
    let (expected, got) = (plain(cmp.expected), plain(cmp.got));
    let no_taint = crate::platform::device::Definedness::default();
    let word0 = Compare {
        outputs_per_lane: 1,
        expected: &expected,
        got: &got,
        taint: &no_taint,
        ..*cmp
    };
    result.tally.add(&word0, opts.keep);
    result
        .pattern
        .add_classified(&word0, opts.lanes, case.wave_size);
    if let Some(dump) = &opts.dump {
        let mut expected = cmp.expected.to_vec();
        for (e, g) in expected.chunks_mut(k).zip(cmp.got.chunks(k)) {
            e[1..].copy_from_slice(&g[1..]);
        }
        dump.chunk(&Compare {
            expected: &expected,
            ..*cmp
        });
    }
}

/// What [`prepare`] needs to know about one chunk.
struct Chunk<'a> {
    case: &'a Case,
    seed: u64,
    first_lane: u64,
    /// Lanes in the chunk.
    count: usize,
    scalars: &'a [u32],
}

/// Generate a chunk's inputs, expected values and poisoned output: straight
/// into device memory when the host can address it (`ranges`: a, b, c, out),
/// else into staging copies written to `bufs`.
fn stage(
    dev: &mut dyn Device,
    host: &mut HostBuffers,
    bufs: &[GuardedBuffer],
    ranges: &[(DevicePtr, usize); 4],
    chunk: Chunk<'_>,
) -> Result<(), DeviceError> {
    let Chunk {
        case,
        seed,
        first_lane,
        count,
        scalars,
    } = chunk;
    let k = case.outputs_per_lane;
    host.expected.resize(count * k, 0);
    match dev.host_words(ranges) {
        Some(views) => {
            let [a, b, c, got]: [&mut [u32]; 4] = views?.try_into().map_err(|_| views_refused())?;
            prepare(
                case,
                seed,
                first_lane,
                scalars,
                Io { a, b, c, got },
                &mut host.expected,
                &mut host.prefill,
            );
        }
        None => {
            let staged = host.staging.get_or_insert_with(Staging::default);
            staged.resize(count, case.inputs.words, k);
            let io = Io {
                a: &mut staged.a,
                b: &mut staged.b,
                c: &mut staged.c,
                got: &mut staged.got,
            };
            prepare(
                case,
                seed,
                first_lane,
                scalars,
                io,
                &mut host.expected,
                &mut host.prefill,
            );
            for (buf, words) in bufs
                .iter()
                .zip([&staged.a, &staged.b, &staged.c, &staged.got])
            {
                buf.write(dev, words)?;
            }
        }
    }
    Ok(())
}

/// Make `bufs` the a, b, c and out buffers of a `count`-lane chunk with
/// `per_lane` words per lane in each. Buffers are exactly `count` lanes long so the rear guards
/// sit right after the last lane; only a shorter final chunk reallocates.
fn size_buffers(
    handle: &mut KernelHandle<'_>,
    bufs: &mut Vec<GuardedBuffer>,
    count: usize,
    per_lane: [usize; 4],
    guard_seed: u64,
) -> Result<(), DeviceError> {
    if bufs
        .first()
        .is_some_and(|b| b.bytes == count * per_lane[0] * 4)
    {
        return Ok(());
    }
    for buf in bufs.drain(..) {
        handle.free_guarded(buf);
    }
    for (name, per_lane) in ["a", "b", "c", "out"].into_iter().zip(per_lane) {
        bufs.push(GuardedBuffer::alloc(
            handle.device(),
            name,
            count * per_lane * 4,
            per_lane,
            guard_seed,
        )?);
    }
    Ok(())
}

/// A device that offered host views must give one per range asked for.
fn views_refused() -> DeviceError {
    DeviceError::Refused("the device returned the wrong number of host views".into())
}

/// Launch one chunk: the a, b, c and out buffers, the lane count and the
/// case's scalars, over as many workgroups as `count` lanes need.
pub(crate) fn launch(
    handle: &mut KernelHandle<'_>,
    bufs: &[GuardedBuffer],
    count: usize,
    scalars: &[u32],
    timeout: Duration,
) -> Result<(), DeviceError> {
    let mut args: Vec<ArgValue> = bufs.iter().map(|b| ArgValue::Pointer(b.ptr())).collect();
    args.push(ArgValue::U32(count as u32));
    args.extend(scalars.iter().map(|&s| ArgValue::U32(s)));
    let per_block = handle.block().iter().product::<u32>().max(1) as usize;
    handle.launch(&args, count.div_ceil(per_block) as u32, timeout)
}

/// Host-side buffers for one chunk, reused across chunks.
#[derive(Default)]
struct HostBuffers {
    /// The model's output words.
    expected: Vec<u32>,
    /// Prefill words (only for cases that keep lanes).
    prefill: Vec<u32>,
    /// Copies of the device buffers, for devices without host views.
    staging: Option<Staging>,
}

/// What `out`'s first `words` held before the launch: the kept words
/// (`prefill`) of a case that keeps lanes, else the poison of the expected
/// values (`prefill` is then empty).
fn prefill_of<'a>(case: &Case, prefill: &'a [u32], words: usize) -> Prefill<'a> {
    if case.keeps_lanes {
        Prefill::Words(&prefill[..words])
    } else {
        Prefill::Poisoned
    }
}

/// Host copies of a chunk's device buffers.
#[derive(Default)]
struct Staging {
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    /// Poisoned output before launch, results after.
    got: Vec<u32>,
}

impl Staging {
    fn resize(&mut self, lanes: usize, words: [usize; 3], k: usize) {
        for (v, w) in [&mut self.a, &mut self.b, &mut self.c]
            .into_iter()
            .zip(words)
        {
            v.resize(lanes * w, 0);
        }
        self.got.resize(lanes * k, 0);
    }
}

/// Where a chunk's sources and output live before launch: device memory
/// seen from the host, or staging copies.
struct Io<'a> {
    a: &'a mut [u32],
    b: &'a mut [u32],
    c: &'a mut [u32],
    got: &'a mut [u32],
}

/// Lanes per parallel piece of preparation: cache-sized, a multiple of 64 so
/// no wave straddles two pieces.
const PREP_LANES: usize = inputs::BLOCK_LANES;

/// Generate sources, run the model and poison the output for the chunk of
/// lanes starting at `first_lane`: one parallel pass of pieces, each done
/// start to finish while its lanes are in cache.
fn prepare(
    case: &Case,
    seed: u64,
    first_lane: u64,
    scalars: &[u32],
    io: Io<'_>,
    expected: &mut [u32],
    prefill: &mut Vec<u32>,
) {
    let k = case.outputs_per_lane;
    let [wa, wb, wc] = case.inputs.words;
    let count = io.a.len() / wa;
    if case.keeps_lanes {
        prefill.resize(count * k, 0);
    }
    let words = PREP_LANES * k;
    // Without a prefill the chained `None`s pair with every piece.
    let prefills = prefill[..if case.keeps_lanes { count * k } else { 0 }]
        .chunks_mut(words)
        .map(Some)
        .chain(std::iter::repeat_with(|| None));
    let pieces: Vec<PrepPiece<'_>> =
        io.a.chunks_mut(PREP_LANES * wa)
            .zip(io.b.chunks_mut(PREP_LANES * wb))
            .zip(io.c.chunks_mut(PREP_LANES * wc))
            .zip(expected[..count * k].chunks_mut(words))
            .zip(io.got.chunks_mut(words))
            .zip(prefills)
            .map(|(((((a, b), c), expected), got), prefill)| PrepPiece {
                a,
                b,
                c,
                prefill,
                expected,
                got,
            })
            .collect();
    pieces.into_par_iter().enumerate().for_each(|(i, piece)| {
        piece.prepare(case, seed, first_lane + (i * PREP_LANES) as u64, scalars)
    });
}

/// One piece of a chunk, prepared on one thread.
struct PrepPiece<'a> {
    a: &'a mut [u32],
    b: &'a mut [u32],
    c: &'a mut [u32],
    /// Only for cases that keep lanes.
    prefill: Option<&'a mut [u32]>,
    expected: &'a mut [u32],
    got: &'a mut [u32],
}

impl PrepPiece<'_> {
    fn prepare(self, case: &Case, seed: u64, first_lane: u64, scalars: &[u32]) {
        let PrepPiece {
            a,
            b,
            c,
            prefill,
            expected,
            got,
        } = self;
        (case.inputs.fill)(seed, first_lane, a, b, c);
        let count = a.len() / case.inputs.words[0];
        // The model sees this piece's lanes only: a model reads lanes of its
        // own wave at most, and pieces are whole waves.
        let (a, b, c) = (&*a, &*b, &*c);
        match prefill {
            None => {
                (case.model)(
                    &LaneData {
                        a,
                        b,
                        c,
                        scalars,
                        prefill: &[],
                        count,
                    },
                    0..count,
                    expected,
                );
                got.iter_mut()
                    .zip(expected.iter())
                    .for_each(|(g, &e)| *g = check::poison(e));
            }
            Some(prefill) => {
                // Lanes the kernel must not write keep a random prefill R. Words
                // it must write are poisoned (`check::poison`) from their
                // expected value, so an unwritten word can never pass: run the
                // model on R, poison the words it changes, then run it again on
                // the poisoned prefill (written words do not depend on the prefill).
                inputs::fill_prefill(seed, first_lane, case.outputs_per_lane, prefill);
                (case.model)(
                    &LaneData {
                        a,
                        b,
                        c,
                        scalars,
                        prefill,
                        count,
                    },
                    0..count,
                    expected,
                );
                prefill.iter_mut().zip(expected.iter()).for_each(|(p, &e)| {
                    if *p != e {
                        *p = check::poison(e);
                    }
                });
                (case.model)(
                    &LaneData {
                        a,
                        b,
                        c,
                        scalars,
                        prefill,
                        count,
                    },
                    0..count,
                    expected,
                );
                got.copy_from_slice(prefill);
            }
        }
    }
}

/// A code object chosen for a case: the embedded one, or the user's `--kernel`.
pub struct Loaded {
    pub code: CodeObject,
    pub source: KernelSource,
}

impl Loaded {
    /// Run `case` with `kernel` of this code object on `dev` ([`run_case`]).
    pub fn run(
        &self,
        dev: &mut dyn Device,
        case: &Case,
        kernel: &Kernel,
        opts: &Options,
    ) -> CaseResult {
        run_case(dev, case, &self.code, kernel, self.source.clone(), opts)
    }
}

/// Resolve which kernel of `loaded` runs `case`: the case's kernel name if the
/// code object has it, else its only kernel.
pub fn kernel_for<'c>(loaded: &'c Loaded, case: &Case) -> Result<&'c Kernel, String> {
    if let Ok(k) = loaded.code.kernel(case.kernel) {
        return Ok(k);
    }
    match loaded.code.kernels.as_slice() {
        [only] => Ok(only),
        [] => Err("the code object contains no kernels".into()),
        many => Err(format!(
            "the code object has {} kernels ({}) and none is named {}",
            many.len(),
            loaded.code.kernel_names().join(", "),
            case.kernel
        )),
    }
}

/// The embedded code object of `case` built for `target`.
pub fn embedded(case: &Case, target: &crate::platform::target::Target) -> Result<Loaded, String> {
    let e =
        crate::platform::embedded::code_object(target, case.kernel).map_err(|e| e.to_string())?;
    parse_embedded(e)
}

/// An embedded code object, parsed.
pub fn parse_embedded(e: &crate::platform::embedded::EmbeddedCodeObject) -> Result<Loaded, String> {
    let code =
        CodeObject::parse(e.bytes).map_err(|err| format!("embedded kernel {}: {err}", e.name))?;
    Ok(Loaded {
        code,
        source: KernelSource::Embedded {
            source: e.source.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(case: &str) -> Vec<String> {
        let case = crate::model::cases::select(case).unwrap().remove(0);
        let loaded = embedded(&case, crate::platform::target::find("gfx1100").unwrap()).unwrap();
        word_forms(&case, &loaded.code, kernel_for(&loaded, &case).unwrap())
    }

    /// An embedded kernel goes through the same kernel handle as a user's:
    /// its `v_xad_u32` patched into `v_sin_f32 v6, v4` and `s_nop 0` (gfx12),
    /// the refusal names the instruction LLVM reads there.
    #[test]
    fn an_embedded_kernels_refused_opcode_is_named_by_llvm() {
        let case = crate::model::cases::select("basic").unwrap().remove(0);
        let target = crate::platform::target::find("gfx1201").unwrap();
        let mut loaded = embedded(&case, target).unwrap();
        let sources: u32 = 258 | 259 << 9 | 260 << 18;
        let xad = [0xD645_0005u32, sources].map(u32::to_le_bytes).concat();
        let mut bytes = loaded.code.bytes.clone();
        let at = bytes
            .windows(8)
            .position(|w| w == xad)
            .expect("v_xad_u32 v5, v2, v3, v4");
        let patched = [0x7E0C_6B04u32, 0xBF80_0000].map(u32::to_le_bytes).concat();
        bytes[at..at + 8].copy_from_slice(&patched);
        loaded.code = CodeObject::parse(&bytes).unwrap();
        let kernel = kernel_for(&loaded, &case).unwrap().clone();
        let mut dev = crate::platform::emu::EmuDevice::for_target(target);
        let opts = Options {
            lanes: 256,
            ..Options::default()
        };
        let result = run_case(
            &mut dev,
            &case,
            &loaded.code,
            &kernel,
            loaded.source.clone(),
            &opts,
        );
        let error = result.error.expect("refused").to_string();
        if crate::platform::toolchain::disassemble_bytes("gfx1201", &patched).is_none() {
            eprintln!("SKIPPED: no LLVM with llvm-mc proves for gfx1201: {error}");
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "no llvm-mc in CI"
            );
            assert!(error.contains("that the emulator knows"), "{error}");
            return;
        }
        assert!(
            error.contains("decoded as VOP1: v_sin_f32_e32 v6, v4 (VOP1 opcode 53) is a gfx1201 instruction the emulator does not implement (named by llvm-mc"),
            "{error}"
        );
    }

    #[test]
    fn failing_words_are_named_by_their_instruction() {
        assert_eq!(forms("basic"), vec!["v_xad_u32 v5, v2, v3, v4".to_string()]);
        // Word order differs from program order here: each k emits shl, shl
        // bound_ctrl:1, shr, ... but stores row_shl:1..15 to words 0..14 and
        // the bound_ctrl:1 forms to 15..29.
        let shift = forms("dpp16_shift_w32");
        assert_eq!(shift.len(), 75);
        assert!(
            shift[0].contains("row_shl:1 ") && !shift[0].contains("bound_ctrl"),
            "{}",
            shift[0]
        );
        assert!(
            shift[17].contains("row_shl:3 ") && shift[17].contains("bound_ctrl:1"),
            "{}",
            shift[17]
        );
        assert!(
            shift.iter().all(|f| f.starts_with("v_xad_u32")),
            "every word is named"
        );
        let inline = forms("inline_src0_w32");
        assert!(
            inline[89].contains("0.15915"),
            "1/(2*pi) in the last word: {}",
            inline[89]
        );
    }
}
