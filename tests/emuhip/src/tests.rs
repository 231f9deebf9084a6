//! The runtime's decisions over a fake device whose "kernel" is the CPU model of
//! xad_basic, so statuses, kernarg packing, streams and every fault knob are
//! tested without the emulator. The real library over the real emulator is
//! tested end to end in tests/emuhip/tests/ and tests/hip/emuhip_e2e.rs.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use xad_harness::platform::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};

use crate::knobs::Knobs;
use crate::runtime::{KernargSource, Runtime, Stop};
use crate::status;

#[derive(Default)]
struct FakeState {
    memory: BTreeMap<DevicePtr, Vec<u8>>,
    next: DevicePtr,
    modules: usize,
    launches: Vec<(String, Vec<u8>, Dispatch)>,
    fail_launch: Option<DeviceError>,
    /// The next launch waits for a message here before it runs (a long
    /// kernel), and records whether one came.
    launch_gate: Option<std::sync::mpsc::Receiver<()>>,
    gate_opened: Option<bool>,
}

#[derive(Clone, Default)]
struct FakeDevice(Arc<Mutex<FakeState>>);

impl FakeDevice {
    fn state(&self) -> std::sync::MutexGuard<'_, FakeState> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn locate(
    memory: &mut BTreeMap<DevicePtr, Vec<u8>>,
    addr: DevicePtr,
    len: usize,
) -> Result<&mut [u8], DeviceError> {
    let (base, bytes) = memory
        .range_mut(..=addr)
        .next_back()
        .ok_or_else(|| DeviceError::MemoryFault(format!("0x{addr:x}")))?;
    let start = (addr - *base) as usize;
    bytes
        .get_mut(start..start + len)
        .ok_or_else(|| DeviceError::MemoryFault(format!("0x{addr:x}+{len}")))
}

impl Device for FakeDevice {
    fn executor(&self) -> Executor {
        Executor::Emulated {
            arch: "gfx1100".into(),
        }
    }
    fn arch_name(&self) -> String {
        "gfx1100".into()
    }
    fn memory_bytes(&self) -> u64 {
        1 << 30
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        let mut s = self.state();
        if bytes > 1 << 30 {
            return Err(DeviceError::Emulation("too big".into()));
        }
        let addr = 0x1_0000_0000 + s.next;
        s.next += (bytes as u64 + 0xfff) & !0xfff;
        s.next += 0x1000; // a gap, so "past the end" of the last allocation is unmapped
        s.memory.insert(addr, vec![0xEE; bytes]);
        Ok(addr)
    }
    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.state()
            .memory
            .remove(&ptr)
            .map(|_| ())
            .ok_or(DeviceError::MemoryFault("free".into()))
    }
    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        locate(&mut self.state().memory, dst, src.len())?.copy_from_slice(src);
        Ok(())
    }
    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        dst.copy_from_slice(locate(&mut self.state().memory, src, dst.len())?);
        Ok(())
    }
    fn load(&mut self, _image: &[u8]) -> Result<ModuleId, DeviceError> {
        let mut s = self.state();
        s.modules += 1;
        Ok(ModuleId(s.modules - 1))
    }
    fn launch(
        &mut self,
        _m: ModuleId,
        kernel: &str,
        kernarg: &[u8],
        dispatch: Dispatch,
        _t: Duration,
    ) -> Result<(), DeviceError> {
        let gate = self.state().launch_gate.take();
        if let Some(gate) = gate {
            let opened = gate.recv_timeout(Duration::from_secs(20)).is_ok();
            self.state().gate_opened = Some(opened);
        }
        let mut s = self.state();
        s.launches
            .push((kernel.to_string(), kernarg.to_vec(), dispatch));
        if let Some(e) = s.fail_launch.clone() {
            return Err(e);
        }
        // xad_basic's ABI: a, b, c, out at 0/8/16/24, count at 32.
        let ptr = |at: usize| u64::from_le_bytes(kernarg[at..at + 8].try_into().unwrap_or([0; 8]));
        let count = u32::from_le_bytes(kernarg[32..36].try_into().unwrap_or([0; 4]));
        let lanes = u64::from(dispatch.grid_blocks[0]) * u64::from(dispatch.block[0]);
        for i in 0..u64::from(count).min(lanes) {
            let mut word = |base: u64| -> Result<u32, DeviceError> {
                let b = locate(&mut s.memory, base + 4 * i, 4)?;
                Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            };
            let d = (word(ptr(0))? ^ word(ptr(8))?).wrapping_add(word(ptr(16))?);
            locate(&mut s.memory, ptr(24) + 4 * i, 4)?.copy_from_slice(&d.to_le_bytes());
        }
        Ok(())
    }
}

fn image() -> &'static [u8] {
    xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .expect("xad_basic embedded")
        .bytes
}

fn xad(a: u32, b: u32, c: u32) -> u32 {
    (a ^ b).wrapping_add(c)
}

/// A run of xad_basic the way the harness does it: guards around the output.
struct Run {
    rt: Runtime,
    dev: FakeDevice,
    function: usize,
    bufs: [DevicePtr; 4],
    /// Address of lane 0 of the output (after a 64-byte front guard).
    out: DevicePtr,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
}

const GUARD: usize = 64;
const GUARD_BYTE: u8 = 0x5A;

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The default knobs with `set` applied to the launch knobs.
fn with_launch(set: impl FnOnce(&mut xad_harness::platform::device::inject::Knobs)) -> Knobs {
    let mut knobs = Knobs::default();
    set(&mut knobs.launch);
    knobs
}

fn setup(knobs: Knobs, lanes: usize) -> Run {
    let dev = FakeDevice::default();
    let mut rt = Runtime::new(Box::new(dev.clone()), knobs);
    rt.notes = false;
    let module = rt.module_load(image()).expect("load");
    let function = rt.get_function(module, "xad_basic").expect("function");
    let a: Vec<u32> = (0..lanes as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9))
        .collect();
    let b: Vec<u32> = (0..lanes as u32).map(|i| !i).collect();
    let c: Vec<u32> = (0..lanes as u32).map(|i| i << 7 | 1).collect();
    let mut bufs = [0; 4];
    for (i, data) in [&a, &b, &c].into_iter().enumerate() {
        bufs[i] = rt.malloc(lanes * 4).expect("malloc").expect("non-null");
        rt.copy_htod(bufs[i], &words(data)).expect("copy");
    }
    bufs[3] = rt
        .malloc(lanes * 4 + 2 * GUARD)
        .expect("malloc")
        .expect("non-null");
    rt.copy_htod(bufs[3], &vec![GUARD_BYTE; lanes * 4 + 2 * GUARD])
        .expect("guards");
    let out = bufs[3] + GUARD as u64;
    Run {
        rt,
        dev,
        function,
        bufs,
        out,
        a,
        b,
        c,
    }
}

