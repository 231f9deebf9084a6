//! A soak's report (`soak --json`, drawn by `soak --html` and `report
//! SOAK.json --html`): what ran, how fast, which hardware units ran waves,
//! and each re-checked lane that did not come out clean. Its fields are in
//! alphabetical order, the order the report has always had. A soak that
//! could not start writes only its request, error and exit code
//! ([`NotStarted`]).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{literal, nullable, present};

literal!(
    /// A soak report's `command`: `"soak"`.
    SoakCommand = "soak", field "command"
);

/// A soak's report: one that ran, or one that could not start.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SoakReport {
    Ran(Box<Soak>),
    NotStarted(NotStarted),
}

impl SoakReport {
    /// `value` as a soak's report, or why it is not one: a soak that ran
    /// has a `timeline`.
    pub fn from_value(value: serde_json::Value) -> Result<SoakReport, String> {
        let ran = value.get("timeline").is_some();
        let report = match ran {
            true => serde_path_to_error::deserialize(value).map(|s| SoakReport::Ran(Box::new(s))),
            false => serde_path_to_error::deserialize(value).map(SoakReport::NotStarted),
        };
        report.map_err(|e| super::at_place(e, "a soak's report"))
    }

    /// The report as one that ran: a soak that could not start ran nothing
    /// (no executor, no dispatch, no unit) and keeps its seed, error and code.
    pub fn as_ran(&self) -> std::borrow::Cow<'_, Soak> {
        match self {
            SoakReport::Ran(soak) => std::borrow::Cow::Borrowed(soak),
            SoakReport::NotStarted(n) => std::borrow::Cow::Owned(Soak {
                seed: n.seed,
                dispatches: n.dispatches,
                error: Some(n.error.clone()),
                exit_code: n.exit_code,
                ..Soak::default()
            }),
        }
    }
}

/// A soak that could not start (no device, no kernel, a runtime that
/// failed before the first dispatch): the request, the error and its code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotStarted {
    pub command: SoakCommand,
    pub dispatches: u64,
    pub error: String,
    pub exit_code: i32,
    pub seed: u64,
}

/// A soak that ran (to its end, or until a signal or an error stopped it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Soak {
    pub checksum_only: u64,
    pub command: SoakCommand,
    pub confirmed: u64,
    /// Waves per unit, by name (`SE0.SA1.WGP3`).
    pub coverage: BTreeMap<String, u64>,
    /// Mismatching lane-iterations the device counted.
    pub device_mismatches: u64,
    pub dispatches: u64,
    #[serde(deserialize_with = "nullable")]
    pub emulated_compute_units: Option<u32>,
    /// The error that stopped the soak early.
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    pub executor: String,
    pub exit_code: i32,
    pub findings: Vec<Finding>,
    #[serde(deserialize_with = "nullable")]
    pub interrupted: Option<String>,
    pub lanes_rechecked: u64,
    pub max_shape: [u64; 2],
    pub min_shape: [u64; 2],
    /// Next input index after the last dispatch.
    pub next_index: u64,
    /// Device memory the device would not give back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub release_errors: Vec<String>,
    /// Compute units the runtime reports (`null` on the emulator).
    #[serde(deserialize_with = "nullable")]
    pub runtime_compute_units: Option<u32>,
    pub seconds: f64,
    pub seed: u64,
    pub target: String,
    /// After a dispatch, `[elapsed seconds, dispatches, lane-iterations]`
    /// so far; at most 512 samples, evenly spread.
    pub timeline: Vec<[f64; 3]>,
    /// Per unit, the iterations in which one of its waves had a mismatch.
    pub unit_mismatches: BTreeMap<String, u64>,
    pub unreproduced: u64,
    pub xads: u64,
    pub xads_per_second: f64,
}

/// One re-checked lane that did not come out clean, with the host's verdict
/// (`unreproduced` names what the seed gives: `a`, `b`, `c`, and `why`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "u32")]
    pub a: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "u32")]
    pub b: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "u32")]
    pub c: Option<u32>,
    pub dispatch: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "u32")]
    pub expected: Option<u32>,
    /// The input index of the recorded iteration (hi:lo), or of iteration 0.
    pub index: u64,
    #[serde(deserialize_with = "nullable")]
    pub iteration: Option<u32>,
    /// Global lane in the dispatch.
    pub lane: u64,
    pub record: Record,
    pub verdict: Verdict,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "String")]
    pub why: Option<String>,
}

/// One lane's record, as the soak kernel stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub a: u32,
    pub b: u32,
    pub c: u32,
    /// What the independent check computed.
    pub check: u32,
    pub checksum: u32,
    pub first_iteration: u32,
    pub got: u32,
    pub mismatches: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Clean,
    Confirmed,
    ChecksumOnly,
    Unreproduced,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Confirmed => "confirmed",
            Verdict::ChecksumOnly => "checksum_only",
            Verdict::Unreproduced => "unreproduced",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A soak's report reads as its document and writes back byte for byte;
    /// a field the document does not list is refused, naming its place.
    #[test]
    fn a_soak_report_reads_and_writes_back_the_same() {
        let example = include_str!("soak_example.json");
        let value: serde_json::Value = serde_json::from_str(example).unwrap();
        let read = SoakReport::from_value(value.clone()).unwrap();
        assert!(matches!(read, SoakReport::Ran(_)));
        assert_eq!(
            serde_json::to_string_pretty(&read).unwrap(),
            example.trim_end()
        );
        let mut extra = value;
        extra["findings"][3]["record"]["lane"] = serde_json::json!(1);
        let why = SoakReport::from_value(extra).unwrap_err();
        assert!(
            why.contains("findings[3].record: unknown field \"lane\""),
            "{why}"
        );
    }
}
