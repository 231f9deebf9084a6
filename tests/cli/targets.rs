//! Every target through the CLI on the embedded emulator: `run --target T|all`,
//! `list --target`, user kernels that name their target, the reports' target
//! fields, and negative controls per target. Nothing here is a hardware result:
//! every executor line checked says `emulated <target>`.

use crate::common::{assemble, basic_source, harness, run, scratch, Ran};
use xad_harness::platform::target::{self, TARGETS};
use xad_harness::{model::cases, platform::embedded};

fn assert_one_line_error(r: &Ran, code: i32, needle: &str) {
    assert_eq!(r.code, code, "{}", r.all());
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr:\n{}", r.stderr);
    assert!(
        lines[0].starts_with("xad-harness: ") && lines[0].contains(needle),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

/// The whole catalogue of every target passes on the emulator, each case on
/// an emulated device of its own target running that target's code object.
#[test]
fn every_case_of_every_target_passes_on_the_emulator() {
    let dir = scratch("targets-all");
    let (json, junit) = (dir.join("r.json"), dir.join("r.xml"));
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "all",
            "--lanes",
            "2048",
            "--seed",
            "12",
        ])
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit));
    assert_eq!(r.code, 0, "{}", r.all());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    // Every target this build has code objects for; one no LLVM here knew
    // (gfx950 without LLVM 22) is named as not built instead.
    let built: Vec<&target::Target> = TARGETS
        .iter()
        .filter(|t| embedded::unbuilt(t.name).is_none())
        .collect();
    for t in TARGETS
        .iter()
        .filter(|t| embedded::unbuilt(t.name).is_some())
    {
        assert!(
            r.all()
                .contains(&format!("without code objects for {}", t.name)),
            "{}: {}",
            t.name,
            r.all()
        );
    }
    let built_names: Vec<&str> = built.iter().map(|t| t.name).collect();
    assert_eq!(names, built_names, "every built target ran, in table order");
    // One emulated device per target, each with its cases; those a target
    // lacks are not results (nobody named them): none is not_supported.
    let devices = report["devices"].as_array().unwrap();
    assert_eq!(devices.len(), built.len(), "one emulated device per target");
    let results: Vec<&serde_json::Value> = devices
        .iter()
        .flat_map(|d| d["cases"].as_array().unwrap())
        .filter(|c| c["status"] != "not_supported")
        .collect();
    for t in built.iter().copied() {
        let want: Vec<&str> = cases::catalogue_for(t).iter().map(|c| c.name).collect();
        let got: Vec<&str> = results
            .iter()
            .filter(|c| c["target"] == t.name)
            .map(|c| c["case"].as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{}: the target's catalogue, in order", t.name);
        for c in results.iter().filter(|c| c["target"] == t.name) {
            assert_eq!(c["executor"], format!("emulated {}", t.name), "{c}");
        }
        assert!(
            r.stdout.contains(&format!("target {} (", t.name)),
            "{}",
            r.stdout
        );
        let count = cases::catalogue_for(t).len();
        // Cases resting on unsettled ISA points are counted apart from the
        // passes, unsettled whether some of their words were verified or
        // none (sreg_hi_w32: every word is unsettled); every other status is
        // 0, and the cases the target lacks are no results at all.
        let of_target = results.iter().filter(|c| c["target"] == t.name);
        let of = |status: &str| of_target.clone().filter(|c| c["status"] == status).count();
        let unsettled = of("unsettled");
        assert!(of_target
            .clone()
            .all(|c| c["status"] == "pass" || c["status"] == "unsettled"));
        // The closing table's row: target, passed, failed, unsettled,
        // skipped, executor.
        let row = format!(
            "{} {} 0 {unsettled} 0 emulated {}",
            t.name,
            count - unsettled,
            t.name
        );
        assert!(
            r.stdout
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == row),
            "{row}\n{}",
            r.stdout
        );
    }
    // Issue 42: one block per target and a closing table, whatever the
    // lane count; the other generations' cases are counted in one note.
    assert!(r.stdout.lines().count() < 200, "{}", r.stdout);
    assert!(
        r.stdout.contains("  target ")
            && r.stdout
                .contains("passed     failed  unsettled    skipped  executor"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("PASS "),
        "passes are in the table: {}",
        r.stdout
    );
    assert_eq!(
        report["summary"]["not_supported"], 0,
        "{}",
        report["summary"]
    );
    assert!(
        report["notes"]
            .to_string()
            .contains("case run(s) left out over"),
        "{}",
        report["notes"]
    );
    assert!(
        results
            .iter()
            .all(|c| c["error"].is_null() && c["tally"]["lanes_failed"] == 0),
        "all pass"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(
        xml.matches("<testsuite ").count(),
        built.len(),
        "a JUnit suite per target"
    );
    assert!(
        xml.contains("name=\"xad-harness emulator:gfx1201\""),
        "{xml}"
    );
}

#[test]
fn list_per_target_shows_the_cases_that_target_has() {
    for t in TARGETS {
        let r = run(harness().args(["list", "--json", "--target", t.name]));
        assert_eq!(r.code, 0, "{}", r.all());
        let rows: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let names: Vec<&str> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = cases::catalogue_for(t).iter().map(|c| c.name).collect();
        assert_eq!(names, want, "{}", t.name);
        assert!(rows.as_array().unwrap().iter().all(|c| c["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == t.name)));
    }
    let text = run(harness().arg("list")).stdout;
    for t in TARGETS {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(t.name) && l.contains(t.architecture)),
            "{t:?} in\n{text}"
        );
    }
}

#[test]
fn an_unknown_target_is_one_line_and_exit_2() {
    for args in [
        &["run", "--backend", "emu", "--target", "gfx803"][..],
        &["list", "--target", "gfx9000"],
    ] {
        let r = run(harness().args(args));
        assert_one_line_error(&r, 2, "unknown target");
        assert!(
            r.stderr.contains("gfx1151") && r.stderr.contains("or all"),
            "names the known targets: {}",
            r.stderr
        );
    }
    let r = run(harness().args(["run", "--backend", "emu", "--target", "gfx1151:xnack-"]));
    assert_one_line_error(&r, 2, "without features: gfx1151");
}

/// A code object says its target: without `--target` it runs on an emulated
/// device of that target; a generic one runs on any processor it covers; a
/// target it does not run on is refused before anything runs.
#[test]
fn a_user_code_object_runs_on_its_own_target() {
    let dir = scratch("targets-user-co");
    let r = run(harness().args(["kernels", "--out"]).arg(&dir));
    assert_eq!(r.code, 0, "{}", r.all());
    let strix = dir.join("gfx1151/xad_basic.hsaco");
    let r = run(harness()
        .args(["run", "--backend", "emu", "--lanes", "1000", "--kernel"])
        .arg(&strix));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("[emulated gfx1151]"), "{}", r.stdout);
    let r = run(harness()
        .args(["run", "--backend", "emu", "--target", "gfx1102", "--kernel"])
        .arg(&strix));
    assert_one_line_error(
        &r,
        2,
        "built for gfx1151, which does not run on --target gfx1102",
    );
    let generic = dir.join("gfx11-generic/xad_basic.hsaco");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1101",
            "--lanes",
            "1000",
            "--kernel",
        ])
        .arg(&generic));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout
            .contains("[emulated gfx1101; code object gfx11-generic]"),
        "{}",
        r.stdout
    );
    let r = run(harness()
        .args(["run", "--backend", "emu", "--target", "gfx1201", "--kernel"])
        .arg(&generic));
    assert_one_line_error(&r, 2, "does not run on --target gfx1201");
    let r = run(harness()
        .args(["run", "--backend", "emu", "--target", "all", "--kernel"])
        .arg(&generic));
    assert_one_line_error(&r, 2, "--target all runs the embedded kernels");
}

