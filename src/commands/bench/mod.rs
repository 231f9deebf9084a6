//! `xad-harness bench`: the emulator pipeline and the SHA-256 cases against
//! native loops ([`crate::commands::bench::measure`]).

pub mod measure;

use super::shared::{parse_lanes, parse_seed, say, Failure};
use crate::error::exit;
use crate::model::inputs;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Lanes per run (the speed target is stated for 67108864).
    #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "67108864")]
    pub lanes: u64,
    /// Seed for the inputs (decimal or 0x hex); random when not given.
    #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,
    /// Runs of each, interleaved; the median is reported, and the best.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(i64).range(1..=100), allow_hyphen_values = true)]
    pub repeat: i64,
    /// Lanes of the SHA-256 part (sha256_w32 emulated beside the sha2 crate), 1 to 4194304.
    #[arg(long, value_parser = parse_lanes, allow_hyphen_values = true, default_value = "16384")]
    pub sha_lanes: u64,
}

pub fn run(args: &BenchArgs) -> Result<i32, Failure> {
    let seed = args.seed.unwrap_or_else(inputs::fresh_seed);
    let repeat = usize::try_from(args.repeat).unwrap_or(1); // 1..=100 by the parser
    measure::sha256_lanes_ok(args.sha_lanes)?;
    say(measure::run(args.lanes, seed, repeat)?.trim_end());
    say(measure::sha256(args.sha_lanes, seed, repeat)?.trim_end());
    Ok(exit::PASS)
}
