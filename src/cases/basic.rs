//! The basic case: three VGPR sources, one result per lane, wave32.

use super::{xad, Case, LaneData};
use std::ops::Range;

fn model(data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]) {
    let (a, b, c) = (&data.a[lanes.clone()], &data.b[lanes.clone()], &data.c[lanes]);
    for (((o, &a), &b), &c) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = xad(a, b, c);
    }
}

pub static CASES: &[Case] = &[Case {
    name: "basic",
    description: "v_xad_u32 v5, v2, v3, v4: VGPR sources from a, b, c; wave32; tail lanes masked by EXEC",
    kernel: "xad_basic",
    wave_size: 32,
    outputs_per_lane: 1,
    scalar_args: 0,
    keeps_lanes: false,
    model,
    unsettled: None,
}];
