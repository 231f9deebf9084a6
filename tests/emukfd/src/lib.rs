//! xad-emukfd: an emulated KFD device. Preloaded (`LD_PRELOAD`) under the
//! real, unmodified ROCm user space (libamdhip64 -> ROCr -> the thunk), it
//! makes the stack see one or more AMD GPUs and serves every dispatch on the
//! xad-harness emulator. The GPUs are emulated and say so: each one's
//! marketing name is `xad-harness emulated KFD <target>`.
//!
//! What the stack talks to, and who answers here:
//!
//! | the stack does | the device answers from |
//! |---|---|
//! | `open("/dev/kfd")`, `open("/dev/dri/renderD<minor>")`, `drmOpenRender` | [`device`]: a memfd (the device's memory and doorbells), one per open |
//! | `fopen`/`opendir`/`open` under `/sys/devices/virtual/kfd/kfd/topology` | [`topology`]: a tree generated from the target table in a private directory |
//! | `ioctl` on a device fd | [`ioctl`]: the KFD interface of the system's `<linux/kfd_ioctl.h>` |
//! | `amdgpu_device_initialize`, `amdgpu_get_marketing_name`, `amdgpu_query_gpu_info` | [`interpose`]: the libdrm queries, answered from the target table |
//! | writes AQL packets and rings a doorbell | [`queue`]: a device thread per queue, running dispatches on [`xad_harness::platform::emu::EmuDevice`] |
//! | writes SDMA packets (copies, fences, signal updates) and rings a doorbell | [`sdma`]: a device thread per SDMA queue, on the memory the GPU has mapped |
//!
//! | module | what it is |
//! |---|---|
//! | [`interpose`] | the libc/libdrm entry points (`open`, `ioctl`, `close`, ...): path and fd tests, then the next definition |
//! | [`config`] | `XAD_KFD_DEVICES`, `XAD_KFD_TRACE`, `XAD_KFD_WATCHDOG`, the fault knobs |
//! | [`knobs`] | `XAD_KFD_FLIP_BIT`, `_SKIP_LANE`, `_WRITE_PAST_END`, `_HANG` on the harness's dispatches |
//! | [`topology`] | the sysfs tree the thunk reads |
//! | [`device`] | the process-wide state: GPUs, memory objects and their views, events, the fds |
//! | [`ioctl`] | one handler per request |
//! | [`queue`] | AQL queues: packets, dispatch, barriers, signals |
//! | [`sdma`] | SDMA queues: packet decoding per SDMA family, copies, fills, fences, atomics, polls, traps |
//! | [`definedness`] | the emulator's per-word verdicts, for a harness that asks (`xad_emukfd_definedness`) |
//! | [`trace`] | `XAD_KFD_TRACE=1` lines |
//!
//! Addresses: a GPU virtual address is the process address the runtime
//! chose (the thunk reserves the range and maps each object there). Memory
//! objects live in one memfd; the runtime maps an object at its address from
//! the memfd at the offset the device returned, and the device keeps its own
//! view of the same pages, which it places into the emulator at the same
//! address. User pointers are the process's own pages.
//!
//! All `unsafe` code of the device is here: the interposed C ABI, raw
//! process memory (queues, rings, signals, user pointers) and the views.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod config;
pub mod definedness;
pub mod device;
pub mod interpose;
pub mod ioctl;
pub mod knobs;
pub mod queue;
pub mod sdma;
pub mod topology;
pub mod trace;

/// The system's `<linux/kfd_ioctl.h>`, through bindgen (build.rs).
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, unsafe_op_in_unsafe_fn, clippy::all)]
pub mod kfd {
    include!(concat!(env!("OUT_DIR"), "/kfd.rs"));
}

/// libdrm's `struct amdgpu_gpu_info` (`<libdrm/amdgpu.h>`), through bindgen.
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]
pub mod drm {
    include!(concat!(env!("OUT_DIR"), "/drm.rs"));
}
