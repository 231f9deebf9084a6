//! The code objects `build.rs` assembled from `kernels/<target>/<name>.s`, embedded
//! in the binary so the tool runs without a toolchain.

use std::path::Path;

use crate::error::Error;

/// One embedded code object.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedCodeObject {
    /// The `-mcpu` it was assembled for (the directory under `kernels/`).
    pub target: &'static str,
    /// File stem of the source; also the name of the kernel inside.
    pub name: &'static str,
    /// Source path relative to the repository.
    pub source: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/embedded_kernels.rs"));

/// The embedded code object named `name`, if any.
pub fn find(name: &str) -> Option<&'static EmbeddedCodeObject> {
    EMBEDDED.iter().find(|k| k.name == name)
}

/// Write every embedded code object to `dir` (created if missing) as
/// `<name>.hsaco`, calling `written` after each file with its path.
pub fn write_all(dir: &Path, written: &mut dyn FnMut(&Path, &EmbeddedCodeObject)) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("creating {}: {e}", dir.display())))?;
    for k in EMBEDDED {
        let path = dir.join(format!("{}.hsaco", k.name));
        std::fs::write(&path, k.bytes).map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))?;
        written(&path, k);
    }
    Ok(())
}

/// Where `build.rs` found the LLVM that assembled these (for tests and `--version`).
pub const BUILD_LLVM_ORIGIN: &str = env!("XAD_BUILD_LLVM_ORIGIN");
/// llvm-objdump of that toolchain, or empty when it had none.
pub const BUILD_OBJDUMP: &str = env!("XAD_BUILD_OBJDUMP");
