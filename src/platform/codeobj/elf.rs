//! Structural validation of a code object's ELF container, on the raw bytes,
//! before anything else reads them.
//!
//! Why a second reader next to `object`: `hipModuleLoadData` takes a pointer
//! and no length, so the real loader learns the file's extent from the headers
//! and reads whatever they point at. A header, segment, section, note or
//! symbol that points past the end of our buffer would make the runtime read
//! out of bounds. `object` parses lazily and only what it is asked for, so it
//! cannot promise that; this module walks every table once, with checked
//! arithmetic, and refuses the file on the first entry that leaves it.
//!
//! What is accepted (AMDGPUUsage, "ELF Code Object"): little-endian ELF64,
//! `ELFOSABI_AMDGPU_HSA`, ABI version 2..=4 (code object v4, v5, v6),
//! `EM_AMDGPU`, a shared object (`ET_DYN`, what the HSA loader loads), at most
//! [`MAX_PROGRAM_HEADERS`] program headers and [`MAX_SECTIONS`] sections, and
//! the v4+ `e_flags` layout (processor in bits 7:0, xnack 9:8, sramecc 11:10,
//! generic version 31:24 on v6; everything else reserved and refused).

use super::CodeObjectError;

/// Largest code object the harness reads: 64 MiB. A catalogue kernel is about
/// 3 KiB and the largest real fat binaries' gfx11 members are a few MiB; the
/// cap keeps a hostile `--kernel` (or `/dev/zero` behind a symlink) from
/// exhausting memory, and is checked before the file is read.
pub const MAX_CODE_OBJECT_BYTES: u64 = 64 << 20;
/// Program headers accepted (LLVM emits about 8).
pub const MAX_PROGRAM_HEADERS: usize = 256;
/// Section headers accepted (LLVM emits about 15).
pub const MAX_SECTIONS: usize = 4096;

const EHDR_SIZE: usize = 64;
const PHDR_SIZE: usize = 56;
const SHDR_SIZE: usize = 64;
const SYM_SIZE: u64 = 24;

const ELFOSABI_AMDGPU_HSA: u8 = 64;
const EM_AMDGPU: u16 = 224;
const ET_DYN: u16 = 3;
const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_HASH: u32 = 5;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_DYNSYM: u32 = 11;
/// Special section indices a symbol may carry (`SHN_LORESERVE` and up).
const SHN_LORESERVE: u16 = 0xff00;

/// `EF_AMDGPU_*` feature settings of code object v4+ (two bits per feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureBits {
    /// The processor has no such feature (the target ID must not name it).
    Unsupported,
    /// Code runs with the feature on or off (not named in the target ID).
    Any,
    /// `feature-` in the target ID.
    Off,
    /// `feature+` in the target ID.
    On,
}

impl FeatureBits {
    fn from_bits(bits: u32) -> FeatureBits {
        match bits & 3 {
            0 => FeatureBits::Unsupported,
            1 => FeatureBits::Any,
            2 => FeatureBits::Off,
            _ => FeatureBits::On,
        }
    }

    /// The `+`/`-` setting a target ID must carry for this, if any.
    pub fn pinned(self) -> Option<bool> {
        match self {
            FeatureBits::Off => Some(false),
            FeatureBits::On => Some(true),
            FeatureBits::Unsupported | FeatureBits::Any => None,
        }
    }
}

/// What the header says, for the checks that need the metadata too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElfFacts {
    /// Code object version (4, 5 or 6), from `EI_ABIVERSION`.
    pub code_object_version: u8,
    /// `EF_AMDGPU_MACH`: the processor number.
    pub mach: u8,
    /// `EF_AMDGPU_GENERIC_VERSION` (bits 31:24, code object v6+): 0 for a
    /// processor, 1 or more for a generic target.
    pub generic_version: u8,
    pub xnack: FeatureBits,
    pub sramecc: FeatureBits,
}

fn malformed(what: impl Into<String>) -> CodeObjectError {
    CodeObjectError::Malformed(what.into())
}

