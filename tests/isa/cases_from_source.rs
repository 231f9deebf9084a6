//! The case kernels assembled from source, per processor: for gfx9 (CDNA: gfx908, gfx90a,
//! gfx942, gfx950) and gfx10 (RDNA1/2: gfx1010, gfx1030), the kernels/cases stubs they meet the
//! needs of (frames kernels/include/xad_frame_gfx9.inc and xad_frame_gfx10.inc) are assembled
//! here from source for every processor of the family with the LLVM that
//! knows it (independently of build.rs, which embeds them per
//! `target::TARGETS` row; tests/isa/cases_encoding.rs checks those), with LLVM's
//! disassembly read back:
//! - the stubs built for each processor are exactly the kernels of the cases it has
//!   (`cases::catalogue_for` of a gfx9/gfx10 `Target`);
//! - every `v_xad_u32` is, in order, the case table's op (`cases::program`)
//!   in that generation's encoding (`encode::encode_for`: opcode D1F3 on gfx9,
//!   D745 on gfx10, m0 = 124 and null = 125; gfx11 swapped them), and every
//!   `v_mov_b32_dpp` the move the table says feeds it (`encode::movs_for`);
//! - the code object's wave size (metadata and descriptor), kernarg size and
//!   argument count are the case's.
//!
//! gfx950 needs LLVM 22 (LLVM 19 does not know it); without
//! /usr/lib/llvm-22 it is skipped with a printed note. A changed table entry
//! or move must be caught (negative controls).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use xad_harness::isa::Isa;
use xad_harness::model::cases::encode::{encode_for, movs_for};
use xad_harness::model::cases::op_table::{Op, Src};
use xad_harness::model::cases::{self, Case};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::target::Target;
use xad_harness::platform::toolchain::{self, Toolchain};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const LLVM22: &str = "/usr/lib/llvm-22/bin";

/// A gfx9/gfx10 target as its row will look (not in `TARGETS` yet).
fn target(name: &'static str, isa: Isa) -> Target {
    Target {
        name,
        isa,
        architecture: "test",
        cards: "test",
        covers: &[],
        runtime_since: None,
        features: &[],
    }
}

struct Family {
    isa: Isa,
    /// The first dword's upper half of `v_xad_u32` (VOP3 encoding + opcode).
    opcode: u32,
    /// Targets LLVM 19 assembles.
    llvm19: &'static [&'static str],
    /// Targets only LLVM 22 knows.
    llvm22: &'static [&'static str],
}

const GFX9: Family = Family {
    isa: Isa::GFX9,
    opcode: 0xD1F3,
    llvm19: &["gfx908", "gfx90a", "gfx942"],
    llvm22: &["gfx950"],
};
const GFX10: Family = Family {
    isa: Isa::GFX10,
    opcode: 0xD745,
    llvm19: &["gfx1010", "gfx1030"],
    llvm22: &[],
};

impl Family {
    /// A target of the family: the encoder asks a target its features,
    /// which all come from the family's Isa.
    fn target(&self) -> Target {
        target(self.llvm19[0], self.isa)
    }
}

/// The words `op` must assemble to on `family`: the case tables' encoder for
/// the family's ISA (opcode, m0/null codes and refusals per generation).
fn expected_words(op: &Op, family: &Family) -> Result<Vec<u32>, String> {
    let words = encode_for(op, &family.target())?;
    // The family's opcode, stated here independently of the encoder.
    if words[0] >> 16 != family.opcode {
        return Err(format!(
            "{op:?}: the encoder's opcode {:04X} is not the family's {:04X}",
            words[0] >> 16,
            family.opcode
        ));
    }
    Ok(words)
}

/// The (text, words) of every instruction of an llvm-objdump listing whose
/// mnemonic is `mnemonic`: `v_xad_u32 v16, v2, v3, v4   // 000000000078: D1F30010 04120702`.
fn lines_of(listing: &str, mnemonic: &str) -> Vec<(String, Vec<u32>)> {
    listing
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(mnemonic))
        .filter_map(|l| {
            let (asm, comment) = l.rsplit_once("//")?;
            let (_, hex) = comment.split_once(": ")?;
            let words = hex
                .split_whitespace()
                .map(|w| u32::from_str_radix(w, 16))
                .collect::<Result<Vec<_>, _>>()
                .ok()?;
            Some((asm.trim().to_string(), words))
        })
        .collect()
}

fn xad_lines(listing: &str) -> Vec<(String, Vec<u32>)> {
    lines_of(listing, "v_xad_u32")
}

/// How one target's objects are built and read: LLVM 19 (proved by the
/// toolchain's gfx11 canary) or LLVM 22 at [`LLVM22`].
struct Tools {
    toolchain: Toolchain,
    objdump: PathBuf,
}

