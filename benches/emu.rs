//! xad_basic on the embedded emulator vs a native Rust loop of the same
//! function over the same data, in one run. Prints lanes/s for each and the
//! ratio. `cargo bench --bench emu` (env XAD_BENCH_LANES, default 16M;
//! XAD_BENCH_THREADS, default all cores).

use std::time::{Duration, Instant};
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::{EmuDevice, EmuOptions};

fn main() {
    let lanes: usize = std::env::var("XAD_BENCH_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16 << 20);
    let threads: usize = std::env::var("XAD_BENCH_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let reps = 3;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    };
    let a: Vec<u32> = (0..lanes).map(|_| next()).collect();
    let b: Vec<u32> = (0..lanes).map(|_| next()).collect();
    let c: Vec<u32> = (0..lanes).map(|_| next()).collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();

    let mut dev = EmuDevice::with_options(EmuOptions {
        threads,
        ..EmuOptions::default()
    });
    let module = dev
        .load(
            xad_harness::platform::embedded::find("gfx1100", "xad_basic")
                .expect("embedded")
                .bytes,
        )
        .expect("load");
    let p: Vec<u64> = (0..4)
        .map(|_| dev.alloc(lanes * 4).expect("alloc"))
        .collect();
    dev.write(p[0], &bytes(&a)).unwrap();
    dev.write(p[1], &bytes(&b)).unwrap();
    dev.write(p[2], &bytes(&c)).unwrap();
    let mut kernarg = Vec::new();
    for ptr in &p {
        kernarg.extend_from_slice(&ptr.to_le_bytes());
    }
    kernarg.extend_from_slice(&(lanes as u32).to_le_bytes());
    kernarg.extend_from_slice(&[0; 4]);
    let dispatch = Dispatch {
        grid_blocks: [lanes.div_ceil(256) as u32, 1, 1],
        block: [256, 1, 1],
    };

    let mut best_emu = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        dev.launch(
            module,
            "xad_basic",
            &kernarg,
            dispatch,
            Duration::from_secs(600),
        )
        .expect("launch");
        best_emu = best_emu.min(t.elapsed().as_secs_f64());
    }
    let mut out = vec![0u8; lanes * 4];
    dev.read(p[3], &mut out).unwrap();
    let mut native = vec![0u32; lanes];
    let mut best_native = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        for i in 0..lanes {
            native[i] = (a[i] ^ b[i]).wrapping_add(c[i]);
        }
        std::hint::black_box(&mut native);
        best_native = best_native.min(t.elapsed().as_secs_f64());
    }
    // Host copies as the pipeline does them: 2 MiB pieces into and out of the arena.
    let piece = (512usize << 10).min(lanes);
    let (mut best_write, mut best_read) = (f64::MAX, f64::MAX);
    let src = bytes(&a[..piece]);
    let mut back = vec![0u8; piece * 4];
    for _ in 0..reps {
        let t = Instant::now();
        for k in 0..lanes / piece {
            dev.write(p[0] + (k * piece * 4) as u64, &src).unwrap();
        }
        best_write = best_write.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for k in 0..lanes / piece {
            dev.read(p[3] + (k * piece * 4) as u64, &mut back).unwrap();
        }
        best_read = best_read.min(t.elapsed().as_secs_f64());
    }
    let copied = (lanes / piece * piece * 4) as f64;
    println!(
        "  host write ({} KiB pieces): {:>8.2} GB/s",
        (piece * 4) >> 10,
        copied / best_write / 1e9
    );
    println!(
        "  host read  ({} KiB pieces): {:>8.2} GB/s",
        (piece * 4) >> 10,
        copied / best_read / 1e9
    );
    let mismatches = native
        .iter()
        .enumerate()
        .filter(|(i, w)| out[4 * i..4 * i + 4] != w.to_le_bytes())
        .count();
    let emu_rate = lanes as f64 / best_emu;
    let native_rate = lanes as f64 / best_native;
    println!(
        "xad_basic, {lanes} lanes, {} emulator threads (best of {reps})",
        if threads == 0 {
            rayon::current_num_threads()
        } else {
            threads
        }
    );
    println!(
        "  emulator launch : {:>8.1} M lanes/s ({:.3} s)",
        emu_rate / 1e6,
        best_emu
    );
    println!(
        "  native loop (1 thread): {:>8.1} M lanes/s ({:.3} s)",
        native_rate / 1e6,
        best_native
    );
    println!("  ratio native/emulator: {:.1}x", native_rate / emu_rate);
    println!("  mismatches: {mismatches}");
    assert_eq!(
        mismatches, 0,
        "emulator output differs from the native loop"
    );
}
