//! HSA code objects: the ELF container, each kernel's descriptor (`<name>.kd`),
//! the MessagePack metadata note, the target ID, and the kernarg layout built
//! from that metadata. Parsed with `object` and `rmpv`; nothing here executes.

pub mod descriptor;
pub mod kernarg;
pub mod metadata;

use object::elf;
use object::read::elf::{ElfFile64, FileHeader, NoteIterator, ProgramHeader, SectionHeader};
use object::{Object, ObjectSection, ObjectSymbol};

pub use descriptor::KernelDescriptor;
pub use kernarg::{ArgValue, KernargError};
pub use metadata::{ArgMeta, KernelMeta, Metadata};

/// `NT_AMDGPU_METADATA`: the note type holding v3+ MessagePack metadata.
const NT_AMDGPU_METADATA: u32 = 32;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CodeObjectError {
    #[error("not an AMDGPU code object: {0}")]
    NotAmdgpu(String),
    #[error("malformed code object: {0}")]
    Malformed(String),
    #[error("code object has no kernel named {name} (it has: {available})")]
    NoSuchKernel { name: String, available: String },
}

/// An AMDGPU target ID such as `gfx1100` or `gfx90a:sramecc+:xnack-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetId {
    pub arch: String,
    /// Features the code object pins (`+` true, `-` false); unlisted means "any".
    pub features: Vec<(String, bool)>,
}

impl TargetId {
    /// Parse `gfx1100`, `gfx1100:xnack-`, or the full `amdgcn-amd-amdhsa--gfx1100:...`.
    pub fn parse(text: &str) -> Option<TargetId> {
        let processor = text.rsplit("--").next()?.trim();
        let mut parts = processor.split(':');
        let arch = parts.next()?.to_string();
        if !arch.starts_with("gfx") || arch.len() < 4 {
            return None;
        }
        let features = parts
            .filter_map(|f| {
                let (name, on) = f.split_at(f.len().checked_sub(1)?);
                match on {
                    "+" => Some((name.to_string(), true)),
                    "-" => Some((name.to_string(), false)),
                    _ => None,
                }
            })
            .collect();
        Some(TargetId { arch, features })
    }

    /// Whether code for `self` may run on a device reporting `device` (its
    /// gcnArchName, e.g. `gfx1100` or `gfx1100:sramecc-:xnack-`). The processors
    /// must be equal; a feature pinned by both must agree; a feature pinned on one
    /// side only is compatible (ROCm's "any" setting).
    pub fn runs_on(&self, device: &TargetId) -> bool {
        self.arch == device.arch
            && self.features.iter().all(|(name, on)| {
                device.features.iter().all(|(dn, don)| dn != name || don == on)
            })
    }
}

impl std::fmt::Display for TargetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.arch)?;
        for (name, on) in &self.features {
            write!(f, ":{name}{}", if *on { '+' } else { '-' })?;
        }
        Ok(())
    }
}

/// One kernel of a code object, with everything a launch needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub meta: KernelMeta,
    pub descriptor: KernelDescriptor,
    /// Virtual address of the `.kd` symbol in the code object.
    pub descriptor_address: u64,
    /// Virtual address of the first instruction (`.kd` address + entry offset).
    pub entry_address: u64,
}

impl Kernel {
    /// The workgroup size the harness launches with: the code object's
    /// `.reqd_workgroup_size` when it declares one (the runtime would override a
    /// different blockDim with it anyway), else 256 capped by
    /// `.max_flat_workgroup_size`.
    pub fn launch_workgroup_size(&self) -> [u32; 3] {
        self.meta
            .reqd_workgroup_size
            .unwrap_or([256.min(self.meta.max_flat_workgroup_size.max(1)), 1, 1])
    }
}

/// A parsed code object. `bytes` is kept: the HIP path loads exactly these bytes
/// and the emulator executes exactly these bytes.
#[derive(Debug, Clone)]
pub struct CodeObject {
    pub bytes: Vec<u8>,
    pub target: TargetId,
    pub metadata: Metadata,
    pub kernels: Vec<Kernel>,
    /// The executable bytes as loaded: (virtual address, bytes) of each
    /// executable section.
    pub code: Vec<(u64, Vec<u8>)>,
}

