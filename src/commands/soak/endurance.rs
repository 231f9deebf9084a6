//! `xad-harness soak`: `v_xad_u32` under load for a while, at the device's
//! rate. The kernel (`kernels/include/xad_soak.inc`) generates its inputs on
//! the device with [`crate::model::inputs`]'s keyed hash, computes with `v_xad_u32`,
//! checks every result with an independent `v_xor_b32` + add, and leaves one
//! 8-word record per lane (mismatch count, the first mismatch, a checksum of
//! every result) and two words per wave (hardware id, mismatch count). The
//! host reads the per-wave words of every dispatch (coverage, and which
//! waves to look into), the records of those waves' lanes, and the records
//! of a random sample of other lanes, and re-computes each of those lanes on
//! the CPU from the seed. Nothing else is per lane on the host, so the
//! dispatch rate is the device's.
//!
//! Exit codes (docs/soak.md): 0 nothing wrong; 1 a mismatch the host
//! confirmed (the device recorded inputs the seed gives and a result that is
//! not `(a ^ b) + c`), or a sampled lane whose checksum the host cannot
//! reproduce while the device recorded nothing there (its results were wrong
//! and the on-device check missed it); 3 a device or runtime fault, or a
//! device record the host cannot reproduce (wrong inputs, or a correct result
//! flagged: the generator or the check went wrong on the device, not
//! `v_xad_u32`); 1 wins over 3; 77 `--backend hip` without a device.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::error::{exit, Error, Result};
use crate::isa::Generation;
use crate::model::inputs;
use crate::pipeline::handle::KernelHandle;
use crate::pipeline::interrupt::Interrupt;
use crate::platform::backend::{self, BackendChoice, Identity};
use crate::platform::codeobj::{kernarg, CodeObject};
use crate::platform::device::{Device, DeviceError, DevicePtr};
use crate::platform::target::{Choice, Target};
use crate::report;
use crate::report::document::soak::{self, SoakReport};

/// Words of a lane's record: [mismatches, first iteration, a, b, c, got, check, checksum].
pub const RECORD_WORDS: usize = 8;
/// Words per wave: [hardware id, iterations with a mismatch in the wave].
pub const WAVE_WORDS: usize = 2;
/// Work-items per workgroup (the kernel's `.reqd_workgroup_size`).
pub const GROUP: u64 = 256;
/// Most iterations per lane and dispatch: keeps one wave under the
/// emulator's step budget (about 60 instructions an iteration) and a
/// hardware dispatch short; bigger dispatches grow the grid instead.
pub const MAX_ITERATIONS: u32 = 4096;
/// `first iteration` of a record with no mismatch.
pub const NO_MISMATCH: u32 = u32::MAX;
/// Shortest and longest `--duration`.
pub const MIN_DURATION: Duration = Duration::from_millis(100);
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);
/// Mismatch records printed (all are counted).
pub const MAX_SHOWN: usize = 10;

/// `--duration`: seconds (`90`, `1.5`), or with a unit (`500ms`, `30s`,
/// `10m`, `2h`), from 0.1 s to 7 days.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let bad = || {
        format!(
            "must be a duration from 0.1 s to 7 days (e.g. 30, 30s, 500ms, 10m, 2h), got {text:?}"
        )
    };
    let t = text.trim();
    let (digits, scale) = if let Some(d) = t.strip_suffix("ms") {
        (d, 0.001)
    } else if let Some(d) = t.strip_suffix('s') {
        (d, 1.0)
    } else if let Some(d) = t.strip_suffix('m') {
        (d, 60.0)
    } else if let Some(d) = t.strip_suffix('h') {
        (d, 3600.0)
    } else {
        (t, 1.0)
    };
    let value: f64 = digits.trim().parse().map_err(|_| bad())?;
    let seconds = value * scale;
    if !seconds.is_finite()
        || seconds < MIN_DURATION.as_secs_f64()
        || seconds > MAX_DURATION.as_secs_f64()
    {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// One dispatch's shape: lanes (a multiple of [`GROUP`]) and iterations per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub lanes: u64,
    pub iterations: u32,
}

impl Shape {
    pub fn xads(&self) -> u64 {
        self.lanes * u64::from(self.iterations)
    }
}

/// Where a shape may go: the first dispatch's, and the largest grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub start: Shape,
    pub max_lanes: u64,
    /// The wall time one dispatch should take.
    pub dispatch_time: Duration,
}

impl Limits {
    /// Hardware: a grid of 256 work-items per compute unit to start, up to
    /// 4M lanes (128 MiB of records), dispatches of about 0.25 s. The
    /// emulator: small grids and 0.1 s, so a short soak still takes several
    /// dispatches.
    pub fn for_device(hardware: bool, compute_units: u32, memory_bytes: u64) -> Limits {
        let per_lane = (RECORD_WORDS * 4 + WAVE_WORDS * 4) as u64;
        // At most a quarter of the device's memory for the records.
        let by_memory = (memory_bytes / 4 / per_lane / GROUP * GROUP).max(GROUP);
        if hardware {
            let units = u64::from(compute_units.max(1));
            Limits {
                // Small, so a slow device (or the emulated HIP library) does
                // not start with a long dispatch; on a GPU the doubling below
                // reaches full size within a few milliseconds.
                start: Shape {
                    lanes: (units * GROUP).min(1 << 22).min(by_memory),
                    iterations: 16,
                },
                max_lanes: (1u64 << 22).min(by_memory),
                dispatch_time: Duration::from_millis(250),
            }
        } else {
            Limits {
                start: Shape {
                    lanes: 8192u64.min(by_memory),
                    iterations: 16,
                },
                max_lanes: (1u64 << 18).min(by_memory),
                dispatch_time: Duration::from_millis(100),
            }
        }
    }
}

