//! Find an LLVM that really assembles AMDGPU code for a target, prove it with a
//! canary, and assemble + link kernels with it.
//!
//! Both the build script (the embedded kernels) and the library (`run --kernel
//! file.s`, through `xad_harness::platform::toolchain`) use this module, so the
//! build and the running tool apply the same search order and the same proof.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::code_object_policy::{self, HipVersion};

/// Environment variable naming a directory that holds `clang` and `ld.lld`.
pub const LLVM_DIR_VAR: &str = "XAD_LLVM_DIR";

/// Versions of Debian/Ubuntu's versioned LLVM packages we try. 16 is the
/// first release whose gfx11 encodings match the hardware for everything our
/// kernels use. 19 comes first because CI proves every kernel, encoding and
/// disassembly test with it (Debian 12 offers 16, 19 and 22); then the newer
/// ones, then the older ones. Each must still pass the canary.
const VERSIONS: [u32; 7] = [19, 22, 21, 20, 18, 17, 16];

/// The code object version `mcpu` (a target row's name, or a target ID
/// `gfx90a:xnack+`) is assembled as for HIP `runtime`: its row's
/// [`crate::target::Target::code_object_version`]. Passed to clang
/// explicitly because each LLVM defaults to its own (16: v4, 19: v5, 22: v6)
/// and the ELF header's ABI version follows the default, not the metadata.
/// A processor with no row gets what a row the runtime does not know gets.
pub fn code_object_version_for(mcpu: &str, runtime: HipVersion) -> u8 {
    let processor = mcpu.split(':').next().unwrap_or(mcpu);
    match crate::target::find(processor) {
        Some(t) => t.code_object_version(runtime),
        None => code_object_policy::choose(processor.ends_with("-generic"), None, runtime),
    }
}

/// What to install when nothing fits; shown in the error.
pub const INSTALL_HINT: &str = "install LLVM 16-22 with AMDGPU support \
(Debian 12: apt-get install clang-19 lld-19 llvm-19, and clang-22 lld-22 llvm-22 for \
gfx950 and gfx9-4-generic), use ROCm's /opt/rocm/llvm, \
or set XAD_LLVM_DIR to a directory holding clang and ld.lld";

/// A clang + ld.lld pair proven to emit gfx11 machine code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub lld: PathBuf,
    /// llvm-objdump beside clang, when there is one (tests and users disassemble with it).
    pub objdump: Option<PathBuf>,
    /// Where this pair came from, for messages (`XAD_LLVM_DIR`, `PATH clang-19`, ...).
    pub origin: String,
    /// The HIP runtime the code objects are for: it decides
    /// `-mcode-object-version` ([`code_object_version_for`]).
    pub runtime: HipVersion,
}

/// One place we looked.
#[derive(Debug, Clone)]
struct Candidate {
    clang: PathBuf,
    lld: PathBuf,
    objdump: PathBuf,
    origin: String,
}

#[derive(Debug)]
pub enum ToolchainError {
    /// No candidate exists or none passed the canary. `tried` lists each place
    /// with why it was rejected.
    NotFound { target: String, tried: Vec<String> },
    /// This binary was built without code objects for `target`: build.rs
    /// found no toolchain that knows it (`why` is what it said).
    NotBuilt { target: String, why: String },
    /// A tool ran and failed on the user's (or our) source.
    Failed {
        command: String,
        status: String,
        stderr: String,
        /// Other toolchains that were tried on the same source after this
        /// one failed, each `origin (its first error)` (`run --kernel`).
        also_tried: Vec<String>,
    },
    /// A tool could not be started at all.
    Spawn { command: String, error: String },
    /// A tool ran past its time limit ([`tool_timeout`]) and was killed.
    TimedOut { command: String, limit: Duration },
    /// The private scratch directory could not be made: `dir` names the
    /// temporary directory (`TMPDIR=...` when set) and `why` what is wrong with it.
    Scratch { dir: String, why: String },
    /// A signal asked the process to stop ([`stop_when`]) while a tool ran
    /// (`what`: the command, or the canary of a candidate): it was stopped
    /// (or died of the same Ctrl-C), which says nothing about the source or
    /// the toolchain.
    Interrupted { signal: String, what: String },
}

