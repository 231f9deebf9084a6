//! The emulated runtime's state and behaviour, in safe Rust. `exports.rs` turns
//! C pointers into the slices and integers these methods take; everything HIP
//! would decide (which status, which handle, what the kernarg segment holds,
//! when a stream is done) is decided here, over any [`Device`].

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use xad_harness::platform::codeobj::{self, ArgMeta, CodeObject, KernelMeta, TargetId};
use xad_harness::platform::device::inject::{self, LaunchMemory};
use xad_harness::platform::device::{Device, DeviceError, DevicePtr, Dispatch, ModuleId};

use crate::devices;
use crate::knobs::Knobs;
use crate::status::{self, Status};

/// Why a call did not return `hipSuccess`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Return this status.
    Status(Status),
    /// Wait for a kernel that never completes: the caller blocks forever
    /// (after releasing the runtime's lock, so other threads can still poll).
    Hang,
}

impl From<Status> for Stop {
    fn from(code: Status) -> Stop {
        Stop::Status(code)
    }
}

pub type HipResult<T> = Result<T, Stop>;

/// How long the emulator may run one launch. The harness's own watchdog sits
/// above this library (it polls hipStreamQuery); this only bounds a kernel
/// that loops forever inside the emulator.
const EMULATOR_LAUNCH_LIMIT: Duration = Duration::from_secs(600);

/// Bytes of the kernarg segment the metadata does not describe are
/// uninitialised on hardware; this pattern makes a kernel that reads them
/// compute visible garbage instead of a convenient zero.
const KERNARG_POISON: u8 = 0xA5;

/// RDNA3 limits the emulated device reports (a Radeon RX 7900 XTX: 48 WGPs as
/// ROCm counts them in WGP mode).
pub const MULTIPROCESSORS: i32 = 48;
const MAX_THREADS_PER_BLOCK: u64 = 1024;
const MAX_SHARED_BYTES: u32 = 65536;

/// Every pointer and handle a device hands out carries the device in bits
/// 48 and up (visible index + 1), so one device's pointer or handle is
/// recognised on another instead of aliasing that device's own objects. The
/// emulator's addresses stay below bit 48 (32-bit slots, 2^15 of them), and
/// the tag is stripped before an address reaches it; a foreign pointer in a
/// kernel argument keeps its tag and faults there, like a GPU page fault.
const TAG_SHIFT: u32 = 48;
const ADDRESS_MASK: u64 = (1 << TAG_SHIFT) - 1;

/// The visible device a pointer or handle of this library belongs to, if it
/// carries a tag.
pub fn owner_of(value: u64) -> Option<usize> {
    match value >> TAG_SHIFT {
        0 => None,
        tag => usize::try_from(tag - 1).ok(),
    }
}

/// Handle kinds, kept in distinct ranges so a module handle passed as a stream
/// (or a stale handle) is recognised as invalid instead of aliasing.
#[derive(Clone, Copy)]
enum HandleKind {
    Module = 1,
    Function = 2,
    Stream = 3,
}

#[derive(Debug, Clone)]
struct LoadedModule {
    id: ModuleId,
    code: CodeObject,
}

#[derive(Debug, Clone)]
pub struct Function {
    module: usize,
    pub meta: KernelMeta,
}

#[derive(Debug, Clone, Default)]
struct StreamState {
    /// A launch on this stream never completes (`XAD_EMUHIP_HANG`).
    hung: bool,
    /// The first asynchronous fault of a kernel on this stream; sticky, as on
    /// hardware, where the queue is dead after a fault.
    fault: Option<Status>,
}

/// What `hipGetDeviceProperties` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Properties {
    pub name: String,
    pub arch: String,
    /// gcnArch: the decimal digits of the processor name (1100 for gfx1100).
    pub gcn_arch: i32,
    pub total_global_mem: u64,
    pub multiprocessors: i32,
    /// pciDomainID, pciBusID, pciDeviceID.
    pub pci: (i32, i32, i32),
}

