//! Human-readable report lines.

use super::RunReport;
use crate::model::check::{FailureKind, Mismatch};
use crate::pipeline::run::{CaseResult, KernelSource, Status};

/// The lines that open a run of `cases` cases: what executes them, why it
/// was chosen (if `auto` had to choose), and the seed to replay with.
pub fn header_lines(report: &RunReport, cases: usize) -> Vec<String> {
    let mut lines = vec![format!("{}: executor: {}", report.tool, report.executor)];
    if let Some(note) = &report.backend_note {
        lines.push(format!("note: {note}"));
    }
    lines.push(format!(
        "seed {seed} (replay with --seed {seed}); {} lanes per case; {cases} case(s)",
        report.lanes_per_case,
        seed = report.seed
    ));
    lines
}

/// How much of each case the text report shows ([`case_lines_in`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct View {
    /// `--verbose`: every line of every case ([`case_lines`], what JUnit's
    /// `system-out` holds).
    pub verbose: bool,
    /// A run over several targets: passing cases are counted in the
    /// closing table ([`target_lines`]), not listed one by one.
    pub many_targets: bool,
}

/// The width of the status column: the longest status word
/// (`NOT_SUPPORTED`), so case names line up whatever the status.
pub const STATUS_WIDTH: usize = 13;

/// How a text line opens for `status`.
pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Unsettled => "UNSETTLED",
        Status::Finding => "FINDING",
        Status::NotSupported => "NOT_SUPPORTED",
        Status::Error => "ERROR",
        Status::Timeout => "TIMEOUT",
        Status::Skipped => "SKIPPED",
    }
}

/// The counts after "N passed, N failed" that are not zero, e.g. `, 1
/// unsettled, 8 not supported`.
pub fn extra_counts(count: impl Fn(Status) -> usize) -> String {
    let mut out = String::new();
    for (status, word) in [
        (Status::Unsettled, "unsettled"),
        (Status::Finding, "findings"),
        (Status::NotSupported, "not supported"),
        (Status::Error, "errors"),
        (Status::Timeout, "timed out"),
        (Status::Skipped, "skipped"),
    ] {
        match count(status) {
            0 => {}
            n => out += &format!(", {n} {word}"),
        }
    }
    out
}

/// The status word padded to the status column ([`STATUS_WIDTH`]).
fn status_column(status: Status) -> String {
    format!("{:<STATUS_WIDTH$}", status_word(status))
}

/// The lines a person reads for one case, by `view`: every line with
/// `--verbose`; otherwise a passing case of a many-target run is left to the
/// closing table, and an unsettled case is its status line and why
/// ([`unsettled_lines`]): its words are in the JSON, JUnit and HTML reports.
/// Failures, faults and skips keep all their lines.
pub fn case_lines_in(r: &CaseResult, view: View) -> Vec<String> {
    match r.status() {
        _ if view.verbose => case_lines(r),
        Status::Pass if view.many_targets => Vec::new(),
        Status::Unsettled => unsettled_lines(r),
        _ => case_lines(r),
    }
}

/// Whether `r` is a probe case (`modifiers_w32`/`_w64`) that ran without
/// findings: on the embedded emulator, whose unsettled probe words only a
/// device settles.
fn unsettled_probe(r: &CaseResult) -> bool {
    r.findings.is_none()
        && crate::model::cases::PROBE_CASES
            .iter()
            .flat_map(|family| family.iter())
            .any(|c| c.name == r.case)
}

/// The command that settles the probe cases' open words: on the device.
pub const SETTLE_PROBES: &str = "xad-harness run --case 'modifiers*' --backend hip";

