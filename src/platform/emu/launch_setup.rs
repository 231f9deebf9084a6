//! Launch setup: the initial state of every wave from the kernel descriptor
//! and the dispatch (LLVM AMDGPUUsage "Initial Kernel Execution State", RDNA3
//! ISA guide "CS SGPR load"), and the device-side structures a kernel may ask
//! pointers to: the HSA kernel dispatch packet and the AMD queue.
//!
//! Every initial register write of a dispatch happens here, and
//! [`LaunchSetup::initialised`] says which registers those are.
//!
//! What differs between targets is one value, [`LaunchAbi`], asked of the
//! target's features once per launch. AMDGPUUsage ties each difference to an
//! LLVM feature, not to a generation (gfx940 is gfx9 with architected flat
//! scratch, gfx90a is gfx9 with packed work-item ids), so the features are
//! what is asked:
//! - User SGPRs, packed from s0 in this order when enabled: private segment
//!   buffer (4), dispatch ptr (2), queue ptr (2), kernarg segment ptr (2),
//!   dispatch id (2), flat scratch init (2), private segment size (1). The
//!   private segment buffer and flat scratch init exist only without
//!   architected flat scratch (gfx908, gfx90a, gfx9-generic, gfx10); elsewhere
//!   they are refused with the field named ([`KernelDescriptor::validate`]),
//!   as are kernarg preloading where the processor lacks it and a
//!   USER_SGPR_COUNT below what the enables need. A USER_SGPR_COUNT above it
//!   is what LLVM accepts and the hardware does: the system SGPRs start at
//!   `s[USER_SGPR_COUNT]` and the SGPRs in between are not initialised.
//! - System SGPRs from `s[USER_SGPR_COUNT]`: workgroup id x, y, z (each when
//!   enabled), workgroup info, then, without architected flat scratch, the
//!   private segment wave offset when ENABLE_PRIVATE_SEGMENT is set (with it
//!   the hardware holds the scratch base and there is no such SGPR).
//! - Scratch is not emulated, so the values the command processor would put
//!   in the scratch SGPRs (the private segment buffer V#, flat scratch init,
//!   the wave offset) are unknown here: they are written as 0 and marked
//!   unsettled, so a result computed from them is neither a pass nor a fail,
//!   while every SGPR after them sits where the hardware puts it.
//! - Work-item ids packed into v0 as x | y << 10 | z << 20 (LLVM
//!   `FeaturePackedTID`), or x in v0, y in v1, z in v2; y and z only when
//!   ENABLE_VGPR_WORKITEM_ID asks for them.
//! - With architected SGPRs (LLVM `FeatureArchitectedSGPRs`: gfx12, whose
//!   LLVM-generated code reads them instead of system SGPRs) ttmp9 holds the
//!   workgroup id x and ttmp7 holds y in bits 15:0 and z in bits 31:16, in
//!   every wave whatever the descriptor enables.
//! - Kernarg preloading, legal on gfx90a and gfx940+, is not emulated: such
//!   a kernel is refused with one line.

use super::fault::WaveAt;
use super::wave::{Wave, SGPR_INIT};
use crate::isa::EXEC;
use crate::platform::codeobj::descriptor::KD_SIZE;
use crate::platform::codeobj::KernelDescriptor;
use crate::platform::device::Dispatch;
use crate::platform::target::{Feature, Target};
use std::ops::Range;

/// Bytes of the emulated `amd_queue_t` (ROCr `amd_hsa_queue.h`: 256, 64-byte aligned).
const QUEUE_BYTES: usize = 256;
/// Bytes of one AQL packet.
const PACKET_BYTES: usize = 64;
/// Packets in the emulated queue's ring: one, the dispatch being executed
/// (HSA requires a power of two; 2^0 is one).
const RING_PACKETS: u32 = 1;
/// Offsets inside the per-launch dispatch block: queue, ring (the packet), a
/// copy of the kernel descriptor the packet's kernel_object points at.
const PACKET_AT: usize = QUEUE_BYTES;
const KD_AT: usize = PACKET_AT + PACKET_BYTES;
/// Size of the dispatch block [`dispatch_block`] lays out.
pub(super) const DISPATCH_BLOCK_BYTES: usize = KD_AT + KD_SIZE;

