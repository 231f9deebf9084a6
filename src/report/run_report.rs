//! [`RunReport`]: what a `run` found, as every rendering reads it (the text
//! lines, the JSON document, JUnit, the HTML page; each in its own room), and
//! the exit code chosen from it.

use super::document;
use crate::error::{exit, Error, ReleaseError, RunError};
use crate::pipeline::interrupt::Signal;
use crate::pipeline::run::{CaseResult, Status};

/// How a run that SIGINT or SIGTERM stopped ended: what completed, the case
/// stopped between two of its dispatches (if one was), and what never started.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// One device of the run as the report shows it: who it is, what it ran,
/// and what stopped it. Its cases are the run's [`CaseResult`]s whose
/// `device` is this `id`.
#[derive(Debug, Clone)]
pub struct DeviceRun {
    /// `hip:<index>` or `emulator:<target>`.
    pub id: String,
    pub executor: String,
    pub identity: crate::platform::backend::Identity,
    pub targets: Vec<String>,
    /// Why this device ran nothing, or what it could not run.
    pub notes: Vec<String>,
    /// Set when this device's run stopped early (a watchdog timeout).
    pub error: Option<String>,
    /// Wall time of this device's cases.
    pub seconds: f64,
}

/// Combine the exit codes of several runs (devices, nodes) into one, for a
/// fleet: an interruption first, then a mismatch, a fault, bad input, a
/// skip (a node that ran nothing is not a pass), and only then 0. An
/// unknown code (a node's process killed by a signal, say) counts as a
/// fault; no runs at all is 77 (nothing executed).
pub fn combine_exit_codes(codes: &[i32]) -> i32 {
    const ORDER: [i32; 7] = [
        exit::SIGINT,
        exit::SIGTERM,
        exit::MISMATCH,
        exit::FAULT,
        exit::USAGE,
        exit::SKIPPED,
        exit::PASS,
    ];
    let rank = |c: i32| ORDER.iter().position(|&o| o == c).unwrap_or(3);
    codes
        .iter()
        .copied()
        .min_by_key(|&c| rank(c))
        .map_or(exit::SKIPPED, |c| {
            if ORDER.contains(&c) {
                c
            } else {
                exit::FAULT
            }
        })
}

/// The exit code of a set of case statuses: a failure (1), else a fault
/// (3), else 0 when a case passed (or gave a finding: its plain word passed
/// and its lanes agree), else 77: no case passed (`0 passed`: every case
/// unsettled, not supported or skipped), or there were no cases at all.
/// 0 always means some case was verified whole and none failed.
pub fn cases_exit_code(statuses: impl IntoIterator<Item = Status>) -> i32 {
    let codes: Vec<i32> = statuses.into_iter().map(Status::exit_code).collect();
    if codes.contains(&exit::MISMATCH) {
        exit::MISMATCH
    } else if codes.contains(&exit::FAULT) {
        exit::FAULT
    } else if codes.contains(&exit::PASS) {
        exit::PASS
    } else {
        exit::SKIPPED
    }
}

/// The exit code of one device from its cases' statuses and whether its run
/// stopped early (its `error`, a watchdog timeout: a fault beside what the
/// cases say); a device with no case ran nothing (77). One function, so that
/// `merge` recomputes a report's device codes by the rule `run` wrote them
/// with ([`RunReport::device_exit_code`]).
pub fn device_code(statuses: Vec<Status>, stopped: bool) -> i32 {
    match (statuses.is_empty(), stopped) {
        (_, true) => combine_exit_codes(&[cases_exit_code(statuses), exit::FAULT]),
        (true, false) => exit::SKIPPED,
        (false, false) => cases_exit_code(statuses),
    }
}

