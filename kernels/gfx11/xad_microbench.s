// xad_microbench for gfx11 (gfx1100-1103, gfx1150-1152, gfx11-generic): the
// timing kernel of `xad-harness microbench`, not a catalogue case. The body,
// ABI and record layout are in kernels/include/xad_microbench.inc; this file
// gives gfx11's spellings. Wave32 (RDNA's native wave size).
//
// Counter: `s_getreg_b32 hwreg(HW_REG_SHADER_CYCLES, 0, 20)`, the 20-bit
// shader-clock cycle counter (per SIMD, not synchronised across SIMDs). It
// wraps every 2^20 cycles: the host takes differences modulo 2^20 and keeps
// every region far shorter than that (README "Microbenchmarks").

.include "xad_target.inc"

.set XMB_WAVE, 32
.set XMB_UNIFIED_VGPRS, 0
.set XMB_COUNTER_KIND, 1

.macro XMB_LOAD_KERNARGS
  s_load_b128 s[4:7], s[0:1], 0x0
  s_load_b32 s8, s[0:1], 0x10
.endm
.macro XMB_WAIT_KERNARGS
  s_waitcnt lgkmcnt(0)
.endm
// The dispatcher puts workgroup id x in s2 (after the two kernarg-pointer SGPRs).
.macro XMB_WORKGROUP_ID
.endm
.macro XMB_LOAD vreg, word
  global_load_b32 \vreg, v5, s[4:5] offset:4 * (\word)
.endm
.macro XMB_WAIT_LOADS
  s_waitcnt vmcnt(0)
.endm
.macro XMB_STORE vreg, word
  global_store_b32 v1, \vreg, s[6:7] offset:4 * (\word)
.endm
.macro XMB_ADD dst, a, b
  v_add_nc_u32 \dst, \a, \b
.endm
.macro XMB_CYCLES n
  s_getreg_b32 s[\n], hwreg(HW_REG_SHADER_CYCLES, 0, 20)
  s_mov_b32 s[\n+1], 0
.endm
.macro XMB_BARRIER
  s_barrier
.endm
.macro XMB_ONE_LANE
  s_mov_b32 exec_lo, 1
.endm

.macro XMB_READLANE_WAIT
.endm

.include "xad_microbench.inc"
XMB_KERNEL xad_microbench
