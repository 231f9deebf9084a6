//! The JSON report as a document: the types `run --json` and `merge --json`
//! write and `merge` and `report --html` read, schema version 3 (2: the
//! `finding` status and a probe case's `findings`, issue 30; 3: `unsettled`
//! is never a pass and covers a case whose every word is unsettled, which 2
//! called `skipped`, issue 42).
//!
//! These types are the contract, apart from the run's own ([`super::RunReport`],
//! [`crate::pipeline::run::CaseResult`]), so the report changes only on purpose. Every
//! object refuses a field it does not list and requires every field it
//! writes unconditionally; a value with a narrower range than its Rust type
//! (an executor label, an exit code, a pattern's verdict letters) is a type
//! of its own that refuses the rest when read. `report.schema.json` beside
//! this file is generated from them ([`json_schema`]); a test fails when the
//! shipped file and the types differ, and
//! `XAD_UPDATE_SCHEMA=1 cargo test --lib report::document` rewrites it.
//! A change here needs a new [`SCHEMA_VERSION`]. A soak's report and a
//! microbench's are documents of their own ([`soak`], [`microbench`]).

pub mod microbench;
pub mod soak;

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::exit;
use crate::pipeline::run::Status;

/// The `schema` field of every report.
pub const SCHEMA_NAME: &str = "xad-harness/report";
/// Bumped on any change to the shape of the report.
pub const SCHEMA_VERSION: u32 = 3;

/// The JSON Schema (draft 2020-12) of [`Report`], as `report.schema.json`
/// holds it and `xad-harness schema` prints it.
pub fn json_schema() -> String {
    // `format` is an annotation in draft 2020-12: a `u32` field's range is
    // stated, as its deserializer holds it.
    let u32_range = |schema: &mut Schema| {
        if schema.get("format").and_then(serde_json::Value::as_str) == Some("uint32") {
            schema.insert("maximum".into(), u32::MAX.into());
        }
    };
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(schemars::transform::RecursiveTransform(u32_range))
        .into_generator();
    let schema = generator.into_root_schema_for::<Report>();
    serde_json::to_string_pretty(&schema).expect("a schema is JSON") + "\n"
}

/// The JSON report of `xad-harness run --json` (and of `xad-harness merge`). Every result names what executed it: `executor` is `hardware: <device> (<gcnArchName>), HIP runtime <version>` or `emulated <target>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "xad-harness run report",
    extend("$id" = "https://github.com/xad-harness/xad-harness/report.schema.json")
)]
pub struct Report {
    pub schema: SchemaName,
    pub schema_version: SchemaVersion,
    pub tool: Tool,
    /// The machine that ran (or merged) the report.
    pub host: String,
    pub command: Vec<String>,
    /// The environment variables that change what a run sees, as they were set.
    pub environment: BTreeMap<String, String>,
    pub seed: u64,
    /// Set by `xad-harness merge` when the inputs' seeds differ.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Vec<u64>")]
    pub seeds: Option<Vec<u64>>,
    pub guard_seed: u64,
    pub lanes_per_case: u64,
    /// What executed the run, in one line (every device says its own too); empty if nothing ran.
    pub executor: String,
    pub targets: Vec<String>,
    pub notes: Vec<String>,
    pub exit_code: ExitCode,
    pub summary: Summary,
    /// Set by `xad-harness merge`: the reports this one combines.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Vec<MergedFrom>")]
    pub merged_from: Option<Vec<MergedFrom>>,
    pub devices: Vec<Device>,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub release_errors: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Interrupted")]
    pub interrupted: Option<Interrupted>,
}

impl Report {
    /// `value` as a report, or why it is not one this build reads, in one
    /// line: not an xad-harness report, another schema version, or a field
    /// the document does not list or one it requires missing, named with
    /// its place (`devices[0].cases[2]: unknown field "x", expected ...`).
    pub fn from_value(value: serde_json::Value) -> Result<Report, String> {
        check_identity(&value)?;
        serde_path_to_error::deserialize(value)
            .map_err(|e| at_place(e, &format!("the schema of schema_version {SCHEMA_VERSION}")))
    }
}

