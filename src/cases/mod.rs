//! The catalogue: each case is a hand-written kernel (embedded from
//! `kernels/gfx1100/<kernel>.s`) plus a CPU model of exactly what the ISA says the
//! hardware must produce, over the standard lane ABI below.
//!
//! Module map (imports run one way: families -> shared modules; only this file
//! names the families):
//!
//! | module | what it holds |
//! |---|---|
//! | `mod.rs` (here) | [`Case`], [`LaneData`], [`Model`], [`xad`]; the family registry ([`FAMILIES`]) and what is read from it: [`catalogue`], [`select`], [`specs`], [`program()`], [`op_words`] |
//! | [`program`](mod@program) | the op table's vocabulary: [`Src`](program::Src), [`Op`](program::Op), [`Program`](program::Program), EXEC and DPP forms, operand codes, DPP control helpers |
//! | [`encode`](mod@encode) | the encoder: the instruction words an op's kernel must contain ([`encode::encode`]) |
//! | [`model`] | the ISA model: [`model::run`] of a program over lanes, inline constant values, DPP16 lane selection |
//! | [`declare`] | [`Spec`] and the `case!` macro: the one way a family declares a case |
//! | `basic`, `vgpr`, `sreg`, `inline`, `literal`, `exec`, `chain`, `dpp16`, `dpp8`, `dpp_src1` | the families, one file each, listed once in [`FAMILIES`] |
//!
//! Standard lane ABI (every case; see README "Kernel ABI"): explicit kernel
//! arguments in this order: `a`, `b`, `c` (u32 global buffers, one word per
//! lane), `out` (u32 global buffer, `outputs_per_lane` words per lane, lane `i`
//! at `out[i * outputs_per_lane ..]`), `count` (u32 lanes in this dispatch), then
//! `scalar_args` u32 by-value arguments `s0, s1, ...`. One-dimensional dispatch of
//! `ceil(count / W)` workgroups of `W` work-items, `W` being the kernel's
//! `.reqd_workgroup_size` (256 when it declares none); global lane =
//! workgroup_id.x * W + local id x. No hidden arguments are provided to rely on.

pub mod declare;
pub mod encode;
pub mod model;
pub mod program;

pub use declare::Spec;

use std::ops::Range;

/// What a model sees: the sources of every lane of the dispatch, the scalar
/// arguments, and the output's contents before launch.
pub struct LaneData<'a> {
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub c: &'a [u32],
    pub scalars: &'a [u32],
    /// `out` before the launch (`outputs_per_lane` words per lane); empty for
    /// cases that write every word (`keeps_lanes == false`).
    pub prefill: &'a [u32],
    /// Lanes in this dispatch (= `a.len()`); lanes at or past it do not exist.
    pub count: usize,
}

/// A CPU model: writes the expected `out` words of `lanes` into `out`
/// (`lanes.len() * outputs_per_lane` words). Called in parallel on pieces of a
/// dispatch aligned to 64 lanes, with `data` holding that piece only (lane 0
/// of `data` is the piece's first lane): a model may read any lane of the
/// wave it computes, never lanes of another wave.
pub type Model = fn(data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]);

/// One conformance case.
#[derive(Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    /// One line: what the case exercises and what its sources read.
    pub description: &'static str,
    /// Embedded code object (and kernel symbol) name.
    pub kernel: &'static str,
    pub wave_size: u32,
    pub outputs_per_lane: usize,
    /// Extra u32 arguments after `count`, random per run (seeded).
    pub scalar_args: usize,
    /// Some lanes of `out` must keep their previous contents (EXEC patterns).
    /// When false, every word of `out` is written and is poisoned with the
    /// complement of its expected value before launch.
    pub keeps_lanes: bool,
    pub model: Model,
    /// Behaviour the ISA guide leaves unclear, stated so nobody mistakes the
    /// model's choice for a documented rule.
    pub unsettled: Option<&'static str>,
    /// What the target's instruction set must allow for the kernel to exist
    /// there (e.g. an SGPR src1 with DPP); `None`: every target.
    pub requires: Option<crate::target::Feature>,
}

impl Case {
    /// Whether `target`'s ISA has this case's form (its kernel is built there).
    pub fn runs_on(&self, target: &crate::target::Target) -> bool {
        self.requires.is_none_or(|f| target.has(f))
    }
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case").field("name", &self.name).field("kernel", &self.kernel).finish()
    }
}

/// A family of cases: one file of this module, declaring its cases with `case!`.
pub struct Family {
    pub name: &'static str,
    pub specs: &'static [Spec],
}

/// Declares each family's module and lists it in [`FAMILIES`], so a family is
/// named once.
macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(mod $family;)*

        /// Every family, in catalogue order.
        pub static FAMILIES: &[Family] = &[$(Family { name: stringify!($family), specs: $family::SPECS }),*];
    };
}

families![basic, vgpr, sreg, inline, literal, exec, chain, dpp16, dpp8, dpp_src1];

/// Every case with the program its kernel runs, in catalogue order.
pub fn specs() -> impl Iterator<Item = &'static Spec> {
    FAMILIES.iter().flat_map(|family| family.specs)
}

