//! Top layer: RAII types that own their runtime handles, and the one check
//! that makes launching sound: the kernarg image and dispatch shape are
//! compared with the code object's own metadata before the runtime sees them.
//!
//! `Drop` never panics. A failure while dropping is recorded at the device
//! seam ([`crate::platform::device::record_unreleased`]) and logged to stderr, since no
//! caller is left to return it to.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::time::{Duration, Instant};

use super::{checked, sys};
use crate::error::ReleaseError;
use crate::platform::codeobj::{kernarg, launch, CodeObject, Kernel, TargetId};
use crate::platform::device::{DeviceError, Dispatch};

fn record_drop_error(what: &'static str, error: DeviceError) {
    crate::platform::device::record_unreleased(ReleaseError {
        what,
        source: error,
    });
}

/// One `hipMalloc` allocation.
#[derive(Debug)]
pub struct DeviceBuffer {
    ptr: *mut c_void,
    len: usize,
}

// SAFETY: a device allocation is a process-wide object; HIP allows any host
// thread to copy to, copy from and free it.
unsafe impl Send for DeviceBuffer {}

impl DeviceBuffer {
    /// Allocate `len` bytes on the current device. A zero-length buffer still
    /// gets a (1-byte) allocation so its address is real and unique.
    pub fn alloc(len: usize) -> Result<DeviceBuffer, DeviceError> {
        let ptr = checked::malloc(len.max(1))?;
        if ptr.is_null() {
            return Err(DeviceError::Refused(format!(
                "hipMalloc of {len} bytes returned success and a null address"
            )));
        }
        Ok(DeviceBuffer { ptr, len })
    }

    /// The device address kernels see.
    pub fn address(&self) -> u64 {
        self.ptr as usize as u64
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn range_check(
        &self,
        offset: usize,
        bytes: usize,
        what: &str,
    ) -> Result<*mut c_void, DeviceError> {
        match offset.checked_add(bytes) {
            Some(end) if end <= self.len => Ok(self.ptr.wrapping_byte_add(offset)),
            _ => Err(DeviceError::Refused(format!(
                "{what} of {bytes} bytes at offset {offset} runs past the end of a {}-byte device buffer at 0x{:x}",
                self.len,
                self.address()
            ))),
        }
    }

    /// Copy `src` to `offset` bytes into the buffer.
    pub fn write(&mut self, offset: usize, src: &[u8]) -> Result<(), DeviceError> {
        let dst = self.range_check(offset, src.len(), "write")?;
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: range_check proved dst..dst+len lies inside this live allocation.
        unsafe { checked::memcpy_htod(dst, src) }
    }

    /// Fill `dst` from `offset` bytes into the buffer.
    pub fn read(&self, offset: usize, dst: &mut [u8]) -> Result<(), DeviceError> {
        let src = self.range_check(offset, dst.len(), "read")?;
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: range_check proved src..src+len lies inside this live allocation.
        unsafe { checked::memcpy_dtoh(dst, src) }
    }

    /// Free now and report the result (dropping frees too, but can only log).
    pub fn free(mut self) -> Result<(), DeviceError> {
        let ptr = std::mem::replace(&mut self.ptr, std::ptr::null_mut());
        // SAFETY: ptr came from hipMalloc and is freed once (self.ptr is now null,
        // so Drop does nothing).
        unsafe { checked::free(ptr) }
    }

    /// Give the allocation up without freeing it: `hipFree` waits for the
    /// device, which never returns while a hung kernel runs.
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        // SAFETY: ptr came from hipMalloc and this is its only owner.
        if let Err(e) = unsafe { checked::free(self.ptr) } {
            record_drop_error("a device buffer", e);
        }
    }
}

/// A stream. After a watchdog timeout it is marked hung and is then never
/// destroyed or synchronised (both would block forever); it is leaked.
#[derive(Debug)]
pub struct Stream {
    handle: sys::hipStream_t,
    hung: Cell<bool>,
}

// SAFETY: HIP streams are process-wide objects usable from any host thread.
unsafe impl Send for Stream {}

impl Stream {
    /// A new stream on the current device.
    pub fn create() -> Result<Stream, DeviceError> {
        Ok(Stream {
            handle: checked::stream_create()?,
            hung: Cell::new(false),
        })
    }

    /// Whether the stream's work is done. Never blocks.
    pub fn is_idle(&self) -> Result<bool, DeviceError> {
        // SAFETY: self owns a live stream handle.
        unsafe { checked::stream_query(self.handle) }
    }

