// needs: wave64
// xad_inline_src0_w64: every inline constant in src0, wave64. See
// kernels/include/xad_inline.inc and src/model/cases/inline.rs.
.include "xad_frame.inc"
.include "xad_inline.inc"
XAD_BEGIN xad_inline_src0_w64, 1, 90, 0
XAD_INLINE_BODY 0
XAD_END xad_inline_src0_w64, 1, 90, 0, 106