/// The next dispatch's shape from the last one's wall time: double the work
/// (iterations first, up to [`MAX_ITERATIONS`], then lanes) while a dispatch
/// took under half the target; halve it (lanes first) when it took over
/// twice; and never plan much past `left`, the time the soak has left.
pub fn next_shape(last: Shape, took: Duration, limits: &Limits, left: Duration) -> Shape {
    let mut s = last;
    let target = limits.dispatch_time.min(left.max(Duration::from_millis(1)));
    if took < target / 2 {
        if s.iterations < MAX_ITERATIONS {
            s.iterations = (s.iterations * 2).min(MAX_ITERATIONS);
        } else if s.lanes < limits.max_lanes {
            s.lanes = (s.lanes * 2).min(limits.max_lanes);
        }
    } else if took > target * 2 {
        if s.lanes > limits.start.lanes.min(GROUP * 4) {
            s.lanes = (s.lanes / 2 / GROUP * GROUP).max(GROUP);
        } else if s.iterations > 1 {
            s.iterations /= 2;
        }
    }
    s
}

/// Where a dispatch of `shape` starting at input index `index` really goes:
/// every index it covers (`index + lane + j * lanes`) shares one high half
/// (the kernel adds in 32 bits, and its keys belong to one high half), so it
/// takes fewer iterations near the end of a high half, or starts at the next.
/// Returns (first index, iterations).
pub fn fit(index: u64, shape: Shape) -> (u64, u32) {
    let left = (1u64 << 32) - (index & 0xffff_ffff);
    if left < shape.lanes {
        return ((index | 0xffff_ffff) + 1, shape.iterations);
    }
    (
        index,
        shape.iterations.min((left / shape.lanes) as u32).max(1),
    )
}

/// `checksum` after one more result: rotate left by one, xor (the kernel's
/// `v_alignbit_b32 x, x, x, 31` then `v_xor_b32`).
#[inline]
pub fn fold(checksum: u32, got: u32) -> u32 {
    checksum.rotate_left(1) ^ got
}

/// One lane's record, as the kernel stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub mismatches: u32,
    pub first_iteration: u32,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub got: u32,
    /// What the independent check computed.
    pub check: u32,
    pub checksum: u32,
}

impl Record {
    pub fn from_words(w: &[u32]) -> Record {
        Record {
            mismatches: w[0],
            first_iteration: w[1],
            a: w[2],
            b: w[3],
            c: w[4],
            got: w[5],
            check: w[6],
            checksum: w[7],
        }
    }
}

/// What one dispatch computed for one lane, as the host re-computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dispatched {
    pub keys: [u32; 6],
    /// High half of every input index of the dispatch.
    pub hi: u32,
    pub lo_base: u32,
    pub stride: u32,
    pub iterations: u32,
}

impl Dispatched {
    /// Input index (low half) of iteration `j` of `lane`.
    pub fn lo(&self, lane: u32, j: u32) -> u32 {
        self.lo_base
            .wrapping_add(lane)
            .wrapping_add(j.wrapping_mul(self.stride))
    }

    /// The lane's correct checksum.
    pub fn checksum(&self, lane: u32) -> u32 {
        (0..self.iterations).fold(0, |cs, j| {
            let (a, b, c) = inputs::uniform_sources_keyed(&self.keys, self.lo(lane, j));
            fold(cs, (a ^ b).wrapping_add(c))
        })
    }
}

/// The host's verdict on one lane's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No mismatch recorded and the checksum is the CPU's.
    Clean,
    /// The device recorded a mismatch the host reproduces: the inputs are the
    /// seed's, the independent check computed `(a ^ b) + c`, `got` is not it.
    Confirmed { expected: u32 },
    /// Nothing recorded, but the checksum differs: some result was wrong and
    /// the device's check did not see it.
    ChecksumOnly { expected: u32 },
    /// A record the host cannot reproduce: what the seed gives, what was recorded.
    Unreproduced {
        why: String,
        a: u32,
        b: u32,
        c: u32,
        expected: u32,
    },
}

/// Re-check `lane`'s record of dispatch `d` on the CPU.
pub fn recheck(d: &Dispatched, lane: u32, r: &Record) -> Verdict {
    let mut flagged = String::new();
    if r.mismatches == 0 {
        if r.first_iteration != NO_MISMATCH {
            flagged = format!(
                "first iteration {} with no mismatch counted",
                r.first_iteration
            );
        } else {
            let expected = d.checksum(lane);
            return if r.checksum == expected {
                Verdict::Clean
            } else {
                Verdict::ChecksumOnly { expected }
            };
        }
    }
    let j = r.first_iteration;
    if flagged.is_empty() && j >= d.iterations {
        flagged = format!(
            "first iteration {j} is outside the dispatch's {} iterations",
            d.iterations
        );
    }
    let (a, b, c) =
        inputs::uniform_sources_keyed(&d.keys, d.lo(lane, j.min(d.iterations.saturating_sub(1))));
    let expected = (a ^ b).wrapping_add(c);
    if flagged.is_empty() {
        if (r.a, r.b, r.c) != (a, b, c) {
            flagged = "the device's inputs are not the seed's (the on-device generator went wrong)"
                .into();
        } else if r.check != expected {
            flagged = "the independent check did not compute (a ^ b) + c".into();
        } else if r.got == expected {
            flagged = "v_xad_u32's result is right: the device's compare went wrong".into();
        } else {
            return Verdict::Confirmed { expected };
        }
    }
    Verdict::Unreproduced {
        why: flagged,
        a,
        b,
        c,
        expected,
    }
}

/// A compute unit (gfx9) or WGP (gfx10+) as the hardware id names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Unit {
    pub se: u32,
    /// Shader array (SH on gfx9, SA on gfx10+).
    pub array: u32,
    /// CU_ID (gfx9) or WGP_ID (gfx10+).
    pub id: u32,
}

/// The unit in a hardware id word, by the generation's layout
/// ([`Generation::hw_id`]: gfx9 HW_ID, gfx10+ HW_ID1).
pub fn decode_hw_id(generation: Generation, word: u32) -> Unit {
    let layout = generation.hw_id();
    let get = |(shift, bits): (u32, u32)| (word >> shift) & ((1 << bits) - 1);
    Unit {
        se: get(layout.se),
        array: get(layout.array),
        id: get(layout.unit),
    }
}

