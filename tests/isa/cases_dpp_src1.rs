//! The DPP scalar-src1 cases (src/model/cases/dpp_src1.rs): an SGPR, special
//! register or inline constant as src1 of `v_xad_u32_e64_dpp`, which only
//! gfx115x and gfx12 accept (LLVM's FeatureDPPSrc1SGPR).
//!
//! - Their kernels are built for exactly the targets whose ISA has the form,
//!   and each code object's `v_xad_u32` words (disassembled with the
//!   llvm-objdump build.rs found, `--mcpu=<target>`) are `encode_for` of the
//!   case's ops for that target.
//! - The gfx1100 toolchain path refuses the same sources: that is why the
//!   cases do not exist on gfx110x or gfx11-generic.
//! - Every case passes on the emulator for gfx1151, gfx1201 and gfx1200,
//!   each with its own code objects, and a kernel with
//!   one operand changed fails on exactly the word that operand feeds.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::describe;

use xad_harness::model::cases::encode::encode_for;
use xad_harness::model::cases::{specs, Case, Spec};
use xad_harness::pipeline::run::{run_case, CaseResult, KernelSource, Options, Status};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::embedded;
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::{Feature, Target, TARGETS};
use xad_harness::platform::toolchain::{assemble_file, ToolchainError};

fn dpp_src1_specs() -> Vec<&'static Spec> {
    let found: Vec<_> = specs()
        .filter(|s| s.case.requires.contains(&Feature::DppSrc1Scalar))
        .collect();
    assert_eq!(found.len(), 8, "four forms, two wave sizes");
    found
}

/// (disassembly line, words) of every v_xad_u32 in `bytes`, disassembled for `mcpu`.
fn xad_instructions(bytes: &[u8], mcpu: &str, name: &str) -> Vec<(String, Vec<u32>)> {
    let objdump = embedded::objdump_for(mcpu).unwrap_or(embedded::BUILD_OBJDUMP);
    assert!(
        !objdump.is_empty(),
        "build.rs found no llvm-objdump; cannot check encodings"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("{name}.hsaco"));
    std::fs::write(&path, bytes).expect("write code object");
    let out = Command::new(objdump)
        .arg("-d")
        .arg(format!("--mcpu={mcpu}"))
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("running {objdump}: {e}"));
    assert!(
        out.status.success(),
        "llvm-objdump failed on {name} for {mcpu}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut found = Vec::new();
    for line in text.lines() {
        // "<asm>  // 000000001780: D6450010 04110102 FF00B102"
        let Some((_, comment)) = line.rsplit_once("//") else {
            continue;
        };
        let Some((_, hex)) = comment.split_once(": ") else {
            continue;
        };
        let words: Vec<u32> = hex
            .split_whitespace()
            .map_while(|w| u32::from_str_radix(w, 16).ok())
            .collect();
        if words
            .first()
            .is_some_and(|w| w & 0xFFFF_0000 == 0xD645_0000)
        {
            found.push((line.trim().to_string(), words));
        }
    }
    found
}

fn runs_there(t: &Target) -> bool {
    dpp_src1_specs().iter().all(|s| s.case.runs_on(t))
}

#[test]
fn kernels_exist_exactly_where_the_isa_has_the_form() {
    let mut with = Vec::new();
    for t in TARGETS {
        for spec in dpp_src1_specs() {
            let embedded = embedded::find(t.name, spec.case.kernel).is_some();
            assert_eq!(
                embedded,
                spec.case.runs_on(t),
                "{} on {}: embedded {embedded}",
                spec.case.name,
                t.name
            );
        }
        if runs_there(t) {
            with.push(t.name);
        }
    }
    assert_eq!(
        with,
        [
            "gfx1150",
            "gfx1151",
            "gfx1152",
            "gfx1153",
            "gfx1200",
            "gfx1201",
            "gfx12-generic"
        ]
    );
}

