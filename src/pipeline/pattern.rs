//! Where a case's verdicts fall, for pictures of a run of any size: lanes by
//! verdict per lane class (lane index mod [`LANE_CLASSES`]) and per lane-range
//! bucket ([`BUCKETS`] equal ranges over the case's lanes), which result bits
//! the wrong words flipped (0 -> 1 and 1 -> 0 apart), and the verdict of each
//! of the first [`WINDOW_LANES`] lanes when one of them did not pass.
//!
//! Every failing word is counted, not only the first records `--max-mismatches`
//! keeps, and the memory is fixed whatever the number of lanes: a [`Pattern`]
//! holds (64 + 64) x 6 verdict counters, 2 x 32 bit counters and at most
//! [`WINDOW_LANES`] bytes of window, under 12 KiB per case, so a 2^32-lane run
//! keeps the memory bound it had (a dispatch with a failing lane also borrows
//! one byte per lane of that dispatch while it is counted). Fed once per
//! dispatch from the same [`Compare`] the [`crate::model::check::Tally`] counts,
//! with the lane verdicts [`lane_verdicts`] gives by the tally's rules (the
//! worst word: undefined, then wrong, then unwritten; unsettled only when no
//! word failed). The bit counters count wrong words only:
//! an unwritten word holds the poison and an undefined word whatever was
//! there, so their bits say nothing about the arithmetic.

use crate::model::check::{lane_verdicts, poison, Compare, LaneVerdict, Prefill};

/// Lane classes: a lane's class is its global index mod 64, so a wave of 32
/// or of 64 lanes folds onto them without loss (lane-in-wave is the class
/// mod the wave size).
pub const LANE_CLASSES: usize = 64;
/// Lane-range buckets: the case's lanes cut into this many equal ranges.
pub const BUCKETS: usize = 64;
/// Lanes whose verdicts are kept one by one (the first 128 waves of 32).
pub const WINDOW_LANES: u64 = 4096;

/// Its letter in [`Pattern::first_lanes`].
pub fn letter(v: LaneVerdict) -> char {
    match v {
        LaneVerdict::Pass => '.',
        LaneVerdict::Wrong => 'w',
        LaneVerdict::Unwritten => 'u',
        LaneVerdict::Undefined => 'd',
        LaneVerdict::Unsettled => 's',
        LaneVerdict::Finding => 'f',
    }
}

/// Lanes per verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub pass: u64,
    pub wrong: u64,
    pub unwritten: u64,
    pub undefined: u64,
    pub unsettled: u64,
    pub finding: u64,
}

impl Counts {
    fn add(&mut self, v: LaneVerdict, n: u64) {
        *match v {
            LaneVerdict::Pass => &mut self.pass,
            LaneVerdict::Wrong => &mut self.wrong,
            LaneVerdict::Unwritten => &mut self.unwritten,
            LaneVerdict::Undefined => &mut self.undefined,
            LaneVerdict::Unsettled => &mut self.unsettled,
            LaneVerdict::Finding => &mut self.finding,
        } += n;
    }

    fn merge(&mut self, other: &Counts) {
        for v in LaneVerdict::ALL {
            self.add(v, other.get(v));
        }
    }

    pub fn sum(&self) -> u64 {
        self.pass + self.wrong + self.unwritten + self.undefined + self.unsettled + self.finding
    }

    pub fn get(&self, v: LaneVerdict) -> u64 {
        match v {
            LaneVerdict::Pass => self.pass,
            LaneVerdict::Wrong => self.wrong,
            LaneVerdict::Unwritten => self.unwritten,
            LaneVerdict::Undefined => self.undefined,
            LaneVerdict::Unsettled => self.unsettled,
            LaneVerdict::Finding => self.finding,
        }
    }
}

/// One lane-range bucket: lanes `first_lane..first_lane + lanes` of the case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    pub first_lane: u64,
    pub lanes: u64,
    pub counts: Counts,
}

