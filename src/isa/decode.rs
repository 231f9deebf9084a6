//! Machine code -> [`Inst`] for a target's [`Isa`]. gfx10, gfx11 and gfx12
//! are decoded; field layouts follow LLVM's encodings (checked against
//! `llvm-mc-19 -show-encoding` for gfx1030/gfx1010, gfx1100 and gfx1200, see
//! `tests/isa/decode_oracle.rs`). What gfx10
//! lays out differently (SMEM, FLAT, m0/null numbering, VOP3 opcode ranges)
//! is described in [`super::gfx10`], which holds its FLAT reader. The two
//! share the SOP*, VOP1/2/C, VOP3 and DPP layouts; gfx12 re-laid SMEM (8-bit
//! opcode, 24-bit signed offset) and replaced FLAT/GLOBAL with the 96-bit
//! VFLAT/VGLOBAL encodings (24-bit signed offset in the third dword). Which
//! layout an instruction has is a value of its generation
//! ([`EncodingLayout`]): one decoder reads every generation, calling
//! [`super::gfx9`]'s readers for the GCN fields (operand codes, VOP3, SMEM,
//! FLAT) and [`super::gfx10`]'s for gfx10's FLAT. Both are `impl Decoder`
//! blocks in their own files, peers that import this one.
//!
//! The Isa's `dpp_src1_scalar` (gfx115x, gfx12) lets a DPP16/DPP8 VOP3 take an
//! SGPR or inline constant as src1; without it that form is refused, as
//! LLVM refuses to assemble it for gfx1100-1103.
//!
//! Every field is decoded as encoded. Where a field is set that would change
//! the meaning of an integer op (neg/abs/op_sel/omod/clamp, DPP source
//! modifiers; `v_xad_u32`'s VOP3 modifiers aside, decoded into
//! [`Modifiers`] for the emulator to compute or mark unsettled), or where
//! the emulator does not model a form, decoding returns
//! [`DecodeError::Unsupported`] with the offset, the raw dwords and the format:
//! never a silently different instruction, never a panic.

use super::operand::{
    inline_constant, reg_name, Dpp, Src, DPP16, DPP8, DPP8_FI, EXEC, LITERAL, VCC,
};
use super::table::{self, Format, Op, OpInfo, Shape};
use super::{EncodingLayout, Generation, Isa, SmemLayout, VmemLayout};

/// How the instruction was encoded (affects display and implicit operands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enc {
    /// The op's native format (SOP*, SMEM, FLAT/GLOBAL, or VOP1/VOP2/VOPC `_e32`).
    Native,
    /// The 64-bit VOP3 (or VOP3SD) encoding of a VOP1/VOP2/VOPC op, or a VOP3-only op.
    Vop3,
}

/// The VOP3 modifier fields as encoded: NEG (dword 1 bits 31:29, one bit
/// per source), OMOD (dword 1 bits 28:27), CLAMP (dword 0 bit 15), OPSEL
/// (dword 0 bits 14:11: src0, src1, src2, dst) and ABS (dword 0 bits 10:8,
/// one bit per source); the same positions on every generation's VOP3.
/// Decoded for `v_xad_u32` only: any other integer op with one set is
/// refused. What a set field does is the emulator's question (documented
/// on some targets, unsettled elsewhere), not the decoder's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modifiers {
    pub neg: u8,
    pub abs: u8,
    pub clamp: bool,
    pub op_sel: u8,
    pub omod: u8,
}

impl Modifiers {
    /// No field set.
    pub const NONE: Modifiers = Modifiers {
        neg: 0,
        abs: 0,
        clamp: false,
        op_sel: 0,
        omod: 0,
    };

    /// The fields of a VOP3's two dwords. `sd`: a VOP3SD/VOP3b form, whose
    /// bits 14:8 are the scalar destination, not ABS and OPSEL.
    pub fn read(w0: u32, w1: u32, sd: bool) -> Modifiers {
        Modifiers {
            neg: bits(w1, 31, 29) as u8,
            abs: if sd { 0 } else { bits(w0, 10, 8) as u8 },
            clamp: bits(w0, 15, 15) != 0,
            op_sel: if sd { 0 } else { bits(w0, 14, 11) as u8 },
            omod: bits(w1, 28, 27) as u8,
        }
    }

    /// Whether any field is set.
    #[inline(always)]
    pub fn any(&self) -> bool {
        *self != Modifiers::NONE
    }

