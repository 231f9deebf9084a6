//! Shared by tests/emuhip/tests/*.rs and the root tests/emuhip_e2e.rs (via
//! `#[path]`): find or build the emulated HIP library, expose it as
//! `libamdhip64.so.5` in a directory, and run programs on it with a hang guard.

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
        let Ok(meta) = std::fs::metadata(&path) else { continue };
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
    let Ok(built) = std::fs::metadata(library).and_then(|m| m.modified()) else { return false };
    let sources: Vec<PathBuf> = ["src", "build.rs", "kernels", "Cargo.toml", "Cargo.lock", "tests/emuhip/src", "tests/emuhip/build.rs", "tests/emuhip/libamdhip64.map", "tests/emuhip/Cargo.toml"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    match newest_mtime(&sources) {
        Some(newest) => newest <= built,
        None => true,
    }
}

/// The built `libxad_emuhip.so`: `target/<profile>/` when it is there and up
/// to date, else built now with `cargo build -p xad-emuhip` in a separate
/// target directory (`target/emuhip`), so this nested cargo never waits on the
/// build lock the outer `cargo test` holds.
fn library_file(root: &Path) -> Result<PathBuf, String> {
    let profile = profile_dir()?;
    let primary = profile.join("libxad_emuhip.so");
    if is_fresh(root, &primary) {
        return Ok(primary);
    }
    let target = profile.parent().ok_or("target directory has no parent")?;
    let separate = target.join("emuhip");
    let release = profile.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(&cargo);
    build.current_dir(root).args(["build", "-p", "xad-emuhip"]).env("CARGO_TARGET_DIR", &separate);
    if release {
        build.arg("--release");
    }
    if std::env::var_os("HIP_PATH").is_none() {
        build.env("HIP_PATH", "/usr");
    }
    let output = build.output().map_err(|e| format!("running {cargo:?} build -p xad-emuhip: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build -p xad-emuhip (CARGO_TARGET_DIR={}) failed:\n{}",
            separate.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let built = separate.join(if release { "release" } else { "debug" }).join("libxad_emuhip.so");
    if built.is_file() {
        Ok(built)
    } else {
        Err(format!("cargo build -p xad-emuhip succeeded but {} is missing", built.display()))
    }
}

/// A directory holding `libamdhip64.so.5` -> the emulated library, for
/// `LD_LIBRARY_PATH`. Built once per test process.
pub fn library_dir(root: &Path) -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let library = library_file(root)?;
        let target = profile_dir()?.parent().ok_or("target directory has no parent")?.to_path_buf();
        let dir = target.join("emuhip-lib");
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // Symlink under a unique name, then rename over the old one: atomic, so
        // concurrently running test binaries never see a half-made link.
        let temp = dir.join(format!(".libamdhip64.so.5.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        std::os::unix::fs::symlink(&library, &temp).map_err(|e| format!("symlink {}: {e}", temp.display()))?;
        std::fs::rename(&temp, dir.join("libamdhip64.so.5")).map_err(|e| format!("rename into {}: {e}", dir.display()))?;
        Ok(dir)
    })
    .clone()
}

/// Run `command` to completion with the emulated library first on the loader
/// path (or, with `library` = None, against whatever the system provides),
/// the given knobs set and every other `XAD_EMUHIP_*` variable removed.
pub fn run(mut command: Command, library: Option<&Path>, knobs: &[(&str, &str)]) -> Result<Output, String> {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("XAD_EMUHIP_") {
            command.env_remove(&key);
        }
    }
    command.env_remove("LD_LIBRARY_PATH");
    if let Some(dir) = library {
        command.env("LD_LIBRARY_PATH", dir);
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
        match child.try_wait().map_err(|e| format!("waiting for {description}: {e}"))? {
            Some(status) => break status,
            None if started.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{description} did not exit within {HANG_GUARD:?}: hung"));
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
