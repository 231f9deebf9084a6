//! The supported opcodes as data: one row per opcode with its encoding
//! format, its opcode number in each [`Generation`] (a column per
//! generation, as LLVM's `VOP3Instructions.td` and Mesa ACO's
//! `aco_opcodes.py` keep them), mnemonic, operand shape and semantics side by
//! side. The [`Op`] enum is generated from the rows, so the emulator's
//! exhaustive `match` over it (`emu/wave.rs`) cannot miss one.
//!
//! gfx11 numbers were read off `llvm-mc-19 -triple=amdgcn -mcpu=gfx1100
//! -show-encoding` (LLVM 19.1.7), gfx12 numbers off the same with
//! `-mcpu=gfx1200`; the decoder tests in `tests/isa/decode_oracle.rs` check every
//! row against the assembler's bytes for both. gfx10 numbers were read off
//! `-mcpu=gfx1030` (gfx1010 encodes every row alike; `tests/isa/decode_oracle.rs`
//! checks them). gfx9 numbers were read off `-mcpu=gfx90a` for
//! `tests/kernels/emu/gfx9/ops.part` (gfx942 and gfx908
//! encode every row alike; `v_lshl_add_u64` off `-mcpu=gfx942`), and
//! `tests/isa/decode_oracle.rs` checks every gfx9 cell against the assembler's
//! bytes. A cell is `-` where the assembler refuses the mnemonic for that
//! generation (or, on gfx9, where the emulator does not decode the op),
//! except gfx10's `s_sendmsg`: the one message emulated (MSG_DEALLOC_VGPRS)
//! does not exist before gfx11, and gfx10's message 3 is another
//! (MSG_GS_DONE), so its number is left out rather than misread.
//!
//! A cell is the number in the row's format, or `(Format number)` where the
//! generation encodes the op in another format: gfx9's `v_add_co_u32`,
//! `v_sub_co_u32` and `v_subrev_co_u32` are VOP2 ops writing VCC there,
//! VOP3-only (VOP3SD) from gfx10. Where a generation spells an op
//! differently the row carries a name column after the mnemonic (gfx9 and
//! gfx10 print GCN names such as `s_andn2_b32` and `s_load_dwordx2`; gfx12
//! renamed a few ops, and LLVM 19 still accepts the gfx11 names there as
//! aliases but prints the new ones). The field layouts that differ per
//! generation are the decoder's (`decode`, `gfx9`), not the table's.
//!
//! gfx12 against gfx11: every SOP*/VOP*/SMEM/FLAT opcode number the two share
//! is the same; gfx12 dropped `v_cmp[x]_f/t_*`, `s_cmpk_*`, the SOPK
//! `s_waitcnt_*cnt`, `s_set_inst_prefetch_distance` and `s_barrier` (split into
//! `s_barrier_signal`/`s_barrier_wait`, not emulated), moved `v_lshlrev_b64`
//! to VOP2 (not recorded), and added the `s_wait_*` counters and `s_load_b96`.
//! It renamed a few ops ([`mnemonic`]); SMEM and FLAT/GLOBAL keep their
//! opcode numbers but changed field layouts (see `decode`).
//!
//! VOP1, VOP2 and VOPC opcodes also exist in the 64-bit VOP3 encoding (on
//! gfx11 at `0x180 + op`, `0x100 + op` and `0x000 + op`); the decoder finds
//! those through the rows below, which list them once.

use super::Generation;

/// An instruction encoding family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    /// VOP3 (and VOP3SD: the VOP3 rows whose shape writes a scalar carry/mask).
    Vop3,
    Flat,
    Global,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Sop1 => "SOP1",
            Format::Sop2 => "SOP2",
            Format::Sopk => "SOPK",
            Format::Sopc => "SOPC",
            Format::Sopp => "SOPP",
            Format::Smem => "SMEM",
            Format::Vop1 => "VOP1",
            Format::Vop2 => "VOP2",
            Format::Vopc => "VOPC",
            Format::Vop3 => "VOP3",
            Format::Flat => "FLAT",
            Format::Global => "GLOBAL",
        }
    }
}

/// Operand shape: how many sources, their widths, and what the instruction writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Scalar: D.b32 = f(S0.b32).
    S1,
    /// Scalar: D.b64 = f(S0.b64).
    S1w,
    /// Scalar: D.b32 = f(S0, S1).
    S2,
    /// Scalar: D.b64 = f(S0.b64, S1.b64).
    S2w,
    /// Scalar: D.b64 = f(S0.b64, S1.b32) (64-bit shifts).
    S2sh,
    /// Scalar compare: SCC = f(S0, S1) (32-bit).
    Sc,
    /// Scalar compare on 64-bit sources.
    Scw,
    /// SOPK: D (and/or SCC) from D and simm16.
    K,
    /// SOPK that only waits (sdst is null or a counter SGPR).
    KWait,
    /// `s_setreg_b32` / `s_setreg_imm32_b32`: a field of a hardware register
    /// (simm16 as `s_getreg_b32`'s) := src0 (the SGPR in the sdst field, or
    /// the 32-bit literal after the instruction). Writes no SGPR.
    SetReg,
    /// SOPP with no effect in a synchronous emulator.
    Nop,
    /// SOPP branch: simm16 is a signed dword offset from the next instruction.
    Branch,
    /// SOPP ending or sending (s_endpgm, s_sendmsg, s_barrier, ...).
    Control,
    /// SMEM load of `n` dwords.
    Load(u8),
    /// Vector: D = f(S0).
    V1,
    /// Vector: D = f(S0, S1).
    V2,
    /// Vector: D = f(S0, S1, S2).
    V3,
    /// Vector with mask source: `D = mask[lane] ? S1 : S0` (VCC in e32, S2 SGPR in e64).
    Cnd,
    /// Vector with carry-out mask (VOP3SD only): D, carry = f(S0, S1).
    Co,
    /// Vector with carry-in and carry-out mask (VCC in e32; S2 and SDST in VOP3SD).
    Ci,
    /// D.b64, carry = S0.u32 * S1.u32 + S2.u64 (VOP3SD).
    Mad64,
    /// D.b64 = f(S0.u32, S1.b64) (64-bit shifts).
    Sh64,
    /// `D.u64 = (S0.u64 << S1[2:0]) + S2.u64` (gfx940+ `v_lshl_add_u64`: two
    /// 64-bit sources around a 32-bit shift amount, no carry out).
    LshlAdd64,
    /// `D.b64 = S0.b64` (gfx940+ `v_mov_b64`).
    Mov64,
    /// `D.b32[0] = S0.b32[OPSEL[0]]; D.b32[1] = S1.b32[OPSEL[1]]` (gfx90a+
    /// `v_pk_mov_b32`, VOP3P): each destination dword is one 32-bit half of a
    /// 64-bit source, chosen by `op_sel` ([`super::decode::Modifiers`]).
    PkMov,
    /// Compare writing a lane mask (VCC in e32, SDST in e64): 32-bit sources.
    Cmp,
    /// Compare on 64-bit sources.
    Cmpw,
    /// Compare writing EXEC only (v_cmpx_*).
    Cmpx,
    /// v_cmpx on 64-bit sources.
    Cmpxw,
    /// Vector-to-scalar: an SGPR destination in the vdst field.
    ToScalar1,
    /// v_readlane_b32 sdst, vsrc, ssrc_lane.
    ToScalar2,
    /// v_writelane_b32 vdst, ssrc_value, ssrc_lane.
    WriteLane,
    /// Global/flat load of `n` bytes: 1/2 (with sign flag on the op), 4, 8, 12, 16.
    MemLoad(u8),
    /// Global/flat store of `n` bytes.
    MemStore(u8),
}

/// One opcode of one generation: the format that generation encodes the op
/// in (the row's, except where the generation puts the op elsewhere: gfx9's
/// carry-out adds are VOP2) and its number there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding {
    pub format: Format,
    pub opcode: u16,
}

/// One supported opcode.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    /// The format of the gfx10+ encodings (gfx9's may differ: [`Encoding`]).
    pub format: Format,
    /// A column per generation, indexed by [`Generation::index`]: `None`
    /// where the generation has no such instruction (or it is not recorded).
    pub encodings: [Option<Encoding>; Generation::ALL.len()],
    pub op: Op,
    /// The mnemonic where `names` has none for a generation (gfx11's).
    pub mnemonic: &'static str,
    /// A generation's own spelling, where LLVM prints another name there.
    pub names: [Option<&'static str>; Generation::ALL.len()],
    pub shape: Shape,
    pub semantics: &'static str,
}

impl OpInfo {
    /// This op's format and number in `generation`'s encoding.
    pub fn encoding(&self, generation: Generation) -> Option<Encoding> {
        self.encodings[generation.index()]
    }

