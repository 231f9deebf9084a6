//! The process-wide state of the emulated KFD device: its GPUs (each with its
//! own emulator), the memory objects the runtime allocated and the device's
//! views of them, events, and which file descriptors are the device's.

use crate::config::Config;
use crate::queue::QueueThread;
use crate::topology::{self, GpuNode};
use crate::{trace, warn};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use xad_harness::platform::emu::memory::{Backing, Buffer, Words};
use xad_harness::platform::emu::EmuDevice;

/// Which fds are the device's: 0 none, 1 `/dev/kfd`, 2 + i the render node of
/// GPU i. Lock-free, because `close` and `ioctl` ask on every call.
const FD_SLOTS: usize = 1 << 16;
static FDS: [AtomicU8; FD_SLOTS] = [const { AtomicU8::new(0) }; FD_SLOTS];

pub const FD_KFD: u8 = 1;

pub fn fd_kind(fd: i32) -> u8 {
    usize::try_from(fd)
        .ok()
        .and_then(|i| FDS.get(i))
        .map_or(0, |k| k.load(Relaxed))
}

pub fn forget_fd(fd: i32) {
    if let Some(k) = usize::try_from(fd).ok().and_then(|i| FDS.get(i)) {
        k.store(0, Relaxed);
    }
}

static KFD: OnceLock<Option<Kfd>> = OnceLock::new();

/// The device, created at the first path or fd that is its; `None` when its
/// settings are wrong (one line said why; the stack then sees no GPU).
pub fn get() -> Option<&'static Kfd> {
    KFD.get_or_init(|| match Kfd::new() {
        Ok(k) => Some(k),
        Err(e) => {
            warn!("{e}; presenting no GPU");
            None
        }
    })
    .as_ref()
}

/// Memory object offsets in the memfd start here; doorbell pages sit below,
/// at (GPU index + 1) << 32 (the thunk needs a doorbell mmap offset whose
/// low bits are only the doorbell's index).
const BO_BASE: u64 = 1 << 40;
/// Bytes of one GPU's doorbell page: 1024 doorbells of 8 bytes (gfx9+).
pub const DOORBELL_PAGE: u64 = 1024 * 8;
const BO_ALIGN: u64 = 1 << 16;

pub struct Gpu {
    pub node: GpuNode,
    pub emu: Mutex<EmuDevice>,
    /// XNACK enabled (SET_XNACK_MODE); off by default, as on a real GPU.
    pub xnack: AtomicBool,
    /// The next free doorbell index in this GPU's doorbell page (one per queue created).
    pub next_doorbell: AtomicU32,
}

/// A view of memory the device did not allocate itself: its own mapping of
/// the memfd, or a user pointer (the process's own pages).
pub struct View {
    ptr: *mut u8,
    len: usize,
    /// Whether the device mapped it (and unmaps it on drop).
    mapped: bool,
}

// SAFETY: the view is plain shared memory, accessed only through atomics.
unsafe impl Send for View {}
unsafe impl Sync for View {}

impl View {
    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }
}

impl Backing for View {
    fn words(&self) -> &[std::sync::atomic::AtomicU32] {
        // SAFETY: `ptr` is 4-byte aligned (page aligned or a user pointer the
        // runtime registered, checked when the view is made) and `len` bytes
        // stay mapped while the view lives: the device's own mapping is
        // unmapped only in drop; a user pointer is the runtime's to keep until
        // it frees the object, which unplaces the view first.
        unsafe { std::slice::from_raw_parts(self.ptr as *const _, self.len / 4) }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if self.mapped {
            // SAFETY: the device's own mapping, made in `Kfd::map_view`.
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
        }
    }
}

/// A memory object (ALLOC_MEMORY_OF_GPU).
pub struct Bo {
    pub gpu: usize,
    pub va: u64,
    pub size: u64,
    pub flags: u32,
    pub view: Arc<View>,
    /// GPUs it is mapped on (placed into their emulators).
    pub mapped_on: Vec<usize>,
    /// Counted against the GPU's local memory.
    pub vram: bool,
}