/// A case's fixed-size verdict and bit counters (see the module comment).
/// Empty (`lanes` 0, left out of JSON) until the first dispatch. In JSON the
/// per-class, per-range and per-bit lists are empty when every lane counted
/// passed (they would say nothing the lane count does not), so a passing
/// case costs a few lines of the report ([`Pattern::all_passed`];
/// `report::json` writes it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pattern {
    /// Lanes of the case (the buckets' basis), not those checked so far.
    pub lanes: u64,
    /// The kernel's wave size: the lane map's row length.
    pub wave_size: u32,
    /// Lanes by verdict per class, `lane % 64`; 64 entries.
    pub lane_classes: Vec<Counts>,
    /// Lanes by verdict per lane range; only non-empty ranges, ascending.
    pub buckets: Vec<Bucket>,
    /// Wrong words counted in `bits_up` and `bits_down`.
    pub wrong_words: u64,
    /// Per result bit 0..31: wrong words where the model says 0 and the device 1.
    pub bits_up: Vec<u64>,
    /// Per result bit 0..31: wrong words where the model says 1 and the device 0.
    pub bits_down: Vec<u64>,
    /// One letter per lane for the first `min(lanes, 4096)` lanes ([`letter`]:
    /// `.` pass, `w` wrong, `u` unwritten, `d` undefined, `s` unsettled, `f`
    /// finding; a lane
    /// at or past the tally's `lanes_checked` was not checked); empty while all
    /// of them passed.
    pub first_lanes: String,
}

/// Counts by lane class and bucket as fixed arrays, for the dispatch loop.
struct Partial {
    classes: [Counts; LANE_CLASSES],
    buckets: [Counts; BUCKETS],
}

impl Pattern {
    /// Count one dispatch of a case of `lanes` lanes run with waves of
    /// `wave_size`.
    pub fn add(&mut self, cmp: &Compare<'_>, lanes: u64, wave_size: u32) {
        self.add_as(cmp, lanes, wave_size, LaneVerdict::Pass);
    }

    /// Count one dispatch of a probe case on an executor (`cmp` its plain
    /// words): a lane whose plain word passed is a [`LaneVerdict::Finding`]
    /// lane, its probe words classified rather than compared.
    pub fn add_classified(&mut self, cmp: &Compare<'_>, lanes: u64, wave_size: u32) {
        self.add_as(cmp, lanes, wave_size, LaneVerdict::Finding);
    }

    /// Count a dispatch of `count` lanes from `first_lane` that the tally
    /// found clean (no failing lane, no unsettled word, nothing tainted):
    /// every lane passed, so the words need not be compared again.
    pub fn add_passing(&mut self, first_lane: u64, count: u64, lanes: u64, wave_size: u32) {
        if self.lanes == 0 {
            self.start(lanes, wave_size);
        }
        let mut partial = Partial {
            classes: [Counts::default(); LANE_CLASSES],
            buckets: [Counts::default(); BUCKETS],
        };
        self.count_passing(&mut partial, first_lane, first_lane + count);
        self.absorb(&partial);
    }

    /// [`Pattern::add`], counting a passing lane as `passed`.
    fn add_as(&mut self, cmp: &Compare<'_>, lanes: u64, wave_size: u32, passed: LaneVerdict) {
        if self.lanes == 0 {
            self.start(lanes, wave_size);
        }
        let k = cmp.outputs_per_lane.max(1);
        let count = (cmp.expected.len() / k) as u64;
        let mut partial = Partial {
            classes: [Counts::default(); LANE_CLASSES],
            buckets: [Counts::default(); BUCKETS],
        };
        let (start, end) = (cmp.first_lane, cmp.first_lane + count);
        if cmp.taint.is_empty() && cmp.expected == cmp.got && passed == LaneVerdict::Pass {
            self.count_passing(&mut partial, start, end);
        } else {
            for (lane, verdict) in (start..end).zip(lane_verdicts(cmp)) {
                let verdict = if verdict == LaneVerdict::Pass {
                    passed
                } else {
                    verdict
                };
                partial.classes[(lane % LANE_CLASSES as u64) as usize].add(verdict, 1);
                partial.buckets[self.bucket_of(lane)].add(verdict, 1);
                if verdict == LaneVerdict::Wrong {
                    self.count_bits(cmp, (lane - start) as usize);
                }
                if verdict != LaneVerdict::Pass && lane < WINDOW_LANES {
                    self.mark(lane, verdict);
                }
            }
        }
        self.absorb(&partial);
    }

