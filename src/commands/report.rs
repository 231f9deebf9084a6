//! `xad-harness report REPORT.json --html OUT.html`: draw the HTML page of a
//! saved JSON report (`run --json` or `merge --json`), the page `run --html`
//! writes. The input is read by the tool's rule for reports and must satisfy
//! the report schema ([`crate::merge::read_report`]); the output is written
//! by the one rule for reports.

use std::path::PathBuf;

use super::{refuse, say, warn, Failure};
use crate::error::{exit, Error};
use crate::{merge, report};

// `report REPORT.json --html OUT.html`
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The JSON report to draw (written by `run --json` or `merge --json`).
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
    /// Write the self-contained HTML page here.
    #[arg(long, value_name = "FILE", required = true)]
    pub html: PathBuf,
}

pub fn run(args: &ReportArgs) -> Result<i32, Failure> {
    // Both usage errors at once: an unwritable page and an unreadable report.
    let mut refused = report::files::check_html(Some(&args.html), &[]);
    let read = merge::read_report(&args.report);
    let report = match read {
        Ok(report) => Some(report),
        Err(e) if e.exit_code() == exit::USAGE => {
            refused.push(e);
            None
        }
        Err(e) => return Err(e.into()),
    };
    refuse(refused)?;
    let Some(report) = report else {
        return Err(Error::Usage("no report".into()).into());
    };
    let page = report::html::render(&report);
    let written = report::files::write_all([(args.html.as_path(), Ok(page))]);
    if written.is_ok() {
        let devices = report["devices"].as_array().map_or(0, Vec::len);
        say(format_args!(
            "html {}: {devices} device(s) from {} [{}]",
            args.html.display(),
            args.report.display(),
            report["executor"].as_str().unwrap_or("")
        ));
    }
    let (code, unwritten) = report::files::after_writing(Ok(exit::PASS), written);
    if let Some(e) = unwritten {
        warn(&e);
    }
    Ok(code?)
}
