//! The C entry points, named and typed as in hip_runtime_api.h (5.x to 7.x;
//! the device-properties exports follow the header version, see build.rs). Each
//! one checks its pointers, converts them to slices and integers, and hands
//! over to the [`Host`] (device count, the thread's current device) or to
//! the [`Runtime`] of the device the call acts on, under that device's lock
//! (which device: see [`crate::host`]). No panic crosses the
//! boundary: each body runs inside `catch_unwind` and a panic becomes
//! hipErrorUnknown (999).
//!
//! # Safety (all functions)
//! The caller passes what HIP's documentation requires: output pointers are
//! null or valid for writes of their type, input buffers valid for the stated
//! size, `image` a whole code object, `name` a NUL-terminated string, `extra`
//! an array ended by HIP_LAUNCH_PARAM_END. Null pointers are detected and
//! answered with hipErrorInvalidValue, as ROCm does.

#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)] // the module-level "Safety" section covers every export

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::time::Duration;

use xad_harness::platform::device::Device;

use crate::host::{Host, On};
use crate::knobs::Knobs;
use crate::runtime::{accepted_buffer_sizes, HipResult, KernargSource, Runtime, Stop};
use crate::status::{self, Status};

/// Opaque handle types: pointers to runtime objects the caller never reads.
type Handle = *mut c_void;

enum Global {
    Ready(Host),
    /// A fault knob was malformed; every call fails so the misconfiguration is loud.
    Misconfigured,
}

static GLOBAL: OnceLock<Global> = OnceLock::new();

/// The device of gcnArchName `arch`: the emulator of the target that arch
/// runs; an arch of no target of ours keeps gfx1100, and the loader's target
/// check refuses its code objects.
///
/// `XAD_EMUHIP_XAD_FAULT` is the emulator's own fault injection: the wrong
/// value is `v_xad_u32`'s result inside the kernel, so the kernel's own checks
/// see it (`XAD_EMUHIP_FLIP_BIT` changes the output buffer after the launch).
/// `XAD_EMUHIP_MODIFIERS` (and `_DISAGREE`, `_DRIFT`) choose what a modified
/// `v_xad_u32` computes ([`crate::modifiers`]).
/// Its hardware ids name as many units as the device reports multiprocessors.
fn emulator(arch: &str, knobs: &Knobs) -> Box<dyn Device + Send> {
    let mut device = xad_harness::platform::embedded::target_of(arch).map_or_else(
        xad_harness::platform::emu::EmuDevice::new,
        xad_harness::platform::emu::EmuDevice::for_target,
    );
    device.set_xad_faults(
        knobs
            .xad_fault
            .iter()
            .map(|&(lane, bit)| xad_harness::platform::emu::XadFault { lane, bit })
            .collect(),
    );
    device.set_modifier_stand_in(knobs.modifiers.clone().map(|s| {
        std::sync::Arc::new(s) as std::sync::Arc<dyn xad_harness::platform::emu::ModifierStandIn>
    }));
    device.set_compute_units(crate::runtime::MULTIPROCESSORS as u32);
    Box::new(device)
}

fn host() -> Result<&'static Host, Status> {
    // HIP initialises lazily on the first call of any API; hipInit only makes
    // it explicit. The knobs are read at the same moment, once.
    let global = GLOBAL.get_or_init(|| match Knobs::from_env() {
        Ok(knobs) => Global::Ready(Host::new(knobs, emulator)),
        Err(message) => {
            eprintln!("xad-emuhip: bad fault knob: {message}");
            Global::Misconfigured
        }
    });
    match global {
        Global::Ready(host) => Ok(host),
        Global::Misconfigured => Err(status::NOT_INITIALIZED),
    }
}