#[test]
fn every_target_kernel_encodes_its_declared_forms() {
    let mut checked = 0;
    for t in TARGETS.iter().filter(|t| runs_there(t)) {
        // Generic targets disassemble as their first covered processor would.
        let mcpu = t.covers.first().copied().unwrap_or(t.name);
        for spec in dpp_src1_specs() {
            let (case, ops) = (&spec.case, spec.program.ops);
            let embedded = embedded::find(t.name, case.kernel).expect("embedded (checked above)");
            let found = xad_instructions(embedded.bytes, mcpu, case.kernel);
            assert_eq!(
                found.len(),
                ops.len(),
                "{} on {}: {} v_xad_u32 in the kernel, {} in the table",
                case.name,
                t.name,
                found.len(),
                ops.len()
            );
            for (j, (op, (line, words))) in ops.iter().zip(&found).enumerate() {
                let want = encode_for(op, t)
                    .unwrap_or_else(|e| panic!("{} op {j} on {}: {e}", case.name, t.name));
                assert_eq!(
                    words, &want,
                    "{} op {j} on {}: kernel has `{line}`, table declares {op:?} = {want:08X?}",
                    case.name, t.name
                );
                checked += 1;
            }
        }
    }
    // 7 targets x (24 + 28 + 90 + 90 + 17 + 20 + 90 + 90) ops.
    assert_eq!(checked, 7 * 449);
}

/// Each DPP scalar-src1 form of the tables appears in the kernels: every
/// inline constant with DPP16 and DPP8 in each wave size, and the scalar
/// registers the ISA allows there.
#[test]
fn coverage_of_scalar_src1_forms() {
    use xad_harness::model::cases::op_table::{Dpp, Src, INLINE_CODES, M0, VCC_HI, VCC_LO};
    let ops: Vec<_> = dpp_src1_specs()
        .into_iter()
        .flat_map(|s| s.program.ops.iter().map(move |o| (s.case.wave_size, o)))
        .collect();
    for wave in [32, 64] {
        for dpp8 in [false, true] {
            let has = |pred: &dyn Fn(&Src) -> bool| {
                ops.iter().any(|(w, o)| {
                    *w == wave
                        && matches!(o.dpp, Dpp::Lane8 { .. }) == dpp8
                        && o.dpp != Dpp::None
                        && pred(&o.src[1])
                })
            };
            for code in INLINE_CODES {
                assert!(
                    has(&|s| *s == Src::Inline(code)),
                    "inline {code}, wave{wave}, dpp8 {dpp8}"
                );
            }
            type Pred = fn(&Src) -> bool;
            let kinds: [(&str, Pred); 6] = [
                ("sgpr", |s| matches!(s, Src::Sreg(c, _) if *c < 106)),
                ("vcc_lo", |s| matches!(s, Src::Sreg(VCC_LO, _))),
                ("m0", |s| matches!(s, Src::Sreg(M0, _))),
                ("exec_lo", |s| *s == Src::ExecLo),
                ("null", |s| *s == Src::Null),
                ("src_scc", |s| matches!(s, Src::Scc(_))),
            ];
            for (what, pred) in kinds {
                assert!(has(&pred), "{what} as src1, wave{wave}, dpp8 {dpp8}");
            }
            if wave == 64 {
                assert!(
                    has(&|s| matches!(s, Src::Sreg(VCC_HI, _))),
                    "vcc_hi, dpp8 {dpp8}"
                );
                assert!(has(&|s| *s == Src::ExecHi), "exec_hi, dpp8 {dpp8}");
            }
        }
    }
}

/// `kernel`'s stub (one for every generation: the frame comes from the
/// `xad_frame.inc` written for the target it is assembled for).
fn source(kernel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/cases")
        .join(format!("{kernel}.s"))
}

