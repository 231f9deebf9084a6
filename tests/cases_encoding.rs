//! Every table-built case's kernel encodes what the case declares: its
//! embedded code object is disassembled with the llvm-objdump build.rs found,
//! and the words of its v_xad_u32 instructions (first dword 0xD645xxxx, then
//! src fields, then the literal or DPP word) must equal `cases::encode::encode` of the
//! case's ops, in order. Also checks the kernel's wave size (descriptor and
//! metadata) and argument list against the case.

use std::process::Command;

use xad_harness::cases::encode::encode;
use xad_harness::cases::program::{self, Dpp, Src};
use xad_harness::cases::specs;
use xad_harness::codeobj::CodeObject;
use xad_harness::kernels;

/// (disassembly line, instruction words) of every v_xad_u32 in `name`'s code object.
fn xad_instructions(name: &str) -> Vec<(String, Vec<u32>)> {
    let embedded = kernels::find("gfx1100", name).unwrap_or_else(|| panic!("kernel {name} is not embedded"));
    assert!(!kernels::BUILD_OBJDUMP.is_empty(), "build.rs found no llvm-objdump; cannot check encodings");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(format!("{name}.hsaco"));
    std::fs::write(&path, embedded.bytes).expect("write code object");
    let out = Command::new(kernels::BUILD_OBJDUMP)
        .args(["-d", "--mcpu=gfx1100"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", kernels::BUILD_OBJDUMP));
    assert!(out.status.success(), "llvm-objdump failed on {name}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut found = Vec::new();
    for line in text.lines() {
        // "<asm>  // 000000001780: D6450010 04110102"
        let Some((_, comment)) = line.rsplit_once("//") else { continue };
        let Some((_, hex)) = comment.split_once(": ") else { continue };
        let words: Vec<u32> = hex.split_whitespace().map_while(|w| u32::from_str_radix(w, 16).ok()).collect();
        if words.first().is_some_and(|w| w & 0xFFFF_0000 == 0xD645_0000) {
            found.push((line.trim().to_string(), words));
        }
    }
    found
}

#[test]
fn every_kernel_encodes_its_declared_forms() {
    let mut checked = 0;
    // gfx1100's cases (the DPP scalar-src1 forms: tests/cases_dpp_src1.rs).
    for spec in specs().filter(|s| s.case.requires.is_none()) {
        let case = &spec.case;
        let found = xad_instructions(case.kernel);
        let ops = spec.program.ops;
        assert_eq!(found.len(), ops.len(), "{}: kernel has {} v_xad_u32, table declares {}", case.name, found.len(), ops.len());
        for (j, (op, (line, words))) in ops.iter().zip(&found).enumerate() {
            let want = encode(op).unwrap_or_else(|e| panic!("{} op {j}: {e}", case.name));
            assert_eq!(words, &want, "{} op {j}: kernel has `{line}`, table declares {op:?} = {want:08X?}", case.name);
            checked += 1;
        }
    }
    assert!(checked > 900, "only {checked} instructions checked");
}

/// A table that disagrees with its kernel is caught (the check above can fail).
#[test]
fn a_wrong_table_entry_is_caught() {
    let spec = specs().find(|s| s.case.name == "inline_src0_w32").expect("case");
    let found = xad_instructions(spec.case.kernel);
    let mut op = spec.program.ops[83]; // 1.0 (code 242) in src0
    assert_eq!(found[83].1, encode(&op).unwrap());
    op.src[0] = Src::Inline(129); // the integer 1
    assert_ne!(found[83].1, encode(&op).unwrap());
}

#[test]
fn kernels_match_case_shape() {
    // gfx1100's cases (the DPP scalar-src1 forms: tests/cases_dpp_src1.rs).
    for spec in specs().filter(|s| s.case.requires.is_none()) {
        let case = &spec.case;
        // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
        let bytes = kernels::find("gfx1100", case.kernel).expect("embedded").bytes.to_vec();
        let code = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", case.kernel));
        let kernel = code.kernel(case.kernel).unwrap_or_else(|e| panic!("{}: {e}", case.kernel));
        assert_eq!(kernel.descriptor.wave_size(), case.wave_size, "{}: descriptor wave size", case.name);
        assert_eq!(kernel.meta.wavefront_size, case.wave_size, "{}: metadata wave size", case.name);
        let explicit = kernel.meta.args.iter().filter(|a| !a.is_hidden()).count();
        assert_eq!(explicit, 5 + case.scalar_args, "{}: a, b, c, out, count + scalars", case.name);
        assert_eq!(kernel.launch_workgroup_size(), [256, 1, 1], "{}", case.name);
    }
}

/// The forms the issue asks for are present somewhere in the catalogue.
#[test]
fn coverage_of_required_forms() {
    let all: Vec<_> = specs().flat_map(|s| s.program.ops.iter().map(move |o| (s.case.wave_size, o))).collect();
    let in_slot = |wave: u32, pred: &dyn Fn(&Src) -> bool, slot: usize| {
        all.iter().any(|(w, o)| *w == wave && o.dpp == Dpp::None && pred(&o.src[slot]))
    };
    type Pred = fn(&Src) -> bool;
    let kinds: [(&str, Pred); 8] = [
        ("vgpr", |s| matches!(s, Src::V(..))),
        ("sgpr", |s| matches!(s, Src::Sreg(c, _) if *c < 106)),
        ("vcc_lo", |s| matches!(s, Src::Sreg(program::VCC_LO, _))),
        ("m0", |s| matches!(s, Src::Sreg(program::M0, _))),
        ("exec_lo", |s| *s == Src::ExecLo),
        ("null", |s| *s == Src::Null),
        ("src_scc", |s| matches!(s, Src::Scc(_))),
        ("literal", |s| matches!(s, Src::Lit(_))),
    ];
    for wave in [32, 64] {
        for slot in 0..3 {
            for code in program::INLINE_CODES {
                assert!(in_slot(wave, &|s| *s == Src::Inline(code), slot), "inline {code} in src{slot} wave{wave}");
            }
            for (what, pred) in kinds {
                assert!(in_slot(wave, &pred, slot), "{what} in src{slot} wave{wave}");
            }
        }
    }
    for slot in 0..3 {
        assert!(in_slot(64, &|s| *s == Src::ExecHi, slot), "exec_hi in src{slot} wave64");
        assert!(in_slot(64, &|s| matches!(s, Src::Sreg(program::VCC_HI, _)), slot), "vcc_hi in src{slot} wave64");
        assert!(in_slot(32, &|s| matches!(s, Src::Sreg(program::EXEC_HI, _)), slot), "exec_hi (written) in src{slot} wave32");
    }
    let mut ctrls: Vec<u16> = (0x101..=0x10f).chain(0x111..=0x11f).chain(0x121..=0x12f).chain(0x150..=0x16f).collect();
    ctrls.extend([program::ROW_MIRROR, program::ROW_HALF_MIRROR]);
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
        assert!(all.iter().any(|(_, o)| matches!(o.dpp, Dpp::Lane8 { fi: f, .. } if f == fi)), "dpp8 fi={fi}");
    }
}
