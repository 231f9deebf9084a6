//! Which SDMA engine a GPU has, as data: one row per range of KFD
//! `gfx_target_version`s, naming the engine's packet family and the facts
//! about its packets that differ between families. Adding a GPU generation
//! adds a row here; no code asks for a processor's name.
//!
//! Sources (read, not copied): the Linux amdgpu driver's per-family files
//! (`sdma_v4_0.c`, `sdma_v4_4_2.c`, `sdma_v5_0.c`, `sdma_v5_2.c`,
//! `sdma_v6_0.c`, `sdma_v7_0.c`) for which family a GPU has, and ROCR-Runtime's
//! `GpuAgent::CreateBlitSdma` (rocm-6.2.4, amd-staging) for how wide a copy's
//! byte count may be (`copy_size_overrides`: 0x3fffff or 0x3fffffff) and
//! which families take the GCR cache packet (`BlitSdmaV5`: gfx10 and later).

/// One SDMA packet family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SdmaGeneration {
    /// The family as the Linux driver names its file (`SDMA v5.2`).
    pub name: &'static str,
    /// Bits of COPY_LINEAR's and CONSTANT_FILL's count field (bytes - 1):
    /// 22, or 30 where ROCr sends copies of up to 1 GiB. Bits above are
    /// reserved and must be zero.
    pub count_bits: u32,
    /// The GCR packet (opcode 17: L2/L1/K$ write-back and invalidation),
    /// which ROCr sends around every command on gfx10 and later. Before
    /// that opcode 17 is no packet of the family.
    pub gcr: bool,
}

const SDMA_V4: SdmaGeneration = SdmaGeneration { name: "SDMA v4", count_bits: 22, gcr: false };
const SDMA_V4_4: SdmaGeneration = SdmaGeneration { name: "SDMA v4.4", count_bits: 30, gcr: false };
const SDMA_V4_4_2: SdmaGeneration = SdmaGeneration { name: "SDMA v4.4.2", count_bits: 22, gcr: false };
const SDMA_V5: SdmaGeneration = SdmaGeneration { name: "SDMA v5.0", count_bits: 22, gcr: true };
const SDMA_V5_2: SdmaGeneration = SdmaGeneration { name: "SDMA v5.2", count_bits: 30, gcr: true };
const SDMA_V6: SdmaGeneration = SdmaGeneration { name: "SDMA v6", count_bits: 30, gcr: true };
const SDMA_V7: SdmaGeneration = SdmaGeneration { name: "SDMA v7", count_bits: 30, gcr: true };

/// `(first, last)` KFD `gfx_target_version` (major * 10000 + minor * 100 +
/// stepping) and the family of every GPU in between. A version no row
/// covers (gfx1250: no runtime read here knows it) has no SDMA engine: the
/// topology then reports none and the runtime copies with blit kernels.
const BY_GFX_VERSION: &[(u32, u32, SdmaGeneration)] = &[
    // gfx900-gfx909 (Vega, SDMA 4.0-4.2) and gfx908 (MI100, 4.2.2).
    (90000, 90009, SDMA_V4),
    // gfx90a (MI200): the 4.4 block, whose copies ROCr sizes up to 1 GiB.
    (90010, 90010, SDMA_V4_4),
    // gfx90c (Vega APUs).
    (90012, 90012, SDMA_V4),
    // gfx940-gfx942, gfx950 (MI300, MI350): 4.4.2 and 4.4.5, 22-bit counts in ROCr.
    (90400, 90599, SDMA_V4_4_2),
    // gfx1010-gfx1013 (RDNA1).
    (100100, 100199, SDMA_V5),
    // gfx1030-gfx1036 (RDNA2).
    (100300, 100399, SDMA_V5_2),
    // gfx1100-gfx1103 (6.0) and gfx1150-gfx1153 (6.1): one packet family.
    (110000, 110599, SDMA_V6),
    // gfx1200, gfx1201 (RDNA4).
    (120000, 120099, SDMA_V7),
];

/// The SDMA family of a GPU with KFD `gfx_target_version` `version`, if it
/// has one the device emulates.
pub fn of_gfx_version(version: u32) -> Option<&'static SdmaGeneration> {
    BY_GFX_VERSION
        .iter()
        .find(|(first, last, _)| (*first..=*last).contains(&version))
        .map(|(_, _, g)| g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::gfx_version;
    use xad_harness::platform::target::{self, TARGETS};

    fn of(name: &str) -> Option<&'static SdmaGeneration> {
        of_gfx_version(gfx_version(target::find(name).unwrap()).unwrap())
    }

    #[test]
    fn every_processor_the_runtimes_know_has_an_sdma_family() {
        for t in TARGETS.iter().filter(|t| !t.is_generic()) {
            let sdma = of(t.name);
            // CDNA5 (gfx1250, gfx1251) is unknown to every runtime read here.
            assert_eq!(sdma.is_none(), t.isa.gfx1250_insts, "{}: {sdma:?}", t.name);
        }
    }

    #[test]
    fn count_width_and_gcr_follow_the_runtime() {
        assert_eq!(of("gfx908").map(|g| (g.count_bits, g.gcr)), Some((22, false)));
        assert_eq!(of("gfx90a").map(|g| (g.count_bits, g.gcr)), Some((30, false)));
        assert_eq!(of("gfx942").map(|g| (g.count_bits, g.gcr)), Some((22, false)));
        assert_eq!(of("gfx1010").map(|g| (g.count_bits, g.gcr)), Some((22, true)));
        assert_eq!(of("gfx1030").map(|g| (g.count_bits, g.gcr)), Some((30, true)));
        assert_eq!(of("gfx1151").map(|g| g.name), Some("SDMA v6"));
        assert_eq!(of("gfx1201").map(|g| g.name), Some("SDMA v7"));
    }

    #[test]
    fn the_rows_do_not_overlap() {
        for (i, a) in BY_GFX_VERSION.iter().enumerate() {
            assert!(a.0 <= a.1, "{a:?}");
            for b in &BY_GFX_VERSION[i + 1..] {
                assert!(a.1 < b.0, "{a:?} overlaps {b:?}");
            }
        }
    }
}
