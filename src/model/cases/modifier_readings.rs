//! The bits the ISA leaves open on `v_xad_u32` (issue 30): the VOP3 modifier
//! fields, where each sits in the instruction word, and the candidate readings
//! of each as data.
//!
//! Every generation with VOP3 (gfx9, gfx10, gfx11, gfx12) places the fields at
//! the same bits of the 64-bit instruction (word0 in the low half, word1 in the
//! high half, as the words lie in memory read little-endian):
//!
//! | field | bits of the u64 | word bits |
//! |---|---|---|
//! | ABS (one per source) | 10:8 | word0 10:8 |
//! | OPSEL (src0, src1, src2, dst) | 14:11 | word0 14:11 |
//! | CLAMP | 15 | word0 15 |
//! | OMOD (value 1-3) | 60:59 | word1 28:27 |
//! | NEG (one per source) | 63:61 | word1 31:29 |
//!
//! What silicon does with them on this integer op is written nowhere. The one
//! published evidence: a public RDNA4 simulator keeps integer vectors it says
//! were captured on a gfx1200 part, where `(0xDEADBEEF, 0x0000FFFF, 0x10)` with
//! NEG on any source, or ABS on src0, gives `0x5EAD4120` instead of
//! `0xDEAD4120` (bit 31 of the source flipped or cleared, ABS before NEG);
//! across its integer vectors CLAMP saturates unsigned add/sub and OMOD changed
//! nothing. Every other reading below is a conjecture, and its note says why
//! someone would consider it. Nothing here is a hardware result.
//!
//! Each [`Reading`] computes the whole `v_xad_u32` result under that reading in
//! one line; [`INPUTS`] are chosen so that the readings of every field in
//! [`Field::ALL`] and every pair in [`PAIRS`] give pairwise different results on
//! at least one input ([`distinguishing`]).

use std::fmt;

/// One modifier field set on its own (a single-field probe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// NEG of source 0-2.
    Neg(u8),
    /// ABS of source 0-2.
    Abs(u8),
    Clamp,
    /// OPSEL bit 0-3: src0, src1, src2, dst.
    OpSel(u8),
    /// OMOD value 1-3 (0 is the plain word).
    Omod(u8),
}

/// Two fields set together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pair(pub Field, pub Field);

/// The pairs probed besides the single fields: NEG and ABS on each source
/// (which of the two applies first). CLAMP is probed with overflowing
/// [`INPUTS`], not as a pair.
pub const PAIRS: [Pair; 3] = [
    Pair(Field::Neg(0), Field::Abs(0)),
    Pair(Field::Neg(1), Field::Abs(1)),
    Pair(Field::Neg(2), Field::Abs(2)),
];

impl Field {
    /// Every single-field probe: 3 NEG, 3 ABS, CLAMP, 4 OPSEL, 3 OMOD.
    pub const ALL: [Field; 14] = [
        Field::Neg(0),
        Field::Neg(1),
        Field::Neg(2),
        Field::Abs(0),
        Field::Abs(1),
        Field::Abs(2),
        Field::Clamp,
        Field::OpSel(0),
        Field::OpSel(1),
        Field::OpSel(2),
        Field::OpSel(3),
        Field::Omod(1),
        Field::Omod(2),
        Field::Omod(3),
    ];

    /// The argument a [`Reading::apply`] receives: the source index (NEG,
    /// ABS), the OPSEL bit, the OMOD value; 0 for CLAMP.
    pub fn arg(self) -> u8 {
        match self {
            Field::Neg(i) | Field::Abs(i) | Field::OpSel(i) | Field::Omod(i) => i,
            Field::Clamp => 0,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Neg(i) => write!(f, "NEG[{i}]"),
            Field::Abs(i) => write!(f, "ABS[{i}]"),
            Field::Clamp => write!(f, "CLAMP"),
            Field::OpSel(i) => write!(f, "OPSEL[{i}]"),
            Field::Omod(v) => write!(f, "OMOD={v}"),
        }
    }
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.0, self.1)
    }
}

const OMOD_SHIFT: u32 = 59;

