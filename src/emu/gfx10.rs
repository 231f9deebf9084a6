//! What the emulator does differently for gfx10 (RDNA1/2: gfx1010, gfx1030
//! and the gfx10-1/gfx10-3 generic targets). Decoding is `crate::isa`'s
//! (gfx10's m0 = 124 and null = 125 arrive in gfx11's numbering); execution
//! is the gfx11 path: the same VALU/SALU/memory ops, wave32 and wave64 with
//! 64-bit VCC/EXEC in wave64 (a VOPC e32 writes the whole VCC), and DPP16
//! (quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror, row_share,
//! row_xmask, row/bank masks, bound_ctrl, fi) and DPP8 on VOP1/VOP2 with the
//! same lane rules (AMD's RDNA1/RDNA2 ISA guides, "DPP"; LLVM
//! AMDGPUModifierSyntax). gfx10 has no VOP3 DPP and no wave-wide or
//! row-broadcast controls (its decoder refuses gfx9's codes). An inactive
//! in-range DPP16 source with bound_ctrl=0, fi=0 is unsettled, as on gfx11.
//!
//! Initial wave state (LLVM AMDGPUUsage "Initial Kernel Execution State";
//! checked against what `clang-19 -mcpu=gfx1030 -O2` generates, see
//! tests/kernels/emu/gfx10/llvm/user_kernels.ll), set up by `super::launch`
//! from the target's [`super::launch::LaunchAbi`]:
//! - gfx10 has no architected flat scratch (LLVM's
//!   `FeatureArchitectedFlatScratch` starts at gfx940/gfx11), so the user
//!   SGPRs are gfx9's: private segment buffer (4), dispatch ptr, queue ptr,
//!   kernarg ptr, dispatch id (2 each), flat scratch init (2), private segment
//!   size (1), packed from s0 (`super::launch::user_sgprs`). LLVM 19 enables
//!   the private segment buffer in every gfx10 kernel it compiles, so a
//!   user's kernel has its kernarg pointer at s[4:5], not s[0:1].
//! - System SGPRs from `s[USER_SGPR_COUNT]`: workgroup id x, y, z, workgroup
//!   info, then the private segment wave offset when ENABLE_PRIVATE_SEGMENT
//!   is set.
//! - Scratch is not emulated (scratch and buffer instructions do not decode,
//!   so they fault if executed). The values the command processor would put
//!   in the scratch SGPRs (the private segment buffer V#, flat scratch init,
//!   the wave offset) are therefore unknown here: those SGPRs are written as
//!   0 and marked unsettled, so a result computed from them is neither a pass
//!   nor a fail, while every SGPR after them sits where the hardware puts it.
//! - Work-item ids in separate VGPRs: x in v0, y in v1, z in v2 (as many as
//!   ENABLE_VGPR_WORKITEM_ID asks for). gfx10 lacks LLVM's `FeaturePackedTID`
//!   (gfx90a, gfx940+ and gfx11+ pack them into v0); `clang-19 -mcpu=gfx1030`
//!   reads y from v1 and z from v2.
//! - Wave size from the descriptor's ENABLE_WAVEFRONT_SIZE32; VGPRs in
//!   granules of 8 (wave32) or 4 (wave64), the descriptor's encoding granule
//!   on every gfx10 processor (gfx10.3 allocates in larger blocks, which a
//!   kernel cannot address beyond what it declared anyway).
//!
//! Waits: `s_waitcnt` (gfx10 layout: vmcnt [3:0] and [15:14], expcnt [6:4],
//! lgkmcnt [13:8]), `s_waitcnt_vscnt` and `s_waitcnt_depctr` have no effect:
//! memory operations complete at once and in program order here, so nothing
//! is ever outstanding and the definedness shadow follows every load's value
//! as it is written (a kernel missing a wait still computes the right answer
//! here; the emulator does not judge wait placement).

#[cfg(test)]
mod tests {
    use super::super::launch::{mask_of, user_sgprs, DispatchAddrs, LaunchAbi};
    use crate::codeobj::KernelDescriptor;
    use crate::target::Target;

    fn gfx1030() -> &'static Target {
        crate::target::find("gfx1030").expect("gfx1030 row")
    }

    /// LLVM 19's gfx1030 default (private segment buffer, dispatch ptr,
    /// kernarg ptr, dispatch id; USER_SGPR_COUNT 10) plus flat scratch init
    /// and the wave offset after workgroup id x: the scratch SGPRs are
    /// s0-s3, s10-s11 and s13 (USER_SGPR_COUNT 12, wg id x in s12).
    #[test]
    fn scratch_sgprs_sit_where_gfx10_puts_them() {
        let kd = KernelDescriptor {
            code_properties: 1 | 1 << 1 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 10,
            rsrc2: 1 | 12 << 1 | 1 << 7,
            ..Default::default()
        };
        let want = 0xf | 3 << 10 | 1 << 13;
        let abi = LaunchAbi::of(gfx1030());
        assert_eq!(mask_of(&abi.unmodelled_sgpr_reasons(&kd, gfx1030())), want);
        assert!(abi.wave_offset(&kd));
        let gfx1100 = crate::target::find("gfx1100").expect("gfx1100 row");
        let rdna3 = LaunchAbi::of(gfx1100);
        assert_eq!(
            (
                mask_of(&rdna3.unmodelled_sgpr_reasons(&kd, gfx1100)),
                rdna3.wave_offset(&kd)
            ),
            (0, false)
        );
        let addrs = DispatchAddrs {
            kernarg: 0x1111_2222_3333,
            block: 0x40,
            dispatch_id: 9,
            ring: None,
        };
        let user = user_sgprs(&kd, abi, &addrs).expect("user SGPRs");
        assert_eq!(user.len(), 12);
        assert_eq!(&user[..4], &[0; 4], "private segment buffer");
        assert_eq!(
            &user[6..10],
            &[0x2222_3333, 0x1111, 9, 0],
            "kernarg ptr, dispatch id"
        );
        assert_eq!(&user[10..], &[0; 2], "flat scratch init");
    }
}
