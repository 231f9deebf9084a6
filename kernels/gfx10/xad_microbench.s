// xad_microbench for gfx10 (gfx1010, gfx1030, gfx10-1-generic, gfx10-3-generic):
// the timing kernel of `xad-harness microbench`, not a catalogue case. The
// body, ABI and record layout are in kernels/include/xad_microbench.inc; this
// file gives gfx10's spellings. Wave32.
//
// Counter: gfx10.3 (gfx1030, gfx10-3-generic) reads the 20-bit
// `hwreg(HW_REG_SHADER_CYCLES, 0, 20)` as gfx11 does (it wraps every 2^20
// cycles; the host takes differences modulo 2^20). gfx10.1 (gfx1010,
// gfx10-1-generic) has no SHADER_CYCLES register (llvm-mc-19: "invalid
// hardware register: not supported on this GPU"), so it reads the 64-bit
// counter of `s_memtime`, as LLVM's llvm.readcyclecounter does there. The
// assembler's `.amdgcn.gfx_generation_minor` (1 or 3) chooses.

.include "xad_target.inc"

.set XMB_WAVE, 32
.set XMB_UNIFIED_VGPRS, 0
.if .amdgcn.gfx_generation_minor >= 3
  .set XMB_COUNTER_KIND, 1
.else
  .set XMB_COUNTER_KIND, 3
.endif

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
// gfx1010's VMEM-to-scalar-write hazard (see xad_frame_gfx10.inc): an SALU
// write to an SGPR a vector load still reads needs vm_vsrc(0) first.
.macro XMB_WAIT_LOADS
  s_waitcnt vmcnt(0)
  s_waitcnt_depctr 0xffe3
.endm
.macro XMB_STORE vreg, word
  global_store_dword v1, \vreg, s[6:7] offset:4 * (\word)
.endm
.macro XMB_ADD dst, a, b
  v_add_nc_u32 \dst, \a, \b
.endm
.macro XMB_CYCLES n
  .if XMB_COUNTER_KIND == 1
    s_getreg_b32 s[\n], hwreg(HW_REG_SHADER_CYCLES, 0, 20)
    s_mov_b32 s[\n+1], 0
  .else
    s_memtime s[\n:\n+1]
    s_waitcnt lgkmcnt(0)                  // s_memtime is a scalar memory op
  .endif
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
