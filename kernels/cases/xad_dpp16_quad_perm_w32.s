// needs: wave32 null_sgpr vop3_dpp dpp_fetch_inactive
// xad_dpp16_quad_perm_w32: v_xad_u32 with dpp16 on src0, wave32. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp16.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp16_quad_perm_w32, 0, 12, 8
XAD_DPP16_QUAD_PERM 0
XAD_END xad_dpp16_quad_perm_w32, 0, 12, 8, 28
