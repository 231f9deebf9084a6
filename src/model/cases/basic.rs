//! The basic case: three VGPR sources, one result per lane, wave32 (and
//! wave64, for gfx9).

use std::ops::Range;

use super::declare::{case, Spec};
use super::op_table::{Lane::*, Op, Src::*};
use super::{xad, LaneData};
use crate::platform::target::Feature;

const OPS: [Op; 1] = [Op::new(0, 5, [V(2, A), V(3, B), V(4, C)])];

/// The table model interprets the program lane by lane; the bench runs tens of
/// millions of basic lanes, so basic computes them in one straight loop (test
/// `fast_model_matches_the_table_model`).
fn straight_loop(data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]) {
    let (a, b, c) = (
        &data.a[lanes.clone()],
        &data.b[lanes.clone()],
        &data.c[lanes],
    );
    for (((o, &a), &b), &c) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = xad(a, b, c);
    }
}

pub(super) static SPECS: &[Spec] = &[
    case!(
        "basic", wave: 32, ops: &OPS, scalars: 0,
        description: "v_xad_u32 v5, v2, v3, v4: VGPR sources from a, b, c; wave32; tail lanes masked by EXEC",
        requires: &[Feature::Wave32],
        fast_model: straight_loop,
    ),
    // The same instruction in wave64, so gfx9 (wave64 only) has a basic case.
    case!(
        "basic_w64", wave: 64, ops: &OPS, scalars: 0,
        description: "v_xad_u32 v5, v2, v3, v4: VGPR sources from a, b, c; wave64; tail lanes masked by EXEC",
        requires: &[Feature::Wave64]
    ),
];

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::super::model::run;
    use super::*;

    #[test]
    fn fast_model_matches_the_table_model() {
        const SEED: u64 = 0x0ba5_1c00;
        let spec = &SPECS[0];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED);
        let edges = [0, 1, 0x7fff_ffff, 0x8000_0000, u32::MAX];
        // 1000 lanes: random words with edge values mixed in; the last wave is partial.
        let word = |rng: &mut Xoshiro256PlusPlus| {
            if rng.random_bool(0.2) {
                edges[rng.random_range(0..edges.len())]
            } else {
                rng.random()
            }
        };
        let count = 1000;
        let a: Vec<u32> = (0..count).map(|_| word(&mut rng)).collect();
        let b: Vec<u32> = (0..count).map(|_| word(&mut rng)).collect();
        let c: Vec<u32> = (0..count).map(|_| word(&mut rng)).collect();
        let data = LaneData {
            a: &a,
            b: &b,
            c: &c,
            scalars: &[],
            prefill: &[],
            count,
        };
        for lanes in [0..count, 64..count, 0..31, 992..count] {
            let mut fast = vec![0x5a5a_5a5a; lanes.len()];
            let mut table = vec![0xa5a5_a5a5; lanes.len()];
            (spec.case.model)(&data, lanes.clone(), &mut fast);
            run(spec.program, &data, lanes.clone(), &mut table);
            if let Some(i) = (0..lanes.len()).find(|&i| fast[i] != table[i]) {
                let lane = lanes.start + i;
                panic!(
                    "seed {SEED:#x} lanes {lanes:?}: lane {lane} fast {:#x}, table {:#x}",
                    fast[i], table[i]
                );
            }
        }
    }
}
