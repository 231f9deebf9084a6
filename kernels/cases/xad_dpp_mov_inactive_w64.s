// needs: wave64 dpp8 dpp_row_share dpp_fetch_inactive
// xad_dpp_mov_inactive_w64: v_mov_b32_dpp reading inactive lanes (fi, DPP8; gfx10+) feeding v_xad_u32;
// lanes off keep their destination, wave64. See
// kernels/include/xad_dpp_mov.inc and src/model/cases/dpp_mov.rs.
.include "xad_frame.inc"
.include "xad_dpp_mov.inc"
XAD_BEGIN xad_dpp_mov_inactive_w64, 1, 10, 8
XAD_MOV_INACTIVE_BODY 1
XAD_END xad_dpp_mov_inactive_w64, 1, 10, 8, 26
