//! The GPU targets the harness builds and runs kernels for, as data: one row
//! per target with its instruction set ([`Isa`]), the first ROCm runtime that
//! knows it (which decides its code object version, [`Target::code_object_version`]),
//! and the cards it is. The build script reads the same table (it assembles each
//! `kernels/cases/` stub for every row that [`Target::has`] the features the
//! stub's `// needs:` line names, with the frame of the row's generation), so
//! a target is added here and nowhere else.
//!
//! A device runs the code object built for its exact processor (its
//! gcnArchName without feature suffixes); a processor with no row of its own
//! runs a generic target's code object when that generic target covers it.

use crate::code_object_policy::{self, HipVersion};
use crate::generation::{Generation, Isa};

/// A capability a case may need beyond the base instruction set every target
/// has (wave64, VGPR/SGPR/inline sources, one scalar value per VALU op, DPP16
/// quad_perm/row shifts/mirrors through a `v_mov_b32_dpp`). gfx11 and gfx12
/// have all but [`Feature::DppSrc1Scalar`] and the gfx9-only ones on every
/// target; gfx9 (GCN5/CDNA) and gfx10 (RDNA1/2) lack some (checked with llvm-mc 19:
/// each refusal below is an assembler error there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// An SGPR or inline constant as src1 of a DPP16/DPP8 VOP3
    /// (LLVM's `FeatureDPPSrc1SGPR`).
    DppSrc1Scalar,
    /// Wave32 dispatch (gfx10+; gfx9 is wave64 only).
    Wave32,
    /// Wave64 dispatch (every target but CDNA5: gfx1250/gfx1251 are wave32
    /// only; `llvm-mc-22 -mcpu=gfx1250 -mattr=+wavefrontsize64` fails).
    Wave64,
    /// `v_xad_u32_e64_dpp` (DPP16/DPP8 on a VOP3, gfx11+; gfx9 and gfx10:
    /// "e64_dpp variant of this instruction is not supported").
    Vop3Dpp,
    /// A 32-bit literal in a VOP3 (gfx10+; gfx9: "literal operands are not
    /// supported").
    Vop3Literal,
    /// Two distinct scalar values (SGPRs, special registers, src_scc,
    /// literal) in one VALU op: constant bus limit 2 (gfx10+; gfx9's limit
    /// is 1: "violates constant bus restrictions"). Inline constants and
    /// `null` do not count.
    TwoScalarReads,
    /// The `null` source register (gfx10+; gfx9: "'null' operand is not
    /// supported on this GPU").
    NullSgpr,
    /// SGPRs s102-s105 (gfx10+; gfx9 addresses s0-s101: "register not
    /// available on this GPU").
    HighSgprs,
    /// DPP wave_shl:1, wave_rol:1, wave_shr:1, wave_ror:1, row_bcast:15 and
    /// row_bcast:31 (gfx9 only; gfx10+: "not a valid operand").
    DppWaveControls,
    /// DPP row_share and row_xmask (gfx10+; gfx9: "not a valid operand").
    DppRowShare,
    /// DPP8 lane selects (gfx10+; gfx9: "not a valid operand").
    Dpp8,
    /// DPP fi:1, reading inactive source lanes (gfx10+; gfx9 has no FI bit).
    DppFetchInactive,
    /// flat_scratch_lo/hi and xnack_mask_lo/hi as operands (gfx9 only;
    /// gfx10+: "register not available on this GPU").
    Gfx9SpecialSgprs,
    /// The dispatch packs the work-item ids into v0 (x bits 9:0, y 19:10, z
    /// 29:20) rather than giving them in v0, v1, v2 (LLVM `FeaturePackedTID`:
    /// gfx90a, gfx940-gfx950, gfx9-4-generic, gfx11+; `llc -mcpu=gfx90a`
    /// reads y as `v_bfe_u32 v, v0, 10, 10`, `-mcpu=gfx908` reads v1,
    /// `clang-19 -mcpu=gfx1030` reads y from v1 and z from v2).
    PackedWorkItemIds,
    /// gfx90a's unified VGPR/AGPR file, allocated together with AGPRs from
    /// ACCUM_OFFSET (LLVM `FeatureGFX90AInsts`: gfx90a, gfx940-gfx950,
    /// gfx9-4-generic).
    UnifiedVgprs,
    /// Architected flat scratch (LLVM `FeatureArchitectedFlatScratch`:
    /// gfx940-gfx950, gfx9-4-generic, gfx11+): no private segment buffer or
    /// flat scratch init user SGPRs, no private segment wave offset.
    ArchitectedFlatScratch,
    /// Workgroup ids in ttmp9 (x) and ttmp7 (y, z) rather than system SGPRs
    /// (LLVM `FeatureArchitectedSGPRs`: gfx12).
    ArchitectedSgprs,
    /// VGPRs 256-1023, bits 9:8 of each operand's number set by
    /// `s_set_vgpr_msb` (CDNA5: gfx1250, gfx1251; LLVM
    /// `AMDGPULowerVGPREncoding.cpp`).
    VgprMsb,
    /// A documented reading of the VOP3 modifiers on `v_xad_u32`, which the
    /// ISA guides, AMD's ISA XML, LLVM, Mesa ACO and gem5 leave open: per
    /// source, ABS clears bit 31, then NEG flips it, then `(S0 ^ S1) + S2`;
    /// CLAMP leaves a sum that does not overflow 32 bits as it is.
    /// Provenance: the public RDNA4 simulator yoshou/amdgpu-sim keeps
    /// integer VOP3 vectors under `tests/isa/` whose expected values, by its
    /// own statement, were captured on a gfx1200 part: `v_xad_u32` of
    /// (0xDEADBEEF, 0x0000FFFF, 0x10) with NEG on src0, src1 or src2, or ABS
    /// on src0, gives 0x5EAD4120 (plain: 0xDEAD4120); across its integer
    /// vectors ABS clears, then NEG flips, the raw operand's bit 31, and
    /// CLAMP changed nothing where nothing overflowed (no `v_xad_u32` vector
    /// overflows with CLAMP set, and none sets OMOD or OPSEL). Listed on
    /// the rows of gfx1200, gfx1201 and gfx12-generic: one generation
    /// (RDNA4), one VALU. Not on CDNA5 (gfx1250/gfx1251), another product
    /// line, nor on any earlier generation: nothing is published there.
    /// The emulator computes this reading where a row has it and marks
    /// everything else these fields do unsettled (`src/platform/emu/modifiers.rs`).
    XadModifiersMeasured,
}

