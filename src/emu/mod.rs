//! Embedded gfx11 emulator (placeholder: the implementation lands with the
//! emulator issue). [`EmuDevice`] implements [`crate::device::Device`].

use crate::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};
use std::time::Duration;

/// The emulated gfx1100 device.
#[derive(Debug, Default)]
pub struct EmuDevice {}

impl EmuDevice {
    pub fn new() -> EmuDevice {
        EmuDevice {}
    }
}

fn unavailable() -> DeviceError {
    DeviceError::Emulation("the emulator is not built yet".into())
}

impl Device for EmuDevice {
    fn executor(&self) -> Executor {
        Executor::Emulated { arch: "gfx1100".into() }
    }
    fn arch_name(&self) -> String {
        "gfx1100".into()
    }
    fn memory_bytes(&self) -> u64 {
        0
    }
    fn alloc(&mut self, _bytes: usize) -> Result<DevicePtr, DeviceError> {
        Err(unavailable())
    }
    fn free(&mut self, _ptr: DevicePtr) -> Result<(), DeviceError> {
        Err(unavailable())
    }
    fn write(&mut self, _dst: DevicePtr, _src: &[u8]) -> Result<(), DeviceError> {
        Err(unavailable())
    }
    fn read(&mut self, _src: DevicePtr, _dst: &mut [u8]) -> Result<(), DeviceError> {
        Err(unavailable())
    }
    fn load(&mut self, _image: &[u8]) -> Result<ModuleId, DeviceError> {
        Err(unavailable())
    }
    fn launch(&mut self, _m: ModuleId, _k: &str, _a: &[u8], _d: Dispatch, _t: Duration) -> Result<(), DeviceError> {
        Err(unavailable())
    }
}
