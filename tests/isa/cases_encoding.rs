//! Every table-built case's kernel encodes what the case declares, on every
//! target of `target::TARGETS`: each embedded code object is disassembled with
//! the llvm-objdump build.rs found, `--mcpu=<target>`, and its `v_xad_u32`
//! instructions must match the case's ops, in order, twice over:
//! - words: the instruction's dwords (first dword 0xD645xxxx, then src fields,
//!   then the literal or DPP word) equal `cases::encode::encode_for` of the op
//!   and the target's ISA (the DPP scalar-src1 forms only where it has them);
//! - text: LLVM's disassembly of them equals the op written as LLVM prints it
//!   ([`asm_text`], built from the table's operand forms alone, not from the
//!   encoder), so the encoder and the tables cannot agree on a mistake.
//!
//! Since the gfx11 and gfx12 builds of each kernels/cases stub both match
//! the same tables, they hold the same forms in the same order. Also checks the
//! kernel's wave size (descriptor and metadata), argument list and target ID.

use std::collections::HashMap;
use std::sync::OnceLock;

use xad_harness::model::cases::encode::{encode, encode_for, movs_for};
use xad_harness::model::cases::op_table::{self, Dpp, Op, Src};
use xad_harness::model::cases::{specs, Spec};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::embedded;
use xad_harness::platform::target::{Target, TARGETS};

/// One disassembled `v_xad_u32`: LLVM's text (comment stripped) and its words.
#[derive(Debug, Clone)]
struct Found {
    text: String,
    words: Vec<u32>,
}

/// The `v_xad_u32` instructions of `objdump -d` output, in order: VOP3 words
/// whose first dword's upper half is `opcode` (D1F3 on gfx9, D745 on gfx10,
/// D645 on gfx11/gfx12).
fn xad_lines(listing: &str, opcode: u32) -> Vec<Found> {
    lines_where(listing, |text, words| {
        !text.starts_with("v_mov_b32") && words.first().is_some_and(|w| w >> 16 == opcode)
    })
}

/// The `v_mov_b32_dpp` instructions of `objdump -d` output, in order.
fn mov_lines(listing: &str) -> Vec<Found> {
    lines_where(listing, |text, _| text.starts_with("v_mov_b32_dpp"))
}

/// The (text, words) of listing lines `keep` accepts.
fn lines_where(listing: &str, keep: impl Fn(&str, &[u32]) -> bool) -> Vec<Found> {
    let mut found = Vec::new();
    for line in listing.lines() {
        // "<asm>  // 000000001780: D6450010 04110102"
        let Some((asm, comment)) = line.rsplit_once("//") else {
            continue;
        };
        let Some((_, hex)) = comment.split_once(": ") else {
            continue;
        };
        let words: Vec<u32> = hex
            .split_whitespace()
            .map_while(|w| u32::from_str_radix(w, 16).ok())
            .collect();
        let text = llvm19_literals(asm.trim());
        if keep(&text, &words) {
            found.push(Found { text, words });
        }
    }
    found
}

