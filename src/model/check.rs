//! Lane comparison. Every word of every lane is compared with the model; a lane
//! that still holds its poisoned (or prefilled) value where the model expects a
//! write is reported as unwritten, not as a wrong value. A word the device
//! reports as undefined (its value depends on state the ISA does not define)
//! fails whatever it holds; one reported as unsettled (it depends only on a
//! rule the ISA guide contradicts) neither passes nor fails and is counted
//! apart. Writes outside the buffers are [`crate::pipeline::guard`]'s concern.

use crate::platform::device::{Definedness, Taint};
use rayon::prelude::*;

/// Why a lane failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The kernel wrote a value other than the model's.
    Wrong,
    /// The word still holds what was there before the launch.
    Unwritten,
    /// The word depends on state the ISA does not define (whatever it holds).
    Undefined,
    /// The word depends only on a rule the ISA guide contradicts: not a
    /// failure; such records go to [`Tally::first_unsettled`] only.
    Unsettled,
}

/// One failing output word, with everything needed to reproduce it by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// For undefined and unsettled words: what was undefined, and where.
    pub origin: Option<String>,
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub lanes_checked: u64,
    /// Lanes with at least one wrong or unwritten word.
    pub lanes_failed: u64,
    /// Of those, lanes whose failing words were all unwritten.
    pub lanes_unwritten: u64,
    /// Of the failed lanes, those with an undefined word.
    pub lanes_undefined: u64,
    /// Lanes with an unsettled word and no failing one: neither passed nor failed.
    pub lanes_unsettled: u64,
    /// Unsettled words (in any lane).
    pub words_unsettled: u64,
    /// The first failures in lane order, at most `keep` of them.
    pub first: Vec<Mismatch>,
    /// The first unsettled words in lane order, at most `keep` of them.
    pub first_unsettled: Vec<Mismatch>,
    /// Words compared that could show the instruction at work: every word
    /// checked, less those the model expects to keep their prefill (an EXEC-
    /// or DPP-masked lane is unwritten by design, so it proves nothing about
    /// `v_xad_u32`). Less the unsettled words, what is left is the case's
    /// evidence ([`Tally::words_verified`]). Not in JSON: `lanes_passed` and
    /// the status carry the verdict there.
    pub words_evidence: u64,
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
    /// What the device reported undefined or unsettled in `got` (and the
    /// waves it stopped, whose lanes' words all count as undefined).
    pub taint: &'a Definedness,
}

/// Lanes per parallel comparison piece.
const PIECE_LANES: usize = 1 << 14;

/// A tainted word of one dispatch: (word index, kind, origin index).
type WordTaint = (usize, Taint, usize);

/// The tainted words of a `lanes`-lane dispatch with `k` words per lane,
/// ascending: the reported words, and every word of a stopped wave's lanes
/// (which overrides).
fn word_taints(d: &Definedness, lanes: usize, k: usize) -> Vec<WordTaint> {
    let mut map: std::collections::BTreeMap<usize, (Taint, usize)> = d
        .words
        .iter()
        .filter(|w| w.word < lanes * k)
        .map(|w| (w.word, (w.taint, w.origin)))
        .collect();
    for wave in &d.waves {
        let first = usize::try_from(wave.first_lane)
            .unwrap_or(usize::MAX)
            .min(lanes);
        let end = usize::try_from(wave.first_lane.saturating_add(wave.lanes))
            .unwrap_or(usize::MAX)
            .min(lanes);
        for word in first * k..end * k {
            map.insert(word, (wave.taint, wave.origin));
        }
    }
    map.into_iter().map(|(w, (t, o))| (w, t, o)).collect()
}

/// One parallel piece's counts and records.
#[derive(Default)]
struct Piece {
    failed: u64,
    unwritten: u64,
    undefined: u64,
    unsettled_lanes: u64,
    unsettled_words: u64,
    records: Vec<Mismatch>,
    unsettled: Vec<Mismatch>,
}

