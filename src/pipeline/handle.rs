//! One kernel loaded on one device, with the device memory it uses: the
//! plumbing `run` (and `replay`), `soak` and `microbench` share (load,
//! allocate, write, launch, read back, release), so each command writes only
//! what it does with the words.
//!
//! The release rule, one for every command: whatever a command allocated
//! through its handle is freed when the command is done with it, on every
//! path that returns ([`KernelHandle::release`]; `Drop` frees what a panic
//! left behind). A free the device refuses never replaces the result the
//! command already has and is never dropped silently: it becomes a
//! [`ReleaseError`], which the command reports beside its result, and which
//! makes the exit code 3 when nothing worse happened (docs/exit-codes.md).

use std::time::Duration;

use crate::error::ReleaseError;
use crate::pipeline::guard::GuardedBuffer;
use crate::platform::codeobj::{kernarg, ArgValue, CodeObject, Kernel, KernelMeta, TargetId};
use crate::platform::device::fault::{Fault, FaultKind};
use crate::platform::device::{Device, DeviceError, DevicePtr, Dispatch, ModuleId};

/// A loaded kernel and the buffers allocated for it.
pub struct KernelHandle<'d> {
    dev: &'d mut dyn Device,
    module: ModuleId,
    meta: KernelMeta,
    block: [u32; 3],
    /// Plain buffers still held.
    buffers: Vec<DevicePtr>,
    released: Vec<ReleaseError>,
    /// The code object's executable sections (virtual address, bytes), for
    /// naming an instruction the emulator refuses ([`name_refusal`]).
    code: Vec<(u64, Vec<u8>)>,
}

impl<'d> KernelHandle<'d> {
    /// Load `code` on `dev` to launch its `kernel`, after checking that the
    /// code object is for the device's processor.
    pub fn load(
        dev: &'d mut dyn Device,
        code: &CodeObject,
        kernel: &Kernel,
    ) -> Result<KernelHandle<'d>, DeviceError> {
        check_target(code, &dev.arch_name())?;
        let module = dev.load(&code.bytes)?;
        Ok(KernelHandle {
            dev,
            module,
            meta: kernel.meta.clone(),
            block: kernel.launch_workgroup_size(),
            buffers: Vec::new(),
            released: Vec::new(),
            code: code.code.clone(),
        })
    }

    /// The device, for what a command does with memory beyond plain buffers
    /// (guarded buffers, host views, definedness).
    pub fn device(&mut self) -> &mut dyn Device {
        &mut *self.dev
    }

    /// The kernel's metadata.
    pub fn meta(&self) -> &KernelMeta {
        &self.meta
    }

    /// The workgroup size every launch uses ([`Kernel::launch_workgroup_size`]).
    pub fn block(&self) -> [u32; 3] {
        self.block
    }

    /// `bytes` of device memory, held until [`KernelHandle::release`].
    pub fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        let ptr = self.dev.alloc(bytes)?;
        self.buffers.push(ptr);
        Ok(ptr)
    }

    /// Write `words` at `dst` (device memory is little-endian, as the
    /// host's: the words go as they lie, as [`GuardedBuffer::write`] does).
    pub fn write(&mut self, dst: DevicePtr, words: &[u32]) -> Result<(), DeviceError> {
        self.dev.write(dst, bytemuck::cast_slice(words))
    }

    /// Read `words.len()` words from `src`.
    pub fn read(&mut self, src: DevicePtr, words: &mut [u32]) -> Result<(), DeviceError> {
        self.dev.read(src, bytemuck::cast_slice_mut(words))
    }

    /// Launch with `args` (the explicit arguments, in order) over
    /// `grid_blocks` workgroups of [`KernelHandle::block`].
    pub fn launch(
        &mut self,
        args: &[ArgValue],
        grid_blocks: u32,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        let dispatch = Dispatch {
            grid_blocks: [grid_blocks, 1, 1],
            block: self.block,
        };
        self.launch_shaped(args, dispatch, timeout)
    }

    /// Launch with `args` in a shape of the caller's (microbench times one
    /// wave alone and one workgroup of several).
    pub fn launch_shaped(
        &mut self,
        args: &[ArgValue],
        dispatch: Dispatch,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        let image =
            kernarg::build(&self.meta, args).map_err(|e| DeviceError::Refused(e.to_string()))?;
        match self
            .dev
            .launch(self.module, &self.meta.name, &image, dispatch, timeout)
        {
            Err(DeviceError::Emulation(fault)) if fault.kind == FaultKind::Unsupported => {
                let target = self.dev.arch_name();
                let processor = target.split(':').next().unwrap_or(&target);
                Err(DeviceError::Emulation(Box::new(name_refusal(
                    *fault, &self.code, processor,
                ))))
            }
            other => other,
        }
    }

    /// Give back a guarded buffer now (a chunk of another size needs new
    /// ones); a refused free is kept for [`KernelHandle::release`].
    pub fn free_guarded(&mut self, buf: GuardedBuffer) {
        self.released.extend(buf.free(&mut *self.dev).err());
    }

    /// Free every buffer still held. Returns each free the device refused,
    /// and those [`KernelHandle::free_guarded`] kept: the command reports
    /// them (the one release rule, in the module doc).
    pub fn release(mut self) -> Vec<ReleaseError> {
        self.free_all();
        std::mem::take(&mut self.released)
    }

    fn free_all(&mut self) {
        for ptr in std::mem::take(&mut self.buffers) {
            if let Err(source) = self.dev.free(ptr) {
                self.released.push(ReleaseError {
                    what: "a device buffer",
                    source,
                });
            }
        }
    }
}

