// xad_basic: out[i] = v_xad_u32(a[i], b[i], c[i]) = (a[i] ^ b[i]) + c[i] for i < count.
//
// ABI (the harness's standard lane ABI, see docs/kernel-abi.md):
//   kernarg  0: a      u32* global, read
//   kernarg  8: b      u32* global, read
//   kernarg 16: c      u32* global, read
//   kernarg 24: out    u32* global, written for i < count only
//   kernarg 32: count  u32  lanes to compute
//   kernarg size 40 (no hidden arguments are declared, so none are read).
// Dispatch: 1-D, workgroup size fixed at 256 (.reqd_workgroup_size), grid =
// ceil(count / 256) workgroups. Global lane i = workgroup_id.x * 256 + local id.x;
// lanes with i >= count are switched off in EXEC and touch no memory.
// Wave32. Initial state (kernel descriptor below): s[0:1] = kernarg pointer,
// ttmp9 = workgroup id x (gfx12's architected SGPRs; gfx11's system SGPR s2
// is not relied on), v0 = packed work-item id (x in bits 9:0).
//
// The gfx12 (RDNA4) twin of kernels/include/xad_basic_gfx11.s: the same instructions
// but for the workgroup id and the waits (gfx12 has `s_wait_kmcnt` for scalar
// loads and `s_wait_loadcnt` for vector loads instead of `s_waitcnt`). Why no
// `s_wait_storecnt`/`s_sendmsg MSG_DEALLOC_VGPRS` precedes `s_endpgm`: see
// kernels/include/xad_frame_gfx12.inc.

// The gfx12 text of the reference kernel, a whole kernel without frame
// macros: kernels/cases/xad_basic.s includes it through xad_frame_gfx12.inc's
// XAD_GEN_INCLUDE, and it also assembles on its own (`run --kernel` this
// file, or a copy). `.amdgcn_target` and XAD_TARGETED (which the metadata
// below uses): xad_target.inc, written per target from crates/xad-build/src/target.rs and
// included once however often it is named (the frame names it too).
.include "xad_target.inc"

.text
.globl xad_basic
.p2align 8
.type xad_basic,@function
xad_basic:
  s_load_b256 s[4:11], s[0:1], 0x0          // s[4:5]=a s[6:7]=b s[8:9]=c s[10:11]=out
  s_load_b32 s12, s[0:1], 0x20              // count
  v_and_b32 v0, 0x3ff, v0                   // local id x
  s_lshl_b32 s13, ttmp9, 8                  // first lane of this workgroup
  v_add_nc_u32 v1, s13, v0                  // global lane i
  s_wait_kmcnt 0                            // count and the pointers
  v_cmp_gt_u32 vcc_lo, s12, v1              // i < count
  s_and_saveexec_b32 s14, vcc_lo
  s_cbranch_execz .Lxad_basic_done
  v_lshlrev_b32 v1, 2, v1                   // byte offset
  global_load_b32 v2, v1, s[4:5]
  global_load_b32 v3, v1, s[6:7]
  global_load_b32 v4, v1, s[8:9]
  s_wait_loadcnt 0
  v_xad_u32 v5, v2, v3, v4                  // the instruction under test
  global_store_b32 v1, v5, s[10:11]
.Lxad_basic_done:
  s_endpgm
.Lxad_basic_end:
.size xad_basic, .Lxad_basic_end - xad_basic

.rodata
.p2align 6
.amdhsa_kernel xad_basic
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 6
  .amdhsa_next_free_sgpr 15
  .amdhsa_wavefront_size32 1
  .amdhsa_kernarg_size 40
.end_amdhsa_kernel

.macro XAD_BASIC_META target, minor, unused:vararg
.amdgpu_metadata
---
amdhsa.version: [ 1, \minor ]
amdhsa.target: \target
amdhsa.kernels:
  - .name: xad_basic
    .symbol: xad_basic.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 15
    .vgpr_count: 6
    .max_flat_workgroup_size: 256
    .reqd_workgroup_size: [ 256, 1, 1 ]
    .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: b, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: out, .offset: 24, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }
      - { .name: count, .offset: 32, .size: 4, .value_kind: by_value }
...
.end_amdgpu_metadata
.endm
XAD_TARGETED XAD_BASIC_META
