//! HSA code objects: the ELF container, each kernel's descriptor (`<name>.kd`),
//! the MessagePack metadata note, the target ID, and the kernarg layout built
//! from that metadata. Parsed with `object` and `rmpv`; nothing here executes.
//!
//! | module | what it is |
//! |---|---|
//! | [`elf`] | structural validation of the raw ELF: every table, segment, section, note and symbol inside the file; the size cap |
//! | [`metadata`] | the `NT_AMDGPU_METADATA` note, and the limits a kernel's metadata must keep |
//! | [`descriptor`] | the 64-byte kernel descriptor |
//! | [`kernarg`] | the kernarg image laid out from the metadata |
//! | [`launch`] | the launch check both backends run, and a `--kernel`'s fit to its case's ABI |
//!
//! [`CodeObject::parse`] runs all of the checks, in that order, before
//! anything else reads the bytes: every path (embedded kernels, `--kernel`,
//! the emulator's and the HIP backend's load) goes through it.

pub mod descriptor;
pub mod elf;
pub mod kernarg;
pub mod launch;
pub mod metadata;

use object::elf as elf_consts;
use object::read::elf::{ElfFile64, NoteIterator, ProgramHeader, SectionHeader};
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
    /// Refused before it is read or copied (see [`elf::MAX_CODE_OBJECT_BYTES`]).
    #[error("code object is {bytes} bytes; the limit is {limit} bytes")]
    TooLarge { bytes: u64, limit: u64 },
    /// Well formed, but a version or feature the harness does not load.
    #[error("unsupported code object: {0}")]
    Unsupported(String),
}

/// An AMDGPU target ID such as `gfx1100` or `gfx90a:sramecc+:xnack-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetId {
    pub arch: String,
    /// Features the code object pins (`+` true, `-` false); unlisted means "any".
    pub features: Vec<(String, bool)>,
}

impl TargetId {
    /// Parse `gfx1100`, `gfx1100:xnack-`, or the full `amdgcn-amd-amdhsa--gfx1100:...`;
    /// `None` for anything [`TargetId::parse_checked`] refuses.
    pub fn parse(text: &str) -> Option<TargetId> {
        Self::parse_checked(text).ok()
    }

