// needs: wave32
// xad_microbench: the timing kernel of `xad-harness microbench` (not a
// catalogue case), wave32 where the target has it. Body, ABI and records:
// kernels/include/xad_microbench.inc; this generation's spellings:
// kernels/include/xad_microbench_gfx<N>.inc, through the frame.
.include "xad_frame.inc"
XAD_GEN_INCLUDE xad_microbench
.include "xad_microbench.inc"
XMB_KERNEL xad_microbench
