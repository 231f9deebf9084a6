//! The `xad-harness` command line: parse arguments, call the library, print, and
//! map the outcome to the documented exit codes (see README "Exit codes").

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use xad_harness::backend::{self, BackendChoice};
use xad_harness::cases::{self, Case};
use xad_harness::codeobj::CodeObject;
use xad_harness::error::{exit, Error, Result};
use xad_harness::report::{self, RunReport};
use xad_harness::run::{self, KernelSource, Loaded, Options, Status};
use xad_harness::{bench, hip, inputs, kernels, toolchain};

/// `println!` that ignores a closed stdout (e.g. `xad-harness run | head`): the
/// run goes on and its reports are still written; `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(name = "xad-harness", version, about = "Proves, lane by lane, that an AMD GPU executes v_xad_u32 as the ISA says")]
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
    /// List the cases of the catalogue.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Write the embedded code objects to a directory (for llvm-objdump or other loaders).
    Kernels {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Measure the emulator pipeline against a native loop over the same data.
    Bench {
        /// Lanes per run (the speed target is stated for 67108864).
        #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "67108864")]
        lanes: u64,
        /// Seed for the inputs (decimal or 0x hex); random when not given.
        #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
        seed: Option<u64>,
        /// Runs of each, interleaved; the median is reported, and the best.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
        repeat: u64,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Lanes per case: 1 to 4294967296 (suffixes k, M, G allowed: 64M). Soak runs on hardware: 16M or more.
    #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "65536")]
    lanes: u64,
    /// Seed for inputs and scalar arguments (decimal or 0x hex); printed on every run.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: Option<u64>,
    /// HIP device index (the emulator is device 0).
    #[arg(long, value_parser = parse_index, allow_hyphen_values = true)]
    device: Option<usize>,
    /// Cases to run: names or globs, comma separated (default: all).
    #[arg(long, value_name = "PATTERN")]
    case: Option<String>,
    /// Run your own kernel (.s assembled now, or a code object) against a case's ABI and model.
    #[arg(long, value_name = "FILE")]
    kernel: Option<PathBuf>,
    /// What executes the kernels.
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendChoice,
    /// Watchdog per dispatch, in seconds.
    #[arg(long, value_parser = parse_timeout, allow_hyphen_values = true, default_value = "60")]
    timeout: Duration,
    /// Failing lanes printed per case.
    #[arg(long, default_value = "10")]
    max_mismatches: usize,
    /// Write a JSON report here (also when the run fails).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a JUnit XML report here (also when the run fails).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
}

fn parse_lanes(text: &str) -> std::result::Result<u64, String> {
    let bad = || format!("must be a whole number of lanes from 1 to {} (e.g. 1048576 or 64M), got {text:?}", run::MAX_LANES);
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let n = digits.parse::<u64>().map_err(|_| bad())?.checked_mul(scale).ok_or_else(bad)?;
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
    parsed.map_err(|_| format!("must be a 64-bit unsigned number (decimal or 0x hex), got {text:?}"))
}

fn parse_index(text: &str) -> std::result::Result<usize, String> {
    text.trim().parse::<usize>().map_err(|_| format!("must be a device index (0, 1, ...), got {text:?}"))
}

fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("must be a number of seconds greater than 0 and at most 86400, got {text:?}")),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
                let _ = e.print();
                return ExitCode::from(exit::PASS as u8);
            }
            // One line: clap's first line without its "error: " prefix.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            eprintln!("xad-harness: {first} (see --help)");
            return ExitCode::from(exit::USAGE as u8);
        }
    };
    // The main thread joins rayon's global pool as worker 0: the pipeline
    // issues several parallel steps per chunk from this thread, and from
    // outside the pool each one is a hand-off to a worker and back (two futex
    // waits); from inside it is a plain join. If another pool was already set
    // up, keep it.
    let _ = rayon::ThreadPoolBuilder::new().use_current_thread().build_global();
    let outcome = match cli.command.unwrap_or_else(|| Command::Run(RunOnly::parse_from(["xad-harness"]).args)) {
        Command::Run(args) => cmd_run(args),
        Command::Devices { json } => cmd_devices(json),
        Command::List { json } => cmd_list(json),
        Command::Kernels { out } => cmd_kernels(&out),
        Command::Bench { lanes, seed, repeat } => bench::run(lanes, seed.unwrap_or_else(inputs::fresh_seed), repeat as usize).map(|text| {
            say!("{}", text.trim_end());
            exit::PASS
        }),
    };
    match outcome {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("xad-harness: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// `xad-harness` with no subcommand is `run` with every default.
#[derive(Parser)]
struct RunOnly {
    #[command(flatten)]
    args: RunArgs,
}

fn load_user_kernel(path: &Path) -> Result<Loaded> {
    let shown = path.display();
    if !path.is_file() {
        return Err(Error::Usage(format!("--kernel {shown}: no such file")));
    }
    let bytes = if path.extension().is_some_and(|e| e == "s" || e == "S" || e == "asm") {
        match toolchain::assemble_file(path, "gfx1100") {
            Ok(bytes) => bytes,
            // The user's source is wrong: bad input. A missing or broken
            // toolchain stays a toolchain fault (exit 3).
            Err(e @ toolchain::ToolchainError::Failed { .. }) => {
                return Err(Error::Usage(format!("--kernel {shown} does not assemble: {e}")))
            }
            Err(e) => return Err(e.into()),
        }
    } else {
        std::fs::read(path).map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?
    };
    let code = CodeObject::parse(&bytes).map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
    Ok(Loaded { code, source: KernelSource::User { path: shown.to_string() } })
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))
}

