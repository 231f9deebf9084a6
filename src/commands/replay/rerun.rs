//! `xad-harness replay DIR`: read a dump ([`crate::commands::run::dump`]), check that it is
//! whole and consistent, run its blocks again on any backend, and say per
//! lane whether a recorded failure reproduced, now passes, or fails
//! differently.
//!
//! Everything is checked before a device is opened ([`load`]): the manifest's
//! schema and version, every file's presence, dtype, shape and length, the
//! lane indices against the manifest's ranges, the code object, and the CPU
//! model recomputed from the dumped sources, scalars and prefill on the
//! replay's own layout, which must give the recorded `expected` words
//! exactly. Anything wrong is one line naming the file (exit 2).
//!
//! Blocks are laid out densely, each at a multiple of the workgroup size,
//! and a short block ends its dispatch (see [`crate::commands::run::dump`] for why that
//! keeps every lane's words the same). The code object is the dump's
//! `kernel.hsaco`, so replay runs the bytes that ran, whatever this build
//! embeds. The guard words come from the dump's guard seed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::commands::run::dump::{self, CaseEntry, Manifest};
use crate::error::{exit, Error, ReleaseError, Result};
use crate::model::cases::{self, Case, LaneData};
use crate::model::check::{self, Compare, LaneVerdict, Prefill};
use crate::pipeline::guard::{GuardViolation, GuardedBuffer};
use crate::pipeline::handle::KernelHandle;
use crate::platform::backend::{self, BackendChoice};
use crate::platform::codeobj::elf::MAX_CODE_OBJECT_BYTES;
use crate::platform::codeobj::CodeObject;
use crate::platform::device::{Definedness, Device, DeviceError};
use crate::platform::target::{self, Choice, Target};

/// What `replay` was asked.
#[derive(Debug, Clone)]
pub struct Request {
    pub dir: PathBuf,
    pub backend: BackendChoice,
    pub device: Option<usize>,
    /// Only the blocks holding these global lanes (`--lane`).
    pub lanes: Option<Vec<u64>>,
    /// Only the cases whose names match these globs (`--case`).
    pub cases: Option<String>,
    pub timeout: Duration,
    /// Lane lines printed per case.
    pub max_lines: usize,
}

/// Most output words in one replay dispatch (as `run` bounds its chunks).
const DISPATCH_WORDS: usize = 1 << 17;

/// A dump read and checked, with its dispatches planned.
pub struct Dump {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub cases: Vec<DumpedCase>,
}

/// One case of a dump: its files' contents and the dispatches that replay
/// the chosen blocks.
pub struct DumpedCase {
    pub entry: CaseEntry,
    pub case: Case,
    pub code: CodeObject,
    pub target: &'static Target,
    pub lanes: Vec<u64>,
    pub got: Vec<u32>,
    pub verdicts: Vec<LaneVerdict>,
    pub dispatches: Vec<Planned>,
}

/// One replay dispatch: which dumped rows it holds, in order, and its
/// buffers' contents before launch.
pub struct Planned {
    pub rows: Vec<usize>,
    pub blocks: usize,
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub c: Vec<u32>,
    /// `out` before launch: the dumped prefill, or the poison of `expected`.
    pub out: Vec<u32>,
    pub prefill: bool,
    /// The model's words on this layout (equal to the recorded ones).
    pub expected: Vec<u32>,
}

fn bad(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{}: {what}", path.display()))
}

/// A manifest larger than this is not one the harness wrote (a manifest
/// entry is well under a kilobyte and a dump holds at most a few thousand).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// The largest `.npy` header (format 1.0's length field is 16 bits) and its
/// preamble: a file longer than its data by more is not the dump's.
const NPY_HEADER_MAX: u64 = 10 + 0xffff;

/// A file of the dump `root` by the tool's rule for inputs
/// ([`crate::platform::files::read_input_in`]): a regular file, at most `cap` bytes,
/// not reached through a symlink leading out of the dump.
fn read_in_dump(root: &Path, path: &Path, cap: u64) -> Result<Vec<u8>> {
    crate::platform::files::read_input_in(root, path, cap).map_err(|why| bad(path, why))
}

