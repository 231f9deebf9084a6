//! AQL compute queues: the command processor of an emulated GPU.
//!
//! One device thread per queue watches the queue's doorbell (the runtime
//! writes the index of the last packet it published there, after the
//! packet's header: the write index in `amd_queue_t` moves earlier, when a
//! slot is reserved), reads each published packet from the ring and executes
//! it:
//! - KERNEL_DISPATCH: the dispatch runs on the GPU's emulator
//!   ([`xad_harness::platform::emu::EmuDevice::run_packet`]): descriptor, code and
//!   kernarg from device memory, sizes from the packet;
//! - BARRIER_AND / BARRIER_OR: waits until all / any dependency signal is 0;
//! then the completion signal is decremented and, when the signal has an
//! event mailbox, the event id is written there and the event raised (what
//! the hardware's end-of-pipe interrupt makes KFD do). The packet is set back
//! to INVALID and the read index advanced.
//!
//! A dispatch the emulator cannot complete is a queue error: one line on
//! stderr naming it; a memory fault also raises the runtime's memory event
//! (ROCr then reports "Memory access fault by GPU" as on hardware). The
//! packet's signal is left alone, as a faulted queue leaves it.

use crate::device::{Kfd, View};
use crate::{trace, warn};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use crate::knobs::Launch;
use xad_harness::platform::device::inject::StoreFault;
use xad_harness::platform::device::{DeviceError, Fault};
use xad_harness::platform::emu::packet::PacketDispatch;
use xad_harness::platform::emu::FaultKind;

const PACKET_BYTES: u64 = 64;
/// HSA packet types (header bits 7:0).
const TYPE_VENDOR: u16 = 0;
const TYPE_INVALID: u16 = 1;
const TYPE_KERNEL_DISPATCH: u16 = 2;
const TYPE_BARRIER_AND: u16 = 3;
const TYPE_BARRIER_OR: u16 = 5;
/// `amd_aql_format` of ROCr's vendor packets: a PM4 indirect buffer.
const AMD_AQL_FORMAT_PM4_IB: u16 = 1;
/// Byte offset of `write_dispatch_id` in `amd_queue_t` (ROCr
/// `amd_hsa_queue.h`: the 40-byte `hsa_queue_t` and 16 reserved bytes).
const WRITE_DISPATCH_ID_AT: u64 = 56;
/// `amd_signal_t`: value (i64) at 8, event mailbox pointer at 16, event id at 24.
const SIGNAL_VALUE_AT: u64 = 8;
const SIGNAL_MAILBOX_AT: u64 = 16;
const SIGNAL_EVENT_ID_AT: u64 = 24;
/// Byte offset of `queue_inactive_signal` in `amd_queue_t` (ROCr
/// `amd_hsa_queue.h`): where the trap handler reports a wave's exception.
const QUEUE_INACTIVE_SIGNAL_AT: u64 = 192;
/// `queue_properties` in `amd_queue_t`, and its ENABLE_PROFILING bit: the
/// command processor then writes a packet's start and end time stamps
/// (`amd_signal_t` `start_ts` at 32, `end_ts` at 40, in the GPU clock) into
/// its completion signal, which the runtime reads for event timing.
const QUEUE_PROPERTIES_AT: u64 = 180;
const QUEUE_PROFILING: u32 = 1 << 3;
const SIGNAL_START_TS_AT: u64 = 32;
const SIGNAL_END_TS_AT: u64 = 40;
/// The error code a wave's illegal instruction leaves in that signal (ROCr's
/// queue error handler reads it as HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION).
const QUEUE_ERROR_ILLEGAL_INSTRUCTION: i64 = 0x4000_0000;
/// The error code of a dispatch the command processor cannot start (ROCr:
/// "Invalid (or NULL) code", HSA_STATUS_ERROR_INVALID_CODE_OBJECT).
const QUEUE_ERROR_INVALID_CODE: i64 = 8;

