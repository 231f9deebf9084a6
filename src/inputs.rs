//! Seeded input generation: uniform random values mixed with edge values, laid
//! out so that a seed reproduces every lane exactly, whatever the chunk size or
//! thread count.
//!
//! Lanes are generated in blocks of [`BLOCK_LANES`]; block `k` draws from its own
//! xoshiro256++ stream seeded from `(seed, k)`. A chunk of any size starting at
//! any lane therefore sees the same values, and blocks fill in parallel.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

/// Lanes per independently seeded block.
pub const BLOCK_LANES: usize = 1 << 16;

/// Values where a 32-bit xor-then-add is most likely to go wrong: zero, one, the
/// sign boundary, all ones, and alternating patterns.
pub const EDGE_VALUES: [u32; 9] =
    [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 0x5555_5555, 0xaaaa_aaaa];

/// The first lanes of every run are the full cross product of [`EDGE_VALUES`] in
/// (a, b, c), so every run with at least this many lanes covers all of them.
pub const EDGE_PRODUCT_LANES: usize = EDGE_VALUES.len() * EDGE_VALUES.len() * EDGE_VALUES.len();

/// SplitMix64 finaliser: turns (seed, index) into well-spread stream seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic RNG for `(seed, stream)`; `stream` separates independent uses
/// (lane blocks, scalar arguments, prefill) of one seed.
pub fn rng_for(seed: u64, stream: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix(seed ^ mix(stream)))
}

/// Stream ids: lane blocks use their block index; other uses sit far above.
const STREAM_PREFILL: u64 = 1 << 40;
const STREAM_SCALARS: u64 = 1 << 41;

/// The three source operands of a lane and the pattern that produced them.
#[inline]
fn lane_values(lane: u64, x: u64, y: u64) -> (u32, u32, u32) {
    if (lane as usize) < EDGE_PRODUCT_LANES {
        let n = EDGE_VALUES.len();
        let i = lane as usize;
        return (EDGE_VALUES[i / (n * n)], EDGE_VALUES[i / n % n], EDGE_VALUES[i % n]);
    }
    let (a, b, c) = (x as u32, (x >> 32) as u32, y as u32);
    let select = (y >> 32) as u32;
    // One lane in eight gets a structured edge case; the rest stay uniform.
    if select & 7 != 0 {
        return (a, b, c);
    }
    let edge = |k: u32| EDGE_VALUES[(k % EDGE_VALUES.len() as u32) as usize];
    match (select >> 3) % 8 {
        0 => (edge(select >> 6), edge(select >> 10), edge(select >> 14)),
        1 => (a, a, c),                             // a ^ b == 0
        2 => (a, !a, c),                            // a ^ b == 0xffffffff
        3 => (a, b, (a ^ b).wrapping_neg()),        // sum carries through all 32 bits to 0
        4 => (a, !a, 1),                            // 0xffffffff + 1 wraps to 0
        5 => (a, b, 0xffff_ffff - (a ^ b)),         // largest sum without a carry out
        6 => (a, a ^ 0x7fff_ffff, 1),               // crosses the sign boundary
        _ => (a, b, edge(select >> 6)),             // random xor, edge addend
    }
}

/// Split `n` items starting at global index `first` at multiples of `block`:
/// `(start, end, block_index)` per piece, offsets relative to `first`.
fn block_pieces(first: u64, n: usize, block: usize) -> Vec<(usize, usize, u64)> {
    let mut pieces = Vec::new();
    let mut start = 0usize;
    while start < n {
        let index = (first + start as u64) / block as u64;
        let end = (((index + 1) * block as u64 - first) as usize).min(n);
        pieces.push((start, end, index));
        start = end;
    }
    pieces
}

/// Cut `data` into the pieces `block_pieces` described.
fn split_by<'a>(mut data: &'a mut [u32], pieces: &[(usize, usize, u64)]) -> Vec<&'a mut [u32]> {
    pieces
        .iter()
        .map(|&(start, end, _)| {
            let (head, tail) = std::mem::take(&mut data).split_at_mut(end - start);
            data = tail;
            head
        })
        .collect()
}

/// Fill `a`, `b`, `c` with the values of lanes `first_lane..first_lane + a.len()`.
pub fn fill_sources(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    assert!(a.len() == b.len() && b.len() == c.len(), "source buffers must be equally long");
    let pieces = block_pieces(first_lane, a.len(), BLOCK_LANES);
    split_by(a, &pieces)
        .into_par_iter()
        .zip(split_by(b, &pieces))
        .zip(split_by(c, &pieces))
        .zip(pieces.par_iter())
        .for_each(|(((a, b), c), &(start, _, block))| fill_piece(seed, first_lane + start as u64, block, a, b, c));
}

