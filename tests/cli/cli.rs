//! The CLI's error paths and no-device behaviour against Debian's real HIP
//! runtime on this GPU-less machine: each bad input gets one clear line and the
//! documented exit code.

use crate::common::*;
use std::os::unix::fs::FileTypeExt;
use xad_harness::isa::Generation;

fn assert_one_line_error(r: &Ran, code: i32, needle: &str) {
    assert_eq!(r.code, code, "exit code; output:\n{}", r.all());
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one stderr line, got:\n{}",
        r.stderr
    );
    assert!(
        lines[0].contains(needle),
        "{:?} does not mention {needle:?}",
        lines[0]
    );
    assert!(!r.all().contains("panicked"), "panic:\n{}", r.all());
}

#[test]
fn bad_lanes_values() {
    for bad in [
        "0",
        "-5",
        "abc",
        "1.5",
        "4294967297",
        "5G",
        "99999999999999999999999",
    ] {
        let r = run(harness().args(["run", "--backend", "emu", "--lanes", bad]));
        assert_one_line_error(&r, 2, "--lanes");
    }
}

#[test]
fn bad_seed_timeout_and_device_values() {
    assert_one_line_error(&run(harness().args(["run", "--seed", "-1"])), 2, "--seed");
    assert_one_line_error(
        &run(harness().args(["run", "--timeout", "0"])),
        2,
        "--timeout",
    );
    assert_one_line_error(
        &run(harness().args(["run", "--device", "x"])),
        2,
        "--device",
    );
    assert_one_line_error(
        &run(harness().args(["run", "--backend", "emu", "--device", "3"])),
        2,
        "out of range",
    );
    assert_one_line_error(
        &run(harness().args(["run", "--backend", "auto", "--device", "3"])),
        2,
        "out of range",
    );
    assert_one_line_error(
        &run(harness().args(["run", "--backend", "warp"])),
        2,
        "--backend",
    );
    assert_one_line_error(&run(harness().args(["frobnicate"])), 2, "frobnicate");
}

#[test]
fn unknown_case_is_a_usage_error() {
    assert_one_line_error(
        &run(harness().args(["run", "--case", "no_such_case"])),
        2,
        "matches no case",
    );
}

#[test]
fn missing_kernel_file() {
    assert_one_line_error(
        &run(harness().args([
            "run",
            "--backend",
            "emu",
            "--kernel",
            "/nonexistent/k.hsaco",
        ])),
        2,
        "no such file",
    );
}

#[test]
fn malformed_code_object() {
    let dir = scratch("cli-malformed");
    let junk = dir.join("junk.hsaco");
    std::fs::write(&junk, b"\x7fELF this is not a code object").unwrap();
    assert_one_line_error(
        &run(harness()
            .args(["run", "--backend", "emu", "--kernel"])
            .arg(&junk)),
        2,
        "--kernel",
    );
    // A real ELF for the wrong machine, small enough to be read (this test's
    // own executable grew past the 64 MiB limit once debug info grew).
    let x86 = std::path::Path::new("/bin/true");
    assert_one_line_error(
        &run(harness()
            .args(["run", "--backend", "emu", "--kernel"])
            .arg(x86)),
        2,
        "not AMDGPU",
    );
}

#[test]
fn kernel_for_another_target_is_refused() {
    let dir = scratch("cli-gfx1101");
    // gfx1101 shares the ISA, so only the target check can catch it.
    let src = basic_source().replace("gfx1100", "gfx1101");
    let hsaco = assemble(&src, "gfx1101", &dir, "xad_basic");
    let r = run(harness()
        .args(["run", "--backend", "emu", "--target", "gfx1100", "--kernel"])
        .arg(&hsaco));
    assert_one_line_error(
        &r,
        2,
        "built for gfx1101, which does not run on --target gfx1100",
    );
}

#[test]
fn source_kernel_that_does_not_assemble_is_bad_input() {
    let dir = scratch("cli-badasm");
    let src = dir.join("k.s");
    std::fs::write(
        &src,
        basic_source().replace("v_xad_u32 v5, v2, v3, v4", "v_xad_u32 v5, v2, v3"),
    )
    .unwrap();
    let r = run(harness()
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(&src));
    assert_one_line_error(&r, 2, "does not assemble");
}

#[test]
fn toolchain_missing_at_run_time_for_a_source_kernel() {
    let dir = scratch("cli-notool");
    let src = dir.join("k.s");
    std::fs::write(&src, basic_source()).unwrap();
    let r = run(harness()
        .env("XAD_LLVM_DIR", dir.join("no-llvm-here"))
        .args(["run", "--backend", "emu", "--kernel"])
        .arg(&src));
    assert_one_line_error(&r, 3, "no LLVM toolchain");
    assert!(
        r.stderr.contains("XAD_LLVM_DIR"),
        "names what was tried: {}",
        r.stderr
    );
}

#[test]
fn devices_reports_no_devices_cleanly_on_the_real_runtime() {
    let r = run(harness().arg("devices"));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("no HIP devices"), "{}", r.stdout);
    assert!(r.stdout.contains("emulated gfx1100"), "{}", r.stdout);
}

