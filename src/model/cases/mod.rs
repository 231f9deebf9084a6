//! The catalogue: each case is a hand-written kernel (embedded from
//! `kernels/cases/<kernel>.s` for each target that has its needs) plus a CPU model of exactly what the ISA says the
//! hardware must produce, over the standard lane ABI below.
//!
//! Module map (imports run one way: families -> shared modules; only this file
//! names the families):
//!
//! | module | what it holds |
//! |---|---|
//! | `mod.rs` (here) | [`Case`], [`LaneData`], [`Model`], [`xad`]; the family registry ([`FAMILIES`]) and what is read from it: [`catalogue`], [`select`], [`specs`], [`program()`], [`op_words`] |
//! | [`op_table`](mod@op_table) | the op table's vocabulary: [`Src`](op_table::Src), [`Op`](op_table::Op), [`Program`](op_table::Program), EXEC and DPP forms, operand codes, DPP control helpers |
//! | [`encode`](mod@encode) | the encoder: the `v_xad_u32` words an op's kernel must contain per ISA ([`encode::encode_for`]) and the `v_mov_b32_dpp` words feeding it ([`encode::movs_for`]) |
//! | [`model`] | the ISA model: [`model::run`] of a program over lanes, inline constant values, DPP16 lane selection |
//! | [`modifier_readings`] | issue 30's open bits of `v_xad_u32`: the VOP3 modifier fields ([`modifier_readings::Field`]), their bits ([`modifier_readings::set`], [`modifier_readings::mask`]), the candidate readings of each as data, the probe inputs, and the probe cases `modifiers_w32`/`_w64` ([`PROBE_CASES`]) |
//! | [`declare`] | [`Spec`] and the `case!` macro: the one way a family declares a case |
//! | `basic`, `vgpr`, `sreg`, `inline`, `literal`, `exec`, `chain`, `dpp16`, `dpp8`, `dpp_src1`, `dpp_mov`, `vgpr_msb` | the families, one file each, listed once in [`FAMILIES`] |
//! | [`sha256`] | the workload cases: SHA-256 compression per lane, whole kernels no op table describes ([`WORKLOADS`]) |
//!
//! Standard lane ABI (every case; see docs/kernel-abi.md): explicit kernel
//! arguments in this order: `a`, `b`, `c` (u32 global buffers, one word per
//! lane, or the case's [`Inputs::words`]), `out` (u32 global buffer, `outputs_per_lane` words per lane, lane `i`
//! at `out[i * outputs_per_lane ..]`), `count` (u32 lanes in this dispatch), then
//! `scalar_args` u32 by-value arguments `s0, s1, ...`. One-dimensional dispatch of
//! `ceil(count / W)` workgroups of `W` work-items, `W` being the kernel's
//! `.reqd_workgroup_size` (256 when it declares none); global lane =
//! workgroup_id.x * W + local id x. No hidden arguments are provided to rely on.

pub mod declare;
pub mod encode;
pub mod model;
pub mod modifier_readings;
pub mod op_table;
pub mod sha256;

pub use declare::Spec;

use std::ops::Range;

/// What a model sees: the sources of every lane of the dispatch, the scalar
/// arguments, and the output's contents before launch.
pub struct LaneData<'a> {
    /// `words[0]` words per lane (the case's [`Inputs`]; one for the op-table cases).
    pub a: &'a [u32],
    /// `words[1]` words per lane.
    pub b: &'a [u32],
    /// `words[2]` words per lane.
    pub c: &'a [u32],
    pub scalars: &'a [u32],
    /// `out` before the launch (`outputs_per_lane` words per lane); empty for
    /// cases that write every word (`keeps_lanes == false`).
    pub prefill: &'a [u32],
    /// Lanes in this dispatch (= `a.len() / words[0]`); lanes at or past it do not exist.
    pub count: usize,
}

/// How a case's sources `a`, `b`, `c` are laid out and drawn: words per lane
/// (lane `i`'s words at `a[i * words[0] ..]`) and the seeded generator. Inputs
/// are a pure function of (seed, global lane), so any range of lanes can be
/// drawn again, alone (failure records, dumps).
pub struct Inputs {
    pub words: [usize; 3],
    /// Fill lanes `first_lane ..` (as many as `a` holds) of `a`, `b`, `c`.
    pub fill: fn(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]),
}

/// The op-table cases' sources: one word each of a, b, c per lane, uniform
/// words with edge values mixed in ([`crate::model::inputs`]).
pub static STANDARD_INPUTS: Inputs = Inputs {
    words: [1, 1, 1],
    fill: crate::model::inputs::fill_sources_serial,
};

