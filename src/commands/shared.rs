//! What every command shares: how a command ends early ([`Failure`], the one
//! usage check [`refuse`]), where its lines go ([`say`], [`warn`], stdout
//! given up to a report with [`report_on_stdout`]), and the value parsers and
//! environment the clap arguments of several commands read.

use std::fmt::Display;
use std::io::Write as _;
use std::time::Duration;

use crate::error::{exit, Error};
use crate::platform::backend::BackendChoice;

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

/// Set when a report of this command goes to stdout (`-`): its text lines
/// then go to stderr. One command runs per process.
static TEXT_ON_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Called with a command's report paths once they are accepted: if one is
/// stdout (`-`, or `/dev/stdout` and the like), that report owns stdout and
/// the command's text goes to stderr.
pub(crate) fn report_on_stdout(outputs: &[Option<&std::path::Path>]) {
    if outputs
        .iter()
        .flatten()
        .any(|p| crate::platform::files::is_our_stdout(p))
    {
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
