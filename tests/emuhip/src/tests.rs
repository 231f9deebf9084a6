//! The runtime's decisions over a fake device whose "kernel" is the CPU model of
//! xad_basic, so statuses, kernarg packing, streams and every fault knob are
//! tested without the emulator. The real library over the real emulator is
//! tested end to end in tests/emuhip/tests/ and tests/emuhip_e2e.rs.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use xad_harness::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};

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
    xad_harness::kernels::find("gfx1100", "xad_basic")
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
    let mut run = setup(
        Knobs {
            flip_bit: Some((5, 31)),
            ..Knobs::default()
        },
        16,
    );
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
    let mut run = setup(
        Knobs {
            flip_bit: Some((20, 0)),
            ..Knobs::default()
        },
        32,
    );
    run.launch(16).expect("launch");
    for i in 0..16 {
        assert_eq!(run.lane(i), run.expected(i), "lane {i}");
    }
}

#[test]
fn skip_lane_leaves_previous_contents() {
    let mut run = setup(
        Knobs {
            skip_lane: Some(3),
            ..Knobs::default()
        },
        8,
    );
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
    let mut run = setup(
        Knobs {
            write_past_end: Some(2),
            ..Knobs::default()
        },
        8,
    );
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
    let mut run = setup(
        Knobs {
            write_past_end: Some(17),
            ..Knobs::default()
        },
        8,
    );
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
    let mut run = setup(
        Knobs {
            hang: true,
            ..Knobs::default()
        },
        8,
    );
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
    use xad_harness::emu::{Fault, FaultKind};
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
    check_fill(crate::exports::hipGetDeviceProperties, 792, 396);
    #[cfg(hip_r0600)]
    check_fill(crate::exports::hipGetDevicePropertiesR0000, 792, 396);
}

#[cfg(hip_r0600)]
#[test]
fn device_properties_r0600_fill_the_rocm6_layout() {
    check_fill(crate::exports::hipGetDevicePropertiesR0600, 1472, 1160);
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
    let mut wanted: Vec<&str> = xad_harness::hip::FUNCTIONS
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
