// needs: wave32
// xad_inline_src2_w32: every inline constant in src2, wave32. See
// kernels/include/xad_inline.inc and src/model/cases/inline.rs.
.include "xad_frame.inc"
.include "xad_inline.inc"
XAD_BEGIN xad_inline_src2_w32, 0, 90, 0
XAD_INLINE_BODY 2
XAD_END xad_inline_src2_w32, 0, 90, 0, 106