    /// This op's opcode number in `generation`'s encoding of its format.
    pub fn opcode(&self, generation: Generation) -> Option<u16> {
        self.encoding(generation).map(|e| e.opcode)
    }
}

/// One opcode cell of the table: `-` (none), a number in the row's format,
/// or `(Format number)` where the generation encodes the op in another format.
macro_rules! encoding {
    ($fmt:ident, -) => {
        None
    };
    ($fmt:ident, ($other:ident $n:literal)) => {
        Some(Encoding {
            format: Format::$other,
            opcode: $n,
        })
    };
    ($fmt:ident, $n:literal) => {
        Some(Encoding {
            format: Format::$fmt,
            opcode: $n,
        })
    };
}

/// One name cell: `-` (the row's mnemonic) or the generation's spelling.
macro_rules! name {
    (-) => {
        None
    };
    ($s:literal) => {
        Some($s)
    };
}

macro_rules! op_table {
    ($( $fmt:ident [$g9:tt, $g10:tt, $g11:tt, $g12:tt] $name:ident $mn:literal
        $([$n9:tt, $n10:tt, $n11:tt, $n12:tt])? $shape:ident $(($size:literal))?, $sem:literal ;)*) => {
        /// Every opcode the emulator executes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Op { $($name,)* }

        /// The table: format, encodings per generation, op, mnemonic and
        /// per-generation spellings, shape, semantics.
        pub static TABLE: &[OpInfo] = &[
            $( OpInfo {
                format: Format::$fmt,
                encodings: [
                    encoding!($fmt, $g9),
                    encoding!($fmt, $g10),
                    encoding!($fmt, $g11),
                    encoding!($fmt, $g12),
                ],
                op: Op::$name,
                mnemonic: $mn,
                names: op_table!(@names $([$n9, $n10, $n11, $n12])?),
                shape: $shape $(($size))?,
                semantics: $sem,
            }, )*
        ];
    };
    (@names) => {
        [None; Generation::ALL.len()]
    };
    (@names [$n9:tt, $n10:tt, $n11:tt, $n12:tt]) => {
        [name!($n9), name!($n10), name!($n11), name!($n12)]
    };
}

use Shape::*;

