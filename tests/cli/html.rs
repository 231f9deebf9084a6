//! The HTML page (`run --html`, `report REPORT.json --html`) opened in a real
//! browser: Debian's `chromium`, headless, takes a screenshot and dumps the
//! DOM it built, and the assertions read the SVG's `data-` attributes from
//! that DOM. Faults are injected through the emulated HIP library
//! (tests/emuhip, `XAD_EMUHIP_XAD_FAULT`), so every page here is of an
//! emulated run and its banners say so; nothing here is a hardware result.
//!
//! Without chromium the browser tests say SKIPPED and why; with `CI=true`
//! they fail instead (ci/setup.sh --tests installs it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::scratch;
use crate::support::{self, library};

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");
/// The lane in every wave the fault runs break, and the bit they flip.
const LANE: u64 = 17;
const BIT: u64 = 9;

/// `xad-harness args`, through the emulated HIP library when `knobs` is
/// given, else on the embedded emulator.
fn harness(args: &[&str], hip_knobs: Option<&[(&str, &str)]>) -> Output {
    let mut command = Command::new(HARNESS);
    command.args(args);
    let lib = hip_knobs.map(|_| library());
    support::run(command, lib.as_deref(), hip_knobs.unwrap_or(&[]))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The browser, or `None` (after saying why) where a test may skip.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("chromium"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let why = "chromium not found on PATH (apt-get install chromium; ci/setup.sh --tests installs it)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("SKIPPED: {why}");
    }
    found
}

/// Open `page` in headless chromium: a screenshot beside it (checked to be
/// a PNG of real size) and the DOM the browser built. The file is checked
/// first to need nothing outside itself: no script, no fetched resource.
fn browse(browser: &Path, page: &Path) -> String {
    let source =
        std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    for outside in [
        "<script",
        " src=",
        "href=\"http",
        "url(",
        "@import",
        "<link",
        "@font-face",
    ] {
        assert!(
            !source.contains(outside),
            "{}: not self-contained: {outside}",
            page.display()
        );
    }
    let url = format!("file://{}", page.display());
    let png = page.with_extension("png");
    // A profile of its own per page: tests run in parallel, and two
    // browsers on one profile would wait for each other or refuse.
    let profile = format!(
        "--user-data-dir={}",
        page.with_extension("profile").display()
    );
    let base = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--window-size=1000,1600",
        profile.as_str(),
    ];
    let shot = Command::new(browser)
        .args(base)
        .arg(format!("--screenshot={}", png.display()))
        .arg(&url)
        .output()
        .expect("start chromium");
    assert!(
        shot.status.success(),
        "screenshot: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        png.display()
    );
    let (width, height) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert!(width >= 800 && height >= 800, "{width}x{height}");
    assert!(
        bytes.len() > 20_000,
        "a near-empty screenshot: {} bytes",
        bytes.len()
    );
    let dom = Command::new(browser)
        .args(base)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("start chromium");
    assert!(
        dom.status.success(),
        "dump-dom: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(dom.contains("</html>"), "no DOM dumped: {dom:.200}");
    dom
}

/// Every element `<tag ...>` of `dom` as its attributes.
fn elements(dom: &str, tag: &str) -> Vec<Vec<(String, String)>> {
    let open = format!("<{tag} ");
    dom.match_indices(&open)
        .map(|(at, _)| {
            let rest = &dom[at + open.len()..];
            attributes(&rest[..rest.find('>').unwrap_or(rest.len())])
        })
        .collect()
}

fn attributes(mut text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    while let Some(eq) = text.find("=\"") {
        let name = text[..eq].trim().to_string();
        let value_end = text[eq + 2..].find('"').map_or(text.len(), |e| eq + 2 + e);
        out.push((name, text[eq + 2..value_end].replace("&amp;", "&")));
        text = &text[(value_end + 1).min(text.len())..];
    }
    out
}