impl Drop for KernelHandle<'_> {
    /// Buffers are still held here only when a command ends early with a
    /// device error (which already makes it exit 3) or a panic: the memory
    /// is given back, and a refused free cannot make that ending worse.
    fn drop(&mut self) {
        self.free_all();
    }
}

/// The longest instruction of any generation the harness has, in bytes
/// (CDNA5's VOP3 with a 64-bit literal): LLVM is given this much from the
/// refused instruction's start, so an operand word the emulator never read
/// (a literal) is there for it.
const LONGEST_INSTRUCTION: usize = 16;

/// An emulator's refusal of an opcode it has no row for, named by the LLVM
/// that proves for `target` ([`crate::platform::toolchain::disassemble_bytes`]): the
/// instruction LLVM reads there, which the emulator does not implement, or
/// that these bits are no instruction on `target` for LLVM either. Without a
/// usable disassembler (none found, it failed or timed out, its output said
/// nothing) and for every other fault, `fault` is returned as it is: the
/// emulator's own static reason ([`crate::isa::unemulated::refusal`]).
///
/// Here, above the emulator, because naming runs a tool: the emulator and
/// `isa` spawn no processes.
pub fn name_refusal(fault: Fault, code: &[(u64, Vec<u8>)], target: &str) -> Fault {
    use crate::isa::unemulated::{named_by_llvm, not_by_llvm, opcode_refusal};
    use crate::platform::toolchain::Disassembly;
    let Some(at) = fault.inst.as_ref() else {
        return fault;
    };
    let Some(refused) = opcode_refusal(&fault.message) else {
        return fault;
    };
    let bytes = bytes_at(code, at.offset).unwrap_or_else(|| dword_bytes(&at.text));
    if bytes.is_empty() {
        return fault;
    }
    let reason = match crate::platform::toolchain::disassemble_bytes(target, &bytes) {
        Some((Disassembly::Instruction { text, .. }, tool)) => {
            named_by_llvm(&refused, &text, target, &tool)
        }
        Some((Disassembly::NotAnInstruction, tool)) => not_by_llvm(target, &tool),
        None => return fault,
    };
    let message = format!("{}{reason}", refused.head);
    Fault { message, ..fault }
}

/// Up to [`LONGEST_INSTRUCTION`] bytes of the section holding `offset`, from it.
fn bytes_at(code: &[(u64, Vec<u8>)], offset: u64) -> Option<Vec<u8>> {
    code.iter().find_map(|(base, text)| {
        let pos = usize::try_from(offset.checked_sub(*base)?).ok()?;
        let end = text.len().min(pos.checked_add(LONGEST_INSTRUCTION)?);
        text.get(pos..end)
            .filter(|b| !b.is_empty())
            .map(<[u8]>::to_vec)
    })
}

/// The little-endian bytes of the dwords a fault shows (`7E0C6B04 ...`).
fn dword_bytes(hex: &str) -> Vec<u8> {
    hex.split_whitespace()
        .map_while(|w| u32::from_str_radix(w, 16).ok())
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// Refuse to launch a code object on a device that does not run it.
pub fn check_target(code: &CodeObject, device_arch: &str) -> Result<(), DeviceError> {
    let device = TargetId::parse(device_arch).ok_or_else(|| {
        DeviceError::Refused(format!(
            "device reports an unrecognised architecture {device_arch:?}"
        ))
    })?;
    if code.target.runs_on(&device) {
        Ok(())
    } else {
        Err(DeviceError::Refused(format!(
            "code object is for {} but the device is {}; refusing to launch",
            code.target, device_arch
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::emu::EmuDevice;

    fn basic() -> CodeObject {
        let k = crate::platform::embedded::find("gfx1100", "xad_basic").expect("embedded");
        CodeObject::parse(k.bytes).expect("parses")
    }

    #[test]
    fn release_frees_every_buffer_and_keeps_each_refused_free() {
        let code = basic();
        let kernel = code.kernel("xad_basic").unwrap();
        let mut dev = EmuDevice::for_target(crate::platform::target::find("gfx1100").unwrap());
        let mut handle = KernelHandle::load(&mut dev, &code, &kernel).unwrap();
        let kept = handle.alloc(64).unwrap();
        let freed_early = handle.alloc(64).unwrap();
        // Freed behind the handle's back: its own free is then refused.
        handle.device().free(freed_early).unwrap();
        let errors = handle.release();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].what, "a device buffer");
        // The other buffer was freed all the same: freeing it again fails.
        assert!(dev.free(kept).is_err());
    }

    #[test]
    fn a_code_object_for_another_processor_is_refused_before_loading() {
        let code = basic();
        let kernel = code.kernel("xad_basic").unwrap();
        let mut dev = EmuDevice::for_target(crate::platform::target::find("gfx1030").unwrap());
        let e = KernelHandle::load(&mut dev, &code, &kernel)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("refusing to launch"), "{e}");
    }
}
