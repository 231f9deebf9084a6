//! Memory counters and hazards through the binary: user kernels (a generation's reference
//! kernel or a case stub, edited, or LLVM's own code generator's output) run with
//! `run --backend emu --kernel`, where a register read before its load's wait, a wait that covers
//! only the older loads, a register rewritten while a load may still write it, or an instruction
//! inside a hazard's window (gfx9's wait states, gfx11's and gfx12's SALU/VALU SGPR hazards,
//! CDNA5's `s_wait_xcnt`, `s_setreg` of MODE, an XNACK soft clause) makes the run fail (exit 1)
//! naming the register and the wait it needs; the same kernel with the wait passes. The
//! emulator's static passes: src/platform/emu/counters.rs and hazards/; the lanes' definedness
//! in this process is the `emu` crate's `definedness`.

use crate::common;

// ---- memory counters (src/platform/emu/counters.rs) ----

/// The project's own basic kernel `file` of `dir` (a kernels/ directory:
/// `cases` for a stub, `include` for a generation's reference kernel), with
/// every line for which `edit` returns `None` removed and the others replaced
/// by what it returns, in it and in the frame files it includes (copied
/// beside it as `../include`, where `run --kernel` looks for them).
fn edited_basic(
    dir: &str,
    file: &str,
    stem: &str,
    edit: impl Fn(&str) -> Option<String>,
) -> std::path::PathBuf {
    let kernels = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let root = common::scratch(&format!("counters-{stem}"));
    let apply = |from: &std::path::Path, to: &std::path::Path| {
        let text = std::fs::read_to_string(from).unwrap();
        let edited: String = text.lines().filter_map(&edit).map(|l| l + "\n").collect();
        std::fs::write(to, edited).unwrap();
    };
    std::fs::create_dir_all(root.join("include")).unwrap();
    for entry in std::fs::read_dir(kernels.join("include")).unwrap() {
        let entry = entry.unwrap();
        apply(&entry.path(), &root.join("include").join(entry.file_name()));
    }
    std::fs::create_dir_all(root.join("k")).unwrap();
    let out = root.join("k").join(format!("{file}.s"));
    apply(&kernels.join(dir).join(format!("{file}.s")), &out);
    out
}

/// `lines` inserted before the basic kernel's `v_xad_u32 v5, v2, v3, v4`.
fn before_xad(dir: &str, file: &str, stem: &str, lines: &str) -> std::path::PathBuf {
    edited_basic(dir, file, stem, |l| {
        Some(if l.trim_start().starts_with("v_xad_u32 v5, v2, v3, v4") {
            format!("{lines}\n{l}")
        } else {
            l.to_string()
        })
    })
}

fn run_user_kernel(path: &std::path::Path, target: &str, case: &str) -> common::Ran {
    common::run(
        common::harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "600",
                "--seed",
                "7",
                "--target",
                target,
                "--case",
                case,
                "--kernel",
            ])
            .arg(path),
    )
}

/// (kernels dir, file, case, a target of that generation, the vector-load wait line, how the
/// wait for the first of three loads is spelled).
const BASIC_BY_GENERATION: [(&str, &str, &str, &str, &str, &str); 6] = [
    (
        "cases",
        "xad_basic_w64",
        "basic_w64",
        "gfx942",
        "s_waitcnt vmcnt(0)",
        "s_waitcnt vmcnt(2)",
    ),
    (
        "cases",
        "xad_basic_w64",
        "basic_w64",
        "gfx908",
        "s_waitcnt vmcnt(0)",
        "s_waitcnt vmcnt(2)",
    ),
    (
        "include",
        "xad_basic_gfx10",
        "basic",
        "gfx1010",
        "s_waitcnt vmcnt(0)",
        "s_waitcnt vmcnt(2)",
    ),
    (
        "include",
        "xad_basic_gfx11",
        "basic",
        "gfx1100",
        "s_waitcnt vmcnt(0)",
        "s_waitcnt vmcnt(2)",
    ),
    (
        "include",
        "xad_basic_gfx11",
        "basic",
        "gfx1151",
        "s_waitcnt vmcnt(0)",
        "s_waitcnt vmcnt(2)",
    ),
    (
        "include",
        "xad_basic_gfx12",
        "basic",
        "gfx1201",
        "s_wait_loadcnt 0",
        "s_wait_loadcnt 2",
    ),
];

