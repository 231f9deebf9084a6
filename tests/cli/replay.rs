//! `run --dump` and `replay`, through the real binary: a fault injected by the
//! emulated HIP device library is dumped with its workgroup, replays as
//! passing on the emulator (the fault was not the emulator's) and as
//! reproduced where the fault strikes again; every catalogue case of gfx1100,
//! gfx942 and gfx1201 replays lane for lane as recorded, also as a subset of
//! blocks laid out elsewhere; corrupt dumps are one line and exit 2; numpy
//! reads every file (when python3 has numpy: otherwise that part says it
//! skipped).
//!
//! Nothing here is a hardware result: the HIP path is the emulated device
//! library, whose device name says `emulated`.

use crate::support;

use std::path::Path;
use std::process::Command;

use crate::common::{harness, run, scratch, Ran};

const HIP_LABEL: &str = "hardware: xad-harness emulated gfx1100 (gfx1100), HIP runtime";

fn xad(args: &[&str]) -> Ran {
    run(harness().args(args))
}

/// The binary on the emulated HIP library with `knobs` set.
fn xad_hip(args: &[&str], knobs: &[(&str, &str)]) -> Ran {
    let lib = support::library();
    let mut command = Command::new(env!("CARGO_BIN_EXE_xad-harness"));
    command.args(args);
    let out = support::run(command, Some(&lib), knobs).unwrap_or_else(|e| panic!("{e}"));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn expect(r: &Ran, code: i32, what: &str) {
    assert_eq!(r.code, code, "{what}: exit code\n{}", r.all());
    assert!(!r.all().contains("panicked"), "{what}: panic\n{}", r.all());
}

fn manifest(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest is JSON")
}

fn read_npy<T: npyz::Deserialize>(path: &Path) -> (Vec<u64>, Vec<T>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec().unwrap())
}

/// The replay's per-case lines (`PASS name (target) ...`).
fn case_lines(r: &Ran) -> Vec<&str> {
    r.stdout
        .lines()
        .filter(|l| l.starts_with("PASS ") || l.starts_with("FAIL "))
        .collect()
}

/// numpy loads every `.npy` of `dir` with the dtype and shape the manifest
/// implies, and its values agree with the manifest's ranges and verdicts.
fn numpy_agrees(dir: &Path) {
    // The first python3 that has numpy: PATH's (a pyenv or venv one may
    // lack it), else the system's, which python3-numpy installs into.
    let python = ["python3", "/usr/bin/python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some(python) = python else {
        eprintln!(
            "skipped the numpy check of {}: python3 with numpy is not available (ci/setup.sh --tests installs python3-numpy)",
            dir.display()
        );
        return;
    };
    let script = r#"
import json, sys, os
import numpy as np
root = sys.argv[1]
m = json.load(open(os.path.join(root, "manifest.json")))
assert m["schema"] == "xad-harness-dump" and m["version"] == 1
files = 0
for c in m["cases"]:
    d = os.path.join(root, c["dir"])
    f = c["files"]
    n, k = c["lanes_dumped"], c["outputs_per_lane"]
    def load(name, dtype, shape):
        global files
        a = np.load(os.path.join(d, f[name]))
        assert a.dtype == np.dtype(dtype), (c["case"], name, a.dtype)
        assert a.shape == shape, (c["case"], name, a.shape, shape)
        files += 1
        return a
    lanes = load("lanes", "<u8", (n,))
    want = np.concatenate([np.arange(s, s + l, dtype="<u8") for s, l in c["ranges"]]) if c["ranges"] else np.zeros(0, "<u8")
    assert (lanes == want).all(), c["case"]
    widths = c.get("source_words", [1, 1, 1])
    a, b, cc = (load(x, "<u4", (n,) if w == 1 else (n, w)) for x, w in zip("abc", widths))
    exp = load("expected", "<u4", (n, k))
    got = load("got", "<u4", (n, k))
    if c["keeps_lanes"]:
        load("prefill", "<u4", (n, k))
    verdict = load("verdict", "|u1", (n,))
    names = m["verdict_codes"]
    for code, name in enumerate(names):
        assert int((verdict == code).sum()) == c["dumped"][name], (c["case"], name)
    # A passing lane holds exactly the model's words.
    assert (got[verdict == 0] == exp[verdict == 0]).all(), c["case"]
    if c["case"] in ("basic", "basic_w64"):
        assert (exp[:, 0] == ((a ^ b) + cc)).all(), "basic is (a ^ b) + c"
print("numpy read", files, "files of", len(m["cases"]), "case(s)")
"#;
    let out = Command::new(python)
        .args(["-c", script])
        .arg(dir)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "numpy disagrees with the dump {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
}