/// Device addresses and ids a dispatch hands to its waves.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct DispatchAddrs {
    pub(super) kernarg: u64,
    /// Base of the [`dispatch_block`], 0 when the kernel asks for neither the
    /// dispatch nor the queue pointer (then none is allocated).
    pub(super) block: u64,
    /// The packet's index in its queue (HSA dispatch id).
    pub(super) dispatch_id: u64,
    /// The runtime's own `amd_queue_t` and AQL packet, when a real queue
    /// holds the dispatch (the emulated KFD device, [`super::packet`]); then
    /// no dispatch block exists.
    pub(super) ring: Option<RingAddrs>,
}

/// Where a real queue's `amd_queue_t` and the dispatch packet are.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RingAddrs {
    pub(super) queue: u64,
    pub(super) packet: u64,
}

impl DispatchAddrs {
    fn queue(&self) -> u64 {
        self.ring.map_or(self.block, |r| r.queue)
    }
    fn packet(&self) -> u64 {
        self.ring
            .map_or(self.block + PACKET_AT as u64, |r| r.packet)
    }
}

/// The registers a dispatch initialised in every wave; all others hold no
/// value the ISA defines (the emulator happens to start them at 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct InitialRegisters {
    /// User SGPRs the enables fill, from s0.
    pub(super) user_sgprs: Range<usize>,
    /// System SGPRs, from `s[USER_SGPR_COUNT]` (a gap between the two ranges is
    /// not initialised).
    pub(super) system_sgprs: Range<usize>,
    /// VGPRs from v0 (the packed work-item ids).
    pub(super) vgprs: Range<usize>,
    /// gfx12's architected SGPRs: ttmp7 and ttmp9 hold the workgroup ids.
    pub(super) ttmp_ids: bool,
    /// SGPRs (bit i = s_i) written with values the emulator does not know
    /// (the scratch setup without architected flat scratch,
    /// [`LaunchAbi::unmodelled_sgpr_reasons`]): unsettled.
    pub(super) unmodelled: u128,
    /// Why each unsettled SGPR range (bit i = s_i) is unsettled on this
    /// target: gfx12's system SGPRs, the scratch setup SGPRs. The origin of a
    /// word computed from one names it with this reason.
    pub(super) unsettled_why: Vec<(u128, String)>,
    // EXEC (and EXEC_HI in wave64) is always initialised.
}

/// Why a gfx12 kernel's system SGPRs are unsettled.
const GFX12_SYSTEM_SGPR: &str = "a gfx12 system SGPR (workgroup id/info); gfx12 passes workgroup ids in ttmp9/ttmp7 and AMD does not document whether the system SGPRs are still written";

/// Per-launch constants every wave's setup reads.
pub(super) struct LaunchSetup {
    pub(super) kd: KernelDescriptor,
    abi: LaunchAbi,
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
    /// Where the ids are not packed ([`LaunchAbi::packed_ids`]): per wave,
    /// the y and z work-item ids for v1 and v2 (only the dimensions the
    /// descriptor enables); empty where v0 packs them.
    ids_yz: Vec<Vec<Vec<u32>>>,
    /// VGPRs the kernel may address (`KernelDescriptor::vgpr_count_for`).
    pub(super) vgprs: u32,
    /// SGPRs written with unknown scratch setup values.
    unmodelled: u128,
    /// `unmodelled` per range, with the reason naming the target.
    unmodelled_why: Vec<(u128, String)>,
    /// The private segment wave offset system SGPR follows the others.
    wave_offset: bool,
}

/// How a target's dispatch sets up a wave, where targets differ: asked of
/// the target's features once per launch ([`LaunchAbi::of`]), then read by
/// every step of the setup instead of asking the target again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LaunchAbi {
    /// No architected flat scratch (gfx908, gfx90a, gfx9-generic, gfx10):
    /// the private segment buffer and flat scratch init user SGPRs exist, and
    /// the private segment wave offset system SGPR follows the others when the
    /// private segment is enabled.
    pub(super) scratch_sgprs: bool,
    /// The work-item ids are packed into v0 (else y and z are in v1 and v2).
    pub(super) packed_ids: bool,
    /// Architected SGPRs: the workgroup ids are in ttmp9/ttmp7 as well.
    pub(super) ttmp_ids: bool,
}