/// How a unit is named in output: `SE0.SH1.CU3` or `SE0.SA1.WGP3`.
pub fn unit_name(generation: Generation, u: Unit) -> String {
    let layout = generation.hw_id();
    format!(
        "SE{}.{}{}.{}{}",
        u.se, layout.array_word, u.array, layout.unit_word, u.id
    )
}

/// A small counter-based generator for the sample (splitmix64 of a counter).
fn sample_lane(seed: u64, dispatch: u64, n: u64, lanes: u64) -> u64 {
    let mut z =
        seed ^ dispatch.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ n.wrapping_mul(0xd1b5_4a32_d192_ed03);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % lanes
}

/// What to soak.
pub struct Request {
    pub duration: Duration,
    pub backend: BackendChoice,
    pub device: Option<usize>,
    pub seed: u64,
    /// Unrecorded lanes re-checked per dispatch (`u64::MAX`: every lane).
    pub sample: u64,
    pub timeout: Duration,
    pub interrupt: Option<Interrupt>,
    /// Exactly these dispatches of this shape, whatever the duration (tests:
    /// a known amount of work); `None` adapts the shape to the device.
    pub fixed: Option<(Shape, u64)>,
}

/// Lanes re-checked per dispatch besides the recorded ones.
pub const DEFAULT_SAMPLE: u64 = 64;

/// One printed mismatch.
#[derive(Debug, Clone)]
pub struct Finding {
    pub dispatch: u64,
    /// Global lane in the dispatch.
    pub lane: u64,
    /// The input index of the recorded iteration (hi:lo), or of iteration 0
    /// when only the checksum differs.
    pub index: u64,
    pub iteration: Option<u32>,
    pub record: Record,
    pub verdict: Verdict,
}

/// Samples a [`Timeline`] keeps at most.
pub const TIMELINE_SAMPLES: usize = 512;

/// The soak's progress over time, for the dispatch rate its page plots:
/// after a dispatch, `[elapsed seconds, dispatches, lane-iterations]` so far.
/// Bounded whatever the soak's length: when [`TIMELINE_SAMPLES`] are kept,
/// every other one is dropped and from then on only every second dispatch
/// (then every fourth, ...) is sampled, so a week's soak keeps a few
/// kilobytes and an even picture of it.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    samples: Vec<[f64; 3]>,
    /// Sample every `stride`-th dispatch (0 counts as 1).
    stride: u64,
}

impl Timeline {
    /// Dispatch number `dispatches` (from 1) ended `seconds` into the soak,
    /// `xads` lane-iterations done.
    pub fn push(&mut self, dispatches: u64, seconds: f64, xads: u64) {
        let stride = self.stride.max(1);
        if dispatches % stride != 0 {
            return;
        }
        self.samples.push([seconds, dispatches as f64, xads as f64]);
        if self.samples.len() >= TIMELINE_SAMPLES {
            let mut i = 0;
            self.samples.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.stride = stride * 2;
        }
    }

    pub fn samples(&self) -> &[[f64; 3]] {
        &self.samples
    }
}

/// What a soak found, for the text and the JSON report ([`document`]).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub executor: String,
    pub target: String,
    pub seed: u64,
    pub seconds: f64,
    pub dispatches: u64,
    /// Lane-iterations computed and checked on the device (one `v_xad_u32` each).
    pub xads: u64,
    pub xads_per_second: f64,
    /// Progress over time ([`Timeline`]).
    pub timeline: Timeline,
    pub min_shape: [u64; 2],
    pub max_shape: [u64; 2],
    /// Next input index after the last dispatch (the covered range is 0 up to here, minus skipped tails of high halves).
    pub next_index: u64,
    /// Mismatching lane-iterations the device counted.
    pub device_mismatches: u64,
    pub lanes_rechecked: u64,
    pub confirmed: u64,
    pub checksum_only: u64,
    pub unreproduced: u64,
    pub findings: Vec<Finding>,
    /// Waves per unit, by name.
    pub coverage: BTreeMap<String, u64>,
    /// Per unit, the iterations in which one of its waves had a mismatch,
    /// summed over its waves (the count the device writes beside each
    /// wave's hardware id); units with none are left out.
    pub unit_mismatches: BTreeMap<String, u64>,
    /// Compute units the runtime reports (`None` on the emulator).
    pub runtime_compute_units: Option<u32>,
    pub emulated_compute_units: Option<u32>,
    pub interrupted: Option<String>,
    /// The error that stopped the soak early (a runtime status, a failed
    /// allocation, a hang); what ran before it is reported all the same.
    pub error: Option<String>,
    /// Device memory the device would not give back (the one release rule,
    /// [`crate::pipeline::handle`]); absent from the JSON when there is none.
    pub release_errors: Vec<String>,
    pub exit_code: i32,
}

impl Outcome {
    fn code(&self) -> i32 {
        if self.confirmed + self.checksum_only > 0 {
            exit::MISMATCH
        } else if self.unreproduced > 0 || self.error.is_some() || !self.release_errors.is_empty() {
            exit::FAULT
        } else if let Some(s) = &self.interrupted {
            if s == "SIGTERM" {
                exit::SIGTERM
            } else {
                exit::SIGINT
            }
        } else {
            exit::PASS
        }
    }