impl Feature {
    /// Every feature with the word a kernel stub names it by in its
    /// `// needs:` line (`kernels/cases/*.s`; build.rs builds a stub for each
    /// target that [`Target::has`] every word of it). LLVM's feature names
    /// where LLVM has one, lower-case.
    pub const KEYS: [(Feature, &'static str); 14] = [
        (Feature::DppSrc1Scalar, "dpp_src1_scalar"),
        (Feature::Wave32, "wave32"),
        (Feature::Wave64, "wave64"),
        (Feature::Vop3Dpp, "vop3_dpp"),
        (Feature::Vop3Literal, "vop3_literal"),
        (Feature::TwoScalarReads, "two_scalar_reads"),
        (Feature::NullSgpr, "null_sgpr"),
        (Feature::HighSgprs, "high_sgprs"),
        (Feature::DppWaveControls, "dpp_wave_controls"),
        (Feature::DppRowShare, "dpp_row_share"),
        (Feature::Dpp8, "dpp8"),
        (Feature::DppFetchInactive, "dpp_fetch_inactive"),
        (Feature::Gfx9SpecialSgprs, "gfx9_special_sgprs"),
        (Feature::VgprMsb, "vgpr_msb"),
    ];

    /// The word of [`Feature::KEYS`] for this feature.
    pub fn key(self) -> &'static str {
        Feature::KEYS
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, k)| *k)
            .expect("every feature has a key")
    }

    /// The feature a `// needs:` word names.
    pub fn from_key(key: &str) -> Option<Feature> {
        Feature::KEYS
            .iter()
            .find(|(_, k)| *k == key)
            .map(|(f, _)| *f)
    }

    pub fn name(self) -> &'static str {
        match self {
            Feature::DppSrc1Scalar => "an SGPR or inline constant as src1 of a DPP VOP3",
            Feature::Wave32 => "wave32",
            Feature::Wave64 => "wave64",
            Feature::Vop3Dpp => "DPP on a VOP3 (v_xad_u32_e64_dpp)",
            Feature::Vop3Literal => "a literal in a VOP3",
            Feature::TwoScalarReads => "two scalar values in one VALU op (constant bus limit 2)",
            Feature::NullSgpr => "the null source register",
            Feature::HighSgprs => "SGPRs s102-s105",
            Feature::DppWaveControls => "DPP wave_shl/rol/shr/ror and row_bcast (gfx9 only)",
            Feature::DppRowShare => "DPP row_share and row_xmask",
            Feature::Dpp8 => "DPP8",
            Feature::DppFetchInactive => "DPP fi (fetch inactive lanes)",
            Feature::Gfx9SpecialSgprs => "flat_scratch and xnack_mask operands (gfx9 only)",
            Feature::PackedWorkItemIds => "work-item ids packed into v0",
            Feature::UnifiedVgprs => "a unified VGPR/AGPR file (gfx90a and later CDNA)",
            Feature::ArchitectedFlatScratch => "architected flat scratch",
            Feature::ArchitectedSgprs => "workgroup ids in ttmp registers (architected SGPRs)",
            Feature::VgprMsb => "VGPRs 256-1023 through s_set_vgpr_msb (CDNA5)",
            Feature::XadModifiersMeasured => {
                "v_xad_u32's NEG/ABS (bit 31) and CLAMP without overflow, as measured on gfx1200"
            }
        }
    }
}

