// needs: wave32 two_scalar_reads null_sgpr high_sgprs
// xad_sreg_w32: scalar and special-register sources, wave32. See
// kernels/include/xad_sreg.inc and src/model/cases/sreg.rs.
.include "xad_frame.inc"
.include "xad_sreg.inc"
XAD_BEGIN xad_sreg_w32, 0, 36, 8
XAD_SREG_BODY 0
XAD_END xad_sreg_w32, 0, 36, 8, 64
