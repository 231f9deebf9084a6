//! The LLVM toolchain at run time: `run --kernel file.s` assembles a user's
//! kernel with the same discovery and canary `build.rs` uses.

mod discover;

pub use discover::{discover, Toolchain, ToolchainError, INSTALL_HINT, LLVM_DIR_VAR};

/// Assemble and link `src` for `mcpu` into code object bytes, using a private
/// temporary directory. `.include` resolves against the source's directory and
/// a sibling `include/` (so a copy of `kernels/gfx1100/x.s` edited in place
/// finds `kernels/include/xad_abi.inc`), as `build.rs` arranges for the
/// embedded kernels.
pub fn assemble_file(src: &std::path::Path, mcpu: &str) -> Result<Vec<u8>, ToolchainError> {
    let scratch = std::env::temp_dir().join(format!("xad-harness-{}", std::process::id()));
    let result = (|| {
        let tc = discover(mcpu, &scratch)?;
        let out = scratch.join("user.hsaco");
        // Absolute, so a bare `k.s` has a directory and clang gets no empty -I.
        let src = std::path::absolute(src).unwrap_or_else(|_| src.to_path_buf());
        let dir = src.parent().unwrap_or(std::path::Path::new("/")).to_path_buf();
        let sibling = dir.join("../include");
        tc.build_code_object(mcpu, &src, &out, &[&dir, &sibling])?;
        std::fs::read(&out).map_err(|e| ToolchainError::Spawn { command: format!("read {}", out.display()), error: e.to_string() })
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}
