//! Guard regions: [`GUARD_BYTES`] on both sides of every device buffer
//! (inputs included), filled before the launch and compared after it, so a
//! kernel that writes outside a buffer fails its case.
//!
//! The guard words are drawn per run from the seed, different for every
//! buffer, side and word. A fill of one repeated value would not do: for a
//! guard of one repeated byte `g`, `(g ^ g) + g == g`, so a kernel without its
//! `i < count` check would write `v_xad_u32` of the guard words back over the
//! out buffer's guard unchanged and pass. With independent random words a
//! stray store leaves its word unchanged only with probability 2^-32.

use crate::error::ReleaseError;
use crate::model::inputs::{mix, name_salt};
use crate::platform::device::{Device, DeviceError, DevicePtr};

/// Bytes of guard before and after every device buffer.
pub const GUARD_BYTES: usize = 4096;
const GUARD_WORDS: usize = GUARD_BYTES / 4;

/// The run's guard seed, recorded in reports: a pure function of the run's
/// seed, so `--seed` reproduces the guards as well as the inputs.
pub fn guard_seed(seed: u64) -> u64 {
    mix(seed ^ 0x6775_6172_6473_2121) // "guards!!"
}

/// Which side of its buffer a guard sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Before,
    After,
}

/// The guard words of one side of one buffer, in address order.
pub fn guard_words(guard_seed: u64, buffer: &str, side: Side) -> Vec<u32> {
    let name = name_salt(buffer);
    let key = mix(guard_seed ^ mix(name ^ side as u64));
    (0..GUARD_WORDS as u64)
        .map(|i| mix(key ^ i.wrapping_mul(0xd6e8_feb8_6659_fd93)) as u32)
        .collect()
}

/// A write the kernel made into a guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardViolation {
    pub buffer: String,
    pub side: Side,
    /// Index of the changed guard word nearest the buffer, in the buffer's own
    /// word numbering: negative before it, `len` and up after it.
    pub word: i64,
    /// The global lane of the dispatch whose words (`lane * words_per_lane +
    /// k`) include that word, if one does; `None` (JSON null) when no lane
    /// of the dispatch addresses it: a guard word is outside every lane's
    /// words, so a stray store there came from a work-item past `count`
    /// (a missing `i < count` check) or a wrong address, not from a lane.
    pub lane: Option<u64>,
    /// Byte distance of the nearest changed byte from the buffer's start
    /// (before: negative) or end (after).
    pub nearest_offset: i64,
    pub words_changed: usize,
    /// The guard word there before the launch, and what the kernel left.
    pub expected: u32,
    pub got: u32,
    /// The dispatch's global lanes, to say which lanes exist when none
    /// addresses the word. Not in JSON (`lane` is null there).
    pub lanes: std::ops::Range<u64>,
}

impl std::fmt::Display for GuardViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = match self.side {
            Side::After => format!("{} bytes past its end", self.nearest_offset),
            Side::Before => format!("{} bytes before its start", -self.nearest_offset),
        };
        let by = match self.lane {
            Some(lane) => format!("lane {lane} addresses it"),
            None if self.lanes.is_empty() => "no lane addresses it".to_string(),
            None => format!(
                "no lane addresses it (this dispatch's lanes {}-{} address only words inside the buffer)",
                self.lanes.start,
                self.lanes.end - 1
            ),
        };
        write!(
            f,
            "kernel wrote outside buffer `{}`: {} guard words changed, nearest word {} of `{}` ({at}): 0x{:08x} became 0x{:08x}; {by}",
            self.buffer, self.words_changed, self.word, self.buffer, self.expected, self.got
        )
    }
}

/// Where a guard sits and what it should hold, for [`check_guard`].
pub struct GuardSpot<'a> {
    pub buffer: &'a str,
    pub side: Side,
    /// The buffer's length in words (where the rear guard starts).
    pub len_words: usize,
    /// Output words per lane in this buffer (1 for inputs).
    pub words_per_lane: usize,
    /// Global lane of the buffer's word 0 (the chunk's first lane).
    pub first_lane: u64,
    /// Lanes the dispatch ran (from `first_lane`): only these address words.
    pub lanes: u64,
    pub expected: &'a [u32],
}