    /// The report lines.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "soak [{}]: {:.1} M xad/s ({} lane-iterations in {:.2} s, {} dispatches of {}x{} to {}x{} lanes x iterations), seed {:#x}",
            self.executor,
            self.xads_per_second / 1e6,
            self.xads,
            self.seconds,
            self.dispatches,
            self.min_shape[0],
            self.min_shape[1],
            self.max_shape[0],
            self.max_shape[1],
            self.seed
        )];
        let units: Vec<String> = self
            .coverage
            .iter()
            .map(|(u, w)| format!("{u}: {w}"))
            .collect();
        let of = match (self.runtime_compute_units, self.emulated_compute_units) {
            (Some(n), _) => format!(" (the runtime reports {n} compute units)"),
            (None, Some(n)) => {
                format!(" (of {n} emulated units: emulated hardware ids, not a device's)")
            }
            _ => String::new(),
        };
        out.push(format!(
            "coverage [{}]: {} units ran waves{of}; waves per unit: {}",
            self.executor,
            self.coverage.len(),
            units.join(", ")
        ));
        out.push(format!(
            "host re-check: {} lanes re-computed on the CPU (every recorded lane and a random sample), {} confirmed mismatch(es), {} checksum-only, {} not reproduced",
            self.lanes_rechecked, self.confirmed, self.checksum_only, self.unreproduced
        ));
        for f in self.findings.iter().take(MAX_SHOWN) {
            out.push(finding_line(f));
        }
        if self.findings.len() > MAX_SHOWN {
            out.push(format!("  ... {} more", self.findings.len() - MAX_SHOWN));
        }
        out.extend(self.release_errors.iter().map(|e| format!("error: {e}")));
        let verdict = match self.code() {
            exit::PASS => "PASS: no mismatch".to_string(),
            exit::MISMATCH => "FAIL: v_xad_u32 mismatches confirmed by the host".to_string(),
            exit::FAULT if self.unreproduced > 0 => {
                "FAULT: the device recorded mismatches the host cannot reproduce".to_string()
            }
            exit::FAULT if self.error.is_none() => format!(
                "FAULT: {} device buffer(s) could not be given back (the error lines above); no mismatch in what ran",
                self.release_errors.len()
            ),
            exit::FAULT => format!(
                "FAULT: the soak stopped early after {} dispatch(es) (the error is on stderr and in the JSON report); no mismatch in what ran",
                self.dispatches
            ),
            _ => format!(
                "interrupted by {}: no mismatch in what ran",
                self.interrupted.as_deref().unwrap_or("a signal")
            ),
        };
        out.push(format!(
            "{verdict}: {} mismatching lane-iterations counted on the device [{}]",
            self.device_mismatches, self.executor
        ));
        out
    }
}

fn finding_line(f: &Finding) -> String {
    let r = &f.record;
    let at = format!(
        "  dispatch {} lane {} (input index {:#x}{})",
        f.dispatch,
        f.lane,
        f.index,
        f.iteration
            .map_or(String::new(), |j| format!(", iteration {j}"))
    );
    match &f.verdict {
        Verdict::Confirmed { expected } => format!(
            "{at}: confirmed: a={:#010x} b={:#010x} c={:#010x} got {:#010x} expected {:#010x} (the device's check computed {:#010x}) differing bits {:#010x}; {} mismatch(es) in the lane",
            r.a, r.b, r.c, r.got, expected, r.check, r.got ^ expected, r.mismatches
        ),
        Verdict::ChecksumOnly { expected } => format!(
            "{at}: checksum {:#010x}, the CPU's {:#010x}: some result of the lane was wrong and the device's check recorded nothing",
            r.checksum, expected
        ),
        Verdict::Unreproduced { why, a, b, c, expected } => format!(
            "{at}: not reproduced ({why}): recorded a={:#010x} b={:#010x} c={:#010x} got {:#010x} check {:#010x}; the seed gives a={a:#010x} b={b:#010x} c={c:#010x}, (a ^ b) + c = {expected:#010x}",
            r.a, r.b, r.c, r.got, r.check
        ),
        Verdict::Clean => format!("{at}: clean"),
    }
}

/// The soak kernel of `target`'s wave size (`xad_soak_w64` where it lacks wave32).
pub fn kernel_name(target: &Target) -> &'static str {
    if target.has(crate::platform::target::Feature::Wave32) {
        "xad_soak_w32"
    } else {
        "xad_soak_w64"
    }
}

/// The soak kernel built for `target`, or why there is none.
pub fn kernel_for(
    target: &Target,
) -> Result<
    &'static crate::platform::embedded::EmbeddedCodeObject,
    crate::platform::embedded::NotBuilt,
> {
    crate::platform::embedded::code_object(target, kernel_name(target))
}

/// Run `req` on the backend it asks for: one device (the first, or
/// `--device`), its own target's soak kernel.
pub fn run(req: &Request, progress: &mut dyn FnMut(&str)) -> Result<Outcome> {
    let indices = req.device.map(|d| vec![d]);
    let mut selected = backend::select(req.backend, indices.as_deref(), Choice::Device)?;
    for note in &selected.notes {
        progress(&format!("note: {note}"));
    }
    let unit = selected
        .units
        .first_mut()
        .ok_or_else(|| Error::Skipped("no device to soak".into()))?;
    let Some(&target) = unit.targets.first() else {
        return Err(Error::Skipped(format!(
            "{} runs none of our targets",
            unit.executor
        )));
    };
    let (hardware, units) = match &unit.identity {
        Identity::Hardware { compute_units, .. } => (true, *compute_units),
        _ => (false, crate::platform::emu::EMULATED_COMPUTE_UNITS),
    };
    let executor = unit.executor.clone();
    let kernel = kernel_for(target).map_err(|e| Error::Io(e.to_string()))?;
    let device = unit.device_for(target).ok_or_else(|| {
        Error::Skipped(format!(
            "{executor} does not run {} code objects",
            target.name
        ))
    })?;
    run_on(
        device,
        &executor,
        target,
        hardware,
        units,
        kernel.bytes,
        req,
        progress,
    )
}

/// Soak `device` (which runs `target`'s code objects) with `code` (a soak
/// kernel's code object) until `req.duration` has passed.
#[allow(clippy::too_many_arguments)]
pub fn run_on(
    device: &mut dyn Device,
    executor: &str,
    target: &'static Target,
    hardware: bool,
    compute_units: u32,
    code: &[u8],
    req: &Request,
    progress: &mut dyn FnMut(&str),
) -> Result<Outcome> {
    let mut out = Outcome {
        executor: executor.to_string(),
        target: target.name.to_string(),
        seed: req.seed,
        seconds: 0.0,
        dispatches: 0,
        xads: 0,
        xads_per_second: 0.0,
        timeline: Timeline::default(),
        min_shape: [u64::MAX, u64::MAX],
        max_shape: [0, 0],
        next_index: 0,
        device_mismatches: 0,
        lanes_rechecked: 0,
        confirmed: 0,
        checksum_only: 0,
        unreproduced: 0,
        findings: Vec::new(),
        coverage: BTreeMap::new(),
        unit_mismatches: BTreeMap::new(),
        runtime_compute_units: hardware.then_some(compute_units),
        emulated_compute_units: (!hardware).then_some(compute_units),
        interrupted: None,
        error: None,
        release_errors: Vec::new(),
        exit_code: exit::PASS,
    };
    let started = Instant::now();
    // A fault ends the soak, not its report: what ran before it is kept.
    if let Err(e) = soak_into(
        &mut out,
        device,
        target,
        hardware,
        compute_units,
        code,
        req,
        progress,
    ) {
        out.error = Some(e.to_string());
    }
    if out.dispatches == 0 {
        out.min_shape = [0, 0]; // no dispatch finished: no shape to report
    }
    out.seconds = started.elapsed().as_secs_f64();
    out.xads_per_second = out.xads as f64 / out.seconds.max(1e-9);
    out.exit_code = out.code();
    Ok(out)
}

