//! Negative controls through the real CLI on the emulator: kernels that compute
//! the wrong function, skip lanes or write out of bounds must be reported as
//! failing, with exactly the lane counts the inputs imply. If any of these
//! passed, the harness could not be trusted to catch a broken GPU.
//!
//! Each control is the reference kernel `kernels/include/xad_basic_gfx11.s` with one
//! edit, written out as a user's `.s` and passed with `--kernel` (so the
//! run-time assembly path is exercised too). The gfx12 controls at the end edit
//! `kernels/include/xad_basic_gfx12.s` and run on the emulated gfx1201, through the
//! library and through the CLI.

use crate::common::negative::*;
use crate::common::*;

const STORE_LINE: &str = "  global_store_b32 v1, v5, s[10:11]";

const OFFSET_LINE: &str = "  v_lshlrev_b32 v1, 2, v1                   // byte offset";

/// The reference kernel with `from` replaced by `to` (which must occur).
fn variant(from: &str, to: &str) -> String {
    let src = basic_source();
    assert!(
        src.contains(from),
        "xad_basic.s no longer contains {from:?}"
    );
    // Room for the extra registers some variants use.
    src.replace(from, to)
        .replace(".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 8")
        .replace(".amdhsa_next_free_sgpr 15", ".amdhsa_next_free_sgpr 16")
}

/// Run `source` with `--kernel` against the basic case on the emulator; returns
/// the run and its JSON report.
fn run_user_kernel(name: &str, source: &str) -> (Ran, serde_json::Value) {
    let dir = scratch(&format!("neg-{name}"));
    let file = dir.join(format!("{name}.s"));
    std::fs::write(&file, source).unwrap();
    let json = dir.join("report.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            &LANES.to_string(),
            "--seed",
            &SEED.to_string(),
        ])
        .arg("--kernel")
        .arg(&file)
        .arg("--json")
        .arg(&json));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
        .unwrap_or(serde_json::Value::Null);
    (r, report)
}

fn failed(report: &serde_json::Value) -> (u64, u64) {
    let t = &report["devices"][0]["cases"][0]["tally"];
    (
        t["lanes_failed"].as_u64().unwrap(),
        t["lanes_unwritten"].as_u64().unwrap(),
    )
}

#[test]
fn correct_user_kernel_with_other_instructions_passes() {
    let (r, report) = run_user_kernel(
        "xor_add",
        &variant(
            XAD_LINE,
            "  v_xor_b32 v5, v2, v3\n  v_add_nc_u32 v5, v5, v4",
        ),
    );
    assert_eq!(r.code, 0, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (0, 0));
    assert!(r.stdout.contains("emulated gfx1100"), "{}", r.stdout);
}

#[test]
fn add3_instead_of_xad_is_caught_lane_for_lane() {
    let (a, b, c) = sources();
    let want = (0..LANES)
        .filter(|&i| a[i].wrapping_add(b[i]).wrapping_add(c[i]) != (a[i] ^ b[i]).wrapping_add(c[i]))
        .count();
    assert!(
        want > LANES / 2,
        "inputs should make add3 differ on most lanes (seed {SEED})"
    );
    let (r, report) = run_user_kernel("add3", &variant(XAD_LINE, "  v_add3_u32 v5, v2, v3, v4"));
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (want as u64, 0), "seed {SEED}");
    assert!(r.stdout.contains("differing bits"), "{}", r.stdout);
}

#[test]
fn swapped_sources_are_caught_lane_for_lane() {
    let (a, b, c) = sources();
    let want = (0..LANES)
        .filter(|&i| (a[i] ^ c[i]).wrapping_add(b[i]) != (a[i] ^ b[i]).wrapping_add(c[i]))
        .count();
    let (r, report) = run_user_kernel("swapped", &variant(XAD_LINE, "  v_xad_u32 v5, v2, v4, v3"));
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (want as u64, 0), "seed {SEED}");
}

#[test]
fn skipped_lanes_are_reported_unwritten() {
    let want = (0..LANES).filter(|i| i % 64 == 37).count() as u64;
    let (r, report) = run_user_kernel(
        "skip",
        &variant(
            OFFSET_LINE,
            &format!("  v_and_b32 v6, 63, v1\n  v_cmp_ne_u32 vcc_lo, 37, v6\n  s_and_b32 exec_lo, exec_lo, vcc_lo\n{OFFSET_LINE}"),
        ),
    );
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(
        failed(&report),
        (want, want),
        "every failing lane must be unwritten, not wrong"
    );
    assert!(r.stdout.contains("lane 37: unwritten"), "{}", r.stdout);
}

