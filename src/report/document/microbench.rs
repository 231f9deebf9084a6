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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object's keys in alphabetical order, as the report was written
    /// before it was typed (through a `serde_json::Value`).
    fn sorted(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(fields) => {
                let keys: Vec<&String> = fields.keys().collect();
                keys.windows(2).all(|k| k[0] < k[1]) && fields.values().all(sorted)
            }
            serde_json::Value::Array(items) => items.iter().all(sorted),
            _ => true,
        }
    }

    #[test]
    fn the_report_keeps_its_field_order_and_refuses_what_it_does_not_list() {
        let row = Row {
            form: Form::XorAdd,
            instructions: "v_xor_b32 + v_add_nc_u32".into(),
            latency: 8.0,
            latency_ratio: Some(2.0),
            latency_spread: [7.5, 9.0],
            throughput: 2.0,
            throughput_ratio: None,
            throughput_spread: [2.0, 2.25],
        };
        let report = Microbench {
            command: MicrobenchCommand,
            counter: Counter::Memtime,
            counter_instruction: "s_memtime".into(),
            executor: "hardware: X (gfx90a)".into(),
            independent_chains: 8,
            iterations: 16,
            latency_waves: 1,
            ops_per_region: 4096,
            repeat: 5,
            rows: vec![row],
            target: "gfx90a".into(),
            throughput_waves: 16,
        };
        let text = serde_json::to_string_pretty(&report).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(sorted(&value), "{text}");
        assert_eq!(Microbench::from_value(value.clone()), Ok(report));
        let mut extra = value;
        extra["rows"][0]["median"] = serde_json::json!(1);
        let why = Microbench::from_value(extra).unwrap_err();
        assert!(why.contains("rows[0]: unknown field \"median\""), "{why}");
    }
}