/// The bits of the VOP3 instruction (little-endian u64: word0 low, word1
/// high) that `field` owns. The three OMOD values share one 2-bit field.
///
/// # Panics
/// On an argument out of range (source > 2, OPSEL bit > 3, OMOD not 1-3).
pub fn mask(field: Field) -> u64 {
    match field {
        Field::Neg(i) if i < 3 => 1 << (61 + u32::from(i)),
        Field::Abs(i) if i < 3 => 1 << (8 + u32::from(i)),
        Field::Clamp => 1 << 15,
        Field::OpSel(b) if b < 4 => 1 << (11 + u32::from(b)),
        Field::Omod(v) if (1..=3).contains(&v) => 3 << OMOD_SHIFT,
        _ => panic!("modifier field out of range: {field:?}"),
    }
}

/// `word` (a VOP3 instruction as a little-endian u64) with `field` set: its
/// bit set, or for OMOD its 2-bit field holding the value.
pub fn set(word: u64, field: Field) -> u64 {
    match field {
        Field::Omod(v) => (word & !mask(field)) | (u64::from(v) << OMOD_SHIFT),
        _ => word | mask(field),
    }
}

impl Pair {
    /// The bits both fields own.
    pub fn mask(self) -> u64 {
        mask(self.0) | mask(self.1)
    }

    /// `word` with both fields set.
    pub fn set(self, word: u64) -> u64 {
        set(set(word, self.0), self.1)
    }
}

/// One candidate reading of a field: what `v_xad_u32` computes if the field
/// means this.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    pub name: &'static str,
    /// Where the idea comes from, and how much evidence it has.
    pub note: &'static str,
    /// The whole result for the field's argument ([`Field::arg`]) and the
    /// sources (src0, src1, src2).
    pub apply: fn(u8, [u32; 3]) -> u32,
}

impl Reading {
    /// The result under this reading of `field` (or of a pair: its source).
    pub fn eval(&self, arg: u8, s: [u32; 3]) -> u32 {
        (self.apply)(arg, s)
    }
}

/// `v_xad_u32` as the ISA says: (S0 ^ S1) + S2, modulo 2^32.
pub fn xad(s: [u32; 3]) -> u32 {
    (s[0] ^ s[1]).wrapping_add(s[2])
}

/// The sources with source `i` replaced by `f` of itself.
fn with(mut s: [u32; 3], i: u8, f: fn(u32) -> u32) -> [u32; 3] {
    s[usize::from(i)] = f(s[usize::from(i)]);
    s
}

const SIGN: u32 = 1 << 31;

/// The result's bits read as an f32, times `k`, back to bits.
fn f32_times(r: u32, k: f32) -> u32 {
    (f32::from_bits(r) * k).to_bits()
}

const IGNORED: Reading = Reading {
    name: "ignored",
    note: "the field does nothing: gem5's Vega model ignores CLAMP and asserts ABS/NEG are zero; \
           Mesa ACO lists no modifiers for v_xad_u32; OMOD changed nothing in the gfx1200 vectors",
    apply: |_, s| xad(s),
};

static NEG: [Reading; 4] = [
    IGNORED,
    Reading {
        name: "sign bit flipped",
        note: "float-style NEG on the raw source: bit 31 flipped. Published gfx1200 vectors: \
               (0xDEADBEEF, 0x0000FFFF, 0x10) with NEG on src0, src1 or src2 gives 0x5EAD4120",
        apply: |i, s| xad(with(s, i, |x| x ^ SIGN)),
    },
    Reading {
        name: "two's-complement negated",
        note: "conjecture: an integer op's NEG as integer negation (0 - x), as VOP3P integer ops \
               would be read by someone who thinks of NEG as arithmetic",
        apply: |i, s| xad(with(s, i, u32::wrapping_neg)),
    },
    Reading {
        name: "bitwise not",
        note: "conjecture: NEG as ones' complement (!x), the cheapest inversion in an adder's \
               input path (x - y built as x + !y + 1 without the +1)",
        apply: |i, s| xad(with(s, i, |x| !x)),
    },
];

