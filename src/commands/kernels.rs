//! `xad-harness kernels --out DIR`: the embedded code objects as files.

use std::path::PathBuf;

use super::shared::{say, Failure};
use crate::error::exit;

#[derive(clap::Args)]
pub struct KernelsArgs {
    /// Directory to write into (created if missing): DIR/<target>/<kernel>.hsaco per target.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: &KernelsArgs) -> Result<i32, Failure> {
    crate::platform::embedded::write_all(&args.out, &mut |path, k| {
        say(format_args!(
            "{}  ({}, from {})",
            path.display(),
            k.target,
            k.source
        ))
    })?;
    Ok(exit::PASS)
}