/// One word of a kernel stub's `// needs:` line: a feature, and whether the
/// target must have it (`wave32`) or lack it (`!wave32`: the wave64 soak and
/// microbench kernels exist only where there is no wave32 one).
pub type Need = (Feature, bool);

/// The needs of a `kernels/cases/` stub from its first line,
/// `// needs: w1 w2 !w3` (words of [`Feature::KEYS`]) or `// needs: none` (every
/// target). build.rs builds the stub for each target that [`Target::meets`]
/// them; tests read them the same way.
pub fn parse_needs(line: &str) -> Result<Vec<Need>, String> {
    let words = line
        .strip_prefix("// needs:")
        .ok_or("not a `// needs: ...` line (`// needs: none` for every target)")?;
    let words: Vec<&str> = words.split_whitespace().collect();
    if words == ["none"] {
        return Ok(Vec::new());
    }
    if words.is_empty() {
        return Err("`// needs:` names nothing; write `// needs: none`".into());
    }
    words
        .iter()
        .map(|w| {
            let (key, wanted) = w.strip_prefix('!').map_or((*w, true), |k| (k, false));
            Feature::from_key(key).map(|f| (f, wanted)).ok_or_else(|| {
                let known: Vec<&str> = Feature::KEYS.iter().map(|(_, k)| *k).collect();
                format!("unknown feature {key:?} (known: {})", known.join(", "))
            })
        })
        .collect()
}

/// One target: a processor (`gfx1151`) or a generic target (`gfx11-generic`).
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// LLVM's processor name, `-mcpu=<name>`.
    pub name: &'static str,
    pub isa: Isa,
    /// Marketing architecture: CDNA1-4, GCN5, RDNA1-4.
    pub architecture: &'static str,
    /// The products built on it (for a generic target: what it covers).
    pub cards: &'static str,
    /// For a generic target: the processors whose devices run its code
    /// (AMDGPUUsage "Generic Processors"); empty for a processor.
    pub covers: &'static [&'static str],
    /// The first ROCm release whose runtime knows this processor: the first
    /// ROCR-Runtime release tag whose ISA registry (`core/runtime/isa.cpp`)
    /// names it (4.1 means "by 4.1": older tags list ISAs by number and were
    /// not read). `None`: not in the sources read (to rocm-6.2.4, October
    /// 2024), though a newer runtime may know it (measured here through the
    /// emulated KFD device: 7.2 runs gfx950; 6.4's ROCr lists it but its HIP
    /// finds no device), and for generic targets.
    /// With the HIP version a build uses it decides the code object version
    /// ([`Target::code_object_version`]).
    pub runtime_since: Option<HipVersion>,
    /// Features this processor has beyond what its [`Isa`] implies (RDNA4's
    /// measured modifier reading).
    pub features: &'static [Feature],
}

/// What RDNA4's rows know beyond their Isa: the modifier reading measured on
/// gfx1200 ([`Feature::XadModifiersMeasured`]), extended to gfx1201 and
/// gfx12-generic because they are the same generation's VALU.
const RDNA4_FEATURES: &[Feature] = &[Feature::XadModifiersMeasured];