impl fmt::Display for ToolchainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolchainError::NotFound { target, tried } => {
                write!(f, "no LLVM toolchain that assembles {target} was found; tried: ")?;
                if tried.is_empty() {
                    write!(f, "(nothing)")?;
                }
                write!(f, "{}; {INSTALL_HINT}", tried.join("; "))
            }
            ToolchainError::NotBuilt { target, why } => write!(
                f,
                "this xad-harness was built without code objects for {target}: {why}; install an LLVM that \
                 knows it (gfx950 and gfx9-4-generic: clang-22 lld-22 llvm-22, or set {LLVM_DIR_VAR}) and rebuild"
            ),
            ToolchainError::Failed {
                command,
                status,
                stderr,
                also_tried,
            } => {
                let stderr = stderr.trim();
                write!(f, "`{command}` failed ({status})")?;
                if !stderr.is_empty() {
                    write!(f, ": {}", stderr.replace('\n', " | "))?;
                }
                if !also_tried.is_empty() {
                    write!(f, "; also tried {}", also_tried.join("; "))?;
                }
                Ok(())
            }
            ToolchainError::Spawn { command, error } => {
                write!(f, "could not start `{command}`: {error}")
            }
            ToolchainError::TimedOut { command, limit } => write!(
                f,
                "`{command}` did not finish within {} s and was killed (the limit is {TOOL_TIMEOUT_VAR}, in seconds)",
                limit.as_secs_f64()
            ),
            ToolchainError::Scratch { dir, why } => {
                write!(f, "temporary directory {dir} is unusable: {why}; set TMPDIR to a writable directory")
            }
            ToolchainError::Interrupted { signal, what } => write!(
                f,
                "interrupted by {signal} while assembling the kernel ({what} was stopped); nothing ran"
            ),
        }
    }
}

impl std::error::Error for ToolchainError {}

/// Environment variables whose values change the search (for `rerun-if-env-changed`).
pub const SEARCH_ENV: [&str; 3] = [LLVM_DIR_VAR, "ROCM_PATH", "PATH"];

fn candidate_in(dir: &Path, suffix: &str, origin: String) -> Candidate {
    Candidate {
        clang: dir.join(format!("clang{suffix}")),
        lld: dir.join(format!("ld.lld{suffix}")),
        objdump: dir.join(format!("llvm-objdump{suffix}")),
        origin,
    }
}

fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The search order: the override, ROCm, then versioned tools on PATH and in
/// Debian's /usr/lib/llvm-N/bin. An override that is set is the only candidate:
/// a user who names a toolchain must not silently get another one.
fn candidates() -> Vec<Candidate> {
    if let Some(dir) = std::env::var_os(LLVM_DIR_VAR).filter(|d| !d.is_empty()) {
        return vec![candidate_in(
            Path::new(&dir),
            "",
            format!("{LLVM_DIR_VAR}={}", Path::new(&dir).display()),
        )];
    }
    let mut list = Vec::new();
    if let Some(rocm) = std::env::var_os("ROCM_PATH").filter(|d| !d.is_empty()) {
        let dir = Path::new(&rocm).join("llvm/bin");
        list.push(candidate_in(
            &dir,
            "",
            format!("ROCM_PATH ({})", dir.display()),
        ));
    }
    list.push(candidate_in(
        Path::new("/opt/rocm/llvm/bin"),
        "",
        "/opt/rocm/llvm/bin".into(),
    ));
    for v in VERSIONS {
        let suffix = format!("-{v}");
        match (
            search_path(&format!("clang{suffix}")),
            search_path(&format!("ld.lld{suffix}")),
        ) {
            (Some(clang), Some(lld)) => {
                let objdump = clang.with_file_name(format!("llvm-objdump{suffix}"));
                list.push(Candidate {
                    clang,
                    lld,
                    objdump,
                    origin: format!("PATH clang{suffix}"),
                });
            }
            _ => list.push(candidate_in(
                Path::new(&format!("/usr/lib/llvm-{v}/bin")),
                "",
                format!("/usr/lib/llvm-{v}/bin"),
            )),
        }
    }
    list
}