/// Every case, in catalogue order.
pub fn catalogue() -> Vec<Case> {
    specs().map(|s| s.case).collect()
}

/// The cases `target`'s ISA has, in catalogue order.
pub fn catalogue_for(target: &crate::target::Target) -> Vec<Case> {
    specs().map(|s| s.case).filter(|c| c.runs_on(target)).collect()
}

/// The program of case `name`.
pub fn program(name: &str) -> Option<&'static program::Program> {
    specs().find(|s| s.case.name == name).map(|s| s.program)
}

/// The output word each of case `name`'s kernel's `v_xad_u32` instructions (in
/// program order) stores to (`None`: a chain intermediate). `None` for an
/// unknown case.
pub fn op_words(case: &str) -> Option<Vec<Option<u16>>> {
    program(case).map(|p| p.ops.iter().map(|op| op.word).collect())
}

/// Cases whose names match any of the comma-separated glob `patterns`
/// (`*`, `?`, `[..]`). An empty result is a usage error for the caller.
pub fn select(patterns: &str) -> Result<Vec<Case>, String> {
    let mut globs = Vec::new();
    for p in patterns.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        globs.push(glob::Pattern::new(p).map_err(|e| format!("--case {p:?} is not a valid pattern: {e}"))?);
    }
    if globs.is_empty() {
        return Err("--case needs a case name or pattern (see `xad-harness list`)".into());
    }
    let chosen: Vec<Case> = catalogue().into_iter().filter(|c| globs.iter().any(|g| g.matches(c.name))).collect();
    if chosen.is_empty() {
        return Err(format!("--case {patterns:?} matches no case (see `xad-harness list`)"));
    }
    Ok(chosen)
}

