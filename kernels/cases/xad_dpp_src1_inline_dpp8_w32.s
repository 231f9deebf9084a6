// needs: wave32 vop3_dpp dpp_src1_scalar dpp8 dpp_fetch_inactive
// xad_dpp_src1_inline_dpp8_w32: v_xad_u32 with DPP8 on src0 and each inline constant as src1, wave32.
// Built where the target takes a scalar src1 with DPP (needs dpp_src1_scalar).
// See kernels/include/xad_dpp_src1.inc and src/model/cases/dpp_src1.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
.include "xad_dpp_src1.inc"
XAD_BEGIN xad_dpp_src1_inline_dpp8_w32, 0, 90, 8
XAD_DPP_SRC1_INLINE 0, XAD_DPP_SRC1_INLINE8_OP
XAD_END xad_dpp_src1_inline_dpp8_w32, 0, 90, 8, 106