// A declarative table, one row per opcode (longer than any function should be):
// format [gfx9, gfx10, gfx11, gfx12] Op "mnemonic" [names: gfx9, gfx10, gfx11, gfx12]? shape, "semantics";
op_table! {
    // ---- SOP2: D = f(S0, S1) ----
    Sop2   [       0x000,     0,     0,     0] SAddU32     "s_add_u32" [-, -, -, "s_add_co_u32"]       S2,  "D = S0 + S1; SCC = carry out";
    Sop2   [       0x001,     1,     1,     1] SSubU32     "s_sub_u32" [-, -, -, "s_sub_co_u32"]       S2,  "D = S0 - S1; SCC = borrow";
    Sop2   [       0x002,     2,     2,     2] SAddI32     "s_add_i32" [-, -, -, "s_add_co_i32"]       S2,  "D = S0 + S1; SCC = signed overflow";
    Sop2   [       0x003,     3,     3,     3] SSubI32     "s_sub_i32" [-, -, -, "s_sub_co_i32"]       S2,  "D = S0 - S1; SCC = signed overflow";
    Sop2   [       0x004,     4,     4,     4] SAddcU32    "s_addc_u32" [-, -, -, "s_add_co_ci_u32"]      S2,  "D = S0 + S1 + SCC; SCC = carry out";
    Sop2   [       0x005,     5,     5,     5] SSubbU32    "s_subb_u32" [-, -, -, "s_sub_co_ci_u32"]      S2,  "D = S0 - S1 - SCC; SCC = borrow";
    Sop2   [       0x01c,    30,     8,     8] SLshlB32    "s_lshl_b32"      S2,  "D = S0 << S1[4:0]; SCC = D != 0";
    Sop2   [       0x01d,    31,     9,     9] SLshlB64    "s_lshl_b64"      S2sh, "D.b64 = S0.b64 << S1[5:0]; SCC = D != 0";
    Sop2   [       0x01e,    32,    10,    10] SLshrB32    "s_lshr_b32"      S2,  "D = S0 >> S1[4:0]; SCC = D != 0";
    Sop2   [       0x01f,    33,    11,    11] SLshrB64    "s_lshr_b64"      S2sh, "D.b64 = S0.b64 >> S1[5:0]; SCC = D != 0";
    Sop2   [       0x020,    34,    12,    12] SAshrI32    "s_ashr_i32"      S2,  "D = S0.i32 >> S1[4:0]; SCC = D != 0";
    Sop2   [       0x021,    35,    13,    13] SAshrI64    "s_ashr_i64"      S2sh, "D.i64 = S0.i64 >> S1[5:0]; SCC = D != 0";
    Sop2   [       0x02e,    46,    14,    14] SLshl1AddU32 "s_lshl1_add_u32" S2, "D = (S0 << 1) + S1; SCC = result >= 2^32";
    Sop2   [       0x02f,    47,    15,    15] SLshl2AddU32 "s_lshl2_add_u32" S2, "D = (S0 << 2) + S1; SCC = result >= 2^32";
    Sop2   [       0x030,    48,    16,    16] SLshl3AddU32 "s_lshl3_add_u32" S2, "D = (S0 << 3) + S1; SCC = result >= 2^32";
    Sop2   [       0x031,    49,    17,    17] SLshl4AddU32 "s_lshl4_add_u32" S2, "D = (S0 << 4) + S1; SCC = result >= 2^32";
    Sop2   [       0x006,     6,    18,    18] SMinI32     "s_min_i32"       S2,  "D = min(S0.i32, S1.i32); SCC = S0 < S1";
    Sop2   [       0x007,     7,    19,    19] SMinU32     "s_min_u32"       S2,  "D = min(S0, S1); SCC = S0 < S1";
    Sop2   [       0x008,     8,    20,    20] SMaxI32     "s_max_i32"       S2,  "D = max(S0.i32, S1.i32); SCC = S0 > S1";
    Sop2   [       0x009,     9,    21,    21] SMaxU32     "s_max_u32"       S2,  "D = max(S0, S1); SCC = S0 > S1";
    Sop2   [       0x00c,    14,    22,    22] SAndB32     "s_and_b32"       S2,  "D = S0 & S1; SCC = D != 0";
    Sop2   [       0x00d,    15,    23,    23] SAndB64     "s_and_b64"       S2w, "D.b64 = S0 & S1; SCC = D != 0";
    Sop2   [       0x00e,    16,    24,    24] SOrB32      "s_or_b32"        S2,  "D = S0 | S1; SCC = D != 0";
    Sop2   [       0x00f,    17,    25,    25] SOrB64      "s_or_b64"        S2w, "D.b64 = S0 | S1; SCC = D != 0";
    Sop2   [       0x010,    18,    26,    26] SXorB32     "s_xor_b32"       S2,  "D = S0 ^ S1; SCC = D != 0";
    Sop2   [       0x011,    19,    27,    27] SXorB64     "s_xor_b64"       S2w, "D.b64 = S0 ^ S1; SCC = D != 0";
    Sop2   [       0x016,    24,    28,    28] SNandB32    "s_nand_b32"      S2,  "D = !(S0 & S1); SCC = D != 0";
    Sop2   [       0x017,    25,    29,    29] SNandB64    "s_nand_b64"      S2w, "D.b64 = !(S0 & S1); SCC = D != 0";
    Sop2   [       0x018,    26,    30,    30] SNorB32     "s_nor_b32"       S2,  "D = !(S0 | S1); SCC = D != 0";
    Sop2   [       0x019,    27,    31,    31] SNorB64     "s_nor_b64"       S2w, "D.b64 = !(S0 | S1); SCC = D != 0";
    Sop2   [       0x01a,    28,    32,    32] SXnorB32    "s_xnor_b32"      S2,  "D = !(S0 ^ S1); SCC = D != 0";
    Sop2   [       0x01b,    29,    33,    33] SXnorB64    "s_xnor_b64"      S2w, "D.b64 = !(S0 ^ S1); SCC = D != 0";
    Sop2   [       0x012,    20,    34,    34] SAndNot1B32 "s_and_not1_b32" ["s_andn2_b32", "s_andn2_b32", -, -]  S2,  "D = S0 & !S1; SCC = D != 0 (alias s_andn2_b32)";
    Sop2   [       0x013,    21,    35,    35] SAndNot1B64 "s_and_not1_b64" ["s_andn2_b64", "s_andn2_b64", -, -]  S2w, "D.b64 = S0 & !S1; SCC = D != 0 (alias s_andn2_b64)";
    Sop2   [       0x014,    22,    36,    36] SOrNot1B32  "s_or_not1_b32" ["s_orn2_b32", "s_orn2_b32", -, -]   S2,  "D = S0 | !S1; SCC = D != 0 (alias s_orn2_b32)";
    Sop2   [       0x015,    23,    37,    37] SOrNot1B64  "s_or_not1_b64" ["s_orn2_b64", "s_orn2_b64", -, -]   S2w, "D.b64 = S0 | !S1; SCC = D != 0 (alias s_orn2_b64)";
    Sop2   [       0x025,    39,    38,    38] SBfeU32     "s_bfe_u32"       S2,  "D = (S0 >> S1[4:0]) & mask(S1[22:16]); SCC = D != 0";
    Sop2   [       0x024,    38,    44,    44] SMulI32     "s_mul_i32"       S2,  "D = (S0 * S1)[31:0]";
    Sop2   [       0x02c,    53,    45,    45] SMulHiU32   "s_mul_hi_u32"    S2,  "D = (S0.u64 * S1.u64) >> 32";
    Sop2   [       0x00a,    10,    48,    48] SCselectB32 "s_cselect_b32"   S2,  "D = SCC ? S0 : S1";
    Sop2   [       0x00b,    11,    49,    49] SCselectB64 "s_cselect_b64"   S2w, "D.b64 = SCC ? S0 : S1";
    Sop2   [           -,     -,     -,    83] SAddNcU64   "s_add_nc_u64"    S2w, "D.u64 = S0.u64 + S1.u64 (wrapping; gfx12 only)";
    Sop2   [           -,     -,     -,    84] SSubNcU64   "s_sub_nc_u64"    S2w, "D.u64 = S0.u64 - S1.u64 (wrapping; gfx12 only)";
    Sop2   [       0x032,    50,    50,    50] SPackLlB32B16 "s_pack_ll_b32_b16" S2, "D = S1[15:0] << 16 | S0[15:0]";
    // ---- SOP1: D = f(S0) ----
    Sop1   [       0x000,     3,     0,     0] SMovB32     "s_mov_b32"       S1,  "D = S0";
    Sop1   [       0x001,     4,     1,     1] SMovB64     "s_mov_b64"       S1w, "D.b64 = S0.b64";
    Sop1   [       0x002,     5,     2,     2] SCmovB32    "s_cmov_b32"      S1,  "if SCC: D = S0";
    Sop1   [       0x003,     6,     3,     3] SCmovB64    "s_cmov_b64"      S1w, "if SCC: D.b64 = S0.b64";
    Sop1   [       0x008,    11,     4,     4] SBrevB32    "s_brev_b32"      S1,  "D = reverse_bits(S0)";
    Sop1   [       0x010,    19,     8,     8] SCtzI32B32  "s_ctz_i32_b32" ["s_ff1_i32_b32", "s_ff1_i32_b32", -, -]   S1,  "D = index of lowest set bit of S0, or -1";
    Sop1   [       0x016,    25,    14,    14] SSextI32I8  "s_sext_i32_i8"   S1,  "D = sign_extend(S0[7:0])";
    Sop1   [       0x017,    26,    15,    15] SSextI32I16 "s_sext_i32_i16"  S1,  "D = sign_extend(S0[15:0])";
    Sop1   [       0x030,    52,    21,    21] SAbsI32     "s_abs_i32"       S1,  "D = |S0.i32|; SCC = D != 0";
    Sop1   [       0x00c,    15,    24,    24] SBcnt1I32B32 "s_bcnt1_i32_b32" S1, "D = popcount(S0); SCC = D != 0";
    Sop1   [       0x004,     7,    30,    30] SNotB32     "s_not_b32"       S1,  "D = !S0; SCC = D != 0";
    Sop1   [       0x005,     8,    31,    31] SNotB64     "s_not_b64"       S1w, "D.b64 = !S0.b64; SCC = D != 0";
    Sop1   [           -,    60,    32,    32] SAndSaveexecB32 "s_and_saveexec_b32" S1, "D = EXEC_LO; EXEC_LO = S0 & EXEC_LO; SCC = EXEC_LO != 0";
    Sop1   [       0x020,    36,    33,    33] SAndSaveexecB64 "s_and_saveexec_b64" S1w, "D = EXEC; EXEC = S0 & EXEC; SCC = EXEC != 0";
    Sop1   [           -,    61,    34,    34] SOrSaveexecB32  "s_or_saveexec_b32"  S1, "D = EXEC_LO; EXEC_LO = S0 | EXEC_LO; SCC = EXEC_LO != 0";
    Sop1   [       0x021,    37,    35,    35] SOrSaveexecB64  "s_or_saveexec_b64"  S1w, "D = EXEC; EXEC = S0 | EXEC; SCC = EXEC != 0";
    Sop1   [           -,    62,    36,    36] SXorSaveexecB32 "s_xor_saveexec_b32" S1, "D = EXEC_LO; EXEC_LO = S0 ^ EXEC_LO; SCC = EXEC_LO != 0";
    Sop1   [       0x022,    38,    37,    37] SXorSaveexecB64 "s_xor_saveexec_b64" S1w, "D = EXEC; EXEC = S0 ^ EXEC; SCC = EXEC != 0";
    Sop1   [           -,    63,    48,    48] SAndNot1SaveexecB32 "s_and_not1_saveexec_b32" [-, "s_andn2_saveexec_b32", -, -] S1, "D = EXEC_LO; EXEC_LO = S0 & !EXEC_LO; SCC = EXEC_LO != 0";
    Sop1   [       0x023,    39,    49,    49] SAndNot1SaveexecB64 "s_and_not1_saveexec_b64" ["s_andn2_saveexec_b64", "s_andn2_saveexec_b64", -, -] S1w, "D = EXEC; EXEC = S0 & !EXEC; SCC = EXEC != 0";
    Sop1   [           -,    64,    50,    50] SOrNot1SaveexecB32 "s_or_not1_saveexec_b32" [-, "s_orn2_saveexec_b32", -, -] S1, "D = EXEC_LO; EXEC_LO = S0 | !EXEC_LO; SCC = EXEC_LO != 0";
    Sop1   [       0x024,    40,    51,    51] SOrNot1SaveexecB64 "s_or_not1_saveexec_b64" ["s_orn2_saveexec_b64", "s_orn2_saveexec_b64", -, -] S1w, "D = EXEC; EXEC = S0 | !EXEC; SCC = EXEC != 0";
    // ---- SOPC: SCC = f(S0, S1) ----
    Sopc   [       0x000,     0,     0,     0] SCmpEqI32   "s_cmp_eq_i32"    Sc,  "SCC = S0 == S1";
    Sopc   [       0x001,     1,     1,     1] SCmpLgI32   "s_cmp_lg_i32"    Sc,  "SCC = S0 != S1";
    Sopc   [       0x002,     2,     2,     2] SCmpGtI32   "s_cmp_gt_i32"    Sc,  "SCC = S0.i32 > S1.i32";
    Sopc   [       0x003,     3,     3,     3] SCmpGeI32   "s_cmp_ge_i32"    Sc,  "SCC = S0.i32 >= S1.i32";
    Sopc   [       0x004,     4,     4,     4] SCmpLtI32   "s_cmp_lt_i32"    Sc,  "SCC = S0.i32 < S1.i32";
    Sopc   [       0x005,     5,     5,     5] SCmpLeI32   "s_cmp_le_i32"    Sc,  "SCC = S0.i32 <= S1.i32";
    Sopc   [       0x006,     6,     6,     6] SCmpEqU32   "s_cmp_eq_u32"    Sc,  "SCC = S0 == S1";
    Sopc   [       0x007,     7,     7,     7] SCmpLgU32   "s_cmp_lg_u32"    Sc,  "SCC = S0 != S1";
    Sopc   [       0x008,     8,     8,     8] SCmpGtU32   "s_cmp_gt_u32"    Sc,  "SCC = S0 > S1";
    Sopc   [       0x009,     9,     9,     9] SCmpGeU32   "s_cmp_ge_u32"    Sc,  "SCC = S0 >= S1";
    Sopc   [       0x00a,    10,    10,    10] SCmpLtU32   "s_cmp_lt_u32"    Sc,  "SCC = S0 < S1";
    Sopc   [       0x00b,    11,    11,    11] SCmpLeU32   "s_cmp_le_u32"    Sc,  "SCC = S0 <= S1";
    Sopc   [       0x00c,    12,    12,    12] SBitcmp0B32 "s_bitcmp0_b32"   Sc,  "SCC = S0[S1[4:0]] == 0";
    Sopc   [       0x00d,    13,    13,    13] SBitcmp1B32 "s_bitcmp1_b32"   Sc,  "SCC = S0[S1[4:0]] == 1";
    Sopc   [       0x012,    18,    16,    16] SCmpEqU64   "s_cmp_eq_u64"    Scw, "SCC = S0.b64 == S1.b64";
    Sopc   [       0x013,    19,    17,    17] SCmpLgU64   "s_cmp_lg_u64"    Scw, "SCC = S0.b64 != S1.b64";
    // ---- SOPK: D / SCC from D and simm16 ----
    Sopk   [       0x000,     0,     0,     0] SMovkI32    "s_movk_i32"      K,   "D = sign_extend(simm16)";
    Sopk   [       0x001,     2,     2,     2] SCmovkI32   "s_cmovk_i32"     K,   "if SCC: D = sign_extend(simm16)";
    Sopk   [       0x002,     3,     3,     -] SCmpkEqI32  "s_cmpk_eq_i32"   K,   "SCC = D.i32 == sign_extend(simm16)";
    Sopk   [       0x003,     4,     4,     -] SCmpkLgI32  "s_cmpk_lg_i32"   K,   "SCC = D.i32 != sign_extend(simm16)";
    Sopk   [       0x004,     5,     5,     -] SCmpkGtI32  "s_cmpk_gt_i32"   K,   "SCC = D.i32 > sign_extend(simm16)";
    Sopk   [       0x005,     6,     6,     -] SCmpkGeI32  "s_cmpk_ge_i32"   K,   "SCC = D.i32 >= sign_extend(simm16)";
    Sopk   [       0x006,     7,     7,     -] SCmpkLtI32  "s_cmpk_lt_i32"   K,   "SCC = D.i32 < sign_extend(simm16)";
    Sopk   [       0x007,     8,     8,     -] SCmpkLeI32  "s_cmpk_le_i32"   K,   "SCC = D.i32 <= sign_extend(simm16)";
    Sopk   [       0x008,     9,     9,     -] SCmpkEqU32  "s_cmpk_eq_u32"   K,   "SCC = D == zero_extend(simm16)";
    Sopk   [       0x009,    10,    10,     -] SCmpkLgU32  "s_cmpk_lg_u32"   K,   "SCC = D != zero_extend(simm16)";
    Sopk   [       0x00a,    11,    11,     -] SCmpkGtU32  "s_cmpk_gt_u32"   K,   "SCC = D > zero_extend(simm16)";
    Sopk   [       0x00b,    12,    12,     -] SCmpkGeU32  "s_cmpk_ge_u32"   K,   "SCC = D >= zero_extend(simm16)";
    Sopk   [       0x00c,    13,    13,     -] SCmpkLtU32  "s_cmpk_lt_u32"   K,   "SCC = D < zero_extend(simm16)";
    Sopk   [       0x00d,    14,    14,     -] SCmpkLeU32  "s_cmpk_le_u32"   K,   "SCC = D <= zero_extend(simm16)";
    Sopk   [       0x00e,    15,    15,    15] SAddkI32    "s_addk_i32" [-, -, -, "s_addk_co_i32"]      K,   "D = D + sign_extend(simm16); SCC = signed overflow";
    Sopk   [       0x00f,    16,    16,    16] SMulkI32    "s_mulk_i32"      K,   "D = D * sign_extend(simm16)";
    Sopk   [       0x011,    18,    17,    17] SGetregB32  "s_getreg_b32"    K,   "D = bits [offset, offset + size) of hardware register id (simm16: id 5:0, offset 10:6, size - 1 15:11); only HW_ID (gfx9) and HW_ID1 (gfx10+), with emulated values (emu::hw_id)";
    Sopk   [       0x012,    19,    18,    18] SSetregB32  "s_setreg_b32"    SetReg, "bits [offset, offset + size) of hardware register id := S0 (the SGPR in the sdst field); only MODE, and only fields that change nothing the emulator runs (Generation::mode_register; emu/salu.rs)";
    Sopk   [       0x014,    21,    19,    19] SSetregImm32B32 "s_setreg_imm32_b32" SetReg, "as s_setreg_b32 with the 32-bit literal that follows as S0";
    Sopk   [           -,    23,    24,     -] SWaitcntVscnt "s_waitcnt_vscnt" KWait, "wait for vscnt <= simm16 (null sdst only); lands the stores it covers (emu/counters.rs)";
    Sopk   [           -,    24,    25,     -] SWaitcntVmcnt "s_waitcnt_vmcnt" KWait, "wait for vmcnt <= simm16 (null sdst only); lands the loads it covers";
    Sopk   [           -,    25,    26,     -] SWaitcntExpcnt "s_waitcnt_expcnt" KWait, "wait for expcnt <= simm16 (no exports here)";
    Sopk   [           -,    26,    27,     -] SWaitcntLgkmcnt "s_waitcnt_lgkmcnt" KWait, "wait for lgkmcnt <= simm16 (null sdst only); SMEM lands only at 0";
    // ---- SOPP ----
    Sopp   [       0x000,     0,     0,     0] SNop        "s_nop"           Nop, "no effect";
    Sopp   [       0x00e,    14,     3,     3] SSleep      "s_sleep"         Nop, "no effect";
    Sopp   [           -,    32,     4,     -] SSetInstPrefetchDistance "s_set_inst_prefetch_distance" [-, "s_inst_prefetch", -, -] Nop, "no effect";
    Sopp   [           -,    33,     5,     5] SClause     "s_clause"        Nop, "no effect";
    Sopp   [           -,     -,     -,     6] SSetVgprMsb "s_set_vgpr_msb" Nop, "bits 9:8 of the VGPR numbers of later instructions: simm16[1:0] src0 (FLAT/GLOBAL address), [3:2] src1 (store data), [5:4] src2, [7:6] vdst; [15:8] the previous setting, no effect (CDNA5 only, GFX1250_ONLY; resolved when the program is decoded, emu/program.rs)";
    Sopp   [           -,     -,     7,     7] SDelayAlu   "s_delay_alu"     Nop, "no effect (dependency hint)";
    Sopp   [           -,    35,     8,     8] SWaitcntDepctr "s_waitcnt_depctr" [-, -, -, "s_wait_alu"] Nop, "no effect";
    Sopp   [       0x00c,    12,     9,     9] SWaitcnt    "s_waitcnt"       Nop, "wait for vmcnt/expcnt/lgkmcnt <= their simm16 fields; lands the accesses covered (emu/counters.rs)";
    Sopp   [           -,    31,    31,    31] SCodeEnd    "s_code_end"      Control, "padding after the last kernel; executing it is an error";
    Sopp   [       0x002,     2,    32,    32] SBranch     "s_branch"        Branch, "PC = PC + 4 + simm16 * 4";
    Sopp   [       0x004,     4,    33,    33] SCbranchScc0 "s_cbranch_scc0" Branch, "if SCC == 0: branch";
    Sopp   [       0x005,     5,    34,    34] SCbranchScc1 "s_cbranch_scc1" Branch, "if SCC == 1: branch";
    Sopp   [       0x006,     6,    35,    35] SCbranchVccz "s_cbranch_vccz" Branch, "if VCC == 0: branch";
    Sopp   [       0x007,     7,    36,    36] SCbranchVccnz "s_cbranch_vccnz" Branch, "if VCC != 0: branch";
    Sopp   [       0x008,     8,    37,    37] SCbranchExecz "s_cbranch_execz" Branch, "if EXEC == 0: branch";
    Sopp   [       0x009,     9,    38,    38] SCbranchExecnz "s_cbranch_execnz" Branch, "if EXEC != 0: branch";
    Sopp   [       0x001,     1,    48,    48] SEndpgm     "s_endpgm"        Control, "end the wave";
    Sopp   [           -,     -,    54,    54] SSendmsg    "s_sendmsg"       Control, "only MSG_DEALLOC_VGPRS (3), which has no effect here";
    Sopp   [       0x00a,    10,    61,     -] SBarrier    "s_barrier"       Control, "wait until every wave of the workgroup arrives";
    // ---- SOPP waits of gfx12 (s_waitcnt's successors: one counter each) ----
    Sopp   [           -,    34,  0x0a,  0x0a] SWaitIdle   "s_wait_idle"     Nop, "wait for every counter to reach 0";
    Sopp   [           -,     -,     -,  0x40] SWaitLoadcnt "s_wait_loadcnt" Nop, "wait for loadcnt <= simm16; lands the loads covered";
    Sopp   [           -,     -,     -,  0x41] SWaitStorecnt "s_wait_storecnt" Nop, "wait for storecnt <= simm16";
    Sopp   [           -,     -,     -,  0x42] SWaitSamplecnt "s_wait_samplecnt" Nop, "no effect (no image sampling here)";
    Sopp   [           -,     -,     -,  0x43] SWaitBvhcnt "s_wait_bvhcnt"   Nop, "no effect (no BVH instructions here)";
    Sopp   [           -,     -,     -,  0x44] SWaitExpcnt "s_wait_expcnt"   Nop, "no effect (no exports here)";
    Sopp   [           -,     -,     -,  0x45] SWaitXcnt   "s_wait_xcnt"     Nop, "CDNA5 only: wait for xcnt <= simm16 (address translations of memory instructions; the rule is checked by emu/hazards/xcnt.rs)";
    Sopp   [           -,     -,     -,  0x46] SWaitDscnt  "s_wait_dscnt"    Nop, "no effect (no LDS/GDS here)";
    Sopp   [           -,     -,     -,  0x47] SWaitKmcnt  "s_wait_kmcnt"    Nop, "wait for kmcnt <= simm16; SMEM lands only at 0 (out of order)";
    Sopp   [           -,     -,     -,  0x48] SWaitLoadcntDscnt "s_wait_loadcnt_dscnt" Nop, "wait for loadcnt <= simm16[13:8] and dscnt <= simm16[5:0]";
    Sopp   [           -,     -,     -,  0x49] SWaitStorecntDscnt "s_wait_storecnt_dscnt" Nop, "wait for storecnt <= simm16[13:8] and dscnt <= simm16[5:0]";
    // ---- SMEM ----
    Smem   [       0x000,     0,     0,     0] SLoadB32    "s_load_b32" ["s_load_dword", "s_load_dword", -, -]      Load(1), "D = MEM[base + offset] (1 dword)";
    Smem   [       0x001,     1,     1,     1] SLoadB64    "s_load_b64" ["s_load_dwordx2", "s_load_dwordx2", -, -]      Load(2), "D = MEM[...] (2 dwords)";
    Smem   [       0x002,     2,     2,     2] SLoadB128   "s_load_b128" ["s_load_dwordx4", "s_load_dwordx4", -, -]     Load(4), "D = MEM[...] (4 dwords)";
    Smem   [       0x003,     3,     3,     3] SLoadB256   "s_load_b256" ["s_load_dwordx8", "s_load_dwordx8", -, -]     Load(8), "D = MEM[...] (8 dwords)";
    Smem   [       0x004,     4,     4,     4] SLoadB512   "s_load_b512" ["s_load_dwordx16", "s_load_dwordx16", -, -]     Load(16), "D = MEM[...] (16 dwords)";
    Smem   [           -,     -,     -,     5] SLoadB96    "s_load_b96"      Load(3), "D = MEM[...] (3 dwords)";
    // ---- VOP1 (VOP3 opcode 0x180 + op) ----
    Vop1   [       0x000,     0,     0,     0] VNop        "v_nop"           V1,  "no effect";
    Vop1   [       0x001,     1,     1,     1] VMovB32     "v_mov_b32"       V1,  "D = S0";
    Vop1   [       0x038,     -,     -,     -] VMovB64     "v_mov_b64"       Mov64, "D.b64 = S0.b64 (gfx940+ only)";
    Vop1   [       0x002,     2,     2,     2] VReadfirstlaneB32 "v_readfirstlane_b32" ToScalar1, "SDST = S0[first active lane] (lane 0 if EXEC == 0)";
    Vop1   [       0x02b,    55,    55,    55] VNotB32     "v_not_b32"       V1,  "D = !S0";
    Vop1   [       0x02c,    56,    56,    56] VBfrevB32   "v_bfrev_b32"     V1,  "D = reverse_bits(S0)";
    Vop1   [       0x02d,    57,    57,    57] VClzI32U32  "v_clz_i32_u32" ["v_ffbh_u32", "v_ffbh_u32", -, -]   V1,  "D = count of leading zeros of S0, or -1 if S0 == 0";
    Vop1   [       0x02e,    58,    58,    58] VCtzI32B32  "v_ctz_i32_b32" ["v_ffbl_b32", "v_ffbl_b32", -, -]   V1,  "D = count of trailing zeros of S0, or -1 if S0 == 0";
    // ---- VOP2 (VOP3 opcode 0x100 + op) ----
    Vop2   [       0x000,     1,     1,     1] VCndmaskB32 "v_cndmask_b32"   Cnd, "D = MASK[lane] ? S1 : S0 (MASK = VCC in e32, S2 in e64)";
    // gfx12 moved v_lshlrev_b64 from VOP3-only to VOP2 (llvm-mc-19/22 -mcpu=gfx1200:
    // `v_lshlrev_b64_e32 v[0:1], v2, v[4:5]` is 3E000902); LLVM 22's gfx12 code uses it
    // for every sign-extended index. Same semantics as the VOP3 row below.
    Vop2   [           -,     -,     -,  0x1f] VLshlrevB64E32 "v_lshlrev_b64" Sh64, "D.b64 = S1.b64 << S0[5:0]";
    Vop2   [       0x006,     9,     9,     9] VMulI32I24  "v_mul_i32_i24"   V2,  "D = sext(S0[23:0]) * sext(S1[23:0])";
    Vop2   [       0x007,    10,    10,    10] VMulHiI32I24 "v_mul_hi_i32_i24" V2, "D = (sext(S0[23:0]) * sext(S1[23:0])) >> 32";
    Vop2   [       0x008,    11,    11,    11] VMulU32U24  "v_mul_u32_u24"   V2,  "D = S0[23:0] * S1[23:0]";
    Vop2   [       0x009,    12,    12,    12] VMulHiU32U24 "v_mul_hi_u32_u24" V2, "D = (S0[23:0] * S1[23:0]) >> 32";
    Vop2   [       0x00c,    17,    17,    17] VMinI32     "v_min_i32"       V2,  "D = min(S0.i32, S1.i32)";
    Vop2   [       0x00d,    18,    18,    18] VMaxI32     "v_max_i32"       V2,  "D = max(S0.i32, S1.i32)";
    Vop2   [       0x00e,    19,    19,    19] VMinU32     "v_min_u32"       V2,  "D = min(S0, S1)";
    Vop2   [       0x00f,    20,    20,    20] VMaxU32     "v_max_u32"       V2,  "D = max(S0, S1)";
    Vop2   [       0x012,    26,    24,    24] VLshlrevB32 "v_lshlrev_b32"   V2,  "D = S1 << S0[4:0]";
    Vop2   [       0x010,    22,    25,    25] VLshrrevB32 "v_lshrrev_b32"   V2,  "D = S1 >> S0[4:0]";
    Vop2   [       0x011,    24,    26,    26] VAshrrevI32 "v_ashrrev_i32"   V2,  "D = S1.i32 >> S0[4:0]";
    Vop2   [       0x013,    27,    27,    27] VAndB32     "v_and_b32"       V2,  "D = S0 & S1";
    Vop2   [       0x014,    28,    28,    28] VOrB32      "v_or_b32"        V2,  "D = S0 | S1";
    Vop2   [       0x015,    29,    29,    29] VXorB32     "v_xor_b32"       V2,  "D = S0 ^ S1";
    Vop2   [       0x03d,    30,    30,    30] VXnorB32    "v_xnor_b32"      V2,  "D = !(S0 ^ S1)";
    Vop2   [       0x01c,    40,    32,    32] VAddCoCiU32 "v_add_co_ci_u32" ["v_addc_co_u32", -, -, -] Ci,  "D = S0 + S1 + CIN; COUT = carry";
    Vop2   [       0x01d,    41,    33,    33] VSubCoCiU32 "v_sub_co_ci_u32" ["v_subb_co_u32", -, -, -] Ci,  "D = S0 - S1 - CIN; COUT = borrow";
    Vop2   [       0x01e,    42,    34,    34] VSubrevCoCiU32 "v_subrev_co_ci_u32" ["v_subbrev_co_u32", -, -, -] Ci, "D = S1 - S0 - CIN; COUT = borrow";
    Vop2   [       0x034,    37,    37,    37] VAddNcU32   "v_add_nc_u32" ["v_add_u32", -, -, -]    V2,  "D = S0 + S1 (no carry out)";
    Vop2   [       0x035,    38,    38,    38] VSubNcU32   "v_sub_nc_u32" ["v_sub_u32", -, -, -]    V2,  "D = S0 - S1";
    Vop2   [       0x036,    39,    39,    39] VSubrevNcU32 "v_subrev_nc_u32" ["v_subrev_u32", -, -, -] V2, "D = S1 - S0";
    // ---- VOPC (VOP3 opcode 0x000 + op) ----
    Vopc   [       0x0c0,  0x80,  0x40,     -] VCmpFI32  "v_cmp_f_i32"     Cmp, "MASK = 0";
    Vopc   [       0x0c1,  0x81,  0x41,  0x41] VCmpLtI32 "v_cmp_lt_i32"    Cmp, "MASK[lane] = S0.i32 < S1.i32";
    Vopc   [       0x0c2,  0x82,  0x42,  0x42] VCmpEqI32 "v_cmp_eq_i32"    Cmp, "MASK[lane] = S0 == S1";
    Vopc   [       0x0c3,  0x83,  0x43,  0x43] VCmpLeI32 "v_cmp_le_i32"    Cmp, "MASK[lane] = S0.i32 <= S1.i32";
    Vopc   [       0x0c4,  0x84,  0x44,  0x44] VCmpGtI32 "v_cmp_gt_i32"    Cmp, "MASK[lane] = S0.i32 > S1.i32";
    Vopc   [       0x0c5,  0x85,  0x45,  0x45] VCmpNeI32 "v_cmp_ne_i32"    Cmp, "MASK[lane] = S0 != S1";
    Vopc   [       0x0c6,  0x86,  0x46,  0x46] VCmpGeI32 "v_cmp_ge_i32"    Cmp, "MASK[lane] = S0.i32 >= S1.i32";
    Vopc   [       0x0c7,  0x87,  0x47,     -] VCmpTI32  "v_cmp_t_i32"     Cmp, "MASK[lane] = 1";
    Vopc   [       0x0c8,  0xc0,  0x48,     -] VCmpFU32  "v_cmp_f_u32"     Cmp, "MASK = 0";
    Vopc   [       0x0c9,  0xc1,  0x49,  0x49] VCmpLtU32 "v_cmp_lt_u32"    Cmp, "MASK[lane] = S0 < S1";
    Vopc   [       0x0ca,  0xc2,  0x4a,  0x4a] VCmpEqU32 "v_cmp_eq_u32"    Cmp, "MASK[lane] = S0 == S1";
    Vopc   [       0x0cb,  0xc3,  0x4b,  0x4b] VCmpLeU32 "v_cmp_le_u32"    Cmp, "MASK[lane] = S0 <= S1";
    Vopc   [       0x0cc,  0xc4,  0x4c,  0x4c] VCmpGtU32 "v_cmp_gt_u32"    Cmp, "MASK[lane] = S0 > S1";
    Vopc   [       0x0cd,  0xc5,  0x4d,  0x4d] VCmpNeU32 "v_cmp_ne_u32"    Cmp, "MASK[lane] = S0 != S1";
    Vopc   [       0x0ce,  0xc6,  0x4e,  0x4e] VCmpGeU32 "v_cmp_ge_u32"    Cmp, "MASK[lane] = S0 >= S1";
    Vopc   [       0x0cf,  0xc7,  0x4f,     -] VCmpTU32  "v_cmp_t_u32"     Cmp, "MASK[lane] = 1";
    Vopc   [       0x0e1,  0xa1,  0x51,  0x51] VCmpLtI64 "v_cmp_lt_i64"    Cmpw, "MASK[lane] = S0.i64 < S1.i64";
    Vopc   [       0x0e2,  0xa2,  0x52,  0x52] VCmpEqI64 "v_cmp_eq_i64"    Cmpw, "MASK[lane] = S0.i64 == S1.i64";
    Vopc   [       0x0e3,  0xa3,  0x53,  0x53] VCmpLeI64 "v_cmp_le_i64"    Cmpw, "MASK[lane] = S0.i64 <= S1.i64";
    Vopc   [       0x0e4,  0xa4,  0x54,  0x54] VCmpGtI64 "v_cmp_gt_i64"    Cmpw, "MASK[lane] = S0.i64 > S1.i64";
    Vopc   [       0x0e5,  0xa5,  0x55,  0x55] VCmpNeI64 "v_cmp_ne_i64"    Cmpw, "MASK[lane] = S0.i64 != S1.i64";
    Vopc   [       0x0e6,  0xa6,  0x56,  0x56] VCmpGeI64 "v_cmp_ge_i64"    Cmpw, "MASK[lane] = S0.i64 >= S1.i64";
    Vopc   [       0x0e9,  0xe1,  0x59,  0x59] VCmpLtU64 "v_cmp_lt_u64"    Cmpw, "MASK[lane] = S0.u64 < S1.u64";
    Vopc   [       0x0ea,  0xe2,  0x5a,  0x5a] VCmpEqU64 "v_cmp_eq_u64"    Cmpw, "MASK[lane] = S0.u64 == S1.u64";
    Vopc   [       0x0eb,  0xe3,  0x5b,  0x5b] VCmpLeU64 "v_cmp_le_u64"    Cmpw, "MASK[lane] = S0.u64 <= S1.u64";
    Vopc   [       0x0ec,  0xe4,  0x5c,  0x5c] VCmpGtU64 "v_cmp_gt_u64"    Cmpw, "MASK[lane] = S0.u64 > S1.u64";
    Vopc   [       0x0ed,  0xe5,  0x5d,  0x5d] VCmpNeU64 "v_cmp_ne_u64"    Cmpw, "MASK[lane] = S0.u64 != S1.u64";
    Vopc   [       0x0ee,  0xe6,  0x5e,  0x5e] VCmpGeU64 "v_cmp_ge_u64"    Cmpw, "MASK[lane] = S0.u64 >= S1.u64";
    Vopc   [       0x0d0,  0x90,  0xc0,     -] VCmpxFI32  "v_cmpx_f_i32"   Cmpx, "EXEC = 0";
    Vopc   [       0x0d1,  0x91,  0xc1,  0xc1] VCmpxLtI32 "v_cmpx_lt_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0.i32 < S1.i32)";
    Vopc   [       0x0d2,  0x92,  0xc2,  0xc2] VCmpxEqI32 "v_cmpx_eq_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 == S1)";
    Vopc   [       0x0d3,  0x93,  0xc3,  0xc3] VCmpxLeI32 "v_cmpx_le_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0.i32 <= S1.i32)";
    Vopc   [       0x0d4,  0x94,  0xc4,  0xc4] VCmpxGtI32 "v_cmpx_gt_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0.i32 > S1.i32)";
    Vopc   [       0x0d5,  0x95,  0xc5,  0xc5] VCmpxNeI32 "v_cmpx_ne_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 != S1)";
    Vopc   [       0x0d6,  0x96,  0xc6,  0xc6] VCmpxGeI32 "v_cmpx_ge_i32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0.i32 >= S1.i32)";
    Vopc   [       0x0d7,  0x97,  0xc7,     -] VCmpxTI32  "v_cmpx_t_i32"   Cmpx, "EXEC unchanged";
    Vopc   [       0x0d8,  0xd0,  0xc8,     -] VCmpxFU32  "v_cmpx_f_u32"   Cmpx, "EXEC = 0";
    Vopc   [       0x0d9,  0xd1,  0xc9,  0xc9] VCmpxLtU32 "v_cmpx_lt_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 < S1)";
    Vopc   [       0x0da,  0xd2,  0xca,  0xca] VCmpxEqU32 "v_cmpx_eq_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 == S1)";
    Vopc   [       0x0db,  0xd3,  0xcb,  0xcb] VCmpxLeU32 "v_cmpx_le_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 <= S1)";
    Vopc   [       0x0dc,  0xd4,  0xcc,  0xcc] VCmpxGtU32 "v_cmpx_gt_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 > S1)";
    Vopc   [       0x0dd,  0xd5,  0xcd,  0xcd] VCmpxNeU32 "v_cmpx_ne_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 != S1)";
    Vopc   [       0x0de,  0xd6,  0xce,  0xce] VCmpxGeU32 "v_cmpx_ge_u32"  Cmpx, "EXEC[lane] = EXEC[lane] & (S0 >= S1)";
    Vopc   [       0x0df,  0xd7,  0xcf,     -] VCmpxTU32  "v_cmpx_t_u32"   Cmpx, "EXEC unchanged";
    Vopc   [       0x0f9,  0xf1,  0xd9,  0xd9] VCmpxLtU64 "v_cmpx_lt_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 < S1.u64)";
    Vopc   [       0x0fa,  0xf2,  0xda,  0xda] VCmpxEqU64 "v_cmpx_eq_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 == S1.u64)";
    Vopc   [       0x0fd,  0xf5,  0xdd,  0xdd] VCmpxNeU64 "v_cmpx_ne_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 != S1.u64)";
    Vopc   [       0x0fb,  0xf3,  0xdb,  0xdb] VCmpxLeU64 "v_cmpx_le_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 <= S1.u64)";
    Vopc   [       0x0fc,  0xf4,  0xdc,  0xdc] VCmpxGtU64 "v_cmpx_gt_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 > S1.u64)";
    Vopc   [       0x0fe,  0xf6,  0xde,  0xde] VCmpxGeU64 "v_cmpx_ge_u64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.u64 >= S1.u64)";
    Vopc   [       0x0f1,  0xb1,  0xd1,  0xd1] VCmpxLtI64 "v_cmpx_lt_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 < S1.i64)";
    Vopc   [       0x0f2,  0xb2,  0xd2,  0xd2] VCmpxEqI64 "v_cmpx_eq_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 == S1.i64)";
    Vopc   [       0x0f3,  0xb3,  0xd3,  0xd3] VCmpxLeI64 "v_cmpx_le_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 <= S1.i64)";
    Vopc   [       0x0f4,  0xb4,  0xd4,  0xd4] VCmpxGtI64 "v_cmpx_gt_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 > S1.i64)";
    Vopc   [       0x0f5,  0xb5,  0xd5,  0xd5] VCmpxNeI64 "v_cmpx_ne_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 != S1.i64)";
    Vopc   [       0x0f6,  0xb6,  0xd6,  0xd6] VCmpxGeI64 "v_cmpx_ge_i64"  Cmpxw, "EXEC[lane] = EXEC[lane] & (S0.i64 >= S1.i64)";
    // ---- VOP3 only ----
    Vop3   [       0x1c2, 0x142, 0x20a, 0x20a] VMadI32I24 "v_mad_i32_i24" V3,  "D = sext(S0[23:0]) * sext(S1[23:0]) + S2";
    Vop3   [       0x1c3, 0x143, 0x20b, 0x20b] VMadU32U24 "v_mad_u32_u24" V3,  "D = S0[23:0] * S1[23:0] + S2";
    Vop3   [       0x1c8, 0x148, 0x210, 0x210] VBfeU32  "v_bfe_u32"       V3,  "D = (S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1)";
    Vop3   [       0x1c9, 0x149, 0x211, 0x211] VBfeI32  "v_bfe_i32"       V3,  "D = sign_extend((S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1), S2[4:0] bits)";
    Vop3   [       0x1ca, 0x14a, 0x212, 0x212] VBfiB32  "v_bfi_b32"       V3,  "D = (S0 & S1) | (!S0 & S2)";
    Vop3   [       0x1ce, 0x14e, 0x216, 0x216] VAlignbitB32 "v_alignbit_b32" V3, "D = ({S0, S1} >> S2[4:0])[31:0]";
    Vop3   [       0x1cf, 0x14f, 0x217, 0x217] VAlignbyteB32 "v_alignbyte_b32" V3, "D = ({S0, S1} >> (8 * S2[1:0]))[31:0]";
    Vop3   [       0x1d1, 0x152, 0x21a, 0x21a] VMin3I32 "v_min3_i32"      V3,  "D = min(S0, S1, S2) (signed)";
    Vop3   [       0x1d2, 0x153, 0x21b, 0x21b] VMin3U32 "v_min3_u32"      V3,  "D = min(S0, S1, S2)";
    Vop3   [       0x1d4, 0x155, 0x21d, 0x21d] VMax3I32 "v_max3_i32"      V3,  "D = max(S0, S1, S2) (signed)";
    Vop3   [       0x1d5, 0x156, 0x21e, 0x21e] VMax3U32 "v_max3_u32"      V3,  "D = max(S0, S1, S2)";
    Vop3   [       0x1d7, 0x158, 0x220, 0x220] VMed3I32 "v_med3_i32"      V3,  "D = median(S0, S1, S2) (signed)";
    Vop3   [       0x1d8, 0x159, 0x221, 0x221] VMed3U32 "v_med3_u32"      V3,  "D = median(S0, S1, S2)";
    Vop3   [       0x1dc, 0x15d, 0x225, 0x225] VSadU32  "v_sad_u32"       V3,  "D = |S0 - S1| + S2";
    Vop3   [           -, 0x178, 0x240, 0x240] VXor3B32 "v_xor3_b32"      V3,  "D = S0 ^ S1 ^ S2";
    Vop3   [       0x1ed, 0x344, 0x244, 0x244] VPermB32 "v_perm_b32"      V3,  "D.byte[i] = select({S0, S1}, S2.byte[i]) (0-7 byte, 8-11 sign fill, 12 zero, 13+ 0xff)";
    Vop3   [       0x1f3, 0x345, 0x245, 0x245] VXadU32  "v_xad_u32"       V3,  "D = (S0 ^ S1) + S2 (wrapping, no carry out)";
    Vop3   [       0x1fd, 0x346, 0x246, 0x246] VLshlAddU32 "v_lshl_add_u32" V3, "D = (S0 << S1[4:0]) + S2";
    Vop3   [       0x1fe, 0x347, 0x247, 0x247] VAddLshlU32 "v_add_lshl_u32" V3, "D = (S0 + S1) << S2[4:0]";
    Vop3   [       0x1ff, 0x36d, 0x255, 0x255] VAdd3U32 "v_add3_u32"      V3,  "D = S0 + S1 + S2";
    Vop3   [       0x200, 0x36f, 0x256, 0x256] VLshlOrB32 "v_lshl_or_b32" V3,  "D = (S0 << S1[4:0]) | S2";
    Vop3   [       0x201, 0x371, 0x257, 0x257] VAndOrB32 "v_and_or_b32"   V3,  "D = (S0 & S1) | S2";
    Vop3   [       0x202, 0x372, 0x258, 0x258] VOr3B32  "v_or3_b32"       V3,  "D = S0 | S1 | S2";
    Vop3   [       0x1e8, 0x176, 0x2fe, 0x2fe] VMadU64U32 "v_mad_u64_u32" [-, -, -, "v_mad_co_u64_u32"] Mad64, "D.u64 = S0 * S1 + S2.u64; SDST[lane] = carry out";
    Vop3   [       0x1e9, 0x177, 0x2ff, 0x2ff] VMadI64I32 "v_mad_i64_i32" [-, -, -, "v_mad_co_i64_i32"] Mad64, "D.i64 = S0.i32 * S1.i32 + S2.i64; SDST[lane] = signed overflow";
    Vop3   [(Vop2 0x019), 0x30f, 0x300, 0x300] VAddCoU32 "v_add_co_u32"   Co,  "D = S0 + S1; SDST[lane] = carry out";
    Vop3   [(Vop2 0x01a), 0x310, 0x301, 0x301] VSubCoU32 "v_sub_co_u32"   Co,  "D = S0 - S1; SDST[lane] = borrow";
    Vop3   [(Vop2 0x01b), 0x319, 0x302, 0x302] VSubrevCoU32 "v_subrev_co_u32" Co, "D = S1 - S0; SDST[lane] = borrow";
    Vop3   [       0x28b, 0x364, 0x31e, 0x31e] VBcntU32B32 "v_bcnt_u32_b32" V2, "D = popcount(S0) + S1";
    Vop3   [       0x28c, 0x365, 0x31f, 0x31f] VMbcntLoU32B32 "v_mbcnt_lo_u32_b32" V2, "D = popcount(S0 & lanes_below[31:0]) + S1";
    Vop3   [       0x28d, 0x366, 0x320, 0x320] VMbcntHiU32B32 "v_mbcnt_hi_u32_b32" V2, "D = popcount(S0 & lanes_below[63:32]) + S1";
    Vop3   [       0x285, 0x169, 0x32c, 0x32c] VMulLoU32 "v_mul_lo_u32"   V2,  "D = (S0 * S1)[31:0]";
    Vop3   [       0x286, 0x16a, 0x32d, 0x32d] VMulHiU32 "v_mul_hi_u32"   V2,  "D = (S0.u64 * S1.u64) >> 32";
    Vop3   [       0x287, 0x16c, 0x32e, 0x32e] VMulHiI32 "v_mul_hi_i32"   V2,  "D = (S0.i64 * S1.i64) >> 32";
    Vop3   [       0x28f, 0x2ff, 0x33c,     -] VLshlrevB64 "v_lshlrev_b64" Sh64, "D.b64 = S1.b64 << S0[5:0]";
    Vop3   [       0x290, 0x300, 0x33d, 0x33d] VLshrrevB64 "v_lshrrev_b64" Sh64, "D.b64 = S1.b64 >> S0[5:0]";
    Vop3   [       0x291, 0x301, 0x33e, 0x33e] VAshrrevI64 "v_ashrrev_i64" Sh64, "D.i64 = S1.i64 >> S0[5:0]";
    // VOP3P on gfx9 sits in the VOP3 space from 0x380 (v_pk_mov_b32 is VOP3P 0x33).
    Vop3   [       0x3b3,     -,     -,     -] VPkMovB32 "v_pk_mov_b32" PkMov, "D.b32[0] = S0.b32[OPSEL[0]]; D.b32[1] = S1.b32[OPSEL[1]] (gfx90a+ only)";
    Vop3   [       0x208,     -,     -,     -] VLshlAddU64 "v_lshl_add_u64" LshlAdd64, "D.u64 = (S0.u64 << S1[2:0]) + S2.u64 (wrapping; gfx940+ only)";
    Vop3   [       0x289, 0x360, 0x360, 0x360] VReadlaneB32 "v_readlane_b32" ToScalar2, "SDST = S0[S1 mod wave size]";
    Vop3   [       0x28a, 0x361, 0x361, 0x361] VWritelaneB32 "v_writelane_b32" WriteLane, "D[S1 mod wave size] = S0 (ignores EXEC)";
    // ---- FLAT / GLOBAL (opcode in bits 24:18; same numbers in both segments) ----
    Global [       0x010,     8,    16,    16] GlobalLoadU8   "global_load_u8" ["global_load_ubyte", "global_load_ubyte", -, -]    MemLoad(1),  "D = zero_extend(MEM.u8[addr])";
    Global [       0x011,     9,    17,    17] GlobalLoadI8   "global_load_i8" ["global_load_sbyte", "global_load_sbyte", -, -]    MemLoad(1),  "D = sign_extend(MEM.i8[addr])";
    Global [       0x012,    10,    18,    18] GlobalLoadU16  "global_load_u16" ["global_load_ushort", "global_load_ushort", -, -]   MemLoad(2),  "D = zero_extend(MEM.u16[addr])";
    Global [       0x013,    11,    19,    19] GlobalLoadI16  "global_load_i16" ["global_load_sshort", "global_load_sshort", -, -]   MemLoad(2),  "D = sign_extend(MEM.i16[addr])";
    Global [       0x014,    12,    20,    20] GlobalLoadB32  "global_load_b32" ["global_load_dword", "global_load_dword", -, -]   MemLoad(4),  "D = MEM.b32[addr]";
    Global [       0x015,    13,    21,    21] GlobalLoadB64  "global_load_b64" ["global_load_dwordx2", "global_load_dwordx2", -, -]   MemLoad(8),  "D[0:1] = MEM.b64[addr]";
    Global [       0x016,    15,    22,    22] GlobalLoadB96  "global_load_b96" ["global_load_dwordx3", "global_load_dwordx3", -, -]   MemLoad(12), "D[0:2] = MEM.b96[addr]";
    Global [       0x017,    14,    23,    23] GlobalLoadB128 "global_load_b128" ["global_load_dwordx4", "global_load_dwordx4", -, -]  MemLoad(16), "D[0:3] = MEM.b128[addr]";
    Global [       0x018,    24,    24,    24] GlobalStoreB8  "global_store_b8" ["global_store_byte", "global_store_byte", -, -]   MemStore(1), "MEM.u8[addr] = DATA[7:0]";
    Global [       0x01a,    26,    25,    25] GlobalStoreB16 "global_store_b16" ["global_store_short", "global_store_short", -, -]  MemStore(2), "MEM.u16[addr] = DATA[15:0]";
    Global [       0x01c,    28,    26,    26] GlobalStoreB32 "global_store_b32" ["global_store_dword", "global_store_dword", -, -]  MemStore(4), "MEM.b32[addr] = DATA";
    Global [       0x01d,    29,    27,    27] GlobalStoreB64 "global_store_b64" ["global_store_dwordx2", "global_store_dwordx2", -, -]  MemStore(8), "MEM.b64[addr] = DATA[0:1]";
    Global [       0x01e,    31,    28,    28] GlobalStoreB96 "global_store_b96" ["global_store_dwordx3", "global_store_dwordx3", -, -]  MemStore(12), "MEM.b96[addr] = DATA[0:2]";
    Global [       0x01f,    30,    29,    29] GlobalStoreB128 "global_store_b128" ["global_store_dwordx4", "global_store_dwordx4", -, -] MemStore(16), "MEM.b128[addr] = DATA[0:3]";
    Flat   [       0x010,     8,    16,    16] FlatLoadU8   "flat_load_u8" ["flat_load_ubyte", "flat_load_ubyte", -, -]    MemLoad(1),  "as global_load_u8 (flat addresses are global addresses here)";
    Flat   [       0x011,     9,    17,    17] FlatLoadI8   "flat_load_i8" ["flat_load_sbyte", "flat_load_sbyte", -, -]    MemLoad(1),  "as global_load_i8";
    Flat   [       0x012,    10,    18,    18] FlatLoadU16  "flat_load_u16" ["flat_load_ushort", "flat_load_ushort", -, -]   MemLoad(2),  "as global_load_u16";
    Flat   [       0x013,    11,    19,    19] FlatLoadI16  "flat_load_i16" ["flat_load_sshort", "flat_load_sshort", -, -]   MemLoad(2),  "as global_load_i16";
    Flat   [       0x014,    12,    20,    20] FlatLoadB32  "flat_load_b32" ["flat_load_dword", "flat_load_dword", -, -]   MemLoad(4),  "as global_load_b32";
    Flat   [       0x015,    13,    21,    21] FlatLoadB64  "flat_load_b64" ["flat_load_dwordx2", "flat_load_dwordx2", -, -]   MemLoad(8),  "as global_load_b64";
    Flat   [       0x016,    15,    22,    22] FlatLoadB96  "flat_load_b96" ["flat_load_dwordx3", "flat_load_dwordx3", -, -]   MemLoad(12), "as global_load_b96";
    Flat   [       0x017,    14,    23,    23] FlatLoadB128 "flat_load_b128" ["flat_load_dwordx4", "flat_load_dwordx4", -, -]  MemLoad(16), "as global_load_b128";
    Flat   [       0x018,    24,    24,    24] FlatStoreB8  "flat_store_b8" ["flat_store_byte", "flat_store_byte", -, -]   MemStore(1), "as global_store_b8";
    Flat   [       0x01a,    26,    25,    25] FlatStoreB16 "flat_store_b16" ["flat_store_short", "flat_store_short", -, -]  MemStore(2), "as global_store_b16";
    Flat   [       0x01c,    28,    26,    26] FlatStoreB32 "flat_store_b32" ["flat_store_dword", "flat_store_dword", -, -]  MemStore(4), "as global_store_b32";
    Flat   [       0x01d,    29,    27,    27] FlatStoreB64 "flat_store_b64" ["flat_store_dwordx2", "flat_store_dwordx2", -, -]  MemStore(8), "as global_store_b64";
    Flat   [       0x01e,    31,    28,    28] FlatStoreB96 "flat_store_b96" ["flat_store_dwordx3", "flat_store_dwordx3", -, -]  MemStore(12), "as global_store_b96";
    Flat   [       0x01f,    30,    29,    29] FlatStoreB128 "flat_store_b128" ["flat_store_dwordx4", "flat_store_dwordx4", -, -] MemStore(16), "as global_store_b128";
}

