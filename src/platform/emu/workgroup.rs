//! The workgroup scheduler: a launch's workgroups in chunks on a rayon pool,
//! each workgroup's waves in lockstep while they agree on the pc (one fetch
//! and, for lane-wise ops and contiguous memory, one dispatch per
//! workgroup), then round-robin between barriers; a thread-local cache of
//! waves so small dispatches do not clear megabytes of registers.

use super::launch_setup::LaunchSetup;
use super::memory::Memory;
use super::program::Program;
use super::shadow::{Flow, WaveStop};
use super::smem::sload_group;
use super::taint::{clean_wave_skips, initialised_sgprs};
use super::vmem::mem_group;
use super::wave::{aborted, check_steps, fetch, is_aborted, Ctx, Status, Wave};
use crate::isa::{Inst, Shape};
use crate::platform::device::DeviceError;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a launch runs: the program on memory, within a budget and a timeout.
pub(super) struct Launch<'a> {
    pub(super) pool: Option<&'a rayon::ThreadPool>,
    pub(super) memory: &'a Memory,
    pub(super) program: &'a Program,
    pub(super) step_budget: u64,
    pub(super) timeout: Duration,
    pub(super) xad_faults: &'a [super::emulated::XadFault],
    pub(super) stand_in: Option<&'a dyn super::emulated::ModifierStandIn>,
    pub(super) launch: u64,
    pub(super) compute_units: u32,
}