impl CodeObject {
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
        // `object` reads ELF structures in place and needs them 8-byte aligned;
        // embedded (`include_bytes!`) and user buffers carry no such promise.
        let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()].copy_from_slice(bytes);
        let aligned_bytes = &bytemuck::cast_slice::<u64, u8>(&aligned)[..bytes.len()];
        Self::parse_aligned(bytes, aligned_bytes)
    }

    fn parse_aligned(bytes: &[u8], aligned: &[u8]) -> Result<CodeObject, CodeObjectError> {
        let file = ElfFile64::<object::Endianness>::parse(aligned)
            .map_err(|e| CodeObjectError::NotAmdgpu(format!("not a 64-bit ELF file ({e})")))?;
        let header = file.elf_header();
        let endian = file.endian();
        if header.e_machine(endian) != elf::EM_AMDGPU {
            return Err(CodeObjectError::NotAmdgpu(format!(
                "ELF machine is {}, not AMDGPU ({})",
                header.e_machine(endian),
                elf::EM_AMDGPU
            )));
        }
        let metadata = read_metadata(&file)?;
        let target = TargetId::parse(&metadata.target).ok_or_else(|| {
            CodeObjectError::Malformed(format!("metadata target {:?} is not a target ID", metadata.target))
        })?;

        let mut code = Vec::new();
        for section in file.sections() {
            let flags = match section.flags() {
                object::SectionFlags::Elf { sh_flags } => sh_flags,
                _ => 0,
            };
            if flags & u64::from(elf::SHF_EXECINSTR) != 0 {
                let data = section
                    .data()
                    .map_err(|e| CodeObjectError::Malformed(format!("section {}: {e}", section.name().unwrap_or("?"))))?;
                code.push((section.address(), data.to_vec()));
            }
        }

        let mut kernels = Vec::new();
        for meta in &metadata.kernels {
            let kd_sym = file
                .symbols()
                .chain(file.dynamic_symbols())
                .find(|s| s.name() == Ok(meta.symbol.as_str()))
                .ok_or_else(|| {
                    CodeObjectError::Malformed(format!("kernel {}: descriptor symbol {} not found", meta.name, meta.symbol))
                })?;
            let kd_bytes = bytes_at(&file, kd_sym.address(), descriptor::KD_SIZE).ok_or_else(|| {
                CodeObjectError::Malformed(format!("kernel {}: descriptor {} lies outside the file", meta.name, meta.symbol))
            })?;
            let descriptor = KernelDescriptor::parse(kd_bytes).expect("length checked");
            let entry_address = kd_sym.address().wrapping_add_signed(descriptor.entry_offset);
            if !code.iter().any(|(addr, data)| entry_address >= *addr && entry_address < addr + data.len() as u64) {
                return Err(CodeObjectError::Malformed(format!(
                    "kernel {}: entry 0x{entry_address:x} is not in an executable section",
                    meta.name
                )));
            }
            if descriptor.kernarg_size != meta.kernarg_segment_size {
                return Err(CodeObjectError::Malformed(format!(
                    "kernel {}: descriptor kernarg size {} differs from metadata .kernarg_segment_size {}",
                    meta.name, descriptor.kernarg_size, meta.kernarg_segment_size
                )));
            }
            if descriptor.wave_size() != meta.wavefront_size {
                return Err(CodeObjectError::Malformed(format!(
                    "kernel {}: descriptor says wave{} but metadata .wavefront_size is {}",
                    meta.name,
                    descriptor.wave_size(),
                    meta.wavefront_size
                )));
            }
            kernels.push(Kernel { meta: meta.clone(), descriptor, descriptor_address: kd_sym.address(), entry_address });
        }
        Ok(CodeObject { bytes: bytes.to_vec(), target, metadata, kernels, code })
    }

    pub fn kernel(&self, name: &str) -> Result<&Kernel, CodeObjectError> {
        self.kernels.iter().find(|k| k.meta.name == name).ok_or_else(|| CodeObjectError::NoSuchKernel {
            name: name.to_string(),
            available: self.kernel_names().join(", "),
        })
    }

    pub fn kernel_names(&self) -> Vec<String> {
        self.kernels.iter().map(|k| k.meta.name.clone()).collect()
    }
}

/// The file bytes backing virtual address range [addr, addr+len), via the
/// section that contains it.
fn bytes_at<'d>(file: &ElfFile64<'d, object::Endianness>, addr: u64, len: usize) -> Option<&'d [u8]> {
    file.sections().find_map(|s| {
        let start = s.address();
        if addr >= start && addr + len as u64 <= start + s.size() {
            let data = s.data().ok()?;
            let off = (addr - start) as usize;
            data.get(off..off + len)
        } else {
            None
        }
    })
}

fn read_metadata(file: &ElfFile64<'_, object::Endianness>) -> Result<Metadata, CodeObjectError> {
    let endian = file.endian();
    let data = file.data();
    let mut seen_note = false;
    // Notes may sit in a PT_NOTE segment, a SHT_NOTE section, or both.
    let mut try_notes = |notes: Option<NoteIterator<'_, elf::FileHeader64<object::Endianness>>>| -> Result<Option<Metadata>, CodeObjectError> {
        let Some(mut notes) = notes else { return Ok(None) };
        while let Some(note) = notes.next().map_err(|e| CodeObjectError::Malformed(format!("note: {e}")))? {
            seen_note = true;
            if note.name() == b"AMDGPU" && note.n_type(endian) == NT_AMDGPU_METADATA {
                return metadata::parse(note.desc()).map(Some).map_err(CodeObjectError::Malformed);
            }
        }
        Ok(None)
    };
    for seg in file.elf_program_headers() {
        if let Some(md) = try_notes(seg.notes(endian, data).map_err(|e| CodeObjectError::Malformed(e.to_string()))?)? {
            return Ok(md);
        }
    }
    for sec in file.elf_section_table().iter() {
        if let Some(md) = try_notes(sec.notes(endian, data).map_err(|e| CodeObjectError::Malformed(e.to_string()))?)? {
            return Ok(md);
        }
    }
    let _ = seen_note;
    Err(CodeObjectError::Malformed("no NT_AMDGPU_METADATA note (code object v3 or newer is required)".into()))
}
