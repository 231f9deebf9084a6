//! Build script: for each target of the target table (`xad_build::target`),
//! find and prove an LLVM toolchain, assemble every `kernels/cases/<case>.s`
//! whose `// needs:` line the target has into an HSA code object in `OUT_DIR`,
//! and generate the table that embeds them; generate the HIP bindings the host
//! uses. The HIP root is found first: its `hip/hip_version.h` decides the code
//! object version each target is assembled as (`xad_build::code_object_policy`).
//! Writes nowhere but `OUT_DIR`.
//!
//! What it shares with the library is the `xad-build` crate
//! (`crates/xad-build`), a build-dependency: Cargo rebuilds and reruns this
//! script when that crate changes, so its files need no `rerun-if-changed`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use xad_build::toolchain as discover;
use xad_build::{code_object_policy, hip_root, target};

// The runtime functions the backend calls: the FFI room's list, which the
// library declares (`hip::FUNCTIONS`) and the bindings are generated for, so
// the two cannot drift apart. `include!` makes it part of this script's own
// compilation, so an edit rebuilds and reruns the script without a rerun line.
include!("src/platform/hip/functions.rs");

fn main() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for var in discover::SEARCH_ENV {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=XAD_GIT_DESCRIBE");
    // The source's `git describe`, for reports. Taken when this script runs
    // (kernels or build inputs changed, or a fresh build), not on every
    // commit: re-running on each commit would re-assemble every kernel.
    let describe = std::env::var("XAD_GIT_DESCRIBE").ok().or_else(git_describe);
    println!(
        "cargo:rustc-env=XAD_GIT_DESCRIBE={}",
        describe.unwrap_or_else(|| "unknown (not built from a git checkout)".to_string())
    );

    if let Err(message) = build(&out_dir) {
        // One readable line per problem; cargo shows these and stops the build.
        eprintln!("error: {message}");
        println!("cargo:warning={message}");
        std::process::exit(1);
    }
}

/// The HIP root and its version first (the kernels are assembled for that
/// runtime's loader), then the kernels, then the HIP bindings.
fn build(out_dir: &Path) -> Result<(), String> {
    hip_root::rerun_if_changed();
    let root = hip_root::find_root()?;
    let runtime = hip_root::runtime_version(&root)?;
    println!("cargo:rustc-env=XAD_HIP_VERSION={runtime}");
    let (assembled, total) = build_kernels(out_dir, runtime)?;
    // Printed on every build-script run: which HIP this binary is built
    // against, the code object versions chosen for it, and how many kernels
    // had to be assembled again (an edit to one stub: that stub's only).
    println!(
        "cargo:warning={}; {}; {assembled} of {total} kernels assembled, the others up to date",
        hip_root::describe(&root, runtime),
        code_object_summary(runtime)
    );
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let ffi = hip_root::Ffi {
        functions: FUNCTIONS,
        shim_dir: &manifest.join("src/platform/hip"),
    };
    hip_root::generate(out_dir, &root, &ffi)
}

/// `code objects for HIP 5.2: v4 gfx908 gfx90a gfx1010 gfx1030; v5 14
/// processors; v6 6 generic targets`: each version chosen, with the targets
/// that get it (named when few).
fn code_object_summary(runtime: code_object_policy::HipVersion) -> String {
    let mut groups: Vec<(u8, Vec<&target::Target>)> = Vec::new();
    for t in target::TARGETS {
        let cov = t.code_object_version(runtime);
        match groups.iter_mut().find(|(v, _)| *v == cov) {
            Some((_, list)) => list.push(t),
            None => groups.push((cov, vec![t])),
        }
    }
    groups.sort_by_key(|(v, _)| *v);
    let parts: Vec<String> = groups
        .iter()
        .map(|(cov, list)| {
            let named = if list.len() <= 4 {
                list.iter().map(|t| t.name).collect::<Vec<_>>().join(" ")
            } else if list.iter().all(|t| t.is_generic()) {
                format!("{} generic targets", list.len())
            } else {
                format!("{} processors", list.len())
            };
            format!("v{cov} {named}")
        })
        .collect();
    format!(
        "code objects for HIP {}.{}: {}",
        runtime.major,
        runtime.minor,
        parts.join("; ")
    )
}