/// Read `dir`'s manifest and every file of the cases `request` selects,
/// check them, and plan the dispatches.
pub fn load(dir: &Path, cases_glob: Option<&str>, lanes: Option<&[u64]>) -> Result<Dump> {
    let manifest = read_manifest(dir)?;
    let globs = match cases_glob {
        None => Vec::new(),
        Some(p) => p
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                glob::Pattern::new(p)
                    .map_err(|e| Error::Usage(format!("--case {p:?} is not a valid pattern: {e}")))
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let mut chosen = Vec::new();
    for entry in &manifest.cases {
        if globs.is_empty() || globs.iter().any(|g| g.matches(&entry.case)) {
            chosen.push(load_case(dir, entry, lanes)?);
        }
    }
    if chosen.is_empty() && cases_glob.is_some() {
        return Err(Error::Usage(format!(
            "--case {:?} matches no case of the dump {}",
            cases_glob.unwrap_or_default(),
            dir.display()
        )));
    }
    if let Some(wanted) = lanes {
        for lane in wanted {
            let found = chosen.iter().any(|c| c.lanes.binary_search(lane).is_ok());
            if !found {
                return Err(Error::Usage(format!(
                    "--lane {lane}: no dumped case of {} holds that lane",
                    dir.display()
                )));
            }
        }
        chosen.retain(|c| !c.dispatches.is_empty());
    }
    Ok(Dump {
        dir: dir.to_path_buf(),
        manifest,
        cases: chosen,
    })
}

fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(dump::MANIFEST);
    if !dir.is_dir() {
        // A FIFO or file is named for what it is, not as missing.
        let why = if std::fs::metadata(dir).is_ok() {
            let kind = crate::platform::files::not_regular(dir).unwrap_or("a file");
            format!("is {kind}, not a directory; give the directory `run --dump` wrote")
        } else {
            "no such dump directory".to_string()
        };
        return Err(bad(dir, why));
    }
    let bytes = match crate::platform::files::read_input_in(dir, &path, MAX_MANIFEST_BYTES) {
        Err(why) if why.ends_with("missing file") => {
            return Err(bad(&path, "missing file (not a dump directory?)"))
        }
        read => read.map_err(|why| bad(&path, why))?,
    };
    let text = String::from_utf8(bytes).map_err(|e| bad(&path, format!("not UTF-8: {e}")))?;
    // Schema and version first, so a newer dump says so instead of failing on a field.
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(&path, format!("not valid JSON: {e}")))?;
    let schema = value.get("schema").and_then(|s| s.as_str());
    if schema != Some(dump::SCHEMA) {
        return Err(bad(
            &path,
            format!(
                "not an xad-harness dump manifest (schema {schema:?}, expected \"{}\")",
                dump::SCHEMA
            ),
        ));
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(dump::VERSION) => {}
        Some(v) => {
            return Err(bad(
                &path,
                format!(
                    "manifest version {v}; this xad-harness reads version {}",
                    dump::VERSION
                ),
            ))
        }
        None => return Err(bad(&path, "manifest has no version number")),
    }
    serde_json::from_value(value).map_err(|e| bad(&path, format!("malformed manifest: {e}")))
}

/// Read `path`, a file of the dump `root`, as a C-order `.npy` array of
/// `dtype` and `shape`, exactly. The file may be no larger than that shape
/// and the largest header allow, so it is judged before it is read whole.
fn read_npy<T: npyz::Deserialize>(
    root: &Path,
    path: &Path,
    dtype: &str,
    shape: &[u64],
) -> Result<Vec<T>> {
    let data_bytes = shape
        .iter()
        .try_fold(std::mem::size_of::<T>() as u64, |n, &d| n.checked_mul(d));
    let cap = data_bytes
        .and_then(|n| n.checked_add(NPY_HEADER_MAX))
        .ok_or_else(|| {
            bad(
                path,
                format!("shape {shape:?} (from the manifest) is too large"),
            )
        })?;
    let bytes = read_in_dump(root, path, cap)?;
    let npy = npyz::NpyFile::new(&bytes[..]).map_err(|e| {
        bad(
            path,
            format!("not a readable .npy file: {}", dump::npy_error_line(&e)),
        )
    })?;
    let found = npy.dtype().descr();
    if found != format!("'{dtype}'") {
        return Err(bad(
            path,
            format!("dtype {found} where '{dtype}' was expected"),
        ));
    }
    if npy.order() != npyz::Order::C {
        return Err(bad(path, "Fortran order; the dump writes C order"));
    }
    if npy.shape() != shape {
        return Err(bad(
            path,
            format!(
                "shape {:?} where {shape:?} was expected (from the manifest)",
                npy.shape()
            ),
        ));
    }
    let header = npy.header().clone();
    let data = npy.into_inner();
    let want = shape.iter().product::<u64>() * std::mem::size_of::<T>() as u64;
    match (data.len() as u64).cmp(&want) {
        std::cmp::Ordering::Less => {
            return Err(bad(
                path,
                format!(
                    "truncated: {} bytes of data where {want} were expected",
                    data.len()
                ),
            ))
        }
        std::cmp::Ordering::Greater => {
            return Err(bad(
                path,
                format!("{} bytes after the array's data", data.len() as u64 - want),
            ))
        }
        std::cmp::Ordering::Equal => {}
    }
    npyz::NpyFile::with_header(header, data)
        .into_vec()
        .map_err(|e| bad(path, e))
}