/// A document's refusal in one line: `does not satisfy <what>: <place>: <why>`.
pub(crate) fn at_place(e: serde_path_to_error::Error<serde_json::Error>, what: &str) -> String {
    let why = e.inner().to_string().replace('`', "\"");
    // An unknown field's path ends in the field (when serde tracks it: not
    // inside an internally tagged enum), which `why` names.
    let mut segments: Vec<_> = e.path().iter().collect();
    let unknown = why
        .strip_prefix("unknown field \"")
        .and_then(|rest| rest.split('"').next());
    if let (Some(field), Some(serde_path_to_error::Segment::Map { key })) =
        (unknown, segments.last())
    {
        if key == field {
            segments.pop();
        }
    }
    let place = place(&segments);
    let place = if place.is_empty() {
        place
    } else {
        place + ": "
    };
    format!("does not satisfy {what}: {place}{why}")
}

/// A place in the document, `devices[0].cases[2].tally`, as a JSON path
/// without its root.
fn place(segments: &[&serde_path_to_error::Segment]) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Seq { index } => out += &format!("[{index}]"),
            Segment::Map { key } if out.is_empty() => out += key,
            Segment::Map { key } => out += &format!(".{key}"),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// What a document must say before its fields are read: that it is an
/// xad-harness report, and of the one schema version this build reads.
fn check_identity(value: &serde_json::Value) -> Result<(), String> {
    let Some(fields) = value.as_object() else {
        return Err("not an xad-harness report (not a JSON object)".into());
    };
    match fields.get("schema").and_then(serde_json::Value::as_str) {
        Some(SCHEMA_NAME) => {}
        Some(other) => {
            return Err(format!(
                "not an xad-harness report (schema {other:?}, expected {SCHEMA_NAME:?})"
            ))
        }
        None => {
            return Err(format!(
                "not a versioned xad-harness report (no \"schema\": {SCHEMA_NAME:?}; rerun with a harness that writes schema_version {SCHEMA_VERSION})"
            ))
        }
    }
    match fields.get("schema_version") {
        Some(v) if *v == SCHEMA_VERSION => Ok(()),
        Some(v) => Err(format!(
            "schema_version {v}, this build reads schema_version {SCHEMA_VERSION}"
        )),
        None => Err("no schema_version".into()),
    }
}

/// The build of xad-harness that wrote a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    #[schemars(extend("const" = "xad-harness"))]
    pub name: String,
    pub version: String,
    pub git_describe: String,
}

impl Tool {
    /// This binary.
    pub fn this() -> Tool {
        Tool {
            name: "xad-harness".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_describe: env!("XAD_GIT_DESCRIBE").into(),
        }
    }
}

/// One device of the run: who it is, what stopped it, and its cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// `hip:<index>`, `emulator:<target>` or `unrecorded`.
    #[schemars(regex(pattern = r"^(hip:[0-9]+|emulator:[a-z0-9-]+|unrecorded|.+)$"))]
    pub id: String,
    pub executor: Executor,
    pub identity: Identity,
    pub targets: Vec<String>,
    /// Why this device ran nothing, or what it could not run.
    pub notes: Vec<String>,
    /// Set when this device's run stopped early (a watchdog timeout).
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    /// Wall time of this device's cases.
    #[schemars(range(min = 0))]
    pub seconds: f64,
    pub host: String,
    pub exit_code: ExitCode,
    pub summary: Summary,
    pub cases: Vec<Case>,
}

/// Who a device is: a HIP device as the runtime describes it, the embedded emulator of one target, or not recorded (a report assembled by hand).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Identity {
    Hardware {
        /// The HIP device index (after `HIP_VISIBLE_DEVICES` renumbering).
        index: u32,
        name: String,
        gcn_arch_name: String,
        /// `DDDD:BB:DD.F`, when the runtime reports it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        #[schemars(with = "String")]
        pci_bus_id: Option<String>,
        compute_units: u32,
        memory_bytes: u64,
        runtime_version: String,
        driver_version: String,
    },
    Emulated {
        target: String,
    },
    Unrecorded,
}