impl LaunchAbi {
    pub(super) fn of(target: &Target) -> LaunchAbi {
        LaunchAbi {
            scratch_sgprs: !target.has(Feature::ArchitectedFlatScratch),
            packed_ids: target.has(Feature::PackedWorkItemIds),
            ttmp_ids: target.has(Feature::ArchitectedSgprs),
        }
    }

    /// Whether the private segment wave offset system SGPR follows the
    /// others: ENABLE_PRIVATE_SEGMENT without architected flat scratch.
    pub(super) fn wave_offset(&self, kd: &KernelDescriptor) -> bool {
        self.scratch_sgprs && kd.private_segment_enabled()
    }

    /// The SGPR ranges (bit i = s_i) the dispatch writes with scratch setup
    /// values the emulator does not know (the private segment buffer, flat
    /// scratch init, the wave offset), each with why, naming `target`.
    pub(super) fn unmodelled_sgpr_reasons(
        &self,
        kd: &KernelDescriptor,
        target: &Target,
    ) -> Vec<(u128, String)> {
        if !self.scratch_sgprs {
            return Vec::new();
        }
        scratch_sgpr_reasons(kd, target, self.wave_offset(kd))
    }
}

/// The union of the ranges of [`LaunchAbi::unmodelled_sgpr_reasons`].
pub(super) fn mask_of(reasons: &[(u128, String)]) -> u128 {
    reasons.iter().fold(0, |m, (range, _)| m | range)
}

/// Where the scratch setup SGPRs sit when a target has them: the private
/// segment buffer from s0, flat scratch init after the dispatch, queue,
/// kernarg and dispatch id pairs, and (with `wave_offset`) the wave offset
/// after the other system SGPRs; each with why its value is unsettled,
/// naming `target` and its generation.
fn scratch_sgpr_reasons(
    kd: &KernelDescriptor,
    target: &Target,
    wave_offset: bool,
) -> Vec<(u128, String)> {
    let run = |from: u32, n: u32| ((1u128 << n) - 1) << from;
    let generation = target.generation().name();
    let mut m = Vec::new();
    let scratch =
        "the runtime's scratch setup, which the emulator does not model (it has no scratch)";
    if kd.private_segment_buffer() {
        m.push((
            run(0, 4),
            format!(
                "a {generation} ({}) private segment buffer user SGPR (s0-s3: the scratch buffer descriptor); its value is {scratch}",
                target.name
            ),
        ));
    }
    if kd.flat_scratch_init() {
        let before = 4 * u32::from(kd.private_segment_buffer())
            + 2 * [
                kd.dispatch_ptr(),
                kd.queue_ptr(),
                kd.kernarg_ptr(),
                kd.dispatch_id(),
            ]
            .iter()
            .filter(|&&e| e)
            .count() as u32;
        m.push((
            run(before, 2),
            format!(
                "a {generation} ({}) flat scratch init user SGPR (s{before}-s{}: the wave's scratch address); its value is {scratch}",
                target.name,
                before + 1
            ),
        ));
    }
    if wave_offset {
        let system = kd.workgroup_id_enabled().iter().filter(|&&e| e).count() as u32
            + u32::from(kd.workgroup_info_enabled());
        // USER_SGPR_COUNT <= 16 (validated), so this stays below 22.
        let at = kd.user_sgpr_count() + system;
        m.push((
            run(at, 1),
            format!(
                "the {generation} ({}) private segment wave offset system SGPR (s{at}: this wave's scratch offset); its value is {scratch}",
                target.name
            ),
        ));
    }
    m
}

