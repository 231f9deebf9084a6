//! How a family declares its cases: `case!` builds a [`Spec`] (the catalogue
//! [`Case`] and the [`Program`] its kernel runs) from what is stated once: the
//! case's name, wave size, op table, scalar argument count and description
//! (and, optionally, an unsettled note or a fast model). Everything else is
//! derived: the kernel is `xad_<name>` (`kernels/cases/`, built for every target whose ISA
//! has the case's `requires`, which its stub's `// needs:` line repeats), the words per
//! lane and `keeps_lanes` come from the op table ([`Program::new`],
//! [`Program::keeps_lanes`]), and the model is [`run`](super::model::run) of
//! the program unless a fast model is given.

use super::op_table::Program;
use super::Case;

/// A catalogue case and the program its kernel runs.
pub struct Spec {
    pub case: Case,
    pub program: &'static Program,
}

/// One case, as an expression of type [`Spec`] (usable in a `static`):
///
/// ```text
/// case!("vgpr_w32", wave: 32, ops: &OPS, scalars: 0, description: DESCRIPTION)
/// case!("sreg_hi_w32", wave: 32, ops: &HI_OPS, scalars: 8, description: "...", unsettled: "...")
/// case!("basic", wave: 32, ops: &BASIC, scalars: 0, description: "...", fast_model: straight_loop)
/// case!("dpp_src1_sgpr_dpp8_w32", wave: 32, ops: &OPS, scalars: 8, description: "...", requires: &[Wave32, Vop3Dpp, DppSrc1Scalar])
/// ```
///
/// `ops` is a constant expression of type `&'static [Op]`. A `fast_model`
/// replaces the table model where speed matters; the family then tests that it
/// computes what `run` of the table does.
macro_rules! case {
    ($name:literal, wave: $wave:literal, ops: $ops:expr, scalars: $scalars:expr, description: $description:expr
     $(, unsettled: $unsettled:expr)? $(, requires: $requires:expr)? $(, fast_model: $fast:path)? $(,)?) => {{
        const PROGRAM: $crate::model::cases::op_table::Program = $crate::model::cases::op_table::Program::new($wave, $ops);
        $crate::model::cases::declare::Spec {
            case: $crate::model::cases::Case {
                name: $name,
                description: $description,
                kernel: concat!("xad_", $name),
                wave_size: $wave,
                outputs_per_lane: PROGRAM.words,
                scalar_args: $scalars,
                keeps_lanes: PROGRAM.keeps_lanes(),
                inputs: &$crate::model::cases::STANDARD_INPUTS,
                model: $crate::model::cases::declare::case!(@model PROGRAM $(, $fast)?),
                unsettled: $crate::model::cases::declare::case!(@option $($unsettled)?),
                requires: $crate::model::cases::declare::case!(@features $($requires)?),
                probes: &[],
            },
            program: &PROGRAM,
        }
    }};
    (@model $program:ident) => {{
        fn table_model(data: &$crate::model::cases::LaneData<'_>, lanes: ::std::ops::Range<usize>, out: &mut [u32]) {
            $crate::model::cases::model::run(&$program, data, lanes, out)
        }
        table_model
    }};
    (@model $program:ident, $fast:path) => {
        $fast
    };
    (@features) => {
        &[]
    };
    (@features $value:expr) => {
        $value
    };
    (@option) => {
        None
    };
    (@option $value:expr) => {
        Some($value)
    };
}
pub(crate) use case;

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the families' hand-computed model vectors.
    use super::Spec;
    use crate::model::cases::LaneData;

    /// Run `spec`'s model over `a`, `b`, `c` (count = their length), with
    /// `scalars` and `prefill` (empty when the case writes every word).
    pub fn model_out(
        spec: &Spec,
        a: &[u32],
        b: &[u32],
        c: &[u32],
        scalars: &[u32],
        prefill: &[u32],
    ) -> Vec<u32> {
        let count = a.len();
        let mut out = vec![0u32; count * spec.case.outputs_per_lane];
        let data = LaneData {
            a,
            b,
            c,
            scalars,
            prefill,
            count,
        };
        (spec.case.model)(&data, 0..count, &mut out);
        out
    }

    pub fn spec(specs: &'static [Spec], name: &str) -> &'static Spec {
        specs
            .iter()
            .find(|s| s.case.name == name)
            .unwrap_or_else(|| panic!("no case {name}"))
    }
}