#[test]
fn write_past_the_end_hits_the_guard() {
    let (r, report) = run_user_kernel(
        "guard",
        // Local id 0 of each workgroup also stores to out[count]: the first word past the end.
        &variant(
            STORE_LINE,
            &format!("{STORE_LINE}\n  v_lshlrev_b32 v6, 2, v0\n  s_lshl_b32 s15, s12, 2\n  v_add_nc_u32 v6, s15, v6\n  v_cmp_gt_u32 vcc_lo, 1, v0\n  s_and_b32 exec_lo, exec_lo, vcc_lo\n  global_store_b32 v6, v5, s[10:11]"),
        ),
    );
    assert_eq!(r.code, 1, "{}", r.all());
    let v = &report["devices"][0]["cases"][0]["guard_violations"][0];
    assert_eq!(v["buffer"], "out");
    assert_eq!(v["side"], "after");
    assert_eq!(v["nearest_offset"], 0);
    assert_eq!(
        (v["word"].as_u64(), v["words_changed"].as_u64()),
        (Some(LANES as u64), Some(1)),
        "{v}"
    );
    assert!(
        r.stdout.contains("kernel wrote outside buffer `out`"),
        "{}",
        r.stdout
    );
}

/// The hole seeded guard words close: without its `i < count` check, the last
/// workgroup's lanes past `count` read the input buffers' rear guards and store
/// `v_xad_u32` of them over the output's rear guard. With a guard of one repeated
/// byte `g` that store wrote `(g ^ g) + g == g` back and the kernel passed.
#[test]
fn a_kernel_without_its_bounds_check_fails() {
    assert_ne!(LANES % 256, 0, "the last workgroup must be partial");
    let no_check = variant(
        "  s_and_saveexec_b32 s14, vcc_lo\n  s_cbranch_execz .Lxad_basic_done\n",
        "",
    );
    let (r, report) = run_user_kernel("no_bounds_check", &no_check);
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(
        failed(&report),
        (0, 0),
        "every lane below count is right; only the guard sees the stray stores"
    );
    let v = &report["devices"][0]["cases"][0]["guard_violations"][0];
    assert_eq!(
        (v["buffer"].as_str(), v["side"].as_str()),
        (Some("out"), Some("after")),
        "{report}"
    );
    assert_eq!(v["word"], LANES as u64, "the first word past the end");
    // Written by work-items past count (the partial last workgroup's), which
    // are no lanes: none is named (once: "most likely lane 100000" of 100000).
    assert_eq!(v["lane"], serde_json::Value::Null, "{v}");
    assert_eq!(
        v["words_changed"],
        256 - LANES as u64 % 256,
        "one word per lane of the partial workgroup"
    );
    assert!(
        report["guard_seed"].is_u64(),
        "the guard seed is recorded: {report}"
    );
    assert_eq!(
        report["guard_seed"],
        report["devices"][0]["cases"][0]["guard_seed"]
    );
    assert!(
        r.stdout
            .contains("no lane addresses it (this dispatch's lanes 0-99999")
            && !r.stdout.contains("lane 100000"),
        "{}",
        r.stdout
    );
}

