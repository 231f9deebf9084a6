// needs: wave64 two_scalar_reads null_sgpr high_sgprs
// xad_sreg_w64: scalar and special-register sources, wave64. See
// kernels/include/xad_sreg.inc and src/model/cases/sreg.rs.
.include "xad_frame.inc"
.include "xad_sreg.inc"
XAD_BEGIN xad_sreg_w64, 1, 44, 8
XAD_SREG_BODY 1
XAD_END xad_sreg_w64, 1, 44, 8, 64
