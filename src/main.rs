//! The `xad-harness` command line: parse arguments, call the library, print, and
//! map the outcome to the documented exit codes (see README "Exit codes").

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use xad_harness::backend::BackendChoice;
use xad_harness::error::{exit, Error, Result};
use xad_harness::interrupt::Interrupt;
use xad_harness::target::{self, Choice};
use xad_harness::{
    bench, dump, hip, inputs, kernels, listing, merge, microbench, replay, report, run, session,
    soak,
};

mod progress;

/// `println!` that ignores a closed stdout (e.g. `xad-harness run | head`): the
/// run goes on and its reports are still written; `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// `eprintln!` that ignores a closed or full stderr (`2>&-`, `2>/dev/full`):
/// losing a message must not turn into a panic and the wrong exit code.
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(
    name = "xad-harness",
    version,
    about = "Proves, lane by lane, that an AMD GPU executes v_xad_u32 as the ISA says"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run cases and compare every lane with the CPU model (the default command).
    Run(RunArgs),
    /// List HIP devices and whether the harness can run on them.
    Devices {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the cases of the catalogue (with --target, those that target has), and the targets.
    List {
        #[arg(long)]
        json: bool,
        /// Only the cases this target has (a name, or `all` for every target's list).
        // Negative numbers are values, so `--target -1` is refused naming the option.
        #[arg(long, value_name = "TARGET", value_parser = target::parse_choice, allow_negative_numbers = true)]
        target: Option<Choice>,
    },
    /// Write every target's embedded code objects to DIR/<target>/ (for llvm-objdump or other loaders).
    Kernels {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Run the lanes of a `run --dump` directory again and say what reproduced.
    Replay(ReplayArgs),
    /// Print the JSON Schema of the `run --json` report.
    Schema,
    /// Measure the emulator pipeline against a native loop over the same data.
    Bench {
        /// Lanes per run (the speed target is stated for 67108864).
        #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "67108864")]
        lanes: u64,
        /// Seed for the inputs (decimal or 0x hex); random when not given.
        #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
        seed: Option<u64>,
        /// Runs of each, interleaved; the median is reported, and the best.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i64).range(1..=100), allow_hyphen_values = true)]
        repeat: i64,
        /// Lanes of the SHA-256 part (sha256_w32 emulated beside the sha2 crate), 1 to 4194304.
        #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "16384")]
        sha_lanes: u64,
    },
    /// Merge the JSON (and JUnit) reports of several runs, e.g. a fleet's nodes, into one;
    /// exits with their combined code.
    Merge(MergeArgs),
    /// Time v_xad_u32 against v_xor_b32 + add and v_add3_u32 with the GPU's cycle counter
    /// (hardware only: the emulator and emulated devices are exit 77).
    Microbench(microbench::Args),
    /// Run v_xad_u32 for a duration with inputs generated and results checked on the device.
    Soak(SoakArgs),
}

/// `soak --duration D [--backend B] [--device I] [--seed S] [--json FILE]`
#[derive(clap::Args)]
struct SoakArgs {
    /// How long: seconds (90, 1.5) or with a unit (500ms, 30s, 10m, 2h); 0.1 s to 7 days.
    #[arg(long, value_parser = soak::parse_duration, allow_hyphen_values = true)]
    duration: Duration,
    /// What executes (as for `run`; default $XAD_BACKEND, else auto).
    #[arg(long, value_enum)]
    backend: Option<BackendChoice>,
    /// HIP device index (default: the first; the emulator is device 0).
    #[arg(long, value_parser = parse_index, allow_hyphen_values = true)]
    device: Option<usize>,
    /// Seed of the inputs (decimal or 0x hex); random when not given.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: Option<u64>,
    /// Write the outcome as JSON here (also when it fails).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// `merge --json OUT.json [--junit OUT.xml] [--expect N] REPORT.json... [--junit-in IN.xml...]`
#[derive(clap::Args)]
struct MergeArgs {
    /// Write the merged JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the merged JUnit report here (from the --junit-in reports).
    #[arg(long, value_name = "FILE", requires = "junit_in")]
    junit: Option<PathBuf>,
    /// JUnit reports to merge: one or more after each --junit-in, after the JSON reports.
    #[arg(long = "junit-in", value_name = "FILE", num_args = 1.., requires = "junit")]
    junit_in: Vec<PathBuf>,
    /// How many JSON reports the fleet should have produced; any other number is a fault (exit 3).
    // Negative numbers are values, so `--expect -1` is refused naming the option.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    expect: Option<u32>,
    /// The JSON reports to merge, in order.
    #[arg(required = true, value_name = "REPORT.json")]
    reports: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Lanes per case: 1 to 4294967296 (suffixes k, M, G allowed: 64M). Soak runs on hardware: 16M or more.
    #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "65536")]
    lanes: u64,
    /// Seed for inputs and scalar arguments (decimal or 0x hex); printed on every run.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: Option<u64>,
    /// HIP device indices, comma separated (default: every device that runs the target, concurrently; the emulator is device 0).
    #[arg(long, value_parser = parse_index, value_delimiter = ',', allow_hyphen_values = true)]
    device: Option<Vec<usize>>,
    /// Cases to run: names or globs, comma separated (default: all).
    #[arg(long, value_name = "PATTERN")]
    case: Option<String>,
    /// Run your own kernel (.s assembled now, or a code object) against a case's ABI and model.
    #[arg(long, value_name = "FILE")]
    kernel: Option<PathBuf>,
    /// What executes the kernels (default: $XAD_BACKEND, else auto). `hip` demands hardware:
    /// no matching device is exit 77, never an emulator pass.
    #[arg(long, value_enum)]
    backend: Option<BackendChoice>,
    /// Target whose code objects run: a name (gfx1151, gfx12-generic, ...; see `list --target`) or
    /// `all`. Default: the device's own target (gfx1100 on the emulator).
    #[arg(long, value_name = "TARGET", value_parser = target::parse_choice, allow_negative_numbers = true)]
    target: Option<Choice>,
    /// Watchdog per dispatch, in seconds: 0.001 to 86400.
    #[arg(long, value_parser = parse_timeout, allow_hyphen_values = true, default_value = "60")]
    timeout: Duration,
    /// Failing lanes printed and recorded per case: 0 to 1000000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i64).range(0..=MAX_MISMATCHES), allow_hyphen_values = true)]
    max_mismatches: i64,
    /// Write a JSON report here (also when the run fails).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a JUnit XML report here (also when the run fails).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Print only the cases that did not pass and the closing line; no progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Write the blocks around failing lanes (inputs, expected, got as .npy) and the code object
    /// to this new or empty directory, for `replay`.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// With --dump: every lane, not only failing ones (at most 1048576 lanes per case).
    #[arg(long, requires = "dump")]
    dump_all: bool,
    /// Instructions one emulated wave may execute before the emulator stops it as an endless
    /// loop (exit 3): 1 to 1000000000000. The embedded emulator only; a HIP device has the
    /// --timeout watchdog.
    #[arg(long, value_name = "N", default_value_t = xad_harness::emu::DEFAULT_STEP_BUDGET,
          value_parser = clap::value_parser!(u64).range(1..=MAX_STEP_BUDGET), allow_hyphen_values = true)]
    step_budget: u64,
}

/// Largest `--step-budget`: a wave that many instructions long runs for
/// hours on the emulator, which the watchdog (`--timeout`) stops first.
const MAX_STEP_BUDGET: u64 = 1_000_000_000_000;

#[derive(clap::Args)]
struct ReplayArgs {
    /// A directory `run --dump` wrote.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// What executes the kernels (as for `run`; default auto, or $XAD_BACKEND).
    #[arg(long, value_enum)]
    backend: Option<BackendChoice>,
    /// HIP device index (the emulator is device 0).
    #[arg(long, value_parser = parse_index, allow_hyphen_values = true)]
    device: Option<usize>,
    /// Only the dumped cases whose names match (globs, comma separated).
    #[arg(long, value_name = "PATTERN")]
    case: Option<String>,
    /// Only the blocks holding these global lanes (comma separated).
    #[arg(long, value_name = "LANES", value_delimiter = ',', value_parser = parse_lane, allow_hyphen_values = true)]
    lane: Option<Vec<u64>>,
    /// Watchdog per dispatch, in seconds: 0.001 to 86400.
    #[arg(long, value_parser = parse_timeout, allow_hyphen_values = true, default_value = "60")]
    timeout: Duration,
    /// Lane lines printed per case: 0 to 1000000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i64).range(0..=MAX_MISMATCHES), allow_hyphen_values = true)]
    max_mismatches: i64,
}

fn parse_lane(text: &str) -> std::result::Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| format!("must be a global lane index (0, 1, ...), got {text:?}"))
}

