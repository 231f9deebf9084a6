//! Code object parsing against what `kernels/include/xad_basic_gfx11.s` declares, the
//! kernarg layout built from it, target IDs, and the toolchain canary.

use crate::common::*;
use xad_harness::platform::codeobj::{kernarg, ArgValue, CodeObject, KernargError, TargetId};

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
fn canary_accepts_llvm19_and_rejects_gcn_bytes() {
    let dir = scratch("canary");
    let tc = xad_harness::platform::toolchain::discover("gfx1100", &dir)
        .expect("a gfx11 LLVM (clang-19) is installed here");
    assert!(tc.clang.to_string_lossy().contains("clang"));

    // A "clang" that is really LLVM 14's llvm-mc: accepts -mcpu=gfx1100 with a
    // warning (silenced here, as a wrapper script might) and emits GCN encodings.
    let fake = dir.join("fake-llvm");
    std::fs::create_dir_all(&fake).unwrap();
    let script = "#!/bin/sh\nsrc=; out=\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift;; *.s) src=$1;; esac; shift; done\n\
                  exec /usr/bin/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx900 -filetype=obj \"$src\" -o \"$out\" 2>/dev/null\n";
    for tool in ["clang", "ld.lld"] {
        let p = fake.join(tool);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let r = run(harness()
        .env("XAD_LLVM_DIR", &fake)
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(dir.join("x.s")));
    // x.s does not exist: a usage error comes first, before any toolchain search.
    assert_eq!(r.code, 2, "{}", r.all());
    std::fs::write(dir.join("x.s"), basic_source()).unwrap();
    let r = run(harness()
        .env("XAD_LLVM_DIR", &fake)
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(dir.join("x.s")));
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr.contains("canary did not encode as gfx1100"),
        "{}",
        r.stderr
    );
}