/// A case stub of `kernels/cases/` and what a target must have to build it.
struct Stub {
    src: PathBuf,
    needs: Vec<target::Need>,
}

/// Every `kernels/cases/*.s` with its needs, sorted so the generated table is
/// stable. Each stub's first line says what it needs, as data the build reads
/// (`// needs: wave32 vop3_literal`, `// needs: none` for every target): the
/// stub is built for each target that has it, so no directory or name says
/// which generation a kernel is for.
fn case_stubs(dir: &Path) -> Result<Vec<Stub>, String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "s") {
            found.push(path);
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|src| {
            let text = std::fs::read_to_string(&src)
                .map_err(|e| format!("reading {}: {e}", src.display()))?;
            let needs = target::parse_needs(text.lines().next().unwrap_or(""))
                .map_err(|e| format!("{}: first line: {e}", src.display()))?;
            Ok(Stub { src, needs })
        })
        .collect()
}

/// One code object to assemble: a target's source.
struct Job {
    target: &'static target::Target,
    src: PathBuf,
    hsaco: PathBuf,
}

/// Assemble every case stub for every target (`xad_build::target`) that has what
/// it needs, each target with a toolchain proven for it and its generated
/// `xad_target.inc` and `xad_frame.inc`.
fn build_kernels(
    out_dir: &Path,
    runtime: code_object_policy::HipVersion,
) -> Result<(usize, usize), String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let include_dir = manifest.join("kernels/include");
    let stubs = case_stubs(&manifest.join("kernels/cases"))?;
    let mut jobs = Vec::new();
    let mut toolchains: Vec<Option<discover::Toolchain>> = Vec::new();
    let mut unbuilt = Vec::new();
    let mut first_refusal = None;
    for t in target::TARGETS {
        let tc = match discover::discover_for(t.name, runtime, &out_dir.join("canary")) {
            Ok(tc) => tc,
            // A target no LLVM here knows (gfx950 needs LLVM 22) is left out
            // and named: in a warning now, and by the binary whenever it is
            // asked for (kernels::UNBUILT). Any other failure stops the build.
            Err(e) => {
                let discover::ToolchainError::NotFound { tried, .. } = &e else {
                    return Err(e.to_string());
                };
                println!("cargo:warning={}: not built: {e}", t.name);
                first_refusal.get_or_insert_with(|| e.to_string());
                // The binary's one-line message names where the build looked;
                // the warning above has each place's full refusal.
                let places: Vec<&str> = tried
                    .iter()
                    .map(|p| p.split(" (").next().unwrap_or(p))
                    .collect();
                unbuilt.push((
                    t.name,
                    format!(
                        "no LLVM it found knows {}; tried {}",
                        t.name,
                        places.join(", ")
                    ),
                ));
                toolchains.push(None);
                continue;
            }
        };
        let target_dir = out_dir.join("targets").join(t.name);
        // The frame comes from the row's generation, never from its name.
        discover::write_target_include_for(&target_dir, t.name, runtime, Some(t.frame()))
            .map_err(|e| e.to_string())?;
        for stub in stubs.iter().filter(|s| t.meets(&s.needs)) {
            let stem = stub.src.file_stem().unwrap().to_string_lossy().into_owned();
            jobs.push(Job {
                target: t,
                hsaco: target_dir.join(format!("{stem}.hsaco")),
                src: stub.src.clone(),
            });
        }
        toolchains.push(Some(tc));
    }
    if toolchains.iter().all(Option::is_none) {
        // Nothing at all can be built: the first target's reason is the
        // install hint the user needs.
        return Err(first_refusal
            .unwrap_or_else(|| "xad_build::target::TARGETS has no targets".to_string()));
    }
    let assembled = assemble_stale(&jobs, &toolchains, &include_dir)?;

    let mut table = String::from(
        "// @generated by build.rs: one entry per target and kernels/cases/<case>.s it builds\n\
         pub static EMBEDDED: &[EmbeddedCodeObject] = &[\n",
    );
    for job in &jobs {
        let stem = job.src.file_stem().unwrap().to_string_lossy().into_owned();
        let rel = job
            .src
            .strip_prefix(&manifest)
            .unwrap_or(&job.src)
            .display()
            .to_string();
        writeln!(
            table,
            "    EmbeddedCodeObject {{ target: {:?}, name: {stem:?}, source: {rel:?}, bytes: include_bytes!({:?}) }},",
            job.target.name,
            job.hsaco.display().to_string()
        )
        .unwrap();
    }
    // Which LLVM built each target (targets may differ: gfx950 needs LLVM 22),
    // so tests disassemble each code object with an llvm-objdump that knows it.
    table.push_str("];\n\n// (target, LLVM origin, llvm-objdump or \"\") per built target.\npub static BUILT_WITH: &[(&str, &str, &str)] = &[\n");
    for (t, tc) in target::TARGETS.iter().zip(&toolchains) {
        if let Some(tc) = tc {
            let objdump = tc
                .objdump
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            writeln!(table, "    ({:?}, {:?}, {objdump:?}),", t.name, tc.origin).unwrap();
        }
    }
    table.push_str("];\n\n// Targets build.rs found no toolchain for: (target, why).\npub static UNBUILT: &[(&str, &str)] = &[\n");
    for (name, why) in &unbuilt {
        writeln!(table, "    ({name:?}, {why:?}),").unwrap();
    }
    table.push_str("];\n");
    std::fs::write(out_dir.join("embedded_kernels.rs"), table).map_err(|e| e.to_string())?;

    // Tell the crate which toolchain built it: tests disassemble with the same one.
    if let Some(tc) = toolchains.iter().flatten().next() {
        println!("cargo:rustc-env=XAD_BUILD_CLANG={}", tc.clang.display());
        println!("cargo:rustc-env=XAD_BUILD_LLD={}", tc.lld.display());
        println!(
            "cargo:rustc-env=XAD_BUILD_OBJDUMP={}",
            tc.objdump
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
        println!("cargo:rustc-env=XAD_BUILD_LLVM_ORIGIN={}", tc.origin);
    }
    Ok((assembled, jobs.len()))
}