impl Inputs {
    /// Every source word of global lane `lane`: (a, b, c).
    pub fn lane(&self, seed: u64, lane: u64) -> [Vec<u32>; 3] {
        let mut words = self.words.map(|n| vec![0u32; n]);
        let [a, b, c] = &mut words;
        (self.fill)(seed, lane, a, b, c);
        words
    }

    /// The first word of a, b and c of global lane `lane` (what a failure
    /// record prints; the whole lane for the one-word cases).
    pub fn first_words(&self, seed: u64, lane: u64) -> (u32, u32, u32) {
        if std::ptr::eq(self, &STANDARD_INPUTS) {
            return crate::model::inputs::lane_sources(seed, lane);
        }
        let [a, b, c] = self.lane(seed, lane);
        (a[0], b[0], c[0])
    }
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
    /// The sources' shape and generator.
    pub inputs: &'static Inputs,
    pub model: Model,
    /// Behaviour the ISA guide leaves unclear, stated so nobody mistakes the
    /// model's choice for a documented rule.
    pub unsettled: Option<&'static str>,
    /// What the target's instruction set must allow for the kernel to exist
    /// there (wave32, a literal in a VOP3, an SGPR src1 with DPP, ...); empty:
    /// every target. A test derives the list from the op table.
    pub requires: &'static [crate::platform::target::Feature],
    /// Output words 1.. of a probe case (issue 30's modifier probes): word
    /// `j + 1` is `v_xad_u32` with `probes[j]` set, whose reading the ISA
    /// leaves open. On a device that executes rather than models the ISA
    /// (HIP) those words are classified into findings ([`crate::pipeline::findings`]),
    /// never compared; on the emulator they are checked or unsettled as it
    /// decides. Empty for every other case.
    pub probes: &'static [modifier_readings::Probe],
}

impl Case {
    /// Whether `target`'s ISA has this case's form (its kernel is built there).
    pub fn runs_on(&self, target: &crate::platform::target::Target) -> bool {
        self.requires.iter().all(|&f| target.has(f))
    }

    /// The features this case needs that `target` lacks (empty when it runs there).
    pub fn lacks_on(
        &self,
        target: &crate::platform::target::Target,
    ) -> Vec<crate::platform::target::Feature> {
        self.requires
            .iter()
            .copied()
            .filter(|&f| !target.has(f))
            .collect()
    }
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name)
            .field("kernel", &self.kernel)
            .finish()
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

families![
    basic, vgpr, sreg, inline, literal, exec, chain, dpp16, dpp8, dpp_src1, dpp_mov, vgpr_msb
];

/// Every case with the program its kernel runs, in catalogue order.
pub fn specs() -> impl Iterator<Item = &'static Spec> {
    FAMILIES.iter().flat_map(|family| family.specs)
}

/// The workload cases: whole kernels (SHA-256) checked against a CPU model
/// but described by no op table, after the op-table cases in the catalogue.
pub static WORKLOADS: &[&[Case]] = &[sha256::CASES];

/// The probe cases: kernels whose words the ISA leaves open, classified
/// into findings on hardware ([`Case::probes`]), after the workloads.
pub static PROBE_CASES: &[&[Case]] = &[modifier_readings::CASES];

/// Every case, in catalogue order: the op-table cases, the workloads, then
/// the probes.
pub fn catalogue() -> Vec<Case> {
    table_cases()
        .chain(WORKLOADS.iter().flat_map(|w| w.iter().copied()))
        .chain(PROBE_CASES.iter().flat_map(|w| w.iter().copied()))
        .collect()
}

/// The cases `target`'s ISA has, in catalogue order.
pub fn catalogue_for(target: &crate::platform::target::Target) -> Vec<Case> {
    catalogue()
        .into_iter()
        .filter(|c| c.runs_on(target))
        .collect()
}

/// The op-table cases (each has a [`program()`]), in catalogue order.
pub fn table_cases() -> impl Iterator<Item = Case> {
    specs().map(|s| s.case)
}

/// The op-table cases `target`'s ISA has.
pub fn table_cases_for(target: &crate::platform::target::Target) -> Vec<Case> {
    table_cases().filter(|c| c.runs_on(target)).collect()
}

/// The program of case `name`.
pub fn program(name: &str) -> Option<&'static op_table::Program> {
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
        globs.push(
            glob::Pattern::new(p)
                .map_err(|e| format!("--case {p:?} is not a valid pattern: {e}"))?,
        );
    }
    if globs.is_empty() {
        return Err("--case needs a case name or pattern (see `xad-harness list`)".into());
    }
    let chosen: Vec<Case> = catalogue()
        .into_iter()
        .filter(|c| globs.iter().any(|g| g.matches(c.name)))
        .collect();
    if chosen.is_empty() {
        return Err(format!(
            "--case {patterns:?} matches no case (see `xad-harness list`)"
        ));
    }
    Ok(chosen)
}