#[test]
fn a_load_read_before_its_wait_is_undefined_on_every_generation_and_passes_with_it() {
    for (dir, file, case, target, wait, needed) in BASIC_BY_GENERATION {
        // Positive twin: the kernel as it is (with its wait) passes.
        let kept = edited_basic(dir, file, &format!("{target}-kept"), |l| {
            Some(l.to_string())
        });
        let r = run_user_kernel(&kept, target, case);
        assert_eq!(r.code, 0, "{target} with its wait:\n{}", r.all());
        let cut = edited_basic(dir, file, &format!("{target}-cut"), |l| {
            (!l.trim_start().starts_with(wait)).then(|| l.to_string())
        });
        let r = run_user_kernel(&cut, target, case);
        assert_eq!(r.code, 1, "{target} without `{wait}`:\n{}", r.all());
        let text = r.all();
        assert!(text.contains("undefined"), "{target}: {text}");
        assert!(
            text.contains("v2 read before `global_load")
                && text.contains(&format!("was waited for: needs {needed}")),
            "{target}: the origin names the load and the wait:\n{text}"
        );
        assert!(!text.contains("passed, 0 failed"), "{target}: {text}");
    }
}

#[test]
fn a_wait_that_covers_only_the_older_loads_leaves_the_youngest_undefined() {
    for (dir, file, case, target, wait, _) in BASIC_BY_GENERATION {
        let partial = wait.replace("(0)", "(1)").replace(" 0", " 1");
        let cut = edited_basic(dir, file, &format!("{target}-partial"), |l| {
            Some(if l.trim_start().starts_with(wait) {
                format!("  {partial}")
            } else {
                l.to_string()
            })
        });
        let r = run_user_kernel(&cut, target, case);
        assert_eq!(r.code, 1, "{target} with `{partial}`:\n{}", r.all());
        let needed = if target == "gfx1201" {
            "s_wait_loadcnt 0"
        } else {
            "s_waitcnt vmcnt(0)"
        };
        let text = r.all();
        assert!(
            text.contains("v4 read before `global_load")
                && text.contains(&format!("needs {needed}")),
            "{target}: {text}"
        );
    }
}

#[test]
fn a_scalar_load_is_covered_only_by_a_wait_for_zero() {
    // gfx11: the kernel's two s_loads then lgkmcnt(1): SMEM returns out of
    // order, so neither is known to have landed (LLVM waits for 0 too).
    let one = edited_basic("include", "xad_basic_gfx11", "lgkm1", |l| {
        Some(l.replace("s_waitcnt lgkmcnt(0)", "s_waitcnt lgkmcnt(1)"))
    });
    let r = run_user_kernel(&one, "gfx1100", "basic");
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.all().contains("before `s_load_b") && r.all().contains("needs s_waitcnt lgkmcnt(0)"),
        "{}",
        r.all()
    );
    // gfx12: s_wait_kmcnt 1 likewise; s_wait_kmcnt 0 (the kernel as it is) passes.
    let one = edited_basic("include", "xad_basic_gfx12", "km1", |l| {
        Some(l.replace("s_wait_kmcnt 0", "s_wait_kmcnt 1"))
    });
    let r = run_user_kernel(&one, "gfx1201", "basic");
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("needs s_wait_kmcnt 0"), "{}", r.all());
    let kept = edited_basic("include", "xad_basic_gfx12", "km0", |l| Some(l.to_string()));
    assert_eq!(run_user_kernel(&kept, "gfx1201", "basic").code, 0);
}

