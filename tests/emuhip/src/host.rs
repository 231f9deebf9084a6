//! The process-wide part of the runtime: the visible devices, each behind its
//! own lock, and the calling thread's current device.
//!
//! As in HIP, the current device belongs to the host thread: `hipSetDevice`
//! changes it for the calling thread only, and a thread that never called it
//! uses device 0. Each device has its own lock, so a long emulated kernel on
//! one device does not hold up calls on another.
//!
//! Which device a call acts on ([`On`]):
//! - calls that create an object, move data or start work (hipMalloc, the
//!   copies, hipModuleLoadData, hipModuleGetFunction, hipModuleLaunchKernel,
//!   hipStreamCreate, hipDeviceSynchronize) act on the current device, and a
//!   pointer or handle of another device is refused there
//!   (hipErrorInvalidValue for a pointer, hipErrorInvalidHandle for a
//!   handle), with a note naming both devices;
//! - calls that only wait for or release an object (hipFree,
//!   hipModuleUnload, hipStreamDestroy, hipStreamQuery, hipStreamSynchronize)
//!   act on the device that object belongs to, as in ROCm, where memory and
//!   streams know their device; the null stream is the current device's.

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard};

use xad_harness::platform::device::Device;

use crate::knobs::Knobs;
use crate::runtime::{owner_of, HipResult, Runtime, Stop};
use crate::status::{self, Status};

thread_local! {
    /// The calling thread's current device (visible index).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// The device a call acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// The calling thread's current device.
    Current,
    /// A device index the caller passed.
    Device(i32),
    /// The device `value` (a pointer or handle) belongs to; the current
    /// device when it carries no tag of a visible device (null, stale,
    /// garbage), which then answers for it.
    Owner(u64),
}

pub struct Host {
    pub knobs: Knobs,
    devices: Vec<Mutex<Runtime>>,
}

impl Host {
    /// The visible devices of `knobs`, each over `make(arch, its knobs)`
    /// (the device's own view: fault knobs cleared where they do not apply).
    pub fn new(knobs: Knobs, make: impl Fn(&str, &Knobs) -> Box<dyn Device + Send>) -> Host {
        let devices = (0..knobs.visible.len())
            .map(|visible| {
                let device = make(knobs.arch_of(visible), &knobs.for_device(visible));
                Mutex::new(Runtime::for_device(device, &knobs, visible))
            })
            .collect();
        Host { knobs, devices }
    }

    /// Turn the stderr notes of every device on or off (off in unit tests).
    #[cfg(test)]
    pub fn set_notes(&self, on: bool) {
        for device in &self.devices {
            lock(device).notes = on;
        }
    }

    /// The status the runtime gives calls when no device is visible: ROCm 6
    /// and 7 say hipErrorNoDevice from hipInit, 5.2 hipErrorInvalidDevice
    /// (design notes: both measured on a machine without a GPU).
    fn no_device_init_status() -> Status {
        if status::HIP_VERSION / 10_000_000 >= 6 {
            status::NO_DEVICE
        } else {
            status::INVALID_DEVICE
        }
    }

    pub fn init(&self, flags: u32) -> HipResult<()> {
        // HIP defines no flags; ROCm rejects any.
        if flags != 0 {
            return Err(status::INVALID_VALUE.into());
        }
        if self.devices.is_empty() {
            return Err(Host::no_device_init_status().into());
        }
        Ok(())
    }

    pub fn device_count(&self) -> i32 {
        self.devices.len() as i32
    }

    fn index(&self, device: i32) -> HipResult<usize> {
        usize::try_from(device)
            .ok()
            .filter(|&d| d < self.devices.len())
            .ok_or(Stop::Status(status::INVALID_DEVICE))
    }

    /// The calling thread's current device.
    pub fn current(&self) -> HipResult<usize> {
        if self.devices.is_empty() {
            return Err(status::NO_DEVICE.into());
        }
        // Always below the count: set_device checks, and the default is 0.
        Ok(CURRENT.get().min(self.devices.len() - 1))
    }

    /// `hipSetDevice`: for the calling thread only.
    pub fn set_device(&self, device: i32) -> HipResult<()> {
        let index = self.index(device)?;
        if let Some(code) = lock(&self.devices[index])
            .knobs
            .forced_status("hipSetDevice")
        {
            return Err(code.into());
        }
        CURRENT.set(index);
        Ok(())
    }

    /// Run `body` on the device `on` names, under that device's lock, after
    /// its `XAD_EMUHIP_STATUS` override of `function`.
    pub fn with<T>(
        &self,
        on: On,
        function: &str,
        body: impl FnOnce(&mut Runtime) -> HipResult<T>,
    ) -> HipResult<T> {
        let index = match on {
            On::Current => self.current()?,
            On::Device(device) => self.index(device)?,
            On::Owner(value) => match owner_of(value).filter(|&d| d < self.devices.len()) {
                Some(owner) => owner,
                None => self.current()?,
            },
        };
        let mut runtime = lock(&self.devices[index]);
        if let Some(code) = runtime.knobs.forced_status(function) {
            return Err(code.into());
        }
        body(&mut runtime)
    }
}

fn lock(device: &Mutex<Runtime>) -> MutexGuard<'_, Runtime> {
    // A panic inside a call is caught and reported; the state is still usable.
    device
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
