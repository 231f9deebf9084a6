//! HIP backend (placeholder until the HIP layer lands): the interface the rest
//! of the crate uses.

use crate::device::DeviceError;

/// One HIP device as the runtime describes it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub arch: String,
    pub compute_units: u32,
    pub memory_bytes: u64,
    /// Its architecture runs gfx1100 code objects.
    pub runnable: bool,
}

/// What the runtime reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Probe {
    /// `HIP runtime 5.2.x`, when the runtime answered.
    pub runtime: Option<String>,
    /// Why there are no devices (hipInit or hipGetDeviceCount status), if so.
    pub status: Option<String>,
    pub devices: Vec<DeviceInfo>,
}

pub fn probe() -> Probe {
    Probe { runtime: None, status: Some("HIP layer not built yet".into()), devices: Vec::new() }
}

pub struct HipDevice;

impl HipDevice {
    pub fn open(_index: usize) -> Result<crate::emu::EmuDevice, DeviceError> {
        Err(DeviceError::Refused("HIP layer not built yet".into()))
    }
}
