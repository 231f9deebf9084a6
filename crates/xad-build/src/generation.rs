//! [`Generation`] and [`Isa`]: which instruction set a code object is in. Here,
//! beside the target table ([`crate::target`], which names each target's
//! `Isa`), because the build script needs both; the library's `isa` module
//! re-exports them.

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

    /// The generation's column in per-generation tables (`isa::table`):
    /// its place in [`Generation::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

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

/// The memory counters a wave keeps and how `s_waitcnt` packs them (AMD
/// ISA guides, "Data dependency resolution" and S_WAITCNT; LLVM
/// `SIInsertWaitcnts.cpp`): a generation's value
/// ([`Generation::memory_counters`]), read by the emulator's counter model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryCounters {
    /// vmcnt for loads and stores, lgkmcnt (4 bits), expcnt; `s_waitcnt`
    /// has vmcnt in bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8.
    VmcntLgkm4,
    /// vmcnt for loads, vscnt for stores, lgkmcnt 6 bits (13:8); vmcnt and
    /// expcnt where [`MemoryCounters::VmcntLgkm4`] has them.
    Vscnt,
    /// As [`MemoryCounters::Vscnt`], `s_waitcnt` packed anew: vmcnt 15:10,
    /// lgkmcnt 9:4, expcnt 2:0.
    VscntPacked,
    /// loadcnt, storecnt, kmcnt, dscnt, samplecnt, bvhcnt and expcnt, each
    /// with its own `s_wait_*` instruction.
    Split,
}

/// The counts an `s_waitcnt` waits for, as its simm16 packs them: a wait
/// completes all but the `vmcnt` youngest vector memory accesses, and so on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waitcnt {
    pub vmcnt: u16,
    pub expcnt: u16,
    pub lgkmcnt: u16,
}

impl MemoryCounters {
    /// `s_waitcnt`'s simm16 unpacked: vmcnt in bits 3:0 and 15:14, expcnt
    /// 6:4, lgkmcnt 11:8 ([`MemoryCounters::VmcntLgkm4`]) or 13:8
    /// ([`MemoryCounters::Vscnt`]); packed anew from gfx11 (vmcnt 15:10,
    /// lgkmcnt 9:4, expcnt 2:0), which the `s_waitcnt` row of gfx12's column
    /// keeps. Bits outside the fields belong to no counter.
    pub fn waitcnt(self, simm16: u16) -> Waitcnt {
        let field = |shift: u32, bits: u32| (simm16 >> shift) & ((1 << bits) - 1);
        let (vmcnt, expcnt) = (field(0, 4) | field(14, 2) << 4, field(4, 3));
        match self {
            MemoryCounters::VmcntLgkm4 => Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt: field(8, 4),
            },
            MemoryCounters::Vscnt => Waitcnt {
                vmcnt,
                expcnt,
                lgkmcnt: field(8, 6),
            },
            MemoryCounters::VscntPacked | MemoryCounters::Split => Waitcnt {
                vmcnt: field(10, 6),
                expcnt: field(0, 3),
                lgkmcnt: field(4, 6),
            },
        }
    }

    /// `s_waitcnt`'s operand as LLVM prints it: the counters below their
    /// maximum (every field set), or all three when each is at its maximum.
    pub fn waitcnt_text(self, simm16: u16) -> String {
        let (w, max) = (self.waitcnt(simm16), self.waitcnt(u16::MAX));
        let counters = [
            ("vmcnt", w.vmcnt, max.vmcnt),
            ("expcnt", w.expcnt, max.expcnt),
            ("lgkmcnt", w.lgkmcnt, max.lgkmcnt),
        ];
        let text = |(n, v, _): &(&str, u16, u16)| format!("{n}({v})");
        let waited: Vec<String> = counters
            .iter()
            .filter(|(_, v, max)| v != max)
            .map(text)
            .collect();
        if waited.is_empty() {
            counters.iter().map(text).collect::<Vec<_>>().join(" ")
        } else {
            waited.join(" ")
        }
    }
}

