//! The HIP root at build time (feature `hip-root`, the build script's only): find the
//! installed HIP headers and their version, generate our own FFI declarations
//! from them with bindgen, and compile the device-properties shim with cc.
//! Writes only into `OUT_DIR`. Here and not in `platform/hip/`: which HIP the
//! binary is built against decides each target's code object version, a
//! policy, and the FFI room holds none.
//!
//! Why not hip-sys's declarations: they were pre-generated from HIP 5.4 with
//! `hipError_t` as a Rust enum, so a status the enum does not list (HIP 6.4
//! returns 911 and 912) would be undefined behaviour. Here `hipError_t` is a
//! plain `c_int`, and only the functions the backend calls are declared.

use std::path::{Path, PathBuf};

use crate::code_object_policy::HipVersion;

const SHIM_FUNCTION: &str = "xad_hip_device_info";
const HEADER: &str = "hip/hip_runtime_api.h";
const INSTALL_HINT: &str =
    "install the HIP headers (Debian/Ubuntu: apt-get install libamdhip64-dev) or set HIP_PATH or ROCM_PATH to a ROCm install";

/// The one HIP installation the build takes everything from: headers for the
/// bindings and the shim, and the directory the binary links `libamdhip64`
/// from (and finds it in at run time, through an rpath). Mixing roots (ROCm 6
/// headers with Debian's HIP 5 library, say) links a binary whose symbols and
/// struct layouts disagree with the library it loads.
#[derive(Debug, Clone)]
pub struct HipRoot {
    pub root: PathBuf,
    /// Where the root came from (`$HIP_PATH`, `hipconfig --path`, `/opt/rocm`, ...).
    pub origin: String,
    pub include: PathBuf,
    /// The directory holding `libamdhip64.so` under the root, if any.
    pub lib: Option<PathBuf>,
}

/// Roots to try, in order, each with where it came from.
fn root_candidates() -> Vec<(PathBuf, String)> {
    let mut roots = Vec::new();
    for var in ["HIP_PATH", "ROCM_PATH"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push((PathBuf::from(root), format!("${var}")));
        }
    }
    // ROCm's own answer, when its tools are on PATH.
    if let Ok(out) = std::process::Command::new("hipconfig")
        .arg("--path")
        .output()
    {
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !path.is_empty() {
            roots.push((PathBuf::from(path), "hipconfig --path".into()));
        }
    }
    roots.push((PathBuf::from("/opt/rocm"), "/opt/rocm".into()));
    roots.push((
        PathBuf::from("/usr"),
        "/usr (Debian/Ubuntu packages)".into(),
    ));
    roots
}

/// The library directory of a root: the first that holds `libamdhip64.so`.
fn lib_dir(root: &Path) -> Option<PathBuf> {
    ["lib", "lib64", "lib/x86_64-linux-gnu"]
        .iter()
        .map(|d| root.join(d))
        .find(|d| d.join("libamdhip64.so").exists())
}

/// The first root holding `hip/hip_runtime_api.h`.
pub fn find_root() -> Result<HipRoot, String> {
    let candidates = root_candidates();
    if let Some((root, origin)) = candidates
        .iter()
        .find(|(root, _)| root.join("include").join(HEADER).is_file())
    {
        return Ok(HipRoot {
            root: root.clone(),
            origin: origin.clone(),
            include: root.join("include"),
            lib: lib_dir(root),
        });
    }
    let looked = candidates
        .iter()
        .map(|(root, origin)| format!("{}/include ({origin})", root.display()))
        .collect::<Vec<_>>()
        .join(", ");
    Err(format!(
        "HIP headers not found: no {HEADER} in {looked}; {INSTALL_HINT}"
    ))
}

/// The HIP version the root's headers declare (`include/hip/hip_version.h`):
/// the runtime the binary links, so the one whose loader the embedded code
/// objects must suit ([`crate::code_object_policy`]).
pub fn runtime_version(root: &HipRoot) -> Result<HipVersion, String> {
    let header = root.include.join("hip/hip_version.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).map_err(|e| {
        format!(
            "reading {} (HIP root {}, from {}): {e}; the code object version follows the HIP version",
            header.display(),
            root.root.display(),
            root.origin
        )
    })?;
    HipVersion::from_header(&text).map_err(|e| format!("{}: {e}", header.display()))
}

/// One line saying which HIP this binary is built against: the root, where
/// it came from, its version, headers and library.
pub fn describe(root: &HipRoot, version: HipVersion) -> String {
    let lib = root
        .lib
        .as_ref()
        .map_or_else(|| "none found".to_string(), |l| l.display().to_string());
    format!(
        "HIP root {} (from {}): HIP {version}, headers {}, library {lib}",
        root.root.display(),
        root.origin,
        root.include.display()
    )
}

/// Directories the dynamic loader searches anyway: no rpath is written for them.
fn is_system_dir(dir: &Path) -> bool {
    [
        "/usr/lib",
        "/usr/lib64",
        "/usr/lib/x86_64-linux-gnu",
        "/lib",
        "/lib64",
        "/lib/x86_64-linux-gnu",
    ]
    .iter()
    .any(|d| dir == Path::new(d))
}

