//! The `xad-harness` command line: parse arguments, call the library's
//! [`commands`](xad_harness::commands), print what ended a command early, and
//! map the outcome to the documented exit codes (see docs/exit-codes.md).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use xad_harness::commands::{self, Cli, Failure};
use xad_harness::error::exit;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if commands::is_display(&e) => {
            let _ = e.print();
            return ExitCode::from(exit::PASS as u8);
        }
        Err(e) => return exit_with(Err(commands::refused_arguments(&e, &args[1..]).into())),
    };
    // The main thread joins rayon's global pool as worker 0: the pipeline
    // issues several parallel steps per chunk from this thread, and from
    // outside the pool each one is a hand-off to a worker and back (two futex
    // waits); from inside it is a plain join. If another pool was already set
    // up, keep it.
    let _ = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global();
    exit_with(commands::dispatch(cli).map_err(anyhow::Error::from))
}

/// Print an error one line per usage error, or as one line of its context
/// chain, and exit with the code its typed cause maps to (a fault when none
/// does).
fn exit_with(outcome: anyhow::Result<i32>) -> ExitCode {
    let error = match outcome {
        Ok(code) => return ExitCode::from(code as u8),
        Err(error) => error,
    };
    let failure = error.chain().find_map(|e| e.downcast_ref::<Failure>());
    match failure {
        Some(Failure::Refused(refused)) => refused.iter().for_each(commands::warn),
        // A library error's text already holds its causes: the chain is
        // printed down to it, not through it, so no cause is said twice.
        _ => commands::warn(context_chain(&error)),
    }
    ExitCode::from(failure.map_or(exit::FAULT, Failure::exit_code) as u8)
}

fn context_chain(error: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in error.chain() {
        parts.push(cause.to_string());
        if cause.is::<Failure>() {
            break;
        }
    }
    parts.join(": ")
}