/// How many of a case's words were unsettled, of those that could verify
/// the instruction: per lane when every lane has the same count (`17 of 18
/// words per lane unsettled`), else in all, with the lanes.
pub fn unsettled_count(r: &CaseResult) -> String {
    let t = &r.tally;
    let of = t.words_evidence.max(t.words_unsettled);
    let lanes = t.lanes_checked;
    if lanes > 0 && t.lanes_unsettled == lanes && t.words_unsettled % lanes == 0 && of % lanes == 0
    {
        format!(
            "{} of {} words per lane unsettled",
            t.words_unsettled / lanes,
            of / lanes
        )
    } else {
        format!(
            "{} of {of} words unsettled ({} of {lanes} lanes)",
            t.words_unsettled, t.lanes_unsettled
        )
    }
}

/// Why a case's words are unsettled, in a sentence: for a probe case that
/// ran on the emulator, what settles them; else the ISA point the case
/// declares, or the first unsettled word's origin.
pub fn why_unsettled(r: &CaseResult) -> String {
    if unsettled_probe(r) {
        return format!(
            "modifier fields the ISA leaves open, which only a device settles: {SETTLE_PROBES}"
        );
    }
    r.unsettled
        .clone()
        .or_else(|| {
            r.tally
                .first_unsettled
                .first()
                .and_then(|m| m.origin.clone())
        })
        .unwrap_or_else(|| "behaviour the ISA guides leave open".into())
}

/// An unsettled case on the first screen: one line for a probe case on the
/// emulator (naming the command that settles it), else the status line and
/// why. Each unsettled word is in the reports and under `--verbose`.
fn unsettled_lines(r: &CaseResult) -> Vec<String> {
    let t = &r.tally;
    let nothing = if r.nothing_verified().is_some() {
        ", nothing verified"
    } else {
        ""
    };
    let head = format!(
        "{} {:<28} {} lanes, {}{nothing}",
        status_column(r.status()),
        r.case,
        t.lanes_checked,
        unsettled_count(r)
    );
    let on = format!("{:.2} s [{}]", r.seconds, executed_on(r));
    let mut lines = if unsettled_probe(r) {
        vec![format!(
            "{head}; settle on the device: {SETTLE_PROBES}; {on}"
        )]
    } else {
        vec![
            format!("{head}, {on}"),
            format!("  unsettled: {} (each word: --verbose)", why_unsettled(r)),
        ]
    };
    lines.extend(r.release_errors.iter().map(|e| format!("  error: {e}")));
    lines
}

/// The lines for one case, all of them (`--verbose`, JUnit's `system-out`):
/// a status line, then one line per recorded failure or unsettled word.
pub fn case_lines(r: &CaseResult) -> Vec<String> {
    let mut lines = Vec::new();
    let t = &r.tally;
    let status = status_column(r.status());
    if let Some(not_run) = &r.not_run {
        let why = match not_run {
            crate::pipeline::run::NotRun::NotSupported(why)
            | crate::pipeline::run::NotRun::Skipped(why) => why,
        };
        lines.push(format!(
            "{status} {:<28} {why} [{}]",
            r.case,
            executed_on(r)
        ));
        return lines;
    }
    let mut head = format!("{status} {:<28} {} lanes", r.case, t.lanes_checked);
    if t.lanes_failed > 0 {
        head += &format!(", {} failed", t.lanes_failed);
        if t.lanes_unwritten > 0 {
            head += &format!(" ({} unwritten)", t.lanes_unwritten);
        }
        if t.lanes_undefined > 0 {
            head += &format!(" ({} undefined)", t.lanes_undefined);
        }
    }
    if t.lanes_unsettled > 0 || t.words_unsettled > 0 {
        head += &format!(
            ", {} unsettled ({} words; neither pass nor fail)",
            t.lanes_unsettled, t.words_unsettled
        );
    }
    if r.nothing_verified().is_some() {
        head += "; nothing verified, so not a pass";
    }
    head += &format!(", {:.2} s [{}]", r.seconds, executed_on(r));
    lines.push(head);
    for m in t.first.iter().chain(&t.first_unsettled) {
        lines.push(record_line(r, m));
    }
    if (t.first.len() as u64) < t.lanes_failed {
        lines.push(format!(
            "  ... {} more failing lanes not shown (--max-mismatches)",
            t.lanes_failed - t.first.len() as u64
        ));
    }
    if (t.first_unsettled.len() as u64) < t.words_unsettled {
        let more = t.words_unsettled - t.first_unsettled.len() as u64;
        lines.push(format!(
            "  ... {more} more unsettled words not shown (--max-mismatches)"
        ));
    }
    for g in &r.guard_violations {
        lines.push(format!("  {g}"));
    }
    lines.extend(finding_lines(r));
    // A probe case's failure on an executor is the device disagreeing with
    // itself (its finding lines say so), not a point of the guide.
    let probed = r.findings.is_some();
    if let (Some(u), Status::Fail | Status::Error, false) = (&r.unsettled, r.status(), probed) {
        lines.push(format!("  note: this case rests on unsettled ISA behaviour, so a failure here is a finding about the guide, not proof of a defect: {u}"));
    }
    if let Some(e) = &r.error {
        lines.push(format!("  error: {e}"));
    }
    for e in &r.release_errors {
        lines.push(format!("  error: {e}"));
    }
    if t.lanes_failed > 0 || !r.guard_violations.is_empty() || r.status() == Status::Fail {
        lines.push(format!("  replay: {}", replay_command(r)));
    }
    lines
}

