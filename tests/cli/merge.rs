//! `xad-harness merge` from the command line: fixtures in the report shape
//! of the current schema version (written by hand, as the contract states it),
//! refusals, exit codes, and two real emulator runs merged.

use std::path::{Path, PathBuf};

use crate::common::{harness, mkfifo, mknod_char, run, scratch, Ran};
use serde_json::{json, Value};

/// The schema version the harness writes and `merge` reads.
const SCHEMA_VERSION: u32 = xad_harness::report::SCHEMA_VERSION;

/// A complete report of one emulated device whose cases have
/// `statuses`; `exit_code` is the report's and its device's, the one `run`
/// would write for those statuses (the fixtures below keep to that).
fn report(host: &str, exit_code: i32, statuses: &[&str]) -> Value {
    let cases: Vec<Value> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let passed = if *s == "pass" { 64 } else { 0 };
            json!({
                "status": s, "lanes_passed": passed, "case": format!("case{i}"),
                "description": "", "kernel": "xad_basic",
                "kernel_source": {"embedded": {"source": "kernels/cases/xad_basic.s"}},
                "device": "emulator:gfx1100", "executor": "emulated gfx1100",
                "target": "gfx1100", "seed": 5, "guard_seed": 6, "lanes": 64, "scalars": [],
                "tally": {"lanes_checked": passed, "lanes_failed": 0, "lanes_unwritten": 0,
                          "lanes_undefined": 0, "lanes_unsettled": 0, "words_unsettled": 0,
                          "first": [], "first_unsettled": []},
                "guard_violations": [], "error": null, "seconds": 0.01,
                "unsettled": null, "forms": []
            })
        })
        .collect();
    let mut summary = json!({"pass": 0, "fail": 0, "unsettled": 0, "finding": 0,
                             "not_supported": 0, "error": 0, "timeout": 0, "skipped": 0});
    for s in statuses {
        summary[*s] = json!(summary[*s].as_u64().unwrap() + 1);
    }
    json!({
        "schema": "xad-harness/report", "schema_version": SCHEMA_VERSION,
        "tool": {"name": "xad-harness", "version": "0.1.0", "git_describe": "v0.1.0"},
        "host": host, "command": ["xad-harness", "run"], "environment": {},
        "seed": 5, "guard_seed": 6, "lanes_per_case": 64,
        "executor": "emulated gfx1100", "targets": ["gfx1100"], "notes": [],
        "exit_code": exit_code, "summary": summary,
        "devices": [{"id": "emulator:gfx1100", "executor": "emulated gfx1100",
                     "identity": {"kind": "emulated", "target": "gfx1100"},
                     "targets": ["gfx1100"], "notes": [], "error": null, "seconds": 0.1,
                     "host": host, "exit_code": exit_code, "summary": summary, "cases": cases}],
        "error": null
    })
}

const JUNIT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="xad-harness" tests="1" failures="0" errors="0">
    <testsuite name="xad-harness gfx1100" tests="1" errors="0" failures="0">
        <testcase name="basic" classname="xad-harness.gfx1100.xad_basic" time="0.010"/>
    </testsuite>