/// Hardware register id of IB_STS2 (`s_getreg_b32` simm16 bits 5:0).
pub const IB_STS2: u32 = 28;

/// The hardware-register operand of `s_getreg_b32` and `s_setreg*`, read
/// from simm16: register id 5:0, offset 10:6, size - 1 15:11.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hwreg {
    pub id: u32,
    pub offset: u32,
    /// 1 to 32 bits.
    pub size: u32,
}

impl Hwreg {
    /// The operand an instruction's simm16 (sign-extended or not) encodes.
    pub const fn of(simm16: u32) -> Hwreg {
        Hwreg {
            id: simm16 & 63,
            offset: (simm16 >> 6) & 31,
            size: ((simm16 >> 11) & 31) + 1,
        }
    }

    /// The field's width as a mask of its low bits.
    pub const fn low_mask(self) -> u32 {
        u32::MAX >> (32 - self.size)
    }

    /// The field's bits where they sit in the register (bits past 31 dropped).
    pub const fn bits(self) -> u32 {
        match self.low_mask().checked_shl(self.offset) {
            Some(b) => b,
            None => 0,
        }
    }
}

/// A bit field of a register: (lowest bit, width).
pub type Field = (u32, u32);

/// The hardware-id register `s_getreg_b32` reads for where a wave runs, and
/// where its fields sit (the ISA guides' HW_ID / HW_ID1 tables, LLVM 19's
/// register ids): a generation's value, read by the emulator (which fills it)
/// and by soak (which decodes it into unit names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwIdLayout {
    /// The register id in `s_getreg_b32`'s simm16.
    pub register: u32,
    /// Its name as LLVM prints it in `hwreg(...)`.
    pub register_name: &'static str,
    pub wave: Field,
    pub simd: Field,
    /// CU_ID (gfx9) or WGP_ID (gfx10+).
    pub unit: Field,
    /// SH_ID (gfx9) or SA_ID (gfx10+).
    pub array: Field,
    pub se: Field,
    /// How units and arrays are named: `CU`/`SH`, or `WGP`/`SA`.
    pub unit_word: &'static str,
    pub array_word: &'static str,
    /// Units per array in the emulator's topology (a part has up to 16 CUs
    /// per SH on gfx9; the emulator spreads RDNA workgroups over 4 WGPs per SA).
    pub emulated_per_array: u32,
}

/// gfx9's HW_ID (register 4): WAVE_ID 3:0, SIMD_ID 5:4, CU_ID 11:8, SH_ID 12, SE_ID 14:13.
const HW_ID: HwIdLayout = HwIdLayout {
    register: 4,
    register_name: "HW_REG_HW_ID",
    wave: (0, 4),
    simd: (4, 2),
    unit: (8, 4),
    array: (12, 1),
    se: (13, 2),
    unit_word: "CU",
    array_word: "SH",
    emulated_per_array: 16,
};

/// gfx10+'s HW_ID1 (register 23): WAVE_ID 4:0, SIMD_ID 9:8, WGP_ID 13:10, SA_ID 16, SE_ID 20:18.
const HW_ID1: HwIdLayout = HwIdLayout {
    register: 23,
    register_name: "HW_REG_HW_ID1",
    wave: (0, 5),
    simd: (8, 2),
    unit: (10, 4),
    array: (16, 1),
    se: (18, 3),
    unit_word: "WGP",
    array_word: "SA",
    emulated_per_array: 4,
};

/// The MODE register (`s_setreg_b32` / `s_getreg_b32` id 1 on every
/// generation here) as far as the emulator needs it: which bits change
/// nothing it executes. MODE holds floating-point controls (round and
/// denorm modes, DX10 clamp, IEEE, FP16 overflow), the float exception
/// trap enables, and bits that do change integer execution (gfx9-gfx11:
/// DEBUG_EN 11 traps after every instruction, GPR_IDX_EN 27 re-indexes VGPR
/// operands, VSKIP 28 skips VALU instructions; CDNA5: the VGPR MSBs 19:12).
/// The emulator runs no floating-point instruction, so a write to the first
/// kind is recorded (`s_getreg_b32` reads it back) and changes nothing; a
/// write to any other bit is refused, never ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeLayout {
    /// The register id in simm16.
    pub register: u32,
    /// Its name as LLVM prints it in `hwreg(...)`.
    pub register_name: &'static str,
    /// Bits the emulator may record without effect.
    pub inert: u32,
    /// What those bits are, for messages.
    pub inert_text: &'static str,
}