/// One case of the dump: its entry checked against this build's catalogue,
/// its columns read and checked against the manifest, its dispatches planned.
fn load_case(root: &Path, entry: &CaseEntry, wanted: Option<&[u64]>) -> Result<DumpedCase> {
    let (case, target) = known_case(root, entry)?;
    let dir = root.join(&entry.dir);
    let n = entry.lanes_dumped;
    let k = entry.outputs_per_lane as u64;
    let f = &entry.files;
    let lanes = read_lanes(root, &dir, entry)?;
    let [wa, wb, wc] = entry.source_words;
    let a: Vec<u32> = read_npy(root, &dir.join(&f.a), "<u4", &dump::source_shape(n, wa))?;
    let b: Vec<u32> = read_npy(root, &dir.join(&f.b), "<u4", &dump::source_shape(n, wb))?;
    let c: Vec<u32> = read_npy(root, &dir.join(&f.c), "<u4", &dump::source_shape(n, wc))?;
    let expected: Vec<u32> = read_npy(root, &dir.join(&f.expected), "<u4", &[n, k])?;
    let got: Vec<u32> = read_npy(root, &dir.join(&f.got), "<u4", &[n, k])?;
    let prefill: Option<Vec<u32>> = match &f.prefill {
        Some(name) => Some(read_npy(root, &dir.join(name), "<u4", &[n, k])?),
        None => None,
    };
    let codes: Vec<u8> = read_npy(root, &dir.join(&f.verdict), "|u1", &[n])?;
    let verdicts = codes
        .iter()
        .map(|&v| LaneVerdict::from_code(v))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad(&dir.join(&f.verdict), "a verdict code that is not 0-4"))?;
    let code = read_code(root, &dir, entry, target)?;
    let mut dumped = DumpedCase {
        entry: entry.clone(),
        case,
        code,
        target,
        lanes,
        got,
        verdicts,
        dispatches: Vec::new(),
    };
    let data = Columns {
        a: &a,
        b: &b,
        c: &c,
        expected: &expected,
        prefill: prefill.as_deref(),
    };
    dumped.dispatches = plan(&dumped, wanted)
        .into_iter()
        .map(|planned| prepare(&dumped, &data, planned, &dir.join(&f.expected)))
        .collect::<Result<Vec<_>>>()?;
    Ok(dumped)
}

