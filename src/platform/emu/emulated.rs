//! What the emulator puts where silicon's answer cannot be known here: an
//! injected `v_xad_u32` fault and a stand-in for the modifier bits (set by
//! tests of on-device checks, [`super::EmuDevice`]), and the hardware id a
//! wave reads with `s_getreg_b32` (emulated values in the generation's
//! layout).

use super::fault::WaveAt;

/// A stand-in for what silicon does with the modifier bits of `v_xad_u32`
/// ([`super::EmuDevice::set_modifier_stand_in`]): the result of global lane `lane`
/// of the device's launch number `launch` (from 1), for sources `s` and the
/// instruction's modifiers.
pub trait ModifierStandIn: Send + Sync {
    fn xad(&self, mods: crate::isa::Modifiers, s: [u32; 3], lane: u64, launch: u64) -> u32;
}

/// An injected `v_xad_u32` fault ([`super::EmuDevice::set_xad_faults`]): every
/// `v_xad_u32` global lane `lane` of a dispatch executes gets bit `bit` of its
/// result flipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XadFault {
    pub lane: u64,
    pub bit: u8,
}

/// Compute units (gfx9) or WGPs (gfx10+) an emulated device's hardware ids
/// name unless [`super::EmuDevice::set_compute_units`] says otherwise.
pub const EMULATED_COMPUTE_UNITS: u32 = 8;

/// The emulated hardware id of the wave at `at` on a device of `units` compute
/// units (gfx9) or WGPs (gfx10+). Emulated values, not hardware's: the unit
/// is workgroup id x mod `units` (1-D dispatches, as every harness kernel's),
/// spread over shader engines and arrays as below; SIMD = wave index in the
/// workgroup mod 4, wave slot = wave index / 4. Field layouts (the
/// generation's [`crate::isa::HwIdLayout`], which the soak host decodes too):
/// - gfx9 HW_ID: WAVE_ID 3:0, SIMD_ID 5:4, CU_ID 11:8 (unit mod 16),
///   SH_ID 12 ((unit / 16) mod 2), SE_ID 14:13 (unit / 32).
/// - gfx10+ HW_ID1: WAVE_ID 4:0, SIMD_ID 9:8, WGP_ID 13:10 (unit mod 4),
///   SA_ID 16 ((unit / 4) mod 2), SE_ID 20:18 (unit / 8).
pub fn hw_id(generation: crate::isa::Generation, at: WaveAt, units: u32) -> u32 {
    let layout = generation.hw_id();
    let unit = at.workgroup[0] % units.max(1);
    let (simd, slot) = (at.index & 3, at.index >> 2);
    let per = layout.emulated_per_array;
    let put = |(shift, bits): (u32, u32), value: u32| (value & ((1 << bits) - 1)) << shift;
    put(layout.wave, slot)
        | put(layout.simd, simd)
        | put(layout.unit, unit % per)
        | put(layout.array, unit / per)
        | put(layout.se, unit / per >> layout.array.1)
}