fn attr<'a>(element: &'a [(String, String)], name: &str) -> Option<&'a str> {
    element
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn number(element: &[(String, String)], name: &str) -> u64 {
    attr(element, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {element:?}"))
}

/// The lanes the lane maps mark with a verdict other than pass, each run
/// of lanes (`data-lane`, `data-lanes`) expanded.
fn marked_lanes(dom: &str) -> BTreeSet<u64> {
    elements(dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-lanes").is_some() && attr(r, "data-verdict") != Some("pass"))
        .flat_map(|r| {
            let first = number(r, "data-lane");
            first..first + number(r, "data-lanes")
        })
        .collect()
}

/// The bits the histograms mark, with their counts (up plus down).
fn marked_bits(dom: &str) -> Vec<(u64, u64)> {
    let mut bits = std::collections::BTreeMap::new();
    for r in elements(dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-bit").is_some())
    {
        *bits.entry(number(r, "data-bit")).or_insert(0) += number(r, "data-count");
    }
    bits.into_iter().filter(|&(_, n)| n > 0).collect()
}

/// Every executor banner of the page.
fn banners(dom: &str) -> Vec<String> {
    elements(dom, "span")
        .iter()
        .filter_map(|s| attr(s, "data-executor").map(str::to_string))
        .collect()
}

/// The fault knob breaking lane [`LANE`] of each of `waves` waves of
/// `wave` lanes at bit [`BIT`].
fn every_wave(wave: u64, waves: u64) -> String {
    (0..waves)
        .map(|w| format!("{}:{BIT}", LANE + w * wave))
        .collect::<Vec<_>>()
        .join(",")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The executors the text report prints: the closing line's (the run's,
/// less the seed) and the `[...]` of the line of case `case`.
fn text_executors(output: &Output, case: &str) -> (String, String) {
    let text = stdout(output);
    let bracket = |line: &str| {
        let from = line.rfind('[').map_or(0, |i| i + 1);
        line[from..line.rfind(']').unwrap_or(line.len())].to_string()
    };
    let closing = bracket(text.lines().last().unwrap_or(""));
    let run = closing
        .rsplit_once(", seed ")
        .map_or(closing.as_str(), |(e, _)| e);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(case))
        .unwrap_or_else(|| panic!("no line for {case}: {text}"));
    (run.to_string(), bracket(line))
}

/// Run `case` (waves of `wave` lanes) over `lanes` lanes through the
/// emulated HIP library with lane 17 of every wave broken at bit 9, writing
/// `dir/f.json` and `dir/f.html`; the run's output and the page's DOM.
fn fault_run(browser: &Path, dir: &Path, case: &str, wave: u64, lanes: u64) -> (Output, String) {
    let knob = every_wave(wave, lanes / wave);
    let lanes = lanes.to_string();
    let (json, page) = (dir.join("f.json"), dir.join("f.html"));
    let args = [
        "run",
        "--backend",
        "hip",
        "--case",
        case,
        "--lanes",
        &lanes,
        "--seed",
        "7",
        "--json",
        json.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ];
    let ran = harness(&args, Some(&[("XAD_EMUHIP_XAD_FAULT", &knob)]));
    assert_eq!(ran.status.code(), Some(1), "{}", support::transcript(&ran));
    let dom = browse(browser, &page);
    (ran, dom)
}

/// What the page of a [`fault_run`] marks: lane 17 of each of the `drawn`
/// waves in the lane map and nothing else, lane 17 alone in the lane-in-wave
/// view with every wave of the case counted (not only the ten records kept),
/// and bit 9 alone in the histogram, once per wave.
fn assert_fault_marked(dom: &str, wave: u64, lanes: u64, drawn: u64) {
    let expected: BTreeSet<u64> = (0..drawn).map(|w| LANE + w * wave).collect();
    assert_eq!(marked_lanes(dom), expected);
    let maps: Vec<u64> = elements(dom, "svg")
        .iter()
        .filter_map(|svg| attr(svg, "data-wave-size").map(|w| w.parse().unwrap()))
        .collect();
    assert_eq!(maps, [wave], "one lane map, rows of the wave size");
    let marked_classes: Vec<String> = elements(dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-lane-class").is_some() && attr(r, "data-verdict") != Some("pass"))
        .map(|r| {
            let class = attr(r, "data-lane-class").unwrap();
            format!("{class}:{}", attr(r, "data-failed").unwrap())
        })
        .collect();
    assert_eq!(marked_classes, [format!("{LANE}:{}", lanes / wave)]);
    assert_eq!(marked_bits(dom), [(BIT, lanes / wave)]);
}

/// A fault in lane 17 of every wave of 32, one bit, through the emulated
/// HIP library: marked exactly there ([`assert_fault_marked`]; the map draws
/// 64 of the 128 waves); every section names the executor as the text report
/// does; `report` on the saved JSON draws the same page; it prints.
#[test]
fn an_injected_fault_is_marked_at_exactly_its_lanes_and_bit() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-fault");
    let (ran, dom) = fault_run(&browser, &dir, "basic", 32, 4096);
    assert_fault_marked(&dom, 32, 4096, 64);
    let (executor, case_executor) = text_executors(&ran, "basic");
    assert!(
        executor.starts_with("hardware: ") && executor.contains("emulated"),
        "{executor}"
    );
    // The run and its device as the closing line names the executor; the
    // target and the case as the case's line does.
    assert_eq!(
        banners(&dom),
        [&executor, &executor, &case_executor, &case_executor].map(String::as_str),
        "{}",
        stdout(&ran)
    );
    let (json, page, again) = (
        dir.join("f.json"),
        dir.join("f.html"),
        dir.join("again.html"),
    );
    let args = [
        "report",
        json.to_str().unwrap(),
        "--html",
        again.to_str().unwrap(),
    ];
    let redrawn = harness(&args, None);
    assert_eq!(
        redrawn.status.code(),
        Some(0),
        "{}",
        support::transcript(&redrawn)
    );
    assert_eq!(
        std::fs::read(&page).unwrap(),
        std::fs::read(&again).unwrap(),
        "one page from both"
    );
    let pdf = dir.join("f.pdf");
    let printed = Command::new(&browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!(
            "--user-data-dir={}",
            dir.join("print-profile").display()
        ))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("start chromium");
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let bytes = std::fs::read(&pdf).expect("printed");
    assert!(
        bytes.starts_with(b"%PDF") && bytes.len() > 20_000,
        "{} bytes",
        bytes.len()
    );
}

/// The same in wave64 (`basic_w64`: rows of 64 lanes, lane 17 of each of
/// the 64 waves, all drawn).
#[test]
fn an_injected_fault_in_wave64_is_marked_in_rows_of_64() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-fault-w64");
    let (_, dom) = fault_run(&browser, &dir, "basic_w64", 64, 4096);
    assert_fault_marked(&dom, 64, 4096, 64);
}

/// A passing emulator run: nothing marked, no histogram, exit 0 on the page,
/// the banner `emulated gfx1100` on every section.
#[test]
fn a_passing_run_marks_nothing() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-pass");
    let page = dir.join("p.html");
    let ran = harness(
        &[
            "run",
            "--backend",
            "emu",
            "--case",
            "basic,vgpr_w32",
            "--lanes",
            "1024",
            "--seed",
            "3",
            "--html",
            page.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(ran.status.code(), Some(0), "{}", support::transcript(&ran));
    let dom = browse(&browser, &page);
    assert!(marked_lanes(&dom).is_empty());
    assert!(marked_bits(&dom).is_empty());
    let passing = elements(&dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-verdict") == Some("pass") && attr(r, "data-lanes").is_some())
        .count();
    assert!(passing >= 2, "a lane map per case: {passing}");
    assert!(dom.contains("data-exit-code=\"0\""));
    let shown = banners(&dom);
    assert_eq!(shown.len(), 1 + 1 + 1 + 2, "{shown:?}");
    assert!(shown.iter().all(|b| b == "emulated gfx1100"), "{shown:?}");
}

/// Every target on the emulator: one grid column and one section per target
/// the report names, every grid link leading to a section of the page.
#[test]
fn an_all_targets_run_has_a_section_per_target_and_links_that_resolve() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-all-targets");
    let (json, page) = (dir.join("a.json"), dir.join("a.html"));
    let ran = harness(
        &[
            "run",
            "--backend",
            "emu",
            "--target",
            "all",
            "--case",
            "basic",
            "--lanes",
            "256",
            "--json",
            json.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        matches!(ran.status.code(), Some(0 | 77)),
        "{}",
        support::transcript(&ran)
    );
    let report = read_json(&json);
    let targets: BTreeSet<String> = report["devices"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| {
            d["cases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["target"].as_str().unwrap().to_string())
        })
        .collect();
    assert!(targets.len() > 3, "{targets:?}");
    let dom = browse(&browser, &page);
    let sections: BTreeSet<String> = elements(&dom, "section")
        .iter()
        .filter_map(|s| attr(s, "data-target").map(str::to_string))
        .collect();
    assert_eq!(sections, targets);
    assert_links_resolve(&dom, targets.len());
    assert!(marked_lanes(&dom).is_empty());
}

/// Each grid cell (`data-target`) links to an element id of the page.
fn assert_links_resolve(dom: &str, at_least: usize) {
    let ids: BTreeSet<String> = ["section", "article"]
        .iter()
        .flat_map(|t| elements(dom, t))
        .filter_map(|e| attr(&e, "id").map(str::to_string))
        .collect();
    let cells: Vec<Vec<(String, String)>> = elements(dom, "td")
        .into_iter()
        .filter(|c| attr(c, "data-target").is_some())
        .collect();
    assert!(cells.len() >= at_least, "{} cells", cells.len());
    let links: Vec<String> = elements(dom, "a")
        .iter()
        .filter_map(|a| {
            attr(a, "href")
                .and_then(|h| h.strip_prefix('#'))
                .map(str::to_string)
        })
        .collect();
    for link in &links {
        assert!(ids.contains(link), "#{link} leads nowhere");
    }
}

/// A fleet of two nodes merged (one passing emulator run, one fault run
/// through the emulated HIP library): the grid shows each node's device with
/// its status, the links resolve, and the failing node's section marks
/// exactly the injected lanes; `merge --html` writes the same page.
#[test]
fn a_merged_fleet_has_a_grid_of_nodes_devices_and_targets() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-fleet");
    let (pass, fail, merged, page) = (
        dir.join("pass.json"),
        dir.join("fail.json"),
        dir.join("m.json"),
        dir.join("m.html"),
    );
    let common = ["run", "--case", "basic", "--lanes", "512", "--seed", "11"];
    let ran = harness(
        &[
            &common[..],
            &["--backend", "emu", "--json", pass.to_str().unwrap()],
        ]
        .concat(),
        None,
    );
    assert_eq!(ran.status.code(), Some(0), "{}", support::transcript(&ran));
    let knob = every_wave(32, 512 / 32);
    let knobs = [("XAD_EMUHIP_XAD_FAULT", knob.as_str())];
    let ran = harness(
        &[
            &common[..],
            &["--backend", "hip", "--json", fail.to_str().unwrap()],
        ]
        .concat(),
        Some(&knobs),
    );
    assert_eq!(ran.status.code(), Some(1), "{}", support::transcript(&ran));
    let from_merge = dir.join("merge.html");
    let args = [
        "merge",
        "--json",
        merged.to_str().unwrap(),
        "--html",
        from_merge.to_str().unwrap(),
        pass.to_str().unwrap(),
        fail.to_str().unwrap(),
    ];
    let ran = harness(&args, None);
    assert_eq!(ran.status.code(), Some(1), "{}", support::transcript(&ran));
    let ran = harness(
        &[
            "report",
            merged.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(ran.status.code(), Some(0), "{}", support::transcript(&ran));
    let dom = browse(&browser, &page);
    let cells: Vec<(String, String)> = elements(&dom, "td")
        .iter()
        .filter(|c| attr(c, "data-target").is_some())
        .map(|c| {
            (
                attr(c, "data-device").unwrap().to_string(),
                attr(c, "data-status").unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        [
            ("emulator:gfx1100".to_string(), "pass".to_string()),
            ("hip:0".into(), "fail".into())
        ]
    );
    assert_links_resolve(&dom, 2);
    let expected: BTreeSet<u64> = (0..16).map(|w| LANE + w * 32).collect();
    assert_eq!(marked_lanes(&dom), expected);
    assert_eq!(marked_bits(&dom), [(BIT, 16)]);
    assert_eq!(
        std::fs::read(&from_merge).unwrap(),
        std::fs::read(&page).unwrap(),
        "merge --html draws the page report draws from the merged JSON"
    );
}

/// Bad input is one line and exit 2, never a panic: a missing report, one
/// that is not JSON, one of another schema, an unwritable page, and a run's,
/// a soak's or a microbench's report with a field its document does not
/// list or without one it requires (named with its place).
#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = scratch("html-bad-input");
    let (not_json, other) = (dir.join("x.json"), dir.join("other.json"));
    std::fs::write(&not_json, "{").unwrap();
    std::fs::write(&other, r#"{"schema": "someone-else", "schema_version": 1}"#).unwrap();
    // `run` of one emulated case, its report (`--json` or `--html`) to `path`.
    let basic_run = |report: &str, path: &Path| {
        let args = [
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
        ];
        harness(
            &[&args[..], &[report, path.to_str().unwrap()]].concat(),
            None,
        )
    };
    let run_json = dir.join("run.json");
    let ran = basic_run("--json", &run_json);
    assert_eq!(ran.status.code(), Some(0), "{}", support::transcript(&ran));
    let mut run = read_json(&run_json);
    run["devices"][0]["cases"][0]["colour"] = serde_json::json!("red");
    let (unknown, soak, bench) = (
        dir.join("unknown.json"),
        dir.join("soak.json"),
        dir.join("mb.json"),
    );
    std::fs::write(&unknown, run.to_string()).unwrap();
    std::fs::write(
        &soak,
        r#"{"command": "soak", "seed": 1, "dispatches": 0, "error": "x", "exit_code": 77, "extra": 1}"#,
    )
    .unwrap();
    std::fs::write(
        &bench,
        r#"{"command": "microbench", "rows": [{"form": "xad"}]}"#,
    )
    .unwrap();
    let page = dir.join("p.html");
    let cases: [(&Path, &Path, &str); 7] = [
        (&dir.join("missing.json"), &page, "missing.json"),
        (&not_json, &page, "not JSON"),
        (&other, &page, "someone-else"),
        (&other, &dir.join("no/such/dir/p.html"), "--html"),
        (
            &unknown,
            &page,
            "devices[0].cases[0]: unknown field \"colour\"",
        ),
        (&soak, &page, "a soak's report: unknown field \"extra\""),
        (
            &bench,
            &page,
            "a microbench's report: rows[0]: missing field \"instructions\"",
        ),
    ];
    for (input, output, says) in cases {
        let ran = harness(
            &[
                "report",
                input.to_str().unwrap(),
                "--html",
                output.to_str().unwrap(),
            ],
            None,
        );
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert_eq!(ran.status.code(), Some(2), "{}", support::transcript(&ran));
        assert!(stderr.contains(says), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!page.exists());
    }
    let ran = basic_run("--html", &dir.join("none/p.html"));
    assert_eq!(ran.status.code(), Some(2), "{}", support::transcript(&ran));
}

/// A soak through the emulated HIP library with lane 5 of every dispatch
/// broken at bit 3: the unit grid draws every unit the soak's waves reported
/// and marks exactly the one holding workgroup 0's first wave, with the
/// device's count; `report` on the soak's JSON draws the same page.
#[test]
fn a_soak_page_marks_exactly_the_units_that_mismatched() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-soak");
    let (json, page, again) = (
        dir.join("s.json"),
        dir.join("s.html"),
        dir.join("again.html"),
    );
    let args = [
        "soak",
        "--duration",
        "1",
        "--backend",
        "hip",
        "--seed",
        "1",
        "--json",
        json.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ];
    let ran = harness(&args, Some(&[("XAD_EMUHIP_XAD_FAULT", "5:3")]));
    assert_eq!(ran.status.code(), Some(1), "{}", support::transcript(&ran));
    let soak = read_json(&json);
    let dom = browse(&browser, &page);
    let units: Vec<(String, u64, u64)> = elements(&dom, "rect")
        .iter()
        .filter_map(|r| {
            let unit = attr(r, "data-unit")?.to_string();
            Some((unit, number(r, "data-waves"), number(r, "data-mismatches")))
        })
        .collect();
    let coverage = soak["coverage"].as_object().unwrap();
    assert_eq!(units.len(), coverage.len(), "every unit that ran is drawn");
    for (unit, waves, _) in &units {
        assert_eq!(coverage[unit].as_u64(), Some(*waves), "{unit}");
    }
    let marked: Vec<(String, u64)> = units
        .iter()
        .filter(|u| u.2 > 0)
        .map(|u| (u.0.clone(), u.2))
        .collect();
    let device = soak["device_mismatches"].as_u64().unwrap();
    assert!(device > 0);
    assert_eq!(marked, [("SE0.SA0.WGP0".to_string(), device)], "{units:?}");
    // The rate plot: a point per pair of consecutive timeline samples, each the dispatches
    // per second between them.
    let timeline = soak["timeline"].as_array().unwrap();
    let points: Vec<(f64, f64)> = elements(&dom, "circle")
        .iter()
        .filter_map(|c| {
            Some((
                attr(c, "data-second")?.parse().ok()?,
                attr(c, "data-rate")?.parse().ok()?,
            ))
        })
        .collect();
    assert_eq!(
        points.len(),
        timeline.len().saturating_sub(1),
        "{timeline:?}"
    );
    // A loaded machine may fit one dispatch in the soak: then the page says so.
    if let [.., before, last] = timeline.as_slice() {
        let f = |v: &serde_json::Value, i: usize| v[i].as_f64().unwrap();
        let want = (f(last, 1) - f(before, 1)) / (f(last, 0) - f(before, 0));
        assert!(
            (points[points.len() - 1].1 - want).abs() < 1e-3 * want.max(1.0),
            "{points:?}"
        );
    } else {
        assert!(
            dom.contains("too few dispatches to plot a rate"),
            "{timeline:?}"
        );
    }
    let executor = soak["executor"].as_str().unwrap();
    let shown = banners(&dom);
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert!(shown.iter().all(|b| b == executor), "{shown:?}");
    let redrawn = harness(
        &[
            "report",
            json.to_str().unwrap(),
            "--html",
            again.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        redrawn.status.code(),
        Some(0),
        "{}",
        support::transcript(&redrawn)
    );
    assert_eq!(
        std::fs::read(&page).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

/// A run that faults (a copy the emulated HIP library fails) still writes
/// its page, by the one rule for reports: exit 3, the case an error with
/// its message on the page. And `--html` is checked with the other options:
/// an unwritable one beside a bad `--lanes` is one more line, exit 2.
#[test]
fn a_faulting_run_still_writes_its_page() {
    let dir = scratch("html-fault-3");
    let page = dir.join("e.html");
    let args = [
        "run",
        "--backend",
        "hip",
        "--case",
        "basic",
        "--lanes",
        "4096",
        "--seed",
        "7",
        "--html",
        page.to_str().unwrap(),
    ];
    let ran = harness(&args, Some(&[("XAD_EMUHIP_FAIL_COPY", "1:700")]));
    assert_eq!(ran.status.code(), Some(3), "{}", support::transcript(&ran));
    let html = std::fs::read_to_string(&page).expect("the page is written on a fault");
    assert!(html.contains("data-status=\"error\""), "{html:.2000}");
    assert!(html.contains("data-exit-code=\"3\""));
    let unwritable = dir.join("no/such/dir/p.html");
    let ran = harness(
        &[
            "run",
            "--lanes",
            "0",
            "--html",
            unwritable.to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(
        stderr.lines().nth(1).unwrap().contains("--html"),
        "{stderr}"
    );
}

/// A case whose every word rests on unsettled ISA behaviour (`sreg_hi_w32`
/// on the emulator: skipped, exit 77): every lane drawn is marked
/// unsettled, none wrong, and no bit is counted.
#[test]
fn unsettled_lanes_are_marked_unsettled_not_wrong() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-unsettled");
    let page = dir.join("u.html");
    let args = [
        "run",
        "--backend",
        "emu",
        "--case",
        "sreg_hi_w32",
        "--lanes",
        "256",
        "--seed",
        "3",
        "--html",
        page.to_str().unwrap(),
    ];
    let ran = harness(&args, None);
    assert_eq!(ran.status.code(), Some(77), "{}", support::transcript(&ran));
    let dom = browse(&browser, &page);
    assert_eq!(marked_lanes(&dom), (0..256).collect::<BTreeSet<u64>>());
    let verdicts: BTreeSet<String> = elements(&dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-lanes").is_some())
        .map(|r| attr(r, "data-verdict").unwrap().to_string())
        .collect();
    assert_eq!(verdicts, BTreeSet::from(["unsettled".to_string()]));
    assert!(marked_bits(&dom).is_empty());
    assert!(dom.contains("data-status=\"skipped\""));
}

/// A probe case through the emulated HIP library with one lane on another reading
/// (`XAD_EMUHIP_MODIFIERS_DISAGREE`): every drawn lane is a `finding` lane (its modifier words
/// classified, not compared), and the findings table marks each field that lane made disagree,
/// naming exactly that lane; the fields whose candidates agree on its input stay `follows`.
#[test]
fn a_probe_case_draws_finding_lanes_and_names_the_lane_that_disagrees() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-finding");
    let page = dir.join("f.html");
    let args = [
        "run",
        "--backend",
        "hip",
        "--case",
        "modifiers_w32",
        "--lanes",
        "256",
        "--seed",
        "3",
        "--html",
        page.to_str().unwrap(),
    ];
    let knobs = [
        ("XAD_EMUHIP_MODIFIERS", "NEG=sign bit flipped"),
        ("XAD_EMUHIP_MODIFIERS_DISAGREE", "70"),
    ];
    let ran = harness(&args, Some(&knobs));
    assert_eq!(ran.status.code(), Some(1), "{}", support::transcript(&ran));
    let dom = browse(&browser, &page);
    let verdicts: BTreeSet<String> = elements(&dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-lanes").is_some())
        .map(|r| attr(r, "data-verdict").unwrap().to_string())
        .collect();
    assert_eq!(verdicts, BTreeSet::from(["finding".to_string()]), "{dom}");
    let rows = elements(&dom, "tr");
    let fields: Vec<_> = rows
        .iter()
        .filter(|r| attr(r, "data-field").is_some())
        .collect();
    assert_eq!(fields.len(), 17, "a row per probed field");
    let disagreeing: Vec<&str> = fields
        .iter()
        .filter(|r| attr(r, "data-verdict") == Some("disagree"))
        .map(|r| attr(r, "data-field").unwrap())
        .collect();
    assert!(disagreeing.contains(&"NEG[0]"), "{disagreeing:?}");
    for r in fields
        .iter()
        .filter(|r| attr(r, "data-verdict") == Some("disagree"))
    {
        assert_eq!(attr(r, "data-lane"), Some("70"), "{r:?}");
    }
    assert!(fields
        .iter()
        .any(|r| attr(r, "data-verdict") == Some("follows")));
    assert!(dom.contains("data-status=\"fail\""));
}

/// `report MICROBENCH.json --html`: a microbench's report (hand-written here in the shape
/// `microbench --json` writes, from a synthetic executor: microbench times hardware only and
/// none exists here) draws a bar per form and chart with its median and spread, under the
/// report's own banner.
#[test]
fn a_microbench_report_draws_latency_and_throughput_with_their_spread() {
    let Some(browser) = chromium() else { return };
    let dir = scratch("html-microbench");
    let (json, page) = (dir.join("mb.json"), dir.join("mb.html"));
    let row = |form: &str, lat: f64, thr: f64| {
        serde_json::json!({"form": "xad", "instructions": form,
            "latency": lat, "latency_spread": [lat - 1.0, lat + 2.0], "latency_ratio": lat / 5.0,
            "throughput": thr, "throughput_spread": [thr, thr + 0.5], "throughput_ratio": thr / 2.0})
    };
    let report = serde_json::json!({"command": "microbench",
        "executor": "emulated synthetic (test fixture)", "target": "gfx1100",
        "counter": "shader_cycles20", "counter_instruction": "s_getreg_b32 SHADER_CYCLES",
        "iterations": 4, "ops_per_region": 128, "latency_waves": 1, "throughput_waves": 16,
        "independent_chains": 8, "repeat": 3,
        "rows": [row("v_xad_u32", 5.0, 2.0), row("v_xor_b32 + v_add_nc_u32", 10.0, 4.0)]});
    std::fs::write(&json, report.to_string()).unwrap();
    let ran = harness(
        &[
            "report",
            json.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(ran.status.code(), Some(0), "{}", support::transcript(&ran));
    let dom = browse(&browser, &page);
    let bars: Vec<(String, String, String, String)> = elements(&dom, "rect")
        .iter()
        .filter(|r| attr(r, "data-form").is_some())
        .map(|r| {
            let a = |n| attr(r, n).unwrap().to_string();
            (
                a("data-form"),
                a("data-median"),
                a("data-min"),
                a("data-max"),
            )
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(
        bars,
        [
            (s("v_xad_u32"), s("5"), s("4"), s("7")),
            (s("v_xor_b32 + v_add_nc_u32"), s("10"), s("9"), s("12")),
            (s("v_xad_u32"), s("2"), s("2"), s("2.5")),
            (s("v_xor_b32 + v_add_nc_u32"), s("4"), s("4"), s("4.5")),
        ]
    );
    assert_eq!(banners(&dom), vec!["emulated synthetic (test fixture)"; 3]);
}
