//! [`Generation`] and [`Isa`]: which instruction set a code object is in. A
//! file of its own, with no imports, so `build.rs` can include it beside
//! `src/target.rs` (the target table names each target's `Isa`).

/// An AMDGPU instruction-set generation (LLVM's `gfx*` families).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generation {
    /// GCN5 and CDNA1-3 (gfx900-gfx950).
    Gfx9,
    /// RDNA1-2 (gfx1010-gfx1036).
    Gfx10,
    /// RDNA3 and RDNA3.5 (gfx1100-gfx1153): decoded and emulated.
    Gfx11,
    /// RDNA4 (gfx1200-gfx1201): decoded and emulated.
    Gfx12,
}

impl Generation {
    pub const ALL: [Generation; 4] = [
        Generation::Gfx9,
        Generation::Gfx10,
        Generation::Gfx11,
        Generation::Gfx12,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Generation::Gfx9 => "gfx9",
            Generation::Gfx10 => "gfx10",
            Generation::Gfx11 => "gfx11",
            Generation::Gfx12 => "gfx12",
        }
    }

    /// The kernel frame of this generation (`kernels/include/`): the
    /// `xad_frame.inc` generated per target (build.rs, `run --kernel`)
    /// includes it, so a case stub in `kernels/cases/` names no generation.
    pub fn frame(self) -> &'static str {
        match self {
            Generation::Gfx9 => "xad_frame_gfx9.inc",
            Generation::Gfx10 => "xad_frame_gfx10.inc",
            Generation::Gfx11 => "xad_frame_gfx11.inc",
            Generation::Gfx12 => "xad_frame_gfx12.inc",
        }
    }
}

impl std::fmt::Display for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a decoder and the catalogue need to know about a target's instruction
/// set: its generation and the operand rules that differ inside one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Isa {
    pub generation: Generation,
    /// An SGPR or inline constant may be src1 of a DPP16/DPP8 VOP3
    /// (LLVM's `FeatureDPPSrc1SGPR`: gfx115x and gfx12, not gfx110x or
    /// gfx11-generic).
    pub dpp_src1_scalar: bool,
    /// The gfx9 ops LLVM gates on `FeatureGFX940Insts` exist (only
    /// `v_lshl_add_u64` is decoded): gfx940-gfx942, gfx950 and
    /// gfx9-4-generic, not gfx908, gfx90a or gfx9-generic. Kept per target
    /// because there the same bits are not an instruction at all.
    pub gfx940_insts: bool,
    /// gfx1010-gfx1013's write-after-read hazards (LLVM's
    /// `FeatureVMEMtoScalarWriteHazard`, `FeatureSMEMtoVectorWriteHazard`,
    /// `FeatureVcmpxExecWARHazard`; RDNA1 only, not gfx1030+): the emulator's
    /// hazard rules read it (`emu::hazards`).
    pub rdna1_war_hazards: bool,
}

impl Isa {
    /// gfx1100-gfx1103 and gfx11-generic.
    pub const GFX11: Isa = Isa {
        generation: Generation::Gfx11,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        rdna1_war_hazards: false,
    };
    /// gfx1150-gfx1152 (RDNA3.5).
    pub const GFX115X: Isa = Isa {
        generation: Generation::Gfx11,
        dpp_src1_scalar: true,
        gfx940_insts: false,
        rdna1_war_hazards: false,
    };
    /// gfx9 without the gfx940 additions (GCN5/CDNA1-2: gfx908, gfx90a,
    /// gfx9-generic): wave64 only.
    pub const GFX9: Isa = Isa {
        generation: Generation::Gfx9,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        rdna1_war_hazards: false,
    };
    /// gfx9 with the gfx940 additions (CDNA3/4: gfx942, gfx950,
    /// gfx9-4-generic): wave64 only.
    pub const GFX940: Isa = Isa {
        generation: Generation::Gfx9,
        dpp_src1_scalar: false,
        gfx940_insts: true,
        rdna1_war_hazards: false,
    };
    /// gfx10.1 (RDNA1: gfx1010-gfx1013, gfx10-1-generic): gfx10 with the
    /// write-after-read hazards.
    pub const GFX1010: Isa = Isa {
        generation: Generation::Gfx10,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        rdna1_war_hazards: true,
    };
    /// gfx10.3 (RDNA2: gfx1030, gfx10-3-generic).
    pub const GFX10: Isa = Isa {
        generation: Generation::Gfx10,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        rdna1_war_hazards: false,
    };
    /// gfx1200, gfx1201 and gfx12-generic.
    pub const GFX12: Isa = Isa {
        generation: Generation::Gfx12,
        dpp_src1_scalar: true,
        gfx940_insts: false,
        rdna1_war_hazards: false,
    };
}
