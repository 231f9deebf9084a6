//! Emulated device memory: one arena slot per allocation, each at its own
//! 4 GiB-aligned device address, so an address decodes to (slot, offset) with
//! a shift and the space between allocations is unmapped: an access just past
//! a buffer's end faults instead of landing in its neighbour.
//!
//! Words are `AtomicU32` accessed with `Relaxed` ordering: workgroups run on
//! several threads at once and may touch the same words (as on the GPU, such
//! races give some interleaving, never undefined behaviour); on x86 a relaxed
//! load or store is a plain `mov`.

use crate::platform::device::{Origin, Taint};
use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// log2 of the address stride between slots.
const SLOT_SHIFT: u32 = 32;
/// Bytes of unmapped address space kept after the largest allocation in a slot.
const GAP: u64 = 1 << 20;
/// The largest single allocation.
pub const MAX_ALLOCATION: u64 = (1 << SLOT_SHIFT) - GAP;
/// Slots are not reused (use-after-free then faults) until this many exist,
/// which keeps device addresses below 2^48.
const MAX_SLOTS: usize = 1 << 15;

pub struct Buffer {
    pub words: Words,
    /// Size requested by the caller; accesses past it fault even inside the last word.
    pub bytes: u64,
}

/// Memory the emulator reads and writes but does not own: a mapping another
/// component made and keeps alive while the buffer is placed (the emulated KFD
/// device's view of the memory the real ROCm runtime allocated). Whoever
/// implements it promises the words stay valid until [`Memory::unplace`].
pub trait Backing: Send + Sync {
    fn words(&self) -> &[AtomicU32];
}

/// A buffer's words: the emulator's own, or a [`Backing`]'s.
pub enum Words {
    Owned(Box<[AtomicU32]>),
    Borrowed(Arc<dyn Backing>),
}

impl Deref for Words {
    type Target = [AtomicU32];
    #[inline(always)]
    fn deref(&self) -> &[AtomicU32] {
        match self {
            Words::Owned(w) => w,
            Words::Borrowed(b) => b.words(),
        }
    }
}

impl Words {
    /// Exclusive access, which only the emulator's own words allow (others'
    /// may be written by their owner at any time).
    fn owned_mut(&mut self) -> Option<&mut [AtomicU32]> {
        match self {
            Words::Owned(w) => Some(w),
            Words::Borrowed(_) => None,
        }
    }
}

#[derive(Default)]
pub struct Memory {
    /// Index i holds the allocation at device address (i + 1) << SLOT_SHIFT.
    slots: Vec<Option<Buffer>>,
    /// Buffers placed at addresses their owner chose ([`Memory::place`]), by
    /// base address; empty unless an emulated KFD device placed some.
    placed: BTreeMap<u64, Buffer>,
    pub allocated_bytes: u64,
    /// Which words hold undefined or unsettled values, and why.
    pub taint: MemTaint,
}

/// The taint of one memory word (or register): kinds and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark {
    pub undefined: bool,
    pub unsettled: bool,
    /// Index into the origin table ([`MemTaint::origin`]).
    pub origin: u32,
}

impl Mark {
    pub fn is_tainted(&self) -> bool {
        self.undefined || self.unsettled
    }
}

/// Dedupe key of an origin: reason code, register and instruction offset.
pub type OriginKey = (u8, u16, u64);

#[derive(Default)]
struct TaintInner {
    /// Word address (byte address / 4) -> mark; only tainted words are present.
    words: BTreeMap<u64, Mark>,
    origins: Vec<Origin>,
    index: HashMap<OriginKey, u32>,
    /// The running launch's unsettled SGPR ranges (bit i = s_i), each with
    /// why it is unsettled on that target (`launch_setup::InitialRegisters`).
    sgpr_reasons: Vec<(u128, String)>,
}

/// The memory shadow: a sparse map of tainted words and the launch-wide
/// origin table. Taint is rare, so `active` lets every access skip the lock
/// while no word is tainted. Marks last until the host writes the word (or
/// frees its buffer) or a kernel stores a defined value there.
#[derive(Default)]
pub struct MemTaint {
    active: AtomicBool,
    inner: Mutex<TaintInner>,
}

