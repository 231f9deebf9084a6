//! `xad-harness bench`: the emulator pipeline (input generation, emulation of
//! the real `xad_basic` code object, verification of every lane) against a
//! native loop that generates the same inputs, computes the same function and
//! verifies it, in reused chunks, in the same run. Ratios, not absolute times,
//! are what to compare across machines.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::model::cases;
use crate::model::inputs;
use crate::pipeline::run::{self, Options, Status};
use crate::platform::emu::EmuDevice;

/// Lanes per chunk of the native loop (same as the pipeline's default).
const NATIVE_CHUNK: usize = 1 << 17;

/// Generate, compute and verify `lanes` lanes natively on one thread.
fn native_single_thread(lanes: u64, seed: u64) -> u64 {
    let n = NATIVE_CHUNK.min(lanes as usize);
    let (mut a, mut b, mut c, mut out) =
        (vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let mut failures = 0u64;
    let mut first = 0u64;
    while first < lanes {
        let count = n.min((lanes - first) as usize);
        inputs::fill_sources_serial(
            seed,
            first,
            &mut a[..count],
            &mut b[..count],
            &mut c[..count],
        );
        for i in 0..count {
            out[i] = (a[i] ^ b[i]).wrapping_add(c[i]);
        }
        for i in 0..count {
            failures += u64::from(out[i] != cases::xad(a[i], b[i], c[i]));
        }
        first += count as u64;
    }
    failures
}

/// The emulator pipeline's speed target for the basic case (lanes/s, wall
/// clock, generation and verification included), set for a 2-core machine.
pub const TARGET_LANES_PER_S: f64 = 100e6;

/// Lanes the target is stated for.
pub const TARGET_LANES: u64 = 1 << 26;

/// Median of a non-empty list of timings (upper median for an even count).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The widest SIMD level the input generator is dispatched to here.
fn host_simd() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            return "avx2";
        }
        if std::is_x86_feature_detected!("sse4.1") {
            return "sse4.1";
        }
    }
    "baseline"
}

/// Case `name` and its code object for the default target (gfx1100).
fn embedded(name: &str) -> Result<(cases::Case, run::Loaded)> {
    let case = cases::select(name).map_err(Error::Usage)?.remove(0);
    let target = crate::platform::target::find(crate::platform::target::DEFAULT)
        .expect("the default target");
    let loaded = run::embedded(&case, target).map_err(Error::Io)?;
    Ok((case, loaded))
}

/// One run of `case` through the whole pipeline on `device`; its seconds,
/// or an error when it did not pass (a benchmark of a wrong answer is void).
fn timed_pass(
    device: &mut EmuDevice,
    case: &cases::Case,
    loaded: &run::Loaded,
    kernel: &crate::platform::codeobj::Kernel,
    opts: &Options,
) -> Result<f64> {
    let result = loaded.run(device, case, kernel, opts);
    if result.status() != Status::Pass {
        let why = result
            .error
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_else(|| format!("{} lanes failed", result.tally.lanes_failed));
        return Err(Error::Io(format!(
            "benchmark run of {} did not pass on {}: {why}",
            case.name, result.executor
        )));
    }
    Ok(result.seconds)
}

/// Most `--sha-lanes`: their inputs are held twice (164 bytes a lane each).
pub const MAX_SHA_LANES: u64 = 1 << 22;

/// Refuse, before anything runs, a `--sha-lanes` over [`MAX_SHA_LANES`].
pub fn sha256_lanes_ok(lanes: u64) -> Result<()> {
    if lanes > MAX_SHA_LANES {
        return Err(Error::Usage(format!(
            "--sha-lanes {lanes} is over {MAX_SHA_LANES}"
        )));
    }
    Ok(())
}