/// Largest `--max-mismatches`: each record is a few dozen bytes per case,
/// and a log of a million lines is already unreadable.
const MAX_MISMATCHES: i64 = 1_000_000;

fn parse_lanes(text: &str) -> std::result::Result<u64, String> {
    let bad = || {
        format!(
            "must be a whole number of lanes from 1 to {} (e.g. 1048576 or 64M), got {text:?}",
            run::MAX_LANES
        )
    };
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let n = digits
        .parse::<u64>()
        .map_err(|_| bad())?
        .checked_mul(scale)
        .ok_or_else(bad)?;
    if n == 0 || n > run::MAX_LANES {
        return Err(bad());
    }
    Ok(n)
}

fn parse_seed(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed
        .map_err(|_| format!("must be a 64-bit unsigned number (decimal or 0x hex), got {text:?}"))
}

fn parse_index(text: &str) -> std::result::Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| format!("must be a device index (0, 1, ...), got {text:?}"))
}

/// A watchdog shorter than a millisecond could only ever fire: `1e-10`
/// would round to zero and time out every dispatch.
fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.001..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "must be a number of seconds from 0.001 to 86400, got {text:?}"
        )),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(refuse_arguments(&e) as u8),
    };
    // The main thread joins rayon's global pool as worker 0: the pipeline
    // issues several parallel steps per chunk from this thread, and from
    // outside the pool each one is a hand-off to a worker and back (two futex
    // waits); from inside it is a plain join. If another pool was already set
    // up, keep it.
    let _ = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global();
    let outcome = match cli
        .command
        .unwrap_or_else(|| Command::Run(RunOnly::parse_from(["xad-harness"]).args))
    {
        Command::Run(args) => cmd_run(args),
        Command::Devices { json } => cmd_devices(json),
        Command::List { json, target } => cmd_list(json, target.unwrap_or(Choice::All)),
        Command::Kernels { out } => cmd_kernels(&out),
        Command::Replay(args) => cmd_replay(args),
        Command::Schema => {
            say!("{}", report::SCHEMA.trim_end());
            Ok(exit::PASS)
        }
        Command::Bench {
            lanes,
            seed,
            repeat,
            sha_lanes,
        } => {
            let (seed, repeat) = (
                seed.unwrap_or_else(inputs::fresh_seed),
                usize::try_from(repeat).unwrap_or(1),
            );
            bench::sha256_lanes_ok(sha_lanes).and_then(|()| {
                say!("{}", bench::run(lanes, seed, repeat)?.trim_end());
                say!("{}", bench::sha256(sha_lanes, seed, repeat)?.trim_end());
                Ok(exit::PASS)
            })
        }
        Command::Merge(args) => cmd_merge(args),
        Command::Microbench(args) => backend_choice(args.backend)
            .and_then(|backend| microbench::run(&args, backend, &mut |line| say!("{line}"))),
        Command::Soak(args) => cmd_soak(args),
    };
    match outcome {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            warn!("xad-harness: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Print why the arguments were refused and return the exit code: help and
/// version are not errors; anything else is clap's first line, then one line
/// per report path that could not be written either, so a user fixes both
/// at once.
fn refuse_arguments(e: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return exit::PASS;
    }
    let text = e.to_string();
    let mut lines = text.lines();
    let first = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    // clap names the missing arguments on the lines after its first.
    let missing = match e.kind() {
        ErrorKind::MissingRequiredArgument => lines
            .map(str::trim)
            .filter(|l| l.starts_with('-') || l.starts_with('<'))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    if missing.is_empty() {
        warn!("xad-harness: {first} (see --help)");
    } else {
        warn!("xad-harness: {first} {missing} (see --help)");
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let (json, junit) = (
        report_path_arg(&args, "--json"),
        report_path_arg(&args, "--junit"),
    );
    for refused in report::files::check(json.as_deref(), junit.as_deref()) {
        warn!("xad-harness: {refused}");
    }
    exit::USAGE
}

/// The value of `run`'s `option` (`--json`/`--junit`) in arguments clap
/// refused for another reason. `devices --json` and `list --json` are flags,
/// so only a `run` (or no subcommand) counts. An empty value is left out:
/// clap refuses it itself (`a value is required for '--json <FILE>'`), and
/// the same error on a second line would read as two.
fn report_path_arg(args: &[std::ffi::OsString], option: &str) -> Option<PathBuf> {
    let first = args
        .first()
        .map(|a| a.to_string_lossy())
        .unwrap_or_default();
    if first != "run" && !first.starts_with('-') {
        return None;
    }
    let inline = format!("{option}=");
    args.iter().enumerate().find_map(|(i, a)| {
        let text = a.to_str()?;
        match text.strip_prefix(&inline) {
            Some(value) => Some(PathBuf::from(value)),
            None if text == option => args
                .get(i + 1)
                .filter(|v| !v.to_string_lossy().starts_with("--"))
                .map(PathBuf::from),
            None => None,
        }
        .filter(|path| !path.as_os_str().is_empty())
    })
}

/// `xad-harness` with no subcommand is `run` with every default.
#[derive(Parser)]
struct RunOnly {
    #[command(flatten)]
    args: RunArgs,
}

fn say_lines(lines: Vec<String>) {
    for line in lines {
        say!("{line}");
    }
}

/// `--backend`, else `$XAD_BACKEND` (so a CI runner can demand hardware for
/// every invocation), else `auto`.
fn backend_choice(flag: Option<BackendChoice>) -> Result<BackendChoice> {
    use clap::ValueEnum;
    if let Some(choice) = flag {
        return Ok(choice);
    }
    match std::env::var("XAD_BACKEND") {
        Err(std::env::VarError::NotPresent) => Ok(BackendChoice::Auto),
        Ok(v) if v.trim().is_empty() => Ok(BackendChoice::Auto),
        Ok(v) => BackendChoice::from_str(v.trim(), true)
            .map_err(|_| Error::Usage(format!("XAD_BACKEND={v}: expected auto, hip or emu"))),
        Err(e) => Err(Error::Usage(format!("XAD_BACKEND: {e}"))),
    }
}

fn cmd_run(args: RunArgs) -> Result<i32> {
    // First, so a signal at any later point is a clean stop, not a kill.
    let interrupt = Interrupt::install()
        .map_err(|e| Error::Io(format!("installing the SIGINT/SIGTERM handlers: {e}")))?;
    let backend = backend_choice(args.backend);
    let mut request = session::Request {
        lanes: args.lanes,
        seed: args.seed,
        devices: args.device,
        cases: args.case,
        kernel: args.kernel,
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
    let mut refused = report::files::check(args.json.as_deref(), args.junit.as_deref());
    refused.extend(check_dump(args.dump.as_deref(), args.dump_all, args.lanes));
    refused.extend(backend.err());
    if !refused.is_empty() {
        for e in refused.iter().chain(&session::check_request(&request)) {
            warn!("xad-harness: {e}");
        }
        return Ok(exit::USAGE);
    }
    let dump_mode = if args.dump_all {
        dump::Mode::All
    } else {
        dump::Mode::Failing
    };
    let sink = match &args.dump {
        Some(dir) => Some(dump::Sink::create(dir, dump_mode)?),
        None => None,
    };
    request.dump = sink.clone();
    let bar = progress::Bar::start(args.quiet, request.lanes_done.clone());
    let report = session::run(&request, &mut |step| {
        if let session::Progress::Started { cases, .. } = step {
            bar.set_total(cases as u64 * request.lanes);
        }
        if !args.quiet || step.shown_when_quiet() {
            bar.print(step.lines());
        }
        for line in step.fault_lines() {
            bar.warn(format!("xad-harness: {line}"));
        }
    });
    bar.finish();
    // Reports are written whatever happened, so nothing the user asked for is lost.
    let ending = session::finish(report, args.json.as_deref(), args.junit.as_deref());
    for e in ending.also {
        warn!("xad-harness: {e}");
    }
    match sink.map(|sink| sink.finish()) {
        None => ending.outcome,
        Some(Ok(summary)) => {
            say!(
                "dump {}: {} case(s), {} lanes (replay: xad-harness replay {})",
                summary.dir.display(),
                summary.cases,
                summary.lanes,
                summary.dir.display()
            );
            if summary.blocks_left_out > 0 {
                warn!(
                    "xad-harness: --dump: {} block(s) left out: the dump reached its limit of {} bytes (see manifest.json)",
                    summary.blocks_left_out,
                    dump::MAX_DUMP_BYTES
                );
            }
            ending.outcome
        }
        // A dump that could not be written fails an otherwise passing run, as a report does.
        Some(Err(e)) => match ending.outcome {
            Ok(exit::PASS) => Err(e),
            outcome => {
                warn!("xad-harness: {e}");
                outcome
            }
        },
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

fn cmd_replay(args: ReplayArgs) -> Result<i32> {
    let request = replay::Request {
        dir: args.dir,
        backend: backend_choice(args.backend)?,
        device: args.device,
        lanes: args.lane,
        cases: args.case,
        timeout: args.timeout,
        max_lines: usize::try_from(args.max_mismatches).unwrap_or(0),
    };
    replay::run(&request, &mut |line| say!("{line}"))
}

fn cmd_devices(json: bool) -> Result<i32> {
    let probe = hip::probe();
    if json {
        say!(
            "{}",
            listing::to_json(&listing::DevicesReport::from(&probe))?
        );
    } else {
        say_lines(listing::device_lines(&probe));
    }
    Ok(exit::PASS)
}

fn cmd_list(json: bool, target: Choice) -> Result<i32> {
    if json {
        say!("{}", listing::to_json(&listing::case_rows(target))?);
    } else {
        say_lines(listing::case_lines(target));
    }
    Ok(exit::PASS)
}

fn cmd_kernels(out: &Path) -> Result<i32> {
    kernels::write_all(out, &mut |path, k| {
        say!("{}  ({}, from {})", path.display(), k.target, k.source)
    })?;
    Ok(exit::PASS)
}

fn cmd_merge(args: MergeArgs) -> Result<i32> {
    let command: Vec<String> = command_line();
    let request = merge::Request {
        reports: &args.reports,
        junit: &args.junit_in,
        expect: args.expect.map(|n| n as usize),
        command: &command,
    };
    let refused = merge::check_outputs(&request, args.json.as_deref(), args.junit.as_deref());
    if !refused.is_empty() {
        for e in refused {
            warn!("xad-harness: {e}");
        }
        return Ok(exit::USAGE);
    }
    let merged = merge::merge(&request)?;
    let written = merge::write(&merged, args.json.as_deref(), args.junit.as_deref());
    say!("{}", merged.summary_line());
    // Why the merge is not a pass (`--expect`'s count, a node's error) on
    // stderr too, one line, not only inside the JSON report.
    if let Some(error) = merged.report["error"].as_str().filter(|e| !e.is_empty()) {
        warn!("xad-harness: merge: {error}");
    }
    match written {
        Ok(()) => Ok(merged.exit_code),
        Err(e) => {
            warn!("xad-harness: {e}");
            Ok(merge::combine_exit_codes(&[
                merged.exit_code,
                e.exit_code(),
            ]))
        }
    }
}

fn cmd_soak(args: SoakArgs) -> Result<i32> {
    let interrupt = Interrupt::install()
        .map_err(|e| Error::Io(format!("installing the SIGINT/SIGTERM handlers: {e}")))?;
    let mut refused = report::files::check(args.json.as_deref(), None);
    let backend = backend_choice(args.backend);
    refused.extend(backend.as_ref().err().map(|e| Error::Usage(e.to_string())));
    if !refused.is_empty() {
        for e in refused {
            warn!("xad-harness: {e}");
        }
        return Ok(exit::USAGE);
    }
    let request = soak::Request {
        duration: args.duration,
        backend: backend?,
        device: args.device,
        seed: args.seed.unwrap_or_else(inputs::fresh_seed),
        sample: soak::DEFAULT_SAMPLE,
        timeout: Duration::from_secs(60),
        interrupt: Some(interrupt),
        fixed: None,
    };
    soak::run_reported(
        &request,
        args.json.as_deref(),
        &mut |line| say!("{line}"),
        &mut |line| warn!("xad-harness: {line}"),
    )
}

/// The command line for the reports' `command` field. Any Unix path is an
/// argument (`std::env::args` would panic on one that is not UTF-8), so
/// bytes that are not UTF-8 are written as `\xNN`: the line stays one
/// string and loses nothing.
fn command_line() -> Vec<String> {
    use std::os::unix::ffi::OsStrExt;
    std::env::args_os()
        .map(|arg| {
            let mut out = String::new();
            for chunk in arg.as_bytes().utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out
        })
        .collect()
}
