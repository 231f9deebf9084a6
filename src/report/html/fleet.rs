//! The fleet grid: one row per device (a merged report's devices keep their
//! node's host), one column per target, each cell the worst status of that
//! device's cases on that target with its counts, linked to its section.

use super::{anchor, esc, targets_of};
use crate::report::document::{Case, Device};

/// Statuses from worst to best, as a cell picks its colour.
const WORST_FIRST: [&str; 8] = [
    "fail",
    "error",
    "timeout",
    "unsettled",
    "finding",
    "pass",
    "skipped",
    "not_supported",
];

/// Every target any device ran, in first-seen order.
fn all_targets(devices: &[Device]) -> Vec<&str> {
    targets_of(devices.iter().flat_map(|d| &d.cases))
}

/// The targets device `device` ran, in first-seen order.
fn device_targets(device: &Device) -> Vec<&str> {
    targets_of(&device.cases)
}

/// The grid, or a line for a report without devices. When every device ran
/// one target (the emulator's `--target all`: an emulated device per
/// target) the targets are a column of their own rather than a diagonal.
pub fn grid(devices: &[Device]) -> String {
    if devices.is_empty() {
        return "<p class=\"note\">no device ran</p>\n".into();
    }
    let one_each = devices.iter().all(|d| device_targets(d).len() <= 1);
    let targets = all_targets(devices);
    let mut out = String::from(
        "<nav><h2>devices and targets</h2>\n<table class=\"fleet\"><tr><th class=\"l\">node</th><th class=\"l\">device</th><th class=\"l\">executor</th>",
    );
    if one_each {
        out += "<th class=\"l\">target</th><th class=\"l\">cases</th>";
    } else {
        for t in &targets {
            out += &format!("<th>{}</th>", esc(t));
        }
    }
    out += "</tr>\n";
    for (index, device) in devices.iter().enumerate() {
        out += &format!(
            "<tr><td class=\"l\">{}</td><td class=\"l\"><a href=\"#{}\">{}</a></td><td class=\"l mono\">{}</td>",
            esc(&device.host),
            anchor(&[&format!("d{index}")]),
            esc(&device.id),
            esc(device.executor.as_str()),
        );
        let columns = if one_each {
            device_targets(device)
        } else {
            targets.clone()
        };
        for t in &columns {
            if one_each {
                out += &format!("<td class=\"l\">{}</td>", esc(t));
            }
            out += &cell(index, device, t);
        }
        out += "</tr>\n";
    }
    out + "</table></nav>\n"
}

/// One device x target cell.
fn cell(index: usize, device: &Device, target: &str) -> String {
    let cases: Vec<&Case> = device.cases.iter().filter(|c| c.target == target).collect();
    if cases.is_empty() {
        return "<td class=\"l\">-</td>".into();
    }
    let statuses: Vec<&str> = cases.iter().map(|c| c.status.name()).collect();
    let worst = WORST_FIRST
        .iter()
        .find(|s| statuses.contains(s))
        .copied()
        .unwrap_or("error");
    let failed_lanes: u64 = cases.iter().map(|c| c.tally.lanes_failed).sum();
    format!(
        "<td class=\"l st-{worst}\" data-host=\"{}\" data-device=\"{}\" data-target=\"{}\" data-status=\"{worst}\"><a href=\"#{}\">{worst}</a> {}</td>",
        esc(&device.host),
        esc(&device.id),
        esc(target),
        anchor(&[&format!("d{index}"), target]),
        counts_text(&statuses, failed_lanes),
    )
}

/// `3 pass, 1 fail, 2 unsettled, 2 other; 17 lanes failed`, leaving out
/// what is zero. Unsettled is never counted as a pass (issue 42).
fn counts_text(statuses: &[&str], failed_lanes: u64) -> String {
    let count = |s: &[&str]| statuses.iter().filter(|x| s.contains(x)).count();
    let passed = count(&["pass", "finding"]);
    let failed = count(&["fail"]);
    let unsettled = count(&["unsettled"]);
    let parts: Vec<String> = [
        (passed, "pass"),
        (failed, "fail"),
        (unsettled, "unsettled"),
        (statuses.len() - passed - failed - unsettled, "other"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, word)| format!("{n} {word}"))
    .collect();
    let lanes = if failed_lanes > 0 {
        format!("; {failed_lanes} lanes failed")
    } else {
        String::new()
    };
    format!("({}{lanes})", parts.join(", "))
}
