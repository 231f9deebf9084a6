// needs: wave64
// xad_exec_inline_w64: xad_exec_w64 with inline 1/(2pi) for its literal, wave64; masked lanes
// must keep their destination. See kernels/include/xad_exec.inc and src/model/cases/exec.rs.
.include "xad_frame.inc"
.include "xad_exec.inc"
XAD_BEGIN xad_exec_inline_w64, 1, 15, 8
XAD_EXEC_BODY 1, 15, 0.15915494
XAD_END xad_exec_inline_w64, 1, 15, 8, 32
