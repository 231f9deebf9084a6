//! xad-emuhip: an emulated HIP device library. Built as `libxad_emuhip.so`
//! with the SONAME (`libamdhip64.so.5`, `.6` or `.7`) and symbol version nodes
//! of the real library of the HIP root it is built against (build.rs reads the
//! version from that root's `hip/hip_version.h`), it stands in for the HIP
//! runtime underneath the unchanged `xad-harness` binary:
//! `LD_LIBRARY_PATH=<dir with libamdhip64.so.N -> this> xad-harness run
//! --backend hip` then exercises the real HIP path (FFI,
//! allocation, copies, module load, kernarg packing, launch, synchronisation,
//! error handling) with the project's emulator ([`xad_harness::platform::emu::EmuDevice`],
//! through the [`xad_harness::platform::device::Device`] trait) as the "GPU".
//!
//! Each device it reports is named `xad-harness emulated <arch>` (gfx1100 by
//! default), so a result produced through it can never pass for a hardware
//! result. `XAD_EMUHIP_DEVICES` makes it a multi-GPU host; ROCm's visibility
//! variables hide and renumber the devices as ROCm does (module `devices`).
//!
//! | module      | what it is                                                    |
//! |-------------|---------------------------------------------------------------|
//! | `exports`   | the C entry points (21; 23 on HIP 6/7 with the R0000/R0600 properties), pointer checks, `catch_unwind` |
//! | `host`      | the visible devices, each behind its own lock; the calling thread's current device; which device a call acts on |
//! | `runtime`   | one device's state and HIP's decisions (statuses, handles, kernarg segment, streams, faults) over any `Device` |
//! | `devices`   | the physical devices, ROCm's visibility rules, PCI addresses  |
//! | `knobs`     | fault-injection and device settings read from the environment |
//! | `modifiers` | the modifier stand-in: which candidate reading a modified `v_xad_u32` follows, per field (issue 30) |
//! | `status`    | HIP 5.2 status numbers and names; the header's HIP_VERSION    |
//! | `elf`       | the length of a code object from its headers                  |
//! | `props.c`   | fills the R0000 (792-byte) and, on HIP 6/7, R0600 (1472-byte) device-properties structs from the root's own header |
//!
//! # Behaviour worth knowing
//! - Initialisation is lazy (any call initialises, like ROCm); `hipInit(0)` is
//!   idempotent, `hipInit(flags != 0)` is hipErrorInvalidValue.
//! - One device (index 0) unless `XAD_EMUHIP_DEVICES` lists more. The current
//!   device is per host thread (`hipSetDevice`). Handles are opaque non-null
//!   numbers, never dereferenced; an unknown or stale one is
//!   hipErrorInvalidHandle (400). Pointers and handles carry their device (bits
//!   48+): another device's is refused where the call acts on the current
//!   device, and releases and waits go to the owner (see `host`).
//! - `hipModuleLaunchKernel` runs the kernel to completion inside the call. A
//!   fault of the kernel itself (emulator memory fault, unsupported
//!   instruction, step limit) is asynchronous as on hardware: the launch
//!   returns hipSuccess and the stream reports hipErrorIllegalAddress (700),
//!   hipErrorLaunchFailure (719) or hipErrorLaunchTimeOut (702) from then on.
//! - Launch arguments: the `extra` form (HIP_LAUNCH_PARAM_BUFFER_POINTER /
//!   _SIZE / _END); the size must equal the metadata's explicit-argument extent
//!   or its kernarg segment size, else hipErrorInvalidValue. The
//!   `kernelParams` form is accepted too (one pointer per explicit argument).
//!   As in ROCm, only explicit arguments come from the caller; hidden
//!   arguments listed in the metadata are written by the runtime, other bytes
//!   are uninitialised (poisoned with 0xA5). `.reqd_workgroup_size` overrides
//!   blockDim; a block above `.max_flat_workgroup_size` is hipErrorInvalidValue.
//! - Status names and strings are Debian HIP 5.2's (`hipGetErrorString`
//!   returns the name there); unlisted codes read `hipErrorUnknown`.
//! - Each injected fault and each emulator error prints one line starting
//!   `xad-emuhip:` on stderr.
//!
//! # Fault-injection knobs
//! Read once, at the first call into the library. An empty value is unset; a
//! malformed value prints `xad-emuhip: bad fault knob: ...` and every call then
//! returns hipErrorNotInitialized (3). `FLIP_BIT`, `SKIP_LANE`,
//! `WRITE_PAST_END` and `HANG` are parsed and applied by
//! `xad_harness::platform::device::inject`, which the emulated KFD device (tests/emukfd)
//! shares as `XAD_KFD_*`.
//!
//! | variable | models | effect |
//! |---|---|---|
//! | `XAD_EMUHIP_FLIP_BIT=LANE:BIT` | a flipped bit in the ALU or memory path | after the process's first kernel launch, bit BIT (0-31) of u32 element LANE of its output buffer is flipped |
//! | `XAD_EMUHIP_MODIFIERS=KIND=READING[;...]` | a device's reading of the modifier bits the ISA leaves open (issue 30) | a `v_xad_u32` with a modifier field set computes that candidate reading (`xad_harness::model::cases::modifier_readings`) for the field's KIND (`NEG`, `ABS`, `CLAMP`, `OPSEL`, `OPSEL[3]`, `OMOD`, `NEG+ABS`); kinds not named: `ignored` |
//! | `XAD_EMUHIP_MODIFIERS_DISAGREE=LANE` | one marginal lane | global lane LANE follows, for every field, the reading after the chosen one |
//! | `XAD_EMUHIP_MODIFIERS_DRIFT=1` | a unit whose behaviour changes over time | from the device's second launch on, every field follows the reading after the chosen one |
//! | `XAD_EMUHIP_SKIP_LANE=LANE` | a lane that never stored | after the first launch, element LANE of the output keeps the contents it had before the launch |
//! | `XAD_EMUHIP_WRITE_PAST_END=N` | an out-of-bounds store | after every launch, N words right after the logical output range (`count` u32 elements from `out`) are overwritten with their complement; with chunked launches each chunk's overrun lands in the next chunk's range (rewritten by it) and the last one in the harness's rear guard; a store outside every allocation is a memory fault (700 on the stream) |
//! | `XAD_EMUHIP_ARCH=NAME` | a different card | one device whose `gcnArchName` (and name) report NAME, e.g. `gfx1030`, emulating that target; loading a gfx1100 code object then fails with hipErrorNoBinaryForGpu (209); not together with `XAD_EMUHIP_DEVICES` |
//! | `XAD_EMUHIP_DEVICES=ARCH[,ARCH...]` | a multi-GPU host | one device per entry (at most 16), in order; physical device p at PCI `0000:<3+p>:00.0`; default one device of `XAD_EMUHIP_ARCH` or gfx1100 |
//! | `XAD_EMUHIP_FAULT_DEVICE=N[,N...]` | a fault on some cards only | the other fault knobs act on these visible devices only (indices after the visibility variables); unset, on every device |
//! | `ROCR_VISIBLE_DEVICES`, `HIP_VISIBLE_DEVICES`, `CUDA_VISIBLE_DEVICES` | ROCm's device filters | as ROCm applies them: ROCr's first (empty: no device), then HIP's (or CUDA's when HIP's is unset or empty; empty counts as unset); indices into the list before, renumbered in listed order, the first invalid entry ends the list |
//! | `XAD_EMUHIP_HANG=1` | a kernel that never completes | launches succeed but never run: hipStreamQuery returns hipErrorNotReady (600) forever; hipStreamSynchronize, hipDeviceSynchronize and copies block forever (hipFree, hipModuleUnload, hipStreamDestroy do not) |
//! | `XAD_EMUHIP_FAIL_ALLOC=N` | device memory exhausted | the Nth hipMalloc call (1-based) returns hipErrorOutOfMemory (2) and stores null |
//! | `XAD_EMUHIP_FAIL_COPY=N[:CODE]` | a failing DMA transfer | the Nth copy (hipMemcpyHtoD and hipMemcpyDtoH counted together, 1-based) returns CODE (default hipErrorIllegalAddress, 700) and copies nothing |
//! | `XAD_EMUHIP_STATUS=CODE[:FUNCTION]` | a runtime newer than the bindings | every call of FUNCTION (default `hipModuleLaunchKernel`) returns CODE, e.g. 912 (ROCm 6.4, unknown to HIP 5.x bindings) or 999, and does nothing else |
//!
//! "Output buffer" is the kernel's `global_buffer` argument named `out`, else
//! its last `global_buffer` argument; the lane count is its `by_value`
//! argument named `count`. FLIP_BIT and SKIP_LANE act on the first launch
//! only: the harness launches in chunks, and element LANE of the first chunk
//! is global lane LANE as long as LANE is below the chunk size; a LANE outside
//! the first launch's `count` is not applied (and says so on stderr). With
//! several devices each applies per device: its own call counts, its own
//! first launch; `XAD_EMUHIP_STATUS` acts on calls of no one device (hipInit,
//! hipGetDeviceCount, versions) only while `XAD_EMUHIP_FAULT_DEVICE` is unset.

#![deny(unsafe_op_in_unsafe_fn)]

mod devices;
mod elf;
mod exports;
mod host;
mod knobs;
mod modifiers;
mod runtime;
mod status;

#[cfg(test)]
mod tests;
