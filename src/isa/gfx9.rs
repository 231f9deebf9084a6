//! gfx9 (GCN5 and CDNA1-3: gfx908, gfx90a, gfx942) machine code: the opcode
//! column, the field layouts that differ from gfx10+, and the operand
//! spellings LLVM prints for them. A file of its own so the gfx9 decoder and
//! the gfx10/gfx11 ones share only [`Inst`], the op table's semantics and the
//! operand values.
//!
//! Why a separate opcode list instead of the table's gfx9 column: on gfx9 an
//! op can live in a different format than on gfx11 (`v_add_co_u32` is a VOP2
//! op writing VCC on gfx9, VOP3-only on gfx11), so each entry names its gfx9
//! format, number and spelling. The numbers were read off
//! `llvm-mc-19 -triple=amdgcn -mcpu=gfx90a -show-encoding` (LLVM 19.1.7; gfx942
//! and gfx908 encode every listed op alike); `tests/isa_decode_gfx9.rs` checks
//! every entry against the assembler's bytes.
//!
//! Layouts (LLVM's `SIInstrFormats.td`/`SMInstructions.td`, checked against
//! llvm-mc): SOP*, VOP1/VOP2/VOPC and the VOP3 dwords sit where gfx10+ puts
//! them, but VOP3 numbers VOP1 ops from 0x140 (not 0x180) and has no literal;
//! SMEM is `110000` with imm/soe bits and a 21-bit signed offset; FLAT/GLOBAL
//! use seg (bits 15:14) and a 13-bit offset, with saddr 0x7f meaning `off`. Operand
//! codes: m0 is 124 (decoded to the gfx10+ index [`M0`] so the emulator sees
//! one register file), 102-105 are flat_scratch and xnack_mask, there is no
//! `null`. DPP has only DPP16-style words, with gfx9's wave-wide controls;
//! SDWA is refused.
//!
//! Per target inside gfx9: `v_lshl_add_u64` (opcode 0x208, LLVM's
//! GFX940Insts) decodes only where [`Isa::gfx940_insts`] is set (gfx942,
//! gfx950, gfx9-4-generic); on gfx908, gfx90a and gfx9-generic those bits are
//! no instruction and decode to a [`DecodeError`] ([`GFX940_ONLY`]).
//!
//! `v_cmpx_*` on gfx9 writes its lane mask to EXEC and to an SGPR pair (VCC
//! in VOPC, any pair in VOP3), where gfx10+ writes EXEC only (Vega ISA
//! "VOPC Instructions": "v_cmpx_* write the result to EXEC and to VCC or the
//! SGPR destination"): decoded as the gfx10+ op with `sdst` EXEC and the
//! pair in `dst` ([`Inst::cmpx_sgpr_dst`]).
//!
//! Not decoded (a [`DecodeError`], never a guess): `s_sendmsg`
//! (its message numbers differ), SDWA, scratch, LDS-direct and the
//! shared/private aperture sources, AGPR data (gfx90a's acc bit).

use super::decode::{DecodeError, Enc, Inst};
use super::operand::{inline_constant, pair_name, reg_name, Dpp, Src, EXEC, M0, VCC};
use super::table::{self, Format, Op, OpInfo, Shape};
use super::{Generation, Isa};

use Format::*;
use Op::*;