/// A run's exit code from what [`RunReport::exit_code`] chooses it from: the
/// signal that stopped it (its code decides), the code of the error that
/// stopped it (`failed`, which decides next), its devices' codes (or, with no
/// device, its cases'), and whether something else faulted (a stop after a
/// timeout, a resource not released). Shared with `merge`, which recomputes
/// each input's code from its JSON instead of trusting the `exit_code` field.
pub fn run_exit_code(
    interrupted: Option<i32>,
    failed: Option<i32>,
    mut codes: Vec<i32>,
    faulted: bool,
) -> i32 {
    if let Some(code) = interrupted.or(failed) {
        return code;
    }
    if faulted {
        codes.push(exit::FAULT);
    }
    match combine_exit_codes(&codes) {
        // A fault beats "nothing ran here" within one run: the run broke.
        exit::SKIPPED if codes.contains(&exit::FAULT) => exit::FAULT,
        code => code,
    }
}

/// Cases per status, every status present (0 when none).
pub fn summary<'a>(cases: impl IntoIterator<Item = &'a CaseResult>) -> document::Summary {
    document::Summary::count(cases.into_iter().map(CaseResult::status))
}

/// This machine's name, for reports merged from many nodes.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// The environment variables that change what a run sees, as they were set.
pub const RECORDED_ENV: [&str; 5] = [
    "XAD_BACKEND",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
];

/// Everything a run produced.
#[derive(Debug)]
pub struct RunReport {
    pub tool: String,
    /// The machine it ran on.
    pub host: String,
    /// The command line, when the CLI ran it.
    pub command: Vec<String>,
    /// [`RECORDED_ENV`] variables that were set.
    pub environment: std::collections::BTreeMap<String, String>,
    /// Every device of the run, in order.
    pub devices: Vec<DeviceRun>,
    /// What executed the results (`hardware: ...` or `emulated gfx1100`); empty if
    /// nothing could run.
    pub executor: String,
    /// Why this executor was chosen (e.g. no usable HIP device, so the emulator).
    pub backend_note: Option<String>,
    /// The targets whose code objects ran, in order (`--target`).
    pub targets: Vec<String>,
    pub seed: u64,
    /// The seed of every buffer's guard words, derived from `seed` ([`crate::pipeline::guard`]).
    pub guard_seed: u64,
    pub lanes_per_case: u64,
    pub cases: Vec<CaseResult>,
    /// Set when the run stopped before or between cases.
    pub error: Option<RunError>,
    /// Device resources released at the end of the run (or between cases,
    /// outside any case) that could not be given back. Left out of JSON when
    /// empty.
    pub release_errors: Vec<ReleaseError>,
    /// Set when SIGINT or SIGTERM stopped the run. Left out of JSON otherwise.
    pub interrupted: Option<Interrupted>,
    /// Per target of the run, the catalogue's cases it lacks that nobody
    /// named (`--case` with their exact name): they belong to other
    /// generations, are not results of this run, and are only counted
    /// ([`other_generations_line`], also one of the JSON `notes`).
    pub other_generations: Vec<(String, usize)>,
}