#[test]
fn hip_backend_without_a_device_is_skipped_not_passed() {
    let dir = scratch("cli-nodevice");
    let json = dir.join("r.json");
    let r = run(harness()
        .args(["run", "--backend", "hip", "--json"])
        .arg(&json));
    assert_eq!(r.code, 77, "{}", r.all());
    assert!(r.stderr.contains("no HIP device"), "{}", r.stderr);
    assert!(
        !r.stdout.contains("PASS"),
        "nothing may pass without execution:\n{}",
        r.stdout
    );
    // The report is written even though nothing ran.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["devices"].as_array().unwrap().len(), 0);
    assert!(report["error"].as_str().unwrap().contains("no HIP device"));
}

#[test]
fn kernels_out_writes_every_targets_code_objects_and_each_disassembles_to_its_generations_opcode() {
    let dir = scratch("cli-kernels");
    let r = run(harness().args(["kernels", "--out"]).arg(&dir));
    assert_eq!(r.code, 0, "{}", r.all());
    let mut seen = 0;
    let built = xad_harness::platform::target::TARGETS
        .iter()
        .filter(|t| xad_harness::platform::embedded::unbuilt(t.name).is_none());
    for target in built {
        // v_xad_u32's VOP3 opcode in the target's generation.
        let opcode = match target.generation() {
            Generation::Gfx9 => "D1F3",
            Generation::Gfx10 => "D745",
            Generation::Gfx11 | Generation::Gfx12 => "D645",
        };
        let objdump = xad_harness::platform::embedded::objdump_for(target.name)
            .unwrap_or_else(|| panic!("build.rs found no llvm-objdump for {}", target.name));
        let sub = dir.join(target.name);
        let files: Vec<_> = std::fs::read_dir(&sub)
            .unwrap_or_else(|e| panic!("{}: {e}", sub.display()))
            .collect();
        assert_eq!(
            files.len(),
            xad_harness::platform::embedded::for_target(target.name).count(),
            "{}",
            sub.display()
        );
        for entry in files {
            let path = entry.unwrap().path();
            let out = std::process::Command::new(objdump)
                .arg("-d")
                .arg(format!("--mcpu={}", target.name))
                .arg(&path)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let xad: Vec<&str> = text
                .lines()
                .filter(|l| l.trim_start().starts_with("v_xad_u32"))
                .collect();
            assert!(!xad.is_empty(), "{} has no v_xad_u32", path.display());
            for line in xad {
                // llvm-objdump prints the encoding after `//  <addr>: `; the first dword is the opcode word.
                let words = line
                    .split("//")
                    .nth(1)
                    .and_then(|c| c.split(':').nth(1))
                    .unwrap_or("");
                let first = words.split_whitespace().next().unwrap_or("");
                assert!(
                    first.starts_with(opcode),
                    "{}: {line} is not {}'s v_xad_u32 ({opcode}xxxx)",
                    path.display(),
                    target.generation()
                );
            }
            seen += 1;
        }
    }
    assert_eq!(seen, xad_harness::platform::embedded::EMBEDDED.len());
}

#[test]
fn bench_prints_both_rates_the_ratio_and_where_the_target_applies() {
    let r = run(harness().args(["bench", "--lanes", "1M", "--repeat", "2", "--seed", "7"]));
    assert_eq!(r.code, 0, "{}", r.all());
    for want in [
        "emulated gfx1100 pipeline",
        "native loop, 1 thread",
        "ratio emulated pipeline / native loop",
        "2 runs each",
        "stated for --lanes 67108864",
    ] {
        assert!(
            r.stdout.contains(want),
            "missing {want:?} in:\n{}",
            r.stdout
        );
    }
    assert_one_line_error(
        &run(harness().args(["bench", "--repeat", "0"])),
        2,
        "--repeat",
    );
    assert_one_line_error(
        &run(harness().args(["bench", "--repeat", "101"])),
        2,
        "--repeat",
    );
    assert_one_line_error(
        &run(harness().args(["bench", "--repeat", "x"])),
        2,
        "--repeat",
    );
    assert_one_line_error(
        &run(harness().args(["bench", "--lanes", "0"])),
        2,
        "--lanes",
    );
    assert_one_line_error(
        &run(harness().args(["bench", "--lanes", "-5"])),
        2,
        "--lanes",
    );
    assert_one_line_error(&run(harness().args(["bench", "--seed", "-1"])), 2, "--seed");
}

/// The `"key":` names of a pretty-printed JSON document, in order.
fn json_keys(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix('"')?
                .split_once("\":")
                .map(|(k, _)| k)
        })
        .collect()
}

#[test]
fn list_json_keeps_its_fields_and_order() {
    let r = run(harness().args(["list", "--json"]));
    assert_eq!(r.code, 0, "{}", r.all());
    let rows: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        rows.as_array().unwrap().len(),
        xad_harness::model::cases::catalogue().len()
    );
    let fields = [
        "description",
        "kernel",
        "name",
        "outputs_per_lane",
        "requires",
        "scalar_args",
        "targets",
        "unsettled",
        "wave_size",
    ];
    let keys = json_keys(&r.stdout);
    assert_eq!(
        keys.len(),
        fields.len() * xad_harness::model::cases::catalogue().len()
    );
    for row in keys.chunks(fields.len()) {
        assert_eq!(row, fields);
    }
    assert_eq!(rows[0]["name"], "basic");
    assert_eq!(rows[0]["wave_size"], 32);
}

