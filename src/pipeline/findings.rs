//! Findings (issue 30): what a device does with the bits the ISA leaves open.
//! On a device that executes the ISA rather than models it (HIP: hardware, or
//! the emulated HIP library standing in for it), a probe case's probe words
//! ([`crate::model::cases::Case::probes`]) are not compared with a model: each
//! lane's word is classified as the candidate readings of its field that give
//! it ([`crate::model::cases::modifier_readings`]). Per field the case then reports which
//! reading the device follows, and in how many lanes.
//!
//! A finding is never a pass or a fail of the ISA: the ISA says nothing about
//! these bits. What fails (exit 1) is a device that is not consistent with
//! itself, the signal of a marginal or buggy unit: a field whose lanes match
//! no candidate, whose lanes follow different readings, or whose words change
//! between two dispatches of the same inputs.
//!
//! Memory: one counter per candidate reading per probe word, and one example
//! per word, whatever the lane count.

use rayon::prelude::*;

use crate::model::cases::modifier_readings::Probe;
use crate::model::check::Sources;

/// Lanes per parallel classification piece.
const PIECE_LANES: usize = 1 << 14;

/// What one probe word's lanes showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFinding {
    /// The field(s) set: `NEG[1]`, `CLAMP`, `NEG[0]+ABS[0]`.
    pub field: String,
    /// The output word of the lane that holds it.
    pub word: usize,
    /// Lanes classified.
    pub lanes: u64,
    pub verdict: Verdict,
    /// The readings every lane's word matches: one when the device follows
    /// one reading, several when the inputs seen never tell them apart,
    /// none when the lanes disagree or a lane matches no candidate.
    pub follows: Vec<String>,
    /// Lanes per candidate reading (a lane counts for each reading its word
    /// matches), in the readings' order, zeros left out.
    pub matched: Vec<ReadingLanes>,
    /// Lanes whose word matches no candidate.
    pub unmatched: u64,
    /// The first such lane.
    pub first_unmatched: Option<Sample>,
    /// When the lanes disagree: the first lane whose word the reading most
    /// lanes follow (`matched`'s largest) does not give.
    pub first_dissenting: Option<Sample>,
}

/// Lanes whose word one reading gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadingLanes {
    pub reading: String,
    pub lanes: u64,
}

/// One lane's probe word, with its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub lane: u64,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub got: u32,
}

/// What a field's lanes add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every lane follows one reading.
    Follows,
    /// Every lane matches the same few readings, which the inputs seen do
    /// not tell apart (too few lanes to see every probe input).
    Undecided,
    /// Every lane matches some reading, but no reading matches every lane.
    Disagree,
    /// Some lane's word matches no candidate reading.
    NoCandidate,
}

impl Verdict {
    /// Whether it fails the case: the device disagrees with itself.
    pub fn failed(self) -> bool {
        matches!(self, Verdict::Disagree | Verdict::NoCandidate)
    }
}

/// A word that changed between two dispatches of the same inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changed {
    pub lane: u64,
    pub word: usize,
    pub first: u32,
    pub second: u32,
}

/// A probe case's findings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// Per probe word, in the kernel's order.
    pub fields: Vec<FieldFinding>,
    /// Lanes with a word that changed between the two dispatches of their
    /// inputs (every chunk is dispatched twice).
    pub lanes_changed: u64,
    pub first_changed: Option<Changed>,
}