/// Ops of the gfx9 column that exist only where the target has LLVM's
/// `FeatureGFX940Insts` ([`super::Isa::gfx940_insts`]): elsewhere their
/// encodings are not instructions, so the decoder refuses them instead of
/// running them.
pub const GFX940_ONLY: &[Op] = &[Op::VLshlAddU64, Op::VMovB64];

/// Ops of the gfx9 column that exist only where the target has LLVM's
/// `FeatureGFX90AInsts` ([`super::Isa::gfx90a_insts`]: gfx90a and gfx940+,
/// not gfx908 or gfx9-generic), refused elsewhere like [`GFX940_ONLY`].
pub const GFX90A_ONLY: &[Op] = &[Op::VPkMovB32];

/// Ops of the gfx12 column that exist only where the [`super::Isa`] has
/// `gfx1250_insts` (CDNA5): on gfx1200/gfx1201 the same bits are no
/// instruction (llvm-objdump-22 prints `BF860041` as `.long` there), so the
/// decoder refuses them.
pub const GFX1250_ONLY: &[Op] = &[Op::SSetVgprMsb, Op::SWaitXcnt];

/// Ops of the gfx12 column that CDNA5 dropped: llvm-mc-22 refuses them for
/// gfx1250 and llvm-objdump-22 prints their bytes as `.long` there (legacy
/// `s_waitcnt`, and the export, sample and BVH counters CDNA5 has none of),
/// so the decoder refuses them where the Isa has `gfx1250_insts`.
pub const NOT_ON_GFX1250: &[Op] = &[
    Op::SWaitcnt,
    Op::SWaitExpcnt,
    Op::SWaitSamplecnt,
    Op::SWaitBvhcnt,
];

/// The mnemonic `generation`'s assembler prints for `op`.
pub fn mnemonic(op: Op, generation: Generation) -> &'static str {
    let row = info(op);
    row.names[generation.index()].unwrap_or(row.mnemonic)
}

/// The row whose `generation` encoding is `opcode` in `format`, if supported.
pub fn lookup(generation: Generation, format: Format, opcode: u16) -> Option<&'static OpInfo> {
    let wanted = Some(Encoding { format, opcode });
    TABLE.iter().find(|row| row.encoding(generation) == wanted)
}

/// The row of `op`.
pub fn info(op: Op) -> &'static OpInfo {
    // Op variants are declared in table order, so the discriminant is the index.
    &TABLE[op as usize]
}

/// Loads with sign extension (the `_i8`/`_i16` rows).
pub fn load_sign_extends(op: Op) -> bool {
    matches!(
        op,
        Op::GlobalLoadI8 | Op::GlobalLoadI16 | Op::FlatLoadI8 | Op::FlatLoadI16
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_discriminants_index_the_table() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.op as usize, i, "{}", row.mnemonic);
            assert_eq!(info(row.op).mnemonic, row.mnemonic);
        }
    }
}
