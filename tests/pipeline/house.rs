//! The house as its imports draw it (ARCHITECTURE.md, "Layers"): `src/` is a
//! few wings (`commands`, `pipeline`, `model`, `platform`, `isa`, `report`),
//! each a folder of rooms (its files and folders). No wing imports its way
//! back to itself, nor does a room, across wings or inside one; inside
//! `src/platform/emu/` and `src/isa/` neither does a file. No function in
//! `src/` or `crates/xad-build/` (the code build.rs shares) is over 80 lines
//! unless a `// Long by design: ...` comment right above it says why. The maps the house keeps of itself are held to it too:
//! `lib.rs`'s module table, ARCHITECTURE.md's layer table and CONTRIBUTING.md's
//! test-crate table. Read from the source text, so the rules hold for every
//! room added later without a list to keep here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FN_LINES: usize = 80;

/// Every `.rs` file under `src/`, with its path relative to the crate.
fn sources() -> Vec<(String, String)> {
    sources_under("src")
}

/// Every `.rs` file under `dir` (relative to the crate), with its path
/// relative to the crate.
fn sources_under(dir: &str) -> Vec<(String, String)> {
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
    walk(&root.join(dir), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
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

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The entries of `src/<folder>/`: its folders, and its `.rs` files but
/// `mod.rs` (without `.rs`).
fn entries(folder: &str) -> BTreeSet<String> {
    std::fs::read_dir(src().join(folder))
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.path().is_dir() {
                return Some(name);
            }
            name.strip_suffix(".rs")
                .filter(|n| *n != "mod")
                .map(str::to_string)
        })
        .collect()
}

/// The wings: the folders at the root of `src/`.
fn wings() -> BTreeSet<String> {
    entries("")
        .into_iter()
        .filter(|e| src().join(e).is_dir())
        .collect()
}

/// A file's module path: `src/a/b/c.rs` is `a::b::c`, `src/a/b/mod.rs` is
/// `a::b`, the crate root and the binary are the root.
fn module_path(rel: &str) -> Vec<String> {
    let inner = rel.strip_prefix("src/").unwrap().trim_end_matches(".rs");
    let mut path: Vec<String> = inner.split('/').map(str::to_string).collect();
    if path.last().is_some_and(|l| l == "mod") || path == ["lib"] || path == ["main"] {
        path.pop();
    }
    path
}

/// The paths written at the start of `rest`: `a::b::C` is one, `{a::b,
/// c::{d, e}}` three (`a::b`, `c::d`, `c::e`).
fn group_paths(rest: &str) -> Vec<Vec<String>> {
    if let Some(group) = rest.strip_prefix('{') {
        let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0usize);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.extend(group_paths(group[start..i].trim_start()));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.extend(group_paths(group[start..i].trim_start()));
                    start = i + 1;
                }
                _ => {}
            }
        }
        return out;
    }
    let (mut path, mut rest) = (Vec::new(), rest);
    loop {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            break;
        }
        rest = &rest[name.len()..];
        path.push(name);
        match rest.strip_prefix("::") {
            Some(group) if group.starts_with('{') => {
                return group_paths(group)
                    .into_iter()
                    .map(|tail| [path.clone(), tail].concat())
                    .collect();
            }
            Some(more) => rest = more,
            None => break,
        }
    }
    if path.is_empty() {
        Vec::new()
    } else {
        vec![path]
    }
}