/// The canary: `v_xad_u32 v5, v1, v2, v3` and `s_endpgm`, whose bytes differ
/// per generation (`Generation::xad_vop3_word`, `Generation::s_endpgm_word`):
/// v_xad_u32 is opcode 499 (D1F30005) on gfx9, 837 (D7450005) on gfx10, 581
/// (D6450005) on gfx11 and gfx12; `s_endpgm` is BF810000 before gfx11 and
/// BFB00000 from it. LLVM 14 accepts `-mcpu=gfx1100` with only a warning and
/// emits GCN bytes, so names and exit codes prove nothing; the bytes do.
const CANARY_SOURCE: &str = "\t.text\n\tv_xad_u32 v5, v1, v2, v3\n\ts_endpgm\n";

/// The canary's bytes for `mcpu`'s generation (its target row's), and how
/// they read; `None` for a processor with no target row.
fn canary_bytes(mcpu: &str) -> Option<([u8; 12], String)> {
    let generation = crate::target::find(mcpu)?.generation();
    // v5, v1, v2, v3: vdst 5 in dword 0; src0 257, src1 258, src2 259 in dword 1.
    let xad = generation.xad_vop3_word() | 5;
    let sources: u32 = 257 | 258 << 9 | 259 << 18;
    let end = generation.s_endpgm_word();
    let mut bytes = [0u8; 12];
    for (i, word) in [xad, sources, end].into_iter().enumerate() {
        bytes[4 * i..4 * i + 4].copy_from_slice(&word.to_le_bytes());
    }
    Some((
        bytes,
        format!("v_xad_u32 must be {xad:08X}, s_endpgm {end:08X}"),
    ))
}

/// The `xad_target.inc` every catalogue kernel includes, for target `mcpu`
/// and HIP `runtime`: the `.amdgcn_target` directive and `XAD_TARGETED m,
/// args`, which invokes macro `m` with the target ID and the metadata minor
/// version (`amdhsa.version: [1, minor]`: 1 for v4, 2 for v5, 3 for v6, the
/// version [`code_object_version_for`] chooses) before `args` (the metadata
/// is raw text, so both reach it as macro arguments).
///
/// Guarded so a second `.include` is a no-op: the reference kernel
/// (`kernels/include/xad_basic_gfx*.s`) names it to assemble on its own and
/// is also included after a frame that named it. The guard is a `.L` symbol,
/// which the assembler keeps out of the object.
pub fn target_include_for(mcpu: &str, runtime: HipVersion) -> String {
    let minor = code_object_policy::metadata_minor(code_object_version_for(mcpu, runtime));
    format!(
        "// xad_target.inc for {mcpu}: written by xad-harness (build.rs, run --kernel).\n\
         .ifndef .Lxad_target_inc\n\
         .set .Lxad_target_inc, 1\n\
         .amdgcn_target \"amdgcn-amd-amdhsa--{mcpu}\"\n\
         .macro XAD_TARGETED macro:req, args:vararg\n\
         \\macro amdgcn-amd-amdhsa--{mcpu}, {minor}, \\args\n\
         .endm\n\
         .endif\n"
    )
}