/// Compare a guard read back from the device with what was written there.
pub fn check_guard(spot: &GuardSpot<'_>, got: &[u8]) -> Option<GuardViolation> {
    let want: &[u8] = bytemuck::cast_slice(spot.expected);
    if got == want {
        return None; // the common case: one memcmp
    }
    let changed: Vec<usize> = (0..got.len().min(want.len()))
        .filter(|&i| got[i] != want[i])
        .collect();
    let (first, last) = (*changed.first()?, *changed.last()?);
    let words_changed = (0..spot.expected.len())
        .filter(|&w| got[w * 4..w * 4 + 4] != want[w * 4..w * 4 + 4])
        .count();
    // The changed word nearest the buffer: the first one after it, the last one before it.
    let (index, byte) = match spot.side {
        Side::After => (first / 4, first as i64),
        Side::Before => (last / 4, -((got.len() - last) as i64)),
    };
    let word = match spot.side {
        Side::After => (spot.len_words + index) as i64,
        Side::Before => index as i64 - spot.expected.len() as i64,
    };
    let got_word = u32::from_le_bytes(got[index * 4..index * 4 + 4].try_into().ok()?);
    // The dispatch's lane whose words include `word`, if that lane exists.
    let local = word.div_euclid(spot.words_per_lane.max(1) as i64);
    let lane = u64::try_from(local)
        .ok()
        .filter(|&l| l < spot.lanes)
        .map(|l| spot.first_lane + l);
    Some(GuardViolation {
        buffer: spot.buffer.to_string(),
        side: spot.side,
        word,
        lane,
        nearest_offset: byte,
        words_changed,
        expected: spot.expected[index],
        got: got_word,
        lanes: spot.first_lane..spot.first_lane + spot.lanes,
    })
}

/// One device buffer with a guard on both sides.
pub struct GuardedBuffer {
    pub name: &'static str,
    base: DevicePtr,
    pub bytes: usize,
    words_per_lane: usize,
    before: Vec<u32>,
    after: Vec<u32>,
}

impl GuardedBuffer {
    /// Allocate `bytes` plus both guards and fill the guards; the buffer
    /// itself is left for the caller to fill.
    pub fn alloc(
        dev: &mut dyn Device,
        name: &'static str,
        bytes: usize,
        words_per_lane: usize,
        guard_seed: u64,
    ) -> Result<GuardedBuffer, DeviceError> {
        let base = dev.alloc(bytes + 2 * GUARD_BYTES)?;
        let buffer = GuardedBuffer {
            name,
            base,
            bytes,
            words_per_lane,
            before: guard_words(guard_seed, name, Side::Before),
            after: guard_words(guard_seed, name, Side::After),
        };
        if let Err(e) = buffer
            .fill(dev, Side::Before)
            .and_then(|()| buffer.fill(dev, Side::After))
        {
            let _ = dev.free(base);
            return Err(e);
        }
        Ok(buffer)
    }

    /// The address the kernel sees: just past the front guard.
    pub fn ptr(&self) -> DevicePtr {
        self.base + GUARD_BYTES as u64
    }

    pub fn write(&self, dev: &mut dyn Device, words: &[u32]) -> Result<(), DeviceError> {
        dev.write(self.ptr(), bytemuck::cast_slice(words))
    }

    pub fn read(&self, dev: &mut dyn Device, words: &mut [u32]) -> Result<(), DeviceError> {
        dev.read(self.ptr(), bytemuck::cast_slice_mut(words))
    }

    fn at(&self, side: Side) -> (DevicePtr, &[u32]) {
        match side {
            Side::Before => (self.base, &self.before),
            Side::After => (self.ptr() + self.bytes as u64, &self.after),
        }
    }

    fn fill(&self, dev: &mut dyn Device, side: Side) -> Result<(), DeviceError> {
        let (at, words) = self.at(side);
        dev.write(at, bytemuck::cast_slice(words))
    }

    /// Check both guards after a dispatch of `lanes` lanes whose first lane
    /// is `first_lane`; restore any that changed so later chunks are judged
    /// alone. The first violation per buffer side is kept.
    pub fn check(
        &self,
        dev: &mut dyn Device,
        first_lane: u64,
        lanes: u64,
        found: &mut Vec<GuardViolation>,
    ) -> Result<(), DeviceError> {
        let mut got = vec![0u8; GUARD_BYTES];
        for side in [Side::Before, Side::After] {
            let (at, expected) = self.at(side);
            dev.read(at, &mut got)?;
            let spot = GuardSpot {
                buffer: self.name,
                side,
                len_words: self.bytes / 4,
                words_per_lane: self.words_per_lane,
                first_lane,
                lanes,
                expected,
            };
            if let Some(v) = check_guard(&spot, &got) {
                if !found
                    .iter()
                    .any(|f| f.buffer == v.buffer && f.side == v.side)
                {
                    found.push(v);
                }
                self.fill(dev, side)?;
            }
        }
        Ok(())
    }

