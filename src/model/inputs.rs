//! Seeded input generation: uniform random values mixed with edge values,
//! reproducible lane by lane from the seed alone.
//!
//! Everything is counter-based: a value is a pure function of (seed, stream,
//! index), so any chunk of lanes, generated on any thread, in any order, sees
//! exactly the values a single pass would, with no state to carry or skip.
//! The uniform sources, the hot path, are 32-bit keyed hashes of the lane
//! index (`uniform_word`), which vectorise (AVX2 or SSE4.1 chosen at run
//! time, the same values on every path); the other streams (edge placement,
//! prefill, scalars) use the wyrand output function over a Weyl sequence.
//! Edge cases are placed per group of 8 lanes from a separate stream, so the
//! hot loop has no branches.

use multiversion::multiversion;
use rayon::prelude::*;

/// Lanes per parallel piece of generation (a cache-sized unit of work).
pub const BLOCK_LANES: usize = 1 << 14;

/// Values where a 32-bit xor-then-add is most likely to go wrong: zero, one, the
/// sign boundary, all ones, and alternating patterns.
pub const EDGE_VALUES: [u32; 9] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x5555_5555,
    0xaaaa_aaaa,
];

/// The first lanes of every run are the full cross product of [`EDGE_VALUES`] in
/// (a, b, c), so every run with at least this many lanes covers all of them.
pub const EDGE_PRODUCT_LANES: usize = EDGE_VALUES.len() * EDGE_VALUES.len() * EDGE_VALUES.len();