#[test]
fn devices_json_keeps_its_fields_and_order_without_a_device() {
    let r = run(harness().args(["devices", "--json"]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(
        json_keys(&r.stdout),
        [
            "devices",
            "emulator",
            "no_devices_reason",
            "runtime",
            "visible_devices"
        ],
        "{}",
        r.stdout
    );
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["emulator"], "emulated gfx1100");
    assert!(
        doc["no_devices_reason"]
            .as_str()
            .unwrap()
            .starts_with("no devices: "),
        "{doc}"
    );
}

/// `args` run with a file-size limit of 0 bytes (SIGXFSZ ignored), so the
/// check before the run passes (it creates an empty file) but writing any
/// report fails (EFBIG), even as root.
fn with_no_file_space(args: &[&str]) -> Ran {
    run(std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_xad-harness"))
        .args(args)
        .env_remove("LD_LIBRARY_PATH"))
}

#[test]
fn a_report_that_fails_only_when_written_fails_a_passing_run_but_not_a_skipped_one() {
    let dir = scratch("cli-report-efbig");
    let json = dir.join("r.json");
    let json = json.to_str().unwrap();
    // A passing run becomes a fault (3), one line naming the file.
    let r = with_no_file_space(&[
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--json",
        json,
    ]);
    assert_one_line_error(&r, 3, &format!("{json}: cannot be written"));
    // A run that already failed keeps its own code (77: no HIP device here), and says both.
    let r = with_no_file_space(&[
        "run",
        "--backend",
        "hip",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--json",
        json,
    ]);
    assert_eq!(r.code, 77, "{}", r.all());
    assert!(
        r.stderr.contains(&format!("{json}: cannot be written")),
        "{}",
        r.stderr
    );
    assert!(!r.all().contains("panicked"), "{}", r.all());
    assert!(
        !std::path::Path::new(json).exists(),
        "no half-written report left"
    );
}

#[test]
fn an_unwritable_report_path_is_refused_before_anything_runs() {
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--json",
        "/nonexistent/dir/r.json",
    ]));
    assert_one_line_error(
        &r,
        2,
        "--json /nonexistent/dir/r.json: directory /nonexistent/dir does not exist",
    );
    assert!(r.stdout.is_empty(), "nothing ran:\n{}", r.stdout);
    let dir = scratch("cli-report-dir");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--junit",
        ])
        .arg(&dir));
    assert_one_line_error(&r, 2, "is a directory");
}

/// Both refusals on their own line, whichever was found first: the bad
/// option value (refused by the parser) and the report path.
#[test]
fn an_unwritable_report_path_is_reported_beside_other_usage_errors() {
    let bad = "/nonexistent/dir/r.xml";
    for first in [
        &["--lanes", "0"][..],
        &["--case", "no_such_case"],
        &["--max-mismatches", "-1"],
    ] {
        let r = run(harness()
            .arg("run")
            .args(first)
            .args(["--backend", "emu", "--junit", bad]));
        assert_eq!(r.code, 2, "{first:?}: {}", r.all());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{first:?}: {}", r.stderr);
        assert!(
            lines.iter().any(|l| l.contains(first[0])),
            "{first:?}: {}",
            r.stderr
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("--junit {bad}: directory"))),
            "{first:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "nothing ran: {}", r.stdout);
    }
    // The `=` spelling is found too.
    let r = run(harness().args(["run", "--lanes", "0", &format!("--json={bad}")]));
    assert_eq!((r.code, r.stderr.lines().count()), (2, 2), "{}", r.stderr);
    // `list --json` is a flag, not a path: only the parser's line.
    let r = run(harness().args(["list", "--json", "--bogus"]));
    assert_one_line_error(&r, 2, "--bogus");
}

#[test]
fn json_and_junit_naming_one_file_are_refused_whatever_the_spelling() {
    let dir = scratch("cli-same-report");
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink(dir.join("r.out"), dir.join("link.out")).unwrap();
    for other in ["r.out", "./r.out", "sub/../r.out", "link.out"] {
        let r = run(harness().current_dir(&dir).args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--json",
            "r.out",
            "--junit",
            other,
        ]));
        if other == "link.out" {
            // A symlink at a report path is refused by itself too (a rename would replace the link).
            assert_eq!(r.code, 2, "{}", r.all());
            assert!(r.stderr.contains("is a symbolic link"), "{}", r.stderr);
            assert!(r.stderr.contains("name the same file"), "{}", r.stderr);
        } else {
            assert_one_line_error(&r, 2, "name the same file");
        }
        assert!(r.stdout.is_empty(), "{other}: nothing ran: {}", r.stdout);
        assert!(!dir.join("r.out").exists(), "{other}: no report written");
    }
    // Negative control: two files in one directory are fine, and both are written.
    let r = run(harness().current_dir(&dir).args([
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--json",
        "r.json",
        "--junit",
        "r.xml",
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(dir.join("r.json").is_file() && dir.join("r.xml").is_file());
}

#[test]
fn every_numeric_option_refuses_negative_and_out_of_range_values_by_name() {
    let refused: &[(&[&str], &str)] = &[
        (&["run", "--max-mismatches", "-1"], "--max-mismatches"),
        (&["run", "--max-mismatches", "1000001"], "--max-mismatches"),
        (
            &["run", "--max-mismatches", "99999999999999999999999"],
            "--max-mismatches",
        ),
        (&["bench", "--repeat", "-1"], "--repeat"),
        (&["run", "--timeout", "1e-10"], "--timeout"),
        (&["run", "--timeout", "-1"], "--timeout"),
        (&["run", "--timeout", "NaN"], "--timeout"),
        (&["run", "--timeout", "inf"], "--timeout"),
        (&["run", "--timeout", "86401"], "--timeout"),
        (&["run", "--seed", "18446744073709551616"], "--seed"),
        (&["run", "--seed", "0x10000000000000000"], "--seed"),
        (&["bench", "--seed", "18446744073709551616"], "--seed"),
        (&["run", "--device", "-1"], "--device"),
        (&["run", "--lanes", "-1"], "--lanes"),
        (&["run", "--lanes", "4294967297"], "--lanes"),
        (&["bench", "--lanes", "4294967297"], "--lanes"),
    ];
    for (args, option) in refused {
        let r = run(harness().args(*args));
        assert_one_line_error(&r, 2, option);
    }
    // Negative control: the edges of each range are accepted.
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--max-mismatches",
        "0",
        "--timeout",
        "86400",
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--max-mismatches",
        "1000000",
        "--seed",
        "18446744073709551615",
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
}

#[test]
fn a_case_pattern_that_matches_nothing_is_refused_beside_ones_that_match() {
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--lanes",
        "64",
        "--case",
        "basic,no_such_case",
    ]));
    assert_one_line_error(&r, 2, "\"no_such_case\" matches no case");
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--lanes",
        "64",
        "--case",
        "dpp16_*,nope_*",
    ]));
    assert_one_line_error(&r, 2, "nope_*");
    // Negative control: every pattern matching (one twice) is fine.
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--lanes",
        "64",
        "--case",
        "basic, basic,vgpr_w32",
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
}

