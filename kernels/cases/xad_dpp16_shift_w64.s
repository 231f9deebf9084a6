// needs: wave64 vop3_dpp
// xad_dpp16_shift_w64: v_xad_u32 with dpp16 on src0, wave64. See
// kernels/include/xad_dpp.inc and src/model/cases/dpp16.rs.
.include "xad_frame.inc"
.include "xad_dpp.inc"
XAD_BEGIN xad_dpp16_shift_w64, 1, 75, 8
XAD_DPP16_SHIFT 1
XAD_END xad_dpp16_shift_w64, 1, 75, 8, 91