/// The soak itself, filling `out` as it goes (so a fault leaves what was
/// done before it).
#[allow(clippy::too_many_arguments)]
fn soak_into(
    out: &mut Outcome,
    device: &mut dyn Device,
    target: &'static Target,
    hardware: bool,
    compute_units: u32,
    code: &[u8],
    req: &Request,
    progress: &mut dyn FnMut(&str),
) -> Result<()> {
    let object = CodeObject::parse(code)
        .map_err(|e| Error::Io(format!("the soak code object for {}: {e}", target.name)))?;
    let kernel = object
        .kernel(kernel_name(target))
        .map_err(|e| Error::Io(format!("the soak code object: {e}")))?;
    let mut limits = Limits::for_device(hardware, compute_units, device.memory_bytes());
    if let Some((shape, _)) = req.fixed {
        limits.start = Shape {
            lanes: (shape.lanes / GROUP).max(1) * GROUP,
            iterations: shape.iterations.clamp(1, MAX_ITERATIONS),
        };
        limits.max_lanes = limits.start.lanes;
    }
    let mut handle = KernelHandle::load(device, &object, &kernel)
        .map_err(|e| Error::device("loading the soak kernel", e))?;
    let result = soak_with(out, &mut handle, target, &limits, req, progress);
    out.release_errors
        .extend(handle.release().iter().map(ToString::to_string));
    result
}

/// The soak kernel's two buffers: one record per lane, a few words per wave.
#[derive(Clone, Copy)]
struct SoakBuffers {
    records: DevicePtr,
    waves: DevicePtr,
}

fn fault(what: &str) -> impl FnOnce(DeviceError) -> Error {
    let what = what.to_string();
    move |e| Error::device(what, e)
}

/// The dispatch loop of [`soak_into`], on the loaded soak kernel: dispatch,
/// read the per-wave words, re-check lanes on the host, resize, until the
/// duration, the dispatch count or a signal ends it.
fn soak_with(
    out: &mut Outcome,
    handle: &mut KernelHandle<'_>,
    target: &'static Target,
    limits: &Limits,
    req: &Request,
    progress: &mut dyn FnMut(&str),
) -> Result<()> {
    let wave = u64::from(handle.meta().wavefront_size.max(1));
    let bufs = SoakBuffers {
        records: handle
            .alloc(limits.max_lanes as usize * RECORD_WORDS * 4)
            .map_err(fault("allocating the soak records"))?,
        waves: handle
            .alloc((limits.max_lanes / wave) as usize * WAVE_WORDS * 4)
            .map_err(fault("allocating the soak wave words"))?,
    };
    let started = Instant::now();
    let mut shape = limits.start;
    let mut index = 0u64;
    // Read-back buffers, reused by every dispatch.
    let (mut wave_words, mut record) = (Vec::new(), [0u32; RECORD_WORDS]);
    loop {
        let (first, iterations) = fit(index, shape);
        let lanes = shape.lanes;
        let d = Dispatched {
            keys: inputs::uniform_keys(req.seed, (first >> 32) as u32),
            hi: (first >> 32) as u32,
            lo_base: first as u32,
            stride: lanes as u32,
            iterations,
        };
        let t0 = Instant::now();
        dispatch(handle, bufs, &d, lanes, out.dispatches, limits, req)?;
        let took = t0.elapsed();
        wave_words.resize((lanes / wave) as usize * WAVE_WORDS, 0);
        handle
            .read(bufs.waves, &mut wave_words)
            .map_err(fault("reading the soak wave words"))?;
        let suspects = tally_waves(&wave_words, wave, target.generation(), out);
        let rechecked = sample(suspects, lanes, out.dispatches, req);
        recheck_lanes(handle, bufs, &d, rechecked, &mut record, out)?;
        out.dispatches += 1;
        out.xads += lanes * u64::from(iterations);
        out.min_shape = [
            out.min_shape[0].min(lanes),
            out.min_shape[1].min(u64::from(iterations)),
        ];
        out.max_shape = [
            out.max_shape[0].max(lanes),
            out.max_shape[1].max(u64::from(iterations)),
        ];
        index = first + lanes * u64::from(iterations);
        out.next_index = index;
        let elapsed = started.elapsed();
        (out.timeline).push(out.dispatches, elapsed.as_secs_f64(), out.xads);
        if let Some(signal) = req.interrupt.as_ref().and_then(Interrupt::requested) {
            out.interrupted = Some(signal.name().to_string());
            break;
        }
        match req.fixed {
            Some((_, n)) if out.dispatches >= n => break,
            Some(_) => continue,
            None if elapsed >= req.duration => break,
            None => {}
        }
        if out.dispatches % 16 == 0 {
            progress(&format!(
                "soak [{}]: {} dispatches, {} lane-iterations, {:.0} s of {:.0} s",
                out.executor,
                out.dispatches,
                out.xads,
                elapsed.as_secs_f64(),
                req.duration.as_secs_f64()
            ));
        }
        shape = next_shape(shape, took, limits, req.duration - elapsed);
    }
    Ok(())
}