</testsuites>
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn write_report(dir: &Path, name: &str, report: &Value) -> PathBuf {
    write(dir, name, &serde_json::to_string_pretty(report).unwrap())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `merge --json out good bad` refuses `bad`: exit 2, one stderr line that
/// starts with its path and says `why`, and nothing written. `name` labels
/// the failure.
fn assert_input_refused(out: &Path, good: &Path, bad: &Path, why: &str, name: &str) {
    let ran: Ran = run(harness()
        .args(["merge", "--json"])
        .arg(out)
        .arg(good)
        .arg(bad));
    assert_eq!(ran.code, 2, "{name}: {}", ran.all());
    let lines: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{name}: {}", ran.stderr);
    assert!(
        lines[0].starts_with(&format!("xad-harness: {}: ", bad.display()))
            && lines[0].contains(why),
        "{name}: {}",
        lines[0]
    );
    assert!(
        !out.exists(),
        "{name}: nothing is written for a refused input"
    );
}

#[test]
fn two_nodes_merge_into_one_report_and_one_junit() {
    let dir = scratch("merge_two_nodes");
    let a = write_report(&dir, "node1.json", &report("node1", 0, &["pass", "pass"]));
    let b = write_report(&dir, "node2.json", &report("node2", 0, &["pass"]));
    let (xa, xb) = (
        write(&dir, "node1.xml", JUNIT),
        write(&dir, "node2.xml", JUNIT),
    );
    let (out, xml) = (dir.join("merged.json"), dir.join("merged.xml"));
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg("--junit")
        .arg(&xml)
        .args([&a, &b])
        .arg("--junit-in")
        .args([&xa, &xb]));
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert_eq!(
        ran.stdout.trim(),
        "merged 2 report(s), 2 JUnit suites: 2 device(s) on node1, node2: 3 pass, 0 fail, \
         0 unsettled, 0 finding, 0 not_supported, 0 error, 0 timeout, 0 skipped; exit 0"
    );
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);

    let merged = read_json(&out);
    assert_eq!(merged["schema"], "xad-harness/report");
    assert_eq!(merged["schema_version"], SCHEMA_VERSION);
    assert_eq!(merged["exit_code"], 0);
    assert_eq!(merged["summary"]["pass"], 3);
    assert_eq!(merged["seed"], 5);
    let devices = merged["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[0]["host"], "node1");
    assert_eq!(devices[1]["host"], "node2");
    assert_valid(&merged);
    let from = merged["merged_from"].as_array().unwrap();
    assert_eq!(from[0]["file"], a.display().to_string());
    assert_eq!(from[1]["host"], "node2");
    assert_eq!(from[1]["exit_code"], 0);
    // Written in the contract's order, not alphabetically.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with(&format!(
            "{{\n  \"schema\": \"xad-harness/report\",\n  \"schema_version\": {SCHEMA_VERSION},"
        )),
        "{text}"
    );

    let junit = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 2, "{junit}");
    assert!(junit.contains(r#"<testsuites name="xad-harness" tests="2" failures="0" errors="0" skipped="0" time="0.020">"#), "{junit}");
    assert!(
        junit.contains(r#"name="xad-harness gfx1100 [node2]""#),
        "{junit}"
    );
}

#[test]
fn the_combined_exit_code_is_the_worst_node() {
    let dir = scratch("merge_exit_codes");
    let pass = write_report(&dir, "pass.json", &report("p", 0, &["pass"]));
    let fail = write_report(&dir, "fail.json", &report("f", 1, &["fail"]));
    let fault = write_report(&dir, "fault.json", &report("e", 3, &["error"]));
    let mut none = report("s", 77, &[]);
    none["devices"] = json!([]);
    none["targets"] = json!([]);
    none["error"] = json!("no HIP device runs gfx1100's code objects");
    let skipped = write_report(&dir, "skipped.json", &none);
    let out = dir.join("m.json");
    for (inputs, want) in [
        (vec![&pass, &skipped], 77),
        (vec![&skipped, &skipped], 77),
        (vec![&pass, &fault, &skipped], 3),
        (vec![&fault, &fail, &pass], 1),
    ] {
        let ran = run(harness().args(["merge", "--json"]).arg(&out).args(&inputs));
        assert_eq!(ran.code, want, "{inputs:?}: {}", ran.all());
        assert_eq!(read_json(&out)["exit_code"], want);
        assert!(
            ran.stdout.trim().ends_with(&format!("exit {want}")),
            "{}",
            ran.stdout
        );
    }
    let merged = read_json(&out);
    assert_eq!(merged["summary"]["fail"], 1);
    assert_eq!(merged["summary"]["error"], 1);
}

#[test]
fn a_missing_node_report_is_a_fault() {
    let dir = scratch("merge_expect");
    let a = write_report(&dir, "a.json", &report("a", 0, &["pass"]));
    let out = dir.join("m.json");
    let ran = run(harness()
        .args(["merge", "--expect", "2", "--json"])
        .arg(&out)
        .arg(&a));
    assert_eq!(ran.code, 3, "{}", ran.all());
    let merged = read_json(&out);
    assert!(merged["error"]
        .as_str()
        .unwrap()
        .contains("expected 2 report(s), got 1"));
    let ran = run(harness().args(["merge", "--expect", "1"]).arg(&a));
    assert_eq!(ran.code, 0, "{}", ran.all());
}

#[test]
fn inputs_that_are_not_reports_of_this_schema_version_are_refused_naming_the_file() {
    let dir = scratch("merge_refusals");
    let good = write_report(&dir, "good.json", &report("g", 0, &["pass"]));
    let mut old = report("o", 0, &["pass"]);
    old.as_object_mut().unwrap().remove("schema_version");
    let mut v1 = report("v", 0, &["pass"]);
    v1["schema_version"] = json!(1);
    let mut next = report("n", 0, &["pass"]);
    next["schema_version"] = json!(SCHEMA_VERSION + 1);
    let next_why = format!("schema_version {}", SCHEMA_VERSION + 1);
    let cases = [
        (dir.join("missing.json"), "cannot be read"),
        (write(&dir, "garbage.json", "{not json"), "not JSON"),
        (write_report(&dir, "old.json", &old), "no schema_version"),
        (write_report(&dir, "v1.json", &v1), "schema_version 1"),
        (write_report(&dir, "next.json", &next), next_why.as_str()),
        (write(&dir, "array.json", "[]"), "not a JSON object"),
    ];
    let out = dir.join("m.json");
    for (bad, why) in &cases {
        assert_input_refused(&out, &good, bad, why, &bad.display().to_string());
    }
    let xml = write(&dir, "bad.xml", "<html/>");
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg("--junit")
        .arg(dir.join("m.xml"))
        .arg(&good)
        .arg("--junit-in")
        .arg(&xml));
    assert_eq!(ran.code, 2, "{}", ran.all());
    assert!(
        ran.stderr
            .contains("bad.xml: not a JUnit report (root element <html>"),
        "{}",
        ran.stderr
    );
}

#[test]
fn bad_command_lines_are_usage_errors() {
    let dir = scratch("merge_usage");
    let good = write_report(&dir, "good.json", &report("g", 0, &["pass"]));
    let xml = write(&dir, "in.xml", JUNIT);
    let no_inputs = run(harness().args(["merge", "--json", "x.json"]));
    assert_eq!(no_inputs.code, 2, "{}", no_inputs.all());
    let junit_alone = run(harness()
        .args(["merge", "--junit"])
        .arg(dir.join("o.xml"))
        .arg(&good));
    assert_eq!(junit_alone.code, 2, "{}", junit_alone.all());
    let junit_in_alone = run(harness()
        .arg("merge")
        .arg(&good)
        .arg("--junit-in")
        .arg(&xml));
    assert_eq!(junit_in_alone.code, 2, "{}", junit_in_alone.all());
    let over_input = run(harness().args(["merge", "--json"]).arg(&good).arg(&good));
    assert_eq!(over_input.code, 2, "{}", over_input.all());
    assert!(
        over_input.stderr.contains("is also an input"),
        "{}",
        over_input.stderr
    );
    let no_dir = run(harness()
        .args(["merge", "--json", "/no/such/dir/m.json"])
        .arg(&good));
    assert_eq!(no_dir.code, 2, "{}", no_dir.all());
    assert!(
        no_dir.stderr.contains("does not exist"),
        "{}",
        no_dir.stderr
    );
    let zero = run(harness().args(["merge", "--expect", "0"]).arg(&good));
    assert_eq!(zero.code, 2, "{}", zero.all());
    // The input is untouched by the refused runs.
    assert_eq!(read_json(&good), report("g", 0, &["pass"]));
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report/report.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

fn assert_valid(report: &Value) {
    let errors: Vec<String> = schema()
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "not a schema-1 report: {errors:#?}");
}

/// Two real runs on the emulator with different seeds, merged: the result is
/// itself a valid schema-1 report (src/report/report.schema.json).
#[test]
fn two_emulator_runs_merge_into_a_valid_report() {
    let dir = scratch("merge_real_runs");
    let mut paths = Vec::new();
    for (i, seed) in [(1, "1"), (2, "2")] {
        let (json, xml) = (
            dir.join(format!("run{i}.json")),
            dir.join(format!("run{i}.xml")),
        );
        let ran = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--case",
                "basic",
                "--lanes",
                "64",
                "--seed",
                seed,
                "--json",
            ])
            .arg(&json)
            .arg("--junit")
            .arg(&xml));
        assert_eq!(ran.code, 0, "{}", ran.all());
        paths.push((json, xml));
    }
    let out = dir.join("merged.json");
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg("--junit")
        .arg(dir.join("merged.xml"))
        .args(paths.iter().map(|p| &p.0))
        .arg("--junit-in")
        .args(paths.iter().map(|p| &p.1)));
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert!(
        ran.stdout.contains("; seeds differ; exit 0"),
        "{}",
        ran.stdout
    );
    let merged = read_json(&out);
    assert_valid(&merged);
    assert_eq!(merged["devices"].as_array().unwrap().len(), 2);
    assert_eq!(merged["summary"]["pass"], 2);
    assert_eq!(merged["seed"], 1);
    assert_eq!(merged["seeds"], json!([1, 2]));
    assert_eq!(merged["executor"], "emulated gfx1100");
    assert_eq!(merged["targets"], json!(["gfx1100"]));
    assert_eq!(merged["command"][1], "merge");
    let junit = std::fs::read_to_string(dir.join("merged.xml")).unwrap();
    assert_eq!(junit.matches("<testsuite ").count(), 2, "{junit}");

    // A skipped node (no HIP device here) beside them: still valid, and 77.
    let (json, xml) = (dir.join("hip.json"), dir.join("hip.xml"));
    let ran = run(harness()
        .args([
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "64",
            "--json",
        ])
        .arg(&json)
        .arg("--junit")
        .arg(&xml));
    assert_eq!(ran.code, 77, "this machine has no AMD GPU: {}", ran.all());
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg(&paths[0].0)
        .arg(&json));
    assert_eq!(ran.code, 77, "{}", ran.all());
    let merged = read_json(&out);
    assert_valid(&merged);
    assert!(
        merged["error"].as_str().unwrap().contains("no HIP device"),
        "{merged}"
    );
}