/// (gfx9 format, gfx9 opcode, op, gfx9 mnemonic), generated from
/// `tests/kernels/emu/gfx9/ops.part` with llvm-mc-19 -mcpu=gfx90a.
pub static OPCODES: &[(Format, u16, Op, &str)] = &[
    (Sop2, 0x000, SAddU32, "s_add_u32"),
    (Sop2, 0x001, SSubU32, "s_sub_u32"),
    (Sop2, 0x002, SAddI32, "s_add_i32"),
    (Sop2, 0x003, SSubI32, "s_sub_i32"),
    (Sop2, 0x004, SAddcU32, "s_addc_u32"),
    (Sop2, 0x005, SSubbU32, "s_subb_u32"),
    (Sop2, 0x01c, SLshlB32, "s_lshl_b32"),
    (Sop2, 0x01d, SLshlB64, "s_lshl_b64"),
    (Sop2, 0x01e, SLshrB32, "s_lshr_b32"),
    (Sop2, 0x01f, SLshrB64, "s_lshr_b64"),
    (Sop2, 0x020, SAshrI32, "s_ashr_i32"),
    (Sop2, 0x021, SAshrI64, "s_ashr_i64"),
    (Sop2, 0x02e, SLshl1AddU32, "s_lshl1_add_u32"),
    (Sop2, 0x02f, SLshl2AddU32, "s_lshl2_add_u32"),
    (Sop2, 0x030, SLshl3AddU32, "s_lshl3_add_u32"),
    (Sop2, 0x031, SLshl4AddU32, "s_lshl4_add_u32"),
    (Sop2, 0x006, SMinI32, "s_min_i32"),
    (Sop2, 0x007, SMinU32, "s_min_u32"),
    (Sop2, 0x008, SMaxI32, "s_max_i32"),
    (Sop2, 0x009, SMaxU32, "s_max_u32"),
    (Sop2, 0x00c, SAndB32, "s_and_b32"),
    (Sop2, 0x00d, SAndB64, "s_and_b64"),
    (Sop2, 0x00e, SOrB32, "s_or_b32"),
    (Sop2, 0x00f, SOrB64, "s_or_b64"),
    (Sop2, 0x010, SXorB32, "s_xor_b32"),
    (Sop2, 0x011, SXorB64, "s_xor_b64"),
    (Sop2, 0x016, SNandB32, "s_nand_b32"),
    (Sop2, 0x017, SNandB64, "s_nand_b64"),
    (Sop2, 0x018, SNorB32, "s_nor_b32"),
    (Sop2, 0x019, SNorB64, "s_nor_b64"),
    (Sop2, 0x01a, SXnorB32, "s_xnor_b32"),
    (Sop2, 0x01b, SXnorB64, "s_xnor_b64"),
    (Sop2, 0x012, SAndNot1B32, "s_andn2_b32"),
    (Sop2, 0x013, SAndNot1B64, "s_andn2_b64"),
    (Sop2, 0x014, SOrNot1B32, "s_orn2_b32"),
    (Sop2, 0x015, SOrNot1B64, "s_orn2_b64"),
    (Sop2, 0x025, SBfeU32, "s_bfe_u32"),
    (Sop2, 0x024, SMulI32, "s_mul_i32"),
    (Sop2, 0x02c, SMulHiU32, "s_mul_hi_u32"),
    (Sop2, 0x00a, SCselectB32, "s_cselect_b32"),
    (Sop2, 0x00b, SCselectB64, "s_cselect_b64"),
    (Sop2, 0x032, SPackLlB32B16, "s_pack_ll_b32_b16"),
    (Sop1, 0x000, SMovB32, "s_mov_b32"),
    (Sop1, 0x001, SMovB64, "s_mov_b64"),
    (Sop1, 0x002, SCmovB32, "s_cmov_b32"),
    (Sop1, 0x003, SCmovB64, "s_cmov_b64"),
    (Sop1, 0x008, SBrevB32, "s_brev_b32"),
    (Sop1, 0x010, SCtzI32B32, "s_ff1_i32_b32"),
    (Sop1, 0x016, SSextI32I8, "s_sext_i32_i8"),
    (Sop1, 0x017, SSextI32I16, "s_sext_i32_i16"),
    (Sop1, 0x030, SAbsI32, "s_abs_i32"),
    (Sop1, 0x00c, SBcnt1I32B32, "s_bcnt1_i32_b32"),
    (Sop1, 0x004, SNotB32, "s_not_b32"),
    (Sop1, 0x005, SNotB64, "s_not_b64"),
    (Sop1, 0x020, SAndSaveexecB64, "s_and_saveexec_b64"),
    (Sop1, 0x021, SOrSaveexecB64, "s_or_saveexec_b64"),
    (Sop1, 0x022, SXorSaveexecB64, "s_xor_saveexec_b64"),
    (Sop1, 0x023, SAndNot1SaveexecB64, "s_andn2_saveexec_b64"),
    (Sop1, 0x024, SOrNot1SaveexecB64, "s_orn2_saveexec_b64"),
    (Sopc, 0x000, SCmpEqI32, "s_cmp_eq_i32"),
    (Sopc, 0x001, SCmpLgI32, "s_cmp_lg_i32"),
    (Sopc, 0x002, SCmpGtI32, "s_cmp_gt_i32"),
    (Sopc, 0x003, SCmpGeI32, "s_cmp_ge_i32"),
    (Sopc, 0x004, SCmpLtI32, "s_cmp_lt_i32"),
    (Sopc, 0x005, SCmpLeI32, "s_cmp_le_i32"),
    (Sopc, 0x006, SCmpEqU32, "s_cmp_eq_u32"),
    (Sopc, 0x007, SCmpLgU32, "s_cmp_lg_u32"),
    (Sopc, 0x008, SCmpGtU32, "s_cmp_gt_u32"),
    (Sopc, 0x009, SCmpGeU32, "s_cmp_ge_u32"),
    (Sopc, 0x00a, SCmpLtU32, "s_cmp_lt_u32"),
    (Sopc, 0x00b, SCmpLeU32, "s_cmp_le_u32"),
    (Sopc, 0x00c, SBitcmp0B32, "s_bitcmp0_b32"),
    (Sopc, 0x00d, SBitcmp1B32, "s_bitcmp1_b32"),
    (Sopc, 0x012, SCmpEqU64, "s_cmp_eq_u64"),
    (Sopc, 0x013, SCmpLgU64, "s_cmp_lg_u64"),
    (Sopk, 0x000, SMovkI32, "s_movk_i32"),
    (Sopk, 0x001, SCmovkI32, "s_cmovk_i32"),
    (Sopk, 0x002, SCmpkEqI32, "s_cmpk_eq_i32"),
    (Sopk, 0x003, SCmpkLgI32, "s_cmpk_lg_i32"),
    (Sopk, 0x004, SCmpkGtI32, "s_cmpk_gt_i32"),
    (Sopk, 0x005, SCmpkGeI32, "s_cmpk_ge_i32"),
    (Sopk, 0x006, SCmpkLtI32, "s_cmpk_lt_i32"),
    (Sopk, 0x007, SCmpkLeI32, "s_cmpk_le_i32"),
    (Sopk, 0x008, SCmpkEqU32, "s_cmpk_eq_u32"),
    (Sopk, 0x009, SCmpkLgU32, "s_cmpk_lg_u32"),
    (Sopk, 0x00a, SCmpkGtU32, "s_cmpk_gt_u32"),
    (Sopk, 0x00b, SCmpkGeU32, "s_cmpk_ge_u32"),
    (Sopk, 0x00c, SCmpkLtU32, "s_cmpk_lt_u32"),
    (Sopk, 0x00d, SCmpkLeU32, "s_cmpk_le_u32"),
    (Sopk, 0x00e, SAddkI32, "s_addk_i32"),
    (Sopk, 0x00f, SMulkI32, "s_mulk_i32"),
    (Sopk, 0x011, SGetregB32, "s_getreg_b32"),
    (Sopp, 0x000, SNop, "s_nop"),
    (Sopp, 0x00e, SSleep, "s_sleep"),
    (Sopp, 0x00c, SWaitcnt, "s_waitcnt"),
    (Sopp, 0x001, SEndpgm, "s_endpgm"),
    (Sopp, 0x002, SBranch, "s_branch"),
    (Sopp, 0x004, SCbranchScc0, "s_cbranch_scc0"),
    (Sopp, 0x005, SCbranchScc1, "s_cbranch_scc1"),
    (Sopp, 0x006, SCbranchVccz, "s_cbranch_vccz"),
    (Sopp, 0x007, SCbranchVccnz, "s_cbranch_vccnz"),
    (Sopp, 0x008, SCbranchExecz, "s_cbranch_execz"),
    (Sopp, 0x009, SCbranchExecnz, "s_cbranch_execnz"),
    (Sopp, 0x00a, SBarrier, "s_barrier"),
    (Smem, 0x000, SLoadB32, "s_load_dword"),
    (Smem, 0x001, SLoadB64, "s_load_dwordx2"),
    (Smem, 0x002, SLoadB128, "s_load_dwordx4"),
    (Smem, 0x003, SLoadB256, "s_load_dwordx8"),
    (Smem, 0x004, SLoadB512, "s_load_dwordx16"),
    (Vop1, 0x000, VNop, "v_nop"),
    (Vop1, 0x001, VMovB32, "v_mov_b32"),
    (Vop1, 0x002, VReadfirstlaneB32, "v_readfirstlane_b32"),
    (Vop1, 0x02b, VNotB32, "v_not_b32"),
    (Vop1, 0x02c, VBfrevB32, "v_bfrev_b32"),
    (Vop1, 0x02d, VClzI32U32, "v_ffbh_u32"),
    (Vop1, 0x02e, VCtzI32B32, "v_ffbl_b32"),
    (Vop2, 0x000, VCndmaskB32, "v_cndmask_b32"),
    (Vop2, 0x006, VMulI32I24, "v_mul_i32_i24"),
    (Vop2, 0x007, VMulHiI32I24, "v_mul_hi_i32_i24"),
    (Vop2, 0x008, VMulU32U24, "v_mul_u32_u24"),
    (Vop2, 0x009, VMulHiU32U24, "v_mul_hi_u32_u24"),
    (Vop2, 0x00c, VMinI32, "v_min_i32"),
    (Vop2, 0x00d, VMaxI32, "v_max_i32"),
    (Vop2, 0x00e, VMinU32, "v_min_u32"),
    (Vop2, 0x00f, VMaxU32, "v_max_u32"),
    (Vop2, 0x012, VLshlrevB32, "v_lshlrev_b32"),
    (Vop2, 0x010, VLshrrevB32, "v_lshrrev_b32"),
    (Vop2, 0x011, VAshrrevI32, "v_ashrrev_i32"),
    (Vop2, 0x013, VAndB32, "v_and_b32"),
    (Vop2, 0x014, VOrB32, "v_or_b32"),
    (Vop2, 0x015, VXorB32, "v_xor_b32"),
    (Vop2, 0x03d, VXnorB32, "v_xnor_b32"),
    (Vop2, 0x01c, VAddCoCiU32, "v_addc_co_u32"),
    (Vop2, 0x01d, VSubCoCiU32, "v_subb_co_u32"),
    (Vop2, 0x01e, VSubrevCoCiU32, "v_subbrev_co_u32"),
    (Vop2, 0x034, VAddNcU32, "v_add_u32"),
    (Vop2, 0x035, VSubNcU32, "v_sub_u32"),
    (Vop2, 0x036, VSubrevNcU32, "v_subrev_u32"),
    (Vop2, 0x019, VAddCoU32, "v_add_co_u32"),
    (Vop2, 0x01a, VSubCoU32, "v_sub_co_u32"),
    (Vop2, 0x01b, VSubrevCoU32, "v_subrev_co_u32"),
    (Vopc, 0x0c0, VCmpFI32, "v_cmp_f_i32"),
    (Vopc, 0x0c1, VCmpLtI32, "v_cmp_lt_i32"),
    (Vopc, 0x0c2, VCmpEqI32, "v_cmp_eq_i32"),
    (Vopc, 0x0c3, VCmpLeI32, "v_cmp_le_i32"),
    (Vopc, 0x0c4, VCmpGtI32, "v_cmp_gt_i32"),
    (Vopc, 0x0c5, VCmpNeI32, "v_cmp_ne_i32"),
    (Vopc, 0x0c6, VCmpGeI32, "v_cmp_ge_i32"),
    (Vopc, 0x0c7, VCmpTI32, "v_cmp_t_i32"),
    (Vopc, 0x0c8, VCmpFU32, "v_cmp_f_u32"),
    (Vopc, 0x0c9, VCmpLtU32, "v_cmp_lt_u32"),
    (Vopc, 0x0ca, VCmpEqU32, "v_cmp_eq_u32"),
    (Vopc, 0x0cb, VCmpLeU32, "v_cmp_le_u32"),
    (Vopc, 0x0cc, VCmpGtU32, "v_cmp_gt_u32"),
    (Vopc, 0x0cd, VCmpNeU32, "v_cmp_ne_u32"),
    (Vopc, 0x0ce, VCmpGeU32, "v_cmp_ge_u32"),
    (Vopc, 0x0cf, VCmpTU32, "v_cmp_t_u32"),
    (Vopc, 0x0d0, VCmpxFI32, "v_cmpx_f_i32"),
    (Vopc, 0x0d1, VCmpxLtI32, "v_cmpx_lt_i32"),
    (Vopc, 0x0d2, VCmpxEqI32, "v_cmpx_eq_i32"),
    (Vopc, 0x0d3, VCmpxLeI32, "v_cmpx_le_i32"),
    (Vopc, 0x0d4, VCmpxGtI32, "v_cmpx_gt_i32"),
    (Vopc, 0x0d5, VCmpxNeI32, "v_cmpx_ne_i32"),
    (Vopc, 0x0d6, VCmpxGeI32, "v_cmpx_ge_i32"),
    (Vopc, 0x0d7, VCmpxTI32, "v_cmpx_t_i32"),
    (Vopc, 0x0d8, VCmpxFU32, "v_cmpx_f_u32"),
    (Vopc, 0x0d9, VCmpxLtU32, "v_cmpx_lt_u32"),
    (Vopc, 0x0da, VCmpxEqU32, "v_cmpx_eq_u32"),
    (Vopc, 0x0db, VCmpxLeU32, "v_cmpx_le_u32"),
    (Vopc, 0x0dc, VCmpxGtU32, "v_cmpx_gt_u32"),
    (Vopc, 0x0dd, VCmpxNeU32, "v_cmpx_ne_u32"),
    (Vopc, 0x0de, VCmpxGeU32, "v_cmpx_ge_u32"),
    (Vopc, 0x0df, VCmpxTU32, "v_cmpx_t_u32"),
    (Vopc, 0x0e1, VCmpLtI64, "v_cmp_lt_i64"),
    (Vopc, 0x0e2, VCmpEqI64, "v_cmp_eq_i64"),
    (Vopc, 0x0e3, VCmpLeI64, "v_cmp_le_i64"),
    (Vopc, 0x0e4, VCmpGtI64, "v_cmp_gt_i64"),
    (Vopc, 0x0e5, VCmpNeI64, "v_cmp_ne_i64"),
    (Vopc, 0x0e6, VCmpGeI64, "v_cmp_ge_i64"),
    (Vopc, 0x0e9, VCmpLtU64, "v_cmp_lt_u64"),
    (Vopc, 0x0ea, VCmpEqU64, "v_cmp_eq_u64"),
    (Vopc, 0x0eb, VCmpLeU64, "v_cmp_le_u64"),
    (Vopc, 0x0ec, VCmpGtU64, "v_cmp_gt_u64"),
    (Vopc, 0x0ed, VCmpNeU64, "v_cmp_ne_u64"),
    (Vopc, 0x0ee, VCmpGeU64, "v_cmp_ge_u64"),
    (Vopc, 0x0f9, VCmpxLtU64, "v_cmpx_lt_u64"),
    (Vopc, 0x0fa, VCmpxEqU64, "v_cmpx_eq_u64"),
    (Vopc, 0x0fd, VCmpxNeU64, "v_cmpx_ne_u64"),
    (Vop3, 0x1c2, VMadI32I24, "v_mad_i32_i24"),
    (Vop3, 0x1c3, VMadU32U24, "v_mad_u32_u24"),
    (Vop3, 0x1c8, VBfeU32, "v_bfe_u32"),
    (Vop3, 0x1c9, VBfeI32, "v_bfe_i32"),
    (Vop3, 0x1ca, VBfiB32, "v_bfi_b32"),
    (Vop3, 0x1ce, VAlignbitB32, "v_alignbit_b32"),
    (Vop3, 0x1cf, VAlignbyteB32, "v_alignbyte_b32"),
    (Vop3, 0x1d1, VMin3I32, "v_min3_i32"),
    (Vop3, 0x1d2, VMin3U32, "v_min3_u32"),
    (Vop3, 0x1d4, VMax3I32, "v_max3_i32"),
    (Vop3, 0x1d5, VMax3U32, "v_max3_u32"),
    (Vop3, 0x1d7, VMed3I32, "v_med3_i32"),
    (Vop3, 0x1d8, VMed3U32, "v_med3_u32"),
    (Vop3, 0x1dc, VSadU32, "v_sad_u32"),
    (Vop3, 0x1ed, VPermB32, "v_perm_b32"),
    (Vop3, 0x1f3, VXadU32, "v_xad_u32"),
    (Vop3, 0x1fd, VLshlAddU32, "v_lshl_add_u32"),
    (Vop3, 0x1fe, VAddLshlU32, "v_add_lshl_u32"),
    (Vop3, 0x1ff, VAdd3U32, "v_add3_u32"),
    (Vop3, 0x200, VLshlOrB32, "v_lshl_or_b32"),
    (Vop3, 0x201, VAndOrB32, "v_and_or_b32"),
    (Vop3, 0x202, VOr3B32, "v_or3_b32"),
    (Vop3, 0x1e8, VMadU64U32, "v_mad_u64_u32"),
    (Vop3, 0x1e9, VMadI64I32, "v_mad_i64_i32"),
    (Vop3, 0x28b, VBcntU32B32, "v_bcnt_u32_b32"),
    (Vop3, 0x28c, VMbcntLoU32B32, "v_mbcnt_lo_u32_b32"),
    (Vop3, 0x28d, VMbcntHiU32B32, "v_mbcnt_hi_u32_b32"),
    (Vop3, 0x285, VMulLoU32, "v_mul_lo_u32"),
    (Vop3, 0x286, VMulHiU32, "v_mul_hi_u32"),
    (Vop3, 0x287, VMulHiI32, "v_mul_hi_i32"),
    (Vop3, 0x28f, VLshlrevB64, "v_lshlrev_b64"),
    (Vop3, 0x290, VLshrrevB64, "v_lshrrev_b64"),
    (Vop3, 0x291, VAshrrevI64, "v_ashrrev_i64"),
    // gfx940+ only (LLVM's GFX940Insts); measured with llvm-mc-19 -mcpu=gfx942
    // in tests/emu_gfx940_lshl.rs, refused on other targets (`GFX940_ONLY`).
    (Vop3, 0x208, VLshlAddU64, "v_lshl_add_u64"),
    (Vop3, 0x289, VReadlaneB32, "v_readlane_b32"),
    (Vop3, 0x28a, VWritelaneB32, "v_writelane_b32"),
    (Global, 0x010, GlobalLoadU8, "global_load_ubyte"),
    (Global, 0x011, GlobalLoadI8, "global_load_sbyte"),
    (Global, 0x012, GlobalLoadU16, "global_load_ushort"),
    (Global, 0x013, GlobalLoadI16, "global_load_sshort"),
    (Global, 0x014, GlobalLoadB32, "global_load_dword"),
    (Global, 0x015, GlobalLoadB64, "global_load_dwordx2"),
    (Global, 0x016, GlobalLoadB96, "global_load_dwordx3"),
    (Global, 0x017, GlobalLoadB128, "global_load_dwordx4"),
    (Global, 0x018, GlobalStoreB8, "global_store_byte"),
    (Global, 0x01a, GlobalStoreB16, "global_store_short"),
    (Global, 0x01c, GlobalStoreB32, "global_store_dword"),
    (Global, 0x01d, GlobalStoreB64, "global_store_dwordx2"),
    (Global, 0x01e, GlobalStoreB96, "global_store_dwordx3"),
    (Global, 0x01f, GlobalStoreB128, "global_store_dwordx4"),
    (Flat, 0x010, FlatLoadU8, "flat_load_ubyte"),
    (Flat, 0x011, FlatLoadI8, "flat_load_sbyte"),
    (Flat, 0x012, FlatLoadU16, "flat_load_ushort"),
    (Flat, 0x013, FlatLoadI16, "flat_load_sshort"),
    (Flat, 0x014, FlatLoadB32, "flat_load_dword"),
    (Flat, 0x015, FlatLoadB64, "flat_load_dwordx2"),
    (Flat, 0x016, FlatLoadB96, "flat_load_dwordx3"),
    (Flat, 0x017, FlatLoadB128, "flat_load_dwordx4"),
    (Flat, 0x018, FlatStoreB8, "flat_store_byte"),
    (Flat, 0x01a, FlatStoreB16, "flat_store_short"),
    (Flat, 0x01c, FlatStoreB32, "flat_store_dword"),
    (Flat, 0x01d, FlatStoreB64, "flat_store_dwordx2"),
    (Flat, 0x01e, FlatStoreB96, "flat_store_dwordx3"),
    (Flat, 0x01f, FlatStoreB128, "flat_store_dwordx4"),
];

