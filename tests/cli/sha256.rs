//! The SHA-256 cases (`sha256_w32`, `sha256_w64`) end to end on the emulator:
//! every target's embedded kernel holds 224 `v_xad_u32` a block and passes;
//! the emulated kernel's digests of the FIPS 180-4 messages equal
//! `sha2::Sha256::digest` (read back from a `--dump-all`, which replay then
//! re-runs with its 32-word sources); and it can fail: a kernel with one
//! `v_xad_u32`'s operands swapped, and a model that skips the second block,
//! are both caught.

use crate::common;
use crate::common::{harness, run};
use sha2::{Digest, Sha256};
use std::path::Path;
use xad_harness::model::cases::sha256;

/// How many (target, wave size) pairs there are: one SHA-256 case each.
fn wave_sizes() -> usize {
    use xad_harness::platform::target::{Feature, TARGETS};
    TARGETS
        .iter()
        .map(|t| usize::from(t.has(Feature::Wave32)) + usize::from(t.has(Feature::Wave64)))
        .sum()
}

#[test]
fn the_sha256_cases_pass_on_every_emulated_target() {
    let r = run(harness().args([
        "run",
        "--backend",
        "emu",
        "--target",
        "all",
        "--case",
        "sha256*",
        "--lanes",
        "700",
        "--seed",
        "0x5a2",
        "--quiet",
    ]));
    assert_eq!(r.code, 0, "{}", r.all());
    let want = wave_sizes();
    assert!(
        r.stdout.contains(&format!("{want} passed, 0 failed")),
        "{}",
        r.all()
    );
}

/// Digest words (big-endian) of `message`.
fn digest_words(message: &[u8]) -> Vec<u32> {
    Sha256::digest(message)
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn read_npy(path: &Path) -> (Vec<u64>, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).expect("npy");
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<u32>().expect("u32 data"))
}

/// The emulated kernel's output for the FIPS lanes is the digest sha2 gives;
/// the dump holds 32-word messages that replay runs again.
#[test]
fn emulated_digests_of_the_fips_messages_equal_sha2_and_the_dump_replays() {
    let dir = common::scratch("sha256-dump");
    let dump = dir.join("d");
    let r = run(harness()
        .args([
            "run",
            "--backend",
            "emu",
            "--case",
            "sha256_w64",
            "--lanes",
            "200",
            "--seed",
            "9",
            "--dump-all",
            "--dump",
        ])
        .arg(&dump));
    assert_eq!(r.code, 0, "{}", r.all());
    let case_dir = dump.join("gfx1100/sha256_w64");
    let (shape, got) = read_npy(&case_dir.join("got.npy"));
    assert_eq!(shape, [200, 8]);
    let (a_shape, a) = read_npy(&case_dir.join("a.npy"));
    assert_eq!(a_shape, [200, 32]);
    let (b_shape, _) = read_npy(&case_dir.join("b.npy"));
    assert_eq!(b_shape, [200, 8]);
    for base in [0, 64, 128] {
        for (k, message) in sha256::KNOWN_MESSAGES.iter().enumerate() {
            let lane = base + k;
            assert_eq!(
                got[lane * 8..][..8],
                digest_words(message),
                "lane {lane}: {:?}",
                String::from_utf8_lossy(message)
            );
            assert_eq!(
                a[lane * 32..][..16],
                sha256::padded(message)[..16],
                "lane {lane}"
            );
        }
    }
    // FIPS 180-4's published digests, not only sha2's.
    assert_eq!(got[0], 0xba78_16bf, "\"abc\"");
    assert_eq!(got[8], 0x248d_6a61, "448-bit message");
    let r = run(harness().args(["replay", "--backend", "emu"]).arg(&dump));
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("sha256_w64"), "{}", r.all());
}

/// The kernels with the operands of one `v_xad_u32` (Σ1 + Ch) swapped.
fn swapped_kernels(dir: &Path) -> std::path::PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let copy = dir.join("kernels");
    for sub in ["include", "cases"] {
        std::fs::create_dir_all(copy.join(sub)).unwrap();
        for entry in std::fs::read_dir(src.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, copy.join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    let inc = copy.join("include/xad_sha256.inc");
    let text = std::fs::read_to_string(&inc).unwrap();
    let right = "v_xad_u32 v48, v48, v49, v50              // Σ1(e) + Ch(e,f,g)";
    assert_eq!(text.matches(right).count(), 1, "the Σ1 + Ch line");
    std::fs::write(&inc, text.replace(right, "v_xad_u32 v48, v48, v50, v49")).unwrap();
    copy
}

#[test]
fn a_kernel_with_one_v_xad_u32_operand_swapped_is_caught() {
    let dir = common::scratch("sha256-swapped");
    let kernels = swapped_kernels(&dir);
    for (case, target, file) in [
        ("sha256_w32", "gfx1100", "cases/xad_sha256_w32.s"),
        ("sha256_w64", "gfx90a", "cases/xad_sha256_w64.s"),
    ] {
        let r = run(harness()
            .args([
                "run",
                "--backend",
                "emu",
                "--case",
                case,
                "--target",
                target,
            ])
            .args(["--lanes", "300", "--seed", "4", "--kernel"])
            .arg(kernels.join(file)));
        assert_eq!(r.code, 1, "{case} on {target}: {}", r.all());
        assert!(
            r.stdout.contains("300 lanes, 300 failed"),
            "{case} on {target}: every lane fails: {}",
            r.all()
        );
        assert!(
            r.stdout.contains("--seed 4"),
            "the seed to replay: {}",
            r.all()
        );
    }
}