/// gfx9-gfx11 (LLVM SIDefines.h, Hwreg MODE; the ISA guides' MODE table):
/// FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9, LOD_CLAMPED 10,
/// EXCP_EN 18:12, FP16_OVFL 23.
const MODE_GCN_RDNA: ModeLayout = ModeLayout {
    register: 1,
    register_name: "HW_REG_MODE",
    inert: 0x0087_f7ff,
    inert_text: "FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9, LOD_CLAMPED 10, EXCP_EN 18:12, FP16_OVFL 23",
};

/// gfx12 and CDNA5: only the round and denorm modes are taken as known
/// (RDNA4 moved other MODE bits, and CDNA5 keeps the VGPR MSBs in 19:12).
const MODE_GFX12: ModeLayout = ModeLayout {
    register: 1,
    // LLVM 19's spelling, as the rest of the disassembly (LLVM 22 prints
    // HW_REG_WAVE_MODE for gfx12).
    register_name: "HW_REG_MODE",
    inert: 0x0000_00ff,
    inert_text: "FP_ROUND 3:0, FP_DENORM 7:4",
};

impl Generation {
    /// The generation's MODE register.
    pub const fn mode_register(self) -> &'static ModeLayout {
        match self {
            Generation::Gfx9 | Generation::Gfx10 | Generation::Gfx11 => &MODE_GCN_RDNA,
            Generation::Gfx12 => &MODE_GFX12,
        }
    }

    /// The generation's hardware-id register.
    pub const fn hw_id(self) -> &'static HwIdLayout {
        match self {
            Generation::Gfx9 => &HW_ID,
            Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12 => &HW_ID1,
        }
    }

    /// An `s_getreg_b32` operand as LLVM prints it: `hwreg(NAME)` for a whole
    /// register it names, `hwreg(NAME, offset, size)` for a field, the number for
    /// a register it has no name for here.
    pub fn hwreg_text(self, simm16: u16) -> String {
        let Hwreg { id, offset, size } = Hwreg::of(u32::from(simm16));
        let layout = self.hw_id();
        let mode = self.mode_register();
        let name = if id == layout.register {
            layout.register_name.to_string()
        } else if id == mode.register {
            mode.register_name.to_string()
        } else if id == IB_STS2 && self == Generation::Gfx12 {
            "HW_REG_IB_STS2".to_string()
        } else {
            id.to_string()
        };
        if offset == 0 && size == 32 {
            format!("hwreg({name})")
        } else {
            format!("hwreg({name}, {offset}, {size})")
        }
    }

    /// The generation's memory counters.
    pub const fn memory_counters(self) -> MemoryCounters {
        match self {
            Generation::Gfx9 => MemoryCounters::VmcntLgkm4,
            Generation::Gfx10 => MemoryCounters::Vscnt,
            Generation::Gfx11 => MemoryCounters::VscntPacked,
            Generation::Gfx12 => MemoryCounters::Split,
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
    /// The gfx9 ops LLVM gates on `FeatureGFX90AInsts` exist (only
    /// `v_pk_mov_b32` is decoded): gfx90a, gfx940-gfx942, gfx950 and
    /// gfx9-4-generic, not gfx908 or gfx9-generic. It also brings the packed
    /// work-item ids and the unified VGPR/AGPR file (`Target::has`).
    pub gfx90a_insts: bool,
    /// CDNA5's additions (LLVM `FeatureGFX1250Insts`: gfx1250, gfx1251):
    /// 1024 VGPRs reached through `s_set_vgpr_msb`, the XCNT counter
    /// (`s_wait_xcnt`), wave32 only. In the gfx12 instruction set otherwise:
    /// LLVM 22 encodes every op the catalogue uses as it does for gfx1201.
    pub gfx1250_insts: bool,
    /// The manually inserted wait states this instruction set needs (the
    /// emulator's hazard analysis, `emu::hazards`, reads it).
    pub hazards: HazardRules,
}

/// Which family of manually inserted wait-state rules ("hazards") an
/// instruction set has (LLVM `GCNHazardRecognizer.cpp`,
/// `AMDGPUWaitSGPRHazards.cpp`; the ISA guides' "Manually Inserted Wait
/// States" tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HazardRules {
    /// Counted wait-state windows between a producer and a consumer (gfx9's
    /// `check*` rules; the gfx940 additions where `gfx940_insts`).
    WaitStates,
    /// Write-after-read hazards cleared by a later instruction (LLVM's
    /// `FeatureVMEMtoScalarWriteHazard`, `FeatureSMEMtoVectorWriteHazard`,
    /// `FeatureVcmpxExecWARHazard`: gfx1010-gfx1013 only, not gfx1030+).
    WriteAfterRead,
    /// None of the modelled rules applies (gfx1030+: interlocked).
    Interlocked,
    /// A VALU write of a lane mask read in wave64 (gfx11).
    Wave64MaskWrite,
    /// SALU/VALU writes read before an `s_wait_alu` (gfx12).
    WaitAlu,
    /// CDNA5's XCNT: a register a memory instruction reads (address, store
    /// data, scalar base) written before the translation counter covers it
    /// (`s_wait_xcnt`); none of gfx12's `s_wait_alu` rules (gfx1250).
    Xcnt,
}

