//! `xad-harness microbench`: its arguments and policy are
//! [`crate::commands::microbench::timing`]'s; this adds the backend choice and stdout.

pub mod timing;

use super::{backend_choice, say, Failure};

pub fn run(args: &timing::Args) -> Result<i32, Failure> {
    let backend = backend_choice(args.backend)?;
    // A report on stdout (`--json -`) leaves the lines to stderr; two are
    // refused by the run's own check.
    super::report_on_stdout(&[args.json.as_deref(), args.html.as_deref()]);
    Ok(timing::run(args, backend, &mut |line| {
        say(line)
    })?)
}