/// A queue's device thread (AQL here, SDMA in [`crate::sdma`]);
/// [`QueueThread::stop`] ends it.
pub struct QueueThread {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Where a queue lives in process memory (all process addresses).
#[derive(Debug, Clone, Copy)]
pub struct Ring {
    pub id: u32,
    pub gpu: usize,
    pub base: u64,
    /// Packets in the ring (a power of two).
    pub packets: u64,
    /// The runtime's `amd_queue_t` write and read dispatch ids.
    pub write_ptr: u64,
    pub read_ptr: u64,
}

impl Ring {
    /// The runtime's `amd_queue_t`, whose write dispatch id the runtime
    /// gave as the queue's write pointer.
    fn amd_queue(&self) -> u64 {
        self.write_ptr - WRITE_DISPATCH_ID_AT
    }
}

/// No doorbell write yet (the device writes it when the queue is created;
/// the runtime's first write is packet index 0, or an SDMA ring's byte
/// index).
pub const NO_DOORBELL: u64 = u64::MAX;

/// Start the device thread of AQL queue `ring`, whose doorbell is slot
/// `index` of `doorbells` (the device's view of the GPU's doorbell page).
pub fn start(kfd: &'static Kfd, ring: Ring, doorbells: View, index: u32) -> QueueThread {
    QueueThread::start(ring.id, doorbells, index, move |slot, stop| run(kfd, ring, slot, stop))
}

impl QueueThread {
    /// Mark doorbell `index` of `doorbells` as never rung and run
    /// `serve(doorbell address, stop flag)` on a device thread for queue
    /// `id`; the doorbell page stays mapped while it runs.
    pub fn start(id: u32, doorbells: View, index: u32, serve: impl FnOnce(u64, &AtomicBool) + Send + 'static) -> QueueThread {
        let slot = doorbells.addr() + u64::from(index) * 8;
        store_u64(slot, NO_DOORBELL);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name(format!("xad-emukfd-q{id}"))
            .spawn(move || {
                serve(slot, &flag);
                drop(doorbells);
            })
            .ok();
        if thread.is_none() {
            warn!("queue {id}: cannot start its device thread");
        }
        QueueThread { stop, thread }
    }

    /// Unpark the thread if it waits for its doorbell ([`Idle`]).
    pub fn wake(&self) {
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
    }

    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Release);
        self.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

// Process memory the runtime hands the queue (ring, amd_queue_t, signals;
// an SDMA queue's ring and the thunk's read and write pointers): read and
// written in place, as the command processor does through its VM.
// SAFETY (all five): the runtime created the queue with these addresses and
// keeps them mapped until DESTROY_QUEUE, which stops this thread first;
// signal addresses come from packets the runtime wrote. They are naturally
// aligned (AQL and amd_signal_t layouts; an SDMA ring is page-aligned and
// read at dword offsets, its pointers are 64-bit words).
pub(crate) fn load_u64(addr: u64) -> u64 {
    unsafe { (*(addr as *const AtomicU64)).load(Ordering::Acquire) }
}
pub(crate) fn store_u64(addr: u64, v: u64) {
    unsafe { (*(addr as *const AtomicU64)).store(v, Ordering::Release) }
}
/// A dword of a ring (an SDMA ring is read by dwords, 4-aligned).
pub(crate) fn load_u32(addr: u64) -> u32 {
    unsafe { (*(addr as *const AtomicU32)).load(Ordering::Acquire) }
}
fn header(addr: u64) -> &'static AtomicU16 {
    unsafe { &*(addr as *const AtomicU16) }
}
fn signal_value(signal: u64) -> &'static AtomicI64 {
    unsafe { &*((signal + SIGNAL_VALUE_AT) as *const AtomicI64) }
}

/// A device thread's wait for its doorbell. A doorbell is a plain store to
/// a page the runtime mapped, so nothing wakes the thread when it rings: it
/// yields a few times right after work, then parks for 100 us, and after a
/// while for 1 ms. A runtime that blocks in WAIT_EVENTS has rung a doorbell
/// first, so that ioctl unparks every queue thread ([`QueueThread::wake`]):
/// a blocked runtime never waits out the back-off, and idle queues leave
/// the two cores to the harness and the running dispatch.
#[derive(Default)]
pub(crate) struct Idle(u32);

impl Idle {
    /// Wait once; true the one time the queue has been idle long enough for
    /// a trace to say what it waits for.
    pub(crate) fn wait(&mut self) -> bool {
        self.0 = self.0.saturating_add(1);
        match self.0 {
            0..64 => std::thread::yield_now(),
            64..2000 => std::thread::park_timeout(Duration::from_micros(100)),
            _ => std::thread::park_timeout(Duration::from_millis(1)),
        }
        self.0 == 5000
    }
}

