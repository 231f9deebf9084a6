// Every scratch enable on gfx10: private segment buffer s[0:3], kernarg
// pointer s[4:5], flat scratch init s[6:7], workgroup id x s8, private segment
// wave offset s9 (ENABLE_PRIVATE_SEGMENT). 64 work-items per workgroup; lane
// i writes four words to out: i (from the workgroup id in s8), then the
// values of s0, s6 and s9. (Not k_frame.inc: the SGPR layout is the point.)
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[10:11], s[4:5], 0x18      // out
  s_lshl_b32 s12, s8, 6
  v_add_nc_u32 v1, s12, v0                   // i
  v_lshlrev_b32 v2, 4, v1                    // 16 i
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[10:11]
  v_mov_b32 v3, s0
  global_store_dword v2, v3, s[10:11] offset:4
  v_mov_b32 v3, s6
  global_store_dword v2, v3, s[10:11] offset:8
  v_mov_b32 v3, s9
  global_store_dword v2, v3, s[10:11] offset:12
  s_endpgm
.Lk_end:
.size k, .Lk_end - k

.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_private_segment_buffer 1
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_flat_scratch_init 1
  .amdhsa_system_sgpr_private_segment_wavefront_offset 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 4
  .amdhsa_next_free_sgpr 16
  .amdhsa_wavefront_size32 1
  .amdhsa_kernarg_size 40
.end_amdhsa_kernel

.macro META target, minor, unused:vararg
.amdgpu_metadata
---
amdhsa.version: [ 1, \minor ]
amdhsa.target: \target
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 16
    .vgpr_count: 4
    .max_flat_workgroup_size: 64
    .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: b, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: out, .offset: 24, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }
      - { .name: count, .offset: 32, .size: 4, .value_kind: by_value }
...
.end_amdgpu_metadata
.endm
XAD_TARGETED META