/// A probe case's findings, one line per field, each naming the target:
/// `  finding: gfx1201 NEG[1]: sign bit flipped, 65536 of 65536 lanes`;
/// a field whose lanes disagree (or match no candidate), and words that
/// changed between two dispatches, as `inconsistent:` lines.
fn finding_lines(r: &CaseResult) -> Vec<String> {
    let Some(f) = &r.findings else {
        return Vec::new();
    };
    let mut lines: Vec<String> = f
        .fields
        .iter()
        .map(|field| {
            let kind = if field.verdict.failed() {
                "inconsistent"
            } else {
                "finding"
            };
            format!("  {kind}: {} {}", r.target, field.line())
        })
        .collect();
    if let Some(c) = f.first_changed {
        lines.push(format!(
            "  inconsistent: {} {} lanes changed between two dispatches of the same inputs (first: lane {} word {}: 0x{:08x}, then 0x{:08x})",
            r.target, f.lanes_changed, c.lane, c.word, c.first, c.second
        ));
    }
    lines.push(
        "  note: a finding says what this device does with bits the ISA leaves open; it is neither a pass nor a fail of the ISA"
            .into(),
    );
    lines
}

/// The command that runs `r` again as it ran: the same backend and device,
/// target, case, seed, lanes, emulator step budget and (for a user's
/// kernel) file. Without `--backend` an `auto` run elsewhere could pick
/// other hardware or the emulator; without `--target` a `--kernel` run
/// would take the device's own target.
pub fn replay_command(r: &CaseResult) -> String {
    let mut command = String::from("xad-harness run");
    match r.device.split_once(':') {
        Some(("emulator", _)) => command += " --backend emu",
        Some(("hip", index)) => command += &format!(" --backend hip --device {index}"),
        _ => {}
    }
    if !r.target.is_empty() {
        command += &format!(" --target {}", shell_word(&r.target));
    }
    command += &format!(
        " --case {} --seed {} --lanes {}",
        shell_word(&r.case),
        r.seed,
        r.lanes
    );
    if let Some(budget) = r.step_budget {
        command += &format!(" --step-budget {budget}");
    }
    if let KernelSource::User { path } = &r.kernel_source {
        command += &format!(" --kernel {}", shell_word(path));
    }
    command
}

/// `word` as one POSIX shell word: as is when it holds only characters no
/// shell treats specially, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What ran the case and, unless the executor already says it (`emulated
/// gfx1151` running gfx1151 code), the target its code object was built for.
pub fn executed_on(r: &CaseResult) -> String {
    if r.target.is_empty() || r.executor == format!("emulated {}", r.target) {
        r.executor.clone()
    } else {
        format!("{}; code object {}", r.executor, r.target)
    }
}

