//! `v_xad_u32` with VOP3 modifier fields set (NEG, ABS, CLAMP, OPSEL, OMOD),
//! which LLVM will not assemble: the project's basic kernel with its
//! `v_xad_u32 v5, v2, v3, v4` replaced by the raw `.long` words of the
//! modified form, assembled for a target and run on `EmuDevice::for_target`.
//! On RDNA4 (rows with `Feature::XadModifiersMeasured`) NEG/ABS are computed
//! as measured on gfx1200 and CLAMP is settled where the sum fits; every
//! other field, target and overflowing lane is unsettled, naming the field.

use crate::common;

use rand::{Rng, SeedableRng};
use std::time::Duration;
use xad_harness::isa::{decode_one_for, Op};
use xad_harness::model::cases::modifier_readings::{self, Field};
use xad_harness::platform::device::{Definedness, Device, Dispatch, Taint};
use xad_harness::platform::emu::modifiers as emu_modifiers;
use xad_harness::platform::emu::EmuDevice;
use xad_harness::platform::target;

/// `v_xad_u32 v5, v2, v3, v4` on gfx11 and gfx12 (VOP3 opcode 0x245), no field set.
const PLAIN: [u32; 2] = [0xd645_0005, 0x0412_0702];
const LANES: usize = 256;

const NEG0: Field = Field::Neg(0);
const NEG1: Field = Field::Neg(1);
const NEG2: Field = Field::Neg(2);
const ABS0: Field = Field::Abs(0);
const CLAMP: Field = Field::Clamp;
const OPSEL1: Field = Field::OpSel(1);
const OMOD1: Field = Field::Omod(1);

/// [`PLAIN`] with `fields` set where the probe family sets them
/// (`cases::modifier_readings::set`, whose bits `tests/llvm22/modifiers.rs` holds to
/// LLVM's encoding of the plain twin).
fn words(fields: &[Field]) -> [u32; 2] {
    let plain = u64::from(PLAIN[0]) | u64::from(PLAIN[1]) << 32;
    let w = fields
        .iter()
        .fold(plain, |w, &f| modifier_readings::set(w, f));
    [w as u32, (w >> 32) as u32]
}

/// The emulator names, for a field no reading is documented for, exactly
/// the candidate readings the CPU model holds for it (by name: the two
/// share no code), and the field as the model prints it.
#[test]
fn unsettled_origins_name_the_models_candidates_for_every_field() {
    let gfx1100 = target::find("gfx1100").unwrap();
    let gfx1201 = target::find("gfx1201").unwrap();
    for field in Field::ALL {
        let w = words(&[field]);
        let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
        let (inst, _) = decode_one_for(gfx1100.isa, &bytes).expect("decodes");
        let text = emu_modifiers::unsettled(&inst, Some(gfx1100))
            .and_then(|u| u.all)
            .unwrap_or_else(|| panic!("{field} unsettled on gfx1100"));
        assert!(text.contains(&format!("{field} ")), "{field}: {text}");
        let (_, listed) = text.split_once("candidates: ").expect("candidates");
        for reading in modifier_readings::readings(field) {
            assert!(
                listed.contains(reading.name),
                "{field}: {} missing: {text}",
                reading.name
            );
        }
        let named = listed.split(';').count();
        assert!(
            named >= modifier_readings::readings(field).len(),
            "{field}: {text}"
        );
        // On RDNA4 NEG and ABS are computed; CLAMP leaves overflowing lanes open.
        let (inst, _) = decode_one_for(gfx1201.isa, &bytes).expect("decodes");
        let rdna4 = emu_modifiers::unsettled(&inst, Some(gfx1201));
        match field {
            Field::Neg(_) | Field::Abs(_) => assert_eq!(rdna4, None, "{field}"),
            Field::Clamp => {
                let overflow = rdna4.and_then(|u| u.overflow).expect("overflow lanes");
                for reading in modifier_readings::readings(field) {
                    assert!(overflow.contains(reading.name), "{overflow}");
                }
            }
            _ => assert!(rdna4.and_then(|u| u.all).is_some(), "{field}"),
        }
    }
}

