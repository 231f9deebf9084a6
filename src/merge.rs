//! `xad-harness merge`: one report from the runs of a fleet (Slurm array tasks,
//! Kubernetes pods, CI runners), each of which wrote its own JSON and JUnit
//! report on its own node.
//!
//! JSON reports are read as [`serde_json::Value`] and must satisfy the schema
//! they name (`src/report/report.schema.json`, which allows no field it does
//! not list): the merged report names that schema too, so an input field it
//! does not know would make the merged report break it. Each input's exit code
//! is recomputed from its cases by the rule `run` uses
//! ([`crate::report::run_exit_code`]); an input whose `exit_code` contradicts
//! its own cases was edited or corrupted and is refused. Devices are
//! concatenated in input order, each keeping its host; the summary is
//! recounted from the case statuses and the exit code is [`combine_exit_codes`]
//! over the inputs' recomputed codes. JUnit reports are parsed with quick-xml,
//! checked to be well-formed XML 1.0 (quick-xml checks tags and nesting, not
//! characters, references or names), and their `<testsuite>` elements copied,
//! event by event, into one `<testsuites>` whose totals are recounted from the
//! test cases.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};
use serde_json::{json, Map, Value};

use crate::error::{exit, Error, Result};
use crate::report::{cases_exit_code, device_code, run_exit_code, CaseStatus};

