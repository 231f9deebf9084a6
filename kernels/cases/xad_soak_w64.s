// needs: !wave32
// xad_soak_w64: the soak kernel, wave64 (kernels/include/xad_soak.inc has its algorithm,
// arguments and records; `xad-harness soak` runs it, src/commands/soak/endurance.rs).
.include "xad_soak.inc"
XAD_SOAK xad_soak_w64, 1
