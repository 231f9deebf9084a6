//! The 64-byte AMDHSA kernel descriptor (`<kernel>.kd`): every field of LLVM's
//! `kernel_descriptor_t` (`llvm/include/llvm/Support/AMDHSAKernelDescriptor.h`)
//! and every bitfield of its registers as the gfx10/gfx11 layout defines them,
//! plus [`KernelDescriptor::validate`], which refuses what a gfx11 device cannot
//! be given (reserved bits, fields of other generations, counts out of range).
//!
//! | offset | size | field                          |
//! |--------|------|--------------------------------|
//! | 0      | 4    | group_segment_fixed_size       |
//! | 4      | 4    | private_segment_fixed_size     |
//! | 8      | 4    | kernarg_size                   |
//! | 12     | 4    | reserved0 (must be 0)          |
//! | 16     | 8    | kernel_code_entry_byte_offset  |
//! | 24     | 20   | reserved1 (must be 0)          |
//! | 44     | 4    | compute_pgm_rsrc3              |
//! | 48     | 4    | compute_pgm_rsrc1              |
//! | 52     | 4    | compute_pgm_rsrc2              |
//! | 56     | 2    | kernel_code_properties         |
//! | 58     | 2    | kernarg_preload                |
//! | 60     | 4    | reserved3 (must be 0)          |
//!
//! The bitfields are data ([`BitField`] constants and the per-word tables
//! [`RSRC1`], [`RSRC2`], [`RSRC3`], [`CODE_PROPERTIES`], [`KERNARG_PRELOAD`]), so
//! decoding, validation and the table test against `llvm-objdump` read one list.

/// Size of a kernel descriptor in bytes.
pub const KD_SIZE: usize = 64;

/// The hardware loads at most this many user SGPRs on gfx11 (RDNA3 ISA guide,
/// "CS SGPR load": user data registers 0..16).
pub const MAX_USER_SGPRS: u32 = 16;

/// VGPRs one lane may address on gfx11.
pub const MAX_VGPRS: u32 = 256;

/// A descriptor as stored: the fixed fields by name, the four packed words raw
/// (read them through [`BitField`]s or the named accessors), the reserved bytes
/// kept so [`KernelDescriptor::validate`] can see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    pub reserved0: [u8; 4],
    /// Byte offset of the kernel's first instruction from the descriptor's own address.
    pub entry_offset: i64,
    pub reserved1: [u8; 20],
    pub rsrc3: u32,
    pub rsrc1: u32,
    pub rsrc2: u32,
    pub code_properties: u16,
    /// KERNARG_PRELOAD_SPEC: length (bits 6:0) and offset (15:7) in dwords; gfx90a/gfx940 only.
    pub kernarg_preload: u16,
    pub reserved3: [u8; 4],
}

/// Which packed word of the descriptor a [`BitField`] lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Rsrc1,
    Rsrc2,
    Rsrc3,
    CodeProperties,
    KernargPreload,
}

/// What a field may hold on gfx11.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Any value the width allows.
    Any,
    /// Reserved, or set by the command processor rather than the code object:
    /// must be 0 (AMDGPUUsage says "must be 0"; LLVM's disassembler refuses it).
    Zero,
}

/// One bitfield of a packed descriptor word, named as in `AMDHSAKernelDescriptor.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitField {
    pub word: Word,
    pub name: &'static str,
    pub shift: u32,
    pub width: u32,
    pub rule: Rule,
}

const fn field(word: Word, name: &'static str, shift: u32, width: u32, rule: Rule) -> BitField {
    BitField {
        word,
        name,
        shift,
        width,
        rule,
    }
}

impl BitField {
    /// The field's value in `word`.
    pub const fn get(&self, word: u32) -> u32 {
        (word >> self.shift) & ((1u32 << self.width) - 1)
    }
    /// The field's mask in its word.
    pub const fn mask(&self) -> u32 {
        ((1u32 << self.width) - 1) << self.shift
    }
}

use crate::isa::{DescriptorLayout, Isa};
use crate::platform::target::{Feature, Target};
use Rule::{Any, Zero};
use Word::{CodeProperties as Cp, KernargPreload as Kp, Rsrc1 as R1, Rsrc2 as R2, Rsrc3 as R3};

// COMPUTE_PGM_RSRC1, gfx10/gfx11 layout.
pub const GRANULATED_WORKITEM_VGPR_COUNT: BitField =
    field(R1, "GRANULATED_WORKITEM_VGPR_COUNT", 0, 6, Any);
