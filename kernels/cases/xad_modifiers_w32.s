// needs: wave32
// xad_modifiers_w32: v_xad_u32 with each VOP3 modifier field set, one at a
// time, as raw words (issue 30), wave32. See kernels/include/xad_modifiers.inc
// and src/model/cases/modifier_readings.rs.
.include "xad_frame.inc"
.include "xad_modifiers.inc"
XAD_BEGIN xad_modifiers_w32, 0, 18, 0
XAD_MODIFIERS_BODY
XAD_END xad_modifiers_w32, 0, 18, 0, 40