/// Run the harness through `sh` with its stderr closed (`2>&-`).
fn with_closed_stderr(args: &[&str]) -> Ran {
    run(std::process::Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&-")
        .arg(env!("CARGO_BIN_EXE_xad-harness"))
        .args(args))
}

/// A private "full" device (character 1:7, what /dev/full is) in a scratch
/// directory: never the system's node. `None` where mknod is not allowed.
fn private_full() -> Option<std::path::PathBuf> {
    let node = scratch("cli-full").join("full");
    mknod_char(&node, 1, 7).then_some(node)
}

fn open_full(node: &std::path::Path) -> std::fs::File {
    std::fs::OpenOptions::new().write(true).open(node).unwrap()
}

#[test]
fn a_closed_or_full_stderr_or_stdout_never_panics() {
    // Closed stderr: the exit code still tells what happened.
    assert_eq!(with_closed_stderr(&["run", "--lanes", "0"]).code, 2);
    assert_eq!(
        with_closed_stderr(&[
            "run",
            "--backend",
            "emu",
            "--kernel",
            "/nonexistent/k.hsaco"
        ])
        .code,
        2
    );
    assert_eq!(
        with_closed_stderr(&[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "64"
        ])
        .code,
        77
    );
    assert_eq!(
        with_closed_stderr(&[
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64"
        ])
        .code,
        0
    );
    // Full stdout and stderr: every write fails with ENOSPC.
    let Some(full) = private_full() else {
        eprintln!("mknod not allowed here: the full-stdout rows are not exercised");
        return;
    };
    let dev_full = || open_full(&full);
    for (args, code) in [
        (
            &[
                "run",
                "--backend",
                "emu",
                "--case",
                "basic",
                "--lanes",
                "64",
            ][..],
            0,
        ),
        (&["run", "--case", "no_such_case"], 2),
        (&["run", "--backend", "hip", "--lanes", "64"], 77),
        (&["list"], 0),
        (&["devices", "--json"], 0),
        (&["--help"], 0),
        (&["bench", "--lanes", "64k", "--repeat", "1"], 0),
    ] {
        let r = run(harness().args(args).stdout(dev_full()).stderr(dev_full()));
        assert_eq!(r.code, code, "{args:?}");
        let r = run(harness().args(args).stdout(dev_full()));
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
    }
}

/// Any Unix path is an argument: a report path that is not UTF-8 is written
/// where it says, and the report's `command` records it losslessly (`\xNN`);
/// before, collecting the command line panicked (exit 101). A `merge` input
/// of such a name is one line, exit 2.
#[test]
fn a_path_that_is_not_utf8_is_an_ordinary_argument() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("cli_non_utf8");
    let json = dir.join(OsStr::from_bytes(b"r\xff.json"));
    let ran = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--json",
        ])
        .arg(&json));
    assert_eq!(ran.code, 0, "{}", ran.all());
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let command: Vec<&str> = report["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        command.last().unwrap().ends_with("r\\xff.json"),
        "{command:?}"
    );
    let missing = dir.join(OsStr::from_bytes(b"in\xfe.json"));
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(dir.join("m.json"))
        .arg(&missing));
    assert_eq!(ran.code, 2, "{}", ran.all());
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(!ran.all().contains("panicked"), "{}", ran.all());
}

