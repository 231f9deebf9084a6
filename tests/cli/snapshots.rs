//! Snapshot tests of what the binary prints and writes: the text on stdout, the JUnit XML, the
//! JSON report and the HTML page of a passing and of a failing run, `list`, and one error line
//! with its exit code. Each output is a reviewed file in `tests/cli/snapshots/*.snap`, so a
//! change in one line of an output is one line of diff to read (the other modules assert on
//! pieces: schema, lane counts, what a browser sees; these hold the whole text).
//!
//! Update every snapshot after a deliberate change of output, then review the diff like code:
//! `INSTA_UPDATE=always cargo test --test cli -- snapshots::` (no `cargo insta` needed). Without
//! the variable a mismatch fails and leaves a `.snap.new` beside the snapshot; with `CI=true`
//! insta writes nothing, so a mismatch or a missing snapshot fails.
//!
//! The runs are fixed so the outputs are deterministic: the embedded emulator, gfx1100, seed 1,
//! 64 lanes (the inputs, scalars and guard seed all follow from the seed). What differs between
//! two runs of the same build, or between machines, is masked, each with a filter below and
//! nothing else:
//! - durations (`"seconds"` in the JSON, `time=` in the JUnit, `0.00 s` in the text and the
//!   page): wall-clock time;
//! - `git describe` (the JSON's `tool.git_describe`, the page's header): taken when build.rs last
//!   ran, so it names whichever commit that was;
//! - the host name (`host` in the JSON, the JUnit property, the page's `data-host`, its `on
//!   HOST` and its fleet table): the machine's name;
//! - the binary's path (the JSON's `command[0]`) and the scratch directory (a user kernel's path,
//!   if one is ever written absolute): where the checkout and its target directory are.
//! Paths given to the binary are relative to its working directory, the scratch directory, so the
//! command lines in the reports need no more masking than that.
//!
//! `list` prints every target this build assembled; a target whose LLVM is missing says
//! `(not built: ...)` and changes that snapshot: CI installs them all (ci/setup.sh).

use std::path::{Path, PathBuf};

use crate::common::*;

/// The fixed run every snapshot of a run starts from.
const RUN: [&str; 9] = [
    "run",
    "--backend",
    "emu",
    "--target",
    "gfx1100",
    "--seed",
    "1",
    "--lanes",
    "64",
];

/// `s` as a regex matching itself (the metacharacters `regex::escape` escapes; the regex crate
/// is not a dependency of ours, only of insta's filters).
fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// This machine's name, read where the harness reads it (`report::host_name`).
fn host() -> String {
    xad_harness::report::host_name()
}

