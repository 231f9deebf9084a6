//! The report files a command was asked to write: checked before anything
//! runs (a path that cannot be written, or `--json` and `--junit` naming one
//! file by any spelling: `./x`, a symlink, a hard link, is a usage error found
//! in milliseconds rather than after an hour-long soak; so are two reports
//! both sent to stdout with `-`), then written by one rule for every command
//! ([`write_all`], [`after_writing`]).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::platform::files::parent_of;

use crate::error::Error;

/// Write every report asked for, each `(path, text)`, whatever happened
/// before and whether or not an earlier one could be written, so nothing the
/// user asked for is lost; the first failure is returned. Each file goes to
/// a temporary name beside it and is renamed over it (`outputs::write_output`).
pub fn write_all<'p>(
    reports: impl IntoIterator<Item = (&'p Path, Result<String, Error>)>,
) -> Result<(), Error> {
    let mut first = None;
    for (path, text) in reports {
        let written =
            text.and_then(|text| crate::platform::files::write_output(path, text.as_bytes()));
        first = first.or(written.err());
    }
    first.map_or(Ok(()), Err)
}

/// The one rule for a report (or a dump) that could not be written, for
/// every command: it fails an otherwise passing run (exit 3, and the write
/// error is the run's error); any other ending stands, since it already says
/// the run did not pass (a mismatch, a fault, a skip, a signal), and the
/// write error is returned beside it to be printed as one more line.
pub fn after_writing(
    outcome: Result<i32, Error>,
    written: Result<(), Error>,
) -> (Result<i32, Error>, Option<Error>) {
    match (outcome, written) {
        (Ok(crate::error::exit::PASS), Err(e)) => (Err(e), None),
        (outcome, written) => (outcome, written.err()),
    }
}

/// Every reason the report paths cannot be used, one error per line; empty
/// when both can be written. `json` and `junit` are the options' values.
pub fn check(json: Option<&Path>, junit: Option<&Path>) -> Vec<Error> {
    // Each path by the tool-wide write rule: a regular file or a new name.
    [("--json", json), ("--junit", junit)]
        .into_iter()
        .filter_map(|(option, path)| crate::platform::files::check_output(option, path?).err())
        .chain(one_file_twice(json, junit))
        .collect()
}

/// `--html`'s path by the tool-wide write rule, and not the file another
/// report of the same command (`others`: option and path) names.
pub fn check_html(html: Option<&Path>, others: &[(&str, Option<&Path>)]) -> Vec<Error> {
    let Some(html) = html else {
        return Vec::new();
    };
    let clash = others.iter().filter_map(|(option, path)| {
        let path = (*path)?;
        if let Some(e) = both_stdout(&[("--html", Some(html)), (option, Some(path))]) {
            return Some(e);
        }
        same_file(html, path).then(|| {
            Error::Usage(format!(
                "--html {} and {option} {} name the same file; give each report its own",
                html.display(),
                path.display()
            ))
        })
    });
    crate::platform::files::check_output("--html", html)
        .err()
        .into_iter()
        .chain(clash)
        .collect()
}

/// `--json` and `--junit` naming one file by any spelling ([`same_file`]);
/// `merge` applies the same rule to its outputs.
pub fn one_file_twice(json: Option<&Path>, junit: Option<&Path>) -> Option<Error> {
    let (a, b) = (json?, junit?);
    if let Some(e) = both_stdout(&[("--json", Some(a)), ("--junit", Some(b))]) {
        return Some(e);
    }
    same_file(a, b).then(|| {
        Error::Usage(format!(
            "--json {} and --junit {} name the same file; give each report its own",
            a.display(),
            b.display()
        ))
    })
}

/// Two of `outputs` (option, path) sent to stdout (`-`, `/dev/stdout`, ...,
/// [`crate::platform::files::is_our_stdout`]): one stream cannot carry two reports a
/// reader can tell apart (a usage error).
pub fn both_stdout(outputs: &[(&str, Option<&Path>)]) -> Option<Error> {
    let to_stdout: Vec<String> = outputs
        .iter()
        .filter_map(|(option, path)| {
            let path = path.filter(|p| crate::platform::files::is_our_stdout(p))?;
            Some(format!("{option} {}", path.display()))
        })
        .collect();
    (to_stdout.len() > 1).then(|| {
        Error::Usage(format!(
            "{}: only one report may go to stdout; give the others a file",
            to_stdout.join(" and ")
        ))
    })
}