/// Run every workgroup of `setup`'s dispatch; the first failure (by chunk
/// order) is the launch's. Returns the waves taint stopped, by first lane.
pub(super) fn run_launch(
    launch: &Launch<'_>,
    setup: &LaunchSetup,
) -> Result<Vec<WaveStop>, DeviceError> {
    let groups: u64 = setup
        .dispatch
        .grid_blocks
        .iter()
        .map(|&d| u64::from(d))
        .product();
    let abort = AtomicBool::new(false);
    let stops = std::sync::Mutex::new(Vec::new());
    // The origin of a word computed from an unsettled SGPR names this
    // target's reason, not another generation's.
    launch
        .memory
        .taint
        .set_sgpr_reasons(setup.initialised().unsettled_why);
    let ctx = Ctx {
        mem: launch.memory,
        prog: launch.program,
        step_budget: launch.step_budget,
        started: Instant::now(),
        timeout: launch.timeout,
        abort: &abort,
        stops: &stops,
        xad_faults: launch.xad_faults,
        stand_in: launch.stand_in,
        launch: launch.launch,
        compute_units: launch.compute_units,
    };
    let threads = launch
        .pool
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
        .max(1);
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
                if !is_aborted(&e) {
                    if let Ok(mut f) = failures.lock() {
                        f.push((c, e));
                    }
                }
            }
        })
    };
    match launch.pool {
        Some(pool) => pool.install(run),
        None => run(),
    }
    // Report the failure of the lowest chunk that failed (the others may
    // have stopped early because of it).
    let mut failures = failures.into_inner().unwrap_or_default();
    failures.sort_by_key(|(c, _)| *c);
    match failures.into_iter().next() {
        Some((_, e)) => Err(e),
        None => {
            let mut stops = stops.into_inner().unwrap_or_else(|p| p.into_inner());
            stops.sort_by_key(|s| s.first_lane);
            Ok(stops)
        }
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
    let cached = WAVES
        .with(|c| c.borrow_mut().take())
        .and_then(|b| b.downcast::<Vec<Wave<W>>>().ok());
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
fn run_groups<const W: usize>(
    setup: &LaunchSetup,
    ctx: &Ctx<'_>,
    range: std::ops::Range<u64>,
) -> Result<(), DeviceError> {
    let mut all = take_waves::<W>(setup.waves_per_group);
    let r = run_groups_with(setup, ctx, range, &mut all[..setup.waves_per_group]);
    give_waves(all);
    r
}

fn run_groups_with<const W: usize>(
    setup: &LaunchSetup,
    ctx: &Ctx<'_>,
    range: std::ops::Range<u64>,
    waves: &mut [Wave<W>],
) -> Result<(), DeviceError> {
    let [gx, gy, _] = setup.dispatch.grid_blocks;
    let init = setup.initialised();
    let (sgprs, vgprs) = (
        initialised_sgprs(&init, setup.kd.wave_size() == 64),
        (setup.vgprs as usize, init.vgprs.end),
    );
    for linear in range {
        if ctx.abort.load(Ordering::Relaxed) {
            return Err(aborted());
        }
        let wg = [
            (linear % u64::from(gx)) as u32,
            ((linear / u64::from(gx)) % u64::from(gy)) as u32,
            (linear / (u64::from(gx) * u64::from(gy))) as u32,
        ];
        if linear % 64 == 63 && ctx.started.elapsed() > ctx.timeout {
            return Err(DeviceError::Timeout(ctx.timeout));
        }
        for (w, wave) in waves.iter_mut().enumerate() {
            setup.init_wave(wave, wg, linear, w);
            wave.reset_shadow(sgprs, vgprs, ctx.prog.may_read_unwritten::<W>());
        }
        if setup.waves_per_group == 1 {
            while waves[0].run(ctx)? == Status::Barrier {}
        } else if !run_lockstep(waves, ctx)? {
            run_round_robin(waves, ctx)?;
        }
        collect_stops(waves, ctx);
    }
    Ok(())
}

/// Hand the launch the waves of a finished workgroup that taint stopped.
fn collect_stops<const W: usize>(waves: &mut [Wave<W>], ctx: &Ctx<'_>) {
    for wave in waves.iter_mut() {
        if let Some(stop) = wave.shadow.stop.take() {
            ctx.stops
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(stop);
        }
    }
}

/// One instruction of a lockstep workgroup in which some wave touches a
/// tainted register: each wave in turn, the tainted ones through
/// [`Wave::taint_step`]. `None` when one stopped (lockstep must end).
#[cold]
#[inline(never)]
fn step_tainted<const W: usize>(
    waves: &mut [Wave<W>],
    inst: &crate::isa::Inst,
    ctx: &Ctx<'_>,
    pc: usize,
) -> Result<Option<Option<Status>>, DeviceError> {
    let (flags, deps) = (ctx.prog.flags_at::<W>(pc), ctx.prog.deps_at::<W>(pc));
    let (mut stopped, mut status) = (false, None);
    for w in waves.iter_mut() {
        if w.needs_taint(flags, deps, ctx) && w.taint_step(inst, ctx)? == Flow::Stop {
            stopped = true;
            continue;
        }
        status = w.step(inst, ctx, pc, &mut [], &mut false)?;
    }
    Ok((!stopped).then_some(status))
}

/// Whether some wave of a lockstep workgroup must follow this instruction
/// through the taint step. While every wave is `clean` (no taint anywhere)
/// only flagged instructions are tested; otherwise every wave is (the test
/// also cleans registers that are only written), and `clean` is refreshed.
#[inline(always)]
fn group_needs_taint<const W: usize>(
    waves: &mut [Wave<W>],
    pc: usize,
    ctx: &Ctx<'_>,
    clean: &mut bool,
) -> bool {
    // A clean group tests the instruction's flags once, not per wave.
    let flags = ctx.prog.flags_at::<W>(pc);
    if *clean && clean_wave_skips(flags, ctx) {
        return false;
    }
    let deps = ctx.prog.deps_at::<W>(pc);
    let any = waves
        .iter_mut()
        .fold(false, |any, w| w.needs_taint(flags, deps, ctx) | any);
    *clean = waves.iter().all(|w| w.shadow.clean);
    any
}

/// Round-robin between barriers: each live wave runs until it ends or
/// reaches s_barrier; the barrier releases once every live wave is there.
fn run_round_robin<const W: usize>(
    waves: &mut [Wave<W>],
    ctx: &Ctx<'_>,
) -> Result<(), DeviceError> {
    let mut live = vec![true; waves.len()];
    while live.iter().any(|&l| l) {
        for (w, wave) in waves.iter_mut().enumerate() {
            if live[w] && wave.run(ctx)? == Status::Ended {
                live[w] = false;
            }
        }
    }
    Ok(())
}

/// Run a workgroup's waves in lockstep: each instruction is fetched once and
/// executed for wave 0, 1, ... in turn, while every wave is at the same pc.
/// Returns `Ok(true)` when all waves ended, `Ok(false)` as soon as their pcs
/// differ (a branch went different ways); the caller then finishes them one
/// at a time, which is how they would have run anyway.
///
/// Same results as running each wave to its next barrier in turn: waves of
/// a workgroup only see each other's memory at barriers (anything else is a
/// race, any interleaving of which is a valid outcome on the hardware), each
/// wave counts its own steps, and s_barrier, reached by all at once here,
/// releases at once. Of several waves failing, the one failing first in this
/// order is reported.
pub fn run_lockstep<const W: usize>(
    waves: &mut [Wave<W>],
    ctx: &Ctx<'_>,
) -> Result<bool, DeviceError> {
    let Some(first) = waves.first() else {
        return Ok(true);
    };
    let (mut pc, mut steps, at) = (first.pc, first.steps, first.at);
    if waves.iter().any(|w| w.pc != pc || w.steps != steps) {
        return Ok(false);
    }
    let mut clean = waves.iter().all(|w| w.shadow.clean);
    loop {
        let inst = fetch(ctx, pc, at)?;
        steps += 1;
        check_steps(ctx, steps, inst, at)?;
        let shape = inst.shape();
        if group_needs_taint(waves, pc, ctx, &mut clean) {
            // Each wave sets its own pc (branches) from here.
            leave(waves, pc + 1, steps);
            let Some(status) = step_tainted(waves, inst, ctx, pc)? else {
                return Ok(false);
            };
            clean = waves.iter().all(|w| w.shadow.clean);
            if status == Some(Status::Ended) {
                return Ok(true);
            }
            let Some(same) = common_pc(waves) else {
                return Ok(false);
            };
            pc = same;
            continue;
        }
        let counted = changes_in_flight(shape);
        if step_as_group(waves, inst, shape, ctx, pc) {
            clean = waves.iter().all(|w| w.shadow.clean);
            pc += 1;
            continue;
        }
        let branch = shape == Shape::Branch;
        if branch {
            leave(waves, pc + 1, steps);
        }
        let Some((first, rest)) = waves.split_first_mut() else {
            return Ok(true);
        };
        let mut grouped = false;
        let mut status = first.step(inst, ctx, pc, rest, &mut grouped)?;
        if !grouped {
            for w in rest.iter_mut() {
                status = w.step(inst, ctx, pc, &mut [], &mut grouped)?;
            }
        }
        if counted {
            clean = waves.iter().all(|w| w.shadow.clean);
        }
        if status == Some(Status::Ended) {
            leave(waves, pc + 1, steps);
            return Ok(true);
        }
        if branch {
            let Some(same) = common_pc(waves) else {
                return Ok(false);
            };
            pc = same;
        } else {
            pc += 1;
        }
    }
}

/// pc and steps are kept by [`run_lockstep`] while the waves agree and
/// written back to the waves only when lockstep ends, or before a branch
/// (the one kind of instruction that sets a wave's own pc).
#[inline]
fn leave<const W: usize>(waves: &mut [Wave<W>], pc: usize, steps: u64) {
    for w in waves.iter_mut() {
        (w.pc, w.steps) = (pc, steps);
    }
}

/// The pc every wave is at, or `None` when a branch sent them apart.
#[inline]
fn common_pc<const W: usize>(waves: &[Wave<W>]) -> Option<usize> {
    let pc = waves[0].pc;
    waves.iter().all(|w| w.pc == pc).then_some(pc)
}

/// Whether an instruction of `shape` changes what is in flight (memory ops,
/// waits and messages: counters.rs, waits.rs), so that the group's `clean` must be
/// read again after it.
#[inline(always)]
fn changes_in_flight(shape: Shape) -> bool {
    matches!(
        shape,
        Shape::MemLoad(_)
            | Shape::MemStore(_)
            | Shape::Load(_)
            | Shape::Nop
            | Shape::KWait
            | Shape::Control
    )
}

/// Run `inst` for the whole group at once where it has a workgroup path;
/// `false` when each wave must step it on its own. Inlined, so that the
/// shape test costs other instructions no call.
#[inline(always)]
fn step_as_group<const W: usize>(
    waves: &mut [Wave<W>],
    inst: &Inst,
    shape: Shape,
    ctx: &Ctx<'_>,
    pc: usize,
) -> bool {
    match shape {
        // Only memory ops can take a workgroup path here.
        Shape::MemLoad(_) | Shape::MemStore(_) | Shape::Load(_) => {
            let done = if matches!(shape, Shape::Load(_)) {
                sload_group(waves, inst, ctx.mem)
            } else {
                mem_group(waves, inst, ctx.mem)
            };
            if done {
                for w in waves.iter_mut() {
                    w.issued(inst, pc, ctx);
                }
            }
            done
        }
        // Waits land what they cover; other hints do nothing here.
        Shape::Nop | Shape::KWait => {
            for w in waves.iter_mut() {
                w.waited(inst);
            }
            true
        }
        _ => false,
    }
}
