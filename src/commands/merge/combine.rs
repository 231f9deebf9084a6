//! `xad-harness merge`: one report from the runs of a fleet (Slurm array tasks,
//! Kubernetes pods, CI runners), each of which wrote its own JSON and JUnit
//! report on its own node.
//!
//! JSON reports are read as the report's document
//! ([`crate::report::document::Report`]), which refuses a field it does not
//! list: the merged report names the same schema, so an input field it does
//! not know would make the merged report break it. Each input's exit code
//! is recomputed from its cases by the rule `run` uses
//! ([`crate::report::run_exit_code`]); an input whose `exit_code` contradicts
//! its own cases was edited or corrupted and is refused. Devices are
//! concatenated in input order, each keeping its host; the summary is
//! recounted from the case statuses and the exit code is [`combine_exit_codes`]
//! over the inputs' recomputed codes. JUnit reports are joined by
//! [`crate::report::merge_junit`], beside the JUnit writer.

use std::path::{Path, PathBuf};

use crate::error::{exit, Error, Result};
use crate::report::document::{
    Device, ExitCode, Interrupted, MergedFrom, Report, SchemaName, SchemaVersion, Summary, Tool,
};
use crate::report::{cases_exit_code, device_code, run_exit_code, CaseStatus};

/// One exit code for several runs (devices, nodes): the rule every report
/// uses, [`crate::report::combine_exit_codes`] (interrupted > 1 > 3 > 2 > 77
/// > 0; an undocumented code is 3; no runs at all is 77).
pub use crate::report::combine_exit_codes;

/// What to merge: the JSON reports (at least one), the JUnit reports (any
/// number, in the same order or not: they are matched by nothing, only
/// concatenated), and how many JSON reports the fleet should have produced.
pub struct Request<'a> {
    pub reports: &'a [PathBuf],
    pub junit: &'a [PathBuf],
    /// When set, a different number of JSON reports is a fault (exit 3): a
    /// node that died before writing its report must not vanish from the
    /// merged result.
    pub expect: Option<usize>,
    /// The merge's own command line, recorded as the merged report's `command`.
    pub command: &'a [String],
}

/// The merged reports and their combined exit code.
#[derive(Debug)]
pub struct Merged {
    pub report: Report,
    /// The merged JUnit XML, when JUnit inputs were given.
    pub junit: Option<String>,
    /// How many `<testsuite>` elements the merged JUnit holds.
    pub junit_suites: usize,
    pub exit_code: i32,
}

impl Merged {
    /// One line for a log: inputs, devices, hosts, the recounted statuses
    /// and the exit code.
    pub fn summary_line(&self) -> String {
        let report = &self.report;
        let inputs = report.merged_from.as_ref().map_or(0, Vec::len);
        let mut hosts: Vec<&str> = Vec::new();
        for device in &report.devices {
            if !hosts.contains(&device.host.as_str()) {
                hosts.push(&device.host);
            }
        }
        let counts = CaseStatus::ALL
            .iter()
            .map(|s| format!("{} {}", report.summary.get(*s), s.name()))
            .collect::<Vec<_>>()
            .join(", ");
        let seeds = if report.seeds.is_some() {
            "; seeds differ"
        } else {
            ""
        };
        let junit = match &self.junit {
            Some(_) => format!(", {} JUnit suites", self.junit_suites),
            None => String::new(),
        };
        format!(
            "merged {inputs} report(s){junit}: {} device(s) on {}: {counts}{seeds}; exit {}",
            report.devices.len(),
            if hosts.is_empty() {
                "no host".to_string()
            } else {
                hosts.join(", ")
            },
            self.exit_code
        )
    }
}