/// Which device a [`Runtime`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Its index in this process (after ROCR_/HIP_/CUDA_VISIBLE_DEVICES).
    pub visible: usize,
    /// Its index in XAD_EMUHIP_DEVICES, which fixes its PCI address.
    pub physical: usize,
    /// gcnArchName.
    pub arch: String,
}

/// The kernarg image as the caller handed it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernargSource {
    /// `extra` with HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE: the whole buffer.
    Buffer(Vec<u8>),
    /// `kernelParams`: one value per explicit argument, in metadata order.
    Params(Vec<Vec<u8>>),
}

/// One emulated device: its memory, modules and streams, and HIP's decisions
/// about calls that act on it. The process-wide part (device count, the
/// calling thread's current device) is [`crate::host::Host`].
pub struct Runtime {
    device: Box<dyn Device + Send>,
    /// The knobs as this device sees them ([`Knobs::for_device`]).
    pub knobs: Knobs,
    pub identity: Identity,
    /// Device address -> size of every live hipMalloc allocation.
    allocations: BTreeMap<DevicePtr, usize>,
    modules: HashMap<usize, LoadedModule>,
    functions: HashMap<usize, Function>,
    /// Key 0 is the null (default) stream, which always exists.
    streams: HashMap<usize, StreamState>,
    next_handle: usize,
    malloc_calls: u64,
    copy_calls: u64,
    launches_run: u64,
    /// One-line notes on stderr (injected faults, emulator errors); off in unit tests.
    pub notes: bool,
}

fn note(enabled: bool, text: std::fmt::Arguments<'_>) {
    if enabled {
        eprintln!("xad-emuhip: {text}");
    }
}

/// The status HIP reports for an emulator failure during a kernel.
fn fault_status(error: &DeviceError) -> Status {
    match error {
        DeviceError::MemoryFault(_) => status::ILLEGAL_ADDRESS,
        // The emulator reports its memory faults as structured faults.
        DeviceError::Emulation(fault) if fault.is_memory_fault() => status::ILLEGAL_ADDRESS,
        DeviceError::Timeout(_) => status::LAUNCH_TIMEOUT,
        DeviceError::Runtime { code, .. } => *code,
        DeviceError::Emulation(_) | DeviceError::Refused(_) => status::LAUNCH_FAILURE,
    }
}

impl Runtime {
    /// Visible device 0 of `knobs` over `device`.
    #[cfg(test)]
    pub fn new(device: Box<dyn Device + Send>, knobs: Knobs) -> Runtime {
        Runtime::for_device(device, &knobs, 0)
    }

    /// Visible device `visible` of `knobs` over `device`.
    pub fn for_device(device: Box<dyn Device + Send>, knobs: &Knobs, visible: usize) -> Runtime {
        let mut streams = HashMap::new();
        streams.insert(0, StreamState::default());
        Runtime {
            device,
            identity: Identity {
                visible,
                physical: knobs.visible.get(visible).copied().unwrap_or(visible),
                arch: knobs.arch_of(visible).to_string(),
            },
            knobs: knobs.for_device(visible),
            allocations: BTreeMap::new(),
            modules: HashMap::new(),
            functions: HashMap::new(),
            streams,
            next_handle: 0,
            malloc_calls: 0,
            copy_calls: 0,
            launches_run: 0,
            notes: true,
        }
    }

    fn tag(&self) -> u64 {
        (self.identity.visible as u64 + 1) << TAG_SHIFT
    }

    fn new_handle(&mut self, kind: HandleKind) -> usize {
        self.next_handle += 1;
        // Never 0 (null), 16-byte aligned like a real heap object, kind in
        // bits 40+, the device in bits 48+.
        self.tag() as usize | ((kind as usize) << 40) | (self.next_handle << 4)
    }

    /// Say so when `value` (a pointer or handle `call` was given) belongs to
    /// another device: the caller forgot hipSetDevice on this thread.
    fn note_foreign(&self, call: &str, what: &str, value: u64) {
        if let Some(owner) = owner_of(value).filter(|&o| o != self.identity.visible) {
            self.note(format_args!(
                "{call}: {what} 0x{value:x} belongs to device {owner}, but the call acts on device {} (the calling thread's current device; see hipSetDevice)",
                self.identity.visible
            ));
        }
    }