/// A kernel that never completes: the calling thread waits forever, as it
/// would on a hung GPU queue. The device's lock is already released.
fn block_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// The panic barrier and the status of one export's outcome.
fn finish(function: &'static str, outcome: std::thread::Result<HipResult<()>>) -> Status {
    match outcome {
        Ok(Ok(())) => status::SUCCESS,
        Ok(Err(Stop::Status(code))) => code,
        Ok(Err(Stop::Hang)) => block_forever(),
        Err(_) => {
            eprintln!(
                "xad-emuhip: internal error (panic) in {function}; returning hipErrorUnknown"
            );
            status::UNKNOWN
        }
    }
}

/// Run an export that acts on no one device: lazy init, the
/// `XAD_EMUHIP_STATUS` override (only while the knobs act on every device),
/// the body.
fn call_host(function: &'static str, body: impl FnOnce(&Host) -> HipResult<()>) -> Status {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let host = host().map_err(Stop::Status)?;
        if let Some(code) = host.knobs.forced_status_of_host(function) {
            return Err(Stop::Status(code));
        }
        body(host)
    }));
    finish(function, outcome)
}

/// Run an export on the device `on` names: lazy init, that device's
/// `XAD_EMUHIP_STATUS` override, the body under that device's lock.
fn call(
    function: &'static str,
    on: On,
    body: impl FnOnce(&mut Runtime) -> HipResult<()>,
) -> Status {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        host().map_err(Stop::Status)?.with(on, function, body)
    }));
    finish(function, outcome)
}

fn invalid<T>() -> HipResult<T> {
    Err(Stop::Status(status::INVALID_VALUE))
}

// ---- device management --------------------------------------------------

#[no_mangle]
pub extern "C" fn hipInit(flags: c_uint) -> Status {
    call_host("hipInit", |host| host.init(flags))
}