/// Read and merge every input. An input that cannot be read, is not JSON (or
/// well-formed XML), is not a report of this schema version, or whose exit
/// code contradicts its cases is a usage error (exit 2) naming the file.
pub fn merge(request: &Request) -> Result<Merged> {
    let mut reports = Vec::with_capacity(request.reports.len());
    for path in request.reports {
        reports.push((label(path), read_report(path)?));
    }
    let mut report = merge_reports(&reports, request.expect);
    report.command = request.command.to_vec();
    let (junit, junit_suites) = if request.junit.is_empty() {
        (None, 0)
    } else {
        let mut inputs = Vec::with_capacity(request.junit.len());
        for path in request.junit {
            inputs.push((label(path), read_text(path)?));
        }
        let (xml, suites) = crate::report::merge_junit(&inputs)?;
        (Some(xml), suites)
    };
    let exit_code = report.exit_code.get();
    Ok(Merged {
        report,
        junit,
        junit_suites,
        exit_code,
    })
}

/// Write the merged reports asked for, each attempted whatever happened
/// ([`crate::report::outputs::write_all`]); the first failure is returned.
pub fn write(merged: &Merged, json_out: Option<&Path>, junit_out: Option<&Path>) -> Result<()> {
    let json = json_out.map(|path| {
        let text = serde_json::to_string_pretty(&merged.report)
            .map(|text| text + "\n")
            .map_err(|e| {
                Error::Io(format!(
                    "{}: encoding the merged report: {e}",
                    path.display()
                ))
            });
        (path, text)
    });
    let junit = junit_out
        .zip(merged.junit.clone())
        .map(|(path, xml)| (path, Ok(xml)));
    crate::report::outputs::write_all(json.into_iter().chain(junit))
}

/// Why the output paths cannot be used, found before any input is read: a
/// path the tool-wide write rule refuses, an output that is also an input (by
/// any spelling: compared after resolving), or both outputs naming one file
/// (`run`'s rule for its reports).
pub fn check_outputs(
    request: &Request,
    json_out: Option<&Path>,
    junit_out: Option<&Path>,
) -> Vec<Error> {
    let resolve = |p: &Path| std::fs::canonicalize(p).ok();
    let inputs: Vec<(&PathBuf, PathBuf)> = request
        .reports
        .iter()
        .chain(request.junit)
        .filter_map(|p| Some((p, resolve(p)?)))
        .collect();
    let mut errors = Vec::new();
    for (option, out) in [("--json", json_out), ("--junit", junit_out)] {
        let Some(out) = out else { continue };
        let refuse = |why: String| Error::Usage(format!("{option} {}: {why}", out.display()));
        // The tool-wide write rule: a regular file or a new name, in a directory that exists.
        if let Err(e) = crate::platform::files::check_output(option, out) {
            errors.push(e);
            continue;
        }
        // `-` is stdout, never an input file of that name.
        let Some(resolved) = resolve(out).filter(|_| !crate::platform::files::is_stdout(out))
        else {
            continue;
        };
        if let Some((input, _)) = inputs.iter().find(|(_, r)| *r == resolved) {
            errors.push(refuse(format!(
                "is also an input ({}); write the merged report elsewhere",
                input.display()
            )));
        }
    }
    errors.extend(crate::report::outputs::one_file_twice(json_out, junit_out));
    errors
}

/// How an input is named in the merged report and in errors.
fn label(path: &Path) -> String {
    path.display().to_string()
}

/// An input report's text, by the tool's rule for inputs: a regular file
/// (a FIFO would block the merge forever) of at most
/// [`crate::platform::files::MAX_REPORT_BYTES`] (`/dev/zero` would take memory until
/// allocation fails).
fn read_text(path: &Path) -> Result<String> {
    let shown = path.display().to_string();
    let bytes =
        crate::platform::files::read_input(&shown, path, crate::platform::files::MAX_REPORT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| Error::Usage(format!("{shown}: not UTF-8 text: {e}")))
}

/// One JSON report, read as the report's document and checked against its
/// own cases; an error names the file and says what is wrong in one line.
pub fn read_report(path: &Path) -> Result<Report> {
    let text = read_text(path)?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: not JSON: {e}", path.display())))?;
    check_report(value).map_err(|why| Error::Usage(format!("{}: {why}", path.display())))
}

