//! The entry points the preloaded library defines in place of glibc's and
//! libdrm's. Each asks one cheap question first (is this path or fd the
//! device's?) and otherwise calls the next definition (`dlsym(RTLD_NEXT)`)
//! with the same arguments, so a process that never touches the device sees
//! no difference.
//!
//! Variadic C functions (`open`, `openat`, `ioctl`) are defined with their
//! optional argument as a fixed one: on x86-64 (System V) a variadic integer
//! or pointer argument travels in the same register as a fixed one, so the
//! callee reads what the caller passed. This library is x86-64 Linux only.

use crate::device::{self, FD_KFD};
use crate::topology::{RENDER_PREFIX, SYSFS_KFD};
use crate::{ioctl, trace};
use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
compile_error!("xad-emukfd interposes the x86-64 Linux C ABI only");

/// The next definition of `$name` as a `$ty` function pointer.
macro_rules! next {
    ($name:literal, $ty:ty) => {{
        static P: AtomicUsize = AtomicUsize::new(0);
        let mut p = P.load(Relaxed);
        if p == 0 {
            // SAFETY: dlsym with a NUL-terminated name.
            p = unsafe { libc::dlsym(libc::RTLD_NEXT, concat!($name, "\0").as_ptr().cast()) } as usize;
            P.store(p, Relaxed);
        }
        // SAFETY: the symbol of that name has this C signature (glibc/libdrm ABI).
        (p != 0).then(|| unsafe { std::mem::transmute::<usize, $ty>(p) })
    }};
}

fn set_errno(e: i32) {
    // SAFETY: glibc's thread-local errno.
    unsafe { *libc::__errno_location() = e };
}

/// What a path is to the device.
enum PathUse {
    Kfd,
    Render(u32),
    /// Redirected to the generated topology.
    Sysfs(std::path::PathBuf),
    Other,
}

fn classify(path: *const c_char) -> PathUse {
    if path.is_null() {
        return PathUse::Other;
    }
    // SAFETY: the caller passes a NUL-terminated path.
    let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
    if bytes == b"/dev/kfd" {
        return PathUse::Kfd;
    }
    if let Some(minor) = bytes.strip_prefix(RENDER_PREFIX.as_bytes()) {
        if let Some(m) = std::str::from_utf8(minor).ok().and_then(|m| m.parse().ok()) {
            return PathUse::Render(m);
        }
        return PathUse::Other;
    }
    if let Some(rest) = bytes.strip_prefix(SYSFS_KFD.as_bytes()) {
        if rest.is_empty() || rest[0] == b'/' {
            if let Some(kfd) = device::get() {
                let rest = String::from_utf8_lossy(rest);
                let to = format!("{}{}", kfd.topology_dir.display(), rest);
                return PathUse::Sysfs(to.into());
            }
        }
    }
    PathUse::Other
}

/// Open the device's own node for `use_`, or None when it is not the device's.
fn open_device(what: &PathUse) -> Option<c_int> {
    if !matches!(what, PathUse::Kfd | PathUse::Render(_)) {
        return None;
    }
    let kfd = device::get()?;
    let (kind, name) = match what {
        PathUse::Kfd => (FD_KFD, "/dev/kfd".to_string()),
        PathUse::Render(minor) => {
            let (i, _) = kfd.gpu_by_minor(*minor)?;
            (2 + i as u8, format!("{RENDER_PREFIX}{minor}"))
        }
        _ => return None,
    };
    Some(match kfd.open_fd(kind) {
        Ok(fd) => {
            trace!("open {name} -> fd {fd}");
            fd
        }
        Err(e) => {
            trace!("open {name} -> errno {e}");
            set_errno(e);
            -1
        }
    })
}

/// The path to hand to the next definition (redirected when under the topology).
fn redirected(path: *const c_char, how: &str) -> (Option<std::ffi::CString>, *const c_char) {
    if let PathUse::Sysfs(to) = classify(path) {
        // SAFETY: NUL-terminated (classify read it).
        let from = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
        trace!("{how} {from} -> {}", to.display());
        if let Ok(c) = std::ffi::CString::new(to.into_os_string().into_encoded_bytes()) {
            let p = c.as_ptr();
            return (Some(c), p);
        }
    }
    (None, path)
}

type OpenFn = unsafe extern "C" fn(*const c_char, c_int, c_uint) -> c_int;

unsafe fn open_with(next: Option<OpenFn>, path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    let what = classify(path);
    if let Some(fd) = open_device(&what) {
        return fd;
    }
    let (_keep, path) = redirected(path, "open");
    match next {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(path, flags, mode) },
        None => {
            set_errno(libc::ENOSYS);
            -1
        }
    }
}

/// # Safety
/// C ABI: `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn open(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    let next = next!("open", OpenFn);
    // SAFETY: see the function\'s contract.
    unsafe { open_with(next, path, flags, mode) }
}

