//! The code object's metadata as the HIP runtime reads it: through AMD's
//! code object manager (comgr, `libamd_comgr.so.2` or `.so.3`), loaded with
//! `dlopen` when first asked, so the binary has no link dependency on it.
//!
//! CLR (ROCclr `device/devprogram.cpp`, `createKernelMetadataMap`, and
//! `device/devkernel.cpp`, `GetAttrCodePropMetadata`, read at rocm-5.2.3)
//! hands the whole code object to comgr as `AMD_COMGR_DATA_KIND_EXECUTABLE`,
//! asks `amd_comgr_get_data_isa_name` (and fails the module load when comgr
//! cannot name the ISA), then `amd_comgr_get_data_metadata`, looks up
//! `amdhsa.version` (none: the load fails) and `amdhsa.kernels`, and keys each
//! kernel by its `.name`. Every other field is read as a string (comgr prints
//! MessagePack integers as decimal text) and converted with `atoi`, so a
//! missing field reads as 0; [`CLR_KERNEL_FIELDS`] says which of those the
//! runtime then refuses a kernel for and which it quietly uses as 0.
//!
//! Measured with Debian 12's comgr 5.2.3 (docs/emulated-kfd.md, "comgr reads
//! every embedded code object"): `amd_comgr_iterate_map_metadata` ignores what
//! its callback returns, so CLR's refusal of a kernel key it does not know
//! has no effect; `amd_comgr_get_data_isa_name` names v4 objects and answers
//! `AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT` for v5 and v6 ones, whose
//! metadata it still reads.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

use crate::platform::code_object_policy::HipVersion;

/// `amd_comgr_status_t`: an integer with names, never a Rust enum filled by C.
pub type Status = c_int;
pub const STATUS_SUCCESS: Status = 0;

/// `AMD_COMGR_DATA_KIND_EXECUTABLE`, the kind CLR gives a loaded code object.
const DATA_KIND_EXECUTABLE: c_int = 0x8;
const METADATA_KIND_STRING: c_int = 0x1;
const METADATA_KIND_MAP: c_int = 0x2;
const METADATA_KIND_LIST: c_int = 0x3;

/// `amd_comgr_data_t` and `amd_comgr_metadata_node_t`: one opaque handle each.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Handle {
    handle: u64,
}

type MapCallback = unsafe extern "C" fn(Handle, Handle, *mut c_void) -> Status;

/// The comgr functions used, resolved once from the loaded library.
struct Functions {
    library: String,
    status_string: unsafe extern "C" fn(Status, *mut *const c_char) -> Status,
    get_version: unsafe extern "C" fn(*mut usize, *mut usize),
    create_data: unsafe extern "C" fn(c_int, *mut Handle) -> Status,
    set_data: unsafe extern "C" fn(Handle, usize, *const c_char) -> Status,
    release_data: unsafe extern "C" fn(Handle) -> Status,
    get_data_isa_name: unsafe extern "C" fn(Handle, *mut usize, *mut c_char) -> Status,
    get_data_metadata: unsafe extern "C" fn(Handle, *mut Handle) -> Status,
    destroy_metadata: unsafe extern "C" fn(Handle) -> Status,
    get_metadata_kind: unsafe extern "C" fn(Handle, *mut c_int) -> Status,
    get_metadata_string: unsafe extern "C" fn(Handle, *mut usize, *mut c_char) -> Status,
    get_metadata_list_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    index_list_metadata: unsafe extern "C" fn(Handle, usize, *mut Handle) -> Status,
    metadata_lookup: unsafe extern "C" fn(Handle, *const c_char, *mut Handle) -> Status,
    iterate_map_metadata: unsafe extern "C" fn(Handle, MapCallback, *mut c_void) -> Status,
}

/// Why comgr could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("comgr not available: {0}")]
pub struct Unavailable(pub String);

/// A comgr call that failed: the call, its status number and comgr's name for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} returned {status} ({name})")]
pub struct CallError {
    pub call: &'static str,
    pub status: Status,
    pub name: String,
}

