//! The emulator runs gfx10 (RDNA1/2) code, as `EmuDevice::for_target` of
//! gfx1010, gfx1030 and the gfx10-1/gfx10-3 generic targets (everything here
//! is emulated; nothing ran on hardware):
//! - every gfx10 catalogue kernel (the code objects build.rs embeds,
//!   and the same sources assembled here with LLVM 19) matches the
//!   catalogue's CPU model on every lane, wave32 and wave64;
//! - hand-written kernels (tests/kernels/emu/gfx10/kernels): DPP moves
//!   (row_share, row_xmask, dpp8, row/bank masks, fi) feeding v_xad_u32 against
//!   an independent model, a wrong kernel caught, the undocumented DPP read
//!   reported unsettled, the scratch SGPRs placed and unsettled;
//! - kernels LLVM 19 compiled from IR (tests/kernels/emu/gfx10/llvm): LLVM's
//!   own gfx10 initial-state layout and work-item ids in v0/v1/v2;
//! - every gfx10 descriptor refusal, in one line naming the field.

use std::path::Path;
use std::time::Duration;

use xad_harness::model::cases::op_table::Program;
use xad_harness::model::cases::{self, model, Case, LaneData};
use xad_harness::platform::codeobj::{CodeObject, KernelDescriptor};
use xad_harness::platform::device::{Device, Dispatch, Taint};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::embedded;
use xad_harness::pipeline::run::{run_case, CaseResult, KernelSource, Options, Status};
use xad_harness::platform::target::{self, Target};
use xad_harness::platform::toolchain::{self, Toolchain};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn t(name: &str) -> &'static Target {
    target::find(name).unwrap_or_else(|| panic!("no target row {name}"))
}

fn toolchain(dir: &Path) -> Toolchain {
    toolchain::discover("gfx1100", dir).expect("an LLVM that assembles gfx1100 (the canary)")
}

/// Assemble kernels/cases/`kernel`.s for `mcpu` into `dir`.
fn build(tc: &Toolchain, mcpu: &str, kernel: &str, dir: &Path) -> Vec<u8> {
    std::fs::create_dir_all(dir).expect("scratch dir");
    toolchain::write_target_include(dir, mcpu, Some(t(mcpu).frame()))
        .expect("xad_target.inc");
    let src = Path::new(ROOT)
        .join("kernels/cases")
        .join(format!("{kernel}.s"));
    let out = dir.join(format!("{kernel}.hsaco"));
    let include = Path::new(ROOT).join("kernels/include");
    tc.build_code_object(mcpu, &src, &out, &[dir, &include])
        .unwrap_or_else(|e| panic!("{mcpu} {kernel}: {e}"));
    std::fs::read(&out).expect("code object")
}

/// Run `case` from the code object `image` on an emulated `device`.
fn run(device: &'static Target, case: &Case, image: &[u8], lanes: u64, seed: u64) -> CaseResult {
    let code =
        CodeObject::parse(image).unwrap_or_else(|e| panic!("{} {}: {e}", device.name, case.kernel));
    let kernel = code
        .kernel(case.kernel)
        .unwrap_or_else(|e| panic!("{}: {e}", case.kernel))
        .clone();
    let opts = Options {
        lanes,
        seed,
        timeout: Duration::from_secs(120),
        keep: 4,
        chunk_lanes: 1 << 19,
        ..Options::default()
    };
    let source = KernelSource::User {
        path: format!("kernels/cases/{}.s", case.kernel),
    };
    run_case(
        &mut EmuDevice::for_target(device),
        case,
        &code,
        &kernel,
        source,
        &opts,
    )
}

/// The code object build.rs embedded for `target`'s `kernel` (a Vec: the ELF
/// parser wants an allocator-aligned buffer).
fn embedded(target: &str, kernel: &str) -> Vec<u8> {
    embedded::find(target, kernel)
        .unwrap_or_else(|| panic!("{target}: kernel {kernel} not embedded"))
        .bytes
        .to_vec()
}

fn describe(r: &CaseResult) -> String {
    format!(
        "{} ({}): status {:?}, {} of {} lanes failed, error {:?}, guards {:?}, first {:#x?}",
        r.case,
        r.executor,
        r.status(),
        r.tally.lanes_failed,
        r.tally.lanes_checked,
        r.error,
        r.guard_violations,
        r.tally.first
    )
}

/// 1000 + 13 lanes: the last wave of each size and the last workgroup are partial.
const LANES: u64 = 1013;