/// Every path a piece of code of `module` names, from the crate root:
/// `crate::a::b`, `super::a` (`super::super::a`), `self::a`, and a child's
/// bare name (`a::b` in a file that declares `mod a;`). A `self` in a group
/// (`a::{self, B}`) names `a`.
fn paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let children = code.lines().filter_map(|l| {
        let l = l.trim();
        let name = ["pub mod ", "pub(crate) mod ", "mod "]
            .iter()
            .find_map(|p| l.strip_prefix(p))?;
        name.strip_suffix(';').map(str::to_string)
    });
    let mut prefixes: Vec<(String, Vec<String>)> = vec![
        ("crate::".to_string(), Vec::new()),
        ("self::".to_string(), module.to_vec()),
        ("super::".to_string(), module.to_vec()),
    ];
    prefixes.extend(children.map(|c| (format!("{c}::"), [module, &[c.clone()]].concat())));
    let mut found = Vec::new();
    for (prefix, base) in &prefixes {
        for (at, _) in code.match_indices(prefix.as_str()) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let (mut rest, mut base) = (&code[at..], base.clone());
            if prefix == "super::" {
                while let Some(up) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = up;
                }
            } else {
                rest = &rest[prefix.len()..];
            }
            for tail in group_paths(rest) {
                let mut path = [base.clone(), tail].concat();
                path.retain(|segment| segment != "self");
                found.push(path);
            }
        }
    }
    found
}

/// `src/` as rooms: a wing's folders and files (`platform/emu`,
/// `commands/shared`), a wing's own `mod.rs` (`commands`), and the files at
/// the root beside the wings (`error`).
struct House {
    wings: BTreeSet<String>,
    rooms: BTreeMap<String, BTreeSet<String>>,
    /// What a wing's `mod.rs` re-exports (`isa::Op`), and from where.
    reexports: BTreeMap<Vec<String>, Vec<String>>,
    /// Each room's imports: the room it names, and the file that names it.
    imports: BTreeMap<String, BTreeMap<String, String>>,
}

impl House {
    fn read() -> House {
        let wings = wings();
        let rooms = wings.iter().map(|w| (w.clone(), entries(w))).collect();
        let mut house = House {
            wings,
            rooms,
            reexports: BTreeMap::new(),
            imports: BTreeMap::new(),
        };
        let sources = sources();
        for (rel, text) in &sources {
            let module = module_path(rel);
            if module.len() != 1 || !rel.ends_with("/mod.rs") {
                continue;
            }
            for statement in code_of(text).split(';') {
                let Some((_, used)) = statement.split_once("pub use ") else {
                    continue;
                };
                for path in group_paths(used.trim()) {
                    let from = match path.first().map(String::as_str) {
                        Some("crate") => path[1..].to_vec(),
                        _ => [module.clone(), path.clone()].concat(),
                    };
                    let name = path.last().unwrap().clone();
                    house.reexports.insert(vec![module[0].clone(), name], from);
                }
            }
        }
        for (rel, text) in &sources {
            let Some(from) = house.room_of_file(rel) else {
                continue;
            };
            let module = module_path(rel);
            let named: Vec<String> = paths(&code_of(text), &module)
                .iter()
                .filter_map(|path| house.room_of(path, 0))
                .filter(|to| *to != from)
                .collect();
            let imports = house.imports.entry(from).or_default();
            for to in named {
                imports.entry(to).or_insert_with(|| rel.clone());
            }
        }
        house
    }

    /// `src/platform/emu/wave.rs` is in `platform/emu`, `src/commands/mod.rs`
    /// in `commands`, `src/error.rs` in `error`; the crate root and the binary
    /// in none.
    fn room_of_file(&self, rel: &str) -> Option<String> {
        let module = module_path(rel);
        match module.as_slice() {
            [] => None,
            [wing] if rel.ends_with("/mod.rs") => Some(wing.clone()),
            [file] => Some(file.clone()),
            [wing, room, ..] => Some(format!("{wing}/{room}")),
        }
    }

    /// The room a path from the crate root lands in, through a wing's
    /// re-exports; none for a name outside `src/`'s modules.
    fn room_of(&self, path: &[String], depth: usize) -> Option<String> {
        let first = path.first()?;
        if !self.wings.contains(first) {
            return src()
                .join(format!("{first}.rs"))
                .is_file()
                .then(|| first.clone())
                .filter(|f| f != "lib" && f != "main");
        }
        let Some(second) = path.get(1) else {
            return Some(first.clone());
        };
        if self.rooms[first].contains(second) {
            return Some(format!("{first}/{second}"));
        }
        match self.reexports.get(&path[..2]) {
            Some(from) if depth < 4 => self.room_of(from, depth + 1),
            _ => Some(first.clone()),
        }
    }

