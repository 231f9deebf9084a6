// needs: wave32 vgpr_msb
// xad_vgpr_msb_w32: v_xad_u32 operands in v256-v1023 through s_set_vgpr_msb
// (CDNA5), wave32. See kernels/include/xad_vgpr_msb.inc and src/model/cases/vgpr_msb.rs.
.include "xad_frame.inc"
.include "xad_vgpr_msb.inc"
XAD_BEGIN xad_vgpr_msb_w32, 0, 5, 0
XAD_VGPR_MSB_BODY
XAD_END xad_vgpr_msb_w32, 0, 5, 0, 1024