impl Run {
    fn kernarg(&self, count: u32) -> Vec<u8> {
        let mut k = vec![0u8; 40];
        for (i, p) in [self.bufs[0], self.bufs[1], self.bufs[2], self.out]
            .iter()
            .enumerate()
        {
            k[i * 8..i * 8 + 8].copy_from_slice(&p.to_le_bytes());
        }
        k[32..36].copy_from_slice(&count.to_le_bytes());
        k
    }
    fn launch(&mut self, count: u32) -> Result<(), Stop> {
        let grid = count.div_ceil(256);
        self.rt.launch(
            self.function,
            [grid, 1, 1],
            [256, 1, 1],
            0,
            0,
            KernargSource::Buffer(self.kernarg(count)),
        )
    }
    /// The whole output allocation: front guard, lanes, rear guard.
    fn output(&mut self) -> Vec<u8> {
        let lanes = self.a.len();
        let mut bytes = vec![0u8; lanes * 4 + 2 * GUARD];
        self.rt
            .copy_dtoh(&mut bytes, self.bufs[3])
            .expect("read back");
        bytes
    }
    fn lane(&mut self, i: usize) -> u32 {
        let o = self.output();
        let at = GUARD + 4 * i;
        u32::from_le_bytes([o[at], o[at + 1], o[at + 2], o[at + 3]])
    }
    fn expected(&self, i: usize) -> u32 {
        xad(self.a[i], self.b[i], self.c[i])
    }
}

#[test]
fn pass_path_computes_every_lane_and_leaves_guards() {
    let mut run = setup(Knobs::default(), 300);
    run.launch(300).expect("launch");
    assert_eq!(run.rt.stream_synchronize(0), Ok(()));
    for i in 0..300 {
        assert_eq!(run.lane(i), run.expected(i), "lane {i}");
    }
    let o = run.output();
    assert!(
        o[..GUARD]
            .iter()
            .chain(&o[GUARD + 1200..])
            .all(|&b| b == GUARD_BYTE),
        "guards untouched"
    );
}

#[test]
fn kernarg_segment_takes_explicit_args_and_dispatch_uses_reqd_workgroup_size() {
    let mut run = setup(Knobs::default(), 8);
    let count = 8;
    // blockDim 64 is overridden by xad_basic's .reqd_workgroup_size [256,1,1].
    run.rt
        .launch(
            run.function,
            [1, 1, 1],
            [64, 1, 1],
            0,
            0,
            KernargSource::Buffer(run.kernarg(count)),
        )
        .expect("launch");
    let launches = &run.dev.state().launches;
    let (name, kernarg, dispatch) = &launches[0];
    assert_eq!(name, "xad_basic");
    assert_eq!(dispatch.block, [256, 1, 1]);
    // The pointers arrive without the device tag the runtime put on them
    // (the emulator's own addresses); everything else as the caller passed it.
    let mut expected = run.kernarg(count);
    for at in [0, 8, 16, 24] {
        expected[at + 6..at + 8].copy_from_slice(&[0, 0]);
    }
    assert_ne!(expected, run.kernarg(count), "tagged pointers");
    assert_eq!(&kernarg[..36], &expected[..36]);
    // Bytes 36..40 are padding the metadata does not describe: uninitialised.
    assert_eq!(&kernarg[36..40], &[0xA5; 4]);
}

#[test]
fn kernel_params_form_builds_the_same_segment() {
    let mut run = setup(Knobs::default(), 4);
    let k = run.kernarg(4);
    let params = vec![
        k[0..8].to_vec(),
        k[8..16].to_vec(),
        k[16..24].to_vec(),
        k[24..32].to_vec(),
        k[32..36].to_vec(),
    ];
    run.rt
        .launch(
            run.function,
            [1, 1, 1],
            [256, 1, 1],
            0,
            0,
            KernargSource::Params(params),
        )
        .expect("launch");
    for i in 0..4 {
        assert_eq!(run.lane(i), run.expected(i), "lane {i}");
    }
}

#[test]
fn launch_argument_errors() {
    let mut run = setup(Knobs::default(), 4);
    let k = run.kernarg(4);
    let f = run.function;
    let bad = |rt: &mut Runtime, f, grid, block, args| rt.launch(f, grid, block, 0, 0, args);
    let invalid = Err(Stop::Status(status::INVALID_VALUE));
    // Size must be the explicit extent (36) or the segment (40).
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [1, 1, 1],
            [256, 1, 1],
            KernargSource::Buffer(k[..32].to_vec())
        ),
        invalid
    );
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [1, 1, 1],
            [256, 1, 1],
            KernargSource::Buffer(vec![0; 48])
        ),
        invalid
    );
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [1, 1, 1],
            [256, 1, 1],
            KernargSource::Buffer(k[..36].to_vec())
        ),
        Ok(())
    );
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [0, 1, 1],
            [256, 1, 1],
            KernargSource::Buffer(k.clone())
        ),
        invalid
    );
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [1, 1, 1],
            [512, 1, 1],
            KernargSource::Buffer(k.clone())
        ),
        invalid
    );
    assert_eq!(
        bad(
            &mut run.rt,
            f,
            [1, 1, 1],
            [256, 1, 1],
            KernargSource::Params(vec![vec![0; 8]])
        ),
        invalid
    );
    assert_eq!(
        bad(
            &mut run.rt,
            0x1234,
            [1, 1, 1],
            [256, 1, 1],
            KernargSource::Buffer(k.clone())
        ),
        Err(Stop::Status(status::INVALID_HANDLE))
    );
    assert_eq!(
        run.rt.launch(
            f,
            [1, 1, 1],
            [256, 1, 1],
            0,
            0xdead0,
            KernargSource::Buffer(k)
        ),
        Err(Stop::Status(status::INVALID_HANDLE))
    );
}

