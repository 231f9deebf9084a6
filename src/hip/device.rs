//! [`HipDevice`]: one HIP device behind the harness's [`Device`] seam. Buffers
//! are handed out as u64 device addresses; the RAII buffers stay here, keyed by
//! base address, so `free` and drop work and any address inside an allocation
//! (the harness's guard regions) can be read and written.

use std::collections::BTreeMap;
use std::time::Duration;

use super::checked::{self, DeviceInfo};
use super::probe::{runtime_label, RuntimeVersion};
use super::safe::{DeviceBuffer, Module, Stream};
use crate::codeobj::{CodeObject, TargetId};
use crate::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};

#[derive(Debug)]
pub struct HipDevice {
    index: u32,
    info: DeviceInfo,
    runtime: String,
    stream: Stream,
    buffers: BTreeMap<u64, DeviceBuffer>,
    modules: Vec<Module>,
    /// Set when a kernel missed its watchdog: it may still be running, so
    /// nothing that waits for the device may be called again.
    hung: Option<Duration>,
}

fn is_no_device(error: &DeviceError) -> bool {
    matches!(error, DeviceError::Runtime { code, .. } if *code == checked::NO_DEVICE || *code == checked::INVALID_DEVICE)
}

impl HipDevice {
    /// Open device `index`. With no devices this is
    /// `DeviceError::Refused("no HIP device 0: HIP runtime X reports no devices (...)")`
    /// naming the runtime version and the status.
    pub fn open(index: u32) -> Result<HipDevice, DeviceError> {
        let runtime = runtime_label(&checked::runtime_version().map(|raw| RuntimeVersion { raw }));
        let no_device = |why: String| DeviceError::Refused(format!("no HIP device {index}: {runtime} reports {why}"));
        let status = |e: &DeviceError| match e {
            DeviceError::Runtime { call, code, name, .. } => format!("{call}: {name} ({code})"),
            other => other.to_string(),
        };
        let init = checked::init();
        match (init, checked::device_count()) {
            (Err(init), Err(count)) if is_no_device(&count) => {
                return Err(no_device(format!("no devices ({}; {})", status(&init), status(&count))))
            }
            (Err(init), _) if is_no_device(&init) => return Err(no_device(format!("no devices ({})", status(&init)))),
            (Err(init), _) => return Err(init),
            (Ok(()), Err(count)) if is_no_device(&count) => {
                return Err(no_device(format!("no devices ({})", status(&count))))
            }
            (Ok(()), Err(count)) => return Err(count),
            (Ok(()), Ok(count)) if index >= count => {
                return Err(no_device(format!("{count} device(s); valid indices are 0..{count}")))
            }
            (Ok(()), Ok(_)) => {}
        }
        checked::set_device(index)?;
        let info = checked::device_info(index)?;
        let stream = Stream::create()?;
        Ok(HipDevice { index, info, runtime, stream, buffers: BTreeMap::new(), modules: Vec::new(), hung: None })
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Whether code for `code_target` runs here, as a refusal naming both.
    fn check_target(&self, code_target: &TargetId) -> Result<(), DeviceError> {
        let device_target = TargetId::parse(&self.info.arch).ok_or_else(|| {
            DeviceError::Refused(format!("HIP device {} reports gcnArchName {:?}, which is not a target ID", self.index, self.info.arch))
        })?;
        if code_target.runs_on(&device_target) {
            Ok(())
        } else {
            Err(DeviceError::Refused(format!(
                "code object is for {code_target} but HIP device {} ({}) is {}: it does not run there",
                self.index, self.info.name, self.info.arch
            )))
        }
    }

    /// Refuse anything once a kernel has hung, and make this thread's current
    /// device ours (the current device is per host thread).
    fn ready(&self) -> Result<(), DeviceError> {
        if let Some(timeout) = self.hung {
            return Err(DeviceError::Refused(format!(
                "HIP device {} is unusable: a kernel did not finish within {timeout:?} and may still be running",
                self.index
            )));
        }
        checked::set_device(self.index)
    }

    /// The allocation holding `[address, address + len)`, with the offset of
    /// `address` in it.
    fn locate(&mut self, address: DevicePtr, len: usize, what: &str) -> Result<(&mut DeviceBuffer, usize), DeviceError> {
        let outside = || {
            DeviceError::Refused(format!("{what} of {len} bytes at 0x{address:x} lies outside every allocation on HIP device"))
        };
        let (&base, buffer) = self.buffers.range_mut(..=address).next_back().ok_or_else(outside)?;
        let offset = usize::try_from(address - base).map_err(|_| outside())?;
        match offset.checked_add(len) {
            Some(end) if end <= buffer.len() => Ok((buffer, offset)),
            _ => Err(outside()),
        }
    }
}

impl Device for HipDevice {
    fn executor(&self) -> Executor {
        Executor::Hardware { name: self.info.name.clone(), arch: self.info.arch.clone(), runtime: self.runtime.clone() }
    }