/// `merge` renames its report into place over a regular file, so a symlink
/// to a file at an output path would be replaced: it is refused before
/// anything is read, one line, exit 2, and left as it was. A FIFO or
/// character device (issue 42) is written in place, never replaced: the
/// FIFO's reader gets the merged report and it stays a FIFO; a private
/// /dev/full (mknod 1:7, where allowed) is a write error, exit 3 with one
/// line, the node left a device. A regular file is replaced.
#[test]
fn merge_never_replaces_a_device_node_fifo_or_symlink() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("merge_special_outputs");
    let input = write_report(&dir, "node1.json", &report("node1", 0, &["pass"]));
    let target = write(&dir, "target.json", "keep me\n");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let xml = write(&dir, "node1.xml", JUNIT);
    let merge_to = |option: &str, out: &std::path::Path| {
        let mut cmd = harness();
        cmd.args(["merge", option]).arg(out).arg(&input);
        if option == "--junit" {
            cmd.arg("--junit-in").arg(&xml);
        }
        run(&mut cmd)
    };
    for option in ["--json", "--junit"] {
        let ran = merge_to(option, &link);
        assert_eq!(ran.code, 2, "{option} a symlink: {}", ran.all());
        let lines: Vec<&str> = ran.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", ran.stderr);
        assert!(lines[0].contains("a symbolic link"), "{}", lines[0]);
    }
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");

    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let ran = merge_to("--json", &fifo);
    let merged = reader.join().unwrap();
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert!(merged.contains("xad-harness/report"), "{merged}");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());

    // A private character device (the same numbers as /dev/full) where mknod is allowed (root).
    let device = dir.join("full");
    if mknod_char(&device, 1, 7) {
        for option in ["--json", "--junit"] {
            let ran = merge_to(option, &device);
            assert_eq!(ran.code, 3, "{option} a full device: {}", ran.all());
            let lines: Vec<&str> = ran.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{}", ran.stderr);
            assert!(lines[0].contains("No space left"), "{}", lines[0]);
            assert!(std::fs::symlink_metadata(&device)
                .unwrap()
                .file_type()
                .is_char_device());
        }
    } else {
        eprintln!("mknod not allowed here: the device-node row is not exercised");
    }
    // Positive twin: a regular file is replaced by the merged report.
    let ran = run(harness().args(["merge", "--json"]).arg(&target).arg(&input));
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("xad-harness/report"));
}