/// A source is assembled for `--target`, else for the processor its
/// `.amdgcn_target` names.
#[test]
fn a_user_source_is_assembled_for_the_target_it_names() {
    let dir = scratch("targets-user-src");
    let src = dir.join("k.s");
    std::fs::write(&src, basic_source().replace("gfx1100", "gfx1152")).unwrap();
    let r = run(harness()
        .args(["run", "--backend", "emu", "--lanes", "1000", "--kernel"])
        .arg(&src));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("[emulated gfx1152]"), "{}", r.stdout);
    std::fs::write(&src, basic_source().replace("gfx1100", "gfx803")).unwrap();
    let r = run(harness()
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(&src));
    assert_one_line_error(&r, 2, ".amdgcn_target names gfx803");
}

/// The reference kernel with xor and add swapped ((a + b) ^ c) must fail on
/// every gfx11 target it is built for, each an emulated device of its own.
#[test]
fn a_wrong_kernel_fails_on_every_gfx11_target() {
    let dir = scratch("targets-negative");
    let wrong = basic_source().replace(
        "  v_xad_u32 v5, v2, v3, v4                  // the instruction under test",
        "  v_add_nc_u32 v5, v2, v3\n  v_xor_b32 v5, v5, v4",
    );
    assert_ne!(
        wrong,
        basic_source(),
        "xad_basic.s no longer holds the line this control edits"
    );
    for t in TARGETS
        .iter()
        .filter(|t| t.generation() == xad_harness::isa::Generation::Gfx11)
    {
        let hsaco = assemble(
            &wrong.replace("gfx1100", t.name),
            t.name,
            &dir,
            &format!("wrong-{}", t.name),
        );
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "4096",
                "--seed",
                "3",
                "--target",
                t.name,
                "--kernel",
            ])
            .arg(&hsaco));
        assert_eq!(r.code, 1, "{}: {}", t.name, r.all());
        assert!(
            r.stdout.contains("FAIL          basic")
                && r.stdout.contains(&format!("emulated {}", t.name)),
            "{}",
            r.stdout
        );
    }
}

