//! `xad-harness merge`: check the outputs, merge with [`crate::commands::merge::combine`],
//! write, and exit with the nodes' combined code.

pub mod combine;

use std::path::PathBuf;

use super::shared::{command_line, refuse, say, warn, Failure};
use crate::report;

// `merge --json OUT.json [--junit OUT.xml] [--html OUT.html] [--expect N] REPORT.json... [--junit-in IN.xml...]`
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Write the merged JSON report here (`-`: stdout, the summary line then on stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the merged JUnit report here (from the --junit-in reports; `-`: stdout).
    #[arg(long, value_name = "FILE", requires = "junit_in")]
    pub junit: Option<PathBuf>,
    /// Write the merged report's HTML page here (its device x target grid links every node's sections).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// JUnit reports to merge: one or more after each --junit-in, after the JSON reports.
    #[arg(long = "junit-in", value_name = "FILE", num_args = 1.., requires = "junit")]
    pub junit_in: Vec<PathBuf>,
    /// How many JSON reports the fleet should have produced; any other number is a fault (exit 3).
    // Negative numbers are values, so `--expect -1` is refused naming the option.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub expect: Option<u32>,
    /// The JSON reports to merge, in order.
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
}

pub fn run(args: &MergeArgs) -> Result<i32, Failure> {
    let command: Vec<String> = command_line();
    let request = combine::Request {
        reports: &args.reports,
        junit: &args.junit_in,
        expect: args.expect.map(|n| n as usize),
        command: &command,
    };
    let mut refused = combine::check_outputs(&request, args.json.as_deref(), args.junit.as_deref());
    refused.extend(report::outputs::check_html(
        args.html.as_deref(),
        &[
            ("--json", args.json.as_deref()),
            ("--junit", args.junit.as_deref()),
        ],
    ));
    refuse(refused)?;
    super::shared::report_on_stdout(&[
        args.json.as_deref(),
        args.junit.as_deref(),
        args.html.as_deref(),
    ]);
    let merged = combine::merge(&request)?;
    let written = combine::write(&merged, args.json.as_deref(), args.junit.as_deref());
    let page = args
        .html
        .as_deref()
        .map(|path| (path, Ok(report::html::render(&merged.report))));
    let written = written.and(report::outputs::write_all(page));
    say(merged.summary_line());
    // Why the merge is not a pass (`--expect`'s count, a node's error) on
    // stderr too, one line, not only inside the JSON report.
    if let Some(error) = merged.report.error.as_deref().filter(|e| !e.is_empty()) {
        warn(format_args!("merge: {error}"));
    }
    let (code, unwritten) = report::outputs::after_writing(Ok(merged.exit_code), written);
    if let Some(e) = unwritten {
        warn(&e);
    }
    Ok(code?)
}