/// # Safety
/// C ABI: `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn open64(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    let next = next!("open64", OpenFn);
    // SAFETY: see the function\'s contract.
    unsafe { open_with(next, path, flags, mode) }
}

/// # Safety
/// C ABI (`_FORTIFY_SOURCE`'s open): `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __open_2(path: *const c_char, flags: c_int) -> c_int {
    let next = next!("open", OpenFn);
    // SAFETY: see the function\'s contract.
    unsafe { open_with(next, path, flags, 0) }
}

/// # Safety
/// C ABI (`_FORTIFY_SOURCE`'s open64): `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __open64_2(path: *const c_char, flags: c_int) -> c_int {
    let next = next!("open64", OpenFn);
    // SAFETY: see the function\'s contract.
    unsafe { open_with(next, path, flags, 0) }
}

type OpenAtFn = unsafe extern "C" fn(c_int, *const c_char, c_int, c_uint) -> c_int;

/// # Safety
/// C ABI: `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn openat(dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    let what = classify(path);
    if let Some(fd) = open_device(&what) {
        return fd;
    }
    let (_keep, path) = redirected(path, "openat");
    match next!("openat", OpenAtFn) {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(dirfd, path, flags, mode) },
        None => {
            set_errno(libc::ENOSYS);
            -1
        }
    }
}

type FopenFn = unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE;

unsafe fn fopen_with(next: Option<FopenFn>, path: *const c_char, how: *const c_char) -> *mut libc::FILE {
    let (_keep, path) = redirected(path, "fopen");
    match next {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(path, how) },
        None => std::ptr::null_mut(),
    }
}

/// # Safety
/// C ABI: `path` and `how` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn fopen(path: *const c_char, how: *const c_char) -> *mut libc::FILE {
    let next = next!("fopen", FopenFn);
    // SAFETY: see the function's contract.
    unsafe { fopen_with(next, path, how) }
}

/// # Safety
/// C ABI: `path` and `how` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn fopen64(path: *const c_char, how: *const c_char) -> *mut libc::FILE {
    let next = next!("fopen64", FopenFn);
    // SAFETY: see the function's contract.
    unsafe { fopen_with(next, path, how) }
}

type OpendirFn = unsafe extern "C" fn(*const c_char) -> *mut libc::DIR;

/// # Safety
/// C ABI: `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn opendir(path: *const c_char) -> *mut libc::DIR {
    let (_keep, path) = redirected(path, "opendir");
    match next!("opendir", OpendirFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(path) },
        None => std::ptr::null_mut(),
    }
}

type AccessFn = unsafe extern "C" fn(*const c_char, c_int) -> c_int;

/// # Safety
/// C ABI: `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn access(path: *const c_char, how: c_int) -> c_int {
    let what = classify(path);
    if matches!(what, PathUse::Kfd) && device::get().is_some() {
        trace!("access /dev/kfd -> 0");
        return 0;
    }
    let (_keep, path) = redirected(path, "access");
    match next!("access", AccessFn) {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(path, how) },
        None => -1,
    }
}

type IoctlFn = unsafe extern "C" fn(c_int, c_ulong, *mut c_void) -> c_int;

/// # Safety
/// C ABI: `arg` points to the argument struct of `request`.
#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    let kind = device::fd_kind(fd);
    if kind != 0 {
        if let Some(kfd) = device::get() {
            // SAFETY: the caller's argument for this request.
            return match unsafe { ioctl::handle(kfd, kind, request, arg) } {
                Ok(()) => 0,
                Err(e) => {
                    set_errno(e);
                    -1
                }
            };
        }
    }
    match next!("ioctl", IoctlFn) {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(fd, request, arg) },
        None => {
            set_errno(libc::ENOSYS);
            -1
        }
    }
}

type CloseFn = unsafe extern "C" fn(c_int) -> c_int;

/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    if device::fd_kind(fd) != 0 {
        trace!("close fd {fd}");
        device::forget_fd(fd);
    }
    match next!("close", CloseFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(fd) },
        None => -1,
    }
}

// libdrm: the render node and the amdgpu queries. A device handle of ours is
// its own render fd plus one (never NULL), never dereferenced.

type DrmOpenRenderFn = unsafe extern "C" fn(c_int) -> c_int;

/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn drmOpenRender(minor: c_int) -> c_int {
    if let Ok(m) = u32::try_from(minor) {
        if let Some(fd) = open_device(&PathUse::Render(m)) {
            return fd;
        }
    }
    match next!("drmOpenRender", DrmOpenRenderFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(minor) },
        None => -libc::ENODEV,
    }
}

/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn drmClose(fd: c_int) -> c_int {
    if device::fd_kind(fd) != 0 {
        // SAFETY: our own fd.
        return unsafe { close(fd) };
    }
    match next!("drmClose", CloseFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(fd) },
        None => -libc::EINVAL,
    }
}