/// The basic kernel of `mcpu` (gfx11 or gfx12 text) with the instruction
/// under test replaced by `w`, assembled.
fn kernel(mcpu: &str, w: [u32; 2]) -> Vec<u8> {
    let isa = target::find(mcpu).expect("row").isa;
    // The raw words differ from LLVM's plain instruction only in the fields.
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (inst, _) = decode_one_for(isa, &bytes).expect("decodes");
    assert!(
        inst.op == Op::VXadU32 && inst.to_string().starts_with("v_xad_u32 v5, v2, v3, v4"),
        "{inst}"
    );
    let file = match mcpu {
        "gfx1200" | "gfx1201" => "xad_basic_gfx12.s",
        _ => "xad_basic_gfx11.s",
    };
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("kernels/include")
            .join(file),
    )
    .unwrap();
    let source: String = text
        .replace(
            ".include \"xad_target.inc\"\n",
            &xad_harness::platform::toolchain::target_include(mcpu),
        )
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("v_xad_u32 v5, v2, v3, v4") {
                format!("  .long 0x{:08x}, 0x{:08x}\n", w[0], w[1])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert!(source.contains(".long 0x"), "no v_xad_u32 line in {file}");
    let stem = format!("xad_mods_{mcpu}_{:08x}_{:08x}", w[0], w[1]);
    let dir = common::scratch(&format!("emu_modifiers_{stem}"));
    std::fs::read(common::assemble(&source, mcpu, &dir, &stem)).unwrap()
}

/// Inputs: lane 0 is the gfx1200 vector (0xDEADBEEF, 0x0000FFFF, 0x10),
/// then seeded words.
fn inputs(seed: u64) -> [Vec<u32>; 3] {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let first = [0xdead_beef, 0x0000_ffff, 0x10];
    std::array::from_fn(|k| {
        (0..LANES)
            .map(|i| if i == 0 { first[k] } else { rng.random() })
            .collect()
    })
}

/// Run `image` on an emulated `device` over `abc`: the output words and
/// what the launch left undefined or unsettled.
fn run(device: &str, image: &[u8], abc: &[Vec<u32>; 3]) -> (Vec<u32>, Definedness) {
    let mut dev = EmuDevice::for_target(target::find(device).expect("row"));
    let module = dev.load(image).expect("load");
    let bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let bufs: Vec<u64> = (0..4).map(|_| dev.alloc(LANES * 4).unwrap()).collect();
    for (p, v) in bufs.iter().zip(abc) {
        dev.write(*p, &bytes(v)).unwrap();
    }
    let mut kernarg: Vec<u8> = bufs.iter().flat_map(|p| p.to_le_bytes()).collect();
    kernarg.extend_from_slice(&(LANES as u32).to_le_bytes());
    kernarg.extend_from_slice(&[0; 4]);
    let dispatch = Dispatch {
        grid_blocks: [1, 1, 1],
        block: [256, 1, 1],
    };
    dev.launch(
        module,
        "xad_basic",
        &kernarg,
        dispatch,
        Duration::from_secs(60),
    )
    .expect("launch");
    let mut out = vec![0u8; LANES * 4];
    dev.read(bufs[3], &mut out).unwrap();
    let d = dev.definedness(bufs[3], LANES).unwrap();
    let out = out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (out, d)
}

/// Per source: ABS clears bit 31, then NEG flips it (the reading measured on
/// gfx1200), then (S0 ^ S1) + S2; written here apart from the emulator.
fn measured(abc: &[Vec<u32>; 3], i: usize, neg: u8, abs: u8) -> u32 {
    let src = |k: usize| {
        let mut x = abc[k][i];
        if abs >> k & 1 == 1 {
            x &= 0x7fff_ffff;
        }
        if neg >> k & 1 == 1 {
            x ^= 0x8000_0000;
        }
        x
    };
    (src(0) ^ src(1)).wrapping_add(src(2))
}

fn unsettled_words(d: &Definedness) -> Vec<usize> {
    assert!(d.waves.is_empty(), "{:?}", d.waves);
    assert!(
        d.words.iter().all(|w| w.taint == Taint::Unsettled),
        "{:?}",
        d.words.iter().find(|w| w.taint != Taint::Unsettled)
    );
    d.words.iter().map(|w| w.word).collect()
}

/// Every word unsettled, each origin's text holding all of `needles`.
fn all_unsettled(d: &Definedness, needles: &[&str]) {
    assert_eq!(unsettled_words(d), (0..LANES).collect::<Vec<_>>());
    for w in &d.words {
        let o = &d.origins[w.origin];
        assert!(
            needles.iter().all(|n| o.to_string().contains(n))
                && o.instruction.contains("v_xad_u32"),
            "{o}"
        );
    }
}