static ABS: [Reading; 3] = [
    IGNORED,
    Reading {
        name: "sign bit cleared",
        note: "float-style ABS on the raw source: bit 31 cleared. Published gfx1200 vectors: \
               (0xDEADBEEF, 0x0000FFFF, 0x10) with ABS on src0 gives 0x5EAD4120",
        apply: |i, s| xad(with(s, i, |x| x & !SIGN)),
    },
    Reading {
        name: "integer absolute value",
        note: "conjecture: ABS as the signed integer |x| (0x80000000 stays), what the name means \
               for an i32",
        apply: |i, s| xad(with(s, i, |x| (x as i32).wrapping_abs() as u32)),
    },
];

static CLAMP: [Reading; 4] = [
    IGNORED,
    Reading {
        name: "unsigned saturation of the add",
        note: "as the gfx1200 vectors show CLAMP on unsigned add/sub (v_subrev_nc_u32 clamp \
               saturates to 0): a carry out of the add gives 0xFFFFFFFF. No published \
               v_xad_u32 vector overflows with CLAMP set",
        apply: |_, s| (s[0] ^ s[1]).saturating_add(s[2]),
    },
    Reading {
        name: "signed saturation of the add",
        note: "conjecture: CLAMP on signed integer ops (v_add_nc_i32) saturates to \
               [0x80000000, 0x7FFFFFFF]; a unit sharing that path would do it here",
        apply: |_, s| ((s[0] ^ s[1]) as i32).saturating_add(s[2] as i32) as u32,
    },
    Reading {
        name: "float clamp to [0.0, 1.0]",
        note: "conjecture: CLAMP's meaning on float ops, applied to the result's bits read as an \
               f32 (NaN and negatives to 0.0, above 1.0 to 1.0)",
        apply: |_, s| f32::from_bits(xad(s)).max(0.0).min(1.0).to_bits(),
    },
];

static OPSEL_SRC: [Reading; 3] = [
    IGNORED,
    Reading {
        name: "high half of the source",
        note: "conjecture: OPSEL's meaning on 16-bit operands (the bit picks bits 31:16), read \
               here as the source becoming its high half zero-extended (src >> 16)",
        apply: |i, s| xad(with(s, i, |x| x >> 16)),
    },
    Reading {
        name: "halves of the source swapped",
        note: "conjecture: a 32-bit source routed through the 16-bit half-select mux, the high \
               half landing in bits 15:0 and the low half carried into 31:16",
        apply: |i, s| xad(with(s, i, |x| x.rotate_left(16))),
    },
];

static OPSEL_DST: [Reading; 3] = [
    IGNORED,
    Reading {
        name: "high-half write",
        note: "conjecture: OPSEL[3]'s meaning on 16-bit results (write bits 31:16, keep 15:0): \
               the result's low 16 bits shifted into 31:16. A 32-bit write has no kept half; the \
               probe must zero the destination first so a kept low half reads as 0 and this \
               reading is result << 16",
        apply: |_, s| xad(s) << 16,
    },
    Reading {
        name: "result halves swapped",
        note: "conjecture: the full 32-bit result routed through the high-half write mux, its \
               low half landing in 31:16 and its high half in 15:0",
        apply: |_, s| xad(s).rotate_left(16),
    },
];

static OMOD: [Reading; 3] = [
    IGNORED,
    Reading {
        name: "float multiply",
        note: "conjecture: OMOD's meaning on float ops (1: *2, 2: *4, 3: *0.5) applied to the \
               result's bits read as an f32. The gfx1200 vectors show OMOD changing nothing on \
               the integer ops they cover. Denormals are kept here (host f32 arithmetic); a unit that \
               flushes them would differ on the denormal results of INPUTS[2] and INPUTS[3]",
        apply: |v, s| f32_times(xad(s), [1.0, 2.0, 4.0, 0.5][usize::from(v & 3)]),
    },
    Reading {
        name: "integer shift",
        note: "conjecture: OMOD's scale done on the integer result (1: << 1, 2: << 2, 3: >> 1)",
        apply: |v, s| [xad(s), xad(s) << 1, xad(s) << 2, xad(s) >> 1][usize::from(v & 3)],
    },
];

