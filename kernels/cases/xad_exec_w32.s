// needs: wave32 vop3_literal two_scalar_reads
// xad_exec_w32: v_xad_u32 under explicit EXEC lane patterns, wave32; masked
// lanes must keep their destination. See kernels/include/xad_exec.inc and
// src/model/cases/exec.rs.
.include "xad_frame.inc"
.include "xad_exec.inc"
XAD_BEGIN xad_exec_w32, 0, 14, 8
XAD_EXEC_BODY 0, 14
XAD_END xad_exec_w32, 0, 14, 8, 32