/// Little-endian field reads that fail instead of panicking.
#[derive(Clone, Copy)]
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn u16(self, at: usize) -> u16 {
        self.0
            .get(at..at + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(self, at: usize) -> u32 {
        self.0
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(self, at: usize) -> u64 {
        self.0
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }
    /// `len` bytes at file offset `offset`, or `None` if any of them is past the end.
    fn range(self, offset: u64, len: u64) -> Option<&'a [u8]> {
        let end = offset.checked_add(len)?;
        self.0
            .get(usize::try_from(offset).ok()?..usize::try_from(end).ok()?)
    }
}

/// Check every structure of `bytes` the loader will follow (see the module
/// doc). `Ok` means each header table, segment, section, note, string and
/// symbol lies inside `bytes`.
pub fn validate(bytes: &[u8]) -> Result<ElfFacts, CodeObjectError> {
    if bytes.len() as u64 > MAX_CODE_OBJECT_BYTES {
        return Err(CodeObjectError::TooLarge {
            bytes: bytes.len() as u64,
            limit: MAX_CODE_OBJECT_BYTES,
        });
    }
    let file = Bytes(bytes);
    let facts = header(file)?;
    let phnum = usize::from(file.u16(56));
    let shnum = usize::from(file.u16(60));
    let phdrs = table(
        file,
        file.u64(32),
        phnum,
        file.u16(54),
        PHDR_SIZE,
        "program header",
    )?;
    let shdrs = table(
        file,
        file.u64(40),
        shnum,
        file.u16(58),
        SHDR_SIZE,
        "section header",
    )?;
    for (i, ph) in phdrs.chunks_exact(PHDR_SIZE).enumerate() {
        segment(file, i, Bytes(ph))?;
    }
    let sections: Vec<Bytes<'_>> = shdrs.chunks_exact(SHDR_SIZE).map(Bytes).collect();
    let shstrndx = usize::from(file.u16(62));
    if shnum == 0 && shstrndx != 0 || shnum > 0 && shstrndx >= shnum {
        return Err(malformed(format!(
            "section name table index {shstrndx} is not one of the {shnum} sections"
        )));
    }
    if let Some(names) = sections.get(shstrndx) {
        // Checked before any name is looked up in it, so the error names it.
        if names.u32(4) != SHT_STRTAB || file.range(names.u64(24), names.u64(32)).is_none() {
            return Err(malformed(format!(
                "section name table (section {shstrndx}) is not a string table inside the {}-byte file",
                file.0.len()
            )));
        }
    }
    for (i, sh) in sections.iter().enumerate() {
        section(file, &sections, i, *sh, shstrndx)?;
    }
    Ok(facts)
}

/// The ELF header's identity, type, machine, sizes and flags.
fn header(file: Bytes<'_>) -> Result<ElfFacts, CodeObjectError> {
    let ident = file.0.get(..16).filter(|_| file.0.len() >= EHDR_SIZE);
    let Some(ident) = ident.filter(|i| i[..4] == *b"\x7fELF") else {
        return Err(CodeObjectError::NotAmdgpu(format!(
            "not an ELF file ({} bytes, no ELF header)",
            file.0.len()
        )));
    };
    if ident[4] != 2 || ident[5] != 1 || ident[6] != 1 {
        return Err(CodeObjectError::NotAmdgpu(format!(
            "not a little-endian ELF64 version 1 file (class {}, data {}, version {})",
            ident[4], ident[5], ident[6]
        )));
    }
    if file.u16(18) != EM_AMDGPU {
        return Err(CodeObjectError::NotAmdgpu(format!(
            "ELF machine is {}, not AMDGPU ({EM_AMDGPU})",
            file.u16(18)
        )));
    }
    if ident[7] != ELFOSABI_AMDGPU_HSA {
        return Err(CodeObjectError::NotAmdgpu(format!(
            "ELF OS ABI is {}, not AMDGPU HSA ({ELFOSABI_AMDGPU_HSA})",
            ident[7]
        )));
    }
    // EI_ABIVERSION 2, 3, 4 = code object v4, v5, v6; v2 and v3 predate target IDs.
    let code_object_version = match ident[8] {
        v @ 2..=4 => v + 2,
        other => {
            return Err(CodeObjectError::Unsupported(format!(
                "ELF ABI version {other} (code object v{}); v4, v5 and v6 are supported",
                u16::from(other) + 2
            )))
        }
    };
    if file.u16(16) != ET_DYN {
        return Err(malformed(format!(
            "ELF type is {}, not a shared object ({ET_DYN}) as the HSA loader needs",
            file.u16(16)
        )));
    }
    if usize::from(file.u16(52)) != EHDR_SIZE {
        return Err(malformed(format!(
            "ELF header size is {}, not {EHDR_SIZE}",
            file.u16(52)
        )));
    }
    let flags = file.u32(48);
    let reserved = if code_object_version >= 6 {
        0x00ff_f000
    } else {
        0xffff_f000
    };
    if flags & reserved != 0 {
        return Err(malformed(format!(
            "ELF flags 0x{flags:08x} set reserved bits 0x{:08x}",
            flags & reserved
        )));
    }
    Ok(ElfFacts {
        code_object_version,
        mach: (flags & 0xff) as u8,
        generic_version: (flags >> 24) as u8,
        xnack: FeatureBits::from_bits(flags >> 8),
        sramecc: FeatureBits::from_bits(flags >> 10),
    })
}

/// A header table of `count` entries of `entry_size` bytes at `offset`.
fn table<'a>(
    file: Bytes<'a>,
    offset: u64,
    count: usize,
    entry_size: u16,
    expected: usize,
    what: &str,
) -> Result<&'a [u8], CodeObjectError> {
    if count == 0 {
        // No table: its offset must say so too (a non-zero offset with a zero
        // count is ELF's extended numbering, which no code object needs).
        return if offset == 0 {
            Ok(&[])
        } else {
            Err(malformed(format!(
                "{what} table at {offset} has zero entries"
            )))
        };
    }
    let limit = if what == "program header" {
        MAX_PROGRAM_HEADERS
    } else {
        MAX_SECTIONS
    };
    if count > limit {
        return Err(malformed(format!(
            "{count} {what}s; at most {limit} are accepted"
        )));
    }
    if usize::from(entry_size) != expected {
        return Err(malformed(format!(
            "{what} entry size is {entry_size}, not {expected}"
        )));
    }
    file.range(offset, (count * expected) as u64).ok_or_else(|| {
        malformed(format!(
            "{what} table ({count} x {expected} bytes at {offset}) runs past the end of the {}-byte file",
            file.0.len()
        ))
    })
}