/// Lane 0 also stores one word before `out` and one 100 words past its end:
/// both guards fail the case, each message names the buffer word (word -1,
/// word count + 100) and its distance from the buffer, and says no lane
/// addresses it, never naming a lane the run does not have ("lane -1",
/// "lane 100100" of 100000 lanes).
#[test]
fn writes_before_and_past_the_buffer_name_the_word_not_a_lane_that_does_not_exist() {
    let stray = format!(
        "{STORE_LINE}\n  v_cmp_eq_u32 vcc_lo, 0, v1\n  s_and_b32 exec_lo, exec_lo, vcc_lo\n  global_store_b32 v1, v5, s[10:11] offset:-4\n  s_add_u32 s15, s12, 100\n  s_lshl_b32 s15, s15, 2\n  v_mov_b32 v6, s15\n  global_store_b32 v6, v5, s[10:11]"
    );
    let (r, report) = run_user_kernel("guard_both", &variant(STORE_LINE, &stray));
    assert_eq!(r.code, 1, "{}", r.all());
    assert_eq!(failed(&report), (0, 0), "every lane itself is right");
    let found = report["devices"][0]["cases"][0]["guard_violations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let sides: Vec<(&str, &str, i64, &serde_json::Value)> = found
        .iter()
        .map(|v| {
            (
                v["buffer"].as_str().unwrap_or(""),
                v["side"].as_str().unwrap_or(""),
                v["word"].as_i64().unwrap_or(0),
                &v["lane"],
            )
        })
        .collect();
    let none = serde_json::Value::Null;
    assert_eq!(
        sides,
        [
            ("out", "before", -1, &none),
            ("out", "after", LANES as i64 + 100, &none)
        ],
        "{report}"
    );
    for needle in [
        // Lane 0's result is 0: the changed byte nearest the buffer is the
        // word's top byte, 1 byte before the start.
        "nearest word -1 of `out` (1 bytes before its start)",
        "nearest word 100100 of `out` (400 bytes past its end)",
        "no lane addresses it (this dispatch's lanes 0-99999",
    ] {
        assert!(r.stdout.contains(needle), "{needle:?} in\n{}", r.stdout);
    }
    for wrong in ["lane -1", "lane 100100", "most likely"] {
        assert!(!r.stdout.contains(wrong), "{wrong:?} in\n{}", r.stdout);
    }
}

#[test]
fn store_outside_every_allocation_is_a_memory_fault() {
    let (r, report) = run_user_kernel(
        "fault",
        // A store 1 GiB past `out`: outside every allocation.
        &variant(
            STORE_LINE,
            &format!(
                "{STORE_LINE}\n  v_mov_b32 v6, 0x40000000\n  global_store_b32 v6, v5, s[10:11]"
            ),
        ),
    );
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        report["devices"][0]["cases"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("memory fault"),
        "{report}"
    );
    assert!(!r.all().contains("panicked"));
}

/// A kernel author's workflow: copy the kernels tree, edit one case's macro
/// (row_shl becomes row_shr), and run the copy with `--kernel` against the
/// case's model. The unedited copy passes; the edit is caught. `.include`
/// resolves against the copy's `kernels/include`.
#[test]
fn edited_copy_of_a_catalogue_kernel_is_checked_against_its_case() {
    let dir = scratch("neg-catalogue-copy");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    for sub in ["cases", "include"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for entry in std::fs::read_dir(src.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    let kernel = dir.join("cases/xad_dpp16_shift_w32.s");
    let run_it = || {
        run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--case",
                "dpp16_shift_w32",
                "--lanes",
                "3000",
                "--seed",
                &SEED.to_string(),
                "--kernel",
            ])
            .arg(&kernel))
    };
    let r = run_it();
    assert_eq!(r.code, 0, "unedited copy must pass:\n{}", r.all());
    let inc = dir.join("include/xad_dpp.inc");
    let text = std::fs::read_to_string(&inc).unwrap();
    let edited = text.replacen("v4 row_shl:\\k\n", "v4 row_shr:\\k\n", 1);
    assert_ne!(
        text, edited,
        "xad_dpp.inc no longer has the row_shl line this test edits"
    );
    std::fs::write(&inc, edited).unwrap();
    let r = run_it();
    assert_eq!(
        r.code,
        1,
        "row_shr in place of row_shl must fail (seed {SEED}):\n{}",
        r.all()
    );
}

