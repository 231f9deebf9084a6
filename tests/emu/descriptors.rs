//! The kernel descriptor on the emulator: every refusal of a field the hardware of that
//! generation would misread names the field in one line, the fields a generation has are
//! accepted, VGPR counts follow each register file's granule, and what the emulator does not
//! model is refused, not ignored (gfx9, gfx10).

use crate::support::*;
use std::time::Duration;
use xad_harness::platform::codeobj::KernelDescriptor;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::Target;

// ---- descriptor refusals ----

/// kernarg ptr, workgroup id x, USER_SGPR_COUNT 2: a plain gfx9 kernel.
fn plain_gfx9() -> KernelDescriptor {
    KernelDescriptor {
        rsrc2: 2 << 1 | 1 << 7,
        code_properties: 1 << 3,
        ..Default::default()
    }
}

type Edit = fn(&mut KernelDescriptor);

#[test]
fn every_gfx9_descriptor_refusal_names_its_field() {
    for arch in [
        "gfx908",
        "gfx90a",
        "gfx942",
        "gfx950",
        "gfx9-generic",
        "gfx9-4-generic",
    ] {
        assert_eq!(plain_gfx9().validate(arch), Ok(()), "{arch}");
    }
    let refused: [(&str, &str, Edit); 15] = [
        ("gfx908", "bits 31:27", |k| k.rsrc1 |= 1 << 29),
        ("gfx90a", "bits 31:27", |k| k.rsrc1 |= 1 << 31),
        ("gfx908", "PRIORITY", |k| k.rsrc1 |= 1 << 10),
        ("gfx908", "wave64 only", |k| k.code_properties |= 1 << 10),
        (
            "gfx908",
            "COMPUTE_PGM_RSRC3 bits 15:0 (reserved before gfx90a)",
            |k| k.rsrc3 = 1,
        ),
        ("gfx9-generic", "COMPUTE_PGM_RSRC3 bits 31:16", |k| {
            k.rsrc3 = 1 << 16
        }),
        ("gfx90a", "COMPUTE_PGM_RSRC3 RESERVED0 (gfx90a)", |k| {
            k.rsrc3 = 1 << 6
        }),
        ("gfx942", "COMPUTE_PGM_RSRC3 RESERVED1 (gfx90a)", |k| {
            k.rsrc3 = 1 << 17
        }),
        (
            "gfx90a",
            "ACCUM_OFFSET 2 puts the AGPRs at 12, past the 8 registers",
            |k| k.rsrc3 = 2,
        ),
        (
            "gfx942",
            "ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER is set, but gfx942 has architected flat scratch",
            |k| {
                k.code_properties |= 1;
                k.rsrc2 = (k.rsrc2 & !0x3e) | 6 << 1;
            },
        ),
        (
            "gfx950",
            "ENABLE_SGPR_FLAT_SCRATCH_INIT is set, but gfx950 has architected flat scratch",
            |k| {
                k.code_properties |= 1 << 5;
                k.rsrc2 = (k.rsrc2 & !0x3e) | 4 << 1;
            },
        ),
        (
            "gfx908",
            "kernarg_preload is 0x0081, but kernarg preloading exists on gfx90a/gfx940+ only",
            |k| k.kernarg_preload = 0x81,
        ),
        (
            "gfx908",
            "USER_SGPR_COUNT is 2, but the enabled user SGPRs need 6",
            |k| k.code_properties |= 1,
        ),
        ("gfx90a", "ENABLE_VGPR_WORKITEM_ID is 3", |k| {
            k.rsrc2 |= 3 << 11
        }),
        ("gfx908", "gfx9 loads at most 16", |k| {
            k.rsrc2 = (k.rsrc2 & !0x3e) | 17 << 1
        }),
    ];
    for (arch, want, edit) in refused {
        let mut kd = plain_gfx9();
        edit(&mut kd);
        let err = kd.validate(arch).expect_err(want).to_string();
        assert!(
            err.contains(want) && !err.contains('\n'),
            "{arch}: {err:?} should name {want:?}"
        );
    }
}

