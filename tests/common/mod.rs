//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use xad_harness::platform::code_object_policy::HipVersion;
use xad_harness::platform::device::{Device, DeviceError, DevicePtr, Dispatch, Executor, ModuleId};
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::toolchain::{discover, Toolchain};

pub mod negative;

/// The real `xad-harness` binary cargo built for these tests.
pub fn harness() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xad-harness"));
    // Tests must see the real runtime (or a library they choose), not a stray one.
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd
}

pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

pub fn run(cmd: &mut Command) -> Ran {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("start xad-harness");
    Ran {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// A fresh scratch directory under the target dir (kept for post-mortems).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Assemble `source` for `mcpu` with the toolchain build.rs proved.
pub fn assemble(source: &str, mcpu: &str, dir: &Path, stem: &str) -> PathBuf {
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).unwrap();
    // The LLVM whose canary proves `mcpu` (gfx1153 needs LLVM 22, as in build.rs).
    let processor = xad_harness::platform::target::processor_of(mcpu);
    let tc = xad_harness::platform::toolchain::discover(processor, dir).expect("toolchain");
    let out = dir.join(format!("{stem}.hsaco"));
    tc.build_code_object(mcpu, &src, &out, &[])
        .expect("assemble test kernel");
    out
}

/// The basic kernel's source for gfx1100, self-contained: its
/// `.include "xad_target.inc"` replaced by that file's text (tests replace
/// `gfx1100` for other targets, or edit it, and assemble it anywhere).
pub fn basic_source() -> String {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/include/xad_basic_gfx11.s"),
    )
    .unwrap();
    assert!(source.contains(".include \"xad_target.inc\"\n"));
    source.replace(
        ".include \"xad_target.inc\"\n",
        &xad_harness::platform::toolchain::target_include("gfx1100"),
    )
}

/// Host memory standing in for a device's, for the test devices that run a
/// Rust "kernel" (tests/pipeline/pipeline.rs, tests/pipeline/session.rs): allocations far apart
/// (1 MiB gaps) so an address can only fall in one.
pub struct HostMemory {
    allocs: Vec<(u64, Vec<u8>)>,
    next: u64,
}

impl Default for HostMemory {
    fn default() -> Self {
        HostMemory {
            allocs: Vec::new(),
            next: 1 << 32,
        }
    }
}

impl HostMemory {
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        let p = self.next;
        self.next += bytes as u64 + (1 << 20);
        self.allocs.push((p, vec![0; bytes]));
        p
    }
    pub fn free(&mut self, ptr: u64) {
        self.allocs.retain(|(b, _)| *b != ptr);
    }
    /// The bytes from `p` to the end of its allocation.
    pub fn bytes_at(&mut self, p: u64) -> &mut [u8] {
        let (base, bytes) = self
            .allocs
            .iter_mut()
            .find(|(b, m)| p >= *b && p < b + m.len() as u64)
            .expect("address in an allocation");
        &mut bytes[(p - *base) as usize..]
    }
    pub fn write(&mut self, dst: u64, src: &[u8]) {
        self.bytes_at(dst)[..src.len()].copy_from_slice(src);
    }
    pub fn read(&mut self, src: u64, dst: &mut [u8]) {
        let n = dst.len();
        dst.copy_from_slice(&self.bytes_at(src)[..n]);
    }
    pub fn words(&mut self, p: u64, n: usize) -> Vec<u32> {
        let mut b = vec![0u8; n * 4];
        self.read(p, &mut b);
        bytemuck::cast_slice(&b).to_vec()
    }
}

