//! The code objects `build.rs` assembled from `kernels/cases/<name>.s` for each
//! target of [`crate::platform::target::TARGETS`] that has the stub's needs, embedded in the binary so the tool runs
//! without a toolchain.

use std::path::Path;

use crate::error::Error;
use crate::platform::target::Target;

/// One embedded code object.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedCodeObject {
    /// The `-mcpu` it was assembled for (a [`crate::platform::target::Target`] name).
    pub target: &'static str,
    /// File stem of the source; also the name of the kernel inside.
    pub name: &'static str,
    /// Source path relative to the repository.
    pub source: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/embedded_kernels.rs"));

/// Why this binary has no code object of a kernel for a target: the one
/// answer to "which code object, or why not" ([`code_object`]) that `run`,
/// `soak`, `microbench` and the HIP probe all ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotBuilt {
    pub target: &'static str,
    pub kernel: &'static str,
    /// What `build.rs` said when it built nothing for the target (no LLVM it
    /// found knows it); `None` when the target was built but this kernel was
    /// not (its stub needs what the target lacks).
    pub why: Option<&'static str>,
}

impl NotBuilt {
    /// As the toolchain error a run of only unbuilt targets ends with (exit 3).
    pub fn into_toolchain_error(self) -> crate::platform::toolchain::ToolchainError {
        crate::platform::toolchain::ToolchainError::NotBuilt {
            target: self.target.to_string(),
            why: self
                .why
                .unwrap_or("its stub was not assembled for it")
                .to_string(),
        }
    }
}

impl std::fmt::Display for NotBuilt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.why {
            Some(_) => write!(f, "{}", self.into_toolchain_error()),
            None => write!(
                f,
                "this xad-harness has no code object {} for {}: its stub needs what {} lacks",
                self.kernel, self.target, self.target
            ),
        }
    }
}

/// Whether `build.rs` built `target`'s code objects, or why not.
pub fn built(target: &Target) -> Result<(), NotBuilt> {
    match unbuilt(target.name) {
        None => Ok(()),
        Some(why) => Err(NotBuilt {
            target: target.name,
            kernel: "",
            why: Some(why),
        }),
    }
}

/// The embedded code object of `kernel` built for `target`, or why there is
/// none: every command resolves its code objects here.
pub fn code_object(
    target: &Target,
    kernel: &'static str,
) -> Result<&'static EmbeddedCodeObject, NotBuilt> {
    built(target).map_err(|e| NotBuilt { kernel, ..e })?;
    find(target.name, kernel).ok_or(NotBuilt {
        target: target.name,
        kernel,
        why: None,
    })
}

/// The target a device of gcnArchName `arch` runs (feature suffixes such as
/// `:sramecc-:xnack-` do not matter to our kernels, which use neither): its
/// processor's row, or, when this build has no code objects for that row, a
/// built generic target covering the device (gfx1153 built without LLVM 22).
/// Asked of what this build embeds, so it is here and not in the HIP room.
pub fn target_of(arch: &str) -> Option<&'static Target> {
    crate::platform::codeobj::TargetId::parse(arch)?;
    crate::platform::target::for_processor_where(crate::platform::target::processor_of(arch), |t| {
        built(t).is_ok()
    })
}

/// The embedded code object named `name` built for `target`, if any.
pub fn find(target: &str, name: &str) -> Option<&'static EmbeddedCodeObject> {
    EMBEDDED
        .iter()
        .find(|k| k.target == target && k.name == name)
}

/// Why `build.rs` built nothing for `target` (no LLVM it found knows the
/// target: gfx950 and gfx9-4-generic need LLVM 22), or `None` when it did.
pub fn unbuilt(target: &str) -> Option<&'static str> {
    UNBUILT
        .iter()
        .find(|(t, _)| *t == target)
        .map(|&(_, why)| why)
}

/// The llvm-objdump of the LLVM that built `target`'s code objects (`None`
/// when that LLVM had none, or the target was not built). Targets may be
/// built by different LLVMs: only LLVM 22 knows gfx950.
pub fn objdump_for(target: &str) -> Option<&'static str> {
    BUILT_WITH
        .iter()
        .find(|(t, _, _)| *t == target)
        .map(|&(_, _, objdump)| objdump)
        .filter(|o| !o.is_empty())
}

/// The code objects built for `target`.
pub fn for_target(target: &str) -> impl Iterator<Item = &'static EmbeddedCodeObject> + '_ {
    EMBEDDED.iter().filter(move |k| k.target == target)
}

/// Write every embedded code object to `dir` (created if missing) as
/// `<target>/<name>.hsaco`, calling `written` after each file with its path.
pub fn write_all(
    dir: &Path,
    written: &mut dyn FnMut(&Path, &EmbeddedCodeObject),
) -> Result<(), Error> {
    for k in EMBEDDED {
        let sub = dir.join(k.target);
        std::fs::create_dir_all(&sub)
            .map_err(|e| Error::Io(format!("creating {}: {e}", sub.display())))?;
        let path = sub.join(format!("{}.hsaco", k.name));
        crate::platform::files::write_replacing(&path, k.bytes)?;
        written(&path, k);
    }
    Ok(())
}

/// Where `build.rs` found the LLVM that assembled these (for tests and `--version`).
pub const BUILD_LLVM_ORIGIN: &str = env!("XAD_BUILD_LLVM_ORIGIN");
/// llvm-objdump of that toolchain, or empty when it had none.
pub const BUILD_OBJDUMP: &str = env!("XAD_BUILD_OBJDUMP");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::target::{find as target, TARGETS};

    /// A built target's kernel is its code object; a kernel whose stub needs
    /// what the target lacks is `NotBuilt` without a build reason, and says
    /// which kernel and target.
    #[test]
    fn a_code_object_or_why_not() {
        let gfx1100 = target("gfx1100").unwrap();
        let basic = code_object(gfx1100, "xad_basic").expect("built");
        assert_eq!((basic.target, basic.name), ("gfx1100", "xad_basic"));
        let e = code_object(gfx1100, "xad_soak_w64").unwrap_err();
        assert_eq!(e.why, None);
        let text = e.to_string();
        assert!(
            text.contains("xad_soak_w64") && text.contains("gfx1100"),
            "{text}"
        );
    }

    /// A target build.rs left out says so in the toolchain's own words, for
    /// any kernel asked of it.
    #[test]
    fn an_unbuilt_target_says_why_in_the_toolchains_words() {
        for t in TARGETS {
            match (built(t), unbuilt(t.name)) {
                (Ok(()), None) => {}
                (Err(e), Some(why)) => {
                    let asked = code_object(t, "xad_basic").unwrap_err();
                    assert_eq!(asked.why, Some(why));
                    assert_eq!(
                        asked.to_string(),
                        e.into_toolchain_error().to_string(),
                        "{}",
                        t.name
                    );
                }
                (built, unbuilt) => panic!("{}: {built:?} but {unbuilt:?}", t.name),
            }
        }
    }
}
