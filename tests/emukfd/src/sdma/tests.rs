//! The engine over a ring in this process's memory and memory objects of
//! plain words: every packet ROCr sends does what it says, in order, and
//! what the engine does not execute stops the queue with a fault the
//! runtime would hear, never a hang.

use super::generation::of_gfx_version;
use super::packet::build::*;
use super::*;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use xad_harness::platform::emu::memory::{Backing, Words};

struct Object(Box<[AtomicU32]>);

impl Backing for Object {
    fn words(&self) -> &[AtomicU32] {
        &self.0
    }
}

/// Memory objects at GPU addresses of the test's choosing (only reached
/// through the host, never dereferenced), and what the engine raised.
#[derive(Default)]
struct Host {
    objects: Vec<(u64, Arc<Object>)>,
    events: Mutex<Vec<u32>>,
    faults: Mutex<Vec<u64>>,
}

impl Host {
    fn with(objects: &[(u64, &[u32])]) -> Host {
        let objects = objects
            .iter()
            .map(|&(base, words)| (base, Arc::new(Object(words.iter().map(|&w| AtomicU32::new(w)).collect()))))
            .collect();
        Host { objects, ..Host::default() }
    }

    fn word(&self, addr: u64) -> u32 {
        let (buffer, offset) = self.mapped(addr, 4).expect("a mapped word");
        buffer.load_u32(offset)
    }

    fn faults(&self) -> Vec<u64> {
        self.faults.lock().unwrap().clone()
    }
}

impl EngineHost for Host {
    fn mapped(&self, addr: u64, len: u64) -> Option<(Buffer, u64)> {
        let (base, object) = self.objects.iter().find(|(base, o)| *base <= addr && addr + len <= base + 4 * o.0.len() as u64)?;
        let bytes = 4 * object.0.len() as u64;
        Some((Buffer { words: Words::Borrowed(object.clone()), bytes }, addr - base))
    }
    fn signal_event(&self, id: u32) -> bool {
        self.events.lock().unwrap().push(id);
        true
    }
    fn clock(&self) -> u64 {
        0x1_2345_6789
    }
    fn memory_fault(&self, address: u64) {
        self.faults.lock().unwrap().push(address);
    }
    fn sdma_flip(&self, _src: u64, _bytes: u64) -> Option<(u32, u32, u64)> {
        None
    }
}

const RING_DWORDS: usize = 256;

/// What one engine run left: its read pointer, and the ring's address.
struct Ran {
    read: u64,
    ring_base: u64,
}

/// Run an engine of gfx1030's family (SDMA v5.2) over `packets`, published
/// with one doorbell write of `doorbell` (their length when `None`), until
/// it has read them all or stopped; `meanwhile` runs on this thread while
/// the engine works.
fn run(host: &Host, packets: &[Vec<u32>], doorbell: Option<u64>, meanwhile: impl FnOnce(&AtomicU64)) -> Ran {
    let words: Vec<u32> = packets.concat();
    assert!(words.len() <= RING_DWORDS);
    let ring: Vec<AtomicU32> = (0..RING_DWORDS).map(|i| AtomicU32::new(words.get(i).copied().unwrap_or(0))).collect();
    let published = 4 * words.len() as u64;
    let (read, write) = (AtomicU64::new(0), AtomicU64::new(published));
    let rung = AtomicU64::new(doorbell.unwrap_or(published));
    let stop = AtomicBool::new(false);
    let sdma_ring = SdmaRing {
        id: 1,
        gpu: 0,
        base: ring.as_ptr() as u64,
        bytes: 4 * RING_DWORDS as u64,
        write_ptr: &write as *const AtomicU64 as u64,
        read_ptr: &read as *const AtomicU64 as u64,
        generation: of_gfx_version(100300).expect("gfx1030 has SDMA"),
    };
    std::thread::scope(|scope| {
        let engine = scope.spawn(|| Engine { host, ring: sdma_ring, stop: &stop }.run(&rung as *const AtomicU64 as u64));
        meanwhile(&read);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !engine.is_finished() && read.load(Ordering::Acquire) < published && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        stop.store(true, Ordering::Release);
    });
    Ran { read: read.load(Ordering::Acquire), ring_base: ring.as_ptr() as u64 }
}

const SRC: u64 = 0x7f00_0000_1000;
const DST: u64 = 0x7f00_0000_2000;
const SIGNAL: u64 = 0x7f00_0000_3000;
const MAILBOX: u64 = 0x7f00_0000_4000;
const FILLED: u64 = 0x7f00_0000_5000;
const STAMP: u64 = 0x7f00_0000_6000;