/// One program header: its file bytes inside the file, its memory image no
/// smaller than them, its addresses free of overflow, its notes well formed.
fn segment(file: Bytes<'_>, index: usize, ph: Bytes<'_>) -> Result<(), CodeObjectError> {
    let (kind, offset, vaddr, filesz, memsz) =
        (ph.u32(0), ph.u64(8), ph.u64(16), ph.u64(32), ph.u64(40));
    let data = file.range(offset, filesz).ok_or_else(|| {
        malformed(format!(
            "program header {index} (type {kind}) covers file bytes {offset}+{filesz}, past the end of the {}-byte file",
            file.0.len()
        ))
    })?;
    if kind == PT_LOAD && filesz > memsz {
        return Err(malformed(format!(
            "program header {index}: file size {filesz} exceeds memory size {memsz}"
        )));
    }
    if vaddr.checked_add(memsz).is_none() {
        return Err(malformed(format!(
            "program header {index}: address 0x{vaddr:x} + size {memsz} overflows"
        )));
    }
    if kind == PT_NOTE {
        notes(data).map_err(|e| malformed(format!("program header {index}: {e}")))?;
    }
    Ok(())
}

/// One section header: its name in the name table, its bytes inside the file,
/// and what it links to present; symbol tables, notes and hash tables are
/// walked entry by entry.
fn section(
    file: Bytes<'_>,
    sections: &[Bytes<'_>],
    index: usize,
    sh: Bytes<'_>,
    shstrndx: usize,
) -> Result<(), CodeObjectError> {
    let (name, kind, addr, offset, size, link) = (
        sh.u32(0),
        sh.u32(4),
        sh.u64(16),
        sh.u64(24),
        sh.u64(32),
        sh.u32(40),
    );
    if index == 0 {
        // SHN_UNDEF's header: all zero in an ordinary file.
        return if sh.0.iter().all(|&b| b == 0) {
            Ok(())
        } else {
            Err(malformed("section header 0 is not empty"))
        };
    }
    let names = sections
        .get(shstrndx)
        .copied()
        .ok_or_else(|| malformed("no section name table"))?;
    let label = string_at(file, names, name).ok_or_else(|| {
        malformed(format!(
            "section {index}: name offset {name} is outside the section name table"
        ))
    })?;
    let label = format!("section {index} ({label})");
    if addr.checked_add(size).is_none() {
        return Err(malformed(format!(
            "{label}: address 0x{addr:x} + size {size} overflows"
        )));
    }
    if kind == SHT_NOBITS {
        return Ok(());
    }
    let data = file.range(offset, size).ok_or_else(|| {
        malformed(format!(
            "{label} covers file bytes {offset}+{size}, past the end of the {}-byte file",
            file.0.len()
        ))
    })?;
    if link as usize >= sections.len() {
        return Err(malformed(format!(
            "{label} links to section {link}, which does not exist"
        )));
    }
    match kind {
        SHT_SYMTAB | SHT_DYNSYM => {
            symbols(file, sections, sh, data).map_err(|e| malformed(format!("{label}: {e}")))
        }
        SHT_NOTE => notes(data).map_err(|e| malformed(format!("{label}: {e}"))),
        SHT_HASH => hash(data).map_err(|e| malformed(format!("{label}: {e}"))),
        _ => Ok(()),
    }
}

/// The NUL-terminated string at `offset` in string table section `table`.
fn string_at<'a>(file: Bytes<'a>, table: Bytes<'_>, offset: u32) -> Option<&'a str> {
    if table.u32(4) != SHT_STRTAB {
        return None;
    }
    let strings = file.range(table.u64(24), table.u64(32))?;
    let tail = strings.get(offset as usize..)?;
    let end = tail.iter().position(|&b| b == 0)?;
    Some(std::str::from_utf8(&tail[..end]).unwrap_or("?"))
}

/// Every symbol's name inside the linked string table and its section index
/// a real section (or a special index).
fn symbols(
    file: Bytes<'_>,
    sections: &[Bytes<'_>],
    sh: Bytes<'_>,
    data: &[u8],
) -> Result<(), String> {
    if sh.u64(56) != SYM_SIZE || data.len() as u64 % SYM_SIZE != 0 {
        return Err(format!(
            "entry size {} and size {} are not whole {SYM_SIZE}-byte symbols",
            sh.u64(56),
            data.len()
        ));
    }
    let link = sh.u32(40);
    let strings = sections
        .get(link as usize)
        .copied()
        .filter(|s| s.u32(4) == SHT_STRTAB);
    let strings =
        strings.ok_or_else(|| format!("links to section {link}, which is not a string table"))?;
    if file.range(strings.u64(24), strings.u64(32)).is_none() {
        return Err(format!(
            "links to section {link}, a string table that runs past the end of the file"
        ));
    }
    for (i, sym) in data.chunks_exact(SYM_SIZE as usize).map(Bytes).enumerate() {
        if string_at(file, strings, sym.u32(0)).is_none() {
            return Err(format!(
                "symbol {i}: name offset {} is outside its string table",
                sym.u32(0)
            ));
        }
        let shndx = sym.u16(6);
        if shndx < SHN_LORESERVE && usize::from(shndx) >= sections.len() {
            return Err(format!("symbol {i}: section index {shndx} does not exist"));
        }
    }
    Ok(())
}

/// A run of ELF notes (4-byte aligned, as AMDGPU writes them), each header,
/// name and descriptor inside `data`.
fn notes(data: &[u8]) -> Result<(), String> {
    let mut at = 0usize;
    while at < data.len() {
        let head = Bytes(&data[at..]);
        if data.len() - at < 12 {
            return Err(format!(
                "note at {at} is cut short ({} bytes left, a header is 12)",
                data.len() - at
            ));
        }
        let (namesz, descsz) = (u64::from(head.u32(0)), u64::from(head.u32(4)));
        let len = 12 + namesz.next_multiple_of(4) + descsz.next_multiple_of(4);
        if len > (data.len() - at) as u64 {
            return Err(format!("note at {at} (name {namesz} bytes, descriptor {descsz} bytes) runs past its section"));
        }
        at += len as usize;
    }
    Ok(())
}

/// A SysV hash table: bucket and chain arrays inside the section.
fn hash(data: &[u8]) -> Result<(), String> {
    let words = Bytes(data);
    let (buckets, chains) = (u64::from(words.u32(0)), u64::from(words.u32(4)));
    if data.len() < 8 || 8 + 4 * (buckets + chains) > data.len() as u64 {
        return Err(format!(
            "{buckets} buckets and {chains} chains do not fit in {} bytes",
            data.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic() -> Vec<u8> {
        crate::platform::embedded::find("gfx1100", "xad_basic")
            .expect("embedded")
            .bytes
            .to_vec()
    }

    #[test]
    fn the_embedded_code_objects_are_valid() {
        for k in crate::platform::embedded::EMBEDDED {
            let facts = validate(k.bytes).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            let cov = crate::platform::toolchain::code_object_version(k.target);
            let mach = super::super::known_mach(k.target)
                .expect("every target's processor number is known");
            assert_eq!(
                (facts.code_object_version, facts.mach),
                (cov, mach),
                "{} for {}",
                k.name,
                k.target
            );
            // Built for any xnack/sramecc setting (gfx9 and gfx1010 have the
            // features, gfx11/12 not): never pinned to one.
            for bits in [facts.xnack, facts.sramecc] {
                assert!(
                    matches!(bits, FeatureBits::Unsupported | FeatureBits::Any),
                    "{} for {}: {bits:?}",
                    k.name,
                    k.target
                );
            }
        }
    }

    #[test]
    fn notes_must_fit() {
        assert_eq!(notes(&[]), Ok(()));
        let mut note = vec![7, 0, 0, 0, 4, 0, 0, 0, 32, 0, 0, 0];
        note.extend_from_slice(b"AMDGPU\0\0abcd");
        assert_eq!(notes(&note), Ok(()));
        assert!(notes(&note[..note.len() - 1])
            .unwrap_err()
            .contains("runs past"));
        assert!(notes(&note[..5]).unwrap_err().contains("cut short"));
        note[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            notes(&note).unwrap_err().contains("runs past"),
            "no overflow on a huge descriptor size"
        );
    }

    #[test]
    fn a_segment_past_the_end_is_refused() {
        let mut bytes = basic();
        let phoff = Bytes(&bytes).u64(32) as usize;
        // Program header 1 (the first PT_LOAD): p_filesz at +32.
        let at = phoff + PHDR_SIZE + 32;
        let len = bytes.len() as u64 + 1;
        bytes[at..at + 8].copy_from_slice(&len.to_le_bytes());
        let e = validate(&bytes).unwrap_err().to_string();
        assert!(
            e.contains("program header 1") && e.contains("past the end"),
            "{e}"
        );
    }

    #[test]
    fn reserved_flags_and_old_versions_are_refused() {
        let mut bytes = basic();
        bytes[49] |= 0x10; // e_flags bit 12
        assert!(validate(&bytes)
            .unwrap_err()
            .to_string()
            .contains("reserved bits"));
        let mut bytes = basic();
        bytes[8] = 1; // code object v3
        assert!(matches!(
            validate(&bytes),
            Err(CodeObjectError::Unsupported(_))
        ));
    }
}