/// Whether `xml` is a well-formed XML 1.0 document, read as a strict reader
/// would: quick-xml for tags and nesting, plus what it lets through, each
/// text, attribute and reference resolved (only the five predefined entities
/// and character references exist without a DTD) and every character one
/// XML allows. The JUnit parser a CI runner might use must read it too.
fn assert_well_formed(xml: &str) {
    use quick_xml::events::Event;
    let legal = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    let check = |what: &str, text: &str| {
        assert!(text.chars().all(legal), "{what} {text:?} in\n{xml}");
    };
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader
            .read_event()
            .unwrap_or_else(|e| panic!("{e} in\n{xml}"))
        {
            Event::Eof => break,
            Event::DocType(d) => panic!("a DTD {d:?} in\n{xml}"),
            Event::Start(e) | Event::Empty(e) => {
                for a in e.attributes() {
                    let a = a.unwrap_or_else(|e| panic!("{e} in\n{xml}"));
                    check(
                        "attribute",
                        &a.unescape_value()
                            .unwrap_or_else(|e| panic!("{e} in\n{xml}")),
                    );
                }
            }
            Event::Text(t) => check("text", &t.decode().unwrap()),
            Event::CData(t) => check("CDATA", &t.decode().unwrap()),
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(c)) => check("reference", &c.to_string()),
                Ok(None) => assert!(
                    ["lt", "gt", "amp", "apos", "quot"].contains(&&*r.decode().unwrap()),
                    "undefined entity {r:?} in\n{xml}"
                ),
                Err(e) => panic!("{e} in\n{xml}"),
            },
            _ => {}
        }
    }
    junit_parser::from_reader(std::io::Cursor::new(xml.as_bytes()))
        .unwrap_or_else(|e| panic!("the JUnit parser refuses it: {e}\n{xml}"));
}