/// The sonames to try, the one the build's HIP runtime loads first: CLR
/// dlopens `libamd_comgr.so.2` up to ROCm 6.1 and `.so.3` from 6.2 on.
fn sonames() -> [&'static str; 2] {
    if crate::platform::toolchain::built_for_runtime().at_least(HipVersion::release(6, 2)) {
        ["libamd_comgr.so.3", "libamd_comgr.so.2"]
    } else {
        ["libamd_comgr.so.2", "libamd_comgr.so.3"]
    }
}

/// The comgr the HIP runtime in this process already loaded, else the first
/// soname the dynamic loader finds, else one under `$ROCM_PATH/lib` or
/// `/opt/rocm/lib`. Loaded once and never closed.
fn functions() -> Result<&'static Functions, Unavailable> {
    static LOADED: OnceLock<Result<Functions, Unavailable>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// Whether the HIP runtime in this process has loaded comgr: CLR dlopens it
/// while it initialises (measured for 5.2: `libamd_comgr.so.2`, loaded by
/// `libamdhip64.so.5` before the first device query returns); a stand-in
/// runtime such as the emulated HIP library never does.
pub fn loaded_in_process() -> bool {
    sonames().iter().any(|name| {
        let Ok(c_name) = CString::new(*name) else {
            return false;
        };
        // SAFETY: RTLD_NOLOAD only looks the library up; a handle it returns
        // holds one more reference, given back at once.
        unsafe {
            let lib = libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
            if lib.is_null() {
                return false;
            }
            libc::dlclose(lib);
        }
        true
    })
}

fn load() -> Result<Functions, Unavailable> {
    let rocm = std::env::var("ROCM_PATH").unwrap_or_else(|_| "/opt/rocm".into());
    let mut tried = Vec::new();
    let mut candidates: Vec<(String, c_int)> = Vec::new();
    for name in sonames() {
        candidates.push((name.to_string(), libc::RTLD_NOLOAD));
    }
    for name in sonames() {
        candidates.push((name.to_string(), 0));
    }
    for name in sonames() {
        candidates.push((format!("{rocm}/lib/{name}"), 0));
    }
    for (name, extra) in candidates {
        let Ok(c_name) = CString::new(name.clone()) else {
            continue;
        };
        // SAFETY: a NUL-terminated path; loading comgr runs only its own
        // initialisers, and the handle is kept for the life of the process.
        let lib =
            unsafe { libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | extra) };
        if lib.is_null() {
            if extra == 0 {
                tried.push(name);
            }
            continue;
        }
        return resolve(lib, name);
    }
    Err(Unavailable(format!(
        "none of {} could be loaded (Debian: apt-get install libamd-comgr2; ROCm: /opt/rocm/lib)",
        tried.join(", ")
    )))
}

/// A symbol's address as the function pointer type `F`.
///
/// # Safety
/// `F` must be an `extern "C"` function pointer type matching the symbol's C signature.
unsafe fn as_function<F: Copy>(symbol: *mut c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: same size (asserted); the caller vouches for the signature.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&symbol) }
}

fn resolve(lib: *mut c_void, library: String) -> Result<Functions, Unavailable> {
    let symbol = |name: &CStr| -> Result<*mut c_void, Unavailable> {
        // SAFETY: `lib` is a live handle from dlopen and `name` NUL-terminated.
        let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
        if p.is_null() {
            Err(Unavailable(format!(
                "{library} has no {}",
                name.to_string_lossy()
            )))
        } else {
            Ok(p)
        }
    };
    macro_rules! function {
        ($name:literal) => {
            // SAFETY: the symbol is the comgr entry point of that name, whose
            // C signature (amd_comgr.h, interface 2.x and 3.x alike for these
            // functions) is the function pointer type of the field.
            unsafe { as_function(symbol($name)?) }
        };
    }
    Ok(Functions {
        status_string: function!(c"amd_comgr_status_string"),
        get_version: function!(c"amd_comgr_get_version"),
        create_data: function!(c"amd_comgr_create_data"),
        set_data: function!(c"amd_comgr_set_data"),
        release_data: function!(c"amd_comgr_release_data"),
        get_data_isa_name: function!(c"amd_comgr_get_data_isa_name"),
        get_data_metadata: function!(c"amd_comgr_get_data_metadata"),
        destroy_metadata: function!(c"amd_comgr_destroy_metadata"),
        get_metadata_kind: function!(c"amd_comgr_get_metadata_kind"),
        get_metadata_string: function!(c"amd_comgr_get_metadata_string"),
        get_metadata_list_size: function!(c"amd_comgr_get_metadata_list_size"),
        index_list_metadata: function!(c"amd_comgr_index_list_metadata"),
        metadata_lookup: function!(c"amd_comgr_metadata_lookup"),
        iterate_map_metadata: function!(c"amd_comgr_iterate_map_metadata"),
        library,
    })
}