/// One recorded word: failing (wrong, unwritten, undefined) or unsettled.
fn record_line(r: &CaseResult, m: &Mismatch) -> String {
    let word = match r.forms.get(m.word).filter(|f| !f.is_empty()) {
        Some(form) if r.forms.len() > 1 => format!(" word {} ({form})", m.word),
        Some(form) => format!(" ({form})"),
        None if m.word > 0 => format!(" word {}", m.word),
        None => String::new(),
    };
    let inputs = format!("a=0x{:08x} b=0x{:08x} c=0x{:08x}", m.a, m.b, m.c);
    match m.kind {
        FailureKind::Unwritten => format!(
            "  lane {}{word}: unwritten (still holds 0x{:08x}); {inputs} expected 0x{:08x}",
            m.lane, m.got, m.expected
        ),
        FailureKind::Undefined | FailureKind::Unsettled => format!(
            "  lane {}{word}: {} (holds 0x{:08x}); {inputs} expected 0x{:08x}: {}",
            m.lane,
            if m.kind == FailureKind::Undefined {
                "undefined"
            } else {
                "unsettled, neither pass nor fail"
            },
            m.got,
            m.expected,
            m.origin.as_deref().unwrap_or("origin not recorded")
        ),
        FailureKind::Wrong => {
            let bits: Vec<String> = m.diff_positions().iter().map(u32::to_string).collect();
            format!(
                "  lane {}{word}: {inputs} expected 0x{:08x} got 0x{:08x} differing bits 0x{:08x} (bit {})",
                m.lane,
                m.expected,
                m.got,
                m.diff_bits(),
                bits.join(", ")
            )
        }
    }
}

/// One line per device resource the run (outside its cases) could not release.
pub fn release_lines(report: &RunReport) -> Vec<String> {
    report
        .release_errors
        .iter()
        .map(|e| format!("error: {e}"))
        .collect()
}

/// For a run over several targets, the closing table: one row per target
/// with its cases' counts (passed, failed, unsettled, skipped, and findings
/// or errors when any) and what executed them, under a header row.
pub fn target_lines(report: &RunReport) -> Vec<String> {
    if report.targets.len() < 2 {
        return Vec::new();
    }
    let of = |t: &str, statuses: &[Status]| {
        report
            .cases
            .iter()
            .filter(|c| c.target == t && statuses.contains(&c.status()))
            .count()
    };
    let mut columns: Vec<(&str, Vec<Status>)> = vec![
        ("passed", vec![Status::Pass]),
        ("failed", vec![Status::Fail]),
        ("unsettled", vec![Status::Unsettled]),
        ("findings", vec![Status::Finding]),
        ("errors", vec![Status::Error, Status::Timeout]),
        ("skipped", vec![Status::Skipped, Status::NotSupported]),
    ];
    // Findings and errors only when some target has them.
    columns.retain(|(name, statuses)| {
        !matches!(*name, "findings" | "errors")
            || report.targets.iter().any(|t| of(t, statuses) > 0)
    });
    let width = report
        .targets
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(6);
    let mut header = format!("  {:<width$}", "target");
    for (name, _) in &columns {
        header += &format!("  {name:>9}");
    }
    let mut lines = vec![header + "  executor"];
    for t in &report.targets {
        let mut row = format!("  {t:<width$}");
        for (_, statuses) in &columns {
            row += &format!("  {:>9}", of(t, statuses));
        }
        // Every result names what executed it; a target's cases share one executor.
        let on = report
            .cases
            .iter()
            .find(|c| &c.target == t)
            .map_or_else(|| "nothing ran".to_string(), executed_on);
        lines.push(format!("{row}  {on}"));
    }
    lines
}