/// The user SGPR values the descriptor enables, packed in their fixed order,
/// the scratch SGPRs (only where `abi` has them) written as 0: the emulator
/// has no scratch to describe (their values are unsettled,
/// [`LaunchAbi::unmodelled_sgpr_reasons`]). Where `abi` has no scratch
/// SGPRs they are refused earlier (`validate`); they are refused here too
/// rather than skipped, so no path can run a kernel with its user SGPRs
/// shifted.
pub(super) fn user_sgprs(
    kd: &KernelDescriptor,
    abi: LaunchAbi,
    addrs: &DispatchAddrs,
) -> Result<Vec<u32>, String> {
    if !abi.scratch_sgprs && (kd.private_segment_buffer() || kd.flat_scratch_init()) {
        return Err("the private segment buffer and flat scratch init SGPRs do not exist with architected flat scratch".into());
    }
    let mut user: Vec<u32> = Vec::with_capacity(16);
    if kd.private_segment_buffer() {
        user.extend([0; 4]);
    }
    let mut push64 = |v: u64| {
        user.push(v as u32);
        user.push((v >> 32) as u32);
    };
    if kd.dispatch_ptr() {
        push64(addrs.packet());
    }
    if kd.queue_ptr() {
        push64(addrs.queue());
    }
    if kd.kernarg_ptr() {
        push64(addrs.kernarg);
    }
    if kd.dispatch_id() {
        push64(addrs.dispatch_id);
    }
    if kd.flat_scratch_init() {
        user.extend([0; 2]);
    }
    if kd.private_segment_size() {
        // The packet's private_segment_size rounded up to whole dwords by the CP.
        user.push(kd.private_segment_fixed_size.next_multiple_of(4));
    }
    Ok(user)
}

/// Why the emulator cannot set up a launch of `kd` on `target` faithfully
/// (one line naming the descriptor field), or `Ok`.
pub(super) fn check(kd: &KernelDescriptor, target: &Target) -> Result<(), String> {
    kd.validate(target.name).map_err(|e| e.to_string())?;
    // CDNA5 is wave32 only, yet LLVM 22 assembles a wave64 descriptor for it.
    if kd.wave_size() == 64 && !target.has(crate::platform::target::Feature::Wave64) {
        return Err(format!(
            "kernel descriptor: ENABLE_WAVEFRONT_SIZE32 is 0 (wave64), but {} runs wave32 only",
            target.name
        ));
    }
    // `validate` refuses kernarg preloading where the processor lacks it.
    // Where it is legal, the emulated command processor is firmware without
    // preloading, which silicon also runs: the wave starts at the entry (not
    // 256 bytes past it) with no argument in SGPRs, and the code's own
    // compatibility prologue loads them (AMDGPUUsage, "Preloaded Kernel
    // Arguments"; LLVM 20+'s AMDGPUPreloadKernArgProlog). An older header of
    // `s_trap 2` is refused there by name, as that firmware would trap.
    Ok(())
}

/// ttmp7 and ttmp9, gfx12's architected workgroup-id SGPRs.
pub(super) const TTMP7: usize = 108 + 7;
pub(super) const TTMP9: usize = 108 + 9;

impl LaunchSetup {
    /// The setup of a launch, or why the emulator cannot set it up faithfully
    /// (one line naming the descriptor field).
    pub(super) fn new(
        kd: KernelDescriptor,
        dispatch: Dispatch,
        addrs: DispatchAddrs,
        target: &Target,
    ) -> Result<LaunchSetup, String> {
        check(&kd, target)?;
        let abi = LaunchAbi::of(target);
        let user = user_sgprs(&kd, abi, &addrs)?;
        let wave_size = kd.wave_size() as usize;
        let [bx, by, bz] = dispatch.block;
        let group_lanes = (bx * by * bz) as usize;
        let waves_per_group = group_lanes.div_ceil(wave_size);
        let dims = kd.workitem_id_dims();
        let packed = abi.packed_ids;
        let mut v0 = vec![vec![0u32; wave_size]; waves_per_group];
        let mut exec = vec![0u64; waves_per_group];
        let split = if packed { 0 } else { dims as usize };
        let mut ids_yz = vec![vec![vec![0u32; wave_size]; split]; waves_per_group];
        for linear in 0..group_lanes {
            let (w, lane) = (linear / wave_size, linear % wave_size);
            let l = linear as u32;
            let (x, y, z) = (l % bx, (l / bx) % by, l / (bx * by));
            if packed {
                v0[w][lane] =
                    x | if dims >= 1 { y << 10 } else { 0 } | if dims >= 2 { z << 20 } else { 0 };
            } else {
                v0[w][lane] = x;
                for (d, id) in [y, z].into_iter().take(split).enumerate() {
                    ids_yz[w][d][lane] = id;
                }
            }
            exec[w] |= 1 << lane;
        }
        let mut sgprs = [0u32; SGPR_INIT];
        sgprs[..user.len()].copy_from_slice(&user);
        let unmodelled_why = abi.unmodelled_sgpr_reasons(&kd, target);
        let unmodelled = mask_of(&unmodelled_why);
        let wave_offset = abi.wave_offset(&kd);
        let vgprs = kd.vgpr_count_for(target.name);
        Ok(LaunchSetup {
            ids_yz,
            vgprs,
            unmodelled,
            unmodelled_why,
            wave_offset,
            kd,
            abi,
            dispatch,
            waves_per_group,
            group_lanes: group_lanes as u64,
            sgprs,
            v0,
            exec,
        })
    }