impl Functions {
    fn check(&self, call: &'static str, status: Status) -> Result<(), CallError> {
        if status == STATUS_SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: comgr writes a pointer to a static string, or fails.
        let named = unsafe { (self.status_string)(status, &mut text) } == STATUS_SUCCESS;
        let name = if named && !text.is_null() {
            // SAFETY: a NUL-terminated static string from comgr.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        } else {
            "unknown status".into()
        };
        Err(CallError { call, status, name })
    }
}

/// Which comgr answered: its library and interface version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Library {
    pub path: String,
    pub interface: (usize, usize),
}

/// The comgr this process uses, loading it if need be.
pub fn library() -> Result<Library, Unavailable> {
    let f = functions()?;
    let (mut major, mut minor) = (0usize, 0usize);
    // SAFETY: two writable size_t.
    unsafe { (f.get_version)(&mut major, &mut minor) };
    Ok(Library {
        path: f.library.clone(),
        interface: (major, minor),
    })
}

/// A metadata node, destroyed on drop.
struct Node<'f> {
    f: &'f Functions,
    handle: Handle,
}

impl Drop for Node<'_> {
    fn drop(&mut self) {
        // SAFETY: a node comgr handed out and nobody destroyed. A failure here
        // leaks one node and is not an error of the reading.
        let _ = unsafe { (self.f.destroy_metadata)(self.handle) };
    }
}

impl<'f> Node<'f> {
    fn kind(&self) -> Result<c_int, CallError> {
        let mut kind = 0;
        // SAFETY: a live node and a writable int.
        let status = unsafe { (self.f.get_metadata_kind)(self.handle, &mut kind) };
        self.f.check("amd_comgr_get_metadata_kind", status)?;
        Ok(kind)
    }

    /// The value as comgr prints it (numbers and booleans as text), or `None`
    /// when it is a map or a list.
    fn string(&self) -> Result<Option<String>, CallError> {
        if self.kind()? != METADATA_KIND_STRING {
            return Ok(None);
        }
        let mut size = 0usize;
        // SAFETY: size query with a null buffer, as amd_comgr.h documents.
        let status =
            unsafe { (self.f.get_metadata_string)(self.handle, &mut size, std::ptr::null_mut()) };
        self.f.check("amd_comgr_get_metadata_string", status)?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds `size` bytes, the length comgr asked for (with its NUL).
        let status = unsafe {
            (self.f.get_metadata_string)(self.handle, &mut size, buf.as_mut_ptr().cast())
        };
        self.f.check("amd_comgr_get_metadata_string", status)?;
        let text = CStr::from_bytes_until_nul(&buf).map_or_else(
            |_| String::from_utf8_lossy(&buf).into_owned(),
            |c| c.to_string_lossy().into_owned(),
        );
        Ok(Some(text))
    }