#[derive(Default)]
pub struct Memory {
    pub bos: HashMap<u64, Bo>,
    next_handle: u64,
    next_offset: u64,
    memfd_len: u64,
    vram_used: Vec<u64>,
}

/// One KFD event, with the driver's wake-up rule (amdkfd `set_event`): a
/// signal wakes every thread waiting on the event at that moment; an
/// auto-reset event stays signaled only when nobody was waiting, for the
/// next wait to consume. (Letting the first waker consume it would starve
/// the others: ROCr waits on one event from several threads.)
#[derive(Debug, Clone, Default)]
pub struct Event {
    pub kind: u32,
    pub auto_reset: bool,
    pub signaled: bool,
    /// Signals so far; a waiter fires when it changes under it.
    pub generation: u64,
    /// Threads waiting on it now.
    pub waiters: u32,
    /// For a memory event: the faulting address and GPU.
    pub fault: Option<(u64, u32)>,
}

#[derive(Default)]
pub struct EventTable {
    pub events: HashMap<u32, Event>,
    next_id: u32,
}

pub struct Kfd {
    pub config: Config,
    pub gpus: Vec<Gpu>,
    pub topology_dir: PathBuf,
    memfd: OwnedFd,
    pub memory: Mutex<Memory>,
    pub events: Mutex<EventTable>,
    pub event_cv: Condvar,
    pub queues: Mutex<HashMap<u32, QueueThread>>,
    next_queue: AtomicU32,
    /// The events page's handle (the thunk's first CREATE_EVENT gives it).
    pub events_page: std::sync::atomic::AtomicU64,
    /// When the device came up: the origin of GET_CLOCK_COUNTERS' clocks.
    pub started: Instant,
}

impl Kfd {
    /// The emulated GPU's clock: 100 MHz (the REALTIME clock of the ISA
    /// guides) since the device came up. GET_CLOCK_COUNTERS reports it and
    /// signals' profiling time stamps are in it.
    pub fn gpu_clock(&self) -> u64 {
        (self.started.elapsed().as_nanos() / 10) as u64
    }

