//! Helpers of the emulator's tests: the target rows, the LLVM that assembles each processor,
//! hand-written kernels of the basic case's ABI (a gfx9 one with seeded inputs, gfx10 ones from
//! tests/kernels/emu/gfx10), LLVM-compiled IR, and launching them on `EmuDevice`.

use rand::{Rng, SeedableRng};
use std::path::Path;
use std::time::Duration;
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::device::{Device, Dispatch, Taint};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target::{self, Target};
use xad_harness::platform::toolchain::{self, Toolchain};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

pub const LLVM22: &str = "/usr/lib/llvm-22/bin";

pub fn t(name: &str) -> &'static Target {
    target::find(name).unwrap_or_else(|| panic!("no target row {name}"))
}

/// The LLVM that assembles `mcpu`: LLVM 19 (proved by the toolchain's
/// canary) for most, LLVM 22 for gfx950 and gfx9-4-generic (clang 19 refuses
/// that target ID); `None` (with a printed
/// note) when LLVM 22 is absent.
pub fn toolchain_for(mcpu: &str, scratch: &Path) -> Option<Toolchain> {
    if !matches!(mcpu, "gfx950" | "gfx9-4-generic") {
        return Some(
            toolchain::discover("gfx1100", scratch)
                .expect("an LLVM that assembles gfx1100 (the canary)"),
        );
    }
    let bin = Path::new(LLVM22);
    let (clang, lld) = (bin.join("clang"), bin.join("ld.lld"));
    if !(clang.is_file() && lld.is_file()) {
        println!("note: {LLVM22} not found: {mcpu} skipped (clang 19 does not know it)");
        return None;
    }
    Some(Toolchain {
        clang,
        lld,
        objdump: None,
        origin: LLVM22.into(),
        runtime: toolchain::built_for_runtime(),
    })
}

/// Assemble `source` (a complete file) for `mcpu` into `dir`.
pub fn assemble(tc: &Toolchain, mcpu: &str, source: &str, dir: &Path, stem: &str) -> Vec<u8> {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("{stem}.hsaco"));
    tc.build_code_object(mcpu, &src, &out, &[dir])
        .unwrap_or_else(|e| panic!("{mcpu} {stem}: {e}"));
    std::fs::read(&out).unwrap()
}

/// Lane in the wave (0-63) into v1.
pub const MBCNT: &str = "  v_mbcnt_lo_u32_b32 v1, -1, 0\n  v_mbcnt_hi_u32_b32 v1, -1, v1";

/// A one-kernel gfx9 source: kernarg a, b, c, out; each lane i loads a[i],
/// b[i], c[i] into v2, v3, v4 and has v7 = its first output byte offset;
/// `body` follows; `ids` = ENABLE_VGPR_WORKITEM_ID (v0 is kept; v1 and v2
/// are not). Workgroups of 256 lanes in x, or (`one_wave`) of one wave of
/// any shape, the lane then counted by v_mbcnt.
pub fn kernel_source(mcpu: &str, body: &str, words: usize, ids: u32, one_wave: bool) -> String {
    let accum = if t(mcpu).has(xad_harness::platform::target::Feature::PackedWorkItemIds) {
        "  .amdhsa_accum_offset 16"
    } else {
        ""
    };
    format!(
        r#"{include}
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
{lane}
  s_lshl_b32 s12, s2, {shift}               // first lane of the group
  v_add_u32 v1, s12, v1                     // global lane i
  v_lshlrev_b32 v8, 2, v1                   // 4 i
  v_mul_u32_u24 v7, {words4}, v1            // 4 * words * i
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v8, s[4:5]
  global_load_dword v3, v8, s[6:7]
  global_load_dword v4, v8, s[8:9]
  s_waitcnt vmcnt(0)
{body}  s_endpgm
.Lk_end:
.size k, .Lk_end - k

.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_vgpr_workitem_id {ids}
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_kernarg_size 32
{accum}
.end_amdhsa_kernel

.macro K_META target, minor, unused:vararg
.amdgpu_metadata
---
amdhsa.version: [ 1, \minor ]
amdhsa.target: \target
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 32
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 16
    .max_flat_workgroup_size: 256
    .args:
      - {{ .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: b, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: out, .offset: 24, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }}
...
.end_amdgpu_metadata
.endm
XAD_TARGETED K_META
"#,
        include = toolchain::target_include(mcpu),
        words4 = 4 * words,
        lane = if one_wave {
            MBCNT
        } else {
            "  v_and_b32 v1, 0xff, v0                   // x: 1-D groups"
        },
        shift = if one_wave { 6 } else { 8 },
    )
}

/// A launch's outcome: the input rows, the output words, and the output words
/// the emulator's shadow marks (word index, taint).
pub struct Ran {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub c: Vec<u32>,
    pub out: Vec<u32>,
    pub tainted: Vec<(usize, Taint)>,
}

