// needs: wave32 vop3_dpp dpp_row_share
// xad_dpp16_row_w32: v_xad_u32 with dpp16 on src0, wave32. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp16.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp16_row_w32, 0, 34, 8
XAD_DPP16_ROW 0
XAD_END xad_dpp16_row_w32, 0, 34, 8, 50
