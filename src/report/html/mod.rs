//! The HTML page: one self-contained file rendered from a JSON report's
//! document ([`crate::report::document::Report`]), so `report REPORT.json
//! --html` on a saved report and `run --html` draw the same page. Inline CSS
//! and SVG only: no script, font or request leaves the file, and it reads the
//! same printed and with scripting off.
//!
//! Every section (the run, each device, each target, each case) carries the
//! executor banner as the text report prints it, so a picture of an emulated
//! run cannot pass for a hardware one. Per case: a lane map, aggregate views
//! by lane in wave and by lane range, and a histogram of the bits wrong words
//! flipped, all drawn from the case's `pattern` counters
//! ([`crate::pipeline::pattern`]); a merged fleet gets a grid of nodes x devices x
//! targets linking to the sections; a soak its units ([`soak_page`]). Drawn elements carry `data-` attributes
//! (`data-lane`, `data-lanes`, `data-verdict`, `data-bit`, ...) so tests and
//! tools read the page as data.

mod bits;
mod findings_table;
mod fleet;
mod lanes;
pub mod microbench_page;
pub mod soak_page;

use super::document::{Case, Device, Report, Summary, Tally};

/// The page for `report`.
pub fn render(report: &Report) -> String {
    let mut page = String::with_capacity(64 * 1024);
    page += &page_head(&format!("xad-harness report: {}", title(report)));
    page += &run_header(report);
    page += &lanes::legend();
    page += &fleet::grid(&report.devices);
    for (index, device) in report.devices.iter().enumerate() {
        page += &device_section(index, device);
    }
    page += "</body>\n</html>\n";
    page
}