#[test]
fn an_injected_fault_is_dumped_with_its_block_and_replays_where_the_fault_is() {
    let dir = scratch("replay-flip").join("dump");
    let dir_s = dir.to_str().unwrap();
    let r = xad_hip(
        &[
            "run",
            "--backend",
            "hip",
            "--case",
            "basic",
            "--lanes",
            "4096",
            "--seed",
            "7",
            "--dump",
            dir_s,
        ],
        &[("XAD_EMUHIP_FLIP_BIT", "300:3")],
    );
    expect(&r, 1, "run with the flipped bit");
    assert!(r.stdout.contains("dump "), "{}", r.all());

    // The dump holds lane 300's workgroup (256 lanes from 256), nothing else.
    let m = manifest(&dir);
    let cases = m["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1, "{m:#}");
    let case = &cases[0];
    assert_eq!(case["case"], "basic");
    assert_eq!(case["ranges"], serde_json::json!([[256, 256]]));
    assert_eq!(case["workgroup_size"], 256);
    assert_eq!(case["dumped"]["wrong"], 1);
    assert_eq!(case["dumped"]["pass"], 255);
    assert_eq!(case["lanes_failed"], 1);
    assert_eq!(m["seed"], 7);
    assert!(
        case["executor"].as_str().unwrap().starts_with(HIP_LABEL),
        "{}",
        case["executor"]
    );
    let case_dir = dir.join("gfx1100/basic");
    let (shape, lanes) = read_npy::<u64>(&case_dir.join("lanes.npy"));
    assert_eq!(shape, [256]);
    assert_eq!(lanes, (256..512).collect::<Vec<u64>>());
    let (shape, got) = read_npy::<u32>(&case_dir.join("got.npy"));
    let (_, expected) = read_npy::<u32>(&case_dir.join("expected.npy"));
    assert_eq!(shape, [256, 1]);
    assert_eq!(
        got[44],
        expected[44] ^ 8,
        "lane 300 is row 44, bit 3 flipped"
    );
    assert_eq!(got[..44], expected[..44]);
    let embedded = xad_harness::platform::embedded::find("gfx1100", "xad_basic").unwrap();
    assert_eq!(
        std::fs::read(case_dir.join("kernel.hsaco")).unwrap(),
        embedded.bytes,
        "the code object that ran"
    );
    numpy_agrees(&dir);

    // The emulator computes lane 300 right: the fault was not its.
    let r = xad(&["replay", dir_s, "--backend", "emu"]);
    expect(&r, 0, "replay on the emulator");
    assert!(
        r.stdout
            .contains("lane 300 (wrong, replayed at 44): now passes"),
        "{}",
        r.all()
    );
    assert!(r.stdout.contains("[emulated gfx1100]"), "{}", r.all());
    assert!(
        r.stdout
            .contains("0 reproduced, 1 now pass, 0 fail differently"),
        "{}",
        r.all()
    );

    // Where the fault strikes again (element 44 of the replay's one dispatch), it reproduces.
    let r = xad_hip(
        &["replay", dir_s, "--backend", "hip"],
        &[("XAD_EMUHIP_FLIP_BIT", "44:3")],
    );
    expect(&r, 1, "replay with the fault");
    assert!(
        r.stdout
            .contains("lane 300 (wrong, replayed at 44): reproduced"),
        "{}",
        r.all()
    );
    assert!(r.stdout.contains(HIP_LABEL), "{}", r.all());
    assert!(
        r.stdout.contains("256 as recorded, 0 differ"),
        "{}",
        r.all()
    );

    // Another bit: the lane still fails, differently.
    let r = xad_hip(
        &["replay", dir_s, "--backend", "hip"],
        &[("XAD_EMUHIP_FLIP_BIT", "44:4")],
    );
    expect(&r, 1, "replay with another fault");
    assert!(r.stdout.contains("fails differently"), "{}", r.all());

    // A device fault while replaying is exit 3, named in one line.
    let r = xad_hip(
        &["replay", dir_s, "--backend", "hip"],
        &[("XAD_EMUHIP_FAIL_ALLOC", "1")],
    );
    expect(&r, 3, "replay with a failing allocation");
    assert!(
        r.stderr.contains("replaying basic (gfx1100)"),
        "{}",
        r.all()
    );

    // `--backend hip` without a device: skipped, nothing executed.
    let r = xad(&["replay", dir_s, "--backend", "hip"]);
    expect(
        &r,
        77,
        "replay --backend hip on the real runtime, no device",
    );
}

/// Every case of `target`: dumped whole (820 lanes: three workgroups and a
/// short fourth, a partial wave in wave32 and wave64), replayed whole, then
/// only the blocks of lanes 300 and 810 (so the last block moves from lane
/// 768 to 256): every lane's words and verdict are as recorded.
fn every_case_replays_exactly(target: &str, numpy: bool) {
    let dir = scratch(&format!("replay-all-{target}")).join("dump");
    let dir_s = dir.to_str().unwrap();
    let r = xad(&[
        "run",
        "--backend",
        "emu",
        "--target",
        target,
        "--lanes",
        "820",
        "--seed",
        "11",
        "--dump",
        dir_s,
        "--dump-all",
    ]);
    expect(&r, 0, &format!("run --dump-all on {target}"));
    let want = xad_harness::model::cases::catalogue_for(
        xad_harness::platform::target::find(target).unwrap(),
    )
    .len();
    assert_eq!(manifest(&dir)["cases"].as_array().unwrap().len(), want);

    let r = xad(&["replay", dir_s, "--backend", "emu"]);
    expect(&r, 0, &format!("replay of {target}"));
    let lines = case_lines(&r);
    assert_eq!(lines.len(), want, "{}", r.all());
    for line in &lines {
        assert!(
            line.contains("820 lanes in 4 block(s): 820 as recorded, 0 differ"),
            "{target}: {line}"
        );
        assert!(line.contains(&format!("[emulated {target}]")), "{line}");
    }

    let r = xad(&["replay", dir_s, "--backend", "emu", "--lane", "300,810"]);
    expect(&r, 0, &format!("replay of two blocks of {target}"));
    let lines = case_lines(&r);
    assert_eq!(lines.len(), want, "{}", r.all());
    for line in &lines {
        assert!(
            line.contains("308 lanes in 2 block(s): 308 as recorded, 0 differ"),
            "{target}: {line}"
        );
    }
    if numpy {
        numpy_agrees(&dir);
    }
}

#[test]
fn every_gfx1100_case_replays_exactly() {
    every_case_replays_exactly("gfx1100", true);
}

#[test]
fn every_gfx942_case_replays_exactly() {
    every_case_replays_exactly("gfx942", false);
}

#[test]
fn every_gfx1201_case_replays_exactly() {
    every_case_replays_exactly("gfx1201", false);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// Replace `from` by `to` (same length) in the first 128 bytes of `path`: the header.
fn edit_header(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let mut bytes = std::fs::read(path).unwrap();
    let head = &bytes[..128.min(bytes.len())];
    let at = head
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .unwrap_or_else(|| panic!("{from:?} not in the header of {}", path.display()));
    bytes[at..at + to.len()].copy_from_slice(to.as_bytes());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn corrupt_dumps_are_one_line_naming_the_file_and_exit_2() {
    let work = scratch("replay-corrupt");
    let base = work.join("base");
    let r = xad(&[
        "run",
        "--backend",
        "emu",
        "--case",
        "dpp16_shift_w32",
        "--lanes",
        "300",
        "--seed",
        "3",
        "--dump",
        base.to_str().unwrap(),
        "--dump-all",
    ]);
    expect(&r, 0, "the base dump");
    type Corrupt = fn(&Path);
    let corruptions: [(&str, Corrupt, &str, &str); 10] = [
        (
            "truncated",
            |d| {
                let p = d.join("gfx1100/dpp16_shift_w32/a.npy");
                let bytes = std::fs::read(&p).unwrap();
                std::fs::write(&p, &bytes[..bytes.len() - 6]).unwrap();
            },
            "a.npy",
            "truncated",
        ),
        (
            "dtype",
            |d| edit_header(&d.join("gfx1100/dpp16_shift_w32/got.npy"), "<u4", "<i4"),
            "got.npy",
            "dtype '<i4'",
        ),
        (
            "shape",
            |d| {
                edit_header(
                    &d.join("gfx1100/dpp16_shift_w32/prefill.npy"),
                    "(300, 75, )",
                    "(75, 300, )",
                )
            },
            "prefill.npy",
            "shape [75, 300]",
        ),
        (
            "missing file",
            |d| std::fs::remove_file(d.join("gfx1100/dpp16_shift_w32/c.npy")).unwrap(),
            "c.npy",
            "missing file",
        ),
        (
            "missing manifest",
            |d| std::fs::remove_file(d.join("manifest.json")).unwrap(),
            "manifest.json",
            "missing file",
        ),
        (
            "version 99",
            |d| {
                let p = d.join("manifest.json");
                let text = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, text.replacen("\"version\": 1,", "\"version\": 99,", 1))
                    .unwrap();
            },
            "manifest.json",
            "manifest version 99",
        ),
        (
            "source words",
            |d| {
                // A dump claiming two words of `a` per lane: not this case's shape.
                let p = d.join("manifest.json");
                let mut m: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                m["cases"][0]["source_words"] = serde_json::json!([2, 1, 1]);
                std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
            },
            "manifest.json",
            "source words [2, 1, 1]",
        ),
        (
            "not an npy",
            |d| std::fs::write(d.join("gfx1100/dpp16_shift_w32/b.npy"), "hello").unwrap(),
            "b.npy",
            "not a readable .npy",
        ),
        (
            "model",
            |d| {
                // Flip one data bit of expected.npy (its last word): the model disagrees.
                let p = d.join("gfx1100/dpp16_shift_w32/expected.npy");
                let mut bytes = std::fs::read(&p).unwrap();
                let last = bytes.len() - 1;
                bytes[last] ^= 0x40;
                std::fs::write(&p, bytes).unwrap();
            },
            "expected.npy",
            "CPU model",
        ),
        (
            "code object",
            |d| {
                let p = d.join("gfx1100/dpp16_shift_w32/kernel.hsaco");
                let mut bytes = std::fs::read(&p).unwrap();
                bytes[0] ^= 0xff; // the ELF magic
                std::fs::write(&p, bytes).unwrap();
            },
            "kernel.hsaco",
            "",
        ),
    ];
    for (name, corrupt, file, needle) in corruptions {
        let dir = work.join(name.replace(' ', "-"));
        copy_dir(&base, &dir);
        corrupt(&dir);
        let r = xad(&["replay", dir.to_str().unwrap(), "--backend", "emu"]);
        expect(&r, 2, name);
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: one line\n{}", r.all());
        assert!(
            lines[0].contains(file) && lines[0].contains(needle),
            "{name}: {:?} should name {file} and say {needle:?}",
            lines[0]
        );
        assert!(
            r.stdout.is_empty(),
            "{name}: nothing replayed\n{}",
            r.stdout
        );
    }
    let r = xad(&["replay", work.join("nosuch").to_str().unwrap()]);
    expect(&r, 2, "no such directory");
}

#[test]
fn an_unusable_dump_directory_is_refused_before_anything_runs() {
    let work = scratch("replay-refuse");
    let full = work.join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("old"), "x").unwrap();
    let run_with = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--backend",
            "emu",
            "--case",
            "basic",
            "--lanes",
            "64",
        ];
        args.extend_from_slice(extra);
        xad(&args)
    };
    let one_line = |r: &Ran, needle: &str| {
        expect(r, 2, needle);
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", r.all());
        assert!(lines[0].contains(needle), "{:?} lacks {needle:?}", lines[0]);
        assert!(!r.stdout.contains("PASS"), "nothing may run\n{}", r.stdout);
    };
    one_line(&run_with(&["--dump", full.to_str().unwrap()]), "not empty");
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1, "left alone");
    let missing = work.join("no/such/dump");
    one_line(
        &run_with(&["--dump", missing.to_str().unwrap()]),
        "does not exist",
    );
    let file = full.join("old");
    one_line(
        &run_with(&["--dump", file.to_str().unwrap()]),
        "not a directory",
    );
    let big = work.join("big");
    let r = xad(&[
        "run",
        "--backend",
        "emu",
        "--case",
        "basic",
        "--lanes",
        "2M",
        "--dump",
        big.to_str().unwrap(),
        "--dump-all",
    ]);
    one_line(&r, "--dump-all takes at most 1048576 lanes");
    assert!(!big.exists());
    let r = run_with(&["--dump-all"]);
    expect(&r, 2, "--dump-all needs --dump");

    // A passing run writes a dump with no cases (nothing failed), and replay says so.
    let empty = work.join("empty");
    let r = run_with(&["--dump", empty.to_str().unwrap()]);
    expect(&r, 0, "a passing run with --dump");
    assert_eq!(manifest(&empty)["cases"], serde_json::json!([]));
    let r = xad(&["replay", empty.to_str().unwrap(), "--backend", "emu"]);
    expect(&r, 0, "replay of an empty dump");
    assert!(
        r.stdout.contains("replayed 0 lanes of 0 case(s)"),
        "{}",
        r.all()
    );
}

