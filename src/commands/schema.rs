//! `xad-harness schema`: the JSON Schema of the `run --json` report.

use super::shared::{say, Failure};
use crate::error::exit;

pub fn run() -> Result<i32, Failure> {
    say(crate::report::SCHEMA.trim_end());
    Ok(exit::PASS)
}