#[test]
fn module_and_function_errors() {
    let mut run = setup(Knobs::default(), 4);
    let module = run.rt.module_load(image()).expect("second load");
    assert_eq!(
        run.rt.get_function(module, "no_such_kernel"),
        Err(Stop::Status(status::NOT_FOUND))
    );
    assert_eq!(
        run.rt.get_function(0x42, "xad_basic"),
        Err(Stop::Status(status::INVALID_HANDLE))
    );
    assert_eq!(
        run.rt
            .module_load(b"\x7fELF garbage that is not a code object"),
        Err(Stop::Status(status::INVALID_IMAGE))
    );
    let f = run.rt.get_function(module, "xad_basic").expect("function");
    assert_eq!(run.rt.module_unload(module), Ok(()));
    assert_eq!(
        run.rt.module_unload(module),
        Err(Stop::Status(status::INVALID_HANDLE))
    );
    // A function of an unloaded module is gone with it.
    assert!(run.rt.function_meta(f).is_err());
}

#[test]
fn memory_errors() {
    let mut run = setup(Knobs::default(), 4);
    assert_eq!(run.rt.malloc(0), Ok(None));
    let p = run.rt.malloc(16).expect("malloc").expect("non-null");
    assert_eq!(
        run.rt.copy_htod(p + 8, &[0; 16]),
        Err(Stop::Status(status::INVALID_VALUE)),
        "overrun"
    );
    assert_eq!(
        run.rt.copy_htod(0x10, &[0; 4]),
        Err(Stop::Status(status::INVALID_VALUE)),
        "unmapped"
    );
    assert_eq!(run.rt.free(p), Ok(()));
    assert_eq!(
        run.rt.free(p),
        Err(Stop::Status(status::INVALID_VALUE)),
        "double free"
    );
    assert_eq!(run.rt.free(0), Ok(()), "free(NULL)");
    assert_eq!(
        run.rt.malloc(usize::MAX),
        Err(Stop::Status(status::OUT_OF_MEMORY))
    );
}

#[test]
fn properties_name_says_emulated_and_arch_knob_changes_it() {
    let run = setup(Knobs::default(), 1);
    let p = run.rt.properties();
    assert_eq!(p.name, "xad-harness emulated gfx1100");
    assert_eq!((p.arch.as_str(), p.gcn_arch), ("gfx1100", 1100));
    assert_eq!(p.total_global_mem, 1 << 30);
    assert_eq!(p.pci, (0, 3, 0));

    let knobs = Knobs {
        devices: vec!["gfx1030".into()],
        ..Knobs::default()
    };
    let mut rt = Runtime::new(Box::new(FakeDevice::default()), knobs);
    rt.notes = false;
    let p = rt.properties();
    assert_eq!((p.arch.as_str(), p.gcn_arch), ("gfx1030", 1030));
    assert_eq!(p.name, "xad-harness emulated gfx1030");
    assert_eq!(
        rt.module_load(image()),
        Err(Stop::Status(status::NO_BINARY_FOR_GPU))
    );
}

#[test]
fn flip_bit_changes_exactly_one_bit_of_one_lane_on_the_first_launch_only() {
    let mut run = setup(with_launch(|k| k.flip_bit = Some((5, 31))), 16);
    run.launch(16).expect("launch");
    for i in 0..16 {
        let want = if i == 5 {
            run.expected(i) ^ (1 << 31)
        } else {
            run.expected(i)
        };
        assert_eq!(run.lane(i), want, "lane {i}");
    }
    run.launch(16).expect("second launch");
    assert_eq!(run.lane(5), run.expected(5), "second launch is clean");
}

#[test]
fn flip_bit_outside_the_first_launch_is_not_applied() {
    let mut run = setup(with_launch(|k| k.flip_bit = Some((20, 0))), 32);
    run.launch(16).expect("launch");
    for i in 0..16 {
        assert_eq!(run.lane(i), run.expected(i), "lane {i}");
    }
}

#[test]
fn skip_lane_leaves_previous_contents() {
    let mut run = setup(with_launch(|k| k.skip_lane = Some(3)), 8);
    run.launch(8).expect("launch");
    assert_eq!(
        run.lane(3),
        u32::from_le_bytes([GUARD_BYTE; 4]),
        "lane 3 unwritten"
    );
    assert_eq!(run.lane(2), run.expected(2));
    assert_eq!(run.lane(4), run.expected(4));
}

#[test]
fn write_past_end_lands_in_rear_guard_only() {
    let mut run = setup(with_launch(|k| k.write_past_end = Some(2)), 8);
    run.launch(8).expect("launch");
    assert_eq!(run.rt.stream_synchronize(0), Ok(()));
    let o = run.output();
    let rear = GUARD + 32;
    assert_eq!(
        &o[rear..rear + 8],
        &[!GUARD_BYTE; 8],
        "two words past the end complemented"
    );
    assert!(
        o[rear + 8..].iter().all(|&b| b == GUARD_BYTE),
        "rest of the guard intact"
    );
    assert!(
        o[..GUARD].iter().all(|&b| b == GUARD_BYTE),
        "front guard intact"
    );
    for i in 0..8 {
        assert_eq!(run.lane(i), run.expected(i), "lane {i}");
    }
}

#[test]
fn write_past_end_outside_every_allocation_is_a_memory_fault() {
    // Rear guard is 64 bytes; 17 words reach one word past the allocation.
    let mut run = setup(with_launch(|k| k.write_past_end = Some(17)), 8);
    run.launch(8)
        .expect("launch returns before the fault is known");
    assert_eq!(
        run.rt.stream_query(0),
        Err(Stop::Status(status::ILLEGAL_ADDRESS))
    );
    assert_eq!(
        run.rt.stream_synchronize(0),
        Err(Stop::Status(status::ILLEGAL_ADDRESS))
    );
}

#[test]
fn hang_never_completes_and_blocks_synchronisation() {
    let mut run = setup(with_launch(|k| k.hang = true), 8);
    let stream = run.rt.stream_create();
    let k = run.kernarg(8);
    assert_eq!(
        run.rt.launch(
            run.function,
            [1, 1, 1],
            [256, 1, 1],
            0,
            stream,
            KernargSource::Buffer(k)
        ),
        Ok(())
    );
    for _ in 0..3 {
        assert_eq!(
            run.rt.stream_query(stream),
            Err(Stop::Status(status::NOT_READY))
        );
    }
    assert_eq!(run.rt.stream_synchronize(stream), Err(Stop::Hang));
    assert_eq!(run.rt.device_synchronize(), Err(Stop::Hang));
    assert_eq!(run.rt.copy_dtoh(&mut [0; 4], run.out), Err(Stop::Hang));
    assert!(run.dev.state().launches.is_empty(), "the kernel never ran");
    // Teardown after the watchdog gives up does not block.
    assert_eq!(run.rt.free(run.bufs[0]), Ok(()));
    assert_eq!(run.rt.stream_destroy(stream), Ok(()));
}

