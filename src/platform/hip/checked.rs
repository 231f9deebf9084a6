//! Middle layer: one function per runtime call, each turning the status into
//! `Result<T, DeviceError>` with the runtime's own name and description.
//! Functions taking raw handles are `unsafe`: the caller vouches for the handle
//! (the RAII types in [`super::safe`] do that by owning them).
//!
//! `hipInit(0)` runs once, before any other runtime call except the status-text
//! lookups (those are plain tables; looking one up must not recurse into init
//! while init's own failure is being described).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use super::sys;
use crate::platform::device::DeviceError;

/// A raw HIP status (`hipError_t`), any value.
pub type Status = i32;

pub const SUCCESS: Status = sys::hipSuccess;
pub const INVALID_VALUE: Status = sys::hipErrorInvalidValue;
pub const NO_DEVICE: Status = sys::hipErrorNoDevice;
pub const INVALID_DEVICE: Status = sys::hipErrorInvalidDevice;
/// `hipStreamQuery`: work is still running.
pub const NOT_READY: Status = sys::hipErrorNotReady;
/// A kernel touched memory outside every allocation.
pub const ILLEGAL_ADDRESS: Status = sys::hipErrorIllegalAddress;
/// The one status the runtime legitimately names "hipErrorUnknown".
pub const UNKNOWN: Status = sys::hipErrorUnknown;
/// `hipErrorTbd` (1054 in HIP 5.2 to 7.2): the enum's end marker ("more error
/// codes are needed"), which every runtime names but none returns as a
/// diagnosis. A runtime returning it returned a number it has no meaning for.
pub const END_MARKER: Status = sys::hipErrorTbd;

/// What the runtime says about a status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusText {
    /// The runtime's name (`hipErrorInvalidValue`), or `unknown status N` when
    /// the runtime does not know the number.
    pub name: String,
    pub description: String,
    /// Whether the runtime knows this number.
    pub known: bool,
}

/// A C string the runtime returned, if it looks like text. The runtime owns it
/// (static storage in every HIP version).
fn runtime_text(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null; hipGetErrorName/hipGetErrorString return pointers to
    // NUL-terminated static strings.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    let text = std::str::from_utf8(bytes).ok()?;
    (!text.is_empty() && text.len() <= 512 && !text.chars().any(char::is_control))
        .then(|| text.to_string())
}

/// The runtime's name and description for `code`. An unknown number is
/// answered with "hipErrorUnknown" (HIP 5.2 does so for 911, 912, -1, ...), or
/// possibly with nothing or garbage; all of those, and the enum's end marker
/// [`END_MARKER`], become `unknown status N`.
pub fn status_text(code: Status) -> StatusText {
    // SAFETY: takes any integer (hipError_t is a plain int here) and returns a
    // static string or null.
    let name = runtime_text(unsafe { sys::hipGetErrorName(code) });
    // SAFETY: as above.
    let description = runtime_text(unsafe { sys::hipGetErrorString(code) });
    let known_name = name.filter(|n| {
        n.starts_with("hip")
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && (n != "hipErrorUnknown" || code == UNKNOWN)
            && code != END_MARKER
    });
    match known_name {
        Some(name) => StatusText {
            description: description.unwrap_or_else(|| name.clone()),
            name,
            known: true,
        },
        None => StatusText {
            name: format!("unknown status {code}"),
            description: format!("status {code} is not one this HIP runtime knows"),
            known: false,
        },
    }
}

/// The error for `call` having returned `code`.
pub fn error(call: &str, code: Status) -> DeviceError {
    let text = status_text(code);
    DeviceError::Runtime {
        call: call.to_string(),
        code,
        name: text.name,
        description: text.description,
    }
}

fn check(call: &str, code: Status) -> Result<(), DeviceError> {
    if code == SUCCESS {
        Ok(())
    } else {
        Err(error(call, code))
    }
}

static INIT: OnceLock<Status> = OnceLock::new();

/// `hipInit(0)`, run once per process; later calls return the first status.
pub fn init() -> Result<(), DeviceError> {
    // SAFETY: hipInit takes flags (must be 0) and nothing else.
    let code = *INIT.get_or_init(|| {
        exit_on_runtime_abort();
        unsafe { sys::hipInit(0) }
    });
    check("hipInit", code)
}

