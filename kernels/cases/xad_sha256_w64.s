// needs: wave64
// xad_sha256_w64: SHA-256 compression of one or two 64-byte blocks per lane,
// wave64, 224 v_xad_u32 a block. See kernels/include/xad_sha256.inc and
// src/model/cases/sha256.rs.
.include "xad_frame.inc"
.include "xad_sha256.inc"
XAD_BEGIN xad_sha256_w64, 1, 8, 0
XAD_SHA256_BODY 1
XAD_END xad_sha256_w64, 1, 8, 0, 54