    fn start(&mut self, lanes: u64, wave_size: u32) {
        self.lanes = lanes.max(1);
        self.wave_size = wave_size;
        self.lane_classes = vec![Counts::default(); LANE_CLASSES];
        self.buckets = (0..BUCKETS)
            .map(|b| {
                let (first, end) = (self.bucket_start(b), self.bucket_start(b + 1));
                Bucket {
                    first_lane: first,
                    lanes: end - first,
                    counts: Counts::default(),
                }
            })
            .filter(|b| b.lanes > 0)
            .collect();
        self.bits_up = vec![0; 32];
        self.bits_down = vec![0; 32];
    }

    /// The first lane of bucket `b` (`lanes` for `b` = [`BUCKETS`]).
    fn bucket_start(&self, b: usize) -> u64 {
        ((b as u128 * self.lanes as u128).div_ceil(BUCKETS as u128)) as u64
    }

    /// The bucket of `lane`: a lane count is at most 2^32
    /// (`run::MAX_LANES`), so `lane * 64` fits in a `u64`.
    fn bucket_of(&self, lane: u64) -> usize {
        ((lane.saturating_mul(BUCKETS as u64) / self.lanes) as usize).min(BUCKETS - 1)
    }

    /// The bits of lane `lane`'s (in the dispatch) wrong words: settled words
    /// that differ from the model and from what was there before the launch.
    fn count_bits(&mut self, cmp: &Compare<'_>, lane: usize) {
        let k = cmp.outputs_per_lane.max(1);
        for i in lane * k..(lane + 1) * k {
            let (e, g) = (cmp.expected[i], cmp.got[i]);
            let tainted = cmp.taint.words.binary_search_by_key(&i, |w| w.word).is_ok();
            if e == g || g == prefill_word(cmp, i, e) || tainted {
                continue;
            }
            self.wrong_words += 1;
            for (mut bits, counts) in [(!e & g, &mut self.bits_up), (e & !g, &mut self.bits_down)] {
                while bits != 0 {
                    counts[bits.trailing_zeros() as usize] += 1;
                    bits &= bits - 1; // clear the bit just counted
                }
            }
        }
    }

    /// Record a lane of the window that did not pass.
    fn mark(&mut self, lane: u64, verdict: LaneVerdict) {
        if self.first_lanes.is_empty() {
            self.first_lanes = ".".repeat(self.lanes.min(WINDOW_LANES) as usize);
        }
        let at = lane as usize;
        self.first_lanes
            .replace_range(at..at + 1, letter(verdict).encode_utf8(&mut [0; 4]));
    }

    /// Count global lanes `start..end`, all passing, into `partial`.
    fn count_passing(&self, partial: &mut Partial, start: u64, end: u64) {
        let classes = LANE_CLASSES as u64;
        // Lanes below `x` in class `c`.
        let below = |x: u64, c: u64| if x > c { (x - c).div_ceil(classes) } else { 0 };
        for (c, counts) in partial.classes.iter_mut().enumerate() {
            counts.add(
                LaneVerdict::Pass,
                below(end, c as u64) - below(start, c as u64),
            );
        }
        if end <= start {
            return;
        }
        for b in self.bucket_of(start)..=self.bucket_of(end - 1) {
            let (lo, hi) = (self.bucket_start(b), self.bucket_start(b + 1));
            let n = hi.min(end).saturating_sub(lo.max(start));
            partial.buckets[b].add(LaneVerdict::Pass, n);
        }
    }

    fn absorb(&mut self, partial: &Partial) {
        for (mine, theirs) in self.lane_classes.iter_mut().zip(&partial.classes) {
            mine.merge(theirs);
        }
        for i in 0..self.buckets.len() {
            let b = self.bucket_of(self.buckets[i].first_lane);
            self.buckets[i].counts.merge(&partial.buckets[b]);
        }
    }

