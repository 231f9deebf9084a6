//! Lane pictures: the lane map (waves as rows, lanes as columns, coloured by
//! verdict) of the first waves, and the aggregate views over every lane: by
//! lane in wave (the pattern's 64 lane classes folded onto the wave size) and
//! by lane range (the pattern's buckets), with the counts in a table.

use crate::report::document::{Counts, Pattern};

use super::esc;

/// The verdicts a picture colours, with their colour and the letter
/// `pattern.first_lanes` uses. `finding`: a probe case's lane on a device,
/// whose probe words were classified into findings (issue 30), never a
/// pass or a fail of the ISA.
pub const VERDICTS: [(&str, &str, char); 6] = [
    ("pass", "#8fd18f", '.'),
    ("wrong", "#d62728", 'w'),
    ("unwritten", "#555555", 'u'),
    ("undefined", "#9467bd", 'd'),
    ("unsettled", "#ff9f1c", 's'),
    ("finding", "#1f9fb4", 'f'),
];

/// The colour for lanes not checked (the run stopped before them).
const NOT_CHECKED: &str = "#ffffff";

/// Waves drawn lane by lane at most (the rest of the case is in the
/// aggregate views), so a page stays small whatever `--lanes` was.
pub const MAX_DRAWN_WAVES: u64 = 64;
/// Rectangles one lane map draws at most (whole rows), so a map of lanes
/// alternating between verdicts stays a few tens of kilobytes.
pub const MAX_MAP_RECTS: usize = 512;
/// Waves drawn for a case whose first lanes all passed.
const PASSING_DRAWN_WAVES: u64 = 4;

fn colour(verdict: &str) -> &'static str {
    VERDICTS
        .iter()
        .find(|v| v.0 == verdict)
        .map_or(NOT_CHECKED, |v| v.1)
}

fn verdict_of(letter: char) -> &'static str {
    VERDICTS
        .iter()
        .find(|v| v.2 == letter)
        .map_or("not_checked", |v| v.0)
}

/// The colour key, once per page.
pub fn legend() -> String {
    let mut out = String::from(
        "<section class=\"legend\"><svg width=\"640\" height=\"22\" role=\"img\" aria-label=\"verdict colours\">",
    );
    let mut x = 0;
    let slots = VERDICTS
        .iter()
        .map(|v| (v.0, v.1))
        .chain([("not checked", NOT_CHECKED)]);
    for (name, fill) in slots {
        out += &format!(
            "<rect x=\"{x}\" y=\"4\" width=\"14\" height=\"14\" fill=\"{fill}\" stroke=\"#333\" data-legend=\"{name}\"/><text x=\"{}\" y=\"15\">{name}</text>",
            x + 18
        );
        x += 24 + 7 * name.len();
    }
    out + "</svg><p class=\"note\">finding: a probe case's lane on a device, its modifier words classified as the readings they match (what the device does with bits the ISA leaves open; neither a pass nor a fail).</p></section>\n"
}

/// The verdict letters of the first lanes drawn: `pattern.first_lanes`, or
/// all passing when it is empty; lanes at or past `checked` not checked.
fn letters(pattern: &Pattern, shown: u64, checked: u64) -> Vec<char> {
    let first: Vec<char> = pattern.first_lanes.as_str().chars().collect();
    (0..shown)
        .map(|lane| match first.get(lane as usize) {
            _ if lane >= checked => '-',
            Some(&c) => c,
            None => '.',
        })
        .collect()
}

/// The lane map of the first waves: one row per wave, one column per lane
/// in the wave. Each run of one verdict within a row is one `<rect>`
/// carrying `data-verdict`, `data-lane` (its first lane) and `data-lanes`;
/// rows are drawn while the map holds at most [`MAX_MAP_RECTS`] of them.
pub fn lane_map(pattern: &Pattern, checked: u64) -> String {
    let wave = u64::from(pattern.wave_size).max(1);
    let lanes = pattern.lanes;
    let window = pattern.first_lanes.as_str().len() as u64;
    let cap = if window > 0 {
        MAX_DRAWN_WAVES.min(window.div_ceil(wave))
    } else {
        PASSING_DRAWN_WAVES
    };
    let letters = letters(
        pattern,
        (lanes.div_ceil(wave).min(cap) * wave).min(lanes),
        checked,
    );
    let cell_w = (448 / wave).max(4);
    let (left, top, cell_h) = (40, 14, 6);
    let (mut rects, mut drawn, mut rows) = (String::new(), 0, 0u64);
    for (row, row_letters) in letters.chunks(wave as usize).enumerate() {
        let runs = runs(row_letters);
        if drawn + runs.len() > MAX_MAP_RECTS {
            break;
        }
        drawn += runs.len();
        rows += 1;
        for (offset, count, letter) in runs {
            let first = row as u64 * wave + offset;
            let verdict = verdict_of(letter);
            rects += &format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{cell_h}\" fill=\"{}\" data-verdict=\"{verdict}\" data-lane=\"{first}\" data-lanes=\"{count}\"/>",
                left + offset * cell_w,
                top + row as u64 * cell_h,
                count * cell_w,
                colour(verdict),
            );
        }
    }
    format!(
        "<p>lane map: the first {rows} of {} waves of {wave} lanes, lane by lane</p>\n<svg class=\"lanemap\" width=\"{}\" height=\"{}\" data-wave-size=\"{wave}\" data-waves-drawn=\"{rows}\">{rects}{}</svg>\n",
        lanes.div_ceil(wave),
        left + wave * cell_w,
        top + rows * cell_h,
        grid(wave, rows, (left, top), (cell_w, cell_h)),
    )
}