/// Run `cmd`, killing it after two minutes: a command that blocks on a FIFO
/// fails the test instead of hanging the suite. Not a speed assertion: every
/// command here takes well under a second.
fn run_unless_hung(cmd: &mut std::process::Command) -> Ran {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut waited = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if waited > 1200 {
            let _ = child.kill();
            panic!("{cmd:?} hung (blocked on a FIFO?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    Ran {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    }
}

/// Private hostile nodes in `dir`: a FIFO, a dangling symlink, a symlink to a
/// file, and (where mknod is allowed) character devices with /dev/zero's
/// and /dev/full's numbers. Never the system's own nodes.
fn hostile_nodes(dir: &std::path::Path) -> Vec<(std::path::PathBuf, &'static str)> {
    let mut nodes = Vec::new();
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    nodes.push((fifo, "a FIFO"));
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
    nodes.push((dangling, "a symbolic link"));
    let kept = dir.join("kept");
    std::fs::write(&kept, "keep me\n").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    nodes.push((link, "a symbolic link"));
    for (name, minor) in [("zero", 5), ("full", 7)] {
        let node = dir.join(name);
        if mknod_char(&node, 1, minor) {
            nodes.push((node, "a device node"));
        } else {
            eprintln!("mknod not allowed here: the device-node rows are not exercised");
        }
    }
    nodes
}

/// What a node is, to prove it was left alone.
fn node_kind(path: &std::path::Path) -> String {
    let meta = std::fs::symlink_metadata(path).unwrap();
    format!("{:?}", meta.file_type())
}

/// Deliver item 1 of issue 27, as issue 42 amended it: a file the tool
/// writes is renamed into place, so a symlink to a file or to nothing, or a
/// directory, at a report's path is refused before anything runs (exit 2,
/// one line), for every command, and the node is left as it was; a `--dump`
/// directory is refused over any node. (A FIFO or character device named as
/// a report is written in place: `a_fifo_or_character_device_report_is_written_in_place`.)
#[test]
fn no_command_writes_over_a_symlink_or_dumps_into_a_node() {
    let dir = scratch("cli-hostile-outputs");
    let nodes = hostile_nodes(&dir);
    let kept = std::fs::read(dir.join("kept")).unwrap();
    let with = |args: &[&str], node: &std::path::Path| -> Vec<std::ffi::OsString> {
        args.iter()
            .map(std::ffi::OsString::from)
            .chain([node.as_os_str().to_owned()])
            .collect()
    };
    let run_basic = [
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
    ];
    for (node, kind) in &nodes {
        let before = node_kind(node);
        let mut commands = vec![with(&[&run_basic[..], &["--dump"]].concat(), node)];
        if *kind == "a symbolic link" {
            commands.push(with(&[&run_basic[..], &["--json"]].concat(), node));
            commands.push(with(&[&run_basic[..], &["--junit"]].concat(), node));
            commands.push(with(
                &["soak", "--backend", "emu", "--duration", "0.1", "--json"],
                node,
            ));
        }
        for args in commands {
            let r = run_unless_hung(harness().args(&args));
            assert_eq!(r.code, 2, "{args:?}: {}", r.all());
            let lines: Vec<&str> = r.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: one line: {}", r.stderr);
            assert!(lines[0].contains(kind), "{args:?}: {}", r.stderr);
            assert!(r.stdout.is_empty(), "nothing ran: {args:?}: {}", r.all());
            assert_eq!(node_kind(node), before, "{args:?} changed {kind}");
        }
    }
    assert_eq!(std::fs::read(dir.join("kept")).unwrap(), kept);
    assert!(
        !dir.join("nowhere").exists(),
        "nothing created through a dangling link"
    );

    // `kernels` writes many files: a FIFO where one of them goes is refused
    // at write time (exit 3, naming it), never opened or replaced.
    let out = dir.join("kernels");
    let gfx1100 = out.join("gfx1100");
    std::fs::create_dir_all(&gfx1100).unwrap();
    let fifo = gfx1100.join("xad_basic.hsaco");
    mkfifo(&fifo);
    let r = run_unless_hung(harness().args(["kernels", "--out"]).arg(&out));
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr
            .contains("xad_basic.hsaco: is a FIFO; not replaced"),
        "{}",
        r.stderr
    );
    assert_eq!(node_kind(&fifo), node_kind(&dir.join("fifo")));
}

/// Issue 42: a FIFO (a pipe) or a character device named as a report is
/// written in place, never replaced: a FIFO's reader gets the whole JSON
/// report and the FIFO stays a FIFO, also reached through a symlink (as
/// `/dev/stdout` is); a private `/dev/zero` (1:5) takes it; a private
/// `/dev/full` (1:7) is a write error, exit 3 with one line naming it, the
/// node left a device. Private nodes only (mkfifo, mknod in a scratch
/// directory); the mknod rows are skipped, saying so, where it is not allowed.
#[test]
fn a_fifo_or_character_device_report_is_written_in_place() {
    let dir = scratch("cli-in-place-outputs");
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let link = dir.join("to-fifo");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let run_basic = [
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "64",
        "--seed",
        "3",
    ];
    for (target, option) in [(&fifo, "--json"), (&link, "--json"), (&fifo, "--junit")] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let r = run_unless_hung(harness().args(run_basic).arg(option).arg(target));
        let got = reader.join().unwrap();
        assert_eq!(r.code, 0, "{option} {target:?}: {}", r.all());
        if option == "--json" {
            let report: serde_json::Value = serde_json::from_str(&got).unwrap();
            assert_eq!(report["summary"]["pass"], 1, "{got}");
        } else {
            assert!(got.contains("<testcase name=\"basic\""), "{got}");
        }
        assert!(
            r.stdout.contains("PASS"),
            "the text stays on stdout: {}",
            r.all()
        );
        assert_eq!(
            node_kind(&fifo),
            node_kind(&dir.join("fifo")),
            "still a FIFO"
        );
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(names.len(), 2, "no temporary file left beside the FIFO");

    let (zero, full) = (dir.join("zero"), dir.join("full"));
    if !mknod_char(&zero, 1, 5) || !mknod_char(&full, 1, 7) {
        eprintln!("SKIPPED: mknod not allowed here: the character-device rows are not exercised");
        return;
    }
    let r = run_unless_hung(harness().args(run_basic).arg("--json").arg(&zero));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(std::fs::symlink_metadata(&zero)
        .unwrap()
        .file_type()
        .is_char_device());
    for args in [
        [&run_basic[..], &["--json"]].concat(),
        [&run_basic[..], &["--junit"]].concat(),
        vec!["soak", "--backend", "emu", "--duration", "0.1", "--json"],
    ] {
        let r = run_unless_hung(harness().args(&args).arg(&full));
        assert_eq!(r.code, 3, "{args:?}: {}", r.all());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: one line: {}", r.stderr);
        assert!(
            lines[0].contains("full: cannot be written") && lines[0].contains("No space left"),
            "{args:?}: {}",
            r.stderr
        );
        let kind = std::fs::symlink_metadata(&full).unwrap().file_type();
        assert!(kind.is_char_device(), "{args:?}: the node is left alone");
    }
}

/// Issue 42: `--json -` and `--junit -` write the report to stdout, alone
/// (the text goes to stderr), so `run --json - | python3 -m json.tool`
/// works; two reports to stdout are a usage error, one line, exit 2; a file
/// named `-` is never created.
#[test]
fn a_report_to_stdout_leaves_stdout_to_the_report() {
    let dir = scratch("cli-report-stdout");
    let run_basic = [
        "run",
        "--backend",
        "emu",
        "--case",
        "basic,sreg_hi_w32",
        "--lanes",
        "64",
        "--seed",
        "3",
    ];
    let r = run_unless_hung(
        harness()
            .current_dir(&dir)
            .args(run_basic)
            .args(["--json", "-"]),
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let report: serde_json::Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("stdout is the JSON report alone ({e}):\n{}", r.stdout));
    assert_eq!(report["summary"]["pass"], 1);
    assert_eq!(report["summary"]["unsettled"], 1);
    assert!(
        r.stderr.contains("PASS          basic"),
        "the text on stderr: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains("1 passed, 0 failed, 1 unsettled"),
        "{}",
        r.stderr
    );
    assert!(!dir.join("-").exists(), "no file named -");
    let tool = std::process::Command::new("python3")
        .args(["-m", "json.tool"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn();
    if let Ok(mut tool) = tool {
        use std::io::Write as _;
        tool.stdin
            .take()
            .unwrap()
            .write_all(r.stdout.as_bytes())
            .unwrap();
        assert!(
            tool.wait().unwrap().success(),
            "python3 -m json.tool reads it"
        );
    }

    // /dev/stdout, here the test's private pipe, is written in place and
    // is stdout too: the text goes to stderr, the JSON alone to the pipe.
    let r = run_unless_hung(
        harness()
            .current_dir(&dir)
            .args(run_basic)
            .args(["--json", "/dev/stdout"]),
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let piped: serde_json::Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("the pipe holds the JSON report alone ({e}):\n{}", r.stdout));
    assert_eq!(piped["summary"]["pass"], 1);
    assert!(
        r.stderr.contains("1 passed, 0 failed, 1 unsettled"),
        "{}",
        r.stderr
    );

    let r = run_unless_hung(
        harness()
            .current_dir(&dir)
            .args(run_basic)
            .args(["--junit", "-", "--html", "r.html"]),
    );
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.starts_with("<?xml"), "{}", r.stdout);
    assert!(
        r.stdout.trim_end().ends_with("</testsuites>"),
        "the XML alone: {}",
        r.stdout
    );
    assert!(
        r.stderr.contains("1 passed, 0 failed, 1 unsettled"),
        "{}",
        r.stderr
    );
    assert!(dir.join("r.html").is_file());

    for two in [
        ["--json", "-", "--junit", "-"],
        ["--json", "-", "--html", "-"],
        ["--json", "/dev/stdout", "--junit", "-"],
    ] {
        let r = run_unless_hung(harness().current_dir(&dir).args(run_basic).args(two));
        assert_eq!(r.code, 2, "{two:?}: {}", r.all());
        assert_eq!(r.stderr.lines().count(), 1, "{two:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("only one report may go to stdout"),
            "{}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
    assert!(!dir.join("-").exists(), "no file named -");
}

/// Deliver item 2 of issue 27: every file the tool reads is a regular file
/// (a FIFO is refused at once, not waited on; a device like /dev/zero is
/// refused before a byte is read), one line naming it, exit 2.
#[test]
fn no_command_reads_a_fifo_or_device_or_hangs() {
    let dir = scratch("cli-hostile-inputs");
    let nodes: Vec<_> = hostile_nodes(&dir)
        .into_iter()
        .filter(|(_, kind)| *kind != "a symbolic link")
        .collect();
    // A real report beside the JUnit input, so the JUnit input is what is judged.
    let report = dir.join("r.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--json",
        ])
        .arg(&report));
    assert_eq!(r.code, 0, "{}", r.all());
    let merged = dir.join("merged.xml");
    for (node, kind) in &nodes {
        let commands: Vec<Vec<&std::ffi::OsStr>> = vec![
            ["run", "--backend", "emu", "--target", "gfx1100", "--kernel"]
                .map(std::ffi::OsStr::new)
                .into_iter()
                .chain([node.as_os_str()])
                .collect(),
            vec!["merge".as_ref(), node.as_os_str()],
            vec!["replay".as_ref(), node.as_os_str()],
            vec![
                "merge".as_ref(),
                report.as_os_str(),
                "--junit".as_ref(),
                merged.as_os_str(),
                "--junit-in".as_ref(),
                node.as_os_str(),
            ],
        ];
        for args in commands {
            let r = run_unless_hung(harness().args(&args));
            assert!(!r.all().contains("panicked"), "{args:?}: {}", r.all());
            assert_eq!(r.code, 2, "{args:?} {kind}: {}", r.all());
            let lines: Vec<&str> = r.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: {}", r.stderr);
            assert!(
                lines[0].contains(node.to_str().unwrap()),
                "{args:?}: {}",
                r.stderr
            );
            assert!(lines[0].contains(kind), "{args:?}: {}", r.stderr);
        }
    }
}

/// A dump is read as the dump wrote it: a manifest or array that is a FIFO
/// is refused without blocking, and a symlink leading out of the dump (or a
/// manifest path climbing out of it) is refused, each one line, exit 2.
#[test]
fn replay_reads_only_the_dump_s_own_regular_files() {
    let dir = scratch("cli-hostile-dump");
    let dump = dir.join("dump");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--target",
            "gfx1100",
            "--case",
            "basic",
            "--lanes",
            "64",
        ])
        .args(["--dump-all", "--dump"])
        .arg(&dump));
    assert_eq!(r.code, 0, "{}", r.all());
    let r = run(harness().arg("replay").arg(&dump));
    assert_eq!(
        r.code,
        0,
        "negative control: the untouched dump replays: {}",
        r.all()
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dump.join("manifest.json")).unwrap()).unwrap();
    let case = &manifest["cases"][0];
    let case_dir = dump.join(case["dir"].as_str().unwrap());
    let got = case_dir.join(case["files"]["got"].as_str().unwrap());
    let secret = dir.join("outside.npy");
    std::fs::copy(&got, &secret).unwrap();
    let variants: Vec<(&str, Box<dyn Fn(&std::path::Path)>)> = vec![
        (
            "a FIFO",
            Box::new(|d| {
                std::fs::remove_file(d.join("manifest.json")).unwrap();
                mkfifo(&d.join("manifest.json"));
            }),
        ),
        (
            "a FIFO",
            Box::new(|d| {
                let p = d
                    .join(case["dir"].as_str().unwrap())
                    .join(case["files"]["got"].as_str().unwrap());
                std::fs::remove_file(&p).unwrap();
                mkfifo(&p);
            }),
        ),
        (
            "outside the dump",
            Box::new(|d| {
                let p = d
                    .join(case["dir"].as_str().unwrap())
                    .join(case["files"]["got"].as_str().unwrap());
                std::fs::remove_file(&p).unwrap();
                std::os::unix::fs::symlink(&secret, &p).unwrap();
            }),
        ),
        (
            "outside the dump",
            Box::new(|d| {
                // The manifest itself names a file outside the dump.
                let path = d.join("manifest.json");
                let mut m: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                m["cases"][0]["files"]["got"] = serde_json::json!(secret.to_str().unwrap());
                std::fs::write(&path, serde_json::to_vec(&m).unwrap()).unwrap();
            }),
        ),
    ];
    for (n, (needle, spoil)) in variants.iter().enumerate() {
        let copy = dir.join(format!("copy{n}"));
        let _ = std::fs::remove_dir_all(&copy);
        assert!(std::process::Command::new("cp")
            .arg("-a")
            .arg(&dump)
            .arg(&copy)
            .status()
            .unwrap()
            .success());
        spoil(&copy);
        let r = run_unless_hung(harness().arg("replay").arg(&copy));
        assert_eq!(r.code, 2, "variant {n}: {}", r.all());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "variant {n}: {}", r.stderr);
        assert!(lines[0].contains(needle), "variant {n}: {}", r.stderr);
    }
}

