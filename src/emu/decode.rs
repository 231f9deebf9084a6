//! gfx11 machine code -> [`Inst`]. Field layouts follow LLVM's gfx11 encodings
//! (checked against `llvm-mc-19 -show-encoding`, see `tests/emu_decode.rs`).
//!
//! Every field is decoded as encoded. Where a field is set that would change
//! the meaning of an integer op (neg/abs/op_sel/omod/clamp, DPP source
//! modifiers), or where the emulator does not model a form, decoding returns
//! [`DecodeError::Unsupported`] with the offset, the raw dwords and the format:
//! never a silently different instruction, never a panic.

use super::ops::{self, Format, Op, OpInfo, Shape};
use std::fmt;

/// A source operand, resolved from its 9-bit (or 8-bit scalar) code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// s0-s105, vcc_lo/hi (106/107), ttmp0-15 (108-123), m0 (125), exec_lo/hi (126/127).
    Sgpr(u8),
    Vgpr(u8),
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

/// A DPP permutation of src0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dpp {
    None,
    /// DPP16 word (src0 code 0xFA).
    Dpp16 { ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool, fi: bool },
    /// DPP8 word (src0 code 0xE9, or 0xEA when `fi`).
    Dpp8 { sel: [u8; 8], fi: bool },
}

/// How the instruction was encoded (affects display and implicit operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enc {
    /// The op's native format (SOP*, SMEM, FLAT/GLOBAL, or VOP1/VOP2/VOPC `_e32`).
    Native,
    /// The 64-bit VOP3 (or VOP3SD) encoding of a VOP1/VOP2/VOPC op, or a VOP3-only op.
    Vop3,
}

/// One decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Byte offset (virtual address in the code object) of the first byte.
    pub offset: u64,
    /// Length in bytes (4, 8 or 12).
    pub len: u8,
    /// The raw dwords (unused ones are 0).
    pub dwords: [u32; 3],
    pub op: Op,
    pub enc: Enc,
    /// Destination register: VGPR for vector results and memory loads, SGPR
    /// for scalar results (SOP*, SMEM sdata, v_readfirstlane/v_readlane).
    pub dst: u8,
    /// Scalar mask destination of VOPC (VCC for e32, SDST for e64; EXEC for
    /// v_cmpx) and VOP3SD carry outs (VCC for VOP2 e32 carry ops).
    pub sdst: u8,
    pub src: [Src; 3],
    pub dpp: Dpp,
    /// SOPK/SOPP simm16 (sign-extended), SMEM/FLAT immediate offset.
    pub imm: i32,
    /// SMEM sbase / FLAT vaddr register.
    pub addr: u8,
    /// FLAT store data VGPR.
    pub data: u8,
    /// GLOBAL saddr SGPR pair, or SMEM soffset SGPR; `None` when `off`/`null`.
    pub saddr: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("truncated {format} instruction at offset 0x{offset:x}: needs {needed} bytes, {available} left (dwords {})", hex(dwords))]
    Truncated { offset: u64, format: &'static str, needed: usize, available: usize, dwords: Vec<u32> },
    #[error("unsupported instruction at offset 0x{offset:x}: dwords [{}] decoded as {format}: {reason}", hex(dwords))]
    Unsupported { offset: u64, dwords: Vec<u32>, format: String, reason: String },
}

fn hex(dwords: &[u32]) -> String {
    dwords.iter().map(|d| format!("{d:08X}")).collect::<Vec<_>>().join(" ")
}

/// The SGPR index of VCC_LO.
pub const VCC: u8 = 106;
/// The SGPR index of `null`.
pub const NULL: u8 = 124;
/// The SGPR index of M0.
pub const M0: u8 = 125;
/// The SGPR index of EXEC_LO.
pub const EXEC: u8 = 126;

/// Decode the instruction at the start of `bytes` (offset 0). Returns the
/// instruction and its length in bytes.
pub fn decode_one(bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    decode_at(bytes, 0, 0).map(|i| (i, i.len as usize))
}

/// Decode the instruction at `bytes[pos..]`; `base` is the virtual address of
/// `bytes[0]`, so offsets in the result and in errors are `base + pos`.
pub fn decode_at(bytes: &[u8], pos: usize, base: u64) -> Result<Inst, DecodeError> {
    let mut d = Decoder { bytes, pos, offset: base.wrapping_add(pos as u64), words: [0; 3], nwords: 0, format: "?" };
    d.decode()
}

struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
    offset: u64,
    words: [u32; 3],
    nwords: usize,
    format: &'static str,
}

fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1u32 << (hi - lo + 1)) - 1)
}

impl<'a> Decoder<'a> {
    /// Dword `i` of the instruction, reading it from the stream if needed.
    fn word(&mut self, i: usize) -> Result<u32, DecodeError> {
        while self.nwords <= i {
            let at = self.pos + 4 * self.nwords;
            match self.bytes.get(at..at + 4) {
                Some(b) => {
                    self.words[self.nwords] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    self.nwords += 1;
                }
                None => {
                    let available = self.bytes.len().saturating_sub(self.pos);
                    let mut dwords: Vec<u32> = self.words[..self.nwords].to_vec();
                    // Show the trailing partial dword too, zero-padded.
                    if available > 4 * self.nwords {
                        let mut tail = [0u8; 4];
                        let rest = &self.bytes[self.pos + 4 * self.nwords..];
                        tail[..rest.len()].copy_from_slice(rest);
                        dwords.push(u32::from_le_bytes(tail));
                    }
                    return Err(DecodeError::Truncated {
                        offset: self.offset,
                        format: self.format,
                        needed: 4 * (i + 1),
                        available,
                        dwords,
                    });
                }
            }
        }
        Ok(self.words[i])
    }

    fn unsupported(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError::Unsupported {
            offset: self.offset,
            dwords: self.words[..self.nwords.max(1)].to_vec(),
            format: self.format.to_string(),
            reason: reason.into(),
        }
    }

    fn inst(&self, op: Op, enc: Enc) -> Inst {
        Inst {
            offset: self.offset,
            len: 0,
            dwords: [0; 3],
            op,
            enc,
            dst: 0,
            sdst: 0,
            src: [Src::Null; 3],
            dpp: Dpp::None,
            imm: 0,
            addr: 0,
            data: 0,
            saddr: None,
        }
    }