/// gfx12 passes workgroup ids in ttmp9/ttmp7 (architected SGPRs) and AMD does
/// not document whether the gfx11-style system SGPR (s2) is still written: a
/// gfx12 kernel that computes from s2 gets "unsettled" words (neither pass
/// nor fail, each naming why), never a silent pass: with every lane
/// unsettled nothing was verified, so the case is unsettled (JUnit
/// `<skipped>` saying how many words and why) and the run exits 77 with one
/// stderr line.
/// The same kernel reading ttmp9 passes outright.
#[test]
fn a_gfx12_kernel_reading_the_system_sgpr_is_unsettled_not_passed() {
    let dir = scratch("targets-gfx12-s2");
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/include/xad_basic_gfx12.s"
    ))
    .unwrap();
    let line = "s_lshl_b32 s13, ttmp9, 8";
    assert!(
        source.contains(line),
        "kernels/include/xad_basic_gfx12.s no longer reads ttmp9 this way"
    );
    let src = dir.join("s2.s");
    std::fs::write(&src, source.replace(line, "s_lshl_b32 s13, s2, 8")).unwrap();
    let json = dir.join("r.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1201",
            "--lanes",
            "600",
            "--seed",
            "4",
            "--kernel",
        ])
        .arg(&src)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(dir.join("r.xml")));
    assert_eq!(r.code, 77, "{}", r.all());
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("xad-harness:"))
        .collect();
    assert!(
        said.len() == 1 && said[0].contains("no case passed: basic"),
        "{}",
        r.all()
    );
    assert!(
        r.stdout.contains("UNSETTLED     basic")
            && r.stdout
                .contains("1 of 1 words per lane unsettled, nothing verified"),
        "{}",
        r.stdout
    );
    let junit = std::fs::read_to_string(dir.join("r.xml")).unwrap();
    assert!(
        junit.contains("<skipped message=\"unsettled: 1 of 1 words per lane unsettled: ")
            && junit.contains("s2 read: a gfx12 system SGPR"),
        "{junit}"
    );
    assert!(
        r.stdout.contains("s2 read: a gfx12 system SGPR"),
        "{}",
        r.stdout
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let case = &report["devices"][0]["cases"][0];
    assert_eq!(case["tally"]["lanes_unsettled"], 600);
    assert_eq!(
        (&case["status"], &case["lanes_passed"]),
        (&"unsettled".into(), &0.into())
    );
    assert_eq!(report["exit_code"], 77);
    // The same kernel on gfx11, where s2 is the documented workgroup id, is not unsettled.
    let gfx11 = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--lanes",
            "600",
            "--seed",
            "4",
            "--kernel",
        ])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/kernels/include/xad_basic_gfx11.s"
        )));
    assert!(
        gfx11.code == 0 && !gfx11.stdout.contains("unsettled"),
        "{}",
        gfx11.all()
    );
}

