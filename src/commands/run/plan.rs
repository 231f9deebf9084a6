//! What a `run` will do, decided before anything launches: the cases the
//! request selects, the devices and targets that run them, each target's
//! cases with their code objects resolved once ([`crate::platform::embedded::code_object`]),
//! the cases a target lacks, and the user's `--kernel` (opened before the
//! backend is chosen, so that its target can choose the device, and loaded
//! for its one case and target). [`make`] is the one entry; what it refuses
//! is a usage error (exit 2) or a toolchain fault (exit 3) before any device
//! runs anything.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::model::cases::{self, Case};
use crate::pipeline::interrupt::Interrupt;
use crate::pipeline::run::{self, KernelSource, Loaded};
use crate::platform::backend::{self, BackendChoice, Runner, Selected, Unit};
use crate::platform::codeobj::elf::MAX_CODE_OBJECT_BYTES;
use crate::platform::codeobj::launch::{self, CaseAbi};
use crate::platform::codeobj::CodeObject;
use crate::platform::embedded::{EmbeddedCodeObject, NotBuilt};
use crate::platform::target::{self, Choice, Target};
use crate::{platform::hip, platform::toolchain};

/// What the user asked `run` for.
#[derive(Debug, Clone)]
pub struct Request {
    /// Lanes per case.
    pub lanes: u64,
    /// Seed for inputs and scalar arguments; a fresh one when `None`.
    pub seed: Option<u64>,
    /// HIP device indices (`--device 0,2`); every matching device when
    /// `None` (the emulator is device 0).
    pub devices: Option<Vec<usize>>,
    /// Case names or globs, comma separated; every case when `None` (only
    /// `basic` with a `kernel`).
    pub cases: Option<String>,
    /// The user's own kernel: a `.s`/`.S`/`.asm` source, or a code object.
    pub kernel: Option<PathBuf>,
    pub backend: BackendChoice,
    /// `--target`: the device's own (default), one, or all.
    pub target: Choice,
    /// Watchdog per dispatch.
    pub timeout: Duration,
    /// Failing lanes recorded per case.
    pub max_mismatches: usize,
    /// Set by SIGINT/SIGTERM; the run stops at the next dispatch boundary.
    pub interrupt: Interrupt,
    /// `--dump DIR`: where failing (or all) lanes are written.
    pub dump: Option<super::dump::Sink>,
    /// The command line, for the report.
    pub command: Vec<String>,
    /// Lanes checked so far over every case and device, for a progress bar.
    pub lanes_done: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// Instructions one emulated wave may execute (`--step-budget`,
    /// [`crate::platform::emu::DEFAULT_STEP_BUDGET`] by default).
    pub step_budget: u64,
}

/// A run decided: the devices with the targets each runs, in order
/// (`selected`), each target's share (`targets`), and the user's kernel
/// loaded for the run's one case and target (`user`; every case then runs
/// it instead of its embedded code object).
pub struct Plan {
    pub selected: Selected,
    pub targets: Vec<TargetPlan>,
    pub user: Option<Loaded>,
    /// Why the user's kernel cannot run, found after the devices were
    /// chosen: the report still names them, then the run stops with it.
    pub refused: Option<Error>,
}

/// One target's share of the run: the chosen cases its ISA has, each with
/// its code object, those it lacks that the user named (reported
/// `not_supported`), and how many it lacks that nobody named (cases of
/// other generations: only counted).
pub struct TargetPlan {
    pub target: &'static Target,
    pub runs: Vec<Planned>,
    pub lacks: Vec<Case>,
    pub other_generations: usize,
}

/// A case a target runs, with its embedded code object for that target
/// resolved once ([`crate::platform::embedded::code_object`]), or why this binary has
/// none.
#[derive(Debug, Clone)]
pub struct Planned {
    pub case: Case,
    pub code: std::result::Result<&'static EmbeddedCodeObject, NotBuilt>,
}

