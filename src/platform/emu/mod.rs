//! Embedded GCN5/CDNA1-4, RDNA1-4 and CDNA5 (gfx9, gfx10, gfx11, gfx12,
//! gfx12.5) emulator: [`EmuDevice`] implements [`crate::platform::device::Device`] on
//! the CPU for one [`Target`] (gfx1100 unless built with
//! [`EmuDevice::for_target`]). It executes what [`crate::isa`] decodes for
//! the target's [`crate::isa::Isa`]; nothing here knows bit layouts. The
//! instruction families are the same for every generation (each renamed and
//! re-encoded some; the opcode table maps them all onto one set of ops).
//!
//! The files from the ground up: each imports only from the rows above its
//! own (`tests/pipeline/house.rs` checks that no file imports its way back to
//! itself).
//!
//! | floor | module | what it is |
//! |---|---|---|
//! | ground | [`fault`] | [`Fault`] (`device::fault`): why a launch failed (kind, instruction, wave, global lane, address) |
//! | | `dpp` | which lane DPP makes each lane read: DPP8, DPP16's row controls, the wave controls (`Feature::DppWaveControls`) |
//! | | `alu` | the opcode match's lane and scalar arithmetic (carries, bit fields, med3, perm, SCC results) |
//! | | [`memory`] | device buffers in an arena with unmapped gaps and bounds checks; buffers placed at an owner's addresses |
//! | | `emulated` | what stands in for silicon: injected `v_xad_u32` faults, the modifier stand-in, the emulated hardware ids ([`hw_id`]) |
//! | | `deps` | what each instruction touches, decided once at decode: registers read and written as bit masks, the flags that send it to the run-time checks |
//! | | `shadow` | the shadow registers' types: undefined and unsettled lanes with their origin, wave stops |
//! | static passes | `allocation` | the registers the descriptor allocates; instructions past them fault if executed |
//! | | `shared_sgprs` | gfx9's VCC, XNACK_MASK and FLAT_SCRATCH in the wave's last SGPRs |
//! | | `unwritten` | the registers some path may read before writing them (only those start tainted) |
//! | | `counters` | memory counters per generation (the `s_waitcnt` fields are `isa::MemoryCounters::waitcnt`), what an access writes when it lands, and the static pass that lets correct kernels skip the in-flight queue |
//! | | `hazards` | the manual wait-state rules as one table, analysed once per kernel over every path |
//! | | [`modifiers`] | NEG/ABS/CLAMP/OPSEL/OMOD on `v_xad_u32`: which lanes stay unsettled on a target, decided at load |
//! | kernel | [`program`] | a kernel decoded once: instructions, branch targets, the static passes' results, faults that fire if executed |
//! | run time | `wave` | one wave's state (SGPRs, SCC, lane-array VGPRs, pc, shadow, loads in flight) and the run loop: one exhaustive `match` over the opcodes |
//! | | `valu` | vector ALU: lane-wise ops over `[u32; W]` rows, DPP, compares, carries, lane moves, `v_xad_u32` with modifiers |
//! | | `salu` | scalar ALU: SOP1/SOP2/SOPC/SOPK, EXEC save-and-modify, branches |
//! | | `vmem`, `smem` | FLAT/GLOBAL and SMEM accesses, per wave and per lockstep workgroup |
//! | | `in_flight` | the loads a wave issued and has not waited for, completed as waits cover them |
//! | | `waits` | a wave issuing memory and waiting: destinations in flight until a wait covers them |
//! | | `launch_setup` | initial wave state from the kernel descriptor (per target feature); the dispatch packet, queue and descriptor copy a kernel may point at |
//! | | `taint` | the taint step: per-lane definedness flowing through each instruction, wave stops |
//! | | `workgroup` | the scheduler: chunks on a rayon pool, lockstep, round-robin between barriers, the wave cache |
//! | | [`packet`] | dispatches read from a real queue (the emulated KFD device): descriptor, code and kernarg from device memory, undefined words poisoned |
//!
//! `load` parses the code object, refuses one built for another processor
//! (a generic target's code object loads on every processor it covers) and
//! decodes each kernel once with the emulated target's ISA. `launch_setup` sets up each wave's initial state from the kernel
//! descriptor (LLVM AMDGPUUsage "Initial Kernel Execution State"), runs the
//! workgroups in parallel on a rayon pool, and returns the first error any
//! wave hit (memory fault, unsupported instruction, step budget, watchdog).
//! `definedness` then names the output words the launch left undefined or
//! unsettled, and the waves it stopped.
//! Between launches the host may address device memory directly
//! (`host_words`): the pipeline fills inputs and checks outputs in place.
//!
//! Emulator choices where the hardware is not documented or not modelled:
//! - Memory operations execute at once, but their destinations are in
//!   flight until a wait covers them (`counters`): a read before the wait
//!   is undefined, naming the load and the wait it needs; a write races.
//!   Manual wait-state rules (`hazards`) make a read inside a window
//!   undefined, naming the rule.
//! - Flat addresses are global addresses (no LDS or scratch apertures).
//! - In wave32, EXEC_HI/VCC_HI are stored registers, initially 0, ignored for
//!   masking and readable as data.
//! - Lane-mask results (VOPC, carry outs) have 0 for inactive lanes.
//! - Initial SGPRs (gfx11, AMDGPUUsage order): user SGPRs from s0 for each
//!   enable: dispatch ptr, queue ptr, kernarg ptr, dispatch id, private
//!   segment size; system SGPRs from `s[USER_SGPR_COUNT]`: workgroup id x, y,
//!   z, workgroup info (`{first_wave, wave_id_in_group, size_in_waves}`;
//!   ordered_append_term 0, there is no GDS). A USER_SGPR_COUNT above what the
//!   enables need leaves the SGPRs in between uninitialised, as hardware does.
//! - Refused, naming the field (`KernelDescriptor::validate`): the private
//!   segment buffer and flat scratch init enables (gfx11 has architected flat
//!   scratch: no such SGPRs, and no private segment wave offset SGPR either),
//!   kernarg preload, USER_SGPR_COUNT below the enables or above 16, work-item
//!   id setting 3, reserved and must-be-zero bits. Nothing runs with shifted
//!   registers.
//! - The dispatch pointer points at an HSA kernel dispatch packet as HIP's
//!   module launch writes it (3 dimensions, system-scope fences, sizes,
//!   kernarg address, kernel_object = a copy of the descriptor); the queue
//!   pointer at an `amd_queue_t` whose ring holds that one packet, with type,
//!   features, ring, size, read/write dispatch ids filled and the fields the
//!   emulator cannot describe (doorbell, apertures, CU/wave limits, scratch)
//!   zero. Dispatch ids count the device's launches from 0. The private
//!   segment size SGPR is private_segment_fixed_size rounded up to dwords;
//!   scratch itself is not emulated (scratch instructions are unsupported and
//!   fault if executed), so a nonzero size is accepted.
//! - Work-item IDs: v0 = x | y << 10 | z << 20 with only the dimensions the
//!   descriptor enables; VGPRs the kernel allocates start at 0; SGPRs past
//!   the initial ones start at 0. Those zeros are values, not definitions:
//!   the shadow (`taint`) marks every register the dispatch did not
//!   initialise as undefined, so output computed from one is reported as
//!   undefined ([`crate::platform::device::Device::definedness`]), never as a pass.
//! - Registers past the descriptor's allocation ([`program::Allocation`]):
//!   an instruction naming a VGPR past it (AGPRs from ACCUM_OFFSET on
//!   gfx90a/gfx940+ included) or, on gfx9, an SGPR past
//!   GRANULATED_WAVEFRONT_SGPR_COUNT's count is found when the kernel is
//!   decoded and faults if executed, naming the register and the fields.
//! - A branch, EXEC write or memory address that depends on an undefined or
//!   unsettled value stops that wave (its lanes have no result); the other
//!   waves run on and the launch succeeds.
//! - The kernarg segment is copied into device memory padded with zeros to at
//!   least 256 bytes (the runtime's kernarg pool makes small over-reads
//!   harmless on hardware, too).
//! - DPP16 reading an inactive in-range lane with bound_ctrl=0, fi=0 is
//!   unsettled (RDNA3 ISA 7.7.1 vs table 93): the lane reads the source
//!   lane's value (as with fi=1) and the result is marked unsettled, so the
//!   checker counts it as neither pass nor fail and checks every other lane.
//! - exec_hi/vcc_hi read as data in wave32 are undefined until written and
//!   unsettled after a write (the guide does not say the write is kept).
//! - gfx12: the `s_wait_*` counters land what they cover, like `s_waitcnt`;
//!   cache policy bits (th, scope) have no effect. Besides the system SGPRs the
//!   descriptor enables, every wave gets the workgroup ids in ttmp9 (x) and
//!   ttmp7 (y in 15:0, z in 31:16), LLVM's architected SGPRs, which count as
//!   initialised. `s_barrier_signal`/`s_barrier_wait` and scratch are not
//!   emulated (unsupported if executed).
//! - gfx115x and gfx12: a DPP16/DPP8 VOP3 may take an SGPR or inline
//!   constant as src1; DPP permutes src0 only, src1 is the same in every lane.
//! - gfx9 (`launch`, `dpp`): wave64 only; the scratch setup SGPRs (private segment
//!   buffer, flat scratch init, wave offset: gfx908/gfx90a) are placed but
//!   their values (the runtime's) are unsettled; work-item ids in v0, v1, v2
//!   on gfx908/gfx9-generic; the AGPRs of the unified file (gfx90a+) start
//!   at ACCUM_OFFSET and are not addressable as VGPRs; kernarg preloading is
//!   refused; row_bcast into a row with no source row is unsettled;
//!   `v_cmpx_*` writes its lane mask to EXEC and to VCC or its VOP3 SGPR pair.
//! - `s_getreg_b32` reads the hardware id (HW_REG_HW_ID on gfx9,
//!   HW_REG_HW_ID1 on gfx10+), with emulated values ([`hw_id`]: the compute
//!   unit or WGP is workgroup id x mod [`EMULATED_COMPUTE_UNITS`]), MODE
//!   (what `s_setreg*` wrote; the rest unsettled; only MODE bits that change
//!   nothing the emulator runs may be written, `isa::ModeLayout`) and, on
//!   CDNA5, IB_STS2's cluster field (0: no clusters); every other hardware
//!   register is unsupported if read or written.
//! - Fault injection: [`EmuDevice::set_xad_faults`] makes `v_xad_u32` produce
//!   wrong results in chosen lanes (tests of on-device checks only).
//! - CDNA5 (gfx1250/gfx1251): VGPRs v256-v1023 through `s_set_vgpr_msb`,
//!   resolved once when the kernel is decoded ([`program`]: each
//!   instruction's VGPR numbers become 10-bit, so the allocation check,
//!   taint, hazards and counters see the real registers); an instruction
//!   reached with different settings on different paths faults if executed.
//!   A wave's VGPR file and shadow grow past 256 rows only for a launch that
//!   allocates more (GRANULATED_WORKITEM_VGPR_COUNT in granules of 16).
//! - gfx10 (`launch`): wave32 and wave64; no architected flat scratch, so the
//!   scratch setup SGPRs (private segment buffer, flat scratch init, wave
//!   offset) exist, placed as on gfx9 with their values unsettled; work-item
//!   ids in v0, v1, v2 (no packed ids); the SGPR count in rsrc1, which LLVM
//!   19's code generator writes, is ignored as the hardware ignores it.

