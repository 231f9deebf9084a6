//! Code object parsing against what `kernels/include/xad_basic_gfx11.s` declares, the
//! kernarg layout built from it, target IDs, and the toolchain canary.

use crate::common::*;
use xad_harness::platform::code_object_policy::{self};
use xad_harness::platform::codeobj::{kernarg, ArgValue, CodeObject, KernargError, TargetId};
use xad_harness::platform::toolchain;

fn basic() -> CodeObject {
    CodeObject::parse(
        xad_harness::platform::embedded::find("gfx1100", "xad_basic")
            .unwrap()
            .bytes,
    )
    .unwrap()
}

#[test]
fn metadata_matches_the_source() {
    let co = basic();
    assert_eq!(co.metadata.version, (1, 2));
    assert_eq!(co.target, TargetId::parse("gfx1100").unwrap());
    let k = co.kernel("xad_basic").unwrap();
    let m = &k.meta;
    assert_eq!(
        (m.symbol.as_str(), m.kernarg_segment_size, m.wavefront_size),
        ("xad_basic.kd", 40, 32)
    );
    assert_eq!(m.reqd_workgroup_size, Some([256, 1, 1]));
    assert_eq!(m.max_flat_workgroup_size, 256);
    let args: Vec<(&str, u32, u32, &str)> = m
        .args
        .iter()
        .map(|a| {
            (
                a.name.as_deref().unwrap(),
                a.offset,
                a.size,
                a.value_kind.as_str(),
            )
        })
        .collect();
    assert_eq!(
        args,
        [
            ("a", 0, 8, "global_buffer"),
            ("b", 8, 8, "global_buffer"),
            ("c", 16, 8, "global_buffer"),
            ("out", 24, 8, "global_buffer"),
            ("count", 32, 4, "by_value")
        ]
    );
    // The descriptor agrees with the .amdhsa_kernel block.
    let d = &k.descriptor;
    assert_eq!(
        (d.kernarg_size, d.wave_size(), d.user_sgpr_count()),
        (40, 32, 2)
    );
    assert!(d.kernarg_ptr() && !d.dispatch_ptr() && !d.queue_ptr());
    assert_eq!(d.workgroup_id_enabled(), [true, false, false]);
    assert_eq!(d.workitem_id_dims(), 0);
    assert_eq!(k.launch_workgroup_size(), [256, 1, 1]);
    // The entry point is the function symbol, inside the code.
    let (text_addr, text) = &co.code[0];
    assert!(k.entry_address >= *text_addr && k.entry_address < text_addr + text.len() as u64);
    assert!(co.kernel("nope").is_err());
}

#[test]
fn kernarg_layout_follows_metadata() {
    let co = basic();
    let meta = &co.kernel("xad_basic").unwrap().meta;
    let args = [
        ArgValue::Pointer(0x1111_2222_3333_4444),
        ArgValue::Pointer(0x10),
        ArgValue::Pointer(0x20),
        ArgValue::Pointer(0xdead_0000_beef),
        ArgValue::U32(12345),
    ];
    let buf = kernarg::build(meta, &args).unwrap();
    assert_eq!(buf.len(), 40);
    assert_eq!(
        u64::from_le_bytes(buf[0..8].try_into().unwrap()),
        0x1111_2222_3333_4444
    );
    assert_eq!(
        u64::from_le_bytes(buf[24..32].try_into().unwrap()),
        0xdead_0000_beef
    );
    assert_eq!(u32::from_le_bytes(buf[32..36].try_into().unwrap()), 12345);
    assert_eq!(kernarg::explicit_size(meta), 36);
    // Wrong count, wrong kind.
    assert!(matches!(
        kernarg::build(meta, &args[..4]),
        Err(KernargError::Count {
            expected: 5,
            given: 4,
            ..
        })
    ));
    let mut swapped = args;
    swapped[4] = ArgValue::Pointer(1);
    assert!(matches!(
        kernarg::build(meta, &swapped),
        Err(KernargError::Mismatch { index: 4, .. })
    ));
}

#[test]
fn target_ids_and_feature_suffixes() {
    let code = TargetId::parse("amdgcn-amd-amdhsa--gfx1100").unwrap();
    for device in ["gfx1100", "gfx1100:sramecc-:xnack-", "gfx1100:xnack+"] {
        assert!(code.runs_on(&TargetId::parse(device).unwrap()), "{device}");
    }
    for device in ["gfx1101", "gfx1030", "gfx110"] {
        assert!(!code.runs_on(&TargetId::parse(device).unwrap()), "{device}");
    }
    let pinned = TargetId::parse("gfx90a:xnack-").unwrap();
    assert!(!pinned.runs_on(&TargetId::parse("gfx90a:xnack+").unwrap()));
    assert!(pinned.runs_on(&TargetId::parse("gfx90a:sramecc+:xnack-").unwrap()));
    assert_eq!(
        TargetId::parse("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-")
            .unwrap()
            .to_string(),
        "gfx90a:sramecc+:xnack-"
    );
    assert!(TargetId::parse("x86_64").is_none());
}