    fn arch_name(&self) -> String {
        self.info.arch.clone()
    }

    fn memory_bytes(&self) -> u64 {
        self.info.memory_bytes
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        self.ready()?;
        let buffer = DeviceBuffer::alloc(bytes)?;
        let address = buffer.address();
        if let Some(stale) = self.buffers.insert(address, buffer) {
            // The runtime handed out an address we still hold: keep ours, don't double-free.
            stale.leak();
            return Err(DeviceError::Refused(format!("hipMalloc returned 0x{address:x}, which is already allocated")));
        }
        Ok(address)
    }

    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        let buffer = self
            .buffers
            .remove(&ptr)
            .ok_or_else(|| DeviceError::Refused(format!("free of 0x{ptr:x}, which is not the start of an allocation")))?;
        if self.hung.is_some() {
            // hipFree waits for the device, and a hung kernel may be using it.
            buffer.leak();
            return Ok(());
        }
        buffer.free()
    }

    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        self.ready()?;
        let (buffer, offset) = self.locate(dst, src.len(), "write")?;
        buffer.write(offset, src)
    }

    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        self.ready()?;
        let (buffer, offset) = self.locate(src, dst.len(), "read")?;
        buffer.read(offset, dst)
    }

    fn load(&mut self, image: &[u8]) -> Result<ModuleId, DeviceError> {
        let code = CodeObject::parse(image).map_err(|e| DeviceError::Refused(format!("not loading code object: {e}")))?;
        self.check_target(&code.target)?;
        self.ready()?;
        self.modules.push(Module::load(code)?);
        Ok(ModuleId(self.modules.len() - 1))
    }

    fn launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        kernarg: &[u8],
        dispatch: Dispatch,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        self.ready()?;
        let loaded = self
            .modules
            .get_mut(module.0)
            .ok_or_else(|| DeviceError::Refused(format!("no module {} on HIP device {}", module.0, self.index)))?;
        loaded.launch(&self.stream, kernel, kernarg, dispatch)?;
        match self.stream.wait(timeout) {
            Err(DeviceError::Timeout(t)) => {
                // The stream marks itself hung and will be leaked, never
                // destroyed; buffers and modules are leaked at drop (see Drop).
                self.hung = Some(t);
                Err(DeviceError::Timeout(t))
            }
            other => other,
        }
    }
}

impl Drop for HipDevice {
    fn drop(&mut self) {
        if self.hung.is_some() {
            // Freeing or unloading would wait for the hung kernel forever; the
            // process is about to report the timeout, so leak instead.
            for (_, buffer) in std::mem::take(&mut self.buffers) {
                buffer.leak();
            }
            for module in std::mem::take(&mut self.modules) {
                module.leak();
            }
            return;
        }
        // Release on our device; a failure here is recorded by each Drop.
        let _ = checked::set_device(self.index);
        // Field drops follow: stream, buffers, modules, each logging its own error.
    }
}
