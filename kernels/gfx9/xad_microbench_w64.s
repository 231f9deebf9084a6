// xad_microbench_w64 for gfx9 (gfx908, gfx90a, gfx942, gfx950, gfx9-generic,
// gfx9-4-generic): the timing kernel of `xad-harness microbench`, not a
// catalogue case. The body, ABI and record layout are in
// kernels/include/xad_microbench.inc; this file gives gfx9's spellings.
// Wave64 (gfx9 has no other).
//
// Counter: gfx9 has no SHADER_CYCLES register; `s_memtime` reads a 64-bit
// counter (what LLVM's llvm.readcyclecounter and HIP's clock64() read there).

.include "xad_target.inc"

.set XMB_WAVE, 64
// gfx90a, gfx940+ (as xad_frame_gfx9.inc tells them apart).
.set XMB_UNIFIED_VGPRS, (.amdgcn.gfx_generation_minor > 0) || (.amdgcn.gfx_generation_stepping >= 10)
.set XMB_COUNTER_KIND, 3

.macro XMB_LOAD_KERNARGS
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s8, s[0:1], 0x10
.endm
.macro XMB_WAIT_KERNARGS
  s_waitcnt lgkmcnt(0)
.endm
// The dispatcher puts workgroup id x in s2 (after the two kernarg-pointer SGPRs).
.macro XMB_WORKGROUP_ID
.endm
.macro XMB_LOAD vreg, word
  global_load_dword \vreg, v5, s[4:5] offset:4 * (\word)
.endm
.macro XMB_WAIT_LOADS
  s_waitcnt vmcnt(0)
.endm
.macro XMB_STORE vreg, word
  global_store_dword v1, \vreg, s[6:7] offset:4 * (\word)
.endm
.macro XMB_ADD dst, a, b
  v_add_u32 \dst, \a, \b
.endm
.macro XMB_CYCLES n
  s_memtime s[\n:\n+1]
  s_waitcnt lgkmcnt(0)                    // s_memtime is a scalar memory op
.endm
.macro XMB_BARRIER
  s_barrier
.endm
.macro XMB_ONE_LANE
  s_mov_b64 exec, 1
.endm

.macro XMB_READLANE_WAIT
  s_nop 0                                 // gfx940+: a VALU write, then v_readfirstlane of it, needs 1 wait state
.endm

.include "xad_microbench.inc"
XMB_KERNEL xad_microbench_w64
