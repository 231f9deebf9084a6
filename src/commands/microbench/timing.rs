//! `xad-harness microbench`: what `v_xad_u32` costs on the GPU, against the
//! two-instruction `v_xor_b32` + `v_add_nc_u32` (gfx9: `v_add_u32`) it
//! replaces and the three-input `v_add3_u32`, timed with the generation's
//! cycle counter by the embedded `xad_microbench` kernels
//! (kernels/include/xad_microbench.inc has their ABI and record layout).
//!
//! Hardware only: the embedded emulator, and the emulated HIP device library
//! that stands in for the runtime in tests, have no clock worth the name, and
//! a count they made up would read as a hardware number. On either this
//! refuses with one line and exit 77 before anything is launched.
//!
//! The parts: [`Request`] and [`refusal`] (what runs, or why nothing does),
//! [`Plan`] (launch shapes), [`measure`] (launch and read the records through
//! the [`Device`] seam), and the pure math ([`delta`], [`Record`],
//! [`summarize`]), unit-tested on synthetic counter values.

use std::time::Duration;

use super::MicrobenchArgs;
use crate::error::ReleaseError;
use crate::error::{exit, Error, Result};
use crate::isa::{self, Generation};
use crate::pipeline::handle::KernelHandle;
use crate::platform::backend::{self, BackendChoice, Identity, Runner};
use crate::platform::codeobj::{ArgValue, CodeObject};
use crate::platform::device::{Device, Dispatch};
use crate::platform::target::{Choice, Feature, Target};
use crate::report::document::microbench as doc;

/// Ops per loop trip of every timed region (`XMB_UNROLL` in the kernel).
pub const OPS_PER_TRIP: u64 = 32;
/// Independent chains in regions 3-5 (`XMB_REGION r, ..., 8`).
pub const CHAINS: u64 = 8;
/// u32 words per wave record, and records per workgroup (the kernel's stride).
pub const RECORD_WORDS: usize = 64;
pub const RECORDS_PER_GROUP: usize = 32;
/// The record's marker word and its upper half (the lower half is the counter kind).
const MARKER_WORD: usize = 37;
const MARKER: u32 = 0x4d42_0000;
/// The three operands the kernel reads: b, c and the chains' seed. Fixed, so
/// every run's chain values are the same and checkable.
pub const OPERANDS: [u32; 3] = [0x9e37_79b9, 0x7f4a_7c15, 0x6a09_e667];

/// `--iterations`: loop trips per timed region. The upper bound keeps every
/// region far below 2^20 cycles, the period of the 20-bit SHADER_CYCLES
/// counter: 512 trips x 32 ops x 2 instructions is 32768 instructions per
/// wave, about 2^18 cycles even at 8 cycles per instruction, a quarter of the
/// period (docs/microbench.md, "The 20-bit wrap").
pub const MAX_ITERATIONS: u32 = 512;
pub const DEFAULT_ITERATIONS: u32 = 256;
/// `--waves`: waves in the throughput launch's one workgroup.
pub const MAX_WAVES: u32 = 16;
pub const DEFAULT_WAVES: u32 = 8;
/// `--repeat`: timed launches of each shape, after one untimed warm-up.
pub const MAX_REPEAT: u32 = 100;
pub const DEFAULT_REPEAT: u32 = 5;

/// The instruction forms compared, in row order; the first is the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Xad,
    XorAdd,
    Add3,
}

pub const FORMS: [Form; 3] = [Form::Xad, Form::XorAdd, Form::Add3];

impl Form {
    /// The ops the kernel issues for it, in order.
    fn ops(self) -> &'static [isa::Op] {
        match self {
            Form::Xad => &[isa::Op::VXadU32],
            Form::XorAdd => &[isa::Op::VXorB32, isa::Op::VAddNcU32],
            Form::Add3 => &[isa::Op::VAdd3U32],
        }
    }

    /// How the kernel for `generation` spells it: its assembler's mnemonics
    /// (gfx9 spells `v_add_nc_u32` `v_add_u32`).
    pub fn label(self, generation: Generation) -> String {
        self.spelled(|op| isa::table::mnemonic(op, generation))
    }

    /// Its ops spelled by `mnemonic`, joined with ` + `.
    fn spelled(self, mnemonic: impl Fn(isa::Op) -> &'static str) -> String {
        self.ops()
            .iter()
            .map(|&op| mnemonic(op))
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// One op of the chain: what lane 0 computes, for checking its value.
    pub fn step(self, x: u32, b: u32, c: u32) -> u32 {
        match self {
            Form::Xad | Form::XorAdd => (x ^ b).wrapping_add(c),
            Form::Add3 => x.wrapping_add(b).wrapping_add(c),
        }
    }

    /// VALU instructions per op.
    pub fn instructions(self) -> u64 {
        self.ops().len() as u64
    }

    /// The record regions timing it: (dependent chain, independent chains).
    fn regions(self) -> (usize, usize) {
        let i = FORMS.iter().position(|&f| f == self).unwrap_or(0);
        (i, i + 3)
    }
}

/// The counter a kernel read (the record's marker word says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// `s_getreg_b32 hwreg(HW_REG_SHADER_CYCLES, 0, 20)`: gfx10.3, gfx11.
    ShaderCycles20,
    /// `HW_REG_SHADER_CYCLES_HI`/`_LO`: gfx12.
    ShaderCycles64,
    /// `s_memtime`: gfx9, gfx10.1.
    Memtime,
}

impl Counter {
    fn from_kind(kind: u32) -> Option<Counter> {
        match kind {
            1 => Some(Counter::ShaderCycles20),
            2 => Some(Counter::ShaderCycles64),
            3 => Some(Counter::Memtime),
            _ => None,
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            Counter::ShaderCycles20 => 20,
            Counter::ShaderCycles64 | Counter::Memtime => 64,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Counter::ShaderCycles20 => {
                "s_getreg_b32 hwreg(HW_REG_SHADER_CYCLES, 0, 20): shader cycles, 20 bits, differences taken modulo 2^20"
            }
            Counter::ShaderCycles64 => {
                "s_getreg_b32 hwreg(HW_REG_SHADER_CYCLES_HI/LO): shader cycles, 64 bits"
            }
            Counter::Memtime => {
                "s_memtime: 64-bit counter (HIP's clock64), in its ticks"
            }
        }
    }
}