/// A case only some targets have: `--target all` runs and names exactly
/// those; one target without it, or the default gfx1100, is a usage error
/// that says which targets have it.
#[test]
fn a_case_only_some_targets_have_runs_on_exactly_those() {
    let case = "dpp_src1_sgpr_dpp16_w32";
    let dir = scratch("targets-subset");
    let json = dir.join("r.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "all",
            "--lanes",
            "300",
            "--case",
            case,
            "--json",
        ])
        .arg(&json));
    assert_eq!(r.code, 0, "{}", r.all());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let want: Vec<&str> = TARGETS
        .iter()
        .filter(|t| t.has(target::Feature::DppSrc1Scalar))
        .map(|t| t.name)
        .collect();
    let got: Vec<&str> = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(got, want);
    assert!(
        !r.stdout.contains("gfx1100") && !r.stdout.contains("gfx11-generic"),
        "{}",
        r.stdout
    );
    let r = run(harness().args(["run", "--backend", "emu", "--case", case]));
    assert_one_line_error(&r, 2, &format!("--target {} or all has", want.join(", ")));
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--target",
        "gfx1102",
        "--case",
        case,
    ]));
    assert_one_line_error(&r, 2, "which gfx1102 lacks");
}

/// `--target T` without `--case` runs the catalogue cases T's ISA has (gfx908
/// lacks wave32, VOP3 literals and VOP3 DPP; gfx1100 lacks scalar DPP src1)
/// and leaves the others out, rather than refusing the whole catalogue.
#[test]
fn one_target_runs_the_catalogue_cases_it_has() {
    for name in ["gfx908", "gfx1030", "gfx1100"] {
        let t = target::find(name).unwrap();
        let dir = scratch(&format!("targets-one-{name}"));
        let json = dir.join("r.json");
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--lanes",
                "256",
                "--target",
                name,
                "--json",
            ])
            .arg(&json));
        assert_eq!(r.code, 0, "{name}: {}", r.all());
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let got: Vec<&str> = report["devices"][0]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["status"] != "not_supported")
            .map(|c| c["case"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = cases::catalogue_for(t).iter().map(|c| c.name).collect();
        assert_eq!(got, want, "{name}");
        assert!(
            want.len() < cases::catalogue().len(),
            "{name} lacks some cases, so this test can fail"
        );
    }
}

