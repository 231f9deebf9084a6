//! Which code object version a HIP runtime's loader accepts, and so which
//! version the kernels are assembled as for the runtime a binary is built
//! against (its headers' `hip/hip_version.h`, read by `build.rs`).
//!
//! The build script and the library both use this module (through
//! [`crate::target`]), so the build and `run --kernel` choose alike.
//!
//! What decides it, read from each component's sources at its release tags
//! (ROCm/ROCR-Runtime, ROCm/ROCm-CompilerSupport, ROCm/ROCclr, ROCm/clr):
//!
//! - **v5 loads from ROCm 5.3.** HIP hands a code object to comgr for its
//!   ISA name before ROCr's loader sees it (ROCclr `device/devprogram.cpp`,
//!   `createKernelMetadataMap`: `get_data_isa_name`, "COMGR failed to get
//!   code object ISA name", and the module load fails,
//!   hipErrorSharedObjectInitFailed 303). comgr 5.2.x names the ISA of v3 and
//!   v4 objects only (`lib/comgr/src/comgr-metadata.cpp`,
//!   `getElfIsaNameFromElfHeader`; v2 through its notes); v5 came with "Handle code object v5 when
//!   constructing ISA name from the ELF header" (e440094), first in
//!   rocm-5.3.0. ROCr's own check (`src/loader/executable.cpp`, "unsupported
//!   code object version") allows v5 from rocm-5.2.0 (v4 before) and ROCclr
//!   5.2 already reads `amdhsa.version [1, 2]`, so comgr is the gate. Measured
//!   here: Debian 12's 5.2.3 refuses a v5 object (303) that loads as v4.
//! - **v6 (generic targets) not before ROCm 6.2.** ROCr's loader allows
//!   major version 6 from rocm-6.2.0 (5 until 6.1.x); the 6.2.x sources name
//!   generic processors when reading an ELF header but neither ROCr's ISA
//!   registry (`core/runtime/isa.cpp`) nor CLR's ISA table
//!   (`rocclr/device/device.cpp`) lists one (sources read to October 2024).
//!   In the 6.4 and 7.2 runtimes `ci/fetch-hip.sh` fetches, CLR, ROCr and
//!   comgr all name the six generic targets (measured here with `strings`). So generic targets are v6 whatever the runtime: they
//!   exist only in v6, and an older runtime cannot load them at all.
//! - **v4 still loads in every runtime read here**: ROCr's loader allows
//!   versions 1 to 6 from 6.2 on, and every comgr read (to rocm-6.0.2) names
//!   v4 and v5 alike.

use std::fmt;

/// A HIP runtime version as `hip/hip_version.h` states it. HIP's major and
/// minor follow the ROCm release (HIP 5.2 is ROCm 5.2); the patch is a
/// build number (21153), kept for messages and ignored by the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HipVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl HipVersion {
    /// The release `major.minor` (patch 0), for thresholds and target rows.
    pub const fn release(major: u32, minor: u32) -> HipVersion {
        HipVersion {
            major,
            minor,
            patch: 0,
        }
    }

    /// Whether this runtime is release `other` or newer (major and minor only).
    pub const fn at_least(self, other: HipVersion) -> bool {
        self.major > other.major || (self.major == other.major && self.minor >= other.minor)
    }

    /// `HIP_VERSION_MAJOR`, `_MINOR` and `_PATCH` from the text of
    /// `hip/hip_version.h` (`#define HIP_VERSION_MAJOR 5`); a missing patch
    /// is 0, a missing major or minor is an error naming it.
    pub fn from_header(text: &str) -> Result<HipVersion, String> {
        let define = |name: &str| -> Option<u32> {
            text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("#define") && words.next() == Some(name))
                    .then(|| words.next()?.parse().ok())
                    .flatten()
            })
        };
        let major = define("HIP_VERSION_MAJOR").ok_or("no numeric HIP_VERSION_MAJOR")?;
        let minor = define("HIP_VERSION_MINOR").ok_or("no numeric HIP_VERSION_MINOR")?;
        let patch = define("HIP_VERSION_PATCH").unwrap_or(0);
        Ok(HipVersion {
            major,
            minor,
            patch,
        })
    }

    /// `5.2.21153` (what [`fmt::Display`] writes) back into a version.
    pub fn parse(text: &str) -> Result<HipVersion, String> {
        let mut parts = text.trim().split('.').map(str::parse::<u32>);
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(major)), Some(Ok(minor)), patch, None) => Ok(HipVersion {
                major,
                minor,
                patch: match patch {
                    None => 0,
                    Some(Ok(p)) => p,
                    Some(Err(_)) => return Err(format!("HIP version {text:?}: bad patch")),
                },
            }),
            _ => Err(format!("HIP version {text:?} is not major.minor[.patch]")),
        }
    }
}