/// The `xad_frame.inc` every case stub in `kernels/cases/` includes: the
/// target's generation frame, `frame` (`Generation::frame` of its row; this
/// file knows no target table, so the caller names it). One stub then builds
/// for every generation instead of one copy per generation.
pub fn frame_include(mcpu: &str, frame: &str) -> String {
    format!(
        "// xad_frame.inc for {mcpu}: written by xad-harness (build.rs, run --kernel).\n\
         .include \"{frame}\"\n"
    )
}

/// Write [`target_include_for`] for `mcpu` and `runtime` as `dir/xad_target.inc` and, given
/// the generation frame (`None` for a processor with no target row, whose
/// generation is not known here), [`frame_include`] as `dir/xad_frame.inc`.
pub fn write_target_include_for(
    dir: &Path,
    mcpu: &str,
    runtime: HipVersion,
    frame: Option<&str>,
) -> Result<(), ToolchainError> {
    std::fs::create_dir_all(dir).map_err(|e| ToolchainError::Spawn {
        command: format!("create {}", dir.display()),
        error: e.to_string(),
    })?;
    let frame = frame.map(|f| ("xad_frame.inc", frame_include(mcpu, f)));
    for (name, text) in [("xad_target.inc", target_include_for(mcpu, runtime))]
        .into_iter()
        .chain(frame)
    {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| ToolchainError::Spawn {
            command: format!("write {}", path.display()),
            error: e.to_string(),
        })?;
    }
    Ok(())
}

/// Find and prove a toolchain for `mcpu` (e.g. `gfx1100`) assembling code
/// objects for HIP `runtime`. `scratch` is a directory where the canary
/// files may be written.
pub fn discover_for(
    mcpu: &str,
    runtime: HipVersion,
    scratch: &Path,
) -> Result<Toolchain, ToolchainError> {
    Search::new(mcpu, runtime, scratch).next_proven()
}

/// The candidates for one target, proven one at a time in the search order:
/// [`discover_for`] takes the first that proves; `run --kernel x.s` takes the
/// next when one fails to assemble the source (an LLVM 22 `.s` names
/// directives LLVM 19 does not know).
pub struct Search {
    mcpu: String,
    runtime: HipVersion,
    scratch: PathBuf,
    left: std::vec::IntoIter<Candidate>,
    /// Each candidate passed over so far, with why.
    tried: Vec<String>,
}

impl Search {
    pub fn new(mcpu: &str, runtime: HipVersion, scratch: &Path) -> Search {
        Search {
            mcpu: mcpu.to_string(),
            runtime,
            scratch: scratch.to_path_buf(),
            left: candidates().into_iter(),
            tried: Vec::new(),
        }
    }

    /// The next candidate that proves for the target; [`ToolchainError::NotFound`]
    /// (listing every candidate passed over, this call's and earlier ones')
    /// when none is left.
    pub fn next_proven(&mut self) -> Result<Toolchain, ToolchainError> {
        let mcpu = self.mcpu.clone();
        for cand in self.left.by_ref() {
            if !cand.clang.is_file() || !cand.lld.is_file() {
                self.tried.push(format!("{} (not present)", cand.origin));
                continue;
            }
            match prove(&cand, &mcpu, self.runtime, &self.scratch) {
                Ok(()) => {
                    return Ok(Toolchain {
                        objdump: cand.objdump.is_file().then(|| cand.objdump.clone()),
                        clang: cand.clang,
                        lld: cand.lld,
                        origin: cand.origin,
                        runtime: self.runtime,
                    })
                }
                // A canary stopped by Ctrl-C proves nothing about this candidate,
                // and the user asked to stop: no "no LLVM toolchain", no next one.
                Err(_) if stop_requested().is_some() => {
                    return Err(ToolchainError::Interrupted {
                        signal: stop_requested().unwrap_or_default(),
                        what: format!("the canary proving {}", cand.origin),
                    })
                }
                Err(why) => self.tried.push(format!("{} ({})", cand.origin, why)),
            }
        }
        Err(ToolchainError::NotFound {
            target: mcpu,
            tried: self.tried.clone(),
        })
    }
}