/// The catalogue case and target a dumped case names, with the shape the
/// dump recorded checked against this build's.
fn known_case(root: &Path, entry: &CaseEntry) -> Result<(Case, &'static Target)> {
    let manifest_path = root.join(dump::MANIFEST);
    let foreign = |what: String| bad(&manifest_path, format!("case {}: {what}", entry.case));
    let case = cases::catalogue()
        .into_iter()
        .find(|c| c.name == entry.case)
        .ok_or_else(|| foreign("not a case of this xad-harness's catalogue".into()))?;
    let target = target::find(&entry.target)
        .ok_or_else(|| foreign(format!("unknown target {}", entry.target)))?;
    if case.outputs_per_lane != entry.outputs_per_lane
        || case.keeps_lanes != entry.keeps_lanes
        || case.wave_size != entry.wave_size
        || case.scalar_args != entry.scalars.len()
        || case.inputs.words != entry.source_words
    {
        return Err(foreign(format!(
            "the dump says {} words per lane, keeps lanes {}, wave{}, {} scalars, source words {:?}; this xad-harness's case has {}, {}, wave{}, {}, {:?}",
            entry.outputs_per_lane, entry.keeps_lanes, entry.wave_size, entry.scalars.len(), entry.source_words,
            case.outputs_per_lane, case.keeps_lanes, case.wave_size, case.scalar_args, case.inputs.words
        )));
    }
    if entry.keeps_lanes != entry.files.prefill.is_some() {
        return Err(foreign(
            "a prefill file where the case keeps no lanes, or none where it does".into(),
        ));
    }
    let block = entry.workgroup_size as u64;
    if block == 0 || block % u64::from(entry.wave_size) != 0 {
        return Err(foreign(format!(
            "workgroup size {} is not a whole number of wave{} waves",
            entry.workgroup_size, entry.wave_size
        )));
    }
    Ok((case, target))
}

/// The dumped lane indices, which must be the manifest's ranges, in order.
fn read_lanes(root: &Path, dir: &Path, entry: &CaseEntry) -> Result<Vec<u64>> {
    let n = entry.lanes_dumped;
    let f = &entry.files;
    let lanes: Vec<u64> = read_npy(root, &dir.join(&f.lanes), "<u8", &[n])?;
    let expanded: u64 = entry.ranges.iter().map(|r| r[1]).sum();
    let from_ranges = entry.ranges.iter().flat_map(|r| r[0]..r[0] + r[1]);
    if expanded != n || !lanes.iter().copied().eq(from_ranges) {
        return Err(bad(
            &dir.join(&f.lanes),
            "lane indices differ from the manifest's ranges",
        ));
    }
    if lanes.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad(
            &root.join(dump::MANIFEST),
            format!("case {}: ranges overlap or are out of order", entry.case),
        ));
    }
    Ok(lanes)
}

/// The dumped code object: the manifest's size, built for `target`, and
/// launched with the workgroup size the dump recorded.
fn read_code(
    root: &Path,
    dir: &Path,
    entry: &CaseEntry,
    target: &'static Target,
) -> Result<CodeObject> {
    let f = &entry.files;
    let code_path = dir.join(&f.code_object);
    let bytes = read_in_dump(root, &code_path, MAX_CODE_OBJECT_BYTES)?;
    if bytes.len() as u64 != entry.code_object_bytes {
        return Err(bad(
            &code_path,
            format!(
                "{} bytes where the manifest says {}",
                bytes.len(),
                entry.code_object_bytes
            ),
        ));
    }
    let code = CodeObject::parse(&bytes).map_err(|e| bad(&code_path, e))?;
    check_code_target(&code, target, &code_path, entry)?;
    let kernel = code.kernel(&entry.kernel).map_err(|e| bad(&code_path, e))?;
    let launch_block = kernel.launch_workgroup_size().iter().product::<u32>();
    if launch_block != entry.workgroup_size {
        return Err(bad(
            &code_path,
            format!(
                "workgroup size {launch_block} where the manifest says {}",
                entry.workgroup_size
            ),
        ));
    }
    Ok(code)
}

/// The manifest's target must be the code object's own (its
/// `.amdgcn_target`, which parsing checked against the ELF `e_flags`
/// machine): `run` records the code object's processor there. A dump that
/// contradicts itself would choose a device by one target and launch code
/// of the other, a refusal at launch (a fault, exit 3) on a device opened
/// for nothing; it is a corrupt dump, refused here before any device opens.
fn check_code_target(
    code: &CodeObject,
    target: &Target,
    code_path: &Path,
    entry: &CaseEntry,
) -> Result<()> {
    if code.target.arch == target.name {
        return Ok(());
    }
    Err(bad(
        code_path,
        format!(
            "the code object is for {} (its .amdgcn_target and ELF e_flags) but {} says case {} is for {}",
            code.target,
            dump::MANIFEST,
            entry.case,
            target.name
        ),
    ))
}

/// The dumped columns of one case, indexed by row.
struct Columns<'a> {
    a: &'a [u32],
    b: &'a [u32],
    c: &'a [u32],
    expected: &'a [u32],
    prefill: Option<&'a [u32]>,
}

