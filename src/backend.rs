//! Choosing what executes, and for which targets: a HIP device (which runs
//! the code objects of its own target, [`crate::target::for_processor`]), or
//! the embedded emulator (which emulates any target of the table). This is
//! the only place above the [`Device`] seam that knows both exist.

use crate::device::Device;
use crate::emu::EmuDevice;
use crate::error::Error;
use crate::hip;
use crate::target::{self, Choice, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// A HIP device that runs one of our targets if there is one, else the emulator.
    Auto,
    /// A HIP device only; none usable is exit 77 (skipped), never an emulator pass.
    Hip,
    /// The embedded emulator only.
    Emu,
}

/// What executes a run: one HIP device for every target it runs, or a fresh
/// emulated device per target.
pub enum Executor {
    Hip(Box<dyn Device>),
    /// The emulated device of the target running now (replaced, and so
    /// released, when the next target starts).
    Emulator(Option<Box<EmuDevice>>),
}

/// The chosen executor, the targets to run in order, and notes for the
/// report (why `auto` chose the emulator; targets a device cannot run).
pub struct Selected {
    pub executor: Executor,
    pub targets: Vec<&'static Target>,
    pub notes: Vec<String>,
}

impl Selected {
    /// The device that runs `target`'s cases: the HIP device (the same one for
    /// every target), or a new emulated device of `target`.
    pub fn device_for(&mut self, target: &'static Target) -> &mut dyn Device {
        match &mut self.executor {
            Executor::Hip(device) => device.as_mut(),
            Executor::Emulator(current) => current
                .insert(Box::new(EmuDevice::for_target(target)))
                .as_mut(),
        }
    }

    /// What executes the run, for the report: the HIP device, or the
    /// emulator with the targets it emulates.
    pub fn describe(&self) -> String {
        match &self.executor {
            Executor::Hip(device) => device.executor().to_string(),
            Executor::Emulator(_) => match self.targets.as_slice() {
                [one] => format!("emulated {}", one.name),
                many => format!(
                    "emulated {} ({} targets)",
                    many.iter().map(|t| t.name).collect::<Vec<_>>().join(", "),
                    many.len()
                ),
            },
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

/// Open what `choice` (backend), `index` (`--device`) and `targets`
/// (`--target`) ask for.
pub fn select(
    choice: BackendChoice,
    index: Option<usize>,
    targets: Choice,
) -> Result<Selected, Error> {
    if choice == BackendChoice::Emu {
        return match index {
            None | Some(0) => Ok(Selected {
                executor: Executor::Emulator(None),
                targets: emulated(targets),
                notes: Vec::new(),
            }),
            Some(i) => Err(Error::Usage(format!(
                "--device {i} is out of range: the emulator is device 0"
            ))),
        };
    }
    let probe = hip::probe();
    let what = wanted(targets);
    let chosen = match index {
        Some(i) => match probe.devices.iter().find(|d| d.index as usize == i) {
            Some(d) if fits(d, targets) => Some(d),
            Some(d) if choice == BackendChoice::Hip => {
                return Err(Error::Skipped(format!(
                    "device {} cannot run {what} code objects; refusing to launch",
                    describe(d)
                )))
            }
            Some(_) => None,
            // No devices at all: `hip` reports the absence (77); `auto` falls
            // back to the emulator, which is device 0.
            None if probe.devices.is_empty() && (choice == BackendChoice::Hip || i == 0) => None,
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
        },
        None => probe.devices.iter().find(|d| fits(d, targets)),
    };
    match (chosen, choice) {
        (Some(d), _) => {
            let (run, note) = device_targets(d, targets);
            let device = hip::HipDevice::open(d.index).map_err(|e| Error::device(format!("opening HIP device {}", d.index), e))?;
            Ok(Selected { executor: Executor::Hip(Box::new(device)), targets: run, notes: note.into_iter().collect() })
        }
        (None, BackendChoice::Hip) => Err(Error::Skipped(format!(
            "no HIP device that runs {what} code objects: {}; nothing was executed (use --backend emu or auto for the emulator)",
            no_device_reason(&probe, &what)
        ))),
        (None, _) => Ok(Selected {
            executor: Executor::Emulator(None),
            targets: emulated(targets),
            notes: vec![format!(
                "no usable HIP device ({}); running on the embedded emulator",
                no_device_reason(&probe, &what)
            )],
        }),
    }
}