/// A correct kernel written differently from ours: 64-bit flat and global
/// addresses built with carry ops, the lane index from v_mad_u32_u24, the
/// function from v_xor3_b32 + v_add3_u32. It must pass; with `+ 1` it must fail
/// on every lane.
#[test]
fn differently_written_correct_kernel_passes_and_its_off_by_one_fails() {
    const BODY: &str = "  s_load_b64 s[4:5], s[0:1], 0x0
  s_load_b64 s[6:7], s[0:1], 0x8
  s_load_b64 s[8:9], s[0:1], 0x10
  s_load_b64 s[10:11], s[0:1], 0x18
  s_load_b32 s12, s[0:1], 0x20
  v_and_b32 v0, 0x3ff, v0
  v_mad_u32_u24 v1, s2, 0x100, v0
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32 vcc_lo, s12, v1
  s_and_saveexec_b32 s14, vcc_lo
  s_cbranch_execz .Lxad_basic_done
  v_lshlrev_b32 v6, 2, v1
  v_add_co_u32 v2, vcc_lo, s4, v6
  v_add_co_ci_u32_e64 v3, vcc_lo, s5, 0, vcc_lo
  flat_load_b32 v7, v[2:3]
  v_add_co_u32 v2, vcc_lo, s6, v6
  v_add_co_ci_u32_e64 v3, vcc_lo, s7, 0, vcc_lo
  global_load_b32 v8, v[2:3], off
  global_load_b32 v9, v6, s[8:9]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_xor3_b32 v10, v7, v8, 0
  v_add3_u32 v5, v10, v9, EXTRA
  global_store_b32 v6, v5, s[10:11]
";
    let src = basic_source();
    let (start, end) = (
        src.find("xad_basic:\n").unwrap() + "xad_basic:\n".len(),
        src.find(".Lxad_basic_done:").unwrap(),
    );
    let kernel = |extra: &str| {
        format!(
            "{}{}{}",
            &src[..start],
            BODY.replace("EXTRA", extra),
            &src[end..]
        )
        .replace(".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 16")
        .replace(".amdhsa_next_free_sgpr 15", ".amdhsa_next_free_sgpr 16")
    };
    let (r, report) = run_user_kernel("mixed", &kernel("0"));
    assert_eq!(r.code, 0, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (0, 0));
    let (r, report) = run_user_kernel("mixed_plus_one", &kernel("1"));
    assert_eq!(r.code, 1, "seed {SEED}:\n{}", r.all());
    assert_eq!(
        failed(&report),
        (LANES as u64, 0),
        "every lane is off by one"
    );
}

/// The emulator's fast paths (whole-wave and whole-workgroup contiguous
/// accesses) must give way to the general path when waves or lanes are
/// permuted: swap neighbouring waves (tid ^ 32), reverse lanes inside each wave
/// (tid ^ 31). Every lane is still covered once, so both pass; the same
/// permutation with `+ 1` on the result fails every lane.
#[test]
fn permuted_waves_and_lanes_take_the_general_memory_path() {
    const AND_LINE: &str = "  v_and_b32 v0, 0x3ff, v0                   // local id x";
    for (name, permute) in [
        ("swap_waves", "  v_xor_b32 v0, 32, v0"),
        ("reverse_lanes", "  v_xor_b32 v0, 31, v0"),
    ] {
        let kernel = variant(AND_LINE, &format!("{AND_LINE}\n{permute}"));
        let (r, report) = run_user_kernel(name, &kernel);
        assert_eq!(r.code, 0, "{name}, seed {SEED}:\n{}", r.all());
        assert_eq!(failed(&report), (0, 0), "{name}");
        let off_by_one = kernel.replace(
            XAD_LINE,
            "  v_xad_u32 v5, v2, v3, v4\n  v_add_nc_u32 v5, 1, v5",
        );
        let (r, report) = run_user_kernel(&format!("{name}_plus_one"), &off_by_one);
        assert_eq!(r.code, 1, "{name}+1, seed {SEED}:\n{}", r.all());
        assert_eq!(
            failed(&report),
            (LANES as u64, 0),
            "{name}+1: every lane wrong, none unwritten"
        );
    }
}

/// The same through the CLI: `run --backend emu --target gfx1201 --kernel wrong.s --case basic`.
#[test]
fn gfx12_wrong_kernels_fail_through_the_cli() {
    let run_it = |name: &str, source: &str| {
        let dir = scratch(&format!("neg12-cli-{name}"));
        let file = dir.join(format!("{name}.s"));
        std::fs::write(&file, source).unwrap();
        let json = dir.join("report.json");
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--target",
                GFX12,
                "--case",
                "basic",
                "--lanes",
                &LANES.to_string(),
            ])
            .args(["--seed", &SEED.to_string(), "--kernel"])
            .arg(&file)
            .arg("--json")
            .arg(&json));
        let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
            .unwrap_or(serde_json::Value::Null);
        (r, report)
    };
    let (r, report) = run_it("unedited", &gfx12_variant(XAD_LINE, XAD_LINE));
    assert_eq!(r.code, 0, "seed {SEED}:\n{}", r.all());
    assert_eq!(failed(&report), (0, 0));
    assert!(r.stdout.contains("emulated gfx1201"), "{}", r.stdout);
    for (name, edit, wrong) in GFX12_WRONG {
        let (r, report) = run_it(name, &gfx12_variant(XAD_LINE, edit));
        assert_eq!(r.code, 1, "{name}, seed {SEED}:\n{}", r.all());
        assert_eq!(
            failed(&report),
            (lanes_differing(wrong), 0),
            "{name}, seed {SEED}"
        );
    }
}