/// Run kernel `k` of `image` on an emulated `device` over `groups`
/// workgroups of `block` with seeded inputs (`words` output words per lane).
pub fn launch(
    device: &str,
    image: &[u8],
    groups: u32,
    block: [u32; 3],
    words: usize,
    seed: u64,
) -> Ran {
    let mut dev = EmuDevice::for_target(t(device));
    let module = dev
        .load(image)
        .unwrap_or_else(|e| panic!("load on {device}: {e}"));
    let n = (groups * block[0] * block[1] * block[2]) as usize;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut row = || (0..n).map(|_| rng.random::<u32>()).collect::<Vec<u32>>();
    let (a, b, c) = (row(), row(), row());
    let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let bufs: Vec<u64> = [n, n, n, n * words]
        .iter()
        .map(|&len| dev.alloc(len * 4).unwrap())
        .collect();
    for (p, v) in bufs.iter().zip([&a, &b, &c]) {
        dev.write(*p, &bytes(v)).unwrap();
    }
    let mut kernarg: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    // Hidden arguments (a code generator's kernel lists them) stay 0: unused here.
    let size = dev
        .kernels(module)
        .and_then(|k| k[0].meta.as_ref())
        .map_or(32, |m| m.kernarg_segment_size as usize);
    kernarg.resize(size.max(32), 0);
    let dispatch = Dispatch {
        grid_blocks: [groups, 1, 1],
        block,
    };
    dev.launch(module, "k", &kernarg, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("launch on {device}, seed {seed:#x}: {e}"));
    let mut raw = vec![0u8; n * words * 4];
    dev.read(bufs[3], &mut raw).unwrap();
    let d = dev.definedness(bufs[3], n * words).unwrap();
    assert!(
        d.waves.is_empty(),
        "{device} seed {seed:#x}: stopped waves {:?}",
        d.waves
    );
    let out = raw
        .chunks_exact(4)
        .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
        .collect();
    Ran {
        a,
        b,
        c,
        out,
        tainted: d.words.iter().map(|w| (w.word, w.taint)).collect(),
    }
}

pub fn toolchain(dir: &Path) -> Toolchain {
    toolchain::discover("gfx1100", dir).expect("an LLVM that assembles gfx1100 (the canary)")
}

/// A hand-written test kernel of tests/kernels/emu/gfx10/kernels assembled
/// for `mcpu` with XAD_WAVE64 and XAD_WRONG set (the target's
/// `xad_target.inc` text prepended).
pub fn test_kernel(
    tc: &Toolchain,
    file: &str,
    mcpu: &str,
    wave64: bool,
    wrong: bool,
    dir: &Path,
) -> Vec<u8> {
    let kernels = Path::new(ROOT).join("tests/kernels/emu/gfx10/kernels");
    let body =
        std::fs::read_to_string(kernels.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let source = format!(
        "{}.set XAD_WAVE64, {}\n.set XAD_WRONG, {}\n{body}",
        toolchain::target_include(mcpu),
        u8::from(wave64),
        u8::from(wrong)
    );
    let stem = format!(
        "{}_{mcpu}_{}{}",
        file.trim_end_matches(".s"),
        if wave64 { 64 } else { 32 },
        if wrong { "_wrong" } else { "" }
    );
    std::fs::create_dir_all(dir).expect("scratch dir");
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).expect("write source");
    let out = dir.join(format!("{stem}.hsaco"));
    tc.build_code_object(mcpu, &src, &out, &[&kernels])
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    std::fs::read(&out).expect("code object")
}

/// Seeded inputs for `n` lanes: the first few are edge values.
pub fn inputs(n: usize, seed: u64) -> [Vec<u32>; 3] {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let edges = [0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    let mut gen = |i: usize| {
        if i < edges.len() {
            edges[i]
        } else {
            rng.random::<u32>()
        }
    };
    [
        (0..n).map(&mut gen).collect(),
        (0..n).map(&mut gen).collect(),
        (0..n).map(&mut gen).collect(),
    ]
}

pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Launch kernel `name` of `image` on `dev` with the explicit arguments
/// `args` (padded with zeros to the metadata's kernarg size).
pub fn launch_user(dev: &mut EmuDevice, image: &[u8], name: &str, args: &[u8], dispatch: Dispatch) {
    let code = CodeObject::parse(image).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut kernarg = args.to_vec();
    kernarg.resize(
        code.kernel(name).expect("kernel").meta.kernarg_segment_size as usize,
        0,
    );
    let module = dev
        .load(image)
        .unwrap_or_else(|e| panic!("{name}: load on {}: {e}", dev.target().name));
    dev.launch(module, name, &kernarg, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", dev.target().name));
}

/// The words of `out` (`words` long) and the indexes the shadow calls tainted.
pub fn read_out(dev: &mut EmuDevice, out: u64, words: usize) -> (Vec<u32>, Vec<usize>) {
    let mut bytes = vec![0u8; 4 * words];
    dev.read(out, &mut bytes).expect("read");
    let definedness = dev.definedness(out, words).expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "stopped waves {:?}",
        definedness.waves
    );
    (
        bytemuck::cast_slice(&bytes).to_vec(),
        definedness.words.iter().map(|w| w.word).collect(),
    )
}

// ---- kernels LLVM compiled (what a user's simple gfx10 kernel looks like) ----

/// tests/kernels/emu/gfx10/llvm/user_kernels.ll compiled by the project's
/// LLVM for `mcpu` (-O2, code object v5, wave64 with `-mwavefrontsize64`).
pub fn compile_ir(tc: &Toolchain, mcpu: &str, wave64: bool, dir: &Path) -> Vec<u8> {
    std::fs::create_dir_all(dir).expect("scratch dir");
    let src = Path::new(ROOT).join("tests/kernels/emu/gfx10/llvm/user_kernels.ll");
    let stem = format!("user_{mcpu}_{}", if wave64 { 64 } else { 32 });
    let (obj, out) = (
        dir.join(format!("{stem}.o")),
        dir.join(format!("{stem}.hsaco")),
    );
    let mut cmd = std::process::Command::new(&tc.clang);
    cmd.args([
        "--target=amdgcn-amd-amdhsa",
        &format!("-mcpu={mcpu}"),
        "-nogpulib",
        "-O2",
        "-mcode-object-version=5",
    ]);
    if wave64 {
        cmd.arg("-mwavefrontsize64");
    }
    let done = cmd
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run clang");
    assert!(
        done.status.success(),
        "{stem}: clang: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    tc.link(&obj, &out)
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    std::fs::read(&out).expect("code object")
}