/// One case on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub status: Status,
    /// Lanes by verdict: passed is checked minus failed minus unsettled.
    pub lanes_passed: u64,
    pub case: String,
    pub description: String,
    pub kernel: String,
    pub kernel_source: KernelSource,
    /// The device it ran on, as the report's `devices` name it.
    pub device: String,
    pub executor: Executor,
    /// The target the code object was built for (its target ID's processor).
    pub target: String,
    pub seed: u64,
    pub guard_seed: u64,
    pub lanes: u64,
    pub scalars: Vec<u32>,
    pub tally: Tally,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Pattern")]
    pub pattern: Option<Pattern>,
    pub guard_violations: Vec<GuardViolation>,
    /// Set when the case could not run to the end (device fault, timeout, ...).
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    /// Set when the case has a result but never ran.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "NotRun")]
    pub not_run: Option<NotRun>,
    /// Device resources this case could not give back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub release_errors: Vec<String>,
    #[schemars(range(min = 0))]
    pub seconds: f64,
    #[serde(deserialize_with = "nullable")]
    pub unsettled: Option<String>,
    /// For embedded multi-output kernels: the disassembly of the instruction behind each output word.
    pub forms: Vec<String>,
    /// A probe case run on an executor: per probed field, which candidate reading of the bits the ISA leaves open the device follows (src/model/cases/modifier_readings.rs lists the readings). Absent on the emulator, which checks or marks unsettled those words itself.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Findings")]
    pub findings: Option<Findings>,
}

/// Where the code object of a case came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum KernelSource {
    Embedded { source: String },
    User { path: String },
}

/// Why a case has a result but never ran (or was stopped before its end).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    content = "reason",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum NotRun {
    NotSupported(String),
    Skipped(String),
}

impl NotRun {
    pub fn reason(&self) -> &str {
        match self {
            NotRun::NotSupported(reason) | NotRun::Skipped(reason) => reason,
        }
    }
}

/// A case's lane and word counts, and its first failing and unsettled words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    pub lanes_checked: u64,
    pub lanes_failed: u64,
    pub lanes_unwritten: u64,
    pub lanes_undefined: u64,
    pub lanes_unsettled: u64,
    pub words_unsettled: u64,
    pub first: Vec<Mismatch>,
    pub first_unsettled: Vec<Mismatch>,
}

/// One failing (or unsettled) output word, with everything needed to reproduce it by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mismatch {
    pub lane: u64,
    pub word: u64,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub expected: u32,
    pub got: u32,
    pub kind: FailureKind,
    /// For undefined and unsettled words: what was undefined, and where.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "String")]
    pub origin: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Wrong,
    Unwritten,
    Undefined,
    Unsettled,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Wrong => "wrong",
            FailureKind::Unwritten => "unwritten",
            FailureKind::Undefined => "undefined",
            FailureKind::Unsettled => "unsettled",
        }
    }
}

/// A write the kernel made into a guard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GuardViolation {
    pub buffer: String,
    pub side: Side,
    pub word: i64,
    /// the dispatch's global lane whose words include the changed word, or null when no lane addresses it (a work-item past count, or a wrong address)
    #[serde(deserialize_with = "nullable")]
    pub lane: Option<u64>,
    pub nearest_offset: i64,
    pub words_changed: u64,
    pub expected: u32,
    pub got: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Before,
    After,
}

/// Where the case's verdicts fall, every lane counted in fixed memory (src/pipeline/pattern.rs): lanes by verdict per lane class (global lane index mod 64) and per lane range (64 equal ranges over the case's lanes), the result bits wrong words flipped, and the first 4096 lanes' verdicts when one did not pass. Absent for a case that never dispatched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// The case's lanes, the buckets' basis.
    #[schemars(range(min = 1))]
    pub lanes: u64,
    /// The kernel's wave size: the lane map's row length.
    pub wave_size: u32,
    /// 64 entries, entry c counting the lanes whose global index mod 64 is c; empty when every lane counted passed.
    pub lane_classes: Vec<Counts>,
    /// At most 64 lane ranges, ascending, only non-empty ones; empty when every lane counted passed.
    pub buckets: Vec<Bucket>,
    /// Wrong words counted in bits_up and bits_down (unwritten and undefined words are not: their bits are not the device's arithmetic).
    pub wrong_words: u64,
    /// 32 entries, entry b counting the wrong words where the model has 0 at bit b and the device 1; empty when every lane counted passed.
    pub bits_up: Vec<u64>,
    /// 32 entries, entry b counting the wrong words where the model has 1 at bit b and the device 0; empty when every lane counted passed.
    pub bits_down: Vec<u64>,
    pub first_lanes: VerdictLetters,
}

