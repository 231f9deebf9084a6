// needs: !wave32
// xad_microbench_w64: the timing kernel of `xad-harness microbench` on a
// target without wave32 (gfx9), where wave64 is the only size. Body, ABI and
// records: kernels/include/xad_microbench.inc; this generation's spellings:
// kernels/include/xad_microbench_gfx<N>.inc, through the frame.
.include "xad_frame.inc"
XAD_GEN_INCLUDE xad_microbench
.include "xad_microbench.inc"
XMB_KERNEL xad_microbench_w64
