//! Lane comparison. Every word of every lane is compared with the model; a lane
//! that still holds its poisoned (or prefilled) value where the model expects a
//! write is reported as unwritten, not as a wrong value. Writes outside the
//! buffers are [`crate::guard`]'s concern.

use rayon::prelude::*;

/// Why a lane failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The kernel wrote a value other than the model's.
    Wrong,
    /// The word still holds what was there before the launch.
    Unwritten,
}

/// One failing output word, with everything needed to reproduce it by hand.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mismatch {
    /// Global lane index (across chunks).
    pub lane: u64,
    /// Which of the lane's output words (0 for single-output cases).
    pub word: usize,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub expected: u32,
    pub got: u32,
    pub kind: FailureKind,
}

impl Mismatch {
    /// Bits that differ between expected and got.
    pub fn diff_bits(&self) -> u32 {
        self.expected ^ self.got
    }

    /// Bit positions that differ, ascending: `[0, 31]`.
    pub fn diff_positions(&self) -> Vec<u32> {
        (0..32).filter(|b| self.diff_bits() >> b & 1 == 1).collect()
    }
}

/// Running totals for one case.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    pub lanes_checked: u64,
    /// Lanes with at least one wrong or unwritten word.
    pub lanes_failed: u64,
    /// Of those, lanes whose failing words were all unwritten.
    pub lanes_unwritten: u64,
    /// The first failures in lane order, at most `keep` of them.
    pub first: Vec<Mismatch>,
}

/// XORed into an expected value to make the poison that goes into `out` before
/// launch. Many bits in no simple pattern, so the poison differs from the
/// expected value and from its common corruptions: one flipped bit, off by one
/// (`e ^ (e + 1)` is always a run of low ones), complement, zero, shifts.
/// (`!e`, the obvious choice, equals `e + 1` when `e` is 0x7fffffff.)
pub const POISON_XOR: u32 = 0x5bd1_e995;

/// The poison for a word whose expected value is `expected`.
#[inline]
pub fn poison(expected: u32) -> u32 {
    expected ^ POISON_XOR
}

/// What `out` held before the launch, to tell unwritten words from wrong ones.
#[derive(Clone, Copy)]
pub enum Prefill<'a> {
    /// Every word was poisoned with [`poison`] of its expected value.
    Poisoned,
    /// These words (cases where some lanes must keep their contents).
    Words(&'a [u32]),
}

impl Prefill<'_> {
    #[inline]
    fn word(&self, i: usize, expected: u32) -> u32 {
        match self {
            Prefill::Poisoned => poison(expected),
            Prefill::Words(w) => w[i],
        }
    }
}

/// A lane's sources (a, b, c) by global lane index, for failure records.
/// Inputs are a pure function of (seed, lane), so they are drawn again for
/// the few failing lanes rather than kept: that holds whether the sources sat
/// in host buffers or in device memory the kernel could have overwritten.
pub type Sources<'a> = &'a (dyn Fn(u64) -> (u32, u32, u32) + Sync);

/// One dispatch's worth of data to compare.
pub struct Compare<'a> {
    pub first_lane: u64,
    pub outputs_per_lane: usize,
    pub sources: Sources<'a>,
    pub prefill: Prefill<'a>,
    pub expected: &'a [u32],
    pub got: &'a [u32],
}

/// Lanes per parallel comparison piece.
const PIECE_LANES: usize = 1 << 14;

