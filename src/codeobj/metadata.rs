//! The `NT_AMDGPU_METADATA` note: a MessagePack map (code object v3+) describing
//! each kernel, read with `rmpv`.

use rmpv::Value;

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
    map.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
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
    let root = rmpv::decode::read_value(&mut &desc[..]).map_err(|e| format!("metadata is not MessagePack: {e}"))?;
    let version = match get(&root, "amdhsa.version").and_then(Value::as_array) {
        Some(v) if v.len() == 2 => (
            v[0].as_u64().unwrap_or(0) as u32,
            v[1].as_u64().unwrap_or(0) as u32,
        ),
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
        let reqd_workgroup_size = match get(k, ".reqd_workgroup_size").and_then(Value::as_array) {
            Some(v) if v.len() == 3 => {
                let d = |i: usize| v[i].as_u64().unwrap_or(0) as u32;
                Some([d(0), d(1), d(2)])
            }
            _ => None,
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
    Ok(Metadata { version, target, kernels })
}