    fn row(&self, format: Format, opcode: u32) -> Result<&'static OpInfo, DecodeError> {
        ops::lookup(format, opcode as u16)
            .ok_or_else(|| self.unsupported(format!("opcode {opcode} (0x{opcode:x}) is not supported")))
    }

    fn decode(&mut self) -> Result<Inst, DecodeError> {
        let w0 = self.word(0)?;
        let mut inst = match w0 >> 23 {
            0x17D => self.sop1(w0)?,
            0x17E => self.sopc(w0)?,
            0x17F => self.sopp(w0)?,
            _ if w0 >> 28 == 0xB => self.sopk(w0)?,
            _ if w0 >> 30 == 0b10 => self.sop2(w0)?,
            _ => match w0 >> 26 {
                0b111101 => self.smem(w0)?,
                0b110101 => self.vop3(w0)?,
                0b110111 => self.flat(w0)?,
                _ if w0 >> 25 == 0b0111111 => self.vop1(w0)?,
                _ if w0 >> 25 == 0b0111110 => self.vopc(w0)?,
                _ if w0 >> 31 == 0 => self.vop2(w0)?,
                enc => {
                    self.format = match enc {
                        0b110110 => "DS",
                        0b111000 => "MUBUF",
                        0b111010 => "MTBUF",
                        0b111100 => "MIMG",
                        0b111110 => "EXP",
                        0b110011 => "VOP3P",
                        0b110010 => "VOPD",
                        _ => "an unknown encoding",
                    };
                    return Err(self.unsupported("this encoding family is not emulated"));
                }
            },
        };
        inst.len = (4 * self.nwords) as u8;
        inst.dwords = self.words;
        Ok(inst)
    }

    /// Scalar source code (8 bits in SOP*, 9 bits in VALU). `wide`: 64-bit operand.
    fn src(&mut self, code: u32, wide: bool, literal_at: usize) -> Result<Src, DecodeError> {
        Ok(match code {
            0..=123 | 125..=127 => {
                if wide && code % 2 == 1 {
                    return Err(self.unsupported(format!("64-bit scalar operand starts at odd register {}", reg_name(code as u8))));
                }
                Src::Sgpr(code as u8)
            }
            124 => Src::Null,
            128..=192 => Src::Const(u64::from(code - 128)),
            193..=208 => {
                let v = -((code - 192) as i64);
                Src::Const(if wide { v as u64 } else { u64::from(v as u32) })
            }
            240..=248 => Src::Const(inline_float(code, wide)),
            251 => Src::Vccz,
            252 => Src::Execz,
            253 => Src::Scc,
            255 => {
                let lit = self.word(literal_at)?;
                if wide && lit >> 31 == 1 {
                    return Err(self.unsupported(format!(
                        "unsettled: 32-bit literal 0x{lit:08x} with bit 31 set in a 64-bit operand \
                         (sign- or zero-extension depends on the operand type in hardware)"
                    )));
                }
                Src::Lit(lit)
            }
            256..=511 => Src::Vgpr((code - 256) as u8),
            other => return Err(self.unsupported(format!("source operand code {other} is not emulated"))),
        })
    }

    fn sop2(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOP2";
        let row = self.row(Format::Sop2, bits(w0, 29, 23))?;
        let (w_a, w_b) = match row.shape {
            Shape::S2w => (true, true),
            Shape::S2sh => (true, false),
            _ => (false, false),
        };
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), w_a, 1)?;
        inst.src[1] = self.src(bits(w0, 15, 8), w_b, 1)?;
        inst.dst = self.sdst(bits(w0, 22, 16), w_a)?;
        Ok(inst)
    }

    fn sdst(&mut self, code: u32, wide: bool) -> Result<u8, DecodeError> {
        if code > 127 || (wide && code % 2 == 1) {
            return Err(self.unsupported(format!("scalar destination code {code} is not a writable register{}", if wide { " pair" } else { "" })));
        }
        if (108..=123).contains(&code) {
            return Err(self.unsupported("trap temporaries (ttmp) are read-only outside the trap handler"));
        }
        Ok(code as u8)
    }

    fn sop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOP1";
        let row = self.row(Format::Sop1, bits(w0, 15, 8))?;
        let wide = row.shape == Shape::S1w;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), wide, 1)?;
        inst.dst = self.sdst(bits(w0, 22, 16), wide)?;
        Ok(inst)
    }

    fn sopc(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPC";
        let row = self.row(Format::Sopc, bits(w0, 22, 16))?;
        let wide = row.shape == Shape::Scw;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), wide, 1)?;
        inst.src[1] = self.src(bits(w0, 15, 8), wide, 1)?;
        Ok(inst)
    }

    fn sopk(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPK";
        let row = self.row(Format::Sopk, bits(w0, 27, 23))?;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.imm = i32::from(w0 as u16 as i16);
        let code = bits(w0, 22, 16);
        inst.dst = if row.shape == Shape::KWait { code as u8 } else { self.sdst(code, false)? };
        Ok(inst)
    }

    fn sopp(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOPP";
        let row = self.row(Format::Sopp, bits(w0, 22, 16))?;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.imm = i32::from(w0 as u16 as i16);
        if row.op == Op::SSendmsg && w0 & 0xffff != 3 {
            return Err(self.unsupported(format!(
                "s_sendmsg message {} (only MSG_DEALLOC_VGPRS = 3 is emulated)",
                w0 & 0xffff
            )));
        }
        Ok(inst)
    }

    fn smem(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SMEM";
        let w1 = self.word(1)?;
        let row = self.row(Format::Smem, bits(w0, 25, 18))?;
        let Shape::Load(n) = row.shape else { return Err(self.unsupported("not a load")) };
        let mut inst = self.inst(row.op, Enc::Native);
        inst.addr = (bits(w0, 5, 0) * 2) as u8;
        let sdata = bits(w0, 12, 6);
        if sdata + u32::from(n) > 106 {
            return Err(self.unsupported(format!("destination s[{sdata}:{}] runs past s105", sdata + u32::from(n) - 1)));
        }
        inst.dst = sdata as u8;
        // 21-bit signed byte offset.
        inst.imm = ((bits(w1, 20, 0) << 11) as i32) >> 11;
        let soffset = bits(w1, 31, 25);
        inst.saddr = match soffset {
            124 => None,
            0..=105 | 106 | 107 | 125 => Some(soffset as u8),
            other => return Err(self.unsupported(format!("soffset code {other} is not emulated"))),
        };
        if bits(w0, 17, 15) != 0 || bits(w1, 24, 21) != 0 {
            return Err(self.unsupported("reserved SMEM bits are set"));
        }
        Ok(inst)
    }

    fn flat(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "FLAT";
        let w1 = self.word(1)?;
        let seg = bits(w0, 17, 16);
        let format = match seg {
            0 => Format::Flat,
            2 => Format::Global,
            1 => {
                self.format = "SCRATCH";
                return Err(self.unsupported("scratch (private) memory is not emulated"));
            }
            _ => return Err(self.unsupported("segment 3 is reserved")),
        };
        self.format = format.name();
        let row = self.row(format, bits(w0, 24, 18))?;
        let mut inst = self.inst(row.op, Enc::Native);
        let raw_offset = bits(w0, 12, 0);
        inst.imm = match format {
            Format::Flat if raw_offset >> 12 == 1 => {
                return Err(self.unsupported("flat offset bit 12 set: flat offsets are 12-bit unsigned on gfx11"))
            }
            Format::Flat => raw_offset as i32,
            _ => ((raw_offset << 19) as i32) >> 19,
        };
        if bits(w0, 25, 25) != 0 || bits(w1, 23, 23) != 0 {
            return Err(self.unsupported("reserved (or scratch-only SVE) bits are set"));
        }
        inst.addr = bits(w1, 7, 0) as u8;
        inst.data = bits(w1, 15, 8) as u8;
        inst.dst = bits(w1, 31, 24) as u8;
        let saddr = bits(w1, 22, 16);
        inst.saddr = match (format, saddr) {
            (_, 124) => None,
            (Format::Flat, _) => return Err(self.unsupported("flat instructions take no saddr on gfx11")),
            (_, s) if s % 2 == 0 && (s <= 104 || s == 106 || s == 126) => Some(s as u8),
            (_, s) => return Err(self.unsupported(format!("saddr code {s} is not an aligned SGPR pair"))),
        };
        Ok(inst)
    }

    fn vop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP1";
        let row = self.row(Format::Vop1, bits(w0, 16, 9))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        let dst = bits(w0, 24, 17);
        if row.shape == Shape::ToScalar1 {
            inst.dst = self.sdst(dst, false)?;
        } else {
            inst.dst = dst as u8;
        }
        Ok(inst)
    }

    fn vop2(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP2";
        let row = self.row(Format::Vop2, bits(w0, 30, 25))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u8);
        inst.dst = bits(w0, 24, 17) as u8;
        match row.shape {
            Shape::Cnd => inst.src[2] = Src::Sgpr(VCC),
            Shape::Ci => {
                inst.src[2] = Src::Sgpr(VCC);
                inst.sdst = VCC;
            }
            Shape::V2 => {}
            _ => return Err(self.unsupported(format!("{} has no VOP2 form", row.mnemonic))),
        }
        Ok(inst)
    }

    fn vopc(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOPC";
        let row = self.row(Format::Vopc, bits(w0, 24, 17))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u8);
        inst.sdst = if matches!(row.shape, Shape::Cmpx | Shape::Cmpxw) { EXEC } else { VCC };
        Ok(inst)
    }

    /// src0 of an e32 encoding: a 9-bit source, or a DPP word after the dword.
    fn e32_src0(&mut self, inst: &mut Inst, row: &OpInfo, code: u32) -> Result<(), DecodeError> {
        let wide = matches!(row.shape, Shape::Cmpw | Shape::Cmpxw);
        match code {
            0xFA | 0xE9 | 0xEA => {
                self.check_dpp_shape(row)?;
                let (src0, dpp) = self.dpp_word(code, 1)?;
                inst.src[0] = src0;
                inst.dpp = dpp;
            }
            _ => inst.src[0] = self.src(code, wide, 1)?,
        }
        Ok(())
    }

    fn check_dpp_shape(&self, row: &OpInfo) -> Result<(), DecodeError> {
        match row.shape {
            Shape::V1 | Shape::V2 | Shape::V3 | Shape::Cnd => Ok(()),
            _ => Err(self.unsupported(format!(
                "DPP on {} is not emulated (only vector results without scalar outputs)",
                row.mnemonic
            ))),
        }
    }

    /// The DPP16/DPP8 word at dword `at`. Returns the (VGPR) src0 and the control.
    fn dpp_word(&mut self, code: u32, at: usize) -> Result<(Src, Dpp), DecodeError> {
        let w = self.word(at)?;
        let src0 = Src::Vgpr(bits(w, 7, 0) as u8);
        if code == 0xFA {
            let ctrl = bits(w, 16, 8) as u16;
            let valid = matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141 | 0x150..=0x15f | 0x160..=0x16f);
            if !valid {
                return Err(self.unsupported(format!("DPP16 control 0x{ctrl:03x} is not valid on gfx11")));
            }
            if bits(w, 17, 17) != 0 {
                return Err(self.unsupported("reserved DPP16 bit 17 is set"));
            }
            if bits(w, 23, 20) != 0 {
                return Err(self.unsupported("DPP16 source neg/abs modifiers on an integer op"));
            }
            Ok((
                src0,
                Dpp::Dpp16 {
                    ctrl,
                    row_mask: bits(w, 31, 28) as u8,
                    bank_mask: bits(w, 27, 24) as u8,
                    bound_ctrl: bits(w, 19, 19) == 1,
                    fi: bits(w, 18, 18) == 1,
                },
            ))
        } else {
            let mut sel = [0u8; 8];
            for (i, s) in sel.iter_mut().enumerate() {
                *s = bits(w, 10 + 3 * i as u32, 8 + 3 * i as u32) as u8;
            }
            Ok((src0, Dpp::Dpp8 { sel, fi: code == 0xEA }))
        }
    }

    fn vop3(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP3";
        let w1 = self.word(1)?;
        let opcode = bits(w0, 25, 16);
        let row = match opcode {
            0x000..=0x0ff => self.row(Format::Vopc, opcode)?,
            0x100..=0x17f => self.row(Format::Vop2, opcode - 0x100)?,
            0x180..=0x1ff => self.row(Format::Vop1, opcode - 0x180)?,
            _ => self.row(Format::Vop3, opcode)?,
        };
        let sd = matches!(row.shape, Shape::Co | Shape::Ci | Shape::Mad64);
        if sd {
            self.format = "VOP3SD";
        }
        let mut inst = self.inst(row.op, Enc::Vop3);
        let omod = bits(w1, 28, 27);
        let neg = bits(w1, 31, 29);
        let clamp = bits(w0, 15, 15);
        let mut mods = Vec::new();
        if !sd && bits(w0, 10, 8) != 0 {
            mods.push("abs");
        }
        if !sd && bits(w0, 14, 11) != 0 {
            mods.push("op_sel");
        }
        if clamp != 0 {
            mods.push("clamp");
        }
        if omod != 0 {
            mods.push("omod");
        }
        if neg != 0 {
            mods.push("neg");
        }
        if !mods.is_empty() {
            return Err(self.unsupported(format!(
                "{} set on integer op {}: it would change the result and is not emulated",
                mods.join("/"),
                row.mnemonic
            )));
        }
        let code0 = bits(w1, 8, 0);
        let code1 = bits(w1, 17, 9);
        let code2 = bits(w1, 26, 18);
        let (nsrc, wide) = match row.shape {
            Shape::V1 => (1, [false; 3]),
            Shape::V2 | Shape::Co | Shape::Cmp | Shape::Cmpx | Shape::ToScalar2 | Shape::WriteLane => (2, [false; 3]),
            Shape::Cmpw | Shape::Cmpxw => (2, [true, true, false]),
            Shape::Sh64 => (2, [false, true, false]),
            Shape::V3 | Shape::Ci | Shape::Cnd => (3, [false; 3]),
            Shape::Mad64 => (3, [false, false, true]),
            Shape::ToScalar1 => (1, [false; 3]),
            _ => return Err(self.unsupported(format!("{} has no VOP3 form", row.mnemonic))),
        };
        let is_dpp = matches!(code0, 0xFA | 0xE9 | 0xEA);
        if is_dpp {
            self.format = if code0 == 0xFA { "VOP3_DPP16" } else { "VOP3_DPP8" };
            self.check_dpp_shape(row)?;
            let (src0, dpp) = self.dpp_word(code0, 2)?;
            inst.src[0] = src0;
            inst.dpp = dpp;
        } else {
            inst.src[0] = self.src(code0, wide[0], 2)?;
        }
        let codes = [code0, code1, code2];
        for i in 1..nsrc {
            // Carry-in and select masks are lane masks: as wide as the wave, which
            // the decoder does not know; their SGPR alignment is checked at launch.
            let mask_src = i == 2 && matches!(row.shape, Shape::Ci | Shape::Cnd);
            inst.src[i] = self.src(codes[i], wide[i], 2)?;
            if mask_src && matches!(inst.src[i], Src::Vgpr(_)) {
                return Err(self.unsupported(format!("{}: lane mask operand must be scalar", row.mnemonic)));
            }
            if is_dpp && matches!(inst.src[i], Src::Lit(_)) {
                return Err(self.unsupported("a literal cannot accompany a DPP word"));
            }
        }
        if is_dpp && !matches!(inst.src[1], Src::Vgpr(_)) && nsrc >= 2 {
            return Err(self.unsupported("DPP src1 must be a VGPR on gfx1100-1103"));
        }
        if matches!(row.shape, Shape::ToScalar2 | Shape::WriteLane) && matches!(inst.src[1], Src::Vgpr(_)) {
            return Err(self.unsupported(format!("{}: the lane select must be scalar", row.mnemonic)));
        }
        if row.shape == Shape::WriteLane && matches!(inst.src[0], Src::Vgpr(_)) {
            return Err(self.unsupported("v_writelane_b32: the value must be scalar"));
        }
        let vdst = bits(w0, 7, 0);
        match row.shape {
            Shape::Cmp | Shape::Cmpw => inst.sdst = self.sdst(vdst, false)?,
            Shape::Cmpx | Shape::Cmpxw => inst.sdst = EXEC,
            Shape::ToScalar1 | Shape::ToScalar2 => inst.dst = self.sdst(vdst, false)?,
            _ => inst.dst = vdst as u8,
        }
        if sd {
            inst.sdst = self.sdst(bits(w0, 14, 8), false)?;
        }
        Ok(inst)
    }
}

