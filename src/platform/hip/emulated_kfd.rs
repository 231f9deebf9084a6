//! The emulated KFD device (tests/emukfd), when it is preloaded under the
//! real runtime: the device's GPUs are the embedded emulator, which decides
//! per word what the ISA leaves undefined or unsettled. Those verdicts cannot
//! travel through HIP (the runtime copies values, and the device writes such
//! words as poison), so the harness asks the device for them directly, by a
//! C entry point the preloaded library exports. On hardware, or on the
//! emulated HIP library, the entry point does not exist and nothing changes.
//!
//! The answer is a [`Definedness`] as JSON (both sides are this crate's
//! types), for the device addresses of the last dispatch the device ran.

use crate::platform::device::Definedness;
use std::sync::OnceLock;

/// `xad_emukfd_definedness(addr, words, buf, len)`: writes the JSON of the
/// last dispatch's definedness over `words` words at `addr` into `buf` if it
/// fits in `len` bytes; returns its length, or -1 when no emulated GPU maps `addr`.
type DefinednessFn = unsafe extern "C" fn(u64, u64, *mut u8, u64) -> i64;

fn entry() -> Option<DefinednessFn> {
    static ENTRY: OnceLock<usize> = OnceLock::new();
    let p = *ENTRY.get_or_init(|| {
        // SAFETY: dlsym over the whole process with a NUL-terminated name.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"xad_emukfd_definedness".as_ptr()) as usize }
    });
    // SAFETY: the symbol the emulated KFD device exports has this signature.
    (p != 0).then(|| unsafe { std::mem::transmute::<usize, DefinednessFn>(p) })
}

/// Whether the GPUs this process sees are the emulated KFD device's.
pub fn present() -> bool {
    entry().is_some()
}

/// The emulator's verdict on `words` words at device address `addr` after
/// the last dispatch; None without the device or when it does not map `addr`.
pub fn definedness(addr: u64, words: usize) -> Option<Definedness> {
    let f = entry()?;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        // SAFETY: `buf` is writable for its length.
        let n = unsafe { f(addr, words as u64, buf.as_mut_ptr(), buf.len() as u64) };
        let n = usize::try_from(n).ok()?;
        if n <= buf.len() {
            return serde_json::from_slice(&buf[..n]).ok();
        }
        buf.resize(n, 0);
    }
}