    /// The names of the fields set, as LLVM spells the modifiers.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.abs != 0, "abs"),
            (self.op_sel != 0, "op_sel"),
            (self.clamp, "clamp"),
            (self.omod != 0, "omod"),
            (self.neg != 0, "neg"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect()
    }
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
    /// Wide enough for CDNA5's v0-v1023 (an SGPR code fits in its low byte).
    pub dst: u16,
    /// Scalar mask destination of VOPC (VCC for e32, SDST for e64; EXEC for
    /// v_cmpx) and VOP3SD carry outs (VCC for VOP2 e32 carry ops).
    pub sdst: u8,
    pub src: [Src; 3],
    /// The DPP permutation of src0, if the instruction has one.
    pub dpp: Option<Dpp>,
    /// VOP3 modifier fields (set only on `v_xad_u32`; none elsewhere).
    pub mods: Modifiers,
    /// SOPK/SOPP simm16 (sign-extended), SMEM/FLAT immediate offset.
    pub imm: i32,
    /// SMEM sbase / FLAT vaddr register.
    pub addr: u16,
    /// FLAT store data VGPR.
    pub data: u16,
    /// GLOBAL saddr SGPR pair, or SMEM soffset SGPR; `None` when `off`/`null`.
    pub saddr: Option<u8>,
    /// The generation it was decoded as (names and printing differ).
    pub generation: Generation,
    /// CDNA5 VGLOBAL `scale_offset` (dword 1 bit 16): the 32-bit VGPR offset
    /// is multiplied by the access size (LLVM 22 emits it for indexed loads).
    pub scale_offset: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The table has a column for the generation but no decoder reads its layouts yet.
    #[error("decoding {generation} is not implemented (instruction at offset 0x{offset:x})")]
    NotImplemented { generation: Generation, offset: u64 },
    #[error("truncated {format} instruction at offset 0x{offset:x}: needs {needed} bytes, {available} left (dwords {})", hex(dwords))]
    Truncated {
        offset: u64,
        format: &'static str,
        needed: usize,
        available: usize,
        dwords: Vec<u32>,
    },
    #[error(
        "unsupported instruction at offset 0x{offset:x}: dwords [{}] decoded as {format}: {reason}",
        hex(dwords)
    )]
    Unsupported {
        offset: u64,
        dwords: Vec<u32>,
        format: String,
        reason: String,
    },
}

impl DecodeError {
    /// Byte offset of the instruction that failed to decode.
    pub fn offset(&self) -> u64 {
        match self {
            DecodeError::NotImplemented { offset, .. }
            | DecodeError::Truncated { offset, .. }
            | DecodeError::Unsupported { offset, .. } => *offset,
        }
    }

    /// The dwords read before the decoder gave up, as hex (empty if none).
    pub fn dwords_hex(&self) -> String {
        match self {
            DecodeError::NotImplemented { .. } => String::new(),
            DecodeError::Truncated { dwords, .. } | DecodeError::Unsupported { dwords, .. } => {
                hex(dwords)
            }
        }
    }
}

fn hex(dwords: &[u32]) -> String {
    dwords
        .iter()
        .map(|d| format!("{d:08X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Decode the instruction of `isa` at `bytes[pos..]`; `base` is the
/// virtual address of `bytes[0]`, so offsets in the result and in errors are
/// `base + pos`.
pub fn decode(isa: Isa, bytes: &[u8], pos: usize, base: u64) -> Result<Inst, DecodeError> {
    let mut decoder = Decoder {
        isa,
        layout: isa.generation.layout(),
        bytes,
        pos,
        offset: base.wrapping_add(pos as u64),
        words: [0; 3],
        nwords: 0,
        format: "?",
    };
    let mut inst = decoder.decode()?;
    inst.len = (4 * decoder.nwords) as u8;
    inst.dwords = decoder.words;
    Ok(inst)
}

/// Decode the instruction of `isa` at the start of `bytes` (offset 0).
/// Returns the instruction and its length in bytes.
pub fn decode_one_for(isa: Isa, bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    decode(isa, bytes, 0, 0).map(|i| (i, i.len as usize))
}

/// Decode the gfx1100 instruction at the start of `bytes` (offset 0). Returns
/// the instruction and its length in bytes.
pub fn decode_one(bytes: &[u8]) -> Result<(Inst, usize), DecodeError> {
    decode_one_for(Isa::GFX11, bytes)
}

/// Decode the gfx1100 instruction at `bytes[pos..]` (see [`decode`]).
pub fn decode_at(bytes: &[u8], pos: usize, base: u64) -> Result<Inst, DecodeError> {
    decode(Isa::GFX11, bytes, pos, base)
}

/// The decoder: one instruction's dwords as they are read. Shared with
/// `isa::gfx9`, which reads the GCN layouts on the same state.
pub(super) struct Decoder<'a> {
    pub(super) isa: Isa,
    /// The field layouts of `isa`'s generation.
    pub(super) layout: &'static EncodingLayout,
    bytes: &'a [u8],
    pos: usize,
    pub(super) offset: u64,
    words: [u32; 3],
    nwords: usize,
    /// The format being decoded, for errors.
    pub(super) format: &'static str,
}

pub(super) fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1u32 << (hi - lo + 1)) - 1)
}

