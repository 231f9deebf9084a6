//! Choosing what executes, and for which targets: a HIP device (which runs
//! the code objects of its own target, [`crate::platform::target::for_processor`]), or
//! the embedded emulator (which emulates any target of the table). This is
//! the only place above the [`Device`] seam that knows both exist.

use crate::error::Error;
use crate::platform::device::Device;
use crate::platform::emu::{EmuDevice, EmuOptions};
use crate::platform::hip;
use crate::platform::target::{self, Choice, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// A HIP device that runs one of our targets if there is one, else the emulator.
    Auto,
    /// A HIP device only; none usable is exit 77 (skipped), never an emulator pass.
    Hip,
    /// The embedded emulator only.
    Emu,
}

/// Who a device in a report is: a HIP device as the runtime describes it, or
/// the embedded emulator of one target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Identity {
    Hardware {
        /// The HIP device index (after `HIP_VISIBLE_DEVICES` renumbering).
        index: u32,
        name: String,
        gcn_arch_name: String,
        /// `DDDD:BB:DD.F`, when the runtime reports it.
        #[serde(skip_serializing_if = "Option::is_none")]
        pci_bus_id: Option<String>,
        compute_units: u32,
        memory_bytes: u64,
        runtime_version: String,
        driver_version: String,
    },
    Emulated {
        target: String,
    },
    /// A result whose device was not recorded (a report assembled by hand).
    Unrecorded,
}

impl Identity {
    /// Whether what runs here is emulated: the embedded emulator, or a HIP
    /// device that says so (the emulated HIP device library names each of
    /// its devices `xad-harness emulated <arch>`). The one place that
    /// decides it; microbench refuses such a device (no timing exists there).
    pub fn is_emulated(&self) -> bool {
        match self {
            Identity::Emulated { .. } => true,
            Identity::Hardware { name, .. } => name.to_ascii_lowercase().contains("emulated"),
            Identity::Unrecorded => false,
        }
    }
}

/// What runs one device's cases.
pub enum Runner {
    /// A HIP device, used for every target it runs.
    Hip(Box<hip::HipDevice>),
    /// The emulated device of the target running now (replaced, and so
    /// released, when the next target starts).
    Emulator(Option<Box<EmuDevice>>),
    /// A device seen but unable to run what was asked (its gcnArchName runs
    /// none of the asked targets): its cases are reported `not_supported`
    /// with this reason, and nothing is launched.
    Unsupported(String),
}

/// One device of the run, with the targets it runs in order.
pub struct Unit {
    /// How reports name it: `hip:<index>` or `emulator:<target>`.
    pub id: String,
    pub identity: Identity,
    /// What executes its results, for every line and report.
    pub executor: String,
    pub targets: Vec<&'static Target>,
    pub runner: Runner,
}

impl Unit {
    /// The device that runs `target`'s cases: the HIP device (the same one
    /// for every target), or a new emulated device of `target`; `None` for
    /// a device that runs nothing asked.
    pub fn device_for(&mut self, target: &'static Target) -> Option<&mut dyn Device> {
        self.device_with(target, EmuOptions::default())
    }

    /// As [`device_for`](Self::device_for), with the emulator's knobs
    /// (`run --step-budget`); a HIP device has none (its guard against an
    /// endless kernel is the watchdog).
    pub fn device_with(
        &mut self,
        target: &'static Target,
        emu: EmuOptions,
    ) -> Option<&mut dyn Device> {
        match &mut self.runner {
            Runner::Hip(device) => Some(device.as_mut()),
            Runner::Emulator(current) => Some(
                current
                    .insert(Box::new(EmuDevice::for_target_with_options(target, emu)))
                    .as_mut(),
            ),
            Runner::Unsupported(_) => None,
        }
    }

    /// Why this unit runs nothing: the reason a device runs none of what was
    /// asked, or "no device".
    pub fn why_not(&self) -> &str {
        match &self.runner {
            Runner::Unsupported(why) => why,
            _ => "no device",
        }
    }

    /// Whether this unit is a HIP device (those run concurrently).
    pub fn is_hip(&self) -> bool {
        matches!(self.runner, Runner::Hip(_))
    }

    fn emulator(target: &'static Target) -> Unit {
        Unit {
            id: format!("emulator:{}", target.name),
            identity: Identity::Emulated {
                target: target.name.to_string(),
            },
            executor: format!("emulated {}", target.name),
            targets: vec![target],
            runner: Runner::Emulator(None),
        }
    }
}

