// needs: wave64
// xad_basic_w64: v_xad_u32 v5, v2, v3, v4 on a, b, c, wave64 (basic for gfx9, which is
// wave64 only). See src/model/cases/basic.rs.
.include "xad_frame.inc"
XAD_BEGIN xad_basic_w64, 1, 1, 0
  v_xad_u32 v5, v2, v3, v4
  XAD_STORE v5, 0
XAD_END xad_basic_w64, 1, 1, 0, 16
