//! The `xad-harness` commands: the clap tree ([`Cli`], [`Command`]) and
//! [`dispatch`], which runs one command and returns its exit code. Each
//! command is a room of its own: its clap arguments in its `mod.rs`, its
//! engine in the named files beside them (`run/`: `plan`, `execute`,
//! `session`, `dump`; `soak/endurance`, `merge/combine`,
//! `microbench/timing`, `replay/rerun`, `bench/measure`, `list/rows`). What
//! every command shares is [`shared`], below them all. `main.rs` only parses,
//! calls this, prints the error and exits.
//!
//! A command prints its results on stdout and its diagnostics on stderr as it
//! goes ([`say`], [`warn`]); what ends it early is returned as a [`Failure`].
//! A command whose report goes to stdout (`--json -`) prints its text on
//! stderr instead ([`shared::report_on_stdout`]), so stdout holds the report alone.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::Error;

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
pub mod shared;
pub mod soak;

pub use shared::{say, warn, Failure};

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
    Microbench(microbench::MicrobenchArgs),
    /// Run v_xad_u32 for a duration with inputs generated and results checked on the device.
    Soak(soak::SoakArgs),
}

/// Run the command `cli` names (`run` with every default when it names
/// none) and return its exit code.
pub fn dispatch(cli: Cli) -> Result<i32, Failure> {
    match cli.command.unwrap_or_else(|| Command::Run(run::default_args())) {
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