/// A JUnit input quick-xml reads but that is not well-formed XML (an
/// undefined entity, a control character raw or by reference, a DTD whose
/// entity the merge would drop) used to be copied into the merged JUnit and
/// make it unreadable, while truncated XML was refused. Each is refused the
/// same way: exit 2, one line naming the file and what is wrong, nothing
/// written. Escapes, CDATA and comments that are well-formed still merge,
/// and the merged JUnit is well-formed.
#[test]
fn ill_formed_junit_inputs_are_refused_and_the_merged_junit_is_well_formed() {
    let dir = scratch("merge_ill_formed_junit");
    let good = write_report(&dir, "good.json", &report("g", 0, &["pass"]));
    let suite = |inner: &str| {
        format!(
            "<testsuites>\n  <testsuite name=\"s\" tests=\"1\">\n    {inner}\n  </testsuite>\n</testsuites>\n"
        )
    };
    let bad = [
        (
            "entity_text",
            suite("<testcase name=\"a\"><system-out>x &foo; y</system-out></testcase>"),
            "undefined entity &foo;",
        ),
        (
            "entity_attr",
            suite("<testcase name=\"a &foo; b\"/>"),
            "attribute name of <testcase>",
        ),
        (
            "control_attr",
            suite("<testcase name=\"a\u{1}b\"/>"),
            "U+0001 in attribute name of <testcase>",
        ),
        (
            "control_text",
            suite("<testcase name=\"a\"><system-out>a\u{1}b</system-out></testcase>"),
            "U+0001 in text",
        ),
        (
            "control_ref",
            suite("<testcase name=\"a\"><system-out>a&#1;b</system-out></testcase>"),
            "U+0001 in the reference &#1;",
        ),
        (
            "control_cdata",
            suite("<testcase name=\"a\"><system-out><![CDATA[a\u{1b}[31mred]]></system-out></testcase>"),
            "U+001B in a CDATA section",
        ),
        (
            "dtd",
            format!(
                "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"b\">]>\n{}",
                suite("<testcase name=\"&a;\"/>")
            ),
            "a DTD",
        ),
        (
            "properties",
            format!(
                "<testsuites><properties><property name=\"&foo;\"/></properties>{}",
                &suite("<testcase name=\"a\"/>")["<testsuites>".len()..]
            ),
            "attribute name of <property>",
        ),
        (
            "second_root",
            "<testsuite name=\"a\"/>\n<testsuite name=\"b\"/>\n".to_string(),
            "a second root element",
        ),
        (
            "stray_text",
            format!("{}trailing words\n", suite("<testcase name=\"a\"/>")),
            "text outside the root element",
        ),
    ];
    let (out, xml_out) = (dir.join("m.json"), dir.join("m.xml"));
    for (name, text, why) in &bad {
        let input = write(&dir, &format!("{name}.xml"), text);
        let ran = run(harness()
            .args(["merge", "--json"])
            .arg(&out)
            .arg("--junit")
            .arg(&xml_out)
            .arg(&good)
            .arg("--junit-in")
            .arg(&input));
        assert_eq!(ran.code, 2, "{name}: {}", ran.all());
        let lines: Vec<&str> = ran.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: {}", ran.stderr);
        assert!(
            lines[0].starts_with(&format!(
                "xad-harness: {}: not well-formed XML",
                input.display()
            )) && lines[0].contains(why),
            "{name}: {}",
            lines[0]
        );
        assert!(
            !out.exists() && !xml_out.exists(),
            "{name}: nothing is written"
        );
    }
    // Well-formed escapes, references, CDATA and comments come through, and
    // the merged JUnit reads back as XML and as JUnit.
    let fine = write(
        &dir,
        "fine.xml",
        &format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- by node1 -->\n{}",
            suite(
                "<testcase name=\"a &amp; &#x41;&#66; &lt;b&gt; &quot;c&quot; &apos;\">\
                 <system-out>\u{e9}t\u{e9} &#233; \t tab <![CDATA[<raw> & ]]><!-- a note --></system-out></testcase>"
            )
        ),
    );
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg("--junit")
        .arg(&xml_out)
        .arg(&good)
        .arg("--junit-in")
        .args([&fine, &fine])
        .arg(dir.join("fine.xml")));
    assert_eq!(ran.code, 0, "{}", ran.all());
    let merged = std::fs::read_to_string(&xml_out).unwrap();
    assert_well_formed(&merged);
    assert!(merged.contains("<![CDATA[<raw> & ]]>"), "{merged}");
    assert_eq!(merged.matches("<testsuite ").count(), 3, "{merged}");
}

