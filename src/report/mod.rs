//! Reports: the text a person reads, JSON for tools, JUnit XML for CI, and an
//! HTML page of pictures drawn from the JSON ([`html`]). All are rendered from
//! one [`RunReport`]; every one names what executed the results.

pub mod document;
pub mod outputs;
pub mod html;
mod json;
mod junit;
mod run_report;
mod text;

pub use document::{SCHEMA_NAME, SCHEMA_VERSION};
pub use json::SCHEMA;

pub use junit::{merge_junit, to_junit};
pub use text::{
    case_lines, case_lines_in, executed_on, header_lines, other_generations_line, release_lines,
    summary_line, target_lines, View,
};

pub use crate::pipeline::run::Status as CaseStatus;
pub use run_report::{
    cases_exit_code, combine_exit_codes, device_code, host_name, run_exit_code, summary, CutShort,
    DeviceRun, Interrupted, RunReport, RECORDED_ENV,
};

