//! Launch setup: the initial state of every wave from the kernel descriptor
//! and the dispatch (LLVM AMDGPUUsage "Initial Kernel Execution State"), and
//! the HSA dispatch packet a kernel may ask a pointer to.

use super::fault::WaveAt;
use super::wave::{Wave, SGPR_INIT};
use crate::codeobj::KernelDescriptor;
use crate::device::Dispatch;
use crate::isa::EXEC;

/// Per-launch constants every wave's setup reads.
pub(super) struct LaunchSetup {
    pub(super) kd: KernelDescriptor,
    pub(super) dispatch: Dispatch,
    pub(super) waves_per_group: usize,
    /// Work-items per workgroup (for global lane numbers).
    group_lanes: u64,
    /// s0-s129 of a new wave: the user SGPRs packed from s0, the rest zero
    /// (identical for every wave).
    sgprs: [u32; SGPR_INIT],
    /// Per wave of a workgroup: packed work-item ids (v0) and EXEC, the same
    /// for every workgroup, so computed once per launch.
    v0: Vec<Vec<u32>>,
    exec: Vec<u64>,
}

/// The user SGPRs the descriptor enables, packed in their fixed order.
fn user_sgprs(kd: &KernelDescriptor, kernarg_ptr: u64, dispatch_ptr: u64, dispatch_id: u64) -> Vec<u32> {
    let mut user: Vec<u32> = Vec::with_capacity(16);
    let push64 = |user: &mut Vec<u32>, v: u64| {
        user.push(v as u32);
        user.push((v >> 32) as u32);
    };
    if kd.dispatch_ptr() {
        push64(&mut user, dispatch_ptr);
    }
    if kd.queue_ptr() {
        push64(&mut user, 0); // refused before launch
    }
    if kd.kernarg_ptr() {
        push64(&mut user, kernarg_ptr);
    }
    if kd.dispatch_id() {
        push64(&mut user, dispatch_id);
    }
    if kd.private_segment_size() {
        user.push(kd.private_segment_fixed_size);
    }
    user.truncate(106);
    user
}

impl LaunchSetup {
    pub(super) fn new(kd: KernelDescriptor, dispatch: Dispatch, kernarg_ptr: u64, dispatch_ptr: u64, dispatch_id: u64) -> LaunchSetup {
        let user = user_sgprs(&kd, kernarg_ptr, dispatch_ptr, dispatch_id);
        let wave_size = kd.wave_size() as usize;
        let [bx, by, bz] = dispatch.block;
        let group_lanes = (bx * by * bz) as usize;
        let waves_per_group = group_lanes.div_ceil(wave_size);
        let dims = kd.workitem_id_dims();
        let mut v0 = vec![vec![0u32; wave_size]; waves_per_group];
        let mut exec = vec![0u64; waves_per_group];
        for linear in 0..group_lanes {
            let (w, lane) = (linear / wave_size, linear % wave_size);
            let l = linear as u32;
            let (x, y, z) = (l % bx, (l / bx) % by, l / (bx * by));
            v0[w][lane] = x | if dims >= 1 { y << 10 } else { 0 } | if dims >= 2 { z << 20 } else { 0 };
            exec[w] |= 1 << lane;
        }
        let mut sgprs = [0u32; SGPR_INIT];
        sgprs[..user.len()].copy_from_slice(&user);
        LaunchSetup { kd, dispatch, waves_per_group, group_lanes: group_lanes as u64, sgprs, v0, exec }
    }

    /// Initial SGPRs (user then system), v0 and EXEC for wave `w` of
    /// workgroup `wg` (linear id `linear`).
    pub(super) fn init_wave<const W: usize>(&self, wave: &mut Wave<W>, wg: [u32; 3], linear: u64, w: usize) {
        wave.reset(&self.sgprs, &self.v0[w], self.kd.vgpr_count() as usize);
        wave.place(WaveAt { workgroup: wg, index: w as u32 }, linear * self.group_lanes + (w * W) as u64);
        let mut sys = self.kd.user_sgpr_count() as usize;
        for (d, enabled) in self.kd.workgroup_id_enabled().into_iter().enumerate() {
            if enabled && sys < 106 {
                wave.s[sys] = wg[d];
                sys += 1;
            }
        }
        let exec = self.exec[w];
        wave.s[EXEC as usize] = exec as u32;
        wave.s[EXEC as usize + 1] = if W == 64 { (exec >> 32) as u32 } else { 0 };
    }
}

/// The HSA kernel dispatch packet (64 bytes) of `dispatch`, for kernels that
/// enable the dispatch pointer.
pub(super) fn dispatch_packet(kd: &KernelDescriptor, dispatch: &Dispatch, kernarg_ptr: u64) -> [u8; 64] {
    let mut p = [0u8; 64];
    let dims = if dispatch.grid_blocks[2] * dispatch.block[2] > 1 {
        3u16
    } else if dispatch.grid_blocks[1] * dispatch.block[1] > 1 {
        2
    } else {
        1
    };
    p[0..2].copy_from_slice(&(2u16).to_le_bytes()); // HSA_PACKET_TYPE_KERNEL_DISPATCH
    p[2..4].copy_from_slice(&dims.to_le_bytes());
    for d in 0..3 {
        p[4 + 2 * d..6 + 2 * d].copy_from_slice(&(dispatch.block[d] as u16).to_le_bytes());
        let grid = dispatch.grid_blocks[d].wrapping_mul(dispatch.block[d]);
        p[12 + 4 * d..16 + 4 * d].copy_from_slice(&grid.to_le_bytes());
    }
    p[24..28].copy_from_slice(&kd.private_segment_fixed_size.to_le_bytes());
    p[28..32].copy_from_slice(&kd.group_segment_fixed_size.to_le_bytes());
    p[40..48].copy_from_slice(&kernarg_ptr.to_le_bytes());
    p
}