/// The chosen devices and notes for the report (why `auto` chose the
/// emulator; targets a device cannot run).
pub struct Selected {
    pub units: Vec<Unit>,
    pub notes: Vec<String>,
}

impl Selected {
    /// The emulator, one emulated device per target.
    pub fn emulated(targets: Vec<&'static Target>, notes: Vec<String>) -> Selected {
        Selected {
            units: targets.into_iter().map(Unit::emulator).collect(),
            notes,
        }
    }

    /// Every target of the run, each once, in order of first appearance.
    pub fn targets(&self) -> Vec<&'static Target> {
        let mut all: Vec<&'static Target> = Vec::new();
        for t in self.units.iter().flat_map(|u| &u.targets) {
            if !all.iter().any(|a| a.name == t.name) {
                all.push(t);
            }
        }
        all
    }

    /// What executes the run, for the report's one-line summary: the HIP
    /// device(s), or the emulator with the targets it emulates.
    pub fn describe(&self) -> String {
        let emulated: Vec<&str> = self
            .units
            .iter()
            .filter(|u| matches!(u.runner, Runner::Emulator(_)))
            .flat_map(|u| u.targets.iter().map(|t| t.name))
            .collect();
        if !emulated.is_empty() {
            return match emulated.as_slice() {
                [one] => format!("emulated {one}"),
                many => format!("emulated {} ({} targets)", many.join(", "), many.len()),
            };
        }
        match self.units.as_slice() {
            [one] => one.executor.clone(),
            many => format!(
                "{} devices: {}",
                many.len(),
                many.iter()
                    .map(|u| format!("{} {}", u.id, u.executor))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }
}

/// The emulator's targets for `choice`.
fn emulated(choice: Choice) -> Vec<&'static Target> {
    match choice {
        Choice::Device => {
            vec![target::find(target::DEFAULT).expect("the default target is in the table")]
        }
        Choice::One(t) => vec![t],
        Choice::All => target::TARGETS.iter().collect(),
    }
}

/// One line on why no HIP device can run what was asked: runtime version,
/// and either the statuses that said "no devices" or the devices seen with
/// their archs.
fn no_device_reason(probe: &hip::Probe, wanted: &str) -> String {
    let devices = match probe.no_devices_reason() {
        Some(reason) => reason,
        None => {
            let seen: Vec<String> = probe.devices.iter().map(describe).collect();
            format!(
                "devices seen: {}; none runs {wanted} code objects",
                seen.join(", ")
            )
        }
    };
    format!("{}; {devices}", probe.runtime_line())
}

fn describe(d: &hip::ProbedDevice) -> String {
    match &d.info {
        Ok(info) => format!("{} ({}, {})", d.index, info.name, info.arch),
        Err(e) => format!("{} (properties unreadable: {e})", d.index),
    }
}

/// What a device must run to be chosen for `choice`, in words.
fn wanted(choice: Choice) -> String {
    match choice {
        Choice::One(t) => t.name.to_string(),
        Choice::Device | Choice::All => "any of our targets'".to_string(),
    }
}

/// Whether device `d` can be chosen for `choice`.
fn fits(d: &hip::ProbedDevice, choice: Choice) -> bool {
    match choice {
        Choice::One(t) => d.runs(t),
        Choice::Device | Choice::All => d.runnable,
    }
}

/// The targets device `d` runs for `choice`, and a note naming those of
/// `--target all` it cannot run (a device runs its own target and the
/// generic one covering it).
fn device_targets(d: &hip::ProbedDevice, choice: Choice) -> (Vec<&'static Target>, Option<String>) {
    match choice {
        Choice::One(t) => (vec![t], None),
        Choice::Device => (d.target.into_iter().collect(), None),
        Choice::All => {
            let (runs, not): (Vec<&'static Target>, Vec<&'static Target>) =
                target::TARGETS.iter().partition(|t| d.runs(t));
            let names: Vec<&str> = not.iter().map(|t| t.name).collect();
            let note = (!names.is_empty()).then(|| {
                format!(
                    "device {} does not run {} code objects; not run",
                    describe(d),
                    names.join(", ")
                )
            });
            (runs, note)
        }
    }
}

