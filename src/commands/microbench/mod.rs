//! `xad-harness microbench`: its arguments, the backend choice and stdout;
//! the measurement is [`timing`]'s.

pub mod timing;

use std::path::PathBuf;

use super::shared::{backend_choice, say, Failure};
use crate::platform::backend::BackendChoice;
use timing::{
    DEFAULT_ITERATIONS, DEFAULT_REPEAT, DEFAULT_WAVES, MAX_ITERATIONS, MAX_REPEAT, MAX_WAVES,
};

/// `xad-harness microbench` as parsed by the CLI.
#[derive(Debug, Clone, clap::Args)]
pub struct MicrobenchArgs {
    /// What executes (default: $XAD_BACKEND, else auto). Only a HIP hardware device
    /// times anything; the emulator and an emulated HIP device are exit 77.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// HIP device index (default: the first device that runs one of our targets).
    #[arg(long, value_parser = clap::value_parser!(u32), allow_hyphen_values = true)]
    pub device: Option<u32>,
    /// Loop trips of 32 ops per timed region: 1 to 512 (keeps a region far below 2^20 cycles).
    #[arg(long, default_value_t = DEFAULT_ITERATIONS,
          value_parser = clap::value_parser!(u32).range(1..=MAX_ITERATIONS as i64), allow_hyphen_values = true)]
    pub iterations: u32,
    /// Waves in the throughput launch's workgroup: 2 to 16.
    #[arg(long, default_value_t = DEFAULT_WAVES,
          value_parser = clap::value_parser!(u32).range(2..=MAX_WAVES as i64), allow_hyphen_values = true)]
    pub waves: u32,
    /// Timed launches of each shape (after one warm-up): 1 to 100; medians are reported.
    #[arg(long, default_value_t = DEFAULT_REPEAT,
          value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT as i64), allow_hyphen_values = true)]
    pub repeat: u32,
    /// Watchdog per launch, in seconds: 1 to 86400.
    #[arg(long, default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400), allow_hyphen_values = true)]
    pub timeout: u64,
    /// Also write the measurements as JSON here (`-`: stdout, the text then on stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the measurements as a self-contained HTML page here:
    /// latency and throughput per form, with their spread over launches.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(args: &MicrobenchArgs) -> Result<i32, Failure> {
    let backend = backend_choice(args.backend)?;
    // A report on stdout (`--json -`) leaves the lines to stderr; two are
    // refused by the run's own check.
    super::shared::report_on_stdout(&[args.json.as_deref(), args.html.as_deref()]);
    Ok(timing::run(args, backend, &mut |line| say(line))?)
}