/// Why the cases do not exist on gfx110x: the assembler refuses an SGPR or
/// inline constant as src1 of a DPP `v_xad_u32` for gfx1100 and gfx11-generic
/// (the same kernel sources assemble for gfx1151: the control).
#[test]
fn the_gfx1100_toolchain_refuses_the_kernels() {
    for spec in dpp_src1_specs() {
        let src = source(spec.case.kernel);
        assemble_file(&src, "gfx1151")
            .unwrap_or_else(|e| panic!("{} for gfx1151: {e}", src.display()));
        for mcpu in ["gfx1100", "gfx11-generic"] {
            match assemble_file(&src, mcpu) {
                Err(ToolchainError::Failed { stderr, .. }) => assert!(
                    stderr.contains("invalid operand for instruction")
                        || stderr.contains("src1 immediate operand invalid"),
                    "{} for {mcpu}: refused, but not for the operand: {stderr}",
                    src.display()
                ),
                Err(other) => panic!(
                    "{} for {mcpu}: expected the assembler's refusal, got {other}",
                    src.display()
                ),
                Ok(_) => panic!(
                    "{} assembled for {mcpu}: gfx110x would have the form after all",
                    src.display()
                ),
            }
        }
    }
}

/// A table that disagrees with its kernel is caught: the same op with src1
/// m0 instead of vcc_lo does not match the gfx1151 kernel's words.
#[test]
fn a_wrong_table_entry_is_caught() {
    use xad_harness::model::cases::op_table::{Src, M0};
    let spec = dpp_src1_specs()
        .into_iter()
        .find(|s| s.case.name == "dpp_src1_sgpr_dpp16_w32")
        .expect("case");
    let t = xad_harness::platform::target::find("gfx1151").expect("gfx1151");
    let found = xad_instructions(
        embedded::find(t.name, spec.case.kernel)
            .expect("embedded")
            .bytes,
        t.name,
        spec.case.kernel,
    );
    let mut op = spec.program.ops[9]; // src1 = vcc_lo
    assert_eq!(found[9].1, encode_for(&op, t).unwrap());
    op.src[1] = Src::Sreg(M0, 5);
    assert_ne!(found[9].1, encode_for(&op, t).unwrap());
}

/// Run `case` with code object `bytes` on an emulated `device` target.
fn run_on(device: &str, case: &Case, bytes: &[u8], lanes: u64, seed: u64) -> CaseResult {
    let t =
        xad_harness::platform::target::find(device).unwrap_or_else(|| panic!("no target {device}"));
    // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
    #[allow(clippy::unnecessary_to_owned)]
    let code =
        CodeObject::parse(&bytes.to_vec()).unwrap_or_else(|e| panic!("{}: {e}", case.kernel));
    let kernel = code
        .kernel(case.kernel)
        .unwrap_or_else(|e| panic!("{}: {e}", case.kernel))
        .clone();
    let opts = Options {
        lanes,
        seed,
        timeout: Duration::from_secs(120),
        keep: 8,
        chunk_lanes: 1 << 19,
        ..Options::default()
    };
    let source = KernelSource::Embedded {
        source: format!("{} for {device}", case.kernel),
    };
    run_case(
        &mut EmuDevice::for_target(t),
        case,
        &code,
        &kernel,
        source,
        &opts,
    )
}

/// 1000 + 13 lanes: the last wave of each size and the last workgroup are
/// partial (lanes past `count` are DPP sources holding 0).
const LANES: u64 = 1013;

