//! Builds the stand-in for the real HIP runtime of one HIP root: the C code that
//! fills the device-properties structs from that root's own header (so the
//! layouts are the header's, not a transcription), the SONAME
//! (`libamdhip64.so.<major>`), and the version nodes the loader checks, all
//! from the HIP version that root's `hip/hip_version.h` declares.
//!
//! The root is found by the main crate's own search (`xad_build::hip_root::find_root`):
//! `$HIP_PATH`, `$ROCM_PATH`, `hipconfig --path`, `/opt/rocm`, `/usr`; the
//! first holding `include/hip/hip_runtime_api.h` wins. Building the harness and
//! this library in the same environment therefore pairs them with one HIP.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Version nodes the real libamdhip64 defines, oldest first, each depending on
/// the one before (`objdump -p` of Debian's 5.2.3, 6.4.3 and 7.2.4 libraries).
/// A library for HIP M.m defines every node up to M.m.
const NODES: &[(u32, u32)] = &[
    (4, 2),
    (4, 3),
    (4, 4),
    (4, 5),
    (5, 0),
    (5, 1),
    (5, 2),
    (5, 3),
    (5, 5),
    (5, 6),
    (6, 0),
    (6, 1),
    (6, 2),
    (6, 4),
    (6, 5),
    (7, 1),
    (7, 2),
];

/// Exports that live in `hip_4.2` in every version (objdump -T); keep in step
/// with `versioned_exports!` in src/exports.rs (a unit test compares them).
const HIP_4_2_EXPORTS: &[&str] = &[
    "hipDeviceSynchronize",
    "hipDriverGetVersion",
    "hipFree",
    "hipGetDeviceCount",
    "hipGetDeviceProperties",
    "hipGetErrorName",
    "hipGetErrorString",
    "hipInit",
    "hipMalloc",
    "hipMemcpyDtoH",
    "hipMemcpyHtoD",
    "hipModuleGetFunction",
    "hipModuleLaunchKernel",
    "hipModuleLoadData",
    "hipModuleUnload",
    "hipRuntimeGetVersion",
    "hipSetDevice",
    "hipStreamCreate",
    "hipStreamDestroy",
    "hipStreamQuery",
    "hipStreamSynchronize",
];

/// ROCm 6 moved `hipGetDeviceProperties` to a new struct: the R0600 pair in
/// `hip_6.0`, with the old layout kept under an explicit R0000 name.
const R0600_EXPORTS_4_2: &[&str] = &["hipGetDevicePropertiesR0000"];
const R0600_EXPORTS_6_0: &[&str] = &["hipGetDevicePropertiesR0600"];

// The one reader of `hip/hip_version.h`, shared with the harness's build.
use xad_build::code_object_policy::HipVersion;

fn main() {
    if let Err(message) = run() {
        println!("cargo:warning=xad-emuhip: {message}");
        eprintln!("error: xad-emuhip: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    for var in ["HIP_PATH", "ROCM_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=src/props.c");
    println!("cargo:rustc-check-cfg=cfg(hip_r0600)");

    // The main crate's search, so both builds take the same root.
    let found = xad_build::hip_root::find_root()?;
    let (root, origin, include) = (found.root, found.origin, found.include);
    let version_h = include.join("hip/hip_version.h");
    println!("cargo:rerun-if-changed={}", version_h.display());
    let text = std::fs::read_to_string(&version_h)
        .map_err(|e| format!("reading {}: {e}", version_h.display()))?;
    let version =
        HipVersion::from_header(&text).map_err(|e| format!("{}: {e}", version_h.display()))?;
    if !(5..=7).contains(&version.major) {
        return Err(format!(
            "HIP {}.{} in {} ({origin}): this stand-in knows the libraries of HIP 5, 6 and 7 only",
            version.major,
            version.minor,
            root.display()
        ));
    }
    let r0600 = version.major >= 6;
    let soname = format!("libamdhip64.so.{}", version.major);
    println!(
        "cargo:warning=xad-emuhip: HIP {}.{}.{} from {} ({origin}): SONAME {soname}, {} device properties",
        version.major,
        version.minor,
        version.patch,
        root.display(),
        if r0600 { "R0600 + R0000" } else { "R0000" }
    );
    if r0600 {
        println!("cargo:rustc-cfg=hip_r0600");
    }
    // The runtime reports the version of the header it stands in for.
    let hip_version = version.major * 10_000_000 + version.minor * 100_000 + version.patch;
    println!("cargo:rustc-env=XAD_EMUHIP_HIP_VERSION={hip_version}");
    println!("cargo:rustc-env=XAD_EMUHIP_SONAME={soname}");
    println!("cargo:rustc-env=XAD_HIP_ROOT={}", root.display());

    cc::Build::new()
        .file("src/props.c")
        .include(&include)
        .define("__HIP_PLATFORM_AMD__", "1")
        // Lets props.c check that cc saw the same header as this script.
        .define(
            "XAD_EMUHIP_EXPECTED_MAJOR",
            version.major.to_string().as_str(),
        )
        .warnings(true)
        .try_compile("xad_emuhip_props")
        .map_err(|e| format!("compiling src/props.c against {}: {e}", include.display()))?;

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let map = out_dir.join("libamdhip64.map");
    std::fs::write(&map, version_script(&version))
        .map_err(|e| format!("writing {}: {e}", map.display()))?;
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    Ok(())
}

/// The version script for HIP `v`: every node up to `v`, chained as the real
/// library chains them, with the exports listed in the node that holds them.
/// The symbols are bound to their nodes with `.symver` (src/exports.rs),
/// because rustc passes its own anonymous version script for cdylibs first and
/// GNU ld would otherwise leave them unversioned; the lists here say the same.
fn version_script(v: &HipVersion) -> String {
    let r0600 = v.major >= 6;
    let mut script = format!(
        "/* @generated by tests/emuhip/build.rs for HIP {}.{} */\n",
        v.major, v.minor
    );
    let mut previous: Option<String> = None;
    for &(major, minor) in NODES.iter().filter(|&&node| node <= (v.major, v.minor)) {
        let node = format!("hip_{major}.{minor}");
        let mut symbols: Vec<&str> = Vec::new();
        if (major, minor) == (4, 2) {
            symbols.extend(HIP_4_2_EXPORTS);
            if r0600 {
                symbols.extend(R0600_EXPORTS_4_2);
            }
        } else if (major, minor) == (6, 0) {
            symbols.extend(R0600_EXPORTS_6_0);
        }
        let _ = write!(script, "{node} {{");
        if !symbols.is_empty() {
            script.push_str("\n  global:\n");
            for symbol in &symbols {
                let _ = writeln!(script, "    {symbol};");
            }
        }
        if previous.is_none() {
            script.push_str("  local:\n    *;\n");
        }
        let _ = writeln!(
            script,
            "}}{};",
            previous
                .as_deref()
                .map(|p| format!(" {p}"))
                .unwrap_or_default()
        );
        previous = Some(node);
    }
    script
}
