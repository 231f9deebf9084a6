//! The LLVM toolchain at run time: `run --kernel file.s` assembles a user's
//! kernel with the same discovery and canary `build.rs` uses, in a private
//! scratch directory ([`scratch_dir`]). The discovery and proof themselves
//! live in the `xad-build` crate (`crates/xad-build/src/toolchain.rs`), which
//! the build script uses too; here are their re-exports and the wrappers for
//! the runtime this binary was built against.

use std::path::Path;

pub use xad_build::toolchain::{
    code_object_version_for, discover_for, frame_include, read_disassembly, stop_when,
    target_include_for, tool_timeout, write_target_include_for, Disassembly, Search, Toolchain,
    ToolchainError, INSTALL_HINT, LLVM_DIR_VAR, OUTPUT_CAP, TOOL_TIMEOUT, TOOL_TIMEOUT_VAR,
};

use crate::platform::code_object_policy::HipVersion;

/// The HIP runtime this binary was built against: the version in its HIP
/// root's `hip/hip_version.h`, which `build.rs` read and assembled the
/// embedded kernels for. `run --kernel` assembles a user's source for the
/// same runtime, so both load where the binary's `libamdhip64` does.
pub fn built_for_runtime() -> HipVersion {
    HipVersion::parse(env!("XAD_HIP_VERSION"))
        .expect("build.rs writes XAD_HIP_VERSION as major.minor.patch")
}

/// [`code_object_version_for`] the runtime this binary was built against.
pub fn code_object_version(mcpu: &str) -> u8 {
    code_object_version_for(mcpu, built_for_runtime())
}

/// [`target_include_for`] the runtime this binary was built against.
pub fn target_include(mcpu: &str) -> String {
    target_include_for(mcpu, built_for_runtime())
}

/// [`write_target_include_for`] the runtime this binary was built against.
pub fn write_target_include(
    dir: &Path,
    mcpu: &str,
    frame: Option<&str>,
) -> Result<(), ToolchainError> {
    write_target_include_for(dir, mcpu, built_for_runtime(), frame)
}

/// [`discover_for`] the runtime this binary was built against.
pub fn discover(mcpu: &str, scratch: &Path) -> Result<Toolchain, ToolchainError> {
    discover_for(mcpu, built_for_runtime(), scratch)
}

/// What the LLVM that proves for `mcpu` makes of `bytes` (an instruction's
/// start, with what follows it), and the disassembler's name for messages
/// (`llvm-mc-19`). `None` when no toolchain proves for `mcpu`, it has no
/// `llvm-mc`, the disassembler failed or timed out, or its output says
/// nothing usable: the caller then keeps what it knew without LLVM.
pub fn disassemble_bytes(mcpu: &str, bytes: &[u8]) -> Option<(Disassembly, String)> {
    let scratch = scratch_dir(&std::env::temp_dir()).ok()?;
    let tc = discover(mcpu, scratch.path()).ok()?;
    let read = tc.disassemble(mcpu, bytes, scratch.path()).ok()??;
    Some((read, tc.llvm_mc_name()))
}

