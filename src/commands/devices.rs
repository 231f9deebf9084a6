//! `xad-harness devices`: the HIP devices and whether the harness runs on them.

use super::{say, Failure};
use crate::error::exit;
use crate::{hip, listing};

#[derive(clap::Args)]
pub struct DevicesArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DevicesArgs) -> Result<i32, Failure> {
    let probe = hip::probe();
    if args.json {
        say(listing::to_json(&listing::DevicesReport::from(&probe))?);
    } else {
        listing::device_lines(&probe).into_iter().for_each(say);
    }
    Ok(exit::PASS)
}