/// Launch dispatch number `n` of the soak: `lanes` lanes computing `d`.
fn dispatch(
    handle: &mut KernelHandle<'_>,
    bufs: SoakBuffers,
    d: &Dispatched,
    lanes: u64,
    n: u64,
    limits: &Limits,
    req: &Request,
) -> Result<()> {
    let mut args = vec![
        kernarg::ArgValue::Pointer(bufs.records),
        kernarg::ArgValue::Pointer(bufs.waves),
    ];
    args.extend(d.keys.iter().map(|&k| kernarg::ArgValue::U32(k)));
    args.extend([d.lo_base, d.iterations, d.stride].map(kernarg::ArgValue::U32));
    handle
        .launch(&args, (lanes / GROUP) as u32, req.timeout)
        .map_err(|e| match e {
            // The device's own text says "raise it with --timeout", an
            // option soak does not take: its watchdog is fixed, far above
            // the time a dispatch is sized to take, so missing it means
            // the device stopped responding.
            DeviceError::Timeout(limit) => Error::Io(format!(
                "soak dispatch {n}: kernel did not complete within {limit:?} (soak's watchdog, \
                 fixed: dispatches are sized to take about {:?}, so the device stopped \
                 responding; --duration sets the soak's length, not this limit)",
                limits.dispatch_time
            )),
            e => fault(&format!("soak dispatch {n}"))(e),
        })
}

/// Each wave's words: count the unit it ran on into the coverage (and its
/// mismatches into that unit's), and return the lanes of every wave that
/// recorded a mismatch.
fn tally_waves(words: &[u32], wave: u64, generation: Generation, out: &mut Outcome) -> Vec<u64> {
    let mut suspects = Vec::new();
    for (w, words) in words.chunks_exact(WAVE_WORDS).enumerate() {
        let unit = unit_name(generation, decode_hw_id(generation, words[0]));
        *out.coverage.entry(unit.clone()).or_default() += 1;
        if words[1] != 0 {
            *out.unit_mismatches.entry(unit).or_default() += u64::from(words[1]);
            suspects.extend(w as u64 * wave..(w as u64 + 1) * wave);
        }
    }
    suspects
}

/// The lanes to re-check on the host: the suspects and a random sample, or
/// every lane when the sample covers the dispatch.
fn sample(mut lanes: Vec<u64>, count: u64, dispatch: u64, req: &Request) -> Vec<u64> {
    if req.sample >= count {
        return (0..count).collect();
    }
    lanes.extend((0..req.sample).map(|n| sample_lane(req.seed, dispatch, n, count)));
    lanes.sort_unstable();
    lanes.dedup();
    lanes
}

/// Read the records of `lanes`, compute them again on the host and keep
/// every lane that does not come out clean as a finding.
fn recheck_lanes(
    handle: &mut KernelHandle<'_>,
    bufs: SoakBuffers,
    d: &Dispatched,
    lanes: Vec<u64>,
    record: &mut [u32; RECORD_WORDS],
    out: &mut Outcome,
) -> Result<()> {
    for lane in lanes {
        handle
            .read(bufs.records + lane * (RECORD_WORDS as u64 * 4), record)
            .map_err(fault("reading a soak record"))?;
        let r = Record::from_words(record);
        out.device_mismatches += u64::from(r.mismatches);
        out.lanes_rechecked += 1;
        let verdict = recheck(d, lane as u32, &r);
        let iteration = (r.mismatches > 0).then_some(r.first_iteration);
        match verdict {
            Verdict::Clean => continue,
            Verdict::Confirmed { .. } => out.confirmed += 1,
            Verdict::ChecksumOnly { .. } => out.checksum_only += 1,
            Verdict::Unreproduced { .. } => out.unreproduced += 1,
        }
        let j = iteration.filter(|&j| j < d.iterations).unwrap_or(0);
        out.findings.push(Finding {
            dispatch: out.dispatches,
            lane,
            index: u64::from(d.hi) << 32 | u64::from(d.lo(lane as u32, j)),
            iteration,
            record: r,
            verdict,
        });
    }
    Ok(())
}

/// Run `req` and end it as `soak` promises: the outcome's lines through
/// `say`, its error (and a report that could not be written) through `warn`,
/// one line each, and the `--json` report (`json`) and its HTML page
/// (`html`) written on every ending: what ran before a fault, or the error of
/// a soak that could not start (then returned, after its reports are
/// written). The exit code: the outcome's, by the one rule for a report that
/// could not be written ([`report::outputs::after_writing`]: it fails a
/// passing soak, exit 3).
pub fn run_reported(
    req: &Request,
    json: Option<&std::path::Path>,
    html: Option<&std::path::Path>,
    say: &mut dyn FnMut(&str),
    warn: &mut dyn FnMut(&str),
) -> Result<i32> {
    let outcome = match run(req, say) {
        Ok(outcome) => outcome,
        Err(e) => {
            if let Err(unwritten) = write_reports(json, html, &not_started(req, &e)) {
                warn(&unwritten.to_string());
            }
            return Err(e);
        }
    };
    for line in outcome.lines() {
        say(&line);
    }
    if let Some(e) = &outcome.error {
        warn(e);
    }
    let written = write_reports(json, html, &document(&outcome));
    let (code, unwritten) = report::outputs::after_writing(Ok(outcome.exit_code), written);
    if let Some(e) = unwritten {
        warn(&e.to_string());
    }
    code
}

/// The `--json` report to `json`, and the page drawn from it to `html`.
fn write_reports(
    json: Option<&std::path::Path>,
    html: Option<&std::path::Path>,
    soak: &SoakReport,
) -> Result<()> {
    let text = serde_json::to_string_pretty(soak)
        .map(|text| text + "\n")
        .map_err(|e| Error::Io(format!("soak report: {e}")));
    let page = html.map(|path| (path, Ok(report::html::soak_page::render(soak))));
    report::outputs::write_all(json.map(|path| (path, text)).into_iter().chain(page))
}