fn inline_float(code: u32, wide: bool) -> u64 {
    // 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)
    const F32: [u32; 9] =
        [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];
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

fn float_name(bits: u32) -> Option<&'static str> {
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

fn signed_hex(v: i32) -> String {
    if v < 0 {
        format!("-0x{:x}", -(v as i64))
    } else {
        format!("0x{v:x}")
    }
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

fn pair_name(r: u8) -> String {
    match r {
        106 => "vcc".into(),
        126 => "exec".into(),
        124 => "null".into(),
        108..=123 => format!("ttmp[{}:{}]", r - 108, r - 107),
        _ => format!("s[{}:{}]", r, r + 1),
    }
}

fn range(prefix: char, r: u8, n: u32) -> String {
    if n <= 1 {
        format!("{prefix}{r}")
    } else {
        format!("{prefix}[{}:{}]", r, u32::from(r) + n - 1)
    }
}

impl Src {
    fn show(&self, width_dwords: u32) -> String {
        match *self {
            Src::Sgpr(r) if width_dwords == 2 => pair_name(r),
            Src::Sgpr(r) => reg_name(r),
            Src::Vgpr(r) => range('v', r, width_dwords),
            Src::Const(c) if width_dwords == 1 && float_name(c as u32).is_some() => float_name(c as u32).unwrap_or("?").into(),
            Src::Const(c) => {
                let as_i = if width_dwords == 2 { c as i64 } else { i64::from(c as u32 as i32) };
                if (-16..=64).contains(&as_i) {
                    format!("{as_i}")
                } else {
                    format!("0x{c:x}")
                }
            }
            Src::Lit(l) => format!("0x{l:x}"),
            Src::Null => "null".into(),
            Src::Scc => "src_scc".into(),
            Src::Vccz => "src_vccz".into(),
            Src::Execz => "src_execz".into(),
        }
    }
}

impl fmt::Display for Inst {
    /// A disassembly close to LLVM's syntax (enough to recognise the
    /// instruction in an error message; not meant to round-trip).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = ops::info(self.op);
        let vop = matches!(row.format, Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3);
        let suffix = match (self.dpp, self.enc) {
            (Dpp::None, _) if !vop || row.format == Format::Vop3 => "",
            (Dpp::None, Enc::Native) if row.shape == Shape::ToScalar1 => "",
            (Dpp::None, Enc::Vop3) if matches!(row.shape, Shape::Co | Shape::ToScalar1) => "",
            (Dpp::None, Enc::Vop3) => "_e64",
            (Dpp::None, Enc::Native) => "_e32",
            (_, Enc::Vop3) => "_e64_dpp",
            (_, Enc::Native) => "_dpp",
        };
        write!(f, "{}{}", row.mnemonic, suffix)?;
        let s = &self.src;
        // Modifiers LLVM prints after the operand list, space-separated.
        let mut trailing = String::new();
        let ops: Vec<String> = match row.shape {
            Shape::S1 | Shape::S1w => {
                let w = if row.shape == Shape::S1w { 2 } else { 1 };
                vec![if w == 2 { pair_name(self.dst) } else { reg_name(self.dst) }, s[0].show(w)]
            }
            Shape::S2 => vec![reg_name(self.dst), s[0].show(1), s[1].show(1)],
            Shape::S2w => vec![pair_name(self.dst), s[0].show(2), s[1].show(2)],
            Shape::S2sh => vec![pair_name(self.dst), s[0].show(2), s[1].show(1)],
            Shape::Sc => vec![s[0].show(1), s[1].show(1)],
            Shape::Scw => vec![s[0].show(2), s[1].show(2)],
            Shape::K | Shape::KWait => vec![reg_name(self.dst), format!("0x{:x}", self.imm as u16)],
            Shape::Nop | Shape::Control => match self.op {
                Op::SEndpgm | Op::SCodeEnd | Op::SBarrier => vec![],
                Op::SNop | Op::SSleep => vec![format!("{}", self.imm as u16)],
                _ => vec![format!("0x{:x}", self.imm as u16)],
            },
            Shape::Branch => vec![format!("{} (to 0x{:x})", self.imm, self.branch_target())],
            Shape::Load(n) => {
                let mut v = vec![range('s', self.dst, u32::from(n)), pair_name(self.addr)];
                match self.saddr {
                    Some(so) => {
                        v.push(reg_name(so));
                        if self.imm != 0 {
                            trailing = format!(" offset:{}", signed_hex(self.imm));
                        }
                    }
                    None => v.push(signed_hex(self.imm)),
                }
                v
            }
            Shape::V1 => vec![format!("v{}", self.dst), s[0].show(1)],
            Shape::V2 => vec![format!("v{}", self.dst), s[0].show(1), s[1].show(1)],
            Shape::V3 => vec![format!("v{}", self.dst), s[0].show(1), s[1].show(1), s[2].show(1)],
            Shape::Cnd => vec![format!("v{}", self.dst), s[0].show(1), s[1].show(1), s[2].show(1)],
            Shape::Co => vec![format!("v{}", self.dst), reg_name(self.sdst), s[0].show(1), s[1].show(1)],
            Shape::Ci => vec![format!("v{}", self.dst), reg_name(self.sdst), s[0].show(1), s[1].show(1), s[2].show(1)],
            Shape::Mad64 => vec![range('v', self.dst, 2), reg_name(self.sdst), s[0].show(1), s[1].show(1), s[2].show(2)],
            Shape::Sh64 => vec![range('v', self.dst, 2), s[0].show(1), s[1].show(2)],
            Shape::Cmp => vec![reg_name(self.sdst), s[0].show(1), s[1].show(1)],
            Shape::Cmpw => vec![reg_name(self.sdst), s[0].show(2), s[1].show(2)],
            Shape::Cmpx => vec![s[0].show(1), s[1].show(1)],
            Shape::Cmpxw => vec![s[0].show(2), s[1].show(2)],
            Shape::ToScalar1 => vec![reg_name(self.dst), s[0].show(1)],
            Shape::ToScalar2 => vec![reg_name(self.dst), s[0].show(1), s[1].show(1)],
            Shape::WriteLane => vec![format!("v{}", self.dst), s[0].show(1), s[1].show(1)],
            Shape::MemLoad(n) | Shape::MemStore(n) => {
                let dwords = u32::from(n).div_ceil(4);
                let addr = if self.saddr.is_some() { format!("v{}", self.addr) } else { range('v', self.addr, 2) };
                let mut v = if matches!(row.shape, Shape::MemLoad(_)) {
                    vec![range('v', self.dst, dwords), addr]
                } else {
                    vec![addr, range('v', self.data, dwords)]
                };
                if row.format == Format::Global {
                    v.push(self.saddr.map(pair_name).unwrap_or_else(|| "off".into()));
                }
                if self.imm != 0 {
                    trailing = format!(" offset:{}", self.imm);
                }
                v
            }
        };
        if !ops.is_empty() {
            write!(f, " {}", ops.join(", "))?;
        }
        f.write_str(&trailing)?;
        match self.dpp {
            Dpp::None => Ok(()),
            Dpp::Dpp8 { sel, fi } => {
                write!(f, " dpp8:[{}]", sel.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","))?;
                if fi {
                    write!(f, " fi:1")?;
                }
                Ok(())
            }
            Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
                let c = match ctrl {
                    0x000..=0x0ff => format!(
                        "quad_perm:[{},{},{},{}]",
                        ctrl & 3,
                        (ctrl >> 2) & 3,
                        (ctrl >> 4) & 3,
                        (ctrl >> 6) & 3
                    ),
                    0x101..=0x10f => format!("row_shl:{}", ctrl & 15),
                    0x111..=0x11f => format!("row_shr:{}", ctrl & 15),
                    0x121..=0x12f => format!("row_ror:{}", ctrl & 15),
                    0x140 => "row_mirror".into(),
                    0x141 => "row_half_mirror".into(),
                    0x150..=0x15f => format!("row_share:{}", ctrl & 15),
                    0x160..=0x16f => format!("row_xmask:{}", ctrl & 15),
                    _ => format!("dpp_ctrl:0x{ctrl:x}"),
                };
                write!(f, " {c} row_mask:0x{row_mask:x} bank_mask:0x{bank_mask:x}")?;
                if bound_ctrl {
                    write!(f, " bound_ctrl:1")?;
                }
                if fi {
                    write!(f, " fi:1")?;
                }
                Ok(())
            }
        }
    }
}

