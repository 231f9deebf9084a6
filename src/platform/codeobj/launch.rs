//! The one launch check both backends run before anything executes, and the
//! check that a user's `--kernel` fits the case it stands in for.
//!
//! [`check`] is called by the HIP path (`hip::safe::Module::launch`, before
//! `hipModuleLaunchKernel`) and by the emulator (`EmuDevice::launch`, before
//! any wave is set up), so a dispatch one backend refuses the other refuses
//! too, with the same sentence. It holds a launch to the kernel's own
//! metadata: what the runtime would otherwise silently change
//! (`.reqd_workgroup_size` overrides blockDim) or fail on later
//! (`.max_flat_workgroup_size`) is refused here instead.
//!
//! [`check_case_abi`] holds a `--kernel` to the standard lane ABI
//! (docs/kernel-abi.md, `kernels/include/xad_frame_gfx11.inc`): its wave size is the case's,
//! and its explicit arguments are, in order, four 8-byte `global_buffer`s
//! (a, b, c, out), a 4-byte `by_value` count and the case's 4-byte `by_value`
//! scalars, naturally aligned and not overlapping. Anything else would be
//! launched with arguments it does not expect, so it is bad input.

use super::metadata::{ArgMeta, KernelMeta};

// The limits are the metadata's: a kernel that declares more is refused when
// it is read, a launch that asks for more is refused here.
pub use super::metadata::{MAX_KERNARG_BYTES, MAX_WORKGROUP_SIZE};

/// Why a launch was refused before it ran. One line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "kernarg for {kernel} is {given} bytes; its metadata says .kernarg_segment_size {expected}"
    )]
    KernargSize {
        kernel: String,
        given: usize,
        expected: u32,
    },
    #[error("kernarg for {kernel} is {given} bytes; the limit is {MAX_KERNARG_BYTES} bytes")]
    KernargTooLarge { kernel: String, given: usize },
    #[error("kernel {kernel}: its explicit arguments end at byte {end}, past .kernarg_segment_size {segment}")]
    ExplicitPastSegment {
        kernel: String,
        end: u64,
        segment: u32,
    },
    #[error("dispatch of {kernel} has an empty dimension (grid {:?} blocks of {:?})", .dispatch.grid_blocks, .dispatch.block)]
    EmptyDimension { kernel: String, dispatch: Dispatch },
    #[error("workgroup {block:?} ({items} work-items) exceeds {kernel}'s .max_flat_workgroup_size {max}")]
    OverMaxFlat {
        kernel: String,
        block: [u32; 3],
        items: u64,
        max: u32,
    },
    #[error("workgroup {block:?} of {kernel} ({items} work-items) exceeds the hardware limit of {MAX_WORKGROUP_SIZE}")]
    OverHardware {
        kernel: String,
        block: [u32; 3],
        items: u64,
    },
    #[error("workgroup {block:?} differs from {kernel}'s .reqd_workgroup_size {required:?}")]
    ReqdMismatch {
        kernel: String,
        block: [u32; 3],
        required: [u32; 3],
    },
    #[error("grid {:?} blocks of {:?} exceeds 2^32 work-items along axis {axis}", .dispatch.grid_blocks, .dispatch.block)]
    GridOverflow { dispatch: Dispatch, axis: usize },
}

/// Grid and workgroup shape of one dispatch, in HIP's terms: `grid_blocks`
/// workgroups of `block` work-items each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dispatch {
    pub grid_blocks: [u32; 3],
    pub block: [u32; 3],
}

