//! Fuzz target for the code-object loader, on stable Rust (no cargo-fuzz):
//! seeded mutations of every embedded code object (bit flips, byte sets,
//! truncations, ELF header / program header / section header / symbol fields
//! set to boundary values, metadata and descriptor bytes) fed to
//! `CodeObject::parse`, the HIP path's `check_load` and the emulator's
//! load + launch.
//!
//! Asserted for every input: nothing panics; an accepted object also passes
//! `codeobj::elf::validate`, and an independent reader (the one the emulated
//! HIP runtime uses to find where an image ends) finds every header table,
//! segment and section inside the file, every kernel's descriptor and entry
//! inside it: so `hipModuleLoadData` could not read past the end.
//!
//! Bounds (read from the environment; the defaults keep `cargo test` short):
//! `XAD_FUZZ_ITERS` iterations (default 3000), `XAD_FUZZ_SECONDS` a time limit
//! that stops early (default none), `XAD_FUZZ_SEED` (default fixed), and
//! `XAD_FUZZ_FIRST` the first iteration number (default 0). Iterations run on
//! every core. Each is reproducible alone from the seed and iteration number
//! that a failure message names (it prints the variables that rerun just it). `ci/test.sh` runs a longer bounded pass.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use xad_harness::platform::codeobj::{elf, kernarg, ArgValue, CodeObject, TargetId};
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::embedded::EMBEDDED;
use xad_harness::platform::emu::{EmuDevice, EmuOptions};

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok().filter(|v| !v.is_empty())?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not an unsigned integer")),
    )
}

fn u16_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 2)
        .map_or(0, |s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}
fn u32_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 4)
        .map_or(0, |s| u64::from(u32::from_le_bytes(s.try_into().unwrap())))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap()))
}

/// Where a field lives and how wide it is.
#[derive(Debug, Clone, Copy)]
struct Field {
    at: usize,
    width: usize,
}

/// Every header field worth aiming at in `bytes` (as the unmutated file lays
/// them out): ELF header offsets, counts and sizes; each program header's
/// offset, sizes and address; each section header's name, type, offset,
/// size, link and entry size; each symbol's name, section index and value.
fn fields(bytes: &[u8]) -> Vec<Field> {
    let f = |at, width| Field { at, width };
    let mut out = vec![
        f(8, 1),
        f(16, 2),
        f(18, 2),
        f(32, 8),
        f(40, 8),
        f(48, 4),
        f(54, 2),
        f(56, 2),
        f(58, 2),
        f(60, 2),
        f(62, 2),
    ];
    let (phoff, phnum) = (u64_at(bytes, 32) as usize, u16_at(bytes, 56) as usize);
    for i in 0..phnum {
        let ph = phoff + i * 56;
        out.extend([
            f(ph, 4),
            f(ph + 8, 8),
            f(ph + 16, 8),
            f(ph + 32, 8),
            f(ph + 40, 8),
        ]);
    }
    let (shoff, shnum) = (u64_at(bytes, 40) as usize, u16_at(bytes, 60) as usize);
    for i in 0..shnum {
        let sh = shoff + i * 64;
        out.extend([
            f(sh, 4),
            f(sh + 4, 4),
            f(sh + 16, 8),
            f(sh + 24, 8),
            f(sh + 32, 8),
            f(sh + 40, 4),
            f(sh + 56, 8),
        ]);
        if matches!(u32_at(bytes, sh + 4), 2 | 11) {
            let (off, size) = (
                u64_at(bytes, sh + 24) as usize,
                u64_at(bytes, sh + 32) as usize,
            );
            for sym in (off..off + size).step_by(24) {
                out.extend([f(sym, 4), f(sym + 6, 2), f(sym + 8, 8)]);
            }
        }
    }
    out.retain(|fl| fl.at + fl.width <= bytes.len());
    out
}

/// Values at the edges of what a field can mean for this file.
fn boundary(rng: &mut Xoshiro256PlusPlus, len: u64) -> u64 {
    let picks = [
        0,
        1,
        7,
        8,
        63,
        64,
        255,
        256,
        len - 1,
        len,
        len + 1,
        len * 2,
        0x7fff,
        0xffff,
        0x7fff_ffff,
        0xffff_ffff,
        i64::MAX as u64,
        u64::MAX,
    ];
    picks[rng.random_range(0..picks.len())]
}