mod allocation;
mod alu;
mod counters;
// The fault type lives in the device seam (it is what `DeviceError` carries);
// `emu::fault` stays its name inside the emulator.
pub use crate::platform::device::fault;
mod deps;
mod dpp;
mod emulated;
mod hazards;
mod in_flight;
mod launch_setup;
pub mod memory;
pub mod modifiers;
pub mod packet;
pub mod program;
mod salu;
mod shadow;
mod shared_sgprs;
mod smem;
mod taint;
mod unwritten;
mod valu;
mod waits;
mod vmem;
mod wave;
mod workgroup;

pub use emulated::{hw_id, ModifierStandIn, XadFault, EMULATED_COMPUTE_UNITS};
pub use fault::{Fault, FaultKind, InstAt, WaveAt};

use crate::platform::codeobj::{launch as launch_check, CodeObject, KernelDescriptor, KernelMeta};
use crate::platform::device::{
    Definedness, Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId, Origin, StoppedWave,
    TaintedWord,
};
use crate::platform::target::{self, Target};
use launch_setup::{dispatch_block, DispatchAddrs, LaunchSetup, DISPATCH_BLOCK_BYTES};
use memory::Memory;
use program::{Allocation, Program};
use shadow::WaveStop;
use std::sync::Arc;
use std::time::Duration;
use workgroup::{run_launch, Launch};

