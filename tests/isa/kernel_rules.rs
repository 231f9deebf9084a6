//! The rules hand-written kernels must keep, checked on the catalogue's kernels (kernels/cases)
//! as LLVM's own disassembly of every embedded code object reads them (`llvm-objdump
//! --mcpu=<target>`), for the generations whose rules are written down here: gfx12 (RDNA4,
//! frame kernels/include/xad_frame_gfx12.inc) and gfx11's waits:
//! - waits: no `s_waitcnt`; a register loaded by `s_load_*` is not touched
//!   before `s_wait_kmcnt 0`, one loaded by `global_load_*` not before
//!   `s_wait_loadcnt 0` (the gfx11 kernels are checked the same way against
//!   `s_waitcnt lgkmcnt(0)`/`vmcnt(0)`);
//! - initial state: no SGPR is read before it is written, except the kernarg
//!   pointer s[0:1] and the architected workgroup id ttmp9 (LLVM reads the
//!   workgroup id there on gfx12 and allots no system SGPR to it; whether the
//!   dispatcher still writes gfx11's s2 is not documented, so no kernel may
//!   read it);
//! - the gfx12 SGPR read hazard: after an SALU write to an SGPR pair some VALU
//!   has read, the next read of that pair needs `s_wait_alu
//!   depctr_sa_sdst(0)` first (LLVM's VALUReadSGPRHazard; EXEC, M0 and null
//!   are exempt; an SMEM load clears it).
//!
//! Each checker has negative controls on listings that break its rule. That every case a gfx12
//! target has passes on the emulated gfx1200/gfx1201 is tests/emu/catalogue.rs (the wrong-kernel
//! controls for gfx12 are in tests/pipeline/negative.rs).

use std::collections::HashSet;

use xad_harness::isa::Generation;

use xad_harness::platform::codeobj::CodeObject;

use xad_harness::platform::embedded;

use xad_harness::platform::target::TARGETS;

/// A register an operand names: VGPR n, or SGPR by its source code (s0-s105 =
/// 0-105, vcc_lo/hi 106/107, ttmp0-15 108-123). EXEC, M0, null, SCC and
/// constants are not tracked by the rules here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reg {
    V(u16),
    S(u16),
}

/// One instruction of a listing: mnemonic and operand registers.
#[derive(Debug)]
struct Inst {
    text: String,
    mnemonic: String,
    /// Registers the instruction writes (its destination operand).
    defs: Vec<Reg>,
    /// Registers it reads.
    uses: Vec<Reg>,
}

/// `s12` / `s[4:11]` / `v7` / `v[2:3]` / `vcc_lo` / `vcc` / `ttmp9`.
fn regs_of(operand: &str) -> Vec<Reg> {
    let range = |body: &str, base: u16| -> Vec<u16> {
        if let Some(inner) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            let (lo, hi) = inner.split_once(':').unwrap_or((inner, inner));
            match (lo.parse::<u16>(), hi.parse::<u16>()) {
                (Ok(lo), Ok(hi)) => (lo..=hi).map(|r| base + r).collect(),
                _ => Vec::new(),
            }
        } else {
            body.parse::<u16>()
                .map(|r| vec![base + r])
                .unwrap_or_default()
        }
    };
    match operand {
        "vcc_lo" => vec![Reg::S(106)],
        "vcc_hi" => vec![Reg::S(107)],
        "vcc" => vec![Reg::S(106), Reg::S(107)],
        _ => {
            if let Some(body) = operand.strip_prefix("ttmp") {
                range(body, 108).into_iter().map(Reg::S).collect()
            } else if let Some(body) = operand.strip_prefix('s') {
                range(body, 0).into_iter().map(Reg::S).collect()
            } else if let Some(body) = operand.strip_prefix('v') {
                range(body, 0).into_iter().map(Reg::V).collect()
            } else {
                Vec::new()
            }
        }
    }
}

/// Does the instruction's first operand name what it writes?
fn writes_first_operand(mnemonic: &str) -> bool {
    let no_def = [
        "s_cmp",
        "s_bitcmp",
        "s_wait",
        "s_cbranch",
        "s_branch",
        "s_endpgm",
        "s_nop",
        "s_sendmsg",
        "s_delay_alu",
        "global_store",
    ];
    !no_def.iter().any(|p| mnemonic.starts_with(p))
}

