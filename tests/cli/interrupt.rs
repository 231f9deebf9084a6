//! SIGINT and SIGTERM during a long emulated run: the real binary stops at
//! the next dispatch boundary, still writes both reports marked interrupted
//! with what completed, and exits 128 + the signal's number.

use crate::common::*;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// How long a run may take to react before the test gives up on it (a hang
/// guard, not a timing assertion: the run reacts within one dispatch).
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Start a run far too long to finish (4G lanes of `basic`, then two more
/// cases) and return once it has printed its header, i.e. is running.
fn start_long_run(dir: &std::path::Path) -> (Child, BufReader<std::process::ChildStdout>, String) {
    let mut child = harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic,vgpr_w32,vgpr_w64",
            "--lanes",
            "4G",
            "--seed",
            "5",
        ])
        .arg("--json")
        .arg(dir.join("r.json"))
        .arg("--junit")
        .arg(dir.join("r.xml"))
        .arg("--html")
        .arg(dir.join("r.html"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xad-harness");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    while !printed.lines().any(|l| l.starts_with("seed 5 ")) {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            panic!("the run ended before it started:\n{printed}");
        }
        printed += &line;
    }
    (child, out, printed)
}

/// Send `signal` (a `kill` name) and collect the exit code and all output.
fn interrupt(
    mut child: Child,
    mut out: BufReader<std::process::ChildStdout>,
    mut printed: String,
    signal: &str,
) -> (i32, String, String) {
    let sent = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{signal} {}", child.id()))
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal}");
    let reader = std::thread::spawn(move || {
        let _ = out.read_to_string(&mut printed);
        printed
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            panic!("no exit within {HANG_GUARD:?} of {signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code().unwrap_or(-1), reader.join().unwrap(), stderr)
}

fn check_reports(dir: &std::path::Path, signal: &str, code: i32) {
    // The HTML page of a 2^32-lane run, interrupted: written, saying so, small.
    let html = std::fs::read_to_string(dir.join("r.html")).expect("HTML page written");
    assert!(
        html.contains(&format!("interrupted by {signal}")),
        "{html:.3000}"
    );
    assert!(html.len() < 256 * 1024, "{} bytes", html.len());
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("r.json")).expect("JSON report written"),
    )
    .unwrap();
    let marker = &json["interrupted"];
    assert_eq!(marker["signal"], signal, "{json}");
    assert_eq!(marker["exit_code"], code);
    assert_eq!(marker["cases_completed"], 0, "basic alone takes hours");
    // The signal lands at one of two boundaries: before basic's first
    // dispatch (basic not run) or between two of its dispatches (basic cut
    // short after whole chunks). tests/pipeline/session.rs pins each one down.
    let cases = json["devices"][0]["cases"].as_array().unwrap();
    let cut = &marker["cut_short"];
    if cut.is_null() {
        assert!(cases.is_empty(), "{json}");
        assert_eq!(
            marker["not_run"],
            serde_json::json!(["basic", "vgpr_w32", "vgpr_w64"])
        );
    } else {
        assert_eq!(cut["case"], "basic", "{marker}");
        let checked = cut["lanes_checked"].as_u64().unwrap();
        assert!(
            checked < 1 << 32 && checked % (1 << 17) == 0,
            "stopped at a dispatch boundary: {checked}"
        );
        assert_eq!(cases.len(), 1);
        assert_eq!(
            cases[0]["tally"]["lanes_checked"], checked,
            "the case's result holds the checked lanes"
        );
        assert_eq!(cases[0]["tally"]["lanes_failed"], 0);
        assert_eq!(
            marker["not_run"],
            serde_json::json!(["vgpr_w32", "vgpr_w64"])
        );
    }
    let junit = std::fs::read_to_string(dir.join("r.xml")).expect("JUnit report written");
    assert!(
        junit.contains(&format!(
            "<property name=\"interrupted\" value=\"{signal}\"/>"
        )),
        "{junit}"
    );
    assert_eq!(
        junit.matches("<skipped").count(),
        3,
        "every case that did not finish is skipped: {junit}"
    );
    assert!(junit.contains("not run: interrupted by"), "{junit}");
}