fn prove(cand: &Candidate, mcpu: &str, runtime: HipVersion, scratch: &Path) -> Result<(), String> {
    std::fs::create_dir_all(scratch).map_err(|e| format!("scratch dir: {e}"))?;
    let src = scratch.join(format!("canary-{mcpu}.s"));
    let obj = src.with_extension("o");
    let lib = src.with_extension("so");
    let (want_bytes, reads) = canary_bytes(mcpu).ok_or_else(|| {
        let names = crate::generation::Generation::ALL.map(|g| g.name());
        let list = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(", "),
        };
        format!("{mcpu} is not a {list} processor (no target row names it)")
    })?;
    std::fs::write(&src, CANARY_SOURCE).map_err(|e| format!("write canary: {e}"))?;
    let tc = Toolchain {
        clang: cand.clang.clone(),
        lld: cand.lld.clone(),
        objdump: None,
        origin: cand.origin.clone(),
        runtime,
    };
    tc.assemble_object(mcpu, &src, &obj, &[])
        .map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&obj).map_err(|e| format!("read canary object: {e}"))?;
    if !bytes.windows(want_bytes.len()).any(|w| w == want_bytes) {
        return Err(format!("canary did not encode as {mcpu}: {reads}"));
    }
    // EI_ABIVERSION (byte 8): proves -mcode-object-version was honoured.
    let cov = code_object_version_for(mcpu, runtime);
    let want = code_object_policy::elf_abi_version(cov);
    match bytes.get(8) {
        Some(&v) if v == want => {}
        other => {
            return Err(format!(
                "canary is not a code object v{cov}: ELF ABI version {} (want {want})",
                other.map_or_else(|| "missing".to_string(), |v| v.to_string())
            ))
        }
    }
    tc.link(&obj, &lib).map_err(|e| e.to_string())?;
    Ok(())
}

/// Environment variable overriding [`TOOL_TIMEOUT`] (seconds, > 0; an
/// unparsable value keeps the default).
pub const TOOL_TIMEOUT_VAR: &str = "XAD_TOOL_TIMEOUT";

/// How long one assembler or linker run may take before it is killed. One
/// kernel takes about 70 ms here; a tool that hangs (a wrapper script waiting
/// on a terminal, a network file system) must not hang the harness or a build.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// Bytes of each of a tool's stdout and stderr that are kept for messages;
/// the rest is read (so the tool never blocks on a full pipe) and dropped.
pub const OUTPUT_CAP: usize = 16 * 1024;

/// After the tool has exited or been killed, how long we wait for its pipes
/// to close: a grandchild it left behind may hold them open indefinitely.
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// The time limit for one tool run: [`TOOL_TIMEOUT_VAR`] if it holds a usable
/// number of seconds, else [`TOOL_TIMEOUT`].
pub fn tool_timeout() -> Duration {
    std::env::var(TOOL_TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(TOOL_TIMEOUT)
}

/// One of a child's output pipes, read to its end on its own thread; at most
/// [`OUTPUT_CAP`] bytes are kept, the count of the others is remembered.
struct Capture {
    reader: JoinHandle<()>,
    kept: Arc<Mutex<(Vec<u8>, u64)>>,
}

impl Capture {
    fn start(mut pipe: impl Read + Send + 'static) -> Capture {
        let kept = Arc::new(Mutex::new((Vec::new(), 0u64)));
        let sink = Arc::clone(&kept);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) => return,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return,
                };
                let Ok(mut guard) = sink.lock() else { return };
                let (buf, dropped) = &mut *guard;
                let room = OUTPUT_CAP.saturating_sub(buf.len()).min(n);
                buf.extend_from_slice(&chunk[..room]);
                *dropped += (n - room) as u64;
            }
        });
        Capture { reader, kept }
    }

    /// What was kept, waiting at most until `deadline` for the pipe to close.
    fn finish(self, deadline: Instant) -> String {
        while !self.reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let Ok(guard) = self.kept.lock() else {
            return String::new();
        };
        let (buf, dropped) = &*guard;
        let mut text = String::from_utf8_lossy(buf).into_owned();
        if *dropped > 0 {
            text += &format!("\n... ({dropped} more bytes not kept)");
        }
        text
    }
}