/// `schema` of every report this merge reads and writes.
pub const SCHEMA: &str = "xad-harness/report";
/// The one `schema_version` this merge reads (and writes): the one this
/// harness writes.
pub const SCHEMA_VERSION: u64 = crate::report::SCHEMA_VERSION as u64;
/// Every case status of this schema version, in the summary's order.
pub const STATUSES: [&str; CaseStatus::ALL.len()] = {
    let mut names = [""; CaseStatus::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = CaseStatus::ALL[i].name();
        i += 1;
    }
    names
};

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
    pub report: Value,
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
        let inputs = report["merged_from"].as_array().map_or(0, Vec::len);
        let devices = report["devices"].as_array().map_or(&[][..], Vec::as_slice);
        let mut hosts: Vec<&str> = Vec::new();
        for device in devices {
            let host = device["host"].as_str().unwrap_or("unknown");
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        let counts = STATUSES
            .iter()
            .map(|s| format!("{} {s}", report["summary"][s].as_u64().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        let seeds = if report.get("seeds").is_some() {
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
            devices.len(),
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
/// well-formed XML), is not a schema-1 report satisfying the schema, or
/// whose exit code contradicts its cases is a usage error (exit 2) naming the
/// file. A merged report that would break its schema is a fault (exit 3).
pub fn merge(request: &Request) -> Result<Merged> {
    let mut reports = Vec::with_capacity(request.reports.len());
    for path in request.reports {
        reports.push((label(path), read_report(path)?));
    }
    let mut report = merge_reports(&reports, request.expect);
    report["command"] = json!(request.command);
    let (junit, junit_suites) = if request.junit.is_empty() {
        (None, 0)
    } else {
        let mut inputs = Vec::with_capacity(request.junit.len());
        for path in request.junit {
            inputs.push((label(path), read_text(path)?));
        }
        let (xml, suites) = merge_junit(&inputs)?;
        (Some(xml), suites)
    };
    // Built from checked inputs, the merged report satisfies its schema; checked
    // again so that a bug here is a fault, never a report that breaks its contract.
    if let Some(why) = schema_violation(&report) {
        return Err(Error::Io(format!(
            "the merged report would break its schema ({why}); nothing written"
        )));
    }
    let exit_code = report["exit_code"]
        .as_i64()
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(exit::FAULT);
    Ok(Merged {
        report,
        junit,
        junit_suites,
        exit_code,
    })
}

/// Write the merged reports asked for, each attempted whatever happened
/// ([`crate::report::files::write_all`]); the first failure is returned.
pub fn write(merged: &Merged, json_out: Option<&Path>, junit_out: Option<&Path>) -> Result<()> {
    let json = json_out.map(|path| {
        let text = serde_json::to_string_pretty(&InOrder(&merged.report, &TOP_LEVEL_ORDER))
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
    crate::report::files::write_all(json.into_iter().chain(junit))
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
        if let Err(e) = crate::files::check_output(option, out) {
            errors.push(e);
            continue;
        }
        // `-` is stdout, never an input file of that name.
        let Some(resolved) = resolve(out).filter(|_| !crate::files::is_stdout(out)) else {
            continue;
        };
        if let Some((input, _)) = inputs.iter().find(|(_, r)| *r == resolved) {
            errors.push(refuse(format!(
                "is also an input ({}); write the merged report elsewhere",
                input.display()
            )));
        }
    }
    errors.extend(crate::report::files::one_file_twice(json_out, junit_out));
    errors
}

/// The merged report's fields in the order a reader expects them (the
/// contract's), rather than serde_json's alphabetical one; fields not listed
/// follow alphabetically.
const TOP_LEVEL_ORDER: [&str; 19] = [
    "schema",
    "schema_version",
    "tool",
    "host",
    "command",
    "environment",
    "seed",
    "seeds",
    "guard_seed",
    "lanes_per_case",
    "executor",
    "targets",
    "notes",
    "exit_code",
    "summary",
    "merged_from",
    "devices",
    "error",
    "interrupted",
];

/// Serializes an object with the keys in `.1` first (a `summary` with the
/// statuses in their order), then the rest.
struct InOrder<'a>(&'a Value, &'a [&'a str]);

impl serde::Serialize for InOrder<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let Some(fields) = self.0.as_object() else {
            return self.0.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(fields.len()))?;
        let listed = self.1.iter().filter_map(|k| fields.get_key_value(*k));
        let rest = fields.iter().filter(|(k, _)| !self.1.contains(&k.as_str()));
        for (key, value) in listed.chain(rest) {
            if key == "summary" {
                map.serialize_entry(key, &InOrder(value, &STATUSES))?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// How an input is named in the merged report and in errors.
fn label(path: &Path) -> String {
    path.display().to_string()
}

/// An input report's text, by the tool's rule for inputs: a regular file
/// (a FIFO would block the merge forever) of at most
/// [`crate::files::MAX_REPORT_BYTES`] (`/dev/zero` would take memory until
/// allocation fails).
fn read_text(path: &Path) -> Result<String> {
    let shown = path.display().to_string();
    let bytes = crate::files::read_input(&shown, path, crate::files::MAX_REPORT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| Error::Usage(format!("{shown}: not UTF-8 text: {e}")))
}

/// One JSON report, checked against the schema-1 contract.
pub fn read_report(path: &Path) -> Result<Value> {
    let text = read_text(path)?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: not JSON: {e}", path.display())))?;
    check_report(&value).map_err(|why| Error::Usage(format!("{}: {why}", path.display())))?;
    Ok(value)
}

/// Why `report` is not a schema-1 xad-harness report, if it is not.
pub fn check_report(report: &Value) -> std::result::Result<(), String> {
    let Some(fields) = report.as_object() else {
        return Err("not an xad-harness report (not a JSON object)".into());
    };
    match fields.get("schema").and_then(Value::as_str) {
        Some(SCHEMA) => {}
        Some(other) => {
            return Err(format!(
                "not an xad-harness report (schema {other:?}, expected {SCHEMA:?})"
            ))
        }
        None => {
            return Err(format!(
                "not a versioned xad-harness report (no \"schema\": {SCHEMA:?}; rerun with a harness that writes schema_version {SCHEMA_VERSION})"
            ))
        }
    }
    match fields.get("schema_version") {
        Some(v) if v.as_u64() == Some(SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "schema_version {v}, this merge reads schema_version {SCHEMA_VERSION}"
            ))
        }
        None => return Err("no schema_version".into()),
    }
    if fields.get("exit_code").and_then(Value::as_i64).is_none() {
        return Err("no integer exit_code".into());
    }
    let Some(devices) = fields.get("devices").and_then(Value::as_array) else {
        return Err("no devices array".into());
    };
    for (d, device) in devices.iter().enumerate() {
        let Some(cases) = device.get("cases").and_then(Value::as_array) else {
            return Err(format!("devices[{d}] has no cases array"));
        };
        for (c, case) in cases.iter().enumerate() {
            match case.get("status").and_then(Value::as_str) {
                Some(s) if STATUSES.contains(&s) => {}
                Some(s) => {
                    return Err(format!(
                        "devices[{d}].cases[{c}] has status {s:?}, not one of {}",
                        STATUSES.join(", ")
                    ))
                }
                None => return Err(format!("devices[{d}].cases[{c}] has no status")),
            }
        }
    }
    // The merged report names this schema, and every device and case of an
    // input is copied into it: a field the schema does not allow (or one it
    // requires, missing) would make the merged report break its own contract.
    if let Some(why) = schema_violation(report) {
        return Err(format!(
            "does not satisfy the schema of schema_version {SCHEMA_VERSION}: {why}"
        ));
    }
    recomputed_exit_code(report).map(|_| ())
}

/// The exit code `run` gives the run `report` records, recomputed from its
/// cases, devices, release errors and interruption by `run`'s own rule
/// ([`run_exit_code`], [`device_code`]); `Err` says how the report's
/// `exit_code`, a device's `exit_code` or a `summary` contradicts its cases
/// (the report was edited or corrupted: its code cannot be trusted either
/// way). The one thing taken from `exit_code` itself is the code of an error
/// that stopped the run, which the JSON records only as text: with a
/// non-null `error`, a code such an error has (2, 3, 77) stands.
fn recomputed_exit_code(report: &Value) -> std::result::Result<i32, String> {
    let contradiction = |field: String, says: &Value, cases: String| {
        Err(format!(
            "{field} {says} contradicts its cases, which make it {cases}: edited or corrupted, not merged"
        ))
    };
    let devices = report["devices"].as_array().map_or(&[][..], Vec::as_slice);
    let mut codes = Vec::with_capacity(devices.len());
    let mut faulted = report["release_errors"]
        .as_array()
        .is_some_and(|e| !e.is_empty());
    let mut all_cases: Vec<&Value> = Vec::new();
    for (d, device) in devices.iter().enumerate() {
        let cases = device["cases"].as_array().map_or(&[][..], Vec::as_slice);
        let statuses: Vec<CaseStatus> = cases.iter().filter_map(status_of).collect();
        let code = device_code(statuses, !device["error"].is_null());
        if device["exit_code"].as_i64() != Some(i64::from(code)) {
            return contradiction(
                format!("devices[{d}] exit_code"),
                &device["exit_code"],
                code.to_string(),
            );
        }
        let counted = summary(std::slice::from_ref(device));
        if device["summary"] != counted {
            return contradiction(
                format!("devices[{d}] summary"),
                &device["summary"],
                counted.to_string(),
            );
        }
        faulted |= cases.iter().any(|c| {
            c["release_errors"]
                .as_array()
                .is_some_and(|e| !e.is_empty())
        });
        all_cases.extend(cases);
        codes.push(code);
    }
    if devices.is_empty() {
        codes.push(cases_exit_code(
            all_cases.iter().filter_map(|c| status_of(c)),
        ));
    }
    let counted = summary(devices);
    if report["summary"] != counted {
        return contradiction("summary".into(), &report["summary"], counted.to_string());
    }
    let says = &report["exit_code"];
    let claimed = says.as_i64().and_then(|c| i32::try_from(c).ok());
    let interrupted = report["interrupted"]["exit_code"]
        .as_i64()
        .and_then(|c| i32::try_from(c).ok());
    // An error that stopped the run (`RunError::Failed`) decides the run's
    // code; its kinds' codes are 2, 3 and 77 ([`Error::exit_code`]). Any
    // other error (a stop after a timeout) is a fault beside the devices'.
    let stopped_by_error = !report["error"].is_null();
    let failed = claimed
        .filter(|c| stopped_by_error && [exit::USAGE, exit::FAULT, exit::SKIPPED].contains(c));
    let code = run_exit_code(interrupted, failed, codes, faulted || stopped_by_error);
    if claimed != Some(code) {
        return contradiction("exit_code".into(), says, code.to_string());
    }
    Ok(code)
}

/// A case's status, when it is one of schema version 1's.
fn status_of(case: &Value) -> Option<CaseStatus> {
    let name = case["status"].as_str()?;
    CaseStatus::ALL.into_iter().find(|s| s.name() == name)
}

/// The report schema every report names (`xad-harness schema`), parsed once.
fn report_schema() -> &'static Value {
    static PARSED: OnceLock<Value> = OnceLock::new();
    PARSED.get_or_init(|| {
        serde_json::from_str(crate::report::SCHEMA).expect("the embedded report schema is JSON")
    })
}

/// Where `report` breaks the report schema (`src/report/report.schema.json`,
/// the one `schema` and `schema_version` name), as one line naming the first
/// place, e.g. `devices[0].cases[2]: unknown field "x"`; `None` when it
/// satisfies it. The schema itself is interpreted (the keywords it uses), so
/// this check and the contract cannot drift apart; a keyword it does not know
/// is reported rather than skipped.
pub fn schema_violation(report: &Value) -> Option<String> {
    let root = report_schema();
    conforms(root, root, report, "").err()
}

/// The JSON Schema keywords [`conforms`] checks (or, for annotations, knows to
/// ignore): those the report schema uses.
const SCHEMA_KEYWORDS: [&str; 17] = [
    "$schema",
    "$id",
    "title",
    "description",
    "$ref",
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "pattern",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "oneOf",
    "$defs",
];

/// Whether `value` at `path` satisfies `schema` (a part of `root`). The
/// keywords are checked in a fixed order, so the first violation named is
/// the same whatever order the schema lists them in.
fn conforms(
    root: &Value,
    schema: &Value,
    value: &Value,
    path: &str,
) -> std::result::Result<(), String> {
    let Some(rules) = schema.as_object() else {
        return Ok(());
    };
    if let Some(keyword) = rules
        .keys()
        .find(|k| !SCHEMA_KEYWORDS.contains(&k.as_str()))
    {
        return Err(at(
            path,
            format!("the report schema uses {keyword:?}, which this check does not know"),
        ));
    }
    if let Some(rule) = rules.get("$ref") {
        let target = rule
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| root["$defs"].get(name))
            .ok_or_else(|| {
                at(
                    path,
                    format!("the report schema's $ref {rule} does not resolve"),
                )
            })?;
        conforms(root, target, value, path)?;
    }
    scalar_conforms(rules, value).map_err(|why| at(path, why))?;
    if let Some(fields) = value.as_object() {
        fields_conform(root, rules, fields, path)?;
    }
    if let (Some(items), Some(rule)) = (value.as_array(), rules.get("items")) {
        for (i, item) in items.iter().enumerate() {
            conforms(root, rule, item, &format!("{path}[{i}]"))?;
        }
    }
    if let Some(branches) = rules.get("oneOf").and_then(Value::as_array) {
        one_of_conforms(root, branches, value, path)?;
    }
    Ok(())
}

/// `why`, prefixed with the place it is about (none at the report's root).
fn at(path: &str, why: String) -> String {
    if path.is_empty() {
        why
    } else {
        format!("{path}: {why}")
    }
}

/// The rules on `value` itself (`type`, `const`, `enum`, `minimum`,
/// `maximum`, `pattern`), in that order; the error is not yet placed.
fn scalar_conforms(rules: &Map<String, Value>, value: &Value) -> std::result::Result<(), String> {
    if let Some(rule) = rules.get("type") {
        let types: Vec<&str> = match rule {
            Value::Array(types) => types.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect(),
        };
        if !types.iter().any(|t| has_type(value, t)) {
            return Err(format!(
                "{} where the schema wants {}",
                brief(value),
                types.join(" or ")
            ));
        }
    }
    if let Some(rule) = rules.get("const") {
        if !same(value, rule) {
            return Err(format!("{} where the schema wants {rule}", brief(value)));
        }
    }
    if let Some(rule) = rules.get("enum") {
        let allowed = rule.as_array().map_or(&[][..], Vec::as_slice);
        if !allowed.iter().any(|v| same(value, v)) {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(format!(
                "{} is not one of {}",
                brief(value),
                list.join(", ")
            ));
        }
    }
    if let (Some(n), Some(min)) = (value.as_f64(), rules.get("minimum").and_then(Value::as_f64)) {
        if n < min {
            return Err(format!("{value} is below the minimum {min}"));
        }
    }
    if let (Some(n), Some(max)) = (value.as_f64(), rules.get("maximum").and_then(Value::as_f64)) {
        if n > max {
            return Err(format!("{value} is above the maximum {max}"));
        }
    }
    if let (Some(text), Some(rule)) = (value.as_str(), rules.get("pattern")) {
        let pattern = rule.as_str().unwrap_or_default();
        match matches_pattern(pattern, text) {
            Some(true) => {}
            Some(false) => return Err(format!("{} does not match {pattern}", brief(value))),
            None => {
                return Err(format!(
                    "the report schema's pattern {pattern} is not one this check knows"
                ))
            }
        }
    }
    Ok(())
}

/// The rules on an object's fields: `required`, then each field in order
/// against `properties` or `additionalProperties`.
fn fields_conform(
    root: &Value,
    rules: &Map<String, Value>,
    fields: &Map<String, Value>,
    path: &str,
) -> std::result::Result<(), String> {
    for key in rules
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !fields.contains_key(key) {
            return Err(at(
                path,
                format!("no {key:?} field, which the schema requires"),
            ));
        }
    }
    let properties = rules.get("properties").and_then(Value::as_object);
    let others = rules.get("additionalProperties");
    for (key, field) in fields {
        let inner = field_path(path, key);
        match (properties.and_then(|p| p.get(key)), others) {
            (Some(rule), _) => conforms(root, rule, field, &inner)?,
            (None, Some(Value::Bool(false))) => {
                return Err(at(
                    path,
                    format!("unknown field {key:?} (the schema allows none it does not list)"),
                ))
            }
            (None, Some(rule)) => conforms(root, rule, field, &inner)?,
            (None, None) => {}
        }
    }
    Ok(())
}

