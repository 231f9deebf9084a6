//! The fleet grid: one row per device (a merged report's devices keep their
//! node's host), one column per target, each cell the worst status of that
//! device's cases on that target with its counts, linked to its section.

use serde_json::Value;

use super::{anchor, esc, num, text_of};

/// Statuses from worst to best, as a cell picks its colour.
const WORST_FIRST: [&str; 7] = [
    "fail",
    "error",
    "timeout",
    "unsettled",
    "pass",
    "skipped",
    "not_supported",
];

/// Every target any device ran, in first-seen order.
fn all_targets(devices: &[Value]) -> Vec<&str> {
    let mut targets: Vec<&str> = Vec::new();
    for device in devices {
        for case in device["cases"].as_array().into_iter().flatten() {
            let t = text_of(case, "target");
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
    }
    targets
}

/// The grid, or nothing for a report without devices.
pub fn grid(devices: &[Value]) -> String {
    if devices.is_empty() {
        return "<p class=\"note\">no device ran</p>\n".into();
    }
    let targets = all_targets(devices);
    let mut out = String::from(
        "<nav><h2>devices and targets</h2>\n<table class=\"fleet\"><tr><th class=\"l\">node</th><th class=\"l\">device</th><th class=\"l\">executor</th>",
    );
    for t in &targets {
        out += &format!("<th>{}</th>", esc(t));
    }
    out += "</tr>\n";
    for (index, device) in devices.iter().enumerate() {
        out += &format!(
            "<tr><td class=\"l\">{}</td><td class=\"l\"><a href=\"#{}\">{}</a></td><td class=\"l mono\">{}</td>",
            esc(text_of(device, "host")),
            anchor(&[&format!("d{index}")]),
            esc(text_of(device, "id")),
            esc(text_of(device, "executor")),
        );
        for t in &targets {
            out += &cell(index, device, t);
        }
        out += "</tr>\n";
    }
    out + "</table></nav>\n"
}

/// One device x target cell.
fn cell(index: usize, device: &Value, target: &str) -> String {
    let cases: Vec<&Value> = device["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| text_of(c, "target") == target)
        .collect();
    if cases.is_empty() {
        return "<td class=\"l\">-</td>".into();
    }
    let statuses: Vec<&str> = cases.iter().map(|c| text_of(c, "status")).collect();
    let worst = WORST_FIRST
        .iter()
        .find(|s| statuses.contains(s))
        .copied()
        .unwrap_or("error");
    let count = |s: &str| statuses.iter().filter(|&&x| x == s).count();
    let failed_lanes: u64 = cases.iter().map(|c| num(&c["tally"], "lanes_failed")).sum();
    format!(
        "<td class=\"l st-{worst}\" data-host=\"{}\" data-device=\"{}\" data-target=\"{}\" data-status=\"{worst}\"><a href=\"#{}\">{worst}</a><br>{} pass, {} fail, {} other; {failed_lanes} lanes failed</td>",
        esc(text_of(device, "host")),
        esc(text_of(device, "id")),
        esc(target),
        anchor(&[&format!("d{index}"), target]),
        count("pass") + count("unsettled"),
        count("fail"),
        cases.len() - count("pass") - count("unsettled") - count("fail"),
    )
}
