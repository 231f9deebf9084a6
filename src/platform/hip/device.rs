//! [`HipDevice`]: one HIP device behind the harness's [`Device`] seam. Buffers
//! are handed out as u64 device addresses; the RAII buffers stay here, keyed by
//! base address, so `free` and drop work and any address inside an allocation
//! (the harness's guard regions) can be read and written.

use std::collections::BTreeMap;
use std::time::Duration;

use super::checked::{self, DeviceInfo};
use super::probe::{runtime_label, RuntimeVersion};
use super::safe::{check_launch, check_load, DeviceBuffer, Module, Stream};
use crate::platform::device::{
    Definedness, Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId,
};

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

/// Name the runtime in a failed call, e.g. `hipInit (HIP runtime 6.4.43483)`.
fn with_runtime(error: DeviceError, runtime: &str) -> DeviceError {
    match error {
        DeviceError::Runtime {
            call,
            code,
            name,
            description,
        } => DeviceError::Runtime {
            call: format!("{call} ({runtime})"),
            code,
            name,
            description,
        },
        other => other,
    }
}

impl HipDevice {
    /// Open device `index`. With no devices this is
    /// `DeviceError::Refused("no HIP device 0: HIP runtime X reports no devices (...)")`
    /// naming the runtime version and the status.
    pub fn open(index: u32) -> Result<HipDevice, DeviceError> {
        let runtime = runtime_label(&checked::runtime_version().map(|raw| RuntimeVersion { raw }));
        let no_device = |why: String| {
            DeviceError::Refused(format!("no HIP device {index}: {runtime} reports {why}"))
        };
        let status = |e: &DeviceError| match e {
            DeviceError::Runtime {
                call, code, name, ..
            } => format!("{call}: {name} ({code})"),
            other => other.to_string(),
        };
        let init = checked::init();
        match (init, checked::device_count()) {
            (Err(init), Err(count)) if is_no_device(&count) => {
                return Err(no_device(format!(
                    "no devices ({}; {})",
                    status(&init),
                    status(&count)
                )))
            }
            (Err(init), _) if is_no_device(&init) => {
                return Err(no_device(format!("no devices ({})", status(&init))))
            }
            (Err(init), _) => return Err(with_runtime(init, &runtime)),
            (Ok(()), Err(count)) if is_no_device(&count) => {
                return Err(no_device(format!("no devices ({})", status(&count))))
            }
            (Ok(()), Err(count)) => return Err(with_runtime(count, &runtime)),
            (Ok(()), Ok(count)) if index >= count => {
                return Err(no_device(format!(
                    "{count} device(s); valid indices are 0..{count}"
                )))
            }
            (Ok(()), Ok(_)) => {}
        }
        checked::set_device(index)?;
        let info = checked::device_info(index)?;
        let stream = Stream::create()?;
        Ok(HipDevice {
            index,
            info,
            runtime,
            stream,
            buffers: BTreeMap::new(),
            modules: Vec::new(),
            hung: None,
        })
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
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
    fn locate(
        &mut self,
        address: DevicePtr,
        len: usize,
        what: &str,
    ) -> Result<(&mut DeviceBuffer, usize), DeviceError> {
        let found = containing(&self.buffers, DeviceBuffer::len, address, len);
        let (base, offset) = found.ok_or_else(|| {
            DeviceError::Refused(format!(
                "{what} of {len} bytes at 0x{address:x} lies outside every allocation on HIP device {}",
                self.index
            ))
        })?;
        let buffer = self
            .buffers
            .get_mut(&base)
            .ok_or_else(|| DeviceError::Refused(format!("allocation 0x{base:x} vanished")))?;
        Ok((buffer, offset))
    }
}

/// The base address of the allocation in `allocations` (keyed by base
/// address) that holds all of `[address, address + len)`, and the offset of
/// `address` in it. Addresses inside an allocation count, not only its start:
/// the harness reads and writes guard regions around its buffers.
fn containing<V>(
    allocations: &BTreeMap<u64, V>,
    len_of: impl Fn(&V) -> usize,
    address: u64,
    len: usize,
) -> Option<(u64, usize)> {
    let (&base, allocation) = allocations.range(..=address).next_back()?;
    let offset = usize::try_from(address - base).ok()?;
    let end = offset.checked_add(len)?;
    (end <= len_of(allocation)).then_some((base, offset))
}

impl Device for HipDevice {
    fn executor(&self) -> Executor {
        Executor::Hardware {
            name: self.info.name.clone(),
            arch: self.info.arch.clone(),
            runtime: self.runtime.clone(),
        }
    }

    fn arch_name(&self) -> String {
        self.info.arch.clone()
    }

    /// On the emulated KFD device the GPU is the emulator: a model of the
    /// ISA, whose undefined and unsettled words it reports itself.
    fn models_isa(&self) -> bool {
        super::emulated_kfd::present()
    }

    fn definedness(&mut self, out: DevicePtr, words: usize) -> Result<Definedness, DeviceError> {
        Ok(super::emulated_kfd::definedness(out, words).unwrap_or_default())
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
            return Err(DeviceError::Refused(format!(
                "hipMalloc returned 0x{address:x}, which is already allocated"
            )));
        }
        Ok(address)
    }

    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        let buffer = self.buffers.remove(&ptr).ok_or_else(|| {
            DeviceError::Refused(format!(
                "free of 0x{ptr:x}, which is not the start of an allocation"
            ))
        })?;
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
        let code = check_load(
            image,
            &format!("HIP device {} ({})", self.index, self.info.name),
            &self.info.arch,
        )?;
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
        let missing = || {
            DeviceError::Refused(format!(
                "no module {} on HIP device {}",
                module.0, self.index
            ))
        };
        // The launch check shared with the emulator, before any runtime call
        // (hipSetDevice included); Module::launch repeats it, so it stays
        // safe on its own.
        check_launch(
            self.modules.get(module.0).ok_or_else(missing)?.code(),
            kernel,
            kernarg,
            dispatch,
        )?;
        self.ready()?;
        let loaded = self.modules.get_mut(module.0).ok_or_else(missing)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_inside_allocations_are_found_with_their_offset() {
        // Two allocations with a gap: [0x1000, 0x1100) and [0x2000, 0x2010).
        let allocations: BTreeMap<u64, usize> =
            [(0x1000, 0x100), (0x2000, 0x10)].into_iter().collect();
        let find = |address, len| containing(&allocations, |&n| n, address, len);
        assert_eq!(find(0x1000, 0x100), Some((0x1000, 0)));
        assert_eq!(find(0x10f0, 0x10), Some((0x1000, 0xf0)));
        assert_eq!(find(0x1100, 1), None, "one past the end is outside");
        assert_eq!(
            find(0x1100, 0),
            Some((0x1000, 0x100)),
            "an empty access at the end, like slice[len..]"
        );
        assert_eq!(find(0x10ff, 0), Some((0x1000, 0xff)));
        assert_eq!(find(0x10f0, 0x11), None, "runs one byte past the end");
        assert_eq!(find(0x1800, 4), None, "in the gap");
        assert_eq!(find(0x0fff, 1), None, "before the first allocation");
        assert_eq!(find(0x2008, 8), Some((0x2000, 8)));
        assert_eq!(find(0x2008, usize::MAX), None, "length overflow");
        assert_eq!(find(u64::MAX, 1), None);
    }
}