/// Link `libamdhip64` from the root's own library directory, ahead of any
/// other search path (a crate's own search paths come first on the link
/// line), and record it as the binary's run path so it loads the same
/// library without `LD_LIBRARY_PATH`. The run path is a DT_RUNPATH, so
/// `LD_LIBRARY_PATH` (ci/with-emulated-hip.sh) still overrides it.
fn link(root: &HipRoot) {
    let Some(lib) = &root.lib else {
        println!(
            "cargo:warning=HIP root {} ({}) has headers but no libamdhip64.so under lib, lib64 or lib/x86_64-linux-gnu; linking relies on the linker's default paths",
            root.root.display(),
            root.origin
        );
        return;
    };
    println!("cargo:rustc-link-search=native={}", lib.display());
    if !is_system_dir(lib) {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    }
}

/// Declare what the HIP root search reads (before [`find_root`] runs).
pub fn rerun_if_changed() {
    for var in ["HIP_PATH", "ROCM_PATH", "LIBCLANG_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
}

/// The FFI room's inputs to [`generate`]: the runtime functions the backend
/// calls (its `FUNCTIONS`, the one list the library, the bindings and the
/// emulated HIP device library share, so they cannot drift apart) and the
/// directory of its device-properties shim (`shim.c`, `shim.h`). They are the
/// FFI room's, so the build script passes them in rather than this crate
/// reaching into the harness's `src/`.
pub struct Ffi<'a> {
    pub functions: &'a [&'a str],
    pub shim_dir: &'a Path,
}

/// The bindings and the shim from `root`'s headers, and the link to its library.
pub fn generate(out_dir: &Path, root: &HipRoot, ffi: &Ffi) -> Result<(), String> {
    for file in ["shim.c", "shim.h"] {
        println!(
            "cargo:rerun-if-changed={}",
            ffi.shim_dir.join(file).display()
        );
    }
    let include = root.include.clone();
    println!("cargo:rerun-if-changed={}", include.join(HEADER).display());
    println!("cargo:rustc-env=XAD_HIP_ROOT={}", root.root.display());
    link(root);

    bindings(&include, ffi, &out_dir.join("hip_sys.rs"))?;
    shim(&include, ffi.shim_dir)
}

fn bindings(include: &Path, ffi: &Ffi, out: &Path) -> Result<(), String> {
    let (functions, shim_dir) = (ffi.functions, ffi.shim_dir);
    let wrapper = format!(
        "#include <{HEADER}>\n#include \"{}\"\n",
        shim_dir.join("shim.h").display()
    );
    let mut builder = bindgen::Builder::default()
        .header_contents("xad_hip_wrapper.h", &wrapper)
        .clang_arg(format!("-I{}", include.display()))
        .clang_arg("-D__HIP_PLATFORM_AMD__")
        // Every C enum (hipError_t above all) becomes an integer alias plus
        // constants: any number the runtime returns is then a defined value.
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .allowlist_type("xad_device_info")
        .allowlist_function(SHIM_FUNCTION)
        .generate_comments(false)
        .layout_tests(true);
    for function in functions {
        builder = builder.allowlist_function(function);
    }

    // bindgen panics when it cannot load libclang; turn that into one line
    // saying what to install, with its own message kept.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let generated =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || builder.generate()));
    std::panic::set_hook(previous_hook);
    let bindings = match generated {
        Ok(Ok(bindings)) => bindings,
        Ok(Err(e)) => {
            return Err(format!(
                "bindgen failed on {HEADER} in {} (with -D__HIP_PLATFORM_AMD__): {e}",
                include.display()
            ))
        }
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown reason".into());
            return Err(format!(
                "bindgen could not run ({why}); it needs libclang: apt-get install libclang-dev, or set LIBCLANG_PATH"
            ));
        }
    };
    let text = with_integer_status(&bindings.to_string())?;
    for function in functions.iter().chain(std::iter::once(&SHIM_FUNCTION)) {
        if !text.contains(&format!("pub fn {function}(")) {
            return Err(format!(
                "{HEADER} in {} does not declare {function}; {INSTALL_HINT}",
                include.display()
            ));
        }
    }
    std::fs::write(out, text).map_err(|e| format!("writing {}: {e}", out.display()))
}

/// bindgen spells a C enum whose values are all non-negative as `c_uint`; the
/// status is an `int` everywhere else in HIP (and in our shim), so make the
/// alias `c_int`. Same size and register, so the ABI is unchanged.
fn with_integer_status(text: &str) -> Result<String, String> {
    const SIGNED: &str = "pub type hipError_t = ::std::os::raw::c_int;";
    const UNSIGNED: &str = "pub type hipError_t = ::std::os::raw::c_uint;";
    match (text.matches(UNSIGNED).count(), text.contains(SIGNED)) {
        (1, false) => Ok(text.replace(UNSIGNED, SIGNED)),
        (0, true) => Ok(text.to_string()),
        _ => Err("bindgen did not declare hipError_t as one plain integer type; the HIP headers are not the kind this build understands".into()),
    }
}

fn shim(include: &Path, shim_dir: &Path) -> Result<(), String> {
    cc::Build::new()
        .file(shim_dir.join("shim.c"))
        .include(include)
        .include(shim_dir)
        .define("__HIP_PLATFORM_AMD__", None)
        .try_compile("xad_hip_shim")
        .map_err(|e| {
            format!(
                "compiling {} against {}: {e}",
                shim_dir.join("shim.c").display(),
                include.display()
            )
        })
}
