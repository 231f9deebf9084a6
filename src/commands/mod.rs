//! The `xad-harness` commands: the clap tree ([`Cli`], [`Command`]), the value
//! parsers the commands share, and [`dispatch`], which runs one command and
//! returns its exit code. Each command's arguments and policy live in its own
//! module; where the policy is already a library function ([`crate::commands::soak::endurance`],
//! [`crate::commands::microbench::timing`], [`crate::commands::replay::rerun`]) the module is a thin adapter.
//! `main.rs` only parses, calls this, prints the error and exits.
//!
//! A command prints its results on stdout and its diagnostics on stderr as it
//! goes ([`say`], [`warn`]); what ends it early is returned as a [`Failure`].
//! A command whose report goes to stdout (`--json -`) prints its text on
//! stderr instead ([`report_on_stdout`]), so stdout holds the report alone.

use std::ffi::OsString;
use std::fmt::Display;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::platform::backend::BackendChoice;
use crate::error::{exit, Error};

pub mod bench;
pub mod devices;
pub mod kernels;
pub mod list;
pub mod merge;
pub mod microbench;
pub mod replay;
pub mod report;
pub mod run;
pub mod schema;
pub mod soak;

#[derive(Parser)]
#[command(
    name = "xad-harness",
    version,
    about = "Proves, lane by lane, that an AMD GPU executes v_xad_u32 as the ISA says"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run cases and compare every lane with the CPU model (the default command).
    Run(run::RunArgs),
    /// List HIP devices and whether the harness can run on them.
    Devices(devices::DevicesArgs),
    /// List the cases of the catalogue (with --target, those that target has), and the targets.
    List(list::ListArgs),
    /// Write every target's embedded code objects to DIR/<target>/ (for llvm-objdump or other loaders).
    Kernels(kernels::KernelsArgs),
    /// Run the lanes of a `run --dump` directory again and say what reproduced.
    Replay(replay::ReplayArgs),
    /// Print the JSON Schema of the `run --json` report.
    Schema,
    /// Measure the emulator pipeline against a native loop over the same data.
    Bench(bench::BenchArgs),
    /// Merge the JSON (and JUnit) reports of several runs, e.g. a fleet's nodes, into one;
    /// exits with their combined code.
    Merge(merge::MergeArgs),
    /// Draw a saved JSON report (of `run` or `merge`) as one self-contained HTML page.
    Report(report::ReportArgs),
    /// Time v_xad_u32 against v_xor_b32 + add and v_add3_u32 with the GPU's cycle counter
    /// (hardware only: the emulator and emulated devices are exit 77).
    Microbench(crate::commands::microbench::timing::Args),
    /// Run v_xad_u32 for a duration with inputs generated and results checked on the device.
    Soak(soak::SoakArgs),
}

/// Why a command ended without an outcome of its own.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Usage errors found before anything ran, every one at once so a user
    /// fixes them together: one line each, exit 2.
    #[error("{}", lines(.0))]
    Refused(Vec<Error>),
    /// The command could not go on; the error's own exit code.
    #[error(transparent)]
    Failed(#[from] Error),
}

fn lines(errors: &[Error]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl Failure {
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Refused(_) => exit::USAGE,
            Failure::Failed(e) => e.exit_code(),
        }
    }
}

/// The one usage check: `refused` empty goes on, anything else ends the
/// command with all of them.
pub(crate) fn refuse(refused: Vec<Error>) -> Result<(), Failure> {
    if refused.is_empty() {
        Ok(())
    } else {
        Err(Failure::Refused(refused))
    }
}

/// Run the command `cli` names (`run` with every default when it names
/// none) and return its exit code.
pub fn dispatch(cli: Cli) -> Result<i32, Failure> {
    match cli.command.unwrap_or_else(run::default_command) {
        Command::Run(args) => run::run(args),
        Command::Devices(args) => devices::run(&args),
        Command::List(args) => list::run(&args),
        Command::Kernels(args) => kernels::run(&args),
        Command::Replay(args) => replay::run(args),
        Command::Schema => schema::run(),
        Command::Bench(args) => bench::run(&args),
        Command::Merge(args) => merge::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Microbench(args) => microbench::run(&args),
        Command::Soak(args) => soak::run(&args),
    }
}

