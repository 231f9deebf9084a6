//! `xad-harness report REPORT.json --html OUT.html`: draw the HTML page of a
//! saved JSON report (`run --json` or `merge --json`: the page `run --html`
//! writes; `soak --json`: the page `soak --html` writes; `microbench --json`:
//! the page `microbench --html` writes). The input is read
//! by the tool's rule for reports; a run's report is read as the report's
//! document and checked against its cases ([`crate::commands::merge::combine::check_report`]),
//! a soak's names its command. The output is written by the one rule for
//! reports.

use std::path::{Path, PathBuf};

use super::shared::{refuse, say, warn, Failure};
use crate::error::{exit, Error};
use crate::{commands::merge::combine, report};

// `report REPORT.json --html OUT.html`
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The JSON report to draw (written by `run --json`, `merge --json`, `soak --json` or `microbench --json`).
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
    /// Write the self-contained HTML page here (`-`: stdout).
    #[arg(long, value_name = "FILE", required = true)]
    pub html: PathBuf,
}

pub fn run(args: &ReportArgs) -> Result<i32, Failure> {
    // Both usage errors at once: an unwritable page and an unreadable report.
    let mut refused = report::outputs::check_html(Some(&args.html), &[]);
    let report = match read(&args.report) {
        Ok(report) => Some(report),
        Err(e) if e.exit_code() == exit::USAGE => {
            refused.push(e);
            None
        }
        Err(e) => return Err(e.into()),
    };
    refuse(refused)?;
    super::shared::report_on_stdout(&[Some(args.html.as_path())]);
    let Some(report) = report else {
        return Err(Error::Usage("no report".into()).into());
    };
    let (page, what, executor) = match &report {
        Document::Soak(soak) => (
            report::html::soak_page::render(soak),
            "a soak".to_string(),
            soak.as_ran().executor.clone(),
        ),
        Document::Microbench(bench) => (
            report::html::microbench_page::render(bench),
            "a microbench".to_string(),
            bench.executor.clone(),
        ),
        Document::Run(run) => (
            report::html::render(run),
            format!("{} device(s)", run.devices.len()),
            run.executor.clone(),
        ),
    };
    let written = report::outputs::write_all([(args.html.as_path(), Ok(page))]);
    if written.is_ok() {
        say(format_args!(
            "html {}: {what} from {} [{executor}]",
            args.html.display(),
            args.report.display(),
        ));
    }
    let (code, unwritten) = report::outputs::after_writing(Ok(exit::PASS), written);
    if let Some(e) = unwritten {
        warn(&e);
    }
    Ok(code?)
}

/// A soak's report: `"command": "soak"` and no `schema` (soak reports are
/// not of the run report's schema).
fn is_soak(report: &serde_json::Value) -> bool {
    report["command"] == "soak" && report.get("schema").is_none()
}

/// A microbench's report: `"command": "microbench"`, no `schema`, and rows.
fn is_microbench(report: &serde_json::Value) -> bool {
    report["command"] == "microbench" && report.get("schema").is_none() && report["rows"].is_array()
}

/// The three reports a page is drawn from.
enum Document {
    Run(Box<report::document::Report>),
    Soak(report::document::soak::SoakReport),
    Microbench(report::document::microbench::Microbench),
}

/// `path` as JSON, by the tool's rule for reading reports: a soak's report,
/// a microbench's, or a run's read as the report's document.
fn read(path: &Path) -> Result<Document, Error> {
    let shown = path.display().to_string();
    let bytes =
        crate::platform::files::read_input(&shown, path, crate::platform::files::MAX_REPORT_BYTES)?;
    let report: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::Usage(format!("{shown}: not JSON: {e}")))?;
    let document = if is_soak(&report) {
        report::document::soak::SoakReport::from_value(report).map(Document::Soak)
    } else if is_microbench(&report) {
        report::document::microbench::Microbench::from_value(report).map(Document::Microbench)
    } else {
        combine::check_report(report).map(|run| Document::Run(Box::new(run)))
    };
    document.map_err(|why| Error::Usage(format!("{shown}: {why}")))
}