/// `end - start` of a `bits`-wide counter that may have wrapped once:
/// the difference modulo 2^bits. A region longer than one period cannot be
/// told apart from a shorter one, which is why regions are kept short.
pub fn delta(start: u64, end: u64, bits: u32) -> u64 {
    let diff = end.wrapping_sub(start);
    if bits >= 64 {
        diff
    } else {
        diff & ((1u64 << bits) - 1)
    }
}

/// One timed region of a wave's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub end: u64,
    /// Lane 0's chain value (folded by xor over the chains).
    pub value: u32,
}

/// One wave's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub regions: [Region; 6],
    pub iterations: u32,
    pub counter: Counter,
}

impl Record {
    /// Parse the 64 words a wave wrote; `None` when the marker is missing
    /// (the wave never stored, or stored something else).
    pub fn parse(words: &[u32]) -> Option<Record> {
        if words.len() < MARKER_WORD + 1 || words[MARKER_WORD] & 0xffff_0000 != MARKER {
            return None;
        }
        let counter = Counter::from_kind(words[MARKER_WORD] & 0xffff)?;
        let pair = |i: usize| u64::from(words[i]) | (u64::from(words[i + 1]) << 32);
        let region = |r: usize| Region {
            start: pair(6 * r),
            end: pair(6 * r + 2),
            value: words[6 * r + 4],
        };
        Some(Record {
            regions: [0, 1, 2, 3, 4, 5].map(region),
            iterations: words[36],
            counter,
        })
    }

    /// Counter ticks region `r` took.
    pub fn ticks(&self, r: usize) -> u64 {
        let region = &self.regions[r];
        delta(region.start, region.end, self.counter.bits())
    }
}

/// Lane 0's value after region `r` of a kernel run with `iterations` trips:
/// the CPU model each record is checked against.
pub fn expected_value(r: usize, iterations: u32, operands: [u32; 3]) -> u32 {
    let [b, c, seed] = operands;
    let form = FORMS[r % 3];
    let (chains, ops) = if r < 3 {
        (1, u64::from(iterations) * OPS_PER_TRIP)
    } else {
        (CHAINS, u64::from(iterations) * OPS_PER_TRIP / CHAINS)
    };
    (0..chains as u32)
        .map(|k| (0..ops).fold(seed.wrapping_add(k), |x, _| form.step(x, b, c)))
        .fold(0, |acc, x| acc ^ x)
}

/// Ops each wave runs in one region.
pub fn ops_per_region(iterations: u32) -> u64 {
    u64::from(iterations) * OPS_PER_TRIP
}

/// Median of `values` (empty: 0).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// `value / base`, when the base is positive.
pub fn ratio(value: f64, base: f64) -> Option<f64> {
    (base > 0.0).then(|| value / base)
}

/// One row of the result.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub form: Form,
    pub instructions: String,
    /// Dependent chain, one wave alone: counter ticks per op (median over launches).
    pub latency: f64,
    /// The fewest and most ticks per op of any launch: the median's spread.
    pub latency_spread: [f64; 2],
    pub latency_ratio: Option<f64>,
    /// Independent chains, `waves` waves at once: ticks per op of each wave
    /// (median over launches and waves).
    pub throughput: f64,
    /// The fewest and most ticks per op of any launch and wave.
    pub throughput_spread: [f64; 2],
    pub throughput_ratio: Option<f64>,
}

/// The smallest and largest of `values` (sorted, as [`median`] leaves
/// them); `[0, 0]` when empty.
fn spread(sorted: &[f64]) -> [f64; 2] {
    match (sorted.first(), sorted.last()) {
        (Some(&lo), Some(&hi)) => [lo, hi],
        _ => [0.0, 0.0],
    }
}

/// Why a set of records cannot be reported: a record missing or wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A wave wrote no record (exit 3: the device misbehaved).
    Unwritten { launch: String, wave: usize },
    /// A chain value differs from the CPU model (exit 1: a wrong result).
    Wrong {
        launch: String,
        wave: usize,
        region: usize,
        got: u32,
        expected: u32,
    },
    /// Fewer ticks than instructions issued: one wave issues at most one
    /// VALU instruction per cycle, so the counter wrapped or misread (exit 3).
    Implausible {
        launch: String,
        wave: usize,
        region: usize,
        ticks: u64,
        instructions: u64,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Unwritten { launch, wave } => {
                write!(f, "{launch} launch: wave {wave} wrote no record")
            }
            Problem::Wrong { launch, wave, region, got, expected } => write!(
                f,
                "{launch} launch: wave {wave} region {region} ({}) computed 0x{got:08x}, expected 0x{expected:08x}",
                region_name(*region)
            ),
            Problem::Implausible { launch, wave, region, ticks, instructions } => write!(
                f,
                "{launch} launch: wave {wave} region {region} ({}) took {ticks} ticks for {instructions} instructions: the counter wrapped or misread",
                region_name(*region)
            ),
        }
    }
}

fn region_name(r: usize) -> String {
    format!(
        "{} {}",
        // A problem carries no target: the table's own spelling.
        FORMS[r % 3].spelled(|op| isa::table::info(op).mnemonic),
        if r < 3 { "dependent" } else { "independent" }
    )
}