/// Check a launch of `meta`'s kernel with `kernarg` and `dispatch` against
/// its metadata: the kernarg image is exactly `.kernarg_segment_size` bytes
/// (at most [`MAX_KERNARG_BYTES`]) and covers every explicit argument; no
/// dimension is zero; the workgroup fits `.max_flat_workgroup_size` and the
/// hardware, equals `.reqd_workgroup_size` when one is declared, and the grid
/// stays within 2^32 work-items per axis.
pub fn check(meta: &KernelMeta, kernarg: &[u8], dispatch: Dispatch) -> Result<(), LaunchError> {
    let kernel = &meta.name;
    if kernarg.len() != meta.kernarg_segment_size as usize {
        return Err(LaunchError::KernargSize {
            kernel: kernel.clone(),
            given: kernarg.len(),
            expected: meta.kernarg_segment_size,
        });
    }
    let end = meta
        .args
        .iter()
        .filter(|a| !a.is_hidden())
        .map(arg_end)
        .max()
        .unwrap_or(0);
    if end > kernarg.len() as u64 {
        return Err(LaunchError::ExplicitPastSegment {
            kernel: kernel.clone(),
            end,
            segment: meta.kernarg_segment_size,
        });
    }
    check_shape(kernel, kernarg.len(), dispatch)?;
    let items = workgroup_items(dispatch.block);
    if items > u64::from(meta.max_flat_workgroup_size) {
        return Err(LaunchError::OverMaxFlat {
            kernel: kernel.clone(),
            block: dispatch.block,
            items,
            max: meta.max_flat_workgroup_size,
        });
    }
    match meta.reqd_workgroup_size {
        // The runtime would silently launch with the required size instead.
        Some(required) if required != dispatch.block => Err(LaunchError::ReqdMismatch {
            kernel: kernel.clone(),
            block: dispatch.block,
            required,
        }),
        _ => Ok(()),
    }
}

/// The part of [`check`] that needs no metadata, for code run without a
/// code object (the emulator's `load_code`): a kernarg image within
/// [`MAX_KERNARG_BYTES`], no zero dimension, a workgroup within the
/// hardware's limit, a grid within 2^32 work-items per axis.
pub fn check_shape(
    kernel: &str,
    kernarg_len: usize,
    dispatch: Dispatch,
) -> Result<(), LaunchError> {
    if kernarg_len > MAX_KERNARG_BYTES as usize {
        return Err(LaunchError::KernargTooLarge {
            kernel: kernel.to_string(),
            given: kernarg_len,
        });
    }
    if dispatch.grid_blocks.contains(&0) || dispatch.block.contains(&0) {
        return Err(LaunchError::EmptyDimension {
            kernel: kernel.to_string(),
            dispatch,
        });
    }
    // Per axis first: the product below cannot overflow u64 anyway, but an
    // overflowing axis is the clearer message.
    if let Some(axis) = (0..3).find(|&a| {
        dispatch.grid_blocks[a]
            .checked_mul(dispatch.block[a])
            .is_none()
    }) {
        return Err(LaunchError::GridOverflow { dispatch, axis });
    }
    let items = workgroup_items(dispatch.block);
    if items > u64::from(MAX_WORKGROUP_SIZE) {
        return Err(LaunchError::OverHardware {
            kernel: kernel.to_string(),
            block: dispatch.block,
            items,
        });
    }
    Ok(())
}

fn workgroup_items(block: [u32; 3]) -> u64 {
    block.iter().map(|&d| u64::from(d)).product()
}

fn arg_end(arg: &ArgMeta) -> u64 {
    u64::from(arg.offset) + u64::from(arg.size)
}

/// What a case requires of a kernel standing in for its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseAbi<'a> {
    pub case: &'a str,
    pub wave_size: u32,
    /// u32 by-value arguments after `count`.
    pub scalar_args: usize,
}

/// Why a kernel does not fit a case's ABI. One line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AbiError {
    #[error("kernel {kernel} is wave{kernel_wave} but case {case} is wave{case_wave}")]
    WaveSize {
        kernel: String,
        case: String,
        kernel_wave: u32,
        case_wave: u32,
    },
    #[error(
        "kernel {kernel} takes {given} explicit arguments; case {case} passes {expected} ({abi})"
    )]
    Count {
        kernel: String,
        case: String,
        given: usize,
        expected: usize,
        abi: String,
    },
    #[error("kernel {kernel} argument {index} is {found}; case {case} passes {wanted} there")]
    Argument {
        kernel: String,
        case: String,
        index: usize,
        found: String,
        wanted: String,
    },
    #[error("kernel {kernel} argument {index} ({name}) at offset {offset} overlaps argument {other} or is not {size}-byte aligned")]
    Placement {
        kernel: String,
        index: usize,
        name: String,
        offset: u32,
        size: u32,
        other: usize,
    },
}