/// Every target, in the order `--target all` runs them.
pub static TARGETS: &[Target] = &[
    processor("gfx1100", Isa::GFX11, "RDNA3", "Radeon RX 7900 XTX/XT/GRE, Radeon PRO W7900/W7800", Some(rocm(5, 3))),
    processor("gfx1101", Isa::GFX11, "RDNA3", "Radeon RX 7800 XT/7700 XT, Radeon PRO W7700", Some(rocm(5, 5))),
    processor("gfx1102", Isa::GFX11, "RDNA3", "Radeon RX 7600/7600 XT, Radeon PRO W7600/W7500", Some(rocm(5, 3))),
    processor("gfx1103", Isa::GFX11, "RDNA3", "Radeon 780M/760M/740M (Ryzen 7040/8040 APUs)", Some(rocm(5, 3))),
    processor("gfx1150", Isa::GFX115X, "RDNA3.5", "Radeon 890M/880M (Ryzen AI 300, Strix Point)", Some(rocm(6, 1))),
    processor("gfx1151", Isa::GFX115X, "RDNA3.5", "Radeon 8060S/8050S (Ryzen AI Max, Strix Halo)", Some(rocm(6, 1))),
    processor("gfx1152", Isa::GFX115X, "RDNA3.5", "Radeon 860M/840M (Ryzen AI 5/7 300, Krackan Point)", None),
    // LLVM 22 knows it (LLVM 19 does not: built only where LLVM 22 is found);
    // the documents read here name no product for it.
    processor("gfx1153", Isa::GFX115X, "RDNA3.5", "an RDNA3.5 APU known to LLVM 22 (no product named in the documents read)", None),
    Target {
        features: RDNA4_FEATURES,
        ..processor("gfx1200", Isa::GFX12, "RDNA4", "Radeon RX 9060 XT/9060", Some(rocm(6, 2)))
    },
    Target {
        features: RDNA4_FEATURES,
        ..processor("gfx1201", Isa::GFX12, "RDNA4", "Radeon RX 9070 XT/9070/9070 GRE, Radeon AI PRO R9700", Some(rocm(6, 2)))
    },
    // CDNA5 ("GFX12.5"): LLVM 22 knows them (LLVM 19 does not: built only
    // where LLVM 22 is found). LLVM 22's AMDGPUUsage lists gfx1250 as an APU
    // with products "TBA"; wave32 only.
    processor("gfx1250", Isa::GFX1250, "CDNA5", "a CDNA5 part known to LLVM 22 (products \"TBA\" in its AMDGPUUsage)", None),
    processor("gfx1251", Isa::GFX1250, "CDNA5", "a CDNA5 part known to LLVM 22 (no product named in the documents read)", None),
    processor("gfx908", Isa::GFX9, "CDNA1", "Instinct MI100", Some(rocm(4, 1))),
    processor("gfx90a", Isa::GFX90A, "CDNA2", "Instinct MI210/MI250/MI250X", Some(rocm(4, 3))),
    processor("gfx942", Isa::GFX940, "CDNA3", "Instinct MI300X/MI300A/MI325X", Some(rocm(5, 7))),
    processor("gfx950", Isa::GFX940, "CDNA4", "Instinct MI350X/MI355X", None),
    processor("gfx1010", Isa::GFX1010, "RDNA1", "Radeon RX 5700 XT/5700/5600 XT, Radeon PRO W5700", Some(rocm(4, 1))),
    processor("gfx1030", Isa::GFX10, "RDNA2", "Radeon RX 6950 XT/6900 XT/6800 XT/6800, Radeon PRO W6800/V620", Some(rocm(4, 1))),
    Target {
        name: "gfx11-generic",
        isa: Isa::GFX11,
        architecture: "RDNA3/3.5",
        cards: "any gfx1100-gfx1103 or gfx1150-gfx1153 device",
        covers: &["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"],
        runtime_since: None,
        features: &[],
    },
    Target {
        name: "gfx12-generic",
        isa: Isa::GFX12,
        architecture: "RDNA4",
        cards: "any gfx1200 or gfx1201 device",
        covers: &["gfx1200", "gfx1201"],
        runtime_since: None,
        features: RDNA4_FEATURES,
    },
    Target {
        name: "gfx9-generic",
        isa: Isa::GFX9,
        architecture: "GCN5",
        cards: "any gfx900-gfx90c device: Radeon RX Vega 56/64, Radeon VII, Instinct MI25/MI50/MI60, Vega APUs",
        covers: &["gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"],
        runtime_since: None,
        features: &[],
    },
    Target {
        name: "gfx9-4-generic",
        isa: Isa::GFX940,
        architecture: "CDNA3/4",
        cards: "any gfx940-gfx942 or gfx950 device",
        covers: &["gfx940", "gfx941", "gfx942", "gfx950"],
        runtime_since: None,
        features: &[],
    },
    Target {
        name: "gfx10-1-generic",
        isa: Isa::GFX1010,
        architecture: "RDNA1",
        cards: "any gfx1010-gfx1013 device",
        covers: &["gfx1010", "gfx1011", "gfx1012", "gfx1013"],
        runtime_since: None,
        features: &[],
    },
    Target {
        name: "gfx10-3-generic",
        isa: Isa::GFX10,
        architecture: "RDNA2",
        cards: "any gfx1030-gfx1036 device",
        covers: &["gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"],
        runtime_since: None,
        features: &[],
    },
];