fn cmd_run(args: RunArgs) -> Result<i32> {
    let seed = args.seed.unwrap_or_else(inputs::fresh_seed);
    let mut report = RunReport::new(seed, args.lanes);
    let outcome = run_into(&args, seed, &mut report);
    if let Err(e) = &outcome {
        report.error = Some(e.to_string());
    }
    // Reports are written whatever happened, so nothing the user asked for is lost.
    let mut write_error = None;
    if let Some(path) = &args.json {
        write_error = write_file(path, &report.to_json()).err().or(write_error);
    }
    if let Some(path) = &args.junit {
        write_error = write_file(path, &report::to_junit(&report)).err().or(write_error);
    }
    let code = outcome?;
    match write_error {
        Some(e) if code == exit::PASS => Err(e),
        Some(e) => {
            eprintln!("xad-harness: {e}");
            Ok(code)
        }
        None => Ok(code),
    }
}

fn run_into(args: &RunArgs, seed: u64, report: &mut RunReport) -> Result<i32> {
    let chosen: Vec<Case> = match (&args.case, &args.kernel) {
        (Some(p), _) => cases::select(p).map_err(Error::Usage)?,
        (None, Some(_)) => cases::select("basic").map_err(Error::Usage)?,
        (None, None) => cases::catalogue(),
    };
    let user = match &args.kernel {
        Some(path) if chosen.len() != 1 => {
            return Err(Error::Usage(format!(
                "--kernel {} needs exactly one case, but --case matched {}",
                path.display(),
                chosen.len()
            )))
        }
        Some(path) => Some(load_user_kernel(path)?),
        None => None,
    };
    let selected = backend::select(args.backend, args.device)?;
    let mut device = selected.device;
    report.executor = device.executor().to_string();
    report.backend_note = selected.note.clone();
    if let Some(user) = &user {
        // A user's kernel for another target is bad input: refuse before launch.
        run::check_target(&user.code, &device.arch_name()).map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
    }
    say!("xad-harness {}: executor: {}", env!("CARGO_PKG_VERSION"), report.executor);
    if let Some(note) = &selected.note {
        say!("note: {note}");
    }
    say!("seed {seed} (replay with --seed {seed}); {} lanes per case; {} case(s)", args.lanes, chosen.len());
    let opts = Options {
        lanes: args.lanes,
        seed,
        timeout: args.timeout,
        keep: args.max_mismatches,
        ..Options::default()
    };
    for case in &chosen {
        let loaded = match &user {
            Some(u) => Loaded { code: u.code.clone(), source: u.source.clone() },
            None => run::embedded(case).map_err(Error::Io)?,
        };
        let kernel = run::kernel_for(&loaded, case).map_err(|e| Error::Usage(format!("--kernel: {e}")))?;
        let result = run::run_case(device.as_mut(), case, &loaded.code, kernel, loaded.source.clone(), &opts);
        for line in report::case_lines(&result) {
            say!("{line}");
        }
        let timed_out = result.error.as_deref().is_some_and(|e| e.contains("watchdog"));
        report.cases.push(result);
        if timed_out {
            // The device may still be running the hung kernel; later cases would
            // only queue behind it.
            report.error = Some("stopped after a watchdog timeout".into());
            break;
        }
    }
    say!("{}", report::summary_line(report));
    Ok(if report.count(Status::Fail) > 0 {
        exit::MISMATCH
    } else if report.count(Status::Error) > 0 || report.error.is_some() {
        exit::FAULT
    } else {
        exit::PASS
    })
}