/// ROCr ends the process with `abort()` when the GPU reports a memory access
/// fault (its `VMFaultHandler` prints "Memory access fault by GPU node-N ...
/// on address ..." and asserts): on hardware, and through the real runtime on
/// the emulated KFD device alike. Without this the harness would die by
/// SIGABRT (exit 134) with no line of its own. With it, after the runtime's
/// own message, one line and the documented exit code for a device fault (3).
/// Installed once, before `hipInit`; nothing but `write` and `_exit` runs in
/// the handler (both async-signal-safe). The report of the run is not
/// written: the process state after a runtime abort is not trusted.
fn exit_on_runtime_abort() {
    extern "C" fn on_abort(_: libc::c_int) {
        const LINE: &[u8] = b"xad-harness: the HIP runtime aborted the process (a GPU memory access fault or a runtime assertion; its own message is above); exit 3\n";
        // SAFETY: write(2) of a static buffer and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, LINE.as_ptr().cast(), LINE.len());
            libc::_exit(3);
        }
    }
    // SAFETY: a plain sigaction with a handler that only calls
    // async-signal-safe functions; the struct is zeroed before use.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}

/// Runs `hipInit` first but does not insist it succeeded: version queries and
/// the device count answer either way, and report on their own.
fn init_attempted() {
    let _ = init();
}

