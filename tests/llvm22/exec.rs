//! CDNA5's VGPRs past v255 through the emulator: gfx1250 kernels assembled
//! here with llvm-mc-22 and ld.lld-22 (skipped with a printed reason when
//! LLVM 22 is absent), run on the emulated gfx1250 and compared word by word
//! with a CPU reference.
//!
//! - `v_xad_u32` with its destination, then src0, src1, src2, then all four
//!   in v256-v1023 (v773, v258, v515, v1023), in the VOP3, VOP3-DPP16
//!   (quad_perm:[1,0,3,2]) and VOP3-DPP8 (dpp8:[7,6,5,4,3,2,1,0]) forms. Each
//!   high source is a copy of the loaded value whose low twin (same 8 encoded
//!   bits) is then overwritten with 0, so reading the low register gives a
//!   wrong word, not the right one by accident; the high destination's low
//!   twin is poisoned the same way before the result is copied back.
//! - Negative controls: the setting before `v_xad_u32` with src0's bits
//!   cleared (the poisoned v2 is read: wrong words), and the setting of the
//!   copy back from the high destination naming an unwritten VGPR (the
//!   output is undefined, never a pass).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use xad_harness::platform::device::{Device, Dispatch};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target;

/// Lanes per launch: one 256-lane workgroup of eight waves (lockstep).
const LANES: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Vop3,
    Dpp16,
    Dpp8,
}

/// Which operands live past v255.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum High {
    Dst,
    Src0,
    Src1,
    Src2,
    All,
}

/// What the kernel does wrong, for the negative controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mistake {
    None,
    /// The setting before `v_xad_u32` leaves src0's bits 0.
    Src0BitsCleared,
    /// The copy back reads v517 (bits 9:8 = 2) instead of v773.
    CopyBackFromWrongRow,
}

// The high numbers and their encoded low 8 bits: a -> v258 (2), b -> v515
// (3), c -> v1023 (255), the result -> v773 (5).
const HI_SRC0: u8 = 1;
const HI_SRC1: u8 = 2;
const HI_SRC2: u8 = 3;
const HI_DST: u8 = 3;

/// The kernel body between the loads (a, b, c in v2, v3, v4) and the store
/// (of v6).
fn body(form: Form, high: High, mistake: Mistake) -> String {
    let has = |h: High| high == h || high == High::All;
    let mut s = String::new();
    let set = |s: &mut String, bits: u8| s.push_str(&format!("  s_set_vgpr_msb 0x{bits:02x}\n"));
    // Copy each high source up (vdst bits 7:6), then poison its low twin.
    let copies = [
        (High::Src0, HI_SRC0, "v2", "v2"),
        (High::Src1, HI_SRC1, "v3", "v3"),
        (High::Src2, HI_SRC2, "v255", "v4"),
    ];
    for (h, bits, low, from) in copies {
        if has(h) {
            set(&mut s, bits << 6);
            s.push_str(&format!("  v_mov_b32 {low}, {from}\n"));
        }
    }
    set(&mut s, 0);
    for (h, _, _, from) in copies {
        if has(h) {
            s.push_str(&format!("  v_mov_b32 {from}, 0\n"));
        }
    }
    let mut bits = 0u8;
    if has(High::Src0) && mistake != Mistake::Src0BitsCleared {
        bits |= HI_SRC0;
    }
    if has(High::Src1) {
        bits |= HI_SRC1 << 2;
    }
    if has(High::Src2) {
        bits |= HI_SRC2 << 4;
    }
    if has(High::Dst) {
        bits |= HI_DST << 6;
    }
    set(&mut s, bits);
    let dst = if has(High::Dst) { "v5" } else { "v6" };
    let src2 = if has(High::Src2) { "v255" } else { "v4" };
    let (mnemonic, control) = match form {
        Form::Vop3 => ("v_xad_u32", ""),
        Form::Dpp16 => (
            "v_xad_u32_e64_dpp",
            " quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
        ),
        Form::Dpp8 => ("v_xad_u32_e64_dpp", " dpp8:[7,6,5,4,3,2,1,0]"),
    };
    s.push_str(&format!("  {mnemonic} {dst}, v2, v3, {src2}{control}\n"));
    if has(High::Dst) {
        // Poison the destination's low twin v5, then v6 <- v773 (src0 bits
        // 1:0 = 3): a result left in v5 reads as 0.
        set(&mut s, 0);
        s.push_str("  v_mov_b32 v5, 0\n");
        let from = if mistake == Mistake::CopyBackFromWrongRow {
            2
        } else {
            HI_DST
        };
        set(&mut s, from);
        s.push_str("  v_mov_b32 v6, v5\n");
    }
    set(&mut s, 0);
    s
}