impl FieldFinding {
    /// One line for people: `NEG[1]: sign bit flipped, 65536 of 65536 lanes`.
    pub fn line(&self) -> String {
        let (field, lanes) = (&self.field, self.lanes);
        match self.verdict {
            Verdict::Follows => {
                format!("{field}: {}, {lanes} of {lanes} lanes", self.follows[0])
            }
            Verdict::Undecided => format!(
                "{field}: {} (the inputs these {lanes} lanes saw do not tell them apart)",
                self.follows.join(" or ")
            ),
            Verdict::Disagree => {
                let most = self.matched.iter().max_by_key(|m| m.lanes);
                let mut line =
                    format!("{field}: lanes disagree, no reading gives every lane's word");
                if let Some(m) = most {
                    line += &format!("; {} of {lanes} lanes follow {}", m.lanes, m.reading);
                }
                if let Some(s) = self.first_dissenting {
                    line += &format!(
                        ", the first that does not: lane {}, a=0x{:08x} b=0x{:08x} c=0x{:08x} got 0x{:08x}",
                        s.lane, s.a, s.b, s.c, s.got
                    );
                }
                line
            }
            Verdict::NoCandidate => {
                let mut line = format!(
                    "{field}: {} of {lanes} lanes match no candidate reading",
                    self.unmatched
                );
                if let Some(s) = self.first_unmatched {
                    line += &format!(
                        " (first: lane {}, a=0x{:08x} b=0x{:08x} c=0x{:08x} got 0x{:08x})",
                        s.lane, s.a, s.b, s.c, s.got
                    );
                }
                line
            }
        }
    }
}