/// What gfx9 allows and gfx10+ refuse, and the reverse: the layouts differ.
#[test]
fn gfx9_descriptors_accept_their_own_fields() {
    let accepted: [(&str, Edit); 6] = [
        ("gfx908", |k| k.rsrc1 |= 12 << 6), // an SGPR granule (must be 0 on gfx10+)
        ("gfx908", |k| {
            k.code_properties |= 1 | 1 << 5; // the scratch user SGPRs without architected flat scratch
            k.rsrc2 = (k.rsrc2 & !0x3e) | 8 << 1;
        }),
        ("gfx90a", |k| k.rsrc3 = 1 << 16 | 26), // TG_SPLIT, ACCUM_OFFSET 108
        ("gfx90a", |k| k.kernarg_preload = 0x81),
        ("gfx942", |k| k.rsrc2 |= 1), // the private segment (no SGPR with architected flat scratch)
        ("gfx90a", |k| k.rsrc1 |= 13), // 112 VGPRs + AGPRs
    ];
    for (arch, edit) in accepted {
        let mut kd = plain_gfx9();
        edit(&mut kd);
        kd.rsrc1 |= if arch == "gfx90a" && kd.rsrc3 & 0x3f != 0 {
            13
        } else {
            0
        };
        assert_eq!(kd.validate(arch), Ok(()), "{arch}: {kd:?}");
    }
    // The SGPR granule is gfx9's allocation; gfx10+ allocate statically and
    // ignore it, and LLVM's code generator sets it there anyway, so both accept it.
    let mut granule = plain_gfx9();
    granule.rsrc1 |= 12 << 6;
    assert_eq!(granule.validate("gfx908"), Ok(()));
    assert_eq!(
        granule.validate("gfx1100"),
        Ok(()),
        "compiled gfx11 kernels set it"
    );
}

#[test]
fn vgpr_counts_follow_each_gfx9_file() {
    // 13 granules: 56 VGPRs on gfx908 (granule 4), 112 VGPRs + AGPRs on
    // gfx90a (granule 8) with the AGPRs from ACCUM_OFFSET 26 -> 108.
    let kd = KernelDescriptor {
        rsrc1: 13,
        rsrc3: 26,
        ..plain_gfx9()
    };
    assert_eq!(kd.vgpr_count_for("gfx908"), 56);
    assert_eq!(kd.vgpr_count_for("gfx90a"), 108);
    assert_eq!(kd.vgpr_count_for("gfx942"), 108);
    let all = KernelDescriptor {
        rsrc1: 63,
        rsrc3: 63,
        ..plain_gfx9()
    };
    assert_eq!(
        (all.unified_vgpr_file(), all.vgpr_count_for("gfx950")),
        (512, 256)
    );
}

