// needs: wave64
// xad_inline_src1_w64: every inline constant in src1, wave64. See
// kernels/include/xad_inline.inc and src/model/cases/inline.rs.
.include "xad_frame.inc"
.include "xad_inline.inc"
XAD_BEGIN xad_inline_src1_w64, 1, 90, 0
XAD_INLINE_BODY 1
XAD_END xad_inline_src1_w64, 1, 90, 0, 106
