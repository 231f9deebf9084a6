//! Embedded gfx11 (RDNA3) emulator: [`EmuDevice`] implements
//! [`crate::device::Device`] on the CPU.
//!
//! | module     | what it is                                                         |
//! |------------|--------------------------------------------------------------------|
//! | [`ops`]    | the supported opcodes as a table: format, opcode, mnemonic, shape, semantics |
//! | [`decode`] | machine code -> [`decode::Inst`]; errors name offset, dwords, format |
//! | [`exec`]   | one wave: SGPRs, SCC, lane-array VGPRs, the interpreter loop        |
//! | [`memory`] | device buffers in an arena with unmapped gaps and bounds checks     |
//!
//! `load` parses the code object, refuses non-gfx11 targets and decodes each
//! kernel once. `launch` sets up each wave's initial state from the kernel
//! descriptor (LLVM AMDGPUUsage "Initial Kernel Execution State"), runs the
//! workgroups in parallel on a rayon pool, and returns the first error any
//! wave hit (memory fault, unsupported instruction, step budget, watchdog).
//! Between launches the host may address device memory directly
//! (`host_words`): the pipeline fills inputs and checks outputs in place.
//!
//! Emulator choices where the hardware is not documented or not modelled:
//! - Memory operations complete immediately and in program order, so
//!   `s_waitcnt` has no effect and a kernel missing one still computes the
//!   right answer here.
//! - Flat addresses are global addresses (no LDS or scratch apertures).
//! - In wave32, EXEC_HI/VCC_HI are stored registers, initially 0, ignored for
//!   masking and readable as data.
//! - Lane-mask results (VOPC, carry outs) have 0 for inactive lanes.
//! - Work-item IDs: v0 = x | y << 10 | z << 20 with only the dimensions the
//!   descriptor enables; VGPRs the kernel allocates start at 0; SGPRs past
//!   the initial ones start at 0.
//! - The kernarg segment is copied into device memory padded with zeros to at
//!   least 256 bytes (the runtime's kernarg pool makes small over-reads
//!   harmless on hardware, too).
//! - DPP16 reading an inactive in-range lane with bound_ctrl=0, fi=0 is
//!   unsettled (RDNA3 ISA 7.7.1 vs table 93) and is an error, not a guess.

pub mod decode;
pub mod exec;
pub mod memory;
pub mod ops;

use crate::codeobj::{CodeObject, KernelDescriptor};
use crate::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};
use exec::{Ctx, Program, Status, Wave};
use memory::Memory;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions { threads: 0, step_budget: 1_000_000, memory_limit: 8 << 30 }
    }
}

/// One kernel ready to launch.
#[derive(Debug, Clone)]
pub struct EmuKernel {
    pub name: String,
    pub descriptor: KernelDescriptor,
    pub program: Arc<Program>,
}

/// The emulated gfx1100 device.
pub struct EmuDevice {
    options: EmuOptions,
    memory: Memory,
    modules: Vec<Vec<EmuKernel>>,
    pool: Option<rayon::ThreadPool>,
    launches: u64,
}