impl Planned {
    /// `case` with its code object for `target`.
    pub fn new(case: Case, target: &Target) -> Planned {
        let code = crate::platform::embedded::code_object(target, case.kernel);
        Planned { case, code }
    }

    /// The code object that runs this case: the user's when the run has
    /// one, else its embedded one, parsed.
    pub fn load(&self) -> Result<Loaded> {
        let embedded = self.code.map_err(|e| Error::Io(e.to_string()))?;
        run::parse_embedded(embedded).map_err(Error::Io)
    }
}

impl Plan {
    /// The share of `target`, if the run has one.
    pub fn of(&self, target: &Target) -> Option<&TargetPlan> {
        self.targets.iter().find(|p| p.target.name == target.name)
    }

    /// Results the run will have: per device, each of its targets' cases,
    /// run or not supported.
    pub fn results(&self) -> usize {
        let of_unit = |u: &Unit| -> usize {
            u.targets
                .iter()
                .filter_map(|t| self.of(t))
                .map(|p| p.runs.len() + p.lacks.len())
                .sum()
        };
        self.selected.units.iter().map(of_unit).sum()
    }
}

/// Decide what `request` runs: open the user's kernel, choose the cases,
/// select the devices and their targets, share the cases out by target with
/// their code objects, and load the user's kernel for its case and target
/// (refused, in [`Plan::refused`], where the device's runtime would refuse it).
pub fn make(request: &Request) -> Result<Plan> {
    let user = match &request.kernel {
        Some(path) => Some(UserKernel::open(path, request.target)?),
        None => None,
    };
    let chosen = choose_cases(request, user.as_ref())?;
    if user.is_some() && chosen.len() != 1 {
        return Err(kernel_needs_one_case(request, chosen.len()));
    }
    let (selected, targets) = select_and_plan(request, user.as_ref(), &chosen)?;
    let mut plan = Plan {
        selected,
        targets,
        user: None,
        refused: None,
    };
    if let (Some(user), Some(target)) = (user, plan.selected.targets().first().copied()) {
        // The one case, for the one target the run has.
        let loaded = user.load(&chosen[0], target).and_then(|loaded| {
            if plan.selected.units.iter().any(Unit::is_hip) {
                refuse_what_the_runtime_would(&loaded)?;
            }
            Ok(loaded)
        });
        match loaded {
            Ok(loaded) => plan.user = Some(loaded),
            Err(e) => plan.refused = Some(e),
        }
    }
    Ok(plan)
}

/// The devices and targets of the run, each target with the chosen cases it
/// runs (or lacks); only targets with one of them stay, and a device left
/// with none is not part of the run (unless it is one that runs nothing
/// asked: it is reported, its cases not_supported).
fn select_and_plan(
    request: &Request,
    user: Option<&UserKernel>,
    chosen: &[Case],
) -> Result<(Selected, Vec<TargetPlan>)> {
    let choice = user.map_or(request.target, UserKernel::choice);
    let mut selected = backend::select(request.backend, request.devices.as_deref(), choice)?;
    if user.is_none() {
        leave_out_unbuilt(&mut selected, crate::platform::embedded::built)?;
    }
    // A user's kernel stands for its one case; otherwise only the patterns
    // that are plain names ask for a case, a glob only picks among them.
    let named: Vec<&str> = match (user, &request.cases) {
        (Some(_), _) => chosen.iter().map(|c| c.name).collect(),
        (None, Some(patterns)) => cases::named_exactly(patterns),
        (None, None) => Vec::new(),
    };
    let plan = plan(chosen, &selected.targets(), request.target, &named)?;
    for unit in &mut selected.units {
        unit.targets
            .retain(|t| plan.iter().any(|p| p.target.name == t.name));
    }
    selected
        .units
        .retain(|u| !u.targets.is_empty() || matches!(u.runner, Runner::Unsupported(_)));
    Ok((selected, plan))
}