/// The gfx9 row for `opcode` in gfx9 `format`.
pub fn lookup(format: Format, opcode: u16) -> Option<&'static OpInfo> {
    OPCODES
        .iter()
        .find(|(f, n, _, _)| *f == format && *n == opcode)
        .map(|(_, _, op, _)| table::info(*op))
}

/// gfx9's (format, opcode) of `op`, if gfx9 has it.
pub fn opcode(op: Op) -> Option<(Format, u16)> {
    OPCODES
        .iter()
        .find(|(_, _, o, _)| *o == op)
        .map(|(f, n, _, _)| (*f, *n))
}

/// The mnemonic LLVM prints for `op` on gfx9 (its gfx11 name if gfx9 has none).
pub fn mnemonic(op: Op) -> &'static str {
    OPCODES
        .iter()
        .find(|(_, _, o, _)| *o == op)
        .map_or(table::info(op).mnemonic, |(_, _, _, m)| m)
}

/// Ops of the list that exist only where the target has LLVM's
/// `FeatureGFX940Insts` ([`Isa::gfx940_insts`]): elsewhere their encodings are
/// not instructions, so the decoder refuses them instead of running them.
pub const GFX940_ONLY: &[Op] = &[VLshlAddU64];

/// gfx9's m0 code (gfx10+ put `null` here and moved m0 to 125).
const M0_GFX9: u32 = 124;
/// The GLOBAL saddr code meaning `off` on gfx9.
const SADDR_OFF: u32 = 0x7f;
/// src0 codes announcing a DPP or SDWA word after the instruction.
const DPP: u32 = 0xFA;
const SDWA: u32 = 0xF9;
const LITERAL: u32 = 255;