/// `hipRuntimeGetVersion`: `major * 10_000_000 + minor * 100_000 + patch`.
pub fn runtime_version() -> Result<i32, DeviceError> {
    init_attempted();
    let mut version: c_int = 0;
    // SAFETY: writes one int through a valid pointer.
    check("hipRuntimeGetVersion", unsafe {
        sys::hipRuntimeGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `hipDriverGetVersion` (same encoding as the runtime version on AMD).
pub fn driver_version() -> Result<i32, DeviceError> {
    init_attempted();
    let mut version: c_int = 0;
    // SAFETY: writes one int through a valid pointer.
    check("hipDriverGetVersion", unsafe {
        sys::hipDriverGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `hipGetDeviceCount`. No device is an error status (`hipErrorNoDevice`), as
/// the runtime reports it.
pub fn device_count() -> Result<u32, DeviceError> {
    init_attempted();
    let mut count: c_int = 0;
    // SAFETY: writes one int through a valid pointer.
    check("hipGetDeviceCount", unsafe {
        sys::hipGetDeviceCount(&mut count)
    })?;
    u32::try_from(count).map_err(|_| {
        DeviceError::Refused(format!(
            "hipGetDeviceCount returned a negative count {count}"
        ))
    })
}

fn device_index(index: u32) -> Result<c_int, DeviceError> {
    c_int::try_from(index)
        .map_err(|_| DeviceError::Refused(format!("device index {index} is out of range")))
}

/// What the harness reads from `hipGetDeviceProperties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    /// gcnArchName: the device's target ID, e.g. `gfx1100:sramecc-:xnack-`.
    pub arch: String,
    pub compute_units: u32,
    pub memory_bytes: u64,
    pub major: i32,
    pub minor: i32,
    /// pciDomainID, pciBusID and pciDeviceID: where the card sits, which
    /// stays the same whatever index HIP_VISIBLE_DEVICES gives it.
    pub pci_domain: u32,
    pub pci_bus: u32,
    pub pci_device: u32,
}

impl DeviceInfo {
    /// The PCI address as `lspci` and `hipDeviceGetPCIBusId` write it,
    /// `DDDD:BB:DD.0` in hex (function 0: HIP reports no function number).
    pub fn pci_bus_id(&self) -> String {
        format!(
            "{:04x}:{:02x}:{:02x}.0",
            self.pci_domain, self.pci_bus, self.pci_device
        )
    }
}

fn fixed_text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `hipGetDeviceProperties` through the C shim, which pairs the header's
/// struct with the matching symbol (`...R0600` on ROCm 6+).
pub fn device_info(index: u32) -> Result<DeviceInfo, DeviceError> {
    init()?;
    let device = device_index(index)?;
    // SAFETY: xad_device_info is plain data (char arrays and integers); all
    // zeroes is a valid value.
    let mut raw: sys::xad_device_info = unsafe { std::mem::zeroed() };
    // SAFETY: the shim writes only inside `raw` and NUL-terminates both strings.
    check("hipGetDeviceProperties", unsafe {
        sys::xad_hip_device_info(device, &mut raw)
    })?;
    Ok(DeviceInfo {
        name: fixed_text(&raw.name),
        arch: fixed_text(&raw.gcn_arch_name),
        compute_units: u32::try_from(raw.multi_processor_count).unwrap_or(0),
        memory_bytes: raw.total_global_mem,
        major: raw.major,
        minor: raw.minor,
        // Negative values are garbage; show them as 0 rather than wrap.
        pci_domain: u32::try_from(raw.pci_domain_id).unwrap_or(0),
        pci_bus: u32::try_from(raw.pci_bus_id).unwrap_or(0),
        pci_device: u32::try_from(raw.pci_device_id).unwrap_or(0),
    })
}

/// `hipSetDevice`: the current device is per host thread, so callers set it
/// before every call that allocates, loads or launches.
pub fn set_device(index: u32) -> Result<(), DeviceError> {
    init()?;
    let device = device_index(index)?;
    // SAFETY: plain integer argument.
    check("hipSetDevice", unsafe { sys::hipSetDevice(device) })
}

/// `hipMalloc` of `bytes` on the current device.
pub fn malloc(bytes: usize) -> Result<*mut c_void, DeviceError> {
    init()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    // SAFETY: writes one pointer through a valid pointer.
    check("hipMalloc", unsafe { sys::hipMalloc(&mut ptr, bytes) })?;
    Ok(ptr)
}

/// `hipFree`.
///
/// # Safety
/// `ptr` came from [`malloc`] and is not used (by the host or a running kernel) afterwards.
pub unsafe fn free(ptr: *mut c_void) -> Result<(), DeviceError> {
    // SAFETY: the caller's contract.
    check("hipFree", unsafe { sys::hipFree(ptr) })
}

/// `hipMemcpyHtoD` of all of `src`.
///
/// # Safety
/// `dst .. dst + src.len()` lies inside one live device allocation.
pub unsafe fn memcpy_htod(dst: *mut c_void, src: &[u8]) -> Result<(), DeviceError> {
    // SAFETY: the runtime only reads `src` (older headers spell it `void *`).
    check("hipMemcpyHtoD", unsafe {
        sys::hipMemcpyHtoD(dst, src.as_ptr().cast_mut().cast(), src.len())
    })
}

/// `hipMemcpyDtoH` filling all of `dst`.
///
/// # Safety
/// `src .. src + dst.len()` lies inside one live device allocation.
pub unsafe fn memcpy_dtoh(dst: &mut [u8], src: *mut c_void) -> Result<(), DeviceError> {
    // SAFETY: `dst` is writable for its length; the caller vouches for `src`.
    check("hipMemcpyDtoH", unsafe {
        sys::hipMemcpyDtoH(dst.as_mut_ptr().cast(), src, dst.len())
    })
}

/// `hipModuleLoadData` on the current device.
///
/// # Safety
/// `image` stays alive and unchanged until the module is unloaded (the runtime
/// may keep reading it; the RAII `Module` owns the bytes for that reason).
pub unsafe fn module_load_data(image: &[u8]) -> Result<sys::hipModule_t, DeviceError> {
    init()?;
    let mut module: sys::hipModule_t = std::ptr::null_mut();
    // SAFETY: writes one handle; the caller keeps `image` alive.
    check("hipModuleLoadData", unsafe {
        sys::hipModuleLoadData(&mut module, image.as_ptr().cast())
    })?;
    Ok(module)
}

/// `hipModuleUnload`.
///
/// # Safety
/// `module` came from [`module_load_data`], is unloaded once, and none of its
/// kernels is still running.
pub unsafe fn module_unload(module: sys::hipModule_t) -> Result<(), DeviceError> {
    // SAFETY: the caller's contract.
    check("hipModuleUnload", unsafe { sys::hipModuleUnload(module) })
}

/// `hipModuleGetFunction`. The handle lives as long as the module.
///
/// # Safety
/// `module` is a live module handle.
pub unsafe fn module_get_function(
    module: sys::hipModule_t,
    name: &CStr,
) -> Result<sys::hipFunction_t, DeviceError> {
    let mut function: sys::hipFunction_t = std::ptr::null_mut();
    // SAFETY: `name` is NUL-terminated; the caller vouches for `module`.
    check("hipModuleGetFunction", unsafe {
        sys::hipModuleGetFunction(&mut function, module, name.as_ptr())
    })?;
    Ok(function)
}

/// `hipModuleLaunchKernel` with the kernarg image passed as one buffer
/// (`HIP_LAUNCH_PARAM_BUFFER_POINTER`). The runtime copies `kernarg` before it
/// returns. `explicit_size` goes in `HIP_LAUNCH_PARAM_BUFFER_SIZE`: newer ROCm
/// checks it against the explicit arguments; older ignores it.
///
/// # Safety
/// `function` belongs to a live module, `stream` is live, and `kernarg` is laid
/// out as that kernel's metadata says (every pointer in it is a device address
/// the kernel may use): the GPU reads it as such.
pub unsafe fn module_launch_kernel(
    function: sys::hipFunction_t,
    grid_blocks: [u32; 3],
    block: [u32; 3],
    stream: sys::hipStream_t,
    kernarg: &[u8],
    explicit_size: usize,
) -> Result<(), DeviceError> {
    let mut size = explicit_size;
    let mut extra: [*mut c_void; 5] = [
        sys::HIP_LAUNCH_PARAM_BUFFER_POINTER,
        kernarg.as_ptr().cast_mut().cast(),
        sys::HIP_LAUNCH_PARAM_BUFFER_SIZE,
        (&mut size as *mut usize).cast(),
        sys::HIP_LAUNCH_PARAM_END,
    ];
    // SAFETY: `extra` and `size` outlive the call, which reads (copies) the
    // kernarg buffer before returning; the caller vouches for the rest.
    check("hipModuleLaunchKernel", unsafe {
        sys::hipModuleLaunchKernel(
            function,
            grid_blocks[0],
            grid_blocks[1],
            grid_blocks[2],
            block[0],
            block[1],
            block[2],
            0,
            stream,
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    })
}

/// `hipStreamCreate` on the current device.
pub fn stream_create() -> Result<sys::hipStream_t, DeviceError> {
    init()?;
    let mut stream: sys::hipStream_t = std::ptr::null_mut();
    // SAFETY: writes one handle through a valid pointer.
    check("hipStreamCreate", unsafe {
        sys::hipStreamCreate(&mut stream)
    })?;
    Ok(stream)
}

/// `hipStreamDestroy`. Waits for the stream's work: never call it on a stream
/// whose kernel has hung.
///
/// # Safety
/// `stream` came from [`stream_create`] and is destroyed once.
pub unsafe fn stream_destroy(stream: sys::hipStream_t) -> Result<(), DeviceError> {
    // SAFETY: the caller's contract.
    check("hipStreamDestroy", unsafe { sys::hipStreamDestroy(stream) })
}

/// `hipStreamQuery`: `Ok(true)` when all work is done, `Ok(false)` while it
/// runs (`hipErrorNotReady`). Never blocks.
///
/// # Safety
/// `stream` is live.
pub unsafe fn stream_query(stream: sys::hipStream_t) -> Result<bool, DeviceError> {
    // SAFETY: the caller vouches for `stream`.
    match unsafe { sys::hipStreamQuery(stream) } {
        SUCCESS => Ok(true),
        NOT_READY => Ok(false),
        code => Err(error("hipStreamQuery", code)),
    }
}

/// `hipStreamSynchronize`. Blocks until the stream is idle, forever if a kernel hangs.
///
/// # Safety
/// `stream` is live.
pub unsafe fn stream_synchronize(stream: sys::hipStream_t) -> Result<(), DeviceError> {
    // SAFETY: the caller vouches for `stream`.
    check("hipStreamSynchronize", unsafe {
        sys::hipStreamSynchronize(stream)
    })
}

/// `hipDeviceSynchronize` on the current device. Blocks, forever if a kernel hangs.
pub fn device_synchronize() -> Result<(), DeviceError> {
    init()?;
    // SAFETY: no arguments.
    check("hipDeviceSynchronize", unsafe {
        sys::hipDeviceSynchronize()
    })
}
