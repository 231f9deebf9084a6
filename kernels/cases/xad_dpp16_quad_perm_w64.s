// needs: wave64 null_sgpr vop3_dpp dpp_fetch_inactive
// xad_dpp16_quad_perm_w64: v_xad_u32 with dpp16 on src0, wave64. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp16.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp16_quad_perm_w64, 1, 12, 8
XAD_DPP16_QUAD_PERM 1
XAD_END xad_dpp16_quad_perm_w64, 1, 12, 8, 28