impl Tally {
    /// Compare one dispatch and add it to the totals, keeping at most `keep`
    /// detailed records overall (and as many unsettled ones).
    pub fn add(&mut self, cmp: &Compare<'_>, keep: usize) {
        let k = cmp.outputs_per_lane.max(1);
        let lanes = cmp.expected.len() / k;
        debug_assert_eq!(cmp.expected.len(), lanes * k);
        debug_assert_eq!(cmp.got.len(), lanes * k);
        let room = (
            keep.saturating_sub(self.first.len()),
            keep.saturating_sub(self.first_unsettled.len()),
        );
        let taints = if cmp.taint.is_empty() {
            Vec::new()
        } else {
            word_taints(cmp.taint, lanes, k)
        };
        let pieces: Vec<Piece> = (0..lanes.div_ceil(PIECE_LANES))
            .into_par_iter()
            .map(|p| {
                let start = p * PIECE_LANES;
                let end = (start + PIECE_LANES).min(lanes);
                let from = taints.partition_point(|t| t.0 < start * k);
                let to = taints.partition_point(|t| t.0 < end * k);
                compare_piece(cmp, start..end, room, &taints[from..to])
            })
            .collect();
        self.lanes_checked += lanes as u64;
        self.words_evidence += (lanes * k) as u64 - kept_by_design(cmp, &taints);
        for piece in pieces {
            self.lanes_failed += piece.failed;
            self.lanes_unwritten += piece.unwritten;
            self.lanes_undefined += piece.undefined;
            self.lanes_unsettled += piece.unsettled_lanes;
            self.words_unsettled += piece.unsettled_words;
            let room = keep.saturating_sub(self.first.len());
            self.first.extend(piece.records.into_iter().take(room));
            let room = keep.saturating_sub(self.first_unsettled.len());
            self.first_unsettled
                .extend(piece.unsettled.into_iter().take(room));
        }
    }
}

impl Tally {
    /// Settled words that could show the instruction at work and were
    /// compared: when no word failed, each of them matched the model. Zero
    /// means the case verified nothing, whatever it did not fail.
    pub fn words_verified(&self) -> u64 {
        self.words_evidence.saturating_sub(self.words_unsettled)
    }
}

/// Untainted words of a dispatch whose expected value is their prefill: the
/// model says the kernel must leave them alone (masked lanes), so matching
/// is no evidence of the instruction. A poisoned prefill never equals the
/// expected value ([`POISON_XOR`] is not 0).
fn kept_by_design(cmp: &Compare<'_>, taints: &[WordTaint]) -> u64 {
    let Prefill::Words(prefill) = cmp.prefill else {
        return 0;
    };
    let kept = cmp
        .expected
        .par_iter()
        .zip(prefill.par_iter())
        .filter(|(e, p)| e == p)
        .count();
    // Tainted words are counted as unsettled (or failed) already; leave them
    // out here so the evidence is not subtracted twice.
    let tainted_kept = taints
        .iter()
        .filter(|t| t.0 < prefill.len() && cmp.expected[t.0] == prefill[t.0])
        .filter(|t| t.1 == Taint::Unsettled)
        .count();
    (kept - tainted_kept) as u64
}

/// Compare lanes `range` of a dispatch; `taints` are the tainted words in
/// it, ascending; `room` caps the failure and unsettled records.
fn compare_piece(
    cmp: &Compare<'_>,
    range: std::ops::Range<usize>,
    room: (usize, usize),
    taints: &[WordTaint],
) -> Piece {
    let k = cmp.outputs_per_lane.max(1);
    let (exp, got) = (
        &cmp.expected[range.start * k..range.end * k],
        &cmp.got[range.start * k..range.end * k],
    );
    let mut piece = Piece::default();
    if taints.is_empty() && exp == got {
        return piece; // the common case: one memcmp
    }
    let mut next = taints.iter().peekable();
    for lane in range {
        let (mut failed, mut wrong, mut undefined, mut unsettled) = (false, false, false, false);
        for word in 0..k {
            let i = lane * k + word;
            let (e, g) = (cmp.expected[i], cmp.got[i]);
            let taint = next.next_if(|t| t.0 == i).map(|t| (t.1, t.2));
            let Some(kind) = word_kind(cmp, i, taint.map(|t| t.0)) else {
                continue;
            };
            let (records, cap) = if kind == FailureKind::Unsettled {
                unsettled = true;
                piece.unsettled_words += 1;
                (&mut piece.unsettled, room.1)
            } else {
                failed = true;
                wrong |= kind != FailureKind::Unwritten;
                undefined |= kind == FailureKind::Undefined;
                (&mut piece.records, room.0)
            };
            if records.len() < cap {
                let global = cmp.first_lane + lane as u64;
                let (a, b, c) = (cmp.sources)(global);
                let origin = taint
                    .and_then(|(_, o)| cmp.taint.origins.get(o))
                    .map(ToString::to_string);
                records.push(Mismatch {
                    lane: global,
                    word,
                    a,
                    b,
                    c,
                    expected: e,
                    got: g,
                    kind,
                    origin,
                });
            }
        }
        piece.failed += u64::from(failed);
        piece.unwritten += u64::from(failed && !wrong);
        piece.undefined += u64::from(undefined);
        piece.unsettled_lanes += u64::from(unsettled && !failed);
    }
    piece
}

