; What a user's simple gfx10 kernels look like when LLVM compiles them (not
; hand-written assembly): tests/emu/emu_gfx10.rs compiles this file with the
; project's LLVM (clang -c, -mcpu=gfx1010 / gfx1030) and runs it on the
; emulator. LLVM chooses the initial state: on gfx10 (no architected flat
; scratch) it enables the private segment buffer s[0:3], the dispatch pointer,
; the kernarg pointer and the dispatch id, so the kernel arguments are not at
; s[0:1] as in the catalogue's hand-written frames; work-item ids y and z
; arrive in v1 and v2 (gfx10 has no packed work-item ids).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.y()

; out[i] = (a[i] ^ b[i]) + c[i] for i < count, i = workgroup id x * 256 +
; work-item id x (LLVM selects v_xad_u32 for a divergent (xor a, b) + c).
define amdgpu_kernel void @user_xad(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                                    ptr addrspace(1) %out, i32 %count) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %count
  br i1 %in, label %body, label %done
body:
  %pa = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr i32, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr i32, ptr addrspace(1) %c, i32 %i
  %va = load i32, ptr addrspace(1) %pa
  %vb = load i32, ptr addrspace(1) %pb
  %vc = load i32, ptr addrspace(1) %pc
  %x = xor i32 %va, %vb
  %r = add i32 %x, %vc
  %po = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %r, ptr addrspace(1) %po
  br label %done
done:
  ret void
}

; A 3-D workgroup of 8 x 4 x 2 work-items in a 2-D grid: each work-item
; writes x + 16 y + 256 z + 4096 (workgroup id x) + 65536 (workgroup id y)
; at its linear index (workgroup id y * groups_x + workgroup id x) * 64 +
; z * 32 + y * 8 + x.
define amdgpu_kernel void @user_ids(ptr addrspace(1) %out, i32 %groups_x) #1 {
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.workitem.id.y()
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  %gx = call i32 @llvm.amdgcn.workgroup.id.x()
  %gy = call i32 @llvm.amdgcn.workgroup.id.y()
  %y16 = shl i32 %y, 4
  %z256 = shl i32 %z, 8
  %gx4k = shl i32 %gx, 12
  %gy64k = shl i32 %gy, 16
  %v1 = add i32 %x, %y16
  %v2 = add i32 %v1, %z256
  %v3 = add i32 %v2, %gx4k
  %v = add i32 %v3, %gy64k
  %row = mul i32 %gy, %groups_x
  %group = add i32 %row, %gx
  %gbase = shl i32 %group, 6
  %z32 = shl i32 %z, 5
  %y8 = shl i32 %y, 3
  %l1 = add i32 %gbase, %z32
  %l2 = add i32 %l1, %y8
  %l = add i32 %l2, %x
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %l
  store i32 %v, ptr addrspace(1) %p
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="256,256" "amdgpu-no-implicitarg-ptr" }
attributes #1 = { "amdgpu-flat-work-group-size"="64,64" "amdgpu-no-implicitarg-ptr" }
