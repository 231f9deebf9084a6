//! The wave's initial state on the emulator, as LLVM lays it out per generation: work-item ids
//! (separate v0/v1/v2 on gfx908, gfx9-generic and gfx10; packed into v0 on gfx90a and gfx940+,
//! where v1 and v2 are undefined), and the scratch setup SGPRs placed where LLVM expects them
//! and unsettled.

use crate::common;
use crate::support::*;
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::device::{Device, Dispatch, Taint};
use xad_harness::platform::emu::EmuDevice;

// ---- work-item ids ----

/// Stores v0, v1, v2 as they were at entry (words 0-2 of the lane).
const IDS_BODY: &str = "  global_store_dword v7, v0, s[10:11]\n  global_store_dword v7, v11, s[10:11] offset:4\n  global_store_dword v7, v12, s[10:11] offset:8\n";

#[test]
fn work_item_ids_are_separate_on_gfx908_and_packed_on_gfx90a_and_gfx940() {
    let scratch = common::scratch("emu_gfx9_ids");
    for (mcpu, packed) in [
        ("gfx908", false),
        ("gfx9-generic", false),
        ("gfx90a", true),
        ("gfx942", true),
    ] {
        assert_eq!(
            t(mcpu).has(xad_harness::platform::target::Feature::PackedWorkItemIds),
            packed,
            "{mcpu}"
        );
        let tc = toolchain_for(mcpu, &scratch).unwrap();
        for (dims, block) in [(2u32, [4u32, 4, 4]), (1, [8, 8, 1])] {
            // The frame overwrites v1 and v2: copy them first.
            let source = kernel_source(mcpu, IDS_BODY, 3, dims, true).replacen(
                "k:\n",
                "k:\n  v_mov_b32 v11, v1\n  v_mov_b32 v12, v2\n",
                1,
            );
            let image = assemble(
                &tc,
                mcpu,
                &source,
                &scratch.join(mcpu),
                &format!("ids{dims}"),
            );
            let r = launch(mcpu, &image, 2, block, 3, 0x1d5);
            let lanes = (block[0] * block[1] * block[2]) as usize;
            let mut undefined = Vec::new();
            for i in 0..r.out.len() / 3 {
                let l = (i % lanes) as u32;
                let (x, y, z) = (
                    l % block[0],
                    l / block[0] % block[1],
                    l / (block[0] * block[1]),
                );
                let (y, z) = (if dims >= 1 { y } else { 0 }, if dims >= 2 { z } else { 0 });
                if packed {
                    assert_eq!(
                        r.out[3 * i],
                        x | y << 10 | z << 20,
                        "{mcpu} dims {dims} lane {i}"
                    );
                    undefined
                        .extend([(3 * i + 1, Taint::Undefined), (3 * i + 2, Taint::Undefined)]);
                } else {
                    assert_eq!(
                        r.out[3 * i..3 * i + 2],
                        [x, y],
                        "{mcpu} dims {dims} lane {i}"
                    );
                    if dims == 2 {
                        assert_eq!(r.out[3 * i + 2], z, "{mcpu} lane {i}");
                    } else {
                        undefined.push((3 * i + 2, Taint::Undefined));
                    }
                }
            }
            assert_eq!(
                r.tainted, undefined,
                "{mcpu} dims {dims}: exactly the VGPRs the dispatch did not write are undefined"
            );
        }
    }
}

/// The scratch setup SGPRs exist (the kernarg pointer lands after them) but
/// their values are the runtime's: a result computed from one is unsettled.
#[test]
fn scratch_setup_sgprs_are_placed_and_unsettled() {
    let scratch = common::scratch("emu_gfx9_psb");
    let tc = toolchain_for("gfx90a", &scratch).unwrap();
    let body = "  v_mov_b32 v6, s20\n  global_store_dword v7, v6, s[10:11]\n  v_mov_b32 v6, s21\n  global_store_dword v7, v6, s[10:11] offset:4\n  v_mov_b32 v6, s22\n  global_store_dword v7, v6, s[10:11] offset:8\n";
    // s[0:3] buffer, s[4:5] kernarg (moved to s[0:1] for the frame), s[6:7]
    // flat scratch init; workgroup id x in s8, the wave offset in s9.
    let source = kernel_source("gfx90a", body, 3, 0, false)
        .replace("  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n", "  .amdhsa_user_sgpr_private_segment_buffer 1\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_user_sgpr_flat_scratch_init 1\n  .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n  .amdhsa_next_free_sgpr 24\n")
        .replace("  .amdhsa_next_free_sgpr 16\n", "")
        .replace("k:\n  s_load_dwordx8", "k:\n  s_mov_b32 s20, s0\n  s_mov_b32 s21, s8\n  s_mov_b32 s22, s9\n  s_mov_b64 s[0:1], s[4:5]\n  s_mov_b32 s2, s8\n  s_load_dwordx8");
    let image = assemble(&tc, "gfx90a", &source, &scratch, "psb");
    let r = launch("gfx90a", &image, 2, [256, 1, 1], 3, 0x95b);
    for i in 0..r.out.len() / 3 {
        assert_eq!(
            r.out[3 * i + 1],
            (i / 256) as u32,
            "lane {i}: the workgroup id in s8"
        );
    }
    let want: Vec<(usize, Taint)> = (0..r.out.len() / 3)
        .flat_map(|i| [(3 * i, Taint::Unsettled), (3 * i + 2, Taint::Unsettled)])
        .collect();
    assert_eq!(
        r.tainted, want,
        "the private segment buffer and wave offset values are not modelled: unsettled, not a pass"
    );
}