/// Decode the gfx9 instruction at `bytes[pos..]` (`offset` = its address).
pub(super) fn decode(isa: Isa, bytes: &[u8], pos: usize, offset: u64) -> Result<Inst, DecodeError> {
    let mut d = Decoder {
        isa,
        bytes,
        pos,
        offset,
        words: [0; 3],
        nwords: 0,
        format: "?",
    };
    let mut inst = d.decode()?;
    debug_assert_eq!(isa.generation, Generation::Gfx9);
    inst.len = (4 * d.nwords) as u8;
    inst.dwords = d.words;
    Ok(inst)
}

struct Decoder<'a> {
    isa: Isa,
    bytes: &'a [u8],
    pos: usize,
    offset: u64,
    words: [u32; 3],
    nwords: usize,
    format: &'static str,
}

fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1u32 << (hi - lo + 1)) - 1)
}

impl Decoder<'_> {
    /// Dword `i`, read from the stream if needed; a short stream is `Truncated`.
    fn word(&mut self, i: usize) -> Result<u32, DecodeError> {
        while self.nwords <= i {
            let at = self.pos + 4 * self.nwords;
            let Some(b) = self.bytes.get(at..at + 4) else {
                let available = self.bytes.len().saturating_sub(self.pos);
                return Err(DecodeError::Truncated {
                    offset: self.offset,
                    format: self.format,
                    needed: 4 * (i + 1),
                    available,
                    dwords: self.words[..self.nwords].to_vec(),
                });
            };
            self.words[self.nwords] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            self.nwords += 1;
        }
        Ok(self.words[i])
    }

    fn unsupported(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError::Unsupported {
            offset: self.offset,
            dwords: self.words[..self.nwords.max(1)].to_vec(),
            format: self.format.to_string(),
            reason: reason.into(),
        }
    }

    fn row(&self, format: Format, opcode: u32) -> Result<&'static OpInfo, DecodeError> {
        let known = u16::try_from(opcode).ok().and_then(|n| lookup(format, n));
        let row = known.ok_or_else(|| {
            self.unsupported(super::unemulated::refusal(Generation::Gfx9, format, opcode))
        })?;
        if GFX940_ONLY.contains(&row.op) && !self.isa.gfx940_insts {
            return Err(self.unsupported(format!(
                "opcode {opcode} (0x{opcode:x}) is {} only on gfx940+ (gfx942, gfx950, \
                 gfx9-4-generic); this target (gfx908, gfx90a or gfx9-generic) has no such instruction",
                mnemonic(row.op)
            )));
        }
        Ok(row)
    }

    fn inst(&self, op: Op, enc: Enc) -> Inst {
        Inst {
            offset: self.offset,
            len: 0,
            dwords: [0; 3],
            op,
            enc,
            dst: 0,
            sdst: 0,
            src: [Src::Null; 3],
            dpp: None,
            imm: 0,
            addr: 0,
            data: 0,
            saddr: None,
            generation: Generation::Gfx9,
        }
    }

    fn decode(&mut self) -> Result<Inst, DecodeError> {
        let w0 = self.word(0)?;
        match w0 >> 23 {
            0x17D => return self.sop1(w0),
            0x17E => return self.sopc(w0),
            0x17F => return self.sopp(w0),
            _ if w0 >> 28 == 0xB => return self.sopk(w0),
            _ if w0 >> 30 == 0b10 => return self.sop2(w0),
            _ => {}
        }
        match w0 >> 26 {
            0b110000 => self.smem(w0),
            0b110100 => self.vop3(w0),
            0b110111 => self.flat(w0),
            _ if w0 >> 25 == 0b0111111 => self.vop1(w0),
            _ if w0 >> 25 == 0b0111110 => self.vopc(w0),
            _ if w0 >> 31 == 0 => self.vop2(w0),
            enc => {
                self.format = match enc {
                    0b110110 => "DS",
                    0b111000 => "MUBUF",
                    0b111010 => "MTBUF",
                    0b111100 => "MIMG",
                    0b110001 => "EXP",
                    0b110101 => "VINTRP",
                    _ => "an unknown encoding",
                };
                Err(self.unsupported("this encoding family is not emulated"))
            }
        }
    }

    /// A source operand code (8-bit scalar or 9-bit vector field), mapped to
    /// the register indices the emulator uses (m0 -> [`M0`]). `literal_at`:
    /// the dword a literal would be in, `None` where gfx9 has no literal (VOP3).
    fn src(
        &mut self,
        code: u32,
        wide: bool,
        literal_at: Option<usize>,
    ) -> Result<Src, DecodeError> {
        if let Some(value) = inline_constant(code, wide) {
            return Ok(Src::Const(value));
        }
        Ok(match code {
            0..=123 | 126 | 127 => {
                if wide && code % 2 == 1 {
                    return Err(self.unsupported(format!(
                        "64-bit scalar operand starts at odd register {}",
                        name(code as u8)
                    )));
                }
                Src::Sgpr(code as u8)
            }
            M0_GFX9 => Src::Sgpr(M0),
            251 => Src::Vccz,
            252 => Src::Execz,
            253 => Src::Scc,
            LITERAL => match literal_at {
                None => return Err(self.unsupported("gfx9 VOP3 has no literal operand")),
                Some(at) => {
                    let lit = self.word(at)?;
                    if wide && lit >> 31 == 1 {
                        return Err(self.unsupported(format!(
                            "unsettled: 32-bit literal 0x{lit:08x} with bit 31 set in a 64-bit operand"
                        )));
                    }
                    Src::Lit(lit)
                }
            },
            256..=511 => Src::Vgpr((code - 256) as u16),
            235..=239 => {
                return Err(self.unsupported(format!(
                    "aperture source code {code} (src_shared_base...) is not emulated"
                )))
            }
            254 => return Err(self.unsupported("lds_direct is not emulated")),
            other => {
                return Err(
                    self.unsupported(format!("source operand code {other} is reserved on gfx9"))
                )
            }
        })
    }

    /// A 7-bit scalar destination: s0-s101, flat_scratch, xnack_mask, vcc, m0, exec.
    fn sdst(&self, code: u32, wide: bool) -> Result<u8, DecodeError> {
        let reg = match code {
            0..=107 | 126 | 127 => code as u8,
            M0_GFX9 => M0,
            108..=123 => {
                return Err(self
                    .unsupported("trap temporaries (ttmp) are read-only outside the trap handler"))
            }
            _ => {
                return Err(self.unsupported(format!(
                    "scalar destination code {code} is not a writable register"
                )))
            }
        };
        if wide && (code % 2 == 1 || code == M0_GFX9) {
            return Err(self.unsupported(format!(
                "scalar destination {} is not a register pair",
                name(reg)
            )));
        }
        Ok(reg)
    }

    fn sop2(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOP2";
        let row = self.row(Sop2, bits(w0, 29, 23))?;
        let (w_a, w_b) = match row.shape {
            Shape::S2w => (true, true),
            Shape::S2sh => (true, false),
            _ => (false, false),
        };
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), w_a, Some(1))?;
        inst.src[1] = self.src(bits(w0, 15, 8), w_b, Some(1))?;
        inst.dst = u16::from(self.sdst(bits(w0, 22, 16), w_a)?);
        Ok(inst)
    }

    fn sop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOP1";
        let row = self.row(Sop1, bits(w0, 15, 8))?;
        let wide = row.shape == Shape::S1w;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), wide, Some(1))?;
        inst.dst = u16::from(self.sdst(bits(w0, 22, 16), wide)?);
        Ok(inst)
    }

    fn sopc(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPC";
        let row = self.row(Sopc, bits(w0, 22, 16))?;
        let wide = row.shape == Shape::Scw;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), wide, Some(1))?;
        inst.src[1] = self.src(bits(w0, 15, 8), wide, Some(1))?;
        Ok(inst)
    }

    fn sopk(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPK";
        let row = self.row(Sopk, bits(w0, 27, 23))?;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.imm = i32::from(w0 as u16 as i16);
        inst.dst = u16::from(self.sdst(bits(w0, 22, 16), false)?);
        Ok(inst)
    }

    /// SOPP: s_waitcnt's simm16 is gfx9's (vmcnt [3:0]+[15:14], expcnt [6:4],
    /// lgkmcnt [11:8]); it waits on nothing here, so it is kept raw.
    fn sopp(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPP";
        let row = self.row(Sopp, bits(w0, 22, 16))?;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.imm = i32::from(w0 as u16 as i16);
        Ok(inst)
    }

    /// SMEM: sbase [5:0] (pair index), sdata [12:6], soe [14], nv [15], glc
    /// [16] (cache policy: no effect here), imm [17], opcode [25:18]; dword 1:
    /// a 21-bit signed byte offset [20:0] when imm, else an SGPR code [7:0];
    /// soffset [31:25] when soe (then with the immediate offset).
    fn smem(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SMEM";
        let w1 = self.word(1)?;
        let row = self.row(Smem, bits(w0, 25, 18))?;
        let Shape::Load(n) = row.shape else {
            return Err(self.unsupported("not a load"));
        };
        if bits(w0, 15, 15) != 0 || bits(w0, 13, 13) != 0 {
            return Err(self.unsupported("reserved (or nv) SMEM bits are set"));
        }
        let (imm, soe) = (bits(w0, 17, 17) == 1, bits(w0, 14, 14) == 1);
        let mut inst = self.inst(row.op, Enc::Native);
        inst.addr = (bits(w0, 5, 0) * 2) as u16;
        let sdata = bits(w0, 12, 6);
        if sdata % n.min(4) as u32 != 0 || sdata + u32::from(n) > 102 {
            return Err(self.unsupported(format!(
                "destination s[{sdata}:{}] is not an aligned range of s0-s101",
                sdata + u32::from(n) - 1
            )));
        }
        inst.dst = sdata as u16;
        let soffset = match (imm, soe) {
            (true, false) if bits(w1, 31, 21) == 0 => None,
            (true, true) if bits(w1, 24, 21) == 0 => Some(bits(w1, 31, 25)),
            (false, false) if bits(w1, 31, 8) == 0 => Some(bits(w1, 7, 0)),
            _ => {
                return Err(
                    self.unsupported("SMEM offset fields are inconsistent (imm/soe/reserved bits)")
                )
            }
        };
        inst.imm = if imm {
            ((bits(w1, 20, 0) << 11) as i32) >> 11
        } else {
            0
        };
        inst.saddr = match soffset {
            None => None,
            Some(code @ (0..=101 | 106 | 107)) => Some(code as u8),
            Some(M0_GFX9) => Some(M0),
            Some(code) => {
                return Err(self.unsupported(format!("soffset code {code} is not emulated")))
            }
        };
        Ok(inst)
    }

    /// FLAT/GLOBAL: offset [12:0] (13-bit signed for global, 12-bit unsigned
    /// for flat), lds [13], seg [15:14], glc [16], slc [17] and gfx940's sc1
    /// [25] (cache policy: no effect here), opcode [24:18]; dword 1: vaddr [7:0], data [15:8],
    /// saddr [22:16] (0x7f = off), nv / gfx90a acc [23], vdst [31:24].
    fn flat(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "FLAT";
        let w1 = self.word(1)?;
        let format = match bits(w0, 15, 14) {
            0 => Flat,
            2 => Global,
            1 => {
                self.format = "SCRATCH";
                return Err(self.unsupported("scratch (private) memory is not emulated"));
            }
            _ => return Err(self.unsupported("segment 3 is reserved")),
        };
        self.format = format.name();
        let row = self.row(format, bits(w0, 24, 18))?;
        if bits(w0, 13, 13) != 0 || bits(w1, 23, 23) != 0 {
            return Err(self.unsupported("lds, nv or AGPR (acc) bits are set"));
        }
        let mut inst = self.inst(row.op, Enc::Native);
        let raw = bits(w0, 12, 0);
        inst.imm = match format {
            Flat if raw >> 12 == 1 => {
                return Err(self.unsupported(
                    "flat offset bit 12 set: flat offsets are 12-bit unsigned on gfx9",
                ))
            }
            Flat => raw as i32,
            _ => ((raw << 19) as i32) >> 19,
        };
        inst.addr = bits(w1, 7, 0) as u16;
        inst.data = bits(w1, 15, 8) as u16;
        inst.dst = bits(w1, 31, 24) as u16;
        inst.saddr = match (format, bits(w1, 22, 16)) {
            // LLVM writes 0 in a flat instruction's (unused) saddr field.
            (Flat, 0 | SADDR_OFF) | (_, SADDR_OFF) => None,
            (Flat, s) => {
                return Err(self.unsupported(format!("flat instructions take no saddr (code {s})")))
            }
            (_, s) if s % 2 == 0 && (s <= 100 || s == 106) => Some(s as u8),
            (_, s) => {
                return Err(self.unsupported(format!("saddr code {s} is not an aligned SGPR pair")))
            }
        };
        Ok(inst)
    }
}