/// Parse one disassembly line (`<asm>  // <address>: <words>`); None for
/// anything that is not an instruction. LLVM prints a VOPC `_e32` destination
/// as `vcc_lo` (it disassembles in wave32 mode) but in a wave64 wave the
/// instruction writes the whole VCC.
fn parse_line(line: &str, wave64: bool) -> Option<Inst> {
    let (asm, comment) = line.rsplit_once("//")?;
    comment.split_once(": ")?;
    let text = asm.trim().to_string();
    let (mnemonic, rest) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
    // Operands are comma-separated; DPP and memory modifiers follow the last one after a space.
    let operands: Vec<&str> = rest
        .split(',')
        .map(|o| o.split_whitespace().next().unwrap_or(""))
        .collect();
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    for (i, op) in operands.iter().enumerate() {
        let regs = regs_of(op);
        if i == 0 && writes_first_operand(mnemonic) {
            defs.extend(regs);
        } else {
            uses.extend(regs);
        }
    }
    if wave64 && mnemonic.starts_with("v_cmp") && mnemonic.ends_with("_e32") {
        defs.push(Reg::S(107));
    }
    Some(Inst {
        mnemonic: mnemonic.to_string(),
        defs,
        uses,
        text,
    })
}

fn parse_wave(listing: &str, wave64: bool) -> Vec<Inst> {
    listing
        .lines()
        .filter_map(|l| parse_line(l, wave64))
        .collect()
}

/// A wave32 listing.
fn parse(listing: &str) -> Vec<Inst> {
    parse_wave(listing, false)
}

/// The embedded code object's instructions, in its kernel's wave size.
fn instructions(target: &str, name: &str) -> Vec<Inst> {
    let bytes = embedded::find(target, name)
        .expect("embedded")
        .bytes
        .to_vec();
    let code = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{name} for {target}: {e}"));
    let wave = code
        .kernel(name)
        .unwrap_or_else(|e| panic!("{name} for {target}: {e}"))
        .descriptor
        .wave_size();
    parse_wave(&listing(target, name), wave == 64)
}

/// Which wait clears which loads, per generation.
struct WaitRules {
    /// Clears pending `s_load_*` results.
    scalar: &'static [&'static str],
    /// Clears pending `global_load_*` results.
    vector: &'static [&'static str],
}

const GFX12_WAITS: WaitRules = WaitRules {
    scalar: &["s_wait_kmcnt 0x0"],
    vector: &["s_wait_loadcnt 0x0"],
};

const GFX11_WAITS: WaitRules = WaitRules {
    scalar: &["s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0) lgkmcnt(0)"],
    vector: &["s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0) lgkmcnt(0)"],
};

/// Instructions that touch a load's destination before the wait that covers it.
fn unwaited_loads(insts: &[Inst], rules: &WaitRules) -> Vec<String> {
    let (mut scalar, mut vector) = (HashSet::new(), HashSet::new());
    let mut problems = Vec::new();
    for inst in insts {
        if rules.scalar.contains(&inst.text.as_str()) {
            scalar.clear();
        }
        if rules.vector.contains(&inst.text.as_str()) {
            vector.clear();
        }
        if let Some(r) = inst
            .defs
            .iter()
            .chain(&inst.uses)
            .find(|r| scalar.contains(*r) || vector.contains(*r))
        {
            problems.push(format!(
                "`{}` touches {r:?} before its load was waited for",
                inst.text
            ));
        }
        if inst.mnemonic.starts_with("s_load") {
            scalar.extend(inst.defs.iter().copied());
        } else if inst.mnemonic.starts_with("global_load") {
            vector.extend(inst.defs.iter().copied());
        }
    }
    problems
}

/// SGPRs read before anything wrote them, other than those the dispatcher sets
/// (`initial`).
fn uninitialised_sgpr_reads(insts: &[Inst], initial: &[u16]) -> Vec<String> {
    let mut written: HashSet<Reg> = initial.iter().map(|&s| Reg::S(s)).collect();
    let mut problems = Vec::new();
    for inst in insts {
        if let Some(r) = inst
            .uses
            .iter()
            .find(|r| matches!(r, Reg::S(_)) && !written.contains(*r))
        {
            problems.push(format!("`{}` reads {r:?}, which nothing set", inst.text));
        }
        written.extend(inst.defs.iter().copied());
    }
    problems
}