impl Tally {
    /// Compare one dispatch and add it to the totals, keeping at most `keep`
    /// detailed records overall.
    pub fn add(&mut self, cmp: &Compare<'_>, keep: usize) {
        let k = cmp.outputs_per_lane.max(1);
        let lanes = cmp.expected.len() / k;
        debug_assert_eq!(cmp.expected.len(), lanes * k);
        debug_assert_eq!(cmp.got.len(), lanes * k);
        let room = keep.saturating_sub(self.first.len());
        let pieces: Vec<(u64, u64, Vec<Mismatch>)> = (0..lanes.div_ceil(PIECE_LANES))
            .into_par_iter()
            .map(|p| {
                let start = p * PIECE_LANES;
                let end = (start + PIECE_LANES).min(lanes);
                let (exp, got) = (&cmp.expected[start * k..end * k], &cmp.got[start * k..end * k]);
                if exp == got {
                    return (0, 0, Vec::new()); // the common case: one memcmp
                }
                let (mut failed, mut unwritten, mut records) = (0u64, 0u64, Vec::new());
                for lane in start..end {
                    let mut lane_failed = false;
                    let mut lane_wrong = false;
                    for word in 0..k {
                        let i = lane * k + word;
                        let (e, g) = (cmp.expected[i], cmp.got[i]);
                        if e == g {
                            continue;
                        }
                        lane_failed = true;
                        let kind = if g == cmp.prefill.word(i, e) { FailureKind::Unwritten } else { FailureKind::Wrong };
                        lane_wrong |= kind == FailureKind::Wrong;
                        if records.len() < room {
                            let global = cmp.first_lane + lane as u64;
                            let (a, b, c) = (cmp.sources)(global);
                            records.push(Mismatch {
                                lane: global,
                                word,
                                a,
                                b,
                                c,
                                expected: e,
                                got: g,
                                kind,
                            });
                        }
                    }
                    failed += u64::from(lane_failed);
                    unwritten += u64::from(lane_failed && !lane_wrong);
                }
                (failed, unwritten, records)
            })
            .collect();
        self.lanes_checked += lanes as u64;
        for (failed, unwritten, records) in pieces {
            self.lanes_failed += failed;
            self.lanes_unwritten += unwritten;
            let room = keep.saturating_sub(self.first.len());
            self.first.extend(records.into_iter().take(room));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(expected: &[u32], got: &[u32], prefill: &[u32], k: usize, keep: usize) -> Tally {
        let prefill = Prefill::Words(prefill);
        let mut t = Tally::default();
        let sources = |lane: u64| (lane as u32, 0, 0);
        t.add(&Compare { first_lane: 1000, outputs_per_lane: k, sources: &sources, prefill, expected, got }, keep);
        t
    }

    #[test]
    fn equal_outputs_pass() {
        let e: Vec<u32> = (0..300_000).collect();
        let t = run(&e, &e, &vec![0; e.len()], 1, 10);
        assert_eq!((t.lanes_checked, t.lanes_failed, t.first.len()), (300_000, 0, 0));
    }

    #[test]
    fn wrong_and_unwritten_are_told_apart_with_global_lanes() {
        let e: Vec<u32> = (0..200_000).collect();
        let prefill: Vec<u32> = e.iter().map(|x| !x).collect();
        let mut g = e.clone();
        g[5] ^= 1 << 31; // wrong: one bit
        g[150_000] = prefill[150_000]; // unwritten
        let t = run(&e, &g, &prefill, 1, 10);
        assert_eq!((t.lanes_failed, t.lanes_unwritten), (2, 1));
        assert_eq!(t.first[0].lane, 1005);
        assert_eq!(t.first[0].kind, FailureKind::Wrong);
        assert_eq!(t.first[0].diff_positions(), vec![31]);
        assert_eq!(t.first[1].lane, 151_000);
        assert_eq!(t.first[1].kind, FailureKind::Unwritten);
    }

    #[test]
    fn poisoned_words_mark_unwritten() {
        let e = vec![5u32, 6, 7];
        let g = vec![5u32, poison(6), 8];
        let mut t = Tally::default();
        let sources = |_| (0, 0, 0);
        t.add(&Compare { first_lane: 0, outputs_per_lane: 1, sources: &sources, prefill: Prefill::Poisoned, expected: &e, got: &g }, 10);
        assert_eq!((t.lanes_failed, t.lanes_unwritten), (2, 1));
        assert_eq!((t.first[0].kind, t.first[1].kind), (FailureKind::Unwritten, FailureKind::Wrong));
    }

    #[test]
    fn keep_limits_records_not_counts() {
        let e = vec![7u32; 1000];
        let g = vec![8u32; 1000];
        let t = run(&e, &g, &vec![0; 1000], 1, 3);
        assert_eq!((t.lanes_failed, t.first.len()), (1000, 3));
        assert_eq!(t.first.iter().map(|m| m.lane).collect::<Vec<_>>(), vec![1000, 1001, 1002]);
    }

    #[test]
    fn multi_word_lanes_count_once() {
        let e = vec![1u32, 2, 3, 4];
        let g = vec![1u32, 9, 9, 4];
        let t = run(&e, &g, &[0; 4], 2, 10);
        assert_eq!((t.lanes_checked, t.lanes_failed), (2, 2));
        assert_eq!((t.first[0].lane, t.first[0].word), (1000, 1));
        assert_eq!((t.first[1].lane, t.first[1].word), (1001, 0));
    }
}