/// Drop the targets this binary has no code objects for (build.rs found no
/// LLVM that knows them), naming each in the notes; when none is left, that
/// is the run's error (exit 3), not an empty pass.
/// `built` is [`crate::platform::embedded::built`] (a parameter so tests can name
/// a target unbuilt: a normal build has none).
fn leave_out_unbuilt(
    selected: &mut backend::Selected,
    built: fn(&Target) -> std::result::Result<(), crate::platform::embedded::NotBuilt>,
) -> Result<()> {
    // One look-up per target: built, or the reason it was not.
    let all = selected.targets();
    let reasons: Vec<_> = all
        .iter()
        .filter_map(|&t| built(t).err().map(|e| (t.name, e)))
        .collect();
    if reasons.len() == all.len() && !reasons.is_empty() {
        return Err(Error::Toolchain(reasons[0].1.into_toolchain_error()));
    }
    selected
        .notes
        .extend(reasons.iter().map(|(_, r)| format!("{r}; not run")));
    for unit in &mut selected.units {
        unit.targets
            .retain(|t| !reasons.iter().any(|(n, _)| *n == t.name));
    }
    selected
        .units
        .retain(|u| !u.targets.is_empty() || matches!(u.runner, Runner::Unsupported(_)));
    Ok(())
}

/// The cases each target runs: those of `chosen` its ISA has. A case `named`
/// by its exact name (`--case NAME`, or `--kernel`'s case) that one
/// `--target` lacks is a usage error: the user asked for it and it cannot
/// run; with `--target all` or on the device's target it is reported
/// `not_supported` where the ISA lacks it. A case a glob picked, like every
/// case of the whole catalogue, belongs to other generations where the ISA
/// lacks it: only counted (`list --target` says which): `--target gfx908
/// --case '*'` runs what gfx908 has. A target left with no case to run is
/// dropped; none left at all is a usage error.
fn plan(
    chosen: &[Case],
    targets: &[&'static Target],
    choice: Choice,
    named: &[&str],
) -> Result<Vec<TargetPlan>> {
    let mut plan = Vec::new();
    for &t in targets {
        let (runs, lacks): (Vec<Case>, Vec<Case>) = chosen.iter().partition(|c| c.runs_on(t));
        let missing = lacks.iter().find(|c| named.contains(&c.name));
        if let (Choice::One(_), Some(missing)) = (choice, missing) {
            let needs: Vec<&str> = missing.lacks_on(t).iter().map(|f| f.name()).collect();
            let needs = needs.join(", ");
            return Err(Error::Usage(format!(
                "case {} needs {needs}, which {} lacks; see `xad-harness list --target {}`",
                missing.name, t.name, t.name
            )));
        }
        if !runs.is_empty() {
            let (lacks, other): (Vec<Case>, Vec<Case>) =
                lacks.into_iter().partition(|c| named.contains(&c.name));
            plan.push(TargetPlan {
                target: t,
                runs: runs.into_iter().map(|c| Planned::new(c, t)).collect(),
                lacks,
                other_generations: other.len(),
            });
        }
    }
    if plan.is_empty() {
        let names: Vec<&str> = chosen.iter().map(|c| c.name).collect();
        let on: Vec<&str> = targets.iter().map(|t| t.name).collect();
        let have: Vec<&str> = target::TARGETS
            .iter()
            .filter(|t| chosen.iter().any(|c| c.runs_on(t)))
            .map(|t| t.name)
            .collect();
        return Err(Error::Usage(format!(
            "no target of this run ({}) has case(s) {}; --target {} or all has",
            on.join(", "),
            names.join(", "),
            have.join(", ")
        )));
    }
    Ok(plan)
}

/// The cases `request` selects: its patterns, else for a user's kernel the
/// basic case of its wave size ([`UserKernel::basic_case`]), else the whole
/// catalogue. Every pattern must match a case, even beside others that do: a
/// typo would otherwise silently drop a case.
fn choose_cases(request: &Request, user: Option<&UserKernel>) -> Result<Vec<Case>> {
    match (&request.cases, user) {
        (Some(p), _) => {
            let chosen = cases::select(p).map_err(Error::Usage)?;
            for one in p.split(',').map(str::trim).filter(|one| !one.is_empty()) {
                cases::select(one).map_err(Error::Usage)?;
            }
            Ok(chosen)
        }
        (None, Some(user)) => cases::select(user.basic_case()).map_err(Error::Usage),
        // Every case; `plan` keeps, per target, those its ISA has.
        (None, None) => Ok(cases::catalogue()),
    }
}

/// The usage errors in `request` that can be found without running
/// anything (case patterns, one case for a `--kernel`), so the CLI can show
/// them beside other refusals before it gives up.
pub fn check_request(request: &Request) -> Vec<Error> {
    if request.cases.is_none() {
        // The whole catalogue, or a kernel's basic case: nothing to refuse yet.
        return Vec::new();
    }
    match choose_cases(request, None) {
        Err(e) => vec![e],
        Ok(chosen) if request.kernel.is_some() && chosen.len() != 1 => {
            vec![kernel_needs_one_case(request, chosen.len())]
        }
        Ok(_) => Vec::new(),
    }
}

fn kernel_needs_one_case(request: &Request, matched: usize) -> Error {
    let path = request.kernel.as_deref().unwrap_or(Path::new(""));
    Error::Usage(format!(
        "--kernel {} needs exactly one case, but --case matched {matched}",
        path.display()
    ))
}

/// The user's `--kernel`, opened before the backend is chosen so that its
/// target can choose the device: a code object is read and validated
/// ([`CodeObject::parse`], at most [`MAX_CODE_OBJECT_BYTES`], checked before
/// reading) and says its own target; a source (`.s`/`.S`/`.asm`) is
/// assembled later for `--target`, else the processor its `.amdgcn_target`
/// names, else the device's target. Anything wrong with the file itself is
/// bad input (exit 2); a missing or broken toolchain is a fault (exit 3).
pub enum UserKernel {
    Code {
        code: CodeObject,
        path: PathBuf,
        target: &'static Target,
    },
    Source {
        path: PathBuf,
        target: Option<&'static Target>,
    },
}

fn is_source(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "s" || e == "S" || e == "asm")
}