impl Isa {
    /// The kernel frame of this instruction set (`kernels/include/`): its
    /// generation's, or CDNA5's own (gfx12's with CDNA5's rules stated).
    pub fn frame(&self) -> &'static str {
        if self.gfx1250_insts {
            "xad_frame_gfx125.inc"
        } else {
            self.generation.frame()
        }
    }

    /// gfx1100-gfx1103 and gfx11-generic.
    pub const GFX11: Isa = Isa {
        generation: Generation::Gfx11,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::Wave64MaskWrite,
    };
    /// gfx1150-gfx1152 (RDNA3.5).
    pub const GFX115X: Isa = Isa {
        generation: Generation::Gfx11,
        dpp_src1_scalar: true,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::Wave64MaskWrite,
    };
    /// gfx9 without the gfx90a and gfx940 additions (GCN5/CDNA1: gfx908,
    /// gfx9-generic): wave64 only.
    pub const GFX9: Isa = Isa {
        generation: Generation::Gfx9,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::WaitStates,
    };
    /// gfx90a (CDNA2): gfx9 with the gfx90a additions, not the gfx940 ones.
    pub const GFX90A: Isa = Isa {
        gfx90a_insts: true,
        ..Isa::GFX9
    };
    /// gfx9 with the gfx90a and gfx940 additions (CDNA3/4: gfx942, gfx950,
    /// gfx9-4-generic): wave64 only.
    pub const GFX940: Isa = Isa {
        generation: Generation::Gfx9,
        dpp_src1_scalar: false,
        gfx940_insts: true,
        gfx90a_insts: true,
        gfx1250_insts: false,
        hazards: HazardRules::WaitStates,
    };
    /// gfx10.1 (RDNA1: gfx1010-gfx1013, gfx10-1-generic): gfx10 with the
    /// write-after-read hazards.
    pub const GFX1010: Isa = Isa {
        generation: Generation::Gfx10,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::WriteAfterRead,
    };
    /// gfx10.3 (RDNA2: gfx1030, gfx10-3-generic).
    pub const GFX10: Isa = Isa {
        generation: Generation::Gfx10,
        dpp_src1_scalar: false,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::Interlocked,
    };
    /// gfx1200, gfx1201 and gfx12-generic.
    pub const GFX12: Isa = Isa {
        generation: Generation::Gfx12,
        dpp_src1_scalar: true,
        gfx940_insts: false,
        gfx90a_insts: false,
        gfx1250_insts: false,
        hazards: HazardRules::WaitAlu,
    };
    /// gfx1250 and gfx1251 (CDNA5, "GFX12.5"): gfx12 with the CDNA5 additions.
    /// None of gfx12's `s_wait_alu` hazards: LLVM 22 inserts no wait for them
    /// on gfx1250 (measured through llc-22's hazard passes, `emu::hazards`
    /// tests); the XCNT rule instead ([`HazardRules::Xcnt`]).
    pub const GFX1250: Isa = Isa {
        gfx1250_insts: true,
        hazards: HazardRules::Xcnt,
        ..Isa::GFX12
    };
}

