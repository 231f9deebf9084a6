//! The one rule for every file the tool writes and every file it reads.
//!
//! Writing (reports, merged reports, soak and microbench JSON, dump files)
//! goes one of three ways ([`Destination`]):
//! - a regular file or a new name: the bytes go to a private temporary file
//!   in the destination's directory, which is then renamed over the
//!   destination, so a reader never sees half a file;
//! - `-`: standard output (the command's text then goes to stderr);
//! - an existing FIFO (a pipe) or character device, also reached through a
//!   symlink such as `/dev/stdout` or `/proc/self/fd/N`: opened as it is and
//!   written in place, never created, truncated, replaced or renamed over
//!   (a rename over `/dev/full` as root would replace the system's device
//!   with a file). A write error there (`/dev/full`: no space) is exit 3.
//!
//! Any other node (a directory, a block device, a socket, a symlink to
//! anything but a FIFO or character device) is refused before anything runs
//! ([`check_output`], exit 2) and again at write time ([`write_output`]).
//!
//! Reading (kernels, reports, JUnit, dump manifests and arrays): regular
//! files only, opened without blocking (a FIFO nobody writes would hang the
//! read forever), its size checked against a cap before a byte is read and
//! again while reading (`/dev/zero` or a growing file cannot take memory
//! until allocation fails). Inside a dump, a symlink may not lead out of it
//! ([`read_input_in`]). Each refusal is one line naming the file.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// The largest JSON or JUnit report `merge` reads (a fleet of a few hundred
/// devices is far below it).
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

/// What the node at `path` is, when it exists and is not a regular file,
/// without following a symlink: such a node is never renamed over.
pub fn not_regular(path: &Path) -> Option<&'static str> {
    describe(std::fs::symlink_metadata(path).ok()?.file_type())
}

/// A file type in words, `None` for a regular file.
fn describe(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_symlink() {
        Some("a symbolic link")
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device node")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// The directory `path` would be created in (`.` for a bare file name).
pub fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The path that means standard output (`--json -`).
pub const STDOUT: &str = "-";

/// Is `path` the stdout spelling `-`?
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// Is `path` this process's standard output: `-`, or a FIFO or character
/// device that is the very node fd 1 is (`/dev/stdout`, `/proc/self/fd/1`,
/// the pipe's or terminal's own path)? A report written there shares the
/// stream with the command's text, which then goes to stderr.
pub fn is_our_stdout(path: &Path) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    if is_stdout(path) {
        return true;
    }
    if !matches!(destination(path), Ok(Destination::InPlace(_))) {
        return false;
    }
    let ours = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata());
    match (ours, std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// How a file written to a path gets there ([`destination`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// `-`: the process's standard output.
    Stdout,
    /// An existing FIFO or character device (`kind` in words), directly or
    /// through symlinks: opened and written as it is.
    InPlace(&'static str),
    /// A regular file or a new name: a temporary file renamed over it.
    Replace,
}

/// Where a file written to `path` would go, or why nothing may be written
/// there (the node's kind, in words). Looks at the node without opening it,
/// so a FIFO nobody reads is not waited on.
pub fn destination(path: &Path) -> Result<Destination, &'static str> {
    if is_stdout(path) {
        return Ok(Destination::Stdout);
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(Destination::Replace);
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Destination::Replace);
    }
    if let Some(node) = in_place(kind) {
        return Ok(Destination::InPlace(node));
    }
    if kind.is_symlink() {
        // `/dev/stdout`, `/proc/self/fd/1`: what the link ends at decides.
        if let Some(node) = std::fs::metadata(path)
            .ok()
            .and_then(|m| in_place(m.file_type()))
        {
            return Ok(Destination::InPlace(node));
        }
    }
    Err(describe(kind).unwrap_or("not a regular file"))
}

/// A node a report is written into as it is: a FIFO (a pipe) or a
/// character device. A block device is a disk: never written.
fn in_place(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() {
        Some("a character device")
    } else {
        None
    }
}

/// Can `path` take a file written by [`write_output`]? `-`, an existing FIFO
/// or character device, a regular file, or a new name in an existing
/// directory the tool can create files in. Nothing is left behind, and
/// nothing is opened. `option` names the flag in the message.
pub fn check_output(option: &str, path: &Path) -> Result<(), Error> {
    let refuse = |why: String| Error::Usage(format!("{option} {}: {why}", path.display()));
    if path.as_os_str().is_empty() {
        return Err(refuse("an empty path".into()));
    }
    match destination(path) {
        Ok(Destination::Stdout | Destination::InPlace(_)) => return Ok(()),
        Ok(Destination::Replace) => {}
        Err(kind) => {
            return Err(refuse(format!(
                "is {kind}; give a regular file, a new name, a FIFO or character device, or - for stdout"
            )))
        }
    }
    let dir = parent_of(path);
    match std::fs::metadata(&dir) {
        Err(_) => {
            return Err(refuse(format!(
                "directory {} does not exist",
                dir.display()
            )))
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(refuse(format!("{} is not a directory", dir.display())))
        }
        Ok(_) => {}
    }
    // The rename needs a file created beside the destination: try one.
    tempfile::NamedTempFile::new_in(&dir)
        .map(drop)
        .map_err(|e| refuse(format!("cannot be written: {e}")))
}

