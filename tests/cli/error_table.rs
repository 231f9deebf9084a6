//! docs/exit-codes.md's "Every error a user can cause" table, row by row: each command
//! is run as written (`$TMP` a fresh directory holding a `bad.s` that does
//! not assemble; `VAR=value` prefixes set the environment), on the real HIP
//! runtime or, where the row says `emulated HIP`, on the emulated HIP device
//! library; the exit code must be the row's and stderr must hold the
//! message. A row that drifts from the binary fails here, so the table
//! cannot go stale.

use crate::support;

use std::path::Path;
use std::process::Command;

const HARNESS: &str = env!("CARGO_BIN_EXE_xad-harness");

struct Row {
    cause: String,
    command: String,
    exit: i32,
    message: String,
    emulated: bool,
}

/// The text between the first pair of backticks in `cell`.
fn code(cell: &str) -> String {
    cell.split('`').nth(1).unwrap_or_default().to_string()
}

fn rows() -> Vec<Row> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/exit-codes.md"))
            .expect("docs/exit-codes.md");
    let section = readme
        .split("## Every error a user can cause")
        .nth(1)
        .expect("docs/exit-codes.md has the error table");
    section
        .lines()
        .skip_while(|l| !l.starts_with("| cause"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 5, "a row of five cells: {line}");
            Row {
                cause: cells[0].to_string(),
                command: code(cells[1]),
                exit: cells[2]
                    .parse()
                    .unwrap_or_else(|_| panic!("exit code in {line}")),
                message: code(cells[3]),
                emulated: cells[4] == "emulated HIP",
            }
        })
        .collect()
}

#[test]
fn every_row_of_the_error_table_is_what_the_binary_does() {
    let rows = rows();
    assert!(rows.len() >= 20, "the table has its rows: {}", rows.len());
    let library = support::library();
    let mut wrong = Vec::new();
    for row in &rows {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("bad.s"), "this is not an instruction\n").unwrap();
        let expanded = row.command.replace("$TMP", &tmp.path().to_string_lossy());
        let mut words = expanded.split(' ').filter(|w| !w.is_empty()).peekable();
        let mut env = Vec::new();
        while let Some((k, v)) = words
            .peek()
            .and_then(|w| w.split_once('='))
            .filter(|(k, _)| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        {
            env.push((k.to_string(), v.to_string()));
            words.next();
        }
        assert_eq!(
            words.next(),
            Some("xad-harness"),
            "{}: a command of ours",
            row.cause
        );
        let mut command = Command::new(HARNESS);
        command.args(words).current_dir(tmp.path());
        let knobs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let output = support::run(command, row.emulated.then_some(library.as_path()), &knobs)
            .unwrap_or_else(|e| panic!("{}: {e}", row.cause));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let code = output.status.code();
        if code != Some(row.exit) || !stderr.contains(&row.message) {
            wrong.push(format!(
                "{}: `{}` gave exit {code:?}, want {}; stderr must hold {:?}:\n{}",
                row.cause,
                row.command,
                row.exit,
                row.message,
                support::transcript(&output)
            ));
        }
        if !row.message.is_empty() {
            let ours = stderr
                .lines()
                .filter(|l| l.starts_with("xad-harness:"))
                .count();
            if ours == 0 {
                wrong.push(format!("{}: no `xad-harness:` line on stderr", row.cause));
            }
        }
        assert!(!stderr.contains("panicked"), "{}: {stderr}", row.cause);
    }
    assert!(
        wrong.is_empty(),
        "{} rows disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
