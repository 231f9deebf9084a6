//! `xad-harness bench`: the emulator pipeline (input generation, emulation of
//! the real `xad_basic` code object, verification of every lane) against a
//! native loop that generates the same inputs, computes the same function and
//! verifies it, in reused chunks, in the same run. Ratios, not absolute times,
//! are what to compare across machines.

use std::time::Instant;

use crate::cases;
use crate::emu::EmuDevice;
use crate::error::{Error, Result};
use crate::inputs;
use crate::run::{self, Options, Status};

/// Lanes per chunk of the native loop (same as the pipeline's default).
const NATIVE_CHUNK: usize = 1 << 17;

/// Generate, compute and verify `lanes` lanes natively on one thread.
fn native_single_thread(lanes: u64, seed: u64) -> u64 {
    let n = NATIVE_CHUNK.min(lanes as usize);
    let (mut a, mut b, mut c, mut out) = (vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let mut failures = 0u64;
    let mut first = 0u64;
    while first < lanes {
        let count = n.min((lanes - first) as usize);
        inputs::fill_sources_serial(seed, first, &mut a[..count], &mut b[..count], &mut c[..count]);
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

pub fn run(lanes: u64, seed: u64) -> Result<String> {
    let case = cases::select("basic").map_err(Error::Usage)?.remove(0);
    let loaded = run::embedded(&case).map_err(Error::Io)?;
    let kernel = run::kernel_for(&loaded, &case).map_err(Error::Io)?;
    let mut device = EmuDevice::new();
    let opts = Options { lanes, seed, ..Options::default() };

    let started = Instant::now();
    let failures = native_single_thread(lanes, seed);
    let native_s = started.elapsed().as_secs_f64();
    if failures != 0 {
        return Err(Error::Io(format!("native baseline disagreed with the model on {failures} lanes")));
    }

    let result = run::run_case(&mut device, &case, &loaded.code, kernel, loaded.source.clone(), &opts);
    if result.status() != Status::Pass {
        let why = result.error.clone().unwrap_or_else(|| format!("{} lanes failed", result.tally.lanes_failed));
        return Err(Error::Io(format!("benchmark run did not pass on {}: {why}", result.executor)));
    }
    let emu_s = result.seconds;
    let rate = |s: f64| lanes as f64 / s / 1e6;
    Ok(format!(
        "bench: xad_basic, {lanes} lanes, seed {seed}, {} threads\n\
         emulated gfx1100 pipeline (generate + emulate + verify): {:8.3} s  {:9.1} M lanes/s\n\
         native loop, 1 thread (generate + compute + verify):     {:8.3} s  {:9.1} M lanes/s\n\
         ratio emulated pipeline / native loop: {:.2}x\n",
        rayon::current_num_threads(),
        emu_s,
        rate(emu_s),
        native_s,
        rate(native_s),
        native_s / emu_s,
    ))
}