#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> Status {
    call_host("hipRuntimeGetVersion", |_| {
        if version.is_null() {
            return invalid();
        }
        // SAFETY: non-null and, per the contract, valid for an int write.
        unsafe { version.write(status::HIP_VERSION) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> Status {
    call_host("hipDriverGetVersion", |_| {
        if version.is_null() {
            return invalid();
        }
        // SAFETY: non-null and, per the contract, valid for an int write.
        unsafe { version.write(status::HIP_VERSION) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> Status {
    call_host("hipGetDeviceCount", |host| {
        if count.is_null() {
            return invalid();
        }
        // SAFETY: non-null and, per the contract, valid for an int write.
        unsafe { count.write(host.device_count()) };
        // ROCm writes 0 and says hipErrorNoDevice when no device is visible.
        if host.device_count() == 0 {
            return Err(Stop::Status(status::NO_DEVICE));
        }
        Ok(())
    })
}

extern "C" {
    /// src/props.c: fills the pre-ROCm-6 (R0000) struct, 792 bytes.
    fn xad_emuhip_fill_props_r0000(
        props: *mut c_void,
        name: *const c_char,
        arch: *const c_char,
        gcn_arch: c_int,
        total_global_mem: usize,
        multiprocessors: c_int,
        pci_domain: c_int,
        pci_bus: c_int,
        pci_device: c_int,
    );
    /// src/props.c: fills ROCm 6's hipDeviceProp_tR0600, 1472 bytes.
    #[cfg(hip_r0600)]
    fn xad_emuhip_fill_props_r0600(
        props: *mut c_void,
        name: *const c_char,
        arch: *const c_char,
        gcn_arch: c_int,
        total_global_mem: usize,
        multiprocessors: c_int,
        pci_domain: c_int,
        pci_bus: c_int,
        pci_device: c_int,
    );
    /// src/props.c: offsets of pciDomainID, pciBusID and pciDeviceID in
    /// layout `kind`; 0 when this build has no such layout.
    #[cfg(test)]
    pub(crate) fn xad_emuhip_pci_offsets(
        kind: c_int,
        domain: *mut usize,
        bus: *mut usize,
        device: *mut usize,
    ) -> c_int;
    /// src/props.c: size, gcnArchName offset and size of layout `kind`
    /// (0 R0000, 1 R0600); 0 when this build has no such layout.
    #[cfg(test)]
    pub(crate) fn xad_emuhip_layout(
        kind: c_int,
        size: *mut usize,
        arch_offset: *mut usize,
        arch_bytes: *mut usize,
    ) -> c_int;
}

/// One of props.c's fill functions; each writes exactly its own layout.
type FillProps = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    usize,
    c_int,
    c_int,
    c_int,
    c_int,
);

/// The body shared by every hipGetDeviceProperties* export: `fill` decides
/// the layout, which the caller's symbol choice promises.
///
/// # Safety
/// `props` is null or points at a writable struct of the layout `fill` writes.
unsafe fn device_properties(
    function: &'static str,
    props: *mut c_void,
    device: c_int,
    fill: FillProps,
) -> Status {
    call(function, On::Device(device), |rt| {
        if props.is_null() {
            return invalid();
        }
        let p = rt.properties();
        // Both come from format!/knobs without NULs (the ARCH knob rejects them).
        let name =
            std::ffi::CString::new(p.name).map_err(|_| Stop::Status(status::INVALID_VALUE))?;
        let arch =
            std::ffi::CString::new(p.arch).map_err(|_| Stop::Status(status::INVALID_VALUE))?;
        let total = usize::try_from(p.total_global_mem).unwrap_or(usize::MAX);
        // SAFETY: `props` is non-null and, per the contract, points at the
        // struct `fill` writes (its size is pinned by static assertions in
        // props.c); the strings outlive the call.
        unsafe {
            fill(
                props,
                name.as_ptr(),
                arch.as_ptr(),
                p.gcn_arch,
                total,
                p.multiprocessors,
                p.pci.0,
                p.pci.1,
                p.pci.2,
            )
        };
        Ok(())
    })
}

/// The unversioned symbol: the R0000 layout in every version (ROCm 6+ headers
/// rename the C name to ...R0600, so only old binaries call this one).
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(props: *mut c_void, device: c_int) -> Status {
    // SAFETY: forwarded contract.
    unsafe {
        device_properties(
            "hipGetDeviceProperties",
            props,
            device,
            xad_emuhip_fill_props_r0000,
        )
    }
}

/// ROCm 6+: the old layout under its explicit name (node hip_4.2).
#[cfg(hip_r0600)]
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0000(props: *mut c_void, device: c_int) -> Status {
    // SAFETY: forwarded contract.
    unsafe {
        device_properties(
            "hipGetDevicePropertiesR0000",
            props,
            device,
            xad_emuhip_fill_props_r0000,
        )
    }
}

/// ROCm 6+: what `hipGetDeviceProperties` means in a 6.x/7.x header (node hip_6.0).
#[cfg(hip_r0600)]
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(props: *mut c_void, device: c_int) -> Status {
    // SAFETY: forwarded contract.
    unsafe {
        device_properties(
            "hipGetDevicePropertiesR0600",
            props,
            device,
            xad_emuhip_fill_props_r0600,
        )
    }
}

#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> Status {
    call_host("hipSetDevice", |host| host.set_device(device))
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> Status {
    call("hipDeviceSynchronize", On::Current, |rt| {
        rt.device_synchronize()
    })
}

// ---- memory --------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> Status {
    call("hipMalloc", On::Current, |rt| {
        if ptr.is_null() {
            return invalid();
        }
        let result = rt.malloc(size);
        let address = result.as_ref().ok().copied().flatten().unwrap_or(0);
        // SAFETY: non-null and, per the contract, valid for a pointer write.
        // ROCm stores null on failure too.
        unsafe { ptr.write(address as usize as *mut c_void) };
        result.map(|_| ())
    })
}

#[no_mangle]
pub extern "C" fn hipFree(ptr: *mut c_void) -> Status {
    let address = ptr as usize as u64;
    call("hipFree", On::Owner(address), |rt| rt.free(address))
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> Status {
    call("hipMemcpyHtoD", On::Current, |rt| {
        if size != 0 && (src.is_null() || dst.is_null()) {
            return invalid();
        }
        let bytes: &[u8] = if size == 0 {
            &[]
        } else {
            // SAFETY: non-null and, per the contract, valid for `size` reads.
            unsafe { std::slice::from_raw_parts(src as *const u8, size) }
        };
        rt.copy_htod(dst as usize as u64, bytes)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(dst: *mut c_void, src: *mut c_void, size: usize) -> Status {
    call("hipMemcpyDtoH", On::Current, |rt| {
        if size != 0 && (src.is_null() || dst.is_null()) {
            return invalid();
        }
        let bytes: &mut [u8] = if size == 0 {
            &mut []
        } else {
            // SAFETY: non-null and, per the contract, valid for `size` writes
            // and not aliased by anything this library holds.
            unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, size) }
        };
        rt.copy_dtoh(bytes, src as usize as u64)
    })
}

// ---- modules ---------------------------------------------------------------

/// Largest code object accepted; far above any real kernel, it keeps a
/// corrupt header from making this library read gigabytes.
const MAX_IMAGE_BYTES: u64 = 256 << 20;

/// Length of the ELF image at `image`, from its header and tables (HIP takes
/// no size: the runtime reads the headers to find the end, as done here).
///
/// # Safety
/// `image` is non-null and points at readable memory at least as long as the
/// ELF file it describes, or at least 4 bytes when it is not an ELF file.
unsafe fn elf_image<'a>(image: *const u8) -> Result<&'a [u8], Status> {
    // SAFETY: the caller guarantees at least the 4-byte magic is readable.
    let magic = unsafe { std::slice::from_raw_parts(image, 4) };
    if magic != b"\x7fELF" {
        return Err(status::INVALID_IMAGE);
    }
    // SAFETY: an ELF file is at least its 64-byte header (ELF64).
    let header = unsafe { std::slice::from_raw_parts(image, 64) };
    let tables = crate::elf::tables(header).ok_or(status::INVALID_IMAGE)?;
    let mut end = 64u64;
    for table in [tables.program, tables.section] {
        if table.count == 0 {
            continue;
        }
        let table_end = table
            .offset
            .checked_add(u64::from(table.count) * u64::from(table.entry_size));
        let Some(table_end) = table_end.filter(|&e| e <= MAX_IMAGE_BYTES) else {
            return Err(status::INVALID_IMAGE);
        };
        end = end.max(table_end);
        // SAFETY: the table lies inside the file, which the caller guarantees readable.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                image.add(table.offset as usize),
                table_end as usize - table.offset as usize,
            )
        };
        end = end.max(crate::elf::content_end(&table, bytes).ok_or(status::INVALID_IMAGE)?);
    }
    if end > MAX_IMAGE_BYTES {
        return Err(status::INVALID_IMAGE);
    }
    // SAFETY: every byte up to `end` belongs to a header, table, segment or
    // section of the file, which the caller guarantees readable.
    Ok(unsafe { std::slice::from_raw_parts(image, end as usize) })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(module: *mut Handle, image: *const c_void) -> Status {
    call("hipModuleLoadData", On::Current, |rt| {
        if module.is_null() || image.is_null() {
            return invalid();
        }
        // SAFETY: non-null; per the contract a whole code object.
        let bytes = unsafe { elf_image(image as *const u8) }.map_err(|code| {
            eprintln!("xad-emuhip: hipModuleLoadData: image is not an ELF code object");
            Stop::Status(code)
        })?;
        let handle = rt.module_load(bytes)?;
        // SAFETY: non-null and, per the contract, valid for a handle write.
        unsafe { module.write(handle as Handle) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(module: Handle) -> Status {
    let handle = module as usize;
    call("hipModuleUnload", On::Owner(handle as u64), |rt| {
        rt.module_unload(handle)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(
    function: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> Status {
    call("hipModuleGetFunction", On::Current, |rt| {
        if function.is_null() || name.is_null() {
            return invalid();
        }
        // SAFETY: non-null and, per the contract, NUL-terminated.
        let name = unsafe { CStr::from_ptr(name) };
        let name = name.to_str().map_err(|_| Stop::Status(status::NOT_FOUND))?;
        let handle = rt.get_function(module as usize, name)?;
        // SAFETY: non-null and, per the contract, valid for a handle write.
        unsafe { function.write(handle as Handle) };
        Ok(())
    })
}

/// `extra` keys (hip_runtime_api.h): pointer-sized tags, not pointers.
const LAUNCH_PARAM_BUFFER_POINTER: usize = 0x01;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 0x02;
const LAUNCH_PARAM_END: usize = 0x03;
/// More key/value pairs than this means a missing HIP_LAUNCH_PARAM_END.
const MAX_EXTRA_PAIRS: usize = 16;

/// Read the kernarg buffer named by an `extra` array, checking its stated size
/// against the metadata before reading a byte of it.
///
/// # Safety
/// `extra` is non-null and, per the contract, an array of key/value pointers
/// ended by HIP_LAUNCH_PARAM_END, whose buffer pointer is valid for its size.
unsafe fn read_extra(extra: *mut *mut c_void, accepted: [usize; 2]) -> HipResult<Vec<u8>> {
    let mut buffer: Option<*const u8> = None;
    let mut size: Option<usize> = None;
    let mut index = 0;
    loop {
        if index / 2 >= MAX_EXTRA_PAIRS {
            return invalid();
        }
        // SAFETY: inside the array until END, per the contract.
        let key = unsafe { *extra.add(index) } as usize;
        if key == LAUNCH_PARAM_END {
            break;
        }
        // SAFETY: every key but END is followed by its value.
        let value = unsafe { *extra.add(index + 1) };
        match key {
            LAUNCH_PARAM_BUFFER_POINTER => buffer = Some(value as *const u8),
            LAUNCH_PARAM_BUFFER_SIZE => {
                if value.is_null() {
                    return invalid();
                }
                // SAFETY: BUFFER_SIZE's value points at a size_t.
                size = Some(unsafe { *(value as *const usize) });
            }
            _ => return invalid(),
        }
        index += 2;
    }
    let (Some(buffer), Some(size)) = (buffer, size) else {
        return invalid();
    };
    if !accepted.contains(&size) {
        eprintln!(
            "xad-emuhip: hipModuleLaunchKernel: HIP_LAUNCH_PARAM_BUFFER_SIZE is {size}, the kernel's metadata needs {} (explicit arguments) or {} (segment)",
            accepted[0], accepted[1]
        );
        return invalid();
    }
    if size == 0 {
        return Ok(Vec::new());
    }
    if buffer.is_null() {
        return invalid();
    }
    // SAFETY: non-null and valid for `size` reads, per the contract.
    Ok(unsafe { std::slice::from_raw_parts(buffer, size) }.to_vec())
}

#[no_mangle]
#[allow(clippy::too_many_arguments)] // HIP's signature
pub unsafe extern "C" fn hipModuleLaunchKernel(
    function: Handle,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared_bytes: c_uint,
    stream: Handle,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Status {
    call("hipModuleLaunchKernel", On::Current, |rt| {
        let meta = rt.function_meta(function as usize)?;
        let explicit: Vec<usize> = meta
            .args
            .iter()
            .filter(|a| !a.is_hidden())
            .map(|a| a.size as usize)
            .collect();
        let args = match (kernel_params.is_null(), extra.is_null()) {
            (false, false) => return invalid(),
            (true, true) if explicit.is_empty() => KernargSource::Params(Vec::new()),
            (true, true) => return invalid(),
            // SAFETY: non-null; per the contract an END-terminated array.
            (true, false) => {
                KernargSource::Buffer(unsafe { read_extra(extra, accepted_buffer_sizes(meta)) }?)
            }
            (false, true) => {
                let mut values = Vec::with_capacity(explicit.len());
                for (i, size) in explicit.iter().enumerate() {
                    // SAFETY: kernelParams holds one pointer per explicit argument.
                    let value = unsafe { *kernel_params.add(i) } as *const u8;
                    if value.is_null() {
                        return invalid();
                    }
                    // SAFETY: each points at a value of the argument's size.
                    values.push(unsafe { std::slice::from_raw_parts(value, *size) }.to_vec());
                }
                KernargSource::Params(values)
            }
        };
        rt.launch(
            function as usize,
            [grid_x, grid_y, grid_z],
            [block_x, block_y, block_z],
            shared_bytes,
            stream as usize,
            args,
        )
    })
}

// ---- streams ---------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(stream: *mut Handle) -> Status {
    call("hipStreamCreate", On::Current, |rt| {
        if stream.is_null() {
            return invalid();
        }
        let handle = rt.stream_create();
        // SAFETY: non-null and, per the contract, valid for a handle write.
        unsafe { stream.write(handle as Handle) };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn hipStreamDestroy(stream: Handle) -> Status {
    let handle = stream as usize;
    call("hipStreamDestroy", On::Owner(handle as u64), |rt| {
        rt.stream_destroy(handle)
    })
}

#[no_mangle]
pub extern "C" fn hipStreamQuery(stream: Handle) -> Status {
    let handle = stream as usize;
    call("hipStreamQuery", On::Owner(handle as u64), |rt| {
        rt.stream_query(handle)
    })
}

#[no_mangle]
pub extern "C" fn hipStreamSynchronize(stream: Handle) -> Status {
    let handle = stream as usize;
    call("hipStreamSynchronize", On::Owner(handle as u64), |rt| {
        rt.stream_synchronize(handle)
    })
}

// ---- errors ----------------------------------------------------------------

#[no_mangle]
pub extern "C" fn hipGetErrorName(code: Status) -> *const c_char {
    catch_unwind(|| status::name(code).as_ptr()).unwrap_or(c"hipErrorUnknown".as_ptr())
}

/// Debian's HIP 5.2 returns the name here too.
#[no_mangle]
pub extern "C" fn hipGetErrorString(code: Status) -> *const c_char {
    catch_unwind(|| status::name(code).as_ptr()).unwrap_or(c"hipErrorUnknown".as_ptr())
}

/// Binds exports to the version node the real library puts them in
/// (`objdump -T libamdhip64.so.N`): everything the harness calls lives in
/// `hip_4.2` in 5.x, 6.x and 7.x; ROCm 6 added hipGetDevicePropertiesR0000
/// (`hip_4.2`) and hipGetDevicePropertiesR0600 (`hip_6.0`). `name@@@node`
/// renames the symbol to its versioned default in place. Not in unit-test
/// builds: an executable has no version nodes to bind to. Each list is also a
/// constant, for the test that keeps build.rs's generated version script in step.
macro_rules! versioned_exports {
    ($list:ident = $node:literal: $($name:ident),* $(,)?) => {
        #[cfg(not(test))]
        std::arch::global_asm!($(concat!(".symver ", stringify!($name), ", ", stringify!($name), "@@@", $node)),*);
        #[cfg(test)]
        pub const $list: (&str, &[&str]) = ($node, &[$(stringify!($name)),*]);
    };
}

versioned_exports!(
    EXPORTS = "hip_4.2":
    hipDeviceSynchronize,
    hipDriverGetVersion,
    hipFree,
    hipGetDeviceCount,
    hipGetDeviceProperties,
    hipGetErrorName,
    hipGetErrorString,
    hipInit,
    hipMalloc,
    hipMemcpyDtoH,
    hipMemcpyHtoD,
    hipModuleGetFunction,
    hipModuleLaunchKernel,
    hipModuleLoadData,
    hipModuleUnload,
    hipRuntimeGetVersion,
    hipSetDevice,
    hipStreamCreate,
    hipStreamDestroy,
    hipStreamQuery,
    hipStreamSynchronize,
);

#[cfg(hip_r0600)]
versioned_exports!(EXPORTS_R0000 = "hip_4.2": hipGetDevicePropertiesR0000);
#[cfg(hip_r0600)]
versioned_exports!(EXPORTS_R0600 = "hip_6.0": hipGetDevicePropertiesR0600);