impl Decoder<'_> {
    fn vop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP1";
        let row = self.row(Vop1, bits(w0, 16, 9))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        let dst = bits(w0, 24, 17);
        inst.dst = if row.shape == Shape::ToScalar1 {
            u16::from(self.sdst(dst, false)?)
        } else {
            dst as u16
        };
        Ok(inst)
    }

    /// VOP2; on gfx9 the carry ops have an e32 form whose carry is VCC.
    fn vop2(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP2";
        let row = self.row(Vop2, bits(w0, 30, 25))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u16);
        inst.dst = bits(w0, 24, 17) as u16;
        match row.shape {
            Shape::Cnd => inst.src[2] = Src::Sgpr(VCC),
            Shape::Ci => {
                inst.src[2] = Src::Sgpr(VCC);
                inst.sdst = VCC;
            }
            Shape::Co => inst.sdst = VCC,
            Shape::V2 => {}
            _ => return Err(self.unsupported(format!("{} has no VOP2 form", mnemonic(row.op)))),
        }
        self.constant_bus(&inst, matches!(row.shape, Shape::Cnd | Shape::Ci))?;
        Ok(inst)
    }

    fn vopc(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOPC";
        let row = self.row(Vopc, bits(w0, 24, 17))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u16);
        inst.sdst = VCC;
        if matches!(row.shape, Shape::Cmpx | Shape::Cmpxw) {
            (inst.sdst, inst.dst) = (EXEC, u16::from(VCC));
        }
        Ok(inst)
    }

    /// src0 of an e32 encoding: a 9-bit source (a literal may follow), or a
    /// DPP word (SDWA is refused).
    fn e32_src0(&mut self, inst: &mut Inst, row: &OpInfo, code: u32) -> Result<(), DecodeError> {
        let wide = matches!(row.shape, Shape::Cmpw | Shape::Cmpxw);
        match code {
            DPP => {
                self.format = "DPP";
                if !matches!(row.shape, Shape::V1 | Shape::V2 | Shape::Cnd) || row.op == Op::VNop {
                    return Err(self.unsupported(format!(
                        "DPP on {} is not emulated (only vector results without scalar outputs)",
                        mnemonic(row.op)
                    )));
                }
                let (src0, dpp) = self.dpp_word()?;
                inst.src[0] = src0;
                inst.dpp = Some(dpp);
            }
            SDWA => {
                self.format = "SDWA";
                return Err(self.unsupported("SDWA (sub-dword addressing) is not emulated"));
            }
            _ => inst.src[0] = self.src(code, wide, Some(1))?,
        }
        Ok(())
    }

    /// gfx9's DPP word (dword 1): src0 VGPR [7:0], control [16:8], bound_ctrl
    /// [19], source neg/abs [23:20], bank_mask [27:24], row_mask [31:28].
    /// Controls: quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror (0x130,
    /// 0x134, 0x138, 0x13c), row_mirror, row_half_mirror, row_bcast:15/31
    /// (0x142/0x143); gfx9 has no DPP8, row_share, row_xmask or fi.
    fn dpp_word(&mut self) -> Result<(Src, Dpp), DecodeError> {
        let w = self.word(1)?;
        let ctrl = bits(w, 16, 8) as u16;
        let valid = matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x130 | 0x134 | 0x138 | 0x13c | 0x140..=0x143);
        if !valid {
            return Err(self.unsupported(format!("DPP control 0x{ctrl:03x} is not valid on gfx9")));
        }
        if bits(w, 18, 17) != 0 {
            return Err(self.unsupported("reserved DPP bits 18:17 are set"));
        }
        if bits(w, 23, 20) != 0 {
            return Err(self.unsupported("DPP source neg/abs modifiers on an integer op"));
        }
        let dpp = Dpp::Dpp16 {
            ctrl,
            row_mask: bits(w, 31, 28) as u8,
            bank_mask: bits(w, 27, 24) as u8,
            bound_ctrl: bits(w, 19, 19) == 1,
            fi: false,
        };
        Ok((Src::Vgpr(bits(w, 7, 0) as u16), dpp))
    }

    /// gfx9 reads at most one scalar value per VALU instruction (SGPRs and
    /// literals; inline constants are free). `implicit_vcc`: the e32 form
    /// also reads VCC.
    fn constant_bus(&self, inst: &Inst, implicit_vcc: bool) -> Result<(), DecodeError> {
        let implicit = implicit_vcc.then_some(Src::Sgpr(VCC));
        let mut scalars: Vec<Src> = Vec::new();
        for s in inst.src.iter().copied().chain(implicit) {
            if matches!(s, Src::Sgpr(_) | Src::Lit(_)) && !scalars.contains(&s) {
                scalars.push(s);
            }
        }
        if scalars.len() > 1 {
            return Err(self
                .unsupported("more than one scalar value read (gfx9's constant bus carries one)"));
        }
        Ok(())
    }

    /// VOP3 (VOP3b for carry and mad64 ops): VOPC ops at 0x000 + op, VOP2 at
    /// 0x100 + op, VOP1 at 0x140 + op, VOP3-only ops from 0x1c0.
    fn vop3(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP3";
        let w1 = self.word(1)?;
        let opcode = bits(w0, 25, 16);
        let row = match opcode {
            0x000..=0x0ff => self.row(Vopc, opcode)?,
            0x100..=0x13f => self.row(Vop2, opcode - 0x100)?,
            0x140..=0x1bf => self.row(Vop1, opcode - 0x140)?,
            _ => self.row(Vop3, opcode)?,
        };
        let sd = matches!(row.shape, Shape::Co | Shape::Ci | Shape::Mad64);
        if sd {
            self.format = "VOP3b";
        }
        self.vop3_modifiers(row, sd, w0, w1)?;
        let mut inst = self.inst(row.op, Enc::Vop3);
        self.vop3_sources(&mut inst, row, w1)?;
        let vdst = bits(w0, 7, 0);
        match row.shape {
            Shape::Cmp | Shape::Cmpw => inst.sdst = self.sdst(vdst, true)?,
            Shape::Cmpx | Shape::Cmpxw => {
                (inst.sdst, inst.dst) = (EXEC, u16::from(self.sdst(vdst, true)?))
            }
            Shape::ToScalar1 | Shape::ToScalar2 => inst.dst = u16::from(self.sdst(vdst, false)?),
            _ => inst.dst = vdst as u16,
        }
        if sd {
            inst.sdst = self.sdst(bits(w0, 14, 8), true)?;
        }
        self.constant_bus(&inst, false)?;
        Ok(inst)
    }

    /// Modifiers that would change an integer op's result are refused.
    fn vop3_modifiers(&self, row: &OpInfo, sd: bool, w0: u32, w1: u32) -> Result<(), DecodeError> {
        let checks = [
            (!sd && bits(w0, 10, 8) != 0, "abs"),
            (!sd && bits(w0, 14, 11) != 0, "op_sel"),
            (bits(w0, 15, 15) != 0, "clamp"),
            (bits(w1, 28, 27) != 0, "omod"),
            (bits(w1, 31, 29) != 0, "neg"),
        ];
        let set: Vec<&str> = checks
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, name)| *name)
            .collect();
        if set.is_empty() {
            return Ok(());
        }
        Err(self.unsupported(format!(
            "{} set on integer op {}: it would change the result and is not emulated",
            set.join("/"),
            mnemonic(row.op)
        )))
    }

    fn vop3_sources(&mut self, inst: &mut Inst, row: &OpInfo, w1: u32) -> Result<(), DecodeError> {
        let codes = [bits(w1, 8, 0), bits(w1, 17, 9), bits(w1, 26, 18)];
        let (nsrc, wide) = match row.shape {
            Shape::V1 | Shape::ToScalar1 => (1, [false; 3]),
            Shape::V2
            | Shape::Co
            | Shape::Cmp
            | Shape::Cmpx
            | Shape::ToScalar2
            | Shape::WriteLane => (2, [false; 3]),
            Shape::Cmpw | Shape::Cmpxw => (2, [true, true, false]),
            Shape::Sh64 => (2, [false, true, false]),
            // Carry-in and select masks are 64-bit lane masks: gfx9 is wave64 only.
            Shape::Ci | Shape::Cnd => (3, [false, false, true]),
            Shape::V3 => (3, [false; 3]),
            Shape::Mad64 => (3, [false, false, true]),
            Shape::LshlAdd64 => (3, [true, false, true]),
            _ => return Err(self.unsupported(format!("{} has no VOP3 form", mnemonic(row.op)))),
        };
        for i in 0..nsrc {
            inst.src[i] = self.src(codes[i], wide[i], None)?;
        }
        if matches!(row.shape, Shape::Ci | Shape::Cnd) && matches!(inst.src[2], Src::Vgpr(_)) {
            return Err(self.unsupported(format!(
                "{}: lane mask operand must be scalar",
                mnemonic(row.op)
            )));
        }
        if matches!(row.shape, Shape::ToScalar2 | Shape::WriteLane)
            && matches!(inst.src[1], Src::Vgpr(_))
        {
            return Err(self.unsupported(format!(
                "{}: the lane select must be scalar",
                mnemonic(row.op)
            )));
        }
        if row.shape == Shape::WriteLane && matches!(inst.src[0], Src::Vgpr(_)) {
            return Err(self.unsupported("v_writelane_b32: the value must be scalar"));
        }
        Ok(())
    }
}