/// Lanes by verdict (src/pipeline/pattern.rs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub pass: u64,
    pub wrong: u64,
    pub unwritten: u64,
    pub undefined: u64,
    pub unsettled: u64,
    pub finding: u64,
}

/// One lane range of the case: lanes first_lane..first_lane+lanes, by verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bucket {
    pub first_lane: u64,
    #[schemars(range(min = 1))]
    pub lanes: u64,
    pub pass: u64,
    pub wrong: u64,
    pub unwritten: u64,
    pub undefined: u64,
    pub unsettled: u64,
    pub finding: u64,
}

impl Bucket {
    pub fn counts(&self) -> Counts {
        Counts {
            pass: self.pass,
            wrong: self.wrong,
            unwritten: self.unwritten,
            undefined: self.undefined,
            unsettled: self.unsettled,
            finding: self.finding,
        }
    }
}

/// A probe case's findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    pub fields: Vec<FieldFinding>,
    /// lanes with a word that changed between two dispatches of the same inputs (fails the case)
    pub lanes_changed: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Changed")]
    pub first_changed: Option<Changed>,
}

/// What one probe word's lanes showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldFinding {
    /// the modifier field(s) the probe word sets: NEG[i], ABS[i], CLAMP, OPSEL[i], OMOD=v, NEG[i]+ABS[i]
    pub field: String,
    /// the output word of each lane that holds it
    #[schemars(range(min = 1))]
    pub word: u64,
    pub lanes: u64,
    pub verdict: FindingVerdict,
    /// the candidate readings every lane matches
    pub follows: Vec<String>,
    /// lanes per candidate reading (a lane counts for each reading its word matches), zeros left out
    pub matched: Vec<ReadingLanes>,
    pub unmatched: u64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Sample")]
    pub first_unmatched: Option<Sample>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Sample")]
    pub first_dissenting: Option<Sample>,
}

/// follows: every lane matches one reading; undecided: every lane matches the same few readings, which the inputs seen do not tell apart; disagree: no reading matches every lane (fails the case); no_candidate: a lane matches no candidate reading (fails the case)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingVerdict {
    Follows,
    Undecided,
    Disagree,
    NoCandidate,
}

impl FindingVerdict {
    pub fn name(self) -> &'static str {
        match self {
            FindingVerdict::Follows => "follows",
            FindingVerdict::Undecided => "undecided",
            FindingVerdict::Disagree => "disagree",
            FindingVerdict::NoCandidate => "no_candidate",
        }
    }
}

/// Lanes whose word one reading gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadingLanes {
    pub reading: String,
    pub lanes: u64,
}

/// One lane's probe word, with its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub lane: u64,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub got: u32,
}

/// A word that changed between two dispatches of the same inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Changed {
    pub lane: u64,
    pub word: u64,
    pub first: u32,
    pub second: u32,
}

/// How a run that SIGINT or SIGTERM stopped ended: what completed, the case stopped between two of its dispatches (if one was), and what never started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interrupted {
    pub signal: Signal,
    /// The process's exit code: 128 + the signal's number.
    #[schemars(extend("enum" = [130, 143]))]
    pub exit_code: ExitCode,
    pub cases_completed: u64,
    #[serde(deserialize_with = "nullable")]
    pub cut_short: Option<CutShort>,
    pub not_run: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Signal {
    #[serde(rename = "SIGINT")]
    Sigint,
    #[serde(rename = "SIGTERM")]
    Sigterm,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Sigint => "SIGINT",
            Signal::Sigterm => "SIGTERM",
        }
    }
}

/// A case stopped part-way: its checked lanes are in its result, the rest were never dispatched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CutShort {
    pub case: String,
    pub target: String,
    pub lanes_checked: u64,
    pub lanes: u64,
}