/// Check one launch's records (one per wave) against the model and the
/// plausibility bound.
pub fn check_records(
    launch: &str,
    records: &[Option<Record>],
    iterations: u32,
    operands: [u32; 3],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (wave, record) in records.iter().enumerate() {
        let Some(record) = record else {
            problems.push(Problem::Unwritten {
                launch: launch.to_string(),
                wave,
            });
            continue;
        };
        for r in 0..6 {
            let expected = expected_value(r, iterations, operands);
            let got = record.regions[r].value;
            if got != expected || record.iterations != iterations {
                problems.push(Problem::Wrong {
                    launch: launch.to_string(),
                    wave,
                    region: r,
                    got,
                    expected,
                });
                continue;
            }
            let instructions = ops_per_region(iterations) * FORMS[r % 3].instructions();
            let ticks = record.ticks(r);
            // s_memtime need not tick once per shader cycle: no bound for it.
            if record.counter != Counter::Memtime && ticks < instructions {
                problems.push(Problem::Implausible {
                    launch: launch.to_string(),
                    wave,
                    region: r,
                    ticks,
                    instructions,
                });
            }
        }
    }
    problems
}

/// The rows from the latency launches' records (one wave each) and the
/// throughput launches' (every wave of each).
pub fn summarize(latency: &[Record], throughput: &[Record], iterations: u32) -> Vec<Row> {
    let ops = ops_per_region(iterations) as f64;
    let mut rows: Vec<Row> = FORMS
        .iter()
        .map(|&form| {
            let (dep, indep) = form.regions();
            let mut lat: Vec<f64> = latency.iter().map(|r| r.ticks(dep) as f64 / ops).collect();
            let mut thr: Vec<f64> = throughput
                .iter()
                .map(|r| r.ticks(indep) as f64 / ops)
                .collect();
            let (latency, throughput) = (median(&mut lat), median(&mut thr));
            Row {
                form,
                instructions: String::new(),
                latency,
                latency_spread: spread(&lat),
                latency_ratio: None,
                throughput,
                throughput_spread: spread(&thr),
                throughput_ratio: None,
            }
        })
        .collect();
    let (base_lat, base_thr) = (rows[0].latency, rows[0].throughput);
    for row in &mut rows {
        row.latency_ratio = ratio(row.latency, base_lat);
        row.throughput_ratio = ratio(row.throughput, base_thr);
    }
    rows
}

/// Launch shapes for a kernel of `wave` lanes per wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub wave: u32,
    pub waves: u32,
    pub iterations: u32,
    pub repeat: u32,
}

impl Plan {
    /// One wave alone: its dependent chains time latency.
    pub fn latency(&self) -> Dispatch {
        Dispatch {
            grid_blocks: [1, 1, 1],
            block: [self.wave, 1, 1],
        }
    }

    /// `waves` waves in one workgroup: their independent chains time throughput.
    pub fn throughput(&self) -> Dispatch {
        Dispatch {
            grid_blocks: [1, 1, 1],
            block: [self.wave * self.waves, 1, 1],
        }
    }

    /// Bytes of the out buffer: one workgroup's records.
    pub fn out_bytes(&self) -> usize {
        RECORDS_PER_GROUP * RECORD_WORDS * 4
    }
}

/// The kernel of `target`'s microbench code object: the wave64 one where
/// the target has no wave32.
pub fn kernel_name(target: &Target) -> &'static str {
    if target.has(Feature::Wave32) {
        "xad_microbench"
    } else {
        "xad_microbench_w64"
    }
}

/// What [`measure`] read: each timed launch's records, in wave order.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub latency: Vec<Vec<Option<Record>>>,
    pub throughput: Vec<Vec<Option<Record>>>,
    /// Device memory the device would not give back (the one release rule,
    /// [`crate::pipeline::handle`]): printed, exit 3 when the timing is otherwise good.
    pub release_errors: Vec<ReleaseError>,
}

/// Load `code` on `dev`, run one warm-up and `plan.repeat` timed launches of
/// each shape, and read their records. Buffers are freed on every path; a
/// free the device refuses is kept in [`Measured::release_errors`].
pub fn measure(
    dev: &mut dyn Device,
    code: &CodeObject,
    kernel: &str,
    plan: &Plan,
    timeout: Duration,
) -> Result<Measured> {
    let kernel = code
        .kernel(kernel)
        .map_err(|e| Error::Usage(format!("microbench: {e}")))?;
    let mut handle =
        KernelHandle::load(dev, code, &kernel).map_err(fault("loading the code object"))?;
    let measured = launches(&mut handle, plan, timeout);
    let released = handle.release();
    let mut measured = measured?;
    measured.release_errors = released;
    Ok(measured)
}

fn fault(what: &'static str) -> impl Fn(crate::platform::device::DeviceError) -> Error {
    move |e| Error::device(format!("microbench: {what}"), e)
}

fn launches(handle: &mut KernelHandle<'_>, plan: &Plan, timeout: Duration) -> Result<Measured> {
    let operands = handle.alloc(16).map_err(fault("allocating the operands"))?;
    let out = handle
        .alloc(plan.out_bytes())
        .map_err(fault("allocating the records"))?;
    handle
        .write(operands, &OPERANDS)
        .map_err(fault("writing the operands"))?;
    let args = [
        ArgValue::Pointer(operands),
        ArgValue::Pointer(out),
        ArgValue::U32(plan.iterations),
    ];
    let mut measured = Measured::default();
    let zeros = vec![0u32; plan.out_bytes() / 4];
    let mut words = vec![0u32; plan.out_bytes() / 4];
    for (dispatch, waves, timed) in [
        (plan.latency(), 1, &mut measured.latency),
        (
            plan.throughput(),
            plan.waves as usize,
            &mut measured.throughput,
        ),
    ] {
        // Launch 0 warms the instruction cache and is not kept.
        for launch in 0..=plan.repeat {
            handle
                .write(out, &zeros)
                .map_err(fault("clearing the records"))?;
            handle
                .launch_shaped(&args, dispatch, timeout)
                .map_err(fault("launching xad_microbench"))?;
            handle
                .read(out, &mut words)
                .map_err(fault("reading the records"))?;
            if launch > 0 {
                timed.push(parse_records(&words, waves));
            }
        }
    }
    Ok(measured)
}