/// What word `i` of a dispatch is, given its taint: `None` when it passed.
#[inline]
fn word_kind(cmp: &Compare<'_>, i: usize, taint: Option<Taint>) -> Option<FailureKind> {
    let (e, g) = (cmp.expected[i], cmp.got[i]);
    match taint {
        Some(Taint::Undefined) => Some(FailureKind::Undefined),
        Some(Taint::Unsettled) => Some(FailureKind::Unsettled),
        None if e == g => None,
        None if g == cmp.prefill.word(i, e) => Some(FailureKind::Unwritten),
        None => Some(FailureKind::Wrong),
    }
}

/// One lane's verdict, as [`Tally`] counts it: the worst of its words
/// (undefined, then wrong, then unwritten; unsettled only when no word failed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum LaneVerdict {
    Pass = 0,
    Wrong = 1,
    Unwritten = 2,
    Undefined = 3,
    Unsettled = 4,
    /// A probe case's lane on an executor: its plain word passed and its
    /// probe words were classified into findings ([`crate::pipeline::findings`]);
    /// never from [`lane_verdicts`], which compares words with a model.
    Finding = 5,
}

impl LaneVerdict {
    /// Every verdict, in code order (the code is the `u8` value).
    pub const ALL: [LaneVerdict; 6] = [
        LaneVerdict::Pass,
        LaneVerdict::Wrong,
        LaneVerdict::Unwritten,
        LaneVerdict::Undefined,
        LaneVerdict::Unsettled,
        LaneVerdict::Finding,
    ];

    pub fn from_code(code: u8) -> Option<LaneVerdict> {
        LaneVerdict::ALL.get(usize::from(code)).copied()
    }

    /// Whether the lane counts as failed (wrong, unwritten or undefined).
    pub fn failed(self) -> bool {
        matches!(
            self,
            LaneVerdict::Wrong | LaneVerdict::Unwritten | LaneVerdict::Undefined
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            LaneVerdict::Pass => "pass",
            LaneVerdict::Wrong => "wrong",
            LaneVerdict::Unwritten => "unwritten",
            LaneVerdict::Undefined => "undefined",
            LaneVerdict::Unsettled => "unsettled",
            LaneVerdict::Finding => "finding",
        }
    }
}