/// Assemble and link `src` for `mcpu` into code object bytes, in a private
/// scratch directory under the system's temporary directory that is removed
/// afterwards. `.include` resolves against the source's directory, a
/// sibling `include/` (so a copy of `kernels/cases/x.s` edited in place
/// finds the frames in `kernels/include/`) and a generated
/// `xad_target.inc` and `xad_frame.inc` (the frame of `mcpu`'s generation,
/// from its target row) for `mcpu`, as `build.rs` arranges for the embedded
/// kernels.
///
/// A source whose `.amdgcn_target` names `mcpu` with target features
/// (`"amdgcn-amd-amdhsa--gfx90a:xnack+"`) is assembled with that full target
/// ID as `-mcpu` (clang accepts `-mcpu=gfx90a:xnack+`): the assembler refuses
/// a directive whose target ID differs from the one it was given.
pub fn assemble_file(src: &Path, mcpu: &str) -> Result<Vec<u8>, ToolchainError> {
    let text = std::fs::read(src).map_err(|e| ToolchainError::Spawn {
        command: format!("read {}", src.display()),
        error: e.to_string(),
    })?;
    let target_id = directive_target_id(&String::from_utf8_lossy(&text))
        .map(|id| {
            id.rsplit_once("--")
                .map_or(&*id, |(_, rest)| rest)
                .trim()
                .to_string()
        })
        .filter(|id| id.split(':').next() == Some(mcpu))
        .unwrap_or_else(|| mcpu.to_string());
    let scratch = scratch_dir(&std::env::temp_dir())?;
    let dir = scratch.path();
    let mut search = Search::new(mcpu, built_for_runtime(), dir);
    let first = search.next_proven()?;
    let out = dir.join("user.hsaco");
    // Absolute, so a bare `k.s` has a directory and clang gets no empty -I.
    let src = std::path::absolute(src).unwrap_or_else(|_| src.to_path_buf());
    let src_dir = src.parent().unwrap_or(Path::new("/")).to_path_buf();
    let sibling = src_dir.join("../include");
    let generated = dir.join("target");
    // A processor without a row of its own takes its generation from the
    // generic target covering it; with neither, a source that includes
    // xad_frame.inc gets the assembler's "file not found".
    let frame = crate::platform::target::for_processor(mcpu)
        .or_else(|| crate::platform::target::find(mcpu))
        .map(|t| t.frame());
    write_target_include(&generated, mcpu, frame)?;
    let build = |tc: &Toolchain| {
        tc.build_code_object(&target_id, &src, &out, &[&src_dir, &sibling, &generated])
    };
    with_fallback(&mut search, &first, build)?;
    std::fs::read(&out).map_err(|e| ToolchainError::Spawn {
        command: format!("read {}", out.display()),
        error: e.to_string(),
    })
    // `scratch` is removed here, on every path.
}

/// Run `build` with `first`; when the source fails there, with each next
/// candidate of `search` that proves for the target, until one builds it. A
/// source the first toolchain refuses may be another LLVM's output (LLVM 22
/// writes directives LLVM 19 does not know). When every one fails, the
/// first failure is reported, naming the others tried and why each failed.
fn with_fallback(
    search: &mut Search,
    first: &Toolchain,
    build: impl Fn(&Toolchain) -> Result<(), ToolchainError>,
) -> Result<(), ToolchainError> {
    let Err(mut failed) = build(first) else {
        return Ok(());
    };
    let mut also = Vec::new();
    while let ToolchainError::Failed { also_tried, .. } = &mut failed {
        let next = match search.next_proven() {
            Ok(next) => next,
            Err(e @ ToolchainError::Interrupted { .. }) => return Err(e),
            Err(_) => {
                *also_tried = also;
                break;
            }
        };
        match build(&next) {
            Ok(()) => return Ok(()),
            Err(e @ ToolchainError::Interrupted { .. }) => return Err(e),
            Err(e) => also.push(format!("{} ({})", next.origin, first_line(&e))),
        }
    }
    Err(failed)
}

/// The first line of what a failed tool said (its first error), for the
/// list of toolchains also tried.
fn first_line(e: &ToolchainError) -> String {
    match e {
        ToolchainError::Failed { stderr, status, .. } => stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map_or_else(|| format!("failed ({status})"), str::to_string),
        other => other.to_string(),
    }
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

/// The target ID of the first `.amdgcn_target "..."` directive in assembly
/// `source` (the quoted text, e.g. `amdgcn-amd-amdhsa--gfx90a:xnack+`), or
/// `None`. Comments are not directives: text after `;` or `//` on a line and
/// inside `/* ... */` (which may span lines) is skipped, as LLVM's AMDGPU
/// assembler lexes them (`;` is the target's comment string, `//` and
/// `/* */` are the lexer's own).
pub fn directive_target_id(source: &str) -> Option<String> {
    let mut in_block = false;
    for line in source.lines() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_block {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_block = false;
                    }
                    None => break,
                }
            }
            // The first comment opener outside a string ends the code here.
            let mut quoted = false;
            let cut = rest.char_indices().find_map(|(i, c)| {
                if c == '"' {
                    quoted = !quoted;
                }
                let tail = &rest[i..];
                let opens =
                    !quoted && (c == ';' || tail.starts_with("//") || tail.starts_with("/*"));
                opens.then_some(i)
            });
            match cut {
                Some(i) => {
                    code.push_str(&rest[..i]);
                    if rest[i..].starts_with("/*") {
                        in_block = true;
                        code.push(' ');
                        rest = &rest[i + 2..];
                    } else {
                        break;
                    }
                }
                None => {
                    code.push_str(rest);
                    break;
                }
            }
        }
        let code = code.trim();
        if let Some(args) = code.strip_prefix(".amdgcn_target") {
            if args.starts_with(|c: char| c.is_whitespace() || c == '"') {
                return args.split('"').nth(1).map(str::to_string);
            }
        }
    }
    None
}