fn llvm19(scratch: &Path) -> Tools {
    let toolchain = toolchain::discover("gfx1100", scratch)
        .expect("an LLVM that assembles gfx1100 (the canary)");
    let objdump = toolchain
        .objdump
        .clone()
        .expect("llvm-objdump beside the proved clang");
    Tools { toolchain, objdump }
}

fn llvm22() -> Option<Tools> {
    let bin = Path::new(LLVM22);
    let (clang, lld, objdump) = (
        bin.join("clang"),
        bin.join("ld.lld"),
        bin.join("llvm-objdump"),
    );
    if !(clang.is_file() && lld.is_file() && objdump.is_file()) {
        return None;
    }
    Some(Tools {
        toolchain: Toolchain {
            clang,
            lld,
            objdump: Some(objdump.clone()),
            origin: LLVM22.into(),
            runtime: toolchain::built_for_runtime(),
        },
        objdump,
    })
}

/// The catalogue kernel stubs of kernels/cases that build.rs builds for `t`
/// (stems, e.g. `xad_vgpr_w64`): every `.s` whose `// needs:` line `t` meets,
/// but `xad_microbench*` and `xad_soak*`, the kernels of `microbench` and
/// `soak`, which are no cases (tests/pipeline/microbench.rs and tests/pipeline/soak.rs check
/// them).
fn sources(t: &Target) -> BTreeSet<String> {
    let path = Path::new(ROOT).join("kernels/cases");
    std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).expect("stub");
            let needs =
                xad_harness::platform::target::parse_needs(text.lines().next().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            t.meets(&needs)
        })
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .filter(|stem| !stem.starts_with("xad_microbench") && !stem.starts_with("xad_soak"))
        .collect()
}

/// Assemble `kernel` for `mcpu` into `dir`; its bytes and disassembly.
fn build(
    tools: &Tools,
    family: &Family,
    mcpu: &str,
    kernel: &str,
    dir: &Path,
) -> (Vec<u8>, String) {
    toolchain::write_target_include(dir, mcpu, Some(family.isa.frame())).expect("xad_target.inc");
    let src = Path::new(ROOT)
        .join("kernels/cases")
        .join(format!("{kernel}.s"));
    let out = dir.join(format!("{kernel}.hsaco"));
    let include = Path::new(ROOT).join("kernels/include");
    tools
        .toolchain
        .build_code_object(mcpu, &src, &out, &[dir, &include])
        .unwrap_or_else(|e| panic!("{mcpu} {kernel}: {e}"));
    let listing = Command::new(&tools.objdump)
        .args(["-d", &format!("--mcpu={mcpu}")])
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tools.objdump.display()));
    assert!(
        listing.status.success(),
        "{mcpu} {kernel}: llvm-objdump: {}",
        String::from_utf8_lossy(&listing.stderr)
    );
    (
        std::fs::read(&out).expect("code object"),
        String::from_utf8_lossy(&listing.stdout).into_owned(),
    )
}

/// Every `v_xad_u32` of `listing`, in order, against `case`'s op table, and
/// every `v_mov_b32_dpp` against the moves feeding them ([`movs_for`]); the
/// first difference, or `None`.
fn compare(case: &Case, ops: &[Op], family: &Family, listing: &str) -> Option<String> {
    let found = xad_lines(listing);
    if found.len() != ops.len() {
        return Some(format!(
            "{}: {} v_xad_u32 in the kernel, {} ops in the table",
            case.name,
            found.len(),
            ops.len()
        ));
    }
    for (j, (op, (text, words))) in ops.iter().zip(&found).enumerate() {
        match expected_words(op, family) {
            Ok(want) if &want == words => {}
            Ok(want) => {
                return Some(format!(
                    "{} op {j}: kernel has `{text}` = {words:08X?}, table says {want:08X?}",
                    case.name
                ))
            }
            Err(e) => return Some(format!("{} op {j}: {e}", case.name)),
        }
    }
    let moves = lines_of(listing, "v_mov_b32_dpp");
    let mut want = Vec::new();
    for (j, op) in ops.iter().enumerate() {
        match movs_for(op, &family.target()) {
            Ok(words) => want.extend(words.into_iter().map(|w| (j, w.to_vec()))),
            Err(e) => return Some(format!("{} op {j}: {e}", case.name)),
        }
    }
    if moves.len() != want.len() {
        return Some(format!(
            "{}: {} v_mov_b32_dpp in the kernel, {} moves in the table",
            case.name,
            moves.len(),
            want.len()
        ));
    }
    for ((text, words), (j, want)) in moves.iter().zip(&want) {
        if words != want {
            return Some(format!(
                "{} op {j}: kernel has `{text}` = {words:08X?}, table's move is {want:08X?}",
                case.name
            ));
        }
    }
    None
}

