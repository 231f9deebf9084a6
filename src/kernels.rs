//! The code objects `build.rs` assembled from `kernels/<target>/<name>.s`, embedded
//! in the binary so the tool runs without a toolchain.

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

/// Where `build.rs` found the LLVM that assembled these (for tests and `--version`).
pub const BUILD_LLVM_ORIGIN: &str = env!("XAD_BUILD_LLVM_ORIGIN");
/// llvm-objdump of that toolchain, or empty when it had none.
pub const BUILD_OBJDUMP: &str = env!("XAD_BUILD_OBJDUMP");