fn run(kfd: &'static Kfd, ring: Ring, doorbell: u64, stop: &AtomicBool) {
    let mut read = load_u64(ring.read_ptr);
    let mut idle = Idle::default();
    while !stop.load(Ordering::Acquire) {
        let rung = load_u64(doorbell);
        if rung == NO_DOORBELL || read > rung {
            if idle.wait() {
                let write = load_u64(ring.write_ptr);
                if write > read {
                    trace!(
                        "queue {}: idle with write index {write} past read index {read}; doorbell {}",
                        ring.id,
                        if rung == NO_DOORBELL { "never rung".to_string() } else { rung.to_string() }
                    );
                }
            }
            continue;
        }
        idle = Idle::default();
        let at = ring.base + (read % ring.packets) * PACKET_BYTES;
        let h = header(at).load(Ordering::Acquire);
        if !execute(kfd, &ring, at, h, read, stop) {
            if stop.load(Ordering::Acquire) {
                // Destroyed while a dispatch hung: nothing faulted.
                return;
            }
            // A faulted queue stops processing, as the hardware's does.
            warn!("queue {}: stopped after the fault above", ring.id);
            return;
        }
        header(at).store((h & !0xff) | TYPE_INVALID, Ordering::Release);
        read += 1;
        store_u64(ring.read_ptr, read);
    }
}

/// Execute the packet at `at`; false when the queue faulted.
fn execute(kfd: &'static Kfd, ring: &Ring, at: u64, h: u16, index: u64, stop: &AtomicBool) -> bool {
    let mut bytes = [0u8; 64];
    // SAFETY: the ring slot, 64 bytes in the runtime's ring (see above).
    unsafe { std::ptr::copy_nonoverlapping(at as *const u8, bytes.as_mut_ptr(), 64) };
    let completion = u64::from_le_bytes(bytes[56..64].try_into().unwrap_or([0; 8]));
    let started = kfd.gpu_clock();
    match h & 0xff {
        TYPE_KERNEL_DISPATCH => {
            let queue = ring.amd_queue();
            let p = PacketDispatch::parse(&bytes, at, queue, index);
            if !dispatch(kfd, ring, &p, stop) {
                return false;
            }
        }
        TYPE_BARRIER_AND | TYPE_BARRIER_OR => {
            let deps: Vec<u64> = (0..5)
                .map(|i| u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().unwrap_or([0; 8])))
                .filter(|&s| s != 0)
                .collect();
            let all = h & 0xff == TYPE_BARRIER_AND;
            let mut spins = 0u32;
            loop {
                let done = |s: &u64| signal_value(*s).load(Ordering::Acquire) == 0;
                let ready = if all { deps.iter().all(done) } else { deps.is_empty() || deps.iter().any(done) };
                if ready || stop.load(Ordering::Acquire) {
                    break;
                }
                spins += 1;
                if spins < 1000 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            trace!("queue {}: packet {index} {} ({} dependencies)", ring.id, if all { "BARRIER_AND" } else { "BARRIER_OR" }, deps.len());
        }
        TYPE_INVALID => {
            warn!("queue {}: the doorbell published packet {index}, whose header is still INVALID (0x{h:04x})", ring.id);
            return false;
        }
        TYPE_VENDOR => {
            // ROCr's AMD vendor packet (amd_aql_pm4_ib_packet_t): format 1
            // is a PM4 indirect buffer, which the runtime sends to invalidate
            // the instruction and data caches after loading code. The
            // emulator has no caches (it decodes code from device memory per
            // distinct content), so it completes with no effect; any other
            // format is refused.
            let format = u16::from_le_bytes([bytes[2], bytes[3]]);
            if format != AMD_AQL_FORMAT_PM4_IB {
                warn!("queue {}: packet {index} is an AMD vendor packet of format {format}, which the emulated device does not execute", ring.id);
                return false;
            }
            trace!("queue {}: packet {index} PM4 indirect buffer (cache invalidation; no caches are emulated)", ring.id);
        }
        other => {
            warn!("queue {}: packet {index} has type {other}, not an AQL packet the emulated device executes", ring.id);
            return false;
        }
    }
    if completion != 0 {
        // SAFETY: the runtime's amd_queue_t (see the note on process memory).
        let properties = unsafe { (*((ring.amd_queue() + QUEUE_PROPERTIES_AT) as *const AtomicU32)).load(Ordering::Acquire) };
        if properties & QUEUE_PROFILING != 0 {
            store_u64(completion + SIGNAL_START_TS_AT, started);
            store_u64(completion + SIGNAL_END_TS_AT, kfd.gpu_clock().max(started + 1));
        }
        complete(kfd, completion);
    }
    true
}