impl<'a> Decoder<'a> {
    /// Dword `i` of the instruction, reading it from the stream if needed.
    pub(super) fn word(&mut self, i: usize) -> Result<u32, DecodeError> {
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

    pub(super) fn unsupported(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError::Unsupported {
            offset: self.offset,
            dwords: self.words[..self.nwords.max(1)].to_vec(),
            format: self.format.to_string(),
            reason: reason.into(),
        }
    }

    pub(super) fn inst(&self, op: Op, enc: Enc) -> Inst {
        Inst {
            offset: self.offset,
            len: 0,
            dwords: [0; 3],
            op,
            enc,
            dst: 0,
            sdst: 0,
            src: [Src::Null; 3],
            dpp: None,
            mods: Modifiers::NONE,
            imm: 0,
            addr: 0,
            data: 0,
            saddr: None,
            generation: self.isa.generation,
            scale_offset: false,
        }
    }

    /// The row of `opcode` in `format`, refused where the target lacks it.
    pub(super) fn row(&self, format: Format, opcode: u32) -> Result<&'static OpInfo, DecodeError> {
        let known = u16::try_from(opcode)
            .ok()
            .and_then(|n| table::lookup(self.isa.generation, format, n));
        let row = known.ok_or_else(|| {
            self.unsupported(super::unemulated::refusal(
                self.isa.generation,
                format,
                opcode,
            ))
        })?;
        if table::GFX940_ONLY.contains(&row.op) && !self.isa.gfx940_insts {
            return Err(self.unsupported(format!(
                "opcode {opcode} (0x{opcode:x}) is {} only on gfx940+ (gfx942, gfx950, \
                 gfx9-4-generic); this target (gfx908, gfx90a or gfx9-generic) has no such instruction",
                table::mnemonic(row.op, self.isa.generation)
            )));
        }
        if table::GFX90A_ONLY.contains(&row.op) && !self.isa.gfx90a_insts {
            return Err(self.unsupported(format!(
                "opcode {opcode} (0x{opcode:x}) is {} only on gfx90a+ (gfx90a, gfx942, gfx950, \
                 gfx9-4-generic); this target (gfx908 or gfx9-generic) has no such instruction",
                table::mnemonic(row.op, self.isa.generation)
            )));
        }
        if table::GFX1250_ONLY.contains(&row.op) && !self.isa.gfx1250_insts {
            return Err(self.unsupported(format!(
                "{} exists only on CDNA5 (gfx1250, gfx1251); on this target these bits are no instruction",
                row.mnemonic
            )));
        }
        if table::NOT_ON_GFX1250.contains(&row.op) && self.isa.gfx1250_insts {
            return Err(self.unsupported(format!(
                "{} does not exist on CDNA5 (gfx1250, gfx1251): these bits are no instruction there",
                row.mnemonic
            )));
        }
        Ok(row)
    }

    fn decode(&mut self) -> Result<Inst, DecodeError> {
        let w0 = self.word(0)?;
        let layout = self.layout;
        let inst = match w0 >> 23 {
            0x17D => self.sop1(w0)?,
            0x17E => self.sopc(w0)?,
            0x17F => self.sopp(w0)?,
            _ if w0 >> 28 == 0xB => self.sopk(w0)?,
            _ if w0 >> 30 == 0b10 => self.sop2(w0)?,
            _ => match w0 >> 26 {
                enc if enc == layout.smem_encoding => match layout.smem {
                    SmemLayout::ImmSoe => self.gcn_smem(w0)?,
                    SmemLayout::Glc16 | SmemLayout::Glc14 => self.smem(w0)?,
                    SmemLayout::Scope24 => self.smem12(w0)?,
                },
                enc if enc == layout.vop3_encoding && layout.gcn => self.gcn_vop3(w0)?,
                enc if enc == layout.vop3_encoding => self.vop3(w0)?,
                0b111011 if layout.vmem == VmemLayout::Vflat => self.vmem12(w0)?,
                0b110111 if layout.vmem == VmemLayout::Seg15Offset13 => self.gcn_flat(w0)?,
                0b110111 if layout.vmem == VmemLayout::Seg15Offset12 => self.flat10(w0)?,
                0b110111 if layout.vmem == VmemLayout::Seg17Offset13 => self.flat(w0)?,
                _ if w0 >> 25 == 0b0111111 => self.vop1(w0)?,
                _ if w0 >> 25 == 0b0111110 => self.vopc(w0)?,
                _ if w0 >> 31 == 0 => self.vop2(w0)?,
                enc => {
                    self.format = layout
                        .unemulated_families
                        .iter()
                        .find(|(bits, _)| *bits == enc)
                        .map_or("an unknown encoding", |(_, name)| name);
                    return Err(self.unsupported("this encoding family is not emulated"));
                }
            },
        };
        Ok(inst)
    }

