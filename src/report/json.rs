//! The JSON report written: a [`RunReport`] as the [`document`](super::document)
//! types, the report's contract. Cases are nested under the device that ran
//! them: a multi-GPU host (or a fleet's merged report, `xad-harness merge`)
//! has one entry per device.

use super::document as doc;
use super::{DeviceRun, RunReport};
use crate::pipeline::run::{CaseResult, KernelSource, NotRun, Status};
use crate::platform::backend::Identity;

/// The JSON Schema (draft 2020-12) of the report (`xad-harness schema`),
/// generated from [`doc::Report`] ([`doc::json_schema`]).
pub const SCHEMA: &str = include_str!("report.schema.json");

/// `report` as the document the JSON report holds.
pub fn document(report: &RunReport) -> doc::Report {
    doc::Report {
        schema: doc::SchemaName,
        schema_version: doc::SchemaVersion,
        tool: doc::Tool::this(),
        host: report.host.clone(),
        command: report.command.clone(),
        environment: report.environment.clone(),
        seed: report.seed,
        seeds: None,
        guard_seed: report.guard_seed,
        lanes_per_case: report.lanes_per_case,
        executor: report.executor.clone(),
        targets: report.targets.clone(),
        notes: report
            .backend_note
            .iter()
            .cloned()
            .chain(
                super::other_generations_line(report)
                    .map(|n| n.trim_start_matches("note: ").to_string()),
            )
            .collect(),
        exit_code: doc::ExitCode::new(report.exit_code()),
        summary: super::summary(&report.cases),
        merged_from: None,
        devices: devices(report),
        error: report.error.as_ref().map(ToString::to_string),
        release_errors: report
            .release_errors
            .iter()
            .map(ToString::to_string)
            .collect(),
        interrupted: report.interrupted.as_ref().map(interrupted),
    }
}

/// `report` as JSON text.
pub fn to_json(report: &RunReport) -> String {
    serde_json::to_string_pretty(&document(report))
        .unwrap_or_else(|e| format!("{{\"error\": \"report serialisation: {e}\"}}"))
}

/// The devices of `report`, each with its cases; cases of a device the
/// report does not list (a report built by hand, in tests) get an entry of
/// their own whose identity says it was not recorded.
fn devices(report: &RunReport) -> Vec<doc::Device> {
    let mut out: Vec<doc::Device> = report
        .devices
        .iter()
        .map(|d| {
            let mut device = device(d, &report.host, report.device_cases(&d.id));
            device.exit_code = doc::ExitCode::new(report.device_exit_code(&d.id));
            device
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
        match out.iter_mut().find(|d| d.id == id) {
            Some(d) => d.cases.push(case(c)),
            None => {
                let run = DeviceRun {
                    id: id.to_string(),
                    executor: c.executor.clone(),
                    identity: Identity::Unrecorded,
                    targets: vec![c.target.clone()],
                    notes: Vec::new(),
                    error: None,
                    seconds: 0.0,
                };
                out.push(device(&run, &report.host, std::iter::once(c)));
            }
        }
    }
    for d in &mut out[report.devices.len()..] {
        let statuses: Vec<Status> = d.cases.iter().map(|c| c.status).collect();
        d.exit_code = doc::ExitCode::new(super::cases_exit_code(statuses.iter().copied()));
        d.summary = doc::Summary::count(statuses);
    }
    out
}

fn device<'a>(
    run: &DeviceRun,
    host: &str,
    cases: impl Iterator<Item = &'a CaseResult>,
) -> doc::Device {
    let cases: Vec<doc::Case> = cases.map(case).collect();
    doc::Device {
        id: run.id.clone(),
        executor: doc::Executor::recorded(&run.executor),
        identity: identity(&run.identity),
        targets: run.targets.clone(),
        notes: run.notes.clone(),
        error: run.error.clone(),
        seconds: run.seconds,
        host: host.to_string(),
        exit_code: doc::ExitCode::new(crate::error::exit::SKIPPED),
        summary: doc::Summary::count(cases.iter().map(|c| c.status)),
        cases,
    }
}

fn identity(identity: &Identity) -> doc::Identity {
    match identity.clone() {
        Identity::Hardware {
            index,
            name,
            gcn_arch_name,
            pci_bus_id,
            compute_units,
            memory_bytes,
            runtime_version,
            driver_version,
        } => doc::Identity::Hardware {
            index,
            name,
            gcn_arch_name,
            pci_bus_id,
            compute_units,
            memory_bytes,
            runtime_version,
            driver_version,
        },
        Identity::Emulated { target } => doc::Identity::Emulated { target },
        Identity::Unrecorded => doc::Identity::Unrecorded,
    }
}

