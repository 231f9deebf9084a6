// needs: wave64
// xad_modifiers_w64: v_xad_u32 with each VOP3 modifier field set, one at a
// time, as raw words (issue 30), wave64. See kernels/include/xad_modifiers.inc
// and src/model/cases/modifier_readings.rs.
.include "xad_frame.inc"
.include "xad_modifiers.inc"
XAD_BEGIN xad_modifiers_w64, 1, 18, 0
XAD_MODIFIERS_BODY
XAD_END xad_modifiers_w64, 1, 18, 0, 40