#[test]
fn writing_a_register_a_load_may_still_write_is_undefined() {
    // v_mov_b32 v4, v4... no: v4 is overwritten before the wait (the load
    // may land after the write), then the wait, then the xad reads v4.
    let raced = edited_basic("include", "xad_basic_gfx11", "waw", |l| {
        Some(if l.trim_start().starts_with("s_waitcnt vmcnt(0)") {
            "  v_mov_b32 v4, 0\n  s_waitcnt vmcnt(0)".to_string()
        } else {
            l.to_string()
        })
    });
    let r = run_user_kernel(&raced, "gfx1100", "basic");
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.all().contains("v4 written while `global_load_b32 v4")
            && r.all().contains("which lands last is a race"),
        "{}",
        r.all()
    );
    // Positive twin: the same write after the wait is an ordinary overwrite
    // (the model then disagrees, but every lane is defined: failed, not undefined).
    let after = edited_basic("include", "xad_basic_gfx11", "waw-after", |l| {
        Some(if l.trim_start().starts_with("s_waitcnt vmcnt(0)") {
            "  s_waitcnt vmcnt(0)\n  v_mov_b32 v4, 0".to_string()
        } else {
            l.to_string()
        })
    });
    let r = run_user_kernel(&after, "gfx1100", "basic");
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(!r.all().contains("undefined"), "{}", r.all());
}

#[test]
fn a_flat_load_to_global_memory_needs_its_vector_counter() {
    // FLAT reaching global memory returns its data under vmcnt (LLVM's
    // SIInsertWaitcnts waits on lgkmcnt only for a FLAT that may reach LDS;
    // AMD's ROCr blit kernels wait vmcnt(0) alone): vmcnt(0) covers it,
    // lgkmcnt(0) alone does not.
    let flat = |stem: &str, wait: &'static str| {
        edited_basic("include", "xad_basic_gfx11", stem, move |l| {
            let t = l.trim_start();
            Some(if t.starts_with("global_load_b32 v2") {
                "  v_mov_b32 v8, s5\n  v_add_co_u32 v9, vcc_lo, s4, v1\n  v_add_co_ci_u32 v10, vcc_lo, 0, v8, vcc_lo\n  flat_load_b32 v2, v[9:10]".to_string()
            } else if t.starts_with("s_waitcnt vmcnt(0)") {
                format!("  {wait}")
            } else {
                l.replace(".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 11")
            })
        })
    };
    let r = run_user_kernel(&flat("flat-lgkm", "s_waitcnt lgkmcnt(0)"), "gfx1100", "basic");
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(r.all().contains("needs s_waitcnt vmcnt("), "{}", r.all());
    let r = run_user_kernel(&flat("flat-vm", "s_waitcnt vmcnt(0)"), "gfx1100", "basic");
    assert_eq!(r.code, 0, "{}", r.all());
}

// ---- hazards (src/platform/emu/hazards/) ----

/// The basic kernel of `dir`/`file` with `producer` then `consumer` before
/// its `v_xad_u32`: run on `target`, it fails with an undefined result
/// naming `rule`; with `padding` between the two (the window respected) it
/// passes.
fn hazard_pair(
    (dir, file, target, case): (&str, &str, &str, &str),
    producer: &str,
    padding: &str,
    consumer: &str,
    rule: &str,
) {
    let bad = before_xad(
        dir,
        file,
        &format!("haz-{target}-bad"),
        &format!("{producer}\n{consumer}"),
    );
    let good = before_xad(
        dir,
        file,
        &format!("haz-{target}-good"),
        &format!("{producer}\n{padding}\n{consumer}"),
    );
    let r = run_user_kernel(&bad, target, case);
    assert_eq!(r.code, 1, "{target} inside the window:\n{}", r.all());
    assert!(
        r.all().contains("hazard window") && r.all().contains(rule),
        "{target}: {}",
        r.all()
    );
    let r = run_user_kernel(&good, target, case);
    assert_eq!(
        r.code,
        0,
        "{target} with the window respected:\n{}",
        r.all()
    );
}

