//! Code objects are validated before any runtime call: each test mutates the
//! embedded `xad_basic` code object in one way a hostile or broken file could,
//! and expects `CodeObject::parse` (which every path uses: `--kernel`, the
//! emulator's load, and the HIP path's `check_load` before
//! `hipModuleLoadData`) to refuse it with one line naming what is wrong.

use xad_harness::platform::codeobj::elf::MAX_CODE_OBJECT_BYTES;
use xad_harness::platform::codeobj::metadata::check_kernel;
use xad_harness::platform::codeobj::{CodeObject, CodeObjectError, TargetId};
use xad_harness::platform::device::DeviceError;
use xad_harness::platform::hip::safe::check_load;

fn basic() -> Vec<u8> {
    xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .expect("embedded")
        .bytes
        .to_vec()
}

fn u16_at(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([b[at], b[at + 1]]))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn set_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// File offsets of the section headers.
fn section_headers(b: &[u8]) -> Vec<usize> {
    let (shoff, shnum) = (u64_at(b, 40) as usize, u16_at(b, 60));
    (0..shnum).map(|i| shoff + i * 64).collect()
}

/// File offsets of every symbol-table entry named `name` (in .symtab and .dynsym).
fn symbol_entries(b: &[u8], name: &str) -> Vec<usize> {
    let shdrs = section_headers(b);
    let mut found = Vec::new();
    for &sh in &shdrs {
        if !matches!(u32_at(b, sh + 4), 2 | 11) {
            continue;
        }
        let strtab = shdrs[u32_at(b, sh + 40) as usize];
        let strings = u64_at(b, strtab + 24) as usize;
        let (off, size) = (u64_at(b, sh + 24) as usize, u64_at(b, sh + 32) as usize);
        for sym in (off..off + size).step_by(24) {
            let at = strings + u32_at(b, sym) as usize;
            let end = at + b[at..].iter().position(|&c| c == 0).unwrap();
            if &b[at..end] == name.as_bytes() {
                found.push(sym);
            }
        }
    }
    found
}

/// Parse must refuse `bytes` with one line containing every needle, and the
/// HIP path's pre-runtime check must refuse it with the same words.
fn refused(bytes: &[u8], needles: &[&str]) -> String {
    let message = match CodeObject::parse(bytes) {
        Ok(_) => panic!("accepted; expected a refusal mentioning {needles:?}"),
        Err(e) => e.to_string(),
    };
    assert!(!message.contains('\n'), "{message}");
    for needle in needles {
        assert!(
            message.contains(needle),
            "{message:?} does not mention {needle:?}"
        );
    }
    match check_load(bytes, "test device", "gfx1100") {
        Err(DeviceError::Refused(hip)) => assert!(hip.contains(&message), "{hip}"),
        other => panic!("the HIP path's check did not refuse: {other:?}"),
    }
    message
}

#[test]
fn program_headers_pointing_past_the_end_are_refused() {
    let original = basic();
    let len = original.len() as u64;
    let (phoff, phnum) = (u64_at(&original, 32) as usize, u16_at(&original, 56));
    for i in 0..phnum {
        let ph = phoff + i * 56;
        let mut bytes = original.clone();
        set_u64(&mut bytes, ph + 32, len + 1 - u64_at(&original, ph + 8)); // p_filesz one byte too far
        refused(&bytes, &[&format!("program header {i}"), "past the end"]);
        let mut bytes = original.clone();
        set_u64(&mut bytes, ph + 8, u64::MAX - 7); // p_offset + p_filesz overflows
        if u64_at(&bytes, ph + 32) > 0 {
            refused(&bytes, &[&format!("program header {i}")]);
        }
    }
    let mut bytes = original.clone();
    set_u64(&mut bytes, 32, len - 100); // e_phoff: the table itself runs off the end
    refused(&bytes, &["program header table", "past the end"]);
    let mut bytes = original;
    bytes[56..58].copy_from_slice(&1000u16.to_le_bytes()); // e_phnum over the limit
    refused(&bytes, &["1000 program headers"]);
}

