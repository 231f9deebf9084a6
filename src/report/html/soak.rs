//! The page of a soak (`soak --html`, or `report SOAK.json --html`): the
//! executor banner, the rate and the host re-check, and a grid of the
//! hardware units the device's waves reported (`SE0.SA1.WGP3`), one row per
//! shader engine and array, shaded by the waves each ran and red where the
//! device counted mismatches; then the findings. Drawn from the soak's JSON
//! (`crate::soak::Outcome`).

use serde_json::Value;

use super::{banner, esc, num, text_of, CSS};

/// Findings listed at most (the JSON has them all).
const SHOWN_FINDINGS: usize = 20;

/// The soak's page.
pub fn render(soak: &Value) -> String {
    let executor = text_of(soak, "executor");
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>xad-harness soak: exit {} [{}]</title>\n<style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>xad-harness soak</h1>\n",
        soak["exit_code"],
        esc(executor)
    );
    page += &banner(executor);
    page += &format!(
        "<p>seed {}; {} dispatches in {:.2} s; {} lane-iterations ({:.1} M xad/s); exit code <b data-exit-code=\"{}\">{}</b></p>\n",
        soak["seed"],
        num(soak, "dispatches"),
        soak["seconds"].as_f64().unwrap_or(0.0),
        num(soak, "xads"),
        soak["xads_per_second"].as_f64().unwrap_or(0.0) / 1e6,
        soak["exit_code"],
        soak["exit_code"],
    );
    page += &format!(
        "<p>host re-check: {} lanes re-computed, {} confirmed, {} checksum-only, {} not reproduced; {} mismatching lane-iterations counted on the device</p>\n",
        num(soak, "lanes_rechecked"),
        num(soak, "confirmed"),
        num(soak, "checksum_only"),
        num(soak, "unreproduced"),
        num(soak, "device_mismatches"),
    );
    for key in ["error", "interrupted"] {
        if let Some(text) = soak[key].as_str() {
            page += &format!("<p class=\"note\">{key}: {}</p>\n", esc(text));
        }
    }
    page += "</header>\n<section class=\"units\">\n<h2>units</h2>\n";
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

/// The grid of units and its table.
fn units(soak: &Value) -> String {
    let mut coverage: Vec<(&str, u64)> = soak["coverage"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_u64().unwrap_or(0)))
        .collect();
    coverage.sort_by_key(|(unit, _)| natural(unit));
    let bad = |unit: &str| soak["unit_mismatches"][unit].as_u64().unwrap_or(0);
    let of = match (
        soak["runtime_compute_units"].as_u64(),
        soak["emulated_compute_units"].as_u64(),
    ) {
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
fn findings(soak: &Value) -> String {
    let all = soak["findings"].as_array().map_or(&[][..], Vec::as_slice);
    if all.is_empty() {
        return "<p>no findings: every re-checked lane came out clean</p>\n".into();
    }
    let mut out = format!(
        "<p>{} finding(s){}</p>\n<table><tr><th>dispatch</th><th>lane</th><th class=\"l\">verdict</th><th>a</th><th>b</th><th>c</th><th>got</th><th>expected</th><th>differing bits</th></tr>\n",
        all.len(),
        if all.len() > SHOWN_FINDINGS { format!(", the first {SHOWN_FINDINGS} shown") } else { String::new() }
    );
    for f in all.iter().take(SHOWN_FINDINGS) {
        let r = &f["record"];
        let hex = |v: &Value, k: &str| format!("0x{:08x}", num(v, k));
        let differ = f["expected"]
            .as_u64()
            .map_or(String::new(), |e| format!("0x{:08x}", e ^ num(r, "got")));
        out += &format!(
            "<tr class=\"mono\" data-dispatch=\"{}\" data-lane=\"{}\"><td>{0}</td><td>{1}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{differ}</td></tr>\n",
            num(f, "dispatch"),
            num(f, "lane"),
            esc(text_of(f, "verdict")),
            hex(r, "a"),
            hex(r, "b"),
            hex(r, "c"),
            hex(r, "got"),
            f["expected"].as_u64().map_or(String::new(), |e| format!("0x{e:08x}")),
        );
    }
    out + "</table>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let page = render(
            &serde_json::json!({"command": "soak", "seed": 1, "dispatches": 0,
            "error": "no <HIP> device", "exit_code": 77}),
        );
        assert!(page.contains("error: no &lt;HIP&gt; device"), "{page}");
        assert!(page.contains("0 units ran waves"));
        assert!(page.contains("no executor (nothing ran)"));
    }
}