    fn new() -> Result<Kfd, String> {
        let config = Config::from_env()?;
        trace::enable(config.trace);
        // Which ROCm libraries this process runs: the real ones, from their
        // packages, are what this device exists to exercise.
        for lib in rocm_libraries() {
            trace!("runtime library mapped: {lib}");
        }
        let nodes: Vec<GpuNode> = config
            .gpus
            .iter()
            .enumerate()
            .map(|(i, t)| GpuNode::of(i, t))
            .collect();
        let dir = std::env::temp_dir().join(format!("xad-emukfd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        topology::write(&dir, &nodes)
            .map_err(|e| format!("cannot write the topology under {}: {e}", dir.display()))?;
        // The private tree goes when the process exits normally.
        extern "C" fn remove_topology() {
            if let Some(Some(k)) = KFD.get() {
                let _ = std::fs::remove_dir_all(&k.topology_dir);
            }
        }
        // SAFETY: registers a plain function with no arguments.
        unsafe { libc::atexit(remove_topology) };
        // SAFETY: plain syscall; the name is a valid C string.
        let fd = unsafe { libc::memfd_create(c"xad-emukfd".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(format!("memfd_create: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: a new fd we own.
        let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
        let gpus = nodes
            .into_iter()
            .map(|node| {
                trace!(
                    "GPU node {}: {} (gpu_id 0x{:x}, gfx_target_version {}, renderD{}, wave{})",
                    node.node,
                    node.marketing_name(),
                    node.gpu_id,
                    node.gfx_version,
                    node.render_minor,
                    node.wave_size
                );
                Gpu {
                    emu: Mutex::new(EmuDevice::for_target(node.target)),
                    node,
                    xnack: AtomicBool::new(false),
                    next_doorbell: AtomicU32::new(0),
                }
            })
            .collect::<Vec<_>>();
        let memory = Memory {
            next_offset: BO_BASE,
            vram_used: vec![0; gpus.len()],
            ..Memory::default()
        };
        Ok(Kfd {
            config,
            gpus,
            topology_dir: dir,
            memfd,
            memory: Mutex::new(memory),
            events: Mutex::new(EventTable {
                next_id: 1,
                ..EventTable::default()
            }),
            event_cv: Condvar::new(),
            queues: Mutex::new(HashMap::new()),
            next_queue: AtomicU32::new(1),
            events_page: std::sync::atomic::AtomicU64::new(0),
            started: Instant::now(),
        })
    }

    /// A new fd on the device's memfd, marked as `kind`.
    pub fn open_fd(&self, kind: u8) -> Result<i32, i32> {
        // SAFETY: plain syscall on an fd we own.
        let fd = unsafe { libc::fcntl(self.memfd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO));
        }
        match FDS.get(fd as usize) {
            Some(slot) => {
                slot.store(kind, Relaxed);
                Ok(fd)
            }
            None => {
                // SAFETY: the fd we just made.
                unsafe { libc::close(fd) };
                Err(libc::EMFILE)
            }
        }
    }

    pub fn gpu_by_id(&self, gpu_id: u32) -> Option<(usize, &Gpu)> {
        self.gpus
            .iter()
            .enumerate()
            .find(|(_, g)| g.node.gpu_id == gpu_id)
    }

    pub fn gpu_by_minor(&self, minor: u32) -> Option<(usize, &Gpu)> {
        self.gpus
            .iter()
            .enumerate()
            .find(|(_, g)| g.node.render_minor == minor)
    }

    pub fn lock_memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_events(&self) -> MutexGuard<'_, EventTable> {
        self.events.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Grow the memfd to cover `end` bytes.
    fn cover(&self, mem: &mut Memory, end: u64) -> Result<(), i32> {
        if end > mem.memfd_len {
            // SAFETY: plain syscall on our fd; the file is sparse.
            if unsafe { libc::ftruncate(self.memfd.as_raw_fd(), end as i64) } != 0 {
                return Err(libc::ENOMEM);
            }
            mem.memfd_len = end;
        }
        Ok(())
    }

    /// The device's own view of `len` bytes of the memfd at `offset`.
    fn map_view(&self, offset: u64, len: u64) -> Result<View, i32> {
        // SAFETY: a new shared mapping of our own fd; nothing else is at the
        // address the kernel picks.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                self.memfd.as_raw_fd(),
                offset as i64,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(libc::ENOMEM);
        }
        Ok(View {
            ptr: p.cast(),
            len: len as usize,
            mapped: true,
        })
    }

    /// The memfd offset of GPU `gpu`'s doorbell page (and, in the low bits,
    /// nothing: the thunk adds the doorbell's index).
    pub fn doorbell_offset(&self, gpu: usize) -> Result<u64, i32> {
        let off = (gpu as u64 + 1) << 32;
        let mut mem = self.lock_memory();
        self.cover(&mut mem, off + DOORBELL_PAGE)?;
        Ok(off)
    }

    /// The device's own view of GPU `gpu`'s doorbell page (what the runtime
    /// writes through its mapping of the same memfd pages).
    pub fn doorbell_view(&self, gpu: usize) -> Result<View, i32> {
        let off = self.doorbell_offset(gpu)?;
        self.map_view(off, DOORBELL_PAGE)
    }

    /// ALLOC_MEMORY_OF_GPU: a memory object of `size` bytes at `va` on GPU
    /// `gpu`; `userptr` is the process address of user memory. Returns the
    /// handle and the mmap offset.
    pub fn alloc(
        &self,
        gpu: usize,
        va: u64,
        size: u64,
        flags: u32,
        userptr: Option<u64>,
        doorbell: bool,
    ) -> Result<(u64, u64), i32> {
        if size == 0 || va % 4 != 0 {
            return Err(libc::EINVAL);
        }
        let vram = flags & crate::kfd::KFD_IOC_ALLOC_MEM_FLAGS_VRAM != 0;
        let mut mem = self.lock_memory();
        if vram && mem.vram_used[gpu] + size > topology::LOCAL_MEMORY {
            return Err(libc::ENOMEM);
        }
        let (offset, view) = if let Some(addr) = userptr {
            if addr % 4 != 0 {
                return Err(libc::EINVAL);
            }
            let view = View {
                ptr: addr as *mut u8,
                len: size as usize,
                mapped: false,
            };
            (addr, view)
        } else if doorbell {
            drop(mem);
            let off = self.doorbell_offset(gpu)?;
            mem = self.lock_memory();
            (off, self.map_view(off, size.max(DOORBELL_PAGE))?)
        } else {
            let off = mem.next_offset;
            let len = size.next_multiple_of(BO_ALIGN);
            self.cover(&mut mem, off + len)?;
            mem.next_offset = off + len;
            (off, self.map_view(off, len)?)
        };
        mem.next_handle += 1;
        let handle = (u64::from(self.gpus[gpu].node.gpu_id) << 32) | mem.next_handle;
        if vram {
            mem.vram_used[gpu] += size;
        }
        mem.bos.insert(
            handle,
            Bo {
                gpu,
                va,
                size,
                flags,
                view: Arc::new(view),
                mapped_on: Vec::new(),
                vram,
            },
        );
        Ok((handle, offset))
    }

    /// MAP_MEMORY_TO_GPU: place the object into each listed GPU's emulator.
    pub fn map(&self, handle: u64, gpus: &[usize]) -> Result<(), i32> {
        let mut mem = self.lock_memory();
        let bo = mem.bos.get_mut(&handle).ok_or(libc::EINVAL)?;
        for &g in gpus {
            if bo.mapped_on.contains(&g) {
                continue;
            }
            let backing: Arc<dyn Backing> = bo.view.clone();
            let mut emu = self.gpus[g].emu.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = emu.place(bo.va, bo.size, backing) {
                warn!("MAP_MEMORY_TO_GPU 0x{handle:x} on GPU {g}: {e}");
                return Err(libc::EINVAL);
            }
            bo.mapped_on.push(g);
        }
        Ok(())
    }

    /// UNMAP_MEMORY_FROM_GPU (or every GPU when freeing).
    pub fn unmap(&self, handle: u64, gpus: Option<&[usize]>) -> Result<(), i32> {
        let mut mem = self.lock_memory();
        let bo = mem.bos.get_mut(&handle).ok_or(libc::EINVAL)?;
        let va = bo.va;
        bo.mapped_on.retain(|g| {
            let drop_it = gpus.is_none_or(|list| list.contains(g));
            if drop_it {
                let mut emu = self.gpus[*g].emu.lock().unwrap_or_else(|p| p.into_inner());
                emu.unplace(va);
            }
            !drop_it
        });
        Ok(())
    }

    pub fn free(&self, handle: u64) -> Result<(), i32> {
        self.unmap(handle, None)?;
        let mut mem = self.lock_memory();
        let bo = mem.bos.remove(&handle).ok_or(libc::EINVAL)?;
        if bo.vram {
            mem.vram_used[bo.gpu] -= bo.size;
        }
        Ok(())
    }

    /// `[addr, addr + len)` inside one memory object mapped on GPU `gpu`:
    /// that object, through the device's own view of it, and the offset of
    /// `addr` in it. What the emulator places at MAP_MEMORY_TO_GPU is the same
    /// set, so an engine that asks here sees the memory a kernel sees.
    pub fn mapped(&self, gpu: usize, addr: u64, len: u64) -> Option<(Buffer, u64)> {
        let end = addr.checked_add(len)?;
        let mem = self.lock_memory();
        let bo = mem
            .bos
            .values()
            .find(|bo| bo.mapped_on.contains(&gpu) && bo.va <= addr && end <= bo.va + bo.size)?;
        let buffer = Buffer {
            words: Words::Borrowed(bo.view.clone()),
            bytes: bo.size,
        };
        Some((buffer, addr - bo.va))
    }

    pub fn vram_free(&self, gpu: usize) -> u64 {
        topology::LOCAL_MEMORY - self.lock_memory().vram_used[gpu]
    }

    pub fn next_queue_id(&self) -> u32 {
        self.next_queue.fetch_add(1, Relaxed)
    }

    /// CREATE_EVENT: a new event's id.
    pub fn create_event(&self, kind: u32, auto_reset: bool) -> u32 {
        let mut t = self.lock_events();
        let id = t.next_id;
        t.next_id += 1;
        t.events.insert(
            id,
            Event {
                kind,
                auto_reset,
                ..Event::default()
            },
        );
        id
    }

    /// Signal event `id` (SET_EVENT, or the command processor's interrupt).
    pub fn signal_event(&self, id: u32) -> bool {
        let mut t = self.lock_events();
        let found = match t.events.get_mut(&id) {
            Some(e) => {
                e.generation += 1;
                e.signaled = !e.auto_reset || e.waiters == 0;
                true
            }
            None => false,
        };
        drop(t);
        self.event_cv.notify_all();
        found
    }

    /// Signal every memory event with the fault at `va` on `gpu_id`.
    pub fn memory_fault(&self, va: u64, gpu_id: u32) {
        let mut t = self.lock_events();
        for e in t.events.values_mut() {
            if e.kind == crate::kfd::KFD_IOC_EVENT_MEMORY {
                e.generation += 1;
                e.signaled = true;
                e.fault = Some((va, gpu_id));
            }
        }
        drop(t);
        self.event_cv.notify_all();
    }

    /// WAIT_EVENTS: until any (or all) of `ids` is signaled, or `timeout`.
    /// Returns, per id, the event as it was when the wait ended (its
    /// `signaled` set when it fired for this waiter), or None on a timeout;
    /// an unknown id is an error.
    pub fn wait_events(
        &self,
        ids: &[u32],
        all: bool,
        timeout: Option<Duration>,
    ) -> Result<Option<Vec<Event>>, i32> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut t = self.lock_events();
        let mut start = Vec::with_capacity(ids.len());
        for id in ids {
            start.push(t.events.get(id).ok_or(libc::EINVAL)?.generation);
        }
        for id in ids {
            if let Some(e) = t.events.get_mut(id) {
                e.waiters += 1;
            }
        }
        let result = loop {
            let fired: Vec<bool> = ids
                .iter()
                .zip(&start)
                .map(|(id, g)| t.events.get(id).is_some_and(|e| e.signaled || e.generation != *g))
                .collect();
            let done = if all {
                fired.iter().all(|&f| f)
            } else {
                fired.iter().any(|&f| f)
            };
            if done {
                let mut states = Vec::with_capacity(ids.len());
                for (id, f) in ids.iter().zip(&fired) {
                    if let Some(e) = t.events.get_mut(id) {
                        let mut seen = e.clone();
                        seen.signaled = *f;
                        states.push(seen);
                        if *f && e.auto_reset {
                            e.signaled = false;
                        }
                    }
                }
                break Some(states);
            }
            let wait = match deadline {
                None => Duration::from_millis(100),
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left.min(Duration::from_millis(100)),
                    _ => break None,
                },
            };
            t = self
                .event_cv
                .wait_timeout(t, wait)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        };
        for id in ids {
            if let Some(e) = t.events.get_mut(id) {
                e.waiters = e.waiters.saturating_sub(1);
            }
        }
        Ok(result)
    }
}

/// The ROCm user-space libraries mapped into this process (from
/// /proc/self/maps): HIP, ROCr, the thunk, libdrm's amdgpu library, comgr.
pub fn rocm_libraries() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut libs: Vec<String> = Vec::new();
    for path in maps.lines().filter_map(|l| l.split_whitespace().nth(5)) {
        let name = path.rsplit('/').next().unwrap_or(path);
        let rocm = ["libamdhip64", "libhsa-runtime64", "libhsakmt", "libdrm_amdgpu", "libamd_comgr"]
            .iter()
            .any(|p| name.starts_with(p));
        if rocm && !libs.iter().any(|l| l == path) {
            libs.push(path.to_string());
        }
    }
    libs
}
