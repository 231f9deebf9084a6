//! The LLVM toolchain at run time: `run --kernel file.s` assembles a user's
//! kernel with the same discovery and canary `build.rs` uses, in a private
//! scratch directory ([`scratch_dir`]).

mod discover;

use std::path::Path;

pub use discover::{
    code_object_version, discover, elf_abi_version, target_include, tool_timeout,
    write_target_include, Toolchain, ToolchainError, CODE_OBJECT_VERSION, ELF_ABI_VERSION,
    GENERIC_CODE_OBJECT_VERSION, INSTALL_HINT, LLVM_DIR_VAR, OUTPUT_CAP, TOOL_TIMEOUT,
    TOOL_TIMEOUT_VAR,
};

/// Assemble and link `src` for `mcpu` into code object bytes, in a private
/// scratch directory under the system's temporary directory that is removed
/// afterwards. `.include` resolves against the source's directory, a
/// sibling `include/` (so a copy of `kernels/gfx11/x.s` edited in place
/// finds `kernels/include/xad_frame_gfx11.inc`) and a generated
/// `xad_target.inc` for `mcpu`, as `build.rs` arranges for the embedded kernels.
pub fn assemble_file(src: &Path, mcpu: &str) -> Result<Vec<u8>, ToolchainError> {
    let scratch = scratch_dir(&std::env::temp_dir())?;
    let dir = scratch.path();
    let tc = discover(mcpu, dir)?;
    let out = dir.join("user.hsaco");
    // Absolute, so a bare `k.s` has a directory and clang gets no empty -I.
    let src = std::path::absolute(src).unwrap_or_else(|_| src.to_path_buf());
    let src_dir = src.parent().unwrap_or(Path::new("/")).to_path_buf();
    let sibling = src_dir.join("../include");
    let generated = dir.join("target");
    write_target_include(&generated, mcpu)?;
    tc.build_code_object(mcpu, &src, &out, &[&src_dir, &sibling, &generated])?;
    std::fs::read(&out).map_err(|e| ToolchainError::Spawn {
        command: format!("read {}", out.display()),
        error: e.to_string(),
    })
    // `scratch` is removed here, on every path.
}

/// A private scratch directory in `parent`: an unpredictable name, mode 0700,
/// made by one `mkdir` that fails (and is retried with another name) if
/// anything already has that name, so a symlink someone placed in a shared
/// `/tmp` is never followed. Removed when the returned guard drops.
///
/// A `parent` that is missing, not a directory or not writable is reported as
/// exactly that ([`ToolchainError::Scratch`]), not as a missing toolchain.
pub fn scratch_dir(parent: &Path) -> Result<tempfile::TempDir, ToolchainError> {
    use std::os::unix::fs::PermissionsExt;
    let from_env = std::env::var_os("TMPDIR").is_some_and(|t| Path::new(&t) == parent);
    let dir = if from_env {
        format!("TMPDIR={}", parent.display())
    } else {
        parent.display().to_string()
    };
    let scratch = |why: String| ToolchainError::Scratch {
        dir: dir.clone(),
        why,
    };
    match std::fs::metadata(parent) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(scratch("it does not exist".into()))
        }
        Err(e) => return Err(scratch(e.to_string())),
        Ok(meta) if !meta.is_dir() => return Err(scratch("it is not a directory".into())),
        Ok(_) => {}
    }
    tempfile::Builder::new()
        .prefix("xad-harness-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(parent)
        .map_err(|e| {
            scratch(format!(
                "cannot create a private directory in it: {}",
                e.kind()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn scratch_is_private_fresh_and_removed() {
        let parent = tempfile::tempdir().unwrap();
        let victim = parent.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        // The name the harness used before: `xad-harness-<pid>`, predictable,
        // here pre-placed as a symlink to a directory an attacker wants written.
        std::os::unix::fs::symlink(
            &victim,
            parent
                .path()
                .join(format!("xad-harness-{}", std::process::id())),
        )
        .unwrap();
        let made = scratch_dir(parent.path()).unwrap();
        let path = made.path().to_path_buf();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(
            meta.is_dir() && !meta.file_type().is_symlink(),
            "{} is a real directory",
            path.display()
        );
        assert_eq!(
            meta.permissions().mode() & 0o777,
            0o700,
            "private to its owner"
        );
        assert_eq!(meta.uid(), std::fs::metadata(parent.path()).unwrap().uid());
        assert_eq!(path.parent(), Some(parent.path()));
        std::fs::write(path.join("user.hsaco"), b"x").unwrap();
        assert_eq!(
            std::fs::read_dir(&victim).unwrap().count(),
            0,
            "nothing went through the symlink"
        );
        drop(made);
        assert!(!path.exists(), "removed after use");
        let second = scratch_dir(parent.path()).unwrap();
        assert_ne!(second.path(), path, "names are not reused");
    }

    #[test]
    fn an_unusable_parent_is_named_not_blamed_on_the_toolchain() {
        let parent = tempfile::tempdir().unwrap();
        let missing = parent.path().join("gone");
        let e = scratch_dir(&missing).unwrap_err().to_string();
        assert!(e.contains("gone is unusable: it does not exist"), "{e}");
        let file = parent.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let e = scratch_dir(&file).unwrap_err().to_string();
        assert!(e.contains("file is unusable: it is not a directory"), "{e}");
        assert!(!e.contains("LLVM"), "{e}");
    }
}