/// Issue 27: a glob selects the matching cases the target has; only a glob
/// matching nothing the target has is a usage error, and so is a case named
/// exactly that the target lacks. Issue 42: those it lacks belong to other
/// generations: not results (no `not_supported`), counted in one note.
#[test]
fn a_glob_with_a_target_runs_the_cases_the_target_has() {
    let dir = scratch("cli_glob_target");
    for (target, glob) in [("gfx908", "*"), ("gfx1100", "dpp*"), ("gfx908", "basic*")] {
        let json = dir.join(format!("{target}.json"));
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--target",
                target,
                "--case",
                glob,
            ])
            .args(["--lanes", "64", "--seed", "1", "-q", "--json"])
            .arg(&json));
        assert_eq!(r.code, 0, "--target {target} --case {glob:?}:\n{}", r.all());
        assert!(r.stderr.is_empty(), "{}", r.stderr);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let cases = report["devices"][0]["cases"].as_array().unwrap();
        let status = |s: &str| cases.iter().filter(|c| c["status"] == s).count();
        assert!(status("pass") > 0, "{report}");
        assert_eq!(
            status("not_supported"),
            0,
            "nobody asked for the cases {target} lacks"
        );
        assert!(
            report["notes"]
                .to_string()
                .contains("belong to other generations and are not run on"),
            "{target}: {}",
            report["notes"]
        );
        // The modifier probe rests on bits the ISA leaves open: unsettled on the emulator.
        let unsettled: Vec<&str> = cases
            .iter()
            .filter(|c| c["status"] == "unsettled")
            .map(|c| c["case"].as_str().unwrap())
            .collect();
        assert!(
            unsettled.iter().all(|c| c.starts_with("modifiers_")),
            "{unsettled:?}"
        );
        assert_eq!(
            status("pass") + status("not_supported") + unsettled.len(),
            cases.len()
        );
    }
    // basic_w64 runs on gfx908; `basic` is asked for by name and needs wave32.
    assert_one_line_error(
        &run(harness()
            .args(["run", "--backend", "emu", "--target", "gfx908"])
            .args(["--case", "basic_w64,basic", "--lanes", "64"])),
        2,
        "case basic needs wave32, which gfx908 lacks",
    );
    // gfx908 has no DPP8: the glob leaves it nothing to run.
    assert_one_line_error(
        &run(harness()
            .args(["run", "--backend", "emu", "--target", "gfx908"])
            .args(["--case", "dpp8*", "--lanes", "64"])),
        2,
        "no target of this run (gfx908) has case(s) dpp8_w32, dpp8_w64",
    );
}