/// A row's runs of one letter: `(offset in the row, lanes, letter)`.
fn runs(letters: &[char]) -> Vec<(u64, u64, char)> {
    let mut out: Vec<(u64, u64, char)> = Vec::new();
    for (i, &letter) in letters.iter().enumerate() {
        match out.last_mut() {
            Some(run) if run.2 == letter => run.1 += 1,
            _ => out.push((i as u64, 1, letter)),
        }
    }
    out
}

/// Row lines per wave and the axis labels: wave numbers every 8 rows, lane
/// numbers every 8 columns.
fn grid(wave: u64, waves: u64, (left, top): (u64, u64), (cell_w, cell_h): (u64, u64)) -> String {
    let right = left + wave * cell_w;
    let mut path = String::new();
    for row in 0..=waves {
        path += &format!("M{left} {}H{right}", top + row * cell_h);
    }
    let mut out =
        format!("<path d=\"{path}\" stroke=\"#fff\" stroke-width=\"0.6\" fill=\"none\"/>");
    for row in (0..waves).step_by(8) {
        out += &format!(
            "<text x=\"0\" y=\"{}\">w{row}</text>",
            top + row * cell_h + cell_h
        );
    }
    for lane in (0..wave).step_by(8) {
        out += &format!(
            "<text x=\"{}\" y=\"10\">{lane}</text>",
            left + lane * cell_w
        );
    }
    out
}

/// The six verdict counts of a `lane_classes` entry or bucket.
fn counts(c: &Counts) -> [u64; 6] {
    [
        c.pass,
        c.wrong,
        c.unwritten,
        c.undefined,
        c.unsettled,
        c.finding,
    ]
}

/// The worst verdict with a lane in `c` (undefined, wrong, unwritten,
/// unsettled, finding), or pass.
fn worst(c: &[u64; 6]) -> &'static str {
    [
        (3, "undefined"),
        (1, "wrong"),
        (2, "unwritten"),
        (4, "unsettled"),
        (5, "finding"),
    ]
    .into_iter()
    .find(|&(i, _)| c[i] > 0)
    .map_or("pass", |(_, name)| name)
}

/// Both aggregate views, when any lane of the case did not pass.
pub fn aggregates(pattern: &Pattern) -> String {
    let wave = pattern.wave_size.clamp(1, 64) as usize;
    let classes = &pattern.lane_classes;
    let mut by_lane = vec![[0u64; 6]; wave];
    for (class, entry) in classes.iter().enumerate() {
        let c = counts(entry);
        for (sum, n) in by_lane[class % wave].iter_mut().zip(c) {
            *sum += n;
        }
    }
    if by_lane.iter().all(|c| c[1..].iter().all(|&n| n == 0)) {
        return "<p class=\"note\">every lane counted passed</p>\n".into();
    }
    let rows: Vec<(String, [u64; 6])> = by_lane
        .iter()
        .enumerate()
        .map(|(lane, c)| (lane.to_string(), *c))
        .collect();
    let mut out = strip(
        "lane in wave (every lane of the case, lane index mod the wave size)",
        ("lane-class", "lane in wave"),
        &rows,
    );
    let rows: Vec<(String, [u64; 6])> = pattern
        .buckets
        .iter()
        .map(|b| {
            let first = b.first_lane;
            (
                format!("{first}..{}", first + b.lanes - 1),
                counts(&b.counts()),
            )
        })
        .collect();
    out += &strip(
        "lane ranges (the case's lanes in equal ranges)",
        ("bucket", "lanes"),
        &rows,
    );
    out
}

/// One aggregate view: a strip of cells coloured by their worst verdict,
/// then a table of the cells with a lane that did not pass.
fn strip(title: &str, (kind, head): (&str, &str), rows: &[(String, [u64; 6])]) -> String {
    let cell = (448 / rows.len().max(1)).clamp(6, 14);
    let mut out = format!(
        "<p>{}</p>\n<svg class=\"{kind}\" width=\"{}\" height=\"18\">",
        esc(title),
        cell * rows.len()
    );
    let mut table = format!(
        "<table class=\"{kind}\"><tr><th class=\"l\">{head}</th><th>pass</th><th>wrong</th><th>unwritten</th><th>undefined</th><th>unsettled</th><th>finding</th></tr>\n"
    );
    for (i, (label, c)) in rows.iter().enumerate() {
        let verdict = worst(c);
        out += &format!(
            "<rect x=\"{}\" y=\"0\" width=\"{}\" height=\"16\" fill=\"{}\" stroke=\"#fff\" data-{kind}=\"{}\" data-verdict=\"{verdict}\" data-failed=\"{}\"><title>{kind} {}: {} pass, {} wrong, {} unwritten, {} undefined, {} unsettled, {} finding</title></rect>",
            i * cell,
            cell,
            colour(verdict),
            esc(label),
            c[1] + c[2] + c[3],
            esc(label),
            c[0], c[1], c[2], c[3], c[4], c[5],
        );
        if verdict != "pass" {
            table += &format!(
                "<tr data-{kind}=\"{}\"><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(label), esc(label), c[0], c[1], c[2], c[3], c[4], c[5]
            );
        }
    }
    out + "</svg>\n" + &table + "</table>\n"
}
