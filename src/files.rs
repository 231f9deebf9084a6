//! The one rule for every file the tool writes and every file it reads.
//!
//! Writing (reports, merged reports, soak and microbench JSON, dump files):
//! the bytes go to a private temporary file in the destination's directory,
//! which is then renamed over the destination. A rename replaces the *node*
//! at the path, so it is allowed only over a regular file or a new name: a
//! device node, FIFO, directory or symlink there is refused before anything
//! runs ([`check_output`], exit 2) and again at write time
//! ([`write_output`]), because as root a rename over `/dev/full` replaces
//! the system's device with a file.
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

/// Can `path` take a file written by [`write_output`]? It must be a regular
/// file or a new name in an existing directory the tool can create files in.
/// Nothing is left behind. `option` names the flag in the message.
pub fn check_output(option: &str, path: &Path) -> Result<(), Error> {
    let refuse = |why: String| Error::Usage(format!("{option} {}: {why}", path.display()));
    if path.as_os_str().is_empty() {
        return Err(refuse("an empty path".into()));
    }
    if let Some(kind) = not_regular(path) {
        return Err(refuse(format!(
            "is {kind}; the tool writes a new file and renames it into place, so give a regular file or a new name"
        )));
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

/// Write `bytes` to `path` by the rule above: a temporary file beside it,
/// synced, then renamed over a regular file or a new name. A reader never
/// sees half a file. The error (exit 3) names the path.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write as _;
    let fail = |e: std::io::Error| Error::Io(format!("{}: cannot be written: {e}", path.display()));
    // Checked before the run too; again here, in case the path changed
    // meanwhile.
    if let Some(kind) = not_regular(path) {
        return Err(Error::Io(format!(
            "{}: is {kind}; not replaced",
            path.display()
        )));
    }
    let mut file = tempfile::NamedTempFile::new_in(parent_of(path)).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.as_file().sync_all().map_err(fail)?;
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
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

    #[test]
    fn outputs_are_refused_unless_a_regular_file_or_a_new_name() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("new"), &link).unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "old").unwrap();
        for (path, kind) in [
            (&fifo, "a FIFO"),
            (&link, "a symbolic link"),
            (&dir.path().to_path_buf(), "a directory"),
        ] {
            let e = check_output("--json", path).unwrap_err().to_string();
            assert!(e.contains(kind), "{e}");
            assert!(write_output(path, b"x").is_err());
        }
        // Nothing was created through the dangling symlink, the FIFO is still one.
        assert!(!dir.path().join("new").exists());
        assert_eq!(not_regular(&fifo), Some("a FIFO"));
        check_output("--json", &file).unwrap();
        write_output(&file, b"new").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let fresh = dir.path().join("fresh");
        check_output("--json", &fresh).unwrap();
        assert!(!fresh.exists(), "the check leaves nothing behind");
        let e = check_output("--json", &dir.path().join("no/such")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
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