/// One input of a merged report: what it recorded of its own run, so that each node can be replayed with its own seed and environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MergedFrom {
    pub file: String,
    pub host: String,
    pub exit_code: ExitCode,
    /// How many devices the input had.
    pub devices: u64,
    pub executor: String,
    pub seed: u64,
    pub guard_seed: u64,
    pub lanes_per_case: u64,
    pub environment: BTreeMap<String, String>,
    pub tool: Tool,
    #[serde(deserialize_with = "nullable")]
    pub error: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    #[schemars(with = "Interrupted")]
    pub interrupted: Option<Interrupted>,
}

/// Cases per status, every status present.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub error: u64,
    pub fail: u64,
    pub finding: u64,
    pub not_supported: u64,
    pub pass: u64,
    pub skipped: u64,
    pub timeout: u64,
    pub unsettled: u64,
}

impl Summary {
    /// Cases per status.
    pub fn count(statuses: impl IntoIterator<Item = Status>) -> Summary {
        let mut summary = Summary::default();
        for status in statuses {
            *summary.get_mut(status) += 1;
        }
        summary
    }

    fn get_mut(&mut self, status: Status) -> &mut u64 {
        match status {
            Status::Pass => &mut self.pass,
            Status::Fail => &mut self.fail,
            Status::Unsettled => &mut self.unsettled,
            Status::Finding => &mut self.finding,
            Status::NotSupported => &mut self.not_supported,
            Status::Error => &mut self.error,
            Status::Timeout => &mut self.timeout,
            Status::Skipped => &mut self.skipped,
        }
    }

    pub fn get(&self, status: Status) -> u64 {
        let mut copy = *self;
        *copy.get_mut(status)
    }

    /// Each status with its count, in the summary's (alphabetical) order.
    pub fn entries(&self) -> [(&'static str, u64); 8] {
        [
            ("error", self.error),
            ("fail", self.fail),
            ("finding", self.finding),
            ("not_supported", self.not_supported),
            ("pass", self.pass),
            ("skipped", self.skipped),
            ("timeout", self.timeout),
            ("unsettled", self.unsettled),
        ]
    }
}

impl std::fmt::Display for Summary {
    /// As JSON, for an error line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| std::fmt::Error)?)
    }
}

impl JsonSchema for Status {
    fn schema_name() -> Cow<'static, str> {
        "Status".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
        json_schema!({
            "enum": names,
            "description": "pass: every lane checked matched; fail: a lane wrong, unwritten or undefined, or a guard word changed; unsettled: no failure, and some words (or all of them) rest on behaviour the ISA guides leave open: never a pass (exit 77 unless another case passed; JUnit skipped); finding: a probe case (modifiers_w32/_w64) run on an executor (hardware, or the emulated HIP library): no lane failed and every probed field's lanes agree on the readings they follow, listed in findings; what the device does with bits the ISA leaves open, never a pass or a fail of the ISA (exit 0); not_supported: the target or device lacks what the case needs (nothing ran); error: a device, runtime or emulator fault; timeout: the watchdog fired; skipped: not run or stopped part-way (signal, or after a timeout on this device), or ran to its end with nothing verified and nothing unsettled (no not_run, lanes_passed 0: every word one the kernel must leave unwritten); exit 0 needs a case that passed (or gave a finding) and none that failed"
        })
    }
}

/// A field written only when it applies: absent or a value, never `null`
/// (serde's derive would take `null` for `None`; the schema does not).
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A `null` or a value, required all the same (serde's derive takes a
/// missing `Option` field for `None`; the report always writes these).
pub(crate) fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Option::deserialize(deserializer)
}

/// A unit type for a string field that holds one value (`schema`, a soak's
/// `command`): written as that string, and read only from it.
macro_rules! literal {
    ($(#[$doc:meta])* $name:ident = $value:expr, field $field:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                if text == $value {
                    Ok($name)
                } else {
                    Err(serde::de::Error::custom(format!(
                        "{} {text:?}, expected {:?}",
                        $field, $value
                    )))
                }
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn inline_schema() -> bool {
                true
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "const": $value })
            }
        }
    };
}
pub(crate) use literal;

literal!(
    /// The report's `schema`: [`SCHEMA_NAME`].
    SchemaName = SCHEMA_NAME, field "schema"
);

/// The report's `schema_version`: [`SCHEMA_VERSION`], the only one this build reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(SCHEMA_VERSION)
    }
}