/// Knobs of an [`EmuDevice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmuOptions {
    /// Worker threads for workgroups; 0 = one per available core.
    pub threads: usize,
    /// Instructions one wave may execute before the launch fails (endless-loop guard).
    pub step_budget: u64,
    /// Bytes of emulated device memory (reported by `memory_bytes`, enforced by `alloc`).
    pub memory_limit: u64,
}

/// The instructions one emulated wave may execute by default (`run
/// --step-budget`): far above any catalogue kernel (a few hundred), low
/// enough that an endless loop stops in seconds.
pub const DEFAULT_STEP_BUDGET: u64 = 1_000_000;

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            threads: 0,
            step_budget: DEFAULT_STEP_BUDGET,
            memory_limit: 8 << 30,
        }
    }
}

/// One kernel ready to launch.
#[derive(Debug, Clone)]
pub struct EmuKernel {
    pub name: String,
    /// The code object's metadata for the kernel; `None` for raw code
    /// (`load_code`), which only the metadata-free launch checks apply to.
    pub meta: Option<KernelMeta>,
    pub descriptor: KernelDescriptor,
    pub program: Arc<Program>,
}

/// An emulated device of one target (gfx1100 by default).
pub struct EmuDevice {
    /// The processor (or generic target) emulated: what it loads, how it
    /// decodes, what it reports.
    target: &'static Target,
    options: EmuOptions,
    memory: Memory,
    modules: Vec<Vec<EmuKernel>>,
    pool: Option<rayon::ThreadPool>,
    launches: u64,
    /// The waves the last launch stopped on taint, with their origins
    /// (resolved at once: the origin table may be reset by later host writes).
    stops: Vec<(WaveStop, Origin)>,
    /// Kernels decoded from device memory ([`packet`]), by entry address and
    /// a hash of their code and descriptor.
    programs: std::collections::HashMap<(u64, u64), Arc<Program>>,
    /// The last packet's taint, by word address ([`packet`]).
    last_taint: Option<(Vec<Origin>, std::collections::BTreeMap<u64, memory::Mark>)>,
    /// Injected wrong `v_xad_u32` results ([`EmuDevice::set_xad_faults`]).
    xad_faults: Vec<XadFault>,
    /// [`EmuDevice::set_modifier_stand_in`].
    stand_in: Option<std::sync::Arc<dyn ModifierStandIn>>,
    /// What `s_getreg_b32` of the hardware id spreads workgroups over ([`hw_id`]).
    compute_units: u32,
}