/// LLVM's gfx9 name of scalar register index `r` (after the decoder's m0 mapping).
pub fn name(r: u8) -> String {
    match r {
        102 => "flat_scratch_lo".into(),
        103 => "flat_scratch_hi".into(),
        104 => "xnack_mask_lo".into(),
        105 => "xnack_mask_hi".into(),
        _ => reg_name(r),
    }
}

/// LLVM's gfx9 name of the scalar register pair at index `r`.
pub fn pair(r: u8) -> String {
    match r {
        102 => "flat_scratch".into(),
        104 => "xnack_mask".into(),
        _ => pair_name(r),
    }
}

/// A source as LLVM prints it on gfx9, in a `width`-dword slot.
fn show(s: Src, width: u32) -> String {
    match s {
        Src::Sgpr(r) if width == 2 => pair(r),
        Src::Sgpr(r) => name(r),
        other => other.show(width),
    }
}

/// `_e32`, `_e64`, `_dpp` or nothing, as LLVM names a gfx9 encoding: ops that
/// gfx9 has only in VOP3 (and the SOP*/SMEM/FLAT ones) take no suffix.
pub(super) fn suffix(inst: &Inst) -> &'static str {
    let two_forms = matches!(opcode(inst.op), Some((Vop1 | Vop2 | Vopc, _)));
    match (inst.dpp, inst.enc) {
        (Some(_), _) => "_dpp",
        (None, _) if !two_forms || inst.op == Op::VNop => "",
        (None, Enc::Native) if inst.op == Op::VReadfirstlaneB32 => "",
        (None, Enc::Native) => "_e32",
        (None, Enc::Vop3) => "_e64",
    }
}

