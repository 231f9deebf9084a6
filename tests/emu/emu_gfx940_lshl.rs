//! gfx940's `v_lshl_add_u64` (LLVM's GFX940Insts: gfx940-gfx942, gfx950,
//! gfx9-4-generic) in the decoder and the emulator. Everything here is
//! emulated; no GPU is involved.
//!
//! - llvm-mc-19 -mcpu=gfx942 encodings (VGPR and SGPR pairs, VGPR/SGPR/inline
//!   shift amounts, inline integer and float src2) decode on gfx942 and print
//!   back as LLVM prints them; with llvm-mc-19 installed the rows are
//!   re-measured. gfx908/gfx90a/gfx9-generic refuse the same bytes.
//! - LLVM's own code generator (clang -nogpulib -O2) compiles
//!   tests/kernels/emu/gfx10/llvm/user_kernels.ll for gfx942 (LLVM 19) and
//!   gfx950 (LLVM 22, skipped with a note when absent); both kernels address
//!   memory with `v_lshl_add_u64` (shift 0 with an SGPR-pair base, shift 2
//!   with an SGPR-pair src2) and run exactly against a CPU reference.
//! - Negative control: the same code object with one shift amount changed is
//!   caught (a fault or wrong words, never a pass).
//! - The CLI runs a compiled gfx942 kernel through `--kernel` as basic_w64.