/// The settings every snapshot is taken under: the filters of the module doc, the command line as
/// the snapshot's description (so the reviewed file says what produced it), and files named
/// `<name>.snap` in tests/cli/snapshots/.
fn settings(scratch: &Path, command: &[&str]) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s.set_description(format!("xad-harness {}", command.join(" ")));
    // Paths first: the scratch directory lies under the target directory, which may lie beside
    // the binary's.
    s.add_filter(&literal(&scratch.display().to_string()), "[scratch]");
    s.add_filter(&literal(env!("CARGO_BIN_EXE_xad-harness")), "[xad-harness]");
    // Durations.
    s.add_filter(r#""seconds": [0-9.eE+-]+"#, r#""seconds": "[seconds]""#);
    s.add_filter(r#"time="[0-9.]+""#, r#"time="[seconds]""#);
    s.add_filter(r"\b[0-9]+\.[0-9]+ s\b", "[seconds] s");
    // `git describe`, as the JSON and the page spell it. The page's is matched as the value
    // build.rs gave the binary (its rustc-env reaches this crate too), not as a pattern: it may
    // hold parentheses of its own ("unknown (not built from a git checkout)").
    s.add_filter(
        r#""git_describe": "[^"]*""#,
        r#""git_describe": "[git describe]""#,
    );
    s.add_filter(
        &format!(
            r"(xad-harness [0-9][^ ]* )\({}\)( on )",
            literal(env!("XAD_GIT_DESCRIBE"))
        ),
        "$1([git describe])$2",
    );
    // The host name, only where a report puts it (a bare name could occur in other text).
    let h = literal(&host());
    for (pattern, replacement) in [
        (format!(r#""host": "{h}""#), r#""host": "[host]""#),
        (
            format!(r#"name="host" value="{h}""#),
            r#"name="host" value="[host]""#,
        ),
        (format!(r#"data-host="{h}""#), r#"data-host="[host]""#),
        (
            format!(r#"<td class="l">{h}</td>"#),
            r#"<td class="l">[host]</td>"#,
        ),
        (format!(r"\) on {h};"), r") on [host];"),
        (format!(r" on {h}</h2>"), r" on [host]</h2>"),
    ] {
        s.add_filter(&pattern, replacement);
    }
    s
}

/// A run's exit code and both streams, as one snapshot's text.
fn streams(r: &Ran) -> String {
    format!(
        "exit code {}\n--- stdout\n{}--- stderr\n{}",
        r.code, r.stdout, r.stderr
    )
}

/// Run `xad-harness args` in `dir` (so relative paths in `args` are files there), without the
/// variables a report records (`environment` in the JSON): the runs name their backend, so those
/// could only change the snapshot, never what ran.
fn run_in(dir: &Path, args: &[&str]) -> Ran {
    let mut cmd = harness();
    for name in xad_harness::report::RECORDED_ENV {
        cmd.env_remove(name);
    }
    run(cmd.current_dir(dir).args(args))
}

fn read(dir: &Path, file: &str) -> String {
    let path: PathBuf = dir.join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Three passing cases with every report written: the text, the JUnit, the JSON and the page;
/// `report --html` draws the same page from the saved JSON, byte for byte.
#[test]
fn passing_run_outputs() {
    let dir = scratch("snapshots-pass");
    let mut args = RUN.to_vec();
    args.extend([
        "--case",
        "basic,chain_w32,dpp8_w32",
        "--json",
        "run.json",
        "--junit",
        "run.xml",
        "--html",
        "run.html",
    ]);
    let r = run_in(&dir, &args);
    settings(&dir, &args).bind(|| {
        insta::assert_snapshot!("pass_text", streams(&r));
        insta::assert_snapshot!("pass_junit", read(&dir, "run.xml"));
        insta::assert_snapshot!("pass_json", read(&dir, "run.json"));
        insta::assert_snapshot!("pass_html", read(&dir, "run.html"));
    });

    let drawn = run_in(&dir, &["report", "--html", "-", "run.json"]);
    assert_eq!(drawn.code, 0, "report --html:\n{}", drawn.all());
    assert!(
        drawn.stdout == read(&dir, "run.html"),
        "`report --html` drew another page than `run --html`"
    );
}

/// A kernel that computes `a ^ b` (c forgotten) in place of `v_xad_u32`, given with `--kernel`:
/// the failure lines, the replay line, a JUnit `<failure>`, the report's lane pattern and the
/// page's lane map of wrong lanes.
#[test]
fn failing_run_outputs() {
    let dir = scratch("snapshots-fail");
    let xad = "  v_xad_u32 v5, v2, v3, v4                  // the instruction under test";
    let source = basic_source();
    assert!(
        source.contains(xad),
        "xad_basic_gfx11.s no longer has {xad:?}"
    );
    std::fs::write(
        dir.join("xor.s"),
        source.replace(xad, "  v_xor_b32 v5, v2, v3"),
    )
    .unwrap();
    let mut args = RUN.to_vec();
    args.extend([
        "--case",
        "basic",
        "--kernel",
        "xor.s",
        "--max-mismatches",
        "3",
        "--json",
        "run.json",
        "--junit",
        "run.xml",
        "--html",
        "run.html",
    ]);
    let r = run_in(&dir, &args);
    settings(&dir, &args).bind(|| {
        insta::assert_snapshot!("fail_text", streams(&r));
        insta::assert_snapshot!("fail_junit", read(&dir, "run.xml"));
        insta::assert_snapshot!("fail_json", read(&dir, "run.json"));
        insta::assert_snapshot!("fail_html", read(&dir, "run.html"));
    });
}

/// The catalogue and the targets, as `list` prints them.
#[test]
fn list_output() {
    let dir = scratch("snapshots-list");
    let args = ["list"];
    let r = run_in(&dir, &args);
    settings(&dir, &args).bind(|| insta::assert_snapshot!("list", streams(&r)));
}

/// One refusal: its single stderr line and its exit code (2, a usage error).
#[test]
fn error_line_and_exit_code() {
    let dir = scratch("snapshots-error");
    let mut args = RUN.to_vec();
    args.extend(["--case", "no_such_case"]);
    let r = run_in(&dir, &args);
    settings(&dir, &args).bind(|| insta::assert_snapshot!("error_no_such_case", streams(&r)));
}
