//! `run --dump DIR`: the inputs, expected and got words of failing lanes (of
//! every lane with `--dump-all`) as NumPy `.npy` files, a copy of the code
//! object that ran, and a manifest, so [`crate::commands::replay::rerun`] can run exactly those
//! lanes again on any backend, and numpy can read them.
//!
//! Layout (see docs/dumps.md):
//!
//! ```text
//! DIR/manifest.json                 Manifest: schema, version, tool, seed, cases
//! DIR/<target>/<case>/lanes.npy     <u8 [n]     global lane index of each dumped lane
//!                                   (`<case>.2`, ...: the same case on a second device)
//!                     a.npy b.npy c.npy  <u4 [n]     the lane's sources
//!                     expected.npy  <u4 [n, K]  the CPU model's words
//!                     got.npy       <u4 [n, K]  what the device left in `out`
//!                     prefill.npy   <u4 [n, K]  `out` before the launch (cases that keep lanes only)
//!                     verdict.npy   |u1 [n]     LaneVerdict code: 0 pass, 1 wrong, 2 unwritten, 3 undefined, 4 unsettled
//!                     kernel.hsaco  the exact code object bytes that ran
//! ```
//!
//! **Blocks, not lanes.** A lane's words can depend on other lanes: DPP reads
//! neighbouring lanes of its row or wave, and EXEC-pattern, `exec_lo`/`exec_hi`
//! and partial-wave cases depend on which lanes of the wave exist (`count`).
//! Every catalogue model ([`crate::model::cases::model::run`] of the case's op
//! table, or the straight per-lane loop `basic` and `basic_w64` use) reads
//! only (a) the sources and prefill of lanes in its own wave, by index within
//! the wave (`lane % wave`: DPP16 rows and banks, DPP8 groups, gfx9's
//! wave_shl/rol and row_bcast, EXEC patterns), (b) the scalar arguments
//! (SGPR operands, `Exec::Scalar` masks), and (c) how many lanes of that wave
//! are below `count` (the lanes-< count EXEC, `exec_lo`/`exec_hi` as data,
//! sources of lanes that do not exist reading 0); never a global lane index,
//! the workgroup id or another wave. So the unit dumped is the whole workgroup
//! (the kernel's launch workgroup size, 256 for the catalogue: a whole number
//! of waves) around each failing lane, aligned as it was in its dispatch; and
//! a block the dispatch cut short (its last lanes did not exist) is dumped
//! with exactly the lanes it had. Replay lays blocks out densely, each at a
//! multiple of the workgroup size, and ends a dispatch after a short block,
//! so every lane keeps its position in its wave and workgroup and every wave
//! keeps its live-lane count. `tests/cli/replay.rs` proves it for every case of
//! gfx1100, gfx942 and gfx1201.
//!
//! **Size.** A dumped lane costs `21 + 8·K` bytes (`+ 4·K` with a prefill),
//! K = outputs per lane (1 to 90): 29 bytes for `basic`, 741 for an inline
//! case, 921 for `dpp16_shift`. Blocks are held in memory until their case
//! ends. A dump stops taking blocks at [`MAX_DUMP_BYTES`] (the manifest counts
//! the blocks left out and the CLI warns), and `--dump-all` is refused over
//! [`MAX_DUMP_ALL_LANES`] lanes per case.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use crate::error::Error;
use crate::model::cases::Case;
use crate::model::check::{self, Compare, LaneVerdict, Prefill};
use crate::pipeline::run::{CaseResult, KernelSource, Watcher};
use crate::platform::codeobj::{CodeObject, Kernel};

/// What `manifest.json`'s `schema` says.
pub const SCHEMA: &str = "xad-harness-dump";
/// The manifest version this build writes and reads.
pub const VERSION: u32 = 1;
/// The manifest's file name in the dump directory.
pub const MANIFEST: &str = "manifest.json";
/// The code object's file name in each case directory.
pub const CODE_OBJECT: &str = "kernel.hsaco";
/// Bytes of `.npy` data a dump takes at most; blocks past it are left out
/// (counted in the manifest, and warned about).
pub const MAX_DUMP_BYTES: u64 = 1 << 30;
/// Most lanes per case `--dump-all` accepts: 2^20 lanes of the widest case
/// are ~1 GiB.
pub const MAX_DUMP_ALL_LANES: u64 = 1 << 20;

