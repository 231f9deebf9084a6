//! Reports: the text a person reads, JSON for tools, JUnit XML for CI. All three
//! are rendered from one [`RunReport`]; every one names what executed the results.

mod junit;
mod text;

pub use junit::to_junit;
pub use text::{case_lines, summary_line};

use crate::run::{CaseResult, Status};

/// Everything a run produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunReport {
    pub tool: String,
    /// What executed the results (`hardware: ...` or `emulated gfx1100`); empty if
    /// nothing could run.
    pub executor: String,
    /// Why this executor was chosen (e.g. no usable HIP device, so the emulator).
    pub backend_note: Option<String>,
    pub seed: u64,
    pub lanes_per_case: u64,
    pub cases: Vec<CaseResult>,
    /// Set when the run stopped before or between cases.
    pub error: Option<String>,
}

impl RunReport {
    pub fn new(seed: u64, lanes_per_case: u64) -> RunReport {
        RunReport {
            tool: format!("xad-harness {}", env!("CARGO_PKG_VERSION")),
            executor: String::new(),
            backend_note: None,
            seed,
            lanes_per_case,
            cases: Vec::new(),
            error: None,
        }
    }

    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status() == status).count()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"report serialisation: {e}\"}}"))
    }
}