    fn wing_of(&self, room: &str) -> Option<String> {
        let wing = room.split('/').next()?;
        self.wings.contains(wing).then(|| wing.to_string())
    }

    fn room_graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        self.imports
            .iter()
            .map(|(from, to)| (from.clone(), to.keys().cloned().collect()))
            .collect()
    }

    /// The wings as their rooms' imports draw them. `error.rs`, at the root
    /// beside the wings, is every wing's error vocabulary and names the
    /// device's and the toolchain's errors: it is a room of the room graph,
    /// not a wing.
    fn wing_graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in &self.imports {
            let Some(from) = self.wing_of(from) else {
                continue;
            };
            let edges = graph.entry(from.clone()).or_default();
            edges.extend(
                to.keys()
                    .filter_map(|t| self.wing_of(t))
                    .filter(|t| *t != from),
            );
        }
        graph
    }
}

#[test]
fn no_wing_and_no_room_imports_its_way_back_to_itself() {
    let house = House::read();
    let wings = house.wing_graph();
    assert!(
        wings.len() >= 6 && wings["commands"].contains("pipeline"),
        "the wings of src/ were found: {wings:?}"
    );
    if let Some(cycle) = find_cycle(&wings) {
        panic!(
            "an import cycle between wings: {} (ARCHITECTURE.md, Layers: a wing imports only from the wings below)",
            cycle.join(" -> ")
        );
    }
    let rooms = house.room_graph();
    if let Ok(dump) = std::env::var("XAD_HOUSE_DUMP") {
        let mut out = String::new();
        for (from, to) in &house.imports {
            for (t, rel) in to {
                out += &format!("{from} {t} {rel}\n");
            }
        }
        std::fs::write(dump, out).unwrap();
    }
    assert!(
        rooms.len() > 40
            && rooms["pipeline/run"].contains("pipeline/handle")
            && rooms["commands/run"].contains("commands/shared")
            && rooms["platform/files"].contains("error"),
        "the rooms of src/ were found: {rooms:?}"
    );
    if let Some(cycle) = find_cycle(&rooms) {
        let why: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} (in {})", w[1], house.imports[&w[0]][&w[1]]))
            .collect();
        panic!(
            "an import cycle between rooms: {} -> {} (ARCHITECTURE.md, Layers)",
            cycle[0],
            why.join(" -> ")
        );
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_the_import_reader_reads_groups() {
    let code = "mod e;\nuse crate::{a::{B, C}, b, c::d::E};\nfn f() { crate::d::g(); super::super::f::h(); e::i(); }";
    let module = ["x".to_string(), "y".to_string(), "z".to_string()];
    let names: Vec<String> = paths(code, &module).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        names,
        [
            "a::B",
            "a::C",
            "b",
            "c::d::E",
            "d::g",
            "x::f::h",
            "x::y::z::e::i"
        ]
    );
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
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for (rel, text) in sources() {
        let Some(name) = rel.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".rs")) else {
            continue;
        };
        let text = code_of(&text);
        // A path that leaves this folder (`super::super::x`) names nothing in it.
        let code = text.replace("super::super::", "::outside::");
        match name.split_once('/') {
            None => files.entry(name.to_string()).or_default().push_str(&code),
            // A folder module (`x/mod.rs` and its files) is one node `x` here,
            // drawn by what its files name outside it; its own files are a
            // graph of their own (`subfolders`).
            Some((sub, "mod")) => files.entry(sub.to_string()).or_default().push_str(&code),
            Some((sub, file)) if !file.contains('/') => {
                let outward = text
                    .replace("super::super::", "\u{1}")
                    .replace("super::", "self::")
                    .replace('\u{1}', "super::");
                files.entry(sub.to_string()).or_default().push_str(&outward);
            }
            Some(_) => {}
        }
    }
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
        named.extend(names_after(
            code,
            &format!("crate::{}::", folder.replace('/', "::")),
        ));
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
    for top in ["platform/emu", "isa"] {
        let graph = file_graph(top);
        assert!(
            graph.len() > 8 && graph.contains_key("mod"),
            "the files of src/{top}/ were found: {graph:?}"
        );
        for folder in std::iter::once(top.to_string()).chain(subfolders(top)) {
            let graph = file_graph(&folder);
            if let Some(cycle) = find_cycle(&graph) {
                panic!(
                    "an import cycle between the files of src/{folder}/: {} (ARCHITECTURE.md, \
                     \"The emulator, in reading order\")",
                    cycle.join(" -> ")
                );
            }
        }
    }
}