impl RunReport {
    pub fn new(seed: u64, lanes_per_case: u64) -> RunReport {
        RunReport {
            tool: format!("xad-harness {}", env!("CARGO_PKG_VERSION")),
            host: host_name(),
            command: Vec::new(),
            environment: RECORDED_ENV
                .iter()
                .filter_map(|v| std::env::var(v).ok().map(|x| (v.to_string(), x)))
                .collect(),
            devices: Vec::new(),
            executor: String::new(),
            backend_note: None,
            targets: Vec::new(),
            seed,
            guard_seed: crate::pipeline::guard::guard_seed(seed),
            lanes_per_case,
            cases: Vec::new(),
            error: None,
            release_errors: Vec::new(),
            interrupted: None,
            other_generations: Vec::new(),
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
    /// that ended the run, if any; then each device's code
    /// ([`device_exit_code`](Self::device_exit_code)) combined as a fleet
    /// combines nodes ([`combine_exit_codes`]: a wrong lane, then a fault,
    /// then a device that ran nothing); a resource that could not be released
    /// or a stop after a timeout makes a passing run 3.
    pub fn exit_code(&self) -> i32 {
        let failed = match &self.error {
            Some(RunError::Failed(e)) => Some(e.exit_code()),
            _ => None,
        };
        let mut codes: Vec<i32> = self
            .devices
            .iter()
            .map(|d| self.device_exit_code(&d.id))
            .collect();
        if self.devices.is_empty() {
            codes.push(cases_exit_code(self.cases.iter().map(CaseResult::status)));
        }
        run_exit_code(
            self.interrupted.as_ref().map(|i| i.exit_code),
            failed,
            codes,
            self.error.is_some() || self.all_release_errors().next().is_some(),
        )
    }

    /// The cases that ran on device `id`.
    pub fn device_cases<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a CaseResult> + 'a {
        self.cases.iter().filter(move |c| c.device == id)
    }

    /// The exit code of device `id` alone, from its cases' statuses
    /// ([`cases_exit_code`]); a device with no case at all ran nothing (77).
    pub fn device_exit_code(&self, id: &str) -> i32 {
        let statuses: Vec<Status> = self.device_cases(id).map(CaseResult::status).collect();
        let stopped = self.devices.iter().any(|d| d.id == id && d.error.is_some());
        device_code(statuses, stopped)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{case_lines, to_junit};

    /// A case whose every lane is unsettled ran, failed nothing and proved
    /// nothing: unsettled (JUnit `<skipped>` with how many words and why),
    /// exit 77 with one line saying so. One verified lane more is still
    /// unsettled and still not a pass (`0 passed`); a passing case beside it
    /// makes the run 0, and the unsettled case stays skipped in JUnit.
    #[test]
    fn a_run_that_passed_no_case_is_77_not_a_pass() {
        let mut report = RunReport::new(9, 64);
        let mut r = super::super::text::tests::result(false, Some("exec_hi read as data"));
        r.tally.lanes_unsettled = 64;
        r.tally.words_unsettled = 64;
        report.cases.push(r);
        assert_eq!(report.cases[0].status(), Status::Unsettled);
        assert_eq!(report.exit_code(), exit::SKIPPED);
        let line = report.nothing_verified_line().expect("one line saying so");
        assert!(
            line.contains(
                "no case passed: basic [emulated gfx1100]: 1 of 1 words per lane unsettled"
            ),
            "{line}"
        );
        let xml = to_junit(&report);
        assert!(
            xml.contains("<skipped message=\"unsettled: 1 of 1 words per lane unsettled: exec_hi read as data"),
            "{xml}"
        );
        assert!(case_lines(&report.cases[0])[0].contains("nothing verified"));

        report.cases[0].tally.lanes_unsettled = 63;
        report.cases[0].tally.words_unsettled = 63;
        assert_eq!(report.cases[0].status(), Status::Unsettled);
        assert_eq!(
            report.exit_code(),
            exit::SKIPPED,
            "0 passed is never exit 0"
        );
        assert!(to_junit(&report)
            .contains("<skipped message=\"unsettled: 63 of 64 words unsettled (63 of 64 lanes)"));

        let mut pass = super::super::text::tests::result(false, None);
        pass.case = "vgpr".into();
        report.cases.push(pass);
        assert_eq!(report.exit_code(), exit::PASS);
        assert_eq!(report.nothing_verified_line(), None);
        let xml = to_junit(&report);
        assert_eq!(xml.matches("<skipped").count(), 1, "{xml}");
    }

    /// No cases at all verified nothing either.
    #[test]
    fn no_cases_is_77() {
        assert_eq!(cases_exit_code([]), exit::SKIPPED);
        assert_eq!(
            cases_exit_code([Status::Unsettled, Status::NotSupported]),
            exit::SKIPPED
        );
        assert_eq!(
            cases_exit_code([Status::Unsettled, Status::Pass]),
            exit::PASS
        );
    }

    /// What `run --json` writes reads back as the document it was written
    /// from, failing case and all.
    #[test]
    fn the_json_report_reads_back_as_its_document() {
        let mut report = RunReport::new(9, 64);
        report
            .cases
            .push(super::super::text::tests::result(false, None));
        let mut failing = super::super::text::tests::result(true, None);
        failing.case = "vgpr".into();
        report.cases.push(failing);
        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let read = document::Report::from_value(value).unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(read, report.to_document());
        assert_eq!(read.exit_code.get(), report.exit_code());
        assert_eq!(read.summary.get(Status::Fail), 1);
    }
}
