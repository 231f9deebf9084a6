//! JUnit XML for CI dashboards, written via `quick-junit`; [`read`] reads
//! a fleet's JUnit reports back and joins them (`merge`).

mod read;

pub use read::merge_junit;

use super::RunReport;
use crate::pipeline::run::{JunitKind, Status};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

/// One testsuite per device (`xad-harness <device id>`, e.g. `xad-harness
/// hip:1` or `xad-harness emulator:gfx1201`), each with the run's properties
/// and its device's identity; one suite named `xad-harness` when nothing ran.
/// Statuses map as [`Status::junit`] says: fail is a failure, error and
/// timeout are errors, unsettled, not_supported and skipped are skipped (an
/// unsettled case's message says how many words of how many, and why),
/// finding is a success with properties.
pub fn to_junit(report: &RunReport) -> String {
    let mut junit = Report::new("xad-harness");
    let mut devices: Vec<Option<&str>> =
        report.devices.iter().map(|d| Some(d.id.as_str())).collect();
    for c in &report.cases {
        if !devices.contains(&Some(c.device.as_str())) {
            devices.push(Some(c.device.as_str()));
        }
    }
    if devices.is_empty() {
        devices.push(None);
    }
    for (i, device) in devices.iter().enumerate() {
        junit.add_test_suite(suite(report, *device, i + 1 == devices.len()));
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- junit serialisation failed: {e} -->"))
}

/// The suite of device `id`'s cases (no case when `None`); the cases never
/// run because of a signal go in the `last` suite.
fn suite(report: &RunReport, id: Option<&str>, last: bool) -> TestSuite {
    let name = match id {
        Some(id) if !id.is_empty() => format!("xad-harness {id}"),
        _ => "xad-harness".to_string(),
    };
    let mut suite = TestSuite::new(name);
    let device = id.and_then(|id| report.devices.iter().find(|d| d.id == id));
    if let Some(d) = device {
        suite.add_property(Property::new("device", d.id.as_str()));
        suite.add_property(Property::new("executor", d.executor.as_str()));
        suite.add_property(Property::new("targets", d.targets.join(",")));
        if let Ok(identity) = serde_json::to_string(&d.identity) {
            suite.add_property(Property::new("identity", identity));
        }
        for n in &d.notes {
            suite.add_property(Property::new("device_note", n.as_str()));
        }
    } else {
        suite.add_property(Property::new("executor", report.executor.as_str()));
    }
    suite.add_property(Property::new("host", report.host.as_str()));
    suite.add_property(Property::new("seed", report.seed.to_string()));
    suite.add_property(Property::new("guard_seed", report.guard_seed.to_string()));
    suite.add_property(Property::new(
        "lanes_per_case",
        report.lanes_per_case.to_string(),
    ));
    if let Some(note) = &report.backend_note {
        suite.add_property(Property::new("backend_note", note.as_str()));
    }
    for e in &report.release_errors {
        suite.add_property(Property::new("release_error", e.to_string()));
    }
    if let Some(i) = &report.interrupted {
        suite.add_property(Property::new("interrupted", i.signal.name()));
        suite.add_property(Property::new("interrupted_summary", i.line()));
    }
    let cases = report
        .cases
        .iter()
        .filter(|r| id.is_some_and(|id| r.device == id));
    for r in cases {
        suite.add_test_case(test_case(report, r));
    }
    for (name, i) in report
        .interrupted
        .iter()
        .filter(|_| last)
        .flat_map(|i| i.not_run.iter().map(move |n| (n, i)))
    {
        let mut status = TestCaseStatus::skipped();
        status.set_message(format!("not run: interrupted by {}", i.signal.name()));
        let mut case = TestCase::new(name.as_str(), status);
        case.set_classname("xad-harness");
        suite.add_test_case(case);
    }
    suite
}

/// One case's testcase: its status mapped onto JUnit, its lines as output.
fn test_case(report: &RunReport, r: &crate::pipeline::run::CaseResult) -> TestCase {
    let lines = super::case_lines(r);
    let on = super::text::executed_on(r);
    let cut = report
        .interrupted
        .as_ref()
        .and_then(|i| i.cut_short.as_ref())
        .is_some_and(|c| c.case == r.case && c.target == r.target);
    let status = r.status();
    let mut s = match status.junit() {
        JunitKind::Success => TestCaseStatus::success(),
        JunitKind::Failure => TestCaseStatus::non_success(NonSuccessKind::Failure),
        JunitKind::Error => TestCaseStatus::non_success(NonSuccessKind::Error),
        JunitKind::Skipped => TestCaseStatus::skipped(),
    };
    let inconsistent = r.findings.as_ref().and_then(|f| f.failure());
    let message = match status {
        Status::Pass | Status::Finding => None,
        Status::Unsettled => Some(format!(
            "unsettled: {}: {}",
            super::text::unsettled_count(r),
            super::text::why_unsettled(r)
        )),
        Status::Fail if r.tally.lanes_failed == 0 && r.guard_violations.is_empty() => {
            inconsistent.map(|why| format!("the device disagrees with itself: {why} on {on}"))
        }
        Status::Fail => {
            let undefined = match r.tally.lanes_undefined {
                0 => String::new(),
                n => format!(" ({n} undefined)"),
            };
            Some(format!(
                "{} of {} lanes failed{undefined} on {on}",
                r.tally.lanes_failed, r.tally.lanes_checked
            ))
        }
        Status::Error | Status::Timeout => r.error.as_ref().map(ToString::to_string),
        Status::Skipped if cut => Some(format!(
            "interrupted after {} of {} lanes (every checked lane passed)",
            r.tally.lanes_checked, r.lanes
        )),
        Status::Skipped if r.not_run.is_none() => r
            .nothing_verified()
            .map(|why| format!("nothing verified: {why}")),
        Status::NotSupported | Status::Skipped => r.not_run.as_ref().map(|n| match n {
            crate::pipeline::run::NotRun::NotSupported(why) => format!("not supported: {why}"),
            crate::pipeline::run::NotRun::Skipped(why) => format!("skipped: {why}"),
        }),
    };
    if let (Some(m), JunitKind::Failure | JunitKind::Error | JunitKind::Skipped) =
        (message, status.junit())
    {
        s.set_message(m);
        if status.junit() != JunitKind::Skipped {
            s.set_description(lines.join("\n"));
        }
    }
    if status == Status::Timeout {
        s.set_type("timeout");
    }
    let mut case = TestCase::new(r.case.as_str(), s);
    case.add_property(Property::new("status", status.name()));
    add_verdict_properties(&mut case, r);
    case.set_classname(format!("xad-harness.{}.{}", r.target, r.kernel));
    case.set_time(std::time::Duration::from_secs_f64(r.seconds));
    case.set_system_out(format!("executor: {on}\n{}", lines.join("\n")));
    case
}

/// The properties CI dashboards show beside the status: the unsettled
/// counts (neither pass nor fail) and a probe case's findings.
fn add_verdict_properties(case: &mut TestCase, r: &crate::pipeline::run::CaseResult) {
    if r.tally.words_unsettled > 0 {
        // Neither pass nor fail: a property CI dashboards can show beside the status.
        case.add_property(Property::new(
            "unsettled_lanes",
            r.tally.lanes_unsettled.to_string(),
        ));
        case.add_property(Property::new(
            "unsettled_words",
            r.tally.words_unsettled.to_string(),
        ));
    }
    if let Some(f) = &r.findings {
        // What the device does with the bits the ISA leaves open, one
        // property per probed field: `finding.NEG[1]` = `sign bit flipped, ...`.
        for field in &f.fields {
            let line = field.line();
            let value = line.split_once(": ").map_or(line.as_str(), |(_, v)| v);
            case.add_property(Property::new(format!("finding.{}", field.field), value));
        }
        case.add_property(Property::new(
            "findings_lanes_changed",
            f.lanes_changed.to_string(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::interrupt::Signal;
    use crate::report::{CutShort, Interrupted};

    /// With `--target all` one case name runs once per target: only the run
    /// a signal cut short is skipped, in its own target's suite.
    #[test]
    fn the_cut_short_case_is_skipped_in_its_own_targets_suite_only() {
        let mut report = RunReport::new(9, 64);
        report.targets = vec!["gfx1100".into(), "gfx1151".into()];
        for t in &report.targets {
            let mut r = super::super::text::tests::result(false, None);
            r.target = t.clone();
            r.device = format!("emulator:{t}");
            if t == "gfx1151" {
                r.tally.lanes_checked = 32; // stopped there by the signal
            }
            report.cases.push(r);
        }
        let mut interrupted = Interrupted::new(Signal::Int);
        interrupted.cut_short = Some(CutShort {
            case: "basic".into(),
            target: "gfx1151".into(),
            lanes_checked: 32,
            lanes: 64,
        });
        report.interrupted = Some(interrupted);
        let xml = to_junit(&report);
        assert_eq!(xml.matches("<skipped").count(), 1, "{xml}");
        let gfx1151 = &xml[xml.find("name=\"xad-harness emulator:gfx1151\"").unwrap()..];
        assert!(gfx1151.contains("<skipped"), "{xml}");
    }
}