/// `value` as a report, or why it is not one this build reads
/// ([`Report::from_value`]) or its exit code or a summary contradicts its
/// cases.
pub fn check_report(value: serde_json::Value) -> std::result::Result<Report, String> {
    let report = Report::from_value(value)?;
    recomputed_exit_code(&report)?;
    Ok(report)
}

/// The exit code `run` gives the run `report` records, recomputed from its
/// cases, devices, release errors and interruption by `run`'s own rule
/// ([`run_exit_code`], [`device_code`]); `Err` says how the report's
/// `exit_code`, a device's `exit_code` or a `summary` contradicts its cases
/// (the report was edited or corrupted: its code cannot be trusted either
/// way). The one thing taken from `exit_code` itself is the code of an error
/// that stopped the run, which the JSON records only as text: with a
/// non-null `error`, a code such an error has (2, 3, 77) stands.
fn recomputed_exit_code(report: &Report) -> std::result::Result<i32, String> {
    let contradiction = |field: String, says: String, cases: String| {
        Err(format!(
            "{field} {says} contradicts its cases, which make it {cases}: edited or corrupted, not merged"
        ))
    };
    let mut codes = Vec::with_capacity(report.devices.len());
    let mut faulted = !report.release_errors.is_empty();
    for (d, device) in report.devices.iter().enumerate() {
        let statuses: Vec<CaseStatus> = device.cases.iter().map(|c| c.status).collect();
        let counted = Summary::count(statuses.iter().copied());
        let code = device_code(statuses, device.error.is_some());
        if device.exit_code.get() != code {
            return contradiction(
                format!("devices[{d}] exit_code"),
                device.exit_code.to_string(),
                code.to_string(),
            );
        }
        if device.summary != counted {
            return contradiction(
                format!("devices[{d}] summary"),
                device.summary.to_string(),
                counted.to_string(),
            );
        }
        faulted |= device.cases.iter().any(|c| !c.release_errors.is_empty());
        codes.push(code);
    }
    if report.devices.is_empty() {
        codes.push(cases_exit_code([]));
    }
    let counted = summary(&report.devices);
    if report.summary != counted {
        return contradiction(
            "summary".into(),
            report.summary.to_string(),
            counted.to_string(),
        );
    }
    let claimed = report.exit_code.get();
    let interrupted = report.interrupted.as_ref().map(|i| i.exit_code.get());
    // An error that stopped the run (`RunError::Failed`) decides the run's
    // code; its kinds' codes are 2, 3 and 77 ([`Error::exit_code`]). Any
    // other error (a stop after a timeout) is a fault beside the devices'.
    let stopped_by_error = report.error.is_some();
    let failed = Some(claimed)
        .filter(|c| stopped_by_error && [exit::USAGE, exit::FAULT, exit::SKIPPED].contains(c));
    let code = run_exit_code(interrupted, failed, codes, faulted || stopped_by_error);
    if claimed != code {
        return contradiction("exit_code".into(), claimed.to_string(), code.to_string());
    }
    Ok(code)
}

/// Merge checked reports, each with the label it is named by. `expect`: the
/// number of reports the fleet should have produced. The result is a report
/// of the same schema (`merged_from`, and `seeds` when the inputs' seeds
/// differ, are the fields only a merge sets); its `command` is empty
/// ([`merge`] records the merge's own).
pub fn merge_reports(inputs: &[(String, Report)], expect: Option<usize>) -> Report {
    let mut gathered = Gathered::default();
    for (file, report) in inputs {
        gathered.add(file, report);
    }
    if let Some(expected) = expect {
        gathered.check_count(inputs.len(), expected);
    }
    gathered.into_report(inputs)
}

