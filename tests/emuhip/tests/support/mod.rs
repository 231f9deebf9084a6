//! Shared by tests/emuhip/tests/*.rs and the root tests/hip/emuhip_e2e.rs (via
//! `#[path]`): find or build the emulated HIP library for the HIP root this
//! test was built against, expose it under the real library's SONAME
//! (`libamdhip64.so.5`, `.6` or `.7`) in a directory, and run programs on it
//! with a hang guard.

#![allow(dead_code)] // each including test uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// A process that has not exited after this long is reported as hung (the
/// harness's watchdog and this library's hang knob are what is under test; a
/// test must fail, not wait forever).
pub const HANG_GUARD: Duration = Duration::from_secs(300);

/// The repository root, found from a manifest directory inside it.
pub fn repo_root(manifest_dir: &str) -> PathBuf {
    Path::new(manifest_dir)
        .ancestors()
        .find(|dir| dir.join("tests/emuhip/Cargo.toml").is_file())
        .unwrap_or_else(|| Path::new(manifest_dir))
        .to_path_buf()
}

/// `<target>/<profile>` of the running test executable (`.../deps/<test>-<hash>`).
fn profile_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| format!("cannot place target dir from {}", exe.display()))
}

fn newest_mtime(paths: &[PathBuf]) -> Option<SystemTime> {
    let mut newest: Option<SystemTime> = None;
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
            }
        } else if let Ok(m) = meta.modified() {
            newest = Some(newest.map_or(m, |n| n.max(m)));
        }
    }
    newest
}

/// Whether `library` is at least as new as every source it is built from.
fn is_fresh(root: &Path, library: &Path) -> bool {
    let Ok(built) = std::fs::metadata(library).and_then(|m| m.modified()) else {
        return false;
    };
    let sources: Vec<PathBuf> = [
        "src",
        "build.rs",
        "kernels",
        "Cargo.toml",
        "Cargo.lock",
        "tests/emuhip/src",
        "tests/emuhip/build.rs",
        "tests/emuhip/Cargo.toml",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    match newest_mtime(&sources) {
        Some(newest) => newest <= built,
        None => true,
    }
}

/// The HIP root this test executable was built against: both build scripts
/// (the harness's and the stand-in's) export it as `XAD_HIP_ROOT`, so the
/// binary under test, this test and the stand-in agree on one HIP.
pub fn hip_root() -> PathBuf {
    match option_env!("XAD_HIP_ROOT") {
        Some(root) if !root.is_empty() => PathBuf::from(root),
        _ => PathBuf::from(std::env::var_os("HIP_PATH").unwrap_or_else(|| "/usr".into())),
    }
}

/// The SONAME of the real runtime of `root`: `libamdhip64.so.<HIP_VERSION_MAJOR>`.
pub fn runtime_soname(root: &Path) -> Result<String, String> {
    let header = root.join("include/hip/hip_version.h");
    let text = std::fs::read_to_string(&header)
        .map_err(|e| format!("reading {}: {e}", header.display()))?;
    let major = text
        .lines()
        .find_map(|line| {
            line.trim()
                .strip_prefix("#define HIP_VERSION_MAJOR")?
                .trim()
                .parse::<u32>()
                .ok()
        })
        .ok_or_else(|| format!("{} defines no HIP_VERSION_MAJOR", header.display()))?;
    Ok(format!("libamdhip64.so.{major}"))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?)).ok()
}

/// DT_SONAME of a little-endian ELF64 shared library, from its section
/// table (SHT_DYNAMIC and the string table it links to).
pub fn elf_soname(bytes: &[u8]) -> Option<String> {
    if bytes.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    let (shoff, shentsize, shnum) = (
        u64_at(bytes, 0x28)?,
        usize::from(u16_at(bytes, 0x3A)?),
        usize::from(u16_at(bytes, 0x3C)?),
    );
    let section = |i: usize| -> Option<(u32, usize, usize, usize)> {
        let at = shoff.checked_add(i.checked_mul(shentsize)?)?;
        Some((
            u32_at(bytes, at + 4)?,
            u64_at(bytes, at + 0x18)?,
            u64_at(bytes, at + 0x20)?,
            u32_at(bytes, at + 0x28)? as usize,
        ))
    };
    let (_, dyn_offset, dyn_size, link) = (0..shnum).filter_map(section).find(|s| s.0 == 6)?;
    let (_, strtab, _, _) = section(link)?;
    let mut at = dyn_offset;
    while at + 16 <= dyn_offset.checked_add(dyn_size)? {
        if u64_at(bytes, at)? == 14 {
            let start = strtab.checked_add(u64_at(bytes, at + 8)?)?;
            let name = std::ffi::CStr::from_bytes_until_nul(bytes.get(start..)?).ok()?;
            return name.to_str().ok().map(String::from);
        }
        at += 16;
    }
    None
}