/// The path of the field `key` under `path`. A key from the input is quoted
/// unless plain, so that the error stays one line whatever the key holds.
fn field_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (plain, path.is_empty()) {
        (true, true) => key.to_string(),
        (true, false) => format!("{path}.{key}"),
        (false, _) => format!("{path}[{key:?}]"),
    }
}

/// `oneOf`: exactly one branch holds. When none does, the error of the
/// branch the value was meant to be (its type, its `kind`, its required
/// fields) says best what is wrong with it.
fn one_of_conforms(
    root: &Value,
    branches: &[Value],
    value: &Value,
    path: &str,
) -> std::result::Result<(), String> {
    let results: Vec<_> = branches
        .iter()
        .map(|b| conforms(root, b, value, path))
        .collect();
    match results.iter().filter(|r| r.is_ok()).count() {
        1 => Ok(()),
        0 => {
            let mut best: Option<((bool, bool, bool), String)> = None;
            for (branch, result) in branches.iter().zip(results) {
                let aim = aims_at(branch, value);
                if let Err(why) = result {
                    if best.as_ref().is_none_or(|(b, _)| aim > *b) {
                        best = Some((aim, why));
                    }
                }
            }
            Err(best.map_or_else(|| at(path, "matches none of its forms".into()), |b| b.1))
        }
        _ => Err(at(path, "matches more than one of its forms".into())),
    }
}

/// How closely `value` aims at the `oneOf` branch `schema`: its type, then
/// its `const` fields (an identity's `kind`), then its required fields.
fn aims_at(schema: &Value, value: &Value) -> (bool, bool, bool) {
    let typed = schema["type"].as_str().is_none_or(|t| has_type(value, t));
    let consts = schema["properties"].as_object().is_none_or(|p| {
        p.iter()
            .all(|(k, rule)| rule.get("const").is_none_or(|c| same(&value[k], c)))
    });
    let required = schema["required"].as_array().is_none_or(|r| {
        r.iter()
            .filter_map(Value::as_str)
            .all(|k| value.get(k).is_some())
    });
    (typed, consts, required)
}