/// Say once per process what a runtime's own kernel broke that the device
/// did not enforce ([`xad_harness::platform::emu::packet::Issuer::Runtime`]): a finding
/// about AMD's code, never a verdict on the kernels under test.
fn report_finding(target: &str, finding: &str) {
    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.iter().any(|f| f == finding) {
        said.push(finding.to_string());
        warn!("emulated {target}: finding in the runtime's own kernel (run as written; rules stay verdicts for the kernels under test): {finding}");
    }
}

/// Run one kernel dispatch; false on a fault (reported). The fault knobs
/// ([`crate::knobs`]) act on it when it is the harness's.
fn dispatch(kfd: &'static Kfd, ring: &Ring, p: &PacketDispatch, stop: &AtomicBool) -> bool {
    let gpu = &kfd.gpus[ring.gpu];
    let xnack_off = !gpu.xnack.load(Ordering::Relaxed);
    let knobs = &kfd.config.launch;
    let started = Instant::now();
    let outcome = {
        let mut emu = gpu.emu.lock().unwrap_or_else(|e| e.into_inner());
        let kernel = crate::knobs::kernel_under_test(&emu, p.kernel_object);
        let launch = Launch::of(knobs, &emu, p, ring.gpu, kernel.as_ref());
        if let Some(launch) = launch.as_ref().filter(|_| knobs.hang) {
            drop(emu);
            return hang(kfd, ring, p, &launch.kernel, stop);
        }
        let saved = launch.as_ref().map(|l| l.before(knobs, &emu));
        let issuer = crate::knobs::issuer(kernel.as_ref());
        let outcome = emu.run_packet(p, issuer, xnack_off, kfd.config.watchdog);
        if let (Ok(_), Some((lane, _)), Some(kernel)) = (&outcome, kfd.config.sdma_flip_bit, kernel.as_ref()) {
            crate::knobs::arm_sdma_flip(lane, &emu, p, ring.gpu, kernel);
        }
        match (outcome, launch, saved) {
            (Ok(o), Some(launch), Some(saved)) => launch
                .after(knobs, &emu, saved)
                .map(|()| o)
                .map_err(|StoreFault(at)| {
                    DeviceError::from(
                        Fault::new(FaultKind::MemoryFault, format!("{}WRITE_PAST_END: memory fault: address 0x{at:x}", crate::knobs::PREFIX))
                            .with_address(at),
                    )
                }),
            (outcome, ..) => outcome,
        }
    };
    let name = gpu.node.target.name;
    match outcome {
        Ok(o) => {
            trace!(
                "queue {}: packet {} KERNEL_DISPATCH kernel object 0x{:x} grid {:?} workgroup {:?} kernarg 0x{:x} -> done on emulated {name} in {:.3} ms{}{}",
                ring.id,
                p.dispatch_id,
                p.kernel_object,
                p.grid,
                p.workgroup,
                p.kernarg,
                started.elapsed().as_secs_f64() * 1e3,
                if o.poisoned > 0 { format!(", {} undefined word(s) written as poison (first: {})", o.poisoned, o.first_poison.as_deref().unwrap_or_default()) } else { String::new() },
                if o.stopped_waves > 0 { format!(", {} wave(s) stopped on an undefined value (first: {})", o.stopped_waves, o.first_stop.as_deref().unwrap_or_default()) } else { String::new() },
            );
            for finding in &o.findings {
                report_finding(name, finding);
            }
            if o.poisoned > 0 && !crate::trace::on() {
                warn!(
                    "emulated {name}: dispatch {} left {} word(s) undefined; written as poison (first: {})",
                    p.dispatch_id,
                    o.poisoned,
                    o.first_poison.unwrap_or_default()
                );
            }
            true
        }
        Err(e) => {
            warn!("emulated {name}: queue {} dispatch {} (kernel object 0x{:x}) failed: {e}", ring.id, p.dispatch_id, p.kernel_object);
            if let DeviceError::Refused(_) = &e {
                // A descriptor or packet the emulator will not run: the
                // runtime hears it as an invalid code object, not silence.
                queue_error(kfd, ring, QUEUE_ERROR_INVALID_CODE);
            }
            if let DeviceError::Emulation(f) = &e {
                match f.kind {
                    FaultKind::MemoryFault => kfd.memory_fault(f.address.unwrap_or(0), gpu.node.gpu_id),
                    // What silicon does with an instruction it cannot run
                    // (and what the emulator refuses): the wave traps, and
                    // the trap handler reports the queue's error, which the
                    // runtime turns into its own illegal-instruction error.
                    FaultKind::Unsupported
                    | FaultKind::BadBranch
                    | FaultKind::RanPastEnd
                    | FaultKind::CodeEnd
                    | FaultKind::VgprOutOfRange
                    | FaultKind::SgprOutOfRange => queue_error(kfd, ring, QUEUE_ERROR_ILLEGAL_INSTRUCTION),
                    // An endless wave stays the harness's watchdog's to end.
                    _ => {}
                }
            }
            false
        }
    }
}