/// The chosen blocks (all, or those holding a `wanted` lane) packed into
/// dispatches: (rows, blocks) each. A block is `workgroup_size` rows from a
/// range's start; a range's last block may be short, and ends its dispatch.
fn plan(dumped: &DumpedCase, wanted: Option<&[u64]>) -> Vec<(Vec<usize>, usize)> {
    let block = dumped.entry.workgroup_size as usize;
    let k = dumped.entry.outputs_per_lane.max(1);
    let mut dispatches = Vec::new();
    let (mut rows, mut blocks) = (Vec::new(), 0usize);
    let mut row = 0usize;
    for range in &dumped.entry.ranges {
        let len = range[1] as usize;
        for start in (0..len).step_by(block) {
            let end = (start + block).min(len);
            let first = range[0] + start as u64;
            let last = range[0] + end as u64;
            let take = wanted.is_none_or(|w| w.iter().any(|&l| (first..last).contains(&l)));
            if take {
                rows.extend(row + start..row + end);
                blocks += 1;
                if end - start < block || (rows.len() + block) * k > DISPATCH_WORDS {
                    dispatches.push((std::mem::take(&mut rows), blocks));
                    blocks = 0;
                }
            }
        }
        row += len;
    }
    if !rows.is_empty() {
        dispatches.push((rows, blocks));
    }
    dispatches
}

/// Build one dispatch's buffers and check the model on its layout against
/// the recorded `expected` words.
fn prepare(
    dumped: &DumpedCase,
    data: &Columns<'_>,
    rows: (Vec<usize>, usize),
    expected_path: &Path,
) -> Result<Planned> {
    let (rows, blocks) = rows;
    let k = dumped.entry.outputs_per_lane;
    // Row r's `n` words of a column.
    let rows_of = |col: &[u32], n: usize| {
        rows.iter()
            .flat_map(|&r| col[r * n..(r + 1) * n].iter().copied())
            .collect::<Vec<u32>>()
    };
    let words = |col: &[u32]| rows_of(col, k);
    let [wa, wb, wc] = dumped.entry.source_words;
    let (a, b, c) = (
        rows_of(data.a, wa),
        rows_of(data.b, wb),
        rows_of(data.c, wc),
    );
    let recorded = words(data.expected);
    let prefill = data.prefill.map(words);
    let mut expected = vec![0u32; rows.len() * k];
    (dumped.case.model)(
        &LaneData {
            a: &a,
            b: &b,
            c: &c,
            scalars: &dumped.entry.scalars,
            prefill: prefill.as_deref().unwrap_or(&[]),
            count: rows.len(),
        },
        0..rows.len(),
        &mut expected,
    );
    if let Some(i) = (0..expected.len()).find(|&i| expected[i] != recorded[i]) {
        return Err(bad(
            expected_path,
            format!(
                "lane {} word {} is {:#010x} but the CPU model gives {:#010x} from the dumped sources and scalars: the dump is corrupt or from another model",
                dumped.lanes[rows[i / k]],
                i % k,
                recorded[i],
                expected[i]
            ),
        ));
    }
    let out = match &prefill {
        Some(p) => p.clone(),
        None => expected.iter().map(|&e| check::poison(e)).collect(),
    };
    Ok(Planned {
        rows,
        blocks,
        a,
        b,
        c,
        out,
        prefill: prefill.is_some(),
        expected,
    })
}

/// What became of one replayed lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Recorded failing; got the recorded words again.
    Reproduced,
    /// Recorded failing; passes now.
    NowPasses,
    /// Recorded failing; fails with other words.
    FailsDifferently,
    /// Recorded passing (or unsettled); fails now.
    NowFails,
    /// Recorded passing; passes now.
    Passes,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Reproduced => "reproduced",
            Outcome::NowPasses => "now passes",
            Outcome::FailsDifferently => "fails differently",
            Outcome::NowFails => "now fails",
            Outcome::Passes => "passes",
        }
    }
}