fn is_salu(mnemonic: &str) -> bool {
    mnemonic.starts_with("s_") && !mnemonic.starts_with("s_load") && !mnemonic.starts_with("s_wait")
}

/// Reads of an SGPR pair written after some VALU read that pair, with no wait
/// in between: an SALU write needs `s_wait_alu depctr_sa_sdst(0)` (or an SMEM
/// load) before any read; a VALU write needs `depctr_va_sdst(0)`/`va_vcc(0)`
/// before a VALU read (an SALU read waits by itself).
fn sgpr_read_hazards(insts: &[Inst]) -> Vec<String> {
    let pair = |r: &Reg| match *r {
        Reg::S(s) => Some(s / 2),
        Reg::V(_) => None,
    };
    let (mut read_by_valu, mut salu_pending, mut valu_pending) =
        (HashSet::new(), HashSet::new(), HashSet::new());
    let mut problems = Vec::new();
    for inst in insts {
        let t = inst.text.as_str();
        if t.contains("depctr_sa_sdst(0)") || inst.mnemonic.starts_with("s_load") {
            salu_pending.clear();
        }
        if t.contains("depctr_va_sdst(0)") || t.contains("depctr_va_vcc(0)") {
            valu_pending.clear();
        }
        let (valu, salu) = (inst.mnemonic.starts_with("v_"), is_salu(&inst.mnemonic));
        let hit = |pending: &HashSet<u16>| {
            inst.uses
                .iter()
                .find(|r| pair(r).is_some_and(|p| pending.contains(&p)))
                .copied()
        };
        if let Some(r) = hit(&salu_pending).filter(|_| valu || salu) {
            problems.push(format!(
                "`{t}` reads {r:?} after an SALU wrote its pair, with no s_wait_alu"
            ));
        }
        if let Some(r) = hit(&valu_pending).filter(|_| valu) {
            problems.push(format!(
                "`{t}` reads {r:?} after a VALU wrote its pair, with no s_wait_alu"
            ));
        }
        if salu && hit(&valu_pending).is_some() {
            valu_pending.clear();
        }
        if valu {
            read_by_valu.extend(inst.uses.iter().filter_map(pair));
        }
        let written = inst
            .defs
            .iter()
            .filter_map(pair)
            .filter(|p| read_by_valu.contains(p));
        if valu {
            valu_pending.extend(written);
        } else if salu {
            salu_pending.extend(written);
        }
    }
    problems
}

/// `llvm-objdump -d --mcpu=<target>` of the embedded code object.
fn listing(target: &str, name: &str) -> String {
    crate::listings::listing(target, name).to_string()
}

fn gfx12_targets() -> impl Iterator<Item = &'static xad_harness::platform::target::Target> {
    TARGETS
        .iter()
        .filter(|t| t.generation() == Generation::Gfx12)
}

#[test]
fn gfx12_targets_embed_a_gfx12_build_of_every_gfx11_kernel() {
    let gfx11: Vec<&str> = embedded::for_target("gfx1100").map(|k| k.name).collect();
    assert!(gfx11.len() >= 30, "{gfx11:?}");
    for t in gfx12_targets() {
        // CDNA5 (wave32 only) has the gfx11 kernels but the wave64 ones.
        let wave64 = t.has(xad_harness::platform::target::Feature::Wave64);
        for name in gfx11.iter().filter(|n| wave64 || !n.ends_with("_w64")) {
            let k = embedded::find(t.name, name)
                .unwrap_or_else(|| panic!("{name} is not embedded for {}", t.name));
            // One stub in kernels/cases for both generations, assembled with
            // the gfx12 frame for this target.
            let gfx1100 = embedded::find("gfx1100", name).unwrap();
            assert_eq!(k.source, gfx1100.source, "{name} for {}", t.name);
            let code = xad_harness::platform::codeobj::CodeObject::parse(k.bytes)
                .unwrap_or_else(|e| panic!("{name} for {}: {e}", t.name));
            assert!(
                code.metadata.target.ends_with(t.name),
                "{name} for {} is built for {}",
                t.name,
                code.metadata.target
            );
        }
    }
}