const CSS: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.25em;margin:1.2em 0 .2em}
h3{font-size:1.1em;margin:1em 0 .2em}h4{font-size:1em;margin:.8em 0 .2em}
.executor{display:inline-block;font-family:monospace;padding:.1em .5em;border:1px solid #555;background:#f3f3f3;margin:.2em 0}
.executor.emulated{border-color:#b36b00;background:#fff4e0}
section.device{border-top:3px solid #333;margin-top:1.5em}
section.target{border-left:3px solid #999;padding-left:.8em;margin:1em 0}
article.case{margin:.8em 0 1.2em;break-inside:avoid;page-break-inside:avoid}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #bbb;padding:.15em .45em;text-align:right;font-variant-numeric:tabular-nums}
th{background:#eee}td.l,th.l{text-align:left}
.st-pass{background:#d9f0d9}.st-unsettled{background:#fbeec1}.st-finding{background:#d2eef3}.finding-disagree,.finding-no_candidate{background:#f7c6c6}.st-fail{background:#f7c6c6}.st-error,.st-timeout{background:#f3d2f3}
.st-not_supported,.st-skipped{background:#eee}
svg{display:block;margin:.3em 0;overflow:visible}svg text{font:10px monospace;fill:#222}
.note{color:#444}.mono{font-family:monospace}
@media print{body{margin:0}section.device{break-before:auto}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
";

/// `text` safe inside HTML text and double-quoted attributes.
/// The opening of every page (a run's, a soak's, a microbench's): the
/// doctype, the `title` (escaped), the inline style, and `<body>`.
pub(crate) fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(title)
    )
}

pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&#39;",
            c => out.push(c),
        }
    }
    out
}

/// A fragment id from parts: letters, digits, `-` and `_` only.
pub(crate) fn anchor(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| {
            p.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The executor banner, as the text report prints it.
pub(crate) fn banner(executor: &str) -> String {
    let class = if executor.starts_with("emulated") {
        "executor emulated"
    } else {
        "executor"
    };
    let shown = if executor.is_empty() {
        "no executor (nothing ran)"
    } else {
        executor
    };
    format!(
        "<p><span class=\"{class}\" data-executor=\"{0}\">{0}</span></p>\n",
        esc(shown)
    )
}

/// What executed a case, as the text report's `[...]` says it: the
/// executor, and the code object's target when the executor does not name it.
fn executed_on(case: &Case) -> String {
    let (executor, target) = (case.executor.as_str(), case.target.as_str());
    if target.is_empty() || executor == format!("emulated {target}") {
        executor.to_string()
    } else {
        format!("{executor}; code object {target}")
    }
}

fn title(report: &Report) -> String {
    format!(
        "exit {} [{}]",
        report.exit_code,
        if report.executor.is_empty() {
            "nothing ran"
        } else {
            &report.executor
        }
    )
}

/// The run's banner, its seed and lanes, the exit code and the statuses.
fn run_header(report: &Report) -> String {
    let mut out = String::from("<header>\n<h1>xad-harness report</h1>\n");
    out += &banner(&report.executor);
    let tool = &report.tool;
    out += &format!(
        "<p>{} {} ({}) on {}; seed {}; {} lanes per case; exit code <b data-exit-code=\"{}\">{}</b></p>\n",
        esc(&tool.name),
        esc(&tool.version),
        esc(&tool.git_describe),
        esc(&report.host),
        report.seed,
        report.lanes_per_case,
        report.exit_code,
        report.exit_code,
    );
    out += &summary_table(&report.summary);
    out += &notes_and_error(&report.notes, report.error.as_deref());
    if let Some(interrupted) = &report.interrupted {
        out += &format!(
            "<p class=\"note\">interrupted by {}: reports hold what completed</p>\n",
            esc(interrupted.signal.name())
        );
    }
    out + "</header>\n"
}

/// A section's notes, then its error.
fn notes_and_error(notes: &[String], error: Option<&str>) -> String {
    let mut out = String::new();
    for note in notes {
        out += &format!("<p class=\"note\">note: {}</p>\n", esc(note));
    }
    if let Some(error) = error {
        out += &format!("<p class=\"note\">error: {}</p>\n", esc(error));
    }
    out
}

/// Cases per status, one row.
fn summary_table(summary: &Summary) -> String {
    let mut head = String::new();
    let mut row = String::new();
    for (status, n) in summary.entries() {
        head += &format!("<th class=\"st-{0}\">{0}</th>", esc(status));
        row += &format!("<td data-status=\"{}\">{n}</td>", esc(status));
    }
    format!("<table class=\"summary\"><tr>{head}</tr><tr>{row}</tr></table>\n")
}

/// The targets of cases, in first-seen order.
fn targets_of<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Vec<&'a str> {
    let mut targets: Vec<&str> = Vec::new();
    for case in cases {
        if !targets.contains(&case.target.as_str()) {
            targets.push(&case.target);
        }
    }
    targets
}

/// One device: its banner and identity, then one section per target.
fn device_section(index: usize, device: &Device) -> String {
    let (id, host) = (&device.id, &device.host);
    let mut out = format!(
        "<section class=\"device\" id=\"{}\" data-device=\"{}\" data-host=\"{}\">\n<h2>{} on {}</h2>\n",
        anchor(&[&format!("d{index}")]),
        esc(id),
        esc(host),
        esc(id),
        esc(host)
    );
    out += &banner(device.executor.as_str());
    out += &format!(
        "<p>exit code {}; {:.2} s</p>\n",
        device.exit_code, device.seconds
    );
    out += &summary_table(&device.summary);
    out += &notes_and_error(&device.notes, device.error.as_deref());
    for target in targets_of(&device.cases) {
        out += &target_section(index, device, target);
    }
    out + "</section>\n"
}

/// One target of one device: a table of its cases, then each case.
fn target_section(index: usize, device: &Device, target: &str) -> String {
    let mine: Vec<&Case> = device.cases.iter().filter(|c| c.target == target).collect();
    let mut out = format!(
        "<section class=\"target\" id=\"{}\" data-target=\"{}\">\n<h3>{} / {}</h3>\n",
        anchor(&[&format!("d{index}"), target]),
        esc(target),
        esc(&device.id),
        esc(target)
    );
    out += &banner(
        mine.first()
            .map_or_else(String::new, |c| executed_on(c))
            .as_str(),
    );
    out += "<table><tr><th class=\"l\">case</th><th class=\"l\">status</th><th>lanes checked</th><th>failed</th><th>unsettled</th></tr>\n";
    for case in &mine {
        let tally = &case.tally;
        out += &format!(
            "<tr><td class=\"l\"><a href=\"#{}\">{}</a></td><td class=\"l st-{2}\">{2}</td><td>{3}</td><td>{4}</td><td>{5}</td></tr>\n",
            anchor(&[&format!("d{index}"), target, &case.case]),
            esc(&case.case),
            esc(case.status.name()),
            tally.lanes_checked,
            tally.lanes_failed,
            tally.lanes_unsettled,
        );
    }
    out += "</table>\n";
    for case in mine {
        out += &case_article(index, target, case);
    }
    out + "</section>\n"
}

/// One case: status, banner, counts, and its pictures.
fn case_article(index: usize, target: &str, case: &Case) -> String {
    let (name, status) = (&case.case, case.status.name());
    let mut out = format!(
        "<article class=\"case\" id=\"{}\" data-case=\"{}\" data-status=\"{}\">\n<h4 class=\"st-{2}\">{} {}</h4>\n",
        anchor(&[&format!("d{index}"), target, name]),
        esc(name),
        esc(status),
        esc(&status.to_uppercase()),
        esc(name),
    );
    out += &banner(&executed_on(case));
    out += &format!("<p class=\"note\">{}</p>\n", esc(&case.description));
    if let Some(not_run) = &case.not_run {
        return out + &format!("<p>not run: {}</p>\n</article>\n", esc(not_run.reason()));
    }
    if let Some(error) = &case.error {
        out += &format!("<p class=\"note\">error: {}</p>\n", esc(error));
    }
    let tally = &case.tally;
    out += &format!(
        "<p>{} lanes checked of {}; {} failed ({} unwritten, {} undefined); {} unsettled</p>\n",
        tally.lanes_checked,
        case.lanes,
        tally.lanes_failed,
        tally.lanes_unwritten,
        tally.lanes_undefined,
        tally.lanes_unsettled,
    );
    match &case.pattern {
        Some(pattern) => {
            out += &lanes::lane_map(pattern, tally.lanes_checked);
            out += &lanes::aggregates(pattern);
            out += &bits::histogram(pattern);
        }
        None => out += "<p class=\"note\">no lane pictures: the report has no pattern counters for this case (it never dispatched, or an older xad-harness wrote the report)</p>\n",
    }
    if let Some(findings) = &case.findings {
        out += &findings_table::table(findings);
    }
    out += &records(tally);
    out + "</article>\n"
}

/// The first recorded failing words, as the text report lists them.
fn records(tally: &Tally) -> String {
    if tally.first.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<table class=\"records\"><tr><th>lane</th><th>word</th><th>a</th><th>b</th><th>c</th><th>expected</th><th>got</th><th class=\"l\">kind</th></tr>\n",
    );
    for m in &tally.first {
        let hex = |word: u32| format!("0x{word:08x}");
        out += &format!(
            "<tr class=\"mono\" data-lane=\"{}\"><td>{0}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
            m.lane,
            m.word,
            hex(m.a),
            hex(m.b),
            hex(m.c),
            hex(m.expected),
            hex(m.got),
            esc(m.kind.name()),
        );
    }
    out + "</table>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::document::{fixture, Bucket, Counts, Executor, Pattern, VerdictLetters};
    use crate::pipeline::run::Status;

    /// A case of `lanes` lanes whose first 4096 lanes read `first_lanes`,
    /// `wrong` lanes of each lane class wrong.
    fn case(name: &str, lanes: u64, first_lanes: &str, wrong: u64) -> Case {
        let per_class = lanes / 64;
        let wrong_lanes = wrong.min(per_class);
        let class = Counts {
            pass: per_class - wrong_lanes,
            wrong: wrong_lanes,
            ..Counts::default()
        };
        let buckets = (0..64)
            .map(|b| Bucket {
                first_lane: b * per_class,
                lanes: per_class,
                pass: class.pass,
                wrong: class.wrong,
                unwritten: 0,
                undefined: 0,
                unsettled: 0,
                finding: 0,
            })
            .collect();
        let bits: Vec<u64> = (0..32).map(|b| wrong * (b % 3)).collect();
        let status = if wrong > 0 { Status::Fail } else { Status::Pass };
        let mut case = fixture::case(name, status, lanes, 1);
        case.description = "<b>not markup</b>".into();
        case.tally.lanes_checked = lanes;
        case.tally.lanes_failed = wrong * 64;
        case.pattern = Some(Pattern {
            lanes,
            wave_size: 32,
            lane_classes: vec![class; 64],
            buckets,
            wrong_words: wrong * 64,
            bits_up: bits.clone(),
            bits_down: bits,
            first_lanes: VerdictLetters::recorded(first_lanes),
        });
        case
    }

    /// A device of `cases` on `host` (escaped wherever it lands).
    fn device(id: &str, host: &str, executor: &str, cases: Vec<Case>) -> Device {
        let mut device = fixture::device(host, 1, cases);
        device.id = id.into();
        device.executor = Executor::recorded(executor);
        device
    }

    fn report(cases: Vec<Case>) -> Report {
        let device = device("emulator:gfx1100", "h<script>", "emulated gfx1100", cases);
        fixture::report("h", 1, 1, vec![device])
    }

    /// A 2^32-lane run draws a page of bounded size: a passing case is a
    /// couple of kilobytes, and the worst lane map (verdicts alternating
    /// lane by lane) stops at its rectangle cap.
    #[test]
    fn a_run_of_2_to_the_32_lanes_draws_a_page_of_bounded_size() {
        let lanes = 1u64 << 32;
        let passing: Vec<Case> = (0..64)
            .map(|i| case(&format!("c{i}"), lanes, "", 0))
            .collect();
        let page = render(&report(passing));
        assert!(
            page.len() < 64 * 3 * 1024,
            "{} bytes for 64 passing cases",
            page.len()
        );
        let worst: String = (0..4096)
            .map(|i| if i % 2 == 0 { 'w' } else { '.' })
            .collect();
        let failing: Vec<Case> = (0..64)
            .map(|i| case(&format!("c{i}"), lanes, &worst, 1 << 20))
            .collect();
        let page = render(&report(failing));
        let per_case = page.len() / 64;
        assert!(per_case < 120 * 1024, "{per_case} bytes per failing case");
        let lane_rects = page.matches("data-lanes=").count();
        assert_eq!(
            lane_rects,
            64 * lanes::MAX_MAP_RECTS,
            "every map at its cap"
        );
    }

    /// Text from the report is escaped wherever it lands.
    #[test]
    fn report_text_is_escaped() {
        let page = render(&report(vec![case("c", 64, "", 0)]));
        assert!(!page.contains("<script>") && page.contains("h&lt;script&gt;"));
        assert!(!page.contains("<b>not markup</b>"));
        assert!(!page.contains("<script"), "no script at all");
        assert_eq!(
            anchor(&["d0", "gfx11-generic", "a b"]),
            "d0-gfx11-generic-a-b"
        );
    }

    /// Every section names the executor as the text report does, the case
    /// with its code object's target when the executor does not name it.
    #[test]
    fn every_section_carries_the_banner() {
        let mut c = case("c", 64, "", 0);
        // The emulated HIP library's own label: no device was measured.
        c.executor =
            Executor::recorded("hardware: xad-harness emulated gfx1100 (gfx1100), HIP runtime 5.2");
        let page = render(&report(vec![c]));
        assert_eq!(
            page.matches("data-executor=\"emulated gfx1100\"").count(),
            2,
            "run and device"
        );
        let case_banner = "data-executor=\"hardware: xad-harness emulated gfx1100 (gfx1100), HIP runtime 5.2; code object gfx1100\"";
        assert_eq!(page.matches(case_banner).count(), 2, "target and case");
    }

    /// A device that ran several targets gets a column per target in the
    /// grid (a "-" where another device did not run one), each cell linked
    /// to its section; devices that ran one target each get a target column.
    #[test]
    fn the_grid_has_a_column_per_target_when_a_device_ran_several() {
        let mut generic = case("c", 64, "", 0);
        generic.target = "gfx11-generic".into();
        let mut two = report(vec![case("c", 64, "", 0), generic]);
        let second = device("hip:1", "n2", "hardware: X (gfx1100)", vec![case("c", 64, "w", 1)]);
        two.devices.push(second);
        let page = render(&two);
        assert!(page.contains("<th>gfx1100</th><th>gfx11-generic</th>"));
        assert_eq!(
            page.matches("<td class=\"l\">-</td>").count(),
            1,
            "hip:1 ran no gfx11-generic"
        );
        for anchor in ["#d0-gfx1100", "#d0-gfx11-generic", "#d1-gfx1100"] {
            assert!(page.contains(&format!("href=\"{anchor}\"")), "{anchor}");
            assert!(
                page.contains(&format!("id=\"{}\"", &anchor[1..])),
                "{anchor}"
            );
        }
        let one_each = render(&report(vec![case("c", 64, "", 0)]));
        assert!(one_each.contains("<th class=\"l\">target</th>"));
    }
}