/// What the inputs bring to the merged report, gathered in input order.
#[derive(Default)]
struct Gathered<'a> {
    devices: Vec<Device>,
    merged_from: Vec<MergedFrom>,
    notes: Vec<String>,
    errors: Vec<String>,
    interrupted: Vec<&'a Interrupted>,
    executors: Vec<&'a str>,
    targets: Vec<&'a String>,
    codes: Vec<i32>,
}

impl<'a> Gathered<'a> {
    /// Take in one input: its devices (each keeping its host), notes,
    /// error, executor, targets, recomputed exit code and merged_from entry.
    fn add(&mut self, file: &str, report: &'a Report) {
        let host = &report.host;
        // Recomputed, never copied from `exit_code` (a checked input agrees
        // with its own; one that does not is a fault).
        self.codes
            .push(recomputed_exit_code(report).unwrap_or(exit::FAULT));
        self.devices.extend(report.devices.iter().cloned());
        for note in &report.notes {
            self.notes.push(format!("{host} ({file}): {note}"));
        }
        if let Some(error) = &report.error {
            self.errors.push(format!("{host} ({file}): {error}"));
        }
        let executor = report.executor.as_str();
        if !executor.is_empty() && !self.executors.contains(&executor) {
            self.executors.push(executor);
        }
        for target in &report.targets {
            if !self.targets.contains(&target) {
                self.targets.push(target);
            }
        }
        if let Some(what) = &report.interrupted {
            self.interrupted.push(what);
            self.notes.push(format!(
                "{host} ({file}): interrupted by {}",
                what.signal.name()
            ));
        }
        self.merged_from.push(MergedFrom {
            file: file.to_string(),
            host: host.clone(),
            exit_code: report.exit_code,
            devices: report.devices.len() as u64,
            executor: report.executor.clone(),
            seed: report.seed,
            guard_seed: report.guard_seed,
            lanes_per_case: report.lanes_per_case,
            environment: report.environment.clone(),
            tool: report.tool.clone(),
            error: report.error.clone(),
            interrupted: report.interrupted.clone(),
        });
    }

    /// A fleet that wrote another number of reports than it has nodes is a
    /// fault: a node that died must not vanish from the merged result.
    fn check_count(&mut self, found: usize, expected: usize) {
        if found == expected {
            return;
        }
        self.codes.push(exit::FAULT);
        let why = if found < expected {
            "a node that wrote none did not finish its run"
        } else {
            "more than the fleet's nodes: reports of another run in the same place?"
        };
        self.errors
            .push(format!("expected {expected} report(s), got {found}: {why}"));
    }

    /// The merged report; notes on inputs that disagree (tool, seed, ...)
    /// come after those the inputs carried.
    fn into_report(mut self, inputs: &[(String, Report)]) -> Report {
        let tool = common_tool(inputs, &mut self.notes);
        let seed = common_value(inputs, "seed", |r| r.seed, &mut self.notes);
        let seeds = seed.1.then(|| distinct_seeds(inputs));
        let guard_seed = common_value(inputs, "guard_seed", |r| r.guard_seed, &mut self.notes);
        let lanes_per_case = common_value(
            inputs,
            "lanes_per_case",
            |r| r.lanes_per_case,
            &mut self.notes,
        );
        let exit_code = combine_exit_codes(&self.codes);
        // The schema's `interrupted` is one run's; the merged report carries the
        // first interrupted input's whose code won the combination (SIGINT's 130
        // beats SIGTERM's 143), and each input's is in its merged_from entry.
        let interrupted = self
            .interrupted
            .iter()
            .find(|i| i.exit_code.get() == exit_code)
            .or(self.interrupted.first())
            .map(|i| (*i).clone());
        Report {
            schema: SchemaName,
            schema_version: SchemaVersion,
            tool,
            host: crate::report::host_name(),
            command: Vec::new(),
            // Each node's recorded variables stay in its merged_from entry.
            environment: Default::default(),
            seed: seed.0,
            seeds,
            guard_seed: guard_seed.0,
            lanes_per_case: lanes_per_case.0,
            executor: self.executors.join("; "),
            targets: self.targets.into_iter().cloned().collect(),
            notes: self.notes,
            exit_code: ExitCode::new(exit_code),
            summary: summary(&self.devices),
            merged_from: Some(self.merged_from),
            devices: self.devices,
            error: (!self.errors.is_empty()).then(|| self.errors.join("; ")),
            release_errors: Vec::new(),
            interrupted,
        }
    }
}