    /// The emulator's address for `ptr`, a pointer this device handed out.
    fn local(&self, call: &str, ptr: u64) -> HipResult<DevicePtr> {
        if ptr & !ADDRESS_MASK != self.tag() {
            self.note_foreign(call, "pointer", ptr);
            return Err(status::INVALID_VALUE.into());
        }
        Ok(ptr & ADDRESS_MASK)
    }

    fn note(&self, text: std::fmt::Arguments<'_>) {
        note(self.notes, text);
    }

    // ---- device properties -------------------------------------------------

    pub fn properties(&self) -> Properties {
        let arch = self.identity.arch.clone();
        let processor = arch.split(':').next().unwrap_or("");
        let digits: String = processor
            .trim_start_matches("gfx")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Properties {
            name: format!("xad-harness emulated {processor}"),
            gcn_arch: digits.parse().unwrap_or(0),
            arch,
            total_global_mem: self.device.memory_bytes(),
            multiprocessors: MULTIPROCESSORS,
            pci: devices::pci_address(self.identity.physical),
        }
    }

    // ---- memory ----------------------------------------------------------

    pub fn malloc(&mut self, bytes: usize) -> HipResult<Option<DevicePtr>> {
        self.malloc_calls += 1;
        if self.knobs.fail_alloc == Some(self.malloc_calls) {
            self.note(format_args!(
                "XAD_EMUHIP_FAIL_ALLOC: hipMalloc call {} ({bytes} bytes) fails",
                self.malloc_calls
            ));
            return Err(status::OUT_OF_MEMORY.into());
        }
        // HIP returns success and a null pointer for a zero-byte request.
        if bytes == 0 {
            return Ok(None);
        }
        match self.device.alloc(bytes) {
            Ok(ptr) if ptr & !ADDRESS_MASK == 0 => {
                self.allocations.insert(ptr, bytes);
                Ok(Some(ptr | self.tag()))
            }
            Ok(ptr) => {
                // Cannot happen with the emulator's slots; refuse rather than alias.
                self.note(format_args!(
                    "hipMalloc({bytes}): the emulator returned 0x{ptr:x}, above bit {TAG_SHIFT}"
                ));
                let _ = self.device.free(ptr);
                Err(status::OUT_OF_MEMORY.into())
            }
            Err(e) => {
                self.note(format_args!("hipMalloc({bytes}): {e}"));
                Err(status::OUT_OF_MEMORY.into())
            }
        }
    }

    pub fn free(&mut self, ptr: u64) -> HipResult<()> {
        if ptr == 0 {
            return Ok(());
        }
        let ptr = self.local("hipFree", ptr)?;
        // Unknown or already freed: ROCm answers hipErrorInvalidValue.
        if self.allocations.remove(&ptr).is_none() {
            return Err(status::INVALID_VALUE.into());
        }
        self.device.free(ptr).map_err(|e| {
            self.note(format_args!("hipFree(0x{ptr:x}): {e}"));
            Stop::Status(status::INVALID_VALUE)
        })
    }

    /// Whether [ptr, ptr+len) lies inside one live allocation.
    fn in_allocation(&self, ptr: DevicePtr, len: usize) -> bool {
        self.allocation_containing(ptr).is_some_and(|(base, size)| {
            ptr.checked_add(len as u64)
                .is_some_and(|end| end <= base + size as u64)
        })
    }

    fn allocation_containing(&self, ptr: DevicePtr) -> Option<(DevicePtr, usize)> {
        self.allocations
            .range(..=ptr)
            .next_back()
            .filter(|(base, size)| ptr < **base + **size as u64)
            .map(|(b, s)| (*b, *s))
    }

    fn any_stream_hung(&self) -> bool {
        self.streams.values().any(|s| s.hung)
    }

