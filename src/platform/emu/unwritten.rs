//! May-read-unwritten: the static pass that finds the registers a kernel
//! may read before it writes them, so a wave whose lanes are all launched
//! starts with only those tainted ([`super::taint`]).

use super::deps::{or_v, vbits, Deps, VMask, F_EXEC, F_SLOW, VGPR_WORDS};
use crate::isa::EXEC;

/// Registers some path from the entry may read (or write partially, or
/// read across lanes) before writing them fully: in a wave whose lanes are
/// all launched, only these start tainted, so a kernel that writes before
/// it reads runs with a clean shadow and pays nothing per instruction.
/// VGPRs count as written for reads under the EXEC they were written with
/// (no EXEC write in between on any path) or, before the first EXEC write,
/// in every lane. A forward dataflow to a fixpoint: sets only shrink.
pub fn may_read_unwritten(
    deps: &[Deps],
    successors: impl Fn(usize) -> [Option<usize>; 2],
) -> (u128, VMask) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    struct State {
        s: u128,
        full_v: VMask,
        region_v: VMask,
        exec_changed: bool,
    }
    let and4 = |a: VMask, b: VMask| std::array::from_fn::<u64, VGPR_WORDS, _>(|k| a[k] & b[k]);
    let mut states: Vec<Option<State>> = vec![None; deps.len()];
    let (mut may_s, mut may_v) = (0u128, [0u64; VGPR_WORDS]);
    if deps.is_empty() {
        return (may_s, may_v);
    }
    let v0 = vbits(0, 1);
    states[0] = Some(State {
        s: 3u128 << EXEC,
        full_v: v0,
        region_v: v0,
        exec_changed: false,
    });
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let (Some(mut st), d) = (states[i], &deps[i]) else {
            continue;
        };
        may_s |= d.rs & !st.s;
        let defined = std::array::from_fn::<u64, VGPR_WORDS, _>(|k| st.full_v[k] | st.region_v[k]);
        for k in 0..VGPR_WORDS {
            may_v[k] |= (d.rv[k] & !defined[k]) | (d.xv[k] & !st.full_v[k]);
        }
        st.s |= d.ws;
        if d.flags & F_EXEC != 0 {
            (st.region_v, st.exec_changed) = ([0; VGPR_WORDS], true);
        }
        if d.flags & F_SLOW != 0 {
            (st.full_v, st.region_v) = ([0; VGPR_WORDS], [0; VGPR_WORDS]);
        }
        or_v(&mut st.region_v, d.wv);
        if !st.exec_changed {
            or_v(&mut st.full_v, d.wv);
        }
        for next in successors(i).into_iter().flatten() {
            let merged = match states[next] {
                None => st,
                Some(o) => State {
                    s: o.s & st.s,
                    full_v: and4(o.full_v, st.full_v),
                    region_v: and4(o.region_v, st.region_v),
                    exec_changed: o.exec_changed || st.exec_changed,
                },
            };
            if states[next] != Some(merged) {
                states[next] = Some(merged);
                work.push(next);
            }
        }
    }
    (may_s, may_v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Inst, VCC};
    use crate::platform::emu::deps::{deps, Deps};

    fn inst(words: &[u32]) -> Inst {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        crate::isa::decode_at(&bytes, 0, 0).expect("decodes")
    }

    #[test]
    fn only_registers_a_path_reads_before_writing_start_tainted() {
        // 0: v1 = s13 + v0 (reads s13 unwritten); 1: s_and_saveexec s14, vcc_lo
        // (reads vcc unwritten); 2: v_mov v2, v1 (v1 written before the EXEC
        // change, in every lane); 3: v_mov v3, v4 (v4 never written).
        let code = [0x4a02_000d, 0xbe8e_206a, 0x7e04_0301, 0x7e06_0304];
        let deps: Vec<Deps> = code.iter().map(|&w| deps(&inst(&[w]), false)).collect();
        let (s, v) = may_read_unwritten(&deps, |i| [(i + 1 < deps.len()).then_some(i + 1), None]);
        assert_eq!(s, 1 << 13 | 1 << VCC);
        assert_eq!(v[0], 1 << 4);
    }
}