/// Each input's seed once, in input order.
fn distinct_seeds(inputs: &[(String, Report)]) -> Vec<u64> {
    let mut seeds: Vec<u64> = Vec::new();
    for (_, r) in inputs {
        if !seeds.contains(&r.seed) {
            seeds.push(r.seed);
        }
    }
    seeds
}

/// Cases per status over every device.
fn summary(devices: &[Device]) -> Summary {
    Summary::count(devices.iter().flat_map(|d| &d.cases).map(|c| c.status))
}

/// The first input's `key` (read by `field`), and whether the inputs differ
/// in it; when they do, a note lists each input's value (seeds may differ
/// between nodes: each replays with its own, in its merged_from entry).
fn common_value(
    inputs: &[(String, Report)],
    key: &str,
    field: fn(&Report) -> u64,
    notes: &mut Vec<String>,
) -> (u64, bool) {
    let first = inputs.first().map_or(0, |(_, r)| field(r));
    if inputs.iter().all(|(_, r)| field(r) == first) {
        return (first, false);
    }
    let each = inputs
        .iter()
        .map(|(file, r)| format!("{} ({file}) {}", r.host, field(r)))
        .collect::<Vec<_>>()
        .join(", ");
    notes.push(format!("inputs differ in {key}: {each}"));
    (first, true)
}