impl MemTaint {
    /// Whether any word is tainted (the one check the clean path pays).
    #[inline(always)]
    pub fn is_active(&self) -> bool {
        self.active.load(Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TaintInner> {
        // A panic while holding the lock cannot leave the map inconsistent
        // (every update is one insert or remove), so a poisoned lock is usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The id of the origin `key`, made by `make` the first time.
    pub fn origin(&self, key: OriginKey, make: impl FnOnce() -> Origin) -> u32 {
        let mut inner = self.lock();
        if let Some(&id) = inner.index.get(&key) {
            return id;
        }
        let id = inner.origins.len() as u32;
        inner.origins.push(make());
        inner.index.insert(key, id);
        id
    }

    /// Publish why the launch about to run leaves each SGPR range unsettled.
    pub fn set_sgpr_reasons(&self, reasons: Vec<(u128, String)>) {
        self.lock().sgpr_reasons = reasons;
    }

    /// Why SGPR `s{reg}` of the running launch is unsettled, if it is one
    /// the launch setup named.
    pub fn sgpr_reason(&self, reg: u16) -> Option<String> {
        let bit = 1u128.checked_shl(u32::from(reg))?;
        self.lock()
            .sgpr_reasons
            .iter()
            .find(|(range, _)| range & bit != 0)
            .map(|(_, why)| why.clone())
    }

    /// The id of the origin registered under `key`, if one is.
    pub fn origin_id(&self, key: OriginKey) -> Option<u32> {
        self.lock().index.get(&key).copied()
    }

    /// A copy of origin `id` (for building another origin's text).
    pub fn origin_text(&self, id: u32) -> Option<Origin> {
        self.lock().origins.get(id as usize).cloned()
    }

    /// The marks of words `words` (word addresses), in order; clean where unmarked.
    pub fn get(&self, words: impl Iterator<Item = u64>) -> Vec<Mark> {
        let inner = self.lock();
        words
            .map(|w| inner.words.get(&w).copied().unwrap_or_default())
            .collect()
    }

    /// Set (tainted mark) or clear (clean mark) each `(word, mark)`.
    pub fn set(&self, marks: impl Iterator<Item = (u64, Mark)>) {
        let mut inner = self.lock();
        for (word, mark) in marks {
            if mark.is_tainted() {
                inner.words.insert(word, mark);
            } else {
                inner.words.remove(&word);
            }
        }
        self.active.store(!inner.words.is_empty(), Relaxed);
    }

    /// Forget the marks of bytes `[addr, addr + bytes)` (the host wrote them).
    pub fn clear(&self, addr: u64, bytes: u64) {
        if !self.is_active() || bytes == 0 {
            return;
        }
        let mut inner = self.lock();
        let (first, last) = (addr / 4, addr.saturating_add(bytes - 1) / 4);
        let doomed: Vec<u64> = inner.words.range(first..=last).map(|(w, _)| *w).collect();
        for w in doomed {
            inner.words.remove(&w);
        }
        let empty = inner.words.is_empty();
        if empty {
            // Nothing refers to an origin any more: start the table afresh.
            inner.origins.clear();
            inner.index.clear();
        }
        self.active.store(!empty, Relaxed);
    }

    /// The tainted words of `[addr, addr + 4 * words)` (indices from `addr`)
    /// with the origins they name, renumbered from 0.
    pub fn report(&self, addr: u64, words: usize) -> (Vec<Origin>, Vec<(usize, Taint, usize)>) {
        if !self.is_active() || words == 0 {
            return (Vec::new(), Vec::new());
        }
        let inner = self.lock();
        let first = addr / 4;
        let mut renumber: HashMap<u32, usize> = HashMap::new();
        let mut origins = Vec::new();
        let mut out = Vec::new();
        for (&w, mark) in inner.words.range(first..first + words as u64) {
            let id = *renumber.entry(mark.origin).or_insert_with(|| {
                origins.push(
                    inner
                        .origins
                        .get(mark.origin as usize)
                        .cloned()
                        .unwrap_or_else(unknown_origin),
                );
                origins.len() - 1
            });
            let taint = if mark.undefined {
                Taint::Undefined
            } else {
                Taint::Unsettled
            };
            out.push(((w - first) as usize, taint, id));
        }
        (origins, out)
    }

    /// Take every mark and the origin table, leaving the shadow clean (the
    /// emulated KFD device writes the marked words as poison).
    pub fn drain(&self) -> (Vec<Origin>, Vec<(u64, Mark)>) {
        let mut inner = self.lock();
        let words = std::mem::take(&mut inner.words).into_iter().collect();
        let origins = std::mem::take(&mut inner.origins);
        inner.index.clear();
        self.active.store(false, Relaxed);
        (origins, words)
    }

    /// Every origin so far (for the stops of a launch).
    pub fn origins(&self) -> Vec<Origin> {
        self.lock().origins.clone()
    }
}

/// A mark whose origin was lost (cannot happen: origins live as long as marks).
fn unknown_origin() -> Origin {
    Origin {
        what: "undefined value of unknown origin".into(),
        offset: 0,
        instruction: String::new(),
    }
}

/// Why an access failed (the caller adds instruction context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub address: u64,
    pub bytes: u64,
}

impl Memory {
    pub fn alloc(&mut self, bytes: u64) -> Result<u64, String> {
        if bytes > MAX_ALLOCATION {
            return Err(format!("allocation of {bytes} bytes exceeds the emulator's per-buffer limit of {MAX_ALLOCATION}"));
        }
        let words = bytes.div_ceil(4).max(1) as usize;
        let mut v: Vec<AtomicU32> = Vec::new();
        v.try_reserve_exact(words)
            .map_err(|e| format!("host allocation of {bytes} bytes failed: {e}"))?;
        v.resize_with(words, || AtomicU32::new(0));
        let buffer = Buffer {
            words: Words::Owned(v.into_boxed_slice()),
            bytes,
        };
        let slot = if self.slots.len() < MAX_SLOTS {
            self.slots.push(Some(buffer));
            self.slots.len() - 1
        } else {
            let free = self
                .slots
                .iter()
                .position(Option::is_none)
                .ok_or("all emulated address slots are in use")?;
            self.slots[free] = Some(buffer);
            free
        };
        self.allocated_bytes += bytes;
        Ok(((slot as u64) + 1) << SLOT_SHIFT)
    }

    pub fn free(&mut self, ptr: u64) -> Result<(), String> {
        let (slot, off) = split(ptr);
        match self.slots.get_mut(slot) {
            Some(s @ Some(_)) if off == 0 => {
                let bytes = s.as_ref().map_or(0, |b| b.bytes);
                self.taint.clear(ptr, bytes);
                *s = None;
                self.allocated_bytes -= bytes;
                Ok(())
            }
            _ => Err(format!("0x{ptr:x} is not the start of a live allocation")),
        }
    }

    /// The buffer holding `[addr, addr + len)` and the byte offset of `addr` in it.
    /// Place `backing` as a buffer of `bytes` at device address `base` (its
    /// owner's address: the process address the runtime uses for the memory).
    /// Refused if it would overlap a placed buffer.
    pub fn place(&mut self, base: u64, bytes: u64, backing: Arc<dyn Backing>) -> Result<(), String> {
        let end = base
            .checked_add(bytes)
            .ok_or_else(|| format!("0x{base:x} + {bytes} bytes wraps"))?;
        if (backing.words().len() as u64) * 4 < bytes {
            return Err(format!("0x{base:x}: the backing holds fewer than {bytes} bytes"));
        }
        if let Some((&b, buf)) = self.placed.range(..end).next_back() {
            if b + buf.bytes > base {
                return Err(format!(
                    "0x{base:x}..0x{end:x} overlaps the buffer at 0x{b:x} ({} bytes)",
                    buf.bytes
                ));
            }
        }
        self.placed.insert(
            base,
            Buffer {
                words: Words::Borrowed(backing),
                bytes,
            },
        );
        Ok(())
    }

    /// Remove the placed buffer at `base` (its taint with it); false if none is there.
    pub fn unplace(&mut self, base: u64) -> bool {
        match self.placed.remove(&base) {
            Some(buf) => {
                self.taint.clear(base, buf.bytes);
                true
            }
            None => false,
        }
    }

    /// The placed buffers, as (base, bytes).
    pub fn placed(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.placed.iter().map(|(&b, buf)| (b, buf.bytes))
    }

    #[inline]
    fn resolve_placed(&self, addr: u64, len: u64) -> Option<(&Buffer, u64)> {
        let (&base, buf) = self.placed.range(..=addr).next_back()?;
        let off = addr - base;
        (off.checked_add(len)? <= buf.bytes).then_some((buf, off))
    }

    #[inline]
    pub fn resolve(&self, addr: u64, len: u64) -> Option<(&Buffer, u64)> {
        if !self.placed.is_empty() {
            return self.resolve_placed(addr, len);
        }
        let (slot, off) = split(addr);
        let buf = self.slots.get(slot)?.as_ref()?;
        if off.checked_add(len)? <= buf.bytes {
            Some((buf, off))
        } else {
            None
        }
    }

    /// Read `dst.len()` bytes at `addr`.
    pub fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> Result<(), Fault> {
        let (buf, off) = self.resolve(addr, dst.len() as u64).ok_or(Fault {
            address: addr,
            bytes: dst.len() as u64,
        })?;
        buf.read(off, dst);
        Ok(())
    }

    /// Write `src` at `addr`.
    pub fn write_bytes(&self, addr: u64, src: &[u8]) -> Result<(), Fault> {
        let (buf, off) = self.resolve(addr, src.len() as u64).ok_or(Fault {
            address: addr,
            bytes: src.len() as u64,
        })?;
        buf.write(off, src);
        Ok(())
    }

    /// The buffer holding `[addr, addr + len)`, exclusively, and the byte offset of `addr` in it.
    fn resolve_mut(&mut self, addr: u64, len: u64) -> Option<(&mut Buffer, u64)> {
        if !self.placed.is_empty() {
            let (&base, buf) = self.placed.range_mut(..=addr).next_back()?;
            let off = addr - base;
            return (off.checked_add(len)? <= buf.bytes).then_some((buf, off));
        }
        let (slot, off) = split(addr);
        let buf = self.slots.get_mut(slot)?.as_mut()?;
        if off.checked_add(len)? <= buf.bytes {
            Some((buf, off))
        } else {
            None
        }
    }

    /// [`Memory::read_bytes`] for a caller with exclusive access (no kernel
    /// running): plain loads that vectorise, split across threads when large.
    pub fn read_bytes_mut(&mut self, addr: u64, dst: &mut [u8]) -> Result<(), Fault> {
        let (buf, off) = self.resolve_mut(addr, dst.len() as u64).ok_or(Fault {
            address: addr,
            bytes: dst.len() as u64,
        })?;
        buf.read_mut(off, dst);
        Ok(())
    }

    /// [`Memory::write_bytes`] for a caller with exclusive access.
    pub fn write_bytes_mut(&mut self, addr: u64, src: &[u8]) -> Result<(), Fault> {
        self.taint.clear(addr, src.len() as u64);
        let (buf, off) = self.resolve_mut(addr, src.len() as u64).ok_or(Fault {
            address: addr,
            bytes: src.len() as u64,
        })?;
        buf.write_mut(off, src);
        Ok(())
    }

    /// Word views of `(address, words)` ranges for a caller with exclusive
    /// access (no kernel running), in order. `None` when an address is not
    /// word-aligned or two ranges share an allocation (views could overlap);
    /// `Some(Err)` when a range is outside every allocation.
    pub fn words_mut(&mut self, ranges: &[(u64, usize)]) -> Option<Result<Vec<&mut [u32]>, Fault>> {
        use zerocopy::{FromBytes, IntoBytes};
        let slots: Vec<usize> = ranges.iter().map(|&(addr, _)| split(addr).0).collect();
        // Placed buffers' words are their owner's: no exclusive views of them.
        if !self.placed.is_empty() || ranges.iter().any(|&(addr, _)| addr % 4 != 0)
            || (1..slots.len()).any(|i| slots[..i].contains(&slots[i]))
        {
            return None;
        }
        for &(addr, words) in ranges {
            let bytes = words as u64 * 4;
            if self.resolve(addr, bytes).is_none() {
                return Some(Err(Fault {
                    address: addr,
                    bytes,
                }));
            }
        }
        // The host may write through the views: their words are its values now.
        for &(addr, words) in ranges {
            self.taint.clear(addr, words as u64 * 4);
        }
        let mut views: Vec<Option<&mut [u32]>> = ranges.iter().map(|_| None).collect();
        // Only the slots between the lowest and highest asked for (slots are
        // not reused soon, so there are as many as allocations so far).
        let (lowest, highest) = (
            slots.iter().min().copied().unwrap_or(0),
            slots.iter().max().copied().unwrap_or(0),
        );
        for (slot, buf) in self
            .slots
            .iter_mut()
            .enumerate()
            .skip(lowest)
            .take(highest + 1 - lowest)
        {
            let (Some(j), Some(buf)) = (slots.iter().position(|&s| s == slot), buf.as_mut()) else {
                continue;
            };
            let (addr, words) = ranges[j];
            let w0 = (split(addr).1 / 4) as usize;
            // `AtomicU32` has `u32`'s layout; with `&mut` access the words
            // are plain memory, viewed as such through zerocopy's checked casts.
            let owned = buf.words.owned_mut()?;
            views[j] = <[u32]>::mut_from_bytes(owned[w0..w0 + words].as_mut_bytes()).ok();
        }
        views.into_iter().collect::<Option<Vec<_>>>().map(Ok)
    }

    /// Find the first faulting byte address for a message (the start if none).
    pub fn first_bad_byte(&self, addr: u64, len: u64) -> u64 {
        (0..len)
            .map(|i| addr.wrapping_add(i))
            .find(|&a| self.resolve(a, 1).is_none())
            .unwrap_or(addr)
    }
}

#[inline]
fn split(addr: u64) -> (usize, u64) {
    let slot = (addr >> SLOT_SHIFT) as usize;
    (slot.wrapping_sub(1), addr & ((1 << SLOT_SHIFT) - 1))
}

/// Host copies at least this long are split across the rayon pool. The
/// pipeline copies only on devices without host views (the emulated HIP
/// library runs `hipMemcpy` through here), 512 KiB buffers at a time.
const PAR_COPY: usize = 256 << 10;
/// Bytes per piece of a parallel host copy.
const PIECE: usize = 128 << 10;

fn words_to_bytes(words: &mut [AtomicU32], dst: &mut [u8]) {
    for (chunk, w) in dst.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.get_mut().to_le_bytes());
    }
}