#[test]
fn sections_pointing_past_the_end_are_refused() {
    let original = basic();
    let len = original.len() as u64;
    for (i, &sh) in section_headers(&original).iter().enumerate().skip(1) {
        if u32_at(&original, sh + 4) == 8 {
            continue; // NOBITS occupies no file bytes
        }
        let mut bytes = original.clone();
        set_u64(&mut bytes, sh + 32, len + 1 - u64_at(&original, sh + 24));
        refused(&bytes, &[&format!("section {i}")]);
    }
    let mut bytes = original.clone();
    bytes[62..64].copy_from_slice(&99u16.to_le_bytes()); // e_shstrndx
    refused(&bytes, &["section name table index 99"]);
    let mut bytes = original;
    let text = section_headers(&bytes)[7];
    bytes[text..text + 4].copy_from_slice(&0xffffu32.to_le_bytes()); // sh_name
    refused(&bytes, &["section 7", "name offset 65535"]);
}

#[test]
fn symbols_must_name_strings_and_sections_that_exist() {
    let original = basic();
    let entries = symbol_entries(&original, "xad_basic.kd");
    assert_eq!(entries.len(), 2, "xad_basic.kd in .symtab and .dynsym");
    for &sym in &entries {
        let mut bytes = original.clone();
        bytes[sym..sym + 4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
        refused(
            &bytes,
            &["name offset 2147418112 is outside its string table"],
        );
        let mut bytes = original.clone();
        bytes[sym + 6..sym + 8].copy_from_slice(&200u16.to_le_bytes());
        refused(&bytes, &["section index 200 does not exist"]);
    }
}

#[test]
fn the_descriptor_must_lie_in_its_own_section_and_the_entry_be_aligned() {
    let original = basic();
    let entries = symbol_entries(&original, "xad_basic.kd");
    // Point the descriptor symbol at .text (section 7): its address is not in there.
    let mut bytes = original.clone();
    for &sym in &entries {
        bytes[sym + 6..sym + 8].copy_from_slice(&7u16.to_le_bytes());
    }
    refused(
        &bytes,
        &[
            "descriptor xad_basic.kd",
            "does not lie inside the section its symbol names",
        ],
    );
    // Move the entry 4 bytes on: still in .text, but not where a kernel may start.
    let kd = u64_at(&original, entries[0] + 8) as usize; // .rodata's address equals its file offset here
    let mut bytes = original.clone();
    let entry = u64_at(&bytes, kd + 16);
    set_u64(&mut bytes, kd + 16, entry + 4);
    refused(&bytes, &["not 256-byte aligned"]);
    // Far outside anything.
    let mut bytes = original;
    set_u64(&mut bytes, kd + 16, i64::MAX as u64);
    refused(&bytes, &["entry"]);
}

#[test]
fn versions_and_target_features_are_checked() {
    let original = basic();
    let mut bytes = original.clone();
    bytes[8] = 1; // EI_ABIVERSION: code object v3
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(CodeObjectError::Unsupported(_))
    ));
    refused(&bytes, &["code object v3", "v4, v5 and v6"]);

    let key = b"amdhsa.version";
    let at = original.windows(key.len()).position(|w| w == key).unwrap() + key.len();
    assert_eq!(&original[at..at + 3], [0x92, 1, 2], "msgpack [1, 2]");
    for minor in [0u8, 4, 9] {
        let mut bytes = original.clone();
        bytes[at + 2] = minor;
        refused(&bytes, &[&format!("amdhsa.version [1, {minor}]")]);
    }

    // The ELF flags say xnack is on (EF_AMDGPU_FEATURE_XNACK_ON_V4), the target ID does not.
    let mut bytes = original.clone();
    bytes[49] |= 0x03;
    refused(&bytes, &["xnack", "ELF flags"]);
    let mut bytes = original.clone();
    bytes[49] |= 0x10; // a reserved flag bit
    refused(&bytes, &["reserved bits"]);
    // The flags name gfx1030's processor, the metadata gfx1100: the runtime
    // would go by the flags, the harness's target check by the metadata.
    let mut bytes = original;
    bytes[48] = 0x36;
    refused(
        &bytes,
        &["target ID says gfx1100", "processor 0x36 (gfx1030)"],
    );

    for good in [
        "gfx1100",
        "gfx90a:sramecc+:xnack-",
        "amdgcn-amd-amdhsa--gfx11-generic:xnack+",
    ] {
        assert!(TargetId::parse_checked(good).is_ok(), "{good}");
    }
    for (bad, why) in [
        ("gfx1100:xnack", "no + or -"),
        ("gfx1100:xnack*", "no + or -"),
        ("gfx1100:wavefrontsize64+", "not xnack or sramecc"),
        ("gfx1100:xnack+:xnack-", "given twice"),
        ("gfx1100:sramecc-:sramecc-", "given twice"),
        ("gfx", "not a gfx processor"),
        ("x86_64", "not a gfx processor"),
        ("gfx1100\0", "not a gfx processor"),
    ] {
        let e = TargetId::parse_checked(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn an_oversized_image_is_refused_before_it_is_copied() {
    let mut big = basic();
    big.resize(MAX_CODE_OBJECT_BYTES as usize + 1, 0);
    assert_eq!(
        CodeObject::parse(&big).unwrap_err(),
        CodeObjectError::TooLarge {
            bytes: MAX_CODE_OBJECT_BYTES + 1,
            limit: MAX_CODE_OBJECT_BYTES
        }
    );
    big.truncate(MAX_CODE_OBJECT_BYTES as usize);
    // At the cap the size is fine (trailing bytes past the last section are allowed).
    CodeObject::parse(&big).expect("a code object of exactly the cap");
}

#[test]
fn kernel_metadata_limits() {
    let code = CodeObject::parse(&basic()).unwrap();
    let meta = code.kernel("xad_basic").unwrap().meta.clone();
    assert_eq!(check_kernel(&meta), Ok(()));
    let mut m = meta.clone();
    m.kernarg_segment_size = 4097;
    assert!(check_kernel(&m)
        .unwrap_err()
        .contains("exceeds the limit of 4096 bytes"));
    let mut m = meta.clone();
    m.args[4].offset = u32::MAX; // offset + size would overflow a u32
    assert!(check_kernel(&m).unwrap_err().contains("argument 4 (count)"));
    let mut m = meta.clone();
    m.max_flat_workgroup_size = 2048;
    assert!(check_kernel(&m).unwrap_err().contains("1..=1024"));
    let mut m = meta.clone();
    m.reqd_workgroup_size = Some([512, 1, 1]);
    assert!(check_kernel(&m)
        .unwrap_err()
        .contains("exceeds .max_flat_workgroup_size 256"));
    let mut m = meta.clone();
    m.reqd_workgroup_size = Some([256, 0, 1]);
    assert!(check_kernel(&m).unwrap_err().contains("empty"));
    let mut m = meta;
    m.wavefront_size = 16;
    assert!(check_kernel(&m).unwrap_err().contains("neither 32 nor 64"));
}

/// A generic target's code object carries its generic version in the ELF
/// flags and is v6; without either it is refused (the loader would misread it).
#[test]
fn a_generic_code_object_needs_v6_and_a_generic_version() {
    let generic = xad_harness::platform::embedded::find("gfx11-generic", "xad_basic")
        .expect("embedded")
        .bytes
        .to_vec();
    let co = CodeObject::parse(&generic).expect("the embedded generic object is valid");
    assert_eq!(co.target.arch, "gfx11-generic");
    assert_eq!((generic[8], generic[51]), (4, 1), "v6, generic_v1");
    let mut cleared = generic.clone();
    cleared[51] = 0;
    let e = CodeObject::parse(&cleared).unwrap_err().to_string();
    assert!(e.contains("generic version 0"), "{e}");
    let mut v5 = generic.clone();
    v5[8] = 3;
    let e = CodeObject::parse(&v5).unwrap_err().to_string();
    assert!(e.contains("reserved bits") || e.contains("need v6"), "{e}");
    // A processor's v5 object cannot claim a generic version either.
    let mut processor = basic();
    processor[51] = 1;
    assert!(CodeObject::parse(&processor).is_err());
}