/// Do `a` and `b` name one file? Existing files are compared by device and
/// inode (catching symlinks and hard links); missing ones by their resolved
/// directory and file name (catching `./x`, `dir/../x` and symlinked
/// directories).
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    // `-` is stdout, not a file named `-` in the current directory.
    if crate::platform::files::is_stdout(a) || crate::platform::files::is_stdout(b) {
        return false;
    }
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return (x.dev(), x.ino()) == (y.dev(), y.ino());
    }
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `path` with its directory resolved, for a file that need not exist yet;
/// a dangling symlink is followed to the file writing would create.
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        if let Ok(full) = std::fs::canonicalize(&path) {
            return Some(full);
        }
        match std::fs::read_link(&path) {
            // A relative target is relative to the link's directory; an
            // absolute one replaces the path.
            Ok(target) => path = parent_of(&path).join(target),
            Err(_) => {
                return Some(
                    std::fs::canonicalize(parent_of(&path))
                        .ok()?
                        .join(path.file_name()?),
                )
            }
        }
    }
    None // a symlink loop: nothing can be written there anyway
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(json: Option<&Path>, junit: Option<&Path>) -> Vec<String> {
        check(json, junit).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn one_file_under_two_spellings_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("r.xml");
        let dotted = dir.path().join(".").join("r.xml");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        let via_link = link.join("r.xml");
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("r.xml", &dangling).unwrap();
        for other in [&x, &dotted, &via_link, &dangling] {
            let found = lines(Some(&x), Some(other));
            assert!(
                found
                    .last()
                    .is_some_and(|l| l.contains("name the same file")),
                "{other:?}: {found:?}"
            );
            // A symlink at the path is itself refused (a rename would replace the link).
            let extra = usize::from(other == &dangling);
            assert_eq!(found.len(), 1 + extra, "{other:?}: {found:?}");
            assert!(!x.exists(), "the probe leaves nothing behind");
        }
        std::fs::write(&x, "old").unwrap();
        let hard = dir.path().join("hard.xml");
        std::fs::hard_link(&x, &hard).unwrap();
        assert_eq!(lines(Some(&x), Some(&hard)).len(), 1);
        assert_eq!(
            std::fs::read_to_string(&x).unwrap(),
            "old",
            "an existing report is not truncated by the check"
        );
        // Negative control: two different files in one directory are fine.
        assert!(lines(Some(&x), Some(&dir.path().join("r.json"))).is_empty());
    }

    #[test]
    fn unwritable_paths_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/r.json");
        let found = lines(Some(&missing), Some(dir.path()));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("--json ") && found[0].contains("does not exist"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("--junit ") && found[1].contains("is a directory"),
            "{found:?}"
        );
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let found = lines(Some(&file.join("r.json")), None);
        assert!(found[0].contains("is not a directory"), "{found:?}");
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(
            lines(Some(&fifo), None).is_empty(),
            "a FIFO is written in place, and checked without hanging"
        );
        let found = lines(Some(Path::new("-")), Some(Path::new("-")));
        assert!(
            found.len() == 1
                && found[0].contains("--json - and --junit -: only one report may go to stdout"),
            "{found:?}"
        );
        // Negative control: one report on stdout, the other in a file.
        assert!(lines(Some(Path::new("-")), Some(&dir.path().join("r.xml"))).is_empty());
    }

    #[test]
    fn a_report_not_written_fails_only_a_passing_run() {
        use crate::error::exit;
        let unwritten = || Err(Error::Io("r.json: cannot be written".into()));
        let (code, shown) = after_writing(Ok(exit::PASS), unwritten());
        assert_eq!(code.unwrap_err().exit_code(), exit::FAULT);
        assert!(shown.is_none(), "the write error is the run's error");
        for kept in [
            exit::MISMATCH,
            exit::FAULT,
            exit::SKIPPED,
            exit::SIGINT,
            exit::SIGTERM,
        ] {
            let (code, shown) = after_writing(Ok(kept), unwritten());
            assert_eq!(code.unwrap(), kept);
            assert!(shown.unwrap().to_string().contains("cannot be written"));
        }
        let (code, shown) = after_writing(Err(Error::Usage("bad".into())), unwritten());
        assert_eq!(code.unwrap_err().exit_code(), exit::USAGE);
        assert!(shown.is_some());
        let (code, shown) = after_writing(Ok(exit::PASS), Ok(()));
        assert_eq!((code.unwrap(), shown.is_none()), (exit::PASS, true));
    }

    #[test]
    fn every_report_is_attempted_and_the_first_failure_returned() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/r.json");
        let fine = dir.path().join("r.xml");
        let encoding = Err(Error::Io("encoding failed".into()));
        let later = dir.path().join("later.json");
        let e = write_all([
            (missing.as_path(), Ok("{}".to_string())),
            (fine.as_path(), Ok("<x/>".to_string())),
            (later.as_path(), encoding),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("no/such/dir"), "{e}");
        assert_eq!(std::fs::read_to_string(&fine).unwrap(), "<x/>");
        assert!(!later.exists());
    }
}
