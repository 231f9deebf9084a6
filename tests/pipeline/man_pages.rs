//! The man pages in docs/man/ are generated from the clap tree
//! (`xad_harness::commands::Cli`) with clap_mangen, so each option is described
//! once, in its doc comment, and `--help` and the pages cannot disagree. This
//! test renders them again and fails when a committed page differs, is missing
//! or is left over. After changing an option or a command, rewrite them with
//!
//!     XAD_UPDATE_MAN=1 cargo test --test pipeline -- man_pages::
//!
//! and commit docs/man/.

use clap::CommandFactory;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man")
}

/// Every page clap_mangen writes for the tree (`xad-harness.1`,
/// `xad-harness-run.1`, ...), by file name.
fn rendered() -> BTreeMap<String, Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    clap_mangen::generate_to(xad_harness::commands::Cli::command(), dir.path()).unwrap();
    pages_in(dir.path())
}

fn pages_in(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "1"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_man_pages_are_the_clap_tree() {
    let want = rendered();
    assert!(
        want.contains_key("xad-harness.1") && want.contains_key("xad-harness-run.1"),
        "clap_mangen wrote {:?}",
        want.keys().collect::<Vec<_>>()
    );
    let dir = man_dir();
    if std::env::var_os("XAD_UPDATE_MAN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for stale in pages_in(&dir).keys().filter(|k| !want.contains_key(*k)) {
            std::fs::remove_file(dir.join(stale)).unwrap();
        }
        for (name, bytes) in &want {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        eprintln!("wrote {} page(s) to {}", want.len(), dir.display());
        return;
    }
    let have = pages_in(&dir);
    let mut wrong = Vec::new();
    for (name, bytes) in &want {
        match have.get(name) {
            None => wrong.push(format!("{name}: missing")),
            Some(h) if h != bytes => wrong.push(format!("{name}: differs from the clap tree")),
            Some(_) => {}
        }
    }
    for name in have.keys().filter(|k| !want.contains_key(*k)) {
        wrong.push(format!("{name}: no such command any more"));
    }
    assert!(
        wrong.is_empty(),
        "docs/man is stale (rewrite it with XAD_UPDATE_MAN=1 cargo test --test pipeline -- man_pages::):\n{}",
        wrong.join("\n")
    );
}

/// Every command says what it does and every option or argument says what
/// it takes, in `--help`, the man pages and the completions alike (issue
/// 42: `list --json` and `kernels --out` had none). clap's own `--help` and
/// `--version` are the only ones exempt.
#[test]
fn every_command_and_option_has_help_text() {
    let mut missing = Vec::new();
    undocumented(
        &xad_harness::commands::Cli::command(),
        "xad-harness",
        &mut missing,
    );
    assert!(
        missing.is_empty(),
        "without help text (a doc comment on the field or variant):\n{}",
        missing.join("\n")
    );
}

fn undocumented(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
    let said =
        |s: Option<&clap::builder::StyledStr>| s.is_some_and(|s| !s.to_string().trim().is_empty());
    if !said(command.get_about()) && !said(command.get_long_about()) {
        missing.push(format!("{path}: the command"));
    }
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(id, "help" | "version") {
            continue;
        }
        if !said(arg.get_help()) && !said(arg.get_long_help()) {
            missing.push(format!("{path}: {id}"));
        }
    }
    for sub in command.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        undocumented(sub, &format!("{path} {}", sub.get_name()), missing);
    }
}

/// The negative control: a tree with one undocumented option is caught.
#[test]
fn an_option_without_help_is_caught() {
    let tree = clap::Command::new("t")
        .about("a tool")
        .arg(
            clap::Arg::new("documented")
                .long("documented")
                .help("says what"),
        )
        .arg(clap::Arg::new("bare").long("bare"));
    let mut missing = Vec::new();
    undocumented(&tree, "t", &mut missing);
    assert_eq!(missing, ["t: bare"]);
}