static NEG_ABS: [Reading; 7] = [
    IGNORED,
    Reading {
        name: "sign bit set",
        note: "float-style -|x|: ABS clears bit 31, then NEG flips it, the order the published \
               gfx1200 vectors show for NEG and ABS on integer ops",
        apply: |i, s| xad(with(s, i, |x| x | SIGN)),
    },
    Reading {
        name: "sign bit cleared",
        note: "float-style |-x| (NEG first, then ABS), or NEG ignored with ABS float-style",
        apply: |i, s| xad(with(s, i, |x| x & !SIGN)),
    },
    Reading {
        name: "sign bit flipped",
        note: "ABS ignored, NEG float-style (bit 31 flipped)",
        apply: |i, s| xad(with(s, i, |x| x ^ SIGN)),
    },
    Reading {
        name: "integer -|x|",
        note: "conjecture: both as integer arithmetic, ABS first: 0 - |x|",
        apply: |i, s| {
            xad(with(s, i, |x| {
                (x as i32).wrapping_abs().wrapping_neg() as u32
            }))
        },
    },
    Reading {
        name: "integer |x|",
        note: "conjecture: both as integer arithmetic with NEG first (|-x|), or NEG ignored",
        apply: |i, s| xad(with(s, i, |x| (x as i32).wrapping_abs() as u32)),
    },
    Reading {
        name: "two's-complement negated",
        note: "conjecture: ABS ignored, NEG as integer negation",
        apply: |i, s| xad(with(s, i, u32::wrapping_neg)),
    },
];

/// The candidate readings of `field`, "ignored" first.
pub fn readings(field: Field) -> &'static [Reading] {
    match field {
        Field::Neg(_) => &NEG,
        Field::Abs(_) => &ABS,
        Field::Clamp => &CLAMP,
        Field::OpSel(3) => &OPSEL_DST,
        Field::OpSel(_) => &OPSEL_SRC,
        Field::Omod(_) => &OMOD,
    }
}

/// The candidate readings of a pair ([`PAIRS`]: NEG and ABS on one source;
/// `apply`'s argument is that source), "ignored" first.
pub fn pair_readings(_pair: Pair) -> &'static [Reading] {
    &NEG_ABS
}

/// Probe inputs (src0, src1, src2). Each source is seen with bit 31 set and
/// clear and with differing halves; sums overflow unsigned only, signed only,
/// both and neither; the results include normal f32 values above 1.0, between
/// 0.0 and 1.0, and negative. The first is the published gfx1200 vector.
pub const INPUTS: [[u32; 3]; 6] = [
    // The gfx1200 vector: 0xDEAD4120, no overflow; src0 negative.
    [0xDEAD_BEEF, 0x0000_FFFF, 0x0000_0010],
    // src1 and src2 negative: unsigned and signed overflow.
    [0x1234_5678, 0x9ABC_DEF0, 0x8765_4321],
    // signed overflow only (0x7FFFFFF0 + 0x20).
    [0x7FFF_0000, 0x0000_FFF0, 0x0000_0020],
    // unsigned overflow only (0xFFFFFF00 + 0x200); src0 negative.
    [0xFFFF_0000, 0x0000_FF00, 0x0000_0200],
    // a result that is an f32 in (0, 1): 0x3E800123; no overflow.
    [0x3F80_0000, 0x0100_0000, 0x0000_0123],
    // a result that is an f32 above 1.0 (0x40490FDB); src2 negative, src0/1 positive.
    [0x4049_0FDB, 0x0000_0000, 0x8000_0000],
];

/// Whether every two readings of `readings` differ on at least one of
/// `inputs` (for argument `arg`).
fn pairwise_distinct(readings: &[Reading], arg: u8, inputs: &[[u32; 3]]) -> bool {
    readings.iter().enumerate().all(|(i, r)| {
        readings[i + 1..]
            .iter()
            .all(|q| inputs.iter().any(|&s| r.eval(arg, s) != q.eval(arg, s)))
    })
}

/// Whether [`INPUTS`] tell every two readings of `field` apart.
pub fn distinguishing(field: Field) -> bool {
    pairwise_distinct(readings(field), field.arg(), &INPUTS)
}

