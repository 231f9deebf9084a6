//! `soak`'s engine in this process, on the emulator (`commands::soak::endurance`): the device's
//! input generator is `model::inputs` on every generation, the host re-check catches a device
//! check that never fires, a device record the host cannot reproduce is a fault, and a watchdog
//! timeout names no option soak lacks. The command as a process is the `cli` crate's `soak`.

use crate::common::{self, Through};
use std::time::Duration;
use xad_harness::commands::soak::endurance::{self, Outcome, Request, Verdict};
use xad_harness::platform::backend::BackendChoice;
use xad_harness::platform::device::DeviceError;
use xad_harness::platform::emu::{EmuDevice, XadFault, EMULATED_COMPUTE_UNITS};
use xad_harness::platform::target::{self, Target};

fn t(name: &str) -> &'static Target {
    target::find(name).unwrap_or_else(|| panic!("no target {name}"))
}

fn request(seed: u64, sample: u64) -> Request {
    Request {
        duration: endurance::MIN_DURATION,
        backend: BackendChoice::Emu,
        device: None,
        seed,
        sample,
        timeout: Duration::from_secs(600),
        interrupt: None,
        // Two small dispatches: a known amount of work, quick in a debug build.
        fixed: Some((
            endurance::Shape {
                lanes: 1024,
                iterations: 8,
            },
            2,
        )),
    }
}

/// One short soak of `code` on an emulated `target` with `faults` injected.
fn soak_emulated(
    target: &'static Target,
    code: &[u8],
    faults: &[XadFault],
    req: &Request,
) -> Outcome {
    let mut dev = EmuDevice::for_target(target);
    dev.set_xad_faults(faults.to_vec());
    endurance::run_on(
        &mut dev,
        &format!("emulated {}", target.name),
        target,
        false,
        EMULATED_COMPUTE_UNITS,
        code,
        req,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("soak on {}: {e}", target.name))
}

fn embedded(target: &'static Target) -> &'static [u8] {
    endurance::kernel_for(target)
        .unwrap_or_else(|e| panic!("{e}"))
        .bytes
}

/// A copy of the soak body with `edit` applied, assembled for gfx1100.
fn edited_kernel(name: &str, from: &str, to: &str) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::scratch(name);
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::create_dir_all(dir.join("gfx11")).unwrap();
    let body = std::fs::read_to_string(root.join("kernels/include/xad_soak.inc")).unwrap();
    assert!(body.contains(from), "{from:?} is not in xad_soak.inc");
    std::fs::write(dir.join("include/xad_soak.inc"), body.replacen(from, to, 1)).unwrap();
    let src = dir.join("gfx11/xad_soak_w32.s");
    std::fs::write(
        &src,
        ".include \"xad_soak.inc\"\nXAD_SOAK xad_soak_w32, 0\n",
    )
    .unwrap();
    xad_harness::platform::toolchain::assemble_file(&src, "gfx1100")
        .expect("the edited soak kernel assembles")
}

/// Every generation's soak kernel generates inputs.rs's uniform words: with
/// every lane re-checked, each lane's checksum over all its iterations is the
/// CPU's, and an injected lane's record holds exactly the words the seed
/// gives for its first input index.
#[test]
fn the_device_generator_is_inputs_rs_on_every_generation() {
    for name in [
        "gfx1100", "gfx1151", "gfx1201", "gfx1030", "gfx90a", "gfx942",
    ] {
        let target = t(name);
        for seed in [1u64, 0xdead_beef_0000_0042] {
            let faults = [
                XadFault { lane: 0, bit: 0 },
                XadFault { lane: 37, bit: 31 },
                XadFault { lane: 1000, bit: 7 },
            ];
            let out = soak_emulated(target, embedded(target), &faults, &request(seed, u64::MAX));
            assert!(out.dispatches >= 1);
            // Every lane of every dispatch was re-computed; only the faulty ones disagree.
            assert_eq!(
                out.checksum_only, 0,
                "{name} seed {seed}: {:#?}",
                out.findings
            );
            assert_eq!(
                out.unreproduced, 0,
                "{name} seed {seed}: {:#?}",
                out.findings
            );
            assert_eq!(
                out.confirmed,
                3 * out.dispatches,
                "{name}: {:#?}",
                out.findings
            );
            for f in out.findings.iter().filter(|f| f.dispatch == 0) {
                assert_eq!(f.iteration, Some(0), "{name}");
                assert_eq!(f.index, f.lane, "first dispatch, iteration 0: index = lane");
                let (a, b, c) = xad_harness::model::inputs::uniform_sources(seed, f.index);
                assert_eq!(
                    (f.record.a, f.record.b, f.record.c),
                    (a, b, c),
                    "{name} lane {}",
                    f.lane
                );
                let bit = faults.iter().find(|x| x.lane == f.lane).unwrap().bit;
                assert_eq!(f.record.got, ((a ^ b).wrapping_add(c)) ^ (1 << bit));
                // Every iteration of the lane was wrong, and the device counted each.
                assert_eq!(u64::from(f.record.mismatches), out.max_shape[1]);
                assert!(matches!(f.verdict, Verdict::Confirmed { .. }));
            }
        }
    }
}

