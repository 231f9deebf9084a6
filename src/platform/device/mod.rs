//! The seam between the harness and whatever executes kernels. The HIP backend
//! (real hardware, or the emulated HIP device library standing in for the
//! runtime in tests) and the embedded emulator both implement [`Device`];
//! nothing above this trait knows which one ran, except the [`Executor`] label it
//! reports with every result.

pub mod fault;
pub mod inject;

use std::time::Duration;

pub use fault::Fault;

/// What executed a result. Every report line carries this.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Executor {
    /// A device found through the HIP runtime. `name` is what the runtime calls
    /// it: a real card, or the emulated HIP device library, whose name says
    /// it is emulated.
    Hardware {
        name: String,
        arch: String,
        runtime: String,
    },
    /// The embedded emulator in this binary.
    Emulated { arch: String },
}

impl std::fmt::Display for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Executor::Hardware {
                name,
                arch,
                runtime,
            } => write!(f, "hardware: {name} ({arch}), {runtime}"),
            Executor::Emulated { arch } => write!(f, "emulated {arch}"),
        }
    }
}

/// A device address. Both backends hand these out; kernargs carry them.
pub type DevicePtr = u64;

/// A loaded code object on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleId(pub usize);

/// A device resource (buffer, module, stream) that could not be given back.
/// The results already read are unaffected, but the device may be in a bad
/// state: it counts as a fault (exit 3) when nothing worse happened.
#[derive(Debug, Clone, thiserror::Error)]
#[error("releasing {what}: {source}")]
pub struct ReleaseError {
    /// What was being released, e.g. `a module`.
    pub what: &'static str,
    pub source: DeviceError,
}

/// Release errors no caller was left to return to (a backend's `Drop`),
/// until [`take_unreleased`] drains them.
static UNRELEASED: std::sync::Mutex<Vec<ReleaseError>> = std::sync::Mutex::new(Vec::new());

/// Record a release that failed where no caller is left to return it to (a
/// backend's `Drop`, which never panics), and log it to stderr.
pub fn record_unreleased(error: ReleaseError) {
    // Not eprintln!: a full stderr must not turn a drop into a panic.
    let _ = std::io::Write::write_fmt(&mut std::io::stderr(), format_args!("warning: {error}\n"));
    UNRELEASED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(error);
}

/// The release errors recorded since the last call, oldest first. A run
/// drains them after each case and at its end, into the report.
pub fn take_unreleased() -> Vec<ReleaseError> {
    std::mem::take(
        &mut *UNRELEASED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    )
}

// The dispatch shape is defined beside the launch check that judges it, so
// reading code objects does not depend on the device seam.
pub use crate::platform::codeobj::launch::Dispatch;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum DeviceError {
    /// A runtime call failed. `code` is the raw status number; `name` and
    /// `description` come from the runtime itself (or say the number is unknown).
    #[error("{call} failed: {name} ({code}): {description}")]
    Runtime {
        call: String,
        code: i32,
        name: String,
        description: String,
    },
    /// The kernel did not finish within the watchdog's time.
    #[error("kernel did not complete within {0:?} (watchdog; raise it with --timeout)")]
    Timeout(Duration),
    /// The kernel touched memory outside every allocation (a GPU memory fault
    /// reported by a runtime).
    #[error("memory fault: {0}")]
    MemoryFault(String),
    /// The embedded emulator's structured fault: a memory fault, something it
    /// does not execute, the step budget, ... Prints as "emulator: ..." or,
    /// for memory faults, "memory fault: ...".
    /// Boxed: the fault carries text and context, and a small `DeviceError`
    /// keeps every `Result` on the emulator's hot path small.
    #[error("{0}")]
    Emulation(Box<Fault>),
    /// Refused before running anything (e.g. wrong target).
    #[error("{0}")]
    Refused(String),
}

impl From<Fault> for DeviceError {
    fn from(fault: Fault) -> DeviceError {
        DeviceError::Emulation(Box::new(fault))
    }
}

impl From<crate::platform::codeobj::launch::LaunchError> for DeviceError {
    fn from(e: crate::platform::codeobj::launch::LaunchError) -> DeviceError {
        DeviceError::Refused(e.to_string())
    }
}

impl DeviceError {
    /// A memory fault, whether a runtime or the emulator reported it.
    pub fn is_memory_fault(&self) -> bool {
        match self {
            DeviceError::MemoryFault(_) => true,
            DeviceError::Emulation(fault) => fault.is_memory_fault(),
            _ => false,
        }
    }
}

