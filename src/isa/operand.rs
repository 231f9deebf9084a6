//! Operand codes: what a source field's number means (scalar registers, the
//! special registers at fixed codes, inline constants, the literal), the
//! assembler's names for registers, and the DPP control that permutes src0.
//! The codes are gfx10/gfx11's; gfx9 differs (M0 at 124, no `null`,
//! flat_scratch/xnack_mask at 102-105): `gfx9.rs` maps its codes onto these.

/// A source operand, resolved from its 9-bit (or 8-bit scalar) code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// s0-s105, vcc_lo/hi (106/107), ttmp0-15 (108-123), m0 (125), exec_lo/hi (126/127).
    Sgpr(u8),
    /// v0-v255, or on CDNA5 (gfx1250) v0-v1023: the encoding's 8 bits plus
    /// the `s_set_vgpr_msb` bits the emulator's program pass adds.
    Vgpr(u16),
    /// An inline constant, already widened for the operand (64-bit operands see
    /// 64-bit integers and f64 bit patterns).
    Const(u64),
    /// The instruction's 32-bit literal dword (code 255).
    Lit(u32),
    /// `null` (124): reads 0.
    Null,
    /// `src_scc` (253): 0 or 1.
    Scc,
    /// `src_vccz` (251).
    Vccz,
    /// `src_execz` (252).
    Execz,
}

/// A DPP permutation of src0 (an instruction without one has `dpp: None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dpp {
    /// DPP16 word (src0 code 0xFA).
    Dpp16 {
        ctrl: u16,
        row_mask: u8,
        bank_mask: u8,
        bound_ctrl: bool,
        fi: bool,
    },
    /// DPP8 word (src0 code 0xE9, or 0xEA when `fi`).
    Dpp8 { sel: [u8; 8], fi: bool },
}

/// The SGPR index of VCC_LO.
pub const VCC: u8 = 106;
/// The SGPR index of `null`.
pub const NULL: u8 = 124;
/// The SGPR index of M0.
pub const M0: u8 = 125;
/// The SGPR index of EXEC_LO.
pub const EXEC: u8 = 126;

/// Source code of the literal dword that follows the instruction.
pub const LITERAL: u32 = 255;
/// src0 codes that mean "a DPP word follows": DPP16, DPP8, DPP8 with fi.
pub const DPP16: u32 = 0xFA;
pub const DPP8: u32 = 0xE9;
pub const DPP8_FI: u32 = 0xEA;

/// The value of inline-constant code `code` (128-208, 240-248) for a 32-bit
/// (`wide == false`) or 64-bit operand; `None` for any other code.
pub fn inline_constant(code: u32, wide: bool) -> Option<u64> {
    match code {
        128..=192 => Some(u64::from(code - 128)),
        193..=208 => {
            let v = -((code - 192) as i64);
            Some(if wide { v as u64 } else { u64::from(v as u32) })
        }
        240..=248 => Some(inline_float(code, wide)),
        _ => None,
    }
}

fn inline_float(code: u32, wide: bool) -> u64 {
    // 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)
    const F32: [u32; 9] = [
        0x3f00_0000,
        0xbf00_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4000_0000,
        0xc000_0000,
        0x4080_0000,
        0xc080_0000,
        0x3e22_f983,
    ];
    const F64: [u64; 9] = [
        0x3fe0_0000_0000_0000,
        0xbfe0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0xc000_0000_0000_0000,
        0x4010_0000_0000_0000,
        0xc010_0000_0000_0000,
        0x3fc4_5f30_6dc9_c882,
    ];
    let i = (code - 240) as usize;
    if wide {
        F64[i]
    } else {
        u64::from(F32[i])
    }
}

/// The assembler's name of an f32 inline constant's bit pattern.
pub fn float_name(bits: u32) -> Option<&'static str> {
    Some(match bits {
        0x3f00_0000 => "0.5",
        0xbf00_0000 => "-0.5",
        0x3f80_0000 => "1.0",
        0xbf80_0000 => "-1.0",
        0x4000_0000 => "2.0",
        0xc000_0000 => "-2.0",
        0x4080_0000 => "4.0",
        0xc080_0000 => "-4.0",
        0x3e22_f983 => "0.15915494",
        _ => return None,
    })
}

/// The assembler's name of a 64-bit operand's inline float constant (the f64
/// bit patterns codes 240-248 widen to).
pub fn float64_name(bits: u64) -> Option<&'static str> {
    (240..=248)
        .find(|&code| inline_float(code, true) == bits)
        .and_then(|code| float_name(inline_float(code, false) as u32))
}

/// Assembler name of scalar register code `r`.
pub fn reg_name(r: u8) -> String {
    match r {
        0..=105 => format!("s{r}"),
        106 => "vcc_lo".into(),
        107 => "vcc_hi".into(),
        108..=123 => format!("ttmp{}", r - 108),
        124 => "null".into(),
        125 => "m0".into(),
        126 => "exec_lo".into(),
        127 => "exec_hi".into(),
        _ => format!("s?{r}"),
    }
}

/// Assembler name of the scalar register pair starting at code `r`.
pub fn pair_name(r: u8) -> String {
    match r {
        106 => "vcc".into(),
        126 => "exec".into(),
        124 => "null".into(),
        108..=123 => format!("ttmp[{}:{}]", r - 108, r - 107),
        _ => format!("s[{}:{}]", r, r + 1),
    }
}

/// An `s_setreg*` value as LLVM prints it: the SGPR, or the literal in
/// decimal up to 64 and in hex above.
pub(crate) fn setreg_value(src: Src) -> String {
    match src {
        Src::Lit(v) if v <= 64 => v.to_string(),
        Src::Lit(v) => format!("0x{v:x}"),
        other => other.show(1),
    }
}