impl fmt::Display for HipVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The first release whose HIP loads a code object v5 (see the module doc:
/// comgr 5.3 names the ISA of a v5 object; 5.2's refuses it).
pub const V5_LOADS_FROM: HipVersion = HipVersion::release(5, 3);

/// The first release whose ROCr loader accepts code object v6 at all; whether
/// it also matches a generic ISA to a device is later (module doc).
pub const V6_LOADS_FROM: HipVersion = HipVersion::release(6, 2);

/// Code object v4: what runtimes before [`V5_LOADS_FROM`] load.
pub const V4: u8 = 4;
/// Code object v5: processors, for runtimes from [`V5_LOADS_FROM`] on.
pub const V5: u8 = 5;
/// Code object v6: generic targets exist only from v6 on (AMDGPUUsage
/// "Generic Processors").
pub const V6: u8 = 6;

/// The code object version for a target under `runtime`:
/// - a generic target: v6, always (it has no other; a runtime before
///   [`V6_LOADS_FROM`] refuses it whatever we do);
/// - a processor the runtime knows (`known_since`, the first release whose
///   ROCr names it, is at or before `runtime`) on a runtime before
///   [`V5_LOADS_FROM`]: v4, the newest it loads;
/// - otherwise v5: what every runtime from 5.3 loads. A processor the runtime
///   does not know keeps v5: that runtime cannot run it at all (ROCr creates
///   no agent for it), and v5 is what the runtimes that know it load.
pub const fn choose(generic: bool, known_since: Option<HipVersion>, runtime: HipVersion) -> u8 {
    if generic {
        return V6;
    }
    let known = match known_since {
        Some(since) => runtime.at_least(since),
        None => false,
    };
    if known && !runtime.at_least(V5_LOADS_FROM) {
        V4
    } else {
        V5
    }
}

/// `e_ident[EI_ABIVERSION]` of a code object of version `cov`
/// (`ELFABIVERSION_AMDGPU_HSA_V4` = 2, V5 = 3, V6 = 4).
pub const fn elf_abi_version(cov: u8) -> u8 {
    cov - 2
}

/// The minor of `amdhsa.version: [1, minor]` in a code object of version
/// `cov` (AMDGPUUsage "Code Object Metadata": v4 [1, 1], v5 [1, 2], v6 [1, 3]).
pub const fn metadata_minor(cov: u8) -> u8 {
    cov - 3
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: fn(u32, u32) -> HipVersion = HipVersion::release;

    /// The policy as a table: (generic, the first release knowing the
    /// processor, runtime) -> version, at and around each threshold.
    #[test]
    fn the_policy_table() {
        let by_4_1 = Some(R(4, 1)); // gfx908, gfx1010, gfx1030 (gfx90a: 4.3)
        let from_5_3 = Some(R(5, 3)); // gfx1100
        let cases = [
            // (generic, known_since, runtime, want)
            (false, by_4_1, R(5, 2), V4),
            (false, by_4_1, R(5, 0), V4),
            (false, by_4_1, R(4, 5), V4),
            (false, by_4_1, R(5, 3), V5),
            (false, by_4_1, R(6, 4), V5),
            (false, by_4_1, R(7, 2), V5),
            (false, Some(R(4, 3)), R(4, 2), V5), // gfx90a on 4.2: unknown there
            (false, from_5_3, R(5, 2), V5),      // gfx1100 on 5.2: cannot load anyway
            (false, from_5_3, R(5, 3), V5),
            (false, None, R(5, 2), V5), // gfx950 on 5.2
            (false, None, R(7, 2), V5), // not in the sources read: v5
            (true, None, R(5, 2), V6),  // generic on 5.2: refused whatever we do
            (true, None, R(6, 4), V6),
            (true, by_4_1, R(5, 2), V6), // generic wins over a known processor
        ];
        for (generic, since, runtime, want) in cases {
            assert_eq!(
                choose(generic, since, runtime),
                want,
                "generic {generic}, known since {since:?}, runtime {runtime}"
            );
        }
    }

    #[test]
    fn thresholds_and_numbers() {
        assert_eq!(V5_LOADS_FROM, R(5, 3));
        assert_eq!(
            (
                elf_abi_version(V4),
                elf_abi_version(V5),
                elf_abi_version(V6)
            ),
            (2, 3, 4)
        );
        assert_eq!(
            (metadata_minor(V4), metadata_minor(V5), metadata_minor(V6)),
            (1, 2, 3)
        );
        // The patch is a build number, never part of the comparison.
        let debian = HipVersion {
            major: 5,
            minor: 2,
            patch: 21153,
        };
        assert!(debian.at_least(R(5, 2)) && !debian.at_least(R(5, 3)));
        assert!(R(6, 0).at_least(R(5, 9)) && !R(4, 9).at_least(R(5, 0)));
    }

    #[test]
    fn versions_read_from_the_header_and_back() {
        let header = "#ifndef HIP_VERSION_H\n#define HIP_VERSION_MAJOR 5\n\
                      #define HIP_VERSION_MINOR 2\n#define HIP_VERSION_PATCH 21153\n\
                      #define HIP_VERSION    (HIP_VERSION_MAJOR * 10000000)\n";
        let v = HipVersion::from_header(header).unwrap();
        assert_eq!(
            v,
            HipVersion {
                major: 5,
                minor: 2,
                patch: 21153
            }
        );
        assert_eq!(HipVersion::parse(&v.to_string()), Ok(v));
        assert_eq!(HipVersion::parse("6.4"), Ok(R(6, 4)));
        assert!(HipVersion::parse("6").is_err() && HipVersion::parse("6.x.1").is_err());
        let e = HipVersion::from_header("#define HIP_VERSION_MAJOR 6\n").unwrap_err();
        assert!(e.contains("HIP_VERSION_MINOR"), "{e}");
        // A define whose name only starts with the one asked for is not it.
        let tricky = "#define HIP_VERSION_MAJOR_X 9\n#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 2\n";
        assert_eq!(HipVersion::from_header(tricky).unwrap(), R(7, 2));
    }
}