/// What went into one code object, as a digest stored beside it
/// (`<stem>.key`): the stub, every file of `kernels/include` (a stub may
/// include any of them), the target's generated includes (target ID, code
/// object version, frame), the toolchain's tools, and this build script
/// itself (its binary links the `xad-build` crate, so it changes with any code
/// that decides how kernels are assembled: the toolchain, the target table,
/// the policy). `DefaultHasher::new()` is
/// deterministic within one Rust toolchain, and `OUT_DIR` never outlives one.
fn job_key(job: &Job, tc: &discover::Toolchain, includes: u64) -> Result<String, String> {
    use std::hash::{Hash, Hasher};
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("reading {}: {e}", p.display()));
    let mut h = std::collections::hash_map::DefaultHasher::new();
    includes.hash(&mut h);
    job.target.name.hash(&mut h);
    read(&job.src)?.hash(&mut h);
    let target_dir = job.hsaco.parent().expect("a code object sits in its target's directory");
    for generated in ["xad_target.inc", "xad_frame.inc"] {
        read(&target_dir.join(generated))?.hash(&mut h);
    }
    for tool in [&tc.clang, &tc.lld] {
        tool.hash(&mut h);
        let meta = std::fs::metadata(tool).map_err(|e| format!("{}: {e}", tool.display()))?;
        meta.len().hash(&mut h);
        meta.modified().ok().hash(&mut h);
    }
    Ok(format!("{:016x}", h.finish()))
}