/// The code object's one kernel has the case's wave size, kernarg size and
/// argument count (metadata and descriptor agree).
fn check_object(case: &Case, mcpu: &str, bytes: &[u8]) {
    let co = CodeObject::parse(bytes).unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
    let k = co
        .kernel(case.kernel)
        .unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
    let at = format!("{mcpu} {}", case.kernel);
    assert_eq!(
        k.meta.wavefront_size, case.wave_size,
        "{at}: metadata wave size"
    );
    assert_eq!(
        k.descriptor.wave_size(),
        case.wave_size,
        "{at}: descriptor wave size"
    );
    assert_eq!(
        k.meta.kernarg_segment_size,
        40 + 4 * case.scalar_args as u32,
        "{at}: kernarg size"
    );
    assert_eq!(
        k.descriptor.kernarg_size, k.meta.kernarg_segment_size,
        "{at}: descriptor kernarg size"
    );
    assert_eq!(k.meta.args.len(), 5 + case.scalar_args, "{at}: arguments");
    assert!(
        co.metadata.target.ends_with(mcpu),
        "{at}: target {}",
        co.metadata.target
    );
}

/// Build and check every kernel of `family` for `mcpu`; returns how many
/// `v_xad_u32` were checked.
fn check_target(tools: &Tools, family: &Family, mcpu: &'static str, scratch: &Path) -> usize {
    let t = target(mcpu, family.isa);
    let cases = cases::catalogue_for(&t);
    let want: BTreeSet<String> = cases.iter().map(|c| c.kernel.to_string()).collect();
    assert_eq!(
        sources(&t),
        want,
        "the kernels/cases stubs built for {mcpu} must be exactly the kernels of the cases it has",
    );
    let dir = scratch.join(mcpu);
    let mut checked = 0;
    for case in &cases {
        // The workload cases (SHA-256) have no op table: tests/pipeline/sha256.rs
        // checks their kernels on every target.
        let Some(program) = cases::program(case.name) else {
            continue;
        };
        let ops = program.ops;
        let (bytes, listing) = build(tools, family, mcpu, case.kernel, &dir);
        if let Some(wrong) = compare(case, ops, family, &listing) {
            panic!("{mcpu}: {wrong}");
        }
        check_object(case, mcpu, &bytes);
        checked += ops.len();
    }
    checked
}

fn check_family(family: &Family) {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tools = llvm19(scratch.path());
    for &mcpu in family.llvm19 {
        let n = check_target(&tools, family, mcpu, scratch.path());
        println!("{mcpu}: {n} v_xad_u32 checked (LLVM 19)");
    }
    if family.llvm22.is_empty() {
        return;
    }
    match llvm22() {
        Some(tools) => {
            for &mcpu in family.llvm22 {
                let n = check_target(&tools, family, mcpu, scratch.path());
                println!("{mcpu}: {n} v_xad_u32 checked (LLVM 22)");
            }
        }
        None => println!(
            "note: {LLVM22} not found: {} not assembled (LLVM 19 does not know them)",
            family.llvm22.join(", ")
        ),
    }
}

#[test]
fn gfx9_kernels_match_their_tables_on_every_gfx9_target() {
    check_family(&GFX9);
}

#[test]
fn gfx10_kernels_match_their_tables_on_every_gfx10_target() {
    check_family(&GFX10);
}

/// Negative controls: a changed table entry, an op in another slot, a missing
/// op and a gfx11 opcode are all caught on a real gfx9 and gfx10 build.
#[test]
fn a_changed_table_entry_is_caught() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tools = llvm19(scratch.path());
    for (family, mcpu, name, j) in [
        (&GFX9, "gfx942", "inline_src1_w64", 83),
        (&GFX10, "gfx1030", "sreg_w32", 13),
    ] {
        let case = cases::catalogue()
            .into_iter()
            .find(|c| c.name == name)
            .expect("case");
        let ops = cases::program(name).expect("program").ops;
        let (_, listing) = build(
            &tools,
            family,
            mcpu,
            case.kernel,
            &scratch.path().join(mcpu),
        );
        assert_eq!(
            compare(&case, ops, family, &listing),
            None,
            "{mcpu} {name}: the true table passes"
        );
        let mut changed = ops.to_vec();
        changed[j].src.swap(0, 1);
        let wrong = compare(&case, &changed, family, &listing).expect("a swapped slot is caught");
        assert!(wrong.contains(&format!("op {j}:")), "{wrong}");
        let mut changed = ops.to_vec();
        changed[j].src[2] = Src::Inline(129);
        assert!(
            compare(&case, &changed, family, &listing).is_some(),
            "{mcpu} {name}: a changed source is caught"
        );
        assert!(
            compare(&case, &ops[1..], family, &listing).is_some(),
            "{mcpu} {name}: a missing op is caught"
        );
        let gfx11 = Family {
            opcode: 0xD645,
            ..*family
        };
        assert!(
            compare(&case, ops, &gfx11, &listing).is_some(),
            "{mcpu} {name}: the gfx11 opcode is caught"
        );
    }
}