// ---------------------------------------------------------------------------
// Encodings a generation fixes, as values (issue 28): what the case encoder
// (`cases::encode`) and the toolchain canary (`crate::toolchain`, which the
// build script also runs, and which has no opcode table at hand) ask instead of
// naming a generation. Kept apart from the tables above.

impl Generation {
    /// The first dword of `v_xad_u32 v0, ...` with no modifiers: the VOP3
    /// ENCODING field (bits 31:26: 0b110100 on gfx9, where 0b110101 is
    /// VINTRP; 0b110101 from gfx10) and the opcode (bits 25:16: 499 on gfx9,
    /// 837 on gfx10, 581 on gfx11 and gfx12), as llvm-mc 19 and 22 encode it.
    /// The opcode is also `isa::table`'s (a test in `cases::encode` holds
    /// the two equal).
    pub const fn xad_vop3_word(self) -> u32 {
        match self {
            Generation::Gfx9 => 0xD1F3_0000,
            Generation::Gfx10 => 0xD745_0000,
            Generation::Gfx11 | Generation::Gfx12 => 0xD645_0000,
        }
    }

    /// `s_endpgm` (SOPP): opcode 1 before gfx11 (BF810000), 48 from it
    /// (BFB00000).
    pub const fn s_endpgm_word(self) -> u32 {
        match self {
            Generation::Gfx9 | Generation::Gfx10 => 0xBF81_0000,
            Generation::Gfx11 | Generation::Gfx12 => 0xBFB0_0000,
        }
    }

    /// The 9-bit source operand code of m0: 124 on gfx9 and gfx10, 125 from
    /// gfx11, which swapped m0 and `null`.
    pub const fn m0_code(self) -> u16 {
        match self {
            Generation::Gfx9 | Generation::Gfx10 => 124,
            Generation::Gfx11 | Generation::Gfx12 => 125,
        }
    }

    /// The source operand code of `null`: 125 on gfx10, 124 from gfx11;
    /// gfx9 has none (code 125 is reserved there).
    pub const fn null_code(self) -> Option<u16> {
        match self {
            Generation::Gfx9 => None,
            Generation::Gfx10 => Some(125),
            Generation::Gfx11 | Generation::Gfx12 => Some(124),
        }
    }
}

/// VGPR file size and allocation granule: values of the instruction set, so
/// the descriptor and the emulator ask the Isa rather than test a name.
impl Isa {
    /// VGPRs one lane may address: 1024 on CDNA5 (gfx1250_insts, reached
    /// through `s_set_vgpr_msb`), 256 everywhere else.
    pub const fn max_vgprs(&self) -> u32 {
        if self.gfx1250_insts {
            1024
        } else {
            256
        }
    }

    /// The VGPRs one granule of GRANULATED_WORKITEM_VGPR_COUNT stands for
    /// on gfx10+ (not gfx9's unified file): 16 on CDNA5 (measured with LLVM
    /// 22: `.amdhsa_next_free_vgpr` 16 -> 0, 24 -> 1, 1024 -> 63), 8 in
    /// wave32 and 4 in wave64 elsewhere.
    pub const fn vgpr_granule(&self, wave32: bool) -> u32 {
        if self.gfx1250_insts {
            16
        } else if wave32 {
            8
        } else {
            4
        }
    }
}