/// The digest of every file of `kernels/include` and of this build script's
/// binary: the part of each job's key that all jobs share.
fn shared_inputs_digest(include_dir: &Path) -> Result<u64, String> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(include_dir)
        .map_err(|e| format!("reading {}: {e}", include_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let exe = std::env::current_exe().map_err(|e| format!("the build script's own path: {e}"))?;
    for file in files.iter().chain([&exe]) {
        file.file_name().hash(&mut h);
        std::fs::read(file)
            .map_err(|e| format!("reading {}: {e}", file.display()))?
            .hash(&mut h);
    }
    Ok(h.finish())
}

/// Assemble the jobs whose code object is missing or whose key changed, as
/// many at once as Cargo's jobserver grants (`cargo build -j N`: the build
/// script holds one token and asks for more before each extra assembler, so
/// it never runs beside more rustc jobs than N). Returns how many were
/// assembled; the first error (with a count of the others) stops the build.
fn assemble_stale(
    jobs: &[Job],
    toolchains: &[Option<discover::Toolchain>],
    include_dir: &Path,
) -> Result<usize, String> {
    let includes = shared_inputs_digest(include_dir)?;
    let toolchain_of = |job: &Job| {
        let k = target::TARGETS
            .iter()
            .position(|t| std::ptr::eq(t, job.target))
            .unwrap();
        toolchains[k]
            .as_ref()
            .expect("jobs exist only for targets with a toolchain")
    };
    let mut stale = Vec::new();
    for job in jobs {
        let key = job_key(job, toolchain_of(job), includes)?;
        let key_file = job.hsaco.with_extension("key");
        let current = job.hsaco.is_file()
            && std::fs::read_to_string(&key_file).is_ok_and(|k| k == key);
        if !current {
            // The old key goes first: an assembly that fails or is
            // interrupted leaves no key claiming its object is current.
            let _ = std::fs::remove_file(&key_file);
            stale.push((job, key, key_file));
        }
    }
    // SAFETY: Cargo passes its jobserver's descriptors to the build script
    // for exactly this; nothing else in this process opens or closes them.
    #[allow(unsafe_code)]
    let jobserver = unsafe { jobserver::Client::from_env() };
    let limit = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let errors: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..limit.min(stale.len().max(1)))
            .map(|worker| {
                let (next, stale, jobserver) = (&next, &stale, &jobserver);
                scope.spawn(move || {
                    let mut errors = Vec::new();
                    // Worker 0 runs on the token Cargo gave the build script;
                    // the others each hold one they asked for, or stay idle
                    // without a jobserver.
                    let _token = match (worker, jobserver) {
                        (0, _) => None,
                        (_, Some(client)) => match client.acquire() {
                            Ok(token) => Some(token),
                            Err(_) => return errors,
                        },
                        (_, None) => return errors,
                    };
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((job, key, key_file)) = stale.get(i) else { break errors };
                        let includes = [include_dir, job.hsaco.parent().unwrap()];
                        let built = toolchain_of(job)
                            .build_code_object(job.target.name, &job.src, &job.hsaco, &includes)
                            .map_err(|e| e.to_string())
                            .and_then(|()| {
                                std::fs::write(key_file, key)
                                    .map_err(|e| format!("writing {}: {e}", key_file.display()))
                            });
                        if let Err(e) = built {
                            errors.push(format!(
                                "assembling {} for {}: {e}",
                                job.src.display(),
                                job.target.name
                            ));
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    match errors.split_first() {
        None => Ok(stale.len()),
        Some((first, [])) => Err(first.clone()),
        Some((first, rest)) => Err(format!("{first} (and {} more)", rest.len())),
    }
}

/// `git describe --tags --always --dirty` of the source tree, if it is a git
/// checkout and git is installed.
fn git_describe() -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let out = std::process::Command::new("git")
        .args(["describe", "--tags", "--always", "--dirty"])
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}
