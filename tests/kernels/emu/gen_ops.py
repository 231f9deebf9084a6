#!/usr/bin/env python3
"""Generates the per-instruction fixture kernels ops32.s (wave32) and ops64.s
(wave64) and op_names.txt for tests/emu/exec.rs:
    python3 tests/kernels/emu/gen_ops.py
Each lane i loads a = in[i], b = in[N + i], c = in[2N + i] and stores the result
of op k at out[k*N + i]. Workgroups are 64 work-items. The CPU model of every op
lives in tests/emu/exec.rs, keyed by the names in op_names.txt."""
import os

OPS = [
 ("v_xad_u32 v7, v3, v5, v6", "xad"),
 ("v_add_nc_u32 v7, v3, v5", "add"),
 ("v_sub_nc_u32 v7, v3, v5", "sub"),
 ("v_subrev_nc_u32 v7, v3, v5", "subrev"),
 ("v_lshlrev_b32 v7, v5, v3", "shl"),
 ("v_lshrrev_b32 v7, v5, v3", "shr"),
 ("v_ashrrev_i32 v7, v5, v3", "sar"),
 ("v_and_b32 v7, v3, v5", "and"),
 ("v_or_b32 v7, v3, v5", "or"),
 ("v_xor_b32 v7, v3, v5", "xor"),
 ("v_not_b32 v7, v3", "not"),
 ("v_xor3_b32 v7, v3, v5, v6", "xor3"),
 ("v_add3_u32 v7, v3, v5, v6", "add3"),
 ("v_lshl_add_u32 v7, v3, v5, v6", "lshl_add"),
 ("v_add_lshl_u32 v7, v3, v5, v6", "add_lshl"),
 ("v_and_or_b32 v7, v3, v5, v6", "and_or"),
 ("v_or3_b32 v7, v3, v5, v6", "or3"),
 ("v_mul_lo_u32 v7, v3, v5", "mul_lo"),
 ("v_mul_hi_u32 v7, v3, v5", "mul_hi"),
 ("v_mad_u32_u24 v7, v3, v5, v6", "mad24"),
 ("v_mul_u32_u24 v7, v3, v5", "mul24"),
 ("v_bfe_u32 v7, v3, v5, v6", "bfe"),
 ("v_alignbit_b32 v7, v3, v5, v6", "alignbit"),
 ("v_bfi_b32 v7, v3, v5, v6", "bfi"),
 ("v_perm_b32 v7, v3, v5, v6", "perm"),
 ("v_add_co_u32 v7, VCC, v3, v5", "add_co"),
 ("v_add_co_u32 v7, VCC, v3, v5\n  v_cndmask_b32_e64 v7, 0, 1, VCC", "add_co_carry"),
 ("v_add_co_u32 v8, VCC, v5, v6\n  v_add_co_ci_u32_e32 v7, VCC, v3, v5, VCC", "add_co_ci"),
 ("v_sub_co_u32 v8, VCC, v3, v5\n  v_cndmask_b32_e64 v7, 0, 1, VCC", "sub_borrow"),
 ("v_cmp_gt_u32_e32 VCC, v3, v5\n  v_cndmask_b32_e32 v7, v6, v3, VCC", "cmp_gt_sel"),
 ("v_cmp_lt_i32_e64 SPAIR, v3, v5\n  v_cndmask_b32_e64 v7, v5, v6, SPAIR", "cmp_lt_i32_sel"),
 ("v_readfirstlane_b32 s11, v3\n  v_mov_b32 v7, s11", "readfirstlane"),
 ("v_xad_u32 v7, v3, -1, 0.5", "xad_inline"),
 ("v_xad_u32 v7, v3, 0x12345678, v6", "xad_literal"),
 ("v_readfirstlane_b32 s11, v6\n  v_xad_u32 v7, s11, v5, 1.0", "xad_sgpr"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 dpp8:[1,0,3,2,5,4,7,6]", "xad_dpp8"),
 ("v_mov_b32 v7, 0xaaaaaaaa\n  v_xad_u32_e64_dpp v7, v3, v5, v6 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1", "xad_shl1_bc1"),
 ("v_mov_b32 v7, 0xaaaaaaaa\n  v_xad_u32_e64_dpp v7, v3, v5, v6 row_shl:1 row_mask:0xf bank_mask:0xf", "xad_shl1_bc0"),
 ("v_mov_b32 v7, 0xaaaaaaaa\n  v_xad_u32_e64_dpp v7, v3, v5, v6 quad_perm:[3,2,1,0] row_mask:0x1 bank_mask:0x5", "xad_quadperm_masked"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 row_mirror row_mask:0xf bank_mask:0xf", "xad_mirror"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 row_ror:3 row_mask:0xf bank_mask:0xf", "xad_ror3"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 row_xmask:5 row_mask:0xf bank_mask:0xf", "xad_xmask5"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 row_share:7 row_mask:0xf bank_mask:0xf", "xad_share7"),
 ("v_xad_u32_e64_dpp v7, v3, v5, v6 row_half_mirror row_mask:0xf bank_mask:0xf", "xad_half_mirror"),
 ("v_add_nc_u32_dpp v7, v3, v5 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1", "add_e32_shr2_bc1"),
 ("v_mov_b32 v7, v3\n  v_and_b32 v9, 1, v0\n  v_cmp_eq_u32_e32 VCC, 0, v9\n  SAVEEXEC VCC\n  v_mov_b32 v7, 0x55555555\n  RESTORE", "partial_mov"),
 ("v_mov_b32 v7, v3\n  v_and_b32 v9, 1, v0\n  v_cmp_eq_u32_e32 VCC, 0, v9\n  SAVEEXEC VCC\n  v_xad_u32_e64_dpp v7, v3, v5, v6 dpp8:[1,0,3,2,5,4,7,6]\n  RESTORE", "partial_dpp8_fi0"),
 ("v_mov_b32 v7, v3\n  v_and_b32 v9, 1, v0\n  v_cmp_eq_u32_e32 VCC, 0, v9\n  SAVEEXEC VCC\n  v_xad_u32_e64_dpp v7, v3, v5, v6 dpp8:[1,0,3,2,5,4,7,6] fi:1\n  RESTORE", "partial_dpp8_fi1"),
 ("v_mov_b32 v7, v3\n  v_and_b32 v9, 1, v0\n  v_cmpx_eq_u32_e32 0, v9\n  v_xad_u32_e64_dpp v7, v3, v5, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1\n  s_mov_b64 exec, -1", "partial_dpp16_bc1"),
 ("v_mov_b32 v7, v3\n  v_and_b32 v9, 1, v0\n  v_cmpx_eq_u32_e32 0, v9\n  v_xad_u32_e64_dpp v7, v3, v5, v6 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf fi:1\n  s_mov_b64 exec, -1", "partial_dpp16_fi1"),
 ("s_mov_b32 s16, 0\n  v_mov_b32 v7, 0\n.Lloop_LABEL:\n  v_add_nc_u32 v7, v7, v3\n  s_add_u32 s16, s16, 1\n  s_cmp_lt_u32 s16, 5\n  s_cbranch_scc1 .Lloop_LABEL", "loop5"),
 ("v_mov_b32 v7, 0\n  v_cmp_gt_u32_e32 VCC, v3, v5\n  SAVEEXEC VCC\n  s_cbranch_execz .Lskip_LABEL\n  v_mov_b32 v7, 1\n.Lskip_LABEL:\n  RESTORE", "branch_execz"),
 # 64-bit v_cmpx (VOP3): lane result 1 where (c:a) <op> (b:c) as 64-bit values (hi:lo).
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_lt_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_lt_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_le_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_le_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_gt_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_gt_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_ge_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_ge_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_eq_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_eq_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_ne_u64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_ne_u64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_lt_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_lt_i64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_le_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_le_i64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_gt_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_gt_i64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_ge_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_ge_i64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_eq_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_eq_i64"),
 ("v_mov_b32 v7, 0\n  v_mov_b32 v8, v3\n  v_mov_b32 v9, v6\n  v_mov_b32 v4, v6\n  SAVEALL\n  v_cmpx_ne_i64_e64 v[8:9], v[4:5]\n  v_mov_b32 v7, 1\n  RESTORE", "cmpx_ne_i64"),
]

def kernel(name, w):
    vcc = "vcc_lo" if w == 32 else "vcc"
    spair = "s12" if w == 32 else "s[12:13]"
    save = "s_and_saveexec_b32 s14" if w == 32 else "s_and_saveexec_b64 s[14:15]"
    restore = "s_or_b32 exec_lo, exec_lo, s14" if w == 32 else "s_or_b64 exec, exec, s[14:15]"
    saveall = "s_mov_b32 s14, exec_lo" if w == 32 else "s_mov_b64 s[14:15], exec"
    body = []
    for k, (asm, tag) in enumerate(OPS):
        a = (asm.replace("VCC", vcc).replace("SPAIR", spair).replace("SAVEEXEC", save).replace("SAVEALL", saveall)
             .replace("RESTORE", restore).replace("LABEL", f"{name}_{k}"))
        body.append(f"  // op {k}: {tag}\n  {a}\n  v_mad_u32_u24 v8, {k}, s10, v2\n  global_store_b32 v8, v7, s[6:7]")
    return f"""// GENERATED by tests/kernels/emu/gen_ops.py (edit that). Wave{w} per-instruction fixture.
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl {name}
.p2align 8
.type {name},@function
{name}:
  s_load_b128 s[4:7], s[0:1], 0x0
  s_load_b32 s8, s[0:1], 0x10
  v_and_b32 v0, 0x3ff, v0
  s_lshl_b32 s9, s2, 6
  v_add_nc_u32 v1, s9, v0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 2, v1
  s_lshl_b32 s10, s8, 2
  global_load_b32 v3, v2, s[4:5]
  v_add_nc_u32 v4, s10, v2
  global_load_b32 v5, v4, s[4:5]
  v_add_nc_u32 v4, s10, v4
  global_load_b32 v6, v4, s[4:5]
  s_waitcnt vmcnt(0)
""" + "\n".join(body) + f"""
  s_endpgm
.L{name}_end:
.size {name}, .L{name}_end - {name}

.rodata
.p2align 6
.amdhsa_kernel {name}
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 10
  .amdhsa_next_free_sgpr 20
  .amdhsa_wavefront_size32 {1 if w == 32 else 0}
  .amdhsa_kernarg_size 24
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.kernels:
  - .name: {name}
    .symbol: {name}.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: {w}
    .sgpr_count: 20
    .vgpr_count: 10
    .max_flat_workgroup_size: 64
    .args:
      - {{ .name: input, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: out, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .name: lanes, .offset: 16, .size: 4, .value_kind: by_value }}
...
.end_amdgpu_metadata
"""

here = os.path.dirname(os.path.abspath(__file__))
for w in (32, 64):
    open(os.path.join(here, f"ops{w}.s"), "w").write(kernel(f"ops{w}", w))
open(os.path.join(here, "op_names.txt"), "w").write("\n".join(t for _, t in OPS) + "\n")
