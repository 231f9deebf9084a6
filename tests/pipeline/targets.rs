//! The target table as data against what names it: docs/targets.md's table, each kernels/cases
//! stub's `// needs:` line against its case's requirements (and the line's parser), and the
//! ratchet that no new code outside the generation modules names a generation. Running every
//! target's catalogue through the binary is the `cli` crate's `targets`.

use xad_harness::model::cases;
use xad_harness::platform::target::{Target, TARGETS};

/// The "code object" cell of a target's docs row: the version under the HIP
/// 5.2 runtime and under 6.4/7.2 when they differ (`v4 under HIP 5.2, v5`).
fn code_object_cell(t: &Target) -> String {
    use xad_harness::platform::code_object_policy::HipVersion;
    let old = t.code_object_version(HipVersion::release(5, 2));
    let new = t.code_object_version(HipVersion::release(6, 4));
    assert_eq!(
        new,
        t.code_object_version(HipVersion::release(7, 2)),
        "{}",
        t.name
    );
    if old == new {
        format!("v{new}")
    } else {
        format!("v{old} under HIP 5.2, v{new}")
    }
}

/// docs/targets.md's target table is the table in crates/xad-build/src/target.rs: a row per target
/// with its architecture, kernel frame, case count and code object version,
/// so the documentation cannot drift from what is built.
#[test]
fn the_readme_target_table_matches_the_target_table() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/targets.md")).unwrap();
    let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| `gfx")).collect();
    assert_eq!(
        rows.len(),
        TARGETS.len(),
        "one docs/targets.md row per target:\n{}",
        rows.join("\n")
    );
    for (row, t) in rows.iter().zip(TARGETS) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let want = [
            format!("`{}`", t.name),
            t.architecture.to_string(),
            t.cards.to_string(),
            format!("`{}`", t.frame()),
            cases::catalogue_for(t).len().to_string(),
            code_object_cell(t),
        ];
        assert_eq!(&cells[1..7], &want, "docs/targets.md row for {}", t.name);
    }
}

/// Issue 28's rule, as a ratchet while it is carried out: a generation is a
/// value (a target row's `Isa` and features), so code outside the generation
/// modules asks a feature question instead of naming one (`Generation::Gfx9`,
/// `Isa::GFX12`, `starts_with("gfx94")`). The files that still name one are
/// listed with how many times; a new file naming a generation, or a listed
/// file naming more, fails here. Shrink the list; never grow it.
#[test]
fn no_new_code_names_a_generation() {
    // The generation modules: where a generation is defined (the table and
    // its Isa values) or is the subject (one generation's decoder).
    let home = [
        "crates/xad-build/src/target.rs",
        "crates/xad-build/src/generation.rs",
        "src/isa/gfx9.rs",
        "src/isa/gfx10.rs",
    ];
    // Still to be turned into feature questions (issue 28, item 1).
    // decode.rs: `decode_one`/`decode_at`, the gfx1100 helpers, name their Isa.
    let still: &[(&str, usize)] = &[("src/isa/decode.rs", 2)];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("build.rs")];
    // The crate build.rs shares with the library is the library's code too.
    let mut dirs = vec![root.join("src"), root.join("crates/xad-build/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let names_a_generation = |line: &str| {
        let prefixes = (0..10)
            .map(|d| line.matches(&format!("starts_with(\"gfx{d}")).count())
            .sum::<usize>();
        ["Generation::Gfx", "Isa::GFX"]
            .iter()
            .map(|needle| line.matches(needle).count())
            .sum::<usize>()
            + prefixes
    };
    let mut grown = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if home.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Production code only: a unit test may name the Isa it feeds a
        // function (the test modules sit at the end of each file, or in a
        // `tests.rs` its `mod.rs` declares under `#[cfg(test)]`).
        let unit_tests = file.file_name().is_some_and(|n| n == "tests.rs")
            && std::fs::read_to_string(file.with_file_name("mod.rs"))
                .is_ok_and(|m| m.contains("#[cfg(test)]\nmod tests;"));
        if unit_tests {
            continue;
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let found: usize = code.lines().map(names_a_generation).sum();
        let allowed = still.iter().find(|(f, _)| *f == rel).map_or(0, |&(_, n)| n);
        if found > allowed {
            grown.push(format!(
                "{rel}: names a generation {found} times (allowed {allowed})"
            ));
        }
    }
    assert!(
        grown.is_empty(),
        "ask the target row a feature question instead (issue 28):\n{}",
        grown.join("\n")
    );
}

/// The `// needs:` line of every kernels/cases stub (what build.rs builds it
/// by), parsed as build.rs parses it.
fn case_stubs() -> Vec<(String, Vec<xad_harness::platform::target::Need>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/cases");
    let mut stubs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let needs =
                xad_harness::platform::target::parse_needs(text.lines().next().unwrap_or(""))
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_stem().unwrap().to_string_lossy().into_owned(), needs)
        })
        .collect();
    stubs.sort_by(|a, b| a.0.cmp(&b.0));
    stubs
}

/// A case stub's needs line says what its Rust case requires, no more and
/// no less: build.rs builds the kernel exactly where the catalogue runs the
/// case, on every target, and every case has its stub.
#[test]
fn each_case_stub_needs_what_its_case_requires() {
    let stubs = case_stubs();
    let mut wrong = Vec::new();
    for case in cases::catalogue() {
        let (_, needs) = stubs
            .iter()
            .find(|(stem, _)| stem == case.kernel)
            .unwrap_or_else(|| panic!("no kernels/cases/{}.s", case.kernel));
        let mut want: Vec<&str> = case.requires.iter().map(|f| f.key()).collect();
        let mut got: Vec<&str> = needs
            .iter()
            .map(|&(f, wanted)| {
                assert!(wanted, "{}: a case needs no missing feature", case.kernel);
                f.key()
            })
            .collect();
        want.sort_unstable();
        got.sort_unstable();
        if got != want {
            wrong.push(format!(
                "kernels/cases/{}.s: needs {got:?}, its case requires {want:?}",
                case.kernel
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for t in TARGETS {
        let built: Vec<&str> = stubs
            .iter()
            .filter(|(_, needs)| t.meets(needs))
            .map(|(stem, _)| stem.as_str())
            .collect();
        let mut want: Vec<&str> = cases::catalogue_for(t).iter().map(|c| c.kernel).collect();
        // The tools' own kernels: microbench and soak, in the target's wave size.
        let wave = if t.has(xad_harness::platform::target::Feature::Wave32) {
            ["xad_microbench", "xad_soak_w32"]
        } else {
            ["xad_microbench_w64", "xad_soak_w64"]
        };
        want.extend(wave);
        want.sort_unstable();
        assert_eq!(built, want, "stubs built for {}", t.name);
    }
}

/// Every stub's needs line parses; a wrong one is refused with the reason.
#[test]
fn needs_lines_parse_and_refuse_unknown_words() {
    use xad_harness::platform::target::{parse_needs, Feature};
    assert_eq!(parse_needs("// needs: none"), Ok(vec![]));
    assert_eq!(
        parse_needs("// needs: wave32 !dpp8"),
        Ok(vec![(Feature::Wave32, true), (Feature::Dpp8, false)])
    );
    assert!(parse_needs("// needs:").unwrap_err().contains("none"));
    assert!(parse_needs("// needs: gfx11")
        .unwrap_err()
        .contains("unknown feature \"gfx11\""));
    assert!(parse_needs(".include \"xad_frame.inc\"").is_err());
    for (f, key) in Feature::KEYS {
        assert_eq!(Feature::from_key(key), Some(f));
        assert_eq!(f.key(), key);
    }
}