/// JSON Schema's type of `value` (an integral number is an `integer`).
fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON Schema's equality: numbers by value (1 and 1.0 are one number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// A value for an error line: short, and on one line (JSON escapes).
fn brief(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

/// Whether `text` matches `pattern`, for the patterns the report schema uses
/// (ECMA-262: `.` is any character but a line terminator); `None` for
/// another, which the caller reports instead of passing.
fn matches_pattern(pattern: &str, text: &str) -> Option<bool> {
    let one_line = |t: &str| !t.is_empty() && !t.contains(['\n', '\r', '\u{2028}', '\u{2029}']);
    match pattern {
        "^(hardware: .+|emulated .+)$" => Some(
            text.strip_prefix("hardware: ")
                .or_else(|| text.strip_prefix("emulated "))
                .is_some_and(one_line),
        ),
        // Its last alternative, `.+`, takes in the others.
        "^(hip:[0-9]+|emulator:[a-z0-9-]+|unrecorded|.+)$" => Some(one_line(text)),
        // A case pattern's verdict letters (src/pattern.rs).
        "^[.wudsf]*$" => Some(text.chars().all(|c| ".wudsf".contains(c))),
        _ => None,
    }
}

/// Merge checked reports, each with the label it is named by. `expect`: the
/// number of reports the fleet should have produced. The result is a report
/// of the same schema (`src/report/report.schema.json`: `merged_from`, and
/// `seeds` when the inputs' seeds differ, are the fields only a merge sets);
/// its `command` is empty ([`merge`] records the merge's own).
pub fn merge_reports(inputs: &[(String, Value)], expect: Option<usize>) -> Value {
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
    devices: Vec<Value>,
    merged_from: Vec<Value>,
    notes: Vec<Value>,
    errors: Vec<String>,
    interrupted: Vec<&'a Value>,
    executors: Vec<&'a str>,
    targets: Vec<&'a Value>,
    codes: Vec<i32>,
}

impl<'a> Gathered<'a> {
    /// Take in one input: its devices (each keeping its host), notes,
    /// error, executor, targets, recomputed exit code and merged_from entry.
    fn add(&mut self, file: &str, report: &'a Value) {
        let host = report["host"].as_str().unwrap_or("unknown");
        let code = self.node_code(file, host, report);
        self.codes.push(code);
        let input_devices = report["devices"].as_array().map_or(&[][..], Vec::as_slice);
        for device in input_devices {
            let mut device = device.clone();
            if let Some(fields) = device.as_object_mut() {
                fields
                    .entry("host")
                    .or_insert_with(|| Value::String(host.to_string()));
            }
            self.devices.push(device);
        }
        for note in report["notes"].as_array().into_iter().flatten() {
            let text = note
                .as_str()
                .map_or_else(|| note.to_string(), str::to_string);
            self.notes
                .push(Value::String(format!("{host} ({file}): {text}")));
        }
        let error = &report["error"];
        if !error.is_null() {
            let text = error
                .as_str()
                .map_or_else(|| error.to_string(), str::to_string);
            self.errors.push(format!("{host} ({file}): {text}"));
        }
        if let Some(executor) = report["executor"].as_str().filter(|e| !e.is_empty()) {
            if !self.executors.contains(&executor) {
                self.executors.push(executor);
            }
        }
        for target in report["targets"].as_array().into_iter().flatten() {
            if !self.targets.contains(&target) {
                self.targets.push(target);
            }
        }
        let mut from = merged_from_entry(file, host, report);
        if let Some(what) = report.get("interrupted").filter(|v| !v.is_null()) {
            self.interrupted.push(what);
            from["interrupted"] = what.clone();
            self.notes.push(json!(format!(
                "{host} ({file}): interrupted by {}",
                what["signal"].as_str().unwrap_or("a signal")
            )));
        }
        self.merged_from.push(from);
    }

    /// An input's exit code, recomputed from its cases, never copied from
    /// its `exit_code` (checked inputs agree with theirs; an unchecked one
    /// that does not is a fault). Schema version 3 makes no green without a
    /// case that passed: an input claiming 0 with only unsettled cases
    /// contradicts its cases and is refused before it gets here.
    fn node_code(&mut self, _file: &str, _host: &str, report: &Value) -> i32 {
        recomputed_exit_code(report).unwrap_or(exit::FAULT)
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
    fn into_report(mut self, inputs: &[(String, Value)]) -> Value {
        let mut merged = Map::new();
        merged.insert("schema".into(), json!(SCHEMA));
        merged.insert("schema_version".into(), json!(SCHEMA_VERSION));
        merged.insert("tool".into(), common_tool(inputs, &mut self.notes));
        merged.insert("host".into(), json!(host_name()));
        merged.insert("command".into(), json!([]));
        // Each node's recorded variables stay in its merged_from entry.
        merged.insert("environment".into(), json!({}));
        for key in ["seed", "guard_seed", "lanes_per_case"] {
            let (first, differ) = common_value(inputs, key, &mut self.notes);
            merged.insert(key.into(), first);
            if differ && key == "seed" {
                merged.insert("seeds".into(), json!(distinct_seeds(inputs)));
            }
        }
        merged.insert("executor".into(), json!(self.executors.join("; ")));
        merged.insert("targets".into(), json!(self.targets));
        let exit_code = combine_exit_codes(&self.codes);
        merged.insert("exit_code".into(), json!(exit_code));
        merged.insert("summary".into(), summary(&self.devices));
        merged.insert("devices".into(), Value::Array(self.devices));
        merged.insert("notes".into(), Value::Array(self.notes));
        merged.insert(
            "error".into(),
            if self.errors.is_empty() {
                Value::Null
            } else {
                json!(self.errors.join("; "))
            },
        );
        // The schema's `interrupted` is one run's; the merged report carries the
        // first interrupted input's whose code won the combination (SIGINT's 130
        // beats SIGTERM's 143), and each input's is in its merged_from entry.
        let won = self
            .interrupted
            .iter()
            .find(|i| i["exit_code"] == json!(exit_code))
            .or(self.interrupted.first());
        if let Some(first) = won {
            merged.insert("interrupted".into(), (*first).clone());
        }
        merged.insert("merged_from".into(), Value::Array(self.merged_from));
        Value::Object(merged)
    }
}

/// One input's entry in `merged_from`: what it recorded of its own run, so
/// that each node can be replayed with its own seed and environment.
fn merged_from_entry(file: &str, host: &str, report: &Value) -> Value {
    let code = report["exit_code"]
        .as_i64()
        .unwrap_or(i64::from(exit::FAULT));
    json!({
        "file": file,
        "host": host,
        "exit_code": code,
        "devices": report["devices"].as_array().map_or(0, Vec::len),
        "executor": report["executor"],
        "seed": report["seed"],
        "guard_seed": report["guard_seed"],
        "lanes_per_case": report["lanes_per_case"],
        "environment": report["environment"],
        "tool": report["tool"],
        "error": report["error"],
    })
}

/// Each input's seed once, in input order.
fn distinct_seeds(inputs: &[(String, Value)]) -> Vec<&Value> {
    let mut seeds: Vec<&Value> = Vec::new();
    for (_, r) in inputs {
        if !seeds.contains(&&r["seed"]) {
            seeds.push(&r["seed"]);
        }
    }
    seeds
}

/// Cases per status over every device, every status present.
fn summary(devices: &[Value]) -> Value {
    let mut counts: BTreeMap<&str, u64> = STATUSES.iter().map(|s| (*s, 0)).collect();
    for device in devices {
        for case in device["cases"].as_array().into_iter().flatten() {
            if let Some(count) = case["status"].as_str().and_then(|s| counts.get_mut(s)) {
                *count += 1;
            }
        }
    }
    json!(counts)
}

/// The first input's `key`, and whether the inputs differ in it; when they
/// do, a note lists each input's value (seeds may differ between nodes: each
/// replays with its own, in its merged_from entry).
fn common_value(inputs: &[(String, Value)], key: &str, notes: &mut Vec<Value>) -> (Value, bool) {
    let first = inputs.first().map_or(Value::Null, |(_, r)| r[key].clone());
    if inputs.iter().all(|(_, r)| r[key] == first) {
        return (first, false);
    }
    let each = inputs
        .iter()
        .map(|(file, r)| {
            format!(
                "{} ({file}) {}",
                r["host"].as_str().unwrap_or("unknown"),
                r[key]
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    notes.push(json!(format!("inputs differ in {key}: {each}")));
    (first, true)
}

/// The inputs' `tool` when they all agree; otherwise this binary's name and
/// version, and a note listing each input's.
fn common_tool(inputs: &[(String, Value)], notes: &mut Vec<Value>) -> Value {
    let first = inputs.first().map(|(_, r)| r["tool"].clone());
    match first {
        Some(tool) if !tool.is_null() && inputs.iter().all(|(_, r)| r["tool"] == tool) => tool,
        _ => {
            let each = inputs
                .iter()
                .map(|(file, r)| format!("{file} {}", r["tool"]))
                .collect::<Vec<_>>()
                .join(", ");
            notes.push(json!(format!(
                "inputs come from different tool builds: {each}"
            )));
            json!({
                "name": "xad-harness",
                "version": env!("CARGO_PKG_VERSION"),
                "git_describe": env!("XAD_GIT_DESCRIBE"),
            })
        }
    }
}

/// This machine's name (the host that merged).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Counts of one `<testsuite>`, recounted from its test cases.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Totals {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    time: f64,
}

impl Totals {
    fn add(&mut self, other: Totals) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
        self.skipped += other.skipped;
        self.time += other.time;
    }
}

/// Merge JUnit documents (each `<testsuites>` or a lone `<testsuite>`), each
/// with its label: every top-level `<testsuite>` is copied as it is, except
/// that a name already taken by an earlier suite gets ` [<file stem>]`
/// appended (two nodes' suites are otherwise both `xad-harness gfx1100`).
/// Returns the document and the number of suites.
pub fn merge_junit(inputs: &[(String, String)]) -> Result<(String, usize)> {
    let mut body = Writer::new(Vec::new());
    let mut totals = Totals::default();
    let mut names: Vec<String> = Vec::new();
    for (file, xml) in inputs {
        let stem = Path::new(file)
            .file_stem()
            .map_or_else(|| file.clone(), |s| s.to_string_lossy().into_owned());
        copy_suites(xml, &stem, &mut body, &mut names, &mut totals)
            .map_err(|why| Error::Usage(format!("{file}: {why}")))?;
    }
    let mut out = Writer::new(Vec::new());
    let io = |e: std::io::Error| Error::Io(format!("building the merged JUnit report: {e}"));
    out.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .map_err(io)?;
    out.write_event(Event::Text(BytesText::new("\n")))
        .map_err(io)?;
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", "xad-harness"));
    root.push_attribute(("tests", totals.tests.to_string().as_str()));
    root.push_attribute(("failures", totals.failures.to_string().as_str()));
    root.push_attribute(("errors", totals.errors.to_string().as_str()));
    root.push_attribute(("skipped", totals.skipped.to_string().as_str()));
    root.push_attribute(("time", format!("{:.3}", totals.time).as_str()));
    out.write_event(Event::Start(root)).map_err(io)?;
    let mut bytes = out.into_inner();
    bytes.extend_from_slice(&body.into_inner());
    bytes.extend_from_slice(b"\n</testsuites>\n");
    let xml = String::from_utf8(bytes)
        .map_err(|e| Error::Io(format!("building the merged JUnit report: {e}")))?;
    // Copied from checked inputs, the result is well-formed; read back with
    // the same checks, so that a bug here is a fault, never an unreadable report.
    well_formed(&xml).map_err(|why| {
        Error::Io(format!(
            "the merged JUnit report would not be well-formed XML ({why}); nothing written"
        ))
    })?;
    Ok((xml, names.len()))
}

/// Copy the top-level suites of one document into `out`, adding their
/// totals. Errors say what is wrong, without the file name.
fn copy_suites(
    xml: &str,
    stem: &str,
    out: &mut Writer<Vec<u8>>,
    names: &mut Vec<String>,
    totals: &mut Totals,
) -> std::result::Result<(), String> {
    let mut reader = Reader::from_str(xml);
    let mut copy = SuiteCopy {
        stem,
        names,
        totals,
        depth: 0,
        root: None,
        suite: None,
        skipping: None,
    };
    let mut first = true;
    // Text outside the root element, first seen.
    let mut stray: Option<String> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML at byte {}: {e}",
                reader.error_position()
            )
        })?;
        let position = reader.buffer_position();
        if let Err(why) = ill_formed(&event, first) {
            return Err(format!("not well-formed XML near byte {position}: {why}"));
        }
        first = false;
        if copy.depth == 0 {
            match top_level(&event, copy.root.is_some()) {
                Err(why) => return Err(format!("not well-formed XML near byte {position}: {why}")),
                // Said after "no root element", when there is one.
                Ok(Some(why)) => {
                    stray.get_or_insert(format!("not well-formed XML near byte {position}: {why}"));
                }
                Ok(None) => {}
            }
        }
        match event {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                copy.start(out, &event, e, empty)?;
            }
            Event::End(ref e) => copy.end(out, e)?,
            // A processing instruction is for the program that wrote the
            // input, not for the merged report's readers: dropped.
            Event::PI(_) => {}
            // Text, CDATA, references and comments inside a suite are copied
            // as they are (checked above, still escaped); outside one, dropped.
            other => {
                if copy.suite.is_some() && copy.skipping.is_none() {
                    write_event(out, other)?;
                }
            }
        }
    }
    if copy.root.is_none() {
        return Err("not a JUnit report (no root element)".into());
    }
    if copy.depth != 0 {
        return Err("not well-formed XML: the document ends inside an element".into());
    }
    stray.map_or(Ok(()), Err)
}