/// Write `bytes` to `path` by the rule above ([`destination`]): stdout for
/// `-`; into an existing FIFO or character device as it is; otherwise a
/// temporary file beside it, synced, then renamed over a regular file or a
/// new name, so a reader never sees half a file. The error (exit 3) names
/// the path.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write as _;
    let fail = |e: std::io::Error| Error::Io(format!("{}: cannot be written: {e}", path.display()));
    // Checked before the run too; again here, in case the path changed
    // meanwhile.
    match destination(path) {
        Ok(Destination::Stdout) => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(fail)
        }
        Ok(Destination::InPlace(_)) => write_in_place(path, bytes).map_err(fail),
        Ok(Destination::Replace) => {
            let mut file = tempfile::NamedTempFile::new_in(parent_of(path)).map_err(fail)?;
            file.write_all(bytes).map_err(fail)?;
            file.as_file().sync_all().map_err(fail)?;
            file.persist(path).map_err(|e| fail(e.error))?;
            Ok(())
        }
        Err(kind) => Err(Error::Io(format!(
            "{}: is {kind}; not replaced",
            path.display()
        ))),
    }
}

/// Write `bytes` to `path`, a file the tool names itself inside a
/// directory it writes (`kernels --out DIR`'s files, a dump's manifest),
/// only by the temporary-file-and-rename rule: nobody named a FIFO or
/// device there, so one found there is refused (exit 3), never opened.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    match destination(path) {
        Ok(Destination::Replace) => write_output(path, bytes),
        Ok(Destination::InPlace(kind)) | Err(kind) => Err(Error::Io(format!(
            "{}: is {kind}; not replaced",
            path.display()
        ))),
        Ok(Destination::Stdout) => Err(Error::Io("-: not a file name".into())),
    }
}

/// Open the FIFO or character device at `path` without creating or
/// truncating anything (a FIFO waits here for its reader, as `cmd > fifo`
/// does) and write `bytes` into it. What was opened is judged again: a
/// regular file put there since the check is left untouched.
fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut node = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path)?;
    if in_place(node.metadata()?.file_type()).is_none() {
        return Err(std::io::Error::other(
            "is no longer a FIFO or character device; not written",
        ));
    }
    node.write_all(bytes)?;
    node.flush()
}

/// Create `path`, which must not exist (a file inside a directory the tool
/// has just made): `O_EXCL` neither follows a symlink nor opens a node
/// someone placed there meanwhile.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// The bytes of `path`, a regular file of at most `cap` bytes. `label`
/// starts each refusal (`--kernel k.s`, or the path itself); errors are
/// usage errors (exit 2): the input is the user's.
pub fn read_input(label: &str, path: &Path, cap: u64) -> Result<Vec<u8>, Error> {
    read_capped(path, cap).map_err(|why| Error::Usage(format!("{label}: {why}")))
}

/// As [`read_input`], for a file inside the directory `root` (a dump): a
/// path that resolves outside `root` (through a symlink) is refused. The
/// error is the reason alone; the caller names the file.
pub fn read_input_in(root: &Path, path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let inside = match (std::fs::canonicalize(root), std::fs::canonicalize(path)) {
        (Ok(root), Ok(full)) => full.starts_with(root),
        // A missing file: the read below says so.
        _ => true,
    };
    if !inside {
        return Err(format!(
            "leads outside the dump {} (a symbolic link); a dump's files are its own",
            root.display()
        ));
    }
    read_capped(path, cap)
}