#[test]
fn gfx12_kernels_wait_for_their_loads_with_gfx12_waits() {
    let mut checked = 0;
    for t in gfx12_targets() {
        for k in embedded::for_target(t.name) {
            let insts = instructions(t.name, k.name);
            assert!(
                insts.iter().any(|i| i.mnemonic == "s_wait_kmcnt"),
                "{} for {}: no s_wait_kmcnt",
                k.name,
                t.name
            );
            // The soak kernel generates its inputs and loads nothing global.
            let loads = insts.iter().any(|i| i.mnemonic.starts_with("global_load"));
            assert!(
                !loads || insts.iter().any(|i| i.mnemonic == "s_wait_loadcnt"),
                "{} for {}: no s_wait_loadcnt",
                k.name,
                t.name
            );
            assert!(
                !insts.iter().any(|i| i.mnemonic == "s_waitcnt"),
                "{} for {}: gfx11's s_waitcnt",
                k.name,
                t.name
            );
            // The code ends the program, or (soak's out-of-line record block
            // after its s_endpgm) branches back into it.
            assert!(
                insts.iter().any(|i| i.mnemonic == "s_endpgm")
                    && matches!(
                        insts.last().map(|i| i.mnemonic.as_str()),
                        Some("s_endpgm" | "s_branch")
                    ),
                "{} for {}: ends with {:?}",
                k.name,
                t.name,
                insts.last().map(|i| i.mnemonic.as_str())
            );
            let problems = unwaited_loads(&insts, &GFX12_WAITS);
            assert!(
                problems.is_empty(),
                "{} for {}:\n{}",
                k.name,
                t.name,
                problems.join("\n")
            );
            checked += 1;
        }
    }
    assert!(checked >= 90, "only {checked} gfx12 code objects");
}

#[test]
fn gfx11_kernels_wait_for_their_loads() {
    for k in embedded::for_target("gfx1100") {
        let problems = unwaited_loads(&instructions("gfx1100", k.name), &GFX11_WAITS);
        assert!(problems.is_empty(), "{}:\n{}", k.name, problems.join("\n"));
    }
}

#[test]
fn gfx12_kernels_read_only_sgprs_they_or_the_dispatcher_set() {
    for t in gfx12_targets() {
        for k in embedded::for_target(t.name) {
            let insts = instructions(t.name, k.name);
            // s[0:1] the kernarg pointer, ttmp9 the workgroup id x (architected).
            let problems = uninitialised_sgpr_reads(&insts, &[0, 1, 108 + 9]);
            assert!(
                problems.is_empty(),
                "{} for {}:\n{}",
                k.name,
                t.name,
                problems.join("\n")
            );
            assert!(
                insts.iter().any(|i| i.uses.contains(&Reg::S(117))),
                "{} for {}: never reads ttmp9",
                k.name,
                t.name
            );
        }
    }
}

#[test]
fn gfx12_kernels_have_no_sgpr_read_hazard() {
    for t in gfx12_targets() {
        for k in embedded::for_target(t.name) {
            let problems = sgpr_read_hazards(&instructions(t.name, k.name));
            assert!(
                problems.is_empty(),
                "{} for {}:\n{}",
                k.name,
                t.name,
                problems.join("\n")
            );
        }
    }
}

/// Fake `llvm-objdump` lines for the negative controls.
fn fake(lines: &[&str]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("\t{l}    // {:012X}: 00000000\n", 4 * i))
        .collect()
}