/// gfx10+ allocate SGPRs statically, so the hardware ignores this count.
/// AMDGPUUsage calls it reserved, and LLVM 19's assembler writes 0, but LLVM
/// 19's code generator writes the granules the kernel uses (`clang-19 -O2`
/// on a plain kernel for gfx1030, gfx1100 or gfx1201: 1 or 2), so every
/// compiled kernel has it set: accepted, never read.
pub const GRANULATED_WAVEFRONT_SGPR_COUNT: BitField =
    field(R1, "GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4, Any);
pub const PRIORITY: BitField = field(R1, "PRIORITY", 10, 2, Zero);
pub const FLOAT_ROUND_MODE_32: BitField = field(R1, "FLOAT_ROUND_MODE_32", 12, 2, Any);
pub const FLOAT_ROUND_MODE_16_64: BitField = field(R1, "FLOAT_ROUND_MODE_16_64", 14, 2, Any);
pub const FLOAT_DENORM_MODE_32: BitField = field(R1, "FLOAT_DENORM_MODE_32", 16, 2, Any);
pub const FLOAT_DENORM_MODE_16_64: BitField = field(R1, "FLOAT_DENORM_MODE_16_64", 18, 2, Any);
pub const PRIV: BitField = field(R1, "PRIV", 20, 1, Zero);
pub const ENABLE_DX10_CLAMP: BitField = field(R1, "ENABLE_DX10_CLAMP", 21, 1, Any);
pub const DEBUG_MODE: BitField = field(R1, "DEBUG_MODE", 22, 1, Zero);
pub const ENABLE_IEEE_MODE: BitField = field(R1, "ENABLE_IEEE_MODE", 23, 1, Any);
pub const BULKY: BitField = field(R1, "BULKY", 24, 1, Zero);
pub const CDBG_USER: BitField = field(R1, "CDBG_USER", 25, 1, Zero);
pub const FP16_OVFL: BitField = field(R1, "FP16_OVFL", 26, 1, Any);
pub const RSRC1_RESERVED1: BitField = field(R1, "COMPUTE_PGM_RSRC1 RESERVED1", 27, 2, Zero);
pub const WGP_MODE: BitField = field(R1, "WGP_MODE", 29, 1, Any);
pub const MEM_ORDERED: BitField = field(R1, "MEM_ORDERED", 30, 1, Any);
pub const FWD_PROGRESS: BitField = field(R1, "FWD_PROGRESS", 31, 1, Any);

/// Every COMPUTE_PGM_RSRC1 field, bit 0 up (they cover all 32 bits).
pub const RSRC1: &[BitField] = &[
    GRANULATED_WORKITEM_VGPR_COUNT,
    GRANULATED_WAVEFRONT_SGPR_COUNT,
    PRIORITY,
    FLOAT_ROUND_MODE_32,
    FLOAT_ROUND_MODE_16_64,
    FLOAT_DENORM_MODE_32,
    FLOAT_DENORM_MODE_16_64,
    PRIV,
    ENABLE_DX10_CLAMP,
    DEBUG_MODE,
    ENABLE_IEEE_MODE,
    BULKY,
    CDBG_USER,
    FP16_OVFL,
    RSRC1_RESERVED1,
    WGP_MODE,
    MEM_ORDERED,
    FWD_PROGRESS,
];

// COMPUTE_PGM_RSRC2, gfx6-gfx11 layout.
/// On gfx11 (architected flat scratch) this sets up scratch; it adds no SGPR.
pub const ENABLE_PRIVATE_SEGMENT: BitField = field(R2, "ENABLE_PRIVATE_SEGMENT", 0, 1, Any);
pub const USER_SGPR_COUNT: BitField = field(R2, "USER_SGPR_COUNT", 1, 5, Any);
/// Set by the command processor when a trap handler is installed.
pub const ENABLE_TRAP_HANDLER: BitField = field(R2, "ENABLE_TRAP_HANDLER", 6, 1, Zero);
pub const ENABLE_SGPR_WORKGROUP_ID_X: BitField = field(R2, "ENABLE_SGPR_WORKGROUP_ID_X", 7, 1, Any);
pub const ENABLE_SGPR_WORKGROUP_ID_Y: BitField = field(R2, "ENABLE_SGPR_WORKGROUP_ID_Y", 8, 1, Any);
pub const ENABLE_SGPR_WORKGROUP_ID_Z: BitField = field(R2, "ENABLE_SGPR_WORKGROUP_ID_Z", 9, 1, Any);
pub const ENABLE_SGPR_WORKGROUP_INFO: BitField =
    field(R2, "ENABLE_SGPR_WORKGROUP_INFO", 10, 1, Any);
pub const ENABLE_VGPR_WORKITEM_ID: BitField = field(R2, "ENABLE_VGPR_WORKITEM_ID", 11, 2, Any);
/// Set by the command processor (debugger), not by the code object.
pub const ENABLE_EXCEPTION_ADDRESS_WATCH: BitField =
    field(R2, "ENABLE_EXCEPTION_ADDRESS_WATCH", 13, 1, Zero);
/// Set by the command processor (debugger), not by the code object.
pub const ENABLE_EXCEPTION_MEMORY: BitField = field(R2, "ENABLE_EXCEPTION_MEMORY", 14, 1, Zero);
/// The command processor derives LDS size from group_segment_fixed_size.
pub const GRANULATED_LDS_SIZE: BitField = field(R2, "GRANULATED_LDS_SIZE", 15, 9, Zero);
pub const EXCEPTION_FP_INVALID_OP: BitField = field(
    R2,
    "ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION",
    24,
    1,
    Any,
);
pub const EXCEPTION_FP_DENORMAL_SOURCE: BitField =
    field(R2, "ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", 25, 1, Any);
pub const EXCEPTION_FP_DIV_ZERO: BitField = field(
    R2,
    "ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO",
    26,
    1,
    Any,
);
pub const EXCEPTION_FP_OVERFLOW: BitField =
    field(R2, "ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", 27, 1, Any);
pub const EXCEPTION_FP_UNDERFLOW: BitField =
    field(R2, "ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", 28, 1, Any);
pub const EXCEPTION_FP_INEXACT: BitField =
    field(R2, "ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", 29, 1, Any);
pub const EXCEPTION_INT_DIV_ZERO: BitField =
    field(R2, "ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", 30, 1, Any);
pub const RSRC2_RESERVED0: BitField = field(R2, "COMPUTE_PGM_RSRC2 RESERVED0", 31, 1, Zero);

/// Every COMPUTE_PGM_RSRC2 field, bit 0 up (they cover all 32 bits).
pub const RSRC2: &[BitField] = &[
    ENABLE_PRIVATE_SEGMENT,
    USER_SGPR_COUNT,
    ENABLE_TRAP_HANDLER,
    ENABLE_SGPR_WORKGROUP_ID_X,
    ENABLE_SGPR_WORKGROUP_ID_Y,
    ENABLE_SGPR_WORKGROUP_ID_Z,
    ENABLE_SGPR_WORKGROUP_INFO,
    ENABLE_VGPR_WORKITEM_ID,
    ENABLE_EXCEPTION_ADDRESS_WATCH,
    ENABLE_EXCEPTION_MEMORY,
    GRANULATED_LDS_SIZE,
    EXCEPTION_FP_INVALID_OP,
    EXCEPTION_FP_DENORMAL_SOURCE,
    EXCEPTION_FP_DIV_ZERO,
    EXCEPTION_FP_OVERFLOW,
    EXCEPTION_FP_UNDERFLOW,
    EXCEPTION_FP_INEXACT,
    EXCEPTION_INT_DIV_ZERO,
    RSRC2_RESERVED0,
];

// COMPUTE_PGM_RSRC3, gfx11 layout.
/// VGPRs shared between the two halves of a wave64 (in granules of 8); wave64 only.
pub const SHARED_VGPR_COUNT: BitField = field(R3, "SHARED_VGPR_COUNT", 0, 4, Any);
pub const INST_PREF_SIZE: BitField = field(R3, "INST_PREF_SIZE", 4, 6, Any);
pub const TRAP_ON_START: BitField = field(R3, "TRAP_ON_START", 10, 1, Any);
pub const TRAP_ON_END: BitField = field(R3, "TRAP_ON_END", 11, 1, Any);
pub const RSRC3_RESERVED2: BitField = field(R3, "COMPUTE_PGM_RSRC3 RESERVED2", 12, 1, Zero);
pub const RSRC3_RESERVED3: BitField = field(R3, "COMPUTE_PGM_RSRC3 RESERVED3", 13, 1, Zero);
pub const RSRC3_RESERVED4: BitField = field(R3, "COMPUTE_PGM_RSRC3 RESERVED4", 14, 17, Zero);
pub const IMAGE_OP: BitField = field(R3, "IMAGE_OP", 31, 1, Any);

/// Every COMPUTE_PGM_RSRC3 field of gfx11, bit 0 up (they cover all 32 bits).
pub const RSRC3: &[BitField] = &[
    SHARED_VGPR_COUNT,
    INST_PREF_SIZE,
    TRAP_ON_START,
    TRAP_ON_END,
    RSRC3_RESERVED2,
    RSRC3_RESERVED3,
    RSRC3_RESERVED4,
    IMAGE_OP,
];

// COMPUTE_PGM_RSRC3, gfx10 layout (AMDHSAKernelDescriptor.h `_GFX10`,
// `_GFX10_GFX11`, `_GFX10_PLUS`): shared VGPRs only; gfx11's instruction
// prefetch size, trap-on-start/end and IMAGE_OP bits are reserved here.
pub const RSRC3_GFX10_RESERVED1: BitField =
    field(R3, "COMPUTE_PGM_RSRC3 RESERVED1 (gfx10)", 4, 8, Zero);
pub const RSRC3_GFX10_RESERVED5: BitField =
    field(R3, "COMPUTE_PGM_RSRC3 RESERVED5 (gfx10)", 31, 1, Zero);

/// Every COMPUTE_PGM_RSRC3 field of gfx10, bit 0 up (they cover all 32 bits).
/// COMPUTE_PGM_RSRC2 of gfx10 is [`RSRC2`].
pub const RSRC3_GFX10: &[BitField] = &[
    SHARED_VGPR_COUNT,
    RSRC3_GFX10_RESERVED1,
    RSRC3_RESERVED2,
    RSRC3_RESERVED3,
    RSRC3_RESERVED4,
    RSRC3_GFX10_RESERVED5,
];

/// gfx10's COMPUTE_PGM_RSRC1 is gfx11's ([`RSRC1`]; LLVM names WGP_MODE,
/// MEM_ORDERED and FWD_PROGRESS `_GFX10_PLUS`).
pub const RSRC1_GFX10: &[BitField] = RSRC1;

// COMPUTE_PGM_RSRC1 bits gfx12 redefined (the rest keep the gfx10/gfx11 meaning).
/// gfx12: workgroup round-robin scheduling (`.amdhsa_round_robin_scheduling`).
pub const ENABLE_WG_RR_EN: BitField = field(R1, "ENABLE_WG_RR_EN", 21, 1, Any);
/// gfx12: reserved in LLVM 19 (later LLVM names it DISABLE_PERF, written as 0).
pub const RSRC1_GFX12_RESERVED1: BitField =
    field(R1, "COMPUTE_PGM_RSRC1 RESERVED1 (gfx12)", 23, 1, Zero);

/// Every COMPUTE_PGM_RSRC1 field of gfx12, bit 0 up.
pub const RSRC1_GFX12: &[BitField] = &[
    GRANULATED_WORKITEM_VGPR_COUNT,
    GRANULATED_WAVEFRONT_SGPR_COUNT,
    PRIORITY,
    FLOAT_ROUND_MODE_32,
    FLOAT_ROUND_MODE_16_64,
    FLOAT_DENORM_MODE_32,
    FLOAT_DENORM_MODE_16_64,
    PRIV,
    ENABLE_WG_RR_EN,
    DEBUG_MODE,
    RSRC1_GFX12_RESERVED1,
    BULKY,
    CDBG_USER,
    FP16_OVFL,
    RSRC1_RESERVED1,
    WGP_MODE,
    MEM_ORDERED,
    FWD_PROGRESS,
];

// COMPUTE_PGM_RSRC3, gfx12 layout (AMDHSAKernelDescriptor.h `_GFX12_PLUS`):
// no shared VGPRs and no trap-on-start/end; a wider instruction prefetch size.
pub const RSRC3_GFX12_RESERVED0: BitField =
    field(R3, "COMPUTE_PGM_RSRC3 RESERVED0 (gfx12)", 0, 4, Zero);
pub const INST_PREF_SIZE_GFX12: BitField = field(R3, "INST_PREF_SIZE", 4, 8, Any);
pub const GLG_EN: BitField = field(R3, "GLG_EN", 13, 1, Any);

/// Every COMPUTE_PGM_RSRC3 field of gfx12, bit 0 up (they cover all 32 bits).
pub const RSRC3_GFX12: &[BitField] = &[
    RSRC3_GFX12_RESERVED0,
    INST_PREF_SIZE_GFX12,
    RSRC3_RESERVED2,
    GLG_EN,
    RSRC3_RESERVED4,
    IMAGE_OP,
];

// gfx9 (GCN5/CDNA: gfx908, gfx90a, gfx940-gfx950 and their generic targets).
// COMPUTE_PGM_RSRC1 as AMDGPUUsage gives it for GFX6-GFX9: the SGPR granule is
// meaningful (gfx9 allocates SGPRs per wave; gfx10+ must write 0), and bits
// 31:27 are reserved (gfx10 put WGP_MODE, MEM_ORDERED and FWD_PROGRESS there).
/// gfx9: (count + 1) * 8 SGPRs, counting VCC, FLAT_SCRATCH and XNACK_MASK.
pub const GRANULATED_WAVEFRONT_SGPR_COUNT_GFX9: BitField =
    field(R1, "GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4, Any);
pub const RSRC1_GFX9_RESERVED: BitField = field(
    R1,
    "COMPUTE_PGM_RSRC1 bits 31:27 (reserved on gfx9; WGP_MODE/MEM_ORDERED/FWD_PROGRESS are gfx10+)",
    27,
    5,
    Zero,
);

/// Every COMPUTE_PGM_RSRC1 field of gfx9, bit 0 up (they cover all 32 bits).
pub const RSRC1_GFX9: &[BitField] = &[
    GRANULATED_WORKITEM_VGPR_COUNT,
    GRANULATED_WAVEFRONT_SGPR_COUNT_GFX9,
    PRIORITY,
    FLOAT_ROUND_MODE_32,
    FLOAT_ROUND_MODE_16_64,
    FLOAT_DENORM_MODE_32,
    FLOAT_DENORM_MODE_16_64,
    PRIV,
    ENABLE_DX10_CLAMP,
    DEBUG_MODE,
    ENABLE_IEEE_MODE,
    BULKY,
    CDBG_USER,
    FP16_OVFL,
    RSRC1_GFX9_RESERVED,
];

// COMPUTE_PGM_RSRC3 of gfx908 and gfx9-generic: reserved, must be 0 (two
// fields only because a BitField is at most 31 bits wide).
pub const RSRC3_GFX9_RESERVED_LO: BitField = field(
    R3,
    "COMPUTE_PGM_RSRC3 bits 15:0 (reserved before gfx90a)",
    0,
    16,
    Zero,
);
pub const RSRC3_GFX9_RESERVED_HI: BitField = field(
    R3,
    "COMPUTE_PGM_RSRC3 bits 31:16 (reserved before gfx90a)",
    16,
    16,
    Zero,
);

/// Every COMPUTE_PGM_RSRC3 field of gfx908 and gfx9-generic.
pub const RSRC3_GFX9: &[BitField] = &[RSRC3_GFX9_RESERVED_LO, RSRC3_GFX9_RESERVED_HI];

// COMPUTE_PGM_RSRC3 of gfx90a and gfx940+ (`COMPUTE_PGM_RSRC3_GFX90A`).
/// Where the AGPRs start in the unified VGPR file: (value + 1) * 4.
pub const ACCUM_OFFSET: BitField = field(R3, "ACCUM_OFFSET", 0, 6, Any);
pub const RSRC3_GFX90A_RESERVED0: BitField =
    field(R3, "COMPUTE_PGM_RSRC3 RESERVED0 (gfx90a)", 6, 10, Zero);
/// Threadgroup split mode: the waves of a workgroup may run on different
/// CUs. It changes where LDS and barriers live, not what a lane computes;
/// the emulator (no LDS, waves of a group in one place) runs either setting alike.
pub const TG_SPLIT: BitField = field(R3, "TG_SPLIT", 16, 1, Any);
pub const RSRC3_GFX90A_RESERVED1: BitField =
    field(R3, "COMPUTE_PGM_RSRC3 RESERVED1 (gfx90a)", 17, 15, Zero);

/// Every COMPUTE_PGM_RSRC3 field of gfx90a and gfx940+, bit 0 up.
pub const RSRC3_GFX90A: &[BitField] = &[
    ACCUM_OFFSET,
    RSRC3_GFX90A_RESERVED0,
    TG_SPLIT,
    RSRC3_GFX90A_RESERVED1,
];

/// The target row a code object's processor `arch` runs as (its own, or
/// the generic target covering it): where the descriptor's per-processor
/// rules come from, as feature questions rather than name prefixes.
fn row(arch: &str) -> Option<&'static Target> {
    crate::platform::target::find(arch).or_else(|| crate::platform::target::for_processor(arch))
}

/// Whether `arch` has `feature` (false for a processor with no row).
fn has(arch: &str, feature: Feature) -> bool {
    row(arch).is_some_and(|t| t.has(feature))
}

// KERNEL_CODE_PROPERTIES. The six user SGPR enables are, in this bit order,
// also the order their SGPRs are packed from s0.
/// Not on gfx11 (architected flat scratch): LLVM refuses the directive there.
pub const ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER: BitField =
    field(Cp, "ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", 0, 1, Any);
pub const ENABLE_SGPR_DISPATCH_PTR: BitField = field(Cp, "ENABLE_SGPR_DISPATCH_PTR", 1, 1, Any);
pub const ENABLE_SGPR_QUEUE_PTR: BitField = field(Cp, "ENABLE_SGPR_QUEUE_PTR", 2, 1, Any);
pub const ENABLE_SGPR_KERNARG_SEGMENT_PTR: BitField =
    field(Cp, "ENABLE_SGPR_KERNARG_SEGMENT_PTR", 3, 1, Any);
pub const ENABLE_SGPR_DISPATCH_ID: BitField = field(Cp, "ENABLE_SGPR_DISPATCH_ID", 4, 1, Any);
/// Not on gfx11 (architected flat scratch): LLVM refuses the directive there.
pub const ENABLE_SGPR_FLAT_SCRATCH_INIT: BitField =
    field(Cp, "ENABLE_SGPR_FLAT_SCRATCH_INIT", 5, 1, Any);
pub const ENABLE_SGPR_PRIVATE_SEGMENT_SIZE: BitField =
    field(Cp, "ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", 6, 1, Any);
pub const CODE_PROPERTIES_RESERVED0: BitField =
    field(Cp, "KERNEL_CODE_PROPERTIES RESERVED0", 7, 3, Zero);
pub const ENABLE_WAVEFRONT_SIZE32: BitField = field(Cp, "ENABLE_WAVEFRONT_SIZE32", 10, 1, Any);
pub const USES_DYNAMIC_STACK: BitField = field(Cp, "USES_DYNAMIC_STACK", 11, 1, Any);
pub const CODE_PROPERTIES_RESERVED1: BitField =
    field(Cp, "KERNEL_CODE_PROPERTIES RESERVED1", 12, 4, Zero);

/// Every KERNEL_CODE_PROPERTIES field, bit 0 up (they cover all 16 bits).
pub const CODE_PROPERTIES: &[BitField] = &[
    ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
    ENABLE_SGPR_DISPATCH_PTR,
    ENABLE_SGPR_QUEUE_PTR,
    ENABLE_SGPR_KERNARG_SEGMENT_PTR,
    ENABLE_SGPR_DISPATCH_ID,
    ENABLE_SGPR_FLAT_SCRATCH_INIT,
    ENABLE_SGPR_PRIVATE_SEGMENT_SIZE,
    CODE_PROPERTIES_RESERVED0,
    ENABLE_WAVEFRONT_SIZE32,
    USES_DYNAMIC_STACK,
    CODE_PROPERTIES_RESERVED1,
];

// KERNARG_PRELOAD_SPEC (gfx90a/gfx940; refused on gfx11 by `validate`).
pub const KERNARG_PRELOAD_LENGTH: BitField = field(Kp, "KERNARG_PRELOAD_SPEC_LENGTH", 0, 7, Any);
pub const KERNARG_PRELOAD_OFFSET: BitField = field(Kp, "KERNARG_PRELOAD_SPEC_OFFSET", 7, 9, Any);

/// Both KERNARG_PRELOAD_SPEC fields.
pub const KERNARG_PRELOAD: &[BitField] = &[KERNARG_PRELOAD_LENGTH, KERNARG_PRELOAD_OFFSET];

/// Why a descriptor was refused: one line naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("kernel descriptor: {0}")]
pub struct DescriptorError(pub String);

/// The user SGPRs the code-properties enables ask for, in packing order, with
/// their sizes in SGPRs (AMDGPUUsage "Initial Kernel Execution State").
pub const USER_SGPR_ENABLES: [(BitField, u32); 7] = [
    (ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, 4),
    (ENABLE_SGPR_DISPATCH_PTR, 2),
    (ENABLE_SGPR_QUEUE_PTR, 2),
    (ENABLE_SGPR_KERNARG_SEGMENT_PTR, 2),
    (ENABLE_SGPR_DISPATCH_ID, 2),
    (ENABLE_SGPR_FLAT_SCRATCH_INIT, 2),
    (ENABLE_SGPR_PRIVATE_SEGMENT_SIZE, 1),
];

impl KernelDescriptor {
    /// Decode the first [`KD_SIZE`] bytes of `bytes`; `None` when there are fewer.
    pub fn parse(bytes: &[u8]) -> Option<KernelDescriptor> {
        let b: &[u8; KD_SIZE] = bytes.get(..KD_SIZE)?.try_into().ok()?;
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&b[16..24]);
        let mut reserved1 = [0u8; 20];
        reserved1.copy_from_slice(&b[24..44]);
        Some(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            reserved0: [b[12], b[13], b[14], b[15]],
            entry_offset: i64::from_le_bytes(entry),
            reserved1,
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
            reserved3: [b[60], b[61], b[62], b[63]],
        })
    }

    /// The 64 bytes this descriptor was parsed from (what a device would read
    /// at the dispatch packet's kernel_object address).
    pub fn to_bytes(&self) -> [u8; KD_SIZE] {
        let mut b = [0u8; KD_SIZE];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved0);
        b[16..24].copy_from_slice(&self.entry_offset.to_le_bytes());
        b[24..44].copy_from_slice(&self.reserved1);
        b[44..48].copy_from_slice(&self.rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b[60..64].copy_from_slice(&self.reserved3);
        b
    }

    /// The raw packed word `word`.
    pub fn word(&self, word: Word) -> u32 {
        match word {
            Word::Rsrc1 => self.rsrc1,
            Word::Rsrc2 => self.rsrc2,
            Word::Rsrc3 => self.rsrc3,
            Word::CodeProperties => u32::from(self.code_properties),
            Word::KernargPreload => u32::from(self.kernarg_preload),
        }
    }

    /// The must-be-0 COMPUTE_PGM_RSRC1/2/3 fields this descriptor sets on
    /// `arch` (what [`KernelDescriptor::validate`] refuses first), in the
    /// generation's own layout; none for a processor with no row of ours.
    pub fn reserved_rsrc_set(&self, arch: &str) -> Vec<BitField> {
        let Some(generation) = row(arch).map(|t| t.generation()) else {
            return Vec::new();
        };
        let (rsrc1, rsrc3) = match generation.descriptor_layout() {
            DescriptorLayout::Gfx6To9 if has(arch, Feature::UnifiedVgprs) => (RSRC1_GFX9, RSRC3_GFX90A),
            DescriptorLayout::Gfx6To9 => (RSRC1_GFX9, RSRC3_GFX9),
            DescriptorLayout::Gfx10 => (RSRC1_GFX10, RSRC3_GFX10),
            DescriptorLayout::Gfx11 => (RSRC1, RSRC3),
            DescriptorLayout::Gfx12 => (RSRC1_GFX12, RSRC3_GFX12),
        };
        rsrc1
            .iter()
            .chain(RSRC2)
            .chain(rsrc3)
            .filter(|f| f.rule == Rule::Zero && self.get(**f) != 0)
            .copied()
            .collect()
    }

    /// What refuses field `f` when it is not 0: `<name> is <v> (bits a..b); it must be 0`.
    pub fn must_be_zero_text(&self, f: BitField) -> String {
        format!(
            "{} is {} (bits {}..{}); it must be 0",
            f.name,
            self.get(f),
            f.shift,
            f.shift + f.width - 1
        )
    }

    /// This descriptor with `fields` set to 0.
    pub fn with_cleared(&self, fields: &[BitField]) -> KernelDescriptor {
        let mut kd = *self;
        for f in fields {
            let word = match f.word {
                Word::Rsrc1 => &mut kd.rsrc1,
                Word::Rsrc2 => &mut kd.rsrc2,
                Word::Rsrc3 => &mut kd.rsrc3,
                // Only the rsrc words have reserved fields that may be waived.
                Word::CodeProperties | Word::KernargPreload => continue,
            };
            *word &= !f.mask();
        }
        kd
    }

    /// The value of bitfield `f`.
    pub fn get(&self, f: BitField) -> u32 {
        f.get(self.word(f.word))
    }

    fn flag(&self, f: BitField) -> bool {
        self.get(f) != 0
    }

    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT: user SGPRs preloaded from s0; the
    /// system SGPRs start right after them.
    pub fn user_sgpr_count(&self) -> u32 {
        self.get(USER_SGPR_COUNT)
    }
    /// The user SGPRs the code-properties enables need, in SGPRs.
    pub fn enabled_user_sgprs(&self) -> u32 {
        USER_SGPR_ENABLES
            .iter()
            .filter(|(f, _)| self.flag(*f))
            .map(|(_, n)| n)
            .sum()
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_ID_{X,Y,Z}.
    pub fn workgroup_id_enabled(&self) -> [bool; 3] {
        [
            ENABLE_SGPR_WORKGROUP_ID_X,
            ENABLE_SGPR_WORKGROUP_ID_Y,
            ENABLE_SGPR_WORKGROUP_ID_Z,
        ]
        .map(|f| self.flag(f))
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_INFO.
    pub fn workgroup_info_enabled(&self) -> bool {
        self.flag(ENABLE_SGPR_WORKGROUP_INFO)
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_VGPR_WORKITEM_ID: 0 = x, 1 = x,y, 2 = x,y,z (3 is undefined).
    pub fn workitem_id_dims(&self) -> u32 {
        self.get(ENABLE_VGPR_WORKITEM_ID)
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_PRIVATE_SEGMENT.
    pub fn private_segment_enabled(&self) -> bool {
        self.flag(ENABLE_PRIVATE_SEGMENT)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (bit 0).
    pub fn private_segment_buffer(&self) -> bool {
        self.flag(ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_DISPATCH_PTR (bit 1).
    pub fn dispatch_ptr(&self) -> bool {
        self.flag(ENABLE_SGPR_DISPATCH_PTR)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_QUEUE_PTR (bit 2).
    pub fn queue_ptr(&self) -> bool {
        self.flag(ENABLE_SGPR_QUEUE_PTR)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_KERNARG_SEGMENT_PTR (bit 3).
    pub fn kernarg_ptr(&self) -> bool {
        self.flag(ENABLE_SGPR_KERNARG_SEGMENT_PTR)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_DISPATCH_ID (bit 4).
    pub fn dispatch_id(&self) -> bool {
        self.flag(ENABLE_SGPR_DISPATCH_ID)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_FLAT_SCRATCH_INIT (bit 5).
    pub fn flat_scratch_init(&self) -> bool {
        self.flag(ENABLE_SGPR_FLAT_SCRATCH_INIT)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (bit 6).
    pub fn private_segment_size(&self) -> bool {
        self.flag(ENABLE_SGPR_PRIVATE_SEGMENT_SIZE)
    }
    /// KERNEL_CODE_PROPERTIES.USES_DYNAMIC_STACK (bit 11).
    pub fn uses_dynamic_stack(&self) -> bool {
        self.flag(USES_DYNAMIC_STACK)
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_WAVEFRONT_SIZE32 (bit 10): 32 when set, else 64.
    pub fn wave_size(&self) -> u32 {
        if self.flag(ENABLE_WAVEFRONT_SIZE32) {
            32
        } else {
            64
        }
    }
    /// VGPRs allocated per lane: GRANULATED_WORKITEM_VGPR_COUNT + 1 granules of
    /// 8 (wave32) or 4 (wave64) on gfx11 (what `.amdhsa_next_free_vgpr` rounds to).
    pub fn vgpr_count(&self) -> u32 {
        let granule = if self.wave_size() == 32 { 8 } else { 4 };
        (self.get(GRANULATED_WORKITEM_VGPR_COUNT) + 1) * granule
    }
    /// VGPRs allocated per lane on a target of instruction set `isa`
    /// ([`Isa::vgpr_granule`]: granules of 16 on CDNA5).
    pub fn vgpr_count_on(&self, isa: Isa) -> u32 {
        let granule = isa.vgpr_granule(self.wave_size() == 32);
        (self.get(GRANULATED_WORKITEM_VGPR_COUNT) + 1) * granule
    }
    /// Shared VGPRs of a wave64 (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT granules of 8).
    pub fn shared_vgpr_count(&self) -> u32 {
        self.get(SHARED_VGPR_COUNT) * 8
    }

    /// Refuse what a device of `arch` (a processor name such as `gfx1100`)
    /// cannot be given, with one line naming the field. Checked for every
    /// target: reserved bytes and reserved code-properties bits. For gfx11
    /// and gfx12 (each with its own rsrc1/rsrc3 layout), also every rsrc1/2/3
    /// field that must be 0, the user SGPR enables gfx11
    /// does not have (architected flat scratch), kernarg preload, a
    /// USER_SGPR_COUNT below what the enables need or above 16, the undefined
    /// work-item id setting, more VGPRs than the file has, and shared VGPRs in
    /// wave32. gfx10 has its own rules (`validate_gfx10`: its layouts, the
    /// scratch SGPR enables allowed), as has gfx9. (The entry's alignment is
    /// the code object's check: it needs the descriptor's address.)
    pub fn validate(&self, arch: &str) -> Result<(), DescriptorError> {
        self.validate_reserved_bytes()?;
        for f in [CODE_PROPERTIES_RESERVED0, CODE_PROPERTIES_RESERVED1] {
            check_zero(self, f)?;
        }
        // The layout and its rules are the generation's; a processor with no
        // row of ours gets the checks every generation shares.
        let Some(generation) = row(arch).map(|t| t.generation()) else {
            return Ok(());
        };
        // Every rsrc field the generation's layout reserves, in one place
        // (the runtime's own kernels are let through with them, `emu::packet`).
        if let Some(&f) = self.reserved_rsrc_set(arch).first() {
            return Err(DescriptorError(self.must_be_zero_text(f)));
        }
        match generation.descriptor_layout() {
            DescriptorLayout::Gfx6To9 => self.validate_gfx9(arch),
            DescriptorLayout::Gfx10 => self.validate_gfx10(arch),
            DescriptorLayout::Gfx11 | DescriptorLayout::Gfx12 => {
                self.validate_rdna3_4(arch, generation.name())
            }
        }
    }

    fn validate_reserved_bytes(&self) -> Result<(), DescriptorError> {
        let regions: [(&str, usize, &[u8]); 3] = [
            ("reserved0", 12, &self.reserved0),
            ("reserved1", 24, &self.reserved1),
            ("reserved3", 60, &self.reserved3),
        ];
        for (name, base, bytes) in regions {
            if let Some(i) = bytes.iter().position(|&b| b != 0) {
                return Err(DescriptorError(format!(
                    "{name} byte at offset {} is 0x{:02x}; reserved bytes must be 0",
                    base + i,
                    bytes[i]
                )));
            }
        }
        Ok(())
    }

    /// gfx11 and gfx12 (`generation`), whose rsrc1/rsrc3 layouts are given:
    /// both have architected flat scratch, no kernarg preload and the same
    /// user SGPR and VGPR limits.
    fn validate_rdna3_4(
        &self,
        arch: &str,
        generation: &str,
    ) -> Result<(), DescriptorError> {
        for f in [
            ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
            ENABLE_SGPR_FLAT_SCRATCH_INIT,
        ] {
            if self.flag(f) {
                return Err(DescriptorError(format!(
                    "{} is set, but {generation} has architected flat scratch and no such user SGPRs",
                    f.name
                )));
            }
        }
        if self.kernarg_preload != 0 {
            return Err(DescriptorError(format!(
                "kernarg_preload is 0x{:04x}, but kernarg preloading exists on gfx90a/gfx940 only, not {generation}",
                self.kernarg_preload
            )));
        }
        self.validate_counts(arch, generation)
    }

    /// Register counts and the values that place registers (`generation`
    /// names the target's generation in the refusals).
    fn validate_counts(&self, arch: &str, generation: &str) -> Result<(), DescriptorError> {
        self.validate_user_sgprs_and_ids(generation)?;
        let isa = row(arch).map(|t| t.isa);
        let (count, max) = isa.map_or((self.vgpr_count(), MAX_VGPRS), |isa| {
            (self.vgpr_count_on(isa), isa.max_vgprs())
        });
        if count > max {
            return Err(DescriptorError(format!(
                "GRANULATED_WORKITEM_VGPR_COUNT {} means {count} VGPRs; {} has at most {max}",
                self.get(GRANULATED_WORKITEM_VGPR_COUNT),
                // CDNA5's larger file is its own, not gfx12's.
                if max == MAX_VGPRS { generation } else { arch },
            )));
        }
        if self.shared_vgpr_count() != 0 && self.wave_size() == 32 {
            return Err(DescriptorError(format!(
                "SHARED_VGPR_COUNT is {}, but shared VGPRs exist only in wave64",
                self.get(SHARED_VGPR_COUNT)
            )));
        }
        Ok(())
    }

    /// The user SGPR count against what the enables need and the hardware
    /// loads, and the work-item id setting: the same on every generation.
    fn validate_user_sgprs_and_ids(&self, generation: &str) -> Result<(), DescriptorError> {
        let (count, needed) = (self.user_sgpr_count(), self.enabled_user_sgprs());
        if count < needed {
            // The hardware would load only `count` of the enabled SGPRs and start the
            // system SGPRs inside them; LLVM refuses such a count as well.
            return Err(DescriptorError(format!(
                "USER_SGPR_COUNT is {count}, but the enabled user SGPRs need {needed}"
            )));
        }
        if count > MAX_USER_SGPRS {
            return Err(DescriptorError(format!(
                "USER_SGPR_COUNT is {count}; {generation} loads at most {MAX_USER_SGPRS} user SGPRs"
            )));
        }
        if self.workitem_id_dims() == 3 {
            return Err(DescriptorError(
                "ENABLE_VGPR_WORKITEM_ID is 3, which is undefined (0-2 are x, xy, xyz)".into(),
            ));
        }
        Ok(())
    }
}

/// The gfx9 part of [`KernelDescriptor`]: its own register layouts and limits.
impl KernelDescriptor {
    /// VGPRs a lane may address on target `arch`. gfx9 with the unified
    /// VGPR/AGPR file (gfx90a, gfx940+) allocates in granules of 8 counting
    /// VGPRs and AGPRs together (up to 512), and the AGPRs start at
    /// ACCUM_OFFSET: the VGPRs are those below both (and below 256). Every
    /// other target: [`KernelDescriptor::vgpr_count`] (gfx908: granules of 4).
    pub fn vgpr_count_for(&self, arch: &str) -> u32 {
        // CDNA5's granules of 16 are its Isa's (Isa::vgpr_granule).
        if !has(arch, Feature::UnifiedVgprs) {
            return row(arch).map_or(self.vgpr_count(), |t| self.vgpr_count_on(t.isa));
        }
        self.unified_vgpr_file()
            .min(self.accum_offset())
            .min(MAX_VGPRS)
    }

    /// gfx90a/gfx940+: VGPRs + AGPRs allocated, (GRANULATED_WORKITEM_VGPR_COUNT + 1) * 8.
    pub fn unified_vgpr_file(&self) -> u32 {
        (self.get(GRANULATED_WORKITEM_VGPR_COUNT) + 1) * 8
    }

    /// gfx90a/gfx940+: the first AGPR's index in the unified file, (ACCUM_OFFSET + 1) * 4.
    pub fn accum_offset(&self) -> u32 {
        (self.get(ACCUM_OFFSET) + 1) * 4
    }

    /// gfx9: SGPRs allocated per wave, (GRANULATED_WAVEFRONT_SGPR_COUNT + 1) * 8
    /// (VCC, FLAT_SCRATCH and XNACK_MASK included).
    pub fn gfx9_sgpr_count(&self) -> u32 {
        (self.get(GRANULATED_WAVEFRONT_SGPR_COUNT_GFX9) + 1) * 8
    }

    /// gfx9's rules: its rsrc1/rsrc3 layouts (rsrc3 differs between gfx908
    /// and gfx90a+), wave64 only, the scratch user SGPRs only without
    /// architected flat scratch, kernarg preload only on gfx90a/gfx940+
    /// (legal there: whether an executor implements it is its own check), the
    /// user SGPR and work-item id limits, and ACCUM_OFFSET inside the allocation.
    fn validate_gfx9(&self, arch: &str) -> Result<(), DescriptorError> {
        let unified = has(arch, Feature::UnifiedVgprs);
        let refuse = |why: String| Err(DescriptorError(why));
        if self.flag(ENABLE_WAVEFRONT_SIZE32) {
            return refuse("ENABLE_WAVEFRONT_SIZE32 is set, but gfx9 is wave64 only".into());
        }
        if has(arch, Feature::ArchitectedFlatScratch) {
            if let Some(f) = [
                ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER,
                ENABLE_SGPR_FLAT_SCRATCH_INIT,
            ]
            .into_iter()
            .find(|f| self.flag(*f))
            {
                return refuse(format!(
                    "{} is set, but {arch} has architected flat scratch and no such user SGPRs",
                    f.name
                ));
            }
        }
        if self.kernarg_preload != 0 && !unified {
            return refuse(format!(
                "kernarg_preload is 0x{:04x}, but kernarg preloading exists on gfx90a/gfx940+ only, not {arch}",
                self.kernarg_preload
            ));
        }
        self.validate_user_sgprs_and_ids("gfx9")?;
        if unified && self.accum_offset() > self.unified_vgpr_file() {
            return refuse(format!(
                "ACCUM_OFFSET {} puts the AGPRs at {}, past the {} registers GRANULATED_WORKITEM_VGPR_COUNT allocates",
                self.get(ACCUM_OFFSET),
                self.accum_offset(),
                self.unified_vgpr_file()
            ));
        }
        Ok(())
    }
}

fn check_zero(kd: &KernelDescriptor, f: BitField) -> Result<(), DescriptorError> {
    match kd.get(f) {
        0 => Ok(()),
        _ => Err(DescriptorError(kd.must_be_zero_text(f))),
    }
}

/// The gfx10 (RDNA1/2: gfx1010-gfx1036, gfx10-1/10-3-generic) part of
/// [`KernelDescriptor`].
impl KernelDescriptor {
    /// gfx10's rules: its rsrc1 layout ([`RSRC1_GFX10`], gfx11's: the SGPR count is
    /// ignored; WGP_MODE, MEM_ORDERED and FWD_PROGRESS exist and change
    /// scheduling and memory ordering, not what a lane computes), its rsrc3 ([`RSRC3_GFX10`]),
    /// no kernarg preload, the user SGPR and VGPR limits, and shared VGPRs
    /// only in wave64 and within the 256-VGPR file. Unlike gfx11, gfx10 has
    /// no architected flat scratch: the private segment buffer and flat
    /// scratch init user SGPRs exist (LLVM 19 enables the buffer in every
    /// gfx10 kernel it compiles) and are accepted.
    fn validate_gfx10(&self, arch: &str) -> Result<(), DescriptorError> {
        if self.kernarg_preload != 0 {
            return Err(DescriptorError(format!(
                "kernarg_preload is 0x{:04x}, but kernarg preloading exists on gfx90a/gfx940 only, not gfx10",
                self.kernarg_preload
            )));
        }
        self.validate_counts(arch, "gfx10")?;
        // AMDGPUUsage: (GRANULATED_WORKITEM_VGPR_COUNT + 1) * 4 + SHARED_VGPR_COUNT * 8 <= 256.
        let total = self.vgpr_count() + self.shared_vgpr_count();
        if total > MAX_VGPRS {
            return Err(DescriptorError(format!(
                "SHARED_VGPR_COUNT {} adds {} VGPRs to the {} allocated: {total}, past the {MAX_VGPRS} a wave64 may have",
                self.get(SHARED_VGPR_COUNT),
                self.shared_vgpr_count(),
                self.vgpr_count()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod gfx10_tests {
    use super::*;

    /// gfx10's rsrc3 table covers the word once; the bits gfx11 gave meaning
    /// (prefetch size, trap on start/end, IMAGE_OP) are refused on gfx10 only.
    #[test]
    fn gfx10_rsrc3_layout() {
        for table in [RSRC1_GFX10, RSRC3_GFX10] {
            let seen = table.iter().fold(0u64, |seen, f| {
                assert_eq!(seen & u64::from(f.mask()), 0, "{} overlaps", f.name);
                seen | u64::from(f.mask())
            });
            assert_eq!(seen, u64::from(u32::MAX));
        }
        let base = KernelDescriptor {
            code_properties: 1 << 3,
            rsrc2: 2 << 1,
            ..Default::default()
        };
        for (bit, name) in [
            (4, "RESERVED1 (gfx10)"),
            (10, "RESERVED1 (gfx10)"),
            (31, "RESERVED5 (gfx10)"),
        ] {
            let kd = KernelDescriptor {
                rsrc3: 1 << bit,
                ..base
            };
            assert!(kd.validate("gfx1100").is_ok(), "bit {bit} is a gfx11 field");
            let err = kd.validate("gfx1030").unwrap_err().to_string();
            assert!(err.contains(name), "bit {bit}: {err}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gfx12's rsrc1/rsrc3 bits are checked against gfx12's layout, gfx11's
    /// against gfx11's: the same word can be valid on one and refused on the other.
    #[test]
    fn gfx12_fields_follow_the_gfx12_layout() {
        let base = KernelDescriptor {
            code_properties: 1 << 3,
            rsrc2: 2 << 1,
            ..Default::default()
        };
        let with = |rsrc1: u32, rsrc3: u32| KernelDescriptor {
            rsrc1,
            rsrc3,
            ..base
        };
        let verdict = |kd: KernelDescriptor| {
            (
                kd.validate("gfx1100").is_ok(),
                kd.validate("gfx1201").is_ok(),
            )
        };
        assert_eq!(verdict(base), (true, true));
        // rsrc3 bits 3:0: shared VGPRs on gfx11 (wave64), reserved on gfx12.
        let err = with(0, 1).validate("gfx1201").unwrap_err().to_string();
        assert!(err.contains("RESERVED0 (gfx12)"), "{err}");
        assert!(with(0, 1).validate("gfx12-generic").is_err());
        // rsrc3 bit 13: reserved on gfx11, GLG_EN on gfx12.
        assert_eq!(verdict(with(0, 1 << 13)), (false, true));
        // rsrc3 bits 11:4: gfx12's 8-bit INST_PREF_SIZE (gfx11: 6 bits + the trap-on bits).
        assert_eq!(verdict(with(0, 0xff << 4)), (true, true));
        // rsrc1 bit 23: IEEE mode on gfx11, reserved on gfx12; bit 21 is valid on both.
        assert_eq!(verdict(with(1 << 23, 0)), (true, false));
        assert_eq!(verdict(with(1 << 21, 0)), (true, true));
        // The rules both share: flat scratch init does not exist on either.
        let scratch = KernelDescriptor {
            code_properties: 1 << 3 | 1 << 5,
            rsrc2: 4 << 1,
            ..Default::default()
        };
        assert!(scratch
            .validate("gfx1201")
            .unwrap_err()
            .to_string()
            .contains("gfx12 has architected flat scratch"));
    }

    /// The tables cover each word exactly once, with no overlap or gap.
    #[test]
    fn tables_cover_every_bit_once() {
        for (fields, bits) in [
            (RSRC1, 32),
            (RSRC1_GFX12, 32),
            (RSRC2, 32),
            (RSRC3, 32),
            (RSRC3_GFX12, 32),
            (CODE_PROPERTIES, 16),
            (KERNARG_PRELOAD, 16),
        ] {
            let mut seen = 0u64;
            for f in fields {
                let m = u64::from(f.mask());
                assert_eq!(seen & m, 0, "{} overlaps", f.name);
                seen |= m;
            }
            assert_eq!(seen, (1u64 << bits) - 1, "{:?} gap", fields[0].word);
        }
    }

    #[test]
    fn bytes_round_trip() {
        let raw: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let kd = KernelDescriptor::parse(&raw).unwrap();
        assert_eq!(kd.to_bytes().as_slice(), raw.as_slice());
        assert!(KernelDescriptor::parse(&raw[..63]).is_none());
    }

    /// One way to spoil a descriptor.
    type Edit = fn(&mut KernelDescriptor);

    fn good() -> KernelDescriptor {
        // kernarg ptr, wg id x, wave32, USER_SGPR_COUNT 2: the xad_basic shape.
        KernelDescriptor {
            rsrc2: (2 << 1) | (1 << 7),
            code_properties: (1 << 3) | (1 << 10),
            ..Default::default()
        }
    }

    #[test]
    fn validate_accepts_a_plain_kernel_and_names_each_refusal() {
        assert_eq!(good().validate("gfx1100"), Ok(()));
        let cases: [(&str, Edit); 11] = [
            ("reserved1 byte at offset 30", |k| k.reserved1[6] = 1),
            ("KERNEL_CODE_PROPERTIES RESERVED0", |k| {
                k.code_properties |= 1 << 8
            }),
            ("PRIORITY", |k| k.rsrc1 |= 1 << 10),
            ("COMPUTE_PGM_RSRC2 RESERVED0", |k| k.rsrc2 |= 1 << 31),
            ("COMPUTE_PGM_RSRC3 RESERVED4", |k| k.rsrc3 |= 1 << 20),
            ("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", |k| {
                k.code_properties |= 1
            }),
            ("kernarg_preload", |k| k.kernarg_preload = 1),
            (
                "USER_SGPR_COUNT is 2, but the enabled user SGPRs need 4",
                |k| k.code_properties |= 1 << 1,
            ),
            ("ENABLE_VGPR_WORKITEM_ID is 3", |k| k.rsrc2 |= 3 << 11),
            ("USER_SGPR_COUNT is 17", |k| {
                k.rsrc2 = (k.rsrc2 & !0x3e) | 17 << 1
            }),
            ("SHARED_VGPR_COUNT is 1", |k| k.rsrc3 |= 1),
        ];
        for (want, mutate) in cases {
            let mut kd = good();
            mutate(&mut kd);
            let err = kd.validate("gfx1100").expect_err(want).to_string();
            assert!(err.contains(want), "{err:?} should name {want:?}");
        }
    }
}