#[test]
fn rdna4_neg_and_abs_compute_the_reading_measured_on_gfx1200() {
    let abc = inputs(0x30_0004);
    for (fields, neg, abs) in [
        (vec![NEG0], 1, 0),
        (vec![NEG1], 2, 0),
        (vec![NEG2], 4, 0),
        (vec![ABS0], 0, 1),
        (vec![ABS0, NEG0], 1, 1),
    ] {
        let (out, d) = run("gfx1201", &kernel("gfx1201", words(&fields)), &abc);
        assert!(d.is_empty(), "{fields:?}: {d:?}");
        // The published vector itself: 0x5EAD4120, not the plain 0xDEAD4120.
        let want0 = if neg == 1 && abs == 1 {
            0xdead_4120
        } else {
            0x5ead_4120
        };
        assert_eq!(out[0], want0, "{fields:?}");
        for i in 0..LANES {
            assert_eq!(out[i], measured(&abc, i, neg, abs), "{fields:?} lane {i}");
        }
    }
    // gfx1200 itself, the part the vectors were captured on.
    let (out, d) = run("gfx1200", &kernel("gfx1200", words(&[NEG1])), &abc);
    assert!(d.is_empty() && out[0] == 0x5ead_4120, "{:x} {d:?}", out[0]);
}

#[test]
fn before_rdna4_neg_is_unsettled_in_every_lane_naming_the_field_and_target() {
    let abc = inputs(0x30_0005);
    let (_, d) = run("gfx1100", &kernel("gfx1100", words(&[NEG0])), &abc);
    all_unsettled(&d, &["NEG[0]", "gfx1100", "candidates", "neg:[1,0,0]"]);
    let (_, d) = run("gfx1151", &kernel("gfx1151", words(&[ABS0])), &abc);
    all_unsettled(&d, &["ABS[0]", "gfx1151", "absolute value"]);
}

/// Inputs whose (a ^ b) + c overflows in the odd lanes only.
fn overflowing_odd_lanes() -> [Vec<u32>; 3] {
    let a = (0..LANES as u32).map(|i| 0xf000_0000 | i).collect();
    let b = vec![0u32; LANES];
    let c = (0..LANES as u32)
        .map(|i| {
            if i % 2 == 1 {
                0x1000_0000 + i
            } else {
                0x0fff_0000
            }
        })
        .collect();
    [a, b, c]
}

#[test]
fn rdna4_clamp_is_settled_where_the_sum_fits_and_unsettled_on_exactly_the_overflowing_lanes() {
    let abc = overflowing_odd_lanes();
    let (out, d) = run("gfx1201", &kernel("gfx1201", words(&[CLAMP])), &abc);
    let odd: Vec<usize> = (1..LANES).step_by(2).collect();
    assert_eq!(unsettled_words(&d), odd);
    for w in &d.words {
        let o = &d.origins[w.origin];
        assert!(
            o.what.contains("CLAMP") && o.what.contains("overflows"),
            "{o}"
        );
    }
    for i in (0..LANES).step_by(2) {
        assert_eq!(out[i], measured(&abc, i, 0, 0), "lane {i}");
    }
    // Seeded inputs: the tainted lanes are exactly those that overflow.
    let abc = inputs(0x30_0006);
    let (_, d) = run("gfx1201", &kernel("gfx1201", words(&[CLAMP])), &abc);
    let over: Vec<usize> = (0..LANES)
        .filter(|&i| (abc[0][i] ^ abc[1][i]).checked_add(abc[2][i]).is_none())
        .collect();
    assert!(!over.is_empty() && over.len() < LANES);
    assert_eq!(unsettled_words(&d), over);
    // CLAMP before RDNA4: every lane, overflowing or not.
    let (_, d) = run("gfx1100", &kernel("gfx1100", words(&[CLAMP])), &abc);
    all_unsettled(&d, &["CLAMP", "gfx1100", "saturation"]);
}

#[test]
fn op_sel_and_omod_are_unsettled_everywhere() {
    let abc = inputs(0x30_0007);
    for mcpu in ["gfx1201", "gfx1100"] {
        let (_, d) = run(mcpu, &kernel(mcpu, words(&[OPSEL1])), &abc);
        all_unsettled(&d, &["OPSEL[1]", mcpu, "high half", "op_sel:[0,1,0,0]"]);
        let (_, d) = run(mcpu, &kernel(mcpu, words(&[OMOD1])), &abc);
        all_unsettled(&d, &["OMOD=1", mcpu, "mul:2"]);
    }
    // NEG computed on RDNA4 does not settle an OPSEL beside it.
    let (_, d) = run("gfx1201", &kernel("gfx1201", words(&[NEG0, OPSEL1])), &abc);
    all_unsettled(&d, &["OPSEL[1]"]);
}