/// Set when a report of this command goes to stdout (`-`): its text lines
/// then go to stderr. One command runs per process.
static TEXT_ON_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called with a command's report paths once they are accepted: if one is
/// stdout (`-`, or `/dev/stdout` and the like), that report owns stdout and
/// the command's text goes to stderr.
pub(crate) fn report_on_stdout(outputs: &[Option<&std::path::Path>]) {
    if outputs.iter().flatten().any(|p| crate::platform::files::is_our_stdout(p)) {
        TEXT_ON_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Where the command's text lines go: stdout, or stderr when a report has
/// stdout ([`report_on_stdout`]).
pub(crate) fn text_out() -> Box<dyn std::io::Write> {
    if TEXT_ON_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

/// `println!` that ignores a closed stdout (e.g. `xad-harness run | head`): the
/// run goes on and its reports are still written; `println!` would panic.
/// On stderr when a report has stdout ([`report_on_stdout`]).
pub fn say(line: impl Display) {
    let _ = writeln!(text_out(), "{line}");
}

/// A diagnostic on stderr, prefixed with the tool's name. A closed or full
/// stderr (`2>&-`, `2>/dev/full`) is ignored: losing a message must not turn
/// into a panic and the wrong exit code.
pub fn warn(line: impl Display) {
    let _ = writeln!(std::io::stderr(), "xad-harness: {line}");
}

/// Is `e` help or version text rather than an error? It is printed as clap
/// wrote it and the exit code is 0.
pub fn is_display(e: &clap::Error) -> bool {
    use clap::error::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    )
}

/// Why clap refused `args` (the arguments after the program name), as usage
/// errors: clap's first line, then one line per report path that could not be
/// written either, so a user fixes both at once.
pub fn refused_arguments(e: &clap::Error, args: &[OsString]) -> Failure {
    use clap::error::ErrorKind;
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
    let first = if missing.is_empty() {
        format!("{first} (see --help)")
    } else {
        format!("{first} {missing} (see --help)")
    };
    let (json, junit) = (
        report_path_arg(args, "--json"),
        report_path_arg(args, "--junit"),
    );
    let html = report_path_arg(args, "--html");
    let mut refused = vec![Error::Usage(first)];
    refused.extend(crate::report::outputs::check(
        json.as_deref(),
        junit.as_deref(),
    ));
    refused.extend(crate::report::outputs::check_html(
        html.as_deref(),
        &[("--json", json.as_deref()), ("--junit", junit.as_deref())],
    ));
    Failure::Refused(refused)
}

/// The value of `run`'s `option` (`--json`/`--junit`/`--html`) in arguments clap
/// refused for another reason. `devices --json` and `list --json` are flags,
/// so only a `run` (or no subcommand) counts. An empty value is left out:
/// clap refuses it itself (`a value is required for '--json <FILE>'`), and
/// the same error on a second line would read as two.
fn report_path_arg(args: &[OsString], option: &str) -> Option<PathBuf> {
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

/// `--backend`, else `$XAD_BACKEND` (so a CI runner can demand hardware for
/// every invocation), else `auto`.
pub fn backend_choice(flag: Option<BackendChoice>) -> Result<BackendChoice, Error> {
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

/// The command line for the reports' `command` field. Any Unix path is an
/// argument (`std::env::args` would panic on one that is not UTF-8), so
/// bytes that are not UTF-8 are written as `\xNN`: the line stays one
/// string and loses nothing.
pub(crate) fn command_line() -> Vec<String> {
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

/// Install the SIGINT/SIGTERM handlers first, so a signal at any later point
/// is a clean stop, not a kill.
pub(crate) fn install_interrupt() -> Result<crate::pipeline::interrupt::Interrupt, Error> {
    crate::pipeline::interrupt::Interrupt::install()
        .map_err(|e| Error::Io(format!("installing the SIGINT/SIGTERM handlers: {e}")))
}

/// Largest `--max-mismatches`: each record is a few dozen bytes per case,
/// and a log of a million lines is already unreadable.
pub const MAX_MISMATCHES: i64 = 1_000_000;

pub fn parse_lane(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| format!("must be a global lane index (0, 1, ...), got {text:?}"))
}

pub fn parse_lanes(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "must be a whole number of lanes from 1 to {} (e.g. 1048576 or 64M), got {text:?}",
            crate::pipeline::run::MAX_LANES
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
    if n == 0 || n > crate::pipeline::run::MAX_LANES {
        return Err(bad());
    }
    Ok(n)
}

pub fn parse_seed(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed
        .map_err(|_| format!("must be a 64-bit unsigned number (decimal or 0x hex), got {text:?}"))
}

pub fn parse_index(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| format!("must be a device index (0, 1, ...), got {text:?}"))
}

/// A watchdog shorter than a millisecond could only ever fire: `1e-10`
/// would round to zero and time out every dispatch.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.001..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "must be a number of seconds from 0.001 to 86400, got {text:?}"
        )),
    }
}