/// Where a generation's encodings put the fields that moved between
/// generations (LLVM's `SIInstrFormats.td`, `SMInstructions.td`,
/// `FLATInstructions.td`, `VOP3Instructions.td`; measured with llvm-mc in
/// `tests/isa/decode_*.rs`): a value of the generation, so the decoder and
/// the disassembler ask which layout an instruction has, not which
/// generation it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingLayout {
    /// The GCN encodings (gfx9, read by `isa::gfx9`): VOP3 at ENCODING
    /// 0b110100 numbering VOP1 ops from 0x140 and taking no literal, SMEM
    /// at 0b110000, m0 at operand code 124 and no `null`, flat_scratch and
    /// xnack_mask in s102-s105, lane masks printed as pairs (wave64 only),
    /// and `v_cmpx_*` writing an SGPR pair besides EXEC (Vega ISA, "VOPC
    /// Instructions").
    pub gcn: bool,
    /// ENCODING (bits 31:26) of VOP3 and of SMEM.
    pub vop3_encoding: u32,
    pub smem_encoding: u32,
    pub smem: SmemLayout,
    pub vmem: VmemLayout,
    /// VOP3 opcodes 0x140-0x17f are VOP3-only ops (gfx10), where gfx11+ put
    /// VOP2 ops (and moved the VOP3-only ones to 0x200+).
    pub vop3_only_at_0x140: bool,
    /// A VOP3 may carry a DPP16/DPP8 word in src0 (gfx11+).
    pub vop3_dpp: bool,
    /// The ENCODING values of the families the emulator does not decode,
    /// with their names for the refusal.
    pub unemulated_families: &'static [(u32, &'static str)],
    /// VOPD, the dual-issue word (gfx11+; `isa::vopd` runs it as its two
    /// halves), where the generation has it.
    pub vopd: Option<VopdRules>,
}

/// What a generation's VOPD allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VopdRules {
    /// X and Y may name the very same VGPR as src0 (or as vsrc1) although
    /// that is one bank (gfx12); gfx11 wants different banks even then.
    pub same_vgpr_in_one_bank: bool,
}

/// The SMEM layout (the instruction's first dword; the byte offset and
/// soffset sit in the second).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmemLayout {
    /// ENCODING 0b110000; imm bit 17 and soe bit 14 select a 21-bit signed
    /// offset, an soffset SGPR, or both (gfx9).
    ImmSoe,
    /// ENCODING 0b111101; glc bit 16, dlc bit 14, 21-bit signed offset (gfx10).
    Glc16,
    /// ENCODING 0b111101; glc/dlc bits 14:13, 21-bit signed offset (gfx11).
    Glc14,
    /// ENCODING 0b111101; opcode bits 20:13, scope and th, 24-bit signed
    /// offset; LLVM prints `offset:` beside an soffset even when it is 0
    /// (gfx12).
    Scope24,
}

/// The FLAT/GLOBAL layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmemLayout {
    /// 64 bits: segment bits 15:14, 13-bit offset (12-bit unsigned for flat),
    /// saddr 0x7f = off (gfx9).
    Seg15Offset13,
    /// 64 bits: segment bits 15:14, 12-bit offset (11-bit unsigned for flat),
    /// saddr `null` = off (gfx10).
    Seg15Offset12,
    /// 64 bits: segment bits 17:16, 13-bit offset (12-bit unsigned for flat)
    /// (gfx11).
    Seg17Offset13,
    /// 96 bits (VFLAT/VGLOBAL, ENCODING 0b111011): 24-bit signed offset in
    /// the third dword (gfx12).
    Vflat,
}