/// The first `waves` records of an out buffer's words.
pub fn parse_records(words: &[u32], waves: usize) -> Vec<Option<Record>> {
    words
        .chunks(RECORD_WORDS)
        .take(waves)
        .map(Record::parse)
        .collect()
}

/// Why nothing is timed with `backend`, before any device is looked at:
/// the embedded emulator has no timing.
pub fn refusal(backend: BackendChoice) -> Option<Error> {
    (backend == BackendChoice::Emu).then(|| {
        Error::Skipped(
            "microbench: no timing exists on the embedded emulator (--backend emu): it has no cycle counter, and an emulated count is not a hardware number; nothing was run".into(),
        )
    })
}

/// What a microbench measured; `--json` writes it as its document
/// ([`document`]) and `--html` draws that.
#[derive(Debug)]
pub struct Report {
    /// `"microbench"`: what wrote it (`report --html` tells the pages apart by it).
    pub command: &'static str,
    pub executor: String,
    pub target: String,
    pub counter: Counter,
    pub counter_instruction: &'static str,
    pub iterations: u32,
    pub ops_per_region: u64,
    pub latency_waves: u32,
    pub throughput_waves: u32,
    pub independent_chains: u64,
    pub repeat: u32,
    pub rows: Vec<Row>,
}

/// The text `microbench` prints for `report`.
pub fn lines(report: &Report, generation: Generation) -> Vec<String> {
    let mut out = vec![
        format!("microbench on {} ({})", report.executor, report.target),
        format!("counter: {}", report.counter.describe()),
        format!(
            "{} ops per timed region ({} trips of {OPS_PER_TRIP}); latency: dependent chain, 1 wave alone; throughput: {} independent chains per wave, {} waves in one workgroup; medians of {} launches after a warm-up",
            report.ops_per_region, report.iterations, report.independent_chains, report.throughput_waves, report.repeat
        ),
        format!(
            "{:<26} {:>16} {:>7} {:>24} {:>7}",
            "form", "latency tick/op", "ratio", "throughput tick/op/wave", "ratio"
        ),
    ];
    let fmt_ratio = |r: Option<f64>| r.map_or_else(|| "-".to_string(), |r| format!("{r:.2}"));
    for row in &report.rows {
        out.push(format!(
            "{:<26} {:>16.2} {:>7} {:>24.2} {:>7}",
            row.form.label(generation),
            row.latency,
            fmt_ratio(row.latency_ratio),
            row.throughput,
            fmt_ratio(row.throughput_ratio)
        ));
    }
    out.push(
        "an op is one (x ^ b) + c (v_xad_u32, or v_xor_b32 then the add), or one x + b + c (v_add3_u32); ratios are to the v_xad_u32 row".into(),
    );
    out
}

/// The HIP device to time, chosen the way every command chooses devices
/// ([`backend::select_with`], HIP only): `--device`, else the first that
/// runs one of our targets. No device at all, an emulated one, or one that
/// runs none of our targets is [`Error::Skipped`] (exit 77).
fn pick_device(
    probe: &crate::platform::hip::Probe,
    backend: BackendChoice,
    index: Option<u32>,
) -> Result<(Box<crate::platform::hip::HipDevice>, &'static Target)> {
    let no_device = |why: String| {
        let tail = if backend == BackendChoice::Auto {
            "; the embedded emulator has no timing, so nothing was run"
        } else {
            "; nothing was run"
        };
        Error::Skipped(format!(
            "microbench: no HIP device to time: {}; {why}{tail}",
            probe.runtime_line()
        ))
    };
    let runs_none = |d: &crate::platform::hip::ProbedDevice, arch: &str| {
        Error::Skipped(format!(
            "microbench: HIP device {} ({arch}) runs none of our targets; nothing was run",
            d.index
        ))
    };
    let indices = index.map(|i| [i as usize]);
    let selected = match backend::select_with(
        probe,
        BackendChoice::Hip,
        indices.as_ref().map(|i| &i[..]),
        Choice::Device,
    ) {
        // `select` words "no device" for running cases; say it for timing.
        Err(Error::Skipped(_)) => {
            let listed = index.and_then(|i| probe.devices.iter().find(|d| d.index == i));
            return Err(match listed.map(|d| (d, d.info.as_ref())) {
                Some((d, Ok(info))) => runs_none(d, &info.arch),
                Some((d, Err(e))) => Error::device(
                    format!("microbench: reading HIP device {}'s properties", d.index),
                    e.clone(),
                ),
                None => no_device(
                    probe
                        .no_devices_reason()
                        .unwrap_or_else(|| "no device runs one of our targets".to_string()),
                ),
            });
        }
        other => other?,
    };
    let Some(unit) = selected.units.into_iter().next() else {
        return Err(no_device("no device runs one of our targets".to_string()));
    };
    if let Identity::Hardware { index, name, .. } = &unit.identity {
        if unit.identity.is_emulated() {
            return Err(Error::Skipped(format!(
                "microbench: HIP device {index} is \"{name}\", an emulated device: no timing exists there; nothing was run"
            )));
        }
    }
    match (unit.runner, unit.targets.first()) {
        (Runner::Hip(device), Some(&target)) => Ok((device, target)),
        _ => Err(no_device("no device runs one of our targets".to_string())),
    }
}