/// The SHA-256 workload: the `sha256_w32` case through the emulator pipeline
/// (its CPU model, `sha2`, included) against `sha2::compress256` of the same
/// blocks on one host thread, interleaved `repeat` times. Rates are in
/// million 64-byte blocks a second: a block is one compression, the whole
/// hash of a message under 56 bytes, so M blocks/s is MH/s for short
/// messages (the unit password-hashing benchmarks quote).
pub fn sha256(lanes: u64, seed: u64, repeat: usize) -> Result<String> {
    let (case, loaded) = embedded("sha256_w32")?;
    let kernel = run::kernel_for(&loaded, &case).map_err(Error::Io)?;
    let mut device = EmuDevice::new();
    let opts = Options {
        lanes,
        seed,
        ..Options::default()
    };
    // The same lanes' inputs, drawn once for the host baseline.
    let lanes_n = lanes as usize;
    let [wa, wb, wc] = case.inputs.words;
    let (mut a, mut b, mut c) = (
        vec![0; lanes_n * wa],
        vec![0; lanes_n * wb],
        vec![0; lanes_n * wc],
    );
    (case.inputs.fill)(seed, 0, &mut a, &mut b, &mut c);
    let blocks: usize = c.iter().map(|&c| cases::sha256::blocks(c)).sum();
    let (mut emulated, mut host) = (Vec::new(), Vec::new());
    // The host baseline is the case's own model (sha2's compress256 of each
    // lane's blocks), on this one thread.
    let data = cases::LaneData {
        a: &a,
        b: &b,
        c: &c,
        scalars: &[],
        prefill: &[],
        count: lanes_n,
    };
    let mut digests = vec![0u32; lanes_n * case.outputs_per_lane];
    for _ in 0..repeat.max(1) {
        let started = Instant::now();
        (case.model)(&data, 0..lanes_n, &mut digests);
        std::hint::black_box(&mut digests);
        host.push(started.elapsed().as_secs_f64());
        emulated.push(timed_pass(&mut device, &case, &loaded, kernel, &opts)?);
    }
    let (emu_s, host_s) = (median(emulated), median(host));
    let rate = |s: f64| blocks as f64 / s / 1e6;
    Ok(format!(
        "bench: sha256_w32, {lanes} lanes ({blocks} blocks), seed {seed}, host SHA extensions {}, {} runs each (median)\n\
         emulated gfx1100 SHA-256 (generate + emulate + verify with sha2): {:8.3} s  {:9.4} M blocks/s (MH/s)\n\
         sha2 crate on the host, 1 thread, the same blocks:            {:8.3} s  {:9.4} M blocks/s (MH/s)\n\
         ratio emulated / sha2 on the host: {:.5}x (emulated, not a GPU rate)\n",
        if host_sha_extensions() { "yes" } else { "no" },
        repeat.max(1),
        emu_s,
        rate(emu_s),
        host_s,
        rate(host_s),
        host_s / emu_s,
    ))
}

/// Whether the host CPU has the SHA extensions `sha2` uses when present.
fn host_sha_extensions() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sha")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

pub fn run(lanes: u64, seed: u64, repeat: usize) -> Result<String> {
    let (case, loaded) = embedded("basic")?;
    let kernel = run::kernel_for(&loaded, &case).map_err(Error::Io)?;
    let mut device = EmuDevice::new();
    let opts = Options {
        lanes,
        seed,
        ..Options::default()
    };
    let (mut native, mut pipeline) = (Vec::new(), Vec::new());
    // Interleaved, so drift in the machine's speed hits both alike.
    for _ in 0..repeat.max(1) {
        let started = Instant::now();
        let failures = native_single_thread(lanes, seed);
        native.push(started.elapsed().as_secs_f64());
        if failures != 0 {
            return Err(Error::Io(format!(
                "native baseline disagreed with the model on {failures} lanes"
            )));
        }
        pipeline.push(timed_pass(&mut device, &case, &loaded, kernel, &opts)?);
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (emu_best, native_best) = (best(&pipeline), best(&native));
    let (emu_s, native_s) = (median(pipeline), median(native));
    let rate = |s: f64| lanes as f64 / s / 1e6;
    let target = if lanes == TARGET_LANES {
        let verdict = if rate(emu_s) * 1e6 >= TARGET_LANES_PER_S {
            "met"
        } else {
            "NOT met"
        };
        format!(
            "speed target {:.0} M lanes/s for {TARGET_LANES} lanes: {verdict} (median {:.1})\n",
            TARGET_LANES_PER_S / 1e6,
            rate(emu_s)
        )
    } else {
        format!(
            "(the speed target of {:.0} M lanes/s is stated for --lanes {TARGET_LANES})\n",
            TARGET_LANES_PER_S / 1e6
        )
    };
    Ok(format!(
        "bench: xad_basic, {lanes} lanes, seed {seed}, threads {}, host SIMD {}, {} runs each (median, best)\n\
         emulated gfx1100 pipeline (generate + emulate + verify): {:8.3} s {:8.3} s  {:9.1} M lanes/s\n\
         native loop, 1 thread (generate + compute + verify):     {:8.3} s {:8.3} s  {:9.1} M lanes/s\n\
         ratio emulated pipeline / native loop: {:.2}x\n\
         {target}",
        rayon::current_num_threads(),
        host_simd(),
        repeat.max(1),
        emu_s,
        emu_best,
        rate(emu_s),
        native_s,
        native_best,
        rate(native_s),
        native_s / emu_s,
    ))
}
