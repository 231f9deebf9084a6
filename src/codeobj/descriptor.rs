//! The 64-byte AMDHSA kernel descriptor (`<kernel>.kd`), as LLVM's AMDGPUUsage
//! "Kernel Descriptor" table lays it out for code object v4/v5 on gfx11.

/// Size of a kernel descriptor in bytes.
pub const KD_SIZE: usize = 64;

/// The fields the launch path and the emulator need, decoded from the raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    /// Byte offset of the kernel's first instruction from the descriptor's own address.
    pub entry_offset: i64,
    pub rsrc3: u32,
    pub rsrc1: u32,
    pub rsrc2: u32,
    pub code_properties: u16,
}

impl KernelDescriptor {
    pub fn parse(bytes: &[u8]) -> Option<KernelDescriptor> {
        if bytes.len() < KD_SIZE {
            return None;
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        Some(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            entry_offset: i64::from_le_bytes(bytes[16..24].try_into().unwrap()),
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            code_properties: u16::from_le_bytes(bytes[56..58].try_into().unwrap()),
        })
    }

    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (bits 5:1): user SGPRs preloaded from s0.
    pub fn user_sgpr_count(&self) -> u32 {
        (self.rsrc2 >> 1) & 0x1f
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_ID_{X,Y,Z} (bits 7, 8, 9).
    pub fn workgroup_id_enabled(&self) -> [bool; 3] {
        [self.rsrc2 >> 7 & 1 == 1, self.rsrc2 >> 8 & 1 == 1, self.rsrc2 >> 9 & 1 == 1]
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_SGPR_WORKGROUP_INFO (bit 10).
    pub fn workgroup_info_enabled(&self) -> bool {
        self.rsrc2 >> 10 & 1 == 1
    }
    /// COMPUTE_PGM_RSRC2.ENABLE_VGPR_WORKITEM_ID (bits 12:11): 0 = x, 1 = x,y, 2 = x,y,z.
    pub fn workitem_id_dims(&self) -> u32 {
        (self.rsrc2 >> 11) & 3
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_DISPATCH_PTR (bit 0).
    pub fn dispatch_ptr(&self) -> bool {
        self.code_properties & 1 != 0
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_QUEUE_PTR (bit 1).
    pub fn queue_ptr(&self) -> bool {
        self.code_properties >> 1 & 1 != 0
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_KERNARG_SEGMENT_PTR (bit 3).
    pub fn kernarg_ptr(&self) -> bool {
        self.code_properties >> 3 & 1 != 0
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_DISPATCH_ID (bit 4).
    pub fn dispatch_id(&self) -> bool {
        self.code_properties >> 4 & 1 != 0
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (bit 6).
    pub fn private_segment_size(&self) -> bool {
        self.code_properties >> 6 & 1 != 0
    }
    /// KERNEL_CODE_PROPERTIES.ENABLE_WAVEFRONT_SIZE32 (bit 10): 32 when set, else 64.
    pub fn wave_size(&self) -> u32 {
        if self.code_properties >> 10 & 1 != 0 {
            32
        } else {
            64
        }
    }
    /// VGPRs allocated per lane: rsrc1 GRANULATED_WORKITEM_VGPR_COUNT (bits 5:0),
    /// in granules of 8 (wave32) or 4 (wave64) on gfx11.
    pub fn vgpr_count(&self) -> u32 {
        let granule = if self.wave_size() == 32 { 8 } else { 4 };
        ((self.rsrc1 & 0x3f) + 1) * granule
    }
}