/// `list --target T` names every catalogue case T lacks with what its ISA
/// lacks, and no case T has.
#[test]
fn list_per_target_says_why_a_case_is_missing() {
    for (name, missing, needs) in [
        ("gfx908", "literal_w64", "a literal in a VOP3"),
        ("gfx1030", "dpp8_w32", "DPP on a VOP3"),
        (
            "gfx1100",
            "dpp_src1_inline_dpp8_w32",
            "an SGPR or inline constant as src1 of a DPP VOP3",
        ),
    ] {
        let t = target::find(name).unwrap();
        let r = run(harness().args(["list", "--target", name]));
        assert_eq!(r.code, 0, "{}", r.all());
        let tail = r
            .stdout
            .split(&format!("not on {name} (its ISA lacks the form):"))
            .nth(1)
            .unwrap_or_else(|| panic!("{name}: {}", r.stdout));
        let line = tail
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{missing} ")))
            .unwrap_or_else(|| panic!("{name}: {missing} not named: {tail}"));
        assert!(line.contains(needs), "{line}");
        for c in cases::catalogue_for(t) {
            assert!(
                !tail
                    .lines()
                    .any(|l| l.trim_start().starts_with(&format!("{} ", c.name))),
                "{name} has {}",
                c.name
            );
        }
    }
}

/// A correct gfx1201 kernel that spins 400000 times (1.2 M scalar
/// instructions per wave) before its work: the default step budget (1 M)
/// stops it as a suspected endless loop, exit 3, and the message names the
/// option that lets it finish; `--step-budget 2000000` lets it pass, and a
/// failure under that budget replays with it.
#[test]
fn a_long_correct_kernel_needs_and_gets_a_larger_step_budget() {
    let dir = scratch("targets-step-budget");
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/include/xad_basic_gfx12.s"
    ))
    .unwrap();
    let first = "  s_load_b256 s[4:11], s[0:1], 0x0";
    assert!(
        source.contains(first),
        "kernels/include/xad_basic_gfx12.s changed"
    );
    // s3 is free in this kernel (kernarg pointer s[0:1], nothing else below s4).
    let spin = "  s_mov_b32 s3, 400000\n.Lspin:\n  s_sub_co_u32 s3, s3, 1\n  s_cmp_lg_u32 s3, 0\n  s_cbranch_scc1 .Lspin\n";
    let long = source.replacen(first, &format!("{spin}{first}"), 1);
    let src = dir.join("long.s");
    std::fs::write(&src, &long).unwrap();
    let run_with = |extra: &[&str], kernel: &std::path::Path| {
        run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--target",
                "gfx1201",
                "--lanes",
                "64",
            ])
            .args(["--seed", "3"])
            .args(extra)
            .arg("--kernel")
            .arg(kernel))
    };
    let stopped = run_with(&[], &src);
    assert_eq!(stopped.code, 3, "{}", stopped.all());
    assert!(
        stopped
            .stderr
            .contains("step budget of 1000000 instructions per wave exhausted")
            && stopped.stderr.contains("--step-budget"),
        "{}",
        stopped.all()
    );
    let passed = run_with(&["--step-budget", "2000000"], &src);
    assert_eq!(passed.code, 0, "{}", passed.all());
    assert!(
        passed.stdout.contains("PASS          basic"),
        "{}",
        passed.stdout
    );
    // A budget just below what the kernel needs still stops it.
    let short = run_with(&["--step-budget", "1100000"], &src);
    assert_eq!(short.code, 3, "{}", short.all());
    // The replay line of a failure under a raised budget carries it.
    let wrong = dir.join("long_wrong.s");
    std::fs::write(
        &wrong,
        // src2 an inline 1 instead of c: wrong wherever c is not 1.
        long.replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v3, 1"),
    )
    .unwrap();
    let failed = run_with(&["--step-budget", "2000000"], &wrong);
    assert_eq!(failed.code, 1, "{}", failed.all());
    assert!(
        failed.stdout.contains("--step-budget 2000000 --kernel"),
        "{}",
        failed.stdout
    );
    // Out of range is a usage error, one line.
    let zero = run_with(&["--step-budget", "0"], &src);
    assert_eq!(zero.code, 2, "{}", zero.all());
}
