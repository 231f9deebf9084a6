//! The harness's error type. Each variant maps to one documented exit code; the
//! CLI prints `Display` as a single line.

use crate::platform::device::DeviceError;

/// Exit codes, as documented in docs/exit-codes.md.
pub mod exit {
    /// Every lane of every case passed.
    pub const PASS: i32 = 0;
    /// At least one lane mismatched, was left unwritten, or a guard was overwritten.
    pub const MISMATCH: i32 = 1;
    /// Bad arguments or input files.
    pub const USAGE: i32 = 2;
    /// Runtime, toolchain or device fault (including a watchdog timeout, and a
    /// device resource that could not be released).
    pub const FAULT: i32 = 3;
    /// Nothing could run: no device where one was required.
    pub const SKIPPED: i32 = 77;
    /// Stopped by SIGINT: 128 + 2 ([`crate::pipeline::interrupt::Signal::exit_code`]).
    pub const SIGINT: i32 = 130;
    /// Stopped by SIGTERM: 128 + 15.
    pub const SIGTERM: i32 = 143;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something impossible or malformed.
    #[error("{0}")]
    Usage(String),
    /// The device, runtime or emulator failed.
    #[error("{context}: {source}")]
    Device {
        context: String,
        source: DeviceError,
    },
    /// The toolchain was missing or failed.
    #[error("{0}")]
    Toolchain(#[from] crate::platform::toolchain::ToolchainError),
    /// No backend could run what was asked.
    #[error("{0}")]
    Skipped(String),
    /// Writing a report or kernel file failed.
    #[error("{0}")]
    Io(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => exit::USAGE,
            Error::Device { .. } | Error::Toolchain(_) | Error::Io(_) => exit::FAULT,
            Error::Skipped(_) => exit::SKIPPED,
        }
    }

    pub fn device(context: impl Into<String>, source: DeviceError) -> Error {
        Error::Device {
            context: context.into(),
            source,
        }
    }
}

/// Why a run ended before its last case, or could not start. Exit codes are
/// chosen from this type (see [`crate::report::RunReport::exit_code`]), never
/// from its text.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A case's kernel missed its watchdog ([`DeviceError::Timeout`]). The
    /// device may still be running it, so later cases were not started: they
    /// would only queue behind it.
    #[error("stopped after a watchdog timeout")]
    StoppedAfterTimeout,
    /// The run could not start or go on (bad input, no device, toolchain, ...);
    /// its own exit code is the run's.
    #[error(transparent)]
    Failed(#[from] Error),
}

/// A device resource that could not be given back: it crosses the device
/// seam, so it is the seam's ([`crate::platform::device::ReleaseError`]).
pub use crate::platform::device::ReleaseError;

pub type Result<T, E = Error> = std::result::Result<T, E>;
