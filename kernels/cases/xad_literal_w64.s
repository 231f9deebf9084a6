// needs: wave64 vop3_literal two_scalar_reads
// xad_literal_w64: 32-bit literal sources, wave64. See
// kernels/include/xad_literal.inc and src/model/cases/literal.rs.
.include "xad_frame.inc"
.include "xad_literal.inc"
XAD_BEGIN xad_literal_w64, 1, 55, 8
XAD_LITERAL_BODY
XAD_END xad_literal_w64, 1, 55, 8, 72