/// Run `xad-harness microbench` with `backend` (the flag or `$XAD_BACKEND`),
/// printing through `say`; the exit code, or the one-line error.
pub fn run(
    args: &MicrobenchArgs,
    backend: BackendChoice,
    say: &mut dyn FnMut(&str),
) -> Result<i32> {
    if let Some(refused) = refusal(backend) {
        return Err(refused);
    }
    if let Some(e) = crate::report::outputs::check(args.json.as_deref(), None)
        .into_iter()
        .chain(crate::report::outputs::check_html(
            args.html.as_deref(),
            &[("--json", args.json.as_deref())],
        ))
        .next()
    {
        return Err(e);
    }
    let probe = crate::platform::hip::probe();
    let (mut dev, target) = pick_device(&probe, backend, args.device)?;
    let code = embedded_code(target)?;
    let kernel = kernel_name(target);
    let wave = code
        .kernel(kernel)
        .map_err(|e| Error::Usage(format!("microbench: {e}")))?
        .meta
        .wavefront_size;
    let plan = Plan {
        wave,
        waves: args.waves.min(1024 / wave.max(1)),
        iterations: args.iterations,
        repeat: args.repeat,
    };
    let executor = dev.executor().to_string();
    let measured = measure(
        dev.as_mut(),
        &code,
        kernel,
        &plan,
        Duration::from_secs(args.timeout.max(1)),
    )?;
    drop(dev);
    for e in &measured.release_errors {
        say(&format!("microbench: error: {e}"));
    }
    if let Some(code) = refuse_problems(&measured, &plan, say)? {
        return Ok(code);
    }
    let report = report_of(executor, target, &plan, &measured);
    for line in lines(&report, target.generation()) {
        say(&line);
    }
    let written = write_reports(&report, args);
    let code = if measured.release_errors.is_empty() {
        exit::PASS
    } else {
        exit::FAULT
    };
    let (code, unwritten) = crate::report::outputs::after_writing(Ok(code), written);
    if let Some(e) = unwritten {
        say(&format!("microbench: error: {e}"));
    }
    code
}

/// The JSON and HTML reports asked for, by the one rule for reports; the
/// page is drawn from the JSON's document, as `report MICROBENCH.json
/// --html` draws it.
fn write_reports(report: &Report, args: &MicrobenchArgs) -> Result<()> {
    let document = document(report);
    let json = serde_json::to_string_pretty(&document)
        .map(|text| text + "\n")
        .map_err(|e| Error::Io(format!("microbench: encoding the report: {e}")));
    let reports = [
        args.json.as_deref().map(|p| (p, json)),
        args.html.as_deref().map(|p| {
            (
                p,
                Ok(crate::report::html::microbench_page::render(&document)),
            )
        }),
    ];
    crate::report::outputs::write_all(reports.into_iter().flatten())
}

/// `report` as the `--json` report's document.
pub fn document(report: &Report) -> doc::Microbench {
    doc::Microbench {
        command: doc::MicrobenchCommand,
        counter: match report.counter {
            Counter::ShaderCycles20 => doc::Counter::ShaderCycles20,
            Counter::ShaderCycles64 => doc::Counter::ShaderCycles64,
            Counter::Memtime => doc::Counter::Memtime,
        },
        counter_instruction: report.counter_instruction.to_string(),
        executor: report.executor.clone(),
        independent_chains: report.independent_chains,
        iterations: report.iterations,
        latency_waves: report.latency_waves,
        ops_per_region: report.ops_per_region,
        repeat: report.repeat,
        rows: report
            .rows
            .iter()
            .map(|row| doc::Row {
                form: match row.form {
                    Form::Xad => doc::Form::Xad,
                    Form::XorAdd => doc::Form::XorAdd,
                    Form::Add3 => doc::Form::Add3,
                },
                instructions: row.instructions.clone(),
                latency: row.latency,
                latency_ratio: row.latency_ratio,
                latency_spread: row.latency_spread,
                throughput: row.throughput,
                throughput_ratio: row.throughput_ratio,
                throughput_spread: row.throughput_spread,
            })
            .collect(),
        target: report.target.clone(),
        throughput_waves: report.throughput_waves,
    }
}

/// The embedded microbench code object of `target`.
fn embedded_code(target: &'static Target) -> Result<CodeObject> {
    let embedded = crate::platform::embedded::code_object(target, kernel_name(target))
        .map_err(|e| Error::Skipped(format!("microbench: {e}; nothing was run")))?;
    CodeObject::parse(embedded.bytes)
        .map_err(|e| Error::Usage(format!("microbench: {}: {e}", embedded.source)))
}

/// Check every record; with a problem, no timing is reported: a wrong value
/// is exit 1 (its lines through `say`), anything else a device fault.
fn refuse_problems(
    measured: &Measured,
    plan: &Plan,
    say: &mut dyn FnMut(&str),
) -> Result<Option<i32>> {
    let mut problems = Vec::new();
    for (name, launches) in [
        ("latency", &measured.latency),
        ("throughput", &measured.throughput),
    ] {
        for records in launches {
            problems.extend(check_records(name, records, plan.iterations, OPERANDS));
        }
    }
    let Some(first) = problems.first() else {
        return Ok(None);
    };
    let wrong = problems.iter().any(|p| matches!(p, Problem::Wrong { .. }));
    for p in &problems {
        say(&format!("microbench: {p}"));
    }
    if wrong {
        say(&format!(
            "microbench: {} problem(s); no timing is reported",
            problems.len()
        ));
        return Ok(Some(exit::MISMATCH));
    }
    Err(Error::device(
        "microbench",
        crate::platform::device::DeviceError::Refused(format!("{first}; no timing is reported")),
    ))
}