/// The devices `--device` names, or every device when `None`; an index
/// the runtime does not list is a usage error (with no devices at all,
/// `hip` reports the absence, exit 77, and `auto` falls back to the
/// emulator, which is device 0).
fn pick<'p>(
    probe: &'p hip::Probe,
    indices: Option<&[usize]>,
    choice: BackendChoice,
) -> Result<Vec<&'p hip::ProbedDevice>, Error> {
    let Some(indices) = indices else {
        return Ok(probe.devices.iter().collect());
    };
    let mut picked: Vec<&hip::ProbedDevice> = Vec::new();
    for (n, &i) in indices.iter().enumerate() {
        if indices[..n].contains(&i) {
            // Two units of one device would run its cases twice, at once.
            return Err(Error::Usage(format!("--device {i} is given twice")));
        }
        match probe.devices.iter().find(|d| d.index as usize == i) {
            Some(d) => picked.push(d),
            None if probe.devices.is_empty() && (choice == BackendChoice::Hip || i == 0) => {}
            None => {
                return Err(Error::Usage(format!(
                    "--device {i} is out of range: the HIP runtime reports {} device(s){}",
                    probe.devices.len(),
                    if choice == BackendChoice::Auto {
                        " and the emulator is device 0"
                    } else {
                        ""
                    }
                )))
            }
        }
    }
    Ok(picked)
}

/// A report's identity of a probed device.
fn identity(probe: &hip::Probe, d: &hip::ProbedDevice) -> Identity {
    let version = |v: &Result<hip::RuntimeVersion, crate::platform::device::DeviceError>| match v {
        Ok(v) => v.to_string(),
        Err(e) => format!("unknown ({e})"),
    };
    let info = d.info.as_ref().ok();
    Identity::Hardware {
        index: d.index,
        name: info.map_or_else(String::new, |i| i.name.clone()),
        gcn_arch_name: info.map_or_else(String::new, |i| i.arch.clone()),
        pci_bus_id: info.map(hip::DeviceInfo::pci_bus_id),
        compute_units: info.map_or(0, |i| i.compute_units),
        memory_bytes: info.map_or(0, |i| i.memory_bytes),
        runtime_version: version(&probe.runtime_version),
        driver_version: version(&probe.driver_version),
    }
}

/// Open what `choice` (backend), `indices` (`--device`, every device when
/// `None`) and `targets` (`--target`) ask for. Every picked device that runs
/// an asked target is a unit of its own (a multi-GPU host tests all of them);
/// with `hip`, devices that run none are units whose cases are
/// `not_supported` (nothing launches on them), and so is every device
/// `--device` lists that runs none beside ones that do (whatever the
/// backend: a listed device is never dropped). No devices at all is
/// [`Error::Skipped`] (exit 77). With `auto`, no fitting device means the
/// emulator, with a note saying why.
pub fn select(
    choice: BackendChoice,
    indices: Option<&[usize]>,
    targets: Choice,
) -> Result<Selected, Error> {
    if choice == BackendChoice::Emu {
        return emulator_only(indices, targets);
    }
    select_with(&hip::probe(), choice, indices, targets)
}

/// `--backend emu`: the emulator, which is device 0.
fn emulator_only(indices: Option<&[usize]>, targets: Choice) -> Result<Selected, Error> {
    match indices {
        Some(list) if list.iter().any(|&i| i != 0) => Err(Error::Usage(format!(
            "--device {} is out of range: the emulator is device 0",
            list.iter().find(|&&i| i != 0).copied().unwrap_or_default()
        ))),
        _ => Ok(Selected::emulated(emulated(targets), Vec::new())),
    }
}