/// Whether the library at `path` carries the SONAME `want`.
fn has_soname(path: &Path, want: &str) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| elf_soname(&b))
        .is_some_and(|s| s == want)
}

/// The built `libxad_emuhip.so`: `target/<profile>/` when it is there and up
/// to date, else built now with `cargo build -p xad-emuhip` in a separate
/// target directory (`target/emuhip`), so this nested cargo never waits on the
/// build lock the outer `cargo test` holds.
fn library_file(root: &Path, soname: &str) -> Result<PathBuf, String> {
    let profile = profile_dir()?;
    let primary = profile.join("libxad_emuhip.so");
    if is_fresh(root, &primary) && has_soname(&primary, soname) {
        return Ok(primary);
    }
    let target = profile.parent().ok_or("target directory has no parent")?;
    let separate = target.join("emuhip");
    let release = profile.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(&cargo);
    build
        .current_dir(root)
        .args(["build", "-p", "xad-emuhip"])
        .env("CARGO_TARGET_DIR", &separate);
    if release {
        build.arg("--release");
    }
    // The stand-in must fit the HIP the binary under test was linked against.
    build.env("HIP_PATH", hip_root());
    let output = build
        .output()
        .map_err(|e| format!("running {cargo:?} build -p xad-emuhip: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build -p xad-emuhip (CARGO_TARGET_DIR={}) failed:\n{}",
            separate.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let built = separate
        .join(if release { "release" } else { "debug" })
        .join("libxad_emuhip.so");
    if !built.is_file() {
        return Err(format!(
            "cargo build -p xad-emuhip succeeded but {} is missing",
            built.display()
        ));
    }
    if !has_soname(&built, soname) {
        return Err(format!(
            "{} does not carry SONAME {soname} (HIP root {})",
            built.display(),
            hip_root().display()
        ));
    }
    Ok(built)
}

/// A directory holding `libamdhip64.so.<major>` -> the emulated library,
/// for `LD_LIBRARY_PATH`, with the major of the HIP root this test was built
/// against. Built once per test process.
/// The directory holding the emulated HIP library for the repository the including test crate
/// belongs to; panics with the reason when it can be neither found nor built.
pub fn library() -> PathBuf {
    let root = repo_root(env!("CARGO_MANIFEST_DIR"));
    library_dir(&root).unwrap_or_else(|e| panic!("emulated HIP library unavailable: {e}"))
}

pub fn library_dir(root: &Path) -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let soname = runtime_soname(&hip_root())?;
        let library = library_file(root, &soname)?;
        let target = profile_dir()?
            .parent()
            .ok_or("target directory has no parent")?
            .to_path_buf();
        let dir = target.join("emuhip-lib");
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // Symlink under a unique name, then rename over the old one: atomic, so
        // concurrently running test binaries never see a half-made link.
        let temp = dir.join(format!(".{soname}.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        std::os::unix::fs::symlink(&library, &temp)
            .map_err(|e| format!("symlink {}: {e}", temp.display()))?;
        std::fs::rename(&temp, dir.join(&soname))
            .map_err(|e| format!("rename into {}: {e}", dir.display()))?;
        Ok(dir)
    })
    .clone()
}

/// The directories this running process took glibc and libgcc from (read
/// from /proc/self/maps): libraries the system's loader can use.
///
/// Why: a harness built against a fetched ROCm 6/7 root (ci/fetch-hip.sh) has
/// a run path to that root's lib directory, which also holds a newer glibc
/// than the system's loader accepts. `LD_LIBRARY_PATH` is searched before a
/// run path, so naming these directories there (after the stand-in's) keeps
/// every library but the HIP runtime on the system's side.
pub fn process_lib_dirs() -> Vec<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for path in maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .map(Path::new)
    {
        let is_base = path
            .file_name()
            .is_some_and(|n| n == "libc.so.6" || n == "libgcc_s.so.1");
        if let (true, Some(dir)) = (is_base, path.parent()) {
            if !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_path_buf());
            }
        }
    }
    dirs
}