/// The merged report names the report's schema and must satisfy it: the
/// report's document refuses a field it does not list, so an input carrying one (on the report, a
/// device, a case, an identity) used to make a merged report that broke its
/// own schema. Such an input is refused: exit 2, one line naming the file and
/// the field; the merge of inputs that satisfy the schema does too.
#[test]
fn inputs_with_fields_outside_the_schema_are_refused_and_the_merge_is_valid() {
    let dir = scratch("merge_unknown_fields");
    let good = write_report(&dir, "good.json", &report("g", 0, &["pass"]));
    let edits: [(&str, &dyn Fn(&mut Value), &str); 5] = [
        (
            "device",
            &|r| r["devices"][0]["not_in_the_contract"] = json!({"kept": true}),
            "devices[0]: unknown field \"not_in_the_contract\"",
        ),
        (
            "case",
            &|r| r["devices"][0]["cases"][0]["colour"] = json!("red"),
            "devices[0].cases[0]: unknown field \"colour\"",
        ),
        (
            "identity",
            &|r| r["devices"][0]["identity"]["serial"] = json!("x"),
            "devices[0].identity: unknown field \"serial\"",
        ),
        ("top", &|r| r["extra"] = json!(1), "unknown field \"extra\""),
        (
            "missing",
            &|r| {
                r["devices"][0].as_object_mut().unwrap().remove("summary");
            },
            "devices[0]: missing field \"summary\"",
        ),
    ];
    let out = dir.join("m.json");
    for (name, edit, why) in edits {
        let mut input = report("n", 0, &["pass"]);
        edit(&mut input);
        let path = write_report(&dir, &format!("{name}.json"), &input);
        assert_input_refused(&out, &good, &path, why, name);
    }
    let other = write_report(&dir, "other.json", &report("o", 1, &["pass", "fail"]));
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg(&good)
        .arg(&other));
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert_valid(&read_json(&out));
}