impl<'de> Deserialize<'de> for SchemaVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = serde_json::Value::deserialize(deserializer)?;
        if version == SCHEMA_VERSION {
            Ok(SchemaVersion)
        } else {
            Err(serde::de::Error::custom(format!(
                "schema_version {version}, this build reads schema_version {SCHEMA_VERSION}"
            )))
        }
    }
}

impl JsonSchema for SchemaVersion {
    fn schema_name() -> Cow<'static, str> {
        "SchemaVersion".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": SCHEMA_VERSION })
    }
}

/// A documented exit code (docs/exit-codes.md); another is refused when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i32")]
pub struct ExitCode(i32);

impl ExitCode {
    pub const DOCUMENTED: [i32; 7] = [
        exit::PASS,
        exit::MISMATCH,
        exit::USAGE,
        exit::FAULT,
        exit::SKIPPED,
        exit::SIGINT,
        exit::SIGTERM,
    ];

    /// `code` when documented; any other is a fault (3), as
    /// [`super::combine_exit_codes`] counts it.
    pub fn new(code: i32) -> ExitCode {
        ExitCode(if Self::DOCUMENTED.contains(&code) {
            code
        } else {
            exit::FAULT
        })
    }

    pub fn get(self) -> i32 {
        self.0
    }
}

impl TryFrom<i64> for ExitCode {
    type Error = String;

    fn try_from(code: i64) -> Result<Self, String> {
        match i32::try_from(code) {
            Ok(code) if Self::DOCUMENTED.contains(&code) => Ok(ExitCode(code)),
            _ => Err(format!(
                "exit code {code} is not one of {:?} (docs/exit-codes.md)",
                Self::DOCUMENTED
            )),
        }
    }
}

impl From<ExitCode> for i32 {
    fn from(code: ExitCode) -> i32 {
        code.0
    }
}

impl std::fmt::Display for ExitCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl JsonSchema for ExitCode {
    fn schema_name() -> Cow<'static, str> {
        "ExitCode".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "integer",
            "enum": Self::DOCUMENTED,
            "description": "A documented exit code (docs/exit-codes.md)."
        })
    }
}