#[test]
fn the_host_recheck_catches_a_device_check_that_never_fires() {
    // The "independent" check copies v_xad_u32's result: it can never disagree.
    let liar = edited_kernel(
        "soak_liar",
        "v_xor_b32 v16, v12, v13                   // check: the independent sequence\n  SOAK_ADD v16, v16, v14",
        "v_mov_b32 v16, v15                        // check: a copy of got",
    );
    let faults = [XadFault { lane: 3, bit: 5 }];
    let out = soak_emulated(t("gfx1100"), &liar, &faults, &request(11, u64::MAX));
    assert_eq!(out.device_mismatches, 0, "the lying check recorded nothing");
    assert_eq!(out.checksum_only, out.dispatches, "{:#?}", out.findings);
    assert_eq!(out.exit_code, 1);
    let text = out.lines().join("\n");
    assert!(
        text.contains("lane 3") && text.contains("the device's check recorded nothing"),
        "{text}"
    );
    // The default sample is random; with the fault on every lane it is found too.
    let everywhere: Vec<XadFault> = (0..1024).map(|lane| XadFault { lane, bit: 1 }).collect();
    let out = soak_emulated(
        t("gfx1100"),
        &liar,
        &everywhere,
        &request(11, endurance::DEFAULT_SAMPLE),
    );
    assert!(
        out.checksum_only > 0 && out.exit_code == 1,
        "{}",
        out.lines().join("\n")
    );
}

#[test]
fn a_device_record_the_host_cannot_reproduce_is_a_fault_not_a_mismatch() {
    // The check adds one too many: it flags correct v_xad_u32 results.
    let wrong = edited_kernel(
        "soak_wrong_check",
        "v_alignbit_b32 v11, v11, v11, 31",
        "v_add_nc_u32 v16, 1, v16\n  v_alignbit_b32 v11, v11, v11, 31",
    );
    let out = soak_emulated(t("gfx1100"), &wrong, &[], &request(12, 16));
    assert!(out.unreproduced > 0, "{:#?}", out.findings);
    assert_eq!(out.confirmed + out.checksum_only, 0);
    assert_eq!(out.exit_code, 3);
    assert!(out
        .lines()
        .join("\n")
        .contains("the independent check did not compute (a ^ b) + c"));
}

/// Issue 27: soak's watchdog message names no option soak lacks (the device's
/// own text says "raise it with --timeout", a `run`/`replay` option): it says
/// the limit is fixed and the device stopped responding. Exit 3, one line.
#[test]
fn a_soak_watchdog_timeout_names_no_option_soak_lacks() {
    let target = t("gfx1100");
    // An emulated device whose every launch misses the watchdog, as a hung GPU's does.
    let mut dev = Through(EmuDevice::for_target(target), |_, _, _, _, _, timeout| {
        Err(DeviceError::Timeout(timeout))
    });
    // The soak's outcome keeps the error (and what ran before it) for its report.
    let out = endurance::run_on(
        &mut dev,
        "emulated gfx1100",
        target,
        false,
        EMULATED_COMPUTE_UNITS,
        embedded(target),
        &request(1, 64),
        &mut |_| {},
    )
    .expect("a fault ends the soak, not its outcome");
    let Some(text) = out.error.clone() else {
        panic!("a hung dispatch is an error");
    };
    assert_eq!(out.exit_code, 3, "{text}");
    assert_eq!(out.dispatches, 0, "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("soak dispatch 0: kernel did not complete within 600s")
            && text.contains("soak's watchdog")
            && text.contains("stopped responding"),
        "{text}"
    );
    assert!(
        !text.contains("--timeout"),
        "soak takes no --timeout: {text}"
    );
}