impl Findings {
    /// Why the findings fail the case (the device disagrees with itself), or
    /// `None`.
    pub fn failure(&self) -> Option<String> {
        let mut why: Vec<String> = self
            .fields
            .iter()
            .filter(|f| f.verdict.failed())
            .map(FieldFinding::line)
            .collect();
        if let Some(c) = self.first_changed {
            why.push(format!(
                "{} lanes changed between two dispatches of the same inputs (first: lane {} word {}: 0x{:08x}, then 0x{:08x})",
                self.lanes_changed, c.lane, c.word, c.first, c.second
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// One probe word's running counts.
#[derive(Debug, Clone, Default)]
struct Counter {
    lanes: u64,
    /// Lanes per reading, in the probe's readings' order.
    matched: Vec<u64>,
    /// Bit r: reading r matched every lane so far.
    common: u64,
    unmatched: u64,
    first_unmatched: Option<Sample>,
    /// Per reading, the first lane whose word it does not give.
    first_miss: Vec<Option<Sample>>,
}

impl Counter {
    fn new(readings: usize) -> Counter {
        Counter {
            matched: vec![0; readings],
            first_miss: vec![None; readings],
            common: (1u64 << readings) - 1,
            ..Counter::default()
        }
    }

    fn merge(&mut self, other: Counter) {
        self.lanes += other.lanes;
        for (m, o) in self.matched.iter_mut().zip(other.matched) {
            *m += o;
        }
        self.common &= other.common;
        self.unmatched += other.unmatched;
        self.first_unmatched = self.first_unmatched.or(other.first_unmatched);
        for (m, o) in self.first_miss.iter_mut().zip(other.first_miss) {
            *m = m.or(o);
        }
    }
}

/// Classifies the probe words of every dispatch of one case.
pub struct Classifier {
    probes: &'static [Probe],
    counters: Vec<Counter>,
    lanes_changed: u64,
    first_changed: Option<Changed>,
}

impl Classifier {
    pub fn new(probes: &'static [Probe]) -> Classifier {
        Classifier {
            probes,
            counters: counters(probes),
            lanes_changed: 0,
            first_changed: None,
        }
    }

    /// Classify one dispatch: `got` holds `k` words per lane, lane 0 being
    /// global lane `first_lane`; word `j + 1` is probe `j`.
    pub fn add(&mut self, first_lane: u64, k: usize, got: &[u32], sources: Sources<'_>) {
        let probes = self.probes;
        let pieces: Vec<Vec<Counter>> = got
            .par_chunks(PIECE_LANES * k)
            .enumerate()
            .map(|(p, words)| {
                let first = first_lane + (p * PIECE_LANES) as u64;
                classify(probes, first, k, words, sources)
            })
            .collect();
        for piece in pieces {
            for (c, p) in self.counters.iter_mut().zip(piece) {
                c.merge(p);
            }
        }
    }

    /// Compare two dispatches of the same lanes (`k` words per lane): every
    /// word must come back the same.
    pub fn compare_repeat(&mut self, first_lane: u64, k: usize, first: &[u32], second: &[u32]) {
        for (lane, (x, y)) in first.chunks(k).zip(second.chunks(k)).enumerate() {
            if x == y {
                continue;
            }
            self.lanes_changed += 1;
            if self.first_changed.is_none() {
                let word = x.iter().zip(y).position(|(a, b)| a != b).unwrap_or(0);
                self.first_changed = Some(Changed {
                    lane: first_lane + lane as u64,
                    word,
                    first: x[word],
                    second: y[word],
                });
            }
        }
    }

    /// The findings so far.
    pub fn findings(&self) -> Findings {
        Findings {
            fields: self
                .probes
                .iter()
                .zip(&self.counters)
                .enumerate()
                .map(|(j, (p, c))| field_finding(*p, j + 1, c))
                .collect(),
            lanes_changed: self.lanes_changed,
            first_changed: self.first_changed,
        }
    }
}

/// A zeroed counter per probe word.
fn counters(probes: &[Probe]) -> Vec<Counter> {
    probes
        .iter()
        .map(|p| Counter::new(p.readings().len()))
        .collect()
}

/// Count one piece of a dispatch.
fn classify(
    probes: &[Probe],
    first_lane: u64,
    k: usize,
    words: &[u32],
    sources: Sources<'_>,
) -> Vec<Counter> {
    let mut counters = counters(probes);
    for (i, lane_words) in words.chunks_exact(k).enumerate() {
        let lane = first_lane + i as u64;
        let (a, b, c) = sources(lane);
        for ((probe, counter), &got) in probes.iter().zip(&mut counters).zip(&lane_words[1..]) {
            let arg = probe.arg();
            let sample = Sample { lane, a, b, c, got };
            let mut set = 0u64;
            for (r, reading) in probe.readings().iter().enumerate() {
                if reading.eval(arg, [a, b, c]) == got {
                    set |= 1 << r;
                    counter.matched[r] += 1;
                } else {
                    counter.first_miss[r] = counter.first_miss[r].or(Some(sample));
                }
            }
            counter.lanes += 1;
            counter.common &= set;
            if set == 0 {
                counter.unmatched += 1;
                counter.first_unmatched = counter.first_unmatched.or(Some(sample));
            }
        }
    }
    counters
}

fn field_finding(probe: Probe, word: usize, c: &Counter) -> FieldFinding {
    let readings = probe.readings();
    let follows: Vec<String> = readings
        .iter()
        .enumerate()
        .filter(|(r, _)| c.lanes > 0 && c.common >> r & 1 == 1)
        .map(|(_, reading)| reading.name.to_string())
        .collect();
    let verdict = if c.lanes == 0 {
        Verdict::Undecided
    } else if c.unmatched > 0 {
        Verdict::NoCandidate
    } else if follows.is_empty() {
        Verdict::Disagree
    } else if follows.len() == 1 {
        Verdict::Follows
    } else {
        Verdict::Undecided
    };
    let most = (0..readings.len()).max_by_key(|&r| (c.matched[r], std::cmp::Reverse(r)));
    let first_dissenting = match verdict {
        Verdict::Disagree => most.and_then(|r| c.first_miss[r]),
        _ => None,
    };
    let matched = readings
        .iter()
        .zip(&c.matched)
        .filter(|(_, &n)| n > 0)
        .map(|(r, &n)| ReadingLanes {
            reading: r.name.to_string(),
            lanes: n,
        })
        .collect();
    FieldFinding {
        field: probe.to_string(),
        word,
        lanes: c.lanes,
        verdict,
        follows,
        matched,
        unmatched: c.unmatched,
        first_unmatched: c.first_unmatched,
        first_dissenting,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cases::modifier_readings::{Field, Reading, INPUTS, PROBES, WORDS};

    fn reading(p: Probe, name: &str) -> Reading {
        *p.readings().iter().find(|r| r.name == name).unwrap()
    }

    fn sources(lane: u64) -> (u32, u32, u32) {
        let [a, b, c] = INPUTS[lane as usize % INPUTS.len()];
        (a, b, c)
    }

    /// `lanes` lanes whose probe words follow `pick(probe, lane)`.
    fn words(lanes: u64, pick: impl Fn(Probe, u64) -> &'static str) -> Vec<u32> {
        let mut out = Vec::new();
        for lane in 0..lanes {
            let (a, b, c) = sources(lane);
            out.push(crate::model::cases::xad(a, b, c));
            for p in PROBES {
                out.push(reading(p, pick(p, lane)).eval(p.arg(), [a, b, c]));
            }
        }
        out
    }

    fn run(lanes: u64, pick: impl Fn(Probe, u64) -> &'static str) -> Findings {
        let mut c = Classifier::new(&PROBES);
        c.add(0, WORDS, &words(lanes, pick), &sources);
        c.findings()
    }

    #[test]
    fn every_candidate_of_every_field_is_found_in_every_lane() {
        for (j, p) in PROBES.iter().enumerate() {
            for r in p.readings() {
                let f = run(600, |q, _| if q == *p { r.name } else { "ignored" });
                let field = &f.fields[j];
                assert_eq!(field.verdict, Verdict::Follows, "{}", field.line());
                assert_eq!(field.follows, [r.name], "{p}");
                assert_eq!(field.line(), format!("{p}: {}, 600 of 600 lanes", r.name));
                assert!(f.failure().is_none());
            }
        }
    }

    #[test]
    fn one_lane_on_another_reading_is_a_disagreement() {
        let neg1 = Probe::Field(Field::Neg(1));
        let f = run(600, |p, lane| match (p == neg1, lane) {
            (true, 17) => "two's-complement negated",
            (true, _) => "sign bit flipped",
            _ => "ignored",
        });
        let field = &f.fields[1];
        assert_eq!(field.verdict, Verdict::Disagree, "{}", field.line());
        let why = f.failure().expect("fails");
        assert!(why.contains("NEG[1]: lanes disagree"), "{why}");
        assert!(
            why.contains("599 of 600 lanes follow sign bit flipped"),
            "{why}"
        );
        assert_eq!(field.first_dissenting.map(|s| s.lane), Some(17), "{why}");
    }

    #[test]
    fn a_word_no_reading_gives_is_named_with_its_lane() {
        let mut w = words(64, |_, _| "ignored");
        w[5 * WORDS + 7] ^= 1 << 12; // lane 5, word 7: CLAMP
        let mut c = Classifier::new(&PROBES);
        c.add(1000, WORDS, &w, &|lane| sources(lane - 1000));
        let f = c.findings();
        let field = &f.fields[6];
        assert_eq!(field.field, "CLAMP");
        assert_eq!(field.verdict, Verdict::NoCandidate);
        assert_eq!(field.first_unmatched.map(|s| s.lane), Some(1005));
        assert!(
            field.line().contains("1 of 64 lanes match no candidate"),
            "{}",
            field.line()
        );
    }

    #[test]
    fn too_few_lanes_leave_a_field_undecided_not_failed() {
        // Lane 0 alone: the published vector, where NEG's readings agree but
        // "sign bit flipped" still differs from "ignored".
        let f = run(1, |p, _| match p {
            Probe::Field(Field::Neg(_)) => "sign bit flipped",
            _ => "ignored",
        });
        let neg0 = &f.fields[0];
        assert_eq!(neg0.follows, ["sign bit flipped"], "{}", neg0.line());
        let clamp = &f.fields[6]; // no overflow on lane 0: ignored = unsigned saturation
        assert_eq!(clamp.verdict, Verdict::Undecided, "{}", clamp.line());
        assert!(f.failure().is_none());
    }

    #[test]
    fn a_word_that_changes_between_dispatches_fails() {
        let first = words(8, |_, _| "ignored");
        let mut second = first.clone();
        second[3 * WORDS + 2] ^= 1;
        let mut c = Classifier::new(&PROBES);
        c.compare_repeat(64, WORDS, &first, &first);
        assert!(c.findings().failure().is_none());
        c.compare_repeat(64, WORDS, &first, &second);
        let f = c.findings();
        assert_eq!(f.lanes_changed, 1);
        assert_eq!(f.first_changed.map(|c| (c.lane, c.word)), Some((67, 2)));
        assert!(f
            .failure()
            .unwrap()
            .contains("changed between two dispatches"));
    }
}
