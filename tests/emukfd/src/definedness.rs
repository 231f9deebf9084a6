//! The emulator's verdicts on the words a dispatch left undefined or
//! unsettled, for a harness that asks. The device writes such words as
//! poison (a consumer that does not ask sees a wrong value, never the
//! emulator's guess); xad-harness's HIP backend asks through this entry
//! point (`src/platform/hip/emulated_kfd.rs`), so a verdict through the real runtime
//! keeps the emulator's distinction between a failure and a word the ISA
//! leaves open.

use crate::device;

/// Write the JSON of the last dispatch's definedness over `words` words at
/// device address `addr` into `buf` (when it fits in `len` bytes); return its
/// length, or -1 when no emulated GPU maps `addr`.
///
/// # Safety
/// `buf` is writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn xad_emukfd_definedness(addr: u64, words: u64, buf: *mut u8, len: u64) -> i64 {
    let Some(kfd) = device::get() else {
        return -1;
    };
    for gpu in &kfd.gpus {
        let emu = gpu.emu.lock().unwrap_or_else(|p| p.into_inner());
        if emu.read_device(addr, &mut [0u8; 1]).is_err() {
            continue;
        }
        let d = emu.packet_definedness(addr, words as usize);
        let Ok(json) = serde_json::to_vec(&d) else {
            return -1;
        };
        if json.len() as u64 <= len && !buf.is_null() {
            // SAFETY: the caller's buffer holds `len` bytes.
            unsafe { std::ptr::copy_nonoverlapping(json.as_ptr(), buf, json.len()) };
        }
        return json.len() as i64;
    }
    -1
}
