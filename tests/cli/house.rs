//! The house as its imports draw it (ARCHITECTURE.md, "Layers"): no two
//! modules of `src/` import each other, directly or round a cycle, and no
//! function in `src/` is over 80 lines unless a `// Long by design: ...`
//! comment right above it says why. Read from the source text, so the rule
//! holds for every module added later without a list to keep.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FN_LINES: usize = 80;

/// Every `.rs` file under `src/`, with its path relative to the crate.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    walk(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `src/platform/emu/wave.rs` and `src/emu.rs` belong to `emu`; the crate root and
/// the binary belong to no module.
fn module_of(rel: &str) -> Option<String> {
    let inner = rel.strip_prefix("src/")?;
    let first = inner.split('/').next()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

/// The file's code without its unit tests (every `#[cfg(test)] mod`, wherever
/// it sits) and without comment lines (doc links name modules without
/// importing them).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        code.push_str(&rest[..at]);
        let after = rest[at..].trim_start_matches("#[cfg(test)]").trim_start();
        let is_mod = after.starts_with("mod ") || after.starts_with("pub(crate) mod ");
        match after.find('{').filter(|_| is_mod) {
            Some(open) => {
                let mut depth = 0usize;
                let end = after[open..]
                    .char_indices()
                    .find_map(|(i, c)| {
                        match c {
                            '{' => depth += 1,
                            '}' => depth -= 1,
                            _ => {}
                        }
                        (depth == 0).then_some(open + i + 1)
                    })
                    .unwrap_or(after.len());
                rest = &after[end..];
            }
            None => {
                code.push_str("#[cfg(test)]");
                rest = &rest[at + "#[cfg(test)]".len()..];
            }
        }
    }
    code.push_str(rest);
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a piece of code names as `crate::x` or in
/// `crate::{x, y::z}`.
fn imports(code: &str) -> BTreeSet<String> {
    names_after(code, "crate::")
}