/// The outcome as the `--json` report's document.
pub fn document(out: &Outcome) -> SoakReport {
    SoakReport::Ran(Box::new(soak::Soak {
        checksum_only: out.checksum_only,
        command: soak::SoakCommand,
        confirmed: out.confirmed,
        coverage: out.coverage.clone(),
        device_mismatches: out.device_mismatches,
        dispatches: out.dispatches,
        emulated_compute_units: out.emulated_compute_units,
        error: out.error.clone(),
        executor: out.executor.clone(),
        exit_code: out.exit_code,
        findings: out.findings.iter().map(finding).collect(),
        interrupted: out.interrupted.clone(),
        lanes_rechecked: out.lanes_rechecked,
        max_shape: out.max_shape,
        min_shape: out.min_shape,
        next_index: out.next_index,
        release_errors: out.release_errors.clone(),
        runtime_compute_units: out.runtime_compute_units,
        seconds: out.seconds,
        seed: out.seed,
        target: out.target.clone(),
        timeline: out.timeline.samples().to_vec(),
        unit_mismatches: out.unit_mismatches.clone(),
        unreproduced: out.unreproduced,
        xads: out.xads,
        xads_per_second: out.xads_per_second,
    }))
}

/// A finding as the report lists it: the verdict's name beside its fields.
fn finding(f: &Finding) -> soak::Finding {
    let r = &f.record;
    let mut out = soak::Finding {
        a: None,
        b: None,
        c: None,
        dispatch: f.dispatch,
        expected: None,
        index: f.index,
        iteration: f.iteration,
        lane: f.lane,
        record: soak::Record {
            a: r.a,
            b: r.b,
            c: r.c,
            check: r.check,
            checksum: r.checksum,
            first_iteration: r.first_iteration,
            got: r.got,
            mismatches: r.mismatches,
        },
        verdict: soak::Verdict::Clean,
        why: None,
    };
    match &f.verdict {
        Verdict::Clean => {}
        Verdict::Confirmed { expected } => {
            out.verdict = soak::Verdict::Confirmed;
            out.expected = Some(*expected);
        }
        Verdict::ChecksumOnly { expected } => {
            out.verdict = soak::Verdict::ChecksumOnly;
            out.expected = Some(*expected);
        }
        Verdict::Unreproduced {
            why,
            a,
            b,
            c,
            expected,
        } => {
            out.verdict = soak::Verdict::Unreproduced;
            (out.a, out.b, out.c) = (Some(*a), Some(*b), Some(*c));
            out.expected = Some(*expected);
            out.why = Some(why.clone());
        }
    }
    out
}