    /// Common part of both copy directions: the call counter, the injected copy
    /// fault, and the ordering behind a hung kernel (copies run on the null
    /// stream, which waits for the blocking streams).
    /// Returns the emulator's address of `device_ptr`.
    fn copy_preamble(&mut self, call: &str, device_ptr: u64, bytes: usize) -> HipResult<DevicePtr> {
        self.copy_calls += 1;
        if self.any_stream_hung() {
            return Err(Stop::Hang);
        }
        if let Some((nth, code)) = self.knobs.fail_copy {
            if nth == self.copy_calls {
                self.note(format_args!("XAD_EMUHIP_FAIL_COPY: copy call {nth} ({call}, {bytes} bytes) fails with {code}"));
                return Err(code.into());
            }
        }
        if bytes == 0 {
            return Ok(0);
        }
        let local = self.local(call, device_ptr)?;
        if !self.in_allocation(local, bytes) {
            return Err(status::INVALID_VALUE.into());
        }
        Ok(local)
    }

    pub fn copy_htod(&mut self, dst: u64, src: &[u8]) -> HipResult<()> {
        let dst = self.copy_preamble("hipMemcpyHtoD", dst, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        self.device.write(dst, src).map_err(|e| {
            self.note(format_args!("hipMemcpyHtoD: {e}"));
            Stop::Status(status::INVALID_VALUE)
        })
    }

    pub fn copy_dtoh(&mut self, dst: &mut [u8], src: u64) -> HipResult<()> {
        let src = self.copy_preamble("hipMemcpyDtoH", src, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        self.device.read(src, dst).map_err(|e| {
            self.note(format_args!("hipMemcpyDtoH: {e}"));
            Stop::Status(status::INVALID_VALUE)
        })
    }

    // ---- modules ---------------------------------------------------------

    pub fn module_load(&mut self, image: &[u8]) -> HipResult<usize> {
        let code = CodeObject::parse(image).map_err(|e| {
            self.note(format_args!("hipModuleLoadData: {e}"));
            Stop::Status(status::INVALID_IMAGE)
        })?;
        // The loader matches the code object's target ID against the agent's ISA.
        let device_target = TargetId::parse(&self.identity.arch);
        if !device_target
            .as_ref()
            .is_some_and(|d| code.target.runs_on(d))
        {
            self.note(format_args!(
                "hipModuleLoadData: code object is for {}, the device is {}",
                code.target, self.identity.arch
            ));
            return Err(status::NO_BINARY_FOR_GPU.into());
        }
        let id = self.device.load(image).map_err(|e| {
            self.note(format_args!("hipModuleLoadData: {e}"));
            Stop::Status(status::INVALID_IMAGE)
        })?;
        let handle = self.new_handle(HandleKind::Module);
        self.modules.insert(handle, LoadedModule { id, code });
        Ok(handle)
    }

    pub fn module_unload(&mut self, module: usize) -> HipResult<()> {
        if self.modules.remove(&module).is_none() {
            self.note_foreign("hipModuleUnload", "module", module as u64);
            return Err(status::INVALID_HANDLE.into());
        }
        self.functions.retain(|_, f| f.module != module);
        Ok(())
    }

    pub fn get_function(&mut self, module: usize, name: &str) -> HipResult<usize> {
        let Some(loaded) = self.modules.get(&module) else {
            self.note_foreign("hipModuleGetFunction", "module", module as u64);
            return Err(status::INVALID_HANDLE.into());
        };
        let meta = match loaded.code.kernel(name) {
            Ok(kernel) => kernel.meta.clone(),
            Err(e) => {
                self.note(format_args!("hipModuleGetFunction: {e}"));
                return Err(status::NOT_FOUND.into());
            }
        };
        let handle = self.new_handle(HandleKind::Function);
        self.functions.insert(handle, Function { module, meta });
        Ok(handle)
    }

    /// The metadata of a function handle, for reading the caller's kernarg
    /// memory before the launch.
    pub fn function_meta(&self, function: usize) -> HipResult<&KernelMeta> {
        self.functions
            .get(&function)
            .map(|f| &f.meta)
            .ok_or_else(|| {
                self.note_foreign("hipModuleLaunchKernel", "function", function as u64);
                Stop::Status(status::INVALID_HANDLE)
            })
    }

    // ---- streams ---------------------------------------------------------

    pub fn stream_create(&mut self) -> usize {
        let handle = self.new_handle(HandleKind::Stream);
        self.streams.insert(handle, StreamState::default());
        handle
    }

    pub fn stream_destroy(&mut self, stream: usize) -> HipResult<()> {
        // The null stream cannot be destroyed. A hung stream is released without
        // waiting, so a harness that gave up on it can still tear down.
        if stream == 0 || self.streams.remove(&stream).is_none() {
            return Err(status::INVALID_HANDLE.into());
        }
        Ok(())
    }

    fn stream(&self, stream: usize) -> HipResult<&StreamState> {
        self.streams.get(&stream).ok_or_else(|| {
            self.note_foreign("stream call", "stream", stream as u64);
            Stop::Status(status::INVALID_HANDLE)
        })
    }

    pub fn stream_query(&self, stream: usize) -> HipResult<()> {
        let state = self.stream(stream)?;
        if state.hung {
            return Err(status::NOT_READY.into());
        }
        state.fault.map_or(Ok(()), |code| Err(code.into()))
    }

    pub fn stream_synchronize(&self, stream: usize) -> HipResult<()> {
        let state = self.stream(stream)?;
        if state.hung {
            return Err(Stop::Hang);
        }
        state.fault.map_or(Ok(()), |code| Err(code.into()))
    }

    pub fn device_synchronize(&self) -> HipResult<()> {
        if self.any_stream_hung() {
            return Err(Stop::Hang);
        }
        match self.streams.values().find_map(|s| s.fault) {
            Some(code) => Err(code.into()),
            None => Ok(()),
        }
    }

    // ---- launch ----------------------------------------------------------

    /// `hipModuleLaunchKernel`. Argument errors return at once; a fault of the
    /// kernel itself is asynchronous, as on hardware: the launch succeeds and
    /// the stream reports the fault from hipStreamQuery/hipStreamSynchronize.
    /// The kernel runs to completion inside this call.
    pub fn launch(
        &mut self,
        function: usize,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        stream: usize,
        args: KernargSource,
    ) -> HipResult<()> {
        let func = self
            .functions
            .get(&function)
            .cloned()
            .ok_or(Stop::Status(status::INVALID_HANDLE))?;
        let module_id = self
            .modules
            .get(&func.module)
            .map(|m| m.id)
            .ok_or(Stop::Status(status::INVALID_HANDLE))?;
        self.stream(stream)?;
        let meta = &func.meta;

        if grid.contains(&0) || block.contains(&0) || shared_bytes > MAX_SHARED_BYTES {
            return Err(status::INVALID_VALUE.into());
        }
        let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
        if threads > MAX_THREADS_PER_BLOCK
            || threads > u64::from(meta.max_flat_workgroup_size.max(1))
        {
            self.note(format_args!(
                "hipModuleLaunchKernel: block of {threads} work-items exceeds {}'s max_flat_workgroup_size {}",
                meta.name, meta.max_flat_workgroup_size
            ));
            return Err(status::INVALID_VALUE.into());
        }
        if grid
            .iter()
            .zip(block)
            .any(|(&g, b)| u64::from(g) * u64::from(b) > u64::from(u32::MAX))
        {
            return Err(status::INVALID_VALUE.into());
        }
        // ROCm silently launches with .reqd_workgroup_size when the kernel declares one.
        let block = meta.reqd_workgroup_size.unwrap_or(block);
        let mut kernarg =
            kernarg_segment(meta, args, grid, block, shared_bytes).map_err(|reason| {
                self.note(format_args!(
                    "hipModuleLaunchKernel({}): {reason}",
                    meta.name
                ));
                Stop::Status(status::INVALID_VALUE)
            })?;
        self.localize_pointers(meta, &mut kernarg);

        let notes = self.notes;
        let state = self
            .streams
            .get_mut(&stream)
            .ok_or(Stop::Status(status::INVALID_HANDLE))?;
        if state.hung {
            // Queued behind a kernel that never finishes: never runs.
            return Ok(());
        }
        if self.knobs.launch.hang {
            note(
                notes,
                format_args!("XAD_EMUHIP_HANG: kernel {} never completes", meta.name),
            );
            state.hung = true;
            return Ok(());
        }

        let first_launch = self.launches_run == 0;
        self.launches_run += 1;
        let view = inject::output_view(meta, &kernarg);
        let knobs = self.knobs.launch.clone();
        let saved = view.map(|view| knobs.before(first_launch, &view, &mut Poke { runtime: self }));

        let dispatch = Dispatch {
            grid_blocks: grid,
            block,
        };
        if let Err(e) = self.device.launch(
            module_id,
            &meta.name,
            &kernarg,
            dispatch,
            EMULATOR_LAUNCH_LIMIT,
        ) {
            let code = fault_status(&e);
            self.note(format_args!(
                "kernel {} faulted ({}): {e}",
                meta.name,
                status::name(code).to_string_lossy()
            ));
            self.set_fault(stream, code);
            return Ok(());
        }
        if let (Some(view), Some(saved)) = (view, saved) {
            let mut mem = Poke { runtime: self };
            if knobs
                .after(first_launch, &view, saved, &meta.name, &mut mem)
                .is_err()
            {
                self.set_fault(stream, status::ILLEGAL_ADDRESS);
            }
        }
        Ok(())
    }

    /// Strip this device's tag from the pointer arguments (`global_buffer`)
    /// so the kernel sees the emulator's addresses. Another device's pointer
    /// keeps its tag: the kernel's accesses through it fault, as they would
    /// on a GPU that cannot reach the other card's memory.
    fn localize_pointers(&self, meta: &KernelMeta, kernarg: &mut [u8]) {
        for arg in meta
            .args
            .iter()
            .filter(|a| a.value_kind == "global_buffer" && a.size == 8)
        {
            let Some(value) = read_at::<8>(kernarg, arg.offset).map(u64::from_le_bytes) else {
                continue;
            };
            if value & !ADDRESS_MASK == self.tag() {
                let start = arg.offset as usize;
                kernarg[start..start + 8].copy_from_slice(&(value & ADDRESS_MASK).to_le_bytes());
            } else {
                let what = format!("argument {}", arg.name.as_deref().unwrap_or("?"));
                self.note_foreign(
                    &format!("hipModuleLaunchKernel({})", meta.name),
                    &what,
                    value,
                );
            }
        }
    }

    fn set_fault(&mut self, stream: usize, code: Status) {
        if let Some(state) = self.streams.get_mut(&stream) {
            state.fault.get_or_insert(code);
        }
    }
}

/// A runtime's device memory as the launch knobs reach it: the stores the
/// "hardware" makes after the kernel, within the live hipMalloc allocations.
struct Poke<'a> {
    runtime: &'a mut Runtime,
}

impl LaunchMemory for Poke<'_> {
    fn read_u32(&mut self, addr: u64) -> Option<u32> {
        let mut word = [0u8; 4];
        (self.runtime.in_allocation(addr, 4) && self.runtime.device.read(addr, &mut word).is_ok())
            .then(|| u32::from_le_bytes(word))
    }
    fn write_u32(&mut self, addr: u64, value: u32) -> bool {
        self.runtime.in_allocation(addr, 4)
            && self
                .runtime
                .device
                .write(addr, &value.to_le_bytes())
                .is_ok()
    }
    fn allocation_end(&self, addr: u64) -> Option<u64> {
        self.runtime
            .allocation_containing(addr)
            .map(|(base, size)| base + size as u64)
    }
    fn note(&mut self, text: &str) {
        self.runtime.note(format_args!("{text}"));
    }
}

