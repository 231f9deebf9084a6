//! The JSON report, schema version 3 (2: the `finding` status and a probe
//! case's `findings`, issue 30; 3: `unsettled` is never a pass and covers a
//! case whose every word is unsettled, which 2 called `skipped`, issue 42). The wire format is these borrowed
//! structs, not the internal [`RunReport`], so the schema changes only on
//! purpose: `report.schema.json` beside this file describes exactly what
//! they write (tests/cli/report_schema.rs validates real reports against it),
//! and a change to either needs a new [`SCHEMA_VERSION`].
//!
//! Cases are nested under the device that ran them: a multi-GPU host (or a
//! fleet's merged report, `xad-harness merge`) has one entry per device.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{DeviceRun, Interrupted, RunReport};
use crate::backend::Identity;
use crate::error::as_text;
use crate::run::{CaseResult, Status};

/// The `schema` field of every report.
pub const SCHEMA_NAME: &str = "xad-harness/report";
/// Bumped on any change to the shape of the report.
pub const SCHEMA_VERSION: u32 = 3;
/// The JSON Schema (draft 2020-12) of the report (`xad-harness schema`).
pub const SCHEMA: &str = include_str!("report.schema.json");

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
    git_describe: &'static str,
}

#[derive(Serialize)]
struct Report<'a> {
    schema: &'static str,
    schema_version: u32,
    tool: Tool,
    host: &'a str,
    command: &'a [String],
    environment: &'a BTreeMap<String, String>,
    seed: u64,
    guard_seed: u64,
    lanes_per_case: u64,
    /// What executed the run, in one line (every device says its own too).
    executor: &'a str,
    targets: &'a [String],
    notes: Vec<String>,
    exit_code: i32,
    summary: BTreeMap<&'static str, usize>,
    devices: Vec<Device<'a>>,
    #[serde(serialize_with = "as_text::option")]
    error: Option<&'a crate::error::RunError>,
    #[serde(
        serialize_with = "as_text::list",
        skip_serializing_if = "<[_]>::is_empty"
    )]
    release_errors: &'a [crate::error::ReleaseError],
    #[serde(skip_serializing_if = "Option::is_none")]
    interrupted: Option<&'a Interrupted>,
}

#[derive(Serialize)]
struct Device<'a> {
    #[serde(flatten)]
    run: std::borrow::Cow<'a, DeviceRun>,
    host: &'a str,
    exit_code: i32,
    summary: BTreeMap<&'static str, usize>,
    cases: Vec<Case<'a>>,
}

#[derive(Serialize)]
struct Case<'a> {
    status: Status,
    /// Lanes by verdict: passed is checked minus failed minus unsettled.
    lanes_passed: u64,
    #[serde(flatten)]
    result: &'a CaseResult,
}

fn case(result: &CaseResult) -> Case<'_> {
    let t = &result.tally;
    Case {
        status: result.status(),
        lanes_passed: t
            .lanes_checked
            .saturating_sub(t.lanes_failed)
            .saturating_sub(t.lanes_unsettled),
        result,
    }
}

/// The devices of `report`, each with its cases; cases of a device the
/// report does not list (a report built by hand, in tests) get an entry of
/// their own whose identity says it was not recorded.
fn devices(report: &RunReport) -> Vec<Device<'_>> {
    let mut out: Vec<Device<'_>> = report
        .devices
        .iter()
        .map(|d| Device {
            run: std::borrow::Cow::Borrowed(d),
            host: &report.host,
            exit_code: report.device_exit_code(&d.id),
            summary: super::summary(report.device_cases(&d.id)),
            cases: report.device_cases(&d.id).map(case).collect(),
        })
        .collect();
    for c in &report.cases {
        if report.devices.iter().any(|d| d.id == c.device) {
            continue;
        }
        let id = if c.device.is_empty() {
            "unrecorded"
        } else {
            &c.device
        };
        match out.iter_mut().find(|d| d.run.id == id) {
            Some(d) => d.cases.push(case(c)),
            None => out.push(Device {
                run: std::borrow::Cow::Owned(DeviceRun {
                    id: id.to_string(),
                    executor: c.executor.clone(),
                    identity: Identity::Unrecorded,
                    targets: vec![c.target.clone()],
                    notes: Vec::new(),
                    error: None,
                    seconds: 0.0,
                }),
                host: &report.host,
                exit_code: 0,
                summary: BTreeMap::new(),
                cases: vec![case(c)],
            }),
        }
    }
    for d in out
        .iter_mut()
        .filter(|d| matches!(d.run, std::borrow::Cow::Owned(_)))
    {
        let statuses: Vec<Status> = d.cases.iter().map(|c| c.status).collect();
        d.exit_code = super::cases_exit_code(statuses);
        d.summary = super::summary(d.cases.iter().map(|c| c.result));
    }
    out
}

pub fn to_json(report: &RunReport) -> String {
    let wire = Report {
        schema: SCHEMA_NAME,
        schema_version: SCHEMA_VERSION,
        tool: Tool {
            name: "xad-harness",
            version: env!("CARGO_PKG_VERSION"),
            git_describe: env!("XAD_GIT_DESCRIBE"),
        },
        host: &report.host,
        command: &report.command,
        environment: &report.environment,
        seed: report.seed,
        guard_seed: report.guard_seed,
        lanes_per_case: report.lanes_per_case,
        executor: &report.executor,
        targets: &report.targets,
        notes: report
            .backend_note
            .iter()
            .cloned()
            .chain(
                super::other_generations_line(report)
                    .map(|n| n.trim_start_matches("note: ").to_string()),
            )
            .collect(),
        exit_code: report.exit_code(),
        summary: super::summary(&report.cases),
        devices: devices(report),
        error: report.error.as_ref(),
        release_errors: &report.release_errors,
        interrupted: report.interrupted.as_ref(),
    };
    serde_json::to_string_pretty(&wire)
        .unwrap_or_else(|e| format!("{{\"error\": \"report serialisation: {e}\"}}"))
}