    /// A scalar operand code in gfx11's numbering (gfx10 swaps m0 and null).
    fn scalar(&self, code: u32) -> u32 {
        let swapped = self.isa.generation.null_code() == Some(125);
        match code {
            124 if swapped => 125,
            125 if swapped => 124,
            other => other,
        }
    }

    /// Scalar source code (8 bits in SOP*, 9 bits in VALU). `wide`: 64-bit operand.
    fn src(&mut self, code: u32, wide: bool, literal_at: usize) -> Result<Src, DecodeError> {
        if self.layout.gcn {
            return self.gcn_src(code, wide, Some(literal_at));
        }
        let code = self.scalar(code);
        if let Some(value) = inline_constant(code, wide) {
            return Ok(Src::Const(value));
        }
        Ok(match code {
            0..=123 | 125..=127 => {
                if wide && code % 2 == 1 {
                    return Err(self.unsupported(format!(
                        "64-bit scalar operand starts at odd register {}",
                        reg_name(code as u8)
                    )));
                }
                Src::Sgpr(code as u8)
            }
            124 => Src::Null,
            251 => Src::Vccz,
            252 => Src::Execz,
            253 => Src::Scc,
            LITERAL => {
                let lit = self.word(literal_at)?;
                if wide && lit >> 31 == 1 {
                    return Err(self.unsupported(format!(
                        "unsettled: 32-bit literal 0x{lit:08x} with bit 31 set in a 64-bit operand \
                         (sign- or zero-extension depends on the operand type in hardware)"
                    )));
                }
                Src::Lit(lit)
            }
            256..=511 => Src::Vgpr((code - 256) as u16),
            other => {
                return Err(self.unsupported(format!("source operand code {other} is not emulated")))
            }
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
        inst.dst = u16::from(self.sdst(bits(w0, 22, 16), w_a)?);
        Ok(inst)
    }

    fn sdst(&mut self, code: u32, wide: bool) -> Result<u8, DecodeError> {
        if self.layout.gcn {
            return self.gcn_sdst(code, wide);
        }
        let code = self.scalar(code);
        if code > 127 || (wide && code % 2 == 1) {
            return Err(self.unsupported(format!(
                "scalar destination code {code} is not a writable register{}",
                if wide { " pair" } else { "" }
            )));
        }
        if (108..=123).contains(&code) {
            return Err(
                self.unsupported("trap temporaries (ttmp) are read-only outside the trap handler")
            );
        }
        Ok(code as u8)
    }

    fn sop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SOP1";
        let row = self.row(Format::Sop1, bits(w0, 15, 8))?;
        let wide = row.shape == Shape::S1w;
        let mut inst = self.inst(row.op, Enc::Native);
        inst.src[0] = self.src(bits(w0, 7, 0), wide, 1)?;
        inst.dst = u16::from(self.sdst(bits(w0, 22, 16), wide)?);
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
        if row.op == Op::SGetregB32 {
            self.getreg_field(inst.imm as u32)?;
        }
        if row.shape == Shape::SetReg {
            inst.src[0] = if row.op == Op::SSetregImm32B32 {
                Src::Lit(self.word(1)?)
            } else {
                self.src(code, false, 1)?
            };
            self.setreg_field(&inst)?;
            return Ok(inst);
        }
        inst.dst = if row.shape == Shape::KWait {
            self.scalar(code) as u16
        } else {
            u16::from(self.sdst(code, false)?)
        };
        Ok(inst)
    }

    /// An `s_setreg*` the emulator can run: MODE, and only its bits that
    /// change nothing the emulator executes ([`super::ModeLayout`]); on
    /// CDNA5 also bit 25 set to 1 by `s_setreg_imm32_b32`, which LLVM 22
    /// writes at the entry of every gfx1250 kernel (what the bit does is
    /// written nowhere we found; LLVM's code generator assumes it set for
    /// every instruction it emits, integer ones included, so that is the
    /// mode the emulator runs). Whether the write also reaches the VGPR MSBs
    /// is the program pass's question (`emu/program.rs`).
    fn setreg_field(&self, inst: &Inst) -> Result<(), DecodeError> {
        let hwreg = super::Hwreg::of(inst.imm as u32);
        let mode = self.isa.generation.mode_register();
        let name = table::mnemonic(inst.op, self.isa.generation);
        if hwreg.id != mode.register {
            return Err(self.unsupported(format!(
                "{name} to hardware register {}: the emulator models only {} ({})",
                hwreg.id, mode.register_name, mode.inert_text
            )));
        }
        let field = hwreg.bits();
        let cdna5_prologue = self.isa.gfx1250_insts
            && (hwreg.offset, hwreg.size) == (25, 1)
            && matches!(inst.src[0], Src::Lit(v) if v & 1 == 1);
        if field & !mode.inert != 0 && !cdna5_prologue {
            return Err(self.unsupported(format!(
                "{name} writes {} bits 0x{:08x}: the emulator records only {} (float controls that \
                 change nothing it runs); these may change what the wave executes",
                mode.register_name,
                field & !mode.inert,
                mode.inert_text
            )));
        }
        Ok(())
    }

    /// CDNA5's HW_REG_IB_STS2 (28) is readable only in bits 9:6, the field
    /// LLVM 22 reads at the entry of a kernel to tell a dispatch with
    /// workgroup clusters from one without (zero: none, and ttmp9 is the
    /// workgroup id). The emulator launches no clusters, so it reads 0
    /// there (emu/salu.rs); any other IB_STS2 read, and IB_STS2 on other
    /// targets, is refused.
    fn getreg_field(&self, imm: u32) -> Result<(), DecodeError> {
        let super::Hwreg { id, offset, size } = super::Hwreg::of(imm);
        if id != super::IB_STS2 {
            return Ok(());
        }
        if self.isa.gfx1250_insts && offset >= 6 && offset + size <= 10 {
            return Ok(());
        }
        Err(self.unsupported(format!(
            "s_getreg_b32 of HW_REG_IB_STS2 bits {}:{offset}: only bits 9:6 on CDNA5 (the \
             workgroup-cluster field, 0 without clusters) are emulated",
            offset + size - 1
        )))
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

    /// gfx10/gfx11 SMEM: sbase [5:0] (pair index), sdata [12:6], glc/dlc
    /// [14:13] on gfx11, dlc [14] and glc [16] on gfx10 (cache policy: no
    /// effect here), opcode [25:18]; dword 1: 21-bit signed byte offset
    /// [20:0], soffset [31:25].
    fn smem(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SMEM";
        let w1 = self.word(1)?;
        let row = self.row(Format::Smem, bits(w0, 25, 18))?;
        // Bits 17:15 are reserved but for gfx10's glc at 16.
        let reserved = match self.layout.smem {
            SmemLayout::Glc16 => 0b101,
            _ => 0b111,
        };
        if bits(w0, 17, 15) & reserved != 0 || bits(w1, 24, 21) != 0 {
            return Err(self.unsupported("reserved SMEM bits are set"));
        }
        let imm = ((bits(w1, 20, 0) << 11) as i32) >> 11;
        self.smem_fields(row, w0, imm, bits(w1, 31, 25))
    }

    /// gfx12 SMEM: sbase [5:0], sdata [12:6], opcode [20:13], scope [22:21]
    /// and th [25:23] (cache policy: no effect here); dword 1: 24-bit signed
    /// byte offset [23:0], soffset [31:25].
    fn smem12(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SMEM";
        let w1 = self.word(1)?;
        let row = self.row(Format::Smem, bits(w0, 20, 13))?;
        if bits(w1, 24, 24) != 0 {
            return Err(self.unsupported("reserved SMEM bit 56 is set"));
        }
        let imm = ((bits(w1, 23, 0) << 8) as i32) >> 8;
        self.smem_fields(row, w0, imm, bits(w1, 31, 25))
    }

    /// The SMEM fields both generations place alike: sbase, sdata, soffset.
    fn smem_fields(
        &mut self,
        row: &OpInfo,
        w0: u32,
        imm: i32,
        soffset: u32,
    ) -> Result<Inst, DecodeError> {
        let Shape::Load(n) = row.shape else {
            return Err(self.unsupported("not a load"));
        };
        let mut inst = self.inst(row.op, Enc::Native);
        inst.addr = (bits(w0, 5, 0) * 2) as u16;
        let sdata = bits(w0, 12, 6);
        if sdata + u32::from(n) > 106 {
            return Err(self.unsupported(format!(
                "destination s[{sdata}:{}] runs past s105",
                sdata + u32::from(n) - 1
            )));
        }
        inst.dst = sdata as u16;
        inst.imm = imm;
        let soffset = self.scalar(soffset);
        inst.saddr = match soffset {
            124 => None,
            0..=105 | 106 | 107 | 125 => Some(soffset as u8),
            other => return Err(self.unsupported(format!("soffset code {other} is not emulated"))),
        };
        Ok(inst)
    }

    /// gfx12 VFLAT/VGLOBAL (96 bits): saddr [6:0], opcode [21:14], segment
    /// [25:24]; dword 1: vdst [7:0], scratch SVE [17], scope [19:18] and th
    /// [22:20] (cache policy: no effect here), vdata [30:23]; dword 2: vaddr
    /// [7:0], 24-bit signed byte offset [31:8] (flat offsets are signed too).
    fn vmem12(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VFLAT";
        let format = match bits(w0, 25, 24) {
            0 => Format::Flat,
            2 => Format::Global,
            1 => {
                self.format = "VSCRATCH";
                return Err(self.unsupported("scratch (private) memory is not emulated"));
            }
            _ => return Err(self.unsupported("segment 3 is reserved")),
        };
        if format == Format::Global {
            self.format = "VGLOBAL";
        }
        let (w1, w2) = (self.word(1)?, self.word(2)?);
        let row = self.row(format, bits(w0, 21, 14))?;
        // CDNA5's scale_offset (dword 1 bit 16), meaningful with a VGPR offset.
        let scale_offset = self.isa.gfx1250_insts && bits(w1, 16, 16) == 1;
        let reserved_w1 = bits(w1, 17, 8) & !(u32::from(scale_offset) << 8);
        if bits(w0, 13, 7) != 0 || reserved_w1 != 0 || bits(w1, 31, 31) != 0 {
            return Err(self.unsupported("reserved (or scratch-only SVE) bits are set"));
        }
        let mut inst = self.inst(row.op, Enc::Native);
        inst.dst = bits(w1, 7, 0) as u16;
        inst.data = bits(w1, 30, 23) as u16;
        inst.addr = bits(w2, 7, 0) as u16;
        inst.imm = (w2 as i32) >> 8;
        inst.saddr = self.vmem_saddr(format, bits(w0, 6, 0))?;
        if scale_offset && inst.saddr.is_none() {
            return Err(self.unsupported(
                "scale_offset without saddr (a 64-bit VGPR address has no offset to scale)",
            ));
        }
        inst.scale_offset = scale_offset;
        Ok(inst)
    }

    /// The saddr of a FLAT/GLOBAL access: `None` for `off` (null).
    pub(super) fn vmem_saddr(&self, format: Format, saddr: u32) -> Result<Option<u8>, DecodeError> {
        match (format, self.scalar(saddr)) {
            (_, 124) => Ok(None),
            (Format::Flat, _) => Err(self.unsupported(format!(
                "flat instructions take no saddr on {}",
                self.isa.generation
            ))),
            (_, s) if s % 2 == 0 && (s <= 104 || s == 106 || s == 126) => Ok(Some(s as u8)),
            (_, s) => Err(self.unsupported(format!("saddr code {s} is not an aligned SGPR pair"))),
        }
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
                return Err(self.unsupported(
                    "flat offset bit 12 set: flat offsets are 12-bit unsigned on gfx11",
                ))
            }
            Format::Flat => raw_offset as i32,
            _ => ((raw_offset << 19) as i32) >> 19,
        };
        if bits(w0, 25, 25) != 0 || bits(w1, 23, 23) != 0 {
            return Err(self.unsupported("reserved (or scratch-only SVE) bits are set"));
        }
        inst.addr = bits(w1, 7, 0) as u16;
        inst.data = bits(w1, 15, 8) as u16;
        inst.dst = bits(w1, 31, 24) as u16;
        inst.saddr = self.vmem_saddr(format, bits(w1, 22, 16))?;
        Ok(inst)
    }

