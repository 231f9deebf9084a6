//! The sysfs topology the thunk reads (`/sys/devices/virtual/kfd/kfd/topology`),
//! generated from the target table into a private directory that the
//! interposed `fopen`/`opendir`/`open` redirect to.
//!
//! Node 0 is the CPU; node i+1 is emulated GPU i. Every GPU value comes from
//! its [`Target`] row ([`GpuNode::of`]): adding a target to the table adds a
//! GPU this device can present, with no code here. Values the emulator has no
//! notion of (clocks, cache sizes, memory width) are plausible constants, the
//! same for every GPU; they decide nothing the emulator executes.

use crate::config::gfx_version;
use crate::sdma::generation::SdmaGeneration;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use xad_harness::platform::emu::EMULATED_COMPUTE_UNITS;
use xad_harness::platform::target::{Feature, Target};

/// The path the thunk reads, and the one prefix redirected.
pub const SYSFS_KFD: &str = "/sys/devices/virtual/kfd/kfd";
/// Where the render nodes are (`/dev/dri/renderD<minor>`).
pub const RENDER_PREFIX: &str = "/dev/dri/renderD";
/// The first render minor (DRM's own numbering starts render nodes at 128).
pub const FIRST_RENDER_MINOR: u32 = 128;
/// Device memory each emulated GPU reports (its local memory bank).
pub const LOCAL_MEMORY: u64 = 8 << 30;
/// SDMA engines a GPU with an emulated SDMA family reports, and queues per
/// engine (plausible constants, as KFD reports for a discrete gfx10 part).
const SDMA_ENGINES: u64 = 2;
const SDMA_QUEUES_PER_ENGINE: u64 = 8;
/// PCI vendor id of AMD.
const VENDOR_AMD: u32 = 0x1002;

/// One GPU node's identity and shape.
#[derive(Debug, Clone)]
pub struct GpuNode {
    pub target: &'static Target,
    /// KFD's `gpu_id` (non-zero; 0 means a CPU node to the thunk).
    pub gpu_id: u32,
    pub node: u32,
    pub render_minor: u32,
    pub gfx_version: u32,
    pub wave_size: u32,
    pub compute_units: u32,
    pub simd_per_cu: u32,
    /// Its SDMA engines' packet family, when the device emulates one.
    pub sdma: Option<&'static SdmaGeneration>,
}

impl GpuNode {
    pub fn of(index: usize, target: &'static Target) -> GpuNode {
        let wave32 = target.has(Feature::Wave32);
        let gfx_version = gfx_version(target).unwrap_or(0);
        GpuNode {
            target,
            // Any non-zero value unique per GPU works; these read well in a trace.
            gpu_id: 0x1000 + index as u32,
            node: index as u32 + 1,
            render_minor: FIRST_RENDER_MINOR + index as u32,
            gfx_version,
            wave_size: if wave32 { 32 } else { 64 },
            compute_units: EMULATED_COMPUTE_UNITS,
            // RDNA: two SIMD32 per compute unit; GCN/CDNA: four SIMD16.
            simd_per_cu: if wave32 { 2 } else { 4 },
            sdma: crate::sdma::generation::of_gfx_version(gfx_version),
        }
    }

    /// The `family_id` libdrm's `amdgpu_query_gpu_info` reports: the
    /// kernel's `AMDGPU_FAMILY_*` of a discrete part of this generation
    /// (gfx9 AI 141, gfx10 NV 143, gfx11.0 145, gfx11.5 150, gfx12 152;
    /// values of the kernel's `amdgpu_drm.h`, newer than Debian 12's libdrm
    /// header). The thunk copies it into the node's properties, where ROCr
    /// reports it as the agent's family; nothing in the stack branches on it.
    pub fn family_id(&self) -> u32 {
        match (self.gfx_version / 10000, self.gfx_version / 100 % 100) {
            (9, _) => 141,
            (10, _) => 143,
            (11, 5) => 150,
            (11, _) => 145,
            (12, _) => 152,
            _ => 0,
        }
    }

    /// The marketing name libdrm gives the stack (HIP's device name).
    pub fn marketing_name(&self) -> String {
        format!("xad-harness emulated KFD {}", self.target.name)
    }

