//! The sha256 workload cases in this process: every target's code objects hold 224 `v_xad_u32`
//! a block and the SHA instructions, and a model that skips the second block is caught. Running
//! them, the FIPS digests and the dump's replay through the binary are the `cli` crate's `sha256`.

use std::time::Duration;
use xad_harness::model::cases::{self, sha256, Case, LaneData};
use xad_harness::pipeline::run::{run_case, KernelSource, Options, Status};
use xad_harness::platform::codeobj::CodeObject;
use xad_harness::platform::emu::EmuDevice;

fn case(name: &str) -> Case {
    cases::select(name).expect("a SHA-256 case").remove(0)
}

/// The embedded code object of `case` for `target`, parsed.
fn code_object(target: &str, case: &Case) -> CodeObject {
    let embedded = xad_harness::platform::embedded::find(target, case.kernel)
        .unwrap_or_else(|| panic!("{} not embedded for {target}", case.kernel));
    // A Vec, so the ELF parser gets an allocator-aligned buffer.
    #[allow(clippy::unnecessary_to_owned)]
    CodeObject::parse(&embedded.bytes.to_vec()).expect("embedded code object parses")
}

/// Mnemonics of the kernel `name` in `code` up to its `s_endpgm`, decoded
/// with the project's decoder.
fn mnemonics(code: &CodeObject, name: &str) -> Vec<String> {
    let kernel = code.kernel(name).expect("kernel");
    let insts = xad_harness::pipeline::run::kernel_instructions(code, kernel);
    let end = insts
        .iter()
        .position(|i| i.mnemonic() == "s_endpgm")
        .map_or(insts.len(), |i| i + 1);
    insts[..end]
        .iter()
        .map(|i| i.mnemonic().to_string())
        .collect()
}

/// How many (target, wave size) pairs there are: one SHA-256 case each.
fn wave_sizes() -> usize {
    use xad_harness::platform::target::{Feature, TARGETS};
    TARGETS
        .iter()
        .map(|t| usize::from(t.has(Feature::Wave32)) + usize::from(t.has(Feature::Wave64)))
        .sum()
}

#[test]
fn every_target_has_224_v_xad_u32_a_block_and_the_sha_instructions() {
    let mut checked = 0;
    for t in xad_harness::platform::target::TARGETS {
        for case in cases::catalogue_for(t)
            .into_iter()
            .filter(|c| c.name.starts_with("sha256"))
        {
            let code = code_object(t.name, &case);
            let m = mnemonics(&code, case.kernel);
            let count = |prefix: &str| m.iter().filter(|n| n.starts_with(prefix)).count();
            assert_eq!(
                count("v_xad_u32"),
                sha256::MAX_BLOCKS * sha256::XAD_PER_BLOCK,
                "{} on {}",
                case.name,
                t.name
            );
            // 6 rotates a round, 4 a schedule step; Ch and Maj; one add3 a round.
            let blocks = sha256::MAX_BLOCKS;
            assert_eq!(
                count("v_alignbit_b32"),
                blocks * (64 * 6 + 48 * 4),
                "{}",
                t.name
            );
            assert_eq!(count("v_bfi_b32"), blocks * 64 * 2, "{}", t.name);
            assert_eq!(count("v_add3_u32"), blocks * 64, "{}", t.name);
            assert_eq!(m.last().map(String::as_str), Some("s_endpgm"), "{}", t.name);
            checked += 1;
        }
    }
    // One kernel per wave size a target has: sha256_w64 on all but CDNA5
    // (wave32 only), sha256_w32 on all but gfx9 (wave64 only).
    assert_eq!(checked, wave_sizes());
}

/// A model that hashes only the first block fails on the two-block lanes,
/// and only there: the comparison sees the second block.
#[test]
fn a_model_that_skips_the_second_block_is_caught() {
    fn first_block_only(data: &LaneData<'_>, lanes: std::ops::Range<usize>, out: &mut [u32]) {
        for (lane, out) in lanes.zip(out.chunks_exact_mut(8)) {
            let state: [u32; 8] = data.b[lane * 8..][..8].try_into().unwrap();
            let words = &data.a[lane * sha256::MESSAGE_WORDS..][..16];
            out.copy_from_slice(&sha256::compress(state, words));
        }
    }
    const SEED: u64 = 0x2b10c;
    const LANES: u64 = 1000;
    let real = case("sha256_w32");
    let wrong = Case {
        model: first_block_only,
        ..real
    };
    let code = code_object("gfx1100", &real);
    let kernel = code.kernel(real.kernel).unwrap().clone();
    let opts = Options {
        lanes: LANES,
        seed: SEED,
        timeout: Duration::from_secs(120),
        ..Options::default()
    };
    let source = || KernelSource::Embedded {
        source: String::new(),
    };
    let good = run_case(
        &mut EmuDevice::new(),
        &real,
        &code,
        &kernel,
        source(),
        &opts,
    );
    assert_eq!(
        good.status(),
        Status::Pass,
        "seed {SEED:#x}: {:?}",
        good.tally
    );
    let bad = run_case(
        &mut EmuDevice::new(),
        &wrong,
        &code,
        &kernel,
        source(),
        &opts,
    );
    let two_blocks = (0..LANES)
        .filter(|&l| sha256::blocks(real.inputs.lane(SEED, l)[2][0]) == 2)
        .count() as u64;
    assert!(
        two_blocks > LANES / 4,
        "seed {SEED:#x}: {two_blocks} two-block lanes"
    );
    assert_eq!(
        bad.tally.lanes_failed, two_blocks,
        "seed {SEED:#x}: exactly the two-block lanes fail"
    );
}
