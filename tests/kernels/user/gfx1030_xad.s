// A user's own gfx1030 (RDNA2, RX 6800) kernel, written without the
// harness's frames: out[i] = v_xad_u32(a[i], b[i], c[i]) for i < count, in
// the standard lane ABI (README "Kernel ABI"). Wave32; gfx10 gives the
// work-item id x in v0 (no packing) and counts stores in vscnt.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1030"

.text
.globl user_xad
.p2align 8
.type user_xad,@function
user_xad:
  s_load_dwordx8 s[4:11], s[0:1], 0x0       // a, b, c, out
  s_load_dword s12, s[0:1], 0x20            // count
  s_lshl_b32 s13, s2, 8                     // workgroup id x * 256
  v_add_nc_u32 v1, s13, v0                  // global lane i
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc_lo, s12, v1
  s_and_saveexec_b32 s14, vcc_lo
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
  .amdhsa_wavefront_size32 1
  .amdhsa_kernarg_size 40
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx1030
amdhsa.kernels:
  - .name: user_xad
    .symbol: user_xad.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 18
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
