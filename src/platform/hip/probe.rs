//! What the HIP runtime sees: its version, whether it initialised, and each
//! device with the target whose code objects it runs ([`crate::platform::target`]). Never fails and never panics: a
//! machine without a GPU is a normal answer ("no devices", with the status).

use super::checked::{self, DeviceInfo};
use crate::platform::codeobj::TargetId;
use crate::platform::device::DeviceError;
use crate::platform::embedded::target_of;
use crate::platform::target::Target;

/// A HIP version number, `major * 10_000_000 + minor * 100_000 + patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeVersion {
    pub raw: i32,
}

impl RuntimeVersion {
    pub fn major(self) -> i32 {
        self.raw / 10_000_000
    }
    pub fn minor(self) -> i32 {
        self.raw / 100_000 % 100
    }
    pub fn patch(self) -> i32 {
        self.raw % 100_000
    }
}

impl std::fmt::Display for RuntimeVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.raw < 0 {
            write!(f, "(invalid version number {})", self.raw)
        } else {
            write!(f, "{}.{}.{}", self.major(), self.minor(), self.patch())
        }
    }
}

/// `HIP runtime 5.2.21153`, or what went wrong asking.
pub fn runtime_label(version: &Result<RuntimeVersion, DeviceError>) -> String {
    match version {
        Ok(v) => format!("HIP runtime {v}"),
        Err(e) => format!("HIP runtime of unknown version ({e})"),
    }
}

/// Whether code built for `target` (e.g. `gfx1100`) runs on a device whose
/// gcnArchName is `device_arch`.
pub fn target_runs_on(target: &str, device_arch: &str) -> bool {
    match (TargetId::parse(target), TargetId::parse(device_arch)) {
        (Some(code), Some(device)) => code.runs_on(&device),
        _ => false,
    }
}

