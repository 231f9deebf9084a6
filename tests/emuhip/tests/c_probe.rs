//! The emulated HIP library under a C program that was compiled against the
//! HIP root's header (Debian's 5.2 in /usr, or a fetched 6.4 / 7.2 root) and
//! linked against that root's libamdhip64.so.N, run with LD_LIBRARY_PATH
//! pointing at the stand-in: the loader must accept it (SONAME, symbol
//! versions), the struct layout must agree with the header and the symbol it
//! calls, and every status and fault knob must show up as a C caller sees it.
//!
//! The `run`/`hang`/fault tests execute xad_basic on the project's emulator
//! (`xad_harness::platform::emu::EmuDevice`); until that is merged they fail with the
//! emulator's "not built yet" error in the transcript.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> PathBuf {
    support::repo_root(env!("CARGO_MANIFEST_DIR"))
}

fn library() -> PathBuf {
    support::library_dir(&root())
        .unwrap_or_else(|e| panic!("emulated HIP library unavailable: {e}"))
}

/// (probe executable, xad_basic code object), built once per test process
/// under `<target>/emuhip-probe/`.
fn probe() -> &'static (PathBuf, PathBuf) {
    static PROBE: OnceLock<Result<(PathBuf, PathBuf), String>> = OnceLock::new();
    let built = PROBE.get_or_init(|| {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let target = exe.ancestors().nth(3).ok_or("no target dir")?.to_path_buf();
        let dir = target.join("emuhip-probe");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let pid = std::process::id();
        let code_object = dir.join("xad_basic.hsaco");
        let temp = dir.join(format!("xad_basic.{pid}.tmp"));
        let kernel = xad_harness::platform::embedded::find("gfx1100", "xad_basic")
            .ok_or("xad_basic is not embedded")?;
        std::fs::write(&temp, kernel.bytes).map_err(|e| e.to_string())?;
        std::fs::rename(&temp, &code_object).map_err(|e| e.to_string())?;

        let hip = support::hip_root().display().to_string();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probe.c");
        let temp = dir.join(format!("probe.{pid}.tmp"));
        let output = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
            .args(["-std=c11", "-Wall", "-Werror", "-D__HIP_PLATFORM_AMD__=1"])
            .arg(format!("-I{hip}/include"))
            .arg(&source)
            .arg("-o")
            .arg(&temp)
            .arg(format!("-L{hip}/lib"))
            .arg(format!("-L{hip}/lib/x86_64-linux-gnu"))
            .arg("-lamdhip64")
            // A fetched ROCm 6/7 root's runtime needs a newer glibc than the
            // system's linker links against; what the probe takes from it
            // (symbols and their versions) is checked all the same. No run
            // path: the probe itself runs on the system's glibc.
            .arg("-Wl,--allow-shlib-undefined")
            .output()
            .map_err(|e| format!("running cc: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "cc {} failed:\n{}",
                source.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let probe = dir.join("probe");
        std::fs::rename(&temp, &probe).map_err(|e| e.to_string())?;
        Ok((probe, code_object))
    });
    built
        .as_ref()
        .unwrap_or_else(|e| panic!("building the C probe: {e}"))
}

struct Probe {
    stdout: String,
    transcript: String,
}

impl Probe {
    /// The value of the first `key=...` line.
    fn value(&self, key: &str) -> &str {
        self.values(key)
            .first()
            .copied()
            .unwrap_or_else(|| panic!("no {key}= line\n{}", self.transcript))
    }
    fn values(&self, key: &str) -> Vec<&str> {
        self.stdout
            .lines()
            .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .collect()
    }
    fn expect(&self, key: &str, want: &str) {
        assert_eq!(self.value(key), want, "{key}\n{}", self.transcript);
    }
    /// gcnArch: a field of the R0000 layout only (the header's struct on 5.x,
    /// the hipGetDevicePropertiesR0000 call on 6.x/7.x).
    fn expect_gcn_arch(&self, want: &str) {
        self.expect(
            if major() >= 6 {
                "r0000_gcnArch"
            } else {
                "gcnArch"
            },
            want,
        );
    }
    fn lane_lines(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with("lane "))
            .collect()
    }
}

/// Run the probe; it exits 0 when it got to the end, 1 when a call failed
/// (after printing that call's status).
fn run_probe(args: &[&str], emulated: bool, knobs: &[(&str, &str)]) -> Probe {
    run_probe_expecting(args, emulated, knobs, 0)
}

