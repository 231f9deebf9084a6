; LLVM as the oracle for the emulator's wait counters and hazards (issue:
; "verdicts as strict as silicon"): the basic case's kernel (out[i] =
; (a[i] ^ b[i]) + c[i] for i < count, 256-lane workgroups) written as IR, so
; that LLVM's own passes (SIInsertWaitcnts, GCNHazardRecognizer,
; AMDGPUWaitSGPRHazards) decide the waits, nops and s_wait_alu. The xor
; result goes through an identity DPP move (quad_perm:[0,1,2,3]) so gfx9 has
; a VALU-write-then-DPP-read hazard for LLVM to pad; the 64-bit address
; arithmetic gives gfx12 its VCC hazards (LLVM 20+ pads those; LLVM 19 does
; not know the rule, see README "Verdicts as strict as silicon"). tests/emu/emu_definedness.rs compiles
; it with -O2 for a target of every generation, runs it as `--kernel` (clean
; as LLVM wrote it), then again with the waits or hazard padding removed.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)

define amdgpu_kernel void @xad_basic(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                                     ptr addrspace(1) %out, i32 %count) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %count
  br i1 %in, label %body, label %done
body:
  ; A sign-extended index: 64-bit address arithmetic in VGPRs (a VCC carry
  ; chain, which gfx12 must wait for with s_wait_alu depctr_va_vcc(0)).
  %i64 = sext i32 %i to i64
  %off = shl i64 %i64, 2
  %pa = getelementptr i8, ptr addrspace(1) %a, i64 %off
  %pb = getelementptr i8, ptr addrspace(1) %b, i64 %off
  %pc = getelementptr i8, ptr addrspace(1) %c, i64 %off
  %va = load i32, ptr addrspace(1) %pa
  %vb = load i32, ptr addrspace(1) %pb
  %vc = load i32, ptr addrspace(1) %pc
  %x = xor i32 %va, %vb
  ; 228 = quad_perm:[0,1,2,3]: every lane reads itself.
  %d = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 228, i32 15, i32 15, i1 false)
  %r = add i32 %d, %vc
  %po = getelementptr i8, ptr addrspace(1) %out, i64 %off
  store i32 %r, ptr addrspace(1) %po
  br label %done
done:
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }
!0 = !{i32 256, i32 1, i32 1}
