//! xad_basic on the embedded emulator: exact (a ^ b) + c for every lane below
//! `count`, untouched lanes past it, over random and edge inputs.

use rand::{Rng, SeedableRng};
use std::time::Duration;
use xad_harness::platform::device::{Device, DeviceError, Dispatch};
use xad_harness::platform::emu::{EmuDevice, EmuOptions, Fault, FaultKind, WaveAt};

const EDGES: [u32; 10] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0x5555_5555,
    0xaaaa_aaaa,
];
const POISON: u32 = 0xdead_beef;

fn kernarg(a: u64, b: u64, c: u64, out: u64, count: u32) -> Vec<u8> {
    let mut k = Vec::new();
    for p in [a, b, c, out] {
        k.extend_from_slice(&p.to_le_bytes());
    }
    k.extend_from_slice(&count.to_le_bytes());
    k.extend_from_slice(&[0; 4]);
    k
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn run_xad_basic(dev: &mut EmuDevice, seed: u64, count: usize, extra: usize) {
    let image = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .expect("xad_basic is embedded")
        .bytes;
    let module = dev.load(image).expect("load xad_basic");
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = count + extra;
    let mut gen = |i: usize, salt: usize| {
        if i < EDGES.len() * EDGES.len() {
            EDGES[(i / EDGES.len().pow(salt as u32)) % EDGES.len()]
        } else {
            rng.random::<u32>()
        }
    };
    let a: Vec<u32> = (0..n).map(|i| gen(i, 0)).collect();
    let b: Vec<u32> = (0..n).map(|i| gen(i, 1)).collect();
    let c: Vec<u32> = (0..n).map(|i| gen(i, 0) ^ 0x0f0f_0f0f).collect();
    let bufs: Vec<u64> = (0..4).map(|_| dev.alloc(n * 4).expect("alloc")).collect();
    dev.write(bufs[0], &words(&a)).unwrap();
    dev.write(bufs[1], &words(&b)).unwrap();
    dev.write(bufs[2], &words(&c)).unwrap();
    dev.write(bufs[3], &words(&vec![POISON; n])).unwrap();
    let groups = count.div_ceil(256) as u32;
    dev.launch(
        module,
        "xad_basic",
        &kernarg(bufs[0], bufs[1], bufs[2], bufs[3], count as u32),
        Dispatch {
            grid_blocks: [groups, 1, 1],
            block: [256, 1, 1],
        },
        Duration::from_secs(60),
    )
    .expect("launch");
    let mut out = vec![0u8; n * 4];
    dev.read(bufs[3], &mut out).unwrap();
    for i in 0..n {
        let got = u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
        let want = if i < count {
            (a[i] ^ b[i]).wrapping_add(c[i])
        } else {
            POISON
        };
        assert_eq!(
            got, want,
            "seed {seed} lane {i}: a=0x{:08x} b=0x{:08x} c=0x{:08x}",
            a[i], b[i], c[i]
        );
    }
    for p in bufs {
        dev.free(p).unwrap();
    }
}

#[test]
fn xad_basic_exact_with_tail() {
    let mut dev = EmuDevice::new();
    run_xad_basic(&mut dev, 0x5eed_0001, 1000 * 256 + 77, 300);
}

#[test]
fn xad_basic_single_thread_and_tiny_counts() {
    let mut dev = EmuDevice::with_options(EmuOptions {
        threads: 1,
        ..EmuOptions::default()
    });
    for (seed, count) in [
        (1u64, 1usize),
        (2, 31),
        (3, 32),
        (4, 33),
        (5, 255),
        (6, 257),
    ] {
        run_xad_basic(&mut dev, seed, count, 40);
    }
}

/// xad_basic with count 1024 over 1000-word buffers: the error of the first
/// lane past the end, and the buffers' addresses (a, b, c, out).
fn launch_past_the_end() -> (DeviceError, Vec<u64>) {
    let mut dev = EmuDevice::new();
    let image = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .unwrap()
        .bytes;
    let module = dev.load(image).unwrap();
    let n = 1000usize;
    let bufs: Vec<u64> = (0..4).map(|_| dev.alloc(n * 4).unwrap()).collect();
    let err = dev
        .launch(
            module,
            "xad_basic",
            &kernarg(bufs[0], bufs[1], bufs[2], bufs[3], 1024),
            Dispatch {
                grid_blocks: [4, 1, 1],
                block: [256, 1, 1],
            },
            Duration::from_secs(10),
        )
        .unwrap_err();
    (err, bufs)
}

#[test]
fn out_of_bounds_store_is_a_memory_fault() {
    // count larger than the buffers: the first lane past the end faults.
    let (err, bufs) = launch_past_the_end();
    let msg = err.to_string();
    assert!(
        matches!(&err, DeviceError::Emulation(f) if f.kind == FaultKind::MemoryFault)
            && err.is_memory_fault(),
        "{msg}"
    );
    assert!(
        msg.contains("global_load_b32")
            && msg.contains("lane 8")
            && msg.contains("load of 4 bytes"),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("address 0x{:x}", bufs[0] + 4000)),
        "{msg}"
    );
}

#[test]
fn memory_fault_names_kind_instruction_wave_global_lane_and_address() {
    // As above: work-item 1000 (workgroup 3, wave 7, lane 8 of wave32) is the
    // first to load past the 1000-word buffers.
    let (err, bufs) = launch_past_the_end();
    let DeviceError::Emulation(fault) = &err else {
        panic!("expected an emulator fault, got {err:?}")
    };
    let Fault {
        kind,
        inst,
        wave,
        lane,
        address,
        message,
    } = &**fault;
    assert_eq!(*kind, FaultKind::MemoryFault, "{err}");
    assert_eq!(*lane, Some(1000), "{err}");
    assert_eq!(*address, Some(bufs[0] + 4000), "{err}");
    assert_eq!(
        *wave,
        Some(WaveAt {
            workgroup: [3, 0, 0],
            index: 7
        }),
        "{err}"
    );
    let inst = inst.as_ref().expect("the faulting instruction");
    assert!(inst.text.starts_with("global_load_b32 "), "{inst:?}");
    assert!(
        message.contains(&format!(
            "instruction at offset 0x{:x} ({})",
            inst.offset, inst.text
        )),
        "{message}"
    );
    // The structure is extra: the text is the one users grep.
    assert_eq!(err.to_string(), format!("memory fault: {message}"));
    assert!(
        message.starts_with(&format!("address 0x{:x}, ", bufs[0] + 4000))
            && message.ends_with(", lane 8, load of 4 bytes"),
        "{message}"
    );
}
