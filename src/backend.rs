//! Choosing what executes: a HIP device, or the embedded emulator. This is the
//! only place above the [`Device`] seam that knows both exist.

use crate::device::Device;
use crate::emu::EmuDevice;
use crate::error::Error;
use crate::hip;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// A HIP device that runs gfx1100 code if there is one, else the emulator.
    Auto,
    /// A HIP device only; none usable is exit 77 (skipped), never an emulator pass.
    Hip,
    /// The embedded emulator only.
    Emu,
}

/// The chosen executor and, when `auto` had to choose, why.
pub struct Selected {
    pub device: Box<dyn Device>,
    pub note: Option<String>,
}

/// One line on why no HIP device can run our kernels: runtime version, and
/// either the statuses that said "no devices" or the devices seen and their archs.
fn no_device_reason(probe: &hip::Probe) -> String {
    let devices = match probe.no_devices_reason() {
        Some(reason) => reason,
        None => {
            let seen: Vec<String> = probe.devices.iter().map(describe).collect();
            format!("devices seen: {}; none runs gfx1100 code", seen.join(", "))
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

/// Open what `choice` and `index` ask for.
pub fn select(choice: BackendChoice, index: Option<usize>) -> Result<Selected, Error> {
    if choice == BackendChoice::Emu {
        return match index {
            None | Some(0) => Ok(Selected { device: Box::new(EmuDevice::new()), note: None }),
            Some(i) => Err(Error::Usage(format!("--device {i} is out of range: the emulator is device 0"))),
        };
    }
    let probe = hip::probe();
    let chosen = match index {
        Some(i) => match probe.devices.iter().find(|d| d.index as usize == i) {
            Some(d) if d.runnable => Some(d.index),
            Some(d) if choice == BackendChoice::Hip => {
                return Err(Error::Skipped(format!(
                    "device {} cannot run gfx1100 code objects; refusing to launch",
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
                    if choice == BackendChoice::Auto { " and the emulator is device 0" } else { "" }
                )))
            }
        },
        None => probe.devices.iter().find(|d| d.runnable).map(|d| d.index),
    };
    match (chosen, choice) {
        (Some(i), _) => {
            let device = hip::HipDevice::open(i).map_err(|e| Error::device(format!("opening HIP device {i}"), e))?;
            Ok(Selected { device: Box::new(device), note: None })
        }
        (None, BackendChoice::Hip) => Err(Error::Skipped(format!(
            "no HIP device that runs gfx1100 code: {}; nothing was executed (use --backend emu or auto for the emulator)",
            no_device_reason(&probe)
        ))),
        (None, _) => Ok(Selected {
            device: Box::new(EmuDevice::new()),
            note: Some(format!("no usable gfx1100 HIP device ({}); running on the embedded emulator", no_device_reason(&probe))),
        }),
    }
}
