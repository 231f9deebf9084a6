//! The run pipeline (inputs -> model -> poison -> launch -> compare) checked
//! against a host-memory test fixture whose "kernel" is a Rust closure, so the
//! classification logic is tested independently of the emulator: chunk
//! boundaries, global lane indices, unwritten vs wrong, guards, faults.

use crate::common::HostMemory;

use std::time::Duration;
use xad_harness::model::cases::{self, Case};
use xad_harness::pipeline::guard::Side;
use xad_harness::pipeline::handle;
use xad_harness::pipeline::run::{self, Options, Status};
use xad_harness::platform::device::*;

/// The fixture's "kernel": (a, b, c, out, bytes after out) for one dispatch.
type Kernel = fn(&[u32], &[u32], &[u32], &mut [u32], &mut [u8]);

/// A test-only device: memory is host vectors; launch runs `kernel` over the
/// buffers the kernarg points at. `rear` gives the kernel the bytes after `out`.
struct Fixture {
    mem: HostMemory,
    kernel: Kernel,
    launches: usize,
    fail_launch: Option<usize>,
}

impl Fixture {
    fn new(kernel: Kernel) -> Fixture {
        Fixture {
            mem: HostMemory::default(),
            kernel,
            launches: 0,
            fail_launch: None,
        }
    }
}

impl Device for Fixture {
    fn executor(&self) -> Executor {
        Executor::Emulated {
            arch: "gfx1100 (pipeline test fixture)".into(),
        }
    }
    fn arch_name(&self) -> String {
        "gfx1100".into()
    }
    fn memory_bytes(&self) -> u64 {
        1 << 30
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        Ok(self.mem.alloc(bytes))
    }
    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.mem.free(ptr);
        Ok(())
    }
    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        self.mem.write(dst, src);
        Ok(())
    }
    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        self.mem.read(src, dst);
        Ok(())
    }
    fn load(&mut self, _image: &[u8]) -> Result<ModuleId, DeviceError> {
        Ok(ModuleId(0))
    }
    fn launch(
        &mut self,
        _m: ModuleId,
        _k: &str,
        kernarg: &[u8],
        _d: Dispatch,
        _t: Duration,
    ) -> Result<(), DeviceError> {
        self.launches += 1;
        if self.fail_launch == Some(self.launches) {
            return Err(DeviceError::Runtime {
                call: "launch".into(),
                code: 719,
                name: "hipErrorLaunchFailure".into(),
                description: "injected".into(),
            });
        }
        let ptr = |i: usize| u64::from_le_bytes(kernarg[i * 8..i * 8 + 8].try_into().unwrap());
        let n = u32::from_le_bytes(kernarg[32..36].try_into().unwrap()) as usize;
        let (a, b, c) = (
            self.mem.words(ptr(0), n),
            self.mem.words(ptr(1), n),
            self.mem.words(ptr(2), n),
        );
        let (out, rear) = self.mem.bytes_at(ptr(3)).split_at_mut(n * 4);
        let mut words: Vec<u32> = bytemuck::cast_slice(out).to_vec();
        (self.kernel)(&a, &b, &c, &mut words, rear);
        out.copy_from_slice(bytemuck::cast_slice(&words));
        Ok(())
    }
}

fn basic() -> Case {
    cases::select("basic").unwrap().remove(0)
}

fn run_with(
    kernel: Kernel,
    lanes: u64,
    chunk: usize,
    fail_launch: Option<usize>,
) -> run::CaseResult {
    let case = basic();
    let loaded = run::embedded(
        &case,
        xad_harness::platform::target::find("gfx1100").unwrap(),
    )
    .unwrap();
    let k = run::kernel_for(&loaded, &case).unwrap();
    let mut dev = Fixture::new(kernel);
    dev.fail_launch = fail_launch;
    let opts = Options {
        lanes,
        seed: 11,
        chunk_lanes: chunk,
        keep: 5,
        ..Options::default()
    };
    run::run_case(
        &mut dev,
        &case,
        &loaded.code,
        k,
        loaded.source.clone(),
        &opts,
    )
}

fn correct(a: &[u32], b: &[u32], c: &[u32], out: &mut [u32], _: &mut [u8]) {
    for i in 0..out.len() {
        out[i] = cases::xad(a[i], b[i], c[i]);
    }
}

#[test]
fn correct_kernel_passes_across_chunks() {
    let r = run_with(correct, 300_001, 1 << 16, None);
    assert_eq!(r.status(), Status::Pass, "{:?}", r.error);
    assert_eq!(r.tally.lanes_checked, 300_001);
}

