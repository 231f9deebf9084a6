//! JUnit XML for CI dashboards, via `quick-junit`.

use super::RunReport;
use crate::run::Status;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

/// One testsuite per target the run covered (`xad-harness <target>`), each
/// with the run's properties; one suite named `xad-harness` when nothing ran.
pub fn to_junit(report: &RunReport) -> String {
    let mut junit = Report::new("xad-harness");
    let targets: Vec<Option<&str>> = match report.targets.as_slice() {
        [] => vec![None],
        many => many.iter().map(|t| Some(t.as_str())).collect(),
    };
    for (i, target) in targets.iter().enumerate() {
        junit.add_test_suite(suite(report, *target, i + 1 == targets.len()));
    }
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- junit serialisation failed: {e} -->"))
}

/// The suite of `target`'s cases (every case when `None`); the cases never
/// run because of a signal go in the `last` suite.
fn suite(report: &RunReport, target: Option<&str>, last: bool) -> TestSuite {
    let mut suite =
        TestSuite::new(target.map_or("xad-harness".to_string(), |t| format!("xad-harness {t}")));
    if let Some(t) = target {
        suite.add_property(Property::new("target", t));
    }
    suite.add_property(Property::new("executor", report.executor.as_str()));
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
    let cut = report
        .interrupted
        .as_ref()
        .and_then(|i| i.cut_short.as_ref());
    for r in report
        .cases
        .iter()
        .filter(|r| target.is_none_or(|t| r.target == t))
    {
        let lines = super::case_lines(r);
        let status = match r.status() {
            // A case stopped part-way did not pass: it was not finished.
            Status::Pass if cut.is_some_and(|c| c.case == r.case && c.target == r.target) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(format!(
                    "interrupted after {} of {} lanes (every checked lane passed)",
                    r.tally.lanes_checked, r.lanes
                ));
                s
            }
            Status::Pass => TestCaseStatus::success(),
            Status::Fail => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let undefined = match r.tally.lanes_undefined {
                    0 => String::new(),
                    n => format!(" ({n} undefined)"),
                };
                s.set_message(format!(
                    "{} of {} lanes failed{undefined} on {}",
                    r.tally.lanes_failed,
                    r.tally.lanes_checked,
                    super::text::executed_on(r)
                ));
                s.set_description(lines.join("\n"));
                s
            }
            Status::Error => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message(
                    r.error
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                );
                s.set_description(lines.join("\n"));
                s
            }
        };
        let mut case = TestCase::new(r.case.as_str(), status);
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
        case.set_classname(format!("xad-harness.{}.{}", r.target, r.kernel));
        case.set_time(std::time::Duration::from_secs_f64(r.seconds));
        case.set_system_out(format!(
            "executor: {}\n{}",
            super::text::executed_on(r),
            lines.join("\n")
        ));
        suite.add_test_case(case);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::Signal;
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
        let gfx1151 = &xml[xml.find("name=\"xad-harness gfx1151\"").unwrap()..];
        assert!(gfx1151.contains("<skipped"), "{xml}");
    }
}