/// The operand list of a register (not memory) instruction on gfx9: lane
/// masks are 64-bit pairs (`vcc`, `s[4:5]`) since gfx9 is wave64 only.
/// `None` for the memory shapes, which print as on gfx10+.
pub(super) fn operands(inst: &Inst) -> Option<Vec<String>> {
    let s = inst.src;
    let v = |r: u16| format!("v{r}");
    let wide = |r: u16| format!("v[{}:{}]", r, u32::from(r) + 1);
    Some(match table::info(inst.op).shape {
        Shape::S1 => vec![name(inst.sgpr_dst()), show(s[0], 1)],
        Shape::S1w => vec![pair(inst.sgpr_dst()), show(s[0], 2)],
        Shape::S2 => vec![name(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::S2w => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 2)],
        Shape::S2sh => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 1)],
        Shape::Sc => vec![show(s[0], 1), show(s[1], 1)],
        Shape::Scw => vec![show(s[0], 2), show(s[1], 2)],
        Shape::K if inst.op == Op::SGetregB32 => vec![
            name(inst.sgpr_dst()),
            super::disasm::hwreg_text(inst.imm as u16, Generation::Gfx9),
        ],
        Shape::K | Shape::KWait => vec![name(inst.sgpr_dst()), format!("0x{:x}", inst.imm as u16)],
        Shape::Nop | Shape::Control => match inst.op {
            Op::SEndpgm | Op::SBarrier => vec![],
            Op::SNop | Op::SSleep => vec![format!("{}", inst.imm as u16)],
            Op::SWaitcnt => vec![waitcnt_text(inst.imm as u16)],
            _ => vec![format!("0x{:x}", inst.imm as u16)],
        },
        Shape::Branch => vec![format!("{} (to 0x{:x})", inst.imm, inst.branch_target())],
        Shape::V1 if inst.op == Op::VNop => vec![],
        Shape::V1 => vec![v(inst.dst), show(s[0], 1)],
        Shape::V2 | Shape::WriteLane => vec![v(inst.dst), show(s[0], 1), show(s[1], 1)],
        Shape::V3 => vec![v(inst.dst), show(s[0], 1), show(s[1], 1), show(s[2], 1)],
        Shape::Cnd => vec![v(inst.dst), show(s[0], 1), show(s[1], 1), show(s[2], 2)],
        Shape::Co => vec![v(inst.dst), pair(inst.sdst), show(s[0], 1), show(s[1], 1)],
        Shape::Ci => vec![
            v(inst.dst),
            pair(inst.sdst),
            show(s[0], 1),
            show(s[1], 1),
            show(s[2], 2),
        ],
        Shape::Mad64 => vec![
            wide(inst.dst),
            pair(inst.sdst),
            show(s[0], 1),
            show(s[1], 1),
            show(s[2], 2),
        ],
        Shape::Sh64 => vec![wide(inst.dst), show(s[0], 1), show(s[1], 2)],
        Shape::LshlAdd64 => vec![wide(inst.dst), show(s[0], 2), show(s[1], 1), show(s[2], 2)],
        Shape::Cmp => vec![pair(inst.sdst), show(s[0], 1), show(s[1], 1)],
        Shape::Cmpw => vec![pair(inst.sdst), show(s[0], 2), show(s[1], 2)],
        Shape::Cmpx => vec![pair(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::Cmpxw => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 2)],
        Shape::ToScalar1 => vec![name(inst.sgpr_dst()), show(s[0], 1)],
        Shape::ToScalar2 => vec![name(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::Load(_) | Shape::MemLoad(_) | Shape::MemStore(_) => return None,
    })
}

/// gfx9's `s_waitcnt` simm16 as LLVM prints it: the counters below their
/// maximum (vmcnt `[3:0]+[15:14]` up to 63, expcnt `[6:4]` up to 7, lgkmcnt
/// `[11:8]` up to 15: gfx10 widened lgkmcnt to `[13:8]`), or all three when every
/// one is at its maximum. Bits 7 and 13:12 belong to no counter. The emulator
/// completes memory in order, so no wait has an effect there.
pub fn waitcnt_text(simm16: u16) -> String {
    let s = u32::from(simm16);
    let counters = [
        ("vmcnt", bits(s, 3, 0) | bits(s, 15, 14) << 4, 63),
        ("expcnt", bits(s, 6, 4), 7),
        ("lgkmcnt", bits(s, 11, 8), 15),
    ];
    let waited: Vec<String> = counters
        .iter()
        .filter(|(_, v, max)| v != max)
        .map(|(n, v, _)| format!("{n}({v})"))
        .collect();
    if waited.is_empty() {
        counters
            .iter()
            .map(|(n, v, _)| format!("{n}({v})"))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        waited.join(" ")
    }
}
