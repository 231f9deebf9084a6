// What the RDNA guides leave open on gfx10 too: a DPP16 move reading an
// inactive, in-range source lane with bound_ctrl and fi both 0 (LLVM's gfx10
// syntax: no bound_ctrl modifier, since `bound_ctrl:0` encodes BC=1 before
// gfx11). Only the even lanes are active; each reads its odd neighbour
// (row_xmask:1). Per lane i one word: v10 (i before the move).
.include "k_frame.inc"

K_BEGIN 1
  v_mov_b32 v10, v1
  K_EXEC 0x55555555
  v_mov_b32_dpp v10, v2 row_xmask:1 row_mask:0xf bank_mask:0xf
  K_EXEC -1
  global_store_dword v7, v10, s[10:11]
K_END
