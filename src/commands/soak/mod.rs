//! `xad-harness soak`: the arguments of [`crate::commands::soak::endurance::run_reported`].

pub mod endurance;

use std::path::PathBuf;
use std::time::Duration;

use super::shared::{
    backend_choice, install_interrupt, parse_index, parse_seed, refuse, say, warn, Failure,
};
use crate::platform::backend::BackendChoice;
use crate::{model::inputs, report};

// `soak --duration D [--backend B] [--device I] [--seed S] [--json FILE] [--html FILE]`
#[derive(clap::Args)]
pub struct SoakArgs {
    /// How long: seconds (90, 1.5) or with a unit (500ms, 30s, 10m, 2h); 0.1 s to 7 days.
    #[arg(long, value_parser = endurance::parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// What executes (as for `run`; default $XAD_BACKEND, else auto).
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// HIP device index (default: the first; the emulator is device 0).
    #[arg(long, value_parser = parse_index, allow_hyphen_values = true)]
    pub device: Option<usize>,
    /// Seed of the inputs (decimal or 0x hex); random when not given.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Write the outcome as JSON here (also when it fails; `-`: stdout, the text then on stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write an HTML page of the outcome here (per-unit coverage and mismatches; also when it fails).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(args: &SoakArgs) -> Result<i32, Failure> {
    let interrupt = install_interrupt()?;
    let mut refused = report::outputs::check(args.json.as_deref(), None);
    refused.extend(report::outputs::check_html(
        args.html.as_deref(),
        &[("--json", args.json.as_deref())],
    ));
    let backend = backend_choice(args.backend);
    refused.extend(
        backend
            .as_ref()
            .err()
            .map(|e| crate::error::Error::Usage(e.to_string())),
    );
    refuse(refused)?;
    super::shared::report_on_stdout(&[args.json.as_deref(), args.html.as_deref()]);
    let request = endurance::Request {
        duration: args.duration,
        backend: backend?,
        device: args.device,
        seed: args.seed.unwrap_or_else(inputs::fresh_seed),
        sample: endurance::DEFAULT_SAMPLE,
        timeout: Duration::from_secs(60),
        interrupt: Some(interrupt),
        fixed: None,
    };
    Ok(endurance::run_reported(
        &request,
        args.json.as_deref(),
        args.html.as_deref(),
        &mut |line| say(line),
        &mut |line| warn(line),
    )?)
}
