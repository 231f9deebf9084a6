// needs: wave32 vop3_literal
// xad_chain_w32: dependent v_xad_u32 back to back, wave32. See
// kernels/include/xad_chain.inc and src/model/cases/chain.rs.
.include "xad_frame.inc"
.include "xad_chain.inc"
XAD_BEGIN xad_chain_w32, 0, 25, 8
XAD_CHAIN_BODY
XAD_END xad_chain_w32, 0, 25, 8, 48
