//! The catalogue: each case is a hand-written kernel (embedded from
//! `kernels/gfx1100/<kernel>.s`) plus a CPU model of exactly what the ISA says the
//! hardware must produce, over the standard lane ABI below.
//!
//! Standard lane ABI (every case; see README "Kernel ABI"): explicit kernel
//! arguments in this order: `a`, `b`, `c` (u32 global buffers, one word per
//! lane), `out` (u32 global buffer, `outputs_per_lane` words per lane, lane `i`
//! at `out[i * outputs_per_lane ..]`), `count` (u32 lanes in this dispatch), then
//! `scalar_args` u32 by-value arguments `s0, s1, ...`. One-dimensional dispatch of
//! `ceil(count / W)` workgroups of `W` work-items, `W` being the kernel's
//! `.reqd_workgroup_size` (256 when it declares none); global lane =
//! workgroup_id.x * W + local id x. No hidden arguments are provided to rely on.

mod basic;
mod chain;
mod dpp16;
mod dpp8;
mod exec;
pub mod forms;
mod inline;
mod literal;
mod sreg;
mod vgpr;

use std::ops::Range;

/// What a model sees: the sources of every lane of the dispatch, the scalar
/// arguments, and the output's contents before launch.
pub struct LaneData<'a> {
    pub a: &'a [u32],
    pub b: &'a [u32],
    pub c: &'a [u32],
    pub scalars: &'a [u32],
    /// `out` before the launch (`outputs_per_lane` words per lane); empty for
    /// cases that write every word (`keeps_lanes == false`).
    pub prefill: &'a [u32],
    /// Lanes in this dispatch (= `a.len()`); lanes at or past it do not exist.
    pub count: usize,
}

/// A CPU model: writes the expected `out` words of `lanes` into `out`
/// (`lanes.len() * outputs_per_lane` words). Called in parallel on pieces of a
/// dispatch aligned to 64 lanes, with `data` holding that piece only (lane 0
/// of `data` is the piece's first lane): a model may read any lane of the
/// wave it computes, never lanes of another wave.
pub type Model = fn(data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]);

/// One conformance case.
#[derive(Clone, Copy)]
pub struct Case {
    pub name: &'static str,
    /// One line: what the case exercises and what its sources read.
    pub description: &'static str,
    /// Embedded code object (and kernel symbol) name.
    pub kernel: &'static str,
    pub wave_size: u32,
    pub outputs_per_lane: usize,
    /// Extra u32 arguments after `count`, random per run (seeded).
    pub scalar_args: usize,
    /// Some lanes of `out` must keep their previous contents (EXEC patterns).
    /// When false, every word of `out` is written and is poisoned with the
    /// complement of its expected value before launch.
    pub keeps_lanes: bool,
    pub model: Model,
    /// Behaviour the ISA guide leaves unclear, stated so nobody mistakes the
    /// model's choice for a documented rule.
    pub unsettled: Option<&'static str>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case").field("name", &self.name).field("kernel", &self.kernel).finish()
    }
}

/// Every case, in catalogue order.
pub fn catalogue() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend_from_slice(basic::CASES);
    all.extend(forms::specs().map(|s| s.case));
    all
}

/// For a table-built case: the output word each of its kernel's `v_xad_u32`
/// instructions (in program order) stores to (`None`: a chain intermediate).
/// `None` for cases without a table.
pub fn op_words(case: &str) -> Option<Vec<Option<u16>>> {
    forms::specs().find(|s| s.case.name == case).map(|s| s.program.ops.iter().map(|op| op.word).collect())
}

/// Cases whose names match any of the comma-separated glob `patterns`
/// (`*`, `?`, `[..]`). An empty result is a usage error for the caller.
pub fn select(patterns: &str) -> Result<Vec<Case>, String> {
    let mut globs = Vec::new();
    for p in patterns.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        globs.push(glob::Pattern::new(p).map_err(|e| format!("--case {p:?} is not a valid pattern: {e}"))?);
    }
    if globs.is_empty() {
        return Err("--case needs a case name or pattern (see `xad-harness list`)".into());
    }
    let chosen: Vec<Case> = catalogue().into_iter().filter(|c| globs.iter().any(|g| g.matches(c.name))).collect();
    if chosen.is_empty() {
        return Err(format!("--case {patterns:?} matches no case (see `xad-harness list`)"));
    }
    Ok(chosen)
}

/// `(s0 ^ s1) + s2`, wrapping: the ISA's `D0.u32 = (S0.u32 ^ S1.u32) + S2.u32`.
#[inline(always)]
pub fn xad(s0: u32, s1: u32, s2: u32) -> u32 {
    (s0 ^ s1).wrapping_add(s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xad_known_answers() {
        // (s0, s1, s2, expected): wrap-around, sign boundary, xor identities.
        let vectors: [(u32, u32, u32, u32); 8] = [
            (0, 0, 0, 0),
            (1, 2, 3, 6),
            (0xffff_ffff, 0, 1, 0),                     // wraps to zero, no carry-out kept
            (0xffff_ffff, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff),
            (0x7fff_ffff, 0, 1, 0x8000_0000),           // sign boundary, no saturation
            (0x1234_5678, 0x1234_5678, 0xdead_beef, 0xdead_beef),
            (0xaaaa_aaaa, 0x5555_5555, 2, 1),           // xor all ones, +2 wraps to 1
            (0x8000_0000, 0x0000_0001, 0x8000_0000, 1), // 0x80000001 + 0x80000000
        ];
        for (s0, s1, s2, want) in vectors {
            assert_eq!(xad(s0, s1, s2), want, "xad({s0:#x}, {s1:#x}, {s2:#x})");
        }
    }

    #[test]
    fn names_are_unique_and_kernels_embedded() {
        let all = catalogue();
        let mut names: Vec<_> = all.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "duplicate case names");
        for case in &all {
            assert!(crate::kernels::find(case.kernel).is_some(), "case {} names missing kernel {}", case.name, case.kernel);
        }
    }

    #[test]
    fn select_patterns() {
        assert_eq!(select("basic").unwrap()[0].name, "basic");
        assert!(select("no_such_case").is_err());
        assert!(select("[").is_err());
        assert!(select(" , ").is_err());
    }
}