#[cfg(test)]
mod directive_tests {
    use super::directive_target_id;

    #[test]
    fn commented_out_directives_are_not_read() {
        let id = "amdgcn-amd-amdhsa--gfx90a:xnack+";
        assert_eq!(
            directive_target_id(&format!(".amdgcn_target \"{id}\"")),
            Some(id.to_string())
        );
        assert_eq!(
            directive_target_id(&format!("  .amdgcn_target \"{id}\" ; the target\n")),
            Some(id.to_string())
        );
        for commented in [
            format!("; .amdgcn_target \"{id}\""),
            format!("// .amdgcn_target \"{id}\""),
            format!("s_nop 0 // .amdgcn_target \"{id}\""),
            format!("/* .amdgcn_target \"{id}\" */"),
            format!("/*\n.amdgcn_target \"{id}\"\n*/"),
            format!(".amdgcn_targetx \"{id}\""),
        ] {
            assert_eq!(directive_target_id(&commented), None, "{commented}");
        }
        // The directive after a closed block comment on the same line is read.
        assert_eq!(
            directive_target_id(&format!("/* gfx1100 */ .amdgcn_target \"{id}\"")),
            Some(id.to_string())
        );
        assert_eq!(
            directive_target_id(&format!(
                "// .amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.amdgcn_target \"{id}\""
            )),
            Some(id.to_string())
        );
    }
}

#[cfg(test)]
mod disassembly_tests {
    use super::{read_disassembly, Disassembly};

    const SIN: [u8; 8] = [0x04, 0x6b, 0x0c, 0x7e, 0x00, 0x00, 0x80, 0xbf];

    #[test]
    fn the_first_instruction_at_the_first_byte_is_the_one() {
        let out = "\t.text\n\tv_sin_f32_e32 v6, v4                    ; encoding: [0x04,0x6b,0x0c,0x7e]\n\ts_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]\n";
        assert_eq!(
            read_disassembly(out, "", &SIN),
            Some(Disassembly::Instruction {
                text: "v_sin_f32_e32 v6, v4".into(),
                len: 4
            })
        );
        // Comment lines before it (another LLVM's banner or a guess) are skipped.
        let commented = format!("; some note\n# another\n// and one more\n{out}");
        assert!(matches!(
            read_disassembly(&commented, "", &SIN),
            Some(Disassembly::Instruction { len: 4, .. })
        ));
    }

    #[test]
    fn skipped_first_bytes_unknown_and_warnings_are_no_instruction() {
        let bytes = [0xff, 0xff, 0xff, 0xff, 0x04, 0x6b, 0x0c, 0x7e];
        let later = "\t.text\n\tv_sin_f32_e32 v6, v4 ; encoding: [0x04,0x6b,0x0c,0x7e]\n";
        let warned = "b.txt:1:1: warning: invalid instruction encoding\n0xff,0xff\n^\n";
        assert_eq!(
            read_disassembly(later, warned, &bytes),
            Some(Disassembly::NotAnInstruction)
        );
        assert_eq!(
            read_disassembly("\t.text\n", warned, &bytes),
            Some(Disassembly::NotAnInstruction)
        );
        assert_eq!(
            read_disassembly(
                "\t<unknown> ; encoding: [0xff,0xff,0xff,0xff]\n",
                "",
                &bytes
            ),
            Some(Disassembly::NotAnInstruction)
        );
    }

    #[test]
    fn output_that_says_neither_is_nothing() {
        assert_eq!(read_disassembly("", "", &SIN), None);
        assert_eq!(read_disassembly("\t.text\n", "", &SIN), None);
        // An instruction with no encoding, or another one's, without a warning.
        assert_eq!(read_disassembly("\tv_sin_f32_e32 v6, v4\n", "", &SIN), None);
        assert_eq!(
            read_disassembly("\ts_nop 0 ; encoding: [0x00,0x00,0x80,0xbf]\n", "", &SIN),
            None
        );
    }
}