/// Write one event of a copied suite.
fn write_event(out: &mut Writer<Vec<u8>>, event: Event) -> std::result::Result<(), String> {
    out.write_event(event)
        .map_err(|e| format!("copying a test suite: {e}"))
}

/// Where [`copy_suites`] is in one document: which suite it copies, and
/// what it reads through without copying.
struct SuiteCopy<'a> {
    stem: &'a str,
    names: &'a mut Vec<String>,
    totals: &'a mut Totals,
    /// Elements open, the root included.
    depth: usize,
    root: Option<String>,
    suite: Option<SuiteScan>,
    /// Depth of an element directly under <testsuites> that is not a suite
    /// (<properties> etc.): read, checked, not copied.
    skipping: Option<usize>,
}

impl SuiteCopy<'_> {
    /// Whether an element opening (or closing) at this depth is a suite.
    fn at_suite_level(&self) -> bool {
        match self.root.as_deref() {
            Some("testsuites") => self.depth == 1,
            _ => self.depth == 0,
        }
    }

    /// An element opens (`empty`: and closes at once).
    fn start(
        &mut self,
        out: &mut Writer<Vec<u8>>,
        event: &Event,
        e: &BytesStart,
        empty: bool,
    ) -> std::result::Result<(), String> {
        if self.skipping.is_some() {
            self.depth += usize::from(!empty);
            return Ok(());
        }
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        if self.root.is_none() {
            if name != "testsuites" && name != "testsuite" {
                return Err(format!(
                    "not a JUnit report (root element <{name}>, expected <testsuites> or <testsuite>)"
                ));
            }
            self.root = Some(name.clone());
        }
        if self.at_suite_level() {
            return self.start_suite(out, &name, e, empty);
        }
        if let Some(scan) = self.suite.as_mut() {
            scan.element(&name, e, empty, self.depth)?;
            write_event(out, event.borrow())?;
        }
        if !empty {
            self.depth += 1;
        }
        Ok(())
    }

    /// An element opens where suites stand: a suite is copied under a name
    /// no earlier suite took; anything else is skipped.
    fn start_suite(
        &mut self,
        out: &mut Writer<Vec<u8>>,
        name: &str,
        e: &BytesStart,
        empty: bool,
    ) -> std::result::Result<(), String> {
        if name != "testsuite" {
            // <properties> etc. directly under <testsuites>: not ours to
            // keep, but read through (and checked) like the rest: an input
            // is well-formed everywhere or refused.
            if !empty {
                self.skipping = Some(self.depth);
                self.depth += 1;
            }
            return Ok(());
        }
        let scan = SuiteScan::start(e)?;
        let start = unique_name(e, &scan.name, self.stem, self.names)?;
        write_event(out, Event::Text(BytesText::new("\n    ")))?;
        if empty {
            write_event(out, Event::Empty(start))?;
            scan.finish(self.totals);
        } else {
            write_event(out, Event::Start(start))?;
            self.depth += 1;
            self.suite = Some(scan);
        }
        Ok(())
    }

    /// An element closes; a suite that closes adds its totals.
    fn end(&mut self, out: &mut Writer<Vec<u8>>, e: &BytesEnd) -> std::result::Result<(), String> {
        self.depth = self.depth.saturating_sub(1);
        if self.skipping.is_some() {
            if self.skipping == Some(self.depth) {
                self.skipping = None;
            }
            return Ok(());
        }
        if let Some(scan) = self.suite.as_mut() {
            let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
            scan.end(&name, self.depth);
            write_event(out, Event::End(e.borrow()))?;
            if self.at_suite_level() {
                if let Some(done) = self.suite.take() {
                    done.finish(self.totals);
                }
            }
        }
        Ok(())
    }
}