use crate::common::{harness, run, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xad_harness::isa::{decode_one_for, gfx9, Isa, Op};
use xad_harness::platform::codeobj::KernelDescriptor;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The assembly the rows below were measured from (llvm-mc-19 -triple=amdgcn
/// -mcpu=gfx942 -show-encoding, LLVM 19.1.7).
const SOURCE: &str = "v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], v6, v[0:1]\nv_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], 1, s[6:7]\nv_lshl_add_u64 v[2:3], v[4:5], 3, v[0:1]\nv_lshl_add_u64 v[10:11], v[254:255], 4, v[8:9]\nv_lshl_add_u64 v[2:3], v[4:5], 2, 5\nv_lshl_add_u64 v[2:3], v[4:5], 3, -1\nv_lshl_add_u64 v[2:3], v[4:5], 2, 1.0\nv_lshl_add_u64 v[2:3], 1, v6, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], s6, v[0:1]\nv_lshl_add_u64 v[2:3], vcc, 1, v[0:1]\nv_lshl_add_u64 v[2:3], v[4:5], 7, exec\n";

/// LLVM's canonical text and bytes for each line of [`SOURCE`].
const ROWS: &[(&str, &[u8])] = &[
    (
        "v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x00, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], v6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0d, 0x02, 0x04],
    ),
    (
        "v_lshl_add_u64 v[0:1], v[0:1], 2, s[0:1]",
        &[0x00, 0x00, 0x08, 0xd2, 0x00, 0x05, 0x01, 0x00],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 1, s[6:7]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x03, 0x19, 0x00],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 3, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x07, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[10:11], v[254:255], 4, v[8:9]",
        &[0x0a, 0x00, 0x08, 0xd2, 0xfe, 0x09, 0x21, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 2, 5",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x05, 0x15, 0x02],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 3, -1",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x07, 0x05, 0x03],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 2, 1.0",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x05, 0xc9, 0x03],
    ),
    (
        "v_lshl_add_u64 v[2:3], 1, v6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x81, 0x0c, 0x02, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], s6, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0d, 0x00, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], vcc, 1, v[0:1]",
        &[0x02, 0x00, 0x08, 0xd2, 0x6a, 0x02, 0x01, 0x04],
    ),
    (
        "v_lshl_add_u64 v[2:3], v[4:5], 7, exec",
        &[0x02, 0x00, 0x08, 0xd2, 0x04, 0x0f, 0xf9, 0x01],
    ),
];

/// llvm-mc-19's rows for `source` on `mcpu`, `None` when it is not installed.
fn llvm_mc(mcpu: &str, source: &str) -> Option<Vec<(String, Vec<u8>)>> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("llvm-mc-19")
        .args(["-triple=amdgcn", &format!("-mcpu={mcpu}"), "-show-encoding"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(source.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once("; encoding: ["))
        .map(|(text, enc)| {
            let bytes = enc
                .trim_end_matches(']')
                .split(',')
                .map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap_or(0))
                .collect();
            (text.trim().to_string(), bytes)
        })
        .collect();
    Some(rows)
}

#[test]
fn gfx942_encodings_decode_and_print_back() {
    for (text, bytes) in ROWS {
        let (inst, len) =
            decode_one_for(Isa::GFX940, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(inst.op, Op::VLshlAddU64, "{text}");
        assert_eq!((len, inst.to_string()), (8, text.to_string()));
    }
    // Every gfx940 target decodes it; the op's gfx9 number is 520 (0x208).
    for name in ["gfx942", "gfx950", "gfx9-4-generic"] {
        let isa = target::find(name).unwrap().isa;
        assert!(decode_one_for(isa, ROWS[0].1).is_ok(), "{name}");
    }
    assert_eq!(
        gfx9::opcode(Op::VLshlAddU64),
        Some((xad_harness::isa::Format::Vop3, 0x208))
    );
    match llvm_mc("gfx942", SOURCE) {
        None => println!("note: llvm-mc-19 not found: the rows are not re-measured"),
        Some(rows) => {
            let want: Vec<(String, Vec<u8>)> = ROWS
                .iter()
                .map(|(t, b)| (t.to_string(), b.to_vec()))
                .collect();
            assert_eq!(rows, want, "llvm-mc-19 -mcpu=gfx942 re-measured");
            // gfx90a's assembler refuses every line: not an instruction there.
            assert_eq!(llvm_mc("gfx90a", SOURCE), Some(vec![]));
        }
    }
}

/// On gfx908, gfx90a and gfx9-generic the bytes are not an instruction: a
/// one-line decode error naming the op and where it exists.
#[test]
fn targets_without_gfx940_insts_refuse_it() {
    for name in ["gfx908", "gfx90a", "gfx9-generic"] {
        let isa = target::find(name).unwrap().isa;
        for (text, bytes) in ROWS {
            let err = decode_one_for(isa, bytes).unwrap_err().to_string();
            assert!(
                err.contains("v_lshl_add_u64") && err.contains("gfx940+") && !err.contains('\n'),
                "{name} {text}: {err}"
            );
        }
    }
    // Through the emulator: a gfx90a device faults with one line.
    let mut dev = EmuDevice::for_target(target::find("gfx90a").unwrap());
    let mut code = ROWS[4].1.to_vec();
    code.extend_from_slice(&0xBF81_0000u32.to_le_bytes());
    let kd = KernelDescriptor {
        rsrc2: 2 << 1 | 1 << 7,
        code_properties: 1 << 3,
        ..Default::default()
    };
    let m = dev.load_code("lshl", &code, kd);
    let err = dev
        .launch(m, "lshl", &[0u8; 8], one_wave(), Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("v_lshl_add_u64") && err.contains("gfx940+") && !err.contains('\n'),
        "{err}"
    );
}

fn one_wave() -> Dispatch {
    Dispatch {
        grid_blocks: [1, 1, 1],
        block: [64, 1, 1],
    }
}

/// clang and ld.lld of the LLVM that knows `mcpu` (19 for gfx942, 22 for
/// gfx950); `None` with a printed note when absent.
fn llvm_for(mcpu: &str) -> Option<(PathBuf, PathBuf)> {
    let bin = if mcpu == "gfx950" {
        "/usr/lib/llvm-22/bin"
    } else {
        "/usr/lib/llvm-19/bin"
    };
    let (clang, lld) = (Path::new(bin).join("clang"), Path::new(bin).join("ld.lld"));
    if clang.is_file() && lld.is_file() {
        Some((clang, lld))
    } else {
        println!("note: {bin} not found: {mcpu} skipped");
        None
    }
}

/// Compile LLVM IR at `ll` for `mcpu` with clang -nogpulib -O2 into a code
/// object (the way a user builds one), also returning its assembly.
fn compile(ll: &Path, mcpu: &str, dir: &Path) -> Option<(Vec<u8>, String)> {
    let (clang, lld) = llvm_for(mcpu)?;
    std::fs::create_dir_all(dir).unwrap();
    let (obj, hsaco, asm) = (
        dir.join(format!("{mcpu}.o")),
        dir.join(format!("{mcpu}.hsaco")),
        dir.join(format!("{mcpu}.s")),
    );
    let cc = |extra: &[&str], out: &Path| {
        let st = Command::new(&clang)
            .args(["--target=amdgcn-amd-amdhsa", "-nogpulib", "-O2"])
            .arg(format!("-mcpu={mcpu}"))
            .args(extra)
            .arg(ll)
            .arg("-o")
            .arg(out)
            .status()
            .expect("run clang");
        assert!(st.success(), "clang {mcpu} {}", ll.display());
    };
    cc(&["-c"], &obj);
    cc(&["-S"], &asm);
    let st = Command::new(&lld)
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&hsaco)
        .status()
        .expect("run ld.lld");
    assert!(st.success(), "ld.lld {mcpu}");
    Some((
        std::fs::read(&hsaco).unwrap(),
        std::fs::read_to_string(&asm).unwrap(),
    ))
}

fn user_kernels() -> PathBuf {
    Path::new(ROOT).join("tests/kernels/emu/gfx10/llvm/user_kernels.ll")
}

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
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

/// A single-kernel version of `user_xad` whose ABI is basic_w64's (a, b, c,
/// out, count; wave64), for the CLI.
const BASIC_W64_IR: &str = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @xad_w64(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                                   ptr addrspace(1) %out, i32 %count) #0 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %count
  br i1 %in, label %body, label %done
body:
  %pa = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr i32, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr i32, ptr addrspace(1) %c, i32 %i
  %va = load i32, ptr addrspace(1) %pa
  %vb = load i32, ptr addrspace(1) %pb
  %vc = load i32, ptr addrspace(1) %pc
  %x = xor i32 %va, %vb
  %r = add i32 %x, %vc
  %po = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %r, ptr addrspace(1) %po
  br label %done
done:
  ret void
}
attributes #0 = { "amdgpu-flat-work-group-size"="256,256" "amdgpu-no-implicitarg-ptr" }
"#;

#[test]
fn the_cli_runs_a_compiled_gfx942_kernel_as_basic_w64() {
    let dir = scratch("emu_gfx940_lshl_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("xad_w64.ll");
    std::fs::write(&ll, BASIC_W64_IR).unwrap();
    let Some((image, asm)) = compile(&ll, "gfx942", &dir) else {
        return;
    };
    assert!(asm.contains("v_lshl_add_u64"), "{asm}");
    let hsaco = dir.join("xad_w64.hsaco");
    std::fs::write(&hsaco, &image).unwrap();
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic_w64",
            "--lanes",
            "3000",
        ])
        .args(["--seed", "5", "--kernel"])
        .arg(&hsaco));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("PASS          basic_w64") && r.stdout.contains("[emulated gfx942]"),
        "{}",
        r.stdout
    );
    assert!(!r.all().contains("hardware:"), "{}", r.all());
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