/// The case's explicit arguments as (name, value kind, size).
fn abi_args(abi: &CaseAbi<'_>) -> Vec<(String, &'static str, u32)> {
    let mut args: Vec<(String, &'static str, u32)> = ["a", "b", "c", "out"]
        .iter()
        .map(|n| (n.to_string(), "global_buffer", 8))
        .collect();
    args.push(("count".into(), "by_value", 4));
    args.extend((0..abi.scalar_args).map(|k| (format!("s{k}"), "by_value", 4)));
    args
}

fn describe(name: &str, kind: &str, size: u32) -> String {
    format!("{name}: {kind} of {size} bytes")
}

/// Check that `meta` fits `abi` (see the module doc). Names are not compared:
/// the harness writes each argument at its metadata offset, by position.
pub fn check_case_abi(meta: &KernelMeta, abi: &CaseAbi<'_>) -> Result<(), AbiError> {
    let (kernel, case) = (meta.name.clone(), abi.case.to_string());
    if meta.wavefront_size != abi.wave_size {
        return Err(AbiError::WaveSize {
            kernel,
            case,
            kernel_wave: meta.wavefront_size,
            case_wave: abi.wave_size,
        });
    }
    let wanted = abi_args(abi);
    let explicit: Vec<&ArgMeta> = meta.args.iter().filter(|a| !a.is_hidden()).collect();
    if explicit.len() != wanted.len() {
        let shown = wanted
            .iter()
            .map(|(n, k, s)| describe(n, k, *s))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(AbiError::Count {
            kernel,
            case,
            given: explicit.len(),
            expected: wanted.len(),
            abi: shown,
        });
    }
    for (index, (arg, (name, kind, size))) in explicit.iter().zip(&wanted).enumerate() {
        if arg.value_kind != *kind || arg.size != *size {
            let found = describe(
                arg.name.as_deref().unwrap_or("?"),
                &arg.value_kind,
                arg.size,
            );
            return Err(AbiError::Argument {
                kernel,
                case,
                index,
                found,
                wanted: describe(name, kind, *size),
            });
        }
        let clash = explicit[..index]
            .iter()
            .position(|o| arg_end(o) > u64::from(arg.offset) && arg_end(arg) > u64::from(o.offset));
        if arg.offset % arg.size != 0 || clash.is_some() {
            return Err(AbiError::Placement {
                kernel,
                index,
                name: arg.name.clone().unwrap_or_else(|| "?".into()),
                offset: arg.offset,
                size: arg.size,
                other: clash.unwrap_or(index),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A kernel's metadata with `args` (name, offset, size, value kind); other
    /// tests of the crate build theirs with it too.
    pub(crate) fn meta(args: &[(&str, u32, u32, &str)]) -> KernelMeta {
        KernelMeta {
            name: "k".into(),
            symbol: "k.kd".into(),
            kernarg_segment_size: 40,
            kernarg_segment_align: 8,
            wavefront_size: 32,
            sgpr_count: 0,
            vgpr_count: 0,
            max_flat_workgroup_size: 256,
            reqd_workgroup_size: None,
            args: args
                .iter()
                .map(|&(n, offset, size, kind)| ArgMeta {
                    name: Some(n.into()),
                    offset,
                    size,
                    value_kind: kind.into(),
                })
                .collect(),
        }
    }

    const BASIC: [(&str, u32, u32, &str); 5] = [
        ("a", 0, 8, "global_buffer"),
        ("b", 8, 8, "global_buffer"),
        ("c", 16, 8, "global_buffer"),
        ("out", 24, 8, "global_buffer"),
        ("count", 32, 4, "by_value"),
    ];
    const ABI: CaseAbi<'static> = CaseAbi {
        case: "basic",
        wave_size: 32,
        scalar_args: 0,
    };

    #[test]
    fn the_standard_layout_fits_and_others_do_not() {
        assert_eq!(check_case_abi(&meta(&BASIC), &ABI), Ok(()));
        let mut hidden = BASIC.to_vec();
        hidden.push(("", 36, 4, "hidden_block_count_x"));
        assert_eq!(
            check_case_abi(&meta(&hidden), &ABI),
            Ok(()),
            "hidden arguments are the runtime's"
        );
        let wave64 = KernelMeta {
            wavefront_size: 64,
            ..meta(&BASIC)
        };
        assert!(matches!(
            check_case_abi(&wave64, &ABI),
            Err(AbiError::WaveSize {
                kernel_wave: 64,
                case_wave: 32,
                ..
            })
        ));
        assert!(matches!(
            check_case_abi(&meta(&BASIC[..4]), &ABI),
            Err(AbiError::Count {
                given: 4,
                expected: 5,
                ..
            })
        ));
        let scalars = CaseAbi {
            scalar_args: 8,
            ..ABI
        };
        assert!(matches!(
            check_case_abi(&meta(&BASIC), &scalars),
            Err(AbiError::Count {
                given: 5,
                expected: 13,
                ..
            })
        ));
        let mut wide_count = BASIC;
        wide_count[4] = ("count", 32, 8, "by_value");
        let e = check_case_abi(&meta(&wide_count), &ABI)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("argument 4 is count: by_value of 8 bytes"),
            "{e}"
        );
        let mut overlapping = BASIC;
        overlapping[1] = ("b", 4, 8, "global_buffer");
        assert!(matches!(
            check_case_abi(&meta(&overlapping), &ABI),
            Err(AbiError::Placement { index: 1, .. })
        ));
        let mut clash = BASIC;
        clash[3] = ("out", 0, 8, "global_buffer");
        assert!(matches!(
            check_case_abi(&meta(&clash), &ABI),
            Err(AbiError::Placement {
                index: 3,
                other: 0,
                ..
            })
        ));
    }

    #[test]
    fn shapes_are_checked_with_and_without_metadata() {
        let k = meta(&BASIC);
        let one = Dispatch {
            grid_blocks: [1, 1, 1],
            block: [256, 1, 1],
        };
        assert_eq!(check(&k, &[0; 40], one), Ok(()));
        assert!(matches!(
            check(&k, &[0; 41], one),
            Err(LaunchError::KernargSize {
                given: 41,
                expected: 40,
                ..
            })
        ));
        let big = Dispatch {
            block: [512, 1, 1],
            ..one
        };
        assert!(matches!(
            check(&k, &[0; 40], big),
            Err(LaunchError::OverMaxFlat {
                items: 512,
                max: 256,
                ..
            })
        ));
        assert_eq!(
            check_shape("raw", 0, big),
            Ok(()),
            "without metadata only the hardware limit applies"
        );
        let huge = Dispatch {
            block: [1024, 2, 1],
            ..one
        };
        assert!(matches!(
            check_shape("raw", 0, huge),
            Err(LaunchError::OverHardware { items: 2048, .. })
        ));
        assert!(matches!(
            check_shape("raw", 4097, one),
            Err(LaunchError::KernargTooLarge { .. })
        ));
        let reqd = KernelMeta {
            reqd_workgroup_size: Some([128, 1, 1]),
            ..k
        };
        assert!(matches!(
            check(&reqd, &[0; 40], one),
            Err(LaunchError::ReqdMismatch { .. })
        ));
        let wide = Dispatch {
            grid_blocks: [1, u32::MAX, 1],
            block: [1, 2, 1],
        };
        assert!(matches!(
            check_shape("raw", 0, wide),
            Err(LaunchError::GridOverflow { axis: 1, .. })
        ));
    }
}