/// One case's replay, counted.
#[derive(Debug, Default, Clone)]
pub struct CaseReplay {
    pub lanes: u64,
    pub blocks: usize,
    /// Lanes whose words and verdict are exactly the recorded ones.
    pub as_recorded: u64,
    pub passed: u64,
    pub failed: u64,
    pub unsettled: u64,
    pub reproduced: u64,
    pub now_pass: u64,
    pub fail_differently: u64,
    pub now_fail: u64,
    pub guard_violations: Vec<GuardViolation>,
    /// Device memory the device would not give back (the one release rule,
    /// [`crate::pipeline::handle`]): reported, exit 3 when nothing failed.
    pub release_errors: Vec<ReleaseError>,
    pub lines: Vec<String>,
}

/// Replay what `request` asks, handing each printed line to `say`; the
/// exit code: 0 every replayed lane passed, 1 one failed (or a guard word
/// changed), 3 device memory was not given back. Errors carry their own
/// (2 bad dump, 3 fault, 77 no device).
pub fn run(request: &Request, say: &mut dyn FnMut(String)) -> Result<i32> {
    let dump = load(
        &request.dir,
        request.cases.as_deref(),
        request.lanes.as_deref(),
    )?;
    let mut targets: Vec<&'static Target> = Vec::new();
    for c in &dump.cases {
        if !targets.iter().any(|t| t.name == c.target.name) {
            targets.push(c.target);
        }
    }
    let choice = match targets.as_slice() {
        [one] => Choice::One(one),
        _ => Choice::All,
    };
    let indices = request.device.map(|i| vec![i]);
    let mut selected = backend::select(request.backend, indices.as_deref(), choice)?;
    let described = selected.describe();
    say(header(&dump, &described));
    for note in &selected.notes {
        say(format!("note: {note}"));
    }
    let guard_seed = dump.manifest.guard_seed.unwrap_or_default();
    let mut totals = Totals::default();
    for dumped in &dump.cases {
        // The first device that runs the case's target (on HIP every
        // matching device was selected; one replays).
        let unit = selected
            .units
            .iter_mut()
            .find(|u| u.targets.iter().any(|t| t.name == dumped.target.name));
        let Some(device) = unit.and_then(|u| u.device_for(dumped.target)) else {
            say(format!(
                "SKIP {} ({}): {described} does not run {} code objects",
                dumped.entry.case, dumped.target.name, dumped.target.name
            ));
            continue;
        };
        let executor = device.executor().to_string();
        let result = replay_case(device, dumped, guard_seed, request).map_err(|e| {
            Error::device(
                format!("replaying {} ({})", dumped.entry.case, dumped.target.name),
                e,
            )
        })?;
        for line in case_lines(dumped, &result, &executor) {
            say(line);
        }
        totals.add(result, executor);
    }
    say(totals.summary(described));
    if totals.ran == 0 && !dump.cases.is_empty() {
        // Exit 77 says only "skipped": one line on stderr says why, where a
        // CI log looks (as `run`'s does), naming the devices seen and the
        // target(s) the dump needs.
        return Err(Error::Skipped(nothing_replayed(&targets, &selected)));
    }
    Ok(totals.exit_code())
}

/// The first line: what the dump holds and what replays it.
fn header(dump: &Dump, described: &str) -> String {
    let m = &dump.manifest;
    format!(
        "replay {}: {} case(s) dumped by {} (seed {}, {} lanes per case, {}) on {}",
        dump.dir.display(),
        dump.cases.len(),
        m.tool,
        m.seed.map_or("-".to_string(), |s| s.to_string()),
        m.lanes_per_case.map_or("-".to_string(), |s| s.to_string()),
        match m.mode {
            dump::Mode::Failing => "failing lanes' blocks",
            dump::Mode::All => "every lane",
        },
        described
    )
}

