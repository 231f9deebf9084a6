//! Kernels LLVM's own code generator made (llc, clang -O2 on IR), run on the emulator and exact
//! against a CPU reference: gfx908/gfx90a (private segment buffer, dispatch ptr and dispatch id
//! user SGPRs before the kernarg pointer) and gfx942; gfx10's initial-state layout
//! (tests/kernels/emu/gfx10/llvm); gfx940's `v_lshl_add_u64` addressing
//! (tests/kernels/emu/gfx10/llvm/user_kernels.ll for gfx942 with LLVM 19 and gfx950 with LLVM 22,
//! skipped with a note when absent), with one shift amount changed caught (a fault or wrong
//! words, never a pass), and llvm-objdump and the decoder agreeing on the compiled code.

use crate::common;
use crate::common::compile;
use crate::common::scratch;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xad_harness::isa::{decode_one_for, Isa};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::{self};

// ---- a kernel from LLVM's code generator ----
const IR: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %out) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %idx = zext i32 %i to i64
  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %idx
  %pb = getelementptr i32, ptr addrspace(1) %b, i64 %idx
  %pc = getelementptr i32, ptr addrspace(1) %c, i64 %idx
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  %va = load i32, ptr addrspace(1) %pa
  %vb = load i32, ptr addrspace(1) %pb
  %vc = load i32, ptr addrspace(1) %pc
  %x = xor i32 %va, %vb
  %r = add i32 %x, %vc
  store i32 %r, ptr addrspace(1) %po
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="256,256" }
"#;

