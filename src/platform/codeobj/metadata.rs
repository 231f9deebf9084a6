//! The `NT_AMDGPU_METADATA` note: a MessagePack map (code object v3+) describing
//! each kernel, read with `rmpv`.

use rmpv::Value;

/// Largest kernarg segment accepted: 4 KiB, the limit HIP and CUDA document
/// for a kernel's parameters. The harness's own kernels use 40 or 72 bytes
/// (plus up to 256 bytes of hidden arguments in code object v5).
pub const MAX_KERNARG_BYTES: u32 = 4096;
/// Work-items per workgroup the hardware allows (gfx11: 1024).
pub const MAX_WORKGROUP_SIZE: u32 = 1024;

/// One explicit or hidden kernel argument as the metadata lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgMeta {
    pub name: Option<String>,
    pub offset: u32,
    pub size: u32,
    /// `global_buffer`, `by_value`, `hidden_block_count_x`, ...
    pub value_kind: String,
}

impl ArgMeta {
    /// Hidden arguments are written by the runtime, never by the harness.
    pub fn is_hidden(&self) -> bool {
        self.value_kind.starts_with("hidden_")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelMeta {
    pub name: String,
    pub symbol: String,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    pub max_flat_workgroup_size: u32,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub args: Vec<ArgMeta>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub version: (u32, u32),
    pub target: String,
    pub kernels: Vec<KernelMeta>,
}

fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn as_u32(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|v| u32::try_from(v).ok())
}

fn get_u32(map: &Value, key: &str) -> Result<u32, String> {
    get(map, key)
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("metadata key {key} missing or not an unsigned integer"))
}

fn get_str(map: &Value, key: &str) -> Result<String, String> {
    get(map, key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("metadata key {key} missing or not a string"))
}

pub fn parse(desc: &[u8]) -> Result<Metadata, String> {
    let root = rmpv::decode::read_value(&mut &desc[..])
        .map_err(|e| format!("metadata is not MessagePack: {e}"))?;
    let version = match get(&root, "amdhsa.version")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([major, minor]) => match (as_u32(major), as_u32(minor)) {
            (Some(major), Some(minor)) => (major, minor),
            _ => return Err("metadata amdhsa.version is not two unsigned integers".into()),
        },
        _ => return Err("metadata has no amdhsa.version".into()),
    };
    let target = get_str(&root, "amdhsa.target").unwrap_or_default();
    let list = get(&root, "amdhsa.kernels")
        .and_then(Value::as_array)
        .ok_or("metadata has no amdhsa.kernels list")?;
    let mut kernels = Vec::new();
    for k in list {
        let name = get_str(k, ".name")?;
        let ctx = |e: String| format!("kernel {name}: {e}");
        let mut args = Vec::new();
        if let Some(list) = get(k, ".args").and_then(Value::as_array) {
            for a in list {
                args.push(ArgMeta {
                    name: get(a, ".name").and_then(Value::as_str).map(str::to_string),
                    offset: get_u32(a, ".offset").map_err(ctx)?,
                    size: get_u32(a, ".size").map_err(ctx)?,
                    value_kind: get_str(a, ".value_kind").map_err(ctx)?,
                });
            }
        }
        let reqd_workgroup_size = match get(k, ".reqd_workgroup_size")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([x, y, z]) => match (as_u32(x), as_u32(y), as_u32(z)) {
                (Some(x), Some(y), Some(z)) => Some([x, y, z]),
                _ => {
                    return Err(format!(
                        "kernel {name}: .reqd_workgroup_size is not three unsigned integers"
                    ))
                }
            },
            Some(_) => {
                return Err(format!(
                    "kernel {name}: .reqd_workgroup_size is not three unsigned integers"
                ))
            }
            None => None,
        };
        kernels.push(KernelMeta {
            symbol: get_str(k, ".symbol").map_err(ctx)?,
            kernarg_segment_size: get_u32(k, ".kernarg_segment_size").map_err(ctx)?,
            kernarg_segment_align: get_u32(k, ".kernarg_segment_align").unwrap_or(8),
            wavefront_size: get_u32(k, ".wavefront_size").map_err(ctx)?,
            sgpr_count: get_u32(k, ".sgpr_count").unwrap_or(0),
            vgpr_count: get_u32(k, ".vgpr_count").unwrap_or(0),
            max_flat_workgroup_size: get_u32(k, ".max_flat_workgroup_size").map_err(ctx)?,
            reqd_workgroup_size,
            args,
            name,
        });
    }
    Ok(Metadata {
        version,
        target,
        kernels,
    })
}

/// What the launch path relies on in one kernel's metadata, checked once at
/// parse time: a wave size the hardware has, a workgroup limit in 1..=1024
/// (gfx11's limit), a required workgroup size inside it, a kernarg segment no
/// larger than [`MAX_KERNARG_BYTES`] and every argument (hidden ones too)
/// inside that segment.
pub fn check_kernel(meta: &KernelMeta) -> Result<(), String> {
    if meta.wavefront_size != 32 && meta.wavefront_size != 64 {
        return Err(format!(
            ".wavefront_size {} is neither 32 nor 64",
            meta.wavefront_size
        ));
    }
    if !(1..=MAX_WORKGROUP_SIZE).contains(&meta.max_flat_workgroup_size) {
        return Err(format!(
            ".max_flat_workgroup_size {} is not in 1..={MAX_WORKGROUP_SIZE}",
            meta.max_flat_workgroup_size
        ));
    }
    if let Some(reqd) = meta.reqd_workgroup_size {
        let items = reqd.iter().map(|&d| u64::from(d)).product::<u64>();
        if items == 0 || items > u64::from(meta.max_flat_workgroup_size) {
            return Err(format!(
                ".reqd_workgroup_size {reqd:?} is empty or exceeds .max_flat_workgroup_size {}",
                meta.max_flat_workgroup_size
            ));
        }
    }
    if meta.kernarg_segment_size > MAX_KERNARG_BYTES {
        return Err(format!(
            ".kernarg_segment_size {} exceeds the limit of {MAX_KERNARG_BYTES} bytes",
            meta.kernarg_segment_size
        ));
    }
    if !meta.kernarg_segment_align.is_power_of_two() {
        return Err(format!(
            ".kernarg_segment_align {} is not a power of two",
            meta.kernarg_segment_align
        ));
    }
    for (i, arg) in meta.args.iter().enumerate() {
        let end = u64::from(arg.offset) + u64::from(arg.size);
        if arg.size == 0 || end > u64::from(meta.kernarg_segment_size) {
            return Err(format!(
                "argument {i} ({}) at {}+{} is empty or lies outside .kernarg_segment_size {}",
                arg.name.as_deref().unwrap_or(&arg.value_kind),
                arg.offset,
                arg.size,
                meta.kernarg_segment_size
            ));
        }
    }
    Ok(())
}
