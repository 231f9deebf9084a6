//! `xad-harness run` (and no subcommand at all): run cases through
//! [`crate::commands::run::session`] with a progress bar, write the reports and a dump.

pub mod dump;
pub mod execute;
pub mod fold;
pub mod plan;
mod progress;
pub mod session;

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;

use super::shared::{
    backend_choice, command_line, install_interrupt, parse_index, parse_lanes, parse_seed,
    parse_timeout, refuse, say, warn, Failure, MAX_MISMATCHES,
};
use crate::error::Error;
use crate::platform::backend::BackendChoice;
use crate::platform::target::{self, Choice};
use crate::report;
use progress::Bar;

#[derive(clap::Args)]
pub struct RunArgs {
    /// Lanes per case: 1 to 4294967296 (suffixes k, M, G allowed: 64M). Soak runs on hardware: 16M or more.
    #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "65536")]
    pub lanes: u64,
    /// Seed for inputs and scalar arguments (decimal or 0x hex); printed on every run.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// HIP device indices, comma separated (default: every device that runs the target, concurrently; the emulator is device 0).
    #[arg(long, value_parser = parse_index, value_delimiter = ',', allow_hyphen_values = true)]
    pub device: Option<Vec<usize>>,
    /// Cases to run: names or globs, comma separated (default: all).
    #[arg(long, value_name = "PATTERN")]
    pub case: Option<String>,
    /// Run your own kernel (.s assembled now, or a code object) against a case's ABI and model.
    #[arg(long, value_name = "FILE")]
    pub kernel: Option<PathBuf>,
    /// What executes the kernels (default: $XAD_BACKEND, else auto). `hip` demands hardware:
    /// no matching device is exit 77, never an emulator pass.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Target whose code objects run: a name (gfx1151, gfx12-generic, ...; see `list --target`) or
    /// `all`. Default: the device's own target (gfx1100 on the emulator).
    #[arg(long, value_name = "TARGET", value_parser = target::parse_choice, allow_negative_numbers = true)]
    pub target: Option<Choice>,
    /// Watchdog per dispatch, in seconds: 0.001 to 86400.
    #[arg(long, value_parser = parse_timeout, allow_hyphen_values = true, default_value = "60")]
    pub timeout: Duration,
    /// Failing lanes printed and recorded per case: 0 to 1000000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i64).range(0..=MAX_MISMATCHES), allow_hyphen_values = true)]
    pub max_mismatches: i64,
    /// Write a JSON report here (also when the run fails); `-` writes it to stdout and the
    /// text to stderr. A FIFO or character device is written in place.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here (also when the run fails); `-` writes it to stdout and
    /// the text to stderr. A FIFO or character device is written in place.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a self-contained HTML page of lane maps and bit histograms here (also when the
    /// run fails; `-`: stdout); `report REPORT.json --html` draws the same page from a saved report.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print only the cases that did not pass and the closing line; no progress bar.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every line of every case: each unsettled word and its candidate readings, and
    /// with --target all each passing case (by default the JSON, JUnit and HTML reports hold them).
    #[arg(long, short)]
    pub verbose: bool,
    /// Write the blocks around failing lanes (inputs, expected, got as .npy) and the code object
    /// to this new or empty directory, for `replay`.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// With --dump: every lane, not only failing ones (at most 1048576 lanes per case).
    #[arg(long, requires = "dump")]
    pub dump_all: bool,
    /// Instructions one emulated wave may execute before the emulator stops it as an endless
    /// loop (exit 3): 1 to 1000000000000. The embedded emulator only; a HIP device has the
    /// --timeout watchdog.
    #[arg(long, value_name = "N", default_value_t = crate::platform::emu::DEFAULT_STEP_BUDGET,
          value_parser = clap::value_parser!(u64).range(1..=MAX_STEP_BUDGET), allow_hyphen_values = true)]
    pub step_budget: u64,
}

/// Largest `--step-budget`: a wave that many instructions long runs for
/// hours on the emulator, which the watchdog (`--timeout`) stops first.
const MAX_STEP_BUDGET: u64 = 1_000_000_000_000;

/// `xad-harness` with no subcommand is `run` with every default.
#[derive(Parser)]
struct RunOnly {
    #[command(flatten)]
    args: RunArgs,
}

pub(super) fn default_args() -> RunArgs {
    RunOnly::parse_from(["xad-harness"]).args
}