impl Inst {
    /// The byte offset a SOPP branch goes to when taken.
    pub fn branch_target(&self) -> u64 {
        self.offset.wrapping_add(4).wrapping_add_signed(i64::from(self.imm) * 4)
    }

    pub fn mnemonic(&self) -> &'static str {
        ops::info(self.op).mnemonic
    }

    pub fn shape(&self) -> Shape {
        ops::info(self.op).shape
    }

    /// One past the highest VGPR this instruction reads or writes, for the
    /// launch-time check against the kernel's allocation.
    pub fn vgpr_end(&self) -> u32 {
        let shape = self.shape();
        let mut end = 0u32;
        let mut see = |r: u8, n: u32| end = end.max(u32::from(r) + n);
        let src_width = |i: usize| -> u32 {
            match (shape, i) {
                (Shape::Cmpw | Shape::Cmpxw, 0 | 1) => 2,
                (Shape::Sh64, 1) | (Shape::Mad64, 2) => 2,
                _ => 1,
            }
        };
        for (i, s) in self.src.iter().enumerate() {
            if let Src::Vgpr(r) = s {
                see(*r, src_width(i));
            }
        }
        match shape {
            Shape::V1 | Shape::V2 | Shape::V3 | Shape::Cnd | Shape::Co | Shape::Ci | Shape::WriteLane => see(self.dst, 1),
            Shape::Mad64 | Shape::Sh64 => see(self.dst, 2),
            Shape::MemLoad(n) => {
                see(self.dst, u32::from(n).div_ceil(4));
                see(self.addr, if self.saddr.is_some() { 1 } else { 2 });
            }
            Shape::MemStore(n) => {
                see(self.data, u32::from(n).div_ceil(4));
                see(self.addr, if self.saddr.is_some() { 1 } else { 2 });
            }
            _ => {}
        }
        end
    }
}