/// Issue 27: an empty report path is one error, said once (clap's line; the
/// report-path check no longer repeats it), with `=` or as its own argument.
#[test]
fn an_empty_report_path_is_one_line() {
    for args in [
        &["run", "--json", ""][..],
        &["run", "--junit", ""],
        &["run", "--json="],
        &["--json", ""],
    ] {
        let r = run(harness().args(args));
        assert_eq!(r.code, 2, "{args:?}:\n{}", r.all());
        let option = if args.contains(&"--junit") {
            "--junit"
        } else {
            "--json"
        };
        assert_one_line_error(&r, 2, option);
    }
    // Another refusal beside a report path that is not empty still shows both.
    let r = run(harness().args(["run", "--lanes", "0", "--json", "/nonexistent-dir/r.json"]));
    assert_eq!(r.code, 2, "{}", r.all());
    assert_eq!(r.stderr.lines().count(), 2, "{}", r.stderr);
}

/// Issue 27: a negative number given to an option is refused naming that
/// option, not as an unexpected argument of its own.
#[test]
fn a_negative_value_names_its_option() {
    let dir = scratch("cli_negative");
    let report = dir.join("r.json").to_string_lossy().into_owned();
    let dump = dir.to_string_lossy().into_owned();
    for (args, option) in [
        (vec!["list", "--target", "-1"], "'--target <TARGET>'"),
        (vec!["run", "--target", "-1"], "'--target <TARGET>'"),
        (vec!["replay", &dump, "--lane", "-1"], "'--lane <LANES>'"),
        (vec!["replay", &dump, "--lane", "0,-1"], "'--lane <LANES>'"),
        (vec!["merge", "--expect", "-1", &report], "'--expect <N>'"),
    ] {
        let r = run(harness().args(&args));
        assert_one_line_error(&r, 2, &format!("invalid value '-1' for {option}"));
    }
}