/// Whether [`INPUTS`] tell every two readings of `pair` apart.
pub fn distinguishing_pair(pair: Pair) -> bool {
    pairwise_distinct(pair_readings(pair), pair.0.arg(), &INPUTS)
}

/// The names of the readings of `field` that give `got` for sources `s`.
pub fn matching(field: Field, s: [u32; 3], got: u32) -> Vec<&'static str> {
    readings(field)
        .iter()
        .filter(|r| r.eval(field.arg(), s) == got)
        .map(|r| r.name)
        .collect()
}

/// What one probe word of the kernel sets: one field, or a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Probe {
    Field(Field),
    Pair(Pair),
}

impl Probe {
    /// The candidate readings, "ignored" first.
    pub fn readings(self) -> &'static [Reading] {
        match self {
            Probe::Field(f) => readings(f),
            Probe::Pair(p) => pair_readings(p),
        }
    }

    /// The argument its readings take ([`Field::arg`]; a pair's source).
    pub fn arg(self) -> u8 {
        match self {
            Probe::Field(f) => f.arg(),
            Probe::Pair(p) => p.0.arg(),
        }
    }

    /// The bits of the VOP3 word it sets.
    pub fn mask(self) -> u64 {
        match self {
            Probe::Field(f) => mask(f),
            Probe::Pair(p) => p.mask(),
        }
    }

    /// `word` with the probe's field(s) set.
    pub fn set(self, word: u64) -> u64 {
        match self {
            Probe::Field(f) => set(word, f),
            Probe::Pair(p) => p.set(word),
        }
    }
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Probe::Field(x) => x.fmt(f),
            Probe::Pair(p) => p.fmt(f),
        }
    }
}

/// The probe kernels' words 1-17, in order (word 0 is the plain
/// instruction): every field of [`Field::ALL`], then every pair of
/// [`PAIRS`]. kernels/include/xad_modifiers.inc encodes them in this order.
pub const PROBES: [Probe; 17] = {
    let mut all = [Probe::Field(Field::Clamp); 17];
    let mut i = 0;
    while i < Field::ALL.len() {
        all[i] = Probe::Field(Field::ALL[i]);
        i += 1;
    }
    let mut j = 0;
    while j < PAIRS.len() {
        all[Field::ALL.len() + j] = Probe::Pair(PAIRS[j]);
        j += 1;
    }
    all
};

/// The reading the CPU model expects for `probe`: where one is documented
/// (gfx1200's, the module's head: NEG flips and ABS clears bit 31, ABS
/// first; CLAMP saturates unsigned add), that one; "ignored" elsewhere,
/// a placeholder that is never compared (the emulator marks those words
/// unsettled; hardware's are classified, not compared).
pub fn expected_reading(probe: Probe) -> &'static Reading {
    let name = match probe {
        Probe::Field(Field::Neg(_)) => "sign bit flipped",
        Probe::Field(Field::Abs(_)) => "sign bit cleared",
        Probe::Field(Field::Clamp) => "unsigned saturation of the add",
        Probe::Field(_) => IGNORED.name,
        Probe::Pair(_) => "sign bit set",
    };
    probe
        .readings()
        .iter()
        .find(|r| r.name == name)
        .expect("every expected reading is one of the probe's candidates")
}

/// Output words per lane of the probe kernels: the plain word and [`PROBES`].
pub const WORDS: usize = 1 + PROBES.len();

/// The probe cases' sources: lane `i` reads [`INPUTS`]`[(i + seed) % 6]`, so
/// every wave sees every input, at lane positions the seed moves. Fixed
/// vectors rather than random words: a reading is told apart only on inputs
/// chosen for it, and a lane that disagrees with the others on the same
/// vector is the finding's failure signal.
pub static PROBE_INPUTS: super::Inputs = super::Inputs {
    words: [1, 1, 1],
    fill: fill_probe_inputs,
};