    /// Which registers [`LaunchSetup::init_wave`] initialises (the same for every wave).
    pub(super) fn initialised(&self) -> InitialRegisters {
        let user = self.kd.enabled_user_sgprs() as usize;
        let first_system = self.kd.user_sgpr_count() as usize;
        let ids = self
            .kd
            .workgroup_id_enabled()
            .iter()
            .filter(|&&e| e)
            .count();
        let system =
            ids + usize::from(self.kd.workgroup_info_enabled()) + usize::from(self.wave_offset);
        let id_vgprs = 1 + self.ids_yz.first().map_or(0, Vec::len);
        let system_sgprs = first_system..first_system + system;
        let mut unsettled_why = self.unmodelled_why.clone();
        if self.abi.ttmp_ids {
            let mask = system_sgprs
                .clone()
                .filter(|&i| i < 106)
                .fold(0u128, |m, i| m | 1u128 << i);
            unsettled_why.push((mask, GFX12_SYSTEM_SGPR.to_string()));
        }
        InitialRegisters {
            user_sgprs: 0..user,
            system_sgprs,
            vgprs: 0..id_vgprs,
            ttmp_ids: self.abi.ttmp_ids,
            unmodelled: self.unmodelled,
            unsettled_why,
        }
    }

    /// Initial SGPRs (user then system), v0 and EXEC for wave `w` of
    /// workgroup `wg` (linear id `linear`).
    pub(super) fn init_wave<const W: usize>(
        &self,
        wave: &mut Wave<W>,
        wg: [u32; 3],
        linear: u64,
        w: usize,
    ) {
        wave.reset(&self.sgprs, &self.v0[w], self.vgprs as usize);
        // Unpacked ids: y and z in v1 and v2.
        for (d, ids) in self.ids_yz.get(w).into_iter().flatten().enumerate() {
            wave.v[1 + d].copy_from_slice(ids);
        }
        wave.place(
            WaveAt {
                workgroup: wg,
                index: w as u32,
            },
            linear * self.group_lanes + (w * W) as u64,
        );
        // USER_SGPR_COUNT <= 16 (validated), so at most 16 + 4 SGPRs are written here.
        let mut sys = self.kd.user_sgpr_count() as usize;
        for (d, enabled) in self.kd.workgroup_id_enabled().into_iter().enumerate() {
            if enabled {
                wave.s[sys] = wg[d];
                sys += 1;
            }
        }
        if self.kd.workgroup_info_enabled() {
            wave.s[sys] = workgroup_info(w, self.waves_per_group);
        }
        if self.abi.ttmp_ids {
            wave.s[TTMP9] = wg[0];
            wave.s[TTMP7] = (wg[1] & 0xffff) | wg[2] << 16;
        }
        let exec = self.exec[w];
        wave.s[EXEC as usize] = exec as u32;
        wave.s[EXEC as usize + 1] = if W == 64 { (exec >> 32) as u32 } else { 0 };
    }
}

/// The workgroup info SGPR of wave `w` (RDNA3 ISA guide, "CS SGPR load"):
/// `{first_wave[31], 6'h0, wave_id_in_group[24:20], 2'h0,
/// ordered_append_term[17:6], work_group_size_in_waves[5:0]}`. first_wave is
/// taken to be wave 0 of the group (the emulator starts waves in index order);
/// ordered_append_term is 0 because the emulator has no ordered append (GDS).
fn workgroup_info(w: usize, waves_per_group: usize) -> u32 {
    let first = u32::from(w == 0) << 31;
    first | ((w as u32 & 0x1f) << 20) | (waves_per_group as u32 & 0x3f)
}