    /// A failed free leaves device memory to the runtime's teardown; the
    /// results already read are unaffected, but the failure is reported.
    pub fn free(self, dev: &mut dyn Device) -> Result<(), ReleaseError> {
        dev.free(self.base).map_err(|source| ReleaseError {
            what: "a device buffer",
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot<'a>(side: Side, expected: &'a [u32]) -> GuardSpot<'a> {
        GuardSpot {
            buffer: "out",
            side,
            len_words: 100,
            words_per_lane: 2,
            first_lane: 1000,
            lanes: 50,
            expected,
        }
    }

    #[test]
    fn guard_words_differ_per_buffer_side_word_and_seed() {
        let g = guard_words(guard_seed(1), "out", Side::After);
        assert_eq!(g.len(), GUARD_WORDS);
        assert_ne!(g, guard_words(guard_seed(1), "out", Side::Before));
        assert_ne!(g, guard_words(guard_seed(1), "a", Side::After));
        assert_ne!(g, guard_words(guard_seed(2), "out", Side::After));
        assert_eq!(
            g,
            guard_words(guard_seed(1), "out", Side::After),
            "a pure function of the seed"
        );
        let distinct: std::collections::HashSet<u32> = g.iter().copied().collect();
        assert!(
            distinct.len() > GUARD_WORDS - 4,
            "words are not one repeated value"
        );
    }

    /// The hole this module closes: a stray `v_xad_u32` of the input guards
    /// stored over the output's guard must change it.
    #[test]
    fn xad_of_the_input_guards_never_reproduces_the_output_guard() {
        for seed in 0..64 {
            let gs = guard_seed(seed);
            let [a, b, c, out] = ["a", "b", "c", "out"].map(|n| guard_words(gs, n, Side::After));
            let fixed = (0..GUARD_WORDS)
                .filter(|&i| (a[i] ^ b[i]).wrapping_add(c[i]) == out[i])
                .count();
            assert_eq!(fixed, 0, "seed {seed}");
        }
    }

    #[test]
    fn intact_guards_pass() {
        let g = guard_words(7, "out", Side::After);
        assert_eq!(
            check_guard(&spot(Side::After, &g), bytemuck::cast_slice(&g)),
            None
        );
    }

    #[test]
    fn a_write_after_the_end_names_word_lane_and_values() {
        let g = guard_words(7, "out", Side::After);
        let mut got: Vec<u8> = bytemuck::cast_slice(&g).to_vec();
        got[9] ^= 0x10; // byte 1 of guard word 2
        got[40] ^= 1;
        let v = check_guard(&spot(Side::After, &g), &got).unwrap();
        assert_eq!((v.word, v.nearest_offset, v.words_changed), (102, 9, 2));
        // Word 102 with 2 words per lane would be lane 51 of a 50-lane
        // dispatch: no such lane, so none is named.
        assert_eq!(v.lane, None);
        assert_eq!((v.expected, v.got), (g[2], g[2] ^ 0x1000));
        let text = v.to_string();
        assert!(
            text.contains("nearest word 102 of `out` (9 bytes past its end)")
                && text.contains("no lane addresses it (this dispatch's lanes 1000-1049")
                && !text.contains("lane 1051"),
            "{text}"
        );
    }

    /// A lane is named only when the dispatch has it: a buffer larger than
    /// the dispatch's lanes (buffers are reused by a shorter last chunk)
    /// does not make a lane past `count` appear.
    #[test]
    fn a_lane_is_named_only_when_the_dispatch_has_it() {
        let g = guard_words(7, "out", Side::After);
        let mut got: Vec<u8> = bytemuck::cast_slice(&g).to_vec();
        got[0] ^= 1;
        let wide = GuardSpot {
            lanes: 60,
            ..spot(Side::After, &g)
        };
        let v = check_guard(&wide, &got).unwrap();
        assert_eq!((v.word, v.lane), (100, Some(1050)));
        assert!(v.to_string().contains("; lane 1050 addresses it"), "{v}");
    }

    #[test]
    fn a_write_before_the_start_names_the_nearest_word() {
        let g = guard_words(7, "out", Side::Before);
        let mut got: Vec<u8> = bytemuck::cast_slice(&g).to_vec();
        let n = got.len();
        got[n - 4] ^= 0xff; // the word right before the buffer: word -1
        got[0] ^= 1;
        let v = check_guard(&spot(Side::Before, &g), &got).unwrap();
        assert_eq!((v.word, v.nearest_offset, v.words_changed), (-1, -4, 2));
        assert_eq!(v.lane, None, "no lane of the dispatch addresses word -1");
        assert_eq!(v.expected, g[GUARD_WORDS - 1]);
        let text = v.to_string();
        assert!(
            text.contains("nearest word -1 of `out` (4 bytes before its start)")
                && text.contains("no lane addresses it")
                && !text.contains("lane 999"),
            "{text}"
        );
    }
}