    /// Parse a target ID strictly (AMDGPUUsage "Target ID"): a `gfx` processor,
    /// then only `xnack` and `sramecc`, each at most once, each with `+` or `-`.
    /// A loader would guess at anything else, so it is refused with the reason.
    pub fn parse_checked(text: &str) -> Result<TargetId, String> {
        let processor = text.rsplit("--").next().unwrap_or(text).trim();
        let mut parts = processor.split(':');
        let arch = parts.next().unwrap_or_default().to_string();
        let valid_arch = arch.len() >= 4
            && arch.starts_with("gfx")
            && arch[3..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid_arch {
            return Err(format!("{arch:?} is not a gfx processor name"));
        }
        let mut features: Vec<(String, bool)> = Vec::new();
        for part in parts {
            let (name, on) = match part.strip_suffix('+') {
                Some(name) => (name, true),
                None => (
                    part.strip_suffix('-')
                        .ok_or_else(|| format!("feature {part:?} has no + or -"))?,
                    false,
                ),
            };
            if name != "xnack" && name != "sramecc" {
                return Err(format!("feature {name:?} is not xnack or sramecc"));
            }
            if features.iter().any(|(seen, _)| seen == name) {
                return Err(format!("feature {name} is given twice"));
            }
            features.push((name.to_string(), on));
        }
        Ok(TargetId { arch, features })
    }

    /// Whether code for `self` may run on a device reporting `device` (its
    /// gcnArchName, e.g. `gfx1100` or `gfx1100:sramecc-:xnack-`). The processors
    /// must be equal, or `self` a generic target covering the device's
    /// processor (`gfx11-generic` code runs on a gfx1101); a feature pinned by
    /// both must agree; a feature pinned on one side only is compatible
    /// (ROCm's "any" setting).
    pub fn runs_on(&self, device: &TargetId) -> bool {
        crate::platform::target::code_runs_on(&self.arch, &device.arch)
            && self.features.iter().all(|(name, on)| {
                device
                    .features
                    .iter()
                    .all(|(dn, don)| dn != name || don == on)
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
        self.meta.reqd_workgroup_size.unwrap_or([
            256.min(self.meta.max_flat_workgroup_size.max(1)),
            1,
            1,
        ])
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
    /// Validate and parse a code object. Every structure the HIP loader would
    /// follow is checked first ([`elf::validate`]), then the metadata, target
    /// ID and each kernel's descriptor and entry point: a file this accepts
    /// cannot make `hipModuleLoadData` read outside `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
        // Before the copy below: the size cap bounds what is allocated.
        let facts = elf::validate(bytes)?;
        // `object` reads ELF structures in place and needs them 8-byte aligned;
        // embedded (`include_bytes!`) and user buffers carry no such promise.
        let mut aligned = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..bytes.len()].copy_from_slice(bytes);
        let aligned_bytes = &bytemuck::cast_slice::<u64, u8>(&aligned)[..bytes.len()];
        Self::parse_aligned(bytes, aligned_bytes, facts)
    }

    fn parse_aligned(
        bytes: &[u8],
        aligned: &[u8],
        facts: elf::ElfFacts,
    ) -> Result<CodeObject, CodeObjectError> {
        let file = ElfFile64::<object::Endianness>::parse(aligned)
            .map_err(|e| CodeObjectError::NotAmdgpu(format!("not a 64-bit ELF file ({e})")))?;
        let metadata = read_metadata(&file)?;
        let target = check_metadata(&metadata, &facts)?;
        let code = executable_sections(&file)?;
        let kernels = metadata
            .kernels
            .iter()
            .map(|meta| kernel(&file, meta, &code))
            .collect::<Result<Vec<_>, _>>()?;
        kernels.iter().try_for_each(|k| {
            k.descriptor
                .validate(&target.arch)
                .map_err(|e| CodeObjectError::Malformed(format!("kernel {}: {e}", k.meta.name)))
        })?;
        Ok(CodeObject {
            bytes: bytes.to_vec(),
            target,
            metadata,
            kernels,
            code,
        })
    }

    pub fn kernel(&self, name: &str) -> Result<&Kernel, CodeObjectError> {
        self.kernels
            .iter()
            .find(|k| k.meta.name == name)
            .ok_or_else(|| CodeObjectError::NoSuchKernel {
                name: name.to_string(),
                available: self.kernel_names().join(", "),
            })
    }

    pub fn kernel_names(&self) -> Vec<String> {
        self.kernels.iter().map(|k| k.meta.name.clone()).collect()
    }
}

/// `EF_AMDGPU_MACH` of the processors worth naming, as LLVM 19.1.7 writes them
/// (`clang-19 -mcpu=<arch>`, `e_flags & 0xff`; gfx950 and gfx9-4-generic as
/// LLVM 22.1.8 does). The runtime picks the ISA
/// from these flags, the harness's target check reads the metadata's target
/// ID: for a processor listed here the two must agree.
const KNOWN_MACHS: &[(&str, u8)] = &[
    ("gfx900", 0x2c),
    ("gfx906", 0x2f),
    ("gfx908", 0x30),
    ("gfx90a", 0x3f),
    ("gfx942", 0x4c),
    ("gfx950", 0x4f),
    ("gfx1010", 0x33),
    ("gfx1030", 0x36),
    ("gfx1100", 0x41),
    ("gfx1101", 0x46),
    ("gfx1102", 0x47),
    ("gfx1103", 0x44),
    ("gfx1150", 0x43),
    ("gfx1151", 0x4a),
    ("gfx1152", 0x55),
    ("gfx1153", 0x58), // LLVM 22.1.8
    ("gfx1200", 0x48),
    ("gfx1201", 0x4e),
    ("gfx1250", 0x49), // LLVM 22.1.8
    ("gfx1251", 0x5a), // LLVM 22.1.8
    ("gfx11-generic", 0x54),
    ("gfx12-generic", 0x59),
    ("gfx9-generic", 0x51),
    ("gfx9-4-generic", 0x5f),
    ("gfx10-1-generic", 0x52),
    ("gfx10-3-generic", 0x53),
];

/// The `EF_AMDGPU_MACH` LLVM writes for processor `arch`, if listed.
pub fn known_mach(arch: &str) -> Option<u8> {
    KNOWN_MACHS
        .iter()
        .find(|(a, _)| *a == arch)
        .map(|&(_, m)| m)
}

/// A generic target (`gfx11-generic`) exists only in code object v6+ and
/// carries a generic version in the ELF flags; a processor carries none
/// (AMDGPUUsage "Generic Processor Versioning"). The loader decides by both.
fn check_generic(arch: &str, facts: &elf::ElfFacts) -> Result<(), CodeObjectError> {
    let generic = arch.ends_with("-generic");
    match (generic, facts.code_object_version, facts.generic_version) {
        (true, v, _) if v < 6 => Err(CodeObjectError::Malformed(format!(
            "generic target {arch} in a code object v{v}; generic targets need v6"
        ))),
        (true, _, 0) => Err(CodeObjectError::Malformed(format!(
            "generic target {arch} with generic version 0 in the ELF flags"
        ))),
        (false, _, v) if v != 0 => Err(CodeObjectError::Malformed(format!(
            "processor {arch} with generic version {v} in the ELF flags"
        ))),
        _ => Ok(()),
    }
}

/// Metadata versions accepted: `amdhsa.version` [1, 1], [1, 2], [1, 3] are
/// code object v4, v5, v6 (AMDGPUUsage "Code Object Metadata").
const METADATA_VERSIONS: std::ops::RangeInclusive<u32> = 1..=3;

/// The metadata's version, target ID and kernels, checked on their own and
/// against the ELF header's feature bits. Returns the target.
fn check_metadata(metadata: &Metadata, facts: &elf::ElfFacts) -> Result<TargetId, CodeObjectError> {
    let (major, minor) = metadata.version;
    if major != 1 || !METADATA_VERSIONS.contains(&minor) {
        return Err(CodeObjectError::Unsupported(format!(
            "amdhsa.version [{major}, {minor}]; [1, 1] to [1, 3] (code object v4 to v6) are supported"
        )));
    }
    let target = TargetId::parse_checked(&metadata.target).map_err(|e| {
        CodeObjectError::Malformed(format!("metadata target {:?}: {e}", metadata.target))
    })?;
    if let Some(&(_, mach)) = KNOWN_MACHS.iter().find(|(arch, _)| *arch == target.arch) {
        if facts.mach != mach {
            let named = KNOWN_MACHS
                .iter()
                .find(|(_, m)| *m == facts.mach)
                .map_or("an unknown processor", |(arch, _)| arch);
            return Err(CodeObjectError::Malformed(format!(
                "target ID says {} but the ELF flags say processor 0x{:02x} ({named}); the loader goes by the flags",
                target.arch, facts.mach
            )));
        }
    }
    check_generic(&target.arch, facts)?;
    for (feature, bits) in [("xnack", facts.xnack), ("sramecc", facts.sramecc)] {
        let named = target
            .features
            .iter()
            .find(|(name, _)| name == feature)
            .map(|&(_, on)| on);
        if named != bits.pinned() {
            let said = |on: Option<bool>| {
                on.map_or("nothing".to_string(), |on| {
                    format!("{feature}{}", if on { '+' } else { '-' })
                })
            };
            return Err(CodeObjectError::Malformed(format!(
                "target ID {target} says {} about {feature} but the ELF flags say {bits:?} (expected {})",
                said(named),
                said(bits.pinned())
            )));
        }
    }
    for (i, meta) in metadata.kernels.iter().enumerate() {
        metadata::check_kernel(meta)
            .map_err(|e| CodeObjectError::Malformed(format!("kernel {}: {e}", meta.name)))?;
        if metadata.kernels[..i].iter().any(|k| k.name == meta.name) {
            return Err(CodeObjectError::Malformed(format!(
                "kernel {} is listed twice in the metadata",
                meta.name
            )));
        }
    }
    Ok(target)
}

/// (virtual address, bytes) of every executable section.
fn executable_sections(
    file: &ElfFile64<'_, object::Endianness>,
) -> Result<Vec<(u64, Vec<u8>)>, CodeObjectError> {
    let mut code = Vec::new();
    for section in file.sections() {
        let flags = match section.flags() {
            object::SectionFlags::Elf { sh_flags } => sh_flags,
            _ => 0,
        };
        if flags & u64::from(elf_consts::SHF_EXECINSTR) != 0 {
            let data = section.data().map_err(|e| {
                CodeObjectError::Malformed(format!(
                    "section {}: {e}",
                    section.name().unwrap_or("?")
                ))
            })?;
            code.push((section.address(), data.to_vec()));
        }
    }
    Ok(code)
}

/// Kernel descriptors are 64-byte aligned and entry points 256-byte aligned
/// (AMDGPUUsage "Kernel Descriptor": COMPUTE_PGM_LO holds address bits 39:8).
const KD_ALIGN: u64 = 64;
const ENTRY_ALIGN: u64 = 256;

/// One kernel: its `.kd` symbol inside the section it names, the descriptor
/// agreeing with the metadata, the entry inside an executable section.
fn kernel(
    file: &ElfFile64<'_, object::Endianness>,
    meta: &KernelMeta,
    code: &[(u64, Vec<u8>)],
) -> Result<Kernel, CodeObjectError> {
    let bad = |what: String| CodeObjectError::Malformed(format!("kernel {}: {what}", meta.name));
    let kd_sym = file
        .symbols()
        .chain(file.dynamic_symbols())
        .find(|s| s.name() == Ok(meta.symbol.as_str()))
        .ok_or_else(|| bad(format!("descriptor symbol {} not found", meta.symbol)))?;
    let address = kd_sym.address();
    if address % KD_ALIGN != 0 {
        return Err(bad(format!(
            "descriptor {} at 0x{address:x} is not {KD_ALIGN}-byte aligned",
            meta.symbol
        )));
    }
    let kd_bytes = descriptor_bytes(file, &kd_sym).ok_or_else(|| {
        bad(format!(
            "descriptor {} at 0x{address:x} does not lie inside the section its symbol names",
            meta.symbol
        ))
    })?;
    let descriptor =
        KernelDescriptor::parse(kd_bytes).ok_or_else(|| bad("descriptor is cut short".into()))?;
    let entry_address = address
        .checked_add_signed(descriptor.entry_offset)
        .unwrap_or(u64::MAX);
    if entry_address % ENTRY_ALIGN != 0 {
        return Err(bad(format!(
            "entry 0x{entry_address:x} is not {ENTRY_ALIGN}-byte aligned"
        )));
    }
    if !code
        .iter()
        .any(|(addr, data)| entry_address >= *addr && entry_address - addr < data.len() as u64)
    {
        return Err(bad(format!(
            "entry 0x{entry_address:x} is not in an executable section"
        )));
    }
    if descriptor.kernarg_size != meta.kernarg_segment_size {
        return Err(bad(format!(
            "descriptor kernarg size {} differs from metadata .kernarg_segment_size {}",
            descriptor.kernarg_size, meta.kernarg_segment_size
        )));
    }
    if descriptor.wave_size() != meta.wavefront_size {
        return Err(bad(format!(
            "descriptor says wave{} but metadata .wavefront_size is {}",
            descriptor.wave_size(),
            meta.wavefront_size
        )));
    }
    Ok(Kernel {
        meta: meta.clone(),
        descriptor,
        descriptor_address: address,
        entry_address,
    })
}

/// The 64 descriptor bytes at `sym`'s address, from the section the symbol
/// itself names (not merely any section that happens to cover the address).
fn descriptor_bytes<'d>(
    file: &ElfFile64<'d, object::Endianness>,
    sym: &impl ObjectSymbol<'d>,
) -> Option<&'d [u8]> {
    let section = file.section_by_index(sym.section_index()?).ok()?;
    let offset = sym.address().checked_sub(section.address())?;
    let end = offset.checked_add(descriptor::KD_SIZE as u64)?;
    if end > section.size() || section.kind() == object::SectionKind::UninitializedData {
        return None;
    }
    let data = section.data().ok()?;
    data.get(usize::try_from(offset).ok()?..usize::try_from(end).ok()?)
}

