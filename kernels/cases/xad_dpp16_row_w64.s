// needs: wave64 vop3_dpp dpp_row_share
// xad_dpp16_row_w64: v_xad_u32 with dpp16 on src0, wave64. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp16.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp16_row_w64, 1, 34, 8
XAD_DPP16_ROW 1
XAD_END xad_dpp16_row_w64, 1, 34, 8, 50