    /// Whether a kernel on this stream missed its watchdog.
    pub fn is_hung(&self) -> bool {
        self.hung.get()
    }

    /// The watchdog: poll `hipStreamQuery` with short sleeps until the stream
    /// is idle or `timeout` passes. On timeout the stream is marked hung (see
    /// the type's doc). A kernel that faulted on memory surfaces as
    /// [`DeviceError::MemoryFault`].
    pub fn wait(&self, timeout: Duration) -> Result<(), DeviceError> {
        let result = watchdog(|| self.is_idle(), timeout);
        if matches!(result, Err(DeviceError::Timeout(_))) {
            self.hung.set(true);
        }
        result
    }

    /// `hipStreamSynchronize`, refused on a hung stream (it would never return).
    pub fn synchronize(&self) -> Result<(), DeviceError> {
        if self.is_hung() {
            return Err(DeviceError::Refused(
                "not synchronising a stream whose kernel missed its watchdog".into(),
            ));
        }
        // SAFETY: self owns a live stream handle.
        unsafe { checked::stream_synchronize(self.handle) }
    }

    /// Destroy now and report the result; a hung stream is leaked instead.
    pub fn destroy(mut self) -> Result<(), DeviceError> {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if self.is_hung() {
            return Ok(());
        }
        // SAFETY: handle came from hipStreamCreate and is destroyed once (self.handle is now null).
        unsafe { checked::stream_destroy(handle) }
    }

    fn raw(&self) -> sys::hipStream_t {
        self.handle
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // A hung stream is leaked on purpose: hipStreamDestroy waits for the
        // kernel, which may never finish.
        if self.handle.is_null() || self.is_hung() {
            return;
        }
        // SAFETY: the handle came from hipStreamCreate and this is its only owner.
        if let Err(e) = unsafe { checked::stream_destroy(self.handle) } {
            record_drop_error("a stream", e);
        }
    }
}

/// Poll `is_idle` with short, growing sleeps (20 us up to 5 ms) until it says
/// done or `timeout` has passed. `hipErrorIllegalAddress` becomes a
/// [`DeviceError::MemoryFault`].
fn watchdog(
    mut is_idle: impl FnMut() -> Result<bool, DeviceError>,
    timeout: Duration,
) -> Result<(), DeviceError> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(20);
    loop {
        match is_idle() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(DeviceError::Runtime {
                code,
                name,
                description,
                call,
            }) if code == checked::ILLEGAL_ADDRESS => {
                return Err(DeviceError::MemoryFault(format!(
                    "{call}: {name} ({code}): {description}"
                )))
            }
            Err(e) => return Err(e),
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            return Err(DeviceError::Timeout(timeout));
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// Check a launch against the code object's metadata, before any runtime
/// call: the kernel exists, and [`crate::platform::codeobj::launch::check`] (the same
/// check the emulator runs) accepts the kernarg image and dispatch shape.
/// This is what makes [`Module::launch`] safe to call with any input.
pub fn check_launch<'c>(
    code: &'c CodeObject,
    kernel: &str,
    kernarg_image: &[u8],
    dispatch: Dispatch,
) -> Result<&'c Kernel, DeviceError> {
    let found = code
        .kernel(kernel)
        .map_err(|e| DeviceError::Refused(e.to_string()))?;
    launch::check(&found.meta, kernarg_image, dispatch)?;
    Ok(found)
}

/// Parse `image` (which validates every header, segment and section against
/// the image's length, see [`CodeObject::parse`]) and check that its target
/// runs on a device whose gcnArchName is `device_arch` (`device` names the
/// device in the refusal). Nothing here calls the runtime. Feature
/// suffixes (`:sramecc-:xnack-`) follow [`crate::platform::codeobj::TargetId::runs_on`].
pub fn check_load(
    image: &[u8],
    device: &str,
    device_arch: &str,
) -> Result<CodeObject, DeviceError> {
    let code = CodeObject::parse(image)
        .map_err(|e| DeviceError::Refused(format!("not loading code object: {e}")))?;
    let device_target = TargetId::parse(device_arch).ok_or_else(|| {
        DeviceError::Refused(format!(
            "{device} reports gcnArchName {device_arch:?}, which is not a target ID"
        ))
    })?;
    if !code.target.runs_on(&device_target) {
        return Err(DeviceError::Refused(format!(
            "code object is for {} but {device} is {device_arch}: it does not run there",
            code.target
        )));
    }
    Ok(code)
}

/// A loaded code object. Owns the parsed code object (whose bytes the runtime
/// was given, kept alive as long as the module) and a cache of kernel handles.
#[derive(Debug)]
pub struct Module {
    handle: sys::hipModule_t,
    code: CodeObject,
    functions: HashMap<String, sys::hipFunction_t>,
}