const fn processor(
    name: &'static str,
    isa: Isa,
    architecture: &'static str,
    cards: &'static str,
    runtime_since: Option<HipVersion>,
) -> Target {
    Target {
        name,
        isa,
        architecture,
        cards,
        covers: &[],
        runtime_since,
        features: &[],
    }
}

/// ROCm release `major.minor` (HIP's version follows ROCm's).
const fn rocm(major: u32, minor: u32) -> HipVersion {
    HipVersion::release(major, minor)
}

/// The target the emulator runs when none is asked for.
pub const DEFAULT: &str = "gfx1100";

impl Target {
    pub fn is_generic(&self) -> bool {
        !self.covers.is_empty()
    }

    /// The code object version its kernels are assembled as for a binary
    /// built against HIP `runtime` ([`code_object_policy::choose`]): v4 for a
    /// processor a runtime before 5.3 knows, v6 for a generic target, v5
    /// otherwise.
    pub fn code_object_version(&self, runtime: HipVersion) -> u8 {
        code_object_policy::choose(self.is_generic(), self.runtime_since, runtime)
    }

    pub fn generation(&self) -> Generation {
        self.isa.generation
    }

    /// The kernel frame its cases are assembled with ([`Isa::frame`]).
    pub fn frame(&self) -> &'static str {
        self.isa.frame()
    }

    /// Whether the target has `feature`: from its generation (gfx9 lacks
    /// what gfx10 added, gfx10 lacks VOP3 DPP), from the Isa's own facts
    /// ([`Feature::DppSrc1Scalar`] differs inside gfx11, the gfx940
    /// additions inside gfx9), or listed on the row ([`Target::features`]).
    /// The one place a generation is turned into capabilities: other modules
    /// ask this, not a name.
    pub fn has(&self, feature: Feature) -> bool {
        if self.features.contains(&feature) {
            return true;
        }
        let generation = self.isa.generation;
        let gfx10_on = generation != Generation::Gfx9;
        let gfx11_on = matches!(generation, Generation::Gfx11 | Generation::Gfx12);
        match feature {
            Feature::PackedWorkItemIds => gfx11_on || self.isa.gfx90a_insts,
            Feature::ArchitectedFlatScratch => gfx11_on || self.isa.gfx940_insts,
            Feature::UnifiedVgprs => self.isa.gfx90a_insts,
            Feature::ArchitectedSgprs => generation == Generation::Gfx12,
            Feature::DppSrc1Scalar => self.isa.dpp_src1_scalar,
            Feature::Wave64 => !self.isa.gfx1250_insts,
            Feature::VgprMsb => self.isa.gfx1250_insts,
            Feature::Vop3Dpp => gfx11_on,
            Feature::Wave32
            | Feature::Vop3Literal
            | Feature::TwoScalarReads
            | Feature::NullSgpr
            | Feature::HighSgprs
            | Feature::DppRowShare
            | Feature::Dpp8
            | Feature::DppFetchInactive => gfx10_on,
            Feature::DppWaveControls | Feature::Gfx9SpecialSgprs => !gfx10_on,
            // Measured, not implied by an instruction set: listed per row.
            Feature::XadModifiersMeasured => false,
        }
    }

    /// Whether the target has every feature of `needs` it must have and none
    /// it must lack: a `kernels/cases/` stub with these needs is built for it.
    pub fn meets(&self, needs: &[Need]) -> bool {
        needs.iter().all(|&(f, wanted)| self.has(f) == wanted)
    }

    /// Whether a device whose processor is `processor` (gcnArchName without
    /// feature suffixes) runs this target's code objects.
    pub fn runs_on(&self, processor: &str) -> bool {
        if self.is_generic() {
            self.covers.contains(&processor)
        } else {
            self.name == processor
        }
    }
}