/// A string type whose values a rule narrows (the schema's `pattern`):
/// written as it is, and refused when read if `$check` refuses it.
macro_rules! checked_text {
    ($(#[$doc:meta])* $name:ident, pattern $pattern:literal, check $check:expr, description $description:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// The text a run recorded, as it is: the writer does not
            /// refuse its own results (a reader of the report does).
            pub fn recorded(text: &str) -> $name {
                $name(text.to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;

            fn try_from(text: String) -> Result<Self, String> {
                let check: fn(&str) -> Result<(), String> = $check;
                check(&text).map(|()| $name(text))
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> String {
                value.0
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "description": $description
                })
            }
        }
    };
}

checked_text!(
    /// What executed a result: `hardware: ...` or `emulated <target>`, one line.
    Executor,
    pattern "^(hardware: .+|emulated .+)$",
    // `.` is any character but a line terminator (ECMA-262).
    check |label| {
        let one_line = |t: &str| !t.is_empty() && !t.contains(['\n', '\r', '\u{2028}', '\u{2029}']);
        let rest = label
            .strip_prefix("hardware: ")
            .or_else(|| label.strip_prefix("emulated "));
        match rest.is_some_and(one_line) {
            true => Ok(()),
            false => Err(format!("executor {label:?} does not match ^(hardware: .+|emulated .+)$")),
        }
    },
    description "What executed a result: `hardware: ...` or `emulated <target>`."
);

checked_text!(
    /// A pattern's first lanes, one letter per lane: `.` pass, `w` wrong,
    /// `u` unwritten, `d` undefined, `s` unsettled, `f` finding.
    VerdictLetters,
    pattern "^[.wudsf]*$",
    check |letters| match letters.chars().find(|c| !".wudsf".contains(*c)) {
        None => Ok(()),
        Some(c) => Err(format!("first_lanes holds {c:?}, not one of the verdict letters \".wudsf\"")),
    },
    description "At most 4096 letters, one per lane for the first min(lanes, 4096) lanes: . pass, w wrong, u unwritten, d undefined, s unsettled, f finding (lanes at or past tally.lanes_checked were not checked); empty when all of them passed."
);

/// Complete documents for unit tests, spelled once: a field added to the
/// types is added here (the compiler says where), and every test that
/// builds a report from these has it.
#[cfg(test)]
pub(crate) mod fixture {
    use super::*;

    /// A case of `lanes` lanes on the emulated gfx1100, with `status`; its
    /// lanes all passed when it is `pass`, none otherwise.
    pub fn case(name: &str, status: Status, lanes: u64, seed: u64) -> Case {
        let passed = if status == Status::Pass { lanes } else { 0 };
        Case {
            status,
            lanes_passed: passed,
            case: name.into(),
            description: String::new(),
            kernel: "xad_basic".into(),
            kernel_source: KernelSource::Embedded {
                source: "kernels/cases/xad_basic.s".into(),
            },
            device: "emulator:gfx1100".into(),
            executor: Executor::recorded("emulated gfx1100"),
            target: "gfx1100".into(),
            seed,
            guard_seed: seed ^ 1,
            lanes,
            scalars: Vec::new(),
            tally: Tally {
                lanes_checked: passed,
                lanes_failed: 0,
                lanes_unwritten: 0,
                lanes_undefined: 0,
                lanes_unsettled: 0,
                words_unsettled: 0,
                first: Vec::new(),
                first_unsettled: Vec::new(),
            },
            pattern: None,
            guard_violations: Vec::new(),
            error: None,
            not_run: None,
            release_errors: Vec::new(),
            seconds: 0.01,
            unsettled: None,
            forms: Vec::new(),
            findings: None,
        }
    }

    /// One emulated gfx1100 device on `host` holding `cases`, its summary
    /// counted and its exit code `exit_code`.
    pub fn device(host: &str, exit_code: i32, cases: Vec<Case>) -> Device {
        Device {
            id: "emulator:gfx1100".into(),
            executor: Executor::recorded("emulated gfx1100"),
            identity: Identity::Emulated {
                target: "gfx1100".into(),
            },
            targets: vec!["gfx1100".into()],
            notes: Vec::new(),
            error: None,
            seconds: 0.1,
            host: host.into(),
            exit_code: ExitCode::new(exit_code),
            summary: Summary::count(cases.iter().map(|c| c.status)),
            cases,
        }
    }

    /// A run report of `devices` from `host`, its summary counted and its
    /// exit code `exit_code`.
    pub fn report(host: &str, seed: u64, exit_code: i32, devices: Vec<Device>) -> Report {
        Report {
            schema: SchemaName,
            schema_version: SchemaVersion,
            tool: Tool {
                name: "xad-harness".into(),
                version: "0.1.0".into(),
                git_describe: "v0.1.0-1-gabc".into(),
            },
            host: host.into(),
            command: vec!["xad-harness".into(), "run".into()],
            environment: BTreeMap::new(),
            seed,
            seeds: None,
            guard_seed: seed ^ 1,
            lanes_per_case: 256,
            executor: "emulated gfx1100".into(),
            targets: vec!["gfx1100".into()],
            notes: Vec::new(),
            exit_code: ExitCode::new(exit_code),
            summary: Summary::count(devices.iter().flat_map(|d| &d.cases).map(|c| c.status)),
            merged_from: None,
            devices,
            error: None,
            release_errors: Vec::new(),
            interrupted: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &str = "src/report/report.schema.json";

    /// `report.schema.json` is generated from these types: a field added,
    /// removed or changed here without regenerating it fails this test
    /// (`XAD_UPDATE_SCHEMA=1 cargo test --lib report::document` rewrites it).
    #[test]
    fn the_shipped_schema_is_the_one_the_types_generate() {
        let generated = json_schema();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED);
        if std::env::var_os("XAD_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let shipped = std::fs::read_to_string(&path).unwrap();
        assert!(
            shipped == generated,
            "{SHIPPED} differs from the schema the types in src/report/document.rs generate; \
             regenerate it with `XAD_UPDATE_SCHEMA=1 cargo test --lib report::document` \
             (and bump SCHEMA_VERSION if the report's shape changed)"
        );
    }
}