/// Bytes a dumped lane takes in the `.npy` files: its index (8), sources
/// (4 per word: 12 for the one-word cases), verdict (1), expected and got (8
/// per word) and prefill (4 per word).
pub fn bytes_per_lane(source_words: usize, outputs_per_lane: usize, keeps_lanes: bool) -> u64 {
    let k = outputs_per_lane as u64;
    9 + 4 * source_words as u64 + 8 * k + if keeps_lanes { 4 * k } else { 0 }
}

/// Which lanes a dump takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The blocks around failing lanes (`--dump`).
    Failing,
    /// Every lane (`--dump-all`).
    All,
}

/// `manifest.json`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// [`SCHEMA`].
    pub schema: String,
    /// [`VERSION`].
    pub version: u32,
    /// The xad-harness that wrote it (`xad-harness 0.1.0`).
    pub tool: String,
    pub mode: Mode,
    /// The run's seed and guard seed (absent until a case has run).
    pub seed: Option<u64>,
    pub guard_seed: Option<u64>,
    /// `--lanes` of the run.
    pub lanes_per_case: Option<u64>,
    /// `verdict.npy` codes, by value.
    pub verdict_codes: Vec<String>,
    /// [`MAX_DUMP_BYTES`] when written.
    pub byte_limit: u64,
    /// `.npy` data bytes written, all cases.
    pub bytes: u64,
    pub cases: Vec<CaseEntry>,
}

/// One dumped case.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CaseEntry {
    pub case: String,
    /// The code object's target (its target ID's processor).
    pub target: String,
    /// What executed it (`emulated gfx1100`, `hardware: ...`).
    pub executor: String,
    /// The kernel symbol that ran.
    pub kernel: String,
    pub kernel_source: KernelSource,
    /// The case's directory, relative to the dump directory (`gfx1100/basic`).
    pub dir: String,
    pub files: Files,
    /// Size of `kernel.hsaco`.
    pub code_object_bytes: u64,
    pub scalars: Vec<u32>,
    /// Words per lane of a, b and c: `[1, 1, 1]` (the `.npy` files are 1-D)
    /// but for the SHA-256 cases (`[32, 8, 1]`: a wider source is `[n, words]`).
    #[serde(default = "one_word_sources")]
    pub source_words: [usize; 3],
    pub outputs_per_lane: usize,
    pub keeps_lanes: bool,
    pub wave_size: u32,
    /// Work-items per workgroup of the launch: the block size.
    pub workgroup_size: u32,
    /// Lanes in the `.npy` files (rows).
    pub lanes_dumped: u64,
    /// The dumped lanes as `[first_lane, lanes]` runs of whole blocks, in
    /// `lanes.npy` order. A run's blocks start at multiples of
    /// `workgroup_size` from its start; only its last block may be short (cut
    /// by the end of its dispatch).
    pub ranges: Vec<[u64; 2]>,
    /// Blocks that should have been dumped but were left out: over the
    /// byte limit.
    pub blocks_left_out: u64,
    /// The dumped lanes by verdict.
    pub dumped: VerdictCounts,
    /// The whole case's counts, as the run reported them.
    pub lanes_checked: u64,
    pub lanes_failed: u64,
    /// Set when the case ended in a fault; the lanes before it are dumped.
    pub error: Option<String>,
}

/// Dumps written before wider sources existed hold one word of each.
fn one_word_sources() -> [usize; 3] {
    [1, 1, 1]
}

/// The `.npy` shape of `n` lanes of `words` words each.
pub fn source_shape(n: u64, words: usize) -> Vec<u64> {
    if words == 1 {
        vec![n]
    } else {
        vec![n, words as u64]
    }
}

/// File names in a case directory.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Files {
    pub lanes: String,
    pub a: String,
    pub b: String,
    pub c: String,
    pub expected: String,
    pub got: String,
    /// Only for cases that keep lanes.
    pub prefill: Option<String>,
    pub verdict: String,
    pub code_object: String,
}

impl Files {
    fn standard(keeps_lanes: bool) -> Files {
        Files {
            lanes: "lanes.npy".into(),
            a: "a.npy".into(),
            b: "b.npy".into(),
            c: "c.npy".into(),
            expected: "expected.npy".into(),
            got: "got.npy".into(),
            prefill: keeps_lanes.then(|| "prefill.npy".into()),
            verdict: "verdict.npy".into(),
            code_object: CODE_OBJECT.into(),
        }
    }
}

