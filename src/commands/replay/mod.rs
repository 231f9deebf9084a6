//! `xad-harness replay DIR`: the arguments of [`rerun::run`].

pub mod rerun;

use std::path::PathBuf;
use std::time::Duration;

use super::shared::{
    backend_choice, parse_index, parse_lane, parse_timeout, say, Failure, MAX_MISMATCHES,
};
use crate::platform::backend::BackendChoice;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A directory `run --dump` wrote.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// What executes the kernels (as for `run`; default auto, or $XAD_BACKEND).
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// HIP device index (the emulator is device 0).
    #[arg(long, value_parser = parse_index, allow_hyphen_values = true)]
    pub device: Option<usize>,
    /// Only the dumped cases whose names match (globs, comma separated).
    #[arg(long, value_name = "PATTERN")]
    pub case: Option<String>,
    /// Only the blocks holding these global lanes (comma separated).
    #[arg(long, value_name = "LANES", value_delimiter = ',', value_parser = parse_lane, allow_hyphen_values = true)]
    pub lane: Option<Vec<u64>>,
    /// Watchdog per dispatch, in seconds: 0.001 to 86400.
    #[arg(long, value_parser = parse_timeout, allow_hyphen_values = true, default_value = "60")]
    pub timeout: Duration,
    /// Lane lines printed per case: 0 to 1000000.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i64).range(0..=MAX_MISMATCHES), allow_hyphen_values = true)]
    pub max_mismatches: i64,
}

pub fn run(args: ReplayArgs) -> Result<i32, Failure> {
    let request = rerun::Request {
        dir: args.dir,
        backend: backend_choice(args.backend)?,
        device: args.device,
        lanes: args.lane,
        cases: args.case,
        timeout: args.timeout,
        max_lines: usize::try_from(args.max_mismatches).unwrap_or(0),
    };
    Ok(rerun::run(&request, &mut |line| say(line))?)
}