/// One replayed case's lines: its verdict, then what differs from the record.
fn case_lines(dumped: &DumpedCase, result: &CaseReplay, executor: &str) -> Vec<String> {
    let status = if result.failed > 0 || !result.guard_violations.is_empty() {
        "FAIL"
    } else {
        "PASS"
    };
    let mut out = vec![format!(
        "{status} {} ({})  {} lanes in {} block(s): {} as recorded, {} differ; {} passed, {} failed, {} unsettled [{executor}]",
        dumped.entry.case,
        dumped.target.name,
        result.lanes,
        result.blocks,
        result.as_recorded,
        result.lanes - result.as_recorded,
        result.passed,
        result.failed,
        result.unsettled
    )];
    let recorded = result.reproduced + result.now_pass + result.fail_differently;
    if recorded > 0 {
        out.push(format!(
            "  recorded failing lanes: {} reproduced, {} now pass, {} fail differently",
            result.reproduced, result.now_pass, result.fail_differently
        ));
    }
    if result.now_fail > 0 {
        out.push(format!(
            "  {} lane(s) recorded passing now fail",
            result.now_fail
        ));
    }
    out.extend(
        result
            .guard_violations
            .iter()
            .map(|v| format!("  guard: {v}")),
    );
    out.extend(
        result
            .release_errors
            .iter()
            .map(|e| format!("  error: {e}")),
    );
    out.extend(result.lines.iter().cloned());
    out
}

/// What every replayed case adds up to.
#[derive(Default)]
struct Totals {
    lanes: u64,
    failed: u64,
    unsettled: u64,
    ran: usize,
    guards: usize,
    released: usize,
    executors: Vec<String>,
}

impl Totals {
    fn add(&mut self, result: CaseReplay, executor: String) {
        self.ran += 1;
        self.lanes += result.lanes;
        self.failed += result.failed;
        self.unsettled += result.unsettled;
        self.guards += result.guard_violations.len();
        self.released += result.release_errors.len();
        if !self.executors.contains(&executor) {
            self.executors.push(executor);
        }
    }

    /// The last line; `described` names the devices when no case ran.
    fn summary(&self, described: String) -> String {
        let on = if self.executors.is_empty() {
            described
        } else {
            self.executors.join("; ")
        };
        let guard_note = if self.guards > 0 {
            format!(", {} guard violation(s)", self.guards)
        } else {
            String::new()
        };
        format!(
            "replayed {} lanes of {} case(s): {} passed, {} failed, {} unsettled{guard_note} [{on}]",
            self.lanes,
            self.ran,
            self.lanes.saturating_sub(self.failed + self.unsettled),
            self.failed,
            self.unsettled
        )
    }

    fn exit_code(&self) -> i32 {
        if self.failed > 0 || self.guards > 0 {
            exit::MISMATCH
        } else if self.released > 0 {
            exit::FAULT
        } else {
            exit::PASS
        }
    }
}