/// The first name of every path a piece of code writes after `prefix`, groups
/// read (`prefix{x, y::z}` names `x` and `y`).
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Names at the group's top level: split on commas outside braces.
            let (mut depth, mut start) = (0usize, 0usize);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        found.insert(ident(&group[start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.insert(ident(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in sources() {
        let Some(module) = module_of(&rel) else {
            continue;
        };
        let mut named = imports(&code_of(&text));
        named.remove(&module);
        edges.entry(module).or_default().extend(named);
    }
    edges
}

/// A cycle through `graph`, as the modules in import order, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_imports_its_way_back_to_itself() {
    let graph = graph();
    assert!(
        graph.len() > 20,
        "the modules of src/ were found: {graph:?}"
    );
    assert!(graph["run"].contains("handle") && graph["commands"].contains("session"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "an import cycle: {} (ARCHITECTURE.md, Layers: a module imports only from floors below)",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_the_import_reader_reads_groups() {
    let code = "use crate::{a::{B, C}, b, c::d::E};\nfn f() { crate::d::g(); }";
    let names: Vec<String> = imports(code).into_iter().collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        graph.entry(from.into()).or_default().insert(to.into());
    }
    let cycle = find_cycle(&graph).expect("a -> b -> c -> a");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4);
    graph.get_mut("c").unwrap().clear();
    assert_eq!(find_cycle(&graph), None);
}

/// The files of `src/<folder>/` as the imports between them draw them: an
/// edge from a file to each sibling it names (`super::x`, `crate::<folder>::x`,
/// and from `mod.rs` a bare `x::`). A name `mod.rs` re-exports (`pub use
/// x::{A, B}`) counts as the file it comes from, one it re-exports from
/// elsewhere in the crate as none; any other name of the parent is `mod.rs`.
fn file_graph(folder: &str) -> BTreeMap<String, BTreeSet<String>> {
    let prefix = format!("src/{folder}/");
    let files: BTreeMap<String, String> = sources()
        .into_iter()
        .filter_map(|(rel, text)| {
            let name = rel.strip_prefix(&prefix)?.strip_suffix(".rs")?;
            (!name.contains('/')).then(|| (name.to_string(), code_of(&text)))
        })
        .collect();
    let parent = files.get("mod").cloned().unwrap_or_default();
    // `pub use x::{A, B}` in mod.rs: A and B are x's (None: from outside).
    let mut reexported: BTreeMap<String, Option<String>> = BTreeMap::new();
    for statement in parent.split(';') {
        let Some((_, path)) = statement.split_once("pub use ") else {
            continue;
        };
        let (from, names) = match path.split_once("::{") {
            Some((from, names)) => (from, names.trim_end_matches('}')),
            None => path.rsplit_once("::").unwrap_or((path, path)),
        };
        let from = from.trim();
        let owner = files
            .contains_key(from)
            .then(|| from.to_string())
            .filter(|_| !from.starts_with("crate"));
        for name in names
            .split(',')
            .map(|n| n.split(" as ").last().unwrap_or(n).trim())
        {
            reexported.insert(name.to_string(), owner.clone());
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in &files {
        let mut named = names_after(code, "super::");
        named.extend(names_after(code, &format!("crate::{folder}::")));
        if name == "mod" {
            // A child's path written bare (`launch::x`, not `codeobj::launch::x`).
            let bare = |f: &&String| {
                let path = format!("{f}::");
                code.match_indices(&path).any(|(at, _)| {
                    let before = code[..at].chars().next_back();
                    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                })
            };
            named.extend(files.keys().filter(bare).cloned());
        }
        let edges = graph.entry(name.clone()).or_default();
        for n in named.into_iter().filter(|n| n != "super") {
            let to = if files.contains_key(&n) {
                Some(n)
            } else if let Some(owner) = reexported.get(&n) {
                owner.clone()
            } else {
                Some("mod".to_string())
            };
            edges.extend(to.filter(|to| to != name));
        }
    }
    graph
}

/// No file of `src/platform/emu/` or `src/isa/` imports its way back to itself: each
/// reads from the files below it (ARCHITECTURE.md, "The emulator, in reading
/// order").
#[test]
fn no_file_of_the_emulator_or_the_decoder_imports_its_way_back_to_itself() {
    for folder in ["emu", "isa"] {
        let graph = file_graph(folder);
        assert!(
            graph.len() > 8 && graph.contains_key("mod"),
            "the files of src/{folder}/ were found: {graph:?}"
        );
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "an import cycle between the files of src/{folder}/: {} (ARCHITECTURE.md, \
                 \"The emulator, in reading order\")",
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn the_file_graph_resolves_reexports_and_strips_every_test_module() {
    let code = "use a::B;\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\nfn f() { crate::d::g(); }\n#[cfg(test)]\nmod more { fn h() { crate::e::i(); } }\n";
    let names: Vec<String> = imports(&code_of(code)).into_iter().collect();
    assert_eq!(names, ["d"]);
    let emu = file_graph("emu");
    // `super::Fault` is `device::fault`'s, re-exported: no edge to mod.rs.
    assert!(!emu["program"].contains("mod"), "{:?}", emu["program"]);
    assert!(emu["mod"].contains("workgroup") && emu["packet"].contains("mod"));
}

/// `lib.rs`'s module table names every module the crate declares, and no other.
#[test]
fn the_module_table_in_lib_rs_lists_every_module() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let tabled: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! | [`"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    assert!(declared.len() > 20, "{declared:?}");
    assert_eq!(
        tabled, declared,
        "src/lib.rs: the module table (left) and the `pub mod` lines (right) differ"
    );
}

/// Functions over the limit: (file, line, name, lines), except those a
/// `// Long by design:` comment among the lines right above them explains.
fn long_functions(rel: &str, text: &str) -> Vec<(String, usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let signature = trimmed
            .split_once("fn ")
            .filter(|(before, _)| {
                before.split_whitespace().all(|w| {
                    [
                        "pub",
                        "pub(crate)",
                        "pub(super)",
                        "const",
                        "unsafe",
                        "async",
                    ]
                    .contains(&w)
                        || w.starts_with("extern")
                        || w == "\"C\""
                })
            })
            .map(|(_, after)| after);
        let Some(after) = signature else { continue };
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // A declaration without a body (a trait method) ends in `;` before
        // any `{`; a one-line body closes on its own line.
        let Some(open) =
            (i..lines.len()).find(|&j| lines[j].contains('{') || lines[j].ends_with(';'))
        else {
            continue;
        };
        if !lines[open].contains('{') || lines[open].trim_end().ends_with('}') {
            continue;
        }
        // rustfmt closes a body at the indentation its `fn` opened at.
        let close = format!("{indent}}}");
        let Some(end) = (open + 1..lines.len()).find(|&j| lines[j] == close) else {
            continue;
        };
        let length = end - i + 1;
        let explained = lines[i.saturating_sub(6)..i]
            .iter()
            .any(|l| l.trim_start().starts_with("// Long by design:"));
        if length > MAX_FN_LINES && !explained {
            long.push((rel.to_string(), i + 1, name, length));
        }
    }
    long
}

#[test]
fn no_function_is_over_80_lines_without_saying_why() {
    let long: Vec<String> = sources()
        .iter()
        .flat_map(|(rel, text)| long_functions(rel, text))
        .map(|(rel, line, name, n)| format!("{rel}:{line} fn {name}: {n} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "split these, or say why above them with `// Long by design: ...`:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_reader_counts_bodies_and_honours_the_comment() {
    let body = |n: usize| "    x();\n".repeat(n);
    let text = format!(
        "fn short() {{\n{}}}\n\npub fn long() {{\n{}}}\n\n// Long by design: a table.\nfn table() {{\n{}}}\n\ntrait T {{\n    fn declared(&self);\n}}\n",
        body(10),
        body(81),
        body(200)
    );
    let long = long_functions("src/x.rs", &text);
    assert_eq!(long.len(), 1, "{long:?}");
    assert_eq!((long[0].2.as_str(), long[0].3), ("long", 83));
}
