//! `xad-harness list`: the catalogue's cases and the targets ([`crate::commands::list::rows`]).

pub mod rows;

use super::shared::{say, Failure};
use crate::error::exit;
use crate::platform::target::{self, Choice};

#[derive(clap::Args)]
pub struct ListArgs {
    /// Print the cases as a JSON array instead of text: per case its kernel, wave size, outputs
    /// per lane, the features it requires and the targets that have it.
    #[arg(long)]
    pub json: bool,
    /// Only the cases this target has (a name, or `all` for every target's list).
    // Negative numbers are values, so `--target -1` is refused naming the option.
    #[arg(long, value_name = "TARGET", value_parser = target::parse_choice, allow_negative_numbers = true)]
    pub target: Option<Choice>,
}

pub fn run(args: &ListArgs) -> Result<i32, Failure> {
    let target = args.target.unwrap_or(Choice::All);
    if args.json {
        say(rows::to_json(&rows::case_rows(target))?);
    } else {
        rows::case_lines(target).into_iter().for_each(say);
    }
    Ok(exit::PASS)
}