fn objects() -> Host {
    let src: Vec<u32> = (0..16).map(|i| 0x1000_0001u32.wrapping_mul(i + 3)).collect();
    Host::with(&[(SRC, &src), (DST, &[0; 16]), (SIGNAL, &[1, 0]), (MAILBOX, &[0]), (FILLED, &[0; 9]), (STAMP, &[0, 0])])
}

#[test]
fn a_copy_and_its_completion_run_in_order_as_rocr_sends_them() {
    let host = objects();
    let packets = [
        gcr_write_back(),
        copy(SRC + 4, DST + 8, 15 * 4 - 4),
        gcr_write_back(),
        decrement(SIGNAL),
        fence(MAILBOX, 7),
        trap(7),
        fill(FILLED, 0xdead_beef, 8),
        timestamp(STAMP),
        nops(3),
    ];
    let ran = run(&host, &packets, None, |_| {});
    assert_eq!(ran.read, 4 * packets.concat().len() as u64);
    assert!(host.faults().is_empty(), "{:x?}", host.faults());
    // 14 words from SRC word 1 on, at DST word 2; the rest untouched.
    for i in 0..16u64 {
        let want = if (2..16).contains(&i) { host.word(SRC + 4 * (i - 1)) } else { 0 };
        assert_eq!(host.word(DST + 4 * i), want, "DST word {i}");
    }
    assert_eq!((host.word(SIGNAL), host.word(SIGNAL + 4)), (0, 0), "the signal decremented from 1");
    assert_eq!(host.word(MAILBOX), 7);
    assert_eq!(*host.events.lock().unwrap(), [7]);
    assert!((0..8).all(|i| host.word(FILLED + 4 * i) == 0xdead_beef) && host.word(FILLED + 32) == 0);
    assert_eq!((host.word(STAMP), host.word(STAMP + 4)), (0x2345_6789, 1));
}

#[test]
fn a_decrement_borrows_across_the_signals_two_words() {
    let host = Host::with(&[(SIGNAL, &[0, 1])]);
    run(&host, &[decrement(SIGNAL)], None, |_| {});
    assert_eq!((host.word(SIGNAL), host.word(SIGNAL + 4)), (u32::MAX, 0));
}

#[test]
fn a_poll_holds_the_queue_until_the_word_matches() {
    let host = objects();
    let packets = [poll_equal(SIGNAL, 0), fence(MAILBOX, 5)];
    let ran = run(&host, &packets, None, |read| {
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(read.load(Ordering::Acquire), 0, "passed the poll before the word matched");
        assert_eq!(host.word(MAILBOX), 0);
        let (signal, at) = host.mapped(SIGNAL, 4).unwrap();
        signal.store_u32(at, 0);
    });
    assert_eq!(ran.read, 4 * packets.concat().len() as u64);
    assert_eq!(host.word(MAILBOX), 5);
}

#[test]
fn a_packet_the_engine_does_not_execute_stops_the_queue_as_a_fault_at_its_ring_address() {
    let host = objects();
    // WRITE (opcode 2) after a NOP, then a fence that must not run.
    let ran = run(&host, &[vec![0], vec![2, 0, 0, 0, 0], fence(MAILBOX, 9)], None, |_| {});
    assert_eq!(ran.read, 4, "the read pointer stays at the refused packet");
    assert_eq!(host.faults(), [ran.ring_base + 4]);
    assert_eq!(host.word(MAILBOX), 0);
}

#[test]
fn a_copy_outside_every_mapped_object_is_a_memory_fault_at_that_address() {
    let host = objects();
    // The source runs 4 bytes past its object's end.
    let ran = run(&host, &[copy(SRC + 4, DST, 64), fence(MAILBOX, 9)], None, |_| {});
    assert_eq!(ran.read, 0);
    assert_eq!(host.faults(), [SRC + 4]);
    assert_eq!((host.word(DST), host.word(MAILBOX)), (0, 0), "nothing copied, nothing after it ran");
}

#[test]
fn a_packet_cut_off_by_the_write_pointer_is_refused() {
    let host = objects();
    // The doorbell publishes 3 of the copy's 7 dwords.
    let ran = run(&host, &[copy(SRC, DST, 4)], Some(12), |_| {});
    assert_eq!(ran.read, 0);
    assert_eq!(host.faults(), [ran.ring_base]);
    assert_eq!(host.word(DST), 0);
}

#[test]
fn a_doorbell_past_the_ring_is_refused() {
    let host = objects();
    let ran = run(&host, &[fence(MAILBOX, 9)], Some(8 * RING_DWORDS as u64), |_| {});
    assert_eq!(ran.read, 0);
    assert_eq!(host.faults(), [ran.ring_base]);
    assert_eq!(host.word(MAILBOX), 0);
}