/// Fill lanes `lane0..` of one RNG block.
fn fill_piece(seed: u64, lane0: u64, block: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    let mut rng = rng_for(seed, block);
    // A chunk that starts inside a block skips that block's earlier lanes.
    for _ in 0..(lane0 - block * BLOCK_LANES as u64) {
        rng.next_u64();
        rng.next_u64();
    }
    for i in 0..a.len() {
        let (x, y) = (rng.next_u64(), rng.next_u64());
        (a[i], b[i], c[i]) = lane_values(lane0 + i as u64, x, y);
    }
}

/// As [`fill_sources`], on the calling thread only (for single-thread baselines).
pub fn fill_sources_serial(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    for (start, end, block) in block_pieces(first_lane, a.len(), BLOCK_LANES) {
        fill_piece(seed, first_lane + start as u64, block, &mut a[start..end], &mut b[start..end], &mut c[start..end]);
    }
}

/// Random words for output prefill (lanes a kernel must leave untouched keep
/// these), for lanes `first_lane..`, `per_lane` words each.
pub fn fill_prefill(seed: u64, first_lane: u64, per_lane: usize, out: &mut [u32]) {
    let first_word = first_lane * per_lane as u64;
    let pieces = block_pieces(first_word, out.len(), BLOCK_LANES);
    split_by(out, &pieces).into_par_iter().zip(pieces.par_iter()).for_each(|(words, &(start, _, block))| {
        let mut rng = rng_for(seed, STREAM_PREFILL + block);
        for _ in 0..(first_word + start as u64 - block * BLOCK_LANES as u64) {
            rng.next_u32();
        }
        words.iter_mut().for_each(|w| *w = rng.next_u32());
    });
}

/// `count` scalar kernel arguments for a run: edge values first, so a run with
/// several scalars always includes some, then random.
pub fn scalars(seed: u64, count: usize) -> Vec<u32> {
    let mut rng = rng_for(seed, STREAM_SCALARS);
    (0..count)
        .map(|_| {
            let r = rng.next_u64();
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
        let differing = base.iter().zip(&other).skip(EDGE_PRODUCT_LANES).filter(|(x, y)| x != y).count();
        assert!(differing > n / 2, "seed 42 vs 43 differ in only {differing} lanes");
    }

    #[test]
    fn chunking_does_not_change_values() {
        let seed = 7;
        let whole = gen(seed, 0, 2 * BLOCK_LANES + 999);
        for (start, len) in [(0usize, 17usize), (1000, BLOCK_LANES), (BLOCK_LANES - 5, 10), (2 * BLOCK_LANES, 999)] {
            assert_eq!(gen(seed, start as u64, len), whole[start..start + len], "chunk at {start}+{len}, seed {seed}");
        }
    }

    #[test]
    fn edge_product_comes_first_and_is_complete() {
        let v = gen(1, 0, EDGE_PRODUCT_LANES);
        let mut seen = std::collections::HashSet::new();
        for t in &v {
            assert!(EDGE_VALUES.contains(&t.0) && EDGE_VALUES.contains(&t.1) && EDGE_VALUES.contains(&t.2));
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
        let wraps_to_zero = rest.iter().filter(|(a, b, c)| (a ^ b).wrapping_add(*c) == 0).count();
        // Each pattern is ~1/64 of lanes; require at least a third of that.
        let floor = rest.len() / 64 / 3;
        assert!(xor_zero > floor && xor_ones > floor && wraps_to_zero > floor, "{xor_zero} {xor_ones} {wraps_to_zero} (floor {floor})");
    }

    #[test]
    fn prefill_is_chunk_independent() {
        let mut whole = vec![0; 3 * BLOCK_LANES];
        fill_prefill(5, 0, 2, &mut whole[..]);
        let mut part = vec![0; 2 * 100];
        fill_prefill(5, 70_000, 2, &mut part);
        assert_eq!(part[..], whole[140_000..140_200]);
        // A piece straddling a block boundary (word 131072).
        let mut straddle = vec![0; 100];
        fill_prefill(5, 65_500, 2, &mut straddle);
        assert_eq!(straddle[..], whole[131_000..131_100]);
    }
}
