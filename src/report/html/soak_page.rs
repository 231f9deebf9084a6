//! The page of a soak (`soak --html`, or `report SOAK.json --html`): the
//! executor banner, the rate and the host re-check, and a grid of the
//! hardware units the device's waves reported (`SE0.SA1.WGP3`), one row per
//! shader engine and array, shaded by the waves each ran and red where the
//! device counted mismatches; then the findings. Drawn from the soak's JSON
//! (`crate::report::document::soak`).

use super::{banner, esc, page_head};
use crate::report::document::soak::{Soak, SoakReport};

/// Findings listed at most (the JSON has them all).
const SHOWN_FINDINGS: usize = 20;

/// The soak's page.
pub fn render(report: &SoakReport) -> String {
    let soak: &Soak = &report.as_ran();
    let executor = soak.executor.as_str();
    let mut page = page_head(&format!(
        "xad-harness soak: exit {} [{executor}]",
        soak.exit_code
    ));
    page += "<header>\n<h1>xad-harness soak</h1>\n";
    page += &banner(executor);
    page += &format!(
        "<p>seed {}; {} dispatches in {:.2} s; {} lane-iterations ({:.1} M xad/s); exit code <b data-exit-code=\"{}\">{}</b></p>\n",
        soak.seed,
        soak.dispatches,
        soak.seconds,
        soak.xads,
        soak.xads_per_second / 1e6,
        soak.exit_code,
        soak.exit_code,
    );
    page += &format!(
        "<p>host re-check: {} lanes re-computed, {} confirmed, {} checksum-only, {} not reproduced; {} mismatching lane-iterations counted on the device</p>\n",
        soak.lanes_rechecked,
        soak.confirmed,
        soak.checksum_only,
        soak.unreproduced,
        soak.device_mismatches,
    );
    for (key, text) in [("error", &soak.error), ("interrupted", &soak.interrupted)] {
        if let Some(text) = text {
            page += &format!("<p class=\"note\">{key}: {}</p>\n", esc(text));
        }
    }
    page += "</header>\n<section class=\"rate\">\n<h2>dispatch rate over time</h2>\n";
    page += &banner(executor);
    page += &rate(soak);
    page += "</section>\n<section class=\"units\">\n<h2>units</h2>\n";
    page += &banner(executor);
    page += &units(soak);
    page += "</section>\n<section class=\"findings\">\n<h2>findings</h2>\n";
    page += &banner(executor);
    page += &findings(soak);
    page + "</section>\n</body>\n</html>\n"
}

/// A sort key that orders numbers in names by value (`SE2` before `SE10`).
fn natural(name: &str) -> Vec<(String, u64)> {
    let mut key: Vec<(String, u64)> = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for ch in name.chars().chain(std::iter::once('\0')) {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        if !digits.is_empty() {
            key.push((
                std::mem::take(&mut text),
                digits.parse().unwrap_or(u64::MAX),
            ));
            digits.clear();
        }
        text.push(ch);
    }
    key.push((text, 0));
    key
}

/// A unit name's row (`SE0.SA1`) and column (`WGP3`), by its last dot.
fn row_and_column(name: &str) -> (&str, &str) {
    name.rsplit_once('.').unwrap_or(("", name))
}