impl UserKernel {
    pub fn open(path: &Path, choice: Choice) -> Result<UserKernel> {
        let shown = path.display();
        // A FIFO, device or directory is refused by the read below, by name.
        if std::fs::metadata(path).is_err() {
            return Err(Error::Usage(format!("--kernel {shown}: no such file")));
        }
        if choice == Choice::All {
            return Err(Error::Usage(format!(
                "--kernel {shown} is built for one target; --target all runs the embedded kernels"
            )));
        }
        let bytes = read_bounded(path)?; // the same cap for a source, before the assembler reads it
        if is_source(path) {
            let target = match choice {
                Choice::One(t) => Some(t),
                _ => directive_target(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?,
            };
            return Ok(UserKernel::Source {
                path: path.to_path_buf(),
                target,
            });
        }
        let code = CodeObject::parse(&bytes)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        let built = target::find(&code.target.arch).ok_or_else(|| {
            Error::Usage(format!(
                "--kernel {shown} is built for {}, which the harness has no target for; known: {}",
                code.target.arch,
                target::names().join(", ")
            ))
        })?;
        let target = match choice {
            Choice::One(t) if target::code_runs_on(built.name, t.name) => t,
            Choice::One(t) => {
                return Err(Error::Usage(format!(
                    "--kernel {shown} is built for {}, which does not run on --target {}",
                    built.name, t.name
                )))
            }
            _ => built,
        };
        Ok(UserKernel::Code {
            code,
            path: path.to_path_buf(),
            target,
        })
    }

    /// The case a kernel given without `--case` is run as: `out = xad(a, b,
    /// c)`, one word per lane, in the kernel's wave size (`basic` is wave32,
    /// `basic_w64` wave64). A code object says its wave size; a source is
    /// wave64 on a target without wave32 (gfx9) and taken as wave32
    /// elsewhere (a wave64 source there needs `--case basic_w64`; the ABI
    /// check says so before launch).
    pub fn basic_case(&self) -> &'static str {
        let wave64 = match self {
            UserKernel::Code { code, .. } => code
                .kernels
                .first()
                .is_some_and(|k| k.meta.wavefront_size == 64),
            UserKernel::Source { target, .. } => {
                target.is_some_and(|t| !t.has(target::Feature::Wave32))
            }
        };
        if wave64 {
            "basic_w64"
        } else {
            "basic"
        }
    }