fn fill_probe_inputs(seed: u64, first_lane: u64, a: &mut [u32], b: &mut [u32], c: &mut [u32]) {
    let n = INPUTS.len() as u64;
    for (i, ((a, b), c)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate() {
        let lane = first_lane + i as u64;
        let [x, y, z] = INPUTS[((lane % n + seed % n) % n) as usize];
        (*a, *b, *c) = (x, y, z);
    }
}

/// The probe kernels' model: word 0 `v_xad_u32` as the ISA says, word
/// `j + 1` [`expected_reading`] of `PROBES[j]`.
fn model(data: &super::LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
    for (lane, words) in lanes.zip(out.chunks_exact_mut(WORDS)) {
        let s = [data.a[lane], data.b[lane], data.c[lane]];
        words[0] = xad(s);
        for (w, p) in words[1..].iter_mut().zip(PROBES) {
            *w = expected_reading(p).eval(p.arg(), s);
        }
    }
}

const UNSETTLED: &str = "what NEG, ABS, CLAMP, OPSEL and OMOD do on v_xad_u32 is written nowhere; \
    only gfx1200's NEG and ABS (and CLAMP where nothing overflows) were captured on a part \
    (docs/cases.md): the other probe words are unsettled on the emulator, and classified into \
    findings on hardware";

const fn probe_case(name: &'static str, kernel: &'static str, wave: u32) -> super::Case {
    use crate::platform::target::Feature;
    super::Case {
        name,
        description: if wave == 32 {
            "v_xad_u32 with each VOP3 modifier field (NEG, ABS, CLAMP, OPSEL, OMOD) and NEG+ABS \
             pairs set as raw words, one at a time; word 0 the plain instruction; wave32"
        } else {
            "v_xad_u32 with each VOP3 modifier field (NEG, ABS, CLAMP, OPSEL, OMOD) and NEG+ABS \
             pairs set as raw words, one at a time; word 0 the plain instruction; wave64"
        },
        kernel,
        wave_size: wave,
        outputs_per_lane: WORDS,
        scalar_args: 0,
        keeps_lanes: false,
        inputs: &PROBE_INPUTS,
        model,
        unsettled: Some(UNSETTLED),
        requires: if wave == 32 {
            &[Feature::Wave32]
        } else {
            &[Feature::Wave64]
        },
        probes: &PROBES,
    }
}

/// The probe cases: `modifiers_w32` (gfx10+) and `modifiers_w64` (every
/// target with wave64; gfx9's only form).
pub static CASES: &[super::Case] = &[
    probe_case("modifiers_w32", "xad_modifiers_w32", 32),
    probe_case("modifiers_w64", "xad_modifiers_w64", 64),
];

#[cfg(test)]
mod tests {
    use super::*;

    const PUBLISHED: [u32; 3] = [0xDEAD_BEEF, 0x0000_FFFF, 0x10];

    fn reading(field: Field, name: &str) -> Reading {
        *readings(field).iter().find(|r| r.name == name).unwrap()
    }

    #[test]
    fn the_published_gfx1200_vector_under_its_readings() {
        assert_eq!(xad(PUBLISHED), 0xDEAD_4120);
        for i in 0..3 {
            let f = Field::Neg(i);
            assert_eq!(
                reading(f, "sign bit flipped").eval(i, PUBLISHED),
                0x5EAD_4120,
                "{f}"
            );
            assert_eq!(reading(f, "ignored").eval(i, PUBLISHED), 0xDEAD_4120, "{f}");
            assert_eq!(
                matching(f, PUBLISHED, 0x5EAD_4120),
                ["sign bit flipped"],
                "{f}"
            );
        }
        let f = Field::Abs(0);
        assert_eq!(
            reading(f, "sign bit cleared").eval(0, PUBLISHED),
            0x5EAD_4120
        );
        assert_eq!(reading(f, "ignored").eval(0, PUBLISHED), 0xDEAD_4120);
        assert_eq!(matching(f, PUBLISHED, 0x5EAD_4120), ["sign bit cleared"]);
        // ABS before NEG: -|0xDEADBEEF| float-style sets bit 31, giving the plain result.
        let pair = pair_readings(PAIRS[0]);
        let set = pair.iter().find(|r| r.name == "sign bit set").unwrap();
        assert_eq!(set.eval(0, PUBLISHED), 0xDEAD_4120);
    }

    #[test]
    fn every_fields_readings_are_told_apart_by_the_inputs() {
        for f in Field::ALL {
            assert!(readings(f).len() >= 3, "{f}");
            assert_eq!(readings(f)[0].name, "ignored", "{f}");
            assert!(distinguishing(f), "{f}: two readings agree on every input");
        }
        for p in PAIRS {
            assert!(
                distinguishing_pair(p),
                "{p}: two readings agree on every input"
            );
        }
    }

    #[test]
    fn the_distinctness_check_can_fail() {
        // The signed-overflow input alone: the unsigned saturation equals the plain
        // wrapping sum there, so CLAMP's readings are not all told apart.
        let only = [[0x7FFF_0000, 0x0000_FFF0, 0x20]];
        assert!(!pairwise_distinct(readings(Field::Clamp), 0, &only));
        assert!(!pairwise_distinct(&[IGNORED, IGNORED], 0, &INPUTS));
        assert!(pairwise_distinct(readings(Field::Clamp), 0, &INPUTS));
    }

    #[test]
    fn inputs_cover_signs_overflows_and_the_published_vector() {
        assert_eq!(INPUTS[0], PUBLISHED);
        for i in 0..3 {
            assert!(
                INPUTS.iter().any(|s| s[i] & SIGN != 0),
                "src{i} never negative"
            );
            assert!(
                INPUTS.iter().any(|s| s[i] & SIGN == 0),
                "src{i} never positive"
            );
        }
        let unsigned = |s: &[u32; 3]| (s[0] ^ s[1]).checked_add(s[2]).is_none();
        let signed = |s: &[u32; 3]| ((s[0] ^ s[1]) as i32).checked_add(s[2] as i32).is_none();
        for (u, sg) in [(true, true), (true, false), (false, true), (false, false)] {
            assert!(
                INPUTS.iter().any(|s| unsigned(s) == u && signed(s) == sg),
                "{u} {sg}"
            );
        }
    }

    #[test]
    fn set_changes_only_the_fields_bits_and_masks_do_not_overlap() {
        let plain = 0x0412_0702_D645_0001u64; // gfx11 `v_xad_u32 v1, v2, v3, v4`
        for f in Field::ALL {
            let d = set(plain, f) ^ plain;
            assert_ne!(d, 0, "{f}");
            assert_eq!(d & !mask(f), 0, "{f}");
            assert_eq!(set(set(plain, f), f), set(plain, f), "{f}");
            for g in Field::ALL.into_iter().filter(|&g| g != f) {
                let both_omod = matches!((f, g), (Field::Omod(_), Field::Omod(_)));
                assert_eq!(mask(f) & mask(g) != 0, both_omod, "{f} {g}");
            }
        }
        let all = Field::ALL.iter().fold(0, |m, &f| m | mask(f));
        assert_eq!(all, 0xF800_0000_0000_FF00);
        assert_eq!(set(0, Field::Neg(0)), 1 << 61);
        assert_eq!(set(0, Field::Abs(2)), 1 << 10);
        assert_eq!(set(0, Field::Clamp), 1 << 15);
        assert_eq!(set(0, Field::OpSel(3)), 1 << 14);
        assert_eq!(set(0, Field::Omod(2)) >> 32, 2 << 27);
        assert_eq!(set(set(0, Field::Omod(3)), Field::Omod(1)) >> 32, 1 << 27);
        for p in PAIRS {
            assert_eq!((p.set(plain) ^ plain) & !p.mask(), 0, "{p}");
            assert_eq!(p.set(plain) ^ plain, p.mask(), "{p}");
        }
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn an_out_of_range_field_is_refused() {
        mask(Field::Neg(3));
    }

    #[test]
    fn display_names_the_field() {
        let names: Vec<String> = Field::ALL.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            names,
            [
                "NEG[0]", "NEG[1]", "NEG[2]", "ABS[0]", "ABS[1]", "ABS[2]", "CLAMP", "OPSEL[0]",
                "OPSEL[1]", "OPSEL[2]", "OPSEL[3]", "OMOD=1", "OMOD=2", "OMOD=3"
            ]
        );
        assert_eq!(PAIRS[1].to_string(), "NEG[1]+ABS[1]");
    }
}