/// The verdict of every lane of a dispatch (in dispatch order), by the same
/// rules as [`Tally::add`]. Serial: only a dump asks for it.
pub fn lane_verdicts(cmp: &Compare<'_>) -> Vec<LaneVerdict> {
    let k = cmp.outputs_per_lane.max(1);
    let lanes = cmp.expected.len() / k;
    let mut verdicts = vec![LaneVerdict::Pass; lanes];
    if cmp.taint.is_empty() && cmp.expected == cmp.got {
        return verdicts;
    }
    let taints = word_taints(cmp.taint, lanes, k);
    let mut next = taints.iter().peekable();
    for (lane, verdict) in verdicts.iter_mut().enumerate() {
        let (mut wrong, mut unwritten, mut undefined, mut unsettled) = (false, false, false, false);
        for i in lane * k..(lane + 1) * k {
            let taint = next.next_if(|t| t.0 == i).map(|t| t.1);
            match word_kind(cmp, i, taint) {
                None => {}
                Some(FailureKind::Wrong) => wrong = true,
                Some(FailureKind::Unwritten) => unwritten = true,
                Some(FailureKind::Undefined) => undefined = true,
                Some(FailureKind::Unsettled) => unsettled = true,
            }
        }
        *verdict = if undefined {
            LaneVerdict::Undefined
        } else if wrong {
            LaneVerdict::Wrong
        } else if unwritten {
            LaneVerdict::Unwritten
        } else if unsettled {
            LaneVerdict::Unsettled
        } else {
            LaneVerdict::Pass
        };
    }
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(expected: &[u32], got: &[u32], prefill: &[u32], k: usize, keep: usize) -> Tally {
        let prefill = Prefill::Words(prefill);
        let mut t = Tally::default();
        let sources = |lane: u64| (lane as u32, 0, 0);
        let taint = Definedness::default();
        t.add(
            &Compare {
                first_lane: 1000,
                outputs_per_lane: k,
                sources: &sources,
                prefill,
                expected,
                got,
                taint: &taint,
            },
            keep,
        );
        t
    }

    /// Words the model says must keep their prefill (masked lanes) match
    /// without proving anything about the instruction: a dispatch of only
    /// those verifies nothing; one written word is evidence.
    #[test]
    fn words_kept_by_design_are_not_evidence() {
        let prefill: Vec<u32> = (0..64).map(|i| i * 7 + 1).collect();
        let t = run(&prefill, &prefill, &prefill, 2, 10);
        assert_eq!((t.lanes_checked, t.lanes_failed), (32, 0));
        assert_eq!(t.words_verified(), 0, "{t:?}");
        let mut written = prefill.clone();
        written[9] = 12345;
        let t = run(&written, &written, &prefill, 2, 10);
        assert_eq!(t.words_verified(), 1, "{t:?}");
    }

    #[test]
    fn equal_outputs_pass() {
        let e: Vec<u32> = (0..300_000).collect();
        let t = run(&e, &e, &vec![0; e.len()], 1, 10);
        assert_eq!(
            (t.lanes_checked, t.lanes_failed, t.first.len()),
            (300_000, 0, 0)
        );
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
        let taint = Definedness::default();
        t.add(
            &Compare {
                first_lane: 0,
                outputs_per_lane: 1,
                sources: &sources,
                prefill: Prefill::Poisoned,
                expected: &e,
                got: &g,
                taint: &taint,
            },
            10,
        );
        assert_eq!((t.lanes_failed, t.lanes_unwritten), (2, 1));
        assert_eq!(
            (t.first[0].kind, t.first[1].kind),
            (FailureKind::Unwritten, FailureKind::Wrong)
        );
    }

    #[test]
    fn keep_limits_records_not_counts() {
        let e = vec![7u32; 1000];
        let g = vec![8u32; 1000];
        let t = run(&e, &g, &vec![0; 1000], 1, 3);
        assert_eq!((t.lanes_failed, t.first.len()), (1000, 3));
        assert_eq!(
            t.first.iter().map(|m| m.lane).collect::<Vec<_>>(),
            vec![1000, 1001, 1002]
        );
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

    /// An origin at offset 0x40, for the tests' tainted words.
    fn origin_at_0x40(what: &str) -> crate::platform::device::Origin {
        crate::platform::device::Origin {
            what: what.into(),
            offset: 0x40,
            instruction: "v_mov_b32 v5, v20".into(),
        }
    }

    /// Words 3 (undefined), 7 and 8 (unsettled) and lanes 16 on (a stopped
    /// wave) of a 20-lane result.
    fn undefined_unsettled_and_stopped() -> Definedness {
        use crate::platform::device::{StoppedWave, TaintedWord};
        let origin = origin_at_0x40;
        Definedness {
            origins: vec![
                origin("v20 read before any write"),
                origin("DPP16"),
                origin("wave stopped"),
            ],
            words: vec![
                TaintedWord {
                    word: 3,
                    taint: Taint::Undefined,
                    origin: 0,
                },
                TaintedWord {
                    word: 7,
                    taint: Taint::Unsettled,
                    origin: 1,
                },
                TaintedWord {
                    word: 8,
                    taint: Taint::Unsettled,
                    origin: 1,
                },
            ],
            // Lanes 16-19 (k = 1: words 16-19), and past the end (ignored).
            waves: vec![StoppedWave {
                first_lane: 16,
                lanes: 32,
                taint: Taint::Undefined,
                origin: 2,
            }],
        }
    }

    #[test]
    fn undefined_words_fail_whatever_they_hold_and_unsettled_ones_neither_pass_nor_fail() {
        let e: Vec<u32> = (0..20).collect();
        let mut g = e.clone();
        g[7] ^= 1; // wrong, and unsettled: not a failure
        let taint = undefined_unsettled_and_stopped();
        let sources = |lane: u64| (lane as u32, 0, 0);
        let mut t = Tally::default();
        let cmp = Compare {
            first_lane: 0,
            outputs_per_lane: 1,
            sources: &sources,
            prefill: Prefill::Poisoned,
            expected: &e,
            got: &g,
            taint: &taint,
        };
        t.add(&cmp, 10);
        assert_eq!(
            (t.lanes_checked, t.lanes_failed, t.lanes_undefined),
            (20, 5, 5)
        );
        assert_eq!((t.lanes_unsettled, t.words_unsettled), (2, 2));
        assert_eq!(
            t.first.iter().map(|m| m.lane).collect::<Vec<_>>(),
            vec![3, 16, 17, 18, 19]
        );
        assert!(t.first.iter().all(|m| m.kind == FailureKind::Undefined));
        assert!(t.first[0]
            .origin
            .as_deref()
            .unwrap()
            .starts_with("v20 read before any write at offset 0x40"));
        assert_eq!(
            t.first[1]
                .origin
                .as_deref()
                .map(|o| o.starts_with("wave stopped")),
            Some(true)
        );
        assert_eq!(
            t.first_unsettled
                .iter()
                .map(|m| (m.lane, m.kind))
                .collect::<Vec<_>>(),
            vec![(7, FailureKind::Unsettled), (8, FailureKind::Unsettled)]
        );
        // Per lane, the same verdicts the tally counted.
        let v = lane_verdicts(&cmp);
        assert_eq!(v[3], LaneVerdict::Undefined);
        assert_eq!(
            (v[7], v[8]),
            (LaneVerdict::Unsettled, LaneVerdict::Unsettled)
        );
        assert!(v[16..].iter().all(|&x| x == LaneVerdict::Undefined));
        assert_eq!(
            v.iter().filter(|x| x.failed()).count() as u64,
            t.lanes_failed
        );
        assert_eq!(
            v.iter().filter(|&&x| x == LaneVerdict::Pass).count(),
            20 - 5 - 2
        );
    }

    #[test]
    fn an_unsettled_word_in_a_failing_lane_is_counted_and_the_lane_fails() {
        use crate::platform::device::TaintedWord;
        // An unsettled word in a lane that also fails: the lane fails, the word is still counted.
        let e2 = vec![1u32, 2, 3, 4];
        let g2 = vec![1u32, 9, 3, 4];
        let taint2 = Definedness {
            origins: vec![origin_at_0x40("x")],
            words: vec![TaintedWord {
                word: 0,
                taint: Taint::Unsettled,
                origin: 0,
            }],
            waves: vec![],
        };
        let sources = |lane: u64| (lane as u32, 0, 0);
        let mut t2 = Tally::default();
        let cmp2 = Compare {
            first_lane: 0,
            outputs_per_lane: 2,
            sources: &sources,
            prefill: Prefill::Poisoned,
            expected: &e2,
            got: &g2,
            taint: &taint2,
        };
        t2.add(&cmp2, 10);
        assert_eq!(
            (t2.lanes_failed, t2.lanes_unsettled, t2.words_unsettled),
            (1, 0, 1)
        );
        assert_eq!(
            lane_verdicts(&cmp2),
            vec![LaneVerdict::Wrong, LaneVerdict::Pass]
        );
    }

    #[test]
    fn lane_verdicts_tell_wrong_from_unwritten() {
        let e = [5u32, 6, 7];
        let g = [5u32, poison(6), 8];
        let sources = |lane: u64| (lane as u32, 0, 0);
        let taint = Definedness::default();
        let cmp = Compare {
            first_lane: 0,
            outputs_per_lane: 1,
            sources: &sources,
            prefill: Prefill::Poisoned,
            expected: &e,
            got: &g,
            taint: &taint,
        };
        assert_eq!(
            lane_verdicts(&cmp),
            vec![
                LaneVerdict::Pass,
                LaneVerdict::Unwritten,
                LaneVerdict::Wrong
            ]
        );
        for v in LaneVerdict::ALL {
            assert_eq!(LaneVerdict::from_code(v as u8), Some(v));
        }
        assert_eq!(LaneVerdict::from_code(6), None);
    }
}