impl ProbedDevice {
    /// Whether this device runs `target`'s code objects.
    pub fn runs(&self, target: &Target) -> bool {
        self.info
            .as_ref()
            .is_ok_and(|i| target.runs_on(crate::platform::target::processor_of(&i.arch)))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbedDevice {
    pub index: u32,
    /// Properties, or why they could not be read.
    pub info: Result<DeviceInfo, DeviceError>,
    /// The target whose code objects it runs: its processor's own, else a
    /// generic target covering it ([`crate::platform::target::for_processor`]); `None`
    /// when no target of ours runs on it (or its properties are unreadable).
    pub target: Option<&'static Target>,
    /// `target.is_some()`.
    pub runnable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub runtime_version: Result<RuntimeVersion, DeviceError>,
    pub driver_version: Result<RuntimeVersion, DeviceError>,
    pub init: Result<(), DeviceError>,
    pub device_count: Result<u32, DeviceError>,
    pub devices: Vec<ProbedDevice>,
    /// The device-visibility variables set in this process
    /// ([`visibility_variables`]): the indices above count after them.
    pub visible_devices: Vec<(&'static str, String)>,
}

/// The variables with which ROCm hides and renumbers devices, in the order it
/// applies them: ROCr filters its agents by `ROCR_VISIBLE_DEVICES` (set to the
/// empty string, it hides every device); HIP then filters that list by
/// `HIP_VISIBLE_DEVICES`, or by `CUDA_VISIBLE_DEVICES` when HIP's is unset or
/// empty. Each is a comma-separated list of indices into the list before it;
/// the devices are renumbered from 0 in the listed order.
pub const VISIBILITY_VARIABLES: [&str; 3] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
];

/// Those of [`VISIBILITY_VARIABLES`] set in this process's environment (an
/// empty value included: ROCr acts on it), with their values.
pub fn visibility_variables() -> Vec<(&'static str, String)> {
    visibility_from(|name| std::env::var_os(name))
}

fn visibility_from(
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(&'static str, String)> {
    VISIBILITY_VARIABLES
        .iter()
        .filter_map(|&name| Some((name, lookup(name)?.to_string_lossy().into_owned())))
        .collect()
}

/// Ask the runtime. Safe to call any number of times.
pub fn probe() -> Probe {
    let init = checked::init();
    let runtime_version = checked::runtime_version().map(|raw| RuntimeVersion { raw });
    let driver_version = checked::driver_version().map(|raw| RuntimeVersion { raw });
    let device_count = checked::device_count();
    let devices = match (&init, &device_count) {
        (Ok(()), Ok(count)) => (0..*count)
            .map(|index| {
                let info = checked::device_info(index);
                let target = info.as_ref().ok().and_then(|i| target_of(&i.arch));
                ProbedDevice {
                    index,
                    info,
                    runnable: target.is_some(),
                    target,
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    Probe {
        runtime_version,
        driver_version,
        init,
        device_count,
        devices,
        visible_devices: visibility_variables(),
    }
}

fn status_of(error: &DeviceError) -> String {
    match error {
        DeviceError::Runtime {
            call, code, name, ..
        } => format!("{call} returned {name} ({code})"),
        other => other.to_string(),
    }
}

impl Probe {
    /// Indices of devices that run one of our targets.
    pub fn runnable_devices(&self) -> Vec<u32> {
        self.devices
            .iter()
            .filter(|d| d.runnable)
            .map(|d| d.index)
            .collect()
    }

    /// Why there are no devices (`None` when there are some): the statuses of
    /// hipInit and hipGetDeviceCount, with their names.
    pub fn no_devices_reason(&self) -> Option<String> {
        if !self.devices.is_empty() {
            return None;
        }
        let mut reasons = Vec::new();
        if let Err(e) = &self.init {
            reasons.push(status_of(e));
        }
        match &self.device_count {
            Err(e) => reasons.push(status_of(e)),
            Ok(count) => reasons.push(format!("hipGetDeviceCount returned {count}")),
        }
        Some(format!("no devices: {}", reasons.join("; ")))
    }

    /// One line saying which visibility variables are set, e.g.
    /// `device visibility: HIP_VISIBLE_DEVICES=2,0 (indices count after it)`;
    /// `None` when none is.
    pub fn visibility_line(&self) -> Option<String> {
        if self.visible_devices.is_empty() {
            return None;
        }
        let settings: Vec<String> = self
            .visible_devices
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        Some(format!(
            "device visibility: {} (the runtime hides and renumbers devices by these; the indices below count after them)",
            settings.join(" ")
        ))
    }

    /// One line about the runtime, e.g. `HIP runtime 5.2.21153 (driver 5.2.21153)`.
    pub fn runtime_line(&self) -> String {
        let mut line = runtime_label(&self.runtime_version);
        if let Ok(driver) = &self.driver_version {
            line.push_str(&format!(" (driver {driver})"));
        }
        line
    }
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.runtime_line())?;
        if let Some(line) = self.visibility_line() {
            writeln!(f, "{line}")?;
        }
        if let Some(reason) = self.no_devices_reason() {
            return writeln!(f, "{reason}");
        }
        for device in &self.devices {
            match &device.info {
                Ok(info) => writeln!(
                    f,
                    "device {}: {}, {}, PCI {}, {} compute units, {} bytes, runs our {} code objects",
                    device.index,
                    info.name,
                    info.arch,
                    info.pci_bus_id(),
                    info.compute_units,
                    info.memory_bytes,
                    device.target.map_or("no", |t| t.name)
                )?,
                Err(e) => writeln!(f, "device {}: properties unavailable: {e}", device.index)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_decodes_major_minor_patch() {
        let v = RuntimeVersion { raw: 50_221_153 };
        assert_eq!((v.major(), v.minor(), v.patch()), (5, 2, 21153));
        assert_eq!(v.to_string(), "5.2.21153");
        let v = RuntimeVersion { raw: 60_443_483 };
        assert_eq!(v.to_string(), "6.4.43483");
        assert_eq!(RuntimeVersion { raw: 0 }.to_string(), "0.0.0");
        assert!(RuntimeVersion { raw: -1 }.to_string().contains("invalid"));
    }

    #[test]
    fn runnable_follows_target_id_rules() {
        assert!(target_runs_on("gfx1100", "gfx1100"));
        assert!(target_runs_on("gfx1100", "gfx1100:sramecc-:xnack-"));
        assert!(!target_runs_on("gfx1100", "gfx1101"));
        assert!(!target_runs_on("gfx1100", "gfx90a:sramecc+:xnack-"));
        assert!(!target_runs_on("gfx1100", ""));
        assert!(!target_runs_on("gfx1100", "garbage"));
    }

    #[test]
    fn each_device_runs_its_own_targets_code_objects() {
        let name = |arch: &str| target_of(arch).map(|t| t.name);
        assert_eq!(name("gfx1100:sramecc-:xnack-"), Some("gfx1100"));
        assert_eq!(name("gfx1151"), Some("gfx1151"));
        assert_eq!(name("gfx1201:xnack-"), Some("gfx1201"));
        // Its own row since LLVM 22; the generic target where that row was not built.
        let gfx1153 = match crate::platform::embedded::unbuilt("gfx1153") {
            None => "gfx1153",
            Some(_) => "gfx11-generic",
        };
        assert_eq!(name("gfx1153"), Some(gfx1153));
        assert_eq!(name("gfx1036"), Some("gfx10-3-generic"), "no row: the generic target");
        assert_eq!(name("gfx90a:sramecc+:xnack-"), Some("gfx90a"));
        assert_eq!(name("gfx1032"), Some("gfx10-3-generic"));
        assert_eq!(name("gfx803"), None);
        assert_eq!(name(""), None);
        assert_eq!(name("garbage"), None);
    }

    #[test]
    fn pci_bus_id_is_domain_bus_device_in_hex() {
        let info = DeviceInfo {
            name: "card".into(),
            arch: "gfx1100".into(),
            compute_units: 48,
            memory_bytes: 1 << 33,
            major: 11,
            minor: 0,
            pci_domain: 0,
            pci_bus: 0x43,
            pci_device: 0,
        };
        assert_eq!(info.pci_bus_id(), "0000:43:00.0");
        let info = DeviceInfo {
            pci_domain: 0x1a,
            pci_bus: 3,
            pci_device: 0x1f,
            ..info
        };
        assert_eq!(info.pci_bus_id(), "001a:03:1f.0");
    }

    #[test]
    fn visibility_lists_the_set_variables_in_rocm_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(visibility_from(env(&[])).is_empty());
        assert_eq!(
            visibility_from(env(&[
                ("HIP_VISIBLE_DEVICES", "2,0"),
                ("ROCR_VISIBLE_DEVICES", "")
            ])),
            [
                ("ROCR_VISIBLE_DEVICES", String::new()),
                ("HIP_VISIBLE_DEVICES", "2,0".to_string())
            ],
            "set to empty still counts: ROCr hides every device then"
        );
    }

    #[test]
    fn no_devices_reason_names_both_statuses() {
        let probe = Probe {
            runtime_version: Ok(RuntimeVersion { raw: 50_221_153 }),
            driver_version: Ok(RuntimeVersion { raw: 50_221_153 }),
            init: Err(checked::error("hipInit", 101)),
            device_count: Err(checked::error("hipGetDeviceCount", 100)),
            devices: Vec::new(),
            visible_devices: Vec::new(),
        };
        let reason = probe.no_devices_reason().expect("no devices");
        assert!(
            reason.contains("hipInit returned hipErrorInvalidDevice (101)"),
            "{reason}"
        );
        assert!(
            reason.contains("hipGetDeviceCount returned hipErrorNoDevice (100)"),
            "{reason}"
        );
        assert!(
            probe
                .to_string()
                .starts_with("HIP runtime 5.2.21153 (driver 5.2.21153)\nno devices"),
            "{probe}"
        );
    }
}