/// Open without blocking (so a FIFO is seen for what it is, not waited on),
/// judge the opened file's type and size, then read at most `cap + 1` bytes.
fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "cannot be read: missing file".to_string(),
            _ => format!("cannot be read: {e}"),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if let Some(kind) = describe(meta.file_type()) {
        return Err(format!("is {kind}; give a regular file"));
    }
    let too_large = |size: String| format!("{size}; files read here are limited to {cap} bytes");
    if meta.len() > cap {
        return Err(too_large(format!("{} bytes", meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(too_large(format!("more than {cap} bytes when read")));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        assert!(made.unwrap().success());
    }

    /// A private character node (`mknod`, which needs CAP_MKNOD), or `None`
    /// where the test process may not make one.
    pub(crate) fn mknod_char(path: &Path, major: u32, minor: u32) -> Option<()> {
        let made = std::process::Command::new("mknod")
            .arg(path)
            .args(["c", &major.to_string(), &minor.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        made.success().then_some(())
    }

    #[test]
    fn outputs_are_refused_unless_a_file_a_new_name_a_pipe_or_a_character_device() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("new"), &link).unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "old").unwrap();
        let to_file = dir.path().join("to_file");
        std::os::unix::fs::symlink(&file, &to_file).unwrap();
        for (path, kind) in [
            (&link, "a symbolic link"),
            (&to_file, "a symbolic link"),
            (&dir.path().to_path_buf(), "a directory"),
        ] {
            let e = check_output("--json", path).unwrap_err().to_string();
            assert!(e.contains(kind), "{e}");
            assert!(write_output(path, b"x").is_err());
        }
        // Nothing was created through the dangling symlink; the file behind
        // the other link is as it was.
        assert!(!dir.path().join("new").exists());
        assert_eq!(std::fs::read(&file).unwrap(), b"old");
        check_output("--json", &file).unwrap();
        write_output(&file, b"new").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let fresh = dir.path().join("fresh");
        check_output("--json", &fresh).unwrap();
        assert!(!fresh.exists(), "the check leaves nothing behind");
        let e = check_output("--json", &dir.path().join("no/such")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert_eq!(destination(Path::new("-")), Ok(Destination::Stdout));
        assert_eq!(destination(&fresh), Ok(Destination::Replace));
        check_output("--json", Path::new("-")).unwrap();
    }

    /// A FIFO, directly or through a symlink (as `/dev/stdout` is one to
    /// `/proc/self/fd/1`), is checked without waiting for a reader and
    /// written in place: the reader gets the bytes, the FIFO stays a FIFO.
    #[test]
    fn a_fifo_is_written_in_place_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        for path in [&fifo, &link] {
            // Returns at once: nothing is opened by the check.
            check_output("--json", path).unwrap();
            assert_eq!(destination(path), Ok(Destination::InPlace("a FIFO")));
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::read(fifo).unwrap())
            };
            write_output(path, b"{\"report\": 1}").unwrap();
            assert_eq!(reader.join().unwrap(), b"{\"report\": 1}");
            assert_eq!(not_regular(&fifo), Some("a FIFO"), "still the FIFO");
        }
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file left beside it");
    }

    /// A private `/dev/full` (char 1:7) takes the write in place and fails
    /// it: an I/O error (exit 3) naming the path, the node left a device.
    /// A private `/dev/null` (1:3) takes it. Skipped where `mknod` is not
    /// allowed, saying so.
    #[test]
    fn a_character_device_is_written_in_place_and_a_full_one_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let (full, null) = (dir.path().join("full"), dir.path().join("null"));
        if mknod_char(&full, 1, 7).is_none() || mknod_char(&null, 1, 3).is_none() {
            eprintln!("SKIPPED: mknod is not allowed here (needs CAP_MKNOD)");
            return;
        }
        check_output("--json", &full).unwrap();
        let e = write_output(&full, b"{}").unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::FAULT, "{e}");
        assert!(
            e.to_string().contains("full: cannot be written") && e.to_string().contains("space"),
            "{e}"
        );
        assert_eq!(not_regular(&full), Some("a device node"), "left alone");
        write_output(&null, b"{}").unwrap();
        assert_eq!(not_regular(&null), Some("a device node"));
    }

    #[test]
    fn inputs_are_regular_files_within_their_cap() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        // Returns at once: opened without blocking, then refused by type.
        let e = read_input("x", &fifo, 10).unwrap_err().to_string();
        assert!(e.contains("a FIFO"), "{e}");
        let big = dir.path().join("big");
        std::fs::write(&big, [0u8; 11]).unwrap();
        let e = read_input("x", &big, 10).unwrap_err().to_string();
        assert!(e.contains("11 bytes") && e.contains("limited to 10"), "{e}");
        assert_eq!(read_input("x", &big, 11).unwrap().len(), 11);
        let e = read_input("x", &dir.path().join("none"), 10).unwrap_err();
        assert!(e.to_string().contains("missing file"), "{e}");
    }

    #[test]
    fn a_symlink_leaving_its_dump_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret");
        std::fs::write(&secret, "s").unwrap();
        let dump = tempfile::tempdir().unwrap();
        let inner = dump.path().join("inner");
        std::fs::write(&inner, "i").unwrap();
        let out_link = dump.path().join("out");
        std::os::unix::fs::symlink(&secret, &out_link).unwrap();
        let in_link = dump.path().join("in");
        std::os::unix::fs::symlink(&inner, &in_link).unwrap();
        let e = read_input_in(dump.path(), &out_link, 10).unwrap_err();
        assert!(e.contains("outside the dump"), "{e}");
        assert_eq!(read_input_in(dump.path(), &in_link, 10).unwrap(), b"i");
    }
}
