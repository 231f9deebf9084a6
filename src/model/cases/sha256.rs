//! The SHA-256 cases: `v_xad_u32` in the workload it was added for. Each lane
//! runs the SHA-256 compression function (FIPS 180-4 section 6.2.2) over one
//! or two 64-byte blocks from its own initial state, and its eight state words
//! are checked against the `sha2` crate's `compress256`.
//!
//! Kernel: `kernels/include/xad_sha256.inc` inside each generation's frame
//! (`kernels/cases/xad_sha256_w32.s`, `_w64.s`). Every round and every
//! message-schedule step folds an xor into an add with `v_xad_u32`, the form
//! LLVM itself selects for `(x ^ y) + z`:
//!
//! | where | `v_xad_u32` computes |
//! |---|---|
//! | round, T1 | `((rotr(e,6) ^ rotr(e,11)) ^ rotr(e,25)) + Ch(e,f,g)` = Σ1(e) + Ch |
//! | round, T2 | `((rotr(a,2) ^ rotr(a,13)) ^ rotr(a,22)) + Maj(a,b,c)` = Σ0(a) + Maj |
//! | schedule | `((rotr(x,7) ^ rotr(x,18)) ^ (x >> 3)) + W[t-16]` = σ0 + W[t-16] |
//! | schedule | `((rotr(y,17) ^ rotr(y,19)) ^ (y >> 10)) + W[t-7]` = σ1 + W[t-7] |
//!
//! so a block costs 64 x 2 + 48 x 2 = [`XAD_PER_BLOCK`] (224) `v_xad_u32`,
//! beside `v_alignbit_b32` (rotates), `v_bfi_b32` (Ch, and Maj as
//! `bfi(a ^ b, c, b)`) and `v_add3_u32`.
//!
//! Lane ABI (the standard one, wider sources): `a` holds 32 words per lane,
//! two blocks of 16 message words as SHA-256 reads them (each word the
//! big-endian value of 4 message bytes); `b` 8 words per lane, the initial
//! state H0..H7; `c` one word, the block count: the second block is hashed
//! where `c > 1` (unsigned), under EXEC, so lanes of one wave diverge. `out`
//! gets 8 words per lane, the state after the last block. For a padded
//! message from the standard initial value that state is the digest.
//!
//! Inputs, by lane index modulo 64 (so every wave64, and every other wave32,
//! holds the known messages): 0 `"abc"` and 1 the 448-bit
//! `"abcdbcde...nopq"` (FIPS 180-4's one- and two-block examples, from the
//! standard initial value), 2 the empty message, 3 the 896-bit
//! `"abcdefgh...nopqrstu"` (two blocks), 4 all-ones message and state, 5 all
//! zeros, 6 a random message from the standard initial value, 7 and 8 block
//! counts 0 and `u32::MAX` (the compare is unsigned); every other lane a
//! random message and state and 1 or 2 blocks.

use std::ops::Range;

use super::{Case, Inputs, LaneData};
use crate::platform::target::Feature;

/// `v_xad_u32` per compressed block in the kernels (tests count them).
pub const XAD_PER_BLOCK: usize = 224;
/// Blocks per lane, at most: a lane's `a` holds this many.
pub const MAX_BLOCKS: usize = 2;
/// Message words per lane (`a`).
pub const MESSAGE_WORDS: usize = 16 * MAX_BLOCKS;

/// SHA-256's initial hash value H(0) (FIPS 180-4 section 5.3.3).
pub const H0: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The known messages some lanes hash (lane index modulo 64 = position here).
pub const KNOWN_MESSAGES: [&[u8]; 4] = [
    b"abc",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    b"",
    b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
];