/// A report edited to `exit_code: 0` beside a failing case used to merge to
/// exit 0: the code was copied. Each input's code is recomputed from its
/// cases by `run`'s rule, and an input whose `exit_code` (or a device's)
/// contradicts its cases was edited or corrupted: refused, exit 2, one line
/// naming the file and both codes.
#[test]
fn an_exit_code_that_contradicts_the_cases_is_refused() {
    let dir = scratch("merge_edited_exit_code");
    let good = write_report(&dir, "good.json", &report("g", 0, &["pass"]));
    let mut edited = report("e", 1, &["pass", "fail"]);
    edited["exit_code"] = json!(0);
    let mut device = report("d", 1, &["fail"]);
    device["devices"][0]["exit_code"] = json!(0);
    let mut interrupted = report("i", 0, &["pass"]);
    interrupted["interrupted"] = json!({"signal": "SIGTERM", "exit_code": 143,
        "cases_completed": 1, "cut_short": null, "not_run": []});
    let out = dir.join("m.json");
    for (name, input, why) in [
        (
            "edited",
            &edited,
            "exit_code 0 contradicts its cases, which make it 1",
        ),
        (
            "device",
            &device,
            "devices[0] exit_code 0 contradicts its cases, which make it 1",
        ),
        (
            "interrupted",
            &interrupted,
            "exit_code 0 contradicts its cases, which make it 143",
        ),
    ] {
        let path = write_report(&dir, &format!("{name}.json"), input);
        assert_input_refused(&out, &good, &path, why, name);
    }
    // The same failing report, unedited, makes the merge fail.
    let failing = write_report(&dir, "failing.json", &report("e", 1, &["pass", "fail"]));
    let ran = run(harness()
        .args(["merge", "--json"])
        .arg(&out)
        .arg(&good)
        .arg(&failing));
    assert_eq!(ran.code, 1, "{}", ran.all());
    let merged = read_json(&out);
    assert_eq!(merged["exit_code"], 1);
    assert_valid(&merged);
}
