//! DPP on the emulator, against models written here from the controls' definitions,
//! independently of the emulator:
//!
//! - gfx9: a hand-written kernel moves src0 through every gfx9 DPP16 control (`v_mov_b32_dpp`,
//!   the wave-wide shifts and rotates, row_bcast:15/31, the row controls, masks, bound_ctrl,
//!   inactive source lanes) into `v_xad_u32`; undocumented reads must come out unsettled,
//!   exactly where expected. A wrong kernel and a wrong model are both caught.
//! - gfx10 (tests/kernels/emu/gfx10/kernels): DPP moves (row_share, row_xmask, dpp8, row/bank
//!   masks, fi) feeding `v_xad_u32` in wave32 and wave64, a wrong kernel caught, the
//!   undocumented inactive-lane read reported unsettled.

use crate::common;
use crate::support::*;
use std::time::Duration;
use xad_harness::platform::device::{Device, Dispatch, Taint};
use xad_harness::platform::emu::EmuDevice;

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
pub fn dpp_source(mcpu: &str, wrong: bool) -> String {
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

// ---- DPP moves feeding v_xad_u32 (gfx10 has no VOP3 DPP) ----

/// Output words per lane of tests/kernels/emu/gfx10/kernels/dpp_moves.s.
const DPP_WORDS: usize = 6;

/// dpp8 selects of word 2.
const DPP8_SEL: [usize; 8] = [3, 1, 4, 1, 5, 7, 2, 6];

/// The six words of lane `i` in a wave of `wave` lanes, from the DPP
/// definitions (RDNA1/2 ISA guides, "DPP"; LLVM AMDGPUModifierSyntax):
/// row_share:k reads lane k of the 16-lane row, row_xmask:k lane (n ^ k) of
/// the row, dpp8 lane sel[n & 7] of the 8-lane group; row_mask bit r and
/// bank_mask bit b (4-lane bank of the row) gate the write.
fn dpp_model(a: &[u32], b: &[u32], c: &[u32], wave: usize, i: usize) -> [u32; DPP_WORDS] {
    let xad = |x: u32| (x ^ b[i]).wrapping_add(c[i]);
    let (row_base, in_row, group) = (i & !15, i & 15, i & !7);
    let (row, bank) = ((i % wave) / 16, in_row / 4);
    let kept = i as u32;
    let share15 = if (0x5 >> row) & 1 == 1 && (0xa >> bank) & 1 == 1 {
        a[row_base + 15]
    } else {
        kept
    };
    let even = if i % 2 == 0 { a[i ^ 1] } else { kept };
    let low_half = if i % 8 < 4 {
        a[group + 7 - (i & 7)]
    } else {
        kept
    };
    [
        xad(a[row_base + 5]),
        xad(a[row_base | (in_row ^ 9)]),
        xad(a[group + DPP8_SEL[i & 7]]),
        xad(share15),
        xad(even),
        xad(low_half),
    ]
}

/// Run the DPP kernel `image` on `dev` over `groups` workgroups of 256 lanes;
/// the mismatching words as "seed, lane, word: got, want" lines. Every output
/// word must be defined (no stopped wave, no undefined or unsettled word).
fn run_dpp(
    dev: &mut EmuDevice,
    image: &[u8],
    wave: usize,
    groups: usize,
    seed: u64,
) -> Vec<String> {
    let module = dev
        .load(image)
        .unwrap_or_else(|e| panic!("load on {}: {e}", dev.target().name));
    let n = groups * 256;
    let [a, b, c] = inputs(n, seed);
    let bufs: Vec<u64> = [n, n, n, n * DPP_WORDS]
        .iter()
        .map(|&len| dev.alloc(len * 4).expect("alloc"))
        .collect();
    for (p, v) in bufs.iter().zip([&a, &b, &c]) {
        dev.write(*p, &bytes(v)).expect("write");
    }
    let mut kernarg: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    kernarg.extend_from_slice(&(n as u32).to_le_bytes());
    kernarg.extend_from_slice(&[0; 4]); // padding to the 8-byte kernarg alignment
    let dispatch = Dispatch {
        grid_blocks: [groups as u32, 1, 1],
        block: [256, 1, 1],
    };
    dev.launch(module, "k", &kernarg, dispatch, Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("seed {seed:#x}: launch: {e}"));
    let mut out = vec![0u8; n * DPP_WORDS * 4];
    dev.read(bufs[3], &mut out).expect("read");
    let definedness = dev
        .definedness(bufs[3], n * DPP_WORDS)
        .expect("definedness");
    assert!(
        definedness.waves.is_empty(),
        "seed {seed:#x}: stopped waves {:?}",
        definedness.waves
    );
    assert!(
        definedness.words.is_empty(),
        "seed {seed:#x}: {} tainted words, first {:?}",
        definedness.words.len(),
        definedness.words.first()
    );
    let mut bad = Vec::new();
    for i in 0..n {
        for (w, want) in dpp_model(&a, &b, &c, wave, i).into_iter().enumerate() {
            let at = 4 * (DPP_WORDS * i + w);
            let got = u32::from_le_bytes(out[at..at + 4].try_into().expect("4 bytes"));
            if got != want {
                bad.push(format!(
                    "seed {seed:#x} lane {i} word {w}: got 0x{got:08x}, want 0x{want:08x}"
                ));
            }
        }
    }
    for p in bufs {
        dev.free(p).expect("free");
    }
    bad
}

#[test]
fn dpp_moves_feeding_xad_are_exact_in_wave32_and_wave64() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for (target, seed) in [(t("gfx1010"), 0x10_1001u64), (t("gfx1030"), 0x10_3001)] {
        for wave64 in [false, true] {
            let wave = if wave64 { 64 } else { 32 };
            let image = test_kernel(
                &tc,
                "dpp_moves.s",
                target.name,
                wave64,
                false,
                scratch.path(),
            );
            let bad = run_dpp(
                &mut EmuDevice::for_target(target),
                &image,
                wave,
                3,
                seed + wave as u64,
            );
            assert!(
                bad.is_empty(),
                "dpp_moves.s wave{wave} on emulated {}: {} wrong words, first {:?}",
                target.name,
                bad.len(),
                &bad[..bad.len().min(5)]
            );
        }
    }
}

