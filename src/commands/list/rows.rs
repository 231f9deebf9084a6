//! What `xad-harness list` and `xad-harness devices` show: typed rows that
//! serialise to the `--json` documents, and the text lines. The caller prints.
//!
//! Field order in the JSON is the order of the fields below: alphabetical, as
//! the documents have always been written (they were once built as
//! `serde_json` maps, which sort their keys).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::cases::{self, Case};
use crate::platform::hip;
use crate::platform::target::{self, Choice, Feature, Target};

/// One case of the catalogue, as `list --json` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseRow {
    pub description: &'static str,
    pub kernel: &'static str,
    pub name: &'static str,
    pub outputs_per_lane: usize,
    /// What the target's ISA must allow for the case to exist there (empty:
    /// every target's ISA).
    pub requires: Vec<&'static str>,
    pub scalar_args: usize,
    /// The targets that have the case (its kernel is built for each).
    pub targets: Vec<&'static str>,
    pub unsettled: Option<&'static str>,
    pub wave_size: u32,
}

impl From<&Case> for CaseRow {
    fn from(c: &Case) -> CaseRow {
        CaseRow {
            description: c.description,
            kernel: c.kernel,
            name: c.name,
            outputs_per_lane: c.outputs_per_lane,
            requires: c.requires.iter().map(|&f| Feature::name(f)).collect(),
            scalar_args: c.scalar_args,
            targets: target::TARGETS
                .iter()
                .filter(|t| c.runs_on(t))
                .map(|t| t.name)
                .collect(),
            unsettled: c.unsettled,
            wave_size: c.wave_size,
        }
    }
}

/// The cases `choice` has: one target's, or every case.
fn cases_of(choice: Choice) -> Vec<Case> {
    match choice {
        Choice::One(t) => cases::catalogue_for(t),
        Choice::All | Choice::Device => cases::catalogue(),
    }
}

/// `list --json`: the cases of `choice`, in catalogue order.
pub fn case_rows(choice: Choice) -> Vec<CaseRow> {
    cases_of(choice).iter().map(CaseRow::from).collect()
}

/// `list`: one line per case (and one more for a case resting on unsettled
/// ISA behaviour or existing on some targets only), then the count; for every
/// target, the table of targets.
pub fn case_lines(choice: Choice) -> Vec<String> {
    let all = cases_of(choice);
    let width = all.iter().map(|c| c.name.len()).max().unwrap_or(4);
    let mut lines = Vec::new();
    if let Choice::One(t) = choice {
        lines.push(format!(
            "cases of {} ({}: {}):",
            t.name, t.architecture, t.cards
        ));
    }
    for c in &all {
        lines.push(format!(
            "{:<width$}  wave{}  {}",
            c.name, c.wave_size, c.description
        ));
        if let Some(u) = c.unsettled {
            lines.push(format!("{:<width$}          unsettled: {u}", ""));
        }
        // Named only for a case some target lacks, by the features some target lacks.
        let rare: Vec<&str> = c
            .requires
            .iter()
            .filter(|f| !target::TARGETS.iter().all(|t| t.has(**f)))
            .map(|f| f.name())
            .collect();
        if !rare.is_empty() && !matches!(choice, Choice::One(_)) {
            let on: Vec<&str> = target::TARGETS
                .iter()
                .filter(|t| c.runs_on(t))
                .map(|t| t.name)
                .collect();
            lines.push(format!(
                "{:<width$}          only on {} (needs {})",
                "",
                on.join(", "),
                rare.join(", ")
            ));
        }
    }
    lines.push(format!("{} cases", all.len()));
    match choice {
        Choice::One(t) => lines.extend(lacking_lines(t)),
        Choice::All | Choice::Device => lines.extend(target_lines()),
    }
    lines
}

/// The catalogue cases `t` does not have, each with what its ISA lacks (the
/// forms the ISA forbids: gfx9 has no wave32 and no VOP3 literal, gfx10 no
/// VOP3 DPP, ...), so `list --target` says why a case is missing.
fn lacking_lines(t: &Target) -> Vec<String> {
    let missing: Vec<Case> = cases::catalogue()
        .into_iter()
        .filter(|c| !c.runs_on(t))
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    let width = missing.iter().map(|c| c.name.len()).max().unwrap_or(4);
    let mut lines = vec![format!("not on {} (its ISA lacks the form):", t.name)];
    for c in &missing {
        let needs: Vec<&str> = c.lacks_on(t).iter().map(|f| f.name()).collect();
        lines.push(format!("  {:<width$}  needs {}", c.name, needs.join(", ")));
    }
    lines
}

/// The targets: name, architecture, cards, cases (`run --target`).
pub fn target_lines() -> Vec<String> {
    let width = target::TARGETS
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(7);
    let mut lines = vec!["targets (run --target NAME or all):".to_string()];
    for t in target::TARGETS {
        let cases = cases::catalogue_for(t).len();
        // A target build.rs found no LLVM for has no code objects here: say so
        // where the user looks for what the binary can run.
        let unbuilt = crate::platform::embedded::built(t).map_or_else(
            |_| " (not built: no LLVM here knew it)".to_string(),
            |()| String::new(),
        );
        lines.push(format!(
            "  {:<width$}  {:<9}  {cases:>3} cases  {}{unbuilt}",
            t.name, t.architecture, t.cards
        ));
    }
    lines
}