/// SplitMix64 finaliser: spreads (seed, stream) into a stream key. A
/// bijection that spreads every input bit; the guard words use it too.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a of a name: a stable salt (per case for scalar arguments, per
/// buffer for guard words) that does not change between builds.
pub(crate) fn name_salt(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Streams of one seed, kept apart so e.g. scalars never repeat source values.
const STREAM_SOURCES: u64 = 1;
const STREAM_PREFILL: u64 = 2;
const STREAM_SCALARS: u64 = 3;
const STREAM_EDGES: u64 = 4;
const STREAM_WIDE: u64 = 5;

fn key(seed: u64, stream: u64) -> u64 {
    mix(seed ^ mix(stream))
}

/// Value `n` of the stream with `key`: wyrand's 64x64->128 multiply-fold of the
/// `n`-th Weyl-sequence state. One multiply per 64 random bits.
#[inline(always)]
fn value(key: u64, n: u64) -> u64 {
    fold(key.wrapping_add(n.wrapping_mul(WEYL)))
}

/// The Weyl-sequence increment: state `n` is `key + n * WEYL`.
const WEYL: u64 = 0xa076_1d64_78bd_642f;

/// wyrand's output function of one Weyl state.
#[inline(always)]
fn fold(state: u64) -> u64 {
    let t = u128::from(state) * u128::from(state ^ 0xe703_7ed1_a0b4_28db);
    (t >> 64) as u64 ^ t as u64
}

/// Wellons' "lowbias32": a 32-bit bijection with low avalanche bias.
#[inline(always)]
fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// One uniform source word of the lane whose index has low half `lo`: two
/// keyed rounds of [`lowbias32`] (keys from the seed, the word and the
/// index's high half, see [`source_keys`]).
#[inline(always)]
fn uniform_word(lo: u32, k1: u32, k2: u32) -> u32 {
    lowbias32(lowbias32(lo ^ k1) ^ k2)
}

/// The six keys (two per source word a, b, c) for lanes whose index has high half `hi`.
fn source_keys(seed: u64, hi: u32) -> [u32; 6] {
    let base = key(seed, STREAM_SOURCES) ^ u64::from(hi).wrapping_mul(WEYL);
    let [k0, k1, k2] = [mix(base), mix(base ^ 1), mix(base ^ 2)];
    [
        k0 as u32,
        (k0 >> 32) as u32,
        k1 as u32,
        (k1 >> 32) as u32,
        k2 as u32,
        (k2 >> 32) as u32,
    ]
}

/// The six keys of [`uniform_sources`] for input indices whose high half is
/// `hi` (two per source word a, b, c): what the soak kernel is given to
/// generate the same words on the device (src/commands/soak/endurance.rs).
pub fn uniform_keys(seed: u64, hi: u32) -> [u32; 6] {
    source_keys(seed, hi)
}

/// The uniform sources (a, b, c) of an input index with low half `lo`, from
/// the keys of its high half ([`uniform_keys`]): what [`fill_sources`] puts in
/// that lane before an edge case may replace it.
#[inline]
pub fn uniform_sources_keyed(k: &[u32; 6], lo: u32) -> (u32, u32, u32) {
    (
        uniform_word(lo, k[0], k[1]),
        uniform_word(lo, k[2], k[3]),
        uniform_word(lo, k[4], k[5]),
    )
}

/// The uniform sources of input index `index` for `seed` (see [`uniform_sources_keyed`]).
pub fn uniform_sources(seed: u64, index: u64) -> (u32, u32, u32) {
    uniform_sources_keyed(&uniform_keys(seed, (index >> 32) as u32), index as u32)
}

/// The uniform sources of lanes with index high half fixed and low halves
/// `lo0, lo0 + 1, ...`. Compiled for AVX2 and SSE4.1 too and picked at run
/// time: 32-bit multiplies vectorise 8 or 4 lanes wide there (about 1 ns a
/// lane with AVX2 against 4 for a scalar 64-bit generator).
#[multiversion(targets("x86_64+avx2", "x86_64+sse4.1"))]
fn fill_uniform(k: [u32; 6], lo0: u32, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    for (i, ((a, b), c)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate() {
        let lo = lo0.wrapping_add(i as u32);
        (*a, *b, *c) = (
            uniform_word(lo, k[0], k[1]),
            uniform_word(lo, k[2], k[3]),
            uniform_word(lo, k[4], k[5]),
        );
    }
}

/// Lanes per edge group: one lane of each group of 8, at a position drawn per
/// group, gets a structured edge case; the other seven stay uniform. The
/// eight kinds of edge case take turns, group by group, so each is equally
/// common and the choice is a branch the CPU predicts (a drawn kind
/// mispredicted nearly every group and cost more than the draws).
const EDGE_GROUP: u64 = 8;

/// Replace a lane's uniform (a, b, c) with structured edge case `kind`
/// (0..8), using `bits` for the edge values it picks.
#[inline(always)]
fn edge_case(kind: u64, bits: u32, (a, b, c): (u32, u32, u32)) -> (u32, u32, u32) {
    // One of the 9 edge values from 8 bits, by multiply and shift.
    let edge = |k: u32| EDGE_VALUES[(((k & 0xff) * EDGE_VALUES.len() as u32) >> 8) as usize];
    match kind % 8 {
        0 => (edge(bits), edge(bits >> 8), edge(bits >> 16)),
        1 => (a, a, c),                      // a ^ b == 0
        2 => (a, !a, c),                     // a ^ b == 0xffffffff
        3 => (a, b, (a ^ b).wrapping_neg()), // sum carries through all 32 bits to 0
        4 => (a, !a, 1),                     // 0xffffffff + 1 wraps to 0
        5 => (a, b, !(a ^ b)),               // largest sum without a carry out
        6 => (a, a ^ 0x7fff_ffff, 1),        // crosses the sign boundary
        _ => (a, b, edge(bits >> 24)),       // random xor, edge addend
    }
}

/// The edge cross product's (a, b, c) for lane `lane < EDGE_PRODUCT_LANES`.
fn edge_product(lane: usize) -> (u32, u32, u32) {
    let n = EDGE_VALUES.len();
    (
        EDGE_VALUES[lane / (n * n)],
        EDGE_VALUES[lane / n % n],
        EDGE_VALUES[lane % n],
    )
}

/// Fill `a`, `b`, `c` with the values of lanes `first_lane..first_lane + a.len()`,
/// on the calling thread.
pub fn fill_sources_serial(
    seed: u64,
    first_lane: u64,
    a: &mut [u32],
    b: &mut [u32],
    c: &mut [u32],
) {
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "source buffers must be equally long"
    );
    let n = a.len() as u64;
    // Uniform values first, in a branch-free loop, split where the lane
    // index's high half changes (at most once for any run's lanes).
    let mut done = 0usize;
    while done < a.len() {
        let lane = first_lane + done as u64;
        let (hi, lo) = ((lane >> 32) as u32, lane as u32);
        let end = done + ((1u64 << 32) - u64::from(lo)).min((a.len() - done) as u64) as usize;
        fill_uniform(
            source_keys(seed, hi),
            lo,
            &mut a[done..end],
            &mut b[done..end],
            &mut c[done..end],
        );
        done = end;
    }
    // Then one structured edge case per group of EDGE_GROUP lanes, at a drawn position.
    let groups = first_lane / EDGE_GROUP..(first_lane + n).div_ceil(EDGE_GROUP);
    let mut state = key(seed, STREAM_EDGES).wrapping_add(groups.start.wrapping_mul(WEYL));
    for group in groups {
        let draw = fold(state);
        state = state.wrapping_add(WEYL);
        let lane = group * EDGE_GROUP + draw % EDGE_GROUP;
        if lane >= first_lane && lane < first_lane + n {
            let i = (lane - first_lane) as usize;
            (a[i], b[i], c[i]) = edge_case(group, (draw >> 32) as u32, (a[i], b[i], c[i]));
        }
    }
    // Lanes of the edge cross product, when this range holds any.
    if (first_lane as usize) < EDGE_PRODUCT_LANES {
        for lane in first_lane as usize..EDGE_PRODUCT_LANES.min(first_lane as usize + a.len()) {
            let i = lane - first_lane as usize;
            (a[i], b[i], c[i]) = edge_product(lane);
        }
    }
}

/// The sources (a, b, c) of one lane: what [`fill_sources`] puts there.
pub fn lane_sources(seed: u64, lane: u64) -> (u32, u32, u32) {
    let (mut a, mut b, mut c) = ([0], [0], [0]);
    fill_sources_serial(seed, lane, &mut a, &mut b, &mut c);
    (a[0], b[0], c[0])
}

/// Uniform words for the cases with several source words per lane (SHA-256):
/// word `n` of global lane `lane`, two per wyrand value of a per-lane key.
pub(crate) fn lane_words(seed: u64, lane: u64, out: &mut [u32]) {
    let k = key(seed, STREAM_WIDE) ^ mix(lane);
    for (n, pair) in out.chunks_mut(2).enumerate() {
        let v = value(k, n as u64);
        pair[0] = v as u32;
        if let Some(hi) = pair.get_mut(1) {
            *hi = (v >> 32) as u32;
        }
    }
}

/// Word 0 of [`lane_words`].
pub(crate) fn lane_word(seed: u64, lane: u64) -> u32 {
    let mut w = [0];
    lane_words(seed, lane, &mut w);
    w[0]
}

/// As [`fill_sources_serial`], in parallel pieces of [`BLOCK_LANES`].
pub fn fill_sources(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "source buffers must be equally long"
    );
    a.par_chunks_mut(BLOCK_LANES)
        .zip(b.par_chunks_mut(BLOCK_LANES))
        .zip(c.par_chunks_mut(BLOCK_LANES))
        .enumerate()
        .for_each(|(piece, ((a, b), c))| {
            fill_sources_serial(seed, first_lane + (piece * BLOCK_LANES) as u64, a, b, c)
        });
}