pub fn run(args: RunArgs) -> Result<i32, Failure> {
    let interrupt = install_interrupt()?;
    let backend = backend_choice(args.backend);
    let mut request = plan::Request {
        lanes: args.lanes,
        seed: args.seed,
        devices: args.device.clone(),
        cases: args.case.clone(),
        kernel: args.kernel.clone(),
        backend: *backend.as_ref().unwrap_or(&BackendChoice::Auto),
        target: args.target.unwrap_or_default(),
        timeout: args.timeout,
        max_mismatches: usize::try_from(args.max_mismatches).unwrap_or(0), // 0..=MAX_MISMATCHES by the parser
        interrupt,
        dump: None,
        command: command_line(),
        lanes_done: Default::default(),
        step_budget: args.step_budget,
    };
    // A report that could not be written is found now, not after the run;
    // other usage errors are shown beside it.
    let mut refused = report::outputs::check(args.json.as_deref(), args.junit.as_deref());
    refused.extend(report::outputs::check_html(
        args.html.as_deref(),
        &[
            ("--json", args.json.as_deref()),
            ("--junit", args.junit.as_deref()),
        ],
    ));
    refused.extend(check_dump(args.dump.as_deref(), args.dump_all, args.lanes));
    refused.extend(backend.err());
    if !refused.is_empty() {
        refused.extend(plan::check_request(&request));
    }
    refuse(refused)?;
    super::shared::report_on_stdout(&[
        args.json.as_deref(),
        args.junit.as_deref(),
        args.html.as_deref(),
    ]);
    let mode = if args.dump_all {
        dump::Mode::All
    } else {
        dump::Mode::Failing
    };
    let sink = match &args.dump {
        Some(dir) => Some(dump::Sink::create(dir, mode)?),
        None => None,
    };
    request.dump = sink.clone();
    let view = report::View {
        verbose: args.verbose,
        many_targets: matches!(request.target, Choice::All),
    };
    let report = run_with_bar(&request, args.quiet, view);
    // Reports are written whatever happened, so nothing the user asked for is lost.
    let outputs = session::Outputs {
        json: args.json.as_deref(),
        junit: args.junit.as_deref(),
        html: args.html.as_deref(),
    };
    let ending = session::finish(report, &outputs);
    for e in ending.also {
        warn(e);
    }
    Ok(finish_dump(sink, ending.outcome)?)
}

/// The session, its lines printed above a progress bar.
fn run_with_bar(
    request: &plan::Request,
    quiet: bool,
    view: report::View,
) -> crate::report::RunReport {
    let bar = Bar::start(quiet, request.lanes_done.clone());
    let report = session::run(request, &mut |step| {
        if let execute::Progress::Started { cases, .. } = step {
            bar.set_total(cases as u64 * request.lanes);
        }
        if !quiet || step.shown_when_quiet() {
            bar.print(step.lines(view));
        }
        for line in step.fault_lines() {
            bar.warn(format!("xad-harness: {line}"));
        }
    });
    bar.finish();
    report
}

/// Close the dump and say where it is. A dump that could not be written
/// fails an otherwise passing run, as a report does.
fn finish_dump(sink: Option<dump::Sink>, outcome: Result<i32, Error>) -> Result<i32, Error> {
    match sink.map(|sink| sink.finish()) {
        None => outcome,
        Some(Ok(summary)) => {
            say(format_args!(
                "dump {}: {} case(s), {} lanes (replay: xad-harness replay {})",
                summary.dir.display(),
                summary.cases,
                summary.lanes,
                summary.dir.display()
            ));
            if summary.blocks_left_out > 0 {
                warn(format_args!(
                    "--dump: {} block(s) left out: the dump reached its limit of {} bytes (see manifest.json)",
                    summary.blocks_left_out,
                    dump::MAX_DUMP_BYTES
                ));
            }
            outcome
        }
        Some(Err(e)) => {
            let (outcome, unwritten) = report::outputs::after_writing(outcome, Err(e));
            if let Some(e) = unwritten {
                warn(e);
            }
            outcome
        }
    }
}

/// `--dump`'s directory and `--dump-all`'s size, checked before anything runs.
fn check_dump(dir: Option<&Path>, all: bool, lanes: u64) -> Vec<Error> {
    let mut refused = Vec::new();
    if let Some(dir) = dir {
        refused.extend(dump::check_dir("--dump", dir).err());
    }
    if all && lanes > dump::MAX_DUMP_ALL_LANES {
        refused.push(Error::Usage(format!(
            "--dump-all takes at most {} lanes per case (up to {} bytes per lane), not --lanes {}; dump failing lanes with --dump alone",
            dump::MAX_DUMP_ALL_LANES,
            dump::bytes_per_lane(3, 90, true),
            lanes
        )));
    }
    refused
}
