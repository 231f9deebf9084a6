// needs: wave64
// xad_sreg_one_w64: one scalar value per op (gfx9's constant bus limit), wave64. See
// kernels/include/xad_sreg.inc and src/model/cases/sreg.rs.
.include "xad_frame.inc"
.include "xad_sreg.inc"
XAD_BEGIN xad_sreg_one_w64, 1, 37, 8
XAD_SREG_ONE_BODY
XAD_END xad_sreg_one_w64, 1, 37, 8, 53
