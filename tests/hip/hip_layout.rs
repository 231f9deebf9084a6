//! The device-properties shim (src/platform/hip/shim.c) against the header it was
//! built with: ROCm 6 changed `hipDeviceProp_t`'s layout and, by macro, the
//! symbol that fills it, so a shim whose struct and symbol came from different
//! versions would let the runtime write 1472 bytes into a 792-byte struct (or
//! read gcnArchName from the wrong offset). Checked here, for the HIP root this
//! crate was built against (`XAD_HIP_ROOT`, printed by the build as "HIP
//! root ..."):
//!
//! - the header pairs `hipGetDeviceProperties` with the layout its symbol
//!   fills: `hipGetDeviceProperties` (R0000) 792 bytes, gcnArchName at 396;
//!   `hipGetDevicePropertiesR0600` 1472 bytes, gcnArchName at 1160; 256 bytes
//!   of gcnArchName in both;
//! - HIP 5.x headers name the R0000 pair, 6.x and 7.x the R0600 pair;
//! - the built `xad-harness` binary imports exactly the symbol the header
//!   names, and not the other one.
//!
//! The C side is compiled the way build.rs compiles the shim (same header
//! root, `-D__HIP_PLATFORM_AMD__`); it calls nothing, so it runs without any
//! HIP runtime.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The HIP root build.rs took the headers, the shim and the library from.
const HIP_ROOT: &str = env!("XAD_HIP_ROOT");

/// What `sizeof`/`offsetof` say for the struct the header pairs with the symbol.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    symbol: String,
    size: usize,
    arch_offset: usize,
    arch_bytes: usize,
    major: u32,
}

const PROGRAM: &str = r#"
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdio.h>
#define EXPANDED(x) STRINGIFY(x)
#define STRINGIFY(x) #x
int main(void) {
    hipDeviceProp_t prop;
    printf("%s %zu %zu %zu %d\n", EXPANDED(hipGetDeviceProperties), sizeof prop,
           offsetof(hipDeviceProp_t, gcnArchName), sizeof prop.gcnArchName, HIP_VERSION_MAJOR);
    return 0;
}
"#;

/// Compile and run PROGRAM against the root's header, in a private directory.
fn header_layout() -> Layout {
    let dir = tempfile::tempdir().expect("temporary directory");
    let source = dir.path().join("layout.c");
    let exe = dir.path().join("layout");
    std::fs::write(&source, PROGRAM).expect("writing layout.c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let include = Path::new(HIP_ROOT).join("include");
    let output = Command::new(&cc)
        .args(["-std=c11", "-D__HIP_PLATFORM_AMD__"])
        .arg(format!("-I{}", include.display()))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(
        output.status.success(),
        "{cc} against {}:\n{}",
        include.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let output = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    parse_layout(&text).unwrap_or_else(|| panic!("unexpected layout line {text:?}"))
}

fn parse_layout(line: &str) -> Option<Layout> {
    let mut words = line.split_whitespace();
    let symbol = words.next()?.to_string();
    let mut number = || words.next()?.parse::<usize>().ok();
    let (size, arch_offset, arch_bytes, major) = (number()?, number()?, number()?, number()?);
    Some(Layout {
        symbol,
        size,
        arch_offset,
        arch_bytes,
        major: u32::try_from(major).ok()?,
    })
}

/// The layout each symbol fills, as the runtimes define it (gcc against the
/// 5.2.3, 6.2.2, 6.4.3 and 7.2.4 headers; ROCm's hip_deprecated.h keeps R0000).
fn expected_for(symbol: &str) -> Option<(usize, usize, usize)> {
    match symbol {
        "hipGetDeviceProperties" => Some((792, 396, 256)),
        "hipGetDevicePropertiesR0600" => Some((1472, 1160, 256)),
        _ => None,
    }
}

#[test]
fn header_pairs_the_symbol_with_its_layout() {
    let layout = header_layout();
    let want = expected_for(&layout.symbol).unwrap_or_else(|| {
        panic!("{HIP_ROOT}: hipGetDeviceProperties expands to an unknown symbol: {layout:?}")
    });
    assert_eq!(
        (layout.size, layout.arch_offset, layout.arch_bytes),
        want,
        "{HIP_ROOT}: {layout:?}"
    );
    let symbol_for_major = if layout.major >= 6 {
        "hipGetDevicePropertiesR0600"
    } else {
        "hipGetDeviceProperties"
    };
    assert_eq!(
        layout.symbol, symbol_for_major,
        "{HIP_ROOT}: HIP {} header: {layout:?}",
        layout.major
    );
}

/// Negative control for the table above: a struct paired with the other
/// symbol's layout is rejected.
#[test]
fn a_mismatched_pair_is_rejected() {
    let swapped = Layout {
        symbol: "hipGetDevicePropertiesR0600".into(),
        size: 792,
        arch_offset: 396,
        arch_bytes: 256,
        major: 6,
    };
    assert_ne!(
        expected_for(&swapped.symbol),
        Some((swapped.size, swapped.arch_offset, swapped.arch_bytes))
    );
    assert_eq!(expected_for("hipGetDevicePropertiesR9999"), None);
    assert_eq!(parse_layout("hipGetDeviceProperties 792 396"), None);
}

/// Undefined dynamic symbols of `binary` whose name starts with `prefix`.
fn imports(binary: &Path, prefix: &str) -> Vec<String> {
    use object::{Object, ObjectSymbol};
    let data =
        std::fs::read(binary).unwrap_or_else(|e| panic!("reading {}: {e}", binary.display()));
    let file =
        object::File::parse(&*data).unwrap_or_else(|e| panic!("parsing {}: {e}", binary.display()));
    let mut names: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok().map(String::from))
        .filter(|n| n.starts_with(prefix))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_binary_calls_the_symbol_its_header_pairs_with_the_layout() {
    let layout = header_layout();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_xad-harness"));
    let called = imports(&binary, "hipGetDeviceProperties");
    assert_eq!(
        called,
        std::slice::from_ref(&layout.symbol),
        "{}: built against {HIP_ROOT} ({layout:?})",
        binary.display()
    );
}