/// The per-launch dispatch block at device address `base`: the emulated
/// `amd_queue_t` at 0, its one-packet ring (the dispatch packet) at 256 and a
/// copy of the kernel descriptor at 320 (the packet's kernel_object).
pub(super) fn dispatch_block(
    kd: &KernelDescriptor,
    dispatch: &Dispatch,
    addrs: &DispatchAddrs,
) -> Vec<u8> {
    let mut block = vec![0u8; DISPATCH_BLOCK_BYTES];
    let kernel_object = addrs.block + KD_AT as u64;
    block[..QUEUE_BYTES].copy_from_slice(&amd_queue(addrs.packet(), addrs.dispatch_id));
    block[PACKET_AT..KD_AT].copy_from_slice(&dispatch_packet(
        kd,
        dispatch,
        addrs.kernarg,
        kernel_object,
    ));
    block[KD_AT..].copy_from_slice(&kd.to_bytes());
    block
}

fn put(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
}

/// The emulated `amd_queue_t` (ROCr `amd_hsa_queue.h`; `hsa_queue_t` from
/// `hsa.h` first). Filled: hsa_queue type (MULTI = 0), features
/// (KERNEL_DISPATCH = 1), base_address (the ring), size (1 packet), id (0);
/// write_dispatch_id (id + 1: the packet was written), read_dispatch_id (id:
/// it is being processed), read_dispatch_id_field_base_byte_offset (128, as
/// ROCr sets it), queue_properties IS_PTR64. Zero, because the emulator has
/// nothing they could describe: doorbell_signal (no signal objects), the LDS
/// and scratch aperture bases (flat addresses are global here), max_cu_id and
/// max_wave_id (no CU topology), the legacy doorbell fields, every scratch
/// field (no scratch), queue_inactive_signal, and all reserved words.
fn amd_queue(ring: u64, dispatch_id: u64) -> [u8; QUEUE_BYTES] {
    let mut q = [0u8; QUEUE_BYTES];
    put(&mut q, 0, &0u32.to_le_bytes()); // hsa_queue.type: HSA_QUEUE_TYPE_MULTI
    put(&mut q, 4, &1u32.to_le_bytes()); // hsa_queue.features: HSA_QUEUE_FEATURE_KERNEL_DISPATCH
    put(&mut q, 8, &ring.to_le_bytes()); // hsa_queue.base_address
    put(&mut q, 24, &RING_PACKETS.to_le_bytes()); // hsa_queue.size (packets)
    put(&mut q, 56, &(dispatch_id + 1).to_le_bytes()); // write_dispatch_id
    put(&mut q, 128, &dispatch_id.to_le_bytes()); // read_dispatch_id
    put(&mut q, 136, &128u32.to_le_bytes()); // read_dispatch_id_field_base_byte_offset
    put(&mut q, 180, &(1u32 << 1).to_le_bytes()); // queue_properties: AMD_QUEUE_PROPERTIES_IS_PTR64
    q
}