#[test]
fn the_load_checker_catches_a_missing_or_wrong_wait() {
    let ok = [
        "s_load_b32 s12, s[0:1], 0x20",
        "global_load_b32 v2, v1, s[4:5]",
        "s_wait_kmcnt 0x0",
        "s_wait_loadcnt 0x0",
        "v_xad_u32 v5, v2, s12, v4",
    ];
    assert!(unwaited_loads(&parse(&fake(&ok)), &GFX12_WAITS).is_empty());
    let no_loadcnt = [ok[0], ok[1], ok[2], ok[4]];
    assert_eq!(
        unwaited_loads(&parse(&fake(&no_loadcnt)), &GFX12_WAITS).len(),
        1
    );
    let no_kmcnt = [ok[0], ok[1], ok[3], ok[4]];
    assert_eq!(
        unwaited_loads(&parse(&fake(&no_kmcnt)), &GFX12_WAITS).len(),
        1
    );
    // gfx11's waits do not count on gfx12, nor gfx12's on gfx11.
    let gfx11_waits = [ok[0], ok[1], "s_waitcnt vmcnt(0) lgkmcnt(0)", ok[4]];
    assert_eq!(
        unwaited_loads(&parse(&fake(&gfx11_waits)), &GFX12_WAITS).len(),
        1
    );
    assert!(unwaited_loads(&parse(&fake(&gfx11_waits)), &GFX11_WAITS).is_empty());
    assert_eq!(unwaited_loads(&parse(&fake(&ok)), &GFX11_WAITS).len(), 1);
}

#[test]
fn the_initial_state_checker_catches_gfx11s_workgroup_id_on_gfx12() {
    // The gfx11 basic kernel reads the workgroup id from s2, which gfx12 never writes.
    let insts = instructions("gfx1100", "xad_basic");
    let problems = uninitialised_sgpr_reads(&insts, &[0, 1, 108 + 9]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("S(2)"), "{problems:?}");
    assert!(
        uninitialised_sgpr_reads(&insts, &[0, 1, 2]).is_empty(),
        "gfx11 writes s2"
    );
}

#[test]
fn the_hazard_checker_catches_an_salu_write_after_a_valu_read() {
    // xad_sreg.inc before it set vcc_hi up front: vcc_lo read by a VALU, then
    // vcc_hi written by an SALU and read at once.
    let bad = [
        "s_mov_b32 vcc_lo, s23",
        "v_xad_u32 v26, vcc_lo, v3, v4",
        "s_mov_b32 vcc_hi, s24",
        "v_xad_u32 v52, vcc_hi, v3, v4",
    ];
    let problems = sgpr_read_hazards(&parse(&fake(&bad)));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("vcc_hi"), "{problems:?}");
    let waited = [
        bad[0],
        bad[1],
        bad[2],
        "s_wait_alu depctr_sa_sdst(0)",
        bad[3],
    ];
    assert!(sgpr_read_hazards(&parse(&fake(&waited))).is_empty());
    let up_front = [bad[0], bad[2], bad[1], bad[3]];
    assert!(sgpr_read_hazards(&parse(&fake(&up_front))).is_empty());
    // An SALU reader is caught too; EXEC writes are exempt.
    let salu_reader = [
        "v_xad_u32 v16, s20, v3, v4",
        "s_mov_b32 s21, s22",
        "s_mov_b32 exec_lo, s21",
    ];
    assert_eq!(sgpr_read_hazards(&parse(&fake(&salu_reader))).len(), 1);
    let exec = [
        "v_xad_u32 v16, v2, v3, v4",
        "s_mov_b32 exec_lo, s20",
        "v_xad_u32 v17, v2, v3, v4",
    ];
    assert!(sgpr_read_hazards(&parse(&fake(&exec))).is_empty());
    // A VALU write of a pair a VALU read, then a VALU read: va_vcc; an SALU read in between waits.
    let valu_vcc = [
        "v_xad_u32 v16, vcc_lo, v3, v4",
        "v_cmp_gt_u32_e32 vcc_lo, s12, v6",
        "v_xad_u32 v17, vcc_lo, v3, v4",
    ];
    assert_eq!(sgpr_read_hazards(&parse(&fake(&valu_vcc))).len(), 1);
    let salu_between = [
        valu_vcc[0],
        valu_vcc[1],
        "s_and_saveexec_b32 s14, vcc_lo",
        valu_vcc[2],
    ];
    assert!(sgpr_read_hazards(&parse(&fake(&salu_between))).is_empty());
    let waited = [
        valu_vcc[0],
        valu_vcc[1],
        "s_wait_alu depctr_va_vcc(0)",
        valu_vcc[2],
    ];
    assert!(sgpr_read_hazards(&parse(&fake(&waited))).is_empty());
}