/// Why `xml` is not a well-formed XML 1.0 document as far as the merge can
/// tell (quick-xml's checks and [`ill_formed`]'s), if it is not.
fn well_formed(xml: &str) -> std::result::Result<(), String> {
    let mut reader = Reader::from_str(xml);
    let mut first = true;
    let mut depth = 0usize;
    let mut rooted = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.error_position()))?;
        let near = |why: String| format!("near byte {}: {why}", reader.buffer_position());
        ill_formed(&event, first).map_err(near)?;
        first = false;
        if depth == 0 {
            if let Some(why) = top_level(&event, rooted).map_err(near)? {
                return Err(near(why.into()));
            }
        }
        match event {
            Event::Start(_) => {
                depth += 1;
                rooted = true;
            }
            Event::Empty(_) => rooted = true,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof if depth == 0 && rooted => return Ok(()),
            Event::Eof if depth == 0 => return Err("no root element".into()),
            Event::Eof => return Err("the document ends inside an element".into()),
            _ => {}
        }
    }
}

/// What an event outside every element breaks: a second root element
/// (`Err`), or text that is not white space (`Ok(Some)`: the caller says it
/// only after checking that there is a root at all). `rooted`: the root
/// element came before.
fn top_level(event: &Event, rooted: bool) -> std::result::Result<Option<&'static str>, String> {
    match event {
        Event::Start(_) | Event::Empty(_) if rooted => Err("a second root element".into()),
        Event::Text(t) if !t.iter().all(|b| b" \t\r\n".contains(b)) => {
            Ok(Some("text outside the root element"))
        }
        Event::CData(_) | Event::GeneralRef(_) => Ok(Some("text outside the root element")),
        _ => Ok(None),
    }
}

/// What in one event breaks XML 1.0 where quick-xml lets it through: it
/// checks tags and their nesting, not characters (a control character such
/// as U+0001 is allowed nowhere, not even as `&#1;`), references (only `&lt;`
/// `&gt;` `&amp;` `&apos;` `&quot;` and character references are defined
/// without a DTD), names or comments. Copied into the merged report, any of
/// these would make it unreadable. A DTD is refused outright: a JUnit report
/// has none, and the entities it declares would not come through the merge.
/// `first`: no event came before this one (where an XML declaration belongs).
fn ill_formed(event: &Event, first: bool) -> std::result::Result<(), String> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    match event {
        Event::DocType(_) => Err(
            "a DTD (<!DOCTYPE ...>): a JUnit report has none, and the entities it declares would not survive the merge"
                .into(),
        ),
        Event::Decl(_) if !first => Err("an XML declaration after the start of the document".into()),
        Event::Decl(_) | Event::Eof | Event::End(_) => Ok(()),
        Event::Start(e) | Event::Empty(e) => {
            let element = text(e.name().as_ref());
            if !is_xml_name(&element) {
                return Err(format!("an element named {element:?}, not an XML name"));
            }
            for attribute in e.attributes() {
                let attribute = attribute.map_err(|e| format!("in <{element}>: {e}"))?;
                let key = text(attribute.key.as_ref());
                if !is_xml_name(&key) {
                    return Err(format!("in <{element}>: an attribute named {key:?}, not an XML name"));
                }
                let place = || format!("attribute {key} of <{element}>");
                if attribute.value.contains(&b'<') {
                    return Err(format!("a raw '<' in {}", place()));
                }
                // Unescaping refuses an undefined entity or a malformed
                // reference; the characters are checked after it, so that a
                // reference to a forbidden one (`&#1;`) is caught too.
                let value = attribute
                    .unescape_value()
                    .map_err(|e| format!("{}: {e}", place()))?;
                legal_chars(&value, &place())?;
            }
            Ok(())
        }
        Event::Text(t) => {
            let raw = text(t.as_ref());
            legal_chars(&raw, "text")?;
            if raw.contains("]]>") {
                return Err("\"]]>\" in text (it ends only a CDATA section)".into());
            }
            Ok(())
        }
        Event::GeneralRef(r) => {
            let name = text(r.as_ref());
            if r.is_char_ref() {
                match r.resolve_char_ref() {
                    Ok(Some(c)) => legal_chars(&c.to_string(), &format!("the reference &{name};")),
                    _ => Err(format!("a malformed character reference &{name};")),
                }
            } else if ["lt", "gt", "amp", "apos", "quot"].contains(&name.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "an undefined entity &{name}; (without a DTD only &lt; &gt; &amp; &apos; &quot; are defined)"
                ))
            }
        }
        Event::CData(c) => legal_chars(&text(c.as_ref()), "a CDATA section"),
        Event::Comment(c) => {
            let raw = text(c.as_ref());
            legal_chars(&raw, "a comment")?;
            if raw.contains("--") || raw.ends_with('-') {
                return Err("a comment holding \"--\"".into());
            }
            Ok(())
        }
        Event::PI(p) => legal_chars(&text(p.as_ref()), "a processing instruction"),
    }
}

/// The first character XML 1.0 does not allow (`Char`: tab, newline,
/// carriage return and U+0020 up, less the surrogates, U+FFFE and U+FFFF).
fn legal_chars(text: &str, place: &str) -> std::result::Result<(), String> {
    let legal = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    match text.chars().find(|&c| !legal(c)) {
        Some(c) => Err(format!(
            "U+{:04X} in {place}, a character XML 1.0 does not allow",
            u32::from(c)
        )),
        None => Ok(()),
    }
}

/// Whether `name` is an XML 1.0 `Name` (element and attribute names).
fn is_xml_name(name: &str) -> bool {
    let start = |c: char| {
        matches!(c, ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
            | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
            | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
            | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
            | '\u{10000}'..='\u{EFFFF}')
    };
    let rest = |c: char| {
        start(c)
            || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
    };
    let mut chars = name.chars();
    chars.next().is_some_and(start) && chars.all(rest)
}