/// Why an output word is not a plain result (see [`Definedness`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Taint {
    /// The value depends on state the ISA does not define (a register the
    /// dispatch did not initialise, a deallocated VGPR, ...): a failure.
    Undefined,
    /// The value depends only on a rule the ISA guide contradicts itself on:
    /// neither pass nor fail.
    Unsettled,
}

/// Where a taint came from: what was undefined (or unsettled) and the
/// instruction that met it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    /// E.g. "s20 read before any write (the dispatch does not initialise it)".
    pub what: String,
    /// Byte offset of the instruction in the code object.
    pub offset: u64,
    /// Its disassembly.
    pub instruction: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at offset 0x{:x} ({})",
            self.what, self.offset, self.instruction
        )
    }
}

/// One tainted output word: its index in the range asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaintedWord {
    pub word: usize,
    pub taint: Taint,
    /// Index into [`Definedness::origins`].
    pub origin: usize,
}

/// A wave the device stopped because a branch, an EXEC change or a memory
/// address depended on a tainted value; the rest of the dispatch ran. Its
/// lanes have no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoppedWave {
    /// Global lane (in the dispatch) of the wave's lane 0.
    pub first_lane: u64,
    pub lanes: u64,
    pub taint: Taint,
    /// Index into [`Definedness::origins`].
    pub origin: usize,
}

/// What the last launch left undefined or unsettled in an output range.
/// Empty for a device that cannot tell (HIP on hardware has no such notion;
/// HIP on the emulated KFD device asks the emulator, `hip::emulated_kfd`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Definedness {
    pub origins: Vec<Origin>,
    /// Tainted words, ascending by `word`.
    pub words: Vec<TaintedWord>,
    pub waves: Vec<StoppedWave>,
}

impl Definedness {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.waves.is_empty()
    }
}

/// What the harness needs from an executor: HIP's module API, reduced.
pub trait Device {
    /// What will have executed the results.
    fn executor(&self) -> Executor;
    /// The device's target ID (gcnArchName), e.g. `gfx1100:sramecc-:xnack-`.
    fn arch_name(&self) -> String;
    /// Bytes of device memory available for this run (for `--lanes` limits).
    fn memory_bytes(&self) -> u64;

    fn alloc(&mut self, bytes: usize) -> Result<DevicePtr, DeviceError>;
    fn free(&mut self, ptr: DevicePtr) -> Result<(), DeviceError>;
    fn write(&mut self, dst: DevicePtr, src: &[u8]) -> Result<(), DeviceError>;
    fn read(&mut self, src: DevicePtr, dst: &mut [u8]) -> Result<(), DeviceError>;
    /// Device memory the host addresses directly, as word slices, one per
    /// `(address, words)` range in order: the emulator's memory is host
    /// memory, so the pipeline fills inputs and checks outputs in place
    /// instead of copying each way. `None` when the host cannot address the
    /// memory (HIP device memory) or the ranges share an allocation; the
    /// caller then copies with `write` and `read`.
    fn host_words(
        &mut self,
        _ranges: &[(DevicePtr, usize)],
    ) -> Option<Result<Vec<&mut [u32]>, DeviceError>> {
        None
    }

    /// Load a code object from its bytes (the HIP path: `hipModuleLoadData`).
    /// Which of the `words` output words at `out` the last launch left
    /// undefined or unsettled, and which waves it stopped (see
    /// [`Definedness`]). Asked right after a launch, before the host touches
    /// `out`. A device that does not track definedness reports nothing.
    fn definedness(&mut self, _out: DevicePtr, _words: usize) -> Result<Definedness, DeviceError> {
        Ok(Definedness::default())
    }

    /// Whether the device is a model of the ISA (the emulator: it decides
    /// per word what the ISA leaves open, [`Device::definedness`]) rather
    /// than an executor of it (HIP: hardware, or the emulated HIP library
    /// standing in for it). A probe case's words are classified into
    /// findings only on an executor ([`crate::pipeline::findings`]).
    fn models_isa(&self) -> bool {
        false
    }

    fn load(&mut self, image: &[u8]) -> Result<ModuleId, DeviceError>;
    /// Launch `kernel` of `module` with the kernarg image and wait for it, at
    /// most `timeout`. `kernarg` was built from the code object's metadata.
    fn launch(
        &mut self,
        module: ModuleId,
        kernel: &str,
        kernarg: &[u8],
        dispatch: Dispatch,
        timeout: Duration,
    ) -> Result<(), DeviceError>;
}