#[test]
fn every_case_passes_on_the_emulator() {
    // (emulated device, the target whose embedded code objects it runs). The
    // gfx12-generic code objects are left out: run::run_case refuses a
    // generic code object on a processor device today (its target check
    // compares processors only).
    let runs = [
        ("gfx1151", "gfx1151"),
        ("gfx1201", "gfx1201"),
        ("gfx1200", "gfx1200"),
    ];
    let mut failures = Vec::new();
    for (device, built_for) in runs {
        for spec in dpp_src1_specs() {
            let bytes = embedded::find(built_for, spec.case.kernel)
                .expect("embedded")
                .bytes;
            for seed in [1u64, 0x5eed_0000_0000_0002] {
                let r = run_on(device, &spec.case, bytes, LANES, seed);
                if !r.passed() || r.tally.lanes_checked != LANES {
                    failures.push(format!(
                        "{device} ({built_for} code), seed {seed:#x}: {}",
                        describe(&r)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Lane counts below one wave and at wave and workgroup boundaries.
#[test]
fn boundary_lane_counts() {
    for device in ["gfx1151", "gfx1201"] {
        for name in ["dpp_src1_sgpr_dpp16_w64", "dpp_src1_sgpr_dpp8_w32"] {
            let spec = dpp_src1_specs()
                .into_iter()
                .find(|s| s.case.name == name)
                .expect("case");
            let bytes = embedded::find(device, spec.case.kernel)
                .expect("embedded")
                .bytes;
            for lanes in [1u64, 31, 33, 63, 65, 255, 257] {
                let r = run_on(device, &spec.case, bytes, lanes, 7);
                assert_eq!(
                    r.status(),
                    Status::Pass,
                    "{device}, lanes {lanes}, seed 7: {}",
                    describe(&r)
                );
            }
        }
    }
}

/// `kernel`'s stub assembled for `mcpu` with one line of the case bodies
/// (kernels/include/xad_dpp_src1.inc) replaced: a copy of kernels/include in
/// a scratch directory, the stub in a sibling `cases/`.
fn assemble_edited(kernel: &str, mcpu: &str, from: &str, to: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let scratch = tempfile::tempdir().expect("temp dir");
    let include = scratch.path().join("include");
    let wrappers = scratch.path().join("cases");
    std::fs::create_dir_all(&include)
        .and_then(|()| std::fs::create_dir_all(&wrappers))
        .expect("scratch dirs");
    for entry in std::fs::read_dir(root.join("include")).expect("kernels/include") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, include.join(path.file_name().expect("name"))).expect("copy include");
    }
    let body = std::fs::read_to_string(root.join("include/xad_dpp_src1.inc")).expect("body");
    assert_eq!(
        body.matches(from).count(),
        1,
        "{from:?} must occur once in xad_dpp_src1.inc"
    );
    std::fs::write(include.join("xad_dpp_src1.inc"), body.replace(from, to)).expect("write body");
    let wrapper = wrappers.join(format!("{kernel}.s"));
    std::fs::copy(source(kernel), &wrapper).expect("copy wrapper");
    assemble_file(&wrapper, mcpu).unwrap_or_else(|e| panic!("edited {kernel} for {mcpu}: {e}"))
}

/// Negative controls per generation: word 9 of dpp_src1_sgpr_dpp16 reads
/// src1 = vcc_lo (s23); the same kernel with m0 (s25) there fails on that
/// word in every lane and on no other; word 11 of dpp_src1_sgpr_dpp8 reads
/// inline -7 as src2, and 7 there fails the same way. The unedited sources
/// assembled the same way pass (the edit, not the path, makes them fail).
#[test]
fn a_kernel_with_one_operand_changed_fails() {
    let edits = [
        (
            "dpp_src1_sgpr_dpp16_w32",
            "v25, v2, vcc_lo, v4 row_xmask:9",
            "v25, v2, m0, v4 row_xmask:9",
            9,
        ),
        (
            "dpp_src1_sgpr_dpp8_w64",
            "v27, v2, m0, -7 dpp8",
            "v27, v2, m0, 7 dpp8",
            11,
        ),
    ];
    for device in ["gfx1151", "gfx1201"] {
        for (name, from, to, word) in edits {
            let spec = dpp_src1_specs()
                .into_iter()
                .find(|s| s.case.name == name)
                .expect("case");
            let same = assemble_edited(spec.case.kernel, device, from, from);
            let r = run_on(device, &spec.case, &same, 200, 11);
            assert_eq!(
                r.status(),
                Status::Pass,
                "{device} unedited {name}, seed 11: {}",
                describe(&r)
            );
            let wrong = assemble_edited(spec.case.kernel, device, from, to);
            let r = run_on(device, &spec.case, &wrong, 200, 11);
            assert_eq!(
                r.status(),
                Status::Fail,
                "{device} edited {name}, seed 11: {}",
                describe(&r)
            );
            assert_eq!(
                r.tally.lanes_failed,
                200,
                "{device} {name}: every lane reads the changed operand: {}",
                describe(&r)
            );
            assert!(
                r.tally.first.iter().all(|m| m.word == word),
                "{device} {name}: only word {word} differs: {}",
                describe(&r)
            );
        }
    }
}
