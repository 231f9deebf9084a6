//! A microbench's report (`microbench --json`, drawn by `microbench --html`
//! and `report MICROBENCH.json --html`): per instruction form, latency and
//! throughput in counter ticks per op with their spread and their ratio to
//! `v_xad_u32`. Its fields are in alphabetical order, the order the report
//! has always had.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{literal, nullable};

literal!(
    /// A microbench report's `command`: `"microbench"`.
    MicrobenchCommand = "microbench", field "command"
);

/// The report `microbench --json` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Microbench {
    pub command: MicrobenchCommand,
    pub counter: Counter,
    pub counter_instruction: String,
    pub executor: String,
    pub independent_chains: u64,
    pub iterations: u32,
    pub latency_waves: u32,
    pub ops_per_region: u64,
    pub repeat: u32,
    pub rows: Vec<Row>,
    pub target: String,
    pub throughput_waves: u32,
}

impl Microbench {
    /// `value` as a microbench's report, or why it is not one.
    pub fn from_value(value: serde_json::Value) -> Result<Microbench, String> {
        serde_path_to_error::deserialize(value)
            .map_err(|e| super::at_place(e, "a microbench's report"))
    }
}

/// The counter a kernel read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    ShaderCycles20,
    ShaderCycles64,
    Memtime,
}

/// An instruction form compared: `v_xad_u32`, `v_xor_b32` then an add, `v_add3_u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    Xad,
    XorAdd,
    Add3,
}

/// One form's measurements, in counter ticks per op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub form: Form,
    /// The form as the kernel's assembler spells it.
    pub instructions: String,
    /// Dependent chain, one wave alone (median over launches).
    pub latency: f64,
    #[serde(deserialize_with = "nullable")]
    pub latency_ratio: Option<f64>,
    /// The fewest and most ticks per op of any launch.
    pub latency_spread: [f64; 2],
    /// Independent chains, many waves: ticks per op of each wave.
    pub throughput: f64,
    #[serde(deserialize_with = "nullable")]
    pub throughput_ratio: Option<f64>,
    pub throughput_spread: [f64; 2],
}