/// The report of a soak that could not start (no device, no kernel,
/// a runtime that failed before the first dispatch): the request, the
/// error and its exit code, so `--json` is written on every ending.
fn not_started(req: &Request, error: &Error) -> SoakReport {
    SoakReport::NotStarted(soak::NotStarted {
        command: soak::SoakCommand,
        dispatches: 0,
        error: error.to_string(),
        exit_code: error.exit_code(),
        seed: req.seed,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_timeline_stays_bounded_and_keeps_its_ends_even() {
        let mut t = Timeline::default();
        for d in 1..=100_000u64 {
            t.push(d, d as f64 / 10.0, d * 64);
        }
        let s = t.samples();
        assert!(
            s.len() < TIMELINE_SAMPLES && s.len() >= TIMELINE_SAMPLES / 4,
            "{}",
            s.len()
        );
        // Evenly spaced dispatches, ascending, the last within one stride of the end.
        let step = s[1][1] - s[0][1];
        assert!(s.windows(2).all(|w| w[1][1] - w[0][1] == step), "uneven");
        assert!(100_000.0 - s[s.len() - 1][1] < step);
        assert_eq!(s[3][2], s[3][1] * 64.0);
    }

    use super::*;

    #[test]
    fn durations_parse_with_units_and_refuse_the_rest() {
        assert_eq!(parse_duration("1"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration(" 2h "), Ok(Duration::from_secs(7200)));
        for bad in [
            "0", "-1", "NaN", "inf", "abc", "", "1d", "8h0", "0.05", "200h",
        ] {
            let e = parse_duration(bad).expect_err(bad);
            assert!(e.starts_with("must be a duration"), "{e}");
        }
    }

    #[test]
    fn shapes_grow_iterations_first_then_lanes_and_shrink_lanes_first() {
        let limits = Limits {
            start: Shape {
                lanes: 1024,
                iterations: 16,
            },
            max_lanes: 4096,
            dispatch_time: Duration::from_millis(100),
        };
        let long = Duration::from_secs(10);
        let fast = Duration::from_millis(1);
        let mut s = limits.start;
        s = next_shape(s, fast, &limits, long);
        assert_eq!(
            s,
            Shape {
                lanes: 1024,
                iterations: 32
            }
        );
        s.iterations = MAX_ITERATIONS;
        s = next_shape(s, fast, &limits, long);
        assert_eq!(s.lanes, 2048);
        s.lanes = 4096;
        assert_eq!(next_shape(s, fast, &limits, long), s, "at both limits");
        let slow = Duration::from_secs(1);
        assert_eq!(next_shape(s, slow, &limits, long).lanes, 2048);
        let small = Shape {
            lanes: GROUP,
            iterations: 8,
        };
        assert_eq!(
            next_shape(small, slow, &limits, long),
            Shape {
                lanes: GROUP,
                iterations: 4
            }
        );
        // Near the end, a dispatch that already takes the time left does not grow.
        let s = Shape {
            lanes: 1024,
            iterations: 16,
        };
        assert_eq!(
            next_shape(
                s,
                Duration::from_millis(30),
                &limits,
                Duration::from_millis(40)
            ),
            s
        );
    }

    #[test]
    fn a_dispatch_never_crosses_a_high_half() {
        let s = Shape {
            lanes: 1 << 20,
            iterations: 4096,
        };
        assert_eq!(fit(0, s), (0, 4096));
        let near = (1u64 << 32) - (3 << 20);
        assert_eq!(fit(near, s), (near, 3));
        let tail = (1u64 << 32) - 5;
        assert_eq!(fit(tail, s), (1 << 32, 4096));
        let (first, it) = fit(near, s);
        let last = first + (u64::from(it) - 1) * s.lanes + s.lanes - 1;
        assert_eq!(first >> 32, last >> 32);
    }

    #[test]
    fn hw_ids_decode_as_the_emulator_encodes_them() {
        use crate::platform::emu::{hw_id, WaveAt};
        for (generation, units) in [
            (Generation::Gfx9, 48),
            (Generation::Gfx11, 24),
            (Generation::Gfx12, 8),
        ] {
            let mut seen = std::collections::BTreeSet::new();
            for wg in 0..200 {
                let at = WaveAt {
                    workgroup: [wg, 0, 0],
                    index: wg % 8,
                };
                seen.insert(decode_hw_id(generation, hw_id(generation, at, units)));
            }
            assert_eq!(seen.len(), units as usize, "{generation:?}");
        }
        let u = decode_hw_id(
            Generation::Gfx11,
            0b101 << 18 | 1 << 16 | 7 << 10 | 3 << 8 | 9,
        );
        assert_eq!(
            u,
            Unit {
                se: 5,
                array: 1,
                id: 7
            }
        );
        assert_eq!(unit_name(Generation::Gfx11, u), "SE5.SA1.WGP7");
        let u = decode_hw_id(Generation::Gfx9, 2 << 13 | 1 << 12 | 11 << 8 | 2 << 4);
        assert_eq!(unit_name(Generation::Gfx9, u), "SE2.SH1.CU11");
    }

    fn dispatched() -> Dispatched {
        Dispatched {
            keys: inputs::uniform_keys(7, 0),
            hi: 0,
            lo_base: 1000,
            stride: 512,
            iterations: 9,
        }
    }

    fn clean(d: &Dispatched, lane: u32) -> Record {
        Record {
            mismatches: 0,
            first_iteration: NO_MISMATCH,
            a: 0,
            b: 0,
            c: 0,
            got: 0,
            check: 0,
            checksum: d.checksum(lane),
        }
    }

    #[test]
    fn recheck_tells_clean_confirmed_checksum_only_and_unreproduced_apart() {
        let d = dispatched();
        assert_eq!(recheck(&d, 3, &clean(&d, 3)), Verdict::Clean);
        let mut r = clean(&d, 3);
        r.checksum ^= 1;
        assert!(matches!(recheck(&d, 3, &r), Verdict::ChecksumOnly { .. }));
        let (a, b, c) = inputs::uniform_sources_keyed(&d.keys, d.lo(3, 4));
        let right = (a ^ b).wrapping_add(c);
        let recorded = Record {
            mismatches: 1,
            first_iteration: 4,
            a,
            b,
            c,
            got: right ^ 8,
            check: right,
            checksum: 0,
        };
        assert_eq!(
            recheck(&d, 3, &recorded),
            Verdict::Confirmed { expected: right }
        );
        for (wrong, why) in [
            (
                Record {
                    a: a ^ 1,
                    ..recorded
                },
                "inputs are not the seed's",
            ),
            (
                Record {
                    check: right ^ 2,
                    ..recorded
                },
                "independent check",
            ),
            (
                Record {
                    got: right,
                    ..recorded
                },
                "result is right",
            ),
            (
                Record {
                    first_iteration: 9,
                    ..recorded
                },
                "outside",
            ),
            (
                Record {
                    mismatches: 0,
                    ..recorded
                },
                "no mismatch counted",
            ),
        ] {
            match recheck(&d, 3, &wrong) {
                Verdict::Unreproduced { why: w, .. } => assert!(w.contains(why), "{w}"),
                v => panic!("{why}: {v:?}"),
            }
        }
    }

    #[test]
    fn the_checksum_folds_in_order() {
        assert_eq!(fold(fold(0, 1), 1), 0b11);
        assert_eq!(fold(fold(0, 1), 2), 0, "order matters: rotl(1) ^ 2");
        assert_eq!(fold(0x8000_0000, 0), 1);
        let d = dispatched();
        assert_ne!(d.checksum(0), d.checksum(1));
    }

    #[test]
    fn every_target_with_kernels_has_a_soak_kernel() {
        for t in crate::platform::target::TARGETS {
            if crate::platform::embedded::unbuilt(t.name).is_none() {
                assert!(kernel_for(t).is_ok(), "{}", t.name);
            }
        }
    }

    /// The `--json` report of an outcome with a finding of every verdict is
    /// `soak_example.json` byte for byte (keys sorted, as the report was
    /// written before it was typed), and reads back as the same document.
    #[test]
    fn the_document_writes_the_outcome_as_it_always_was() {
        let record = Record::from_words(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let finding = |verdict: Verdict| Finding {
            dispatch: 3,
            lane: 9,
            index: 0x1_0000_0002,
            iteration: Some(2),
            record,
            verdict,
        };
        let mut timeline = Timeline::default();
        timeline.push(1, 0.5, 64);
        let outcome = Outcome {
            executor: "emulated gfx1100".into(),
            target: "gfx1100".into(),
            seed: 5,
            seconds: 1.25,
            dispatches: 7,
            xads: 448,
            xads_per_second: 358.4,
            timeline,
            min_shape: [64, 1],
            max_shape: [256, 8],
            next_index: 99,
            device_mismatches: 2,
            lanes_rechecked: 12,
            confirmed: 1,
            checksum_only: 1,
            unreproduced: 1,
            findings: vec![
                finding(Verdict::Clean),
                finding(Verdict::Confirmed { expected: 11 }),
                finding(Verdict::ChecksumOnly { expected: 12 }),
                finding(Verdict::Unreproduced {
                    why: "not the seed's".into(),
                    a: 1,
                    b: 2,
                    c: 3,
                    expected: 13,
                }),
            ],
            coverage: [("SE0.SA0.WGP0".to_string(), 4)].into(),
            unit_mismatches: [("SE0.SA0.WGP0".to_string(), 1)].into(),
            runtime_compute_units: None,
            emulated_compute_units: Some(8),
            interrupted: Some("SIGINT".into()),
            error: None,
            release_errors: vec!["a buffer".into()],
            exit_code: exit::MISMATCH,
        };
        let written = serde_json::to_string_pretty(&document(&outcome)).unwrap();
        let example = include_str!("../../report/document/soak_example.json");
        assert_eq!(written, example.trim_end());
        let read = SoakReport::from_value(serde_json::from_str(&written).unwrap()).unwrap();
        assert_eq!(read, document(&outcome), "read back as written");
    }
}
