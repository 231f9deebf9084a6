//! Scalar memory: SMEM loads into SGPRs, per wave and, when every wave of a
//! lockstep workgroup loads the same words (kernel arguments), once for the
//! workgroup ([`sload_group`]).

use super::fault::FaultKind;
use super::memory::Memory;
use super::wave::Wave;
use crate::isa::{Inst, Shape, NULL};
use crate::platform::device::DeviceError;
use std::sync::atomic::Ordering;

impl<const W: usize> Wave<W> {
    /// The byte address of an SMEM access: sbase pair + offset + soffset.
    #[inline(always)]
    pub(super) fn smem_addr(&self, inst: &Inst) -> u64 {
        let base =
            u64::from(self.s[inst.addr as usize]) | u64::from(self.s[inst.addr as usize + 1]) << 32;
        let soff = inst.saddr.map_or(0, |r| u64::from(self.s[r as usize]));
        base.wrapping_add_signed(i64::from(inst.imm))
            .wrapping_add(soff)
    }

    #[inline(never)]
    pub(super) fn s_load(&mut self, inst: &Inst, mem: &Memory) -> Result<(), DeviceError> {
        let Shape::Load(n) = inst.shape() else {
            let message = format!(
                "internal: {} has shape {:?}, not a scalar load",
                inst.mnemonic(),
                inst.shape()
            );
            return Err(self.fault(FaultKind::Internal, inst, message));
        };
        let addr = self.smem_addr(inst);
        let bytes = 4 * u64::from(n);
        if addr % 4 != 0 {
            return Err(self.fault(FaultKind::Unsupported, inst, format!(
                "instruction at offset 0x{:x} ({inst}): scalar load from unaligned address 0x{addr:x} \
                 (the hardware's treatment of address bits 1:0 is not emulated)",
                inst.offset
            )));
        }
        let Some((buf, off)) = mem.resolve(addr, bytes) else {
            return Err(self.scalar_fault(mem, inst, addr, bytes));
        };
        let (dst, n) = (inst.dst as usize, n as usize);
        if dst + n <= NULL as usize {
            // The common case: the registers are below `null`, no wrap, and
            // the address is word-aligned (checked above): a straight copy.
            let w0 = (off / 4) as usize;
            for (d, w) in self.s[dst..dst + n].iter_mut().zip(&buf.words[w0..w0 + n]) {
                *d = w.load(Ordering::Relaxed);
            }
        } else {
            for k in 0..n as u64 {
                let v = buf.load_u32(off + 4 * k);
                self.ws(inst.sgpr_dst().wrapping_add(k as u8), v);
            }
        }
        Ok(())
    }

    #[cold]
    fn scalar_fault(&self, mem: &Memory, inst: &Inst, addr: u64, bytes: u64) -> DeviceError {
        let address = mem.first_bad_byte(addr, bytes);
        let message =
            format!("address 0x{address:x}, instruction at offset 0x{:x} ({inst}), scalar, load of {bytes} bytes", inst.offset);
        DeviceError::from(
            self.fault_at(FaultKind::MemoryFault, inst, message)
                .with_address(address),
        )
    }
}

/// A lockstep workgroup's scalar load as one read when every wave loads
/// from the same address (kernel arguments): the words go to each wave's
/// SGPRs. False, having done nothing, when the addresses differ or the
/// common case of [`Wave::s_load`] does not apply; the waves then execute it
/// one at a time (and report any fault there).
#[inline(never)]
pub(super) fn sload_group<const W: usize>(
    waves: &mut [Wave<W>],
    inst: &Inst,
    mem: &Memory,
) -> bool {
    let Shape::Load(n) = inst.shape() else {
        return false;
    };
    let Some(first) = waves.first() else {
        return false;
    };
    let addr = first.smem_addr(inst);
    let (dst, n) = (inst.dst as usize, n as usize);
    if addr % 4 != 0
        || dst + n > NULL as usize
        || n > 16
        || waves.iter().any(|w| w.smem_addr(inst) != addr)
    {
        return false;
    }
    let Some((buf, off)) = mem.resolve(addr, 4 * n as u64) else {
        return false;
    };
    let w0 = (off / 4) as usize;
    let mut data = [0u32; 16];
    for (d, w) in data.iter_mut().zip(&buf.words[w0..w0 + n]) {
        *d = w.load(Ordering::Relaxed);
    }
    for wave in waves.iter_mut() {
        wave.s[dst..dst + n].copy_from_slice(&data[..n]);
    }
    true
}