impl std::fmt::Debug for EmuDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuDevice")
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
    pub fn new() -> EmuDevice {
        EmuDevice::with_options(EmuOptions::default())
    }

    pub fn with_options(options: EmuOptions) -> EmuDevice {
        // A private pool when a thread count is given; otherwise rayon's global one.
        let pool = (options.threads > 0)
            .then(|| rayon::ThreadPoolBuilder::new().num_threads(options.threads).build().ok())
            .flatten();
        EmuDevice { options, memory: Memory::default(), modules: Vec::new(), pool, launches: 0 }
    }

    pub fn options(&self) -> EmuOptions {
        self.options
    }

    /// Register raw machine code as a one-kernel module (tests, fuzzing, tools
    /// without a code object). `code[0]` is the entry; `descriptor` supplies the
    /// wave size, register counts and initial-state enables.
    pub fn load_code(&mut self, name: &str, code: &[u8], descriptor: KernelDescriptor) -> ModuleId {
        let program = Program::decode(code, 0, 0, descriptor.vgpr_count());
        self.modules.push(vec![EmuKernel { name: name.to_string(), descriptor, program: Arc::new(program) }]);
        ModuleId(self.modules.len() - 1)
    }

    /// The decoded kernels of a loaded module.
    pub fn kernels(&self, module: ModuleId) -> Option<&[EmuKernel]> {
        self.modules.get(module.0).map(Vec::as_slice)
    }

    fn kernel(&self, module: ModuleId, name: &str) -> Result<EmuKernel, DeviceError> {
        let kernels = self.modules.get(module.0).ok_or_else(|| DeviceError::Refused(format!("no module {}", module.0)))?;
        kernels.iter().find(|k| k.name == name).cloned().ok_or_else(|| {
            DeviceError::Refused(format!(
                "module {} has no kernel named {name} (it has: {})",
                module.0,
                kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    fn alloc_internal(&mut self, bytes: &[u8], min: usize) -> Result<u64, DeviceError> {
        let size = bytes.len().max(min).next_multiple_of(64);
        let ptr = self.memory.alloc(size as u64).map_err(|e| DeviceError::Refused(format!("emulated device memory: {e}")))?;
        self.memory
            .write_bytes(ptr, bytes)
            .map_err(|f| DeviceError::Emulation(format!("internal: cannot write {} bytes at 0x{:x}", f.bytes, f.address)))?;
        Ok(ptr)
    }
}

/// Per-launch constants every wave's setup reads.
struct LaunchSetup {
    kd: KernelDescriptor,
    dispatch: Dispatch,
    waves_per_group: usize,
    /// s0-s129 of a new wave: the user SGPRs packed from s0, the rest zero
    /// (identical for every wave).
    sgprs: [u32; exec::SGPR_INIT],
    /// Per wave of a workgroup: packed work-item ids (v0) and EXEC, the same
    /// for every workgroup, so computed once per launch.
    v0: Vec<Vec<u32>>,
    exec: Vec<u64>,
}

impl LaunchSetup {
    fn new(kd: KernelDescriptor, dispatch: Dispatch, kernarg_ptr: u64, dispatch_ptr: u64, dispatch_id: u64) -> LaunchSetup {
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
        let mut sgprs = [0u32; exec::SGPR_INIT];
        sgprs[..user.len()].copy_from_slice(&user);
        LaunchSetup { kd, dispatch, waves_per_group, sgprs, v0, exec }
    }

    /// Initial SGPRs (user then system), v0 and EXEC for wave `w` of workgroup `wg`.
    fn init_wave<const W: usize>(&self, wave: &mut Wave<W>, wg: [u32; 3], w: usize) {
        wave.reset(&self.sgprs, &self.v0[w], self.kd.vgpr_count() as usize);
        let mut sys = self.kd.user_sgpr_count() as usize;
        for (d, enabled) in self.kd.workgroup_id_enabled().into_iter().enumerate() {
            if enabled && sys < 106 {
                wave.s[sys] = wg[d];
                sys += 1;
            }
        }
        let exec = self.exec[w];
        wave.s[decode::EXEC as usize] = exec as u32;
        wave.s[decode::EXEC as usize + 1] = if W == 64 { (exec >> 32) as u32 } else { 0 };
    }
}

thread_local! {
    /// A worker thread's waves, kept across chunks and launches: a fresh set
    /// is ~33 KiB of zeroed register file per wave, and a pipeline of small
    /// dispatches would clear megabytes per launch. `init_wave` resets every
    /// register a kernel can read (VGPRs past the descriptor's count are
    /// refused at decode).
    static WAVES: std::cell::RefCell<Option<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(None) };
}

/// At least `n` waves: this thread's cached set when it has the same wave size.
fn take_waves<const W: usize>(n: usize) -> Vec<Wave<W>> {
    let cached = WAVES.with(|c| c.borrow_mut().take()).and_then(|b| b.downcast::<Vec<Wave<W>>>().ok());
    let mut waves = cached.map(|b| *b).unwrap_or_default();
    while waves.len() < n {
        waves.push(Wave::default());
    }
    waves
}

fn give_waves<const W: usize>(waves: Vec<Wave<W>>) {
    WAVES.with(|c| *c.borrow_mut() = Some(Box::new(waves)));
}

/// Run workgroups `range` (linear ids) on this thread.
fn run_groups<const W: usize>(setup: &LaunchSetup, ctx: &Ctx<'_>, range: std::ops::Range<u64>) -> Result<(), DeviceError> {
    let mut all = take_waves::<W>(setup.waves_per_group);
    let r = run_groups_with(setup, ctx, range, &mut all[..setup.waves_per_group]);
    give_waves(all);
    r
}

fn run_groups_with<const W: usize>(setup: &LaunchSetup, ctx: &Ctx<'_>, range: std::ops::Range<u64>, waves: &mut [Wave<W>]) -> Result<(), DeviceError> {
    let [gx, gy, _] = setup.dispatch.grid_blocks;
    for linear in range {
        if ctx.abort.load(Ordering::Relaxed) {
            return Err(exec::aborted());
        }
        let wg = [(linear % u64::from(gx)) as u32, ((linear / u64::from(gx)) % u64::from(gy)) as u32, (linear / (u64::from(gx) * u64::from(gy))) as u32];
        if linear % 64 == 63 && ctx.started.elapsed() > ctx.timeout {
            return Err(DeviceError::Timeout(ctx.timeout));
        }
        if setup.waves_per_group == 1 {
            let wave = &mut waves[0];
            setup.init_wave(wave, wg, 0);
            while wave.run(ctx)? == Status::Barrier {}
            continue;
        }
        for (w, wave) in waves.iter_mut().enumerate() {
            setup.init_wave(wave, wg, w);
        }
        if exec::run_lockstep(waves, ctx)? {
            continue;
        }
        // Round-robin between barriers: each live wave runs until it ends or
        // reaches s_barrier; the barrier releases once every live wave is there.
        let mut live = vec![true; waves.len()];
        while live.iter().any(|&l| l) {
            for (w, wave) in waves.iter_mut().enumerate() {
                if live[w] && wave.run(ctx)? == Status::Ended {
                    live[w] = false;
                }
            }
        }
    }
    Ok(())
}

impl Device for EmuDevice {
    fn executor(&self) -> Executor {
        Executor::Emulated { arch: "gfx1100".into() }
    }
    fn arch_name(&self) -> String {
        "gfx1100".into()
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
        self.memory.alloc(bytes as u64).map_err(|e| DeviceError::Refused(format!("emulated device memory: {e}")))
    }

    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.memory.free(ptr).map_err(|e| DeviceError::Refused(format!("free: {e}")))
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

    fn host_words(&mut self, ranges: &[(DevicePtr, usize)]) -> Option<Result<Vec<&mut [u32]>, DeviceError>> {
        let views = self.memory.words_mut(ranges)?;
        Some(views.map_err(|f| host_fault("access", f)))
    }

    fn load(&mut self, image: &[u8]) -> Result<ModuleId, DeviceError> {
        // The ELF parser needs 8-byte alignment, which an `include_bytes!`
        // image does not guarantee; a fresh heap buffer from the system
        // allocator has it (malloc returns 16-byte-aligned blocks).
        let owned = image.to_vec();
        let co = CodeObject::parse(&owned).map_err(|e| DeviceError::Refused(e.to_string()))?;
        if !co.target.arch.starts_with("gfx11") {
            return Err(DeviceError::Refused(format!(
                "code object targets {}, but the emulator executes gfx11 (gfx1100) code only",
                co.target
            )));
        }
        let mut kernels = Vec::new();
        for k in &co.kernels {
            let (base, code) = co
                .code
                .iter()
                .find(|(addr, data)| k.entry_address >= *addr && k.entry_address < addr + data.len() as u64)
                .ok_or_else(|| DeviceError::Refused(format!("kernel {}: entry is not in an executable section", k.meta.name)))?;
            let program = Program::decode(code, *base, k.entry_address, k.descriptor.vgpr_count());
            kernels.push(EmuKernel { name: k.meta.name.clone(), descriptor: k.descriptor, program: Arc::new(program) });
        }
        self.modules.push(kernels);
        Ok(ModuleId(self.modules.len() - 1))
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
        if dispatch.grid_blocks.contains(&0) || dispatch.block.contains(&0) {
            return Err(DeviceError::Refused(format!("launch of {kernel}: zero grid or block dimension in {dispatch:?}")));
        }
        let group_lanes = dispatch.block.iter().map(|&d| u64::from(d)).product::<u64>();
        if group_lanes > 1024 {
            return Err(DeviceError::Refused(format!("launch of {kernel}: workgroup of {group_lanes} work-items exceeds 1024")));
        }
        if kd.queue_ptr() {
            return Err(DeviceError::Refused(format!(
                "kernel {kernel} asks for the queue pointer (ENABLE_SGPR_QUEUE_PTR), which the emulator does not provide"
            )));
        }
        if kd.workgroup_info_enabled() {
            return Err(DeviceError::Refused(format!(
                "kernel {kernel} asks for the workgroup info SGPR, whose contents the emulator does not model"
            )));
        }
        if kd.private_segment_fixed_size > 0 {
            return Err(DeviceError::Refused(format!(
                "kernel {kernel} needs {} bytes of scratch per work-item; scratch is not emulated",
                kd.private_segment_fixed_size
            )));
        }
        let mut kernarg_image = kernarg.to_vec();
        if kernarg_image.len() < kd.kernarg_size as usize {
            kernarg_image.resize(kd.kernarg_size as usize, 0);
        }
        let kernarg_ptr = self.alloc_internal(&kernarg_image, 256)?;
        let dispatch_ptr = if kd.dispatch_ptr() {
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
            match self.alloc_internal(&p, 64) {
                Ok(ptr) => ptr,
                Err(e) => {
                    let _ = self.memory.free(kernarg_ptr);
                    return Err(e);
                }
            }
        } else {
            0
        };
        self.launches += 1;
        let setup = LaunchSetup::new(kd, dispatch, kernarg_ptr, dispatch_ptr, self.launches);
        let result = self.run_launch(&k, &setup, timeout);
        let _ = self.memory.free(kernarg_ptr);
        if dispatch_ptr != 0 {
            let _ = self.memory.free(dispatch_ptr);
        }
        result
    }
}

/// A host access (`write`, `read`, host views) outside every allocation.
fn host_fault(access: &str, f: memory::Fault) -> DeviceError {
    DeviceError::MemoryFault(format!("host {access} of {} bytes at 0x{:x} is outside every allocation", f.bytes, f.address))
}

impl EmuDevice {
    fn run_launch(&self, k: &EmuKernel, setup: &LaunchSetup, timeout: Duration) -> Result<(), DeviceError> {
        let groups: u64 = setup.dispatch.grid_blocks.iter().map(|&d| u64::from(d)).product();
        let abort = AtomicBool::new(false);
        let ctx = Ctx {
            mem: &self.memory,
            prog: &k.program,
            step_budget: self.options.step_budget,
            started: Instant::now(),
            timeout,
            abort: &abort,
        };
        let threads = self.pool.as_ref().map_or_else(rayon::current_num_threads, |p| p.current_num_threads()).max(1);
        // A few chunks per thread balance uneven workgroups without paying
        // per-workgroup scheduling.
        let chunks = (threads as u64 * 4).min(groups).max(1);
        let per = groups.div_ceil(chunks);
        let failures = std::sync::Mutex::new(Vec::<(u64, DeviceError)>::new());
        let run = || {
            (0..chunks).into_par_iter().for_each(|c| {
                let range = (c * per)..((c + 1) * per).min(groups);
                let r = if setup.kd.wave_size() == 32 {
                    run_groups::<32>(setup, &ctx, range)
                } else {
                    run_groups::<64>(setup, &ctx, range)
                };
                if let Err(e) = r {
                    abort.store(true, Ordering::Relaxed);
                    if e != exec::aborted() {
                        if let Ok(mut f) = failures.lock() {
                            f.push((c, e));
                        }
                    }
                }
            })
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
        // Report the failure of the lowest chunk that failed (the others may
        // have stopped early because of it).
        let mut failures = failures.into_inner().unwrap_or_default();
        failures.sort_by_key(|(c, _)| *c);
        match failures.into_iter().next() {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}
