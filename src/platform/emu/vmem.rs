//! Vector memory: FLAT and GLOBAL loads and stores, per wave (a whole-wave
//! contiguous fast path and a per-lane path that names the faulting lane)
//! and per lockstep workgroup ([`mem_group`]). Flat addresses are global
//! addresses here (no LDS or scratch apertures).

// Lane loops index several lane arrays (and EXEC bits) by the same lane number.
#![allow(clippy::needless_range_loop)]

use super::fault::FaultKind;
use super::memory::{Buffer, Memory};
use super::wave::Wave;
use crate::isa::{table, Inst, Shape};
use crate::platform::device::DeviceError;
use std::sync::atomic::Ordering::Relaxed;

impl<const W: usize> Wave<W> {
    /// Lane `i`'s address (slow paths; the fast paths use [`Wave::contiguous_start`]).
    #[inline(always)]
    pub(super) fn lane_addr(&self, inst: &Inst, i: usize) -> u64 {
        let lo = u64::from(self.v[inst.addr as usize][i]) * access_scale(inst);
        let off = i64::from(inst.imm);
        match inst.saddr {
            Some(sa) => (u64::from(self.s[sa as usize]) | u64::from(self.s[sa as usize + 1]) << 32)
                .wrapping_add_signed(off)
                .wrapping_add(lo),
            None => {
                (lo | u64::from(self.v[inst.addr as usize + 1][i]) << 32).wrapping_add_signed(off)
            }
        }
    }

    /// If EXEC is full and lane i's address is `a0 + i * size`, return a0.
    /// Checked on the 32-bit address VGPRs directly (a vectorisable compare)
    /// and only when the low words cannot carry; a carrying wave, which is
    /// still contiguous, takes the per-lane path and gets the same result.
    #[inline(always)]
    fn contiguous_start(&self, inst: &Inst, size: u64) -> Option<u64> {
        if self.exec() != Self::FULL || inst.scale_offset {
            return None;
        }
        let lo = &self.v[inst.addr as usize];
        let l0 = lo[0];
        if u64::from(l0) + (W as u64 - 1) * size > u64::from(u32::MAX) {
            return None;
        }
        // Lane i must hold l0 + i * size (l0 cannot carry, checked above).
        let mut ok = true;
        if size == 4 {
            // Dword accesses, the common case: compare with a stored row of
            // offsets (SSE2 has no 32-bit vector multiply).
            ok = offsets_match(lo, l0, &self.dword_offsets);
        } else {
            let step = size as u32;
            for i in 1..W {
                ok &= lo[i].wrapping_sub(lo[i - 1]) == step;
            }
        }
        if !ok {
            return None;
        }
        let off = i64::from(inst.imm);
        match inst.saddr {
            Some(sa) => {
                let base =
                    u64::from(self.s[sa as usize]) | u64::from(self.s[sa as usize + 1]) << 32;
                Some(base.wrapping_add_signed(off).wrapping_add(u64::from(l0)))
            }
            None => {
                let hi = &self.v[inst.addr as usize + 1];
                let h0 = hi[0];
                let mut same = true;
                for i in 0..W {
                    same &= hi[i] == h0;
                }
                same.then(|| (u64::from(l0) | u64::from(h0) << 32).wrapping_add_signed(off))
            }
        }
    }

    #[cold]
    fn memory_fault(
        &self,
        mem: &Memory,
        inst: &Inst,
        lane: usize,
        addr: u64,
        bytes: u64,
        what: &str,
    ) -> DeviceError {
        let address = mem.first_bad_byte(addr, bytes);
        let message = format!(
            "address 0x{address:x}, instruction at offset 0x{:x} ({inst}), lane {lane}, {what} of {bytes} bytes",
            inst.offset
        );
        let fault = self.fault_at(FaultKind::MemoryFault, inst, message);
        DeviceError::from(
            fault
                .with_lane(self.global_lane(lane))
                .with_address(address),
        )
    }