/// A one-case dump (`basic`, every lane) made on the emulator for `target`.
fn basic_dump(dir: &Path, target: &str) {
    let r = xad(&[
        "run",
        "--backend",
        "emu",
        "--target",
        target,
        "--case",
        "basic",
        "--lanes",
        "300",
        "--seed",
        "3",
        "--dump",
        dir.to_str().unwrap(),
        "--dump-all",
    ]);
    expect(&r, 0, &format!("the base dump on {target}"));
}

/// Set case 0's `target` in `dir`'s manifest to `to`.
fn set_manifest_target(dir: &Path, to: &str) {
    let p = dir.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["cases"][0]["target"] = serde_json::json!(to);
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

/// A manifest whose target contradicts its code object (gfx1201 code, the
/// manifest saying gfx1100) is a corrupt dump: it used to open a device
/// and fail at launch (exit 3, a fault). It is refused while the dump is
/// read, before any device opens: exit 2, one line naming the code object,
/// manifest.json and both targets, nothing on stdout. Both ways round, on
/// the emulator and on the emulated HIP device (a gfx1100).
#[test]
fn a_manifest_target_that_contradicts_its_code_object_is_refused_with_exit_2() {
    let work = scratch("replay-target-contradiction");
    for (made_for, claimed) in [("gfx1201", "gfx1100"), ("gfx1100", "gfx1201")] {
        let dir = work.join(format!("{made_for}-as-{claimed}"));
        basic_dump(&dir, made_for);
        set_manifest_target(&dir, claimed);
        let dir_s = dir.to_str().unwrap();
        for (backend, r) in [
            ("emu", xad(&["replay", dir_s, "--backend", "emu"])),
            ("hip", xad_hip(&["replay", dir_s, "--backend", "hip"], &[])),
        ] {
            let what = format!("{made_for} code claimed {claimed}, --backend {backend}");
            expect(&r, 2, &what);
            let lines: Vec<&str> = r.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{what}: one line\n{}", r.all());
            for needle in ["kernel.hsaco", "manifest.json", made_for, claimed] {
                assert!(
                    lines[0].contains(needle),
                    "{what}: {:?} should name {needle}",
                    lines[0]
                );
            }
            assert!(r.stdout.is_empty(), "{what}: nothing opened\n{}", r.stdout);
        }
    }
}

/// A dump of gfx1100 replayed with `--backend hip` where the only devices
/// are other cards: nothing can replay (exit 77, as documented), and one
/// stderr line says why, naming every device seen and the target the dump
/// needs, as `run`'s exit-77 line does. It used to say nothing on stderr.
#[test]
fn replay_on_a_device_of_another_target_says_why_on_stderr() {
    let dir = scratch("replay-other-card").join("dump");
    basic_dump(&dir, "gfx1100");
    let dir_s = dir.to_str().unwrap();
    let one = ("XAD_EMUHIP_ARCH", "gfx1030");
    let two = ("XAD_EMUHIP_DEVICES", "gfx1030,gfx1201");
    for (args, knob, seen) in [
        (
            vec!["replay", dir_s, "--backend", "hip"],
            one,
            vec!["gfx1030"],
        ),
        (
            vec!["replay", dir_s, "--backend", "hip", "--device", "0"],
            one,
            vec!["gfx1030"],
        ),
        (
            vec!["replay", dir_s, "--backend", "hip"],
            two,
            vec!["gfx1030", "gfx1201"],
        ),
    ] {
        let what = format!("{args:?} with {knob:?}");
        let r = xad_hip(&args, &[knob]);
        expect(&r, 77, &what);
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{what}: one line\n{}", r.all());
        assert!(
            lines[0].starts_with("xad-harness: ") && lines[0].contains("gfx1100"),
            "{what}: {:?} should name the dump's target",
            lines[0]
        );
        for arch in seen {
            assert!(
                lines[0].contains(arch),
                "{what}: {:?} should name the device seen ({arch})",
                lines[0]
            );
        }
        assert!(
            !r.stdout.contains("PASS"),
            "{what}: nothing ran\n{}",
            r.all()
        );
    }
}