/// One seeded mutation of `bytes` in place (the file may shrink).
fn mutate(rng: &mut Xoshiro256PlusPlus, bytes: &mut Vec<u8>, fields: &[Field]) {
    let len = bytes.len();
    match rng.random_range(0..6) {
        0 => {
            let at = rng.random_range(0..len);
            bytes[at] ^= 1 << rng.random_range(0..8);
        }
        1 => {
            let at = rng.random_range(0..len);
            bytes[at] = [0, 0xff, 0x7f, 0x80, rng.random()][rng.random_range(0..5)];
        }
        2 => bytes.truncate(rng.random_range(0..len)),
        3 | 4 if !fields.is_empty() => {
            let field = fields[rng.random_range(0..fields.len())];
            let value = boundary(rng, len as u64).to_le_bytes();
            if let Some(slot) = bytes.get_mut(field.at..field.at + field.width) {
                slot.copy_from_slice(&value[..field.width]);
            }
        }
        _ => {
            // Bytes of the metadata note and the descriptors (the second half
            // of the file's first 2 KiB holds both in LLVM's layout).
            let at = rng.random_range(0x200.min(len - 1)..len.min(0x640));
            bytes[at] = rng.random();
        }
    }
}

/// The file extent the emulated HIP runtime computes from the headers (its
/// `elf::content_end`): every table, segment and non-NOBITS section.
fn extent(bytes: &[u8]) -> Option<u64> {
    let mut end = 64u64;
    for (off, entsz, num, is_ph) in [
        (u64_at(bytes, 32), 56u64, u16_at(bytes, 56), true),
        (u64_at(bytes, 40), 64, u16_at(bytes, 60), false),
    ] {
        end = end.max(off.checked_add(entsz * num)?);
        for i in 0..num {
            let e = usize::try_from(off + i * entsz).ok()?;
            let item_end = if is_ph {
                u64_at(bytes, e + 8).checked_add(u64_at(bytes, e + 32))?
            } else if u32_at(bytes, e + 4) == 8 {
                0
            } else {
                u64_at(bytes, e + 24).checked_add(u64_at(bytes, e + 32))?
            };
            end = end.max(item_end);
        }
    }
    Some(end)
}

/// What an accepted code object must satisfy, checked without the parser's help.
fn check_accepted(code: &CodeObject, bytes: &[u8]) -> Result<(), String> {
    elf::validate(bytes).map_err(|e| format!("accepted, but validate refuses it: {e}"))?;
    match extent(bytes) {
        Some(end) if end <= bytes.len() as u64 => {}
        other => {
            return Err(format!(
                "accepted, but its headers reach {other:?}, past the {}-byte file",
                bytes.len()
            ))
        }
    }
    for k in &code.kernels {
        let in_code = code
            .code
            .iter()
            .any(|(a, d)| k.entry_address >= *a && k.entry_address - a < d.len() as u64);
        if !in_code || k.entry_address % 256 != 0 || k.descriptor_address % 64 != 0 {
            return Err(format!(
                "accepted kernel {} with entry 0x{:x}, descriptor 0x{:x}",
                k.meta.name, k.entry_address, k.descriptor_address
            ));
        }
        if xad_harness::platform::codeobj::metadata::check_kernel(&k.meta).is_err() {
            return Err(format!(
                "accepted kernel {} whose metadata fails its own check",
                k.meta.name
            ));
        }
    }
    Ok(())
}

/// Load and launch every kernel of an accepted object on the emulator with
/// the standard lane ABI (or zeroed arguments when its layout differs).
fn run_on_emulator(bytes: &[u8]) -> usize {
    let mut dev = EmuDevice::with_options(EmuOptions {
        threads: 1,
        step_budget: 4_000,
        memory_limit: 1 << 24,
    });
    let Ok(module) = dev.load(bytes) else {
        return 0;
    };
    let kernels: Vec<_> = dev
        .kernels(module)
        .unwrap_or(&[])
        .iter()
        .filter_map(|k| k.meta.clone())
        .collect();
    let mut launched = 0;
    for meta in kernels.iter().take(2) {
        let bufs: Vec<u64> = (0..4).filter_map(|_| dev.alloc(64 << 10).ok()).collect();
        let mut args: Vec<ArgValue> = bufs.iter().map(|&p| ArgValue::Pointer(p)).collect();
        args.push(ArgValue::U32(64));
        args.extend((0..8).map(ArgValue::U32));
        let explicit = meta.args.iter().filter(|a| !a.is_hidden()).count();
        let image = kernarg::build(meta, &args[..explicit.min(args.len())])
            .unwrap_or_else(|_| vec![0; meta.kernarg_segment_size as usize]);
        let block =
            meta.reqd_workgroup_size
                .unwrap_or([64.min(meta.max_flat_workgroup_size), 1, 1]);
        let _ = dev.launch(
            module,
            &meta.name,
            &image,
            Dispatch {
                grid_blocks: [1, 1, 1],
                block,
            },
            Duration::from_secs(5),
        );
        launched += 1;
    }
    launched
}

