// needs: wave64 dpp8 dpp_fetch_inactive
// xad_dpp_mov_dpp8_w64: v_mov_b32_dpp dpp8 (gfx10+) feeding v_xad_u32, wave64. See
// kernels/include/xad_dpp_mov.inc and src/model/cases/dpp_mov.rs.
.include "xad_frame.inc"
.include "xad_dpp_mov.inc"
XAD_BEGIN xad_dpp_mov_dpp8_w64, 1, 8, 8
XAD_MOV_DPP8_BODY 1
XAD_END xad_dpp_mov_dpp8_w64, 1, 8, 8, 24