fn cmd_devices(json: bool) -> Result<i32> {
    let probe = hip::probe();
    if json {
        let devices: Vec<_> = probe
            .devices
            .iter()
            .map(|d| match &d.info {
                Ok(i) => serde_json::json!({
                    "index": d.index, "name": i.name, "arch": i.arch, "compute_units": i.compute_units,
                    "memory_bytes": i.memory_bytes, "runnable": d.runnable,
                }),
                Err(e) => serde_json::json!({ "index": d.index, "error": e.to_string(), "runnable": false }),
            })
            .collect();
        let doc = serde_json::json!({
            "runtime": probe.runtime_line(),
            "no_devices_reason": probe.no_devices_reason(),
            "devices": devices,
            "emulator": "emulated gfx1100",
        });
        say!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Error::Io(e.to_string()))?);
        return Ok(exit::PASS);
    }
    say!("{}", probe.runtime_line());
    if let Some(reason) = probe.no_devices_reason() {
        say!("no HIP devices ({})", reason.trim_start_matches("no devices: "));
    }
    for d in &probe.devices {
        match &d.info {
            Ok(i) => say!(
                "  {}  {}  {}  {} CUs  {:.1} GiB  {}",
                d.index,
                i.name,
                i.arch,
                i.compute_units,
                i.memory_bytes as f64 / (1u64 << 30) as f64,
                if d.runnable { "runnable" } else { "not runnable (needs gfx1100)" }
            ),
            Err(e) => say!("  {}  properties unreadable: {e}", d.index),
        }
    }
    say!("embedded emulator: emulated gfx1100 (--backend emu; used by --backend auto when no device above is runnable)");
    Ok(exit::PASS)
}

fn cmd_list(json: bool) -> Result<i32> {
    let all = cases::catalogue();
    if json {
        let rows: Vec<_> = all
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name, "description": c.description, "kernel": c.kernel,
                    "wave_size": c.wave_size, "outputs_per_lane": c.outputs_per_lane,
                    "scalar_args": c.scalar_args, "unsettled": c.unsettled,
                })
            })
            .collect();
        say!("{}", serde_json::to_string_pretty(&rows).map_err(|e| Error::Io(e.to_string()))?);
        return Ok(exit::PASS);
    }
    let width = all.iter().map(|c| c.name.len()).max().unwrap_or(4);
    for c in &all {
        say!("{:<width$}  wave{}  {}", c.name, c.wave_size, c.description);
        if let Some(u) = c.unsettled {
            say!("{:<width$}          unsettled: {u}", "");
        }
    }
    say!("{} cases", all.len());
    Ok(exit::PASS)
}

fn cmd_kernels(out: &Path) -> Result<i32> {
    std::fs::create_dir_all(out).map_err(|e| Error::Io(format!("creating {}: {e}", out.display())))?;
    for k in kernels::EMBEDDED {
        let path = out.join(format!("{}.hsaco", k.name));
        std::fs::write(&path, k.bytes).map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))?;
        say!("{}  ({}, from {})", path.display(), k.target, k.source);
    }
    Ok(exit::PASS)
}
