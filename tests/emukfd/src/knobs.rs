//! The stand-in's fault knobs on this device: `XAD_KFD_FLIP_BIT=LANE:BIT`,
//! `XAD_KFD_SKIP_LANE=LANE`, `XAD_KFD_WRITE_PAST_END=N` and `XAD_KFD_HANG=1`
//! act on the harness's dispatches as `XAD_EMUHIP_*` act on its launches
//! (parsing and applying are [`xad_harness::platform::device::inject`], shared with
//! tests/emuhip), so each harness diagnosis is proven through the real stack.
//!
//! Which dispatches are the harness's: a kernel whose descriptor lies in a
//! code object the process loaded. ROCr's loader copies a code object's
//! loadable segments into device memory as they are in the file, and the
//! first one starts with the ELF header and holds the metadata note, the
//! dynamic symbols and the kernel descriptors (`.rodata`). So the device
//! looks back from the descriptor, page by page, for an AMDGPU ELF header,
//! finds the dynamic symbol `<kernel>.kd` whose value is exactly the
//! descriptor's offset in that image, and reads the kernel's arguments from
//! the metadata note. The blit kernels ROCr dispatches for copies and code
//! uploads are never touched: ROCr assembles them from raw ISA with an
//! `amd_kernel_code_t` header, no ELF, so no image is found around them. The
//! HIP runtime's own blit kernels (`__amd_rocclr_*`, loaded from a code
//! object for some copies and fills) are left out by name.
//!
//! The launch's output is then what emuhip takes
//! ([`inject::output_view`]: the `out` argument and `count`, read from the
//! packet's kernarg segment). The work is done only when a knob is set.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use xad_harness::platform::codeobj::metadata::{self, KernelMeta};
use xad_harness::platform::device::inject::{self, LaunchMemory, OutputView, Saved, StoreFault};
use xad_harness::platform::emu::packet::{Issuer, PacketDispatch};

/// The HIP runtime's own kernels (CLR's blits) carry this name prefix.
const ROCCLR_PREFIX: &str = "__amd_rocclr_";
use xad_harness::platform::emu::EmuDevice;

/// The prefix of this device's variables (tests/emukfd/src/config.rs).
pub const PREFIX: &str = "XAD_KFD_";

/// A code object's page alignment (its `PT_LOAD` segments' `p_align`).
const PAGE: u64 = 0x1000;
/// How far back from a descriptor its image's header may lie.
const MAX_PAGES_BACK: u64 = 256;
const EM_AMDGPU: u16 = 224;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const NT_AMDGPU_METADATA: u32 = 32;

/// Whether each GPU has run its first harness dispatch (FLIP_BIT and
/// SKIP_LANE act on that one only, as emuhip's do on a device's first launch).
static FIRST_DONE: [AtomicBool; crate::config::MAX_GPUS] =
    [const { AtomicBool::new(false) }; crate::config::MAX_GPUS];

/// One harness dispatch the knobs act on.
pub struct Launch {
    pub kernel: String,
    view: OutputView,
    first: bool,
}

impl Launch {
    /// The harness dispatch `p` of `kernel` ([`kernel_under_test`]) on GPU
    /// `gpu`, or `None` when no knob is set or the kernel is not under test.
    pub fn of(
        knobs: &inject::Knobs,
        emu: &EmuDevice,
        p: &PacketDispatch,
        gpu: usize,
        kernel: Option<&KernelMeta>,
    ) -> Option<Launch> {
        if !knobs.corrupts() && !knobs.hang {
            return None;
        }
        let kernel = kernel?;
        let view = harness_output(emu, p, kernel)?;
        let first = !FIRST_DONE.get(gpu)?.swap(true, Ordering::AcqRel);
        Some(Launch { kernel: kernel.name.clone(), view, first })
    }

    pub fn before(&self, knobs: &inject::Knobs, emu: &EmuDevice) -> Saved {
        knobs.before(self.first, &self.view, &mut Memory(emu))
    }

    /// After the dispatch ran; a store outside every mapping is a memory fault.
    pub fn after(
        &self,
        knobs: &inject::Knobs,
        emu: &EmuDevice,
        saved: Saved,
    ) -> Result<(), StoreFault> {
        knobs.after(
            self.first,
            &self.view,
            saved,
            &self.kernel,
            &mut Memory(emu),
        )
    }
}

/// The output of dispatch `p` of the harness's kernel `meta`, read from the
/// packet's kernarg segment.
fn harness_output(emu: &EmuDevice, p: &PacketDispatch, meta: &KernelMeta) -> Option<OutputView> {
    let mut kernarg = vec![0u8; meta.kernarg_segment_size as usize];
    emu.read_device(p.kernarg, &mut kernarg).ok()?;
    inject::output_view(meta, &kernarg)
}