#[test]
fn failures_carry_global_lane_indices_across_chunks() {
    // Lane 70_000 of the run is lane 4_464 of the second 65_536-lane chunk.
    fn flip(a: &[u32], b: &[u32], c: &[u32], out: &mut [u32], r: &mut [u8]) {
        correct(a, b, c, out, r);
        if out.len() == 65_536 {
            out[4_464] ^= 1 << 7; // every full chunk flips its lane 4_464, bit 7
        }
    }
    let r = run_with(flip, 2 * 65_536 + 10, 1 << 16, None);
    assert_eq!(r.status(), Status::Fail);
    assert_eq!(r.tally.lanes_failed, 2);
    let lanes: Vec<u64> = r.tally.first.iter().map(|m| m.lane).collect();
    assert_eq!(lanes, vec![4_464, 65_536 + 4_464]);
    assert_eq!(r.tally.first[0].diff_bits(), 1 << 7);
}

#[test]
fn untouched_output_is_unwritten_everywhere() {
    fn nothing(_: &[u32], _: &[u32], _: &[u32], _: &mut [u32], _: &mut [u8]) {}
    let r = run_with(nothing, 1000, 1 << 16, None);
    assert_eq!(
        (r.tally.lanes_failed, r.tally.lanes_unwritten),
        (1000, 1000)
    );
}

#[test]
fn a_kernel_writing_zeros_is_wrong_not_unwritten() {
    // Zero is a plausible "poison" a weaker harness might use; ours poisons with
    // a scrambled copy of the expected value. A kernel writing zeros passes only
    // lanes expecting 0, and looks unwritten only where 0 is the poison
    // (lanes expecting POISON_XOR): count both exactly from the seed's inputs.
    fn zeros(_: &[u32], _: &[u32], _: &[u32], out: &mut [u32], _: &mut [u8]) {
        out.iter_mut().for_each(|o| *o = 0);
    }
    let n = 5000;
    let (mut a, mut b, mut c) = (vec![0; n], vec![0; n], vec![0; n]);
    xad_harness::model::inputs::fill_sources(11, 0, &mut a, &mut b, &mut c);
    let expected: Vec<u32> = (0..n).map(|i| cases::xad(a[i], b[i], c[i])).collect();
    let r = run_with(zeros, n as u64, 1 << 16, None);
    assert_eq!(r.status(), Status::Fail);
    assert_eq!(
        r.tally.lanes_failed,
        expected.iter().filter(|&&e| e != 0).count() as u64
    );
    assert_eq!(
        r.tally.lanes_unwritten,
        expected
            .iter()
            .filter(|&&e| e == xad_harness::model::check::POISON_XOR)
            .count() as u64
    );
}

#[test]
fn rear_guard_catches_a_write_past_the_end_of_the_last_short_chunk() {
    fn past_end(a: &[u32], b: &[u32], c: &[u32], out: &mut [u32], rear: &mut [u8]) {
        correct(a, b, c, out, rear);
        if out.len() < 65_536 {
            rear[8] ^= 0xff; // 8 bytes past the end of the final, shorter chunk
        }
    }
    let r = run_with(past_end, 65_536 + 100, 1 << 16, None);
    assert_eq!(r.status(), Status::Fail);
    assert_eq!(r.guard_violations.len(), 1);
    let v = &r.guard_violations[0];
    assert_eq!(
        (v.buffer.as_str(), v.side, v.nearest_offset),
        ("out", Side::After, 8)
    );
    // Word 2 past the short chunk's 100 lanes would be lane 65638 of a
    // 65636-lane run: no lane addresses it, so none is named.
    assert_eq!(
        (v.word, v.lane, v.lanes.clone()),
        (100 + 2, None, 65_536..65_636),
        "word 2 past the short chunk's 100 lanes"
    );
}

#[test]
fn a_device_error_mid_run_keeps_the_lanes_already_checked() {
    let r = run_with(correct, 3 * 65_536, 1 << 16, Some(2));
    assert_eq!(r.status(), Status::Error);
    assert_eq!(r.tally.lanes_checked, 65_536);
    assert!(
        r.error
            .as_ref()
            .unwrap()
            .to_string()
            .contains("hipErrorLaunchFailure (719)"),
        "{:?}",
        r.error
    );
}

#[test]
fn wrong_target_is_refused_before_launch() {
    let loaded = run::embedded(
        &basic(),
        xad_harness::platform::target::find("gfx1100").unwrap(),
    )
    .unwrap();
    let e = handle::check_target(&loaded.code, "gfx1030").unwrap_err();
    assert!(
        e.to_string().contains("gfx1100") && e.to_string().contains("gfx1030"),
        "{e}"
    );
    assert!(handle::check_target(&loaded.code, "gfx1100:sramecc-:xnack-").is_ok());
}