fn read_metadata(file: &ElfFile64<'_, object::Endianness>) -> Result<Metadata, CodeObjectError> {
    let endian = file.endian();
    let data = file.data();
    let mut seen_note = false;
    // Notes may sit in a PT_NOTE segment, a SHT_NOTE section, or both.
    let mut try_notes = |notes: Option<
        NoteIterator<'_, elf_consts::FileHeader64<object::Endianness>>,
    >|
     -> Result<Option<Metadata>, CodeObjectError> {
        let Some(mut notes) = notes else {
            return Ok(None);
        };
        while let Some(note) = notes
            .next()
            .map_err(|e| CodeObjectError::Malformed(format!("note: {e}")))?
        {
            seen_note = true;
            if note.name() == b"AMDGPU" && note.n_type(endian) == NT_AMDGPU_METADATA {
                return metadata::parse(note.desc())
                    .map(Some)
                    .map_err(CodeObjectError::Malformed);
            }
        }
        Ok(None)
    };
    for seg in file.elf_program_headers() {
        if let Some(md) = try_notes(
            seg.notes(endian, data)
                .map_err(|e| CodeObjectError::Malformed(e.to_string()))?,
        )? {
            return Ok(md);
        }
    }
    for sec in file.elf_section_table().iter() {
        if let Some(md) = try_notes(
            sec.notes(endian, data)
                .map_err(|e| CodeObjectError::Malformed(e.to_string()))?,
        )? {
            return Ok(md);
        }
    }
    let _ = seen_note;
    Err(CodeObjectError::Malformed(
        "no NT_AMDGPU_METADATA note (code object v3 or newer is required)".into(),
    ))
}
