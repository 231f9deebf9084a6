// needs: wave32
// xad_sha256_w32: SHA-256 compression of one or two 64-byte blocks per lane,
// wave32, 224 v_xad_u32 a block. See kernels/include/xad_sha256.inc and
// src/model/cases/sha256.rs.
.include "xad_frame.inc"
.include "xad_sha256.inc"
XAD_BEGIN xad_sha256_w32, 0, 8, 0
XAD_SHA256_BODY 0
XAD_END xad_sha256_w32, 0, 8, 0, 54
