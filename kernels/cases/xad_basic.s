// needs: wave32
// xad_basic: out[i] = v_xad_u32(a[i], b[i], c[i]), the reference kernel of the
// `basic` case (src/model/cases/basic.rs). Its body differs per generation (memory
// and wait spellings, where the workgroup id is), and it is kept as a whole
// kernel without frame macros so it reads as one: the frame includes
// kernels/include/xad_basic_gfx<N>.s, this generation's text.
.include "xad_frame.inc"
XAD_GEN_INCLUDE xad_basic, s
