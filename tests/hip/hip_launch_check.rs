//! The checks that run before the HIP runtime sees a load or a launch: pure
//! Rust over the code object's metadata, so they are tested without a device.

use xad_harness::platform::codeobj::{kernarg, ArgValue, CodeObject};
use xad_harness::platform::device::{DeviceError, Dispatch};
use xad_harness::platform::embedded;
use xad_harness::platform::hip::safe::{check_launch, check_load};

fn xad_basic() -> CodeObject {
    let embedded = embedded::find("gfx1100", "xad_basic").expect("xad_basic is embedded");
    CodeObject::parse(embedded.bytes).expect("xad_basic parses")
}

fn good_kernarg(code: &CodeObject) -> Vec<u8> {
    let meta = &code.kernel("xad_basic").expect("kernel").meta;
    kernarg::build(
        meta,
        &[
            ArgValue::Pointer(0x1000),
            ArgValue::Pointer(0x2000),
            ArgValue::Pointer(0x3000),
            ArgValue::Pointer(0x4000),
            ArgValue::U32(256),
        ],
    )
    .expect("kernarg builds")
}

const ONE_GROUP: Dispatch = Dispatch {
    grid_blocks: [1, 1, 1],
    block: [256, 1, 1],
};

fn refused(result: Result<impl std::fmt::Debug, DeviceError>) -> String {
    match result {
        Err(DeviceError::Refused(message)) => {
            assert!(!message.contains('\n'), "{message}");
            message
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_kernarg_of_the_metadata_size_passes() {
    let code = xad_basic();
    let image = good_kernarg(&code);
    assert_eq!(
        image.len(),
        code.kernel("xad_basic").unwrap().meta.kernarg_segment_size as usize
    );
    let kernel = check_launch(&code, "xad_basic", &image, ONE_GROUP).expect("accepted");
    assert_eq!(kernel.meta.name, "xad_basic");
    assert_eq!(
        kernarg::explicit_size(&kernel.meta),
        36,
        "a,b,c,out pointers and a u32 count"
    );
}

#[test]
fn a_kernarg_of_any_other_length_is_refused() {
    let code = xad_basic();
    let image = good_kernarg(&code);
    let size = image.len();
    for len in [0, 1, size - 4, size - 1, size + 1, size + 8, 4096] {
        let mut wrong = image.clone();
        wrong.resize(len, 0);
        let message = refused(check_launch(&code, "xad_basic", &wrong, ONE_GROUP));
        assert!(
            message.contains(&format!("is {len} bytes"))
                && message.contains(&format!(".kernarg_segment_size {size}")),
            "len {len}: {message}"
        );
    }
}

#[test]
fn unknown_kernels_and_bad_shapes_are_refused() {
    let code = xad_basic();
    let image = good_kernarg(&code);
    let message = refused(check_launch(&code, "xad_other", &image, ONE_GROUP));
    assert!(
        message.contains("xad_other") && message.contains("xad_basic"),
        "{message}"
    );
    let message = refused(check_launch(&code, "xad_basic\0", &image, ONE_GROUP));
    assert!(message.contains("no kernel named"), "{message}");

    let shapes = [
        (
            Dispatch {
                grid_blocks: [0, 1, 1],
                block: [256, 1, 1],
            },
            "empty dimension",
        ),
        (
            Dispatch {
                grid_blocks: [1, 1, 1],
                block: [256, 0, 1],
            },
            "empty dimension",
        ),
        // xad_basic declares .reqd_workgroup_size [256, 1, 1]; the runtime would override 128.
        (
            Dispatch {
                grid_blocks: [2, 1, 1],
                block: [128, 1, 1],
            },
            "reqd_workgroup_size",
        ),
        (
            Dispatch {
                grid_blocks: [1, 1, 1],
                block: [256, 2, 1],
            },
            "max_flat_workgroup_size",
        ),
        (
            Dispatch {
                grid_blocks: [u32::MAX, 1, 1],
                block: [256, 1, 1],
            },
            "2^32 work-items",
        ),
    ];
    for (dispatch, expected) in shapes {
        let message = refused(check_launch(&code, "xad_basic", &image, dispatch));
        assert!(message.contains(expected), "{dispatch:?}: {message}");
    }
    let many = Dispatch {
        grid_blocks: [u32::MAX / 256, 1, 1],
        block: [256, 1, 1],
    };
    check_launch(&code, "xad_basic", &image, many).expect("the largest grid that fits in 32 bits");
}

#[test]
fn loading_checks_the_target_against_the_device_arch() {
    let bytes = embedded::find("gfx1100", "xad_basic").unwrap().bytes;
    for arch in ["gfx1100", "gfx1100:sramecc-:xnack-", "gfx1100:xnack+"] {
        check_load(bytes, "test device", arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
    }
    for arch in [
        "gfx1101",
        "gfx1030",
        "gfx90a:sramecc+:xnack-",
        "gfx11-generic",
    ] {
        let message = refused(check_load(bytes, "test device", arch));
        assert!(
            message.contains("code object is for gfx1100") && message.contains(arch),
            "{arch}: {message}"
        );
    }
    let message = refused(check_load(bytes, "test device", ""));
    assert!(message.contains("not a target ID"), "{message}");
    let message = refused(check_load(b"\x7fELF not really", "test device", "gfx1100"));
    assert!(message.starts_with("not loading code object"), "{message}");
}

/// Both backends run the same launch check (`codeobj::launch::check`), so a
/// dispatch one refuses the other refuses, with the same words: here the HIP
/// path's check (what `Module::launch` runs before `hipModuleLaunchKernel`)
/// and the emulator's `launch`, for every way a workgroup can be wrong.
#[test]
fn emulator_and_hip_refuse_the_same_workgroups_identically() {
    use std::time::Duration;
    use xad_harness::platform::device::Device;
    use xad_harness::platform::emu::EmuDevice;

    let code = xad_basic();
    let image = good_kernarg(&code);
    let mut emu = EmuDevice::new();
    let module = emu.load(&code.bytes).expect("the emulator loads xad_basic");
    let shapes = [
        // Over .max_flat_workgroup_size (256) but within the hardware's 1024:
        // the emulator used to run this one.
        ([1, 1, 1], [512, 1, 1], ".max_flat_workgroup_size 256"),
        ([1, 1, 1], [256, 2, 1], ".max_flat_workgroup_size 256"),
        ([1, 1, 1], [1024, 1, 1], ".max_flat_workgroup_size 256"),
        ([1, 1, 1], [2048, 1, 1], "hardware limit of 1024"),
        ([4, 1, 1], [64, 1, 1], ".reqd_workgroup_size [256, 1, 1]"),
        ([1, 1, 1], [0, 1, 1], "empty dimension"),
        ([u32::MAX, 1, 1], [256, 1, 1], "2^32 work-items"),
    ];
    for (grid_blocks, block, expected) in shapes {
        let dispatch = Dispatch { grid_blocks, block };
        let hip = refused(check_launch(&code, "xad_basic", &image, dispatch));
        let emulated = refused(emu.launch(
            module,
            "xad_basic",
            &image,
            dispatch,
            Duration::from_secs(5),
        ));
        assert_eq!(emulated, hip, "{dispatch:?}");
        assert!(hip.contains(expected), "{dispatch:?}: {hip}");
    }
    // The kernarg image is held to the metadata on both paths, too.
    let short = &image[..image.len() - 4];
    let hip = refused(check_launch(&code, "xad_basic", short, ONE_GROUP));
    assert_eq!(
        refused(emu.launch(
            module,
            "xad_basic",
            short,
            ONE_GROUP,
            Duration::from_secs(5)
        )),
        hip
    );
    // Control: the shape both accept runs on the emulator.
    // (Its buffer addresses 0x1000.. are not allocated, so it faults in memory.)
    let ran = emu
        .launch(
            module,
            "xad_basic",
            &image,
            ONE_GROUP,
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert!(ran.is_memory_fault(), "{ran}");
}