#[test]
fn gfx12_salu_write_of_a_valu_read_sgpr_then_a_read_needs_s_wait_alu() {
    hazard_pair(
        ("include", "xad_basic_gfx12", "gfx1201", "basic"),
        "  v_add_nc_u32 v5, s13, v2\n  s_mov_b32 s13, 0",
        "  s_wait_alu 0xfffe",
        "  v_add_nc_u32 v2, s13, v2",
        "gfx12 SALU writes an SGPR a VALU has read",
    );
}

#[test]
fn gfx9_valu_write_then_dpp_read_needs_two_wait_states() {
    for target in ["gfx908", "gfx942"] {
        hazard_pair(
            ("cases", "xad_basic_w64", target, "basic_w64"),
            "  v_mov_b32 v5, v2",
            "  s_nop 1",
            "  v_mov_b32_dpp v2, v5 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            "gfx9 VALU writes a VGPR, then DPP reads it",
        );
    }
}

#[test]
fn gfx9_valu_write_of_an_address_sgpr_then_vector_memory_needs_five_wait_states() {
    hazard_pair(
        ("cases", "xad_basic_w64", "gfx90a", "basic_w64"),
        "  v_mov_b32 v5, s8\n  v_readfirstlane_b32 s8, v5",
        "  s_nop 4",
        "  global_load_dword v4, v1, s[8:9]\n  s_waitcnt vmcnt(0)",
        "then a vector memory instruction reads it",
    );
}

/// CDNA5's XCNT: a load whose address register is rewritten before
/// `s_wait_xcnt` covers it loads an undefined value (a replayed translation
/// reads the new address); with the wait it passes.
#[test]
fn gfx1250_load_address_rewritten_before_s_wait_xcnt_is_undefined() {
    hazard_pair(
        ("include", "xad_basic_gfx12", "gfx1250", "basic"),
        "  global_load_b32 v2, v1, s[4:5]",
        "  s_wait_xcnt 0",
        "  v_mov_b32 v1, v1\n  s_wait_loadcnt 0",
        "gfx1250 (CDNA5) memory instruction reads a register",
    );
}

/// A store's data rewritten right after it: the stored words are undefined
/// (the replay may read the new data); after `s_wait_xcnt 0` they are not.
/// Rewritten after only the load's own counter wait: unsettled, since LLVM
/// 22 still waits for XCNT there and no document says whether it must.
#[test]
fn gfx1250_store_data_rewritten_before_s_wait_xcnt_is_undefined_and_after_loadcnt_unsettled() {
    let store = "global_store_b32 v1, v5, s[10:11]";
    let after_store = |stem: &str, lines: &'static str| {
        edited_basic("include", "xad_basic_gfx12", stem, move |l| {
            Some(if l.trim_start().starts_with(store) {
                format!("{l}\n{lines}")
            } else {
                l.to_string()
            })
        })
    };
    let r = run_user_kernel(
        &after_store("xcnt-store-bad", "  v_mov_b32 v5, 0"),
        "gfx1250",
        "basic",
    );
    assert_eq!(r.code, 1, "{}", r.all());
    assert!(
        r.all()
            .contains("v5 read inside a hazard window before `v_mov_b32_e32 v5, 0`"),
        "{}",
        r.all()
    );
    assert!(r.all().contains("needs s_wait_xcnt"), "{}", r.all());
    let r = run_user_kernel(
        &after_store("xcnt-store-good", "  s_wait_xcnt 0\n  v_mov_b32 v5, 0"),
        "gfx1250",
        "basic",
    );
    assert_eq!(r.code, 0, "{}", r.all());
    // The same rewrite on gfx1201 (no XCNT there) passes.
    let r = run_user_kernel(
        &after_store("xcnt-store-gfx12", "  v_mov_b32 v5, 0"),
        "gfx1201",
        "basic",
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let unsettled = before_xad(
        "include",
        "xad_basic_gfx12",
        "xcnt-load-counter",
        "  global_load_b32 v2, v1, s[4:5]\n  s_wait_loadcnt 0\n  v_mov_b32 v1, v1",
    );
    let r = run_user_kernel(&unsettled, "gfx1250", "basic");
    assert_eq!(r.code, 77, "{}", r.all());
    assert!(
        r.all()
            .contains("after a wait on the access's own counter but before s_wait_xcnt"),
        "{}",
        r.all()
    );
}