fn case(result: &CaseResult) -> doc::Case {
    let t = &result.tally;
    doc::Case {
        status: result.status(),
        lanes_passed: t
            .lanes_checked
            .saturating_sub(t.lanes_failed)
            .saturating_sub(t.lanes_unsettled),
        case: result.case.clone(),
        description: result.description.clone(),
        kernel: result.kernel.clone(),
        kernel_source: match &result.kernel_source {
            KernelSource::Embedded { source } => doc::KernelSource::Embedded {
                source: source.clone(),
            },
            KernelSource::User { path } => doc::KernelSource::User { path: path.clone() },
        },
        device: result.device.clone(),
        executor: doc::Executor::recorded(&result.executor),
        target: result.target.clone(),
        seed: result.seed,
        guard_seed: result.guard_seed,
        lanes: result.lanes,
        scalars: result.scalars.clone(),
        tally: tally(t),
        pattern: (!result.pattern.is_empty()).then(|| pattern(&result.pattern)),
        guard_violations: result
            .guard_violations
            .iter()
            .map(guard_violation)
            .collect(),
        error: result.error.as_ref().map(ToString::to_string),
        not_run: result.not_run.as_ref().map(|n| match n {
            NotRun::NotSupported(why) => doc::NotRun::NotSupported(why.clone()),
            NotRun::Skipped(why) => doc::NotRun::Skipped(why.clone()),
        }),
        release_errors: result
            .release_errors
            .iter()
            .map(ToString::to_string)
            .collect(),
        seconds: result.seconds,
        unsettled: result.unsettled.clone(),
        forms: result.forms.clone(),
        findings: result.findings.as_ref().map(findings),
    }
}

fn tally(t: &crate::model::check::Tally) -> doc::Tally {
    doc::Tally {
        lanes_checked: t.lanes_checked,
        lanes_failed: t.lanes_failed,
        lanes_unwritten: t.lanes_unwritten,
        lanes_undefined: t.lanes_undefined,
        lanes_unsettled: t.lanes_unsettled,
        words_unsettled: t.words_unsettled,
        first: t.first.iter().map(mismatch).collect(),
        first_unsettled: t.first_unsettled.iter().map(mismatch).collect(),
    }
}

fn mismatch(m: &crate::model::check::Mismatch) -> doc::Mismatch {
    use crate::model::check::FailureKind;
    doc::Mismatch {
        lane: m.lane,
        word: m.word as u64,
        a: m.a,
        b: m.b,
        c: m.c,
        expected: m.expected,
        got: m.got,
        kind: match m.kind {
            FailureKind::Wrong => doc::FailureKind::Wrong,
            FailureKind::Unwritten => doc::FailureKind::Unwritten,
            FailureKind::Undefined => doc::FailureKind::Undefined,
            FailureKind::Unsettled => doc::FailureKind::Unsettled,
        },
        origin: m.origin.clone(),
    }
}

fn guard_violation(g: &crate::pipeline::guard::GuardViolation) -> doc::GuardViolation {
    doc::GuardViolation {
        buffer: g.buffer.clone(),
        side: match g.side {
            crate::pipeline::guard::Side::Before => doc::Side::Before,
            crate::pipeline::guard::Side::After => doc::Side::After,
        },
        word: g.word,
        lane: g.lane,
        nearest_offset: g.nearest_offset,
        words_changed: g.words_changed as u64,
        expected: g.expected,
        got: g.got,
    }
}

/// The lists say nothing the lane count does not when every lane counted
/// passed: empty then, so a passing case costs a few lines.
fn pattern(p: &crate::pipeline::pattern::Pattern) -> doc::Pattern {
    let shown = !p.all_passed();
    let counts = |c: &crate::pipeline::pattern::Counts| doc::Counts {
        pass: c.pass,
        wrong: c.wrong,
        unwritten: c.unwritten,
        undefined: c.undefined,
        unsettled: c.unsettled,
        finding: c.finding,
    };
    let listed = |list: &[u64]| if shown { list.to_vec() } else { Vec::new() };
    doc::Pattern {
        lanes: p.lanes,
        wave_size: p.wave_size,
        lane_classes: match shown {
            true => p.lane_classes.iter().map(counts).collect(),
            false => Vec::new(),
        },
        buckets: match shown {
            true => p
                .buckets
                .iter()
                .map(|b| {
                    let c = counts(&b.counts);
                    doc::Bucket {
                        first_lane: b.first_lane,
                        lanes: b.lanes,
                        pass: c.pass,
                        wrong: c.wrong,
                        unwritten: c.unwritten,
                        undefined: c.undefined,
                        unsettled: c.unsettled,
                        finding: c.finding,
                    }
                })
                .collect(),
            false => Vec::new(),
        },
        wrong_words: p.wrong_words,
        bits_up: listed(&p.bits_up),
        bits_down: listed(&p.bits_down),
        first_lanes: doc::VerdictLetters::recorded(&p.first_lanes),
    }
}