fn run_probe_expecting(args: &[&str], emulated: bool, knobs: &[(&str, &str)], exit: i32) -> Probe {
    let (exe, code_object) = probe();
    let mut command = Command::new(exe);
    for arg in args {
        command.arg(if *arg == "CODE" {
            code_object.as_os_str()
        } else {
            std::ffi::OsStr::new(arg)
        });
    }
    let dir = emulated.then(library);
    let output = support::run(command, dir.as_deref(), knobs).unwrap_or_else(|e| panic!("{e}"));
    let transcript = support::transcript(&output);
    assert_eq!(
        output.status.code(),
        Some(exit),
        "probe {args:?} with {knobs:?}\n{transcript}"
    );
    Probe {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        transcript,
    }
}

/// The HIP major of the header this package was built against.
fn major() -> u32 {
    let soname = env!("XAD_EMUHIP_SONAME");
    soname
        .strip_prefix("libamdhip64.so.")
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("SONAME {soname}"))
}

#[test]
fn loader_accepts_the_stand_in_and_properties_follow_the_header_layout() {
    let p = run_probe(&["info"], true, &[]);
    p.expect("hipInit", "0");
    p.expect("runtime_version", env!("XAD_EMUHIP_HIP_VERSION"));
    p.expect("driver_version", env!("XAD_EMUHIP_HIP_VERSION"));
    p.expect("device_count", "1");
    p.expect("hipGetDeviceProperties", "0");
    p.expect("name", "xad-harness emulated gfx1100");
    p.expect("gcnArchName", "gfx1100");
    p.expect_gcn_arch("1100");
    p.expect("major", "11");
    p.expect("minor", "0");
    p.expect("multiProcessorCount", "48");
    p.expect("warpSize", "32");
    p.expect("maxThreadsPerBlock", "1024");
    // The struct's last word was 0xFF..: the whole struct was written.
    p.expect("pageableMemoryAccessUsesHostPageTables", "0");
    p.expect("last_word_written", "1");
    p.expect("hipSetDevice", "0");
    p.expect("name_of_912", "hipErrorUnknown");
    p.expect("string_of_700", "hipErrorIllegalAddress");
}

/// The shim-layout check for the C side: the header pairs each symbol with
/// one layout (R0000: 792 bytes, gcnArchName at 396; R0600: 1472, at 1160;
/// 256 bytes of name in both), and the stand-in fills what the symbol means.
#[test]
fn the_header_pairs_the_symbol_with_its_layout() {
    let p = run_probe(&["info"], true, &[]);
    let (symbol, size, offset) = if major() >= 6 {
        ("hipGetDevicePropertiesR0600", "1472", "1160")
    } else {
        ("hipGetDeviceProperties", "792", "396")
    };
    p.expect("props_symbol", symbol);
    p.expect("props_size", size);
    p.expect("gcnArchName_offset", offset);
    p.expect("gcnArchName_bytes", "256");
    if major() >= 6 {
        // ROCm 6+ also exports the old layout under an explicit name.
        p.expect("r0000_size", "792");
        p.expect("hipGetDevicePropertiesR0000", "0");
        p.expect("r0000_gcnArchName", "gfx1100");
        p.expect("r0000_gcnArch", "1100");
    } else {
        assert!(p.values("r0000_size").is_empty(), "{}", p.transcript);
    }
}

/// Negative control: the same probe on the root's real runtime finds no
/// device (HIP 5.2: hipInit 101; 6.4 and 7.2: 100), so the tests above really
/// ran on the stand-in.
#[test]
fn real_runtime_reports_no_device() {
    let p = run_probe(&["info"], false, &[]);
    p.expect("hipInit", if major() >= 6 { "100" } else { "101" });
    p.expect("hipGetDeviceCount", "100");
}

#[test]
fn invalid_arguments_get_hip_statuses() {
    let p = run_probe(&["args"], true, &[]);
    for (key, want) in [
        ("init_flags", "1"),
        ("count_null", "1"),
        ("props_null", "1"),
        ("props_device_1", "101"),
        ("set_device_1", "101"),
        ("malloc_null", "1"),
        ("malloc_zero", "0"),
        ("malloc_zero_ptr_null", "1"),
        ("free_null", "0"),
        ("free_bogus", "1"),
        ("load_null", "1"),
        ("load_garbage", "200"),
        ("unload_bogus", "400"),
        ("function_bogus_module", "400"),
        ("launch_bogus", "400"),
        ("stream_create_null", "1"),
        ("stream_query_bogus", "400"),
        ("stream_destroy_null", "400"),
        ("stream_query_null", "0"),
        ("device_synchronize", "0"),
    ] {
        p.expect(key, want);
    }
}

