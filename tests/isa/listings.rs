//! `llvm-objdump -d --mcpu=<target>` of every embedded code object, taken
//! once per test binary and shared: the encoding checks (cases_encoding) and
//! the wait and hazard checks (kernel_rules) read the same listings.
//! One objdump run per target lists all its kernels (about 24 runs instead of
//! one per code object, which were 1,000 and most of this crate's time).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use xad_harness::platform::embedded as kernels;
use xad_harness::platform::target::TARGETS;

/// The listing of kernel `name` as built for `target`.
pub fn listing(target: &str, name: &str) -> &'static str {
    all()
        .get(&(target.to_string(), name.to_string()))
        .unwrap_or_else(|| panic!("kernel {name} is not embedded for {target}"))
}

fn all() -> &'static HashMap<(String, String), String> {
    static ALL: OnceLock<HashMap<(String, String), String>> = OnceLock::new();
    ALL.get_or_init(|| {
        let targets: Vec<&str> = TARGETS
            .iter()
            .map(|t| t.name)
            .filter(|t| kernels::for_target(t).next().is_some())
            .collect();
        // Two threads: the runs are independent and the machine has 2 cores.
        std::thread::scope(|s| {
            let handles: Vec<_> = targets
                .chunks(targets.len().div_ceil(2).max(1))
                .map(|chunk| {
                    s.spawn(move || chunk.iter().flat_map(|t| of_target(t)).collect::<Vec<_>>())
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("objdump thread"))
                .collect()
        })
    })
}

/// Every kernel of `target`, disassembled by one run of the llvm-objdump of
/// the LLVM that built it (gfx950: LLVM 22), split at each file's header.
fn of_target(target: &str) -> Vec<((String, String), String)> {
    let objdump = kernels::objdump_for(target).unwrap_or_else(|| {
        panic!("build.rs found no llvm-objdump for {target}; cannot check encodings")
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let files: Vec<(PathBuf, &str)> = kernels::for_target(target)
        .map(|k| {
            let path = dir.path().join(format!("{}.hsaco", k.name));
            std::fs::write(&path, k.bytes).expect("write code object");
            (path, k.name)
        })
        .collect();
    let out = Command::new(objdump)
        .args(["-d", &format!("--mcpu={target}")])
        .args(files.iter().map(|(p, _)| p))
        .output()
        .unwrap_or_else(|e| panic!("running {objdump}: {e}"));
    assert!(
        out.status.success(),
        "llvm-objdump --mcpu={target} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // Each file's part starts with `<path>:\tfile format elf64-amdgpu`.
    let mut parts: HashMap<&str, String> = HashMap::new();
    let mut current: Option<&str> = None;
    for line in text.lines() {
        if let Some((path, _)) = line.split_once(":\tfile format ") {
            current = files
                .iter()
                .find(|(p, _)| p.as_os_str() == path)
                .map(|&(_, name)| name);
            assert!(
                current.is_some(),
                "objdump named a file it was not given: {line}"
            );
            continue;
        }
        if let Some(name) = current {
            let part = parts.entry(name).or_default();
            part.push_str(line);
            part.push('\n');
        }
    }
    files
        .iter()
        .map(|&(_, name)| {
            let part = parts
                .remove(name)
                .unwrap_or_else(|| panic!("objdump printed nothing for {name} ({target})"));
            ((target.to_string(), name.to_string()), part)
        })
        .collect()
}