/// `XAD_KFD_HANG`: a harness dispatch whose wave never ends. Its signal is
/// never completed, so the runtime waits and the harness's own watchdog must
/// end the run. The device's watchdog (`XAD_KFD_WATCHDOG`) ends the dispatch
/// as it ends an endless wave on the emulator: one line, and the queue stops.
/// Destroying the queue (the runtime's teardown at exit) ends the wait, so
/// the device thread never keeps the process alive. Always false: the
/// dispatch did not complete.
fn hang(kfd: &Kfd, ring: &Ring, p: &PacketDispatch, kernel: &str, stop: &AtomicBool) -> bool {
    warn!("{}HANG: queue {} dispatch {} (kernel {kernel}) never completes", crate::knobs::PREFIX, ring.id, p.dispatch_id);
    let started = Instant::now();
    while !stop.load(Ordering::Acquire) {
        if started.elapsed() >= kfd.config.watchdog {
            let name = kfd.gpus[ring.gpu].node.target.name;
            warn!(
                "emulated {name}: queue {} dispatch {} (kernel {kernel}) did not complete within {} s (XAD_KFD_WATCHDOG)",
                ring.id,
                p.dispatch_id,
                kfd.config.watchdog.as_secs()
            );
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// Complete a signal as the command processor does: decrement its value,
/// write its event id to its mailbox and raise the event.
fn complete(kfd: &Kfd, signal: u64) {
    let was = signal_value(signal).fetch_sub(1, Ordering::AcqRel);
    let event = notify(kfd, signal);
    trace!("signal 0x{signal:x}: {was} -> {}{event}", was - 1);
}

/// Report a queue error as the trap handler does: the error code stored in
/// the queue's `queue_inactive_signal`, whose waiter (ROCr's queue error
/// handler) is woken through the signal's event.
fn queue_error(kfd: &Kfd, ring: &Ring, code: i64) {
    let signal = load_u64(ring.amd_queue() + QUEUE_INACTIVE_SIGNAL_AT);
    if signal == 0 {
        warn!("queue {}: no queue_inactive_signal to report error 0x{code:x} to", ring.id);
        return;
    }
    // Said before the runtime hears it: its handler may abort the process.
    warn!("queue {}: error 0x{code:x} reported through queue_inactive_signal 0x{signal:x}", ring.id);
    signal_value(signal).store(code, Ordering::Release);
    notify(kfd, signal);
}

/// Write a signal's event id to its mailbox and raise the event (nothing for
/// a signal without a mailbox); the text names the event for a trace.
fn notify(kfd: &Kfd, signal: u64) -> String {
    let mailbox = load_u64(signal + SIGNAL_MAILBOX_AT);
    if mailbox == 0 {
        return String::new();
    }
    // SAFETY: the signal's event id field (see the note on process memory).
    let id = unsafe { (*((signal + SIGNAL_EVENT_ID_AT) as *const AtomicU32)).load(Ordering::Acquire) };
    store_u64(mailbox, u64::from(id));
    kfd.signal_event(id);
    format!(", event {id}")
}
