// needs: wave32
// xad_vgpr_w32: VGPR operand forms and vdst aliasing, wave32. See
// kernels/include/xad_vgpr.inc and src/model/cases/vgpr.rs.
.include "xad_frame.inc"
.include "xad_vgpr.inc"
XAD_BEGIN xad_vgpr_w32, 0, 13, 0
XAD_VGPR_BODY 0
XAD_END xad_vgpr_w32, 0, 13, 0, 256