/// `XAD_KFD_SDMA_FLIP_BIT=LANE:BIT`, this device's own knob: the SDMA
/// engine flips BIT of lane LANE's output word as it copies the output of
/// each GPU's first harness dispatch out of device memory, so the copy
/// engine, not the kernel, is what went wrong. Parsed as the shared
/// `FLIP_BIT` is (one line naming the variable for a bad value).
pub fn parse_sdma_flip_bit(get: impl Fn(&str) -> Option<String>) -> Result<Option<(u32, u32)>, String> {
    const PREFIX_SDMA: &str = "XAD_KFD_SDMA_";
    let only_flip_bit = |name: &str| if name == "XAD_KFD_SDMA_FLIP_BIT" { get(name) } else { None };
    Ok(inject::Knobs::parse(PREFIX_SDMA, only_flip_bit)?.flip_bit)
}

/// Per GPU, the address of the output word `XAD_KFD_SDMA_FLIP_BIT` flips:
/// 0 until the GPU's first harness dispatch, [`SDMA_FLIP_DONE`] once flipped.
static SDMA_FLIP_AT: [AtomicU64; crate::config::MAX_GPUS] =
    [const { AtomicU64::new(0) }; crate::config::MAX_GPUS];
const SDMA_FLIP_DONE: u64 = u64::MAX;

/// After dispatch `p` on GPU `gpu`: when it is the GPU's first harness
/// dispatch and covers `lane`, the SDMA knob waits for that lane's word.
pub fn arm_sdma_flip(lane: u32, emu: &EmuDevice, p: &PacketDispatch, gpu: usize, kernel: &KernelMeta) {
    let Some(at) = SDMA_FLIP_AT.get(gpu) else { return };
    if at.load(Ordering::Acquire) != 0 {
        return;
    }
    let Some(view) = harness_output(emu, p, kernel) else { return };
    if view.count.is_some_and(|count| lane >= count) {
        return;
    }
    let _ = at.compare_exchange(0, view.out + 4 * u64::from(lane), Ordering::AcqRel, Ordering::Acquire);
}

/// An SDMA copy of `bytes` from `src` on GPU `gpu`: the offset in it of the
/// word the knob waits for, when the copy reads all of that word (the knob
/// then acts no more on this GPU).
pub fn take_sdma_flip(gpu: usize, src: u64, bytes: u64) -> Option<u64> {
    let at = SDMA_FLIP_AT.get(gpu)?;
    let word = at.load(Ordering::Acquire);
    if word == 0 || word == SDMA_FLIP_DONE || word < src || word + 4 > src + bytes {
        return None;
    }
    at.compare_exchange(word, SDMA_FLIP_DONE, Ordering::AcqRel, Ordering::Acquire).ok()?;
    Some(word - src)
}

/// The GPU's memory as the knobs reach it: what the runtime mapped to it.
struct Memory<'a>(&'a EmuDevice);

impl LaunchMemory for Memory<'_> {
    fn read_u32(&mut self, addr: u64) -> Option<u32> {
        let mut word = [0u8; 4];
        self.0
            .read_device(addr, &mut word)
            .ok()
            .map(|_| u32::from_le_bytes(word))
    }
    fn write_u32(&mut self, addr: u64, value: u32) -> bool {
        self.0.write_device(addr, &value.to_le_bytes()).is_ok()
    }
    fn allocation_end(&self, addr: u64) -> Option<u64> {
        self.0.mapping_end(addr)
    }
    fn note(&mut self, text: &str) {
        crate::warn!("{text}");
    }
}

/// Bytes of device memory, or `None` outside every mapping.
fn read(emu: &EmuDevice, addr: u64, len: u64) -> Option<Vec<u8>> {
    let mut bytes = vec![0u8; usize::try_from(len).ok().filter(|&n| n <= 1 << 20)?];
    emu.read_device(addr, &mut bytes).ok()?;
    Some(bytes)
}

/// The `N` bytes at `at` of `b`, for `uN::from_le_bytes`.
fn le<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// The kernel under test whose descriptor is at `kd`: one of a code object
/// the process loaded ([`loaded_kernel`]) that is not the HIP runtime's own
/// `__amd_rocclr_*`. `None`: the runtime's kernel (ROCr's blits have no ELF
/// around them), [`Issuer::Runtime`]. Asked once per dispatch; the knobs and
/// the issuer both take its answer.
pub fn kernel_under_test(emu: &EmuDevice, kd: u64) -> Option<KernelMeta> {
    loaded_kernel(emu, kd).filter(|meta| !meta.name.starts_with(ROCCLR_PREFIX))
}

/// Who dispatched `kernel` ([`kernel_under_test`]'s answer).
pub fn issuer(kernel: Option<&KernelMeta>) -> Issuer {
    if kernel.is_some() {
        Issuer::UnderTest
    } else {
        Issuer::Runtime
    }
}

