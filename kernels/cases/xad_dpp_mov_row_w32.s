// needs: wave32
// xad_dpp_mov_row_w32: v_mov_b32_dpp row_mirror/half_mirror and masks feeding v_xad_u32, wave32. See
// kernels/include/xad_dpp_mov.inc and src/model/cases/dpp_mov.rs.
.include "xad_frame.inc"
.include "xad_dpp_mov.inc"
XAD_BEGIN xad_dpp_mov_row_w32, 0, 10, 0
XAD_MOV_ROW_BODY 0
XAD_END xad_dpp_mov_row_w32, 0, 10, 0, 26