/// The suite's start tag, renamed when an earlier suite has its name.
fn unique_name(
    start: &BytesStart,
    name: &str,
    stem: &str,
    names: &mut Vec<String>,
) -> std::result::Result<BytesStart<'static>, String> {
    let mut chosen = name.to_string();
    let mut n = 1;
    while names.contains(&chosen) {
        n += 1;
        chosen = if n == 2 {
            format!("{name} [{stem}]")
        } else {
            format!("{name} [{stem} {n}]")
        };
    }
    names.push(chosen.clone());
    if chosen == name {
        return Ok(start.to_owned());
    }
    let mut renamed = BytesStart::new("testsuite");
    let mut named = false;
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        if attribute.key.as_ref() == b"name" {
            renamed.push_attribute(("name", chosen.as_str()));
            named = true;
        } else {
            renamed.push_attribute(attribute);
        }
    }
    if !named {
        renamed.push_attribute(("name", chosen.as_str()));
    }
    Ok(renamed)
}

/// What one suite's events add up to while it is copied.
struct SuiteScan {
    name: String,
    /// The suite's own `time`, when it has one; else the cases' times are summed.
    time: Option<f64>,
    totals: Totals,
    /// Depth of the open `<testcase>` and what it holds so far.
    case: Option<(usize, CaseOutcome)>,
}

#[derive(Default)]
struct CaseOutcome {
    failure: bool,
    error: bool,
    skipped: bool,
}

impl SuiteScan {
    fn start(e: &BytesStart) -> std::result::Result<SuiteScan, String> {
        Ok(SuiteScan {
            name: attribute(e, "name")?.unwrap_or_default(),
            time: attribute(e, "time")?.and_then(|t| t.trim().parse().ok()),
            totals: Totals::default(),
            case: None,
        })
    }