    /// `key` of a map node, or `None` when the map has no such key (or this
    /// is not a map: comgr answers both with INVALID_ARGUMENT).
    fn lookup(&self, key: &str) -> Option<Node<'f>> {
        let key = CString::new(key).ok()?;
        let mut value = Handle::default();
        // SAFETY: a live node, a NUL-terminated key, a writable handle.
        let status = unsafe { (self.f.metadata_lookup)(self.handle, key.as_ptr(), &mut value) };
        (status == STATUS_SUCCESS).then_some(Node {
            f: self.f,
            handle: value,
        })
    }

    /// The elements of a list node; `None` when this is not a list.
    fn list(&self) -> Result<Option<Vec<Node<'f>>>, CallError> {
        if self.kind()? != METADATA_KIND_LIST {
            return Ok(None);
        }
        let mut size = 0usize;
        // SAFETY: a live list node and a writable size_t.
        let status = unsafe { (self.f.get_metadata_list_size)(self.handle, &mut size) };
        self.f.check("amd_comgr_get_metadata_list_size", status)?;
        let mut items = Vec::with_capacity(size);
        for i in 0..size {
            let mut item = Handle::default();
            // SAFETY: `i` is below the list's size; a writable handle.
            let status = unsafe { (self.f.index_list_metadata)(self.handle, i, &mut item) };
            self.f.check("amd_comgr_index_list_metadata", status)?;
            items.push(Node {
                f: self.f,
                handle: item,
            });
        }
        Ok(Some(items))
    }

    /// The keys of a map node, in comgr's order, walked the way CLR walks a
    /// kernel (`amd_comgr_iterate_map_metadata`).
    fn keys(&self) -> Result<Vec<String>, CallError> {
        if self.kind()? != METADATA_KIND_MAP {
            return Ok(Vec::new());
        }
        struct Walk<'a> {
            f: &'a Functions,
            keys: Vec<String>,
        }
        unsafe extern "C" fn visit(key: Handle, _value: Handle, data: *mut c_void) -> Status {
            // SAFETY: `data` is the `Walk` passed below, alive for the call.
            let walk = unsafe { &mut *data.cast::<Walk<'_>>() };
            // The key and value nodes belong to comgr for the callback's duration.
            let key = std::mem::ManuallyDrop::new(Node {
                f: walk.f,
                handle: key,
            });
            if let Ok(Some(text)) = key.string() {
                walk.keys.push(text);
            }
            STATUS_SUCCESS
        }
        let mut walk = Walk {
            f: self.f,
            keys: Vec::new(),
        };
        // SAFETY: a live map node; `visit` only touches `walk`, which outlives the call.
        let status = unsafe {
            (self.f.iterate_map_metadata)(self.handle, visit, (&mut walk as *mut Walk<'_>).cast())
        };
        self.f.check("amd_comgr_iterate_map_metadata", status)?;
        Ok(walk.keys)
    }
}

/// A comgr data object holding a copy of the code object, released on drop.
struct Data<'f> {
    f: &'f Functions,
    handle: Handle,
}

impl Drop for Data<'_> {
    fn drop(&mut self) {
        // SAFETY: a data object created below and released once.
        let _ = unsafe { (self.f.release_data)(self.handle) };
    }
}

impl<'f> Data<'f> {
    fn executable(f: &'f Functions, bytes: &[u8]) -> Result<Data<'f>, CallError> {
        let mut handle = Handle::default();
        // SAFETY: a writable handle.
        f.check("amd_comgr_create_data", unsafe {
            (f.create_data)(DATA_KIND_EXECUTABLE, &mut handle)
        })?;
        let data = Data { f, handle };
        // SAFETY: comgr copies `bytes.len()` bytes from a live slice.
        let status = unsafe { (f.set_data)(handle, bytes.len(), bytes.as_ptr().cast()) };
        f.check("amd_comgr_set_data", status)?;
        Ok(data)
    }

    fn isa_name(&self) -> Result<String, CallError> {
        let mut size = 0usize;
        // SAFETY: size query with a null buffer.
        let status =
            unsafe { (self.f.get_data_isa_name)(self.handle, &mut size, std::ptr::null_mut()) };
        self.f.check("amd_comgr_get_data_isa_name", status)?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds the `size` bytes comgr asked for.
        let status =
            unsafe { (self.f.get_data_isa_name)(self.handle, &mut size, buf.as_mut_ptr().cast()) };
        self.f.check("amd_comgr_get_data_isa_name", status)?;
        Ok(CStr::from_bytes_until_nul(&buf)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default())
    }

    fn metadata(&self) -> Result<Node<'f>, CallError> {
        let mut root = Handle::default();
        // SAFETY: a live data object and a writable handle.
        let status = unsafe { (self.f.get_data_metadata)(self.handle, &mut root) };
        self.f.check("amd_comgr_get_data_metadata", status)?;
        Ok(Node {
            f: self.f,
            handle: root,
        })
    }
}