/// The message words (big-endian) of `message` padded as FIPS 180-4 section
/// 5.1.1 says: a 1 bit, zeros, the 64-bit bit length; a multiple of 16 words.
pub fn padded(message: &[u8]) -> Vec<u32> {
    let mut bytes = message.to_vec();
    bytes.push(0x80);
    while bytes.len() % 64 != 56 {
        bytes.push(0);
    }
    bytes.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Blocks lane with control word `c` hashes.
pub fn blocks(c: u32) -> usize {
    if c > 1 {
        2
    } else {
        1
    }
}

/// The state after compressing `words.len() / 16` blocks of message words
/// from `state`, by the `sha2` crate.
pub fn compress(mut state: [u32; 8], words: &[u32]) -> [u32; 8] {
    use sha2::digest::generic_array::GenericArray;
    let blocks: Vec<GenericArray<u8, _>> = words
        .chunks_exact(16)
        .map(|block| {
            let bytes: Vec<u8> = block.iter().flat_map(|w| w.to_be_bytes()).collect();
            GenericArray::clone_from_slice(&bytes)
        })
        .collect();
    sha2::compress256(&mut state, &blocks);
    state
}

/// The CPU model: each lane's state after its blocks.
fn model(data: &LaneData<'_>, lanes: Range<usize>, out: &mut [u32]) {
    for (lane, out) in lanes.zip(out.chunks_exact_mut(8)) {
        let message = &data.a[lane * MESSAGE_WORDS..][..MESSAGE_WORDS];
        let state: [u32; 8] = data.b[lane * 8..][..8]
            .try_into()
            .expect("8 state words per lane");
        let n = blocks(data.c[lane]);
        out.copy_from_slice(&compress(state, &message[..16 * n]));
    }
}

/// Fill lanes `first_lane ..` of a (32 words each), b (8) and c (1).
fn fill(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    let lanes = c.len();
    assert!(
        a.len() == lanes * MESSAGE_WORDS && b.len() == lanes * 8,
        "SHA-256 sources: 32, 8 and 1 words per lane"
    );
    for (i, ((a, b), c)) in a
        .chunks_exact_mut(MESSAGE_WORDS)
        .zip(b.chunks_exact_mut(8))
        .zip(c.iter_mut())
        .enumerate()
    {
        let lane = first_lane + i as u64;
        // Random words first (every lane's 32 + 8 + 1), then the lane's class.
        crate::model::inputs::lane_words(seed, lane, a);
        crate::model::inputs::lane_words(seed ^ 0x5ea1, lane, b);
        let draw = crate::model::inputs::lane_word(seed ^ 0xb10c, lane);
        *c = 1 + (draw & 1);
        match lane % 64 {
            k @ 0..=3 => {
                let words = padded(KNOWN_MESSAGES[k as usize]);
                a[..words.len()].copy_from_slice(&words);
                b.copy_from_slice(&H0);
                *c = (words.len() / 16) as u32;
            }
            4 => {
                a.fill(u32::MAX);
                b.fill(u32::MAX);
                *c = 2;
            }
            5 => {
                a.fill(0);
                b.fill(0);
                *c = 2;
            }
            6 => b.copy_from_slice(&H0),
            7 => *c = 0,
            8 => *c = u32::MAX,
            _ => {}
        }
    }
}

/// The SHA-256 cases' sources.
pub static INPUTS: Inputs = Inputs {
    words: [MESSAGE_WORDS, 8, 1],
    fill,
};

const DESCRIPTION_W32: &str = "SHA-256 compression of 1 or 2 blocks per lane (224 v_xad_u32 a block: Σ1+Ch, Σ0+Maj, σ0+W, σ1+W) against the sha2 crate; FIPS 180-4 \"abc\" and 448-bit messages in every wave; wave32";
const DESCRIPTION_W64: &str = "SHA-256 compression of 1 or 2 blocks per lane (224 v_xad_u32 a block: Σ1+Ch, Σ0+Maj, σ0+W, σ1+W) against the sha2 crate; FIPS 180-4 \"abc\" and 448-bit messages in every wave; wave64";

const fn sha_case(name: &'static str, kernel: &'static str, wave: u32) -> Case {
    Case {
        name,
        description: if wave == 32 {
            DESCRIPTION_W32
        } else {
            DESCRIPTION_W64
        },
        kernel,
        wave_size: wave,
        outputs_per_lane: 8,
        scalar_args: 0,
        keeps_lanes: false,
        inputs: &INPUTS,
        model,
        unsettled: None,
        requires: if wave == 32 {
            &[Feature::Wave32]
        } else {
            &[Feature::Wave64]
        },
        probes: &[],
    }
}

/// The SHA-256 cases, in catalogue order.
pub static CASES: &[Case] = &[
    sha_case("sha256_w32", "xad_sha256_w32", 32),
    sha_case("sha256_w64", "xad_sha256_w64", 64),
];

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// A digest's 8 words, from its 32 bytes.
    fn words(digest: &[u8]) -> Vec<u32> {
        digest
            .chunks_exact(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }

    fn hex(s: &str) -> Vec<u32> {
        (0..8)
            .map(|i| u32::from_str_radix(&s[8 * i..8 * i + 8], 16).unwrap())
            .collect()
    }

    /// FIPS 180-4's examples (NIST "SHA256.pdf" example values), by the model path.
    #[test]
    fn fips_examples_by_compress() {
        let abc = compress(H0, &padded(b"abc"));
        assert_eq!(
            abc.to_vec(),
            hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        let two = compress(H0, &padded(KNOWN_MESSAGES[1]));
        assert_eq!(
            two.to_vec(),
            hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        );
        for m in KNOWN_MESSAGES {
            assert_eq!(
                compress(H0, &padded(m)).to_vec(),
                words(&Sha256::digest(m)),
                "{m:?}"
            );
        }
    }

    /// The model over generated lanes: known lanes give the digests of their
    /// messages (`Sha256::digest`, an independent path through sha2), other
    /// lanes a hand-rolled FIPS 180-4 compression.
    #[test]
    fn model_matches_digests_and_a_reference_compression() {
        const SEED: u64 = 0x5a256;
        let lanes = 300;
        let (mut a, mut b, mut c) = (
            vec![0; lanes * MESSAGE_WORDS],
            vec![0; lanes * 8],
            vec![0; lanes],
        );
        fill(SEED, 0, &mut a, &mut b, &mut c);
        let data = LaneData {
            a: &a,
            b: &b,
            c: &c,
            scalars: &[],
            prefill: &[],
            count: lanes,
        };
        let mut out = vec![0; lanes * 8];
        model(&data, 0..lanes, &mut out);
        for lane in 0..lanes {
            let got = &out[lane * 8..][..8];
            if lane % 64 < 4 {
                let m = KNOWN_MESSAGES[lane % 64];
                assert_eq!(got, words(&Sha256::digest(m)), "seed {SEED:#x} lane {lane}");
            }
            let mut state: [u32; 8] = b[lane * 8..][..8].try_into().unwrap();
            for block in a[lane * MESSAGE_WORDS..][..16 * blocks(c[lane])].chunks(16) {
                state = reference(state, block);
            }
            assert_eq!(got, state, "seed {SEED:#x} lane {lane}");
        }
        // Both block counts occur among the random lanes.
        assert!(c[9..].iter().any(|&c| blocks(c) == 1) && c[9..].iter().any(|&c| blocks(c) == 2));
    }

    /// FIPS 180-4 section 6.2.2 as written, the check on `compress`'s use.
    fn reference(h: [u32; 8], block: &[u32]) -> [u32; 8] {
        const K: [u32; 64] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2,
        ];
        let mut w = [0u32; 64];
        w[..16].copy_from_slice(block);
        for t in 16..64 {
            let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
            let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
            w[t] = s1
                .wrapping_add(w[t - 7])
                .wrapping_add(s0)
                .wrapping_add(w[t - 16]);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for t in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[t])
                .wrapping_add(w[t]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            (hh, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        let v = [a, b, c, d, e, f, g, hh];
        std::array::from_fn(|i| h[i].wrapping_add(v[i]))
    }

    #[test]
    fn one_lane_is_drawn_as_in_a_range() {
        let (mut a, mut b, mut c) = (vec![0; 100 * MESSAGE_WORDS], vec![0; 800], vec![0; 100]);
        fill(7, 1000, &mut a, &mut b, &mut c);
        for i in [0usize, 1, 5, 63, 64, 99] {
            let [la, lb, lc] = INPUTS.lane(7, 1000 + i as u64);
            assert_eq!(la, a[i * MESSAGE_WORDS..][..MESSAGE_WORDS]);
            assert_eq!(lb, b[i * 8..][..8]);
            assert_eq!(lc, [c[i]]);
        }
    }

    #[test]
    fn block_count_rule_is_unsigned() {
        assert_eq!(
            [0, 1, 2, 3, u32::MAX].map(blocks),
            [1, 1, 2, 2, 2],
            "c > 1 hashes the second block"
        );
    }
}