/// What one fuzz worker did.
#[derive(Default)]
struct Tally {
    done: u64,
    accepted: u64,
    launched: usize,
}

/// Iteration `iteration`'s mutation of one corpus object, and every check on
/// it; a failure panics naming the seed and iteration that reproduce it alone.
fn fuzz_one(
    seed: u64,
    iteration: u64,
    corpus: &[(&str, &[u8], Vec<Field>)],
    device: &TargetId,
    tally: &mut Tally,
) {
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ iteration.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let (name, original, fields) = &corpus[rng.random_range(0..corpus.len())];
    let mut bytes = original.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        if !bytes.is_empty() {
            mutate(&mut rng, &mut bytes, fields);
        }
    }
    let at = format!(
        "seed {seed} iteration {iteration} ({name}, XAD_FUZZ_SEED={seed} XAD_FUZZ_FIRST={iteration} XAD_FUZZ_ITERS=1)"
    );
    let parsed = catch_unwind(|| CodeObject::parse(&bytes))
        .unwrap_or_else(|_| panic!("CodeObject::parse panicked: {at}"));
    let hip =
        catch_unwind(|| xad_harness::platform::hip::safe::check_load(&bytes, "fuzz", "gfx1100"))
            .unwrap_or_else(|_| panic!("check_load panicked: {at}"));
    // The HIP path accepts exactly what parses and targets the device.
    let runs_here = parsed.as_ref().is_ok_and(|c| c.target.runs_on(device));
    assert_eq!(
        hip.is_ok(),
        runs_here,
        "parse and the HIP path's check disagree: {at}"
    );
    if let Ok(code) = &parsed {
        tally.accepted += 1;
        if let Err(e) = check_accepted(code, &bytes) {
            panic!("{e}: {at}");
        }
        tally.launched += catch_unwind(AssertUnwindSafe(|| run_on_emulator(&bytes)))
            .unwrap_or_else(|_| panic!("emulator panicked: {at}"));
    }
    tally.done += 1;
}

#[test]
fn mutated_code_objects_never_panic_and_accepted_ones_stay_in_bounds() {
    let iterations = env_u64("XAD_FUZZ_ITERS").unwrap_or(3000);
    let first = env_u64("XAD_FUZZ_FIRST").unwrap_or(0);
    let limit = env_u64("XAD_FUZZ_SECONDS").map(Duration::from_secs);
    let seed = env_u64("XAD_FUZZ_SEED").unwrap_or(0x10ad_c0de);
    let corpus: Vec<(&str, &[u8], Vec<Field>)> = EMBEDDED
        .iter()
        .map(|k| (k.name, k.bytes, fields(k.bytes)))
        .collect();
    // Every core takes the next iteration number in turn: each iteration is
    // still a pure function of (seed, number), so a time-limited pass covers
    // the numbers 0..n with at most one gap per worker at the stop.
    let device = TargetId::parse("gfx1100").expect("a target ID");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicU64::new(first);
    let started = Instant::now();
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut tally = Tally::default();
                    while !limit.is_some_and(|l| started.elapsed() >= l) {
                        let iteration = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if iteration >= first.saturating_add(iterations) {
                            break;
                        }
                        fuzz_one(seed, iteration, &corpus, &device, &mut tally);
                    }
                    tally
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let done: u64 = tallies.iter().map(|t| t.done).sum();
    let accepted: u64 = tallies.iter().map(|t| t.accepted).sum();
    let launched: usize = tallies.iter().map(|t| t.launched).sum();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "codeobj fuzz: seed {seed}: {done} mutated code objects in {seconds:.1} s ({:.0}/s, {workers} threads), {accepted} accepted, {launched} launches",
        done as f64 / seconds.max(1e-9)
    );
    assert!(
        done > 0 || limit == Some(Duration::ZERO),
        "no iteration ran"
    );
}

/// A negative control for the invariant above: the extent reader does see a
/// segment that points past the end, and the parser refuses that file.
#[test]
fn the_extent_reader_sees_a_segment_past_the_end() {
    let mut bytes = EMBEDDED[0].bytes.to_vec();
    assert_eq!(
        extent(&bytes),
        Some(bytes.len() as u64),
        "the unmutated file ends where its headers say"
    );
    let phoff = u64_at(&bytes, 32) as usize;
    let filesz = phoff + 56 + 32; // program header 1's p_filesz
    let past = (bytes.len() as u64 + 4096).to_le_bytes();
    bytes[filesz..filesz + 8].copy_from_slice(&past);
    assert!(extent(&bytes).unwrap() > bytes.len() as u64);
    assert!(CodeObject::parse(&bytes).is_err());
}
