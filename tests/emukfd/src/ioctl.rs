//! The KFD ioctls, one handler per request of the system's
//! `<linux/kfd_ioctl.h>`. A request the device does not implement gets the
//! errno an older kernel gives for a request it does not have (EINVAL) and a
//! line naming it; the thunk treats several of them (debug trap, SVM, GWS)
//! as optional.

use crate::device::{Kfd, FD_KFD};
use crate::kfd::*;
use crate::{queue, sdma};
use crate::{trace, warn};
use std::ffi::{c_char, c_ulong, c_void, CStr};
use std::time::Duration;

extern "C" {
    /// src/requests.c: the request's name without `AMDKFD_IOC_` (matched by
    /// type and number), or NULL; `header` gets the header's request number.
    fn xad_kfd_request_lookup(request: c_ulong, header: *mut c_ulong) -> *const c_char;
}

/// The name the system header gives `request`'s number, and the header's
/// own request (whose size field is the header's argument size).
pub fn request_name(request: c_ulong) -> Option<(&'static str, c_ulong)> {
    let mut header: c_ulong = 0;
    // SAFETY: returns NULL or a pointer into a static table of C strings.
    let p = unsafe { xad_kfd_request_lookup(request, &mut header) };
    if p.is_null() {
        return None;
    }
    // SAFETY: a static NUL-terminated string.
    let name = unsafe { CStr::from_ptr(p) }.to_str().ok()?;
    Some((name, header))
}

/// An ioctl request's argument size (`_IOC_SIZE`).
fn arg_size(request: c_ulong) -> usize {
    ((request >> 16) & 0x3fff) as usize
}

type Result = std::result::Result<(), i32>;

/// Handle `request` on a device fd of `kind`.
///
/// # Safety
/// `arg` points to the argument struct of `request` (the ioctl contract).
pub unsafe fn handle(kfd: &'static Kfd, kind: u8, request: c_ulong, arg: *mut c_void) -> Result {
    let Some((name, header)) = request_name(request) else {
        // What a kernel older than the caller's header answers (the 5.2
        // thunk asks DBG_TRAP, which the 1.11 header lacks, and tolerates it).
        trace!(
            "ioctl 0x{request:x} (nr 0x{:x}, {} bytes) is not a request of this system's <linux/kfd_ioctl.h> ({}.{}): EINVAL",
            request & 0xff,
            (request >> 16) & 0x3fff,
            KFD_IOCTL_MAJOR_VERSION,
            KFD_IOCTL_MINOR_VERSION
        );
        return Err(libc::EINVAL);
    };
    if kind != FD_KFD {
        warn!("ioctl {name} on a render node: the device answers DRM queries through libdrm only: EINVAL");
        return Err(libc::EINVAL);
    }
    if arg.is_null() {
        return Err(libc::EFAULT);
    }
    // As the kernel driver does: the caller's struct (its size from the
    // request) copied into a zeroed one of at least the header's size, the
    // request served on that, and the caller's size copied back. A newer
    // thunk's longer struct (ROCr 6.x/7.x: CREATE_QUEUE 96 bytes against
    // the 1.11 header's 88) keeps its fields; an older one's shorter struct
    // reads zeros past its end.
    let theirs = arg_size(request);
    let mut copy = vec![0u64; theirs.max(arg_size(header)).div_ceil(8)];
    // SAFETY: the caller's struct is `theirs` bytes (the ioctl contract);
    // `copy` holds at least that many.
    unsafe { std::ptr::copy_nonoverlapping(arg as *const u8, copy.as_mut_ptr().cast::<u8>(), theirs) };
    // SAFETY: `copy` is an 8-aligned buffer of at least the header's size.
    let r = unsafe { serve(kfd, name, copy.as_mut_ptr().cast()) };
    // SAFETY: as above, back into the caller's struct.
    unsafe { std::ptr::copy_nonoverlapping(copy.as_ptr().cast::<u8>(), arg as *mut u8, theirs) };
    r
}