/// The line that says how many cases of the catalogue belong to other
/// generations than the run's targets, and were therefore left out of it
/// (they are not `not_supported`: nobody asked for them), and how to list
/// them. `None` when every case ran or was asked for.
pub fn other_generations_line(report: &RunReport) -> Option<String> {
    let total: usize = report.other_generations.iter().map(|(_, n)| n).sum();
    match report.other_generations.as_slice() {
        [] => None,
        [(target, n)] => Some(format!(
            "note: {n} case(s) of the catalogue belong to other generations and are not run on {target}; `xad-harness list --target all` lists each target's cases"
        )),
        many => Some(format!(
            "note: {total} case run(s) left out over {} targets, each target running the cases its generation has; `xad-harness list --target all` lists each target's cases",
            many.len()
        )),
    }
}

/// The closing line, in the form CI log readers recognise.
pub fn summary_line(report: &RunReport) -> String {
    // A case a signal stopped part-way did not pass: it did not finish
    // (its status is skipped); it is counted as cut short.
    let cut = report
        .interrupted
        .as_ref()
        .and_then(|i| i.cut_short.as_ref());
    let cut_passing = cut.is_some_and(|c| {
        report.cases.iter().any(|r| {
            r.case == c.case
                && r.target == c.target
                && r.status() == Status::Skipped
                && r.not_run.is_none()
        })
    });
    let count =
        |status| report.count(status) - usize::from(cut_passing && status == Status::Skipped);
    let on = if report.executor.is_empty() {
        "nothing ran".to_string()
    } else {
        report.executor.clone()
    };
    let mut line = format!(
        "{} passed, {} failed",
        count(Status::Pass),
        count(Status::Fail)
    );
    line += &extra_counts(count);
    let released = report.all_release_errors().count();
    if released > 0 {
        line += &format!(", {released} release errors");
    }
    if cut_passing {
        line += ", 1 cut short";
    }
    if let Some(i) = &report.interrupted {
        line += &format!(", interrupted by {}", i.signal.name());
    }
    format!("{line} [{on}, seed {}]", report.seed)
}

