//! Just enough ELF64 to find where a code object ends. `hipModuleLoadData`
//! takes a pointer and no size, so the runtime learns the length from the
//! file's own headers: the end of the last header table, segment or section.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Program,
    Section,
}

/// A header table: where it starts, how many entries, how big each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub kind: TableKind,
    pub offset: u64,
    pub count: u32,
    pub entry_size: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tables {
    pub program: Table,
    pub section: Table,
}

const SHT_NOBITS: u32 = 8;

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// The program and section header tables of a little-endian ELF64 header;
/// `None` when `header` is not one or its entry sizes are impossible.
pub fn tables(header: &[u8]) -> Option<Tables> {
    if header.len() < 64 || &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return None;
    }
    let program = Table {
        kind: TableKind::Program,
        offset: u64_at(header, 32)?,
        entry_size: u32::from(u16_at(header, 54)?),
        count: u32::from(u16_at(header, 56)?),
    };
    let section = Table {
        kind: TableKind::Section,
        offset: u64_at(header, 40)?,
        entry_size: u32::from(u16_at(header, 58)?),
        count: u32::from(u16_at(header, 60)?),
    };
    if (program.count > 0 && program.entry_size < 56)
        || (section.count > 0 && section.entry_size < 64)
    {
        return None;
    }
    Some(Tables { program, section })
}

/// The end of the file contents `table` describes (`bytes` is the table).
pub fn content_end(table: &Table, bytes: &[u8]) -> Option<u64> {
    let mut end = 0u64;
    for i in 0..table.count as usize {
        let entry =
            bytes.get(i * table.entry_size as usize..(i + 1) * table.entry_size as usize)?;
        let extent = match table.kind {
            TableKind::Program => u64_at(entry, 8)?.checked_add(u64_at(entry, 32)?)?,
            TableKind::Section if u32_at(entry, 4)? == SHT_NOBITS => 0,
            TableKind::Section => u64_at(entry, 24)?.checked_add(u64_at(entry, 32)?)?,
        };
        end = end.max(extent);
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length computed from the headers is the file's length: the runtime
    /// must see exactly the bytes the assembler produced.
    #[test]
    fn extent_of_embedded_code_object_is_its_file_length() {
        let kernel = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
            .expect("xad_basic is embedded");
        let bytes = kernel.bytes;
        let t = tables(&bytes[..64]).expect("ELF64 header");
        let mut end = 64u64;
        for table in [t.program, t.section] {
            let start = table.offset as usize;
            let len = (table.count * table.entry_size) as usize;
            end = end.max((start + len) as u64);
            end = end.max(content_end(&table, &bytes[start..start + len]).expect("table readable"));
        }
        assert_eq!(end, bytes.len() as u64);
    }

    #[test]
    fn rejects_non_elf64_and_bad_entry_sizes() {
        assert_eq!(tables(&[0u8; 64]), None);
        let kernel = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
            .expect("xad_basic is embedded");
        let mut header = kernel.bytes[..64].to_vec();
        header[4] = 1; // ELFCLASS32
        assert_eq!(tables(&header), None);
        let mut header = kernel.bytes[..64].to_vec();
        header[58] = 8; // e_shentsize too small for a section header
        assert_eq!(tables(&header), None);
    }
}