/// Negative controls: a kernel computing (a' ^ c) + b in word 1 fails on
/// (nearly) every lane and only in word 1; and the model itself
/// discriminates: reading row_xmask:9 as row_share:9 disagrees with it.
#[test]
fn a_wrong_gfx10_dpp_kernel_is_caught() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for wave64 in [false, true] {
        let wave = if wave64 { 64 } else { 32 };
        let image = test_kernel(&tc, "dpp_moves.s", "gfx1030", wave64, true, scratch.path());
        let bad = run_dpp(
            &mut EmuDevice::for_target(t("gfx1030")),
            &image,
            wave,
            1,
            0x10_0bad,
        );
        assert!(
            bad.len() > 200 && bad.iter().all(|l| l.contains("word 1:")),
            "wave{wave}: {} mismatches, first {:?}",
            bad.len(),
            bad.first()
        );
    }
    let [a, b, c] = inputs(64, 5);
    let differs = (0..64).filter(|&i| {
        let share = (a[(i & !15) + 9] ^ b[i]).wrapping_add(c[i]);
        dpp_model(&a, &b, &c, 64, i)[1] != share
    });
    assert!(
        differs.count() >= 60,
        "row_xmask:9 and row_share:9 must differ in nearly every lane"
    );
}

/// dpp_unsettled.s: the even lanes read their inactive odd neighbours with
/// bound_ctrl=0, fi=0, which the guides leave open: exactly those words are
/// unsettled (neither pass nor fail); the odd lanes, not written by the move,
/// keep i and are defined.
#[test]
fn inactive_dpp16_source_without_fi_is_unsettled_on_gfx10() {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let tc = toolchain(scratch.path());
    for wave64 in [false, true] {
        let image = test_kernel(
            &tc,
            "dpp_unsettled.s",
            "gfx1030",
            wave64,
            false,
            scratch.path(),
        );
        let mut dev = EmuDevice::for_target(t("gfx1030"));
        let n = 256;
        let [a, b, c] = inputs(n, 0x10_5e7);
        let bufs: Vec<u64> = [&a, &b, &c, &a]
            .iter()
            .map(|v| {
                let p = dev.alloc(4 * n).expect("alloc");
                dev.write(p, &bytes(v)).expect("write");
                p
            })
            .collect();
        let mut args: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
        args.extend_from_slice(&(n as u32).to_le_bytes());
        launch_user(
            &mut dev,
            &image,
            "k",
            &args,
            Dispatch {
                grid_blocks: [1, 1, 1],
                block: [256, 1, 1],
            },
        );
        let mut out = vec![0u8; 4 * n];
        dev.read(bufs[3], &mut out).expect("read");
        let words: Vec<u32> = bytemuck::cast_slice(&out).to_vec();
        let definedness = dev.definedness(bufs[3], n).expect("definedness");
        assert!(
            definedness.waves.is_empty(),
            "wave64={wave64}: stopped waves {:?}",
            definedness.waves
        );
        let tainted: Vec<(usize, Taint)> = definedness
            .words
            .iter()
            .map(|w| (w.word, w.taint))
            .collect();
        let even: Vec<(usize, Taint)> = (0..n).step_by(2).map(|i| (i, Taint::Unsettled)).collect();
        assert_eq!(tainted, even, "wave64={wave64}");
        assert!(
            (1..n).step_by(2).all(|i| words[i] == i as u32),
            "wave64={wave64}: odd lanes keep i"
        );
    }
}