/// Lanes by [`LaneVerdict`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VerdictCounts {
    pub pass: u64,
    pub wrong: u64,
    pub unwritten: u64,
    pub undefined: u64,
    pub unsettled: u64,
}

impl VerdictCounts {
    pub fn add(&mut self, verdict: LaneVerdict) {
        *match verdict {
            LaneVerdict::Pass => &mut self.pass,
            LaneVerdict::Wrong => &mut self.wrong,
            LaneVerdict::Unwritten => &mut self.unwritten,
            LaneVerdict::Undefined => &mut self.undefined,
            LaneVerdict::Unsettled => &mut self.unsettled,
            // `check::lane_verdicts`, which a dump's verdicts come from,
            // makes none: a probe case's dump holds its probe words as their
            // own expected values, so those lanes pass (run::classify).
            LaneVerdict::Finding => &mut self.pass,
        } += 1;
    }

    pub fn failed(&self) -> u64 {
        self.wrong + self.unwritten + self.undefined
    }
}

/// Can `dir` take a dump? It must be missing (its parent a directory) or an
/// empty directory, and writable. Nothing is created. `option` names the
/// flag in the message.
pub fn check_dir(option: &str, dir: &Path) -> Result<(), Error> {
    let refuse = |why: String| Error::Usage(format!("{option} {}: {why}", dir.display()));
    if dir.as_os_str().is_empty() {
        return Err(refuse("an empty path".into()));
    }
    // Not followed: a symlink is refused like any node that is not a plain
    // directory, so a dump is written where the path says.
    let probe_in = match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            return Err(refuse(match crate::platform::files::not_regular(dir) {
                Some(kind) => format!("is {kind}; give a new or empty directory"),
                None => "is not a directory".into(),
            }))
        }
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(dir).map_err(|e| refuse(format!("cannot be read: {e}")))?;
            if entries.next().is_some() {
                return Err(refuse(
                    "is not empty; give a new or empty directory (a dump never mixes with another)"
                        .into(),
                ));
            }
            dir.to_path_buf()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = match dir.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !parent.is_dir() {
                return Err(refuse(format!(
                    "directory {} does not exist",
                    parent.display()
                )));
            }
            parent
        }
        Err(e) => return Err(refuse(format!("cannot be used: {e}"))),
    };
    // Writable: create and remove a private file there.
    tempfile::NamedTempFile::new_in(&probe_in)
        .map(drop)
        .map_err(|e| refuse(format!("cannot be written: {e}")))
}

/// What a finished dump holds, for the closing lines.
#[derive(Debug, Clone)]
pub struct Summary {
    pub dir: PathBuf,
    pub cases: usize,
    pub lanes: u64,
    pub blocks_left_out: u64,
}

/// The sink `run` feeds ([`crate::pipeline::run::Options::dump`]): cheap to clone, all
/// clones write one dump. I/O errors are kept (the first one) and returned by
/// [`Sink::finish`]; the run itself goes on.
#[derive(Clone)]
pub struct Sink(Arc<Mutex<Writer>>);

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let writer = self.lock();
        f.debug_struct("Sink")
            .field("dir", &writer.dir)
            .field("mode", &writer.manifest.mode)
            .finish()
    }
}

struct Writer {
    dir: PathBuf,
    limit: u64,
    manifest: Manifest,
    /// The case each thread is running: several HIP devices run at once,
    /// one thread each, and each feeds its own case.
    current: HashMap<ThreadId, Current>,
    error: Option<String>,
}

/// The case being run: its entry so far and the blocks taken.
struct Current {
    entry: CaseEntry,
    code: Vec<u8>,
    block: usize,
    /// Draws a wide lane's sources again (the compare's `sources` give the
    /// first words only).
    inputs: &'static crate::model::cases::Inputs,
    seed: u64,
    lanes: Vec<u64>,
    a: Vec<u32>,
    b: Vec<u32>,
    c: Vec<u32>,
    expected: Vec<u32>,
    got: Vec<u32>,
    prefill: Vec<u32>,
    verdicts: Vec<u8>,
    /// Whether the last range may grow: its last block was whole.
    range_open: bool,
}

