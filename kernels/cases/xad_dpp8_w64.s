// needs: wave64 vop3_dpp dpp8 dpp_fetch_inactive
// xad_dpp8_w64: v_xad_u32 with dpp8 on src0, wave64. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp8.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp8_w64, 1, 12, 8
XAD_DPP8 1
XAD_END xad_dpp8_w64, 1, 12, 8, 28