// ---- LLVM as the oracle (tests/kernels/llvm/oracle.ll) ----

/// oracle.ll compiled with `-O2` by `tc` for `mcpu`, as LLVM wrote it and
/// with `drop` lines removed, assembled and linked by the same LLVM.
fn llvm_kernel(
    tc: &xad_harness::platform::toolchain::Toolchain,
    mcpu: &str,
    dir: &std::path::Path,
    stem: &str,
    drop: Option<&dyn Fn(&str) -> bool>,
) -> (std::path::PathBuf, String) {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/llvm/oracle.ll");
    let asm = dir.join(format!("{stem}.s"));
    let out = std::process::Command::new(&tc.clang)
        .args([
            "--target=amdgcn-amd-amdhsa",
            &format!("-mcpu={mcpu}"),
            "-O2",
            "-nogpulib",
            "-S",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&asm)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "{mcpu}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&asm).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !drop.is_some_and(|d| d(l.trim_start())))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&asm, &kept).unwrap();
    let obj = dir.join(format!("{stem}.o"));
    let out = std::process::Command::new(&tc.clang)
        .args(["--target=amdgcn-amd-amdhsa", &format!("-mcpu={mcpu}"), "-c"])
        .arg(&asm)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("run clang");
    assert!(
        out.status.success(),
        "{mcpu}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hsaco = dir.join(format!("{stem}.hsaco"));
    tc.link(&obj, &hsaco)
        .unwrap_or_else(|e| panic!("{mcpu}: {e}"));
    (hsaco, text)
}

fn is_memory_wait(l: &str) -> bool {
    [
        "s_waitcnt ",
        "s_waitcnt\t",
        "s_wait_loadcnt",
        "s_wait_kmcnt",
        "s_wait_storecnt",
        "s_wait_dscnt",
    ]
    .iter()
    .any(|w| l.starts_with(w))
}

fn is_hazard_padding(l: &str) -> bool {
    ["s_nop", "s_wait_alu", "s_waitcnt_depctr"]
        .iter()
        .any(|w| l.starts_with(w))
}

/// For a target of every generation: the kernel as LLVM compiled it runs
/// clean; without its memory waits every lane is undefined and the origin
/// names the wait LLVM had put there; without its hazard padding (where LLVM
/// padded a hazard: gfx9's DPP read, gfx12's VCC carry) the rule is named.
/// gfx12, gfx950 and gfx1250 need LLVM 22 (LLVM 19 does not insert gfx12's
/// `s_wait_alu`: the last row pins that disagreement down).
#[test]
fn llvm_compiled_kernels_run_clean_and_fail_without_their_waits_or_padding() {
    let dir = common::scratch("llvm-oracle");
    let llvm22 = xad_harness::platform::toolchain::discover("gfx950", &dir).ok();
    // (target, needs LLVM 22, case, the hazard rule LLVM's padding avoids)
    let rows: [(&str, bool, &str, Option<&str>); 10] = [
        (
            "gfx908",
            false,
            "basic_w64",
            Some("gfx9 VALU writes a VGPR, then DPP reads it"),
        ),
        (
            "gfx90a",
            false,
            "basic_w64",
            Some("gfx9 VALU writes a VGPR, then DPP reads it"),
        ),
        (
            "gfx942",
            false,
            "basic_w64",
            Some("gfx9 VALU writes a VGPR, then DPP reads it"),
        ),
        (
            "gfx950",
            true,
            "basic_w64",
            Some("gfx9 VALU writes a VGPR, then DPP reads it"),
        ),
        ("gfx1010", false, "basic", None),
        ("gfx1030", false, "basic", None),
        ("gfx1100", false, "basic", None),
        ("gfx1151", false, "basic", None),
        (
            "gfx1201",
            true,
            "basic",
            Some("gfx12 VALU writes VCC (a VALU has read it), then a VALU reads VCC"),
        ),
        // CDNA5: LLVM 22's entry writes MODE bit 25, reads the cluster field
        // of IB_STS2 and indexes with scale_offset; no s_wait_alu hazards.
        ("gfx1250", true, "basic", None),
    ];
    for (mcpu, needs22, case, rule) in rows {
        let tc = if needs22 {
            match &llvm22 {
                Some(tc) => tc.clone(),
                None => {
                    eprintln!("skipping {mcpu}: no LLVM 22 here (ci/setup.sh installs it)");
                    continue;
                }
            }
        } else {
            xad_harness::platform::toolchain::discover(mcpu, &dir).unwrap_or_else(|e| panic!("{mcpu}: {e}"))
        };
        let (as_written, text) = llvm_kernel(&tc, mcpu, &dir, &format!("{mcpu}-as-written"), None);
        let r = run_user_kernel(&as_written, mcpu, case);
        assert_eq!(r.code, 0, "{mcpu} as LLVM wrote it:\n{}", r.all());

        let (no_waits, _) = llvm_kernel(
            &tc,
            mcpu,
            &dir,
            &format!("{mcpu}-no-waits"),
            Some(&is_memory_wait),
        );
        let r = run_user_kernel(&no_waits, mcpu, case);
        assert_eq!(r.code, 1, "{mcpu} without its waits:\n{}", r.all());
        assert!(
            r.all().contains("was waited for: needs"),
            "{mcpu}: {}",
            r.all()
        );

        let (no_padding, _) = llvm_kernel(
            &tc,
            mcpu,
            &dir,
            &format!("{mcpu}-no-padding"),
            Some(&is_hazard_padding),
        );
        let r = run_user_kernel(&no_padding, mcpu, case);
        match rule {
            Some(rule) => {
                assert!(
                    text.lines().any(|l| is_hazard_padding(l.trim_start())),
                    "{mcpu}: LLVM padded nothing:\n{text}"
                );
                assert_eq!(r.code, 1, "{mcpu} without its padding:\n{}", r.all());
                assert!(r.all().contains(rule), "{mcpu}: {}", r.all());
            }
            None => assert_eq!(
                r.code,
                0,
                "{mcpu}: no hazard here, padding or not:\n{}",
                r.all()
            ),
        }
    }
    // LLVM 19 predates gfx12's s_wait_alu rules (AMDGPUWaitSGPRHazards): its
    // gfx1201 code has the VCC hazard LLVM 22 pads, and the tool says so.
    let tc19 = xad_harness::platform::toolchain::discover("gfx1201", &dir).unwrap();
    let (llvm19, text) = llvm_kernel(&tc19, "gfx1201", &dir, "gfx1201-llvm19", None);
    if !text.contains("s_wait_alu") {
        let r = run_user_kernel(&llvm19, "gfx1201", "basic");
        assert_eq!(r.code, 1, "{}", r.all());
        assert!(r.all().contains("gfx12 VALU writes VCC"), "{}", r.all());
    }
}

#[test]
fn gfx11_wave64_salu_write_of_a_mask_a_valu_read_needs_sa_sdst() {
    // v_cndmask reads VCC as its lane mask, SALU writes VCC, a VALU reads it
    // again: needs s_waitcnt_depctr 0xfffe after the SALU writes.
    hazard_pair(
        ("cases", "xad_basic_w64", "gfx1100", "basic_w64"),
        "  v_cndmask_b32 v5, v2, v2, vcc_lo\n  s_mov_b32 vcc_lo, exec_lo\n  s_mov_b32 vcc_hi, exec_hi",
        "  s_waitcnt_depctr 0xfffe",
        "  v_cndmask_b32 v2, v2, v2, vcc_lo",
        "gfx11 wave64 VALU reads an SGPR as a lane mask",
    );
}

// ---- s_setreg and MODE (gfx9's s_setreg windows) ----

/// gfx9: an `s_getreg_b32` of MODE within 2 wait states of an `s_setreg`
/// of it reads an undefined value (LLVM checkGetRegHazards); with `s_nop 1`
/// between, it reads what was written. The read goes into the result and
/// back out again, so only its definedness shows.
#[test]
fn gfx9_setreg_then_getreg_of_mode_needs_two_wait_states() {
    for target in ["gfx908", "gfx942"] {
        hazard_pair(
            ("cases", "xad_basic_w64", target, "basic_w64"),
            "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3",
            "  s_nop 1",
            "  s_getreg_b32 s16, hwreg(HW_REG_MODE, 0, 4)\n  v_add_u32 v2, s16, v2\n  v_subrev_u32 v2, s16, v2",
            "gfx9 s_setreg, then s_getreg of the same register",
        );
    }
}

/// gfx9: two `s_setreg`s of MODE within 2 wait states leave it undefined
/// (LLVM checkSetRegHazards), so a later read is undefined however far away.
#[test]
fn gfx9_setreg_then_setreg_of_mode_needs_two_wait_states() {
    hazard_pair(
        ("cases", "xad_basic_w64", "gfx90a", "basic_w64"),
        "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3",
        "  s_nop 1",
        "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 2\n  s_nop 7\n  s_getreg_b32 s16, hwreg(HW_REG_MODE, 0, 4)\n  v_add_u32 v2, s16, v2\n  v_subrev_u32 v2, s16, v2",
        "gfx9 s_setreg, then s_setreg of the same register",
    );
}

/// MODE bits no `s_setreg` wrote hold the descriptor's float modes and the
/// runtime's setting, which the emulator does not reproduce: reading them
/// is unsettled on every lane (exit 77, nothing verified); the bits it wrote
/// read back settled on every generation.
#[test]
fn mode_reads_back_what_setreg_wrote_and_unwritten_bits_are_unsettled() {
    let read = |field: &str| {
        format!(
            "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3\n  s_nop 1\n  s_getreg_b32 s16, hwreg(HW_REG_MODE, {field})"
        )
    };
    for (dir, file, target, case, add, sub) in [
        (
            "cases",
            "xad_basic_w64",
            "gfx942",
            "basic_w64",
            "v_add_u32",
            "v_subrev_u32",
        ),
        (
            "include",
            "xad_basic_gfx10",
            "gfx1030",
            "basic",
            "v_add_nc_u32",
            "v_subrev_nc_u32",
        ),
        (
            "include",
            "xad_basic_gfx11",
            "gfx1100",
            "basic",
            "v_add_nc_u32",
            "v_subrev_nc_u32",
        ),
        (
            "include",
            "xad_basic_gfx12",
            "gfx1201",
            "basic",
            "v_add_nc_u32",
            "v_subrev_nc_u32",
        ),
    ] {
        let use_s16 = format!("  {add} v2, s16, v2\n  {sub} v2, s16, v2");
        let written = before_xad(
            dir,
            file,
            &format!("mode-{target}-written"),
            &format!("{}\n{use_s16}", read("0, 4")),
        );
        let r = run_user_kernel(&written, target, case);
        assert_eq!(r.code, 0, "{target} reading the written bits:\n{}", r.all());
        let unwritten = before_xad(
            dir,
            file,
            &format!("mode-{target}-unwritten"),
            &format!("{}\n{use_s16}", read("4, 4")),
        );
        let r = run_user_kernel(&unwritten, target, case);
        assert_eq!(r.code, 77, "{target} reading unwritten bits:\n{}", r.all());
        assert!(
            r.all().contains("read before s_setreg wrote them"),
            "{target}: {}",
            r.all()
        );
    }
}

/// MODE bits that change what a wave executes (gfx9-gfx11 VSKIP 28 and
/// GPR_IDX_EN 27, DEBUG_EN 11), any other hardware register, and on RDNA4
/// anything but the round and denorm modes are refused, naming the bits.
#[test]
fn setreg_of_bits_that_change_execution_is_refused() {
    for (dir, file, target, case, line, expect) in [
        (
            "include",
            "xad_basic_gfx11",
            "gfx1100",
            "basic",
            "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1",
            "bits 0x10000000",
        ),
        (
            "cases",
            "xad_basic_w64",
            "gfx90a",
            "basic_w64",
            "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 1",
            "bits 0x08000000",
        ),
        (
            "cases",
            "xad_basic_w64",
            "gfx908",
            "basic_w64",
            "  s_setreg_b32 hwreg(HW_REG_MODE, 11, 1), s4",
            "bits 0x00000800",
        ),
        (
            "include",
            "xad_basic_gfx12",
            "gfx1201",
            "basic",
            "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 8, 2), 1",
            "bits 0x00000300",
        ),
        (
            "include",
            "xad_basic_gfx11",
            "gfx1100",
            "basic",
            "  s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 4), 1",
            "models only HW_REG_MODE",
        ),
    ] {
        let k = before_xad(
            dir,
            file,
            &format!("setreg-refused-{target}-{}", expect.len()),
            line,
        );
        let r = run_user_kernel(&k, target, case);
        assert_eq!(r.code, 3, "{target} {line}:\n{}", r.all());
        assert!(r.all().contains(expect), "{target} {line}: {}", r.all());
    }
}

/// XNACK's soft clause: two back-to-back scalar loads where the second
/// overwrites the address both read. With XNACK (the code object leaves it
/// "any") a replayed first load reads the new address, so its value is
/// undefined; `s_nop 0` between them ends the clause (LLVM
/// checkSoftClauseHazards). gfx9 and gfx1010; gfx1030 has no XNACK.
#[test]
fn xnack_soft_clause_overwriting_its_own_address_needs_a_break() {
    for (dir, file, target, case, add, sub, rule) in [
        (
            "cases",
            "xad_basic_w64",
            "gfx90a",
            "basic_w64",
            "v_add_u32",
            "v_subrev_u32",
            "gfx9 with XNACK: a soft clause",
        ),
        (
            "include",
            "xad_basic_gfx10",
            "gfx1010",
            "basic",
            "v_add_nc_u32",
            "v_subrev_nc_u32",
            "gfx1010 with XNACK: back-to-back scalar memory",
        ),
    ] {
        hazard_pair(
            (dir, file, target, case),
            "  s_mov_b64 s[16:17], s[0:1]\n  s_load_dword s18, s[16:17], 0x20",
            "  s_nop 0",
            &format!(
                "  s_load_dwordx2 s[16:17], s[16:17], 0x0\n  s_waitcnt lgkmcnt(0)\n  {add} v2, s18, v2\n  {sub} v2, s18, v2"
            ),
            rule,
        );
    }
    let k = before_xad(
        "include",
        "xad_basic_gfx10",
        "soft-clause-gfx1030",
        "  s_mov_b64 s[16:17], s[0:1]\n  s_load_dword s18, s[16:17], 0x20\n  s_load_dwordx2 s[16:17], s[16:17], 0x0\n  s_waitcnt lgkmcnt(0)\n  v_add_nc_u32 v2, s18, v2\n  v_subrev_nc_u32 v2, s18, v2",
    );
    let r = run_user_kernel(&k, "gfx1030", "basic");
    assert_eq!(r.code, 0, "gfx1030 has no XNACK:\n{}", r.all());
}