/// Issue 27: a `.npy` header the parser cannot read is one line naming the
/// file (npyz's diagnostic is several: the header echoed, a caret, what it
/// expected), whatever the bad bytes are.
#[test]
fn a_malformed_npy_header_is_one_line_naming_the_file() {
    let work = scratch("cli_npy_header");
    let base = work.join("base");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
        ])
        .args(["--seed", "1", "-q", "--dump-all", "--dump"])
        .arg(&base));
    assert_eq!(r.code, 0, "{}", r.all());
    let npy = base.join("gfx1100/basic/a.npy");
    let pristine = std::fs::read(&npy).unwrap();
    // The header's dict opened with `(`, a line break in it, a control byte.
    for (name, from, to) in [
        ("paren", &b"{'descr'"[..], &b"('descr'"[..]),
        ("newline", b"'shape'", b"'sh\npe'"),
        ("control", b"'descr'", b"'de\x01cr'"),
    ] {
        let at = pristine
            .windows(from.len())
            .position(|w| w == from)
            .unwrap_or_else(|| panic!("{name}: {from:?} in the header"));
        let mut bytes = pristine.clone();
        bytes.splice(at..at + from.len(), to.iter().copied());
        std::fs::write(&npy, &bytes).unwrap();
        let r = run(harness().args(["replay", "--backend", "emu"]).arg(&base));
        assert_one_line_error(&r, 2, "a.npy: not a readable .npy file");
        assert!(!r.stderr.contains("-->"), "{name}: {}", r.stderr);
    }
}

/// Issue 27: `merge --expect N` with another number of reports is exit 3 and
/// says why on stderr (one line), not only in the merged JSON's `error`.
#[test]
fn merge_expect_mismatch_says_why_on_stderr() {
    let dir = scratch("cli_merge_expect");
    let node = dir.join("node.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
            "-q",
            "--json",
        ])
        .arg(&node));
    assert_eq!(r.code, 0, "{}", r.all());
    let merged = dir.join("merged.json");
    let r = run(harness()
        .args(["merge", "--expect", "2", "--json"])
        .arg(&merged)
        .arg(&node));
    assert_one_line_error(&r, 3, "expected 2 report(s), got 1");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert!(report["error"]
        .as_str()
        .unwrap()
        .contains("expected 2 report(s), got 1"));
    // The count met: nothing on stderr.
    let r = run(harness()
        .args(["merge", "--expect", "1", "--json"])
        .arg(&merged)
        .arg(&node));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}