    fn vop1(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP1";
        let row = self.row(Format::Vop1, bits(w0, 16, 9))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        let dst = bits(w0, 24, 17);
        if row.shape == Shape::ToScalar1 {
            inst.dst = u16::from(self.sdst(dst, false)?);
        } else {
            inst.dst = dst as u16;
        }
        Ok(inst)
    }

    fn vop2(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP2";
        let row = self.row(Format::Vop2, bits(w0, 30, 25))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u16);
        inst.dst = bits(w0, 24, 17) as u16;
        match row.shape {
            Shape::Cnd => inst.src[2] = Src::Sgpr(VCC),
            Shape::Ci => {
                inst.src[2] = Src::Sgpr(VCC);
                inst.sdst = VCC;
            }
            // gfx9's carry-out adds (the only VOP2 rows of this shape): carry in VCC.
            Shape::Co => inst.sdst = VCC,
            // vsrc1 names the low VGPR of the 64-bit operand (gfx12's v_lshlrev_b64_e32).
            Shape::V2 | Shape::Sh64 => {}
            _ => return Err(self.unsupported(format!("{} has no VOP2 form", row.mnemonic))),
        }
        if self.layout.gcn {
            self.gcn_constant_bus(&inst, matches!(row.shape, Shape::Cnd | Shape::Ci))?;
        }
        Ok(inst)
    }

    fn vopc(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOPC";
        let row = self.row(Format::Vopc, bits(w0, 24, 17))?;
        let mut inst = self.inst(row.op, Enc::Native);
        self.e32_src0(&mut inst, row, bits(w0, 8, 0))?;
        inst.src[1] = Src::Vgpr(bits(w0, 16, 9) as u16);
        inst.sdst = VCC;
        if matches!(row.shape, Shape::Cmpx | Shape::Cmpxw) {
            inst.sdst = EXEC;
            // GCN's v_cmpx writes VCC too (`Inst::cmpx_sgpr_dst`).
            if self.layout.gcn {
                inst.dst = u16::from(VCC);
            }
        }
        Ok(inst)
    }

    /// src0 of an e32 encoding: a 9-bit source, or a DPP word after the dword.
    fn e32_src0(&mut self, inst: &mut Inst, row: &OpInfo, code: u32) -> Result<(), DecodeError> {
        if self.layout.gcn {
            return self.gcn_e32_src0(inst, row, code);
        }
        let wide = matches!(row.shape, Shape::Cmpw | Shape::Cmpxw);
        match code {
            DPP16 | DPP8 | DPP8_FI => {
                self.check_dpp_shape(row)?;
                let (src0, dpp) = self.dpp_word(code, 1)?;
                inst.src[0] = src0;
                inst.dpp = Some(dpp);
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
        let src0 = Src::Vgpr(bits(w, 7, 0) as u16);
        if code == DPP16 {
            let ctrl = bits(w, 16, 8) as u16;
            let valid = matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141 | 0x150..=0x15f | 0x160..=0x16f);
            if !valid {
                return Err(self.unsupported(format!(
                    "DPP16 control 0x{ctrl:03x} is not valid on {}",
                    self.isa.generation
                )));
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
            Ok((
                src0,
                Dpp::Dpp8 {
                    sel,
                    fi: code == DPP8_FI,
                },
            ))
        }
    }

    fn vop3(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP3";
        let w1 = self.word(1)?;
        let opcode = bits(w0, 25, 16);
        let row = match opcode {
            0x000..=0x0ff => self.row(Format::Vopc, opcode)?,
            0x140..=0x17f if self.layout.vop3_only_at_0x140 => self.row(Format::Vop3, opcode)?,
            0x100..=0x17f => self.row(Format::Vop2, opcode - 0x100)?,
            0x180..=0x1ff => self.row(Format::Vop1, opcode - 0x180)?,
            _ => self.row(Format::Vop3, opcode)?,
        };
        let sd = matches!(row.shape, Shape::Co | Shape::Ci | Shape::Mad64);
        if sd {
            self.format = "VOP3SD";
        }
        let mods = self.check_vop3_modifiers(row, sd, w0, w1)?;
        let mut inst = self.inst(row.op, Enc::Vop3);
        inst.mods = mods;
        self.vop3_sources(&mut inst, row, w1)?;
        let vdst = bits(w0, 7, 0);
        match row.shape {
            Shape::Cmp | Shape::Cmpw => inst.sdst = self.sdst(vdst, false)?,
            Shape::Cmpx | Shape::Cmpxw => inst.sdst = EXEC,
            Shape::ToScalar1 | Shape::ToScalar2 => inst.dst = u16::from(self.sdst(vdst, false)?),
            _ => inst.dst = vdst as u16,
        }
        if sd {
            inst.sdst = self.sdst(bits(w0, 14, 8), false)?;
        }
        Ok(inst)
    }

    /// Modifiers that would change an integer op's result are refused, never
    /// ignored; `v_xad_u32`'s are decoded (the emulator computes what is
    /// documented and marks the rest unsettled). Shared with gfx9's VOP3.
    pub(super) fn check_vop3_modifiers(
        &self,
        row: &OpInfo,
        sd: bool,
        w0: u32,
        w1: u32,
    ) -> Result<Modifiers, DecodeError> {
        let mods = Modifiers::read(w0, w1, sd);
        if !mods.any() || row.op == Op::VXadU32 {
            return Ok(mods);
        }
        Err(self.unsupported(format!(
            "{} set on integer op {}: it would change the result and is not emulated",
            mods.names().join("/"),
            table::mnemonic(row.op, self.isa.generation)
        )))
    }

    /// The VOP3 source fields (src0 possibly a DPP word after the two dwords).
    fn vop3_sources(&mut self, inst: &mut Inst, row: &OpInfo, w1: u32) -> Result<(), DecodeError> {
        let codes = [bits(w1, 8, 0), bits(w1, 17, 9), bits(w1, 26, 18)];
        let (nsrc, wide) = match row.shape {
            Shape::V1 => (1, [false; 3]),
            Shape::V2
            | Shape::Co
            | Shape::Cmp
            | Shape::Cmpx
            | Shape::ToScalar2
            | Shape::WriteLane => (2, [false; 3]),
            Shape::Cmpw | Shape::Cmpxw => (2, [true, true, false]),
            Shape::Sh64 => (2, [false, true, false]),
            Shape::V3 | Shape::Ci | Shape::Cnd => (3, [false; 3]),
            Shape::Mad64 => (3, [false, false, true]),
            Shape::ToScalar1 => (1, [false; 3]),
            _ => return Err(self.unsupported(format!("{} has no VOP3 form", row.mnemonic))),
        };
        let is_dpp = matches!(codes[0], DPP16 | DPP8 | DPP8_FI);
        if is_dpp && !self.layout.vop3_dpp {
            return Err(self.unsupported(format!(
                "src0 code 0x{:x}: VOP3 has no DPP form on {}",
                codes[0], self.isa.generation
            )));
        }
        if is_dpp {
            self.format = if codes[0] == DPP16 {
                "VOP3_DPP16"
            } else {
                "VOP3_DPP8"
            };
            self.check_dpp_shape(row)?;
            let (src0, dpp) = self.dpp_word(codes[0], 2)?;
            inst.src[0] = src0;
            inst.dpp = Some(dpp);
        } else {
            inst.src[0] = self.src(codes[0], wide[0], 2)?;
        }
        for i in 1..nsrc {
            // Carry-in and select masks are lane masks: as wide as the wave, which
            // the decoder does not know; their SGPR alignment is checked at launch.
            let mask_src = i == 2 && matches!(row.shape, Shape::Ci | Shape::Cnd);
            inst.src[i] = self.src(codes[i], wide[i], 2)?;
            if mask_src && matches!(inst.src[i], Src::Vgpr(_)) {
                return Err(self.unsupported(format!(
                    "{}: lane mask operand must be scalar",
                    row.mnemonic
                )));
            }
            if is_dpp && matches!(inst.src[i], Src::Lit(_)) {
                return Err(self.unsupported("a literal cannot accompany a DPP word"));
            }
        }
        if is_dpp && nsrc >= 2 && !self.isa.dpp_src1_scalar && !matches!(inst.src[1], Src::Vgpr(_))
        {
            return Err(
                self.unsupported("DPP src1 must be a VGPR on gfx1100-1103 and gfx11-generic")
            );
        }
        if matches!(row.shape, Shape::ToScalar2 | Shape::WriteLane)
            && matches!(inst.src[1], Src::Vgpr(_))
        {
            return Err(
                self.unsupported(format!("{}: the lane select must be scalar", row.mnemonic))
            );
        }
        if row.shape == Shape::WriteLane && matches!(inst.src[0], Src::Vgpr(_)) {
            return Err(self.unsupported("v_writelane_b32: the value must be scalar"));
        }
        Ok(())
    }
}

impl Inst {
    /// The byte offset a SOPP branch goes to when taken.
    pub fn branch_target(&self) -> u64 {
        self.offset
            .wrapping_add(4)
            .wrapping_add_signed(i64::from(self.imm) * 4)
    }

    /// The mnemonic as the instruction's generation spells it.
    pub fn mnemonic(&self) -> &'static str {
        table::mnemonic(self.op, self.generation)
    }

    pub fn shape(&self) -> Shape {
        table::info(self.op).shape
    }

    /// The SGPR pair a gfx9 `v_cmpx_*` writes besides EXEC (VCC in VOPC, the
    /// VOP3 destination): gfx9 writes the lane mask to both, gfx10+ to EXEC
    /// only (`sdst`). `None` for every other instruction.
    pub fn cmpx_sgpr_dst(&self) -> Option<u8> {
        (self.generation.layout().gcn && matches!(self.shape(), Shape::Cmpx | Shape::Cmpxw))
            .then_some(self.sgpr_dst())
    }

    /// `dst` as a scalar register code (SOP*, SMEM sdata, v_readlane's
    /// destination): scalar codes are below 128, so the cast keeps them.
    pub fn sgpr_dst(&self) -> u8 {
        self.dst as u8
    }

    /// `addr` as a scalar register code (SMEM sbase).
    pub fn sgpr_addr(&self) -> u8 {
        self.addr as u8
    }
}
