// needs: wave32 two_scalar_reads null_sgpr high_sgprs vop3_dpp dpp_src1_scalar dpp_row_share dpp_fetch_inactive
// xad_dpp_src1_sgpr_dpp16_w32: v_xad_u32 with DPP16 on src0 and an SGPR or special register as src1, wave32.
// Built where the target takes a scalar src1 with DPP (needs dpp_src1_scalar).
// See kernels/include/xad_dpp_src1.inc and src/model/cases/dpp_src1.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
.include "xad_dpp_src1.inc"
XAD_BEGIN xad_dpp_src1_sgpr_dpp16_w32, 0, 24, 8
XAD_DPP_SRC1_SGPR16 0
XAD_END xad_dpp_src1_sgpr_dpp16_w32, 0, 24, 8, 40