/// The folder modules (`x/mod.rs`) directly inside `src/<folder>/`.
fn subfolders(folder: &str) -> Vec<String> {
    let prefix = format!("src/{folder}/");
    let mut found: Vec<String> = sources()
        .into_iter()
        .filter_map(|(rel, _)| {
            let sub = rel.strip_prefix(&prefix)?.strip_suffix("/mod.rs")?;
            (!sub.contains('/')).then(|| format!("{folder}/{sub}"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_file_graph_resolves_reexports_and_strips_every_test_module() {
    let code = "use a::B;\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\nfn f() { crate::d::g(); }\n#[cfg(test)]\nmod more { fn h() { crate::e::i(); } }\n";
    let names: Vec<Vec<String>> = paths(&code_of(code), &[]);
    assert_eq!(names, [["d", "g"]]);
    let emu = file_graph("platform/emu");
    // `super::Fault` is `device::fault`'s, re-exported: no edge to mod.rs.
    assert!(!emu["program"].contains("mod"), "{:?}", emu["program"]);
    assert!(emu["mod"].contains("workgroup") && emu["packet"].contains("mod"));
    // A folder module is one node, drawn by what it names outside itself,
    // and its own files are a graph of their own.
    assert!(emu["program"].contains("hazards"), "{:?}", emu["program"]);
    assert!(emu["hazards"].contains("deps") && !emu["hazards"].contains("rules"));
    assert_eq!(subfolders("platform/emu"), ["platform/emu/hazards"]);
    let hazards = file_graph("platform/emu/hazards");
    assert!(hazards["wait_states"].contains("regs"), "{hazards:?}");
    assert!(!hazards["wait_states"].contains("mod"), "{hazards:?}");
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// What a map and the code disagree on: the entries only the map names
/// (stale) and those only the code has (missing), one line each.
fn disagreement(map: &str, mapped: &BTreeSet<String>, real: &BTreeSet<String>) -> Vec<String> {
    let stale = mapped
        .difference(real)
        .map(|m| format!("{map} names `{m}`, which does not exist"));
    let missing = real
        .difference(mapped)
        .map(|m| format!("{map} misses `{m}`"));
    stale.chain(missing).collect()
}

/// A negative control: each `expected` is in one of the lines `wrong` says.
fn says(wrong: &[String], expected: &[&str]) {
    for expected in expected {
        assert!(
            wrong.iter().any(|w| w.contains(expected)),
            "{expected}: {wrong:?}"
        );
    }
}

/// `lib.rs`'s module table against the code: each row names a module of the
/// crate root (`error`, a wing) or a wing's room (`platform::emu`), every
/// root module has its row, and a wing with any room in the table has all of
/// them (the table lists the rooms of the wings whose own `mod.rs` does not).
fn lib_table_disagreement(lib: &str) -> Vec<String> {
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
    let mut real: BTreeSet<String> = declared.clone();
    for wing in wings() {
        if tabled.iter().any(|t| t.starts_with(&format!("{wing}::"))) {
            real.extend(entries(&wing).into_iter().map(|r| format!("{wing}::{r}")));
        }
    }
    let mut wrong = disagreement("src/lib.rs's module table", &tabled, &real);
    wrong.extend(disagreement(
        "src/lib.rs's `pub mod` lines",
        &declared,
        &entries("")
            .into_iter()
            .filter(|e| e != "lib" && e != "main")
            .collect(),
    ));
    wrong
}

#[test]
fn the_module_table_in_lib_rs_lists_every_module_and_room() {
    let lib = repo_file("src/lib.rs");
    let wrong = lib_table_disagreement(&lib);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A room's row renamed: a row for a room that is not there, and the
    // room that is there without its row.
    let stale = lib.replacen("//! | [`pipeline::run`]", "//! | [`pipeline::walk`]", 1);
    says(
        &lib_table_disagreement(&stale),
        &[
            "names `pipeline::walk`, which does not exist",
            "misses `pipeline::run`",
        ],
    );
}

/// ARCHITECTURE.md's layer table, its rows from the ground up: each wing with
/// its rooms in reading order.
fn layer_table(architecture: &str) -> Vec<(String, Vec<String>)> {
    let layers = architecture
        .split("\n## Layers\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("ARCHITECTURE.md has a \"Layers\" section");
    layers
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|row| {
            let (wing, rooms) = row.split_once('`').unwrap();
            let rooms = rooms
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (wing.to_string(), rooms)
        })
        .collect()
}

/// The layer table against the code: every wing and every room it names
/// exists and none is missing; and every import runs down it (a room reads
/// only rooms to its left in its own row and the wings of the rows above;
/// `error.rs` at the root is read by all and left out).
fn layer_table_disagreement(architecture: &str, house: &House) -> Vec<String> {
    let table = layer_table(architecture);
    let map = "ARCHITECTURE.md's layer table";
    let tabled: BTreeSet<String> = table.iter().map(|(w, _)| w.clone()).collect();
    let mut wrong = disagreement(map, &tabled, &house.wings);
    for (wing, rooms) in &table {
        let real = house.rooms.get(wing).cloned().unwrap_or_default();
        let mapped: BTreeSet<String> = rooms.iter().cloned().collect();
        wrong.extend(disagreement(
            &format!("{map}, row `{wing}`,"),
            &mapped,
            &real,
        ));
    }
    // (row, place in the row) of every room; a wing's own mod.rs reads its rooms.
    let mut place: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (row, (wing, rooms)) in table.iter().enumerate() {
        place.insert(wing.clone(), (row, usize::MAX));
        for (i, room) in rooms.iter().enumerate() {
            place.insert(format!("{wing}/{room}"), (row, i));
        }
    }
    for (from, to) in &house.imports {
        let Some(&(row, at)) = place.get(from) else {
            continue;
        };
        for (room, rel) in to {
            let Some(&(to_row, to_at)) = place.get(room) else {
                continue;
            };
            let up = to_row > row || (to_row == row && to_at > at && at != usize::MAX);
            if up {
                wrong.push(format!(
                    "{rel}: `{from}` imports `{room}`, which {map} puts above it (an arrow back up)"
                ));
            }
        }
    }
    wrong
}

#[test]
fn the_layer_table_in_architecture_md_is_the_house() {
    let house = House::read();
    let architecture = repo_file("ARCHITECTURE.md");
    let wrong = layer_table_disagreement(&architecture, &house);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A wing that is not there, a room left out, and two rows swapped so
    // that the pipeline reads the report above it.
    let broken = architecture
        .replacen("| `model` |", "| `modelling` |", 1)
        .replacen("`guard`, ", "", 1);
    let wrong = layer_table_disagreement(&broken, &house);
    says(
        &wrong,
        &[
            "names `modelling`, which does not exist",
            "misses `model`",
            "row `pipeline`, misses `guard`",
        ],
    );
    let table = layer_table(&architecture);
    let (pipeline, report) = (
        table.iter().position(|(w, _)| w == "pipeline").unwrap(),
        table.iter().position(|(w, _)| w == "report").unwrap(),
    );
    let lines: Vec<&str> = architecture.lines().collect();
    let row = |wing: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(&format!("| `{wing}` |")))
            .unwrap()
    };
    let mut swapped = lines.clone();
    swapped.swap(row("pipeline"), row("report"));
    assert!(pipeline < report);
    let wrong = layer_table_disagreement(&swapped.join("\n"), &house);
    assert!(
        wrong
            .iter()
            .any(|w| w.contains("`report/run_report` imports `pipeline/run`")),
        "{wrong:?}"
    );
}

/// CONTRIBUTING.md's test-crate table (crate, path, modules) against
/// Cargo.toml's `[[test]]` entries and each crate's `main.rs` (its `mod`
/// lines, but the helpers shared with `#[path]`).
fn crate_table_disagreement(contributing: &str, cargo: &str) -> Vec<String> {
    let section = contributing
        .split("\n## Test crates\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("CONTRIBUTING.md has a \"Test crates\" section");
    let rows: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.split(" | ")
                .map(|cell| {
                    cell.split('`')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        })
        .collect();
    let map = "CONTRIBUTING.md's test-crate table";
    // crate | path | boundary | loop (`fast`, or `slow`: `test = false`) | modules
    let tabled: BTreeSet<String> = rows
        .iter()
        .map(|r| format!("{} at {} ({})", r[0], r[1], r[3]))
        .collect();
    let declared: BTreeSet<String> = cargo
        .split("\n[[test]]\n")
        .skip(1)
        .map(|entry| entry.split("\n[").next().unwrap_or(entry))
        .map(|entry| {
            let value = |key: &str| {
                entry
                    .lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(|v| {
                        v.trim()
                            .trim_start_matches('=')
                            .trim()
                            .trim_matches('"')
                            .to_string()
                    })
                    .unwrap_or_default()
            };
            let speed = if value("test") == "false" { "slow" } else { "fast" };
            format!("{} at {} ({speed})", value("name"), value("path"))
        })
        .collect();
    let mut wrong = disagreement(
        &format!("{map} (against Cargo.toml's [[test]])"),
        &tabled,
        &declared,
    );
    for row in &rows {
        let Ok(main) = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&row[1]))
        else {
            continue;
        };
        let lines: Vec<&str> = main.lines().collect();
        let modules: BTreeSet<String> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !(*i > 0 && lines[i - 1].starts_with("#[path")))
            .filter_map(|(_, l)| l.strip_prefix("mod ")?.strip_suffix(';'))
            .map(str::to_string)
            .collect();
        let mapped: BTreeSet<String> = row[4].split(' ').map(str::to_string).collect();
        wrong.extend(disagreement(
            &format!("{map}, row `{}`,", row[0]),
            &mapped,
            &modules,
        ));
    }
    wrong
}

#[test]
fn the_test_crate_table_in_contributing_md_is_cargo_toml() {
    let contributing = repo_file("CONTRIBUTING.md");
    let cargo = repo_file("Cargo.toml");
    let wrong = crate_table_disagreement(&contributing, &cargo);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A crate at another path, a slow crate called fast, and a module no main.rs declares.
    let broken = contributing
        .replacen("| `tests/hip/main.rs` |", "| `tests/hips/main.rs` |", 1)
        .replacen("the binary as a process | `slow` |", "the binary as a process | `fast` |", 1)
        .replacen("| `slow` | `hip_runtime`, ", "| `slow` | `gather`, `hip_runtime`, ", 1);
    let wrong = crate_table_disagreement(&broken, &cargo);
    says(
        &wrong,
        &[
            "names `hip at tests/hips/main.rs (slow)`, which does not exist",
            "misses `hip at tests/hip/main.rs (slow)`",
            "names `cli at tests/cli/main.rs (fast)`, which does not exist",
            "names `gather`, which does not exist",
        ],
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
    // crates/xad-build is the library's code too (moved out of src/ so build.rs can share it).
    let mut files = sources();
    files.extend(sources_under("crates/xad-build/src"));
    let long: Vec<String> = files
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