/// Serve request `name` on its argument struct (at least the header's size).
///
/// # Safety
/// `arg` points to a struct of `name`'s header type.
unsafe fn serve(kfd: &'static Kfd, name: &str, arg: *mut c_void) -> Result {
    macro_rules! args {
        ($t:ty) => {
            // SAFETY: the caller's argument struct for this request.
            unsafe { &mut *(arg as *mut $t) }
        };
    }
    let r = match name {
        "GET_VERSION" => {
            let a = args!(kfd_ioctl_get_version_args);
            a.major_version = KFD_IOCTL_MAJOR_VERSION;
            a.minor_version = KFD_IOCTL_MINOR_VERSION;
            trace!("ioctl GET_VERSION -> {}.{}", a.major_version, a.minor_version);
            Ok(())
        }
        "GET_PROCESS_APERTURES_NEW" => {
            let a = args!(kfd_ioctl_get_process_apertures_new_args);
            let n = (a.num_of_nodes as usize).min(kfd.gpus.len());
            let out = a.kfd_process_device_apertures_ptr as *mut kfd_process_device_apertures;
            if out.is_null() && n > 0 {
                return Err(libc::EFAULT);
            }
            for (i, g) in kfd.gpus.iter().take(n).enumerate() {
                // SAFETY: the caller's array of num_of_nodes entries.
                unsafe { out.add(i).write(apertures(g.node.gpu_id)) };
            }
            a.num_of_nodes = n as u32;
            trace!("ioctl GET_PROCESS_APERTURES_NEW -> {n} GPU(s), GPUVM 0x{:x}..0x{:x}", GPUVM_BASE, GPUVM_LIMIT);
            Ok(())
        }
        "GET_PROCESS_APERTURES" => {
            let a = args!(kfd_ioctl_get_process_apertures_args);
            let n = kfd.gpus.len().min(a.process_apertures.len());
            for (i, g) in kfd.gpus.iter().take(n).enumerate() {
                a.process_apertures[i] = apertures(g.node.gpu_id);
            }
            a.num_of_nodes = n as u32;
            Ok(())
        }
        "ACQUIRE_VM" => {
            let a = args!(kfd_ioctl_acquire_vm_args);
            let ok = kfd.gpu_by_id(a.gpu_id).is_some() && crate::device::fd_kind(a.drm_fd as i32) >= 2;
            trace!("ioctl ACQUIRE_VM gpu 0x{:x} drm fd {} -> {}", a.gpu_id, a.drm_fd, if ok { "ok" } else { "EINVAL" });
            if ok { Ok(()) } else { Err(libc::EINVAL) }
        }
        "SET_MEMORY_POLICY" => {
            let a = args!(kfd_ioctl_set_memory_policy_args);
            trace!("ioctl SET_MEMORY_POLICY gpu 0x{:x} -> ok", a.gpu_id);
            gpu(kfd, a.gpu_id).map(|_| ())
        }
        "SET_XNACK_MODE" => {
            let a = args!(kfd_ioctl_set_xnack_mode_args);
            // XNACK on means retry faults and shared virtual memory (a
            // kernel may touch any process page, migrated on demand), which
            // the device does not emulate: it answers as a driver whose GPUs
            // run without retry faults (EPERM), and ROCr keeps XNACK off.
            if a.xnack_enabled > 0 {
                trace!("ioctl SET_XNACK_MODE 1 -> EPERM (retry faults and SVM are not emulated)");
                return Err(libc::EPERM);
            }
            if a.xnack_enabled < 0 {
                a.xnack_enabled = i32::from(kfd.gpus.iter().any(|g| g.xnack.load(std::sync::atomic::Ordering::Relaxed)));
            } else {
                for g in &kfd.gpus {
                    g.xnack.store(false, std::sync::atomic::Ordering::Relaxed);
                }
            }
            trace!("ioctl SET_XNACK_MODE -> xnack {}", a.xnack_enabled);
            Ok(())
        }
        "GET_CLOCK_COUNTERS" => {
            let a = args!(kfd_ioctl_get_clock_counters_args);
            gpu(kfd, a.gpu_id)?;
            let ns = kfd.started.elapsed().as_nanos() as u64;
            // The system counter is in nanoseconds.
            a.gpu_clock_counter = kfd.gpu_clock();
            a.cpu_clock_counter = ns;
            a.system_clock_counter = ns;
            a.system_clock_freq = 1_000_000_000;
            trace!("ioctl GET_CLOCK_COUNTERS -> gpu {} system {}", a.gpu_clock_counter, ns);
            Ok(())
        }
        "GET_TILE_CONFIG" => {
            let a = args!(kfd_ioctl_get_tile_config_args);
            gpu(kfd, a.gpu_id)?;
            a.num_tile_configs = 0;
            a.num_macro_tile_configs = 0;
            a.gb_addr_config = 0;
            a.num_banks = 0;
            a.num_ranks = 0;
            trace!("ioctl GET_TILE_CONFIG -> none (compute only)");
            Ok(())
        }
        "SET_SCRATCH_BACKING_VA" => {
            let a = args!(kfd_ioctl_set_scratch_backing_va_args);
            trace!("ioctl SET_SCRATCH_BACKING_VA 0x{:x} -> ok (scratch is not emulated)", a.va_addr);
            gpu(kfd, a.gpu_id).map(|_| ())
        }
        "SET_TRAP_HANDLER" => {
            let a = args!(kfd_ioctl_set_trap_handler_args);
            trace!("ioctl SET_TRAP_HANDLER tba 0x{:x} tma 0x{:x} -> ok (traps are not emulated: s_trap faults)", a.tba_addr, a.tma_addr);
            gpu(kfd, a.gpu_id).map(|_| ())
        }
        "ALLOC_MEMORY_OF_GPU" => {
            let a = args!(kfd_ioctl_alloc_memory_of_gpu_args);
            let (g, _) = gpu(kfd, a.gpu_id)?;
            let userptr = (a.flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR != 0).then_some(a.mmap_offset);
            let doorbell = a.flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL != 0;
            let r = kfd.alloc(g, a.va_addr, a.size, a.flags, userptr, doorbell);
            match r {
                Ok((handle, offset)) => {
                    a.handle = handle;
                    a.mmap_offset = offset;
                    trace!(
                        "ioctl ALLOC_MEMORY_OF_GPU gpu 0x{:x} va 0x{:x} size 0x{:x} flags {} -> handle 0x{handle:x} mmap offset 0x{offset:x}",
                        a.gpu_id, a.va_addr, a.size, alloc_flags(a.flags)
                    );
                    Ok(())
                }
                Err(e) => {
                    trace!("ioctl ALLOC_MEMORY_OF_GPU size 0x{:x} flags {} -> errno {e}", a.size, alloc_flags(a.flags));
                    Err(e)
                }
            }
        }
        "FREE_MEMORY_OF_GPU" => {
            let a = args!(kfd_ioctl_free_memory_of_gpu_args);
            trace!("ioctl FREE_MEMORY_OF_GPU 0x{:x}", a.handle);
            kfd.free(a.handle)
        }
        "MAP_MEMORY_TO_GPU" | "UNMAP_MEMORY_FROM_GPU" => {
            // Both argument structs start with the same fields.
            let a = args!(kfd_ioctl_map_memory_to_gpu_args);
            let ids = if a.device_ids_array_ptr == 0 {
                &[][..]
            } else {
                // SAFETY: the caller's array of n_devices gpu ids.
                unsafe { std::slice::from_raw_parts(a.device_ids_array_ptr as *const u32, a.n_devices as usize) }
            };
            let mut gpus = Vec::new();
            for &id in ids {
                gpus.push(gpu(kfd, id)?.0);
            }
            let r = if name == "MAP_MEMORY_TO_GPU" {
                kfd.map(a.handle, &gpus)
            } else {
                kfd.unmap(a.handle, Some(&gpus))
            };
            if r.is_ok() {
                a.n_success = a.n_devices;
            }
            trace!("ioctl {name} 0x{:x} on {} GPU(s) -> {:?}", a.handle, gpus.len(), r);
            r
        }
        "CREATE_QUEUE" => {
            let a = args!(kfd_ioctl_create_queue_args);
            let (g, gpu) = gpu(kfd, a.gpu_id)?;
            let sdma = match a.queue_type {
                KFD_IOC_QUEUE_TYPE_COMPUTE_AQL => None,
                KFD_IOC_QUEUE_TYPE_SDMA | KFD_IOC_QUEUE_TYPE_SDMA_XGMI => match gpu.node.sdma {
                    Some(generation) => Some(generation),
                    None => {
                        // num_sdma_engines 0 in this GPU's topology: ROCr
                        // then copies with its blit kernels.
                        trace!("ioctl CREATE_QUEUE SDMA gpu 0x{:x} -> ENOMEM (no SDMA family of this GPU is emulated)", a.gpu_id);
                        return Err(libc::ENOMEM);
                    }
                },
                other => {
                    trace!("ioctl CREATE_QUEUE type {other} -> ENOMEM (only AQL compute and SDMA queues are emulated)");
                    return Err(libc::ENOMEM);
                }
            };
            if sdma.is_some() && !a.ring_size.is_power_of_two() {
                trace!("ioctl CREATE_QUEUE SDMA ring of {} bytes -> EINVAL (not a power of two)", a.ring_size);
                return Err(libc::EINVAL);
            }
            let base = kfd.doorbell_offset(g)?;
            let index = gpu.next_doorbell.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if u64::from(index) * 8 >= crate::device::DOORBELL_PAGE {
                return Err(libc::ENOSPC);
            }
            let id = kfd.next_queue_id();
            a.queue_id = id;
            a.doorbell_offset = base + u64::from(index) * 8;
            let doorbells = kfd.doorbell_view(g)?;
            let q = match sdma {
                None => queue::start(
                    kfd,
                    queue::Ring {
                        id,
                        gpu: g,
                        base: a.ring_base_address,
                        packets: u64::from(a.ring_size) / 64,
                        write_ptr: a.write_pointer_address,
                        read_ptr: a.read_pointer_address,
                    },
                    doorbells,
                    index,
                ),
                Some(generation) => sdma::start(
                    kfd,
                    sdma::SdmaRing {
                        id,
                        gpu: g,
                        base: a.ring_base_address,
                        bytes: u64::from(a.ring_size),
                        write_ptr: a.write_pointer_address,
                        read_ptr: a.read_pointer_address,
                        generation,
                    },
                    doorbells,
                    index,
                ),
            };
            trace!(
                "ioctl CREATE_QUEUE {} gpu 0x{:x} ring 0x{:x} ({} bytes) wptr 0x{:x} rptr 0x{:x} -> queue {id} doorbell 0x{:x}{}",
                match a.queue_type {
                    KFD_IOC_QUEUE_TYPE_SDMA => "SDMA",
                    KFD_IOC_QUEUE_TYPE_SDMA_XGMI => "SDMA_XGMI",
                    _ => "AQL",
                },
                a.gpu_id, a.ring_base_address, a.ring_size, a.write_pointer_address, a.read_pointer_address, a.doorbell_offset,
                sdma.map_or(String::new(), |g| format!(" ({} packets, {}-bit copy counts)", g.name, g.count_bits))
            );
            kfd.queues.lock().unwrap_or_else(|p| p.into_inner()).insert(id, q);
            Ok(())
        }
        "DESTROY_QUEUE" => {
            let a = args!(kfd_ioctl_destroy_queue_args);
            let q = kfd.queues.lock().unwrap_or_else(|p| p.into_inner()).remove(&a.queue_id);
            trace!("ioctl DESTROY_QUEUE {} -> {}", a.queue_id, if q.is_some() { "ok" } else { "EINVAL" });
            match q {
                Some(q) => {
                    q.stop();
                    Ok(())
                }
                None => Err(libc::EINVAL),
            }
        }
        "UPDATE_QUEUE" | "SET_CU_MASK" => {
            trace!("ioctl {name} -> ok (no effect on the emulator)");
            Ok(())
        }
        "CREATE_EVENT" => {
            let a = args!(kfd_ioctl_create_event_args);
            let id = kfd.create_event(a.event_type, a.auto_reset != 0);
            a.event_id = id;
            a.event_slot_index = id;
            a.event_trigger_data = id;
            // KFD answers every signal event with the events page's offset
            // (the thunk gives the page's handle with its first event only,
            // and gives an event a mailbox in that page only when the answer
            // is non-zero): without it, later signals would have no mailbox
            // and their waiters would never be woken.
            if a.event_page_offset != 0 {
                kfd.events_page.store(a.event_page_offset, std::sync::atomic::Ordering::Relaxed);
            } else if a.event_type == KFD_IOC_EVENT_SIGNAL {
                a.event_page_offset = kfd.events_page.load(std::sync::atomic::Ordering::Relaxed);
            }
            trace!("ioctl CREATE_EVENT type {} auto_reset {} page 0x{:x} -> id {id}", a.event_type, a.auto_reset, a.event_page_offset);
            Ok(())
        }
        "DESTROY_EVENT" => {
            let a = args!(kfd_ioctl_destroy_event_args);
            kfd.lock_events().events.remove(&a.event_id);
            trace!("ioctl DESTROY_EVENT {}", a.event_id);
            Ok(())
        }
        "SET_EVENT" => {
            let a = args!(kfd_ioctl_set_event_args);
            trace!("ioctl SET_EVENT {}", a.event_id);
            if kfd.signal_event(a.event_id) { Ok(()) } else { Err(libc::EINVAL) }
        }
        "RESET_EVENT" => {
            let a = args!(kfd_ioctl_reset_event_args);
            match kfd.lock_events().events.get_mut(&a.event_id) {
                Some(e) => {
                    e.signaled = false;
                    Ok(())
                }
                None => Err(libc::EINVAL),
            }
        }
        "WAIT_EVENTS" => {
            let a = args!(kfd_ioctl_wait_events_args);
            // SAFETY: the caller's array of num_events entries.
            let data = unsafe {
                std::slice::from_raw_parts_mut(a.events_ptr as *mut kfd_event_data, a.num_events as usize)
            };
            let ids: Vec<u32> = data.iter().map(|d| d.event_id).collect();
            // KFD_EVENT_TIMEOUT_INFINITE is 0xFFFFFFFF milliseconds.
            let timeout = (a.timeout != u32::MAX).then(|| Duration::from_millis(a.timeout.into()));
            // The runtime blocks on work it has just published: look now.
            for q in kfd.queues.lock().unwrap_or_else(|e| e.into_inner()).values() {
                q.wake();
            }
            match kfd.wait_events(&ids, a.wait_for_all != 0, timeout)? {
                None => a.wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT,
                Some(states) => {
                    a.wait_result = KFD_IOC_WAIT_RESULT_COMPLETE;
                    for (d, e) in data.iter_mut().zip(states) {
                        if let Some((va, gpu_id)) = e.fault.filter(|_| e.signaled) {
                            // The union's memory member, as KFD fills it for memory events.
                            // SAFETY: the union is plain integers; KFD writes this member.
                            let m = unsafe { &mut d.__bindgen_anon_1.memory_exception_data };
                            m.va = va;
                            m.gpu_id = gpu_id;
                            m.failure.NotPresent = 1;
                        }
                    }
                }
            }
            if a.timeout != 0 {
                trace!("ioctl WAIT_EVENTS {ids:?} all {} timeout {} ms -> {}", a.wait_for_all, a.timeout as i32, if a.wait_result == KFD_IOC_WAIT_RESULT_COMPLETE { "complete" } else { "timeout" });
            }
            Ok(())
        }
        "AVAILABLE_MEMORY" => {
            let a = args!(kfd_ioctl_get_available_memory_args);
            let (g, _) = gpu(kfd, a.gpu_id)?;
            a.available = kfd.vram_free(g);
            Ok(())
        }
        "RUNTIME_ENABLE" => {
            trace!("ioctl RUNTIME_ENABLE -> ok");
            Ok(())
        }
        other => {
            warn!("ioctl {other} is not emulated: EINVAL (the emulated KFD device answers the requests docs/emulated-kfd.md lists)");
            Err(libc::EINVAL)
        }
    };
    r
}