/// `(s0 ^ s1) + s2`, wrapping: the ISA's `D0.u32 = (S0.u32 ^ S1.u32) + S2.u32`.
#[inline(always)]
pub fn xad(s0: u32, s1: u32, s2: u32) -> u32 {
    (s0 ^ s1).wrapping_add(s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encode::encode_for;
    use model::{dpp16_ctrl_valid, inline_value};
    use program::{Dpp, Exec, Op, Src, EXEC_HI, EXEC_LO, LITERAL};

    #[test]
    fn xad_known_answers() {
        // (s0, s1, s2, expected): wrap-around, sign boundary, xor identities.
        let vectors: [(u32, u32, u32, u32); 8] = [
            (0, 0, 0, 0),
            (1, 2, 3, 6),
            (0xffff_ffff, 0, 1, 0),                     // wraps to zero, no carry-out kept
            (0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff),
            (0x7fff_ffff, 0, 1, 0x8000_0000),           // sign boundary, no saturation
            (0x1234_5678, 0x1234_5678, 0xdead_beef, 0xdead_beef),
            (0xaaaa_aaaa, 0x5555_5555, 2, 1),           // xor all ones, +2 wraps to 1
            (0x8000_0000, 0x0000_0001, 0x8000_0000, 1), // 0x80000001 + 0x80000000
        ];
        for (s0, s1, s2, want) in vectors {
            assert_eq!(xad(s0, s1, s2), want, "xad({s0:#x}, {s1:#x}, {s2:#x})");
        }
    }

    #[test]
    fn names_are_unique_and_kernels_embedded() {
        let all = catalogue();
        let mut names: Vec<_> = all.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "duplicate case names");
        for case in &all {
            // Embedded for the default target, or for the first target whose ISA has the form.
            let target = crate::target::TARGETS.iter().find(|t| case.runs_on(t)).expect("a target runs the case");
            let found = crate::kernels::find(target.name, case.kernel).is_some();
            assert!(found, "case {} names missing kernel {} for {}", case.name, case.kernel, target.name);
        }
    }

    #[test]
    fn select_patterns() {
        assert_eq!(select("basic").unwrap()[0].name, "basic");
        assert!(select("no_such_case").is_err());
        assert!(select("[").is_err());
        assert!(select(" , ").is_err());
    }

    /// Today's catalogue, in order; the registry must reproduce it exactly.
    const CATALOGUE_ORDER: [&str; 38] = [
        "basic",
        "vgpr_w32",
        "vgpr_w64",
        "sreg_w32",
        "sreg_w64",
        "sreg_hi_w32",
        "inline_src0_w32",
        "inline_src1_w32",
        "inline_src2_w32",
        "inline_src0_w64",
        "inline_src1_w64",
        "inline_src2_w64",
        "literal_w32",
        "literal_w64",
        "exec_w32",
        "exec_w64",
        "chain_w32",
        "chain_w64",
        "dpp16_quad_perm_w32",
        "dpp16_quad_perm_w64",
        "dpp16_shift_w32",
        "dpp16_shift_w64",
        "dpp16_row_w32",
        "dpp16_row_w64",
        "dpp16_masks_w32",
        "dpp16_masks_w64",
        "dpp16_inactive_w32",
        "dpp16_inactive_w64",
        "dpp8_w32",
        "dpp8_w64",
        "dpp_src1_sgpr_dpp16_w32",
        "dpp_src1_sgpr_dpp16_w64",
        "dpp_src1_inline_dpp16_w32",
        "dpp_src1_inline_dpp16_w64",
        "dpp_src1_sgpr_dpp8_w32",
        "dpp_src1_sgpr_dpp8_w64",
        "dpp_src1_inline_dpp8_w32",
        "dpp_src1_inline_dpp8_w64",
    ];

    /// Files of this module that are not families.
    const SHARED: [&str; 5] = ["mod.rs", "program.rs", "encode.rs", "model.rs", "declare.rs"];

    #[test]
    fn registry_yields_every_family_once_and_the_catalogue_in_order() {
        let families: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        assert_eq!(families, ["basic", "vgpr", "sreg", "inline", "literal", "exec", "chain", "dpp16", "dpp8", "dpp_src1"]);
        // Every family file under src/cases is registered (once, by the list above).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cases");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("src/cases")
            .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".rs") && !SHARED.contains(&f.as_str()))
            .collect();
        files.sort();
        let mut registered: Vec<String> = families.iter().map(|f| format!("{f}.rs")).collect();
        registered.sort();
        assert_eq!(files, registered, "family files vs FAMILIES");
        for family in FAMILIES {
            assert!(!family.specs.is_empty(), "family {} declares no case", family.name);
            for spec in family.specs {
                let name = spec.case.name;
                assert!(name == family.name || name.starts_with(&format!("{}_", family.name)), "{name} in family {}", family.name);
                assert_eq!(spec.case.kernel, format!("xad_{name}"), "{name}: kernel");
            }
        }
        let names: Vec<&str> = catalogue().iter().map(|c| c.name).collect();
        assert_eq!(names, CATALOGUE_ORDER);
        assert_eq!(specs().count(), 38);
    }

    #[test]
    fn every_table_is_consistent() {
        for spec in specs() {
            let (case, p) = (&spec.case, spec.program);
            let name = case.name;
            assert_eq!(case.wave_size, p.wave, "{name}: wave size");
            assert_eq!(case.outputs_per_lane, p.words, "{name}: words per lane");
            let mut words: Vec<u16> = p.ops.iter().filter_map(|o| o.word).collect();
            words.sort_unstable();
            assert_eq!(words, (0..p.words as u16).collect::<Vec<_>>(), "{name}: every out word stored once");
            assert_eq!(case.keeps_lanes, p.ops.iter().any(Op::may_keep), "{name}: keeps_lanes");
            for (j, op) in p.ops.iter().enumerate() {
                // Every target that has the case can encode each op; one that
                // lacks its feature refuses some op (so `requires` is needed).
                for t in crate::target::TARGETS.iter().filter(|t| case.runs_on(t)) {
                    encode_for(op, t.isa).unwrap_or_else(|e| panic!("{name} op {j} on {}: {e}", t.name));
                }
                if op.word.is_none() {
                    assert!(!op.may_keep(), "{name} op {j}: a chain link must always write");
                }
                if p.wave == 32 {
                    assert!(op.src.iter().all(|s| *s != Src::ExecHi), "{name} op {j}: exec_hi as data in wave32 is unsettled");
                }
                if let Dpp::Row { ctrl, .. } = op.dpp {
                    assert!(dpp16_ctrl_valid(ctrl), "{name} op {j}: ctrl {ctrl:#x}");
                }
                for s in &op.src {
                    if let Src::Res(_, i) = s {
                        assert!(*i < j, "{name} op {j}: reads a later result");
                    }
                    if let Src::Inline(code) = s {
                        assert!(inline_value(*code).is_some(), "{name} op {j}: code {code}");
                    }
                }
                let scalar_regs = op.src.iter().filter_map(|s| match s {
                    Src::Sreg(code, _) => Some(*code),
                    Src::ExecLo => Some(EXEC_LO),
                    Src::ExecHi => Some(EXEC_HI),
                    Src::Lit(_) => Some(LITERAL),
                    _ => None,
                });
                let mut distinct: Vec<u16> = scalar_regs.collect();
                distinct.sort_unstable();
                distinct.dedup();
                assert!(distinct.len() <= 2, "{name} op {j}: more than two constant-bus reads");
            }
        }
    }

    /// The DPP16 combination the ISA guide leaves unsettled (inactive in-range
    /// source, bound_ctrl=0, fi=0) needs a lane switched off; DPP16 ops with
    /// fi=0 therefore run with the whole wave on (bound_ctrl=1 with an inactive
    /// source is left out too: the guide's wording is clear only for fi=1).
    #[test]
    fn no_case_uses_the_unsettled_dpp16_combination() {
        for spec in specs() {
            for (j, op) in spec.program.ops.iter().enumerate() {
                if let Dpp::Row { fi: false, .. } = op.dpp {
                    assert!(matches!(op.exec, Exec::Wave), "{} op {j}: DPP16 fi=0 with lanes off", spec.case.name);
                }
            }
        }
    }
}