/// The HSA kernel dispatch packet (`hsa_kernel_dispatch_packet_t`, 64 bytes)
/// as HIP's module launch writes it: header KERNEL_DISPATCH with system-scope
/// acquire and release fences (barrier bit clear), setup dimensions 3 (HIP
/// module launches are always 3-D), workgroup and grid sizes in work-items,
/// the descriptor's private and group segment sizes (no dynamic LDS or stack
/// is added: the harness asks for none), kernel_object, kernarg_address;
/// reserved fields and completion_signal 0 (no signal).
pub(super) fn dispatch_packet(
    kd: &KernelDescriptor,
    dispatch: &Dispatch,
    kernarg: u64,
    kernel_object: u64,
) -> [u8; 64] {
    const TYPE_KERNEL_DISPATCH: u16 = 2;
    const FENCE_SCOPE_SYSTEM: u16 = 2;
    let header = TYPE_KERNEL_DISPATCH | FENCE_SCOPE_SYSTEM << 9 | FENCE_SCOPE_SYSTEM << 11;
    let mut p = [0u8; 64];
    put(&mut p, 0, &header.to_le_bytes());
    put(&mut p, 2, &3u16.to_le_bytes());
    for d in 0..3 {
        // Both fit: the launch check (codeobj::launch) refuses blocks over 1024 and grids over 2^32 work-items.
        put(&mut p, 4 + 2 * d, &(dispatch.block[d] as u16).to_le_bytes());
        put(
            &mut p,
            12 + 4 * d,
            &dispatch.grid_blocks[d]
                .wrapping_mul(dispatch.block[d])
                .to_le_bytes(),
        );
    }
    put(&mut p, 24, &kd.private_segment_fixed_size.to_le_bytes());
    put(&mut p, 28, &kd.group_segment_fixed_size.to_le_bytes());
    put(&mut p, 32, &kernel_object.to_le_bytes());
    put(&mut p, 40, &kernarg.to_le_bytes());
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kd(code_properties: u16, rsrc2: u32) -> KernelDescriptor {
        KernelDescriptor {
            code_properties: code_properties | 1 << 10,
            rsrc2,
            ..Default::default()
        }
    }

    fn gfx1100() -> &'static Target {
        crate::platform::target::find("gfx1100").unwrap()
    }

    /// A wave64 descriptor (LLVM 22 assembles one for gfx1250) is refused on
    /// the wave32-only CDNA5 rows, in one line naming the field and the
    /// target; the same descriptor as wave32 passes the check, and wave64
    /// passes on gfx1100.
    #[test]
    fn a_wave64_descriptor_is_refused_where_the_target_is_wave32_only() {
        // The kernarg pointer in s[0:1]: USER_SGPR_COUNT 2 (rsrc2 bits 5:1).
        let wave32 = kd(1 << 3, 2 << 1);
        let wave64 = KernelDescriptor {
            code_properties: 1 << 3,
            rsrc2: 2 << 1,
            ..Default::default()
        };
        for name in ["gfx1250", "gfx1251"] {
            let t = crate::platform::target::find(name).unwrap();
            let e = check(&wave64, t).unwrap_err();
            assert!(
                e.contains("ENABLE_WAVEFRONT_SIZE32 is 0")
                    && e.contains(&format!("{name} runs wave32 only")),
                "{e}"
            );
            assert!(!e.contains('\n'), "{e}");
            assert_eq!(check(&wave32, t), Ok(()), "{name}");
        }
        assert_eq!(check(&wave64, gfx1100()), Ok(()));
    }

    #[test]
    fn gfx12_waves_get_workgroup_ids_in_ttmp9_and_ttmp7() {
        let d = kd(0b1000, 2 << 1 | 1 << 7);
        let dispatch = Dispatch {
            grid_blocks: [4, 3, 2],
            block: [32, 1, 1],
        };
        let setup = LaunchSetup::new(
            d,
            dispatch,
            ADDRS,
            crate::platform::target::find("gfx1201").unwrap(),
        )
        .unwrap();
        assert!(setup.initialised().ttmp_ids);
        let mut wave = Wave::<32>::default();
        setup.init_wave(&mut wave, [3, 2, 1], 0, 0);
        assert_eq!(
            (wave.s[TTMP9], wave.s[TTMP7], wave.s[2]),
            (3, 2 | 1 << 16, 3)
        );
        // gfx11 leaves the trap temporaries alone.
        let setup = LaunchSetup::new(d, dispatch, ADDRS, gfx1100()).unwrap();
        let mut wave = Wave::<32>::default();
        setup.init_wave(&mut wave, [3, 2, 1], 0, 0);
        assert_eq!((wave.s[TTMP9], wave.s[TTMP7]), (0, 0));
    }

    const ADDRS: DispatchAddrs = DispatchAddrs {
        kernarg: 0x1111_0000_2222,
        block: 0x3333_0000_4440,
        dispatch_id: 7,
        ring: None,
    };

    #[test]
    fn user_sgprs_follow_llvm_order() {
        // dispatch ptr, queue ptr, kernarg ptr, dispatch id, private segment size.
        let all = KernelDescriptor {
            private_segment_fixed_size: 6,
            ..kd(0b101_1110, 9 << 1)
        };
        let abi = LaunchAbi::of(gfx1100());
        let user = user_sgprs(&all, abi, &ADDRS).unwrap();
        let packet = ADDRS.block + PACKET_AT as u64;
        let want = [
            packet as u32,
            (packet >> 32) as u32,
            0x4440,
            0x3333,
            0x2222,
            0x1111,
            7,
            0,
            8,
        ];
        assert_eq!(user, want);
        // Only the queue pointer: it lands in s[0:1].
        assert_eq!(
            user_sgprs(&kd(0b100, 2 << 1), abi, &ADDRS).unwrap(),
            [0x4440, 0x3333]
        );
        // The private segment buffer: none with architected flat scratch.
        assert!(user_sgprs(&kd(1, 4 << 1), abi, &ADDRS).is_err());
    }

    #[test]
    fn a_real_queue_hands_its_own_packet_and_queue_to_the_kernel() {
        // The emulated KFD device: the dispatch and queue pointers are the
        // runtime's packet in its ring and its amd_queue_t, not a block's.
        let ring = DispatchAddrs {
            ring: Some(RingAddrs {
                queue: 0x7f00_0000_1000,
                packet: 0x7f00_0000_2040,
            }),
            ..ADDRS
        };
        let user = user_sgprs(&kd(0b110, 4 << 1), LaunchAbi::of(gfx1100()), &ring).unwrap();
        assert_eq!(user, [0x2040, 0x7f00, 0x1000, 0x7f00]);
    }

    #[test]
    fn system_sgprs_start_at_user_sgpr_count_and_gap_is_not_initialised() {
        // kernarg ptr with USER_SGPR_COUNT 4; wg id x, z and info.
        let d = kd(0b1000, 4 << 1 | 1 << 7 | 1 << 9 | 1 << 10);
        let dispatch = Dispatch {
            grid_blocks: [1, 1, 1],
            block: [64, 1, 1],
        };
        let setup = LaunchSetup::new(d, dispatch, ADDRS, gfx1100()).unwrap();
        assert_eq!(
            setup.initialised(),
            InitialRegisters {
                user_sgprs: 0..2,
                system_sgprs: 4..7,
                vgprs: 0..1,
                ttmp_ids: false,
                unmodelled: 0,
                unsettled_why: Vec::new(),
            }
        );
        // Too small a count is refused, naming the field.
        let short = kd(0b1000, 1 << 1);
        let err = LaunchSetup::new(short, dispatch, ADDRS, gfx1100())
            .err()
            .unwrap();
        assert!(err.contains("USER_SGPR_COUNT"), "{err}");
    }

    #[test]
    fn workgroup_info_packs_first_wave_id_and_size() {
        assert_eq!(workgroup_info(0, 8), 1 << 31 | 8);
        assert_eq!(workgroup_info(5, 8), 5 << 20 | 8);
    }

    #[test]
    fn dispatch_block_points_at_itself() {
        let d = kd(0b110, 2 << 1);
        let dispatch = Dispatch {
            grid_blocks: [3, 2, 1],
            block: [32, 2, 1],
        };
        let b = dispatch_block(&d, &dispatch, &ADDRS);
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        assert_eq!(
            u64_at(8),
            ADDRS.block + PACKET_AT as u64,
            "queue base_address is the ring"
        );
        assert_eq!((u64_at(56), u64_at(128)), (8, 7), "write/read dispatch ids");
        assert_eq!(
            u64_at(PACKET_AT + 32),
            ADDRS.block + KD_AT as u64,
            "kernel_object"
        );
        assert_eq!(u64_at(PACKET_AT + 40), ADDRS.kernarg, "kernarg_address");
        assert_eq!(
            &b[PACKET_AT + 12..PACKET_AT + 24],
            [96u32, 4, 1].map(u32::to_le_bytes).concat().as_slice()
        );
        assert_eq!(&b[KD_AT..], d.to_bytes().as_slice());
    }

    /// LLVM 19's gfx1030 default (private segment buffer, dispatch ptr,
    /// kernarg ptr, dispatch id; USER_SGPR_COUNT 10) plus flat scratch init
    /// and the wave offset after workgroup id x: the scratch SGPRs are
    /// s0-s3, s10-s11 and s13 (USER_SGPR_COUNT 12, wg id x in s12).
    #[test]
    fn scratch_sgprs_sit_where_gfx10_puts_them() {
        let gfx1030 = crate::platform::target::find("gfx1030").expect("gfx1030 row");
        let kd = KernelDescriptor {
            code_properties: 1 | 1 << 1 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 10,
            rsrc2: 1 | 12 << 1 | 1 << 7,
            ..Default::default()
        };
        let want = 0xf | 3 << 10 | 1 << 13;
        let abi = LaunchAbi::of(gfx1030);
        assert_eq!(mask_of(&abi.unmodelled_sgpr_reasons(&kd, gfx1030)), want);
        assert!(abi.wave_offset(&kd));
        let gfx1100 = crate::platform::target::find("gfx1100").expect("gfx1100 row");
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