mod clr;
pub use clr::{
    missing_fields, refusal, ArgMetadata, ClrNeed, KernelMetadata, Missing, ProgramMetadata,
    CLR_KERNEL_FIELDS,
};

/// What comgr answered for one code object: the ISA name CLR checks first,
/// and the metadata CLR reads after it (read even when the ISA name fails,
/// so both are measured).
#[derive(Debug, Clone)]
pub struct Reading {
    /// The comgr library that answered (its soname or path).
    pub library: String,
    pub isa_name: Result<String, CallError>,
    pub metadata: Result<ProgramMetadata, CallError>,
}

/// Read `bytes` through comgr the way CLR does.
pub fn read(bytes: &[u8]) -> Result<Reading, Unavailable> {
    let f = functions()?;
    let data = match Data::executable(f, bytes) {
        Ok(data) => data,
        Err(e) => {
            return Ok(Reading {
                library: f.library.clone(),
                isa_name: Err(e.clone()),
                metadata: Err(e),
            })
        }
    };
    Ok(Reading {
        library: f.library.clone(),
        isa_name: data.isa_name(),
        metadata: data.metadata().and_then(|root| program(&root)),
    })
}

/// A node's text, `None` when missing or not a string.
fn text(node: &Node<'_>, key: &str) -> Result<Option<String>, CallError> {
    match node.lookup(key) {
        Some(value) => value.string(),
        None => Ok(None),
    }
}

fn program(root: &Node<'_>) -> Result<ProgramMetadata, CallError> {
    let version = match root.lookup("amdhsa.version") {
        Some(v) => match v.list()? {
            Some(items) => items
                .iter()
                .map(Node::string)
                .collect::<Result<Vec<_>, _>>()?,
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    let kernels = match root.lookup("amdhsa.kernels") {
        Some(list) => match list.list()? {
            Some(items) => Some(items.iter().map(kernel).collect::<Result<Vec<_>, _>>()?),
            None => Some(Vec::new()),
        },
        None => None,
    };
    Ok(ProgramMetadata {
        version: version.into_iter().map(|v| v.unwrap_or_default()).collect(),
        target: text(root, "amdhsa.target")?,
        kernels,
    })
}

fn kernel(node: &Node<'_>) -> Result<KernelMetadata, CallError> {
    let mut fields = Vec::new();
    for &(key, _) in CLR_KERNEL_FIELDS {
        if key != ".args" {
            if let Some(value) = text(node, key)? {
                fields.push((key, value));
            }
        }
    }
    let args = match node.lookup(".args") {
        Some(list) => match list.list()? {
            Some(items) => Some(items.iter().map(arg).collect::<Result<Vec<_>, _>>()?),
            None => Some(Vec::new()),
        },
        None => None,
    };
    let reqd_workgroup_size = match node.lookup(".reqd_workgroup_size") {
        Some(list) => match list.list()? {
            Some(items) => Some(
                items
                    .iter()
                    .map(Node::string)
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        },
        None => None,
    };
    Ok(KernelMetadata::from_fields(
        fields,
        args,
        reqd_workgroup_size.map(|v| v.into_iter().map(Option::unwrap_or_default).collect()),
        node.keys()?,
    ))
}

fn arg(node: &Node<'_>) -> Result<ArgMetadata, CallError> {
    Ok(ArgMetadata {
        name: text(node, ".name")?,
        size: text(node, ".size")?,
        offset: text(node, ".offset")?,
        value_kind: text(node, ".value_kind")?,
    })
}
