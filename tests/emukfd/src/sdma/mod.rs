//! The SDMA engines of an emulated GPU: the copy engine ROCr sends its
//! host<->device copies to by default (`HSA_ENABLE_SDMA=0` sends them to blit
//! kernels instead).
//!
//! One device thread per SDMA queue watches the queue's doorbell. ROCr
//! writes packets into the ring, then the new write index (a byte offset
//! that only grows, on gfx9 and later) to the queue's write pointer and to
//! the doorbell. The thread decodes the packets from the read index up to
//! the doorbell's value ([`packet`], per the GPU's SDMA family,
//! [`generation`]), executes each in order and advances the read pointer
//! (a byte offset too, which ROCr reads to reuse ring space).
//!
//! Memory: an SDMA engine addresses memory by GPU virtual address, and a
//! GPU virtual address is the process address the runtime chose, as for
//! kernels. Every address a packet gives (copy source and destination, fill,
//! fence, atomic, poll, time stamp) must lie in one memory object mapped on
//! this GPU ([`crate::device::Kfd::mapped`], the set the emulator's kernels
//! see), reached through the device's own view of it; anything else is a GPU
//! memory fault, raised as the AQL queues raise theirs: ROCr then reports
//! "Memory access fault by GPU" and ends the process. The ring, the read and
//! write pointers and the doorbell are read as plain process memory, as the
//! AQL command processor reads its ring.
//!
//! A packet the engine does not execute (an opcode not of the GPU's family,
//! a form it does not emulate, a packet cut off by the write pointer) stops
//! the queue with one line naming it; it is reported to the runtime as a GPU
//! memory fault at the packet's ring address, the one error path by which
//! ROCr 5.2 hears from an SDMA engine (a real engine would hang until reset),
//! so the host process ends with the runtime's report and never hangs.

pub mod generation;
pub mod packet;
#[cfg(test)]
mod tests;

use crate::device::{Kfd, View};
use crate::queue::{load_u32, load_u64, store_u64, Idle, QueueThread, NO_DOORBELL};
use crate::{trace, warn};
use generation::SdmaGeneration;
use packet::{decode, Packet};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use xad_harness::platform::emu::memory::Buffer;

/// Where an SDMA queue lives in process memory (all process addresses).
#[derive(Debug, Clone, Copy)]
pub struct SdmaRing {
    pub id: u32,
    pub gpu: usize,
    pub base: u64,
    /// Bytes in the ring (a power of two).
    pub bytes: u64,
    /// The thunk's write and read pointers (byte offsets that only grow).
    pub write_ptr: u64,
    pub read_ptr: u64,
    pub generation: &'static SdmaGeneration,
}

/// What an SDMA engine reaches besides its ring: the memory mapped on its
/// GPU, the events its TRAPs raise, the GPU clock, where it reports a
/// fault, and the copy knob. The device is one ([`OnGpu`]); the unit tests
/// give an engine plain buffers.
pub trait EngineHost: Sync {
    /// `[addr, addr + len)` in one mapped object: the object and the offset
    /// of `addr` in it.
    fn mapped(&self, addr: u64, len: u64) -> Option<(Buffer, u64)>;
    /// Raise event `id`; false when there is none.
    fn signal_event(&self, id: u32) -> bool;
    /// The GPU clock (100 MHz).
    fn clock(&self) -> u64;
    /// Report a GPU memory fault at `address` to the runtime.
    fn memory_fault(&self, address: u64);
    /// `XAD_KFD_SDMA_FLIP_BIT` for a copy of `bytes` from `src`: its lane,
    /// bit and the offset in the copy of the word it corrupts.
    fn sdma_flip(&self, src: u64, bytes: u64) -> Option<(u32, u32, u64)>;
}

/// GPU `gpu` of the device, as its SDMA engines see it.
pub struct OnGpu {
    kfd: &'static Kfd,
    gpu: usize,
}

impl EngineHost for OnGpu {
    fn mapped(&self, addr: u64, len: u64) -> Option<(Buffer, u64)> {
        self.kfd.mapped(self.gpu, addr, len)
    }
    fn signal_event(&self, id: u32) -> bool {
        self.kfd.signal_event(id)
    }
    fn clock(&self) -> u64 {
        self.kfd.gpu_clock()
    }
    fn memory_fault(&self, address: u64) {
        self.kfd.memory_fault(address, self.kfd.gpus[self.gpu].node.gpu_id);
    }
    fn sdma_flip(&self, src: u64, bytes: u64) -> Option<(u32, u32, u64)> {
        let (lane, bit) = self.kfd.config.sdma_flip_bit?;
        crate::knobs::take_sdma_flip(self.gpu, src, bytes).map(|word| (lane, bit, word))
    }
}

/// The most dwords one packet is decoded from (a NOP's padding is skipped,
/// not read).
const MAX_PACKET_DWORDS: u64 = 16;
/// Bytes a copy moves at a time through the device's buffer.
const COPY_CHUNK: u64 = 1 << 20;