fn findings(f: &crate::pipeline::findings::Findings) -> doc::Findings {
    use crate::pipeline::findings::Verdict;
    let sample = |s: &crate::pipeline::findings::Sample| doc::Sample {
        lane: s.lane,
        a: s.a,
        b: s.b,
        c: s.c,
        got: s.got,
    };
    doc::Findings {
        fields: f
            .fields
            .iter()
            .map(|field| doc::FieldFinding {
                field: field.field.clone(),
                word: field.word as u64,
                lanes: field.lanes,
                verdict: match field.verdict {
                    Verdict::Follows => doc::FindingVerdict::Follows,
                    Verdict::Undecided => doc::FindingVerdict::Undecided,
                    Verdict::Disagree => doc::FindingVerdict::Disagree,
                    Verdict::NoCandidate => doc::FindingVerdict::NoCandidate,
                },
                follows: field.follows.clone(),
                matched: field
                    .matched
                    .iter()
                    .map(|m| doc::ReadingLanes {
                        reading: m.reading.clone(),
                        lanes: m.lanes,
                    })
                    .collect(),
                unmatched: field.unmatched,
                first_unmatched: field.first_unmatched.as_ref().map(sample),
                first_dissenting: field.first_dissenting.as_ref().map(sample),
            })
            .collect(),
        lanes_changed: f.lanes_changed,
        first_changed: f.first_changed.map(|c| doc::Changed {
            lane: c.lane,
            word: c.word as u64,
            first: c.first,
            second: c.second,
        }),
    }
}

fn interrupted(i: &super::Interrupted) -> doc::Interrupted {
    doc::Interrupted {
        signal: match i.signal {
            crate::pipeline::interrupt::Signal::Int => doc::Signal::Sigint,
            crate::pipeline::interrupt::Signal::Term => doc::Signal::Sigterm,
        },
        exit_code: doc::ExitCode::new(i.exit_code),
        cases_completed: i.cases_completed as u64,
        cut_short: i.cut_short.as_ref().map(|c| doc::CutShort {
            case: c.case.clone(),
            target: c.target.clone(),
            lanes_checked: c.lanes_checked,
            lanes: c.lanes,
        }),
        not_run: i.not_run.clone(),
    }
}

impl RunReport {
    /// The JSON report, in the versioned schema ([`SCHEMA`]).
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// The report as the document its JSON holds ([`doc::Report`]).
    pub fn to_document(&self) -> doc::Report {
        document(self)
    }

    /// The HTML page, drawn from the JSON report's document so that `report
    /// REPORT.json --html` on the saved file draws the same page.
    pub fn to_html(&self) -> Result<String, crate::error::Error> {
        Ok(super::html::render(&self.to_document()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::pattern::{Bucket, Counts, Pattern};

    /// In JSON a passing case's lists are empty; a failing case's are whole.
    #[test]
    fn a_passing_case_is_a_few_lines_of_json() {
        let class = Counts {
            pass: 4,
            ..Counts::default()
        };
        let mut p = Pattern {
            lanes: 256,
            wave_size: 32,
            lane_classes: vec![class; 64],
            buckets: vec![Bucket {
                first_lane: 0,
                lanes: 256,
                counts: Counts {
                    pass: 256,
                    ..Counts::default()
                },
            }],
            wrong_words: 0,
            bits_up: vec![0; 32],
            bits_down: vec![0; 32],
            first_lanes: String::new(),
        };
        let passing = pattern(&p);
        assert_eq!(passing.lanes, 256);
        assert!(passing.lane_classes.is_empty() && passing.buckets.is_empty());
        assert!(passing.bits_up.is_empty() && passing.bits_down.is_empty());
        p.lane_classes[36] = Counts {
            pass: 3,
            wrong: 1,
            ..Counts::default()
        };
        p.buckets[0].counts.wrong = 1;
        p.buckets[0].counts.pass = 255;
        p.bits_up[31] = 1;
        p.wrong_words = 1;
        p.first_lanes = format!("{}w", ".".repeat(100));
        let failing = pattern(&p);
        assert_eq!(failing.lane_classes.len(), 64);
        assert_eq!(failing.lane_classes[36].wrong, 1);
        assert_eq!(failing.buckets[0].wrong, 1);
        assert_eq!((failing.bits_up[31], failing.bits_down[31]), (1, 0));
        assert_eq!(failing.first_lanes.as_str().find('w'), Some(100));
    }
}
