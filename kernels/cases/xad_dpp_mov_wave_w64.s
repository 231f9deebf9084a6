// needs: wave64 dpp_wave_controls
// xad_dpp_mov_wave_w64: gfx9 v_mov_b32_dpp wave_shl/rol/shr/ror:1 and row_bcast:15/31 feeding
// v_xad_u32, wave64. See
// kernels/include/xad_dpp_mov.inc and src/model/cases/dpp_mov.rs.
.include "xad_frame.inc"
.include "xad_dpp_mov.inc"
XAD_BEGIN xad_dpp_mov_wave_w64, 1, 14, 0
XAD_MOV_WAVE_BODY 1
XAD_END xad_dpp_mov_wave_w64, 1, 14, 0, 30
