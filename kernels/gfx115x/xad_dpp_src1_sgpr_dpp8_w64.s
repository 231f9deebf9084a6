// xad_dpp_src1_sgpr_dpp8_w64: v_xad_u32 with DPP8 on src0 and an SGPR, special register or inline constant as src1, wave64.
// RDNA3.5 (gfx1150-1152) only: gfx1100-1103 reject a scalar src1 with DPP.
// See kernels/include/xad_dpp_src1.inc and src/cases/dpp_src1.rs.
.include "xad_frame_gfx11.inc"
.include "xad_dpp.inc"
.include "xad_dpp_src1.inc"
XAD_BEGIN xad_dpp_src1_sgpr_dpp8_w64, 1, 20, 8
XAD_DPP_SRC1_SGPR8 1
XAD_END xad_dpp_src1_sgpr_dpp8_w64, 1, 20, 8, 36
