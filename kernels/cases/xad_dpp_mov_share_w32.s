// needs: wave32 dpp_row_share
// xad_dpp_mov_share_w32: v_mov_b32_dpp row_share/xmask (gfx10+) feeding v_xad_u32, wave32. See
// kernels/include/xad_dpp_mov.inc and src/model/cases/dpp_mov.rs.
.include "xad_frame.inc"
.include "xad_dpp_mov.inc"
XAD_BEGIN xad_dpp_mov_share_w32, 0, 34, 0
XAD_MOV_SHARE_BODY 0
XAD_END xad_dpp_mov_share_w32, 0, 34, 0, 50
