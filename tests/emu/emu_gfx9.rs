//! The emulator runs gfx9 (GCN5/CDNA) code: everything here is emulated, no
//! GPU is involved.
//!
//! - Every gfx9 catalogue kernel (kernels/cases), assembled here for gfx908, gfx90a,
//!   gfx942, gfx9-generic, gfx9-4-generic (LLVM 19) and gfx950 (LLVM 22,
//!   skipped with a printed note when absent), passes on its emulated target
//!   against the catalogue's CPU model, over partial waves and workgroups.
//! - A hand-written gfx9 kernel moves src0 through every gfx9 DPP16 control
//!   (`v_mov_b32_dpp`, the wave-wide shifts and rotates, row_bcast:15/31,
//!   the row controls, masks, bound_ctrl, inactive source lanes) into
//!   `v_xad_u32`; the expected words are computed here from the controls'
//!   definitions, independently of the emulator. Undocumented reads must come
//!   out unsettled, exactly where expected. A wrong kernel and a wrong model
//!   are both caught (negative controls).
//! - Work-item ids: separate v0/v1/v2 on gfx908 and gfx9-generic, packed into
//!   v0 on gfx90a/gfx940+ (where v1 and v2 are not initialised: undefined).
//! - A kernel compiled by LLVM's own code generator (llc) for gfx908/gfx90a
//!   (private segment buffer, dispatch ptr and dispatch id user SGPRs before
//!   the kernarg pointer) and gfx942 runs and is exact.
//! - Every gfx9 descriptor refusal names its field; gfx9 code is refused on
//!   other generations and the reverse.

use crate::common;

use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use xad_harness::model::cases;
use xad_harness::platform::codeobj::{CodeObject, KernelDescriptor};
use xad_harness::platform::device::{Device, Dispatch, Taint};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::pipeline::run::{run_case, KernelSource, Options};
use xad_harness::platform::target::{self, Target};
use xad_harness::platform::toolchain::{self, Toolchain};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const LLVM22: &str = "/usr/lib/llvm-22/bin";

fn t(name: &str) -> &'static Target {
    target::find(name).unwrap_or_else(|| panic!("no target row {name}"))
}

/// The LLVM that assembles `mcpu`: LLVM 19 (proved by the toolchain's
/// canary) for most, LLVM 22 for gfx950 and gfx9-4-generic (clang 19 refuses
/// that target ID); `None` (with a printed
/// note) when LLVM 22 is absent.
fn toolchain_for(mcpu: &str, scratch: &Path) -> Option<Toolchain> {
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
fn assemble(tc: &Toolchain, mcpu: &str, source: &str, dir: &Path, stem: &str) -> Vec<u8> {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("{stem}.hsaco"));
    tc.build_code_object(mcpu, &src, &out, &[dir])
        .unwrap_or_else(|e| panic!("{mcpu} {stem}: {e}"));
    std::fs::read(&out).unwrap()
}

// ---- the catalogue's gfx9 kernels ----

/// 1000 + 13 lanes: the last wave and the last workgroup are partial.
const LANES: u64 = 1013;

/// (the code object's target, the emulated device it runs on)
const CATALOGUE_RUNS: [(&str, &str); 7] = [
    ("gfx908", "gfx908"),
    ("gfx90a", "gfx90a"),
    ("gfx942", "gfx942"),
    ("gfx950", "gfx950"),
    ("gfx9-generic", "gfx9-generic"),
    ("gfx9-4-generic", "gfx9-4-generic"),
    // Generic code on a processor it covers.
    ("gfx9-4-generic", "gfx942"),
];