/// Negative controls for the moves: a wrong DPP control, mask, bound_ctrl or
/// source in a table's `v_mov_b32_dpp` is caught against the real gfx9 and
/// gfx10 builds, as is a move the table does not declare.
#[test]
fn a_changed_move_is_caught() {
    use xad_harness::model::cases::op_table::{Dpp, Mov};
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tools = llvm19(scratch.path());
    for (family, mcpu, name, j) in [
        (&GFX9, "gfx90a", "dpp_mov_wave_w64", 9),
        (&GFX10, "gfx1030", "dpp_mov_share_w32", 32),
    ] {
        let case = cases::catalogue()
            .into_iter()
            .find(|c| c.name == name)
            .expect("case");
        let ops = cases::program(name).expect("program").ops;
        let (_, listing) = build(
            &tools,
            family,
            mcpu,
            case.kernel,
            &scratch.path().join(mcpu),
        );
        assert_eq!(
            compare(&case, ops, family, &listing),
            None,
            "{mcpu} {name}: the true table passes"
        );
        let Src::Moved(dst, mov) = ops[j].src[0] else {
            panic!("{name} op {j}: src0 is moved")
        };
        let Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        } = mov.dpp
        else {
            panic!("{name} op {j}: DPP16")
        };
        let wrong = [
            Mov {
                dpp: Dpp::Row {
                    ctrl: ctrl + 1,
                    row_mask,
                    bank_mask,
                    bound_ctrl,
                    fi,
                },
                ..mov
            },
            Mov {
                dpp: Dpp::Row {
                    ctrl,
                    row_mask: row_mask ^ 1,
                    bank_mask,
                    bound_ctrl,
                    fi,
                },
                ..mov
            },
            Mov {
                dpp: Dpp::Row {
                    ctrl,
                    row_mask,
                    bank_mask: bank_mask ^ 4,
                    bound_ctrl,
                    fi,
                },
                ..mov
            },
            Mov {
                dpp: Dpp::Row {
                    ctrl,
                    row_mask,
                    bank_mask,
                    bound_ctrl: !bound_ctrl,
                    fi,
                },
                ..mov
            },
            Mov {
                src: mov.src + 1,
                ..mov
            },
        ];
        for m in wrong {
            let mut changed = ops.to_vec();
            changed[j].src[0] = Src::Moved(dst, m);
            let caught = compare(&case, &changed, family, &listing);
            assert!(
                caught
                    .as_deref()
                    .is_some_and(|e| e.contains(&format!("op {j}:"))),
                "{mcpu} {name}: {m:?} not caught: {caught:?}"
            );
        }
        // The same op without its move (src0 a plain VGPR): one move too many in the kernel.
        let mut changed = ops.to_vec();
        changed[j].src[0] = Src::V(dst, xad_harness::model::cases::op_table::Lane::A);
        assert!(
            compare(&case, &changed, family, &listing).is_some(),
            "{mcpu} {name}: a missing move is caught"
        );
    }
}

/// The m0/null swap is what llvm-mc 19 prints: `v_xad_u32 v5, m0, v2, v3` is
/// D1F30005 040E047C on gfx908 and D7450005 040E047C on gfx1030, `null` in
/// src0 D7450005 040E047D on gfx1030.
#[test]
fn m0_and_null_codes_per_generation() {
    use xad_harness::model::cases::op_table::{Lane, M0};
    let m0 = Op::new(
        0,
        5,
        [Src::Sreg(M0, 0), Src::V(2, Lane::B), Src::V(3, Lane::C)],
    );
    let null = Op::new(0, 5, [Src::Null, Src::V(2, Lane::B), Src::V(3, Lane::C)]);
    assert_eq!(
        expected_words(&m0, &GFX9).unwrap(),
        [0xD1F3_0005, 0x040E_047C]
    );
    assert_eq!(
        expected_words(&m0, &GFX10).unwrap(),
        [0xD745_0005, 0x040E_047C]
    );
    assert_eq!(
        expected_words(&null, &GFX10).unwrap(),
        [0xD745_0005, 0x040E_047D]
    );
    assert!(expected_words(&null, &GFX9).is_err(), "gfx9 has no null");
}