/// A whole gfx1250 kernel `msb_xad`: out[i] = v_xad_u32 of a, b, c through
/// [`body`] (one workgroup of 256 lanes, wave32, all 1024 VGPRs allocated).
fn source(body: &str) -> String {
    format!(
        r#".amdgcn_target "amdgcn-amd-amdhsa--gfx1250"
.text
.globl msb_xad
.p2align 8
.type msb_xad,@function
msb_xad:
  s_load_b256 s[4:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  s_lshl_b32 s13, ttmp9, 8
  v_add_nc_u32 v1, s13, v0
  v_lshlrev_b32 v1, 2, v1
  s_wait_kmcnt 0
  global_load_b32 v2, v1, s[4:5]
  global_load_b32 v3, v1, s[6:7]
  global_load_b32 v4, v1, s[8:9]
  s_wait_loadcnt 0
{body}  global_store_b32 v1, v6, s[10:11]
  s_endpgm
.Lend:
.size msb_xad, .Lend - msb_xad

.rodata
.p2align 6
.amdhsa_kernel msb_xad
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 1024
  .amdhsa_next_free_sgpr 15
  .amdhsa_wavefront_size32 1
  .amdhsa_kernarg_size 32
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx1250
amdhsa.kernels:
  - .name: msb_xad
    .symbol: msb_xad.kd
    .kernarg_segment_size: 32
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 15
    .vgpr_count: 1024
    .max_flat_workgroup_size: 256
    .reqd_workgroup_size: [ 256, 1, 1 ]
    .args:
      - {{ .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: b, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }}
      - {{ .name: out, .offset: 24, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }}
...
.end_amdgpu_metadata
"#
    )
}

/// LLVM 22's assembler and linker, or `None` with the reason printed.
fn llvm22() -> Option<(PathBuf, PathBuf)> {
    let bin = Path::new("/usr/lib/llvm-22/bin");
    let (mc, lld) = (bin.join("llvm-mc"), bin.join("ld.lld"));
    if mc.exists() && lld.exists() {
        Some((mc, lld))
    } else {
        eprintln!(
            "skipped: LLVM 22 (llvm-mc, ld.lld in {}) is not installed; it is the first to know gfx1250",
            bin.display()
        );
        None
    }
}

/// Assemble and link `source` for gfx1250 (code object v5, as the target row
/// builds processors) into `dir/stem.hsaco`.
fn build(source: &str, dir: &Path, stem: &str) -> Option<Vec<u8>> {
    let (mc, lld) = llvm22()?;
    let (src, obj, out) = (
        dir.join(format!("{stem}.s")),
        dir.join(format!("{stem}.o")),
        dir.join(format!("{stem}.hsaco")),
    );
    std::fs::write(&src, source).unwrap();
    let run = |cmd: &mut Command| {
        let o = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    run(Command::new(mc)
        .args([
            "-triple=amdgcn-amd-amdhsa",
            "-mcpu=gfx1250",
            "--amdhsa-code-object-version=5",
            "-filetype=obj",
            "-o",
        ])
        .arg(&obj)
        .arg(&src));
    run(Command::new(lld)
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&out));
    Some(std::fs::read(&out).unwrap())
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The lane whose src0 lane `i` reads under `form` (all lanes active).
fn src0_lane(form: Form, i: usize) -> usize {
    match form {
        Form::Vop3 => i,
        // quad_perm:[1,0,3,2]: lane 0 of each quad reads lane 1, and so on.
        Form::Dpp16 => i ^ 1,
        // dpp8:[7,6,5,4,3,2,1,0]: lane k of each group of 8 reads lane 7 - k.
        Form::Dpp8 => (i & !7) | (7 - (i & 7)),
    }
}

/// What one launch produced.
struct Outcome {
    got: Vec<u32>,
    want: Vec<u32>,
    /// Output words the emulator reports undefined or unsettled.
    tainted: usize,
    seed: u64,
}

/// Run `image` on the emulated gfx1250 with random a, b, c from `seed`.
fn launch(image: &[u8], form: Form, seed: u64) -> Outcome {
    let target = target::find("gfx1250").expect("gfx1250 has a target row");
    let mut dev = EmuDevice::for_target(target);
    let module = dev.load(image).unwrap_or_else(|e| panic!("load: {e}"));
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    };
    let inputs: Vec<Vec<u32>> = (0..3)
        .map(|_| (0..LANES).map(|_| next()).collect())
        .collect();
    let (a, b, c) = (&inputs[0], &inputs[1], &inputs[2]);
    let want = (0..LANES)
        .map(|i| (a[src0_lane(form, i)] ^ b[i]).wrapping_add(c[i]))
        .collect();
    let bufs: Vec<u64> = (0..4).map(|_| dev.alloc(LANES * 4).unwrap()).collect();
    for (p, v) in bufs.iter().zip(&inputs) {
        let raw: Vec<u8> = v.iter().flat_map(|w| w.to_le_bytes()).collect();
        dev.write(*p, &raw).unwrap();
    }
    // Poisoned output: a word the kernel never writes cannot pass.
    dev.write(bufs[3], &vec![0xA5; LANES * 4]).unwrap();
    let args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    let dispatch = Dispatch {
        grid_blocks: [1, 1, 1],
        block: [LANES as u32, 1, 1],
    };
    dev.launch(module, "msb_xad", &args, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("launch: {e}"));
    let mut raw = vec![0u8; LANES * 4];
    dev.read(bufs[3], &mut raw).unwrap();
    let got = raw
        .chunks_exact(4)
        .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
        .collect();
    let d = dev.definedness(bufs[3], LANES).unwrap();
    Outcome {
        got,
        want,
        tainted: d.words.len() + d.waves.len(),
        seed,
    }
}

#[test]
fn xad_operands_past_v255_compute_exactly_in_every_form() {
    let dir = scratch("emu_vgpr_msb");
    let mut seed = 0x5eed_0001u64;
    for form in [Form::Vop3, Form::Dpp16, Form::Dpp8] {
        for high in [High::Dst, High::Src0, High::Src1, High::Src2, High::All] {
            let stem = format!("{form:?}_{high:?}").to_lowercase();
            let Some(image) = build(&source(&body(form, high, Mistake::None)), &dir, &stem) else {
                return;
            };
            seed += 1;
            let o = launch(&image, form, seed);
            let wrong = (0..LANES).find(|&i| o.got[i] != o.want[i]);
            assert!(
                wrong.is_none() && o.tainted == 0,
                "{stem} (seed {:#x}): lane {wrong:?} got {:08x?} want {:08x?}, {} tainted",
                o.seed,
                wrong.map(|i| o.got[i]),
                wrong.map(|i| o.want[i]),
                o.tainted
            );
        }
    }
}

#[test]
fn a_wrong_setting_is_caught() {
    let dir = scratch("emu_vgpr_msb_wrong");
    for form in [Form::Vop3, Form::Dpp16, Form::Dpp8] {
        // src0's bits cleared: v2 (poisoned to 0) is read instead of v258.
        let stem = format!("{form:?}_src0_cleared").to_lowercase();
        let cleared = body(form, High::All, Mistake::Src0BitsCleared);
        let Some(image) = build(&source(&cleared), &dir, &stem) else {
            return;
        };
        let o = launch(&image, form, 0x0bad_5eed);
        let wrong = (0..LANES).filter(|&i| o.got[i] != o.want[i]).count();
        assert!(
            wrong > LANES - 4,
            "{stem}: only {wrong} of {LANES} words differ from the reference"
        );
        // The copy back reads v517, which nothing wrote: undefined, never a pass.
        let stem = format!("{form:?}_copy_back_wrong").to_lowercase();
        let wrong_row = body(form, High::All, Mistake::CopyBackFromWrongRow);
        let image = build(&source(&wrong_row), &dir, &stem).unwrap();
        let o = launch(&image, form, 0x0bad_5eed);
        let passed = (0..LANES).filter(|&i| o.got[i] == o.want[i]).count();
        assert!(
            o.tainted > 0,
            "{stem}: the read of an unwritten VGPR was not reported ({passed} words equal the reference)"
        );
    }
}

/// The catalogue's `vgpr_msb_w32` (kernels/include/xad_vgpr_msb.inc, built
/// by build.rs for gfx1250 and gfx1251) passes on the emulated target at
/// lane counts that leave partial waves and workgroups, and only there.
#[test]
fn the_catalogue_case_passes_on_cdna5_only() {
    use xad_harness::model::cases::catalogue_for;
    use xad_harness::pipeline::run::{run_case, KernelSource, Options, Status};
    use xad_harness::platform::codeobj::CodeObject;
    for name in ["gfx1250", "gfx1251"] {
        let t = target::find(name).expect("CDNA5 row");
        let Some(case) = catalogue_for(t)
            .into_iter()
            .find(|c| c.name == "vgpr_msb_w32")
        else {
            panic!("{name}: vgpr_msb_w32 is not in the catalogue");
        };
        let Some(embedded) = xad_harness::platform::embedded::find(name, case.kernel) else {
            eprintln!("skipped {name}: its kernels were not built (LLVM 22 absent at build time)");
            continue;
        };
        #[allow(clippy::unnecessary_to_owned)]
        let code = CodeObject::parse(&embedded.bytes.to_vec()).unwrap();
        let kernel = code.kernel(case.kernel).unwrap().clone();
        for lanes in [1u64, 31, 33, 255, 257, 1013] {
            let opts = Options {
                lanes,
                seed: 0x5eed ^ lanes,
                timeout: Duration::from_secs(120),
                ..Options::default()
            };
            let source = KernelSource::Embedded {
                source: embedded.source.to_string(),
            };
            let mut dev = EmuDevice::for_target(t);
            let r = run_case(&mut dev, &case, &code, &kernel, source, &opts);
            assert_eq!(r.status(), Status::Pass, "{name}, {lanes} lanes: {r:?}");
            assert_eq!(r.tally.lanes_checked, lanes, "{name}");
        }
    }
    for t in target::TARGETS
        .iter()
        .filter(|t| !t.has(target::Feature::VgprMsb))
    {
        assert!(
            catalogue_for(t).iter().all(|c| c.name != "vgpr_msb_w32"),
            "{}",
            t.name
        );
    }
}