/// Kernarg preloading is legal on gfx90a: the emulated command processor is
/// firmware without it, so the wave starts at the entry with no argument in
/// SGPRs; LLVM 19's preload header there (`s_trap 2`) is refused by name,
/// as that firmware traps. A VGPR past ACCUM_OFFSET faults as out of range.
#[test]
fn the_emulator_refuses_what_it_does_not_model() {
    let mut dev = EmuDevice::for_target(t("gfx90a"));
    let kd = KernelDescriptor {
        kernarg_preload: 0x81,
        rsrc2: 3 << 1 | 1 << 7,
        ..plain_gfx9()
    };
    let dispatch = Dispatch {
        grid_blocks: [1, 1, 1],
        block: [64, 1, 1],
    };
    let end = 0xBF81_0000u32.to_le_bytes();
    let m = dev.load_code("pre", &end, kd);
    dev.launch(m, "pre", &[0u8; 8], dispatch, Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("a preloading kernel starts at its entry: {e}"));
    // s_trap 2 (llvm-mc-19 -mcpu=gfx90a: 0xbf920002), then s_endpgm.
    let trap: Vec<u8> = [0xBF92_0002u32, 0xBF81_0000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let m = dev.load_code("trap", &trap, kd);
    let err = dev
        .launch(m, "trap", &[0u8; 8], dispatch, Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(err.contains("BF920002") && !err.contains('\n'), "{err}");
    // v_mov_b32 v8, 0 with 8 VGPRs + AGPRs (one granule) and the AGPRs at 4.
    let mov_v8 = [0x7E10_0280u32, 0xBF81_0000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    let m = dev.load_code(
        "v8",
        &mov_v8,
        KernelDescriptor {
            rsrc3: 0,
            ..plain_gfx9()
        },
    );
    let err = dev
        .launch(
            m,
            "v8",
            &[0u8; 8],
            Dispatch {
                grid_blocks: [1, 1, 1],
                block: [64, 1, 1],
            },
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert!(err.to_string().contains("allocates 4"), "{err}");
}

// ---- descriptor refusals (one line naming the field) ----

/// gfx10's `s_endpgm`.
const S_ENDPGM: u32 = 0xBF81_0000;

/// kernarg pointer, workgroup id x, USER_SGPR_COUNT 2 (the catalogue frame's shape).
fn plain_gfx10(wave64: bool) -> KernelDescriptor {
    KernelDescriptor {
        rsrc2: 2 << 1 | 1 << 7,
        code_properties: 1 << 3 | u16::from(!wave64) << 10,
        ..Default::default()
    }
}

/// Launch `kd` with an `s_endpgm` body on an emulated `target`.
fn launch_raw(target: &'static Target, kd: KernelDescriptor) -> Result<(), String> {
    let mut dev = EmuDevice::for_target(target);
    let m = dev.load_code("raw", &S_ENDPGM.to_le_bytes(), kd);
    let dispatch = Dispatch {
        grid_blocks: [1, 1, 1],
        block: [64, 1, 1],
    };
    dev.launch(m, "raw", &[], dispatch, Duration::from_secs(10))
        .map_err(|e| e.to_string())
}

/// (what the refusal must say, wave64, the edit) for every gfx10 refusal.
const REFUSALS: &[(&str, bool, Edit)] = &[
    ("PRIORITY", false, |k| k.rsrc1 |= 1 << 10),
    ("PRIV is 1", false, |k| k.rsrc1 |= 1 << 20),
    ("DEBUG_MODE", false, |k| k.rsrc1 |= 1 << 22),
    ("BULKY", false, |k| k.rsrc1 |= 1 << 24),
    ("CDBG_USER", false, |k| k.rsrc1 |= 1 << 25),
    ("COMPUTE_PGM_RSRC1 RESERVED1", false, |k| k.rsrc1 |= 1 << 27),
    ("ENABLE_TRAP_HANDLER", false, |k| k.rsrc2 |= 1 << 6),
    ("ENABLE_EXCEPTION_ADDRESS_WATCH", false, |k| {
        k.rsrc2 |= 1 << 13
    }),
    ("ENABLE_EXCEPTION_MEMORY", false, |k| k.rsrc2 |= 1 << 14),
    ("GRANULATED_LDS_SIZE", false, |k| k.rsrc2 |= 1 << 15),
    ("COMPUTE_PGM_RSRC2 RESERVED0", false, |k| k.rsrc2 |= 1 << 31),
    ("COMPUTE_PGM_RSRC3 RESERVED1 (gfx10)", true, |k| {
        k.rsrc3 |= 1 << 4
    }),
    ("COMPUTE_PGM_RSRC3 RESERVED2", true, |k| k.rsrc3 |= 1 << 12),
    ("COMPUTE_PGM_RSRC3 RESERVED3", true, |k| k.rsrc3 |= 1 << 13),
    ("COMPUTE_PGM_RSRC3 RESERVED4", true, |k| k.rsrc3 |= 1 << 20),
    ("COMPUTE_PGM_RSRC3 RESERVED5 (gfx10)", true, |k| {
        k.rsrc3 |= 1 << 31
    }),
    ("KERNEL_CODE_PROPERTIES RESERVED0", false, |k| {
        k.code_properties |= 1 << 8
    }),
    ("KERNEL_CODE_PROPERTIES RESERVED1", false, |k| {
        k.code_properties |= 1 << 13
    }),
    ("reserved1 byte at offset 30", false, |k| k.reserved1[6] = 1),
    ("kernarg_preload is 0x0001", false, |k| {
        k.kernarg_preload = 1
    }),
    (
        "USER_SGPR_COUNT is 2, but the enabled user SGPRs need 6",
        false,
        |k| k.code_properties |= 1,
    ),
    (
        "USER_SGPR_COUNT is 17; gfx10 loads at most 16",
        false,
        |k| k.rsrc2 = (k.rsrc2 & !0x3e) | 17 << 1,
    ),
    ("ENABLE_VGPR_WORKITEM_ID is 3", false, |k| {
        k.rsrc2 |= 3 << 11
    }),
    (
        "GRANULATED_WORKITEM_VGPR_COUNT 63 means 512 VGPRs; gfx10 has at most 256",
        false,
        |k| k.rsrc1 |= 63,
    ),
    (
        "SHARED_VGPR_COUNT is 1, but shared VGPRs exist only in wave64",
        false,
        |k| k.rsrc3 |= 1,
    ),
    (
        "SHARED_VGPR_COUNT 15 adds 120 VGPRs to the 160 allocated",
        true,
        |k| {
            k.rsrc1 |= 39;
            k.rsrc3 |= 15;
        },
    ),
];

/// Every gfx10 refusal names its field in one line, through
/// `KernelDescriptor::validate` and through an emulated gfx1010/gfx1030
/// launch; the unchanged descriptor launches (so each refusal is the edit's).
#[test]
fn each_gfx10_descriptor_refusal_names_its_field() {
    for &(want, wave64, edit) in REFUSALS {
        let mut kd = plain_gfx10(wave64);
        edit(&mut kd);
        for target in [t("gfx1010"), t("gfx1030")] {
            assert_eq!(
                launch_raw(target, plain_gfx10(wave64)),
                Ok(()),
                "{want}: the unchanged descriptor"
            );
            let why = kd.validate(target.name).expect_err(want).to_string();
            assert!(
                why.contains(want) && !why.contains('\n'),
                "{}: {why:?} should name {want:?} in one line",
                target.name
            );
            let refused = launch_raw(target, kd).expect_err(want);
            assert!(
                refused.contains(want) && !refused.contains('\n'),
                "{}: launch refused with {refused:?}",
                target.name
            );
        }
    }
}

/// What gfx10 has and gfx11 does not: the scratch user SGPRs (no architected
/// flat scratch) and, in wave64, shared VGPRs; WGP_MODE, MEM_ORDERED and
/// FWD_PROGRESS are accepted on both; an SGPR count (which LLVM 19's code
/// generator writes, see `llvm_compiled_xad_kernel_runs_exactly`) is ignored.
#[test]
fn gfx10_accepts_its_own_fields() {
    let scratch = KernelDescriptor {
        code_properties: 1 << 3 | 1 | 1 << 5,
        rsrc2: 8 << 1 | 1,
        ..plain_gfx10(false)
    };
    assert_eq!(scratch.validate("gfx1030"), Ok(()));
    let gfx11 = scratch
        .validate("gfx1100")
        .expect_err("gfx11 has architected flat scratch")
        .to_string();
    assert!(
        gfx11.contains("ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER"),
        "{gfx11}"
    );
    let modes = KernelDescriptor {
        rsrc1: 7 << 29 | 2 << 6,
        rsrc3: 2,
        ..plain_gfx10(true)
    };
    assert_eq!(modes.validate("gfx1010"), Ok(()));
    assert_eq!(launch_raw(t("gfx1010"), modes), Ok(()));
}