impl Sink {
    /// Start a dump in `dir` (checked with [`check_dir`] before; created
    /// here), writing an empty manifest at once so even a run that cannot
    /// start leaves a readable dump.
    pub fn create(dir: &Path, mode: Mode) -> Result<Sink, Error> {
        Sink::with_limit(dir, mode, MAX_DUMP_BYTES)
    }

    /// As [`Sink::create`], with another byte limit (tests).
    pub fn with_limit(dir: &Path, mode: Mode, limit: u64) -> Result<Sink, Error> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Io(format!(
                "creating the dump directory {}: {e}",
                dir.display()
            ))
        })?;
        let writer = Writer {
            dir: dir.to_path_buf(),
            limit,
            manifest: Manifest {
                schema: SCHEMA.into(),
                version: VERSION,
                tool: format!("xad-harness {}", env!("CARGO_PKG_VERSION")),
                mode,
                seed: None,
                guard_seed: None,
                lanes_per_case: None,
                // The verdicts a dump holds: `check::lane_verdicts` makes
                // every one but `finding` (a probe case's lanes on a device
                // pass in its dump), which comes last, so codes are unchanged.
                verdict_codes: LaneVerdict::ALL
                    .iter()
                    .filter(|&&v| v != LaneVerdict::Finding)
                    .map(|v| v.name().into())
                    .collect(),
                byte_limit: limit,
                bytes: 0,
                cases: Vec::new(),
            },
            current: HashMap::new(),
            error: None,
        };
        writer
            .write_manifest()
            .map_err(|e| Error::Io(format!("writing the dump: {e}")))?;
        Ok(Sink(Arc::new(Mutex::new(writer))))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Writer> {
        // A panic elsewhere while holding the lock leaves data that is still
        // consistent enough to write out.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Watcher for Sink {
    /// A case starts: `result` is its fresh result (executor, target, seed,
    /// scalars), `code` and `kernel` what will run.
    fn begin_case(&self, case: &Case, code: &CodeObject, kernel: &Kernel, result: &CaseResult) {
        let mut w = self.lock();
        w.manifest.seed = Some(result.seed);
        w.manifest.guard_seed = Some(result.guard_seed);
        w.manifest.lanes_per_case = Some(result.lanes);
        let block = kernel
            .launch_workgroup_size()
            .iter()
            .product::<u32>()
            .max(1);
        w.current.insert(
            std::thread::current().id(),
            Current {
                entry: CaseEntry {
                    case: case.name.into(),
                    target: result.target.clone(),
                    executor: result.executor.clone(),
                    kernel: result.kernel.clone(),
                    kernel_source: result.kernel_source.clone(),
                    dir: format!("{}/{}", result.target, case.name),
                    files: Files::standard(case.keeps_lanes),
                    code_object_bytes: code.bytes.len() as u64,
                    scalars: result.scalars.clone(),
                    source_words: case.inputs.words,
                    outputs_per_lane: case.outputs_per_lane,
                    keeps_lanes: case.keeps_lanes,
                    wave_size: case.wave_size,
                    workgroup_size: block,
                    lanes_dumped: 0,
                    ranges: Vec::new(),
                    blocks_left_out: 0,
                    dumped: VerdictCounts::default(),
                    lanes_checked: 0,
                    lanes_failed: 0,
                    error: None,
                },
                code: code.bytes.to_vec(),
                block: block as usize,
                inputs: case.inputs,
                seed: result.seed,
                lanes: Vec::new(),
                a: Vec::new(),
                b: Vec::new(),
                c: Vec::new(),
                expected: Vec::new(),
                got: Vec::new(),
                prefill: Vec::new(),
                verdicts: Vec::new(),
                range_open: false,
            },
        );
    }

    /// One dispatch was checked: take its blocks that the mode asks for.
    fn chunk(&self, cmp: &Compare<'_>) {
        let mut guard = self.lock();
        let w = &mut *guard;
        let mode = w.manifest.mode;
        let (limit, used) = (w.limit, w.manifest.bytes);
        let Some(cur) = w.current.get_mut(&std::thread::current().id()) else {
            return;
        };
        let k = cmp.outputs_per_lane.max(1);
        let lanes = cmp.expected.len() / k;
        if mode == Mode::Failing && cmp.taint.is_empty() && cmp.expected == cmp.got {
            cur.range_open = false;
            return; // nothing failed: the common case, one compare
        }
        let verdicts = check::lane_verdicts(cmp);
        let per_lane = bytes_per_lane(
            cur.entry.source_words.iter().sum(),
            k,
            cur.entry.keeps_lanes,
        );
        let mut used = used;
        for start in (0..lanes).step_by(cur.block) {
            let end = (start + cur.block).min(lanes);
            let wanted = mode == Mode::All || verdicts[start..end].iter().any(|v| v.failed());
            if !wanted {
                cur.range_open = false;
                continue;
            }
            let cost = (end - start) as u64 * per_lane;
            if used + cost > limit {
                cur.entry.blocks_left_out += 1;
                cur.range_open = false;
                continue;
            }
            used += cost;
            cur.take(cmp, start..end, &verdicts[start..end]);
        }
        w.manifest.bytes = used;
        // A dispatch boundary closes a run: the next dispatch starts afresh.
        if let Some(cur) = w.current.get_mut(&std::thread::current().id()) {
            cur.range_open = false;
        }
    }

    /// The case ended: write its files (when it has lanes to dump, or with
    /// `--dump-all`) and the manifest.
    fn end_case(&self, result: &CaseResult) {
        let mut w = self.lock();
        let Some(mut cur) = w.current.remove(&std::thread::current().id()) else {
            return;
        };
        cur.entry.lanes_checked = result.tally.lanes_checked;
        cur.entry.lanes_failed = result.tally.lanes_failed;
        cur.entry.error = result.error.as_ref().map(ToString::to_string);
        if w.manifest.mode == Mode::Failing
            && cur.lanes.is_empty()
            && cur.entry.blocks_left_out == 0
        {
            return;
        }
        if w.error.is_some() {
            return; // the dump is already broken; the run goes on
        }
        // The same case on the same target twice (two devices): a directory each.
        let base = cur.entry.dir.clone();
        let mut n = 1;
        while w.manifest.cases.iter().any(|c| c.dir == cur.entry.dir) {
            n += 1;
            cur.entry.dir = format!("{base}.{n}");
        }
        let written = cur.write(&w.dir).and_then(|()| {
            w.manifest.cases.push(cur.entry);
            w.write_manifest()
        });
        if let Err(e) = written {
            w.error = Some(e);
        }
    }
}