/// Start the device thread of SDMA queue `ring`, whose doorbell is slot
/// `index` of `doorbells` (the device's view of the GPU's doorbell page).
pub fn start(kfd: &'static Kfd, ring: SdmaRing, doorbells: View, index: u32) -> QueueThread {
    QueueThread::start(ring.id, doorbells, index, move |doorbell, stop| {
        let host = OnGpu { kfd, gpu: ring.gpu };
        Engine { host: &host, ring, stop }.run(doorbell);
    })
}

/// Why the engine stopped executing a queue.
enum Halt {
    /// The runtime destroyed the queue while a packet waited.
    Destroyed,
    /// A packet reached memory outside every mapped object.
    Memory { address: u64, what: String },
    /// Words the engine does not execute.
    Refused(String),
}

struct Engine<'a, H: EngineHost> {
    host: &'a H,
    ring: SdmaRing,
    stop: &'a AtomicBool,
}

impl<H: EngineHost> Engine<'_, H> {
    fn run(&self, doorbell: u64) {
        let ring = &self.ring;
        let mut read = load_u64(ring.read_ptr);
        let mut idle = Idle::default();
        while !self.stop.load(Ordering::Acquire) {
            let rung = load_u64(doorbell);
            if rung == NO_DOORBELL || rung <= read {
                if idle.wait() && load_u64(ring.write_ptr) > read {
                    trace!("SDMA queue {}: idle with the write pointer past read pointer {read}; doorbell {rung:#x}", ring.id);
                }
                continue;
            }
            idle = Idle::default();
            if rung % 4 != 0 || rung - read > ring.bytes {
                let why = format!("the doorbell's write pointer {rung} is not a dword offset within {} bytes past the read pointer {read}", ring.bytes);
                return self.halt(read, Halt::Refused(why));
            }
            while read < rung {
                match self.step(read, rung) {
                    Ok(bytes) => {
                        read += bytes;
                        store_u64(ring.read_ptr, read);
                    }
                    Err(halt) => return self.halt(read, halt),
                }
            }
        }
    }

    /// The ring's dword at byte offset `at` (offsets only grow; the ring wraps).
    fn word(&self, at: u64) -> u32 {
        load_u32(self.ring.base + at % self.ring.bytes)
    }

    /// Execute the packet at read offset `read` (and, for NOPs, every NOP
    /// after it): the bytes it took.
    fn step(&self, read: u64, rung: u64) -> Result<u64, Halt> {
        let published = (rung - read) / 4;
        let words: Vec<u32> = (0..published.min(MAX_PACKET_DWORDS)).map(|i| self.word(read + 4 * i)).collect();
        let generation = self.ring.generation;
        let (packet, dwords) = decode(&words, generation).map_err(|e| Halt::Refused(format!("{} {e}", generation.name)))?;
        let mut bytes = dwords as u64 * 4;
        if let Packet::Nop { .. } = packet {
            // ROCr pads with runs of NOPs (up to the ring's end): one line for a run.
            while read + bytes < rung {
                match decode(&[self.word(read + bytes)], generation) {
                    Ok((Packet::Nop { dwords }, _)) => bytes += u64::from(dwords) * 4,
                    _ => break,
                }
            }
        }
        if read + bytes > rung {
            return Err(Halt::Refused(format!("{} of {} dwords runs past the write pointer {rung}", packet.name(), bytes / 4)));
        }
        let done = self.execute(&packet)?;
        match packet {
            Packet::Nop { .. } => trace!("SDMA queue {}: at 0x{read:x} NOP ({} dwords)", self.ring.id, bytes / 4),
            _ => trace!("SDMA queue {}: at 0x{read:x} {packet}{done}", self.ring.id),
        }
        Ok(bytes)
    }

    /// Do what `packet` says; the text adds its outcome to the trace line.
    fn execute(&self, packet: &Packet) -> Result<String, Halt> {
        match *packet {
            Packet::Nop { .. } | Packet::HdpFlush | Packet::Gcr { .. } => Ok(String::new()),
            Packet::CopyLinear { src, dst, bytes } => self.copy(src, dst, bytes),
            Packet::ConstantFill { dst, value, bytes } => {
                let (buffer, offset) = self.object(dst, bytes, "fill")?;
                let chunk = value.to_le_bytes().repeat((bytes.min(COPY_CHUNK) / 4) as usize);
                for at in (0..bytes).step_by(COPY_CHUNK as usize) {
                    let n = (bytes - at).min(COPY_CHUNK) as usize;
                    buffer.write(offset + at, &chunk[..n]);
                }
                Ok(String::new())
            }
            Packet::Fence { addr, value } => {
                let (buffer, offset) = self.object(addr, 4, "fence write")?;
                word32(&buffer, offset).map_or_else(|| buffer.write(offset, &value.to_le_bytes()), |w| w.store(value, Ordering::Release));
                Ok(String::new())
            }
            Packet::Trap { context } => {
                // KFD's interrupt handler signals the event the context names.
                Ok(if self.host.signal_event(context) { format!(" -> event {context} raised") } else { format!(" -> no event {context}") })
            }
            Packet::PollMemory { addr, reference, mask, compare, retries } => {
                let (buffer, offset) = self.object(addr, 4, "poll read")?;
                let mut tries = 0u32;
                let mut idle = Idle::default();
                loop {
                    let value = word32(&buffer, offset).map_or_else(|| buffer.load_u32(offset), |w| w.load(Ordering::Acquire));
                    if compare.holds(value & mask, reference) {
                        return Ok(format!(" -> 0x{value:x} after {tries} retries"));
                    }
                    if self.stop.load(Ordering::Acquire) {
                        return Err(Halt::Destroyed);
                    }
                    tries += 1;
                    if retries.is_some_and(|n| tries > u32::from(n)) {
                        return Err(Halt::Refused(format!("POLL_REGMEM at 0x{addr:x} still read 0x{value:x} after {tries} tries (what an engine does then is not in the sources read)")));
                    }
                    idle.wait();
                }
            }
            Packet::AtomicAdd64 { addr, value } => {
                let (buffer, offset) = self.object(addr, 8, "atomic")?;
                let Some(word) = word64(&buffer, offset) else {
                    return Err(Halt::Refused(format!("ATOMIC at 0x{addr:x} is not 8-byte aligned")));
                };
                let was = word.fetch_add(value, Ordering::AcqRel);
                Ok(format!(" -> {} (was {})", was.wrapping_add(value) as i64, was as i64))
            }
            Packet::Timestamp { addr } => {
                let (buffer, offset) = self.object(addr, 8, "time stamp write")?;
                let now = self.host.clock();
                buffer.write(offset, &now.to_le_bytes());
                Ok(format!(" -> {now}"))
            }
        }
    }

    fn copy(&self, src: u64, dst: u64, bytes: u64) -> Result<String, Halt> {
        let (from, from_at) = self.object(src, bytes, "copy read")?;
        let (to, to_at) = self.object(dst, bytes, "copy write")?;
        let mut chunk = vec![0u8; bytes.min(COPY_CHUNK) as usize];
        for at in (0..bytes).step_by(COPY_CHUNK as usize) {
            let n = (bytes - at).min(COPY_CHUNK) as usize;
            from.read(from_at + at, &mut chunk[..n]);
            to.write(to_at + at, &chunk[..n]);
        }
        if let Some((lane, bit, word)) = self.host.sdma_flip(src, bytes) {
            let value = to.load_u32(to_at + word);
            to.store_u32(to_at + word, value ^ (1 << bit));
            warn!(
                "{}SDMA_FLIP_BIT: SDMA queue {} flipped bit {bit} of lane {lane}'s output word (0x{:x}) as it copied it to 0x{:x}",
                crate::knobs::PREFIX,
                self.ring.id,
                src + word,
                dst + word
            );
        }
        Ok(String::new())
    }

    /// `[addr, addr + len)` in one memory object mapped on this GPU, or the
    /// memory fault `access` is.
    fn object(&self, addr: u64, len: u64, access: &str) -> Result<(Buffer, u64), Halt> {
        self.host.mapped(addr, len).ok_or_else(|| Halt::Memory {
            address: addr,
            what: format!("{access} of {len} bytes at 0x{addr:x} is outside every memory object mapped on the GPU"),
        })
    }

    /// Stop the queue for `halt` at read offset `read`, as a faulted engine stops.
    fn halt(&self, read: u64, halt: Halt) {
        let ring = &self.ring;
        let packet_at = ring.base + read % ring.bytes;
        match halt {
            Halt::Destroyed => return,
            Halt::Memory { address, what } => {
                warn!("SDMA queue {}: packet at ring offset 0x{read:x}: {what}; a GPU memory fault", ring.id);
                self.host.memory_fault(address);
            }
            Halt::Refused(why) => {
                warn!(
                    "SDMA queue {}: packet at ring offset 0x{read:x} (0x{packet_at:x}): {why}; reported to the runtime as a GPU memory fault at the packet's address",
                    ring.id
                );
                self.host.memory_fault(packet_at);
            }
        }
        warn!("SDMA queue {}: stopped after the fault above", ring.id);
    }
}

/// The word at `offset` of `buffer` as one atomic, when `offset` is
/// dword-aligned (ROCr's fences, signals and mailboxes are).
fn word32(buffer: &Buffer, offset: u64) -> Option<&AtomicU32> {
    (offset % 4 == 0).then(|| &buffer.words[(offset / 4) as usize])
}

/// The two words at `offset` of `buffer` as one 64-bit atomic, when they are
/// 8-byte aligned in memory: an SDMA ATOMIC is one 64-bit operation, and a
/// signal's value is read by the host as one 64-bit word meanwhile.
fn word64(buffer: &Buffer, offset: u64) -> Option<&AtomicU64> {
    let low = word32(buffer, offset)?;
    let ptr = (low as *const AtomicU32).cast::<AtomicU64>();
    if offset % 8 != 0 || !ptr.is_aligned() {
        return None;
    }
    // SAFETY: `mapped` checked that `offset + 8` bytes lie in the object,
    // so both words are in the view's slice (which covers its bytes); the
    // pointer is 8-aligned (checked above), and the view's memory is shared
    // memory only ever accessed through atomics, here and by the emulator.
    Some(unsafe { &*ptr })
}
