//! Reports: the text a person reads, JSON for tools, JUnit XML for CI. All three
//! are rendered from one [`RunReport`]; every one names what executed the results.

pub mod files;
mod junit;
mod text;

pub use junit::to_junit;
pub use text::{case_lines, executed_on, header_lines, release_lines, summary_line, target_lines};

use crate::error::{as_text, exit, Error, ReleaseError, RunError};
use crate::interrupt::Signal;
use crate::run::{CaseResult, Status};

/// How a run that SIGINT or SIGTERM stopped ended: what completed, the case
/// stopped between two of its dispatches (if one was), and what never started.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Interrupted {
    pub signal: Signal,
    /// The process's exit code: 128 + the signal's number.
    pub exit_code: i32,
    /// Cases that ran to their last lane (their results are complete).
    pub cases_completed: usize,
    /// The case that was stopped at a dispatch boundary, if one was.
    pub cut_short: Option<CutShort>,
    /// Cases that were selected but never started.
    pub not_run: Vec<String>,
}

/// A case stopped part-way: its checked lanes are in its result, the rest
/// were never dispatched.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CutShort {
    pub case: String,
    /// The target whose code object it ran (with `--target all` one case
    /// name runs once per target).
    pub target: String,
    pub lanes_checked: u64,
    pub lanes: u64,
}

impl Interrupted {
    pub fn new(signal: Signal) -> Interrupted {
        Interrupted {
            signal,
            exit_code: signal.exit_code(),
            cases_completed: 0,
            cut_short: None,
            not_run: Vec::new(),
        }
    }

    /// One line for people: which signal, what completed, what did not.
    pub fn line(&self) -> String {
        let mut line = format!(
            "interrupted by {}: {} case(s) completed",
            self.signal.name(),
            self.cases_completed
        );
        if let Some(cut) = &self.cut_short {
            line += &format!(
                ", {} stopped after {} of {} lanes",
                cut.case, cut.lanes_checked, cut.lanes
            );
        }
        line + &format!(
            ", {} not run; reports hold what completed",
            self.not_run.len()
        )
    }
}

/// Everything a run produced.
#[derive(Debug, serde::Serialize)]
pub struct RunReport {
    pub tool: String,
    /// What executed the results (`hardware: ...` or `emulated gfx1100`); empty if
    /// nothing could run.
    pub executor: String,
    /// Why this executor was chosen (e.g. no usable HIP device, so the emulator).
    pub backend_note: Option<String>,
    /// The targets whose code objects ran, in order (`--target`).
    pub targets: Vec<String>,
    pub seed: u64,
    /// The seed of every buffer's guard words, derived from `seed` ([`crate::guard`]).
    pub guard_seed: u64,
    pub lanes_per_case: u64,
    pub cases: Vec<CaseResult>,
    /// Set when the run stopped before or between cases.
    #[serde(serialize_with = "as_text::option")]
    pub error: Option<RunError>,
    /// Device resources released at the end of the run (or between cases,
    /// outside any case) that could not be given back. Left out of JSON when
    /// empty.
    #[serde(
        serialize_with = "as_text::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub release_errors: Vec<ReleaseError>,
    /// Set when SIGINT or SIGTERM stopped the run. Left out of JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

impl RunReport {
    pub fn new(seed: u64, lanes_per_case: u64) -> RunReport {
        RunReport {
            tool: format!("xad-harness {}", env!("CARGO_PKG_VERSION")),
            executor: String::new(),
            backend_note: None,
            targets: Vec::new(),
            seed,
            guard_seed: crate::guard::guard_seed(seed),
            lanes_per_case,
            cases: Vec::new(),
            error: None,
            release_errors: Vec::new(),
            interrupted: None,
        }
    }

    /// Every release error of the run: each case's, then the run's own.
    pub fn all_release_errors(&self) -> impl Iterator<Item = &ReleaseError> {
        self.cases
            .iter()
            .flat_map(|c| &c.release_errors)
            .chain(&self.release_errors)
    }

    /// The documented exit code of this report, chosen from types only: a
    /// signal that stopped the run decides (128 + its number); then the error
    /// that ended the run, if any; then a wrong lane (1) wins over a fault (3:
    /// a case error, a stop after a timeout, a resource that could not be
    /// released); else 0.
    pub fn exit_code(&self) -> i32 {
        if let Some(i) = &self.interrupted {
            i.exit_code
        } else if let Some(RunError::Failed(e)) = &self.error {
            e.exit_code()
        } else if self.count(Status::Fail) > 0 {
            exit::MISMATCH
        } else if self.count(Status::Error) > 0
            || self.error.is_some()
            || self.all_release_errors().next().is_some()
        {
            exit::FAULT
        } else {
            exit::PASS
        }
    }

    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status() == status).count()
    }

    /// [`exit_code`](Self::exit_code), or the error that stopped the run
    /// (whose exit code the run's is) for the caller to show. An interrupted
    /// run's code is its signal's, and its error (if any) is only shown.
    pub fn into_exit_code(self) -> (Result<i32, Error>, Option<Error>) {
        let code = self.exit_code();
        match (self.interrupted, self.error) {
            (Some(_), Some(RunError::Failed(e))) => (Ok(code), Some(e)),
            (None, Some(RunError::Failed(e))) => (Err(e), None),
            _ => (Ok(code), None),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"report serialisation: {e}\"}}"))
    }
}