impl Sink {
    /// Write the manifest a last time and say what the dump holds, or the
    /// first error met while writing it (exit 3 for an otherwise passing run).
    pub fn finish(&self) -> Result<Summary, Error> {
        let w = self.lock();
        if let Some(e) = &w.error {
            return Err(Error::Io(format!("writing the dump: {e}")));
        }
        w.write_manifest()
            .map_err(|e| Error::Io(format!("writing the dump: {e}")))?;
        Ok(Summary {
            dir: w.dir.clone(),
            cases: w.manifest.cases.len(),
            lanes: w.manifest.cases.iter().map(|c| c.lanes_dumped).sum(),
            blocks_left_out: w.manifest.cases.iter().map(|c| c.blocks_left_out).sum(),
        })
    }
}

impl Current {
    /// Append dispatch lanes `range` (one block) of `cmp`.
    fn take(&mut self, cmp: &Compare<'_>, range: std::ops::Range<usize>, verdicts: &[LaneVerdict]) {
        let k = cmp.outputs_per_lane.max(1);
        let first = cmp.first_lane + range.start as u64;
        let len = range.len() as u64;
        match self.entry.ranges.last_mut() {
            Some(last) if self.range_open && last[0] + last[1] == first => last[1] += len,
            _ => self.entry.ranges.push([first, len]),
        }
        self.range_open = range.len() == self.block;
        for lane in range.clone() {
            let global = cmp.first_lane + lane as u64;
            self.lanes.push(global);
            if self.entry.source_words == [1, 1, 1] {
                let (a, b, c) = (cmp.sources)(global);
                self.a.push(a);
                self.b.push(b);
                self.c.push(c);
            } else {
                let [a, b, c] = self.inputs.lane(self.seed, global);
                self.a.extend(a);
                self.b.extend(b);
                self.c.extend(c);
            }
        }
        let words = range.start * k..range.end * k;
        self.expected
            .extend_from_slice(&cmp.expected[words.clone()]);
        self.got.extend_from_slice(&cmp.got[words.clone()]);
        if let Prefill::Words(prefill) = cmp.prefill {
            self.prefill.extend_from_slice(&prefill[words]);
        }
        for &v in verdicts {
            self.verdicts.push(v as u8);
            self.entry.dumped.add(v);
        }
        self.entry.lanes_dumped += len;
    }