/// `devices --json`: what the HIP runtime reports, and the embedded emulator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DevicesReport {
    pub devices: Vec<DeviceRow>,
    /// Always `emulated gfx1100`: the embedded emulator is always there.
    pub emulator: &'static str,
    /// Why the runtime reports no devices (`None` when it reports some).
    pub no_devices_reason: Option<String>,
    /// The runtime and driver versions, e.g. `HIP runtime 6.4.43483 (driver ...)`.
    pub runtime: String,
    /// The device-visibility variables set (`HIP_VISIBLE_DEVICES`,
    /// `ROCR_VISIBLE_DEVICES`, `CUDA_VISIBLE_DEVICES`) with their values:
    /// the runtime hid and renumbered the devices above by them. `None` when
    /// none is set.
    pub visible_devices: Option<BTreeMap<&'static str, String>>,
}

/// One HIP device: its properties, or why they could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DeviceRow {
    Read {
        arch: String,
        compute_units: u32,
        index: u32,
        memory_bytes: u64,
        name: String,
        /// `DDDD:BB:DD.0`: where the card sits, whatever its index.
        pci_bus_id: String,
        runnable: bool,
        target: Option<&'static str>,
    },
    Unreadable {
        error: String,
        index: u32,
        runnable: bool,
    },
}

impl From<&hip::ProbedDevice> for DeviceRow {
    fn from(d: &hip::ProbedDevice) -> DeviceRow {
        match &d.info {
            Ok(i) => DeviceRow::Read {
                arch: i.arch.clone(),
                compute_units: i.compute_units,
                index: d.index,
                memory_bytes: i.memory_bytes,
                name: i.name.clone(),
                pci_bus_id: i.pci_bus_id(),
                runnable: d.runnable,
                target: d.target.map(|t| t.name),
            },
            // A device whose properties are unreadable is never run on.
            Err(e) => DeviceRow::Unreadable {
                error: e.to_string(),
                index: d.index,
                runnable: false,
            },
        }
    }
}

impl From<&hip::Probe> for DevicesReport {
    fn from(probe: &hip::Probe) -> DevicesReport {
        DevicesReport {
            devices: probe.devices.iter().map(DeviceRow::from).collect(),
            emulator: "emulated gfx1100",
            no_devices_reason: probe.no_devices_reason(),
            runtime: probe.runtime_line(),
            visible_devices: (!probe.visible_devices.is_empty())
                .then(|| probe.visible_devices.iter().cloned().collect()),
        }
    }
}

/// `devices`: the runtime, each device with whether it can run our kernels,
/// and the embedded emulator.
pub fn device_lines(probe: &hip::Probe) -> Vec<String> {
    let mut lines = vec![probe.runtime_line()];
    lines.extend(probe.visibility_line());
    if let Some(reason) = probe.no_devices_reason() {
        lines.push(format!(
            "no HIP devices ({})",
            reason.trim_start_matches("no devices: ")
        ));
    }
    for d in &probe.devices {
        lines.push(match &d.info {
            Ok(i) => format!(
                "  {}  {}  {}  {}  {} CUs  {:.1} GiB  {}",
                d.index,
                i.name,
                i.arch,
                i.pci_bus_id(),
                i.compute_units,
                i.memory_bytes as f64 / (1u64 << 30) as f64,
                match d.target {
                    Some(t) => format!("runs {} code objects", t.name),
                    None => format!(
                        "not runnable (no target of ours: {})",
                        target::names().join(", ")
                    ),
                }
            ),
            Err(e) => format!("  {}  properties unreadable: {e}", d.index),
        });
    }
    lines.push(
        "embedded emulator: emulated gfx1100, or any target with --target (--backend emu; used by --backend auto when no device above is runnable)".into(),
    );
    lines
}

/// Pretty JSON of a listing, as `--json` prints it.
pub fn to_json(value: &impl Serialize) -> Result<String, crate::error::Error> {
    serde_json::to_string_pretty(value).map_err(|e| crate::error::Error::Io(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `--json` documents keep their field names and order.
    #[test]
    fn json_field_names_and_order_are_the_documented_ones() {
        let row = serde_json::to_value(&case_rows(Choice::All)[0]).unwrap();
        let keys: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "description",
                "kernel",
                "name",
                "outputs_per_lane",
                "requires",
                "scalar_args",
                "targets",
                "unsettled",
                "wave_size"
            ]
        );
        // `to_value` sorts keys whatever the struct says; the text keeps the field order.
        let text = to_json(&case_rows(Choice::All)[0]).unwrap();
        let at: Vec<usize> = keys
            .iter()
            .map(|k| text.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "fields out of order:\n{text}"
        );

        let read = DeviceRow::Read {
            arch: "gfx1100".into(),
            compute_units: 48,
            index: 0,
            memory_bytes: 1 << 33,
            name: "card".into(),
            pci_bus_id: "0000:03:00.0".into(),
            runnable: true,
            target: Some("gfx1100"),
        };
        let unreadable = DeviceRow::Unreadable {
            error: "e".into(),
            index: 1,
            runnable: false,
        };
        let doc = DevicesReport {
            devices: vec![read, unreadable],
            emulator: "emulated gfx1100",
            no_devices_reason: None,
            runtime: "HIP runtime 6.4".into(),
            visible_devices: Some([("HIP_VISIBLE_DEVICES", "1,0".to_string())].into()),
        };
        let expected = r#"{
  "devices": [
    {
      "arch": "gfx1100",
      "compute_units": 48,
      "index": 0,
      "memory_bytes": 8589934592,
      "name": "card",
      "pci_bus_id": "0000:03:00.0",
      "runnable": true,
      "target": "gfx1100"
    },
    {
      "error": "e",
      "index": 1,
      "runnable": false
    }
  ],
  "emulator": "emulated gfx1100",
  "no_devices_reason": null,
  "runtime": "HIP runtime 6.4",
  "visible_devices": {
    "HIP_VISIBLE_DEVICES": "1,0"
  }
}"#;
        assert_eq!(to_json(&doc).unwrap(), expected);
    }
}