/// The GPU of a render fd of ours.
fn render_gpu(fd: c_int) -> Option<&'static crate::device::Gpu> {
    let kind = device::fd_kind(fd);
    (kind >= 2).then(|| device::get()?.gpus.get(usize::from(kind - 2)))?
}

fn handle_fd(dev: *mut c_void) -> Option<c_int> {
    let v = dev as usize;
    let fd = c_int::try_from(v.checked_sub(1)?).ok()?;
    render_gpu(fd).map(|_| fd)
}

type DevInitFn = unsafe extern "C" fn(c_int, *mut u32, *mut u32, *mut *mut c_void) -> c_int;

/// # Safety
/// C ABI: the out pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_device_initialize(
    fd: c_int,
    major: *mut u32,
    minor: *mut u32,
    dev: *mut *mut c_void,
) -> c_int {
    if let Some(g) = render_gpu(fd) {
        // libdrm keeps its own duplicate of the fd, closed by
        // deinitialize: the thunk of ROCr 6.x/7.x closes the fd it passed
        // and keeps the one `amdgpu_device_get_fd` returns.
        let Some(own) = open_device(&PathUse::Render(g.node.render_minor)).filter(|&f| f >= 0) else {
            return -libc::ENOMEM;
        };
        trace!("amdgpu_device_initialize fd {fd} -> {} (DRM 3.42, own fd {own})", g.node.target.name);
        // SAFETY: the caller's out pointers.
        unsafe {
            *major = 3;
            *minor = 42;
            *dev = (own as usize + 1) as *mut c_void;
        }
        return 0;
    }
    match next!("amdgpu_device_initialize", DevInitFn) {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(fd, major, minor, dev) },
        None => -libc::ENODEV,
    }
}

type DevFn = unsafe extern "C" fn(*mut c_void) -> c_int;

/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_device_deinitialize(dev: *mut c_void) -> c_int {
    if let Some(own) = handle_fd(dev) {
        // SAFETY: the handle's own fd, opened by amdgpu_device_initialize.
        unsafe { close(own) };
        return 0;
    }
    match next!("amdgpu_device_deinitialize", DevFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(dev) },
        None => -libc::EINVAL,
    }
}

type GpuInfoFn = unsafe extern "C" fn(*mut c_void, *mut crate::drm::amdgpu_gpu_info) -> c_int;

/// The thunk of ROCr 6.x/7.x fails the node when this fails; it reads the
/// family and whether the part is an APU (`ids_flags` FUSION: never here,
/// every emulated GPU is discrete, with its own memory bank).
///
/// # Safety
/// C ABI: `info` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_query_gpu_info(
    dev: *mut c_void,
    info: *mut crate::drm::amdgpu_gpu_info,
) -> c_int {
    if let Some(g) = handle_fd(dev).and_then(render_gpu) {
        let answer = crate::drm::amdgpu_gpu_info {
            family_id: g.node.family_id(),
            num_shader_engines: 1,
            num_shader_arrays_per_engine: 1,
            ..Default::default()
        };
        trace!("amdgpu_query_gpu_info -> family {}, discrete", answer.family_id);
        // SAFETY: the caller's out pointer.
        unsafe { info.write(answer) };
        return 0;
    }
    match next!("amdgpu_query_gpu_info", GpuInfoFn) {
        // SAFETY: the caller's arguments, passed on.
        Some(f) => unsafe { f(dev, info) },
        None => -libc::EINVAL,
    }
}

/// The render fd behind a handle (libdrm 2.4.116 and later); the thunk looks
/// it up with `dlsym(RTLD_DEFAULT)` and, when present, uses the fd it returns.
///
/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_device_get_fd(dev: *mut c_void) -> c_int {
    if let Some(fd) = handle_fd(dev) {
        return fd;
    }
    match next!("amdgpu_device_get_fd", DevFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(dev) },
        None => -libc::EINVAL,
    }
}

type NameFn = unsafe extern "C" fn(*mut c_void) -> *const c_char;

/// The marketing names, made once per GPU and kept for the process's life
/// (libdrm returns a pointer the caller does not free).
static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();

/// # Safety
/// C ABI.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_get_marketing_name(dev: *mut c_void) -> *const c_char {
    if let Some(fd) = handle_fd(dev) {
        let kind = usize::from(device::fd_kind(fd) - 2);
        let names = NAMES.get_or_init(|| {
            device::get()
                .map(|k| {
                    k.gpus
                        .iter()
                        .map(|g| std::ffi::CString::new(g.node.marketing_name()).unwrap_or_default())
                        .collect()
                })
                .unwrap_or_default()
        });
        if let Some(n) = names.get(kind) {
            trace!("amdgpu_get_marketing_name -> {}", n.to_string_lossy());
            return n.as_ptr();
        }
    }
    match next!("amdgpu_get_marketing_name", NameFn) {
        // SAFETY: the caller's argument, passed on.
        Some(f) => unsafe { f(dev) },
        None => std::ptr::null(),
    }
}
