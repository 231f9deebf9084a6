//! Bindings to the system's KFD interface header, never hand-copied: bindgen
//! reads `<linux/kfd_ioctl.h>` for the argument structs and flag constants,
//! and the C compiler builds the request-number table from the same header
//! (src/requests.c: the numbers are function-like macros bindgen cannot
//! evaluate). The header's version is the interface the device answers
//! (`GET_VERSION`).
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src/requests.c");
    println!("cargo:rerun-if-changed=build.rs");
    let header = "/usr/include/linux/kfd_ioctl.h";
    println!("cargo:rerun-if-changed={header}");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    // kfd_ioctl.h includes <drm/drm.h> only for the __u32/__u64 types, and
    // Debian ships that header with libdrm-dev under another path: a stand-in
    // giving the same types from <linux/types.h> keeps libdrm-dev optional.
    let shim = out.join("include");
    let drm = shim.join("drm");
    if let Err(e) = std::fs::create_dir_all(&drm)
        .and_then(|()| std::fs::write(drm.join("drm.h"), "#include <linux/types.h>\n"))
    {
        eprintln!("xad-emukfd: cannot write {}: {e}", drm.display());
        std::process::exit(1);
    }
    let bindings = match bindgen::Builder::default()
        .header_contents("kfd.h", "#include <linux/kfd_ioctl.h>\n")
        .clang_arg(format!("-I{}", shim.display()))
        .allowlist_type("kfd_.*")
        .allowlist_var("KFD_.*")
        .derive_default(true)
        .layout_tests(false)
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("xad-emukfd: bindgen could not read {header} ({e}); install linux-libc-dev");
            std::process::exit(1);
        }
    };
    if let Err(e) = bindings.write_to_file(out.join("kfd.rs")) {
        eprintln!("xad-emukfd: cannot write the bindings: {e}");
        std::process::exit(1);
    }
    drm_bindings(&out);
    cc::Build::new()
        .file("src/requests.c")
        .include(&shim)
        .warnings(true)
        .compile("xad_kfd_requests");
}

/// libdrm's `struct amdgpu_gpu_info` (libdrm-dev's `<libdrm/amdgpu.h>`), the
/// answer to `amdgpu_query_gpu_info`, which ROCr 6.x/7.x's thunk requires.
fn drm_bindings(out: &std::path::Path) {
    let header = "/usr/include/libdrm/amdgpu.h";
    println!("cargo:rerun-if-changed={header}");
    let bindings = match bindgen::Builder::default()
        .header_contents("drm.h", "#include <stdint.h>\n#include <stddef.h>\n#include <libdrm/amdgpu.h>\n")
        .clang_arg("-I/usr/include/libdrm")
        .allowlist_type("amdgpu_gpu_info")
        .derive_default(true)
        .layout_tests(false)
        .generate()
    {
        Ok(b) => b,
        Err(e) => {
            eprintln!("xad-emukfd: bindgen could not read {header} ({e}); install libdrm-dev");
            std::process::exit(1);
        }
    };
    if let Err(e) = bindings.write_to_file(out.join("drm.rs")) {
        eprintln!("xad-emukfd: cannot write the libdrm bindings: {e}");
        std::process::exit(1);
    }
}