/// [`select`] with what the HIP runtime was seen to have (`probe`; not
/// looked at for `emu`), for a command that words "no device" its own way.
pub fn select_with(
    probe: &hip::Probe,
    choice: BackendChoice,
    indices: Option<&[usize]>,
    targets: Choice,
) -> Result<Selected, Error> {
    if choice == BackendChoice::Emu {
        return emulator_only(indices, targets);
    }
    let what = wanted(targets);
    let picked = pick(probe, indices, choice)?;
    let (fit, unfit): (Vec<_>, Vec<_>) = picked.into_iter().partition(|d| fits(d, targets));
    // Devices of another card are reported (their cases not_supported) when
    // one target was asked for with `hip`: the Kubernetes case, a node
    // labelled for one card carrying another. Otherwise, with none fitting,
    // there is nothing to report them against (`auto` takes the emulator).
    let asked = match (choice, targets) {
        (BackendChoice::Hip, Choice::One(t)) => Some(t),
        _ => None,
    };
    // A device named in `--device` is never left out: the user pinned it, so
    // a run that passes on the others must not pass without a word about it
    // (a fleet job pinning the card passed with the wrong card in the node).
    let listed = indices.is_some();
    if fit.is_empty() && (unfit.is_empty() || asked.is_none()) {
        return match choice {
            BackendChoice::Hip => Err(Error::Skipped(format!(
                "no HIP device that runs {what} code objects: {}; nothing was executed (use --backend emu or auto for the emulator)",
                no_device_reason(probe, &what)
            ))),
            _ => Ok(Selected::emulated(
                emulated(targets),
                vec![format!(
                    "no usable HIP device ({}); running on the embedded emulator",
                    no_device_reason(probe, &what)
                )],
            )),
        };
    }
    let mut selected = Selected {
        units: Vec::new(),
        notes: Vec::new(),
    };
    for d in fit {
        let (run, note) = device_targets(d, targets);
        let device = hip::HipDevice::open(d.index)
            .map_err(|e| Error::device(format!("opening HIP device {}", d.index), e))?;
        selected.notes.extend(note);
        selected.units.push(Unit {
            id: format!("hip:{}", d.index),
            identity: identity(probe, d),
            executor: crate::platform::device::Device::executor(&device).to_string(),
            targets: run,
            runner: Runner::Hip(Box::new(device)),
        });
    }
    let report_unfit = if selected.units.is_empty() {
        // `hip`, and devices that run none of what was asked: each is
        // reported, its cases not_supported, so the report says what the
        // node has (a Kubernetes node labelled for the wrong card, say).
        asked.is_some()
    } else {
        // Some devices run it: the listed ones that do not are reported
        // beside them, so the run is 77, not a pass (a device that ran
        // nothing makes a multi-GPU run 77, docs/reports.md "Statuses").
        listed
    };
    if report_unfit {
        add_unfit(&mut selected, probe, unfit, targets, indices);
    }
    Ok(selected)
}

/// Devices that run none of what was asked, each a unit whose cases are
/// `not_supported`, in `--device` order when there is one.
fn add_unfit(
    selected: &mut Selected,
    probe: &hip::Probe,
    unfit: Vec<&hip::ProbedDevice>,
    targets: Choice,
    indices: Option<&[usize]>,
) {
    let what = wanted(targets);
    for d in unfit {
        let reason = format!("device {} does not run {what} code objects", describe(d));
        selected.units.push(Unit {
            id: format!("hip:{}", d.index),
            identity: identity(probe, d),
            executor: format!("hardware: {}", describe(d)),
            // The asked target, to report its cases against; with no
            // single target asked, none (the device then has no cases,
            // and its exit code is 77 all the same).
            targets: match targets {
                Choice::One(t) => vec![t],
                Choice::Device | Choice::All => Vec::new(),
            },
            runner: Runner::Unsupported(reason),
        });
    }
    // In `--device` order, as listed, rather than fitting ones first.
    if let Some(order) = indices {
        selected.units.sort_by_key(|u| {
            order
                .iter()
                .position(|&i| u.id == format!("hip:{i}"))
                .unwrap_or(usize::MAX)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hardware(name: &str) -> Identity {
        Identity::Hardware {
            index: 0,
            name: name.to_string(),
            gcn_arch_name: "gfx1100".into(),
            pci_bus_id: None,
            compute_units: 96,
            memory_bytes: 1 << 34,
            runtime_version: "6.4".into(),
            driver_version: "6.4".into(),
        }
    }

    #[test]
    fn emulated_is_the_emulator_or_a_hip_device_that_says_so() {
        assert!(hardware("xad-harness emulated gfx1100").is_emulated());
        assert!(hardware("XAD-HARNESS EMULATED gfx1100").is_emulated());
        assert!(!hardware("AMD Radeon RX 7900 XTX").is_emulated());
        assert!(Identity::Emulated {
            target: "gfx1100".into()
        }
        .is_emulated());
        assert!(!Identity::Unrecorded.is_emulated());
    }
}