impl std::fmt::Debug for EmuDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuDevice")
            .field("target", &self.target.name)
            .field("options", &self.options)
            .field("allocated_bytes", &self.memory.allocated_bytes)
            .field("modules", &self.modules.len())
            .finish()
    }
}

impl Default for EmuDevice {
    fn default() -> Self {
        EmuDevice::new()
    }
}

impl EmuDevice {
    /// An emulated gfx1100 with default options.
    pub fn new() -> EmuDevice {
        EmuDevice::with_options(EmuOptions::default())
    }

    /// An emulated gfx1100.
    pub fn with_options(options: EmuOptions) -> EmuDevice {
        EmuDevice::for_target_with_options(default_target(), options)
    }

    /// An emulated `target` (e.g. `target::find("gfx1201")`) with default options.
    pub fn for_target(target: &'static Target) -> EmuDevice {
        EmuDevice::for_target_with_options(target, EmuOptions::default())
    }

    pub fn for_target_with_options(target: &'static Target, options: EmuOptions) -> EmuDevice {
        // A private pool when a thread count is given; otherwise rayon's global one.
        let pool = (options.threads > 0)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(options.threads)
                    .build()
                    .ok()
            })
            .flatten();
        EmuDevice {
            target,
            options,
            memory: Memory::default(),
            modules: Vec::new(),
            pool,
            launches: 0,
            stops: Vec::new(),
            programs: std::collections::HashMap::new(),
            last_taint: None,
            xad_faults: Vec::new(),
            stand_in: None,
            compute_units: EMULATED_COMPUTE_UNITS,
        }
    }

    /// Make every `v_xad_u32` that global lane `fault.lane` of a dispatch
    /// executes produce its result with bit `fault.bit` flipped, in every
    /// launch from now on (fault injection for tests: the wrong value is the
    /// instruction's, so whatever the kernel does with it, checks included,
    /// sees it). An empty list turns injection off.
    pub fn set_xad_faults(&mut self, faults: Vec<XadFault>) {
        self.xad_faults = faults;
    }

    /// Make every `v_xad_u32` with a modifier field set compute what
    /// `stand_in` says, in place of the emulator's own reading (the lanes'
    /// definedness is unchanged: unsettled stays unsettled). The emulated
    /// HIP library's fixture for the findings path (issue 30); the harness
    /// itself never sets one.
    pub fn set_modifier_stand_in(&mut self, stand_in: Option<std::sync::Arc<dyn ModifierStandIn>>) {
        self.stand_in = stand_in;
    }

    /// The compute units (gfx9) or WGPs (gfx10+) the emulated hardware ids
    /// name, 1 to 64 (clamped); [`EMULATED_COMPUTE_UNITS`] unless set.
    pub fn set_compute_units(&mut self, units: u32) {
        self.compute_units = units.clamp(1, 64);
    }

    /// See [`EmuDevice::set_compute_units`].
    pub fn compute_units(&self) -> u32 {
        self.compute_units
    }

    pub fn options(&self) -> EmuOptions {
        self.options
    }

    /// The target this device emulates.
    pub fn target(&self) -> &'static Target {
        self.target
    }

    /// Whether a code object built for `arch` (its target ID's processor)
    /// runs here: built for this very target, or for a generic target that
    /// covers it.
    pub fn runs(&self, arch: &str) -> bool {
        target::code_runs_on(arch, self.target.name)
    }

    /// Register raw machine code as a one-kernel module (tests, fuzzing, tools
    /// without a code object). `code[0]` is the entry; `descriptor` supplies the
    /// wave size, register counts and initial-state enables.
    pub fn load_code(&mut self, name: &str, code: &[u8], descriptor: KernelDescriptor) -> ModuleId {
        let program = Program::decode_for(
            self.target,
            code,
            0,
            0,
            &Allocation::of(&descriptor, self.target),
        );
        self.modules.push(vec![EmuKernel {
            name: name.to_string(),
            meta: None,
            descriptor,
            program: Arc::new(program),
        }]);
        ModuleId(self.modules.len() - 1)
    }

    /// The decoded kernels of a loaded module.
    pub fn kernels(&self, module: ModuleId) -> Option<&[EmuKernel]> {
        self.modules.get(module.0).map(Vec::as_slice)
    }

    fn kernel(&self, module: ModuleId, name: &str) -> Result<EmuKernel, DeviceError> {
        let kernels = self
            .modules
            .get(module.0)
            .ok_or_else(|| DeviceError::Refused(format!("no module {}", module.0)))?;
        kernels
            .iter()
            .find(|k| k.name == name)
            .cloned()
            .ok_or_else(|| {
                DeviceError::Refused(format!(
                    "module {} has no kernel named {name} (it has: {})",
                    module.0,
                    kernels
                        .iter()
                        .map(|k| k.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }

    fn keep_stops(&mut self, stops: Vec<WaveStop>) {
        let origins = self.memory.taint.origins();
        let lost = || Origin {
            what: "wave stopped on an undefined value".into(),
            offset: 0,
            instruction: String::new(),
        };
        self.stops = stops
            .into_iter()
            .map(|s| {
                (
                    s,
                    origins.get(s.origin as usize).cloned().unwrap_or_else(lost),
                )
            })
            .collect();
    }

    /// The device's next launch, for both ways a dispatch arrives (the
    /// [`Device::launch`] seam and a real queue's packet, [`packet`]): count
    /// it, set up every wave from `kd`, `dispatch` and `addrs` (a setup the
    /// descriptor refuses is `refused(why)`), run `program` and keep the waves
    /// taint stopped.
    fn execute(
        &mut self,
        program: &Program,
        kd: KernelDescriptor,
        dispatch: Dispatch,
        addrs: DispatchAddrs,
        timeout: Duration,
        refused: impl FnOnce(String) -> DeviceError,
    ) -> Result<(), DeviceError> {
        self.launches += 1;
        self.stops.clear();
        let setup = LaunchSetup::new(kd, dispatch, addrs, self.target).map_err(refused)?;
        let launch = Launch {
            pool: self.pool.as_ref(),
            memory: &self.memory,
            program,
            step_budget: self.options.step_budget,
            timeout,
            xad_faults: &self.xad_faults,
            stand_in: self.stand_in.as_deref(),
            launch: self.launches,
            compute_units: self.compute_units,
        };
        let stops = run_launch(&launch, &setup)?;
        self.keep_stops(stops);
        Ok(())
    }

    /// The waves the last launch stopped, appended to `out` with their origins.
    fn push_stops(&self, out: &mut Definedness) {
        for (stop, origin) in &self.stops {
            out.origins.push(origin.clone());
            out.waves.push(StoppedWave {
                first_lane: stop.first_lane,
                lanes: stop.lanes,
                taint: stop.taint,
                origin: out.origins.len() - 1,
            });
        }
    }

    /// Allocate `size` bytes (rounded up to 64) for the launch's own use and
    /// fill them with `fill(address)` (the contents may point into themselves).
    fn alloc_internal(
        &mut self,
        size: usize,
        fill: impl FnOnce(u64) -> Vec<u8>,
    ) -> Result<u64, DeviceError> {
        let size = size.next_multiple_of(64);
        let ptr = self
            .memory
            .alloc(size as u64)
            .map_err(|e| DeviceError::Refused(format!("emulated device memory: {e}")))?;
        let bytes = fill(ptr);
        self.memory.write_bytes(ptr, &bytes).map_err(|f| {
            let message = format!(
                "internal: cannot write {} bytes at 0x{:x}",
                f.bytes, f.address
            );
            DeviceError::from(Fault::new(FaultKind::Internal, message).with_address(f.address))
        })?;
        Ok(ptr)
    }
}

impl Device for EmuDevice {
    fn executor(&self) -> Executor {
        Executor::Emulated {
            arch: self.target.name.into(),
        }
    }
    fn arch_name(&self) -> String {
        self.target.name.into()
    }
    fn memory_bytes(&self) -> u64 {
        self.options.memory_limit
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        if self.memory.allocated_bytes.saturating_add(bytes as u64) > self.options.memory_limit {
            return Err(DeviceError::Refused(format!(
                "out of emulated device memory: {bytes} bytes requested, {} of {} in use",
                self.memory.allocated_bytes, self.options.memory_limit
            )));
        }
        self.memory
            .alloc(bytes as u64)
            .map_err(|e| DeviceError::Refused(format!("emulated device memory: {e}")))
    }

    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.memory
            .free(ptr)
            .map_err(|e| DeviceError::Refused(format!("free: {e}")))
    }

    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        let memory = &mut self.memory;
        let r = match &self.pool {
            Some(pool) => pool.install(|| memory.write_bytes_mut(dst, src)),
            None => memory.write_bytes_mut(dst, src),
        };
        r.map_err(|f| host_fault("write", f))
    }

    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        let memory = &mut self.memory;
        let r = match &self.pool {
            Some(pool) => pool.install(|| memory.read_bytes_mut(src, dst)),
            None => memory.read_bytes_mut(src, dst),
        };
        r.map_err(|f| host_fault("read", f))
    }

    fn host_words(
        &mut self,
        ranges: &[(DevicePtr, usize)],
    ) -> Option<Result<Vec<&mut [u32]>, DeviceError>> {
        let views = self.memory.words_mut(ranges)?;
        Some(views.map_err(|f| host_fault("access", f)))
    }

    fn load(&mut self, image: &[u8]) -> Result<ModuleId, DeviceError> {
        // CodeObject::parse validates the whole ELF against `image`'s length
        // (the same check the HIP path runs before hipModuleLoadData) and
        // copies what it keeps, so no alignment or lifetime ties us to `image`.
        let co = CodeObject::parse(image).map_err(|e| DeviceError::Refused(e.to_string()))?;
        if !self.runs(&co.target.arch) {
            return Err(DeviceError::Refused(format!(
                "code object targets {}, the emulated device is {}",
                co.target.arch, self.target.name
            )));
        }
        let mut kernels = Vec::new();
        for k in &co.kernels {
            let (base, code) = co
                .code
                .iter()
                .find(|(addr, data)| {
                    k.entry_address >= *addr && k.entry_address - addr < data.len() as u64
                })
                .ok_or_else(|| {
                    DeviceError::Refused(format!(
                        "kernel {}: entry is not in an executable section",
                        k.meta.name
                    ))
                })?;
            let program = Program::decode_for(
                self.target,
                code,
                *base,
                k.entry_address,
                &Allocation::of(&k.descriptor, self.target)
                    .with_xnack_off(co.target.features.contains(&("xnack".to_string(), false))),
            );
            kernels.push(EmuKernel {
                name: k.meta.name.clone(),
                meta: Some(k.meta.clone()),
                descriptor: k.descriptor,
                program: Arc::new(program),
            });
        }
        self.modules.push(kernels);
        Ok(ModuleId(self.modules.len() - 1))
    }

    fn models_isa(&self) -> bool {
        true
    }

    fn definedness(&mut self, out: DevicePtr, words: usize) -> Result<Definedness, DeviceError> {
        let (origins, tainted) = self.memory.taint.report(out, words);
        let words = tainted
            .into_iter()
            .map(|(word, taint, origin)| TaintedWord {
                word,
                taint,
                origin,
            })
            .collect();
        let mut d = Definedness {
            origins,
            words,
            waves: Vec::with_capacity(self.stops.len()),
        };
        self.push_stops(&mut d);
        Ok(d)
    }

    fn launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        kernarg: &[u8],
        dispatch: Dispatch,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        let k = self.kernel(module, kernel)?;
        let kd = k.descriptor;
        // The launch check the HIP path runs too (codeobj::launch), so both
        // backends accept and refuse the same launches with the same words.
        match &k.meta {
            Some(meta) => launch_check::check(meta, kernarg, dispatch)?,
            None => launch_check::check_shape(kernel, kernarg.len(), dispatch)?,
        }
        // Refused before anything is allocated; LaunchSetup::new checks again.
        launch_setup::check(&kd, self.target)
            .map_err(|why| DeviceError::Refused(format!("kernel {kernel}: {why}")))?;
        let mut kernarg_image = kernarg.to_vec();
        if kernarg_image.len() < kd.kernarg_size as usize {
            kernarg_image.resize(kd.kernarg_size as usize, 0);
        }
        // Dispatch ids count this device's launches from 0, as a fresh HSA queue's packet indices do.
        let mut addrs = DispatchAddrs {
            dispatch_id: self.launches,
            ..DispatchAddrs::default()
        };
        // (`ring` stays None: the dispatch block below holds the queue and packet.)
        addrs.kernarg = self.alloc_internal(kernarg_image.len().max(256), |_| kernarg_image)?;
        // The queue and the packet it holds exist only for kernels that can see them.
        if kd.dispatch_ptr() || kd.queue_ptr() {
            let kernarg_ptr = addrs.kernarg;
            match self.alloc_internal(DISPATCH_BLOCK_BYTES, |base| {
                dispatch_block(
                    &kd,
                    &dispatch,
                    &DispatchAddrs {
                        block: base,
                        ..addrs
                    },
                )
            }) {
                Ok(ptr) => addrs.block = ptr,
                Err(e) => {
                    let _ = self.memory.free(kernarg_ptr);
                    return Err(e);
                }
            }
        }
        let result = self.execute(&k.program, kd, dispatch, addrs, timeout, |why| {
            DeviceError::Refused(format!("kernel {kernel}: {why}"))
        });
        let _ = self.memory.free(addrs.kernarg);
        if addrs.block != 0 {
            let _ = self.memory.free(addrs.block);
        }
        result
    }
}

/// gfx1100, the target an [`EmuDevice`] emulates unless told otherwise.
fn default_target() -> &'static Target {
    // The table always has the default; the fallback only keeps this total.
    target::find(target::DEFAULT).unwrap_or(&target::TARGETS[0])
}

/// A host access (`write`, `read`, host views) outside every allocation.
fn host_fault(access: &str, f: memory::Fault) -> DeviceError {
    let message = format!(
        "host {access} of {} bytes at 0x{:x} is outside every allocation",
        f.bytes, f.address
    );
    DeviceError::from(Fault::new(FaultKind::HostAccess, message).with_address(f.address))
}