    /// Lanes counted so far (all verdicts).
    pub fn lanes_counted(&self) -> u64 {
        self.lane_classes
            .iter()
            .map(|c| LaneVerdict::ALL.iter().map(|&v| c.get(v)).sum::<u64>())
            .sum()
    }

    /// Left out of JSON when nothing was counted (a case that never ran).
    pub fn is_empty(&self) -> bool {
        self.lanes == 0
    }

    /// Every lane counted passed.
    pub fn all_passed(&self) -> bool {
        self.lane_classes.iter().all(|c| c.pass == c.sum())
    }
}

/// What word `i` held before the launch ([`Prefill`]).
fn prefill_word(cmp: &Compare<'_>, i: usize, expected: u32) -> u32 {
    match cmp.prefill {
        Prefill::Poisoned => poison(expected),
        Prefill::Words(words) => words[i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::check::Tally;
    use crate::platform::device::{Definedness, Taint, TaintedWord};

    /// Count one dispatch of `k`-word lanes at `first_lane` in both a
    /// [`Tally`] and a [`Pattern`] of a `lanes`-lane case.
    fn both(
        first_lane: u64,
        k: usize,
        expected: &[u32],
        got: &[u32],
        taint: &Definedness,
        pattern: &mut Pattern,
        lanes: u64,
    ) -> Tally {
        let sources = |lane: u64| (lane as u32, 0, 0);
        let cmp = Compare {
            first_lane,
            outputs_per_lane: k,
            sources: &sources,
            prefill: Prefill::Poisoned,
            expected,
            got,
            taint,
        };
        let mut tally = Tally::default();
        tally.add(&cmp, 10);
        pattern.add(&cmp, lanes, 32);
        tally
    }

    fn total(p: &Pattern, v: LaneVerdict) -> u64 {
        p.lane_classes.iter().map(|c| c.get(v)).sum()
    }

    /// Every lane counted, by the tally's verdicts, both ways (classes and
    /// buckets); bits only of wrong words, up and down apart.
    /// What the run counts for a dispatch the tally found clean equals what
    /// comparing its words again gives, over dispatches that straddle buckets.
    #[test]
    fn a_clean_dispatch_counts_the_same_without_its_words() {
        let expected: Vec<u32> = (0..3000u32).collect();
        let (mut compared, mut counted) = (Pattern::default(), Pattern::default());
        for (first, count) in [(0u64, 1000usize), (1000, 1234), (2234, 766)] {
            let words = &expected[first as usize..first as usize + count];
            both(
                first,
                1,
                words,
                words,
                &Definedness::default(),
                &mut compared,
                3000,
            );
            counted.add_passing(first, count as u64, 3000, 32);
        }
        assert_eq!(compared, counted);
        assert_eq!(counted.lanes_counted(), 3000);
    }

    #[test]
    fn counts_agree_with_the_tally_and_bits_are_exact() {
        let k = 2;
        let expected: Vec<u32> = (0..2 * 5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let mut got = expected.clone();
        // Lane 17 + 32 n: word 0 with bit 5 flipped (wrong).
        for lane in (17..5000).step_by(32) {
            got[lane * k] ^= 1 << 5;
        }
        got[3 * k + 1] = poison(expected[3 * k + 1]); // lane 3 unwritten
        let taint = Definedness {
            origins: vec![],
            words: vec![
                TaintedWord {
                    word: 4 * k,
                    taint: Taint::Undefined,
                    origin: 0,
                },
                TaintedWord {
                    word: 6 * k,
                    taint: Taint::Unsettled,
                    origin: 0,
                },
            ],
            waves: vec![],
        };
        let mut p = Pattern::default();
        let t = both(0, k, &expected, &got, &taint, &mut p, 5000);
        assert_eq!(p.lanes_counted(), 5000);
        assert_eq!(total(&p, LaneVerdict::Wrong), 156, "{t:?}");
        assert_eq!(
            total(&p, LaneVerdict::Wrong)
                + total(&p, LaneVerdict::Unwritten)
                + total(&p, LaneVerdict::Undefined),
            t.lanes_failed
        );
        assert_eq!(total(&p, LaneVerdict::Unwritten), t.lanes_unwritten);
        assert_eq!(total(&p, LaneVerdict::Undefined), t.lanes_undefined);
        assert_eq!(total(&p, LaneVerdict::Unsettled), t.lanes_unsettled);
        assert_eq!(p.lane_classes[17].wrong + p.lane_classes[49].wrong, 156);
        let bucketed: u64 = p.buckets.iter().map(|b| b.counts.wrong).sum();
        assert_eq!(bucketed, 156);
        assert_eq!(p.wrong_words, 156);
        for bit in 0..32 {
            let flips = p.bits_up[bit] + p.bits_down[bit];
            assert_eq!(flips, if bit == 5 { 156 } else { 0 }, "bit {bit}");
        }
        let marked: Vec<(usize, char)> = p
            .first_lanes
            .char_indices()
            .filter(|(_, c)| *c != '.')
            .take(5)
            .collect();
        assert_eq!(marked, [(3, 'u'), (4, 'd'), (6, 's'), (17, 'w'), (49, 'w')]);
        assert_eq!(p.first_lanes.len(), 4096);
    }

    /// Passing dispatches are counted by arithmetic: the same counts as lane
    /// by lane, over chunk edges that cut classes and buckets.
    #[test]
    fn passing_stretches_count_like_single_lanes() {
        let lanes = 1000u64;
        let mut fast = Pattern::default();
        for (start, end) in [(0u64, 333u64), (333, 700), (700, 1000)] {
            let e: Vec<u32> = (start as u32..end as u32).collect();
            both(start, 1, &e, &e, &Definedness::default(), &mut fast, lanes);
        }
        let mut slow = Pattern::default();
        slow.start(lanes, 32);
        for lane in 0..lanes {
            slow.lane_classes[(lane % 64) as usize].pass += 1;
            let b = slow.bucket_of(lane);
            let i = slow
                .buckets
                .iter()
                .position(|x| slow.bucket_of(x.first_lane) == b)
                .unwrap();
            slow.buckets[i].counts.pass += 1;
        }
        assert_eq!(fast, slow);
        assert!(
            fast.first_lanes.is_empty(),
            "nothing marked when all passed"
        );
        assert_eq!(fast.buckets.len(), 64);
        assert_eq!(fast.buckets.iter().map(|b| b.lanes).sum::<u64>(), lanes);
    }

    /// A case of 2^32 lanes: buckets of 2^26 lanes, no overflow at the top.
    #[test]
    fn the_largest_case_buckets_without_overflow() {
        let mut p = Pattern::default();
        let e = vec![7u32; 64];
        both(
            (1 << 32) - 64,
            1,
            &e,
            &e,
            &Definedness::default(),
            &mut p,
            1 << 32,
        );
        assert_eq!(p.buckets.len(), 64);
        assert_eq!(p.buckets[63].first_lane, 63 << 26);
        assert_eq!(p.buckets[63].counts.pass, 64);
        assert_eq!(p.lanes_counted(), 64);
    }

    /// A passing case's counters say so ([`Pattern::all_passed`], which
    /// leaves its lists out of the JSON); one wrong bit shows in its class,
    /// its bit and its letter.
    #[test]
    fn a_passing_case_says_so_and_a_wrong_bit_shows() {
        let e = vec![1u32; 256];
        let mut p = Pattern::default();
        both(0, 1, &e, &e, &Definedness::default(), &mut p, 256);
        assert_eq!(p.lanes, 256);
        assert!(p.all_passed());
        let mut got = e.clone();
        got[100] ^= 1 << 31;
        let mut p = Pattern::default();
        both(0, 1, &e, &got, &Definedness::default(), &mut p, 256);
        assert!(!p.all_passed());
        assert_eq!(p.lane_classes.len(), 64);
        assert_eq!(p.lane_classes[100 % 64].wrong, 1);
        assert_eq!((p.bits_up[31], p.bits_down[31]), (1, 0));
        assert_eq!(p.first_lanes.find('w'), Some(100));
    }
}