/// Asked while a tool runs: the name of the signal (`SIGINT`, `SIGTERM`)
/// that asked this process to stop, if one has. Set once by the harness
/// (`interrupt.rs`, when it installs its handlers); build.rs never sets it.
/// A global because this crate cannot name the harness's types (the build
/// script uses it without them) and the assembler runs deep below the run's options.
static STOP: OnceLock<Box<dyn Fn() -> Option<String> + Send + Sync>> = OnceLock::new();

/// Make every later tool run watch `check` (the first call wins): a tool
/// still running when it says a signal came is killed, and a tool that
/// failed then (the terminal's Ctrl-C reaches it too) is reported as
/// [`ToolchainError::Interrupted`], not as a failure of the source or the
/// toolchain.
pub fn stop_when(check: impl Fn() -> Option<String> + Send + Sync + 'static) {
    let _ = STOP.set(Box::new(check));
}

fn stop_requested() -> Option<String> {
    STOP.get().and_then(|check| check())
}

/// How a waited-for tool ended.
enum Ended {
    Exited(ExitStatus),
    /// Killed at its time limit.
    TimedOut,
    /// Killed because a signal asked this process to stop ([`stop_when`]).
    Stopped(String),
}

/// Wait for `child` until `limit` has passed since `started`, or a signal
/// asks this process to stop; kill it then.
fn wait_bounded(
    child: &mut std::process::Child,
    started: Instant,
    limit: Duration,
) -> std::io::Result<Ended> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ended::Exited(status));
        }
        if let Some(signal) = stop_requested() {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Ended::Stopped(signal));
        }
        if started.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Ended::TimedOut);
        }
        std::thread::sleep(pause.min(limit.saturating_sub(started.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Run a tool with no stdin, bounded in time ([`tool_timeout`]) and in the
/// output kept ([`OUTPUT_CAP`] per stream).
fn run(cmd: &mut Command) -> Result<(), ToolchainError> {
    run_output(cmd).map(drop)
}

/// [`run`], returning what the tool wrote: (stdout, stderr).
fn run_output(cmd: &mut Command) -> Result<(String, String), ToolchainError> {
    let shown = format!("{cmd:?}").replace('"', "");
    if let Some(signal) = stop_requested() {
        // Asked to stop before this step (e.g. between assembling and linking).
        return Err(ToolchainError::Interrupted {
            signal,
            what: format!("`{shown}`"),
        });
    }
    let limit = tool_timeout();
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ToolchainError::Spawn {
            command: shown.clone(),
            error: e.to_string(),
        })?;
    let stdout = child.stdout.take().map(Capture::start);
    let stderr = child.stderr.take().map(Capture::start);
    let waited = wait_bounded(&mut child, started, limit);
    let grace = Instant::now() + PIPE_GRACE;
    let stdout = stdout.map(|c| c.finish(grace)).unwrap_or_default();
    let stderr = stderr.map(|c| c.finish(grace)).unwrap_or_default();
    let status = match waited {
        Ok(Ended::Exited(status)) => status,
        Ok(Ended::TimedOut) => {
            return Err(ToolchainError::TimedOut {
                command: shown,
                limit,
            })
        }
        Ok(Ended::Stopped(signal)) => {
            return Err(ToolchainError::Interrupted {
                signal,
                what: format!("`{shown}`"),
            })
        }
        Err(e) => {
            return Err(ToolchainError::Spawn {
                command: shown,
                error: format!("waiting for it: {e}"),
            })
        }
    };
    if !status.success() {
        if let Some(signal) = stopped_with(status) {
            return Err(ToolchainError::Interrupted {
                signal,
                what: format!("`{shown}`"),
            });
        }
    }
    // An unknown -mcpu is only a warning to old clang; treat it as the failure it is.
    if !status.success() || stderr.contains("not a recognized processor") {
        return Err(ToolchainError::Failed {
            command: shown,
            status: status.to_string(),
            stderr,
            also_tried: Vec::new(),
        });
    }
    Ok((stdout, stderr))
}

/// The signal that asked this process to stop, when a tool that failed
/// with `status` most likely failed of it: the terminal's Ctrl-C goes to the
/// whole process group, so the tool dies of the same SIGINT. A tool killed
/// by SIGINT or SIGTERM may end before our own handler has run: wait a
/// moment for it then, so the failure is not blamed on the source.
fn stopped_with(status: ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let by_stop_signal = matches!(status.signal(), Some(2 | 15));
    let grace = Instant::now() + Duration::from_millis(if by_stop_signal { 500 } else { 0 });
    loop {
        if let Some(signal) = stop_requested() {
            return Some(signal);
        }
        if Instant::now() >= grace {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

impl Toolchain {
    /// `clang --target=amdgcn-amd-amdhsa -mcpu=<mcpu> -mcode-object-version=<v> [-I dir]... -c src -o obj`,
    /// `v` from [`code_object_version_for`] for this toolchain's runtime.
    pub fn assemble_object(
        &self,
        mcpu: &str,
        src: &Path,
        obj: &Path,
        includes: &[&Path],
    ) -> Result<(), ToolchainError> {
        let mut cmd = Command::new(&self.clang);
        cmd.arg("--target=amdgcn-amd-amdhsa")
            .arg(format!("-mcpu={mcpu}"));
        // `mcpu` may be a target ID with features (`gfx90a:xnack+`, which clang
        // takes as -mcpu); the code object version follows the processor.
        cmd.arg(format!(
            "-mcode-object-version={}",
            code_object_version_for(mcpu, self.runtime)
        ));
        for dir in includes {
            // `.include "xad_frame.inc"` in a kernel resolves against these.
            cmd.arg(format!("-I{}", dir.display()));
        }
        run(cmd.arg("-c").arg(src).arg("-o").arg(obj))
    }

    /// `ld.lld -shared obj -o out`: the HSA code object the loader accepts.
    pub fn link(&self, obj: &Path, out: &Path) -> Result<(), ToolchainError> {
        run(Command::new(&self.lld)
            .arg("-shared")
            .arg(obj)
            .arg("-o")
            .arg(out))
    }

    /// Assemble and link one kernel source into a code object at `out`, with
    /// assembler include directories.
    pub fn build_code_object(
        &self,
        mcpu: &str,
        src: &Path,
        out: &Path,
        includes: &[&Path],
    ) -> Result<(), ToolchainError> {
        let obj = out.with_extension("o");
        self.assemble_object(mcpu, src, &obj, includes)?;
        self.link(&obj, out)?;
        let _ = std::fs::remove_file(&obj);
        Ok(())
    }
}

/// What an LLVM disassembler makes of the bytes at an instruction's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disassembly {
    /// The first instruction, as LLVM prints it (`v_sin_f32_e32 v6, v4`),
    /// and how many of the bytes it takes.
    Instruction { text: String, len: usize },
    /// LLVM decodes no instruction there (an invalid encoding).
    NotAnInstruction,
}

impl Toolchain {
    /// `llvm-mc` beside clang, with clang's version suffix (`clang-19`:
    /// `llvm-mc-19`), when it is there.
    pub fn llvm_mc(&self) -> Option<PathBuf> {
        let name = self.clang.file_name()?.to_str()?;
        let suffix = name.strip_prefix("clang")?;
        let mc = self.clang.with_file_name(format!("llvm-mc{suffix}"));
        mc.is_file().then_some(mc)
    }

    /// How messages name this toolchain's disassembler: `llvm-mc-19`, or
    /// `llvm-mc of <origin>` for an unversioned one.
    pub fn llvm_mc_name(&self) -> String {
        match self.llvm_mc() {
            Some(mc) => {
                let name = mc
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                if name == "llvm-mc" {
                    format!("llvm-mc of {}", self.origin)
                } else {
                    name
                }
            }
            None => format!("llvm-mc of {}", self.origin),
        }
    }

    /// Disassemble `bytes` for `mcpu` with [`Toolchain::llvm_mc`] and read
    /// the first instruction ([`read_disassembly`]); `Ok(None)` when the
    /// output says neither an instruction nor an invalid encoding. The bytes
    /// go through a file in `scratch`; the run is bounded as every tool run
    /// is ([`tool_timeout`]).
    pub fn disassemble(
        &self,
        mcpu: &str,
        bytes: &[u8],
        scratch: &Path,
    ) -> Result<Option<Disassembly>, ToolchainError> {
        let mc = self.llvm_mc().ok_or_else(|| ToolchainError::Spawn {
            command: format!("llvm-mc beside {}", self.clang.display()),
            error: "not present".into(),
        })?;
        let input = scratch.join("bytes.txt");
        let text: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
        std::fs::write(&input, text.join(",") + "\n").map_err(|e| ToolchainError::Spawn {
            command: format!("write {}", input.display()),
            error: e.to_string(),
        })?;
        let (stdout, stderr) = run_output(
            Command::new(&mc)
                .arg("--disassemble")
                .arg("--show-encoding")
                .arg("-triple=amdgcn-amd-amdhsa")
                .arg(format!("-mcpu={mcpu}"))
                .arg(&input),
        )?;
        Ok(read_disassembly(&stdout, &stderr, bytes))
    }
}

/// Read `llvm-mc --disassemble --show-encoding` output for `bytes`: the
/// first instruction line (directives such as `.text`, blank and comment
/// lines skipped) whose encoding is where `bytes` begin names them. LLVM
/// skips an invalid word with a warning and goes on, so a line whose
/// encoding starts later than the first byte is not theirs; a `<unknown>`
/// line or an "invalid instruction encoding" warning with no instruction at
/// the first byte means they are not an instruction. `None` for output that
/// says neither (a disassembler that printed nothing usable).
pub fn read_disassembly(stdout: &str, stderr: &str, bytes: &[u8]) -> Option<Disassembly> {
    let first = stdout.lines().map(str::trim).find(|line| {
        !line.is_empty()
            && !line.starts_with('.')
            && !line.starts_with(';')
            && !line.starts_with('#')
            && !line.starts_with("//")
    });
    let invalid = stderr.contains("invalid instruction encoding");
    let Some(line) = first else {
        return invalid.then_some(Disassembly::NotAnInstruction);
    };
    let (text, comment) = line.split_once(';').unwrap_or((line, ""));
    let text = text.trim();
    if text.contains("<unknown>") {
        return Some(Disassembly::NotAnInstruction);
    }
    let encoding = comment
        .split_once("encoding:")
        .and_then(|(_, rest)| rest.split_once('[')?.1.split_once(']'))
        .map(|(list, _)| {
            list.split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
                .collect::<Option<Vec<u8>>>()
        });
    match encoding {
        Some(Some(enc)) if !enc.is_empty() && bytes.starts_with(&enc) && !text.is_empty() => {
            Some(Disassembly::Instruction {
                text: text.split_whitespace().collect::<Vec<_>>().join(" "),
                len: enc.len(),
            })
        }
        // An instruction decoded from later bytes: the first ones were skipped.
        Some(Some(_)) if invalid => Some(Disassembly::NotAnInstruction),
        _ => None,
    }
}
