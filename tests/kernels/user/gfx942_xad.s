// A user's own gfx942 (CDNA3, MI300) kernel, written without the harness's
// frames: out[i] = v_xad_u32(a[i], b[i], c[i]) for i < count, in the
// standard lane ABI (README "Kernel ABI"). Wave64 (gfx9 has no wave32);
// gfx942 packs the work-item ids into v0 (x in bits 9:0).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"

.text
.globl user_xad
.p2align 8
.type user_xad,@function
user_xad:
  s_load_dwordx8 s[4:11], s[0:1], 0x0       // a, b, c, out
  s_load_dword s12, s[0:1], 0x20            // count
  v_and_b32 v0, 0x3ff, v0
  s_lshl_b32 s13, s2, 8                     // workgroup id x * 256
  v_add_u32 v1, s13, v0                     // global lane i
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc, s12, v1
  s_and_saveexec_b64 s[14:15], vcc
  s_cbranch_execz .Ldone
  v_lshlrev_b32 v1, 2, v1
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[6:7]
  global_load_dword v4, v1, s[8:9]
  s_waitcnt vmcnt(0)
  v_xad_u32 v5, v2, v3, v4
  global_store_dword v1, v5, s[10:11]
.Ldone:
  s_endpgm
.Lend:
.size user_xad, .Lend - user_xad

.rodata
.p2align 6
.amdhsa_kernel user_xad
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 6
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 40
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: user_xad
    .symbol: user_xad.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 22
    .vgpr_count: 8
    .agpr_count: 0
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