#[test]
fn emulator_fault_is_reported_by_the_stream_not_the_launch() {
    let mut run = setup(Knobs::default(), 8);
    run.dev.state().fail_launch = Some(DeviceError::Emulation("unsupported instruction".into()));
    assert_eq!(run.launch(8), Ok(()));
    assert_eq!(
        run.rt.stream_query(0),
        Err(Stop::Status(status::LAUNCH_FAILURE))
    );
    assert_eq!(
        run.rt.device_synchronize(),
        Err(Stop::Status(status::LAUNCH_FAILURE))
    );
    let mut run = setup(Knobs::default(), 8);
    run.dev.state().fail_launch = Some(DeviceError::MemoryFault("0xdead".into()));
    assert_eq!(run.launch(8), Ok(()));
    assert_eq!(
        run.rt.stream_synchronize(0),
        Err(Stop::Status(status::ILLEGAL_ADDRESS))
    );
}

#[test]
fn emulator_memory_fault_is_an_illegal_address() {
    use xad_harness::platform::emu::{Fault, FaultKind};
    let mut run = setup(Knobs::default(), 8);
    let fault = Fault::new(FaultKind::MemoryFault, "address 0xdead, instruction at offset 0x0 (global_store_b32 v1, v2, s[0:1]), lane 0, store of 4 bytes");
    run.dev.state().fail_launch = Some(DeviceError::from(fault.with_lane(0).with_address(0xdead)));
    assert_eq!(run.launch(8), Ok(()));
    assert_eq!(
        run.rt.stream_synchronize(0),
        Err(Stop::Status(status::ILLEGAL_ADDRESS))
    );
    // Any other emulator fault is a launch failure.
    let mut run = setup(Knobs::default(), 8);
    run.dev.state().fail_launch = Some(DeviceError::from(Fault::new(
        FaultKind::StepBudget,
        "step budget of 1 instructions per wave exhausted",
    )));
    assert_eq!(run.launch(8), Ok(()));
    assert_eq!(
        run.rt.stream_synchronize(0),
        Err(Stop::Status(status::LAUNCH_FAILURE))
    );
}

#[test]
fn fail_alloc_hits_the_nth_call() {
    let knobs = Knobs {
        fail_alloc: Some(2),
        ..Knobs::default()
    };
    let mut rt = Runtime::new(Box::new(FakeDevice::default()), knobs);
    rt.notes = false;
    assert!(matches!(rt.malloc(4), Ok(Some(_))));
    assert_eq!(rt.malloc(4), Err(Stop::Status(status::OUT_OF_MEMORY)));
    assert!(matches!(rt.malloc(4), Ok(Some(_))));
}

#[test]
fn fail_copy_hits_the_nth_copy_in_either_direction() {
    let knobs = Knobs {
        fail_copy: Some((2, 719)),
        ..Knobs::default()
    };
    let mut rt = Runtime::new(Box::new(FakeDevice::default()), knobs);
    rt.notes = false;
    let p = rt.malloc(8).expect("malloc").expect("non-null");
    assert_eq!(rt.copy_htod(p, &[1; 8]), Ok(()));
    let mut back = [0u8; 8];
    assert_eq!(rt.copy_dtoh(&mut back, p), Err(Stop::Status(719)));
    assert_eq!(back, [0; 8], "a failed copy copies nothing");
    assert_eq!(rt.copy_dtoh(&mut back, p), Ok(()));
    assert_eq!(back, [1; 8]);
}

#[test]
fn forced_status_names_its_function() {
    let knobs = Knobs {
        forced_status: Some((912, "hipStreamQuery".into())),
        ..Knobs::default()
    };
    assert_eq!(knobs.forced_status("hipStreamQuery"), Some(912));
    assert_eq!(knobs.forced_status("hipModuleLaunchKernel"), None);
}

// ---- the C ABI, through the process-wide state (knobs unset in unit tests) ----

#[test]
fn exports_check_null_pointers_and_flags() {
    use crate::exports::*;
    use std::ptr::null_mut;
    // SAFETY: null pointers are part of the tested contract; the valid ones point at locals.
    unsafe {
        assert_eq!(hipInit(0), 0);
        assert_eq!(hipInit(0), 0, "idempotent");
        assert_eq!(hipInit(4), 1);
        assert_eq!(hipGetDeviceCount(null_mut()), 1);
        let mut n = -1;
        assert_eq!(hipGetDeviceCount(&mut n), 0);
        assert_eq!(n, 1);
        let mut v = 0;
        assert_eq!(hipRuntimeGetVersion(&mut v), 0);
        assert_eq!(v, crate::status::HIP_VERSION);
        assert_eq!(hipDriverGetVersion(null_mut()), 1);
        assert_eq!(hipMalloc(null_mut(), 16), 1);
        assert_eq!(hipModuleLoadData(null_mut(), image().as_ptr().cast()), 1);
        let mut module = null_mut();
        assert_eq!(
            hipModuleLoadData(&mut module, c"not an ELF file".as_ptr().cast()),
            200
        );
        assert_eq!(
            hipModuleGetFunction(null_mut(), module, c"xad_basic".as_ptr()),
            1
        );
        assert_eq!(hipStreamCreate(null_mut()), 1);
        assert_eq!(hipStreamDestroy(null_mut()), 400);
        assert_eq!(hipStreamQuery(0x77 as *mut _), 400);
        assert_eq!(hipSetDevice(3), 101);
        assert_eq!(hipGetDeviceProperties(null_mut(), 0), 1);
        let name = std::ffi::CStr::from_ptr(hipGetErrorName(912));
        assert_eq!(name.to_str().ok(), Some("hipErrorUnknown"));
    }
}

/// (size, gcnArchName offset, gcnArchName bytes) of props.c's layout `kind`.
fn layout(kind: i32) -> Option<(usize, usize, usize)> {
    let (mut size, mut offset, mut bytes) = (0, 0, 0);
    // SAFETY: three valid out-pointers.
    let known =
        unsafe { crate::exports::xad_emuhip_layout(kind, &mut size, &mut offset, &mut bytes) };
    (known != 0).then_some((size, offset, bytes))
}