    /// The target choice the backend selects with.
    pub fn choice(&self) -> Choice {
        match self {
            UserKernel::Code { target, .. }
            | UserKernel::Source {
                target: Some(target),
                ..
            } => Choice::One(target),
            UserKernel::Source { target: None, .. } => Choice::Device,
        }
    }

    /// The code object standing in for `case` on `target` (a source is
    /// assembled now), its kernel fitting the case's ABI
    /// ([`launch::check_case_abi`]: wave size, explicit arguments).
    pub fn load(self, case: &Case, target: &Target) -> Result<Loaded> {
        let (code, path) = match self {
            UserKernel::Code { code, path, .. } => (code, path),
            UserKernel::Source { path, .. } => (assemble(&path, target)?, path),
        };
        let shown = path.display();
        let loaded = Loaded {
            code,
            source: KernelSource::User {
                path: shown.to_string(),
            },
        };
        let kernel = run::kernel_for(&loaded, case)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        let abi = CaseAbi {
            case: case.name,
            wave_size: case.wave_size,
            scalar_args: case.scalar_args,
        };
        launch::check_case_abi(&kernel.meta, &abi)
            .map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))?;
        Ok(loaded)
    }
}

/// A `--kernel` the HIP runtime in this process would refuse, said in one
/// line before it is handed over (exit 2): the runtime's own comgr cannot
/// name its ISA (comgr 5.2 and a code object v5), cannot read its metadata,
/// or a kernel lacks a field the runtime refuses a kernel without
/// ([`hip::comgr::refusal`]). Only where the runtime has loaded comgr, as CLR
/// does when it initialises: a runtime without it (the emulated HIP library)
/// is not asked about, and a CLR that found no comgr loads no code object at
/// all and says so itself.
fn refuse_what_the_runtime_would(loaded: &Loaded) -> Result<()> {
    let KernelSource::User { path } = &loaded.source else {
        return Ok(());
    };
    if !hip::comgr::loaded_in_process() {
        return Ok(());
    }
    let Ok(reading) = hip::comgr::read(&loaded.code.bytes) else {
        return Ok(());
    };
    match hip::comgr::refusal(&reading) {
        Some(why) => {
            let version = crate::platform::codeobj::elf::validate(&loaded.code.bytes)
                .map(|facts| format!(" (code object v{})", facts.code_object_version))
                .unwrap_or_default();
            Err(Error::Usage(format!(
                "--kernel {path}{version}: the HIP runtime would refuse it: {why}"
            )))
        }
        None => Ok(()),
    }
}

/// Assemble the user's source for `target` and validate the result.
fn assemble(path: &Path, target: &Target) -> Result<CodeObject> {
    let shown = path.display();
    let bytes = match toolchain::assemble_file(path, target.name) {
        Ok(bytes) => bytes,
        Err(e @ crate::platform::toolchain::ToolchainError::Failed { .. }) => {
            return Err(Error::Usage(format!(
                "--kernel {shown} does not assemble for {}: {e}",
                target.name
            )))
        }
        Err(e) => return Err(e.into()),
    };
    CodeObject::parse(&bytes).map_err(|e| Error::Usage(format!("--kernel {shown}: {e}")))
}

