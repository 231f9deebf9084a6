//! The kernarg buffer, laid out from the code object's metadata. Making this
//! check strict is what lets the launch below it be sound: every explicit
//! argument is written at its metadata offset with its metadata size, and
//! nothing else is (hidden arguments belong to the runtime).

use super::metadata::KernelMeta;

/// A value for one explicit kernel argument, in metadata order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgValue {
    /// A device address (`global_buffer`, 8 bytes).
    Pointer(u64),
    /// A 32-bit `by_value` argument.
    U32(u32),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KernargError {
    #[error(
        "kernel {kernel} takes {expected} explicit arguments ({names}); the harness has {given}"
    )]
    Count {
        kernel: String,
        expected: usize,
        given: usize,
        names: String,
    },
    #[error("kernel {kernel} argument {index} ({name}) is {kind} of {size} bytes; the harness passes {given}")]
    Mismatch {
        kernel: String,
        index: usize,
        name: String,
        kind: String,
        size: u32,
        given: &'static str,
    },
    #[error("kernel {kernel} argument {index} ({name}) at offset {offset}+{size} lies outside kernarg size {segment}")]
    OutOfSegment {
        kernel: String,
        index: usize,
        name: String,
        offset: u32,
        size: u32,
        segment: u32,
    },
}

/// Build the kernarg segment image for `meta` from `values`. The result is
/// `kernarg_segment_size` bytes long; bytes of hidden arguments are zero.
pub fn build(meta: &KernelMeta, values: &[ArgValue]) -> Result<Vec<u8>, KernargError> {
    let explicit: Vec<_> = meta.args.iter().filter(|a| !a.is_hidden()).collect();
    if explicit.len() != values.len() {
        return Err(KernargError::Count {
            kernel: meta.name.clone(),
            expected: explicit.len(),
            given: values.len(),
            names: explicit
                .iter()
                .map(|a| format!("{} {}", a.name.as_deref().unwrap_or("?"), a.value_kind))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut buf = vec![0u8; meta.kernarg_segment_size as usize];
    for (index, (arg, value)) in explicit.iter().zip(values).enumerate() {
        let name = arg.name.clone().unwrap_or_else(|| "?".into());
        let (bytes, given, kind_ok): (Vec<u8>, &'static str, bool) = match value {
            ArgValue::Pointer(p) => (
                p.to_le_bytes().to_vec(),
                "a pointer",
                arg.value_kind == "global_buffer",
            ),
            ArgValue::U32(v) => (
                v.to_le_bytes().to_vec(),
                "a 32-bit value",
                arg.value_kind == "by_value",
            ),
        };
        if !kind_ok || arg.size as usize != bytes.len() {
            return Err(KernargError::Mismatch {
                kernel: meta.name.clone(),
                index,
                name,
                kind: arg.value_kind.clone(),
                size: arg.size,
                given,
            });
        }
        let start = arg.offset as usize;
        let end = start.saturating_add(bytes.len());
        if end > buf.len() {
            return Err(KernargError::OutOfSegment {
                kernel: meta.name.clone(),
                index,
                name,
                offset: arg.offset,
                size: arg.size,
                segment: meta.kernarg_segment_size,
            });
        }
        buf[start..end].copy_from_slice(&bytes);
    }
    Ok(buf)
}

/// Bytes covered by explicit arguments: what `HIP_LAUNCH_PARAM_BUFFER_SIZE`
/// must say on ROCm versions that check it.
pub fn explicit_size(meta: &KernelMeta) -> usize {
    meta.args
        .iter()
        .filter(|a| !a.is_hidden())
        // Widened: metadata offsets and sizes are untrusted u32s.
        .map(|a| (u64::from(a.offset) + u64::from(a.size)) as usize)
        .max()
        .unwrap_or(0)
}