    /// Write the case directory's files.
    fn write(&self, root: &Path) -> Result<(), String> {
        let dir = root.join(&self.entry.dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let n = self.lanes.len() as u64;
        let k = self.entry.outputs_per_lane as u64;
        let f = &self.entry.files;
        write_npy(&dir.join(&f.lanes), "<u8", &[n], &self.lanes)?;
        let [wa, wb, wc] = self.entry.source_words;
        write_npy(&dir.join(&f.a), "<u4", &source_shape(n, wa), &self.a)?;
        write_npy(&dir.join(&f.b), "<u4", &source_shape(n, wb), &self.b)?;
        write_npy(&dir.join(&f.c), "<u4", &source_shape(n, wc), &self.c)?;
        write_npy(&dir.join(&f.expected), "<u4", &[n, k], &self.expected)?;
        write_npy(&dir.join(&f.got), "<u4", &[n, k], &self.got)?;
        if let Some(prefill) = &f.prefill {
            write_npy(&dir.join(prefill), "<u4", &[n, k], &self.prefill)?;
        }
        write_npy(&dir.join(&f.verdict), "|u1", &[n], &self.verdicts)?;
        let code = dir.join(&f.code_object);
        // Each case has a directory of its own, new in a dump the run made:
        // its files are created, never opened over something found there.
        crate::platform::files::create_new(&code)
            .and_then(|mut f| f.write_all(&self.code))
            .map_err(|e| format!("writing {}: {e}", code.display()))
    }
}

impl Writer {
    /// Replace `manifest.json` whole (written beside it, then renamed), so a
    /// reader never sees half of one.
    fn write_manifest(&self) -> Result<(), String> {
        let path = self.dir.join(MANIFEST);
        let text = serde_json::to_string_pretty(&self.manifest)
            .map_err(|e| format!("encoding {}: {e}", path.display()))?;
        crate::platform::files::write_replacing(&path, (text + "\n").as_bytes())
            .map_err(|e| e.to_string())
    }
}

/// Write `data` as a C-order `.npy` array of `dtype` and `shape`.
/// One line for npyz's refusal of a `.npy` file. A header it cannot parse
/// comes back as a parser diagnostic of several lines (the header echoed
/// with a caret under the fault, then what was expected); an error is one
/// line, and the echo may hold any bytes of a corrupt file, so only the
/// first line is kept, its whitespace collapsed, with the position
/// (`--> line:column` of the header) said in words.
pub fn npy_error_line(e: &std::io::Error) -> String {
    let text = e.to_string();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    line.replace(": -->", " at header position")
}

fn write_npy<T: npyz::Serialize + Copy>(
    path: &Path,
    dtype: &str,
    shape: &[u64],
    data: &[T],
) -> Result<(), String> {
    use npyz::WriterBuilder;
    let fail = |e: std::io::Error| format!("writing {}: {e}", path.display());
    let type_str: npyz::TypeStr = dtype.parse().expect("a valid dtype literal");
    let mut file = BufWriter::new(crate::platform::files::create_new(path).map_err(fail)?);
    let mut writer = npyz::WriteOptions::<T>::new()
        .dtype(npyz::DType::Plain(type_str))
        .shape(shape)
        .writer(&mut file)
        .begin_nd()
        .map_err(fail)?;
    writer.extend(data.iter().copied()).map_err(fail)?;
    writer.finish().map_err(fail)?;
    file.flush().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Definedness;

    fn compare<'a>(
        first_lane: u64,
        expected: &'a [u32],
        got: &'a [u32],
        taint: &'a Definedness,
        sources: check::Sources<'a>,
    ) -> Compare<'a> {
        Compare {
            first_lane,
            outputs_per_lane: 1,
            sources,
            prefill: Prefill::Poisoned,
            expected,
            got,
            taint,
        }
    }

    fn current(block: usize) -> Current {
        let case = crate::model::cases::select("basic").unwrap().remove(0);
        Current {
            entry: CaseEntry {
                case: case.name.into(),
                target: "gfx1100".into(),
                executor: "emulated gfx1100".into(),
                kernel: case.kernel.into(),
                kernel_source: KernelSource::Embedded {
                    source: String::new(),
                },
                dir: "gfx1100/basic".into(),
                files: Files::standard(false),
                code_object_bytes: 0,
                scalars: Vec::new(),
                source_words: [1, 1, 1],
                outputs_per_lane: 1,
                keeps_lanes: false,
                wave_size: 32,
                workgroup_size: block as u32,
                lanes_dumped: 0,
                ranges: Vec::new(),
                blocks_left_out: 0,
                dumped: VerdictCounts::default(),
                lanes_checked: 0,
                lanes_failed: 0,
                error: None,
            },
            code: Vec::new(),
            block,
            inputs: case.inputs,
            seed: 0,
            lanes: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            expected: Vec::new(),
            got: Vec::new(),
            prefill: Vec::new(),
            verdicts: Vec::new(),
            range_open: false,
        }
    }

    fn sink(mode: Mode, block: usize, limit: u64) -> (Sink, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let sink = Sink::with_limit(&dir.path().join("d"), mode, limit).unwrap();
        sink.lock()
            .current
            .insert(std::thread::current().id(), current(block));
        (sink, dir)
    }

    #[test]
    fn a_failing_lane_takes_its_whole_block_and_short_blocks_end_a_range() {
        let (sink, _dir) = sink(Mode::Failing, 4, u64::MAX);
        let sources = |lane: u64| (lane as u32, 0, 0);
        let taint = Definedness::default();
        // 10 lanes, blocks of 4: lanes 5 and 9 fail, so blocks 4..8 and 8..10.
        let expected: Vec<u32> = (0..10).collect();
        let mut got = expected.clone();
        got[5] ^= 1;
        got[9] ^= 2;
        sink.chunk(&compare(100, &expected, &got, &taint, &sources));
        // The next dispatch's first block fails too: a new range, since the
        // last block of the previous one was short.
        let expected2: Vec<u32> = (0..4).collect();
        let mut got2 = expected2.clone();
        got2[0] ^= 1;
        sink.chunk(&compare(110, &expected2, &got2, &taint, &sources));
        let w = sink.lock();
        let cur = &w.current[&std::thread::current().id()];
        assert_eq!(cur.entry.ranges, vec![[104, 6], [110, 4]]);
        assert_eq!(cur.lanes, (104..114).collect::<Vec<u64>>());
        assert_eq!(cur.a[1], 105);
        assert_eq!(cur.got[1], 5 ^ 1);
        assert_eq!(cur.entry.dumped.wrong, 3);
        assert_eq!(cur.entry.dumped.pass, 7);
        assert_eq!(w.manifest.bytes, 10 * bytes_per_lane(3, 1, false));
    }

    #[test]
    fn blocks_over_the_byte_limit_are_counted_not_taken() {
        let limit = 4 * bytes_per_lane(3, 1, false);
        let (sink, _dir) = sink(Mode::All, 4, limit);
        let sources = |lane: u64| (lane as u32, 0, 0);
        let taint = Definedness::default();
        let expected: Vec<u32> = (0..12).collect();
        sink.chunk(&compare(0, &expected, &expected, &taint, &sources));
        let w = sink.lock();
        let cur = &w.current[&std::thread::current().id()];
        assert_eq!(cur.entry.ranges, vec![[0, 4]]);
        assert_eq!(cur.entry.blocks_left_out, 2);
    }

    #[test]
    fn the_dump_directory_must_be_new_or_empty_and_writable() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_dir("--dump", &dir.path().join("new")).is_ok());
        assert!(check_dir("--dump", dir.path()).is_ok());
        std::fs::write(dir.path().join("x"), "").unwrap();
        let e = check_dir("--dump", dir.path()).unwrap_err();
        assert!(e.to_string().contains("not empty"), "{e}");
        let e = check_dir("--dump", &dir.path().join("no/such")).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let e = check_dir("--dump", &dir.path().join("x")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
        assert_eq!(e.exit_code(), crate::error::exit::USAGE);
    }
}