/// Whether code built for `code` (a target name: a processor or a generic
/// target) runs on a device of `device` (a processor, or a generic target
/// the emulator emulates as such): the same name, or a generic target
/// covering the processor. The one rule the HIP pre-load check, the
/// emulator's load and `--kernel --target` all apply.
pub fn code_runs_on(code: &str, device: &str) -> bool {
    code == device || find(code).is_some_and(|t| t.is_generic() && t.runs_on(device))
}

/// The row named `name` (exactly, e.g. `gfx1151` or `gfx12-generic`).
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Every target name, for messages.
pub fn names() -> Vec<&'static str> {
    TARGETS.iter().map(|t| t.name).collect()
}

/// The target a device of `processor` runs: its own row, else the first
/// generic target covering it.
pub fn for_processor(processor: &str) -> Option<&'static Target> {
    for_processor_where(processor, |_| true)
}

/// As [`for_processor`], preferring the rows `built` accepts: a processor
/// whose own row was not built (gfx1153 where only LLVM 19 was found) runs
/// the generic target covering it when that one was; when none was built,
/// its own row (whose "not built" then says why).
pub fn for_processor_where(
    processor: &str,
    built: impl Fn(&Target) -> bool,
) -> Option<&'static Target> {
    let own = find(processor).filter(|t| !t.is_generic());
    let generic = || {
        TARGETS
            .iter()
            .filter(|t| t.is_generic() && t.runs_on(processor))
    };
    own.filter(|t| built(t))
        .or_else(|| generic().find(|t| built(t)))
        .or(own)
        .or_else(|| generic().next())
}

/// What `--target` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Choice {
    /// The device's own target (gfx1100 on the emulator).
    #[default]
    Device,
    One(&'static Target),
    /// Every target: on the emulator all of [`TARGETS`]; on a device, every
    /// target whose code objects it runs.
    All,
}

/// Parse a `--target` value: a target name, or `all`.
pub fn parse_choice(text: &str) -> Result<Choice, String> {
    match text.trim() {
        "all" => Ok(Choice::All),
        name => find(name).map(Choice::One).ok_or_else(|| {
            let hint = match name.split_once(':') {
                Some((processor, _)) if find(processor).is_some() => {
                    format!(" (name the processor without features: {processor})")
                }
                _ => String::new(),
            };
            format!(
                "unknown target {name:?}{hint}; known: {}, or all",
                names().join(", ")
            )
        }),
    }
}

