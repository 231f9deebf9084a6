// needs: wave64
// xad_vgpr_w64: VGPR operand forms and vdst aliasing, wave64. See
// kernels/include/xad_vgpr.inc and src/model/cases/vgpr.rs.
.include "xad_frame.inc"
.include "xad_vgpr.inc"
XAD_BEGIN xad_vgpr_w64, 1, 13, 0
XAD_VGPR_BODY 1
XAD_END xad_vgpr_w64, 1, 13, 0, 256
