//! `xad-harness devices`: the HIP devices and whether the harness runs on them.

use super::shared::{say, Failure};
use crate::error::exit;
use crate::{commands::list::rows, platform::hip};

#[derive(clap::Args)]
pub struct DevicesArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DevicesArgs) -> Result<i32, Failure> {
    let probe = hip::probe();
    if args.json {
        say(rows::to_json(&rows::DevicesReport::from(&probe))?);
    } else {
        rows::device_lines(&probe).into_iter().for_each(say);
    }
    Ok(exit::PASS)
}