/// The processor part of a gcnArchName or target ID (`gfx1100` of
/// `gfx1100:sramecc-:xnack-` or `amdgcn-amd-amdhsa--gfx1100`).
pub fn processor_of(arch: &str) -> &str {
    let arch = arch.rsplit_once("--").map_or(arch, |(_, rest)| rest);
    arch.split(':').next().unwrap_or(arch).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for t in TARGETS {
            assert_eq!(find(t.name), Some(t));
            assert_eq!(
                TARGETS.iter().filter(|u| u.name == t.name).count(),
                1,
                "{}",
                t.name
            );
        }
        assert_eq!(find("gfx1100:xnack-"), None, "exact names only");
    }

    #[test]
    fn devices_run_their_own_target_or_a_covering_generic() {
        assert_eq!(for_processor("gfx1101").map(|t| t.name), Some("gfx1101"));
        assert_eq!(
            for_processor("gfx1153").map(|t| t.name),
            Some("gfx1153"),
            "its own row since LLVM 22"
        );
        assert_eq!(for_processor("gfx1103").map(|t| t.name), Some("gfx1103"));
        assert_eq!(for_processor("gfx90a").map(|t| t.name), Some("gfx90a"));
        assert_eq!(
            for_processor("gfx906").map(|t| t.name),
            Some("gfx9-generic")
        );
        assert_eq!(
            for_processor("gfx1031").map(|t| t.name),
            Some("gfx10-3-generic")
        );
        assert_eq!(for_processor("gfx803"), None, "no v_xad_u32 before gfx9");
        // A processor whose own row was not built runs its generic target
        // when that was built, and its own row when neither was.
        let not_gfx1153 = |t: &Target| t.name != "gfx1153";
        assert_eq!(
            for_processor_where("gfx1153", not_gfx1153).map(|t| t.name),
            Some("gfx11-generic")
        );
        assert_eq!(
            for_processor_where("gfx1153", |_| false).map(|t| t.name),
            Some("gfx1153")
        );
        assert_eq!(
            for_processor_where("gfx906", |_| false).map(|t| t.name),
            Some("gfx9-generic")
        );
        assert_eq!(
            for_processor("gfx11-generic"),
            None,
            "no device is a generic target"
        );
    }

    #[test]
    fn code_runs_on_its_own_processor_or_under_a_covering_generic_target() {
        assert!(code_runs_on("gfx1101", "gfx1101"));
        assert!(code_runs_on("gfx11-generic", "gfx1153"));
        assert!(
            code_runs_on("gfx11-generic", "gfx11-generic"),
            "an emulated generic device"
        );
        assert!(!code_runs_on("gfx1101", "gfx1100"));
        assert!(!code_runs_on("gfx11-generic", "gfx1201"));
        assert!(
            !code_runs_on("gfx1100", "gfx11-generic"),
            "a processor's code is not generic code"
        );
    }

    #[test]
    fn target_choices_parse_and_refusals_name_the_known_targets() {
        assert_eq!(parse_choice("all"), Ok(Choice::All));
        assert_eq!(
            parse_choice("gfx1201"),
            Ok(Choice::One(find("gfx1201").unwrap()))
        );
        let e = parse_choice("gfx803").unwrap_err();
        assert!(
            e.contains("unknown target \"gfx803\"")
                && e.contains("gfx1151")
                && e.contains("or all"),
            "{e}"
        );
        assert!(parse_choice("gfx1100:xnack-")
            .unwrap_err()
            .contains("without features: gfx1100"));
        assert_eq!(processor_of("gfx1100:sramecc-:xnack-"), "gfx1100");
        assert_eq!(
            processor_of("amdgcn-amd-amdhsa--gfx12-generic"),
            "gfx12-generic"
        );
    }

    /// The policy over the table: under HIP 5.2 (Debian 12's runtime, which
    /// knows ISAs up to gfx1035 and gfx90c) exactly the processors 5.2 knows
    /// get v4; under 6.4 and 7.2 every processor gets v5; generic targets v6
    /// under all three.
    #[test]
    fn code_object_versions_follow_the_runtime() {
        let hip52 = HipVersion {
            major: 5,
            minor: 2,
            patch: 21153,
        };
        let v4_under_52: Vec<&str> = TARGETS
            .iter()
            .filter(|t| t.code_object_version(hip52) == 4)
            .map(|t| t.name)
            .collect();
        assert_eq!(v4_under_52, ["gfx908", "gfx90a", "gfx1010", "gfx1030"]);
        for t in TARGETS {
            let want_new = if t.is_generic() { 6 } else { 5 };
            for runtime in [rocm(6, 4), rocm(7, 2), rocm(5, 3)] {
                assert_eq!(
                    t.code_object_version(runtime),
                    want_new,
                    "{} under {runtime}",
                    t.name
                );
            }
            if !v4_under_52.contains(&t.name) {
                assert_eq!(
                    t.code_object_version(hip52),
                    want_new,
                    "{} under 5.2",
                    t.name
                );
            }
        }
    }

    #[test]
    fn generic_targets_cover_their_generation_and_need_v6() {
        for t in TARGETS.iter().filter(|t| t.is_generic()) {
            assert_eq!(t.code_object_version(rocm(5, 2)), 6, "{}", t.name);
            assert_eq!(
                t.runtime_since, None,
                "{}: a generic target is no runtime's ISA",
                t.name
            );
            for p in t.covers.iter().filter_map(|p| find(p)) {
                assert_eq!(
                    p.generation(),
                    t.generation(),
                    "{} covers {}",
                    t.name,
                    p.name
                );
                // A generic target has only what every processor it covers has.
                assert!(
                    !t.isa.dpp_src1_scalar || p.isa.dpp_src1_scalar,
                    "{} covers {}",
                    t.name,
                    p.name
                );
                assert!(
                    !t.isa.gfx940_insts || p.isa.gfx940_insts,
                    "{} covers {}",
                    t.name,
                    p.name
                );
                assert!(
                    !t.isa.gfx90a_insts || p.isa.gfx90a_insts,
                    "{} covers {}",
                    t.name,
                    p.name
                );
            }
        }
    }
}