impl RunReport {
    /// The one stderr line of a run that exits 77 although its cases ran to
    /// their end without failing: none passed (each left words unsettled, or
    /// verified nothing), and CI must not read that as a pass. `None`
    /// otherwise (a run that ran nothing says why elsewhere).
    pub fn nothing_verified_line(&self) -> Option<String> {
        if self.exit_code() != crate::error::exit::SKIPPED {
            return None;
        }
        let unproven: Vec<(&CaseResult, String)> = self
            .cases
            .iter()
            .filter_map(|c| match c.status() {
                Status::Unsettled => Some((c, unsettled_count(c))),
                Status::Skipped if c.not_run.is_none() => c.nothing_verified().map(|why| (c, why)),
                _ => None,
            })
            .collect();
        let (first, why) = unproven.first()?;
        let more = match unproven.len() {
            1 => String::new(),
            n => format!(" (and {} more case(s) alike)", n - 1),
        };
        Some(format!(
            "no case passed: {} [{}]: {why}{more}; exit 77, not a pass",
            first.case,
            executed_on(first)
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::check::Tally;

    pub(crate) fn result(failed: bool, unsettled: Option<&str>) -> CaseResult {
        let mut tally = Tally {
            lanes_checked: 64,
            words_evidence: 64,
            ..Tally::default()
        };
        if failed {
            tally.lanes_failed = 1;
            tally.first.push(Mismatch {
                lane: 5,
                word: 0,
                a: 1,
                b: 2,
                c: 3,
                expected: 6,
                got: 0x8000_0006,
                kind: FailureKind::Wrong,
                origin: None,
            });
        }
        CaseResult {
            case: "basic".into(),
            description: String::new(),
            kernel: "xad_basic".into(),
            kernel_source: KernelSource::Embedded {
                source: String::new(),
            },
            device: "emulator:gfx1100".into(),
            executor: "emulated gfx1100".into(),
            target: "gfx1100".into(),
            seed: 9,
            guard_seed: 1,
            lanes: 64,
            scalars: vec![],
            tally,
            pattern: Default::default(),
            guard_violations: vec![],
            error: None,
            not_run: None,
            release_errors: vec![],
            seconds: 0.0,
            unsettled: unsettled.map(str::to_string),
            forms: vec![],
            step_budget: None,
            findings: None,
        }
    }

    #[test]
    fn every_case_line_names_its_executor_and_failures_are_replayable() {
        let pass = case_lines(&result(false, Some("x")));
        assert_eq!(pass.len(), 1, "{pass:?}");
        assert!(
            pass[0].starts_with("PASS          basic") && pass[0].contains("[emulated gfx1100]")
        );
        let fail = case_lines(&result(true, None)).join("\n");
        assert!(
            fail.contains(
                "lane 5: a=0x00000001 b=0x00000002 c=0x00000003 expected 0x00000006 got 0x80000006"
            ),
            "{fail}"
        );
        assert!(
            fail.contains("differing bits 0x80000000 (bit 31)"),
            "{fail}"
        );
        assert!(
            fail.contains(
                "replay: xad-harness run --backend emu --target gfx1100 --case basic --seed 9 --lanes 64"
            ),
            "{fail}"
        );
        assert!(!fail.contains("unsettled"));
        assert!(case_lines(&result(true, Some("exec_hi")))
            .join("\n")
            .contains("unsettled ISA behaviour"));
    }

    #[test]
    fn a_device_line_names_the_code_objects_target_too() {
        let mut r = result(false, None);
        r.executor = "hardware: Radeon RX 7800 XT (gfx1101), HIP runtime 6.4.0".into();
        r.target = "gfx11-generic".into();
        assert!(case_lines(&r)[0].ends_with("[hardware: Radeon RX 7800 XT (gfx1101), HIP runtime 6.4.0; code object gfx11-generic]"), "{:?}", case_lines(&r));
        r.executor = "emulated gfx1151".into();
        r.target = "gfx1151".into();
        assert!(case_lines(&r)[0].ends_with("[emulated gfx1151]"));
    }

    #[test]
    fn undefined_and_unsettled_words_are_counted_and_name_their_origin() {
        let mut r = result(false, None);
        let record = |lane, kind, origin: &str| Mismatch {
            lane,
            word: 0,
            a: 1,
            b: 2,
            c: 3,
            expected: 0,
            got: 0,
            kind,
            origin: Some(origin.into()),
        };
        r.tally.lanes_unsettled = 3;
        r.tally.words_unsettled = 3;
        r.tally.first_unsettled.push(record(
            100_000,
            FailureKind::Unsettled,
            "DPP16 read of inactive lane 3",
        ));
        let pass = case_lines(&r).join("\n");
        assert!(
            pass.starts_with("UNSETTLED     basic")
                && pass.contains("3 unsettled (3 words; neither pass nor fail)"),
            "{pass}"
        );
        assert!(
            pass.contains("lane 100000: unsettled, neither pass nor fail")
                && pass.contains("DPP16 read of inactive lane 3"),
            "{pass}"
        );
        assert!(pass.contains("2 more unsettled words not shown"), "{pass}");
        r.tally.lanes_failed = 1;
        r.tally.lanes_undefined = 1;
        r.tally.first.push(record(
            4,
            FailureKind::Undefined,
            "v20 read before any write",
        ));
        let fail = case_lines(&r).join("\n");
        assert!(
            fail.starts_with("FAIL          basic") && fail.contains("1 failed (1 undefined)"),
            "{fail}"
        );
        assert!(
            fail.contains("lane 4: undefined (holds 0x00000000)")
                && fail.contains("v20 read before any write"),
            "{fail}"
        );
    }

    /// The first screen (issue 42): an unsettled probe case on the emulator
    /// is one line naming what settles it; another unsettled case is its
    /// status line and why; `--verbose` prints every word; a many-target run
    /// leaves passes to its table. Status words share one column width.
    #[test]
    fn the_first_screen_condenses_unsettled_cases_and_verbose_shows_every_word() {
        let record = |lane| Mismatch {
            lane,
            word: 1,
            a: 1,
            b: 2,
            c: 3,
            expected: 0,
            got: 0,
            kind: FailureKind::Unsettled,
            origin: Some("NEG[0]: candidate readings ...".into()),
        };
        let mut probe = result(false, None);
        probe.case = "modifiers_w32".into();
        probe.tally.words_evidence = 64 * 18;
        probe.tally.lanes_unsettled = 64;
        probe.tally.words_unsettled = 64 * 17;
        probe.tally.first_unsettled = (0..10).map(record).collect();
        let brief = case_lines_in(&probe, View::default());
        assert_eq!(brief.len(), 1, "{brief:?}");
        assert!(
            brief[0].starts_with("UNSETTLED     modifiers_w32")
                && brief[0].contains("17 of 18 words per lane unsettled")
                && brief[0].contains(SETTLE_PROBES)
                && brief[0].ends_with("[emulated gfx1100]"),
            "{brief:?}"
        );
        let verbose = case_lines_in(
            &probe,
            View {
                verbose: true,
                many_targets: false,
            },
        );
        assert!(verbose.len() > 10, "every recorded word: {verbose:?}");
        assert!(verbose.iter().any(|l| l.contains("candidate readings")));

        // Not a probe: the status line and why (the case's ISA point).
        let mut sreg = result(false, Some("exec_hi read as data"));
        sreg.tally.lanes_unsettled = 64;
        sreg.tally.words_unsettled = 64;
        sreg.tally.first_unsettled = vec![record(0)];
        let brief = case_lines_in(&sreg, View::default());
        assert_eq!(brief.len(), 2, "{brief:?}");
        assert!(
            brief[0].contains("1 of 1 words per lane unsettled, nothing verified"),
            "{brief:?}"
        );
        assert!(
            brief[1].contains("unsettled: exec_hi read as data"),
            "{brief:?}"
        );

        let pass = result(false, None);
        let many = View {
            verbose: false,
            many_targets: true,
        };
        assert!(case_lines_in(&pass, many).is_empty());
        assert_eq!(case_lines_in(&pass, View::default()).len(), 1);
        let fail = result(true, None);
        assert_eq!(
            case_lines_in(&fail, many),
            case_lines(&fail),
            "failures keep every line"
        );
        // One column: the case name starts at the same place for every status.
        let at = |line: &str| line.find("basic").unwrap();
        assert_eq!(at(&case_lines(&pass)[0]), at(&case_lines(&fail)[0]));
        assert_eq!(at(&case_lines(&pass)[0]), STATUS_WIDTH + 1);
    }

    /// `--target all` closes with one row per target: passed, failed,
    /// unsettled, skipped (not supported included) and the executor.
    #[test]
    fn a_many_target_run_closes_with_a_table() {
        let mut report = RunReport::new(9, 64);
        report.targets = vec!["gfx1100".into(), "gfx908".into()];
        for (target, failed) in [("gfx1100", false), ("gfx908", true)] {
            let mut r = result(failed, None);
            r.target = target.into();
            r.executor = format!("emulated {target}");
            report.cases.push(r);
        }
        let table = target_lines(&report);
        assert_eq!(table.len(), 3, "{table:?}");
        let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            cells(&table[0]),
            [
                "target",
                "passed",
                "failed",
                "unsettled",
                "skipped",
                "executor"
            ]
        );
        assert_eq!(
            cells(&table[1]),
            ["gfx1100", "1", "0", "0", "0", "emulated", "gfx1100"]
        );
        assert_eq!(
            cells(&table[2]),
            ["gfx908", "0", "1", "0", "0", "emulated", "gfx908"]
        );
        report.targets.pop();
        assert!(target_lines(&report).is_empty(), "one target: no table");
    }
}