/// Why no dumped case could replay: the targets the dump needs, and each
/// device seen with why it does not run them (or what it runs instead).
fn nothing_replayed(needs: &[&'static Target], selected: &backend::Selected) -> String {
    let needs: Vec<&str> = needs.iter().map(|t| t.name).collect();
    let seen: Vec<String> = selected
        .units
        .iter()
        .map(|u| match &u.runner {
            backend::Runner::Unsupported(why) => why.clone(),
            _ => {
                let runs: Vec<&str> = u.targets.iter().map(|t| t.name).collect();
                format!(
                    "{} ({}) runs {} code objects only",
                    u.id,
                    u.executor,
                    runs.join(", ")
                )
            }
        })
        .collect();
    format!(
        "replay: no device here runs the dump's {} code objects, so nothing was replayed: {}; use --backend emu or auto to replay on the emulator",
        needs.join(", "),
        seen.join("; ")
    )
}

/// Run `dumped`'s dispatches on `dev` and judge every lane.
fn replay_case(
    dev: &mut dyn Device,
    dumped: &DumpedCase,
    guard_seed: u64,
    request: &Request,
) -> std::result::Result<CaseReplay, DeviceError> {
    let kernel = dumped
        .code
        .kernel(&dumped.entry.kernel)
        .map_err(|e| DeviceError::Refused(e.to_string()))?;
    let mut handle = KernelHandle::load(dev, &dumped.code, kernel)?;
    let k = dumped.entry.outputs_per_lane;
    let mut out = CaseReplay::default();
    for planned in &dumped.dispatches {
        let (got, taint) = execute(&mut handle, planned, dumped, guard_seed, request, &mut out)?;
        // The lane's first word of each source (all of it for one-word cases).
        let [wa, wb, wc] = dumped.entry.source_words;
        let sources = |p: u64| {
            let p = p as usize;
            (planned.a[p * wa], planned.b[p * wb], planned.c[p * wc])
        };
        let compare = Compare {
            first_lane: 0,
            outputs_per_lane: k,
            sources: &sources,
            prefill: if planned.prefill {
                Prefill::Words(&planned.out)
            } else {
                Prefill::Poisoned
            },
            expected: &planned.expected,
            got: &got,
            taint: &taint,
        };
        out.judge(
            dumped,
            planned,
            &got,
            check::lane_verdicts(&compare),
            request,
        );
    }
    out.release_errors = handle.release();
    Ok(out)
}

impl CaseReplay {
    /// Count one replayed dispatch's lanes against the dump's record, and
    /// keep a line for each (up to `--max-lines`) that differs from it.
    fn judge(
        &mut self,
        dumped: &DumpedCase,
        planned: &Planned,
        got: &[u32],
        verdicts: Vec<LaneVerdict>,
        request: &Request,
    ) {
        let out = self;
        let k = dumped.entry.outputs_per_lane;
        out.blocks += planned.blocks;
        for (p, (&row, now)) in planned.rows.iter().zip(verdicts).enumerate() {
            let recorded = &dumped.got[row * k..(row + 1) * k];
            let words = &got[p * k..(p + 1) * k];
            let was = dumped.verdicts[row];
            out.lanes += 1;
            out.as_recorded += u64::from(recorded == words && was == now);
            match now {
                LaneVerdict::Pass => out.passed += 1,
                LaneVerdict::Unsettled => out.unsettled += 1,
                _ => out.failed += 1,
            }
            let outcome = match (was.failed(), now.failed()) {
                (true, _) if recorded == words => Outcome::Reproduced,
                (true, false) => Outcome::NowPasses,
                (true, true) => Outcome::FailsDifferently,
                (false, true) => Outcome::NowFails,
                (false, false) => Outcome::Passes,
            };
            match outcome {
                Outcome::Reproduced => out.reproduced += 1,
                Outcome::NowPasses => out.now_pass += 1,
                Outcome::FailsDifferently => out.fail_differently += 1,
                Outcome::NowFails => out.now_fail += 1,
                Outcome::Passes => continue,
            }
            if out.lines.len() < request.max_lines {
                let expected = &planned.expected[p * k..(p + 1) * k];
                let word = (0..k)
                    .find(|&w| recorded[w] != expected[w] || words[w] != expected[w])
                    .unwrap_or(0);
                out.lines.push(format!(
                "  lane {} ({}, replayed at {p}): {}: word {word} expected {:#010x}, recorded {:#010x}, now {:#010x}",
                dumped.lanes[row],
                was.name(),
                outcome.name(),
                expected[word],
                recorded[word],
                words[word]
            ));
            }
        }
    }
}

/// Allocate, fill, launch, check guards and read back one dispatch.
#[allow(clippy::too_many_arguments)]
fn execute(
    handle: &mut KernelHandle<'_>,
    planned: &Planned,
    dumped: &DumpedCase,
    guard_seed: u64,
    request: &Request,
    out: &mut CaseReplay,
) -> std::result::Result<(Vec<u32>, Definedness), DeviceError> {
    let k = dumped.entry.outputs_per_lane;
    let count = planned.rows.len();
    let [wa, wb, wc] = dumped.entry.source_words;
    let mut bufs = Vec::new();
    let outcome = (|| {
        for (name, per_lane, words) in [
            ("a", wa, &planned.a),
            ("b", wb, &planned.b),
            ("c", wc, &planned.c),
            ("out", k, &planned.out),
        ] {
            let dev = handle.device();
            let buf = GuardedBuffer::alloc(dev, name, count * per_lane * 4, per_lane, guard_seed)?;
            buf.write(dev, words)?;
            bufs.push(buf);
        }
        crate::pipeline::run::launch(handle, &bufs, count, &dumped.entry.scalars, request.timeout)?;
        let dev = handle.device();
        let taint = dev.definedness(bufs[3].ptr(), count * k)?;
        for buf in &bufs {
            buf.check(dev, 0, count as u64, &mut out.guard_violations)?;
        }
        let mut got = vec![0u32; count * k];
        bufs[3].read(dev, &mut got)?;
        Ok((got, taint))
    })();
    for buf in bufs {
        handle.free_guarded(buf);
    }
    outcome
}