/// The inputs' `tool` when they all agree; otherwise this binary's name and
/// version, and a note listing each input's.
fn common_tool(inputs: &[(String, Report)], notes: &mut Vec<String>) -> Tool {
    match inputs.first() {
        Some((_, first)) if inputs.iter().all(|(_, r)| r.tool == first.tool) => first.tool.clone(),
        _ => {
            // As JSON with its keys sorted, the form this note has always had.
            let shown = |tool: &Tool| {
                serde_json::to_value(tool).map_or_else(|e| e.to_string(), |v| v.to_string())
            };
            let each = inputs
                .iter()
                .map(|(file, r)| format!("{file} {}", shown(&r.tool)))
                .collect::<Vec<_>>()
                .join(", ");
            notes.push(format!("inputs come from different tool builds: {each}"));
            Tool::this()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::SCHEMA_VERSION;
    use serde_json::{json, Value};

    /// `value` read as a report (it must be one).
    fn parsed(value: Value) -> Report {
        check_report(value).unwrap_or_else(|why| panic!("{why}"))
    }

    /// Merge `inputs` (reports as JSON values), the result as JSON.
    fn merged(inputs: Vec<(&str, Value)>, expect: Option<usize>) -> Value {
        let typed: Vec<(String, Report)> = inputs
            .into_iter()
            .map(|(file, r)| (file.to_string(), parsed(r)))
            .collect();
        serde_json::to_value(merge_reports(&typed, expect)).unwrap()
    }

    /// A complete report of one emulated device whose cases have
    /// `statuses`, as JSON to edit; `exit_code` is the report's and the
    /// device's (the caller gives the one `run` would write).
    fn report(host: &str, seed: u64, exit_code: i32, statuses: &[&str]) -> Value {
        use crate::report::document::fixture;
        let cases = statuses
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let status = serde_json::from_value(json!(s)).unwrap();
                fixture::case(&format!("case{i}"), status, 256, seed)
            })
            .collect();
        let device = fixture::device(host, exit_code, cases);
        let mut report = fixture::report(host, seed, exit_code, vec![device]);
        report.notes.push("a note".into());
        serde_json::to_value(report).unwrap()
    }

    #[test]
    fn exit_codes_combine_by_precedence() {
        use exit::*;
        let table: &[(&[i32], i32)] = &[
            (&[], SKIPPED),
            (&[PASS], PASS),
            (&[PASS, PASS], PASS),
            (&[PASS, SKIPPED], SKIPPED),
            (&[SKIPPED, SKIPPED], SKIPPED),
            (&[SKIPPED, USAGE], USAGE),
            (&[USAGE, FAULT], FAULT),
            (&[FAULT, MISMATCH, PASS], MISMATCH),
            (&[MISMATCH, FAULT], MISMATCH),
            (&[MISMATCH, SIGTERM], SIGTERM),
            (&[SIGINT, MISMATCH, SIGTERM], SIGINT),
            (&[PASS, 137], FAULT),
            (&[-1, PASS], FAULT),
            (&[137, MISMATCH], MISMATCH),
        ];
        for (codes, want) in table {
            assert_eq!(combine_exit_codes(codes), *want, "{codes:?}");
        }
    }

    #[test]
    fn devices_are_concatenated_and_the_summary_recounted() {
        let b = report("node2", 7, 1, &["pass", "fail", "unsettled"]);
        let tool = b["tool"].clone();
        let merged = merged(
            vec![
                ("a.json", report("node1", 7, 0, &["pass", "pass"])),
                ("b.json", b),
            ],
            None,
        );
        check_report(merged.clone()).unwrap();
        let devices = merged["devices"].as_array().unwrap();
        assert_eq!(devices.len(), 2);
        assert_eq!(devices[0]["host"], "node1");
        assert_eq!(devices[1]["host"], "node2");
        assert_eq!(merged["summary"]["pass"], 3);
        assert_eq!(merged["summary"]["fail"], 1);
        assert_eq!(merged["summary"]["unsettled"], 1);
        assert_eq!(merged["summary"]["skipped"], 0);
        assert_eq!(merged["exit_code"], 1);
        assert_eq!(merged["seed"], 7);
        assert_eq!(merged["tool"]["git_describe"], "v0.1.0-1-gabc");
        let from = merged["merged_from"].as_array().unwrap();
        assert_eq!(from.len(), 2);
        assert_eq!(
            from[1],
            json!({"file": "b.json", "host": "node2", "exit_code": 1, "devices": 1,
            "executor": "emulated gfx1100", "seed": 7, "guard_seed": 6, "lanes_per_case": 256,
            "environment": {}, "tool": tool, "error": null})
        );
        assert_eq!(merged["notes"][0], "node1 (a.json): a note");
        assert!(merged["error"].is_null());
    }

    /// A device's host is required: merged devices keep their node's.
    #[test]
    fn a_device_without_a_host_is_refused() {
        refuse(
            &|r| {
                r["devices"][0].as_object_mut().unwrap().remove("host");
            },
            "devices[0]: missing field \"host\"",
        );
    }

    #[test]
    fn differing_seeds_are_allowed_and_listed() {
        let merged = merged(
            vec![
                ("a.json", report("n1", 1, 0, &["pass"])),
                ("b.json", report("n2", 2, 0, &["pass"])),
            ],
            None,
        );
        assert_eq!(merged["exit_code"], 0);
        assert_eq!(merged["seed"], 1, "the first input's");
        assert_eq!(merged["seeds"], json!([1, 2]));
        assert_eq!(merged["guard_seed"], 0, "the first input's (1 ^ 1)");
        assert_eq!(merged["lanes_per_case"], 256);
        let notes: Vec<&str> = merged["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            notes.contains(&"inputs differ in seed: n1 (a.json) 1, n2 (b.json) 2"),
            "{notes:?}"
        );
        assert_eq!(merged["merged_from"][1]["seed"], 2);
    }

    /// No green without a case that passed, in a fleet too: a node whose
    /// cases were all unsettled is 77 and keeps the merge from passing; one
    /// that claims 0 for them contradicts its cases and is refused (a
    /// report edited, or written by a harness before schema version 3).
    #[test]
    fn a_node_whose_cases_were_all_unsettled_is_77_in_the_merge() {
        let unsettled = |exit_code: i32| {
            let mut r = report("gpu1", 1, exit_code, &["unsettled"]);
            let case = &mut r["devices"][0]["cases"][0];
            case["lanes_passed"] = json!(1);
            case["tally"] = json!({"lanes_checked": 256, "lanes_failed": 0, "lanes_unwritten": 0,
                                   "lanes_undefined": 0, "lanes_unsettled": 255, "words_unsettled": 255,
                                   "first": [], "first_unsettled": []});
            r
        };
        let one = merged(vec![("a", unsettled(77))], None);
        assert_eq!(one["exit_code"], 77, "{one:#}");
        let merged = merged(
            vec![("a", unsettled(77)), ("b", report("gpu2", 1, 0, &["pass"]))],
            None,
        );
        assert_eq!(
            merged["exit_code"], 77,
            "a node that passed nothing is not a pass"
        );
        let claimed = check_report(unsettled(0)).unwrap_err();
        assert!(
            claimed.contains("exit_code 0 contradicts its cases, which make it 77"),
            "{claimed}"
        );
    }

    #[test]
    fn a_skipped_node_keeps_the_fleet_from_passing() {
        let mut skipped = report("gpu2", 1, 77, &[]);
        skipped["devices"] = json!([]);
        skipped["error"] = json!("no HIP device runs gfx1100");
        let merged = merged(
            vec![("a", report("gpu1", 1, 0, &["pass"])), ("b", skipped)],
            None,
        );
        assert_eq!(merged["exit_code"], 77);
        assert_eq!(merged["devices"].as_array().unwrap().len(), 1);
        assert_eq!(merged["error"], "gpu2 (b): no HIP device runs gfx1100");
    }

    #[test]
    fn a_missing_report_is_a_fault() {
        let gpu1 = || ("a", report("gpu1", 1, 0, &["pass"]));
        assert_eq!(merged(vec![gpu1()], Some(1))["exit_code"], 0);
        let short = merged(vec![gpu1()], Some(2));
        assert_eq!(short["exit_code"], 3);
        assert!(short["error"]
            .as_str()
            .unwrap()
            .contains("expected 2 report(s), got 1"));
        let extra = merged(
            vec![gpu1(), ("b", report("gpu2", 1, 0, &["pass"]))],
            Some(1),
        );
        assert_eq!(
            extra["exit_code"], 3,
            "more reports than nodes is not a pass either"
        );
        assert!(extra["error"]
            .as_str()
            .unwrap()
            .contains("expected 1 report(s), got 2: more than"));
        let failing = report("gpu1", 1, 1, &["fail"]);
        assert_eq!(
            merged(vec![("a", failing)], Some(2))["exit_code"],
            1,
            "1 beats 3"
        );
    }

    #[test]
    fn interrupted_inputs_are_listed_and_win() {
        let mut cut = report("gpu3", 1, 143, &["pass", "skipped"]);
        cut["devices"][0]["exit_code"] = json!(0); // a device's code ignores the signal
        cut["interrupted"] = json!({"signal": "SIGTERM", "exit_code": 143,
            "cases_completed": 1, "cut_short": null, "not_run": ["hi"]});
        let merged = merged(
            vec![("a", report("gpu1", 1, 1, &["fail"])), ("c", cut)],
            None,
        );
        assert_eq!(merged["exit_code"], 143);
        assert_eq!(
            merged["interrupted"]["signal"], "SIGTERM",
            "the run's shape"
        );
        assert_eq!(merged["merged_from"][1]["interrupted"]["exit_code"], 143);
        assert!(merged["merged_from"][0].get("interrupted").is_none());
        let notes = merged["notes"].to_string();
        assert!(
            notes.contains("gpu3 (c): interrupted by SIGTERM"),
            "{notes}"
        );
    }

    /// A good one-case report, edited by `edit`, is refused with a reason
    /// that says `want`.
    fn refuse(edit: &dyn Fn(&mut Value), want: &str) {
        let mut r = report("n", 1, 0, &["pass"]);
        edit(&mut r);
        let why = check_report(r).unwrap_err();
        assert!(why.contains(want), "{why:?} should say {want:?}");
    }

    #[test]
    fn reports_outside_schema_1_are_refused() {
        refuse(&|r| *r = json!([1]), "not a JSON object");
        refuse(
            &|r| r["schema"] = json!("other/report"),
            "schema \"other/report\"",
        );
        refuse(
            &|r| {
                r.as_object_mut().unwrap().remove("schema");
            },
            "not a versioned",
        );
        refuse(&|r| r["schema_version"] = json!(1), "schema_version 1");
        refuse(
            &|r| r["schema_version"] = json!(SCHEMA_VERSION + 1),
            &format!("schema_version {}", SCHEMA_VERSION + 1),
        );
        refuse(
            &|r| r["schema_version"] = json!("1"),
            "schema_version \"1\"",
        );
        refuse(
            &|r| {
                r.as_object_mut().unwrap().remove("schema_version");
            },
            "no schema_version",
        );
        refuse(
            &|r| r["exit_code"] = json!(null),
            "exit_code: invalid type: null",
        );
        refuse(&|r| r["devices"] = json!({}), "devices: invalid type: map");
        refuse(
            &|r| r["devices"][0]["cases"][0]["status"] = json!("Pass"),
            "devices[0].cases[0].status: unknown variant \"Pass\"",
        );
        refuse(
            &|r| {
                r["devices"][0]["cases"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("status");
            },
            "devices[0].cases[0]: missing field \"status\"",
        );
    }

    #[test]
    fn reports_that_break_the_schema_are_refused() {
        // Fields the schema does not list, anywhere: the merged report would
        // carry them and break the schema it names.
        refuse(
            &|r| r["devices"][0]["future_field"] = json!([1, 2]),
            "devices[0]: unknown field \"future_field\"",
        );
        refuse(
            &|r| r["devices"][0]["cases"][0]["tally"]["extra"] = json!(1),
            "devices[0].cases[0].tally: unknown field \"extra\"",
        );
        refuse(
            &|r| r["devices"][0]["identity"]["extra"] = json!(1),
            "devices[0].identity: unknown field \"extra\"",
        );
        refuse(
            &|r| r["extra_top"] = json!("x"),
            "unknown field \"extra_top\"",
        );
        refuse(
            &|r| {
                r["devices"][0]["cases"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("tally");
            },
            "devices[0].cases[0]: missing field \"tally\"",
        );
        refuse(
            &|r| r["devices"][0]["executor"] = json!("a GPU"),
            "does not match",
        );
        refuse(&|r| r["exit_code"] = json!(137), "137 is not one of");
        // A field written only when it applies is absent or a value, never null.
        refuse(
            &|r| r["interrupted"] = json!(null),
            "interrupted: invalid type: null",
        );
        refuse(
            &|r| r["devices"][0]["cases"][0]["pattern"] = json!(null),
            "devices[0].cases[0].pattern: invalid type: null",
        );
    }

    #[test]
    fn reports_whose_codes_contradict_their_cases_are_refused() {
        // Codes that contradict the cases: edited or corrupted.
        refuse(
            &|r| r["devices"][0]["cases"][0]["status"] = json!("fail"),
            "devices[0] exit_code 0 contradicts its cases, which make it 1",
        );
        refuse(
            &|r| r["exit_code"] = json!(1),
            "exit_code 1 contradicts its cases, which make it 0",
        );
        refuse(
            &|r| r["summary"]["pass"] = json!(7),
            "summary {\"error\":0,\"fail\":0,\"finding\":0,\"not_supported\":0,\"pass\":7",
        );
        refuse(
            &|r| r["error"] = json!("something stopped it"),
            "exit_code 0 contradicts its cases, which make it 3",
        );
    }
}