/// `user_ids`: a 3-D workgroup (8 x 4 x 2) in a 3 x 2 grid reads y from v1
/// and z from v2 (gfx10 does not pack them into v0) and workgroup ids x, y
/// from s6, s7: every work-item's word is its own ids, all defined.
#[test]
fn work_item_ids_arrive_in_v0_v1_v2() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let (gx, gy) = (3u32, 2u32);
    let mut want = vec![0u32; (gx * gy * 64) as usize];
    for (wg_y, wg_x, z, y, x) in itertools_free_product(gy, gx) {
        want[(((wg_y * gx + wg_x) * 64) + z * 32 + y * 8 + x) as usize] =
            x + 16 * y + 256 * z + 4096 * wg_x + 65536 * wg_y;
    }
    for mcpu in ["gfx1010", "gfx1030"] {
        for wave64 in [false, true] {
            let image = compile_ir(&tc, mcpu, wave64, scratch.path());
            let kd = CodeObject::parse(&image)
                .expect("parse")
                .kernel("user_ids")
                .expect("user_ids")
                .descriptor;
            assert_eq!(
                kd.workitem_id_dims(),
                2,
                "{mcpu}: the kernel asks for x, y and z"
            );
            let mut dev = EmuDevice::for_target(t(mcpu));
            let out = dev.alloc(4 * want.len()).expect("alloc");
            let mut args = out.to_le_bytes().to_vec();
            args.extend_from_slice(&gx.to_le_bytes());
            launch_user(
                &mut dev,
                &image,
                "user_ids",
                &args,
                Dispatch {
                    grid_blocks: [gx, gy, 1],
                    block: [8, 4, 2],
                },
            );
            let (got, tainted) = read_out(&mut dev, out, want.len());
            assert!(
                tainted.is_empty(),
                "{mcpu} wave64={wave64}: tainted words {tainted:?}"
            );
            let first = (0..want.len()).find(|&i| got[i] != want[i]);
            assert_eq!(
                first,
                None,
                "{mcpu} wave64={wave64}: word {first:?}: got {:#x?}",
                first.map(|i| (got[i], want[i]))
            );
        }
    }
}

/// Every (workgroup y, workgroup x, z, y, x) of the `user_ids` dispatch.
fn itertools_free_product(gy: u32, gx: u32) -> impl Iterator<Item = (u32, u32, u32, u32, u32)> {
    (0..gy).flat_map(move |wy| {
        (0..gx).flat_map(move |wx| {
            (0..2)
                .flat_map(move |z| (0..4).flat_map(move |y| (0..8).map(move |x| (wy, wx, z, y, x))))
        })
    })
}

// ---- the scratch SGPRs: placed, but their values are not the emulator's to give ----

/// The scratch SGPRs shift every later SGPR to where gfx10 puts it (the
/// workgroup id is read from s8 and is right, and defined), while the words
/// computed from them are unsettled: the emulator has no scratch to describe.
#[test]
fn scratch_sgprs_are_placed_and_unsettled() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let image = test_kernel(
        &tc,
        "scratch_sgprs.s",
        "gfx1030",
        false,
        false,
        scratch.path(),
    );
    let kd = CodeObject::parse(&image)
        .expect("parse")
        .kernel("k")
        .expect("k")
        .descriptor;
    assert_eq!(
        (kd.user_sgpr_count(), kd.private_segment_enabled()),
        (8, true),
        "{kd:?}"
    );
    let mut dev = EmuDevice::for_target(t("gfx1030"));
    let lanes = 2 * 64;
    let out = dev.alloc(16 * lanes).expect("alloc");
    let mut args = vec![0u8; 24];
    args.extend_from_slice(&out.to_le_bytes());
    launch_user(
        &mut dev,
        &image,
        "k",
        &args,
        Dispatch {
            grid_blocks: [2, 1, 1],
            block: [64, 1, 1],
        },
    );
    let mut bytes = vec![0u8; 16 * lanes];
    dev.read(out, &mut bytes).expect("read");
    let words: Vec<u32> = bytemuck::cast_slice(&bytes).to_vec();
    let definedness = dev.definedness(out, 4 * lanes).expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "stopped waves {:?}",
        definedness.waves
    );
    let tainted: Vec<(usize, Taint)> = definedness
        .words
        .iter()
        .map(|w| (w.word, w.taint))
        .collect();
    let want: Vec<(usize, Taint)> = (0..4 * lanes)
        .filter(|w| w % 4 != 0)
        .map(|w| (w, Taint::Unsettled))
        .collect();
    assert_eq!(
        tainted, want,
        "words 1-3 of each lane unsettled, word 0 defined"
    );
    assert!(
        (0..lanes).all(|i| words[4 * i] == i as u32),
        "workgroup id from s8: {:?}",
        &words[..8]
    );
}