/// The HIP major this build stands in for, from the SONAME build.rs chose.
fn major() -> u32 {
    let soname = env!("XAD_EMUHIP_SONAME");
    soname
        .strip_prefix("libamdhip64.so.")
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("SONAME {soname}"))
}

#[test]
fn struct_layouts_match_the_symbols_that_fill_them() {
    // R0000: the unversioned symbol (every version) and ...R0000 (6.x/7.x).
    assert_eq!(layout(0), Some((792, 396, 256)));
    // R0600 exists exactly where the header renames hipGetDeviceProperties.
    let r0600 = layout(1);
    if major() >= 6 {
        assert_eq!(r0600, Some((1472, 1160, 256)));
    } else {
        assert_eq!(r0600, None);
    }
    assert_eq!(layout(2), None);
    assert_eq!(
        u32::try_from(crate::status::HIP_VERSION / 10_000_000).ok(),
        Some(major())
    );
}

/// Call one hipGetDeviceProperties* export on a 0xFF-filled buffer of
/// `size + 64` bytes and check the name, the arch at `arch_offset`, and that
/// nothing past `size` was written (the export wrote its own layout only).
fn check_fill(
    export: unsafe extern "C" fn(*mut std::ffi::c_void, i32) -> i32,
    kind: i32,
    size: usize,
    arch_offset: usize,
) {
    let mut buf = vec![0xFFu8; size + 64];
    // SAFETY: buf is larger than the layout the export writes.
    assert_eq!(unsafe { export(buf.as_mut_ptr().cast(), 0) }, 0);
    let name = std::ffi::CStr::from_bytes_until_nul(&buf[..256]).expect("NUL-terminated name");
    assert_eq!(name.to_str().ok(), Some("xad-harness emulated gfx1100"));
    let arch = std::ffi::CStr::from_bytes_until_nul(&buf[arch_offset..arch_offset + 256])
        .expect("NUL-terminated arch");
    assert_eq!(arch.to_str().ok(), Some("gfx1100"));
    let (mut domain, mut bus, mut device) = (0, 0, 0);
    // SAFETY: three valid out-pointers.
    let known =
        unsafe { crate::exports::xad_emuhip_pci_offsets(kind, &mut domain, &mut bus, &mut device) };
    assert_eq!(known, 1, "layout {kind}");
    let int_at = |at: usize| i32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
    assert_eq!(
        (int_at(domain), int_at(bus), int_at(device)),
        (0, 3, 0),
        "pciDomainID, pciBusID, pciDeviceID of physical device 0"
    );
    assert!(
        buf[size..].iter().all(|&b| b == 0xFF),
        "wrote past {size} bytes"
    );
    assert!(
        buf[size - 4..size].iter().any(|&b| b != 0xFF),
        "left the last field alone"
    );
    // SAFETY: as above; device 1 does not exist.
    assert_eq!(unsafe { export(buf.as_mut_ptr().cast(), 1) }, 101);
}

#[test]
fn device_properties_fill_the_r0000_layout() {
    check_fill(crate::exports::hipGetDeviceProperties, 0, 792, 396);
    #[cfg(hip_r0600)]
    check_fill(crate::exports::hipGetDevicePropertiesR0000, 0, 792, 396);
}

#[cfg(hip_r0600)]
#[test]
fn device_properties_r0600_fill_the_rocm6_layout() {
    check_fill(crate::exports::hipGetDevicePropertiesR0600, 1, 1472, 1160);
}

/// Node -> symbols, as the version script build.rs generated lists them
/// (one `node {` per line, symbols one per line under `global:`).
fn script_nodes(map: &str) -> Vec<(String, Vec<String>)> {
    let mut nodes: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_global = false;
    for line in map.lines().map(str::trim) {
        if let Some((head, _)) = line.split_once('{') {
            nodes.push((head.trim().to_string(), Vec::new()));
            in_global = false;
        } else if line == "global:" {
            in_global = true;
        } else if line == "local:" || line.starts_with('}') {
            in_global = false;
        } else if let (true, Some((_, symbols))) = (in_global, nodes.last_mut()) {
            symbols.push(line.trim_end_matches(';').to_string());
        }
    }
    nodes
}

