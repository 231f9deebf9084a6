//! One case on one device: [`run`] draws the inputs, launches through a
//! [`handle`] with [`guard`] words around every buffer, checks every lane and
//! counts where the verdicts fall ([`pattern`]); a probe case's words become
//! [`findings`]; a signal stops it at the next dispatch ([`interrupt`]). The
//! commands plan which cases on which devices; the pipeline knows neither
//! the plan nor the report.

pub mod findings;
pub mod guard;
pub mod handle;
pub mod interrupt;
pub mod pattern;
pub mod run;