/// The metadata of the kernel whose descriptor is at `kd`, when `kd` lies in
/// the image of a code object loaded into device memory (see the module doc).
pub fn loaded_kernel(emu: &EmuDevice, kd: u64) -> Option<KernelMeta> {
    let base = (0..MAX_PAGES_BACK)
        .map_while(|i| (kd & !(PAGE - 1)).checked_sub(i * PAGE))
        .take_while(|&at| read(emu, at, 4).is_some())
        .find(|&at| is_amdgpu_elf(emu, at))?;
    let ehdr = read(emu, base, 64)?;
    let (phoff, phentsize, phnum) = (
        le(&ehdr, 32).map(u64::from_le_bytes)?,
        le(&ehdr, 54).map(u16::from_le_bytes)?,
        le(&ehdr, 56).map(u16::from_le_bytes)?,
    );
    let phdrs = read(emu, base + phoff, u64::from(phentsize) * u64::from(phnum))?;
    let (mut notes, mut dynamic) = (None, None);
    for ph in phdrs.chunks(usize::from(phentsize).max(56)) {
        let (kind, vaddr, filesz) = (
            le(ph, 0).map(u32::from_le_bytes)?,
            le(ph, 16).map(u64::from_le_bytes)?,
            le(ph, 32).map(u64::from_le_bytes)?,
        );
        match kind {
            PT_NOTE => notes = read(emu, base + vaddr, filesz),
            PT_DYNAMIC => dynamic = read(emu, base + vaddr, filesz),
            _ => {}
        }
    }
    let symbol = symbol_at(emu, base, &dynamic?, kd - base)?;
    metadata_of(&notes?)?
        .kernels
        .into_iter()
        .find(|k| k.symbol == symbol)
}

fn is_amdgpu_elf(emu: &EmuDevice, at: u64) -> bool {
    read(emu, at, 20).is_some_and(|h| {
        h.starts_with(b"\x7fELF\x02\x01") && le(&h, 18).map(u16::from_le_bytes) == Some(EM_AMDGPU)
    })
}

/// The name of the dynamic symbol whose value is `value` (an offset in the image).
fn symbol_at(emu: &EmuDevice, base: u64, dynamic: &[u8], value: u64) -> Option<String> {
    let entry = |tag: u64| {
        dynamic
            .chunks_exact(16)
            .find(|e| le(e, 0).map(u64::from_le_bytes) == Some(tag))
            .and_then(|e| le(e, 8).map(u64::from_le_bytes))
    };
    let (hash, strtab, symtab) = (entry(DT_HASH)?, entry(DT_STRTAB)?, entry(DT_SYMTAB)?);
    // The SysV hash table's second word is the number of symbols.
    let count = le(&read(emu, base + hash, 8)?, 4).map(u32::from_le_bytes)?;
    let symbols = read(emu, base + symtab, u64::from(count) * 24)?;
    let name_at = symbols
        .chunks_exact(24)
        .find(|s| le(s, 8).map(u64::from_le_bytes) == Some(value))
        .and_then(|s| le(s, 0).map(u32::from_le_bytes))?;
    let start = base + strtab + u64::from(name_at);
    let name: Vec<u8> = (start..start + 1024)
        .map_while(|at| read(emu, at, 1).map(|b| b[0]))
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8(name).ok()
}

/// The `NT_AMDGPU_METADATA` note of a `PT_NOTE` segment.
fn metadata_of(notes: &[u8]) -> Option<metadata::Metadata> {
    let align = |n: usize| (n + 3) & !3;
    let mut at = 0;
    while at + 12 <= notes.len() {
        let (namesz, descsz, kind) = (
            le(notes, at).map(u32::from_le_bytes)? as usize,
            le(notes, at + 4).map(u32::from_le_bytes)? as usize,
            le(notes, at + 8).map(u32::from_le_bytes)?,
        );
        let name = notes.get(at + 12..at + 12 + namesz)?;
        let desc_at = at + 12 + align(namesz);
        let desc = notes.get(desc_at..desc_at + descsz)?;
        if kind == NT_AMDGPU_METADATA && name.strip_suffix(b"\0").unwrap_or(name) == b"AMDGPU" {
            return metadata::parse(desc).ok();
        }
        at = desc_at + align(descsz);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdma_flip_bit_parses_as_lane_and_bit_and_a_bad_value_names_the_variable() {
        let get = |v: &'static str| move |name: &str| (name == "XAD_KFD_SDMA_FLIP_BIT").then(|| v.to_string());
        assert_eq!(parse_sdma_flip_bit(get("5:31")), Ok(Some((5, 31))));
        assert_eq!(parse_sdma_flip_bit(|_: &str| None), Ok(None));
        let e = parse_sdma_flip_bit(get("5:32")).unwrap_err();
        assert!(e.starts_with("XAD_KFD_SDMA_FLIP_BIT=5:32"), "{e}");
        let e = parse_sdma_flip_bit(get("five")).unwrap_err();
        assert!(e.starts_with("XAD_KFD_SDMA_FLIP_BIT"), "{e}");
    }
}
