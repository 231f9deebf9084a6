// needs: wave64 gfx9_special_sgprs
// xad_sreg_gfx9_w64: gfx9's flat_scratch_lo/hi and xnack_mask_lo/hi (source
// codes 102-105; s102-s105 on gfx10+) in each slot, wave64. Each is first
// written with a scalar argument (s22-s25), so the model expects that value;
// the case is marked unsettled for xnack_mask (see src/model/cases/sreg.rs). The
// frame reserves both (.amdhsa_reserve_flat_scratch / _xnack_mask), so the
// writes land in registers of this wave's allocation.
.include "xad_frame.inc"
XAD_BEGIN xad_sreg_gfx9_w64, 1, 13, 8
  s_mov_b32 flat_scratch_lo, s22
  s_mov_b32 flat_scratch_hi, s23
  s_mov_b32 xnack_mask_lo, s24
  s_mov_b32 xnack_mask_hi, s25
  v_xad_u32 v16, flat_scratch_lo, v3, v4    // 0
  v_xad_u32 v17, v2, flat_scratch_lo, v4    // 1
  v_xad_u32 v18, v2, v3, flat_scratch_lo    // 2
  v_xad_u32 v19, flat_scratch_hi, v3, v4    // 3
  v_xad_u32 v20, v2, flat_scratch_hi, v4    // 4
  v_xad_u32 v21, v2, v3, flat_scratch_hi    // 5
  v_xad_u32 v22, xnack_mask_lo, v3, v4      // 6
  v_xad_u32 v23, v2, xnack_mask_lo, v4      // 7
  v_xad_u32 v24, v2, v3, xnack_mask_lo      // 8
  v_xad_u32 v25, xnack_mask_hi, v3, v4      // 9
  v_xad_u32 v26, v2, xnack_mask_hi, v4      // 10
  v_xad_u32 v27, v2, v3, xnack_mask_hi      // 11
  v_xad_u32 v28, xnack_mask_hi, 3, xnack_mask_hi // 12
  .set .Lxad_j, 0
  .rept 13
    XAD_STORE v[16 + .Lxad_j], .Lxad_j
    .set .Lxad_j, .Lxad_j + 1
  .endr
XAD_END xad_sreg_gfx9_w64, 1, 13, 8, 29