/// The report of good records: medians per form, with their ratios.
fn report_of(
    executor: String,
    target: &'static Target,
    plan: &Plan,
    measured: &Measured,
) -> Report {
    let flat = |launches: &[Vec<Option<Record>>]| -> Vec<Record> {
        launches.iter().flatten().flatten().cloned().collect()
    };
    let (lat, thr) = (flat(&measured.latency), flat(&measured.throughput));
    let counter = lat.first().map_or(Counter::ShaderCycles20, |r| r.counter);
    Report {
        command: "microbench",
        executor,
        target: target.name.to_string(),
        counter,
        counter_instruction: counter.describe(),
        iterations: plan.iterations,
        ops_per_region: ops_per_region(plan.iterations),
        latency_waves: 1,
        throughput_waves: plan.waves,
        independent_chains: CHAINS,
        repeat: plan.repeat,
        rows: summarize(&lat, &thr, plan.iterations)
            .into_iter()
            .map(|mut row| {
                row.instructions = row.form.label(target.generation());
                row
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::DevicePtr;

    /// The labels are the assemblers' mnemonics (llvm-objdump prints gfx9's
    /// `v_add_u32` as such), and a problem's region is named as on gfx11.
    #[test]
    fn forms_are_spelled_as_each_generation_spells_them() {
        for generation in Generation::ALL {
            let add = if generation.name() == "gfx9" {
                "v_add_u32"
            } else {
                "v_add_nc_u32"
            };
            let labels = FORMS.map(|f| f.label(generation));
            assert_eq!(
                labels,
                ["v_xad_u32", &format!("v_xor_b32 + {add}"), "v_add3_u32"],
                "{generation}"
            );
        }
        assert_eq!(region_name(4), "v_xor_b32 + v_add_nc_u32 independent");
    }

    /// A record as the kernel would write it: region r's start/end/value.
    fn words(regions: &[(u64, u64, u32); 6], iterations: u32, kind: u32) -> Vec<u32> {
        let mut w = vec![0u32; RECORD_WORDS];
        for (r, &(start, end, value)) in regions.iter().enumerate() {
            w[6 * r] = start as u32;
            w[6 * r + 1] = (start >> 32) as u32;
            w[6 * r + 2] = end as u32;
            w[6 * r + 3] = (end >> 32) as u32;
            w[6 * r + 4] = value;
        }
        w[36] = iterations;
        w[37] = MARKER | kind;
        w
    }

    fn correct(iterations: u32, spans: [(u64, u64); 6], kind: u32) -> Vec<u32> {
        let regions: [(u64, u64, u32); 6] = std::array::from_fn(|r| {
            (
                spans[r].0,
                spans[r].1,
                expected_value(r, iterations, OPERANDS),
            )
        });
        words(&regions, iterations, kind)
    }

    #[test]
    fn deltas_wrap_modulo_the_counter_width() {
        assert_eq!(delta(100, 350, 20), 250);
        // 20-bit counter: started near the top, ended after the wrap.
        assert_eq!(delta(0xf_ff00, 0x0_0100, 20), 0x200);
        assert_eq!(delta(0xf_ffff, 0, 20), 1);
        assert_eq!(delta(5, 5, 20), 0);
        // 64-bit counters wrap at 2^64 only.
        assert_eq!(delta(u64::MAX - 9, 10, 64), 20);
        assert_eq!(delta(1 << 32, (1 << 32) + 7, 64), 7);
    }

    #[test]
    fn records_parse_and_give_ticks_across_a_wrap() {
        let w = correct(
            2,
            [
                (0xf_fff0, 0x0_0070),
                (10, 1010),
                (0, 64),
                (0, 100),
                (0, 200),
                (0, 300),
            ],
            1,
        );
        let record = Record::parse(&w).expect("marker present");
        assert_eq!(record.counter, Counter::ShaderCycles20);
        assert_eq!(record.iterations, 2);
        assert_eq!(record.ticks(0), 0x80);
        assert_eq!(record.ticks(1), 1000);
        let mut unwritten = w.clone();
        unwritten[MARKER_WORD] = 0;
        assert_eq!(Record::parse(&unwritten), None);
        let mut unknown_kind = w;
        unknown_kind[MARKER_WORD] = MARKER | 9;
        assert_eq!(Record::parse(&unknown_kind), None);
        assert_eq!(Record::parse(&[0; 10]), None, "short buffers are no record");
    }

    #[test]
    fn the_chain_model_matches_hand_computed_values() {
        let ops = [1u32, 2, 7]; // b, c, seed
                                // One trip of the dependent xad chain: 32 steps of (x ^ 1) + 2 from 7.
        let mut x = 7u32;
        for _ in 0..32 {
            x = (x ^ 1).wrapping_add(2);
        }
        assert_eq!(expected_value(0, 1, ops), x);
        assert_eq!(expected_value(1, 1, ops), x, "xor + add computes the same");
        assert_eq!(expected_value(2, 1, ops), 7 + 32 * 3);
        // Independent add3: chains 7+k, 4 steps of +3 each, folded by xor.
        let folded = (0..8u32).fold(0, |a, k| a ^ (7 + k + 12));
        assert_eq!(expected_value(5, 1, ops), folded);
        // Wrapping arithmetic, as the hardware's.
        assert_eq!(
            expected_value(2, 1, [u32::MAX, 0, 0]),
            0u32.wrapping_sub(32)
        );
    }

    #[test]
    fn summary_divides_by_ops_takes_medians_and_ratios_to_xad() {
        let it = 4; // 128 ops per region
        let rec = |spans| Record::parse(&correct(it, spans, 1)).unwrap();
        // Latency launches: xad 640 ticks (5/op), xor+add 1280 (10/op), add3 640.
        let lat = [
            rec([(0, 640), (0, 1280), (0, 640), (0, 128), (0, 256), (0, 128)]),
            rec([(0, 700), (0, 1300), (0, 650), (0, 128), (0, 256), (0, 128)]),
            rec([(0, 600), (0, 1200), (0, 640), (0, 128), (0, 256), (0, 128)]),
        ];
        // Throughput: two waves, the second across a 20-bit wrap.
        let thr = [
            rec([(0, 640), (0, 1280), (0, 640), (0, 256), (0, 512), (0, 256)]),
            rec([
                (0, 640),
                (0, 1280),
                (0, 640),
                (0xf_ff00, 0x0_0000),
                (0xf_ff00, 0x100),
                (0xf_ff00, 0),
            ]),
        ];
        let rows = summarize(&lat, &thr, it);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].form, Form::Xad);
        assert_eq!(rows[0].latency, 5.0);
        // The spread: the fewest and most ticks per op of any launch (600 and 700 ticks).
        assert_eq!(rows[0].latency_spread, [600.0 / 128.0, 700.0 / 128.0]);
        assert_eq!(rows[0].throughput_spread, [2.0, 2.0]);
        assert_eq!(rows[1].latency, 10.0);
        assert_eq!(rows[1].latency_ratio, Some(2.0));
        assert_eq!(rows[2].latency_ratio, Some(640.0 / 128.0 / 5.0));
        assert_eq!(rows[0].throughput, 2.0);
        assert_eq!(rows[1].throughput, 4.0);
        assert_eq!(rows[1].throughput_ratio, Some(2.0));
        assert_eq!(rows[0].latency_ratio, Some(1.0));
        assert_eq!(ratio(3.0, 0.0), None);
        assert_eq!(median(&mut []), 0.0);
        assert_eq!(median(&mut [3.0, 1.0]), 2.0);
    }

    #[test]
    fn wrong_values_unwritten_records_and_impossible_counts_are_problems() {
        let it = 1;
        let good = Record::parse(&correct(it, [(0, 64); 6], 1)).unwrap();
        assert!(check_records("latency", &[Some(good.clone())], it, OPERANDS).is_empty());
        let mut wrong = good.clone();
        wrong.regions[3].value ^= 1 << 7;
        let problems = check_records(
            "throughput",
            &[Some(good.clone()), Some(wrong), None],
            it,
            OPERANDS,
        );
        assert!(
            matches!(
                problems[0],
                Problem::Wrong {
                    wave: 1,
                    region: 3,
                    ..
                }
            ),
            "{problems:?}"
        );
        assert_eq!(
            problems[1],
            Problem::Unwritten {
                launch: "throughput".into(),
                wave: 2
            }
        );
        assert!(
            problems[0].to_string().contains("v_xad_u32 independent"),
            "{}",
            problems[0]
        );
        // 32 ops of xor + add are 64 instructions: 63 ticks cannot be.
        let short = Record::parse(&correct(
            it,
            [(0, 64), (0, 63), (0, 64), (0, 64), (0, 64), (0, 64)],
            1,
        ))
        .unwrap();
        let problems = check_records("latency", &[Some(short.clone())], it, OPERANDS);
        assert!(
            matches!(
                problems[..],
                [Problem::Implausible {
                    region: 1,
                    ticks: 63,
                    instructions: 64,
                    ..
                }]
            ),
            "{problems:?}"
        );
        let mut memtime = short;
        memtime.counter = Counter::Memtime;
        assert!(
            check_records("latency", &[Some(memtime)], it, OPERANDS).is_empty(),
            "s_memtime ticks are not cycles"
        );
    }

    #[test]
    fn plans_and_buffers_match_the_kernel_abi() {
        let plan = Plan {
            wave: 32,
            waves: 8,
            iterations: 256,
            repeat: 5,
        };
        assert_eq!(plan.latency().block, [32, 1, 1]);
        assert_eq!(plan.throughput().block, [256, 1, 1]);
        assert_eq!(plan.out_bytes(), 32 * 64 * 4);
        let mut words = vec![0u32; plan.out_bytes() / 4];
        let w = correct(256, [(1, 2); 6], 3);
        words[RECORD_WORDS..][..w.len()].copy_from_slice(&w);
        let records = parse_records(&words, 2);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0], None);
        assert_eq!(
            records[1].as_ref().map(|r| r.counter),
            Some(Counter::Memtime)
        );
        // The worst case --iterations allows stays a quarter of the 20-bit period at 8 cycles/instruction.
        assert!(ops_per_region(MAX_ITERATIONS) * 2 * 8 <= 1 << 18);
    }

    #[test]
    fn the_emulator_is_refused_and_emulated_devices_are_recognised() {
        let e = refusal(BackendChoice::Emu).expect("refused");
        assert_eq!(e.exit_code(), exit::SKIPPED);
        assert!(e
            .to_string()
            .contains("no timing exists on the embedded emulator"));
        assert!(!e.to_string().contains('\n'));
        assert!(refusal(BackendChoice::Hip).is_none());
    }

    #[test]
    fn every_built_target_has_its_microbench_kernel() {
        for t in crate::platform::target::TARGETS {
            if crate::platform::embedded::unbuilt(t.name).is_some() {
                continue;
            }
            let k = crate::platform::embedded::find(t.name, kernel_name(t))
                .unwrap_or_else(|| panic!("no {} for {}", kernel_name(t), t.name));
            let code = CodeObject::parse(k.bytes).unwrap_or_else(|e| panic!("{}: {e}", t.name));
            let meta = &code.kernel(kernel_name(t)).unwrap().meta;
            let want = if t.generation() == Generation::Gfx9 {
                64
            } else {
                32
            };
            assert_eq!(meta.wavefront_size, want, "{}", t.name);
            assert_eq!(
                meta.reqd_workgroup_size, None,
                "{}: the host picks the block",
                t.name
            );
            assert!(
                meta.max_flat_workgroup_size >= MAX_WAVES * want,
                "{}",
                t.name
            );
        }
    }

    /// A stand-in device for the launch plumbing alone: each launch writes,
    /// for every wave of the block, a record with the model's chain values
    /// and synthetic spans (`ticks` per region, from a start near the 20-bit
    /// top so every region wraps). It times nothing.
    struct Synthetic {
        memory: std::collections::BTreeMap<DevicePtr, Vec<u8>>,
        next: DevicePtr,
        ticks: u64,
        launches: usize,
        fail_launch: bool,
        /// Frees are refused (the memory stays, as a runtime's would).
        fail_free: bool,
    }

    impl Synthetic {
        fn new(ticks: u64) -> Synthetic {
            Synthetic {
                memory: Default::default(),
                next: 0x1000,
                ticks,
                launches: 0,
                fail_launch: false,
                fail_free: false,
            }
        }
    }

    impl Device for Synthetic {
        fn executor(&self) -> crate::platform::device::Executor {
            crate::platform::device::Executor::Emulated {
                arch: "synthetic".into(),
            }
        }
        fn arch_name(&self) -> String {
            "gfx1100".into()
        }
        fn memory_bytes(&self) -> u64 {
            1 << 20
        }
        fn alloc(
            &mut self,
            bytes: usize,
        ) -> Result<DevicePtr, crate::platform::device::DeviceError> {
            let ptr = self.next;
            self.next += 0x10000;
            self.memory.insert(ptr, vec![0xee; bytes]);
            Ok(ptr)
        }
        fn free(&mut self, ptr: DevicePtr) -> Result<(), crate::platform::device::DeviceError> {
            if self.fail_free {
                return Err(crate::platform::device::DeviceError::Refused(
                    "injected free".into(),
                ));
            }
            self.memory
                .remove(&ptr)
                .map(drop)
                .ok_or_else(|| crate::platform::device::DeviceError::Refused("double free".into()))
        }
        fn write(
            &mut self,
            dst: DevicePtr,
            src: &[u8],
        ) -> Result<(), crate::platform::device::DeviceError> {
            self.memory.get_mut(&dst).expect("allocated")[..src.len()].copy_from_slice(src);
            Ok(())
        }
        fn read(
            &mut self,
            src: DevicePtr,
            dst: &mut [u8],
        ) -> Result<(), crate::platform::device::DeviceError> {
            let len = dst.len();
            dst.copy_from_slice(&self.memory[&src][..len]);
            Ok(())
        }
        fn load(
            &mut self,
            _image: &[u8],
        ) -> Result<crate::platform::device::ModuleId, crate::platform::device::DeviceError>
        {
            Ok(crate::platform::device::ModuleId(0))
        }
        fn launch(
            &mut self,
            _module: crate::platform::device::ModuleId,
            kernel: &str,
            kernarg: &[u8],
            dispatch: Dispatch,
            _timeout: Duration,
        ) -> Result<(), crate::platform::device::DeviceError> {
            if self.fail_launch {
                return Err(crate::platform::device::DeviceError::Refused(
                    "injected".into(),
                ));
            }
            assert_eq!(kernel, "xad_microbench");
            let at = |o: usize| u64::from_le_bytes(kernarg[o..o + 8].try_into().unwrap());
            let (operands, out) = (at(0), at(8));
            let iterations = u32::from_le_bytes(kernarg[16..20].try_into().unwrap());
            let ops: Vec<u32> = self.memory[&operands][..12]
                .chunks(4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let waves = dispatch.block[0] / 32;
            let start = 0xf_ff00u64;
            let spans = [(start, (start + self.ticks) & 0xf_ffff); 6];
            for w in 0..waves as usize {
                let mut words = vec![0u32; RECORD_WORDS];
                for (r, (a, b)) in spans.iter().enumerate() {
                    words[6 * r] = *a as u32;
                    words[6 * r + 2] = *b as u32;
                    words[6 * r + 4] = expected_value(r, iterations, [ops[0], ops[1], ops[2]]);
                }
                words[36] = iterations;
                words[MARKER_WORD] = MARKER | 1;
                let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
                self.memory.get_mut(&out).unwrap()[w * RECORD_WORDS * 4..][..bytes.len()]
                    .copy_from_slice(&bytes);
            }
            self.launches += 1;
            Ok(())
        }
    }

    /// gfx1100's microbench kernel and a plan of two iterations.
    fn gfx1100(waves: u32, repeat: u32) -> (CodeObject, Plan) {
        let k = crate::platform::embedded::find("gfx1100", "xad_microbench").expect("embedded");
        let plan = Plan {
            wave: 32,
            waves,
            iterations: 2,
            repeat,
        };
        (CodeObject::parse(k.bytes).unwrap(), plan)
    }

    fn measure_on(dev: &mut Synthetic, code: &CodeObject, plan: &Plan) -> Result<Measured> {
        measure(dev, code, "xad_microbench", plan, Duration::from_secs(1))
    }

    #[test]
    fn measure_launches_each_shape_and_frees_its_buffers() {
        let (code, plan) = gfx1100(4, 3);
        // 64 ops per region; 256 ticks across the wrap is 4 per op.
        let mut dev = Synthetic::new(256);
        let measured = measure_on(&mut dev, &code, &plan).unwrap();
        assert_eq!(
            dev.launches,
            2 * (1 + 3),
            "a warm-up and 3 timed launches of each shape"
        );
        assert!(dev.memory.is_empty(), "every buffer freed");
        assert_eq!(measured.latency.len(), 3);
        assert!(measured.latency.iter().all(|l| l.len() == 1));
        assert!(measured
            .throughput
            .iter()
            .all(|l| l.len() == 4 && l.iter().all(Option::is_some)));
        for records in measured.latency.iter().chain(&measured.throughput) {
            assert_eq!(check_records("synthetic", records, 2, OPERANDS), []);
        }
        let flat: Vec<Record> = measured
            .throughput
            .iter()
            .flatten()
            .flatten()
            .cloned()
            .collect();
        let rows = summarize(&flat, &flat, 2);
        assert!(
            rows.iter().all(|r| r.latency == 4.0 && r.throughput == 4.0),
            "{rows:?}"
        );

        // A failed launch is a fault naming it, and still frees the buffers.
        let mut dev = Synthetic::new(256);
        dev.fail_launch = true;
        let e = measure_on(&mut dev, &code, &plan).unwrap_err();
        assert_eq!(e.exit_code(), exit::FAULT);
        assert!(e.to_string().contains("launching xad_microbench"), "{e}");
        assert!(dev.memory.is_empty());
    }

    /// The one release rule: a refused free neither loses the timing nor
    /// passes unseen; each one is kept beside the records.
    #[test]
    fn refused_frees_are_kept_beside_the_records() {
        let (code, plan) = gfx1100(2, 1);
        let mut dev = Synthetic::new(256);
        dev.fail_free = true;
        let measured = measure_on(&mut dev, &code, &plan).expect("the records are read");
        assert_eq!(measured.latency.len(), 1);
        assert_eq!(measured.release_errors.len(), 2, "operands and records");
        assert!(measured.release_errors[0]
            .to_string()
            .starts_with("releasing a device buffer: injected free"));
    }
}