    /// KFD node properties (`nodes/N/properties`), in the driver's key order.
    fn properties(&self) -> String {
        // HSA_CAPABILITY: QueueSizePowerOfTwo (3), QueueSize32bit (4),
        // DoorbellType 2 (bits 13:12, AQL doorbells, gfx9 and later).
        let capability = (1 << 3) | (1 << 4) | (2 << 12);
        let simds = self.compute_units * self.simd_per_cu;
        let rows: [(&str, u64); 37] = [
            ("cpu_cores_count", 0),
            ("simd_count", simds.into()),
            ("mem_banks_count", 1),
            ("caches_count", 1),
            ("io_links_count", 1),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", 0x8000_0000 + u64::from(self.node) * 0x100),
            ("max_waves_per_simd", 16),
            ("lds_size_in_kb", 64),
            ("gds_size_in_kb", 0),
            ("num_gws", 0),
            ("wave_front_size", self.wave_size.into()),
            ("array_count", 1),
            ("simd_arrays_per_engine", 1),
            ("cu_per_simd_array", self.compute_units.into()),
            ("simd_per_cu", self.simd_per_cu.into()),
            ("max_slots_scratch_cu", 32),
            ("gfx_target_version", self.gfx_version.into()),
            ("vendor_id", VENDOR_AMD.into()),
            // No PCI device id: the thunk then takes the ISA from
            // gfx_target_version rather than from its own device table.
            ("device_id", 0),
            ("location_id", u64::from(self.node + 2) << 8),
            ("domain", 0),
            ("drm_render_minor", self.render_minor.into()),
            ("hive_id", 0),
            // SDMA engines facing PCIe, when the GPU's family is emulated
            // (every engine's queues run on their own device threads). No
            // XGMI engines: no GPU is in a hive (hive_id 0), where ROCr would
            // use them.
            ("num_sdma_engines", if self.sdma.is_some() { SDMA_ENGINES } else { 0 }),
            ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", if self.sdma.is_some() { SDMA_QUEUES_PER_ENGINE } else { 0 }),
            ("num_cp_queues", 24),
            ("max_engine_clk_fcompute", 2000),
            ("local_mem_size", 0),
            ("fw_version", 100),
            ("capability", capability),
            ("debug_prop", 0),
            ("sdma_fw_version", 0),
            ("unique_id", 0x5841_4400 + u64::from(self.node)),
            ("max_engine_clk_ccompute", 0),
        ];
        table(&rows)
    }
}

fn table(rows: &[(&str, u64)]) -> String {
    let mut s = String::new();
    for (k, v) in rows {
        let _ = writeln!(s, "{k} {v}");
    }
    s
}

/// Write the tree for `gpus` under `root` (which becomes the redirect target
/// of [`SYSFS_KFD`]).
pub fn write(root: &Path, gpus: &[GpuNode]) -> std::io::Result<()> {
    let topo = root.join("topology");
    let nodes = topo.join("nodes");
    let put = |p: PathBuf, text: String| -> std::io::Result<()> {
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(p, text)
    };
    put(topo.join("generation_id"), "1\n".into())?;
    put(
        topo.join("system_properties"),
        table(&[("platform_oem", 0), ("platform_id", 0), ("platform_rev", 0)]),
    )?;
    // The CPU node.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let cpu = nodes.join("0");
    put(cpu.join("gpu_id"), "0\n".into())?;
    put(
        cpu.join("properties"),
        table(&[
            ("cpu_cores_count", cpus),
            ("simd_count", 0),
            ("mem_banks_count", 1),
            ("caches_count", 0),
            ("io_links_count", 0),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", 0),
            ("max_waves_per_simd", 0),
            ("lds_size_in_kb", 0),
            ("gds_size_in_kb", 0),
            ("num_gws", 0),
            ("wave_front_size", 0),
            ("array_count", 0),
            ("simd_arrays_per_engine", 0),
            ("cu_per_simd_array", 0),
            ("simd_per_cu", 0),
            ("max_slots_scratch_cu", 0),
            ("gfx_target_version", 0),
            ("vendor_id", 0),
            ("device_id", 0),
            ("location_id", 0),
            ("domain", 0),
            ("drm_render_minor", 0),
            ("hive_id", 0),
            ("num_sdma_engines", 0),
            ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", 0),
            ("num_cp_queues", 0),
            ("max_engine_clk_fcompute", 0),
            ("local_mem_size", 0),
            ("fw_version", 0),
            ("capability", 0),
            ("debug_prop", 0),
            ("sdma_fw_version", 0),
            ("unique_id", 0),
            ("max_engine_clk_ccompute", 3000),
        ]),
    )?;
    put(
        cpu.join("mem_banks/0/properties"),
        table(&[
            ("heap_type", 0),
            ("size_in_bytes", 16 << 30),
            ("flags", 0),
            ("width", 64),
            ("mem_clk_max", 2400),
        ]),
    )?;
    for g in gpus {
        let dir = nodes.join(g.node.to_string());
        put(dir.join("gpu_id"), format!("{}\n", g.gpu_id))?;
        put(dir.join("name"), format!("{}\n", g.target.name))?;
        put(dir.join("properties"), g.properties())?;
        put(
            dir.join("mem_banks/0/properties"),
            // HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE: VRAM the host cannot see.
            table(&[
                ("heap_type", 2),
                ("size_in_bytes", LOCAL_MEMORY),
                ("flags", 0),
                ("width", 256),
                ("mem_clk_max", 1000),
            ]),
        )?;
        put(
            dir.join("caches/0/properties"),
            // HSA_CACHE_TYPE: data (bit 0) | HSACU (bit 3); level 1.
            table(&[
                ("processor_id_low", 0x8000_0000 + u64::from(g.node) * 0x100),
                ("level", 1),
                ("size", 16),
                ("cache_line_size", 64),
                ("cache_lines_per_tag", 1),
                ("association", 4),
                ("latency", 1),
                ("type", 9),
                ("sibling_map", 1),
            ]),
        )?;
        put(
            dir.join("io_links/0/properties"),
            // HSA_IOLINKTYPE_PCIEXPRESS (2) to the CPU node.
            table(&[
                ("type", 2),
                ("version_major", 0),
                ("version_minor", 0),
                ("node_from", g.node.into()),
                ("node_to", 0),
                ("weight", 20),
                ("min_latency", 0),
                ("max_latency", 0),
                ("min_bandwidth", 312),
                ("max_bandwidth", 64000),
                ("recommended_transfer_size", 0),
                ("flags", 1),
            ]),
        )?;
    }
    Ok(())
}