    fn element(
        &mut self,
        name: &str,
        e: &BytesStart,
        empty: bool,
        depth: usize,
    ) -> std::result::Result<(), String> {
        match (name, self.case.as_mut()) {
            ("testcase", None) => {
                self.totals.tests += 1;
                if let Some(t) = attribute(e, "time")?.and_then(|t| t.trim().parse::<f64>().ok()) {
                    self.totals.time += t;
                }
                if empty {
                    return Ok(());
                }
                self.case = Some((depth, CaseOutcome::default()));
            }
            ("failure", Some((_, outcome))) => outcome.failure = true,
            ("error", Some((_, outcome))) => outcome.error = true,
            ("skipped", Some((_, outcome))) => outcome.skipped = true,
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, name: &str, depth: usize) {
        if name != "testcase" || !matches!(self.case, Some((d, _)) if d == depth) {
            return;
        }
        if let Some((_, outcome)) = self.case.take() {
            // One outcome per case, the worst: an error, then a failure, then skipped.
            if outcome.error {
                self.totals.errors += 1;
            } else if outcome.failure {
                self.totals.failures += 1;
            } else if outcome.skipped {
                self.totals.skipped += 1;
            }
        }
    }

    fn finish(self, totals: &mut Totals) {
        let mut own = self.totals;
        if let Some(t) = self.time {
            own.time = t;
        }
        totals.add(own);
    }
}

fn attribute(e: &BytesStart, key: &str) -> std::result::Result<Option<String>, String> {
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|e| format!("a malformed attribute: {e}"))?;
        if attribute.key.as_ref() == key.as_bytes() {
            let value = attribute
                .unescape_value()
                .map_err(|e| format!("attribute {key}: {e}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete schema-1 report of one emulated device whose cases have
    /// `statuses`; `exit_code` is the report's and the device's (the caller
    /// gives the one `run` would write).
    fn report(host: &str, seed: u64, exit_code: i32, statuses: &[&str]) -> Value {
        let cases: Vec<Value> = statuses
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let passed = u64::from(*s == "pass") * 256;
                json!({
                    "status": s, "lanes_passed": passed, "case": format!("case{i}"),
                    "description": "", "kernel": "xad_basic",
                    "kernel_source": {"embedded": {"source": "kernels/cases/xad_basic.s"}},
                    "device": "emulator:gfx1100", "executor": "emulated gfx1100",
                    "target": "gfx1100", "seed": seed, "guard_seed": seed ^ 1, "lanes": 256,
                    "scalars": [],
                    "tally": {"lanes_checked": passed, "lanes_failed": 0, "lanes_unwritten": 0,
                              "lanes_undefined": 0, "lanes_unsettled": 0, "words_unsettled": 0,
                              "first": [], "first_unsettled": []},
                    "guard_violations": [], "error": null, "seconds": 0.01,
                    "unsettled": null, "forms": []
                })
            })
            .collect();
        let mut device = json!({
            "id": "emulator:gfx1100", "executor": "emulated gfx1100",
            "identity": {"kind": "emulated", "target": "gfx1100"}, "targets": ["gfx1100"],
            "notes": [], "error": null, "seconds": 0.1, "host": host,
            "exit_code": exit_code, "summary": {}, "cases": cases
        });
        device["summary"] = summary(std::slice::from_ref(&device));
        json!({
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "tool": {"name": "xad-harness", "version": "0.1.0", "git_describe": "v0.1.0-1-gabc"},
            "host": host, "command": ["xad-harness", "run"], "environment": {},
            "seed": seed, "guard_seed": seed ^ 1, "lanes_per_case": 256,
            "executor": "emulated gfx1100", "targets": ["gfx1100"],
            "notes": ["a note"], "exit_code": exit_code,
            "summary": summary(std::slice::from_ref(&device)),
            "devices": [device], "error": null
        })
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
        let inputs = vec![
            (
                "a.json".to_string(),
                report("node1", 7, 0, &["pass", "pass"]),
            ),
            (
                "b.json".to_string(),
                report("node2", 7, 1, &["pass", "fail", "unsettled"]),
            ),
        ];
        for (_, r) in &inputs {
            check_report(r).unwrap();
        }
        let merged = merge_reports(&inputs, None);
        check_report(&merged).unwrap();
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
            "environment": {}, "tool": inputs[1].1["tool"], "error": null})
        );
        assert_eq!(merged["notes"][0], "node1 (a.json): a note");
        assert!(merged["error"].is_null());
    }

    #[test]
    fn a_device_without_a_host_takes_its_report_host() {
        let mut r = report("node9", 1, 0, &["pass"]);
        r["devices"][0]["host"] = json!("own-host");
        let mut bare = report("node9", 1, 0, &["pass"]);
        bare["devices"][0].as_object_mut().unwrap().remove("host");
        let merged = merge_reports(&[("x".into(), r), ("y".into(), bare)], None);
        assert_eq!(merged["devices"][0]["host"], "own-host");
        assert_eq!(merged["devices"][1]["host"], "node9");
    }

    #[test]
    fn differing_seeds_are_allowed_and_listed() {
        let merged = merge_reports(
            &[
                ("a.json".into(), report("n1", 1, 0, &["pass"])),
                ("b.json".into(), report("n2", 2, 0, &["pass"])),
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
        let merged = merge_reports(&[("a".into(), unsettled(77))], None);
        assert_eq!(merged["exit_code"], 77, "{merged:#}");
        let merged = merge_reports(
            &[
                ("a".into(), unsettled(77)),
                ("b".into(), report("gpu2", 1, 0, &["pass"])),
            ],
            None,
        );
        assert_eq!(
            merged["exit_code"], 77,
            "a node that passed nothing is not a pass"
        );
        let claimed = recomputed_exit_code(&unsettled(0)).unwrap_err();
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
        let merged = merge_reports(
            &[
                ("a".into(), report("gpu1", 1, 0, &["pass"])),
                ("b".into(), skipped),
            ],
            None,
        );
        assert_eq!(merged["exit_code"], 77);
        assert_eq!(merged["devices"].as_array().unwrap().len(), 1);
        assert_eq!(merged["error"], "gpu2 (b): no HIP device runs gfx1100");
    }

    #[test]
    fn a_missing_report_is_a_fault() {
        let inputs = [("a".to_string(), report("gpu1", 1, 0, &["pass"]))];
        assert_eq!(merge_reports(&inputs, Some(1))["exit_code"], 0);
        let short = merge_reports(&inputs, Some(2));
        assert_eq!(short["exit_code"], 3);
        assert!(short["error"]
            .as_str()
            .unwrap()
            .contains("expected 2 report(s), got 1"));
        let two = [
            inputs[0].clone(),
            ("b".to_string(), report("gpu2", 1, 0, &["pass"])),
        ];
        let extra = merge_reports(&two, Some(1));
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
            merge_reports(&[("a".into(), failing)], Some(2))["exit_code"],
            1,
            "1 beats 3"
        );
    }

    #[test]
    fn interrupted_inputs_are_listed_and_win() {
        let mut cut = report("gpu3", 1, 143, &["pass", "skipped"]);
        cut["devices"][0]["exit_code"] = json!(0); // a device's code ignores the signal
        cut["interrupted"] = json!({"signal": "SIGTERM", "exit_code": 143});
        let merged = merge_reports(
            &[
                ("a".into(), report("gpu1", 1, 1, &["fail"])),
                ("c".into(), cut),
            ],
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
        let why = check_report(&r).unwrap_err();
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
        refuse(&|r| r["exit_code"] = json!(null), "exit_code");
        refuse(&|r| r["devices"] = json!({}), "no devices array");
        refuse(
            &|r| r["devices"][0]["cases"][0]["status"] = json!("Pass"),
            "status \"Pass\"",
        );
        refuse(
            &|r| {
                r["devices"][0]["cases"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("status");
            },
            "no status",
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
            "devices[0].cases[0]: no \"tally\" field",
        );
        refuse(
            &|r| r["devices"][0]["executor"] = json!("a GPU"),
            "does not match",
        );
        refuse(&|r| r["exit_code"] = json!(137), "137 is not one of");
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

    /// The schema is interpreted by [`conforms`], which knows only some
    /// keywords and patterns: every one the schema uses is among them.
    #[test]
    fn every_keyword_and_pattern_of_the_schema_is_checked() {
        fn walk(node: &Value, at: &str) {
            let Some(rules) = node.as_object() else {
                return;
            };
            for (key, rule) in rules {
                assert!(
                    SCHEMA_KEYWORDS.contains(&key.as_str()),
                    "{at}: keyword {key} unknown"
                );
                match key.as_str() {
                    "properties" | "$defs" => {
                        for (name, inner) in rule.as_object().unwrap() {
                            walk(inner, &format!("{at}/{key}/{name}"));
                        }
                    }
                    "items" | "additionalProperties" => walk(rule, &format!("{at}/{key}")),
                    "oneOf" => {
                        for (i, inner) in rule.as_array().unwrap().iter().enumerate() {
                            walk(inner, &format!("{at}/oneOf/{i}"));
                        }
                    }
                    "pattern" => assert!(
                        matches_pattern(rule.as_str().unwrap(), "x").is_some(),
                        "{at}: pattern {rule} unknown"
                    ),
                    _ => {}
                }
            }
        }
        walk(report_schema(), "#");
    }

    const SUITE_A: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="xad-harness" tests="3" failures="1" errors="0">
    <testsuite name="xad-harness gfx1100" tests="3" errors="0" failures="1" time="0.500">
        <properties>
            <property name="host" value="node1"/>
        </properties>
        <testcase name="basic" classname="xad.gfx1100" time="0.1">
            <system-out>PASS basic &amp; more &lt;ok&gt;</system-out>
        </testcase>
        <testcase name="vgpr" classname="xad.gfx1100" time="0.2">
            <failure message="lane 3 &quot;wrong&quot;" type="mismatch"><![CDATA[lane 3 <got>]]></failure>
        </testcase>
        <testcase name="hi" classname="xad.gfx1100"><skipped message="interrupted"/></testcase>
    </testsuite>
</testsuites>
"#;

    const SUITE_B: &str = r#"<testsuite name="xad-harness gfx1100" tests="2">
  <testcase name="basic" time="0.25"/>
  <testcase name="dpp"><error message="watchdog"/></testcase>
</testsuite>"#;

    #[test]
    fn junit_suites_are_concatenated_with_recounted_totals() {
        let (xml, suites) = merge_junit(&[
            ("reports/1/node1.xml".into(), SUITE_A.into()),
            ("reports/1/node2.xml".into(), SUITE_B.into()),
        ])
        .unwrap();
        assert_eq!(suites, 2);
        assert!(
            xml.contains(r#"<testsuites name="xad-harness" tests="5" failures="1" errors="1" skipped="1" time="0.750">"#),
            "{xml}"
        );
        // The first suite keeps its name; the second, a duplicate, is named by its file.
        assert!(
            xml.contains(r#"<testsuite name="xad-harness gfx1100" tests="3""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="xad-harness gfx1100 [node2]" tests="2">"#),
            "{xml}"
        );
        // Escaped text, attributes and CDATA come through unchanged.
        assert!(xml.contains("PASS basic &amp; more &lt;ok&gt;"), "{xml}");
        assert!(
            xml.contains(r#"message="lane 3 &quot;wrong&quot;""#),
            "{xml}"
        );
        assert!(xml.contains("<![CDATA[lane 3 <got>]]>"), "{xml}");
        assert!(
            xml.contains(r#"<property name="host" value="node1"/>"#),
            "{xml}"
        );
        // And the result is well-formed and merges again.
        let (again, n) = merge_junit(&[("m.xml".into(), xml.clone())]).unwrap();
        assert_eq!(n, 2);
        assert!(
            again.contains(r#"tests="5" failures="1" errors="1" skipped="1" time="0.750""#),
            "{again}"
        );
        assert_eq!(xml.matches("<testsuite ").count(), 2);
        assert_eq!(xml.matches("</testsuites>").count(), 1);
    }

    #[test]
    fn junit_inputs_that_are_not_junit_are_refused() {
        for (xml, want) in [
            ("", "no root element"),
            ("not xml at all", "no root element"),
            ("<html><body/></html>", "root element <html>"),
            (
                "<testsuites><testsuite name=\"a\"></testsuites>",
                "not well-formed",
            ),
            (
                "<testsuites><testsuite name=\"a\">",
                "ends inside an element",
            ),
        ] {
            let e = merge_junit(&[("bad.xml".into(), xml.into())]).unwrap_err();
            assert_eq!(e.exit_code(), exit::USAGE);
            let text = e.to_string();
            assert!(
                text.starts_with("bad.xml: ") && text.contains(want),
                "{xml:?}: {text}"
            );
        }
    }

    #[test]
    fn an_empty_suite_counts_nothing() {
        let (xml, n) = merge_junit(&[(
            "e.xml".into(),
            "<testsuites><testsuite name=\"none\" tests=\"0\"/></testsuites>".into(),
        )])
        .unwrap();
        assert_eq!(n, 1);
        assert!(
            xml.contains(r#"tests="0" failures="0" errors="0" skipped="0" time="0.000""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<testsuite name="none" tests="0"/>"#),
            "{xml}"
        );
    }
}