/// Make a FIFO at `path` (tests of hostile paths use private nodes, never
/// the system's).
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// Make a private character device `major:minor` at `path` (1:5 is what
/// /dev/zero is, 1:7 /dev/full); false where mknod is not allowed (not root).
pub fn mknod_char(path: &Path, major: u32, minor: u32) -> bool {
    Command::new("mknod")
        .arg(path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// One line on a case result for an assertion message: status, failed lanes, error, guards, first
/// mismatch.
pub fn describe(r: &xad_harness::pipeline::run::CaseResult) -> String {
    format!(
        "{}: status {:?}, {} of {} lanes failed, error {:?}, guards {:?}, first {:#x?}",
        r.case,
        r.status(),
        r.tally.lanes_failed,
        r.tally.lanes_checked,
        r.error,
        r.guard_violations,
        r.tally.first
    )
}

/// What a [`Through`] does on a launch, in place of the emulator's own launch.
pub type Launch =
    fn(&mut EmuDevice, ModuleId, &str, &[u8], Dispatch, Duration) -> Result<(), DeviceError>;

/// The emulator seen only through `Device`'s required methods: its host views and definedness
/// hidden (the trait's defaults, so the pipeline must copy), and each launch `.1`'s (forwarded,
/// or failed on purpose).
pub struct Through(pub EmuDevice, pub Launch);

impl Device for Through {
    fn executor(&self) -> Executor {
        self.0.executor()
    }
    fn arch_name(&self) -> String {
        self.0.arch_name()
    }
    fn memory_bytes(&self) -> u64 {
        self.0.memory_bytes()
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError> {
        self.0.alloc(bytes)
    }
    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError> {
        self.0.free(ptr)
    }
    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError> {
        self.0.write(dst, src)
    }
    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError> {
        self.0.read(src, dst)
    }
    fn load(&mut self, image: &[u8]) -> Result<ModuleId, DeviceError> {
        self.0.load(image)
    }
    fn launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        kernarg: &[u8],
        dispatch: Dispatch,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        (self.1)(&mut self.0, module, kernel, kernarg, dispatch, timeout)
    }
}

/// clang and ld.lld of the LLVM that knows `mcpu` (19 for gfx942, 22 for
/// gfx950); `None` with a printed note when absent.
pub fn llvm_for(mcpu: &str) -> Option<(PathBuf, PathBuf)> {
    let bin = if mcpu == "gfx950" {
        "/usr/lib/llvm-22/bin"
    } else {
        "/usr/lib/llvm-19/bin"
    };
    let (clang, lld) = (Path::new(bin).join("clang"), Path::new(bin).join("ld.lld"));
    if clang.is_file() && lld.is_file() {
        Some((clang, lld))
    } else {
        println!("note: {bin} not found: {mcpu} skipped");
        None
    }
}

/// Compile LLVM IR at `ll` for `mcpu` with clang -nogpulib -O2 into a code
/// object (the way a user builds one), also returning its assembly.
pub fn compile(ll: &Path, mcpu: &str, dir: &Path) -> Option<(Vec<u8>, String)> {
    let (clang, lld) = llvm_for(mcpu)?;
    std::fs::create_dir_all(dir).unwrap();
    let (obj, hsaco, asm) = (
        dir.join(format!("{mcpu}.o")),
        dir.join(format!("{mcpu}.hsaco")),
        dir.join(format!("{mcpu}.s")),
    );
    let cc = |extra: &[&str], out: &Path| {
        let st = Command::new(&clang)
            .args(["--target=amdgcn-amd-amdhsa", "-nogpulib", "-O2"])
            .arg(format!("-mcpu={mcpu}"))
            .args(extra)
            .arg(ll)
            .arg("-o")
            .arg(out)
            .status()
            .expect("run clang");
        assert!(st.success(), "clang {mcpu} {}", ll.display());
    };
    cc(&["-c"], &obj);
    cc(&["-S"], &asm);
    let st = Command::new(&lld)
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&hsaco)
        .status()
        .expect("run ld.lld");
    assert!(st.success(), "ld.lld {mcpu}");
    Some((
        std::fs::read(&hsaco).unwrap(),
        std::fs::read_to_string(&asm).unwrap(),
    ))
}

/// The toolchain, or `None` after printing why the test is skipped.
pub fn gfx1100_toolchain(dir: &Path) -> Option<Toolchain> {
    match discover("gfx1100", dir) {
        Ok(tc) => Some(tc),
        Err(e) => {
            eprintln!("skipped: no LLVM toolchain that assembles gfx1100 ({e})");
            None
        }
    }
}

pub fn build_gfx1100(tc: &Toolchain, dir: &Path, stem: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{stem}.s"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("{stem}.hsaco"));
    if let Err(e) = tc.build_code_object("gfx1100", &src, &out, &[]) {
        panic!("assembling {}: {e}", src.display());
    }
    out
}

/// Enables of the dump kernel: every user SGPR gfx11 has, every system SGPR,
/// x/y/z work-item ids. Initial layout: s[0:1] dispatch ptr, s[2:3] queue ptr,
/// s[4:5] kernarg ptr, s[6:7] dispatch id, s8 private segment size, s9-s11
/// workgroup id x/y/z, s12 workgroup info.
pub const ALL_ENABLES: &[&str] = &[
    "user_sgpr_dispatch_ptr 1",
    "user_sgpr_queue_ptr 1",
    "user_sgpr_kernarg_segment_ptr 1",
    "user_sgpr_dispatch_id 1",
    "user_sgpr_private_segment_size 1",
    "system_sgpr_workgroup_id_x 1",
    "system_sgpr_workgroup_id_y 1",
    "system_sgpr_workgroup_id_z 1",
    "system_sgpr_workgroup_info 1",
    "system_vgpr_workitem_id 2",
    "private_segment_fixed_size 18",
];

/// The HIP version of the root the build used, read here from its header on
/// our own, not through the build's reading of it.
pub fn header_version() -> HipVersion {
    let header = Path::new(env!("XAD_HIP_ROOT")).join("include/hip/hip_version.h");
    let text =
        std::fs::read_to_string(&header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    HipVersion::from_header(&text).unwrap()
}

/// Whether the build's runtime predates code object v5: HIP 5.2 and older
/// (Debian 12's 5.2.3 refuses v5, measured). A literal, not the policy's
/// constant, so a policy that drifts fails here.
pub fn before_v5(runtime: HipVersion) -> bool {
    !runtime.at_least(HipVersion::release(5, 3))
}