/// Random words for output prefill (lanes a kernel must leave untouched keep
/// these), for lanes `first_lane..`, `per_lane` words each, on the calling thread.
pub fn fill_prefill(seed: u64, first_lane: u64, per_lane: usize, out: &mut [u32]) {
    let key = key(seed, STREAM_PREFILL);
    let first_word = first_lane * per_lane as u64;
    for (i, w) in out.iter_mut().enumerate() {
        *w = value(key, first_word + i as u64) as u32;
    }
}

/// `count` scalar kernel arguments for a run: edge values one time in four, so a
/// case with several scalars nearly always sees some, the rest random.
pub fn scalars(seed: u64, count: usize) -> Vec<u32> {
    let key = key(seed, STREAM_SCALARS);
    (0..count as u64)
        .map(|n| {
            let r = value(key, n);
            if r & 3 == 0 {
                EDGE_VALUES[((r >> 2) % EDGE_VALUES.len() as u64) as usize]
            } else {
                (r >> 32) as u32
            }
        })
        .collect()
}

/// A fresh seed when the user gave none.
pub fn fresh_seed() -> u64 {
    rand::random()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(seed: u64, first: u64, n: usize) -> Vec<(u32, u32, u32)> {
        let (mut a, mut b, mut c) = (vec![0; n], vec![0; n], vec![0; n]);
        fill_sources(seed, first, &mut a, &mut b, &mut c);
        (0..n).map(|i| (a[i], b[i], c[i])).collect()
    }

    #[test]
    fn same_seed_same_inputs_different_seed_different_inputs() {
        let n = 3 * BLOCK_LANES + 123;
        assert_eq!(gen(42, 0, n), gen(42, 0, n));
        let other = gen(43, 0, n);
        let base = gen(42, 0, n);
        let differing = base
            .iter()
            .zip(&other)
            .skip(EDGE_PRODUCT_LANES)
            .filter(|(x, y)| x != y)
            .count();
        assert!(
            differing > n / 2,
            "seed 42 vs 43 differ in only {differing} lanes"
        );
    }

    #[test]
    fn chunking_does_not_change_values() {
        let seed = 7;
        let whole = gen(seed, 0, 2 * BLOCK_LANES + 999);
        let cuts = [
            (0usize, 17usize),
            (1000, BLOCK_LANES),
            (BLOCK_LANES - 5, 10),
            (2 * BLOCK_LANES, 999),
            (1001, 1),
            (1001, 2),
            (1001, 3),
            (1002, 1),
            (999, 0),
        ];
        for (start, len) in cuts {
            assert_eq!(
                gen(seed, start as u64, len),
                whole[start..start + len],
                "chunk at {start}+{len}, seed {seed}"
            );
        }
    }

    #[test]
    fn one_lane_at_a_time_matches_a_fill() {
        let whole = gen(11, 0, 3000);
        for lane in [0usize, 1, 728, 729, 730, 1001, 2998, 2999] {
            assert_eq!(lane_sources(11, lane as u64), whole[lane], "lane {lane}");
        }
    }

    #[test]
    fn uniform_values_are_keyed_hashes_of_the_lane() {
        // Past the edge product, lanes without a structured edge case hold
        // their own uniform words: the vectorised loop and the per-lane
        // definition agree, across a change of the index's high half too.
        let seed = 5u64;
        for first in [4001u64, (1 << 32) - 2000] {
            let n = 4099usize;
            let got = gen(seed, first, n);
            let matching = got
                .iter()
                .enumerate()
                .filter(|&(i, v)| {
                    let lane = first + i as u64;
                    let k = source_keys(seed, (lane >> 32) as u32);
                    let lo = lane as u32;
                    *v == (
                        uniform_word(lo, k[0], k[1]),
                        uniform_word(lo, k[2], k[3]),
                        uniform_word(lo, k[4], k[5]),
                    )
                })
                .count();
            // One lane in 8 is replaced by an edge case.
            assert!(
                matching >= n * 7 / 8 - 64 && matching < n,
                "first {first}: {matching} of {n} lanes match"
            );
        }
    }

    #[test]
    fn uniform_words_look_random() {
        // Every bit of a, b and c set about half the time, and the three
        // words of a lane unrelated (a ^ b and b ^ c have about 16 bits set).
        // The uniform words alone: edge cases are biased on purpose.
        let n = 1 << 16;
        let (mut a, mut b, mut c) = (vec![0; n], vec![0; n], vec![0; n]);
        fill_uniform(source_keys(77, 0), 1 << 20, &mut a, &mut b, &mut c);
        let v: Vec<(u32, u32, u32)> = (0..n).map(|i| (a[i], b[i], c[i])).collect();
        let n = v.len() as f64;
        for bit in 0..32 {
            for (word, pick) in [("a", 0usize), ("b", 1), ("c", 2)] {
                let ones = v
                    .iter()
                    .filter(|t| [t.0, t.1, t.2][pick] >> bit & 1 == 1)
                    .count() as f64;
                assert!(
                    (ones / n - 0.5).abs() < 0.02,
                    "{word} bit {bit}: {ones} of {n}"
                );
            }
        }
        for (name, f) in [
            (
                "a^b",
                (|t: &(u32, u32, u32)| t.0 ^ t.1) as fn(&(u32, u32, u32)) -> u32,
            ),
            ("b^c", |t| t.1 ^ t.2),
        ] {
            let mean = v.iter().map(|t| f(t).count_ones() as f64).sum::<f64>() / n;
            assert!((mean - 16.0).abs() < 0.3, "{name}: mean popcount {mean}");
        }
    }

    #[test]
    fn edge_product_comes_first_and_is_complete() {
        let v = gen(1, 0, EDGE_PRODUCT_LANES);
        let mut seen = std::collections::HashSet::new();
        for t in &v {
            assert!(
                EDGE_VALUES.contains(&t.0)
                    && EDGE_VALUES.contains(&t.1)
                    && EDGE_VALUES.contains(&t.2)
            );
            seen.insert(*t);
        }
        assert_eq!(seen.len(), EDGE_PRODUCT_LANES);
    }

    #[test]
    fn structured_edges_appear_in_random_lanes() {
        let v = gen(99, 0, BLOCK_LANES);
        let rest = &v[EDGE_PRODUCT_LANES..];
        let xor_zero = rest.iter().filter(|(a, b, _)| a == b).count();
        let xor_ones = rest.iter().filter(|(a, b, _)| a ^ b == u32::MAX).count();
        let wraps_to_zero = rest
            .iter()
            .filter(|(a, b, c)| (a ^ b).wrapping_add(*c) == 0)
            .count();
        // Each pattern is ~1/64 of lanes; require at least a third of that.
        let floor = rest.len() / 64 / 3;
        assert!(
            xor_zero > floor && xor_ones > floor && wraps_to_zero > floor,
            "{xor_zero} {xor_ones} {wraps_to_zero} (floor {floor})"
        );
    }

    #[test]
    fn every_group_of_eight_holds_its_turn_of_edge_case() {
        let first = 3 * EDGE_PRODUCT_LANES as u64 / 8 * 8 + 8;
        let v = gen(31, first, 8 * 4096);
        let is_edge = |x: &u32| EDGE_VALUES.contains(x);
        for (g, lanes) in v.chunks(8).enumerate() {
            let kind = (first / 8 + g as u64) % 8;
            let holds = |&(a, b, c): &(u32, u32, u32)| match kind {
                0 => is_edge(&a) && is_edge(&b) && is_edge(&c),
                1 => a == b,
                2 => a ^ b == u32::MAX,
                3 => (a ^ b).wrapping_add(c) == 0,
                4 => a ^ b == u32::MAX && c == 1,
                5 => (a ^ b).checked_add(c) == Some(u32::MAX),
                6 => b == a ^ 0x7fff_ffff && c == 1,
                _ => is_edge(&c),
            };
            assert!(
                lanes.iter().any(holds),
                "seed 31, group {} (kind {kind}): {lanes:x?}",
                first / 8 + g as u64
            );
        }
    }

    #[test]
    fn prefill_is_chunk_independent() {
        let mut whole = vec![0; 200_000];
        fill_prefill(5, 0, 2, &mut whole[..]);
        let mut part = vec![0; 2 * 100];
        fill_prefill(5, 70_000, 2, &mut part);
        assert_eq!(part[..], whole[140_000..140_200]);
        // A piece straddling word 131072.
        let mut straddle = vec![0; 100];
        fill_prefill(5, 65_500, 2, &mut straddle);
        assert_eq!(straddle[..], whole[131_000..131_100]);
    }
}