#[test]
fn every_gfx9_catalogue_kernel_passes_on_every_emulated_gfx9_target() {
    let scratch = common::scratch("emu_gfx9_catalogue");
    let mut failures = Vec::new();
    let mut ran = 0;
    for (mcpu, device) in CATALOGUE_RUNS {
        let Some(tc) = toolchain_for(mcpu, &scratch) else {
            continue;
        };
        let dir = scratch.join(mcpu);
        toolchain::write_target_include(&dir, mcpu, Some(t(mcpu).frame()))
            .expect("xad_target.inc");
        let include = Path::new(ROOT).join("kernels/include");
        let cases = cases::catalogue_for(t(mcpu));
        assert!(cases.len() >= 4, "{mcpu}: {} gfx9 cases", cases.len());
        for case in &cases {
            let src = Path::new(ROOT)
                .join("kernels/cases")
                .join(format!("{}.s", case.kernel));
            let out = dir.join(format!("{}.hsaco", case.kernel));
            tc.build_code_object(mcpu, &src, &out, &[&dir, &include])
                .unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
            let code = CodeObject::parse(&std::fs::read(&out).unwrap())
                .unwrap_or_else(|e| panic!("{mcpu} {}: {e}", case.kernel));
            let kernel = code.kernel(case.kernel).unwrap().clone();
            for seed in [1u64, 0x5eed_0000_0000_0009] {
                let opts = Options {
                    lanes: LANES,
                    seed,
                    timeout: Duration::from_secs(120),
                    keep: 4,
                    ..Options::default()
                };
                let source = KernelSource::User {
                    path: out.display().to_string(),
                };
                let r = run_case(
                    &mut EmuDevice::for_target(t(device)),
                    case,
                    &code,
                    &kernel,
                    source,
                    &opts,
                );
                if !r.passed() || r.tally.lanes_checked != LANES {
                    failures.push(format!(
                        "{mcpu} on emulated {device}, {} seed {seed:#x}: {:?}, {} of {} lanes failed, error {:?}, first {:x?}",
                        case.name, r.status(), r.tally.lanes_failed, r.tally.lanes_checked, r.error, r.tally.first
                    ));
                }
                assert_eq!(
                    r.executor,
                    format!("emulated {device}"),
                    "the result names the emulator"
                );
                ran += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{ran} gfx9 catalogue runs passed (emulated)");
}

// ---- DPP: every gfx9 control into v_xad_u32 ----

/// A DPP16 control as the ISA defines it, for the expected values.
#[derive(Clone, Copy, Debug)]
enum Ctrl {
    QuadPerm([usize; 4]),
    RowShl(usize),
    RowShr(usize),
    RowRor(usize),
    RowMirror,
    RowHalfMirror,
    WaveShl,
    WaveRol,
    WaveShr,
    WaveRor,
    Bcast15,
    Bcast31,
}

/// Where lane `n` (0..64) reads under `ctrl`: `Ok(lane)`, `Err(true)` out of
/// range (bound_ctrl decides), `Err(false)` not documented (unsettled).
fn source_lane(ctrl: Ctrl, n: usize) -> Result<usize, bool> {
    let (row, i) = (n / 16, n % 16);
    match ctrl {
        Ctrl::QuadPerm(sel) => Ok(n - n % 4 + sel[n % 4]),
        Ctrl::RowShl(k) => (i + k < 16).then_some(n + k).ok_or(true),
        Ctrl::RowShr(k) => (i >= k).then(|| n - k).ok_or(true),
        Ctrl::RowRor(k) => Ok(16 * row + (i + 16 - k) % 16),
        Ctrl::RowMirror => Ok(16 * row + 15 - i),
        Ctrl::RowHalfMirror => Ok(n - n % 8 + 7 - n % 8),
        Ctrl::WaveShl => (n < 63).then_some(n + 1).ok_or(true),
        Ctrl::WaveRol => Ok((n + 1) % 64),
        Ctrl::WaveShr => (n > 0).then(|| n - 1).ok_or(true),
        Ctrl::WaveRor => Ok((n + 63) % 64),
        Ctrl::Bcast15 => (row >= 1).then(|| 16 * row - 1).ok_or(false),
        Ctrl::Bcast31 => (row >= 2).then_some(31).ok_or(false),
    }
}

/// One output word: the DPP move's assembly, its control, masks, the
/// bound_ctrl bit as encoded (LLVM before gfx11 encodes `bound_ctrl:0` as
/// 1), and the lanes (of each wave) inactive during the move.
#[derive(Clone, Copy)]
struct Word {
    asm: &'static str,
    ctrl: Ctrl,
    row_mask: u8,
    bank_mask: u8,
    bc: bool,
    inactive: u64,
}

const fn w(
    asm: &'static str,
    ctrl: Ctrl,
    row_mask: u8,
    bank_mask: u8,
    bc: bool,
    inactive: u64,
) -> Word {
    Word {
        asm,
        ctrl,
        row_mask,
        bank_mask,
        bc,
        inactive,
    }
}

/// Lanes 1 and 33 of every wave inactive during the move.
const HOLES: u64 = 1 << 1 | 1 << 33;

const WORDS: [Word; 18] = [
    w("wave_shl:1", Ctrl::WaveShl, 0xf, 0xf, false, 0),
    w("wave_shl:1 bound_ctrl:0", Ctrl::WaveShl, 0xf, 0xf, true, 0),
    w("wave_rol:1", Ctrl::WaveRol, 0xf, 0xf, false, 0),
    w("wave_shr:1", Ctrl::WaveShr, 0xf, 0xf, false, 0),
    w("wave_shr:1 bound_ctrl:0", Ctrl::WaveShr, 0xf, 0xf, true, 0),
    w("wave_ror:1", Ctrl::WaveRor, 0xf, 0xf, false, 0),
    w(
        "row_bcast:15 row_mask:0xa",
        Ctrl::Bcast15,
        0xa,
        0xf,
        false,
        0,
    ),
    w(
        "row_bcast:31 row_mask:0xc",
        Ctrl::Bcast31,
        0xc,
        0xf,
        false,
        0,
    ),
    w(
        "quad_perm:[3,1,2,0]",
        Ctrl::QuadPerm([3, 1, 2, 0]),
        0xf,
        0xf,
        false,
        0,
    ),
    w("row_shl:3 bound_ctrl:0", Ctrl::RowShl(3), 0xf, 0xf, true, 0),
    w("row_shr:5", Ctrl::RowShr(5), 0xf, 0xf, false, 0),
    w("row_ror:7", Ctrl::RowRor(7), 0xf, 0xf, false, 0),
    w("row_mirror", Ctrl::RowMirror, 0xf, 0xf, false, 0),
    w("row_half_mirror", Ctrl::RowHalfMirror, 0xf, 0xf, false, 0),
    w(
        "row_shr:1 row_mask:0x6 bank_mask:0x5",
        Ctrl::RowShr(1),
        0x6,
        0x5,
        false,
        0,
    ),
    // An inactive source lane with bound_ctrl set reads 0.
    w(
        "wave_shl:1 bound_ctrl:0",
        Ctrl::WaveShl,
        0xf,
        0xf,
        true,
        HOLES,
    ),
    // Undocumented: row 0 of row_bcast:15; an inactive source with bound_ctrl 0.
    w("row_bcast:15", Ctrl::Bcast15, 0xf, 0xf, false, 0),
    w("wave_shl:1", Ctrl::WaveShl, 0xf, 0xf, false, HOLES),
];

/// What word `word` of wave-lane `n` holds before `v_xad_u32`: `Some(value)`,
/// or `None` where it is unsettled. `a` is the wave's src0 row, `old` the
/// lane's prior v5 (its b).
fn moved(word: &Word, a: &[u32], old: u32, n: usize) -> Option<u32> {
    let active = |l: usize| (word.inactive >> l) & 1 == 0;
    if !active(n)
        || (word.row_mask >> (n / 16)) & 1 == 0
        || (word.bank_mask >> (n % 16 / 4)) & 1 == 0
    {
        return Some(old);
    }
    match source_lane(word.ctrl, n) {
        Ok(s) if active(s) => Some(a[s]),
        Ok(_) | Err(true) if word.bc => Some(0),
        Ok(_) => None,
        Err(true) => Some(old),
        Err(false) => None,
    }
}

/// The DPP kernel's source for `mcpu` (`wrong`: v_xad_u32's src1 and src2 swapped).
fn dpp_source(mcpu: &str, wrong: bool) -> String {
    let mut body = String::new();
    for (j, word) in WORDS.iter().enumerate() {
        let (lo, hi) = (!(word.inactive as u32), !((word.inactive >> 32) as u32));
        body += "  v_mov_b32 v5, v3\n";
        if word.inactive != 0 {
            body += &format!("  s_mov_b64 s[14:15], exec\n  s_mov_b32 exec_lo, 0x{lo:08x}\n  s_mov_b32 exec_hi, 0x{hi:08x}\n");
        }
        // Two wait states between a VALU write and a DPP read of a VGPR (gfx9 hazard).
        body += &format!("  s_nop 1\n  v_mov_b32_dpp v5, v2 {}\n", word.asm);
        if word.inactive != 0 {
            body += "  s_mov_b64 exec, s[14:15]\n";
        }
        body += if wrong {
            "  v_xad_u32 v6, v5, v4, v3\n"
        } else {
            "  v_xad_u32 v6, v5, v3, v4\n"
        };
        body += &format!("  global_store_dword v7, v6, s[10:11] offset:{}\n", 4 * j);
    }
    kernel_source(mcpu, &body, WORDS.len(), 0, false)
}

/// Lane in the wave (0-63) into v1.
const MBCNT: &str = "  v_mbcnt_lo_u32_b32 v1, -1, 0\n  v_mbcnt_hi_u32_b32 v1, -1, v1";

/// A one-kernel gfx9 source: kernarg a, b, c, out; each lane i loads a[i],
/// b[i], c[i] into v2, v3, v4 and has v7 = its first output byte offset;
/// `body` follows; `ids` = ENABLE_VGPR_WORKITEM_ID (v0 is kept; v1 and v2
/// are not). Workgroups of 256 lanes in x, or (`one_wave`) of one wave of
/// any shape, the lane then counted by v_mbcnt.
fn kernel_source(mcpu: &str, body: &str, words: usize, ids: u32, one_wave: bool) -> String {
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
struct Ran {
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    out: Vec<u32>,
    tainted: Vec<(usize, Taint)>,
}

/// Run kernel `k` of `image` on an emulated `device` over `groups`
/// workgroups of `block` with seeded inputs (`words` output words per lane).
fn launch(
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

/// The DPP kernel's mismatches against `moved` (as "seed, lane, word" lines),
/// and the words expected unsettled.
fn check_dpp(
    r: &Ran,
    seed: u64,
    moved: impl Fn(&Word, &[u32], u32, usize) -> Option<u32>,
) -> (Vec<String>, Vec<(usize, Taint)>) {
    let (mut bad, mut unsettled) = (Vec::new(), Vec::new());
    for i in 0..r.a.len() {
        let wave = i - i % 64;
        for (j, word) in WORDS.iter().enumerate() {
            let at = i * WORDS.len() + j;
            match moved(word, &r.a[wave..wave + 64], r.b[i], i % 64) {
                None => unsettled.push((at, Taint::Unsettled)),
                Some(v) => {
                    let want = (v ^ r.b[i]).wrapping_add(r.c[i]);
                    if r.out[at] != want {
                        bad.push(format!("seed {seed:#x} lane {i} word {j} ({}): got 0x{:08x}, want 0x{want:08x}", word.asm, r.out[at]));
                    }
                }
            }
        }
    }
    (bad, unsettled)
}

#[test]
fn every_gfx9_dpp_control_feeds_v_xad_u32_exactly() {
    let scratch = common::scratch("emu_gfx9_dpp");
    for (k, mcpu) in ["gfx908", "gfx90a", "gfx942", "gfx950"]
        .into_iter()
        .enumerate()
    {
        let Some(tc) = toolchain_for(mcpu, &scratch) else {
            continue;
        };
        let image = assemble(
            &tc,
            mcpu,
            &dpp_source(mcpu, false),
            &scratch.join(mcpu),
            "dpp",
        );
        let seed = 0x9d99_0000 + k as u64;
        let r = launch(mcpu, &image, 2, [256, 1, 1], WORDS.len(), seed);
        let (bad, unsettled) = check_dpp(&r, seed, moved);
        assert!(
            bad.is_empty(),
            "{mcpu} (emulated): {} wrong words, first {:?}",
            bad.len(),
            &bad[..bad.len().min(4)]
        );
        assert_eq!(
            r.tainted, unsettled,
            "{mcpu} seed {seed:#x}: exactly the undocumented reads are unsettled"
        );
        // Rows 0 of row_bcast:15 and lanes 0/32 of the holes word, in each of 8 waves.
        assert_eq!(unsettled.len(), 8 * (16 + 2), "{mcpu}");
    }
}

/// Negative controls: a kernel with v_xad_u32's src1/src2 swapped, and a
/// model with the wave shifts' directions swapped, are both caught.
#[test]
fn a_wrong_gfx9_dpp_kernel_and_a_wrong_model_are_caught() {
    let scratch = common::scratch("emu_gfx9_dpp_wrong");
    let tc = toolchain_for("gfx90a", &scratch).unwrap();
    let seed = 0x9d99_0bad;
    let wrong = assemble(
        &tc,
        "gfx90a",
        &dpp_source("gfx90a", true),
        &scratch,
        "dpp_wrong",
    );
    let r = launch("gfx90a", &wrong, 1, [256, 1, 1], WORDS.len(), seed);
    let (bad, _) = check_dpp(&r, seed, moved);
    assert!(
        bad.len() > 256 * 10,
        "the swapped kernel fails nearly every word: {}",
        bad.len()
    );
    let right = assemble(
        &tc,
        "gfx90a",
        &dpp_source("gfx90a", false),
        &scratch,
        "dpp_right",
    );
    let r = launch("gfx90a", &right, 1, [256, 1, 1], WORDS.len(), seed);
    let reversed = |word: &Word, a: &[u32], old: u32, n: usize| {
        let ctrl = match word.ctrl {
            Ctrl::WaveShl => Ctrl::WaveShr,
            Ctrl::WaveShr => Ctrl::WaveShl,
            Ctrl::WaveRol => Ctrl::WaveRor,
            Ctrl::WaveRor => Ctrl::WaveRol,
            other => other,
        };
        moved(&Word { ctrl, ..*word }, a, old, n)
    };
    let (bad, _) = check_dpp(&r, seed, reversed);
    assert!(
        bad.iter().any(|l| l.contains("(wave_rol:1)"))
            && bad.iter().any(|l| l.contains("(wave_shr:1)")),
        "{:?}",
        bad.first()
    );
}

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
/// `v_lshl_add_u64`, tests/emu/emu_gfx940_lshl.rs): exact.
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

// ---- descriptor refusals ----

/// kernarg ptr, workgroup id x, USER_SGPR_COUNT 2: a plain gfx9 kernel.
fn plain() -> KernelDescriptor {
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
        assert_eq!(plain().validate(arch), Ok(()), "{arch}");
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
        let mut kd = plain();
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
        let mut kd = plain();
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
    let mut granule = plain();
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
        ..plain()
    };
    assert_eq!(kd.vgpr_count_for("gfx908"), 56);
    assert_eq!(kd.vgpr_count_for("gfx90a"), 108);
    assert_eq!(kd.vgpr_count_for("gfx942"), 108);
    let all = KernelDescriptor {
        rsrc1: 63,
        rsrc3: 63,
        ..plain()
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
        ..plain()
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
            ..plain()
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

#[test]
fn gfx9_code_is_refused_on_other_generations_and_the_reverse() {
    let scratch = common::scratch("emu_gfx9_refuse");
    let tc = toolchain_for("gfx908", &scratch).unwrap();
    let gfx908 = assemble(
        &tc,
        "gfx908",
        &dpp_source("gfx908", false),
        &scratch,
        "k908",
    );
    for device in ["gfx1100", "gfx1030", "gfx90a", "gfx942"] {
        let err = EmuDevice::for_target(t(device))
            .load(&gfx908)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "code object targets gfx908, the emulated device is {device}"
            )),
            "{err}"
        );
    }
    let gfx1100 =
        xad_harness::platform::embedded::find("gfx1100", "xad_basic").expect("embedded gfx1100 xad_basic");
    // A Vec, so the ELF parser gets an allocator-aligned buffer (include_bytes! is not aligned).
    #[allow(clippy::unnecessary_to_owned)]
    let err = EmuDevice::for_target(t("gfx908"))
        .load(&gfx1100.bytes.to_vec())
        .unwrap_err()
        .to_string();
    assert!(err.contains("the emulated device is gfx908"), "{err}");
}

/// gfx9's s_waitcnt fields (vmcnt [3:0]+[15:14], expcnt [6:4], lgkmcnt
/// [11:8]) print as llvm-mc 19 prints them for gfx908 (the words below are
/// its encodings); the waits themselves have no effect in the emulator.
#[test]
fn gfx9_waitcnt_prints_its_own_fields() {
    let cases = [
        (0xBF8C_C07Fu32, "s_waitcnt lgkmcnt(0)"),
        (0xBF8C_0F70, "s_waitcnt vmcnt(0)"),
        (0xBF8C_C37F, "s_waitcnt lgkmcnt(3)"),
        (0xBF8C_4F21, "s_waitcnt vmcnt(17) expcnt(2)"),
        (0xBF8C_CF7F, "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"),
    ];
    for (word, want) in cases {
        let (inst, _) =
            xad_harness::isa::decode_one_for(xad_harness::isa::Isa::GFX9, &word.to_le_bytes())
                .unwrap();
        assert_eq!(inst.to_string(), want, "{word:08X}");
    }
}

/// gfx9's VOP2 carry ops write all 64 bits of VCC (gfx9 is wave64 only): a
/// 64-bit add {b, a} + {0, c} through v_add_co_u32 / v_addc_co_u32, the
/// first carry read back per lane with v_cndmask_b32 (lanes 32-63: vcc_hi).
#[test]
fn vop2_carry_ops_write_and_read_the_whole_vcc() {
    let scratch = common::scratch("emu_gfx9_carry");
    // `s_nop 1`: on gfx940+ a VALU read of VCC within 2 wait states of a
    // VALU write of it is a hazard (LLVM GCNHazardRecognizer, hasVDecCoExecHazard).
    let body = "  v_add_co_u32 v5, vcc, v2, v4\n  s_nop 1\n  v_cndmask_b32 v9, 0, 1, vcc\n  v_addc_co_u32 v6, vcc, 0, v3, vcc\n  global_store_dword v7, v5, s[10:11]\n  global_store_dword v7, v6, s[10:11] offset:4\n  global_store_dword v7, v9, s[10:11] offset:8\n";
    for mcpu in ["gfx908", "gfx942"] {
        let tc = toolchain_for(mcpu, &scratch).unwrap();
        let image = assemble(
            &tc,
            mcpu,
            &kernel_source(mcpu, body, 3, 0, false),
            &scratch.join(mcpu),
            "carry",
        );
        let seed = 0xca55;
        let r = launch(mcpu, &image, 2, [256, 1, 1], 3, seed);
        assert!(r.tainted.is_empty(), "{mcpu}: {:?}", r.tainted.first());
        let mut carries = 0;
        for i in 0..r.a.len() {
            let (lo, c0) = r.a[i].overflowing_add(r.c[i]);
            let hi = r.b[i].wrapping_add(u32::from(c0));
            carries += u32::from(c0 && i % 64 >= 32);
            let want = [lo, hi, u32::from(c0)];
            assert_eq!(
                r.out[3 * i..3 * i + 3],
                want,
                "{mcpu} (emulated) seed {seed:#x} lane {i}"
            );
        }
        assert!(
            carries > 100,
            "random inputs carry in about half the lanes: {carries}"
        );
    }
}

/// Issue 26: gfx9's `v_cmpx_*` (refused as "opcode 220 is not supported"
/// before) writes its lane mask to EXEC and to VCC (VOPC) or its SGPR pair
/// (VOP3), unlike gfx10+'s, which writes EXEC only: the lanes it turns off
/// keep their old value, and both masks read back per lane.
#[test]
fn gfx9_v_cmpx_writes_exec_and_its_sgpr_pair() {
    let scratch = common::scratch("emu_gfx9_cmpx");
    let body = "  v_mov_b32 v9, 7\n  v_cmpx_gt_u32 vcc, v2, v3\n  v_mov_b32 v9, 1\n  s_mov_b64 exec, -1\n  s_nop 4\n  v_cndmask_b32 v10, 0, 1, vcc\n  v_cmpx_lt_u32_e64 s[14:15], v2, v3\n  s_mov_b64 exec, -1\n  s_nop 4\n  v_cndmask_b32 v11, 0, 1, s[14:15]\n  global_store_dword v7, v9, s[10:11]\n  global_store_dword v7, v10, s[10:11] offset:4\n  global_store_dword v7, v11, s[10:11] offset:8\n";
    for mcpu in ["gfx908", "gfx942"] {
        let tc = toolchain_for(mcpu, &scratch).unwrap();
        let image = assemble(
            &tc,
            mcpu,
            &kernel_source(mcpu, body, 3, 0, false),
            &scratch.join(mcpu),
            "cmpx",
        );
        let seed = 0xc3b;
        let r = launch(mcpu, &image, 2, [256, 1, 1], 3, seed);
        assert!(r.tainted.is_empty(), "{mcpu}: {:?}", r.tainted.first());
        let mut greater = 0;
        for i in 0..r.a.len() {
            let gt = r.a[i] > r.b[i];
            greater += usize::from(gt);
            let want = [
                if gt { 1 } else { 7 },
                u32::from(gt),
                u32::from(r.a[i] < r.b[i]),
            ];
            assert_eq!(
                r.out[3 * i..3 * i + 3],
                want,
                "{mcpu} (emulated) seed {seed:#x} lane {i}"
            );
        }
        assert!(greater > 100 && greater < r.a.len() - 100, "{greater}");
    }
}

// ---- v_pk_mov_b32 (gfx90a+) and v_mov_b64 (gfx940+): the moves AMD's own
// copy kernels use (HIP 7.2's __amd_rocclr_copyBuffer for gfx9) ----

/// llvm-mc-19 -mcpu=gfx942 (gfx90a encodes v_pk_mov_b32 alike): LLVM's text
/// and bytes.
const MOVES: &[(&str, [u8; 8])] = &[
    ("v_pk_mov_b32 v[14:15], v[10:11], v[12:13] op_sel:[0,1]", [0x0e, 0x50, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18]),
    ("v_pk_mov_b32 v[14:15], v[10:11], v[12:13] op_sel:[1,0]", [0x0e, 0x48, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18]),
    ("v_pk_mov_b32 v[10:11], v[10:11], v[12:13]", [0x0a, 0x40, 0xb3, 0xd3, 0x0a, 0x19, 0x02, 0x18]),
    ("v_pk_mov_b32 v[4:5], s[2:3], v[6:7] op_sel:[1,1]", [0x04, 0x58, 0xb3, 0xd3, 0x02, 0x0c, 0x02, 0x18]),
    ("v_mov_b64_e64 v[4:5], v[0:1]", [0x04, 0x00, 0x78, 0xd1, 0x00, 0x01, 0x00, 0x00]),
];

/// Encodings LLVM assembles that the emulator refuses, and why: fields AMD's
/// pseudocode for V_PK_MOV_B32 does not read (op_sel_hi other than LLVM's
/// default, neg), a constant source, an odd VGPR pair.
const MOVES_REFUSED: &[(&str, [u8; 8], &str)] = &[
    ("op_sel:[1,0] op_sel_hi:[0,0]", [0x04, 0x48, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x00], "op_sel_hi"),
    ("neg_lo:[1,0]", [0x04, 0x40, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x38], "neg_lo"),
    ("src0 1", [0x04, 0x40, 0xb3, 0xd3, 0x81, 0x04, 0x02, 0x18], "constant source"),
    ("vdst v5", [0x05, 0x40, 0xb3, 0xd3, 0x00, 0x05, 0x02, 0x18], "odd register"),
];

#[test]
fn gfx90a_moves_decode_print_back_and_are_refused_where_they_do_not_exist() {
    use xad_harness::isa::decode_one_for;
    for (text, bytes) in MOVES {
        let isa = t("gfx942").isa;
        let (inst, len) = decode_one_for(isa, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!((len, inst.to_string()), (8, text.to_string()));
        if text.starts_with("v_pk_mov_b32") {
            assert!(decode_one_for(t("gfx90a").isa, bytes).is_ok(), "gfx90a {text}");
            let err = decode_one_for(t("gfx908").isa, bytes).unwrap_err().to_string();
            assert!(err.contains("gfx90a+") && !err.contains('\n'), "gfx908 {text}: {err}");
        } else {
            let err = decode_one_for(t("gfx90a").isa, bytes).unwrap_err().to_string();
            assert!(err.contains("gfx940+") && !err.contains('\n'), "gfx90a {text}: {err}");
        }
    }
    for (what, bytes, why) in MOVES_REFUSED {
        let err = decode_one_for(t("gfx90a").isa, bytes).unwrap_err().to_string();
        assert!(err.contains(why) && !err.contains('\n'), "{what}: {err}");
    }
}

/// Per lane: S0 = v[10:11] = (a, b), S1 = v[12:13] = (c, a ^ b); the moves
/// store (lo, hi) pairs; v[8:9] has v9 never written, so only the dword
/// that takes v9 is undefined. gfx942 adds v_mov_b64.
fn moves_body(wrong: bool, mov_b64: bool) -> String {
    let first = if wrong { "op_sel:[1,0]" } else { "op_sel:[0,1]" };
    let mut body = format!(
        "  v_mov_b32 v10, v2\n  v_mov_b32 v11, v3\n  v_mov_b32 v12, v4\n  v_xor_b32 v13, v2, v3\n\
         \x20 v_pk_mov_b32 v[14:15], v[10:11], v[12:13] {first}\n\
         \x20 global_store_dword v7, v14, s[10:11]\n  global_store_dword v7, v15, s[10:11] offset:4\n\
         \x20 v_pk_mov_b32 v[14:15], v[10:11], v[12:13] op_sel:[1,0]\n\
         \x20 global_store_dword v7, v14, s[10:11] offset:8\n  global_store_dword v7, v15, s[10:11] offset:12\n\
         \x20 v_pk_mov_b32 v[10:11], v[10:11], v[12:13]\n\
         \x20 global_store_dword v7, v10, s[10:11] offset:16\n  global_store_dword v7, v11, s[10:11] offset:20\n\
         \x20 v_pk_mov_b32 v[14:15], v[8:9], v[12:13]\n  global_store_dword v7, v14, s[10:11] offset:24\n\
         \x20 v_pk_mov_b32 v[14:15], v[8:9], v[12:13] op_sel:[1,0]\n  global_store_dword v7, v14, s[10:11] offset:28\n"
    );
    if mov_b64 {
        body.push_str(
            "  v_mov_b64 v[14:15], v[12:13]\n  global_store_dword v7, v14, s[10:11] offset:32\n  global_store_dword v7, v15, s[10:11] offset:36\n",
        );
    }
    body
}

#[test]
fn gfx90a_moves_run_exactly_and_a_wrong_op_sel_is_caught() {
    let scratch = common::scratch("emu_gfx9_moves");
    for mcpu in ["gfx90a", "gfx942"] {
        let mov_b64 = mcpu == "gfx942";
        let words = if mov_b64 { 10 } else { 8 };
        let tc = toolchain_for(mcpu, &scratch).unwrap();
        for wrong in [false, true] {
            let stem = if wrong { "moves_wrong" } else { "moves" };
            let source = kernel_source(mcpu, &moves_body(wrong, mov_b64), words, 0, false);
            let image = assemble(&tc, mcpu, &source, &scratch.join(mcpu), stem);
            let seed = 0x90a;
            let r = launch(mcpu, &image, 2, [256, 1, 1], words, seed);
            let mut mismatched = 0;
            for i in 0..r.a.len() {
                let (a, b, c) = (r.a[i], r.b[i], r.c[i]);
                let want = [a, a ^ b, b, c, a, c, 4 * i as u32, 0, c, a ^ b];
                let got = &r.out[words * i..words * (i + 1)];
                let differs = (0..words).filter(|&k| k != 7).any(|k| got[k] != want[k]);
                if wrong {
                    mismatched += usize::from(differs);
                } else {
                    assert!(!differs, "{mcpu} (emulated) seed {seed:#x} lane {i}: {got:x?} != {:x?}", &want[..words]);
                }
            }
            // Exactly word 7 of every lane (the dword taken from v9) is undefined.
            let tainted: Vec<usize> = r.tainted.iter().map(|(w, _)| *w).collect();
            let expected: Vec<usize> = (0..r.a.len()).map(|i| words * i + 7).collect();
            assert_eq!(tainted, expected, "{mcpu} seed {seed:#x}");
            if wrong {
                assert!(mismatched > r.a.len() * 9 / 10, "{mcpu}: the wrong op_sel went unnoticed ({mismatched} lanes)");
            }
        }
    }
}
