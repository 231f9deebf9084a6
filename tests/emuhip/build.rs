//! Builds the stand-in for Debian's `libamdhip64.so.5`: the C shim that fills
//! `hipDeviceProp_t` from the real header (so the layout is the header's, not a
//! transcription), the SONAME, and the version nodes the loader checks.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=HIP_PATH");
    println!("cargo:rerun-if-changed=src/props.c");
    println!("cargo:rerun-if-changed=libamdhip64.map");

    let hip_path = std::env::var_os("HIP_PATH").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr"));
    let include = hip_path.join("include");
    let header = include.join("hip/hip_runtime_api.h");
    if !header.is_file() {
        println!(
            "cargo:warning=xad-emuhip: {} not found; install libamdhip64-dev (Debian) or set HIP_PATH to a HIP 5.x root",
            header.display()
        );
        std::process::exit(1);
    }
    cc::Build::new()
        .file("src/props.c")
        .include(&include)
        .define("__HIP_PLATFORM_AMD__", "1")
        .warnings(true)
        .compile("xad_emuhip_props");

    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let map = manifest_dir.join("libamdhip64.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.5");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
}