    /// The buffer and word-aligned offset of a whole-wave access when every
    /// lane is active and lane i touches `start + i * size` (dword sizes only):
    /// the fast path of global loads and stores.
    fn contiguous_range<'m>(
        &self,
        inst: &Inst,
        size: u64,
        mem: &'m Memory,
    ) -> Option<(&'m Buffer, u64)> {
        if size % 4 != 0 {
            return None;
        }
        self.contiguous_start(inst, size)
            .and_then(|a0| mem.resolve(a0, size * W as u64))
            .filter(|(_, off)| off % 4 == 0)
    }

    /// An internal fault: the table gave a memory op a shape that is not one.
    #[cold]
    fn not_a_memory_op(&self, inst: &Inst) -> DeviceError {
        self.fault(
            FaultKind::Internal,
            inst,
            format!(
                "internal: {} has shape {:?}, not a memory access",
                inst.mnemonic(),
                inst.shape()
            ),
        )
    }

    #[inline(never)]
    pub(super) fn mem_load(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        let Shape::MemLoad(size) = inst.shape() else {
            return Err(self.not_a_memory_op(inst));
        };
        let size = u64::from(size);
        let dwords = (size as usize).div_ceil(4);
        let fast = self.contiguous_range(inst, size, mem);
        if let Some((buf, off)) = fast {
            // EXEC is full on this path and every address was resolved, so
            // the destination rows can be written directly.
            let w0 = (off / 4) as usize;
            let words = &buf.words[w0..w0 + dwords * W];
            if dwords == 1 {
                let d = &mut self.v[inst.dst as usize];
                for (d, w) in d.iter_mut().zip(words) {
                    *d = w.load(Relaxed);
                }
            } else {
                for k in 0..dwords {
                    let d = &mut self.v[usize::from(inst.dst) + k];
                    for i in 0..W {
                        d[i] = words[i * dwords + k].load(Relaxed);
                    }
                }
            }
            return Ok(());
        }
        self.mem_load_lanes(inst, mem, size, dwords)
    }

    /// The general load: any EXEC, any addresses, faults named by lane.
    #[cold]
    #[inline(never)]
    fn mem_load_lanes(
        &mut self,
        inst: &Inst,
        mem: &Memory,
        size: u64,
        dwords: usize,
    ) -> Result<(), DeviceError> {
        let exec = self.exec();
        self.check_lanes(inst, mem, size, "load")?;
        let sign = table::load_sign_extends(inst.op);
        // Lane i's address comes from lane i of the address VGPRs only, so
        // writing lane i's result before reading lane i+1's address is safe
        // even when the destination overlaps the address registers.
        for i in 0..W {
            if (exec >> i) & 1 == 0 {
                continue;
            }
            let a = self.lane_addr(inst, i);
            let Some((buf, off)) = mem.resolve(a, size) else {
                continue;
            };
            match size {
                1 | 2 => {
                    let mut b = [0u8; 2];
                    buf.read(off, &mut b[..size as usize]);
                    self.v[inst.dst as usize][i] = match (size, sign) {
                        (1, false) => u32::from(b[0]),
                        (1, true) => b[0] as i8 as i32 as u32,
                        (_, false) => u32::from(u16::from_le_bytes(b)),
                        (_, true) => u16::from_le_bytes(b) as i16 as i32 as u32,
                    };
                }
                _ => {
                    let mut data = [0u32; 4];
                    for (k, d) in data.iter_mut().enumerate().take(dwords) {
                        *d = buf.load_u32(off + 4 * k as u64);
                    }
                    for (k, d) in data.iter().enumerate().take(dwords) {
                        self.v[usize::from(inst.dst) + k][i] = *d;
                    }
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn mem_store(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        let Shape::MemStore(size) = inst.shape() else {
            return Err(self.not_a_memory_op(inst));
        };
        let size = u64::from(size);
        let dwords = (size as usize).div_ceil(4);
        let fast = self.contiguous_range(inst, size, mem);
        if let Some((buf, off)) = fast {
            let w0 = (off / 4) as usize;
            let words = &buf.words[w0..w0 + dwords * W];
            if dwords == 1 {
                for (w, d) in words.iter().zip(&self.v[inst.data as usize]) {
                    w.store(*d, Relaxed);
                }
            } else {
                for i in 0..W {
                    for k in 0..dwords {
                        words[i * dwords + k].store(self.v[inst.data as usize + k][i], Relaxed);
                    }
                }
            }
            return Ok(());
        }
        self.mem_store_lanes(inst, mem, size, dwords)
    }

    /// Check every active lane's address before any is accessed, so a
    /// faulting load or store changes nothing; the fault names the first bad lane.
    fn check_lanes(
        &self,
        inst: &Inst,
        mem: &Memory,
        size: u64,
        access: &str,
    ) -> Result<(), DeviceError> {
        let exec = self.exec();
        for i in 0..W {
            if (exec >> i) & 1 == 1 {
                let a = self.lane_addr(inst, i);
                if mem.resolve(a, size).is_none() {
                    return Err(self.memory_fault(mem, inst, i, a, size, access));
                }
            }
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn mem_store_lanes(
        &mut self,
        inst: &Inst,
        mem: &Memory,
        size: u64,
        dwords: usize,
    ) -> Result<(), DeviceError> {
        let exec = self.exec();
        self.check_lanes(inst, mem, size, "store")?;
        for i in 0..W {
            if (exec >> i) & 1 == 0 {
                continue;
            }
            let Some((buf, off)) = mem.resolve(self.lane_addr(inst, i), size) else {
                continue;
            };
            match size {
                1 | 2 => {
                    let b = self.v[inst.data as usize][i].to_le_bytes();
                    buf.write(off, &b[..size as usize]);
                }
                _ => {
                    for k in 0..dwords {
                        buf.store_u32(off + 4 * k as u64, self.v[inst.data as usize + k][i]);
                    }
                }
            }
        }
        Ok(())
    }
}

/// A lockstep workgroup's global load or store as one access when every
/// wave's is whole and contiguous and the waves' ranges follow each other
/// (a kernel indexing by work-item id): one resolve and one bounds check for
/// the workgroup instead of one per wave. False, having done nothing, for
/// anything else; the waves then execute it one at a time (and fault there,
/// by lane, when an address is bad).
#[inline(never)]
pub(super) fn mem_group<const W: usize>(waves: &mut [Wave<W>], inst: &Inst, mem: &Memory) -> bool {
    let (size, load) = match inst.shape() {
        Shape::MemLoad(n) => (u64::from(n), true),
        Shape::MemStore(n) => (u64::from(n), false),
        _ => return false,
    };
    // Sub-dword loads extend and multi-dword accesses interleave registers:
    // the per-wave paths handle those.
    if size != 4 || waves.len() < 2 {
        return false;
    }
    let span = 4 * W as u64;
    let lanes = (W * waves.len()) as u64;
    let Some(a0) = group_start(waves, inst, lanes) else {
        return false;
    };
    let Some((buf, off)) = mem.resolve(a0, span * waves.len() as u64) else {
        return false;
    };
    if off % 4 != 0 {
        return false;
    }
    let w0 = (off / 4) as usize;
    let words = &buf.words[w0..w0 + W * waves.len()];
    if load {
        let dst = inst.dst as usize;
        for (wave, words) in waves.iter_mut().zip(words.chunks_exact(W)) {
            for (d, w) in wave.v[dst].iter_mut().zip(words) {
                *d = w.load(Relaxed);
            }
        }
    } else {
        let data = inst.data as usize;
        for (wave, words) in waves.iter().zip(words.chunks_exact(W)) {
            for (w, d) in words.iter().zip(&wave.v[data]) {
                w.store(*d, Relaxed);
            }
        }
    }
    true
}

/// The address of lane 0 of wave 0 when every wave's EXEC is full and lane
/// i of wave w addresses `a0 + 4 * (w * W + i)`: [`Wave::contiguous_start`]
/// for the whole workgroup, with the checks that do not depend on the wave
/// (carry, base register) made once. Checked on the 32-bit address VGPRs and
/// only when their low words cannot carry across the workgroup; a carrying
/// workgroup takes the per-wave paths, with the same result.
#[inline(always)]
fn group_start<const W: usize>(waves: &[Wave<W>], inst: &Inst, lanes: u64) -> Option<u64> {
    let first = waves.first()?;
    let addr = inst.addr as usize;
    let l0 = first.v[addr][0];
    if u64::from(l0) + (lanes - 1) * 4 > u64::from(u32::MAX) {
        return None;
    }
    let mut base = l0;
    for wave in waves {
        // `base` cannot wrap: the whole workgroup's range was checked above.
        if wave.exec() != Wave::<W>::FULL
            || !offsets_match(&wave.v[addr], base, &wave.dword_offsets)
        {
            return None;
        }
        base = base.wrapping_add(4 * W as u32);
    }
    let off = i64::from(inst.imm);
    match inst.saddr {
        Some(sa) => {
            // Uniform SGPRs can still differ between waves (each wave's own).
            let sbase =
                |w: &Wave<W>| u64::from(w.s[sa as usize]) | u64::from(w.s[sa as usize + 1]) << 32;
            let b = sbase(first);
            if waves.iter().any(|w| sbase(w) != b) {
                return None;
            }
            Some(b.wrapping_add_signed(off).wrapping_add(u64::from(l0)))
        }
        None => {
            let h0 = first.v[addr + 1][0];
            for wave in waves {
                let hi = &wave.v[addr + 1];
                let mut same = true;
                for h in hi {
                    same &= *h == h0;
                }
                if !same {
                    return None;
                }
            }
            Some((u64::from(l0) | u64::from(h0) << 32).wrapping_add_signed(off))
        }
    }
}

#[inline(always)]
fn offsets_match<const W: usize>(lo: &[u32; W], l0: u32, offsets: &[u32; W]) -> bool {
    // An OR of differences, which vectorises; a chain of `&=` on compares
    // stayed scalar and cost more than the load it guards.
    let mut diff = 0;
    for i in 0..W {
        diff |= lo[i].wrapping_sub(l0) ^ offsets[i];
    }
    diff == 0
}

/// What a lane's VGPR offset is multiplied by: the access size in bytes
/// under CDNA5's `scale_offset`, else 1.
fn access_scale(inst: &Inst) -> u64 {
    match (inst.scale_offset, inst.shape()) {
        (true, crate::isa::Shape::MemLoad(n) | crate::isa::Shape::MemStore(n)) => u64::from(n),
        _ => 1,
    }
}