#[test]
fn malformed_inputs_are_errors_not_panics() {
    for bytes in [
        &b""[..],
        b"\x7fELF",
        &[0u8; 64][..],
        &xad_harness::platform::embedded::find("gfx1100", "xad_basic")
            .unwrap()
            .bytes[..200],
    ] {
        assert!(CodeObject::parse(bytes).is_err());
    }
    // Every truncation of a real code object is an error or a parse, never a panic.
    let full = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
        .unwrap()
        .bytes;
    for len in (0..full.len()).step_by(97) {
        let _ = CodeObject::parse(&full[..len]);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]
    /// Random byte and word corruptions of a real code object: parsing returns
    /// an error or a code object, never panics (offsets, sizes and addresses in
    /// the ELF and the metadata are all untrusted).
    #[test]
    fn corrupted_code_objects_never_panic(edits in proptest::collection::vec((0usize..1 << 16, proptest::num::u64::ANY), 1..8)) {
        let mut bytes = xad_harness::platform::embedded::find("gfx1100", "xad_basic").unwrap().bytes.to_vec();
        for (at, value) in edits {
            let at = at % bytes.len();
            let end = (at + 8).min(bytes.len());
            bytes[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
        }
        let _ = CodeObject::parse(&bytes);
    }
}

#[test]
fn embedded_versions_follow_the_runtime_the_build_used() {
    let runtime = header_version();
    assert_eq!(
        toolchain::built_for_runtime(),
        runtime,
        "the build read its own root's header"
    );
    for k in xad_harness::platform::embedded::EMBEDDED {
        let row = xad_harness::platform::target::find(k.target).unwrap();
        let cov = row.code_object_version(runtime);
        let parsed = CodeObject::parse(k.bytes)
            .unwrap_or_else(|e| panic!("{} for {}: {e}", k.name, k.target));
        assert_eq!(
            (k.bytes[8], parsed.metadata.version),
            (
                code_object_policy::elf_abi_version(cov),
                (1, u32::from(code_object_policy::metadata_minor(cov)))
            ),
            "{} for {} under HIP {runtime}: (EI_ABIVERSION, amdhsa.version) of a v{cov}",
            k.name,
            k.target
        );
    }
    let abi = |target: &str| {
        let k = xad_harness::platform::embedded::find(target, "xad_basic_w64")
            .unwrap_or_else(|| panic!("{target}"));
        (
            k.bytes[8],
            CodeObject::parse(k.bytes).unwrap().metadata.version,
        )
    };
    let (v4, v5, v6) = ((2, (1, 1)), (3, (1, 2)), (4, (1, 3)));
    for target in ["gfx1030", "gfx1010", "gfx908", "gfx90a"] {
        assert_eq!(
            abi(target),
            if before_v5(runtime) { v4 } else { v5 },
            "{target} under HIP {runtime}"
        );
    }
    assert_eq!(abi("gfx1100"), v5, "gfx1100 under HIP {runtime}");
    assert_eq!(
        abi("gfx11-generic"),
        v6,
        "gfx11-generic under HIP {runtime}"
    );
}

/// Each generation is proved by its own canary bytes (gfx9 D1F3, gfx10 D745,
/// gfx11/12 D645), and a processor the first LLVM does not know is looked for
/// in the next: gfx950 is unknown to LLVM 19 and known to LLVM 22. A processor
/// no toolchain knows is reported with what was tried, never skipped.
#[test]
fn each_generation_is_proved_by_its_own_canary() {
    let dir = scratch("tc-generations");
    for mcpu in [
        "gfx90a", "gfx942", "gfx1030", "gfx1010", "gfx1100", "gfx1201",
    ] {
        let tc = xad_harness::platform::toolchain::discover(mcpu, &dir)
            .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
        assert!(!tc.origin.is_empty(), "{mcpu}");
    }
    if std::path::Path::new("/usr/lib/llvm-22/bin/clang").is_file()
        && std::env::var_os("XAD_LLVM_DIR").is_none()
    {
        let tc = xad_harness::platform::toolchain::discover("gfx950", &dir)
            .expect("LLVM 22 knows gfx950");
        assert!(
            tc.origin.contains("22"),
            "gfx950 needs LLVM 22, found {}",
            tc.origin
        );
    } else {
        eprintln!(
            "note: LLVM 22 not installed (or XAD_LLVM_DIR set): gfx950's toolchain not checked"
        );
    }
    let e = xad_harness::platform::toolchain::discover("gfx803", &dir)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("gfx803") && e.contains("not a gfx9, gfx10, gfx11 or gfx12 processor"),
        "{e}"
    );
    let e = xad_harness::platform::toolchain::discover("gfx9999", &dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gfx9999"), "{e}");
}