/// The target a source's `.amdgcn_target "amdgcn-amd-amdhsa--<processor>"`
/// directive names, if it has one (the assembler refuses a directive that
/// differs from `-mcpu`, so it decides what to assemble for).
/// A directive inside a comment is not one ([`toolchain::directive_target_id`]).
fn directive_target(source: &str) -> std::result::Result<Option<&'static Target>, String> {
    let Some(id) = toolchain::directive_target_id(source) else {
        return Ok(None);
    };
    let processor = target::processor_of(&id);
    target::find(processor).map(Some).ok_or_else(|| {
        format!(
            ".amdgcn_target names {processor}, which the harness has no target for; known: {}",
            target::names().join(", ")
        )
    })
}

/// Read `path` by the tool's rule for inputs ([`crate::platform::files::read_input`]):
/// a regular file of at most [`MAX_CODE_OBJECT_BYTES`], checked before
/// reading and again while reading.
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    crate::platform::files::read_input(
        &format!("--kernel {}", path.display()),
        path,
        MAX_CODE_OBJECT_BYTES,
    )
}
#[cfg(test)]
mod tests {
    use super::*;

    fn gfx950_unbuilt(
        target: &Target,
    ) -> std::result::Result<(), crate::platform::embedded::NotBuilt> {
        match target.name {
            "gfx950" => Err(crate::platform::embedded::NotBuilt {
                target: "gfx950",
                kernel: "",
                why: Some("no LLVM toolchain that assembles gfx950 was found"),
            }),
            _ => Ok(()),
        }
    }

    fn selected(names: &[&str]) -> Selected {
        let targets = names.iter().map(|n| target::find(n).unwrap()).collect();
        Selected::emulated(targets, Vec::new())
    }

    /// `--target all` over the whole catalogue: every case a target runs
    /// has its code object, resolved when the plan is made.
    #[test]
    fn every_planned_case_has_its_code_object() {
        let request = Request {
            lanes: 64,
            seed: Some(1),
            devices: None,
            cases: None,
            kernel: None,
            backend: BackendChoice::Emu,
            target: Choice::All,
            timeout: Duration::from_secs(60),
            max_mismatches: 10,
            interrupt: Interrupt::default(),
            dump: None,
            command: Vec::new(),
            lanes_done: Default::default(),
            step_budget: crate::platform::emu::DEFAULT_STEP_BUDGET,
        };
        let plan = make(&request).unwrap();
        assert!(plan.user.is_none() && plan.refused.is_none());
        let built = target::TARGETS
            .iter()
            .filter(|t| crate::platform::embedded::built(t).is_ok());
        assert_eq!(plan.targets.len(), built.count());
        for p in &plan.targets {
            for planned in &p.runs {
                let code = planned.code.unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    (code.target, code.name),
                    (p.target.name, planned.case.kernel)
                );
            }
        }
    }

    #[test]
    fn an_unbuilt_target_is_named_and_left_out_of_a_run_with_others() {
        let mut s = selected(&["gfx942", "gfx950", "gfx1030"]);
        leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap();
        let names: Vec<&str> = s.targets().iter().map(|t| t.name).collect();
        assert_eq!(
            s.units.len(),
            2,
            "the unbuilt target's emulated device is gone"
        );
        assert_eq!(names, ["gfx942", "gfx1030"]);
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(
            s.notes[0].contains("without code objects for gfx950")
                && s.notes[0].contains("clang-22"),
            "{}",
            s.notes[0]
        );
    }

    #[test]
    fn a_run_of_only_unbuilt_targets_is_a_toolchain_fault_not_an_empty_pass() {
        let mut s = selected(&["gfx950"]);
        let e = leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::FAULT);
        assert!(e.to_string().contains("gfx950"), "{e}");
        let mut s = selected(&["gfx1100"]);
        leave_out_unbuilt(&mut s, gfx950_unbuilt).unwrap();
        assert!(s.notes.is_empty());
    }
}