#[test]
fn sigint_stops_at_a_dispatch_boundary_and_writes_both_reports() {
    let dir = scratch("interrupt-int");
    let (child, out, printed) = start_long_run(&dir);
    let (code, stdout, stderr) = interrupt(child, out, printed, "INT");
    assert_eq!(code, 130, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stdout.contains("interrupted by SIGINT: 0 case(s) completed"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .contains("interrupted by SIGINT"),
        "summary says so: {stdout}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    check_reports(&dir, "SIGINT", 130);
}

#[test]
fn sigterm_stops_the_same_way_with_exit_143() {
    let dir = scratch("interrupt-term");
    let (child, out, printed) = start_long_run(&dir);
    let (code, stdout, stderr) = interrupt(child, out, printed, "TERM");
    assert_eq!(code, 143, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("interrupted by SIGTERM"), "{stdout}");
    check_reports(&dir, "SIGTERM", 143);
}

/// Negative control: the same run without a signal is not marked (it is
/// short enough here to finish).
#[test]
fn an_uninterrupted_run_carries_no_marker() {
    let dir = scratch("interrupt-none");
    let json = dir.join("r.json");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "4096",
            "--json",
        ])
        .arg(&json));
    assert_eq!(r.code, 0, "{}", r.all());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(doc.get("interrupted").is_none(), "{doc}");
    assert!(!r.stdout.contains("interrupted"), "{}", r.stdout);
}

/// A `clang` that is the real one for the canary and, for the user's
/// source, marks that it started and then never finishes (`exec`, so the
/// signal or a kill reaches the process the harness waits for), beside the
/// real `ld.lld`.
fn slow_assembler(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let real =
        xad_harness::platform::toolchain::discover("gfx1100", dir).expect("an LLVM for gfx1100");
    let bin = dir.join("slow-llvm");
    std::fs::create_dir_all(&bin).unwrap();
    let clang = bin.join("clang");
    std::fs::write(
        &clang,
        format!(
            "#!/bin/sh\ncase \"$*\" in *canary-*) exec '{}' \"$@\";; esac\n\
             touch \"$XAD_TEST_STARTED\"\nexec sleep 3600\n",
            real.clang.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&clang, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink(&real.lld, bin.join("ld.lld")).unwrap();
    bin
}

/// Issue 27: SIGINT while the user's `.s` assembles is an interruption
/// (exit 130, one stderr line saying so), not "does not assemble" or "no
/// LLVM toolchain": the terminal's Ctrl-C (the whole process group, the
/// assembler too) and a signal to the harness alone (it stops the
/// assembler itself).
#[test]
fn sigint_while_a_kernel_assembles_says_so() {
    use std::os::unix::process::CommandExt;
    for to_group in [true, false] {
        let dir = scratch(if to_group {
            "interrupt-asm-group"
        } else {
            "interrupt-asm-one"
        });
        let bin = slow_assembler(&dir);
        let src = dir.join("k.s");
        std::fs::write(&src, basic_source()).unwrap();
        let started = dir.join("started");
        let mut child = harness()
            .args(["run", "--backend", "emu", "--kernel"])
            .arg(&src)
            .env("XAD_LLVM_DIR", &bin)
            .env("XAD_TOOL_TIMEOUT", "3600")
            .env("XAD_TEST_STARTED", &started)
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start xad-harness");
        let since = Instant::now();
        while !started.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                let out = child.wait_with_output().unwrap();
                panic!(
                    "ended ({status}) before assembling:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            assert!(since.elapsed() < HANG_GUARD, "the assembler never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        let target = if to_group {
            format!("-{}", child.id())
        } else {
            child.id().to_string()
        };
        let sent = std::process::Command::new("kill")
            .args(["-INT", "--", &target])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -INT {target}");
        let since = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if since.elapsed() > HANG_GUARD {
                let _ = child.kill();
                panic!("no exit within {HANG_GUARD:?} of SIGINT");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let how = if to_group {
            "process group"
        } else {
            "harness alone"
        };
        assert_eq!(out.status.code(), Some(130), "{how}:\n{stdout}{stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{how}: one line:\n{stderr}");
        assert!(
            lines[0].starts_with("xad-harness: interrupted by SIGINT while assembling the kernel"),
            "{how}: {stderr}"
        );
        assert!(
            !stderr.contains("does not assemble") && !stderr.contains("no LLVM toolchain"),
            "{how}: {stderr}"
        );
        assert!(stdout.contains("interrupted by SIGINT"), "{how}: {stdout}");
    }
}