/// Dispatches per second between consecutive samples of the soak's
/// `timeline` (`[seconds, dispatches, lane-iterations]`), against time: a
/// unit that slows down (throttling, a failing fan, a marginal clock) shows
/// as a falling line. Each point carries its numbers.
fn rate(soak: &Soak) -> String {
    let samples = &soak.timeline;
    let points: Vec<(f64, f64)> = samples
        .windows(2)
        .filter(|w| w[1][0] > w[0][0])
        .map(|w| (w[1][0], (w[1][1] - w[0][1]) / (w[1][0] - w[0][0])))
        .collect();
    if points.is_empty() {
        return "<p class=\"note\">too few dispatches to plot a rate</p>\n".into();
    }
    let (w, h, left) = (480.0, 120.0, 60.0);
    let t_max = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-9);
    let r_max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9);
    let xy = |(t, r): (f64, f64)| (left + t / t_max * w, 10.0 + h - r / r_max * h);
    let line: Vec<String> = points
        .iter()
        .map(|&p| {
            let (x, y) = xy(p);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let mut out = format!(
        "<svg class=\"rate\" width=\"{}\" height=\"{}\" data-points=\"{}\" role=\"img\" aria-label=\"dispatches per second over time\"><text x=\"0\" y=\"16\">{r_max:.1}/s</text><text x=\"0\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\">{t_max:.1} s</text><polyline fill=\"none\" stroke=\"#4c78a8\" stroke-width=\"1.5\" points=\"{}\"/>",
        left + w + 40.0,
        h + 36.0,
        points.len(),
        h + 10.0,
        left + w - 20.0,
        h + 30.0,
        line.join(" ")
    );
    for &p in &points {
        let (x, y) = xy(p);
        out += &format!(
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"1.5\" fill=\"#4c78a8\" data-second=\"{:.3}\" data-rate=\"{:.3}\"/>",
            p.0, p.1
        );
    }
    out + &format!(
        "</svg>\n<p class=\"note\">{} samples of the soak's progress (at most 512, evenly spread over its dispatches)</p>\n",
        samples.len()
    )
}

/// The grid of units and its table.
fn units(soak: &Soak) -> String {
    let mut coverage: Vec<(&str, u64)> = soak
        .coverage
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    coverage.sort_by_key(|(unit, _)| natural(unit));
    let bad = |unit: &str| soak.unit_mismatches.get(unit).copied().unwrap_or(0);
    let of = match (soak.runtime_compute_units, soak.emulated_compute_units) {
        (Some(n), _) => format!(" of the {n} compute units the runtime reports"),
        (None, Some(n)) => {
            format!(" of {n} emulated units (emulated hardware ids, not a device's)")
        }
        _ => String::new(),
    };
    let mut out = format!("<p>{} units ran waves{of}</p>\n", coverage.len());
    let mut rows: Vec<&str> = coverage.iter().map(|u| row_and_column(u.0).0).collect();
    rows.dedup();
    let mut columns: Vec<&str> = coverage.iter().map(|u| row_and_column(u.0).1).collect();
    columns.sort_by_key(|c| natural(c));
    columns.dedup();
    let most = coverage.iter().map(|u| u.1).max().unwrap_or(1).max(1);
    let (cell, left) = (44u64, 70u64);
    out += &format!(
        "<svg class=\"units\" width=\"{}\" height=\"{}\">",
        left + cell * columns.len() as u64,
        16 + 28 * rows.len() as u64
    );
    for (c, column) in columns.iter().enumerate() {
        out += &format!(
            "<text x=\"{}\" y=\"10\">{}</text>",
            left + c as u64 * cell,
            esc(column)
        );
    }
    for (r, row) in rows.iter().enumerate() {
        let y = 14 + r as u64 * 28;
        out += &format!("<text x=\"0\" y=\"{}\">{}</text>", y + 16, esc(row));
        for (c, column) in columns.iter().enumerate() {
            let name = if row.is_empty() {
                column.to_string()
            } else {
                format!("{row}.{column}")
            };
            let Some(&(_, waves)) = coverage.iter().find(|u| u.0 == name) else {
                continue;
            };
            let mismatches = bad(&name);
            let fill = if mismatches > 0 { "#d62728" } else { "#2e8b3e" };
            let opacity = 0.3 + 0.7 * waves as f64 / most as f64;
            out += &format!(
                "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"24\" fill=\"{fill}\" fill-opacity=\"{opacity:.2}\" stroke=\"#333\" data-unit=\"{}\" data-waves=\"{waves}\" data-mismatches=\"{mismatches}\"><title>{}: {waves} waves, {mismatches} mismatching iterations</title></rect>",
                left + c as u64 * cell,
                cell - 4,
                esc(&name),
                esc(&name),
            );
        }
    }
    out += "</svg>\n<table><tr><th class=\"l\">unit</th><th>waves</th><th>iterations with a mismatch</th></tr>\n";
    for &(unit, waves) in &coverage {
        out += &format!(
            "<tr data-unit=\"{0}\"><td class=\"l\">{0}</td><td>{waves}</td><td>{1}</td></tr>\n",
            esc(unit),
            bad(unit)
        );
    }
    out + "</table>\n"
}

/// The first findings: each re-checked lane that did not come out clean.
fn findings(soak: &Soak) -> String {
    let all = &soak.findings;
    if all.is_empty() {
        return "<p>no findings: every re-checked lane came out clean</p>\n".into();
    }
    let mut out = format!(
        "<p>{} finding(s){}</p>\n<table><tr><th>dispatch</th><th>lane</th><th class=\"l\">verdict</th><th>a</th><th>b</th><th>c</th><th>got</th><th>expected</th><th>differing bits</th></tr>\n",
        all.len(),
        if all.len() > SHOWN_FINDINGS { format!(", the first {SHOWN_FINDINGS} shown") } else { String::new() }
    );
    for f in all.iter().take(SHOWN_FINDINGS) {
        let r = &f.record;
        let hex = |word: u32| format!("0x{word:08x}");
        let differ = f
            .expected
            .map_or(String::new(), |e| format!("0x{:08x}", e ^ r.got));
        out += &format!(
            "<tr class=\"mono\" data-dispatch=\"{}\" data-lane=\"{}\"><td>{0}</td><td>{1}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{differ}</td></tr>\n",
            f.dispatch,
            f.lane,
            esc(f.verdict.name()),
            hex(r.a),
            hex(r.b),
            hex(r.c),
            hex(r.got),
            f.expected.map_or(String::new(), hex),
        );
    }
    out + "</table>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_dispatches_per_second_between_samples() {
        let soak = Soak {
            timeline: vec![[1.0, 10.0, 0.0], [2.0, 30.0, 0.0], [4.0, 40.0, 0.0]],
            ..Soak::default()
        };
        let svg = rate(&soak);
        assert!(svg.contains("data-points=\"2\""), "{svg}");
        assert!(
            svg.contains("data-second=\"2.000\" data-rate=\"20.000\""),
            "{svg}"
        );
        assert!(
            svg.contains("data-second=\"4.000\" data-rate=\"5.000\""),
            "{svg}"
        );
        let one = Soak {
            timeline: vec![[1.0, 1.0, 0.0]],
            ..Soak::default()
        };
        assert!(rate(&one).contains("too few"));
    }

    #[test]
    fn units_sort_by_number_not_text() {
        let mut names = vec![
            "SE10.SA0.WGP1",
            "SE2.SA1.WGP10",
            "SE2.SA1.WGP2",
            "SE2.SA0.WGP0",
        ];
        names.sort_by_key(|n| natural(n));
        assert_eq!(
            names,
            [
                "SE2.SA0.WGP0",
                "SE2.SA1.WGP2",
                "SE2.SA1.WGP10",
                "SE10.SA0.WGP1"
            ]
        );
    }

    /// A soak that could not start (its report holds the error and no
    /// coverage) still draws a page, with its error.
    #[test]
    fn a_soak_that_could_not_start_draws_its_error() {
        let report = SoakReport::from_value(serde_json::json!({"command": "soak", "seed": 1,
            "dispatches": 0, "error": "no <HIP> device", "exit_code": 77}))
        .unwrap();
        let page = render(&report);
        assert!(page.contains("error: no &lt;HIP&gt; device"), "{page}");
        assert!(page.contains("0 units ran waves"));
        assert!(page.contains("no executor (nothing ran)"));
    }
}