/// Every catalogue case of each gfx10 target, from the code objects build.rs
/// assembled for it, on the emulated target; generic code objects also on
/// the processors they cover. Two seeds each.
#[test]
fn every_gfx10_kernel_matches_the_model_on_every_gfx10_target() {
    let runs = [
        ("gfx1010", "gfx1010"),
        ("gfx1030", "gfx1030"),
        ("gfx10-1-generic", "gfx10-1-generic"),
        ("gfx10-3-generic", "gfx10-3-generic"),
        ("gfx10-1-generic", "gfx1010"),
        ("gfx10-3-generic", "gfx1030"),
    ];
    let mut failures = Vec::new();
    let mut ran = 0;
    for (code, device) in runs {
        let cases = cases::catalogue_for(t(code));
        assert!(
            cases.len() >= 18,
            "{code}: the gfx10 catalogue has {} cases",
            cases.len()
        );
        for case in cases {
            let image = embedded(code, case.kernel);
            for seed in [1u64, 0x5eed_0000_0000_0010] {
                let r = run(t(device), &case, &image, LANES, seed);
                ran += 1;
                if !r.passed()
                    || r.tally.lanes_checked != LANES
                    || !r.executor.contains(device)
                {
                    failures.push(format!(
                        "{code} code, seed {seed:#x} on emulated {device}: {}",
                        describe(&r)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The same kernels assembled here with LLVM 19 for gfx1010 and gfx1030
/// (not only what build.rs embedded) run exactly, too.
#[test]
fn gfx10_kernels_assembled_with_llvm19_run_exactly() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let mut failures = Vec::new();
    for target in ["gfx1010", "gfx1030"] {
        for case in cases::catalogue_for(t(target)) {
            let image = build(&tc, target, case.kernel, &scratch.path().join(target));
            let r = run(t(target), &case, &image, LANES, 0x10_1e19);
            if !r.passed() || r.tally.lanes_checked != LANES {
                failures.push(format!(
                    "seed 0x101e19 on emulated {target}: {}",
                    describe(&r)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The catalogue's programs with src1 and src2 of every op swapped: a model
/// of (a ^ c) + b, which the gfx10 kernels must fail.
static SWAPPED: std::sync::OnceLock<&'static Program> = std::sync::OnceLock::new();

fn swapped_model(d: &LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
    model::run(SWAPPED.get().expect("set"), d, lanes, out)
}

/// Negative control on the catalogue path: `vgpr_w64` checked against a
/// model with src1 and src2 swapped fails on (nearly) every lane, on gfx1030.
#[test]
fn a_wrong_model_fails_against_a_gfx10_kernel() {
    let case = cases::catalogue_for(t("gfx1030"))
        .into_iter()
        .find(|c| c.name == "vgpr_w64")
        .expect("vgpr_w64");
    SWAPPED.get_or_init(|| {
        let p = cases::program(case.name).expect("table-built case");
        let ops: Vec<_> = p
            .ops
            .iter()
            .map(|op| {
                let mut op = *op;
                op.src.swap(1, 2);
                op
            })
            .collect();
        Box::leak(Box::new(Program {
            ops: Box::leak(ops.into_boxed_slice()),
            ..*p
        }))
    });
    let wrong = Case {
        model: swapped_model,
        ..case
    };
    let r = run(
        t("gfx1030"),
        &wrong,
        &embedded("gfx1030", case.kernel),
        LANES,
        9,
    );
    assert_eq!(r.status(), Status::Fail, "seed 9: {}", describe(&r));
    assert!(
        r.tally.lanes_failed > LANES * 9 / 10,
        "seed 9: {}",
        describe(&r)
    );
}

// ---- DPP moves feeding v_xad_u32 (gfx10 has no VOP3 DPP) ----

/// Output words per lane of tests/kernels/emu/gfx10/kernels/dpp_moves.s.
const DPP_WORDS: usize = 6;
/// dpp8 selects of word 2.
const DPP8_SEL: [usize; 8] = [3, 1, 4, 1, 5, 7, 2, 6];

/// A hand-written test kernel of tests/kernels/emu/gfx10/kernels assembled
/// for `mcpu` with XAD_WAVE64 and XAD_WRONG set (the target's
/// `xad_target.inc` text prepended).
fn test_kernel(
    tc: &Toolchain,
    file: &str,
    mcpu: &str,
    wave64: bool,
    wrong: bool,
    dir: &Path,
) -> Vec<u8> {
    let kernels = Path::new(ROOT).join("tests/kernels/emu/gfx10/kernels");
    let body =
        std::fs::read_to_string(kernels.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let source = format!(
        "{}.set XAD_WAVE64, {}\n.set XAD_WRONG, {}\n{body}",
        toolchain::target_include(mcpu),
        u8::from(wave64),
        u8::from(wrong)
    );
    let stem = format!(
        "{}_{mcpu}_{}{}",
        file.trim_end_matches(".s"),
        if wave64 { 64 } else { 32 },
        if wrong { "_wrong" } else { "" }
    );
    std::fs::create_dir_all(dir).expect("scratch dir");
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).expect("write source");
    let out = dir.join(format!("{stem}.hsaco"));
    tc.build_code_object(mcpu, &src, &out, &[&kernels])
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    std::fs::read(&out).expect("code object")
}

/// The six words of lane `i` in a wave of `wave` lanes, from the DPP
/// definitions (RDNA1/2 ISA guides, "DPP"; LLVM AMDGPUModifierSyntax):
/// row_share:k reads lane k of the 16-lane row, row_xmask:k lane (n ^ k) of
/// the row, dpp8 lane sel[n & 7] of the 8-lane group; row_mask bit r and
/// bank_mask bit b (4-lane bank of the row) gate the write.
fn dpp_model(a: &[u32], b: &[u32], c: &[u32], wave: usize, i: usize) -> [u32; DPP_WORDS] {
    let xad = |x: u32| (x ^ b[i]).wrapping_add(c[i]);
    let (row_base, in_row, group) = (i & !15, i & 15, i & !7);
    let (row, bank) = ((i % wave) / 16, in_row / 4);
    let kept = i as u32;
    let share15 = if (0x5 >> row) & 1 == 1 && (0xa >> bank) & 1 == 1 {
        a[row_base + 15]
    } else {
        kept
    };
    let even = if i % 2 == 0 { a[i ^ 1] } else { kept };
    let low_half = if i % 8 < 4 {
        a[group + 7 - (i & 7)]
    } else {
        kept
    };
    [
        xad(a[row_base + 5]),
        xad(a[row_base | (in_row ^ 9)]),
        xad(a[group + DPP8_SEL[i & 7]]),
        xad(share15),
        xad(even),
        xad(low_half),
    ]
}

/// Seeded inputs for `n` lanes: the first few are edge values.
fn inputs(n: usize, seed: u64) -> [Vec<u32>; 3] {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let edges = [0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    let mut gen = |i: usize| {
        if i < edges.len() {
            edges[i]
        } else {
            rng.random::<u32>()
        }
    };
    [
        (0..n).map(&mut gen).collect(),
        (0..n).map(&mut gen).collect(),
        (0..n).map(&mut gen).collect(),
    ]
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Run the DPP kernel `image` on `dev` over `groups` workgroups of 256 lanes;
/// the mismatching words as "seed, lane, word: got, want" lines. Every output
/// word must be defined (no stopped wave, no undefined or unsettled word).
fn run_dpp(
    dev: &mut EmuDevice,
    image: &[u8],
    wave: usize,
    groups: usize,
    seed: u64,
) -> Vec<String> {
    let module = dev
        .load(image)
        .unwrap_or_else(|e| panic!("load on {}: {e}", dev.target().name));
    let n = groups * 256;
    let [a, b, c] = inputs(n, seed);
    let bufs: Vec<u64> = [n, n, n, n * DPP_WORDS]
        .iter()
        .map(|&len| dev.alloc(len * 4).expect("alloc"))
        .collect();
    for (p, v) in bufs.iter().zip([&a, &b, &c]) {
        dev.write(*p, &bytes(v)).expect("write");
    }
    let mut kernarg: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    kernarg.extend_from_slice(&(n as u32).to_le_bytes());
    kernarg.extend_from_slice(&[0; 4]); // padding to the 8-byte kernarg alignment
    let dispatch = Dispatch {
        grid_blocks: [groups as u32, 1, 1],
        block: [256, 1, 1],
    };
    dev.launch(module, "k", &kernarg, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("seed {seed:#x}: launch: {e}"));
    let mut out = vec![0u8; n * DPP_WORDS * 4];
    dev.read(bufs[3], &mut out).expect("read");
    let definedness = dev
        .definedness(bufs[3], n * DPP_WORDS)
        .expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "seed {seed:#x}: stopped waves {:?}",
        definedness.waves
    );
    assert!(
        definedness.words.is_empty(),
        "seed {seed:#x}: {} tainted words, first {:?}",
        definedness.words.len(),
        definedness.words.first()
    );
    let mut bad = Vec::new();
    for i in 0..n {
        for (w, want) in dpp_model(&a, &b, &c, wave, i).into_iter().enumerate() {
            let at = 4 * (DPP_WORDS * i + w);
            let got = u32::from_le_bytes(out[at..at + 4].try_into().expect("4 bytes"));
            if got != want {
                bad.push(format!(
                    "seed {seed:#x} lane {i} word {w}: got 0x{got:08x}, want 0x{want:08x}"
                ));
            }
        }
    }
    for p in bufs {
        dev.free(p).expect("free");
    }
    bad
}

#[test]
fn dpp_moves_feeding_xad_are_exact_in_wave32_and_wave64() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for (target, seed) in [(t("gfx1010"), 0x10_1001u64), (t("gfx1030"), 0x10_3001)] {
        for wave64 in [false, true] {
            let wave = if wave64 { 64 } else { 32 };
            let image = test_kernel(
                &tc,
                "dpp_moves.s",
                target.name,
                wave64,
                false,
                scratch.path(),
            );
            let bad = run_dpp(
                &mut EmuDevice::for_target(target),
                &image,
                wave,
                3,
                seed + wave as u64,
            );
            assert!(
                bad.is_empty(),
                "dpp_moves.s wave{wave} on emulated {}: {} wrong words, first {:?}",
                target.name,
                bad.len(),
                &bad[..bad.len().min(5)]
            );
        }
    }
}

/// Negative controls: a kernel computing (a' ^ c) + b in word 1 fails on
/// (nearly) every lane and only in word 1; and the model itself
/// discriminates: reading row_xmask:9 as row_share:9 disagrees with it.
#[test]
fn a_wrong_gfx10_dpp_kernel_is_caught() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for wave64 in [false, true] {
        let wave = if wave64 { 64 } else { 32 };
        let image = test_kernel(&tc, "dpp_moves.s", "gfx1030", wave64, true, scratch.path());
        let bad = run_dpp(
            &mut EmuDevice::for_target(t("gfx1030")),
            &image,
            wave,
            1,
            0x10_0bad,
        );
        assert!(
            bad.len() > 200 && bad.iter().all(|l| l.contains("word 1:")),
            "wave{wave}: {} mismatches, first {:?}",
            bad.len(),
            bad.first()
        );
    }
    let [a, b, c] = inputs(64, 5);
    let differs = (0..64).filter(|&i| {
        let share = (a[(i & !15) + 9] ^ b[i]).wrapping_add(c[i]);
        dpp_model(&a, &b, &c, 64, i)[1] != share
    });
    assert!(
        differs.count() >= 60,
        "row_xmask:9 and row_share:9 must differ in nearly every lane"
    );
}

// ---- descriptor refusals (one line naming the field) ----

/// gfx10's `s_endpgm`.
const S_ENDPGM: u32 = 0xBF81_0000;

/// kernarg pointer, workgroup id x, USER_SGPR_COUNT 2 (the catalogue frame's shape).
fn plain(wave64: bool) -> KernelDescriptor {
    KernelDescriptor {
        rsrc2: 2 << 1 | 1 << 7,
        code_properties: 1 << 3 | u16::from(!wave64) << 10,
        ..Default::default()
    }
}

/// Launch `kd` with an `s_endpgm` body on an emulated `target`.
fn launch_raw(target: &'static Target, kd: KernelDescriptor) -> Result<(), String> {
    let mut dev = EmuDevice::for_target(target);
    let m = dev.load_code("raw", &S_ENDPGM.to_le_bytes(), kd);
    let dispatch = Dispatch {
        grid_blocks: [1, 1, 1],
        block: [64, 1, 1],
    };
    dev.launch(m, "raw", &[], dispatch, Duration::from_secs(10))
        .map_err(|e| e.to_string())
}

/// One way to spoil a descriptor.
type Edit = fn(&mut KernelDescriptor);

/// (what the refusal must say, wave64, the edit) for every gfx10 refusal.
const REFUSALS: &[(&str, bool, Edit)] = &[
    ("PRIORITY", false, |k| k.rsrc1 |= 1 << 10),
    ("PRIV is 1", false, |k| k.rsrc1 |= 1 << 20),
    ("DEBUG_MODE", false, |k| k.rsrc1 |= 1 << 22),
    ("BULKY", false, |k| k.rsrc1 |= 1 << 24),
    ("CDBG_USER", false, |k| k.rsrc1 |= 1 << 25),
    ("COMPUTE_PGM_RSRC1 RESERVED1", false, |k| k.rsrc1 |= 1 << 27),
    ("ENABLE_TRAP_HANDLER", false, |k| k.rsrc2 |= 1 << 6),
    ("ENABLE_EXCEPTION_ADDRESS_WATCH", false, |k| {
        k.rsrc2 |= 1 << 13
    }),
    ("ENABLE_EXCEPTION_MEMORY", false, |k| k.rsrc2 |= 1 << 14),
    ("GRANULATED_LDS_SIZE", false, |k| k.rsrc2 |= 1 << 15),
    ("COMPUTE_PGM_RSRC2 RESERVED0", false, |k| k.rsrc2 |= 1 << 31),
    ("COMPUTE_PGM_RSRC3 RESERVED1 (gfx10)", true, |k| {
        k.rsrc3 |= 1 << 4
    }),
    ("COMPUTE_PGM_RSRC3 RESERVED2", true, |k| k.rsrc3 |= 1 << 12),
    ("COMPUTE_PGM_RSRC3 RESERVED3", true, |k| k.rsrc3 |= 1 << 13),
    ("COMPUTE_PGM_RSRC3 RESERVED4", true, |k| k.rsrc3 |= 1 << 20),
    ("COMPUTE_PGM_RSRC3 RESERVED5 (gfx10)", true, |k| {
        k.rsrc3 |= 1 << 31
    }),
    ("KERNEL_CODE_PROPERTIES RESERVED0", false, |k| {
        k.code_properties |= 1 << 8
    }),
    ("KERNEL_CODE_PROPERTIES RESERVED1", false, |k| {
        k.code_properties |= 1 << 13
    }),
    ("reserved1 byte at offset 30", false, |k| k.reserved1[6] = 1),
    ("kernarg_preload is 0x0001", false, |k| {
        k.kernarg_preload = 1
    }),
    (
        "USER_SGPR_COUNT is 2, but the enabled user SGPRs need 6",
        false,
        |k| k.code_properties |= 1,
    ),
    (
        "USER_SGPR_COUNT is 17; gfx10 loads at most 16",
        false,
        |k| k.rsrc2 = (k.rsrc2 & !0x3e) | 17 << 1,
    ),
    ("ENABLE_VGPR_WORKITEM_ID is 3", false, |k| {
        k.rsrc2 |= 3 << 11
    }),
    (
        "GRANULATED_WORKITEM_VGPR_COUNT 63 means 512 VGPRs; gfx10 has at most 256",
        false,
        |k| k.rsrc1 |= 63,
    ),
    (
        "SHARED_VGPR_COUNT is 1, but shared VGPRs exist only in wave64",
        false,
        |k| k.rsrc3 |= 1,
    ),
    (
        "SHARED_VGPR_COUNT 15 adds 120 VGPRs to the 160 allocated",
        true,
        |k| {
            k.rsrc1 |= 39;
            k.rsrc3 |= 15;
        },
    ),
];

/// Every gfx10 refusal names its field in one line, through
/// `KernelDescriptor::validate` and through an emulated gfx1010/gfx1030
/// launch; the unchanged descriptor launches (so each refusal is the edit's).
#[test]
fn each_gfx10_descriptor_refusal_names_its_field() {
    for &(want, wave64, edit) in REFUSALS {
        let mut kd = plain(wave64);
        edit(&mut kd);
        for target in [t("gfx1010"), t("gfx1030")] {
            assert_eq!(
                launch_raw(target, plain(wave64)),
                Ok(()),
                "{want}: the unchanged descriptor"
            );
            let why = kd.validate(target.name).expect_err(want).to_string();
            assert!(
                why.contains(want) && !why.contains('\n'),
                "{}: {why:?} should name {want:?} in one line",
                target.name
            );
            let refused = launch_raw(target, kd).expect_err(want);
            assert!(
                refused.contains(want) && !refused.contains('\n'),
                "{}: launch refused with {refused:?}",
                target.name
            );
        }
    }
}

/// What gfx10 has and gfx11 does not: the scratch user SGPRs (no architected
/// flat scratch) and, in wave64, shared VGPRs; WGP_MODE, MEM_ORDERED and
/// FWD_PROGRESS are accepted on both; an SGPR count (which LLVM 19's code
/// generator writes, see `llvm_compiled_xad_kernel_runs_exactly`) is ignored.
#[test]
fn gfx10_accepts_its_own_fields() {
    let scratch = KernelDescriptor {
        code_properties: 1 << 3 | 1 | 1 << 5,
        rsrc2: 8 << 1 | 1,
        ..plain(false)
    };
    assert_eq!(scratch.validate("gfx1030"), Ok(()));
    let gfx11 = scratch
        .validate("gfx1100")
        .expect_err("gfx11 has architected flat scratch")
        .to_string();
    assert!(
        gfx11.contains("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER"),
        "{gfx11}"
    );
    let modes = KernelDescriptor {
        rsrc1: 7 << 29 | 2 << 6,
        rsrc3: 2,
        ..plain(true)
    };
    assert_eq!(modes.validate("gfx1010"), Ok(()));
    assert_eq!(launch_raw(t("gfx1010"), modes), Ok(()));
}

// ---- kernels LLVM compiled (what a user's simple gfx10 kernel looks like) ----

/// tests/kernels/emu/gfx10/llvm/user_kernels.ll compiled by the project's
/// LLVM for `mcpu` (-O2, code object v5, wave64 with `-mwavefrontsize64`).
fn compile_ir(tc: &Toolchain, mcpu: &str, wave64: bool, dir: &Path) -> Vec<u8> {
    std::fs::create_dir_all(dir).expect("scratch dir");
    let src = Path::new(ROOT).join("tests/kernels/emu/gfx10/llvm/user_kernels.ll");
    let stem = format!("user_{mcpu}_{}", if wave64 { 64 } else { 32 });
    let (obj, out) = (
        dir.join(format!("{stem}.o")),
        dir.join(format!("{stem}.hsaco")),
    );
    let mut cmd = std::process::Command::new(&tc.clang);
    cmd.args([
        "--target=amdgcn-amd-amdhsa",
        &format!("-mcpu={mcpu}"),
        "-nogpulib",
        "-O2",
        "-mcode-object-version=5",
    ]);
    if wave64 {
        cmd.arg("-mwavefrontsize64");
    }
    let done = cmd
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run clang");
    assert!(
        done.status.success(),
        "{stem}: clang: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    tc.link(&obj, &out)
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    std::fs::read(&out).expect("code object")
}

/// Launch kernel `name` of `image` on `dev` with the explicit arguments
/// `args` (padded with zeros to the metadata's kernarg size).
fn launch_user(dev: &mut EmuDevice, image: &[u8], name: &str, args: &[u8], dispatch: Dispatch) {
    let code = CodeObject::parse(image).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut kernarg = args.to_vec();
    kernarg.resize(
        code.kernel(name).expect("kernel").meta.kernarg_segment_size as usize,
        0,
    );
    let module = dev
        .load(image)
        .unwrap_or_else(|e| panic!("{name}: load on {}: {e}", dev.target().name));
    dev.launch(module, name, &kernarg, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", dev.target().name));
}

/// The words of `out` (`words` long) and the indexes the shadow calls tainted.
fn read_out(dev: &mut EmuDevice, out: u64, words: usize) -> (Vec<u32>, Vec<usize>) {
    let mut bytes = vec![0u8; 4 * words];
    dev.read(out, &mut bytes).expect("read");
    let definedness = dev.definedness(out, words).expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "stopped waves {:?}",
        definedness.waves
    );
    (
        bytemuck::cast_slice(&bytes).to_vec(),
        definedness.words.iter().map(|w| w.word).collect(),
    )
}

/// `user_xad` (LLVM's own code: private segment buffer in s[0:3], kernarg
/// pointer in s[4:5], workgroup id x in s6, a branch around the body for
/// lanes >= count) on gfx1010 and gfx1030 in wave32 and wave64: every lane
/// below count exact, every word past it untouched.
#[test]
fn llvm_compiled_xad_kernel_runs_exactly() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let (n, spare) = (1000usize, 40usize);
    for (mcpu, seed) in [("gfx1010", 0x10_1011u64), ("gfx1030", 0x10_3031)] {
        for wave64 in [false, true] {
            let image = compile_ir(&tc, mcpu, wave64, scratch.path());
            let kd = CodeObject::parse(&image)
                .expect("parse")
                .kernel("user_xad")
                .expect("user_xad")
                .descriptor;
            assert!(
                kd.private_segment_buffer() && kd.user_sgpr_count() == 6,
                "{mcpu}: LLVM's gfx10 layout changed: {kd:?}"
            );
            assert_eq!(kd.wave_size(), if wave64 { 64 } else { 32 });
            let mut dev = EmuDevice::for_target(t(mcpu));
            let [a, b, c] = inputs(n, seed);
            let bufs: Vec<u64> = [n, n, n, n + spare]
                .iter()
                .map(|&len| dev.alloc(4 * len).expect("alloc"))
                .collect();
            for (p, v) in bufs.iter().zip([&a, &b, &c]) {
                dev.write(*p, &bytes(v)).expect("write");
            }
            dev.write(bufs[3], &bytes(&vec![0x5a5a_5a5a; n + spare]))
                .expect("poison out");
            let mut args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
            args.extend_from_slice(&(n as u32).to_le_bytes());
            launch_user(
                &mut dev,
                &image,
                "user_xad",
                &args,
                Dispatch {
                    grid_blocks: [n.div_ceil(256) as u32, 1, 1],
                    block: [256, 1, 1],
                },
            );
            let (out, tainted) = read_out(&mut dev, bufs[3], n);
            assert!(
                tainted.is_empty(),
                "{mcpu} wave64={wave64}: tainted words {tainted:?}"
            );
            let wrong: Vec<String> = (0..n)
                .filter(|&i| out[i] != (a[i] ^ b[i]).wrapping_add(c[i]))
                .map(|i| format!("seed {seed:#x} lane {i}: got 0x{:08x}", out[i]))
                .collect();
            assert!(
                wrong.is_empty(),
                "{mcpu} wave64={wave64}: {} wrong, first {:?}",
                wrong.len(),
                wrong.first()
            );
            let mut rest = vec![0u8; 4 * spare];
            dev.read(bufs[3] + 4 * n as u64, &mut rest).expect("read");
            assert!(
                rest.iter().all(|&x| x == 0x5a),
                "{mcpu} wave64={wave64}: a lane >= count wrote"
            );
        }
    }
}

/// `user_ids`: a 3-D workgroup (8 x 4 x 2) in a 3 x 2 grid reads y from v1
/// and z from v2 (gfx10 does not pack them into v0) and workgroup ids x, y
/// from s6, s7: every work-item's word is its own ids, all defined.
#[test]
fn work_item_ids_arrive_in_v0_v1_v2() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let (gx, gy) = (3u32, 2u32);
    let mut want = vec![0u32; (gx * gy * 64) as usize];
    for (wg_y, wg_x, z, y, x) in itertools_free_product(gy, gx) {
        want[(((wg_y * gx + wg_x) * 64) + z * 32 + y * 8 + x) as usize] =
            x + 16 * y + 256 * z + 4096 * wg_x + 65536 * wg_y;
    }
    for mcpu in ["gfx1010", "gfx1030"] {
        for wave64 in [false, true] {
            let image = compile_ir(&tc, mcpu, wave64, scratch.path());
            let kd = CodeObject::parse(&image)
                .expect("parse")
                .kernel("user_ids")
                .expect("user_ids")
                .descriptor;
            assert_eq!(
                kd.workitem_id_dims(),
                2,
                "{mcpu}: the kernel asks for x, y and z"
            );
            let mut dev = EmuDevice::for_target(t(mcpu));
            let out = dev.alloc(4 * want.len()).expect("alloc");
            let mut args = out.to_le_bytes().to_vec();
            args.extend_from_slice(&gx.to_le_bytes());
            launch_user(
                &mut dev,
                &image,
                "user_ids",
                &args,
                Dispatch {
                    grid_blocks: [gx, gy, 1],
                    block: [8, 4, 2],
                },
            );
            let (got, tainted) = read_out(&mut dev, out, want.len());
            assert!(
                tainted.is_empty(),
                "{mcpu} wave64={wave64}: tainted words {tainted:?}"
            );
            let first = (0..want.len()).find(|&i| got[i] != want[i]);
            assert_eq!(
                first,
                None,
                "{mcpu} wave64={wave64}: word {first:?}: got {:#x?}",
                first.map(|i| (got[i], want[i]))
            );
        }
    }
}

/// Every (workgroup y, workgroup x, z, y, x) of the `user_ids` dispatch.
fn itertools_free_product(gy: u32, gx: u32) -> impl Iterator<Item = (u32, u32, u32, u32, u32)> {
    (0..gy).flat_map(move |wy| {
        (0..gx).flat_map(move |wx| {
            (0..2)
                .flat_map(move |z| (0..4).flat_map(move |y| (0..8).map(move |x| (wy, wx, z, y, x))))
        })
    })
}

// ---- the scratch SGPRs: placed, but their values are not the emulator's to give ----

/// The scratch SGPRs shift every later SGPR to where gfx10 puts it (the
/// workgroup id is read from s8 and is right, and defined), while the words
/// computed from them are unsettled: the emulator has no scratch to describe.
#[test]
fn scratch_sgprs_are_placed_and_unsettled() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let image = test_kernel(
        &tc,
        "scratch_sgprs.s",
        "gfx1030",
        false,
        false,
        scratch.path(),
    );
    let kd = CodeObject::parse(&image)
        .expect("parse")
        .kernel("k")
        .expect("k")
        .descriptor;
    assert_eq!(
        (kd.user_sgpr_count(), kd.private_segment_enabled()),
        (8, true),
        "{kd:?}"
    );
    let mut dev = EmuDevice::for_target(t("gfx1030"));
    let lanes = 2 * 64;
    let out = dev.alloc(16 * lanes).expect("alloc");
    let mut args = vec![0u8; 24];
    args.extend_from_slice(&out.to_le_bytes());
    launch_user(
        &mut dev,
        &image,
        "k",
        &args,
        Dispatch {
            grid_blocks: [2, 1, 1],
            block: [64, 1, 1],
        },
    );
    let mut bytes = vec![0u8; 16 * lanes];
    dev.read(out, &mut bytes).expect("read");
    let words: Vec<u32> = bytemuck::cast_slice(&bytes).to_vec();
    let definedness = dev.definedness(out, 4 * lanes).expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "stopped waves {:?}",
        definedness.waves
    );
    let tainted: Vec<(usize, Taint)> = definedness
        .words
        .iter()
        .map(|w| (w.word, w.taint))
        .collect();
    let want: Vec<(usize, Taint)> = (0..4 * lanes)
        .filter(|w| w % 4 != 0)
        .map(|w| (w, Taint::Unsettled))
        .collect();
    assert_eq!(
        tainted, want,
        "words 1-3 of each lane unsettled, word 0 defined"
    );
    assert!(
        (0..lanes).all(|i| words[4 * i] == i as u32),
        "workgroup id from s8: {:?}",
        &words[..8]
    );
}

/// dpp_unsettled.s: the even lanes read their inactive odd neighbours with
/// bound_ctrl=0, fi=0, which the guides leave open: exactly those words are
/// unsettled (neither pass nor fail); the odd lanes, not written by the move,
/// keep i and are defined.
#[test]
fn inactive_dpp16_source_without_fi_is_unsettled_on_gfx10() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for wave64 in [false, true] {
        let image = test_kernel(
            &tc,
            "dpp_unsettled.s",
            "gfx1030",
            wave64,
            false,
            scratch.path(),
        );
        let mut dev = EmuDevice::for_target(t("gfx1030"));
        let n = 256;
        let [a, b, c] = inputs(n, 0x10_5e7);
        let bufs: Vec<u64> = [&a, &b, &c, &a]
            .iter()
            .map(|v| {
                let p = dev.alloc(4 * n).expect("alloc");
                dev.write(p, &bytes(v)).expect("write");
                p
            })
            .collect();
        let mut args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
        args.extend_from_slice(&(n as u32).to_le_bytes());
        launch_user(
            &mut dev,
            &image,
            "k",
            &args,
            Dispatch {
                grid_blocks: [1, 1, 1],
                block: [256, 1, 1],
            },
        );
        let mut out = vec![0u8; 4 * n];
        dev.read(bufs[3], &mut out).expect("read");
        let words: Vec<u32> = bytemuck::cast_slice(&out).to_vec();
        let definedness = dev.definedness(bufs[3], n).expect("definedness");
        assert!(
            definedness.waves.is_empty(),
            "wave64={wave64}: stopped waves {:?}",
            definedness.waves
        );
        let tainted: Vec<(usize, Taint)> = definedness
            .words
            .iter()
            .map(|w| (w.word, w.taint))
            .collect();
        let even: Vec<(usize, Taint)> = (0..n).step_by(2).map(|i| (i, Taint::Unsettled)).collect();
        assert_eq!(tainted, even, "wave64={wave64}");
        assert!(
            (1..n).step_by(2).all(|i| words[i] == i as u32),
            "wave64={wave64}: odd lanes keep i"
        );
    }
}
