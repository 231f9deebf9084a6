// needs: wave32
// xad_sreg_hi_w32: vcc_hi and exec_hi as sources in wave32, where the ISA guide
// does not say what they read (VCC and EXEC are 32-bit there; only masking is
// documented to ignore the upper halves). The kernel writes both from scalar
// arguments first, so the model expects the written values; the case is
// marked unsettled. Op table: src/model/cases/sreg.rs.
.include "xad_frame.inc"
XAD_BEGIN xad_sreg_hi_w32, 0, 6, 8
  s_mov_b32 vcc_hi, s24
  s_mov_b32 exec_hi, s25
  v_xad_u32 v16, vcc_hi, v3, v4             // 0
  v_xad_u32 v17, v2, vcc_hi, v4             // 1
  v_xad_u32 v18, v2, v3, vcc_hi             // 2
  v_xad_u32 v19, exec_hi, v3, v4            // 3
  v_xad_u32 v20, v2, exec_hi, v4            // 4
  v_xad_u32 v21, v2, v3, exec_hi            // 5
  XAD_STORE v16, 0
  XAD_STORE v17, 1
  XAD_STORE v18, 2
  XAD_STORE v19, 3
  XAD_STORE v20, 4
  XAD_STORE v21, 5
XAD_END xad_sreg_hi_w32, 0, 6, 8, 24