/// The loader and library directory of a HIP root that ships its own glibc
/// (a ROCm 6/7 root fetched by ci/fetch-hip.sh): its real runtime needs a
/// newer glibc than the system's, so it only runs under that root's loader.
/// None for a root that uses the system's glibc (Debian's /usr, /opt/rocm).
pub fn root_loader() -> Option<(PathBuf, PathBuf)> {
    let lib = hip_root().join("lib/x86_64-linux-gnu");
    // ci/fetch-hip.sh keeps unstable's C runtime beside the root (<v>/sysroot
    // next to <v>/root), out of the directory the binary's run path names.
    let sys = hip_root().join("../../sysroot/usr/lib/x86_64-linux-gnu");
    let loader = sys.join("ld-linux-x86-64.so.2");
    (hip_root() != Path::new("/usr") && loader.is_file()).then(|| {
        (
            loader,
            PathBuf::from(format!("{}:{}", sys.display(), lib.display())),
        )
    })
}

/// `command` run by `loader --library-path lib`, keeping its arguments,
/// environment changes and working directory.
fn via_loader(command: &Command, loader: &Path, lib: &Path) -> Command {
    let mut wrapped = Command::new(loader);
    wrapped
        .arg("--library-path")
        .arg(lib)
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}

/// The variables with which ROCm (and the stand-in) hide and renumber devices:
/// a test sets them itself, a runner's own must not leak in.
pub const VISIBILITY_VARIABLES: [&str; 3] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
];

/// Run `command` to completion with the emulated library first on the loader
/// path, the given knobs set and every other `XAD_EMUHIP_*` variable removed
/// (and the [`VISIBILITY_VARIABLES`], which only `knobs` may set).
/// With `library` = None it runs on the HIP root's real runtime: as it is for
/// a root on the system's glibc, under the root's own loader otherwise
/// ([`root_loader`]).
/// `run` with `args` added, panicking on its error, and a transcript for assertion messages:
/// `xad-harness <args> with <knobs>` and what the program printed.
pub fn run_transcribed(
    mut command: Command,
    args: &[&str],
    library: Option<&Path>,
    knobs: &[(&str, &str)],
) -> (Output, String) {
    command.args(args);
    let output = run(command, library, knobs).unwrap_or_else(|e| panic!("{e}"));
    let transcript = format!(
        "xad-harness {} with {knobs:?}\n{}",
        args.join(" "),
        transcript(&output)
    );
    (output, transcript)
}

pub fn run(
    mut command: Command,
    library: Option<&Path>,
    knobs: &[(&str, &str)],
) -> Result<Output, String> {
    if let (None, Some((loader, lib))) = (library, root_loader()) {
        command = via_loader(&command, &loader, &lib);
    }
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("XAD_EMUHIP_") {
            command.env_remove(&key);
        }
    }
    for variable in VISIBILITY_VARIABLES {
        command.env_remove(variable);
    }
    command.env_remove("LD_LIBRARY_PATH");
    if let Some(dir) = library {
        let path =
            std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(process_lib_dirs()))
                .map_err(|e| format!("LD_LIBRARY_PATH from {}: {e}", dir.display()))?;
        command.env("LD_LIBRARY_PATH", path);
    }
    for (key, value) in knobs {
        command.env(key, value);
    }
    let description = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawning {description}: {e}"))?;
    // Drain the pipes on threads so a chatty child cannot block on a full pipe.
    let mut stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let mut stderr = child.stderr.take().ok_or("no stderr pipe")?;
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        match child
            .try_wait()
            .map_err(|e| format!("waiting for {description}: {e}"))?
        {
            Some(status) => break status,
            None if started.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{description} did not exit within {HANG_GUARD:?}: hung"
                ));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Ok(Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    })
}

/// stdout and stderr together, for assertion messages.
pub fn transcript(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
