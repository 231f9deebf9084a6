// DPP moves feeding v_xad_u32 on gfx10 (no VOP3 DPP there): per lane i, six
// words v_xad_u32(dpp(a), b[i], c[i]) where the move's destination held i
// before the move (a lane the move does not write keeps i):
//   0: row_share:5         1: row_xmask:9        2: dpp8:[3,1,4,1,5,7,2,6]
//   3: row_share:15 row_mask:0x5 bank_mask:0xa (masked lanes keep i)
//   4: row_xmask:1 fi:1 with only the even lanes active (odd lanes keep i)
//   5: dpp8:[7,6,5,4,3,2,1,0] fi:1 with lanes 0-3 of every 8 active
// Inactive source lanes are read only with fi:1, which the RDNA1/2 guides
// define (the inactive lane's value is fetched). XAD_WRONG swaps b and c in
// word 1 (the negative control).
.include "k_frame.inc"

// Word j: v10 := i in every lane, then under EXEC = \exec (in each 32-lane
// half) the DPP move into v10, then with every lane active v_xad_u32 and the
// store.
.macro WORD j, exec, mov:vararg
  v_mov_b32 v10, v1
  K_EXEC \exec
  \mov
  K_EXEC -1
  .if XAD_WRONG && (\j == 1)
    v_xad_u32 v11, v10, v4, v3
  .else
    v_xad_u32 v11, v10, v3, v4
  .endif
  global_store_dword v7, v11, s[10:11] offset:4 * \j
.endm

K_BEGIN 6
  WORD 0, -1, v_mov_b32_dpp v10, v2 row_share:5 row_mask:0xf bank_mask:0xf
  WORD 1, -1, v_mov_b32_dpp v10, v2 row_xmask:9 row_mask:0xf bank_mask:0xf
  WORD 2, -1, v_mov_b32_dpp v10, v2 dpp8:[3,1,4,1,5,7,2,6]
  WORD 3, -1, v_mov_b32_dpp v10, v2 row_share:15 row_mask:0x5 bank_mask:0xa
  WORD 4, 0x55555555, v_mov_b32_dpp v10, v2 row_xmask:1 row_mask:0xf bank_mask:0xf fi:1
  WORD 5, 0x0f0f0f0f, v_mov_b32_dpp v10, v2 dpp8:[7,6,5,4,3,2,1,0] fi:1
K_END