/// `llc -mcpu=<mcpu>` output for [`IR`], with the enables it chose.
fn llc(mcpu: &str, dir: &Path) -> Option<String> {
    let llc = Path::new("/usr/lib/llvm-19/bin/llc");
    if !llc.is_file() {
        println!(
            "note: {} not found: the code generator's kernel is not tested",
            llc.display()
        );
        return None;
    }
    std::fs::create_dir_all(dir).unwrap();
    let ir = dir.join("k.ll");
    std::fs::write(&ir, IR).unwrap();
    let out = Command::new(llc)
        .arg(format!("-mcpu={mcpu}"))
        .arg(&ir)
        .arg("-o")
        .arg("-")
        .output()
        .expect("run llc");
    assert!(
        out.status.success(),
        "llc {mcpu}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// gfx908, gfx90a and gfx942 (whose addresses LLVM computes with gfx940's
/// `v_lshl_add_u64`, below): exact.
#[test]
fn a_kernel_from_llvms_code_generator_runs_exactly() {
    let scratch = common::scratch("emu_gfx9_llc");
    for (mcpu, psb) in [("gfx908", true), ("gfx90a", true), ("gfx942", false)] {
        let Some(asm) = llc(mcpu, &scratch.join(mcpu)) else {
            return;
        };
        assert!(
            asm.contains("v_xad_u32"),
            "{mcpu}: LLVM selects v_xad_u32 for (a ^ b) + c"
        );
        let enabled = asm.contains(".amdhsa_user_sgpr_private_segment_buffer 1");
        assert_eq!(
            enabled, psb,
            "{mcpu}: private segment buffer enabled by LLVM 19"
        );
        let tc = toolchain_for(mcpu, &scratch).unwrap();
        let image = assemble(&tc, mcpu, &asm, &scratch.join(mcpu), "llc");
        for seed in [0x11c_0001u64, 0x11c_0002] {
            let r = launch(mcpu, &image, 3, [256, 1, 1], 1, seed);
            assert!(r.tainted.is_empty(), "{mcpu}: {:?}", r.tainted.first());
            for i in 0..r.out.len() {
                let want = (r.a[i] ^ r.b[i]).wrapping_add(r.c[i]);
                assert_eq!(r.out[i], want, "{mcpu} (emulated) seed {seed:#x} lane {i}");
            }
        }
    }
}

/// `user_xad` (LLVM's own code: private segment buffer in s[0:3], kernarg
/// pointer in s[4:5], workgroup id x in s6, a branch around the body for
/// lanes >= count) on gfx1010 and gfx1030 in wave32 and wave64: every lane
/// below count exact, every word past it untouched.
#[test]
fn llvm_compiled_xad_kernel_runs_exactly() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    let (n, spare) = (1000usize, 40usize);
    for (mcpu, seed) in [("gfx1010", 0x10_1011u64), ("gfx1030", 0x10_3031)] {
        for wave64 in [false, true] {
            let image = compile_ir(&tc, mcpu, wave64, scratch.path());
            let kd = CodeObject::parse(&image)
                .expect("parse")
                .kernel("user_xad")
                .expect("user_xad")
                .descriptor;
            assert!(
                kd.private_segment_buffer() && kd.user_sgpr_count() == 6,
                "{mcpu}: LLVM's gfx10 layout changed: {kd:?}"
            );
            assert_eq!(kd.wave_size(), if wave64 { 64 } else { 32 });
            let mut dev = EmuDevice::for_target(t(mcpu));
            let [a, b, c] = inputs(n, seed);
            let bufs: Vec<u64> = [n, n, n, n + spare]
                .iter()
                .map(|&len| dev.alloc(4 * len).expect("alloc"))
                .collect();
            for (p, v) in bufs.iter().zip([&a, &b, &c]) {
                dev.write(*p, &bytes(v)).expect("write");
            }
            dev.write(bufs[3], &bytes(&vec![0x5a5a_5a5a; n + spare]))
                .expect("poison out");
            let mut args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
            args.extend_from_slice(&(n as u32).to_le_bytes());
            launch_user(
                &mut dev,
                &image,
                "user_xad",
                &args,
                Dispatch {
                    grid_blocks: [n.div_ceil(256) as u32, 1, 1],
                    block: [256, 1, 1],
                },
            );
            let (out, tainted) = read_out(&mut dev, bufs[3], n);
            assert!(
                tainted.is_empty(),
                "{mcpu} wave64={wave64}: tainted words {tainted:?}"
            );
            let wrong: Vec<String> = (0..n)
                .filter(|&i| out[i] != (a[i] ^ b[i]).wrapping_add(c[i]))
                .map(|i| format!("seed {seed:#x} lane {i}: got 0x{:08x}", out[i]))
                .collect();
            assert!(
                wrong.is_empty(),
                "{mcpu} wave64={wave64}: {} wrong, first {:?}",
                wrong.len(),
                wrong.first()
            );
            let mut rest = vec![0u8; 4 * spare];
            dev.read(bufs[3] + 4 * n as u64, &mut rest).expect("read");
            assert!(
                rest.iter().all(|&x| x == 0x5a),
                "{mcpu} wave64={wave64}: a lane >= count wrote"
            );
        }
    }
}

fn user_kernels() -> PathBuf {
    Path::new(ROOT).join("tests/kernels/emu/gfx10/llvm/user_kernels.ll")
}

fn words(raw: &[u8]) -> Vec<u32> {
    raw.chunks_exact(4)
        .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
        .collect()
}

/// Kernel `name`'s kernarg segment: `args` then zeros up to the metadata's size.
fn kernarg(
    dev: &EmuDevice,
    module: xad_harness::platform::device::ModuleId,
    name: &str,
    args: &[u8],
) -> Vec<u8> {
    let size = dev
        .kernels(module)
        .and_then(|k| k.iter().find(|k| k.name == name))
        .and_then(|k| k.meta.as_ref())
        .map_or(args.len(), |m| m.kernarg_segment_size as usize);
    let mut k = args.to_vec();
    k.resize(size.max(args.len()), 0);
    k
}

/// `user_xad` over `n` lanes (partial last workgroup): the output words, or
/// the launch's error.
fn run_xad(mcpu: &str, image: &[u8], n: usize, seed: u64) -> Result<(Vec<u32>, Vec<u32>), String> {
    let mut dev = EmuDevice::for_target(target::find(mcpu).unwrap());
    let module = dev.load(image).map_err(|e| e.to_string())?;
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    };
    let (a, b, c): (Vec<u32>, Vec<u32>, Vec<u32>) = (
        (0..n).map(|_| next()).collect(),
        (0..n).map(|_| next()).collect(),
        (0..n).map(|_| next()).collect(),
    );
    let want: Vec<u32> = (0..n).map(|i| (a[i] ^ b[i]).wrapping_add(c[i])).collect();
    let bufs: Vec<u64> = (0..4).map(|_| dev.alloc(n * 4).unwrap()).collect();
    for (p, v) in bufs.iter().zip([&a, &b, &c]) {
        dev.write(*p, &bytes(v)).unwrap();
    }
    let mut args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    args.extend_from_slice(&(n as u32).to_le_bytes());
    let k = kernarg(&dev, module, "user_xad", &args);
    let dispatch = Dispatch {
        grid_blocks: [n.div_ceil(256) as u32, 1, 1],
        block: [256, 1, 1],
    };
    dev.launch(module, "user_xad", &k, dispatch, Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    let mut raw = vec![0u8; n * 4];
    dev.read(bufs[3], &mut raw).unwrap();
    let d = dev.definedness(bufs[3], n).unwrap();
    assert!(
        d.words.is_empty() && d.waves.is_empty(),
        "{mcpu}: unsettled words"
    );
    Ok((words(&raw), want))
}

/// `user_ids` on a 3 x 2 grid of 8 x 4 x 2 workgroups: (got, want).
fn run_ids(mcpu: &str, image: &[u8]) -> Result<(Vec<u32>, Vec<u32>), String> {
    let (gx, gy) = (3u32, 2u32);
    let mut want = vec![0u32; (gx * gy * 64) as usize];
    for (wy, wx, z, y, x) in itertools(gx, gy) {
        want[(((wy * gx + wx) * 64) + z * 32 + y * 8 + x) as usize] =
            x + 16 * y + 256 * z + 4096 * wx + 65536 * wy;
    }
    let mut dev = EmuDevice::for_target(target::find(mcpu).unwrap());
    let module = dev.load(image).map_err(|e| e.to_string())?;
    let out = dev.alloc(4 * want.len()).unwrap();
    dev.write(out, &vec![0xA5; 4 * want.len()]).unwrap();
    let mut args = out.to_le_bytes().to_vec();
    args.extend_from_slice(&gx.to_le_bytes());
    let k = kernarg(&dev, module, "user_ids", &args);
    let dispatch = Dispatch {
        grid_blocks: [gx, gy, 1],
        block: [8, 4, 2],
    };
    dev.launch(module, "user_ids", &k, dispatch, Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    let mut raw = vec![0u8; 4 * want.len()];
    dev.read(out, &mut raw).unwrap();
    Ok((words(&raw), want))
}

/// Every (workgroup y, workgroup x, z, y, x) of `user_ids`' launch.
fn itertools(gx: u32, gy: u32) -> Vec<(u32, u32, u32, u32, u32)> {
    let mut v = Vec::new();
    for wy in 0..gy {
        for wx in 0..gx {
            for z in 0..2 {
                for y in 0..4 {
                    for x in 0..8 {
                        v.push((wy, wx, z, y, x));
                    }
                }
            }
        }
    }
    v
}

#[test]
fn llvm_compiled_gfx942_and_gfx950_kernels_run_exactly() {
    let dir = scratch("emu_gfx940_lshl_llvm");
    for mcpu in ["gfx942", "gfx950"] {
        let Some((image, asm)) = compile(&user_kernels(), mcpu, &dir.join(mcpu)) else {
            continue;
        };
        assert!(
            asm.contains("v_lshl_add_u64") && asm.contains(", 2, s["),
            "{mcpu}: LLVM addresses memory with v_lshl_add_u64 (shift 0 and 2)"
        );
        for (n, seed) in [(256 * 3, 0x1a_0001u64), (1000, 0x1a_0002)] {
            let (got, want) = run_xad(mcpu, &image, n, seed).unwrap_or_else(|e| panic!("{e}"));
            let first = (0..n).find(|&i| got[i] != want[i]);
            assert_eq!(first, None, "{mcpu} (emulated) user_xad seed {seed:#x}");
        }
        let (got, want) = run_ids(mcpu, &image).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got, want, "{mcpu} (emulated) user_ids");
    }
}

/// Negative control: change the shift amount of `user_ids`' store address
/// (`v_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]`) to 1 or 3 in the code
/// object: the run faults or writes wrong words; it never passes.
#[test]
fn a_wrong_shift_amount_is_caught() {
    let dir = scratch("emu_gfx940_lshl_wrong");
    let Some((image, _)) = compile(&user_kernels(), "gfx942", &dir) else {
        return;
    };
    // dword0 D208xxxx, dword1 with src1 = inline 2 (code 0x82 in bits 17:9).
    let at: Vec<usize> = (0..image.len().saturating_sub(8))
        .step_by(4)
        .filter(|&i| {
            let w0 = u32::from_le_bytes(image[i..i + 4].try_into().unwrap());
            let w1 = u32::from_le_bytes(image[i + 4..i + 8].try_into().unwrap());
            w0 >> 16 == 0xD208 && (w1 >> 9) & 0x1ff == 0x82
        })
        .collect();
    assert_eq!(at.len(), 1, "one shift-2 v_lshl_add_u64 in the object");
    let (got, want) = run_ids("gfx942", &image).unwrap();
    assert_eq!(got, want, "the unedited object passes");
    for shift in [1u32, 3] {
        let mut wrong = image.clone();
        let i = at[0] + 4;
        let mut w1 = u32::from_le_bytes(wrong[i..i + 4].try_into().unwrap());
        w1 = (w1 & !(0x1ff << 9)) | (0x80 + shift) << 9;
        wrong[i..i + 4].copy_from_slice(&w1.to_le_bytes());
        match run_ids("gfx942", &wrong) {
            Err(e) => assert!(!e.contains('\n'), "one line: {e}"),
            Ok((got, want)) => assert_ne!(got, want, "shift {shift} must not pass"),
        }
    }
}

/// llvm-objdump-19 --mcpu=gfx942 and this decoder print every
/// `v_lshl_add_u64` of the compiled kernels alike.
#[test]
fn objdump_and_the_decoder_agree_on_compiled_code() {
    let dir = scratch("emu_gfx940_lshl_objdump");
    let Some((image, _)) = compile(&user_kernels(), "gfx942", &dir) else {
        return;
    };
    let hsaco = dir.join("gfx942.hsaco");
    let Ok(out) = Command::new("llvm-objdump-19")
        .args(["-d", "--mcpu=gfx942"])
        .arg(&hsaco)
        .output()
    else {
        println!("note: llvm-objdump-19 not found: not compared");
        return;
    };
    assert!(!image.is_empty());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut seen = 0;
    for line in text.lines().filter(|l| l.contains("v_lshl_add_u64")) {
        let (asm, enc) = line.split_once("//").unwrap();
        let hex: Vec<u32> = enc
            .split_once(':')
            .unwrap()
            .1
            .split_whitespace()
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        let bytes: Vec<u8> = hex.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (inst, len) = decode_one_for(Isa::GFX940, &bytes).unwrap();
        assert_eq!((len, inst.to_string()), (8, asm.trim().to_string()));
        seen += 1;
    }
    assert!(seen >= 5, "{seen} v_lshl_add_u64 lines in\n{text}");
}