#[test]
fn arch_knob_changes_the_reported_target() {
    let p = run_probe(&["info"], true, &[("XAD_EMUHIP_ARCH", "gfx1030")]);
    p.expect("gcnArchName", "gfx1030");
    p.expect_gcn_arch("1030");
    p.expect("major", "10");
    p.expect("minor", "3");
    p.expect("name", "xad-harness emulated gfx1030");
}

#[test]
fn status_knob_returns_an_unknown_code_from_the_named_function() {
    let p = run_probe(
        &["info"],
        true,
        &[("XAD_EMUHIP_STATUS", "912:hipGetDeviceCount")],
    );
    p.expect("hipInit", "0");
    p.expect("hipGetDeviceCount", "912");
    p.expect("device_count", "-1");
}

#[test]
fn malformed_knob_fails_every_call_loudly() {
    let p = run_probe(&["info"], true, &[("XAD_EMUHIP_FLIP_BIT", "nonsense")]);
    p.expect("hipInit", "3");
    p.expect("hipGetDeviceCount", "3");
    assert!(
        p.transcript
            .contains("xad-emuhip: bad fault knob: XAD_EMUHIP_FLIP_BIT=nonsense"),
        "{}",
        p.transcript
    );
}

// ---- on the emulator --------------------------------------------------------

#[test]
fn xad_basic_passes_every_lane_in_chunks() {
    let p = run_probe(&["run", "CODE", "1000", "256"], true, &[]);
    p.expect("hipModuleLoadData", "0");
    p.expect("missing_function", "500");
    p.expect("hipModuleGetFunction", "0");
    p.expect("launch_wrong_size", "1");
    p.expect("hipStreamSynchronize", "0");
    p.expect("lanes_failed", "0");
    p.expect("guard_words_overwritten", "0");
    p.expect("double_free", "1");
    p.expect("hipModuleUnload", "0");
    p.expect("launch_after_unload", "400");
}

#[test]
fn flip_bit_shows_as_one_failing_lane_with_one_differing_bit() {
    let p = run_probe(
        &["run", "CODE", "1000", "256"],
        true,
        &[("XAD_EMUHIP_FLIP_BIT", "5:31")],
    );
    p.expect("lanes_failed", "1");
    p.expect("guard_words_overwritten", "0");
    let lanes = p.lane_lines();
    assert_eq!(lanes.len(), 1, "{}", p.transcript);
    assert!(
        lanes[0].starts_with("lane 5 ") && lanes[0].ends_with("diff=0x80000000"),
        "{}",
        p.transcript
    );
}

#[test]
fn skip_lane_leaves_the_poisoned_contents() {
    let p = run_probe(
        &["run", "CODE", "1000", "256"],
        true,
        &[("XAD_EMUHIP_SKIP_LANE", "7")],
    );
    p.expect("lanes_failed", "1");
    let lanes = p.lane_lines();
    assert!(
        lanes.len() == 1 && lanes[0].starts_with("lane 7 got=0x5ac3a55a "),
        "{}",
        p.transcript
    );
}

#[test]
fn write_past_end_hits_only_the_rear_guard() {
    let p = run_probe(
        &["run", "CODE", "1000", "256"],
        true,
        &[("XAD_EMUHIP_WRITE_PAST_END", "2")],
    );
    p.expect("lanes_failed", "0");
    p.expect("guard_words_overwritten", "2");
}

#[test]
fn hang_keeps_the_stream_not_ready_and_teardown_does_not_block() {
    let p = run_probe(&["hang", "CODE", "50"], true, &[("XAD_EMUHIP_HANG", "1")]);
    p.expect("launch", "0");
    p.expect("query_after_polls", "600");
    p.expect("hipFree", "0");
    p.expect("hipStreamDestroy", "0");
}

#[test]
fn fail_alloc_hits_the_third_allocation() {
    let p = run_probe_expecting(
        &["run", "CODE", "64", "64"],
        true,
        &[("XAD_EMUHIP_FAIL_ALLOC", "3")],
        1,
    );
    let mallocs = p.values("hipMalloc");
    assert_eq!(mallocs, ["0", "0", "2"], "{}", p.transcript);
}

#[test]
fn fail_copy_hits_the_second_copy() {
    let p = run_probe_expecting(
        &["run", "CODE", "64", "64"],
        true,
        &[("XAD_EMUHIP_FAIL_COPY", "2:719")],
        1,
    );
    let copies = p.values("hipMemcpyHtoD");
    assert_eq!(copies, ["0", "719"], "{}", p.transcript);
}

#[test]
fn status_knob_defaults_to_the_launch() {
    let p = run_probe_expecting(
        &["run", "CODE", "64", "64"],
        true,
        &[("XAD_EMUHIP_STATUS", "999")],
        1,
    );
    p.expect("hipModuleLaunchKernel", "999");
}
