// xad_microbench for gfx12 (gfx1200, gfx1201, gfx12-generic): the timing
// kernel of `xad-harness microbench`, not a catalogue case. The body, ABI and
// record layout are in kernels/include/xad_microbench.inc; this file gives
// gfx12's spellings. Wave32.
//
// Counter: gfx12 has no 20-bit HW_REG_SHADER_CYCLES; it has the 64-bit
// shader-clock cycle counter as two 32-bit registers, read with
// `s_getreg_b32 hwreg(HW_REG_SHADER_CYCLES_LO)` and `..._HI` (spellings checked
// with llvm-mc-19 -mcpu=gfx1200). The two halves are separate reads, so
// XMB_CYCLES reads HI, LO, HI: when the two HI reads differ, LO wrapped
// between them and 0 is the LO that goes with the second HI (off by at most
// the few cycles between the reads).

.include "xad_target.inc"

.set XMB_WAVE, 32
.set XMB_UNIFIED_VGPRS, 0
.set XMB_COUNTER_KIND, 2

.macro XMB_LOAD_KERNARGS
  s_load_b128 s[4:7], s[0:1], 0x0
  s_load_b32 s8, s[0:1], 0x10
.endm
.macro XMB_WAIT_KERNARGS
  s_wait_kmcnt 0
.endm
// gfx12 has the workgroup id in the architected ttmp9 (LLVM reads it there).
.macro XMB_WORKGROUP_ID
  s_mov_b32 s2, ttmp9
.endm
.macro XMB_LOAD vreg, word
  global_load_b32 \vreg, v5, s[4:5] offset:4 * (\word)
.endm
.macro XMB_WAIT_LOADS
  s_wait_loadcnt 0
.endm
.macro XMB_STORE vreg, word
  global_store_b32 v1, \vreg, s[6:7] offset:4 * (\word)
.endm
.macro XMB_ADD dst, a, b
  v_add_nc_u32 \dst, \a, \b
.endm
.macro XMB_CYCLES n
  s_getreg_b32 s[\n+1], hwreg(HW_REG_SHADER_CYCLES_HI)
  s_getreg_b32 s[\n], hwreg(HW_REG_SHADER_CYCLES_LO)
  s_getreg_b32 s12, hwreg(HW_REG_SHADER_CYCLES_HI)
  s_cmp_eq_u32 s[\n+1], s12
  s_cselect_b32 s[\n], s[\n], 0
  s_mov_b32 s[\n+1], s12
.endm
.macro XMB_BARRIER
  s_barrier_signal -1
  s_barrier_wait -1
.endm
.macro XMB_ONE_LANE
  s_mov_b32 exec_lo, 1
.endm

.macro XMB_READLANE_WAIT
.endm

.include "xad_microbench.inc"
XMB_KERNEL xad_microbench