fn read_at<const N: usize>(bytes: &[u8], offset: u32) -> Option<[u8; N]> {
    let start = offset as usize;
    bytes.get(start..start.checked_add(N)?)?.try_into().ok()
}

/// The sizes `HIP_LAUNCH_PARAM_BUFFER_SIZE` may state for `meta`: the explicit
/// arguments' extent (what newer ROCm checks) or the whole segment (what the
/// harness's kernarg builder produces).
pub fn accepted_buffer_sizes(meta: &KernelMeta) -> [usize; 2] {
    [
        codeobj::kernarg::explicit_size(meta),
        meta.kernarg_segment_size as usize,
    ]
}

/// Build the kernarg segment the kernel sees, the way ROCm does for a module
/// launch: only the explicit arguments are taken from the caller (each at its
/// metadata offset), hidden arguments the metadata lists are written by the
/// runtime, and undescribed bytes are left "uninitialised" (poisoned).
pub fn kernarg_segment(
    meta: &KernelMeta,
    args: KernargSource,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
) -> Result<Vec<u8>, String> {
    let mut segment = vec![KERNARG_POISON; meta.kernarg_segment_size as usize];
    let explicit: Vec<&ArgMeta> = meta.args.iter().filter(|a| !a.is_hidden()).collect();
    let place = |segment: &mut Vec<u8>, arg: &ArgMeta, bytes: &[u8]| -> Result<(), String> {
        let start = arg.offset as usize;
        let end = start + arg.size as usize;
        let dst = segment.get_mut(start..end).ok_or_else(|| {
            format!(
                "argument {} at {start}..{end} lies outside the kernarg segment ({} bytes)",
                arg.name.as_deref().unwrap_or("?"),
                meta.kernarg_segment_size
            )
        })?;
        dst.copy_from_slice(bytes);
        Ok(())
    };
    match args {
        KernargSource::Buffer(buffer) => {
            if !accepted_buffer_sizes(meta).contains(&buffer.len()) {
                return Err(format!(
                    "HIP_LAUNCH_PARAM_BUFFER_SIZE is {} but the kernel's explicit arguments end at {} (segment {})",
                    buffer.len(),
                    codeobj::kernarg::explicit_size(meta),
                    meta.kernarg_segment_size
                ));
            }
            for arg in &explicit {
                let start = arg.offset as usize;
                let bytes = buffer
                    .get(start..start + arg.size as usize)
                    .ok_or("explicit argument beyond the buffer")?;
                place(&mut segment, arg, bytes)?;
            }
        }
        KernargSource::Params(values) => {
            if values.len() != explicit.len() {
                return Err(format!(
                    "kernelParams has {} values, the kernel takes {}",
                    values.len(),
                    explicit.len()
                ));
            }
            for (arg, value) in explicit.iter().zip(&values) {
                if value.len() != arg.size as usize {
                    return Err(format!(
                        "kernelParams value for {} is {} bytes, metadata says {}",
                        arg.name.as_deref().unwrap_or("?"),
                        value.len(),
                        arg.size
                    ));
                }
                place(&mut segment, arg, value)?;
            }
        }
    }
    for arg in meta.args.iter().filter(|a| a.is_hidden()) {
        let value: u64 = match arg.value_kind.as_str() {
            "hidden_block_count_x" => u64::from(grid[0]),
            "hidden_block_count_y" => u64::from(grid[1]),
            "hidden_block_count_z" => u64::from(grid[2]),
            "hidden_group_size_x" => u64::from(block[0]),
            "hidden_group_size_y" => u64::from(block[1]),
            "hidden_group_size_z" => u64::from(block[2]),
            // Module launches give whole workgroups: no partial last group.
            "hidden_remainder_x" | "hidden_remainder_y" | "hidden_remainder_z" => 0,
            "hidden_grid_dims" => 3,
            "hidden_dynamic_lds_size" => u64::from(shared_bytes),
            // Global offsets are 0; buffers this device does not provide
            // (printf, hostcall, heap, queue, ...) are null.
            _ => 0,
        };
        let size = (arg.size as usize).min(8);
        let start = arg.offset as usize;
        if let Some(dst) = segment.get_mut(start..start + size) {
            dst.copy_from_slice(&value.to_le_bytes()[..size]);
        }
    }
    Ok(segment)
}