fn bytes_to_words(src: &[u8], words: &mut [AtomicU32]) {
    for (chunk, w) in src.chunks_exact(4).zip(words) {
        *w.get_mut() = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
}

impl Buffer {
    /// [`Buffer::read`] through `&mut self`: the whole words are plain
    /// (non-atomic) loads the compiler turns into a vector copy.
    pub fn read_mut(&mut self, off: u64, dst: &mut [u8]) {
        if self.words.owned_mut().is_none() {
            return self.read(off, dst);
        }
        let start = off as usize;
        let head = ((4 - start % 4) % 4).min(dst.len());
        let (head_dst, rest) = dst.split_at_mut(head);
        self.read(off, head_dst);
        let w0 = (start + head) / 4;
        let whole = rest.len() / 4;
        let (body, tail) = rest.split_at_mut(whole * 4);
        let Some(owned) = self.words.owned_mut() else {
            return;
        };
        let words = &mut owned[w0..w0 + whole];
        if body.len() >= PAR_COPY {
            use rayon::prelude::*;
            body.par_chunks_mut(PIECE)
                .zip(words.par_chunks_mut(PIECE / 4))
                .for_each(|(d, w)| words_to_bytes(w, d));
        } else {
            words_to_bytes(words, body);
        }
        self.read((w0 + whole) as u64 * 4, tail);
    }

    /// [`Buffer::write`] through `&mut self` (see [`Buffer::read_mut`]).
    pub fn write_mut(&mut self, off: u64, src: &[u8]) {
        if self.words.owned_mut().is_none() {
            return self.write(off, src);
        }
        let start = off as usize;
        let head = ((4 - start % 4) % 4).min(src.len());
        let (head_src, rest) = src.split_at(head);
        self.write(off, head_src);
        let w0 = (start + head) / 4;
        let whole = rest.len() / 4;
        let (body, tail) = rest.split_at(whole * 4);
        let Some(owned) = self.words.owned_mut() else {
            return;
        };
        let words = &mut owned[w0..w0 + whole];
        if body.len() >= PAR_COPY {
            use rayon::prelude::*;
            body.par_chunks(PIECE)
                .zip(words.par_chunks_mut(PIECE / 4))
                .for_each(|(s, w)| bytes_to_words(s, w));
        } else {
            bytes_to_words(body, words);
        }
        self.write((w0 + whole) as u64 * 4, tail);
    }

    /// Bytes `[off, off + dst.len())`; the caller checked the bounds.
    pub fn read(&self, off: u64, dst: &mut [u8]) {
        let mut off = off as usize;
        let mut rest = dst;
        // Unaligned head, byte by byte.
        while !rest.is_empty() && off % 4 != 0 {
            rest[0] = self.byte(off);
            rest = &mut rest[1..];
            off += 1;
        }
        let whole = rest.len() / 4;
        let (body, tail) = rest.split_at_mut(whole * 4);
        let words = &self.words[off / 4..off / 4 + whole];
        for (chunk, w) in body.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        off += whole * 4;
        for (i, b) in tail.iter_mut().enumerate() {
            *b = self.byte(off + i);
        }
    }

    pub fn write(&self, off: u64, src: &[u8]) {
        let mut off = off as usize;
        let mut rest = src;
        while !rest.is_empty() && off % 4 != 0 {
            self.set_byte(off, rest[0]);
            rest = &rest[1..];
            off += 1;
        }
        let whole = rest.len() / 4;
        let (body, tail) = rest.split_at(whole * 4);
        let words = &self.words[off / 4..off / 4 + whole];
        for (chunk, w) in body.chunks_exact(4).zip(words) {
            w.store(
                u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]),
                Relaxed,
            );
        }
        off += whole * 4;
        for (i, b) in tail.iter().enumerate() {
            self.set_byte(off + i, *b);
        }
    }

    #[inline]
    fn byte(&self, off: usize) -> u8 {
        (self.words[off / 4].load(Relaxed) >> (8 * (off % 4))) as u8
    }

    /// A read-modify-write of one byte that other threads' writes to the other
    /// bytes of the word cannot undo.
    fn set_byte(&self, off: usize, value: u8) {
        let shift = 8 * (off % 4);
        let mask = 0xffu32 << shift;
        let _ = self.words[off / 4].fetch_update(Relaxed, Relaxed, |w| {
            Some((w & !mask) | (u32::from(value) << shift))
        });
    }

    /// A 32-bit value at byte offset `off` (any alignment; bounds checked by the caller).
    #[inline]
    pub fn load_u32(&self, off: u64) -> u32 {
        if off % 4 == 0 {
            self.words[(off / 4) as usize].load(Relaxed)
        } else {
            let mut b = [0u8; 4];
            self.read(off, &mut b);
            u32::from_le_bytes(b)
        }
    }

    #[inline]
    pub fn store_u32(&self, off: u64, value: u32) {
        if off % 4 == 0 {
            self.words[(off / 4) as usize].store(value, Relaxed)
        } else {
            self.write(off, &value.to_le_bytes())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_views_write_through_and_refuse_what_could_overlap() {
        let mut m = Memory::default();
        let (p, q) = (m.alloc(64).unwrap(), m.alloc(64).unwrap());
        {
            let mut views = m.words_mut(&[(q + 8, 2), (p, 16)]).unwrap().unwrap();
            views[0].copy_from_slice(&[7, 8]);
            views[1][15] = 9;
        }
        let mut bytes = [0u8; 4];
        m.read_bytes(q + 12, &mut bytes).unwrap();
        assert_eq!(u32::from_le_bytes(bytes), 8);
        m.read_bytes(p + 60, &mut bytes).unwrap();
        assert_eq!(u32::from_le_bytes(bytes), 9);
        // Two ranges in one allocation, or an unaligned one: no views.
        assert!(m.words_mut(&[(p, 2), (p + 32, 2)]).is_none());
        assert!(m.words_mut(&[(p + 2, 2)]).is_none());
        // Past the end, or outside every allocation: a fault.
        assert_eq!(
            m.words_mut(&[(p, 17)]).unwrap().err(),
            Some(Fault {
                address: p,
                bytes: 68
            })
        );
        assert!(m.words_mut(&[(q + (1 << 31), 1)]).unwrap().is_err());
    }
}
