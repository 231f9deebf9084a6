//! The page of a microbench (`microbench --html`, or `report MICROBENCH.json
//! --html`): per instruction form, the latency (dependent chain, one wave)
//! and the throughput (independent chains, many waves) in counter ticks per
//! op, each the median over launches with the fewest and most ticks of any
//! launch drawn as its spread, and the ratio to `v_xad_u32`. Microbench runs
//! on hardware only (the emulator has no timing), so the banner is the
//! device's; drawn from the microbench's JSON
//! (`crate::report::document::microbench`).

use super::{banner, esc, page_head};
use crate::report::document::microbench::{Microbench, Row};

/// Width of a chart's bar area, in pixels.
const BAR_WIDTH: f64 = 360.0;

/// The microbench's page.
pub fn render(report: &Microbench) -> String {
    let executor = report.executor.as_str();
    let mut page = page_head(&format!(
        "xad-harness microbench: {} [{executor}]",
        report.target
    ));
    page += "<header>\n<h1>xad-harness microbench</h1>\n";
    page += &banner(executor);
    page += &format!(
        "<p>target {}; counter: {}; {} ops per timed region; latency: a dependent chain, 1 wave alone; throughput: {} independent chains per wave, {} waves; medians of {} launches after a warm-up, the bars' whiskers the fewest and most ticks of any launch</p>\n</header>\n",
        esc(&report.target),
        esc(&report.counter_instruction),
        report.ops_per_region,
        report.independent_chains,
        report.throughput_waves,
        report.repeat,
    );
    let rows = &report.rows;
    for (measure, title) in [
        (Measure::Latency, "latency: ticks per op, dependent chain"),
        (
            Measure::Throughput,
            "throughput: ticks per op per wave, independent chains",
        ),
    ] {
        page += &format!("<section class=\"{}\">\n<h2>{title}</h2>\n", measure.key());
        page += &banner(executor);
        page += &chart(rows, measure);
        page += &table(rows, measure);
        page += "</section>\n";
    }
    page + "</body>\n</html>\n"
}

/// Which of a row's two measurements a chart draws.
#[derive(Clone, Copy)]
enum Measure {
    Latency,
    Throughput,
}

impl Measure {
    fn key(self) -> &'static str {
        match self {
            Measure::Latency => "latency",
            Measure::Throughput => "throughput",
        }
    }

    /// A row's median, fewest and most ticks.
    fn of(self, row: &Row) -> (f64, f64, f64) {
        let (median, [lo, hi]) = match self {
            Measure::Latency => (row.latency, row.latency_spread),
            Measure::Throughput => (row.throughput, row.throughput_spread),
        };
        (median, lo, hi)
    }

    fn ratio(self, row: &Row) -> Option<f64> {
        match self {
            Measure::Latency => row.latency_ratio,
            Measure::Throughput => row.throughput_ratio,
        }
    }
}

/// One bar per form: the median, with a whisker from the fewest to the
/// most ticks of any launch; all on one scale.
fn chart(rows: &[Row], measure: Measure) -> String {
    let key = measure.key();
    let most = rows
        .iter()
        .map(|r| measure.of(r).2.max(measure.of(r).0))
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let scale = |x: f64| x / most * BAR_WIDTH;
    let (left, row_h) = (190.0, 24.0);
    let mut out = format!(
        "<svg class=\"bars\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{key} per form\">",
        left + BAR_WIDTH + 80.0,
        row_h * rows.len() as f64 + 4.0
    );
    for (i, row) in rows.iter().enumerate() {
        let (median, lo, hi) = measure.of(row);
        let y = row_h * i as f64 + 2.0;
        let form = row.instructions.as_str();
        out += &format!(
            "<text x=\"0\" y=\"{}\">{}</text><rect x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"16\" fill=\"#4c78a8\" data-form=\"{}\" data-median=\"{median}\" data-min=\"{lo}\" data-max=\"{hi}\"><title>{}: median {median:.2}, fewest {lo:.2}, most {hi:.2}</title></rect><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#222\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{}\">{median:.2}</text>",
            y + 13.0,
            esc(form),
            scale(median),
            esc(form),
            esc(form),
            left + scale(lo),
            left + scale(hi),
            y + 8.0,
            y + 8.0,
            left + scale(hi.max(median)) + 6.0,
            y + 13.0,
        );
    }
    out + "</svg>\n"
}

/// The numbers behind a chart.
fn table(rows: &[Row], measure: Measure) -> String {
    let mut out = String::from(
        "<table><tr><th class=\"l\">form</th><th>median</th><th>fewest</th><th>most</th><th>ratio to v_xad_u32</th></tr>\n",
    );
    for row in rows {
        let (median, lo, hi) = measure.of(row);
        let ratio = measure
            .ratio(row)
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}"));
        out += &format!(
            "<tr><td class=\"l\">{}</td><td>{median:.2}</td><td>{lo:.2}</td><td>{hi:.2}</td><td>{ratio}</td></tr>\n",
            esc(&row.instructions)
        );
    }
    out + "</table>\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A report as `microbench --json` writes it, numbers made up for the
    /// drawing only, from a synthetic executor (no device was timed).
    fn report() -> Microbench {
        let row = |form: &str, lat: f64, thr: f64| {
            json!({"form": "xad", "instructions": form, "latency": lat, "latency_spread": [lat - 0.5, lat + 1.0],
                   "latency_ratio": lat / 4.0, "throughput": thr, "throughput_spread": [thr, thr + 0.25],
                   "throughput_ratio": thr / 1.0})
        };
        Microbench::from_value(json!({"command": "microbench", "executor": "emulated synthetic (test fixture)", "target": "gfx1100",
               "counter": "shader_cycles20", "counter_instruction": "s_getreg_b32 SHADER_CYCLES", "ops_per_region": 4096,
               "iterations": 16, "latency_waves": 1, "independent_chains": 8, "throughput_waves": 16, "repeat": 5,
               "rows": [row("v_xad_u32", 4.0, 1.0), row("v_xor_b32 + v_add_nc_u32", 8.0, 2.0), row("v_add3_u32", 4.0, 1.0)]}))
        .unwrap()
    }

    #[test]
    fn each_form_is_a_bar_with_its_median_and_spread_under_the_banner() {
        let page = render(&report());
        assert_eq!(
            page.matches("data-form=").count(),
            6,
            "three forms, two charts"
        );
        assert!(page.contains("data-form=\"v_xor_b32 + v_add_nc_u32\" data-median=\"8\" data-min=\"7.5\" data-max=\"9\""), "{page}");
        assert!(
            page.contains(
                "data-form=\"v_xad_u32\" data-median=\"1\" data-min=\"1\" data-max=\"1.25\""
            ),
            "{page}"
        );
        assert_eq!(
            page.matches("data-executor=\"emulated synthetic (test fixture)\"")
                .count(),
            3,
            "a banner on the page and on each section"
        );
        assert!(
            page.contains("<td>2.00</td>"),
            "the ratio of the two-instruction form"
        );
        assert!(!page.contains("<script"));
    }
}