/// The GPU with KFD id `gpu_id`, or EINVAL.
fn gpu(kfd: &Kfd, gpu_id: u32) -> std::result::Result<(usize, &crate::device::Gpu), i32> {
    kfd.gpu_by_id(gpu_id).ok_or(libc::EINVAL)
}

/// GPUVM aperture: the canonical user address space above the first 2 MiB,
/// where the thunk reserves its ranges (a GPU address is a process address).
const GPUVM_BASE: u64 = 0x20_0000;
const GPUVM_LIMIT: u64 = (1 << 47) - 1;

/// A GPU's apertures as KFD reports them on gfx9 and later: LDS and scratch
/// in the non-canonical high range (flat addresses only the GPU decodes),
/// GPUVM over the process's user address space.
fn apertures(gpu_id: u32) -> kfd_process_device_apertures {
    kfd_process_device_apertures {
        lds_base: 0x1_0000_0000_0000,
        lds_limit: 0x1_0000_FFFF_FFFF,
        scratch_base: 0x2_0000_0000_0000,
        scratch_limit: 0x2_0000_FFFF_FFFF,
        gpuvm_base: GPUVM_BASE,
        gpuvm_limit: GPUVM_LIMIT,
        gpu_id,
        pad: 0,
    }
}

/// The ALLOC_MEMORY_OF_GPU flags by name, for the trace.
fn alloc_flags(flags: u32) -> String {
    let names = [
        (KFD_IOC_ALLOC_MEM_FLAGS_VRAM, "VRAM"),
        (KFD_IOC_ALLOC_MEM_FLAGS_GTT, "GTT"),
        (KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, "USERPTR"),
        (KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, "DOORBELL"),
        (KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP, "MMIO_REMAP"),
        (KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, "WRITABLE"),
        (KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE, "EXECUTABLE"),
        (KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC, "PUBLIC"),
        (KFD_IOC_ALLOC_MEM_FLAGS_COHERENT, "COHERENT"),
        (KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED, "UNCACHED"),
    ];
    let v: Vec<&str> = names.iter().filter(|(f, _)| flags & f != 0).map(|(_, n)| *n).collect();
    v.join("|")
}