const GCN_LAYOUT: EncodingLayout = EncodingLayout {
    gcn: true,
    vop3_encoding: 0b110100,
    smem_encoding: 0b110000,
    smem: SmemLayout::ImmSoe,
    vmem: VmemLayout::Seg15Offset13,
    vop3_only_at_0x140: false,
    vop3_dpp: false,
    unemulated_families: &[
        (0b110110, "DS"),
        (0b111000, "MUBUF"),
        (0b111010, "MTBUF"),
        (0b111100, "MIMG"),
        (0b110001, "EXP"),
        (0b110101, "VINTRP"),
    ],
    vopd: None,
};

/// The families gfx10+ share, and the one that changed meaning at gfx11.
macro_rules! rdna_families {
    ($family_110010:literal) => {
        &[
            (0b110110, "DS"),
            (0b111000, "MUBUF"),
            (0b111010, "MTBUF"),
            (0b111100, "MIMG"),
            (0b111110, "EXP"),
            (0b110011, "VOP3P"),
            (0b110010, $family_110010),
        ]
    };
}

const GFX10_LAYOUT: EncodingLayout = EncodingLayout {
    gcn: false,
    vop3_encoding: 0b110101,
    smem_encoding: 0b111101,
    smem: SmemLayout::Glc16,
    vmem: VmemLayout::Seg15Offset12,
    vop3_only_at_0x140: true,
    vop3_dpp: false,
    unemulated_families: rdna_families!("VINTRP"),
    vopd: None,
};

const GFX11_LAYOUT: EncodingLayout = EncodingLayout {
    gcn: false,
    vop3_encoding: 0b110101,
    smem_encoding: 0b111101,
    smem: SmemLayout::Glc14,
    vmem: VmemLayout::Seg17Offset13,
    vop3_only_at_0x140: false,
    vop3_dpp: true,
    unemulated_families: rdna_families!("VOPD"),
    vopd: Some(VopdRules { same_vgpr_in_one_bank: false }),
};

const GFX12_LAYOUT: EncodingLayout = EncodingLayout {
    smem: SmemLayout::Scope24,
    vmem: VmemLayout::Vflat,
    vopd: Some(VopdRules { same_vgpr_in_one_bank: true }),
    ..GFX11_LAYOUT
};

impl Generation {
    /// The generation's encoding layouts.
    pub const fn layout(self) -> &'static EncodingLayout {
        match self {
            Generation::Gfx9 => &GCN_LAYOUT,
            Generation::Gfx10 => &GFX10_LAYOUT,
            Generation::Gfx11 => &GFX11_LAYOUT,
            Generation::Gfx12 => &GFX12_LAYOUT,
        }
    }

    /// The kernel descriptor layout and rules of the generation.
    pub const fn descriptor_layout(self) -> DescriptorLayout {
        match self {
            Generation::Gfx9 => DescriptorLayout::Gfx6To9,
            Generation::Gfx10 => DescriptorLayout::Gfx10,
            Generation::Gfx11 => DescriptorLayout::Gfx11,
            Generation::Gfx12 => DescriptorLayout::Gfx12,
        }
    }
}

/// The kernel descriptor's COMPUTE_PGM_RSRC1/2/3 layouts and the rules that
/// come with them, named as AMDGPUUsage ("Kernel Descriptor") and LLVM's
/// `AMDHSAKernelDescriptor.h` name them; `codeobj::descriptor` holds each
/// one's fields and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorLayout {
    /// GRANULATED_WAVEFRONT_SGPR_COUNT counts SGPRs (granules of 8), no
    /// wave32, the scratch user SGPRs unless architected (gfx9).
    Gfx6To9,
    /// RSRC3 with SHARED_VGPR_COUNT, wave32, the scratch user SGPRs (gfx10).
    Gfx10,
    /// Architected flat scratch, RSRC1/RSRC3 as gfx11 lays them out.
    Gfx11,
    /// Architected flat scratch, gfx12's RSRC1/RSRC3 (CDNA5 included).
    Gfx12,
}

impl DescriptorLayout {
    /// The descriptor says how many SGPRs a wave is given (gfx9); from
    /// gfx10 the field is reserved and every wave has the whole file.
    pub const fn counts_sgprs(self) -> bool {
        matches!(self, DescriptorLayout::Gfx6To9)
    }
}