// SAFETY: module and function handles are process-wide objects usable from any
// host thread; the owned bytes move with the struct without being reallocated.
unsafe impl Send for Module {}

impl Module {
    /// `hipModuleLoadData` of `code.bytes` on the current device.
    pub fn load(code: CodeObject) -> Result<Module, DeviceError> {
        // SAFETY: code.bytes is owned by the Module and neither changed nor
        // freed before the module is unloaded (a Vec's heap buffer does not
        // move when the Vec does).
        let handle = unsafe { checked::module_load_data(&code.bytes) }?;
        Ok(Module {
            handle,
            code,
            functions: HashMap::new(),
        })
    }

    pub fn code(&self) -> &CodeObject {
        &self.code
    }

    fn function(&mut self, kernel: &str) -> Result<sys::hipFunction_t, DeviceError> {
        if let Some(&f) = self.functions.get(kernel) {
            return Ok(f);
        }
        let name = CString::new(kernel).map_err(|_| {
            DeviceError::Refused(format!("kernel name {kernel:?} contains a NUL byte"))
        })?;
        // SAFETY: self owns a live module handle.
        let f = unsafe { checked::module_get_function(self.handle, &name) }?;
        self.functions.insert(kernel.to_string(), f);
        Ok(f)
    }

    /// Enqueue `kernel` on `stream` (does not wait; see [`Stream::wait`]). The
    /// launch is checked with [`check_launch`] first; the kernel may then
    /// only misbehave on the device, never in this process.
    pub fn launch(
        &mut self,
        stream: &Stream,
        kernel: &str,
        kernarg_image: &[u8],
        dispatch: Dispatch,
    ) -> Result<(), DeviceError> {
        let explicit = kernarg::explicit_size(
            &check_launch(&self.code, kernel, kernarg_image, dispatch)?.meta,
        );
        if stream.is_hung() {
            return Err(DeviceError::Refused(
                "not launching on a stream whose kernel missed its watchdog".into(),
            ));
        }
        let f = self.function(kernel)?;
        // SAFETY: f belongs to this live module, the stream is live, and
        // check_launch proved the kernarg image has the size and covers the
        // explicit arguments the metadata lists.
        unsafe {
            checked::module_launch_kernel(
                f,
                dispatch.grid_blocks,
                dispatch.block,
                stream.raw(),
                kernarg_image,
                explicit,
            )
        }
    }

    /// Unload now and report the result.
    pub fn unload(mut self) -> Result<(), DeviceError> {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        // SAFETY: handle came from hipModuleLoadData and is unloaded once.
        unsafe { checked::module_unload(handle) }
    }

    /// Give the module up without unloading it (after a hung kernel: unloading
    /// could wait for it).
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.handle.is_null() {
            return;
        }
        // SAFETY: the handle came from hipModuleLoadData and this is its only owner.
        if let Err(e) = unsafe { checked::module_unload(self.handle) } {
            record_drop_error("a module", e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchdog_returns_when_the_stream_goes_idle() {
        let mut polls = 0;
        let result = watchdog(
            || {
                polls += 1;
                Ok(polls == 4)
            },
            Duration::from_secs(3600),
        );
        assert_eq!(result, Ok(()));
        assert_eq!(polls, 4, "polled until idle, then stopped");
    }

    #[test]
    fn watchdog_times_out_on_a_stream_that_never_finishes() {
        let mut polls = 0;
        let result = watchdog(
            || {
                polls += 1;
                Ok(false)
            },
            Duration::ZERO,
        );
        assert_eq!(result, Err(DeviceError::Timeout(Duration::ZERO)));
        assert_eq!(polls, 1, "a zero timeout still asks once");
    }

    #[test]
    fn watchdog_reports_faults_and_other_errors() {
        let fault = watchdog(
            || Err(checked::error("hipStreamQuery", checked::ILLEGAL_ADDRESS)),
            Duration::from_secs(3600),
        );
        match fault {
            Err(DeviceError::MemoryFault(message)) => {
                assert!(
                    message.starts_with("hipStreamQuery: hipErrorIllegalAddress (700)"),
                    "{message}"
                )
            }
            other => panic!("expected a memory fault, got {other:?}"),
        }
        let other = watchdog(
            || Err(checked::error("hipStreamQuery", 912)),
            Duration::from_secs(3600),
        );
        assert_eq!(other, Err(checked::error("hipStreamQuery", 912)));
    }
}