/// The comma-separated `patterns` that are plain case names (no `*`, `?` or
/// `[`): cases the user asked for by name, as opposed to those a glob picked
/// among others. A target that lacks a named case refuses the run; a glob
/// only selects the matching cases each target has.
pub fn named_exactly(patterns: &str) -> Vec<&str> {
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.contains(['*', '?', '[']))
        .collect()
}

/// `(s0 ^ s1) + s2`, wrapping: the ISA's `D0.u32 = (S0.u32 ^ S1.u32) + S2.u32`.
#[inline(always)]
pub fn xad(s0: u32, s1: u32, s2: u32) -> u32 {
    (s0 ^ s1).wrapping_add(s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::target::Feature;
    use encode::encode_for;
    use model::{dpp16_ctrl_valid, inline_value};
    use op_table::{Dpp, Exec, Op, Src, EXEC_HI, EXEC_LO, LITERAL};

    #[test]
    fn only_plain_names_are_named_exactly() {
        assert_eq!(
            named_exactly(" basic, dpp16_*,vgpr_w?,sreg_[ab]*,, basic_w64 "),
            ["basic", "basic_w64"]
        );
        assert!(named_exactly("*").is_empty());
    }

    #[test]
    fn xad_known_answers() {
        // (s0, s1, s2, expected): wrap-around, sign boundary, xor identities.
        let vectors: [(u32, u32, u32, u32); 8] = [
            (0, 0, 0, 0),
            (1, 2, 3, 6),
            (0xffff_ffff, 0, 1, 0), // wraps to zero, no carry-out kept
            (0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff),
            (0x7fff_ffff, 0, 1, 0x8000_0000), // sign boundary, no saturation
            (0x1234_5678, 0x1234_5678, 0xdead_beef, 0xdead_beef),
            (0xaaaa_aaaa, 0x5555_5555, 2, 1), // xor all ones, +2 wraps to 1
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
            let target = crate::platform::target::TARGETS
                .iter()
                .find(|t| case.runs_on(t))
                .expect("a target runs the case");
            let found = crate::platform::embedded::find(target.name, case.kernel).is_some();
            assert!(
                found,
                "case {} names missing kernel {} for {}",
                case.name, case.kernel, target.name
            );
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
    const CATALOGUE_ORDER: [&str; 57] = [
        "basic",
        "basic_w64",
        "vgpr_w32",
        "vgpr_w64",
        "sreg_w32",
        "sreg_w64",
        "sreg_hi_w32",
        "sreg_one_w64",
        "sreg_gfx9_w64",
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
        "exec_inline_w64",
        "chain_w32",
        "chain_w64",
        "chain_inline_w64",
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
        "dpp_mov_quad_perm_w32",
        "dpp_mov_quad_perm_w64",
        "dpp_mov_shift_w32",
        "dpp_mov_shift_w64",
        "dpp_mov_row_w32",
        "dpp_mov_row_w64",
        "dpp_mov_wave_w64",
        "dpp_mov_share_w32",
        "dpp_mov_share_w64",
        "dpp_mov_dpp8_w32",
        "dpp_mov_dpp8_w64",
        "dpp_mov_inactive_w32",
        "dpp_mov_inactive_w64",
        "vgpr_msb_w32",
    ];

    /// Files of this module that are not families (the shared modules, the
    /// workloads, and the modifier fields' readings: data for the probe
    /// family issue 30 adds, with no case of its own yet).
    const SHARED: [&str; 7] = [
        "mod.rs",
        "op_table.rs",
        "encode.rs",
        "model.rs",
        "declare.rs",
        "sha256.rs",
        "modifier_readings.rs",
    ];

    /// The workload cases, after the op-table ones.
    const WORKLOAD_ORDER: [&str; 2] = ["sha256_w32", "sha256_w64"];
    const PROBE_ORDER: [&str; 2] = ["modifiers_w32", "modifiers_w64"];

    #[test]
    fn registry_yields_every_family_once_and_the_catalogue_in_order() {
        let families: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
        assert_eq!(
            families,
            [
                "basic", "vgpr", "sreg", "inline", "literal", "exec", "chain", "dpp16", "dpp8",
                "dpp_src1", "dpp_mov", "vgpr_msb"
            ]
        );
        // Every family file under src/model/cases is registered (once, by the list above).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/model/cases");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("src/model/cases")
            .map(|e| {
                e.expect("dir entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|f| f.ends_with(".rs") && !SHARED.contains(&f.as_str()))
            .collect();
        files.sort();
        let mut registered: Vec<String> = families.iter().map(|f| format!("{f}.rs")).collect();
        registered.sort();
        assert_eq!(files, registered, "family files vs FAMILIES");
        for family in FAMILIES {
            assert!(
                !family.specs.is_empty(),
                "family {} declares no case",
                family.name
            );
            for spec in family.specs {
                let name = spec.case.name;
                assert!(
                    name == family.name || name.starts_with(&format!("{}_", family.name)),
                    "{name} in family {}",
                    family.name
                );
                assert_eq!(spec.case.kernel, format!("xad_{name}"), "{name}: kernel");
            }
        }
        let names: Vec<&str> = catalogue().iter().map(|c| c.name).collect();
        assert_eq!(names[..57], CATALOGUE_ORDER);
        assert_eq!(names[57..59], WORKLOAD_ORDER);
        assert_eq!(names[59..], PROBE_ORDER);
        assert_eq!(specs().count(), 57);
        assert!(WORKLOAD_ORDER.iter().all(|n| program(n).is_none()));
        assert!(PROBE_ORDER.iter().all(|n| program(n).is_none()));
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
            assert_eq!(
                words,
                (0..p.words as u16).collect::<Vec<_>>(),
                "{name}: every out word stored once"
            );
            assert_eq!(
                case.keeps_lanes,
                p.ops.iter().any(Op::may_keep),
                "{name}: keeps_lanes"
            );
            for (j, op) in p.ops.iter().enumerate() {
                // Every target that has the case can encode each op; one that
                // lacks its feature refuses some op (so `requires` is needed).
                for t in crate::platform::target::TARGETS
                    .iter()
                    .filter(|t| case.runs_on(t))
                {
                    encode_for(op, t)
                        .unwrap_or_else(|e| panic!("{name} op {j} on {}: {e}", t.name));
                }
                if op.word.is_none() {
                    assert!(
                        !op.may_keep(),
                        "{name} op {j}: a chain link must always write"
                    );
                }
                if p.wave == 32 {
                    assert!(
                        op.src.iter().all(|s| *s != Src::ExecHi),
                        "{name} op {j}: exec_hi as data in wave32 is unsettled"
                    );
                }
                if let Dpp::Row { ctrl, .. } = op.dpp {
                    assert!(dpp16_ctrl_valid(ctrl), "{name} op {j}: ctrl {ctrl:#x}");
                }
                check_moves(name, j, op, p.wave);
                for s in &op.src {
                    if let Src::Res(_, i) = s {
                        assert!(*i < j, "{name} op {j}: reads a later result");
                    }
                    if let Src::Inline(code) = s {
                        assert!(inline_value(*code).is_some(), "{name} op {j}: code {code}");
                    }
                }
                let scalar_regs = op.src.iter().filter_map(|s| match s {
                    Src::Sreg(code, _) | Src::Gfx9Sreg(code, _) => Some(*code),
                    Src::ExecLo => Some(EXEC_LO),
                    Src::ExecHi => Some(EXEC_HI),
                    Src::Lit(_) => Some(LITERAL),
                    _ => None,
                });
                let mut distinct: Vec<u16> = scalar_regs.collect();
                distinct.sort_unstable();
                distinct.dedup();
                assert!(
                    distinct.len() <= 2,
                    "{name} op {j}: more than two constant-bus reads"
                );
            }
        }
    }

    /// A moved source's rules: a control some generation defines, one
    /// destination per slot (v10-v12, none shared inside the op), a lane-source
    /// VGPR moved, the guides' undefined row_bcast rows always row-masked, and
    /// wave controls only in wave64 (gfx9 is wave64 only).
    fn check_moves(name: &str, j: usize, op: &Op, wave: u32) {
        for (slot, s) in op.src.iter().enumerate() {
            let Src::Moved(dst, mov) = s else { continue };
            assert_eq!(
                usize::from(*dst),
                10 + slot,
                "{name} op {j}: slot {slot} moves into v{dst}"
            );
            let vreg = match mov.from {
                op_table::Lane::A => 2,
                op_table::Lane::B => 3,
                op_table::Lane::C => 4,
            };
            assert_eq!(mov.src, vreg, "{name} op {j}: moved VGPR and lane source");
            match mov.dpp {
                Dpp::None => panic!("{name} op {j}: a move without DPP"),
                Dpp::Row { ctrl, row_mask, .. } => {
                    let gfx9 = model::dpp16_ctrl_gfx9_only(ctrl);
                    assert!(
                        dpp16_ctrl_valid(ctrl) || gfx9,
                        "{name} op {j}: ctrl {ctrl:#x}"
                    );
                    assert!(
                        !gfx9 || wave == 64,
                        "{name} op {j}: a gfx9 control in wave{wave}"
                    );
                    for n in 0..wave as usize {
                        let masked = row_mask >> (n >> 4) & 1 == 0;
                        assert!(
                            masked || !model::dpp_lane_undefined(ctrl, n),
                            "{name} op {j}: lane {n} undefined and not masked"
                        );
                    }
                }
                Dpp::Lane8 { .. } => {}
            }
        }
    }

    /// The features an op table needs, read from its ops: wave32, VOP3 DPP,
    /// an SGPR/inline DPP src1, a VOP3 literal, two distinct scalar values in
    /// one op (SGPRs, special registers, src_scc, a literal; inline constants
    /// and null do not count), null, s102-s105. Each is an assembler error on
    /// some generation (see `Feature`), so `requires` must say all of them.
    fn needed(p: &op_table::Program) -> Vec<Feature> {
        let mut needs = Vec::new();
        let mut need = |f: Feature, yes: bool| {
            if yes && !needs.contains(&f) {
                needs.push(f);
            }
        };
        need(Feature::Wave32, p.wave == 32);
        need(Feature::Wave64, p.wave == 64);
        for op in p.ops {
            let dpp = !matches!(op.dpp, Dpp::None);
            need(Feature::Vop3Dpp, dpp);
            need(
                Feature::DppSrc1Scalar,
                dpp && !matches!(op.src[1], Src::V(..) | Src::Res(..)),
            );
            need(
                Feature::Vop3Literal,
                op.src.iter().any(|s| matches!(s, Src::Lit(_))),
            );
            need(Feature::NullSgpr, op.src.contains(&Src::Null));
            need(Feature::VgprMsb, op.vgpr_msb != 0);
            need(
                Feature::HighSgprs,
                op.src.iter().any(|s| matches!(s, Src::Sreg(102..=105, _))),
            );
            need(
                Feature::Gfx9SpecialSgprs,
                op.src.iter().any(|s| matches!(s, Src::Gfx9Sreg(..))),
            );
            // DPP controls, on the VOP3 or on a move feeding it.
            let moves = op.src.iter().filter_map(|s| {
                if let Src::Moved(_, m) = s {
                    Some(m.dpp)
                } else {
                    None
                }
            });
            for control in moves.chain([op.dpp]) {
                let (wave_ctrl, share, fi) = match control {
                    Dpp::None => (false, false, false),
                    Dpp::Row { ctrl, fi, .. } => (
                        model::dpp16_ctrl_gfx9_only(ctrl),
                        model::dpp16_ctrl_gfx10_on(ctrl),
                        fi,
                    ),
                    Dpp::Lane8 { fi, .. } => (false, false, fi),
                };
                need(Feature::DppWaveControls, wave_ctrl);
                need(Feature::DppRowShare, share);
                need(Feature::Dpp8, matches!(control, Dpp::Lane8 { .. }));
                need(Feature::DppFetchInactive, fi);
            }
            // One key per scalar value: a register by its code, a literal by its value.
            let mut scalars: Vec<u64> = op
                .src
                .iter()
                .filter_map(|s| match *s {
                    Src::Sreg(code, _) | Src::Gfx9Sreg(code, _) => Some(u64::from(code)),
                    Src::ExecLo => Some(u64::from(EXEC_LO)),
                    Src::ExecHi => Some(u64::from(EXEC_HI)),
                    Src::Scc(_) => Some(u64::from(op_table::SRC_SCC)),
                    Src::Lit(v) => Some(1 << 32 | u64::from(v)),
                    _ => None,
                })
                .collect();
            scalars.sort_unstable();
            scalars.dedup();
            need(Feature::TwoScalarReads, scalars.len() > 1);
        }
        needs
    }

    #[test]
    fn every_case_requires_what_its_op_table_needs() {
        let mut wrong = Vec::new();
        for spec in specs() {
            let (mut declared, mut derived) = (spec.case.requires.to_vec(), needed(spec.program));
            declared.sort_by_key(|f| f.name());
            derived.sort_by_key(|f| f.name());
            if declared != derived {
                wrong.push(format!(
                    "{}: requires {declared:?}, its ops need {derived:?}",
                    spec.case.name
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// The cases only gfx9 has: its wave controls and special registers.
    const GFX9_ONLY: [&str; 2] = ["dpp_mov_wave_w64", "sreg_gfx9_w64"];

    /// gfx11 and gfx12 targets have every feature but (on gfx110x) a scalar
    /// DPP src1 and the gfx9-only ones, so every gfx11/gfx12 target has every
    /// case but the two gfx9-only ones, less the 8 dpp_src1 cases where the
    /// ISA lacks `DppSrc1Scalar`.
    #[test]
    fn gfx11_and_gfx12_targets_have_all_but_the_gfx9_only_cases() {
        use crate::isa::Generation;
        for t in crate::platform::target::TARGETS
            .iter()
            .filter(|t| matches!(t.generation(), Generation::Gfx11 | Generation::Gfx12))
        {
            let names: Vec<&str> = table_cases_for(t).iter().map(|c| c.name).collect();
            let want: Vec<&str> = CATALOGUE_ORDER
                .iter()
                .copied()
                .filter(|n| {
                    (t.isa.dpp_src1_scalar || !n.starts_with("dpp_src1_"))
                        && !GFX9_ONLY.contains(n)
                        && (t.has(Feature::Wave64) || !n.ends_with("_w64"))
                        && (t.has(Feature::VgprMsb) || !n.starts_with("vgpr_msb_"))
                })
                .collect();
            assert_eq!(names, want, "{}", t.name);
        }
    }

    const GFX9_CASES: [&str; 13] = [
        "basic_w64",
        "vgpr_w64",
        "sreg_one_w64",
        "sreg_gfx9_w64",
        "inline_src0_w64",
        "inline_src1_w64",
        "inline_src2_w64",
        "exec_inline_w64",
        "chain_inline_w64",
        "dpp_mov_quad_perm_w64",
        "dpp_mov_shift_w64",
        "dpp_mov_row_w64",
        "dpp_mov_wave_w64",
    ];

    /// Every gfx9 target (wave64, one scalar value, no literal/null/VOP3 DPP,
    /// its own DPP wave controls and special registers) has exactly
    /// `GFX9_CASES`; every gfx10 target all but VOP3 DPP, CDNA5's high VGPRs
    /// and the gfx9-only cases.
    #[test]
    fn gfx9_and_gfx10_catalogues() {
        use crate::isa::Generation;
        let gfx10: Vec<&str> = CATALOGUE_ORDER
            .iter()
            .copied()
            .filter(|n| {
                !["dpp16", "dpp8_", "dpp_src1", "vgpr_msb"]
                    .iter()
                    .any(|p| n.starts_with(p))
            })
            .filter(|n| !GFX9_ONLY.contains(n))
            .collect();
        assert_eq!(gfx10.len(), 34);
        let (mut nine, mut ten) = (0, 0);
        for t in crate::platform::target::TARGETS {
            let names: Vec<&str> = table_cases_for(t).iter().map(|c| c.name).collect();
            match t.generation() {
                Generation::Gfx9 => {
                    assert_eq!(names, GFX9_CASES, "{}", t.name);
                    nine += 1;
                }
                Generation::Gfx10 => {
                    assert_eq!(names, gfx10, "{}", t.name);
                    ten += 1;
                }
                Generation::Gfx11 | Generation::Gfx12 => {}
            }
        }
        assert_eq!(
            (nine, ten),
            (6, 4),
            "gfx908, gfx90a, gfx942, gfx950 + 2 generic; gfx1010, gfx1030 + 2 generic"
        );
    }

    /// Every target has the SHA-256 workload and the modifier probes in
    /// each wave size it has (wave64 everywhere but CDNA5, wave32 from gfx10
    /// on); after the op-table cases.
    #[test]
    fn every_target_has_the_sha256_and_modifier_cases() {
        for t in crate::platform::target::TARGETS {
            let names: Vec<&str> = catalogue_for(t).iter().map(|c| c.name).collect();
            let tail: Vec<&str> = match (t.has(Feature::Wave32), t.has(Feature::Wave64)) {
                (true, true) => [WORKLOAD_ORDER, PROBE_ORDER].concat(),
                (true, false) => vec!["sha256_w32", "modifiers_w32"],
                _ => vec!["sha256_w64", "modifiers_w64"],
            };
            assert_eq!(names[names.len() - tail.len()..], tail, "{}", t.name);
            assert_eq!(
                names.len(),
                table_cases_for(t).len() + tail.len(),
                "{}",
                t.name
            );
        }
    }

    /// Per family, how many cases gfx90a, gfx1030 and gfx1100 have.
    #[test]
    fn per_family_counts_by_generation() {
        let per_family = |name: &str| -> Vec<usize> {
            let t = crate::platform::target::find(name).expect("target");
            FAMILIES
                .iter()
                .map(|f| f.specs.iter().filter(|s| s.case.runs_on(t)).count())
                .collect()
        };
        let (g9, g10, g11) = (
            per_family("gfx90a"),
            per_family("gfx1030"),
            per_family("gfx1100"),
        );
        let counts: Vec<(&str, usize, usize, usize)> = FAMILIES
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name, g9[i], g10[i], g11[i]))
            .collect();
        assert_eq!(
            counts,
            [
                ("basic", 1, 2, 2),
                ("vgpr", 1, 2, 2),
                ("sreg", 2, 4, 4),
                ("inline", 3, 6, 6),
                ("literal", 0, 2, 2),
                ("exec", 1, 3, 3),
                ("chain", 1, 3, 3),
                ("dpp16", 0, 0, 10),
                ("dpp8", 0, 0, 2),
                ("dpp_src1", 0, 0, 0),
                ("dpp_mov", 4, 12, 12),
                ("vgpr_msb", 0, 0, 0),
            ]
        );
    }

    /// Every DPP control a gfx9 or gfx10 target's ISA has reaches
    /// `v_xad_u32` through a move in that target's catalogue, into each
    /// source slot: gfx9 quad_perm, row_shl/shr 1..15 (bound_ctrl 0 and 1),
    /// row_ror 1..15, the mirrors, wave_shl/rol/shr/ror:1 and row_bcast:15/31;
    /// gfx10 the same less the wave controls and row_bcast, plus row_share and
    /// row_xmask 0..15, fi:1 and DPP8 with fi 0 and 1.
    #[test]
    fn gfx9_and_gfx10_catalogues_move_every_dpp_control_into_every_slot() {
        for (name, gfx9) in [("gfx90a", true), ("gfx1030", false)] {
            let moves = moves_of(crate::platform::target::find(name).expect("target"));
            let has_row = |c: u16, bc: bool| {
                moves.iter().any(|(_, d)| matches!(d, Dpp::Row { ctrl, bound_ctrl, .. } if *ctrl == c && *bound_ctrl == bc))
            };
            for (c, bc) in dpp16_controls(gfx9) {
                assert!(
                    has_row(c, bc),
                    "{name}: no move with DPP control {c:#x} bound_ctrl={bc}"
                );
            }
            for slot in 0..3 {
                assert!(
                    moves.iter().any(|(i, _)| *i == slot),
                    "{name}: no move into src{slot}"
                );
            }
            let fi16 = moves
                .iter()
                .any(|(_, d)| matches!(d, Dpp::Row { fi: true, .. }));
            let d8 = |f: bool| {
                moves
                    .iter()
                    .any(|(_, d)| matches!(d, Dpp::Lane8 { fi, .. } if *fi == f))
            };
            let all_on = (!gfx9, !gfx9, !gfx9);
            assert_eq!(
                (fi16, d8(false), d8(true)),
                all_on,
                "{name}: fi and DPP8 exactly where the ISA has them"
            );
            let wave = moves
                .iter()
                .any(|(_, d)| matches!(d, Dpp::Row { ctrl, .. } if GFX9_CONTROLS.contains(ctrl)));
            assert_eq!(wave, gfx9, "{name}: wave controls exactly on gfx9");
        }
    }

    const GFX9_CONTROLS: [u16; 6] = [
        op_table::WAVE_SHL1,
        op_table::WAVE_ROL1,
        op_table::WAVE_SHR1,
        op_table::WAVE_ROR1,
        op_table::ROW_BCAST15,
        op_table::ROW_BCAST31,
    ];

    /// Every move (source slot, control) of the cases `t` has.
    fn moves_of(t: &crate::platform::target::Target) -> Vec<(usize, Dpp)> {
        let ops = table_cases_for(t)
            .iter()
            .flat_map(|c| program(c.name).expect("program").ops)
            .collect::<Vec<_>>();
        let moved = |(i, s): (usize, &Src)| {
            if let Src::Moved(_, m) = s {
                Some((i, m.dpp))
            } else {
                None
            }
        };
        ops.iter()
            .flat_map(|op| op.src.iter().enumerate().filter_map(moved))
            .collect()
    }

    /// The DPP16 (control, bound_ctrl) pairs a gfx9 or gfx10 ISA has that the
    /// catalogue must move: shifts with both bound_ctrl, rotates, a quad_perm,
    /// the mirrors; gfx9's wave controls and row_bcast, or gfx10's row_share/xmask.
    fn dpp16_controls(gfx9: bool) -> Vec<(u16, bool)> {
        use op_table::{
            row_ror, row_share, row_shl, row_shr, row_xmask, ROW_HALF_MIRROR, ROW_MIRROR,
        };
        let mut wanted: Vec<(u16, bool)> = (1..16)
            .flat_map(|k| {
                [
                    (row_shl(k), false),
                    (row_shl(k), true),
                    (row_shr(k), false),
                    (row_shr(k), true),
                    (row_ror(k), false),
                ]
            })
            .collect();
        wanted.extend([
            (op_table::quad_perm([1, 0, 3, 2]), false),
            (ROW_MIRROR, false),
            (ROW_HALF_MIRROR, false),
        ]);
        if gfx9 {
            wanted.extend(GFX9_CONTROLS.map(|c| (c, false)));
            wanted.extend([(op_table::WAVE_SHL1, true), (op_table::WAVE_SHR1, true)]);
        } else {
            wanted.extend((0..16).flat_map(|k| [(row_share(k), false), (row_xmask(k), false)]));
        }
        wanted
    }

    /// Each case a target lacks names every feature its ISA lacks, and a case
    /// runs exactly where it lacks nothing.
    #[test]
    fn excluded_cases_name_what_the_target_lacks() {
        use Feature::*;
        let case = |n: &str| catalogue().into_iter().find(|c| c.name == n).expect(n);
        let t = |n: &str| crate::platform::target::find(n).expect("target");
        let (gfx942, gfx1030, gfx1100) = (t("gfx942"), t("gfx1030"), t("gfx1100"));
        assert_eq!(
            case("sreg_w64").lacks_on(gfx942),
            [TwoScalarReads, NullSgpr, HighSgprs]
        );
        assert_eq!(case("dpp_mov_share_w64").lacks_on(gfx942), [DppRowShare]);
        assert_eq!(
            case("dpp_mov_dpp8_w32").lacks_on(gfx942),
            [Wave32, Dpp8, DppFetchInactive]
        );
        assert_eq!(
            case("dpp_mov_wave_w64").lacks_on(gfx1030),
            [DppWaveControls]
        );
        assert_eq!(case("sreg_gfx9_w64").lacks_on(gfx1100), [Gfx9SpecialSgprs]);
        assert_eq!(case("dpp16_row_w64").lacks_on(gfx1030), [Vop3Dpp]);
        for c in catalogue() {
            for t in crate::platform::target::TARGETS {
                assert_eq!(
                    c.runs_on(t),
                    c.lacks_on(t).is_empty(),
                    "{} on {}",
                    c.name,
                    t.name
                );
            }
        }
    }

    /// Negative control: an op table whose requires misses a feature is caught.
    #[test]
    fn a_missing_requirement_is_caught() {
        let literal = specs()
            .find(|s| s.case.name == "literal_w64")
            .expect("literal_w64");
        assert!(needed(literal.program).contains(&Feature::Vop3Literal));
        let vgpr = specs()
            .find(|s| s.case.name == "vgpr_w64")
            .expect("vgpr_w64");
        assert_eq!(
            needed(vgpr.program),
            [Feature::Wave64],
            "vgpr_w64 needs only wave64"
        );
        let with_lit = [op_table::Op::new(
            0,
            16,
            [Src::Lit(5), Src::Sreg(20, 0), Src::Inline(128)],
        )];
        let p = op_table::Program::new(64, Box::leak(Box::new(with_lit)));
        assert_eq!(
            needed(&p),
            [
                Feature::Wave64,
                Feature::Vop3Literal,
                Feature::TwoScalarReads
            ]
        );
        // One SGPR in two slots is one value; null is off the constant bus.
        let same_sgpr = [op_table::Op::new(
            0,
            16,
            [Src::Sreg(20, 0), Src::Sreg(20, 1), Src::Null],
        )];
        assert_eq!(
            needed(&op_table::Program::new(64, Box::leak(Box::new(same_sgpr)))),
            [Feature::Wave64, Feature::NullSgpr]
        );
    }

    /// The DPP16 combination the ISA guide leaves unsettled (inactive in-range
    /// source, bound_ctrl=0, fi=0) needs a lane switched off; DPP16 ops with
    /// fi=0 therefore run with the whole wave on (bound_ctrl=1 with an inactive
    /// source is left out too: the guide's wording is clear only for fi=1).
    #[test]
    fn no_case_uses_the_unsettled_dpp16_combination() {
        for spec in specs() {
            for (j, op) in spec.program.ops.iter().enumerate() {
                let moves = op.src.iter().filter_map(|s| {
                    if let Src::Moved(_, m) = s {
                        Some(m.dpp)
                    } else {
                        None
                    }
                });
                for control in moves.chain([op.dpp]) {
                    if let Dpp::Row { fi: false, .. } = control {
                        assert!(
                            matches!(op.exec, Exec::Wave),
                            "{} op {j}: DPP16 fi=0 with lanes off",
                            spec.case.name
                        );
                    }
                }
            }
        }
    }
}