/// LLVM 22's objdump (the one that disassembles gfx950 and gfx1153) marks a
/// literal whose value also has an inline constant as `lit(0xffffffff)`;
/// LLVM 19 prints the value as it would any literal. The words are compared
/// separately, so the text is brought to LLVM 19's spelling.
fn llvm19_literals(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("lit(0x") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "lit(0x".len()..];
        let Some(end) = after.find(')') else { break };
        match u32::from_str_radix(&after[..end], 16) {
            Ok(v) => out.push_str(&literal_text(v)),
            Err(_) => out.push_str(&rest[at..at + "lit(0x".len() + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The VOP3 opcode field (first dword's upper half) of `v_xad_u32` on `target`.
fn xad_opcode(target: &str) -> u32 {
    use xad_harness::isa::Generation;
    match xad_harness::platform::target::find(target)
        .expect("target")
        .generation()
    {
        Generation::Gfx9 => 0xD1F3,
        Generation::Gfx10 => 0xD745,
        Generation::Gfx11 | Generation::Gfx12 => 0xD645,
    }
}

/// One kernel's disassembled `v_xad_u32`s and `v_mov_b32_dpp`s.
struct Listing {
    xads: Vec<Found>,
    movs: Vec<Found>,
}

/// The listing of `name` as built for `target` (`--mcpu=<target>`), read.
fn disassemble(target: &str, name: &str) -> Listing {
    let text = crate::listings::listing(target, name);
    Listing {
        xads: xad_lines(text, xad_opcode(target)),
        movs: mov_lines(text),
    }
}

/// Every (target, kernel) read once per test binary (the checks below share it).
fn all_disassembled() -> &'static HashMap<(&'static str, &'static str), Listing> {
    static ALL: OnceLock<HashMap<(&'static str, &'static str), Listing>> = OnceLock::new();
    ALL.get_or_init(|| {
        TARGETS
            .iter()
            .flat_map(|t| embedded::for_target(t.name).map(move |k| (t.name, k.name)))
            .map(|(t, k)| ((t, k), disassemble(t, k)))
            .collect()
    })
}

/// Each case `target` runs, with its kernel's disassembled `v_xad_u32`s.
fn cases_of(target: &'static Target) -> impl Iterator<Item = (&'static Spec, &'static [Found])> {
    listings_of(target).map(|(spec, listing)| (spec, listing.xads.as_slice()))
}

/// Each case `target` runs, with its kernel's listing.
fn listings_of(target: &'static Target) -> impl Iterator<Item = (&'static Spec, &'static Listing)> {
    specs().filter(|s| s.case.runs_on(target)).map(move |spec| {
        let found = all_disassembled()
            .get(&(target.name, spec.case.kernel))
            .unwrap_or_else(|| {
                panic!(
                    "{}: kernel {} is not embedded for {}",
                    spec.case.name, spec.case.kernel, target.name
                )
            });
        (spec, found)
    })
}

/// A source as LLVM prints it.
fn src_text(src: &Src) -> String {
    match *src {
        Src::V(r, _) | Src::Res(r, _) | Src::Moved(r, _) => format!("v{r}"),
        Src::Sreg(code, _) => sreg_text(code),
        Src::Gfx9Sreg(code, _) => match code {
            op_table::FLAT_SCRATCH_LO => "flat_scratch_lo".into(),
            op_table::FLAT_SCRATCH_HI => "flat_scratch_hi".into(),
            op_table::XNACK_MASK_LO => "xnack_mask_lo".into(),
            op_table::XNACK_MASK_HI => "xnack_mask_hi".into(),
            _ => format!("<gfx9 scalar code {code}>"),
        },
        Src::ExecLo => "exec_lo".into(),
        Src::ExecHi => "exec_hi".into(),
        Src::Null => "null".into(),
        Src::Scc(_) => "src_scc".into(),
        Src::Inline(code) => inline_text(code),
        Src::Lit(v) => literal_text(v),
    }
}

/// A VGPR operand with bits 9:8 `high` from the op's `s_set_vgpr_msb`
/// setting, as llvm-objdump-22 prints it: the encoded register, then the
/// real one in a comment (`v5 /*v773*/`). Other operands are unchanged.
fn high_vgpr_text(text: String, src: &Src, high: u16) -> String {
    match *src {
        Src::V(r, _) | Src::Res(r, _) | Src::Moved(r, _) if high != 0 => {
            format!("{text} /*v{}*/", high << 8 | u16::from(r))
        }
        _ => text,
    }
}

fn sreg_text(code: u16) -> String {
    match code {
        0..=105 => format!("s{code}"),
        op_table::VCC_LO => "vcc_lo".into(),
        op_table::VCC_HI => "vcc_hi".into(),
        108..=123 => format!("ttmp{}", code - 108),
        op_table::M0 => "m0".into(),
        op_table::EXEC_HI => "exec_hi".into(),
        _ => format!("<scalar code {code}>"),
    }
}

/// The f32 inline constants (codes 240-248) as LLVM prints them, with their bits.
const FLOATS: [(&str, u32); 9] = [
    ("0.5", 0x3F00_0000),
    ("-0.5", 0xBF00_0000),
    ("1.0", 0x3F80_0000),
    ("-1.0", 0xBF80_0000),
    ("2.0", 0x4000_0000),
    ("-2.0", 0xC000_0000),
    ("4.0", 0x4080_0000),
    ("-4.0", 0xC080_0000),
    ("0.15915494", 0x3E22_F983),
];

fn inline_text(code: u16) -> String {
    match code {
        128..=192 => format!("{}", code - 128),
        193..=208 => format!("-{}", code - 192),
        240..=248 => FLOATS[usize::from(code - 240)].0.into(),
        _ => format!("<inline code {code}>"),
    }
}

/// LLVM prints a literal whose value has an inline form in that form (a raw
/// literal 0xffffffff reads back as `-1`), any other as hex; the words check
/// tells the two encodings apart.
fn literal_text(v: u32) -> String {
    if (-16..=64).contains(&(v as i32)) {
        format!("{}", v as i32)
    } else if let Some((name, _)) = FLOATS.iter().find(|(_, bits)| *bits == v) {
        (*name).into()
    } else {
        format!("0x{v:x}")
    }
}

fn dpp16_ctrl_text(ctrl: u16) -> String {
    match ctrl {
        0x000..=0x0FF => {
            let s: Vec<String> = (0..4)
                .map(|i| ((ctrl >> (2 * i)) & 3).to_string())
                .collect();
            format!("quad_perm:[{}]", s.join(","))
        }
        0x101..=0x10F => format!("row_shl:{}", ctrl - 0x100),
        0x111..=0x11F => format!("row_shr:{}", ctrl - 0x110),
        0x121..=0x12F => format!("row_ror:{}", ctrl - 0x120),
        op_table::WAVE_SHL1 => "wave_shl:1".into(),
        op_table::WAVE_ROL1 => "wave_rol:1".into(),
        op_table::WAVE_SHR1 => "wave_shr:1".into(),
        op_table::WAVE_ROR1 => "wave_ror:1".into(),
        op_table::ROW_BCAST15 => "row_bcast:15".into(),
        op_table::ROW_BCAST31 => "row_bcast:31".into(),
        op_table::ROW_MIRROR => "row_mirror".into(),
        op_table::ROW_HALF_MIRROR => "row_half_mirror".into(),
        0x150..=0x15F => format!("row_share:{}", ctrl - 0x150),
        0x160..=0x16F => format!("row_xmask:{}", ctrl - 0x160),
        _ => format!("<dpp_ctrl {ctrl:#x}>"),
    }
}

/// `op` written as llvm-objdump prints it.
fn asm_text(op: &Op) -> String {
    let srcs: Vec<String> = op
        .src
        .iter()
        .enumerate()
        .map(|(slot, s)| high_vgpr_text(src_text(s), s, op.vgpr_high(slot as u32)))
        .collect();
    let vdst = format!("v{}", op.vdst);
    let vdst = high_vgpr_text(vdst, &Src::V(op.vdst, op_table::Lane::A), op.vgpr_high(3));
    let operands = format!("{vdst}, {}", srcs.join(", "));
    match op.dpp {
        Dpp::None => format!("v_xad_u32 {operands}"),
        dpp => format!("v_xad_u32_e64_dpp {operands} {}", dpp_text(dpp)),
    }
}

/// A DPP control as llvm-objdump prints it after the operands.
fn dpp_text(dpp: Dpp) -> String {
    match dpp {
        Dpp::None => String::new(),
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        } => format!(
            "{} row_mask:{row_mask:#x} bank_mask:{bank_mask:#x}{}{}",
            dpp16_ctrl_text(ctrl),
            if bound_ctrl { " bound_ctrl:1" } else { "" },
            if fi { " fi:1" } else { "" }
        ),
        Dpp::Lane8 { sel, fi } => {
            let sel: Vec<String> = sel.iter().map(u8::to_string).collect();
            format!("dpp8:[{}]{}", sel.join(","), if fi { " fi:1" } else { "" })
        }
    }
}

/// The `v_mov_b32_dpp`s feeding `op`, in slot order, as llvm-objdump prints them.
fn mov_texts(op: &Op) -> Vec<String> {
    op.src
        .iter()
        .filter_map(|s| match s {
            Src::Moved(dst, mov) => Some(format!(
                "v_mov_b32_dpp v{dst}, v{} {}",
                mov.src,
                dpp_text(mov.dpp)
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn every_target_embeds_every_case_kernel() {
    for t in TARGETS {
        for spec in specs().filter(|s| s.case.runs_on(t)) {
            assert!(
                embedded::find(t.name, spec.case.kernel).is_some(),
                "{}: no {} for {}",
                spec.case.name,
                spec.case.kernel,
                t.name
            );
        }
    }
}

#[test]
fn every_kernel_encodes_its_declared_forms_on_every_target() {
    for t in TARGETS {
        let mut checked = 0;
        for (spec, found) in cases_of(t) {
            let (case, ops) = (&spec.case, spec.program.ops);
            assert_eq!(
                found.len(),
                ops.len(),
                "{} on {}: kernel has {} v_xad_u32, table declares {}",
                case.name,
                t.name,
                found.len(),
                ops.len()
            );
            for (j, (op, f)) in ops.iter().zip(found).enumerate() {
                let want = encode_for(op, t)
                    .unwrap_or_else(|e| panic!("{} op {j} on {}: {e}", case.name, t.name));
                assert_eq!(
                    f.words, want,
                    "{} op {j} on {}: kernel has `{}`, table declares {op:?} = {want:08X?}",
                    case.name, t.name, f.text
                );
                checked += 1;
            }
        }
        // gfx9 has the fewest forms (wave64 only, no literal, one scalar value).
        assert!(
            checked > 500,
            "{}: only {checked} instructions checked",
            t.name
        );
    }
}

#[test]
fn every_kernel_disassembles_to_its_declared_forms_on_every_target() {
    for t in TARGETS {
        let mut checked = 0;
        for (spec, found) in cases_of(t) {
            assert_eq!(
                found.len(),
                spec.program.ops.len(),
                "{} on {}",
                spec.case.name,
                t.name
            );
            for (j, (op, f)) in spec.program.ops.iter().zip(found).enumerate() {
                assert_eq!(
                    f.text,
                    asm_text(op),
                    "{} op {j} on {} (llvm-objdump --mcpu={}): table declares {op:?}",
                    spec.case.name,
                    t.name,
                    t.name
                );
                checked += 1;
            }
        }
        // gfx9 has the fewest forms (wave64 only, no literal, one scalar value).
        assert!(
            checked > 500,
            "{}: only {checked} instructions checked",
            t.name
        );
    }
}

/// Every `v_mov_b32_dpp` of every kernel on every target is, in order, a
/// move the case table declares (a DPP control feeding a `v_xad_u32` source):
/// its words equal `encode::movs_for` and its text LLVM's spelling of the
/// table's control, so no kernel holds a move the table does not model.
#[test]
fn every_move_encodes_and_disassembles_as_declared() {
    let mut checked = 0;
    for t in TARGETS {
        for (spec, listing) in listings_of(t) {
            let name = spec.case.name;
            let mut words = Vec::new();
            let mut texts = Vec::new();
            for (j, op) in spec.program.ops.iter().enumerate() {
                let w =
                    movs_for(op, t).unwrap_or_else(|e| panic!("{name} op {j} on {}: {e}", t.name));
                words.extend(w.iter().map(|w| (j, w.to_vec())));
                texts.extend(mov_texts(op).into_iter().map(|m| (j, m)));
            }
            assert_eq!(
                listing.movs.len(),
                words.len(),
                "{name} on {}: v_mov_b32_dpp in the kernel vs moves in the table",
                t.name
            );
            for ((found, (j, want)), (_, text)) in listing.movs.iter().zip(&words).zip(&texts) {
                assert_eq!(
                    &found.words, want,
                    "{name} op {j} on {}: kernel has `{}`",
                    t.name, found.text
                );
                assert_eq!(
                    &found.text, text,
                    "{name} op {j} on {} (llvm-objdump --mcpu={})",
                    t.name, t.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} moves checked");
}

/// A wrong move (another control, mask or source VGPR) is caught by the text
/// check on a gfx9 and a gfx10 build, and on gfx11/gfx12.
#[test]
fn a_wrong_move_is_caught() {
    use op_table::{Mov, ROW_BCAST31};
    for (target, name, j) in [
        ("gfx90a", "dpp_mov_wave_w64", 10),
        ("gfx1030", "dpp_mov_quad_perm_w64", 11),
        ("gfx1201", "dpp_mov_inactive_w32", 9),
    ] {
        let spec = specs().find(|s| s.case.name == name).expect("case");
        let listing = &all_disassembled()[&(target, spec.case.kernel)];
        let op = spec.program.ops[j];
        let Src::Moved(dst, mov) = op.src[0] else {
            panic!("{name} op {j}: src0 is moved")
        };
        let at = spec.program.ops[..j]
            .iter()
            .map(|o| mov_texts(o).len())
            .sum::<usize>();
        assert_eq!(
            listing.movs[at].text,
            mov_texts(&op)[0],
            "{target} {name}: the true table passes"
        );
        let other = match mov.dpp {
            Dpp::Row {
                ctrl,
                row_mask,
                bank_mask,
                bound_ctrl,
                fi,
            } => {
                vec![
                    Dpp::Row {
                        ctrl: if ctrl == ROW_BCAST31 {
                            ctrl - 1
                        } else {
                            ctrl ^ 1
                        },
                        row_mask,
                        bank_mask,
                        bound_ctrl,
                        fi,
                    },
                    Dpp::Row {
                        ctrl,
                        row_mask: row_mask ^ 4,
                        bank_mask,
                        bound_ctrl,
                        fi,
                    },
                    Dpp::Row {
                        ctrl,
                        row_mask,
                        bank_mask,
                        bound_ctrl: !bound_ctrl,
                        fi,
                    },
                ]
            }
            Dpp::Lane8 { mut sel, fi } => {
                sel.swap(0, 1);
                vec![
                    Dpp::Lane8 { sel, fi },
                    Dpp::Lane8 {
                        sel: [0; 8],
                        fi: !fi,
                    },
                ]
            }
            Dpp::None => panic!("a move without DPP"),
        };
        let wrong = other.into_iter().map(|dpp| Mov { dpp, ..mov }).chain([Mov {
            src: mov.src + 1,
            ..mov
        }]);
        for m in wrong {
            let mut changed = op;
            changed.src[0] = Src::Moved(dst, m);
            assert_ne!(
                listing.movs[at].text,
                mov_texts(&changed)[0],
                "{target} {name}: {m:?}"
            );
        }
    }
}

/// The gfx11 and gfx12 kernels hold the same `v_xad_u32` words in the same
/// order (what lets one case table describe both generations).
#[test]
fn gfx11_and_gfx12_kernels_hold_the_same_forms() {
    let all = all_disassembled();
    let on_both = |c: &xad_harness::model::cases::Case| {
        ["gfx1100", "gfx1201"]
            .iter()
            .all(|t| c.runs_on(xad_harness::platform::target::find(t).expect("target")))
    };
    for spec in specs().filter(|s| on_both(&s.case)) {
        let k = spec.case.kernel;
        let words = |t: &'static str| {
            all[&(t, k)]
                .xads
                .iter()
                .map(|f| f.words.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            words("gfx1100"),
            words("gfx1201"),
            "{k}: gfx1100 and gfx1201 builds differ"
        );
    }
}

/// A table that disagrees with its kernel is caught by both checks above.
#[test]
fn a_wrong_table_entry_is_caught() {
    let spec = specs()
        .find(|s| s.case.name == "inline_src0_w32")
        .expect("case");
    for target in ["gfx1100", "gfx1201"] {
        let found = &all_disassembled()[&(target, spec.case.kernel)].xads;
        let mut op = spec.program.ops[83]; // 1.0 (code 242) in src0
        assert_eq!(found[83].words, encode(&op).unwrap());
        assert_eq!(found[83].text, asm_text(&op));
        op.src[0] = Src::Inline(129); // the integer 1
        assert_ne!(found[83].words, encode(&op).unwrap(), "{target}");
        assert_ne!(found[83].text, asm_text(&op), "{target}");
    }
    // The text check alone sees a wrong DPP control, source or modifier.
    let dpp = specs()
        .find(|s| s.case.name == "dpp16_masks_w32")
        .expect("case");
    let found = &all_disassembled()[&("gfx1201", dpp.case.kernel)].xads;
    let op = dpp.program.ops[12]; // row_shl:1 row_mask:0x1 bank_mask:0x3 bound_ctrl:1
    assert_eq!(found[12].text, asm_text(&op));
    let Dpp::Row {
        ctrl,
        row_mask,
        bank_mask,
        bound_ctrl,
        fi,
    } = op.dpp
    else {
        panic!("op 12 is DPP16")
    };
    for wrong in [
        Dpp::Row {
            ctrl: ctrl + 1,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        },
        Dpp::Row {
            ctrl,
            row_mask: row_mask ^ 2,
            bank_mask,
            bound_ctrl,
            fi,
        },
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl: !bound_ctrl,
            fi,
        },
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi: !fi,
        },
    ] {
        assert_ne!(found[12].text, asm_text(&op.dpp(wrong)), "{wrong:?}");
    }
}

/// The text renderer on forms LLVM prints (llvm-mc-19 -mcpu=gfx1201).
#[test]
fn asm_text_spells_like_llvm() {
    use op_table::Lane::*;
    let op = Op::new(
        0,
        62,
        [
            Src::Lit(0xFFFF_FFFF),
            Src::V(3, B),
            Src::Sreg(op_table::VCC_HI, 0),
        ],
    );
    assert_eq!(asm_text(&op), "v_xad_u32 v62, -1, v3, vcc_hi");
    // CDNA5: bits 9:8 from the op's s_set_vgpr_msb setting, as llvm-objdump-22
    // prints them (`v_xad_u32 v5 /*v773*/, v2 /*v258*/, v3 /*v515*/, ...`).
    let op = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(255, C)]).vgpr_msb(0xf9);
    assert_eq!(
        asm_text(&op),
        "v_xad_u32 v5 /*v773*/, v2 /*v258*/, v3 /*v515*/, v255 /*v1023*/"
    );
    let op = Op::new(0, 17, [Src::V(2, A), Src::Sreg(20, 0), Src::V(4, C)]).vgpr_msb(0x01);
    assert_eq!(asm_text(&op), "v_xad_u32 v17, v2 /*v258*/, s20, v4");
    let op = Op::new(
        0,
        5,
        [
            Src::Lit(65),
            Src::Inline(248),
            Src::Scc(op_table::SccFrom::One),
        ],
    );
    assert_eq!(asm_text(&op), "v_xad_u32 v5, 0x41, 0.15915494, src_scc");
    let op = Op::new(0, 27, [Src::V(2, A), Src::V(3, B), Src::Null]).dpp(Dpp::Row {
        ctrl: op_table::quad_perm([3, 1, 0, 0]),
        row_mask: 0xF,
        bank_mask: 0xF,
        bound_ctrl: true,
        fi: true,
    });
    assert_eq!(asm_text(&op), "v_xad_u32_e64_dpp v27, v2, v3, null quad_perm:[3,1,0,0] row_mask:0xf bank_mask:0xf bound_ctrl:1 fi:1");
    let op = Op::new(0, 21, [Src::V(2, A), Src::V(3, B), op_table::int(-3)]).dpp(Dpp::Lane8 {
        sel: [5, 5, 2, 2, 7, 0, 1, 3],
        fi: true,
    });
    assert_eq!(
        asm_text(&op),
        "v_xad_u32_e64_dpp v21, v2, v3, -3 dpp8:[5,5,2,2,7,0,1,3] fi:1"
    );
}

#[test]
fn kernels_match_case_shape_on_every_target() {
    for t in TARGETS {
        for spec in specs().filter(|s| s.case.runs_on(t)) {
            let case = &spec.case;
            let what = format!("{} for {}", case.kernel, t.name);
            // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
            let bytes = embedded::find(t.name, case.kernel)
                .expect("embedded")
                .bytes
                .to_vec();
            let code = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(code.target.arch, t.name, "{what}: code object target ID");
            let kernel = code
                .kernel(case.kernel)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                kernel.descriptor.wave_size(),
                case.wave_size,
                "{what}: descriptor wave size"
            );
            assert_eq!(
                kernel.meta.wavefront_size, case.wave_size,
                "{what}: metadata wave size"
            );
            let explicit = kernel.meta.args.iter().filter(|a| !a.is_hidden()).count();
            assert_eq!(
                explicit,
                5 + case.scalar_args,
                "{what}: a, b, c, out, count + scalars"
            );
            assert_eq!(kernel.launch_workgroup_size(), [256, 1, 1], "{what}");
        }
    }
}

/// The forms the issue asks for are present somewhere in the catalogue.
#[test]
fn coverage_of_required_forms() {
    let all: Vec<_> = specs()
        .flat_map(|s| s.program.ops.iter().map(move |o| (s.case.wave_size, o)))
        .collect();
    let in_slot = |wave: u32, pred: &dyn Fn(&Src) -> bool, slot: usize| {
        all.iter()
            .any(|(w, o)| *w == wave && o.dpp == Dpp::None && pred(&o.src[slot]))
    };
    type Pred = fn(&Src) -> bool;
    let kinds: [(&str, Pred); 8] = [
        ("vgpr", |s| matches!(s, Src::V(..))),
        ("sgpr", |s| matches!(s, Src::Sreg(c, _) if *c < 106)),
        ("vcc_lo", |s| matches!(s, Src::Sreg(op_table::VCC_LO, _))),
        ("m0", |s| matches!(s, Src::Sreg(op_table::M0, _))),
        ("exec_lo", |s| *s == Src::ExecLo),
        ("null", |s| *s == Src::Null),
        ("src_scc", |s| matches!(s, Src::Scc(_))),
        ("literal", |s| matches!(s, Src::Lit(_))),
    ];
    for wave in [32, 64] {
        for slot in 0..3 {
            for code in op_table::INLINE_CODES {
                assert!(
                    in_slot(wave, &|s| *s == Src::Inline(code), slot),
                    "inline {code} in src{slot} wave{wave}"
                );
            }
            for (what, pred) in kinds {
                assert!(in_slot(wave, &pred, slot), "{what} in src{slot} wave{wave}");
            }
        }
    }
    for slot in 0..3 {
        assert!(
            in_slot(64, &|s| *s == Src::ExecHi, slot),
            "exec_hi in src{slot} wave64"
        );
        assert!(
            in_slot(64, &|s| matches!(s, Src::Sreg(op_table::VCC_HI, _)), slot),
            "vcc_hi in src{slot} wave64"
        );
        assert!(
            in_slot(32, &|s| matches!(s, Src::Sreg(op_table::EXEC_HI, _)), slot),
            "exec_hi (written) in src{slot} wave32"
        );
    }
    let mut ctrls: Vec<u16> = (0x101..=0x10f)
        .chain(0x111..=0x11f)
        .chain(0x121..=0x12f)
        .chain(0x150..=0x16f)
        .collect();
    ctrls.extend([op_table::ROW_MIRROR, op_table::ROW_HALF_MIRROR]);
    for c in ctrls {
        for bc in [false, true] {
            let needs_both = matches!(c, 0x101..=0x11f);
            if !needs_both && bc {
                continue;
            }
            assert!(
                all.iter().any(|(_, o)| matches!(o.dpp, Dpp::Row { ctrl, bound_ctrl, .. } if ctrl == c && bound_ctrl == bc)),
                "DPP16 ctrl {c:#x} bound_ctrl={bc} missing"
            );
        }
    }
    for fi in [false, true] {
        assert!(
            all.iter()
                .any(|(_, o)| matches!(o.dpp, Dpp::Lane8 { fi: f, .. } if f == fi)),
            "dpp8 fi={fi}"
        );
    }
}