/// Every `versioned_exports!` list of this build: (node, symbols).
fn bound_exports() -> Vec<(&'static str, &'static [&'static str])> {
    #[cfg(hip_r0600)]
    return vec![
        crate::exports::EXPORTS,
        crate::exports::EXPORTS_R0000,
        crate::exports::EXPORTS_R0600,
    ];
    #[cfg(not(hip_r0600))]
    return vec![crate::exports::EXPORTS];
}

#[test]
fn version_script_lists_exactly_the_exports() {
    let map = include_str!(concat!(env!("OUT_DIR"), "/libamdhip64.map"));
    let nodes = script_nodes(map);
    let bound = bound_exports();
    for (node, _) in &nodes {
        let mut listed: Vec<&str> = nodes
            .iter()
            .filter(|(n, _)| n == node)
            .flat_map(|(_, s)| s.iter().map(String::as_str))
            .collect();
        let mut symver: Vec<&str> = bound
            .iter()
            .filter(|(n, _)| n == node)
            .flat_map(|(_, s)| s.iter().copied())
            .collect();
        listed.sort_unstable();
        symver.sort_unstable();
        assert_eq!(listed, symver, "node {node}\n{map}");
    }
    // The chain starts at hip_4.2 and ends at the header's own version.
    assert_eq!(
        nodes.first().map(|(n, _)| n.as_str()),
        Some("hip_4.2"),
        "{map}"
    );
    let last = nodes.last().map(|(n, _)| n.clone()).unwrap_or_default();
    assert!(last.starts_with(&format!("hip_{}.", major())), "{map}");
    assert_eq!(
        nodes.iter().any(|(n, _)| n == "hip_6.0"),
        major() >= 6,
        "{map}"
    );
    assert_eq!(crate::exports::EXPORTS.1.len(), 21);
    // The stand-in exports exactly what the harness calls: its FFI list plus
    // hipGetDeviceProperties (reached through the device-info shim).
    let mut exported = crate::exports::EXPORTS.1.to_vec();
    exported.sort_unstable();
    let mut wanted: Vec<&str> = xad_harness::platform::hip::FUNCTIONS
        .iter()
        .copied()
        .chain(["hipGetDeviceProperties"])
        .collect();
    wanted.sort_unstable();
    assert_eq!(exported, wanted);
    let all: Vec<&str> = bound.iter().flat_map(|(_, s)| s.iter().copied()).collect();
    for f in crate::knobs::status_functions() {
        assert!(all.contains(&f), "{f}");
    }
}

// ---- several devices -------------------------------------------------------

use crate::devices;
use crate::host::{Host, On};

/// Knobs from `pairs` as the environment would give them.
fn knobs(pairs: &[(&str, &str)]) -> Result<Knobs, String> {
    let owned: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Knobs::parse(|name| {
        owned
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    })
}

#[test]
fn devices_knob_lists_the_physical_devices_and_arch_stays_one_device() {
    let k = knobs(&[("XAD_EMUHIP_DEVICES", "gfx1100, gfx1030,gfx1201")]).expect("valid");
    assert_eq!(k.devices, ["gfx1100", "gfx1030", "gfx1201"]);
    assert_eq!(k.visible, [0, 1, 2]);
    assert_eq!(k.arch_of(1), "gfx1030");
    let k = knobs(&[("XAD_EMUHIP_ARCH", "gfx1030")]).expect("valid");
    assert_eq!(
        (k.devices.as_slice(), k.visible.as_slice()),
        (&["gfx1030".to_string()][..], &[0][..])
    );
    let k = knobs(&[]).expect("valid");
    assert_eq!(k.devices, ["gfx1100"]);
    let sixteen = vec!["gfx1100"; devices::MAX_DEVICES].join(",");
    assert_eq!(
        knobs(&[("XAD_EMUHIP_DEVICES", &sixteen)]).map(|k| k.devices.len()),
        Ok(16)
    );
    let seventeen = vec!["gfx1100"; devices::MAX_DEVICES + 1].join(",");
    for (pairs, what) in [
        (
            vec![("XAD_EMUHIP_DEVICES", "gfx1100,,gfx1030")],
            "empty entry",
        ),
        (vec![("XAD_EMUHIP_DEVICES", "gfx1100,")], "trailing comma"),
        (vec![("XAD_EMUHIP_DEVICES", seventeen.as_str())], "too many"),
        (
            vec![
                ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030"),
                ("XAD_EMUHIP_ARCH", "gfx1030"),
            ],
            "both set",
        ),
        (
            vec![
                ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030"),
                ("XAD_EMUHIP_FAULT_DEVICE", "2"),
            ],
            "fault device beyond the visible ones",
        ),
        (
            vec![
                ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201"),
                ("HIP_VISIBLE_DEVICES", "2"),
                ("XAD_EMUHIP_FAULT_DEVICE", "1"),
            ],
            "fault device counts visible devices, not physical ones",
        ),
        (vec![("XAD_EMUHIP_FAULT_DEVICE", "x")], "not a number"),
        (vec![("XAD_EMUHIP_FAULT_DEVICE", "0,")], "empty entry"),
    ] {
        let err = knobs(&pairs).expect_err(what);
        assert!(
            err.starts_with("XAD_EMUHIP_") && !err.contains('\n'),
            "{what}: {err}"
        );
    }
}

#[test]
fn fault_device_restricts_the_fault_knobs_to_its_devices() {
    let k = knobs(&[
        ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201"),
        ("XAD_EMUHIP_FAULT_DEVICE", "1"),
        ("XAD_EMUHIP_FLIP_BIT", "5:3"),
        ("XAD_EMUHIP_HANG", "1"),
        ("XAD_EMUHIP_FAIL_ALLOC", "2"),
        ("XAD_EMUHIP_FAIL_COPY", "3"),
        ("XAD_EMUHIP_SKIP_LANE", "4"),
        ("XAD_EMUHIP_WRITE_PAST_END", "1"),
        ("XAD_EMUHIP_STATUS", "912:hipGetDeviceCount"),
    ])
    .expect("valid");
    assert_eq!(k.fault_devices, Some(vec![1]));
    assert_eq!(k.for_device(1), k, "device 1 keeps every knob");
    for clean in [k.for_device(0), k.for_device(2)] {
        assert_eq!(
            Knobs {
                devices: k.devices.clone(),
                visible: k.visible.clone(),
                fault_devices: k.fault_devices.clone(),
                ..Knobs::default()
            },
            clean
        );
    }
    // A call on no device is faulted only while every device is.
    assert_eq!(k.forced_status_of_host("hipGetDeviceCount"), None);
    let all = Knobs {
        fault_devices: None,
        ..k.clone()
    };
    assert_eq!(all.forced_status_of_host("hipGetDeviceCount"), Some(912));
    assert_eq!(all.for_device(2), all);
}

#[test]
fn visibility_lists_stop_at_the_first_invalid_entry() {
    for (list, expected) in [
        ("2,0", vec![2, 0]),
        ("1,x,0", vec![1]),
        ("0,3,1", vec![0]),
        ("-1", vec![]),
        ("", vec![]),
        ("1,,0", vec![1]),
        ("1,", vec![1]),
        ("1,1,0", vec![1, 0]),
        ("01", vec![]),
        (" 1", vec![]),
        ("+1", vec![]),
        ("GPU-0123456789abcdef", vec![]),
        ("2,1,0", vec![2, 1, 0]),
    ] {
        assert_eq!(devices::ordinals(list, 3), expected, "{list:?}");
    }
}

#[test]
fn visibility_applies_rocr_then_hip_or_cuda() {
    let v = |rocr, hip, cuda| devices::visible_devices(4, rocr, hip, cuda);
    assert_eq!(v(None, None, None), [0, 1, 2, 3]);
    assert_eq!(v(None, Some("2,0"), None), [2, 0]);
    // HIP's list indexes what ROCr left: ROCr keeps 3 and 1, HIP picks its 1 (physical 1).
    assert_eq!(v(Some("3,1"), Some("1"), None), [1]);
    // An empty ROCR_VISIBLE_DEVICES hides everything; an empty HIP one is unset.
    assert_eq!(v(Some(""), None, None), Vec::<usize>::new());
    assert_eq!(v(None, Some(""), None), [0, 1, 2, 3]);
    // CUDA_VISIBLE_DEVICES only when HIP's is unset or empty.
    assert_eq!(v(None, None, Some("3")), [3]);
    assert_eq!(v(None, Some(""), Some("3")), [3]);
    assert_eq!(v(None, Some("1"), Some("3")), [1]);
    // Parsed against the env the way knobs read it.
    let k = knobs(&[
        ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201"),
        ("HIP_VISIBLE_DEVICES", "2,0"),
    ])
    .expect("valid");
    assert_eq!(
        (k.visible.as_slice(), k.arch_of(0), k.arch_of(1)),
        (&[2, 0][..], "gfx1201", "gfx1100")
    );
    let k = knobs(&[("ROCR_VISIBLE_DEVICES", "")]).expect("valid");
    assert!(k.visible.is_empty());
}

/// A host of fake devices, one per entry of XAD_EMUHIP_DEVICES in `pairs`.
fn fake_host(pairs: &[(&str, &str)]) -> (Host, Vec<FakeDevice>) {
    let made = Mutex::new(Vec::new());
    let host = Host::new(knobs(pairs).expect("valid knobs"), |_arch, _knobs| {
        let device = FakeDevice::default();
        made.lock().unwrap().push(device.clone());
        Box::new(device)
    });
    host.set_notes(false);
    let made = made.into_inner().unwrap();
    (host, made)
}

const THREE: (&str, &str) = ("XAD_EMUHIP_DEVICES", "gfx1100,gfx1030,gfx1201");

#[test]
fn host_counts_visible_devices_and_the_current_device_is_per_thread() {
    let (host, _) = fake_host(&[THREE, ("HIP_VISIBLE_DEVICES", "2,0")]);
    assert_eq!(host.device_count(), 2);
    assert_eq!(host.init(0), Ok(()));
    assert_eq!(host.init(1), Err(Stop::Status(status::INVALID_VALUE)));
    let arch = |on| host.with(on, "hipGetDeviceProperties", |rt| Ok(rt.properties()));
    let p0 = arch(On::Device(0)).expect("device 0");
    let p1 = arch(On::Device(1)).expect("device 1");
    assert_eq!((p0.arch.as_str(), p1.arch.as_str()), ("gfx1201", "gfx1100"));
    assert_eq!(
        (p0.pci, p1.pci),
        ((0, 5, 0), (0, 3, 0)),
        "PCI addresses follow the physical device"
    );
    assert_eq!(
        arch(On::Device(2)),
        Err(Stop::Status(status::INVALID_DEVICE))
    );
    assert_eq!(
        host.set_device(2),
        Err(Stop::Status(status::INVALID_DEVICE))
    );
    assert_eq!(
        host.set_device(-1),
        Err(Stop::Status(status::INVALID_DEVICE))
    );

    assert_eq!(host.current(), Ok(0), "a thread starts on device 0");
    host.set_device(1).expect("set");
    assert_eq!(host.current(), Ok(1));
    std::thread::scope(|scope| {
        scope
            .spawn(|| assert_eq!(host.current(), Ok(0), "another thread is still on device 0"))
            .join()
            .unwrap();
    });
    assert_eq!(arch(On::Current).map(|p| p.arch), Ok("gfx1100".into()));
    host.set_device(0).expect("set");
}

#[test]
fn no_visible_device_is_no_device() {
    let (host, made) = fake_host(&[THREE, ("HIP_VISIBLE_DEVICES", "-1")]);
    assert!(made.is_empty());
    assert_eq!(host.device_count(), 0);
    let expected = if status::HIP_VERSION / 10_000_000 >= 6 {
        status::NO_DEVICE
    } else {
        status::INVALID_DEVICE
    };
    assert_eq!(host.init(0), Err(Stop::Status(expected)));
    assert_eq!(
        host.with(On::Current, "hipMalloc", |rt| rt.malloc(4)),
        Err(Stop::Status(status::NO_DEVICE))
    );
    assert_eq!(
        host.set_device(0),
        Err(Stop::Status(status::INVALID_DEVICE))
    );
}

#[test]
fn pointers_and_handles_of_one_device_are_refused_on_another() {
    let (host, fakes) = fake_host(&[THREE]);
    let malloc = |on| {
        host.with(on, "hipMalloc", |rt| rt.malloc(16))
            .expect("malloc")
            .expect("non-null")
    };
    host.set_device(0).expect("set");
    let p0 = malloc(On::Current);
    host.with(On::Current, "hipMemcpyHtoD", |rt| {
        rt.copy_htod(p0, &[0xAB; 16])
    })
    .expect("copy on its own device");
    let module0 = host
        .with(On::Current, "hipModuleLoadData", |rt| {
            rt.module_load(image())
        })
        .expect("load");
    host.set_device(1).expect("set");
    // The fake devices hand out the same addresses; the tags keep them apart.
    let p1 = malloc(On::Current);
    assert_ne!(p0, p1);
    assert_eq!(
        p0 & 0xFFFF_FFFF_FFFF,
        p1 & 0xFFFF_FFFF_FFFF,
        "same emulator address"
    );
    let mut back = [0u8; 16];
    assert_eq!(
        host.with(On::Current, "hipMemcpyDtoH", |rt| rt
            .copy_dtoh(&mut back, p0)),
        Err(Stop::Status(status::INVALID_VALUE)),
        "device 0's pointer while device 1 is current"
    );
    assert_eq!(
        host.with(On::Current, "hipMemcpyHtoD", |rt| rt
            .copy_htod(p0, &[0; 16])),
        Err(Stop::Status(status::INVALID_VALUE))
    );
    assert_eq!(
        host.with(On::Current, "hipModuleGetFunction", |rt| rt
            .get_function(module0, "xad_basic")),
        Err(Stop::Status(status::INVALID_HANDLE)),
        "device 0's module while device 1 is current"
    );
    let fake_memory = |d: usize| {
        fakes[d]
            .state()
            .memory
            .values()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        fake_memory(1),
        [vec![0xEE; 16]],
        "device 1's memory untouched"
    );
    assert_eq!(fake_memory(0), [vec![0xAB; 16]]);
    // Releasing and waiting act on the object's own device, as in ROCm.
    assert_eq!(
        host.with(On::Owner(p0), "hipFree", |rt| rt.free(p0)),
        Ok(())
    );
    assert!(fake_memory(0).is_empty() && fake_memory(1).len() == 1);
    assert_eq!(
        host.with(On::Owner(module0 as u64), "hipModuleUnload", |rt| rt
            .module_unload(module0)),
        Ok(())
    );
    // A device's own runtime still refuses the other's pointer outright.
    assert_eq!(
        host.with(On::Device(1), "hipFree", |rt| rt
            .free(p1 & 0xFFFF_FFFF_FFFF | (1 << 48))),
        Err(Stop::Status(status::INVALID_VALUE))
    );
    assert_eq!(
        host.with(On::Owner(p1), "hipFree", |rt| rt.free(p1)),
        Ok(())
    );
    host.set_device(0).expect("set");
}

#[test]
fn a_kernel_argument_pointing_at_another_device_is_not_translated() {
    let knobs = knobs(&[("XAD_EMUHIP_DEVICES", "gfx1100,gfx1100")]).expect("valid");
    let dev = FakeDevice::default();
    let mut rt = Runtime::for_device(Box::new(dev.clone()), &knobs, 1);
    rt.notes = false;
    let module = rt.module_load(image()).expect("load");
    let function = rt.get_function(module, "xad_basic").expect("function");
    let buffer = rt.malloc(16).expect("malloc").expect("non-null");
    let foreign = (buffer & 0xFFFF_FFFF_FFFF) | (1 << 48); // device 0's tag
    let mut k = vec![0u8; 40];
    for (i, p) in [buffer, buffer, buffer, foreign].iter().enumerate() {
        k[i * 8..i * 8 + 8].copy_from_slice(&p.to_le_bytes());
    }
    k[32..36].copy_from_slice(&4u32.to_le_bytes());
    rt.launch(
        function,
        [1, 1, 1],
        [256, 1, 1],
        0,
        0,
        KernargSource::Buffer(k),
    )
    .expect("launch");
    let launches = &dev.state().launches;
    let seen = |at: usize| u64::from_le_bytes(launches[0].1[at..at + 8].try_into().unwrap());
    assert_eq!(
        seen(0),
        buffer & 0xFFFF_FFFF_FFFF,
        "own pointer: the emulator's address"
    );
    assert_eq!(
        seen(24),
        foreign,
        "foreign pointer kept: its accesses fault"
    );
}

#[test]
fn faults_act_on_the_fault_devices_only() {
    let (host, fakes) = fake_host(&[
        THREE,
        ("XAD_EMUHIP_FAULT_DEVICE", "1"),
        ("XAD_EMUHIP_FAIL_ALLOC", "1"),
        ("XAD_EMUHIP_STATUS", "912:hipStreamCreate"),
    ]);
    assert_eq!(fakes.len(), 3);
    for device in 0..3 {
        host.set_device(device).expect("set");
        let alloc = host.with(On::Current, "hipMalloc", |rt| rt.malloc(4));
        let stream = host.with(On::Current, "hipStreamCreate", |rt| Ok(rt.stream_create()));
        if device == 1 {
            assert_eq!(alloc, Err(Stop::Status(status::OUT_OF_MEMORY)));
            assert_eq!(stream, Err(Stop::Status(912)));
        } else {
            assert!(matches!(alloc, Ok(Some(_))), "device {device}: {alloc:?}");
            assert!(stream.is_ok(), "device {device}");
        }
    }
    host.set_device(0).expect("set");
}

#[test]
fn two_threads_on_two_devices_allocate_and_copy_concurrently_without_mixing() {
    let (host, fakes) = fake_host(&[THREE]);
    std::thread::scope(|scope| {
        for device in [0i32, 2] {
            let host = &host;
            scope.spawn(move || {
                host.set_device(device).expect("set");
                for round in 0..200u32 {
                    let pattern: Vec<u8> = (0..64u32)
                        .map(|i| (i * 7 + round + device as u32 * 101) as u8)
                        .collect();
                    let p = host
                        .with(On::Current, "hipMalloc", |rt| rt.malloc(pattern.len()))
                        .expect("malloc")
                        .expect("non-null");
                    assert_eq!(crate::runtime::owner_of(p), Some(device as usize));
                    host.with(On::Current, "hipMemcpyHtoD", |rt| rt.copy_htod(p, &pattern))
                        .expect("copy in");
                    std::thread::yield_now();
                    let mut back = vec![0u8; pattern.len()];
                    host.with(On::Current, "hipMemcpyDtoH", |rt| {
                        rt.copy_dtoh(&mut back, p)
                    })
                    .expect("copy out");
                    assert_eq!(back, pattern, "device {device}, round {round}");
                    if round % 2 == 0 {
                        host.with(On::Owner(p), "hipFree", |rt| rt.free(p))
                            .expect("free");
                    }
                }
                assert_eq!(
                    host.current(),
                    Ok(device as usize),
                    "nobody else moved this thread"
                );
            });
        }
    });
    let live = |d: usize| fakes[d].state().memory.len();
    assert_eq!(
        (live(0), live(1), live(2)),
        (100, 0, 100),
        "each device kept its own allocations"
    );
}

#[test]
fn a_long_kernel_on_one_device_does_not_block_another_device() {
    let (host, fakes) = fake_host(&[THREE]);
    let (open, gate) = std::sync::mpsc::channel();
    fakes[0].state().launch_gate = Some(gate);
    let (setup0, function) = {
        host.set_device(0).expect("set");
        host.with(On::Current, "hipModuleLoadData", |rt| {
            let module = rt.module_load(image())?;
            let function = rt.get_function(module, "xad_basic")?;
            let p = rt.malloc(64)?.expect("non-null");
            Ok((p, function))
        })
        .expect("set up device 0")
    };
    std::thread::scope(|scope| {
        let host = &host;
        let kernel = scope.spawn(move || {
            host.set_device(0).expect("set");
            let mut k = vec![0u8; 40];
            for at in [0, 8, 16, 24] {
                k[at..at + 8].copy_from_slice(&setup0.to_le_bytes());
            }
            k[32..36].copy_from_slice(&16u32.to_le_bytes());
            host.with(On::Current, "hipModuleLaunchKernel", |rt| {
                rt.launch(
                    function,
                    [1, 1, 1],
                    [256, 1, 1],
                    0,
                    0,
                    KernargSource::Buffer(k),
                )
            })
        });
        // Wait until device 0's kernel is running (holding device 0's lock).
        while fakes[0].state().launch_gate.is_some() {
            std::thread::yield_now();
        }
        host.set_device(1).expect("set");
        let p = host
            .with(On::Current, "hipMalloc", |rt| rt.malloc(8))
            .expect("device 1 answers while device 0 runs a kernel");
        assert!(p.is_some());
        open.send(()).expect("open the gate");
        assert_eq!(kernel.join().unwrap(), Ok(()));
    });
    assert_eq!(
        fakes[0].state().gate_opened,
        Some(true),
        "the kernel ended because device 1 got through"
    );
    host.set_device(0).expect("set");
}
