// needs: wave64
// xad_chain_inline_w64: xad_chain_w64 with inline 1/(2pi) for its literal, wave64. See
// kernels/include/xad_chain.inc and src/model/cases/chain.rs.
.include "xad_frame.inc"
.include "xad_chain.inc"
XAD_BEGIN xad_chain_inline_w64, 1, 25, 8
XAD_CHAIN_BODY 0.15915494
XAD_END xad_chain_inline_w64, 1, 25, 8, 48
