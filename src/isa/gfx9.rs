//! gfx9 (GCN5 and CDNA1-3: gfx908, gfx90a, gfx942) machine code: the field
//! layouts that differ from gfx10+, and the operand spellings LLVM prints for
//! them. Its opcodes are the gfx9 column of [`table`] (where an op can sit in
//! another format than on gfx11: `v_add_co_u32` is a VOP2 op writing VCC on
//! gfx9, VOP3-only on gfx11); `tests/isa/decode_oracle.rs` checks every cell
//! against `llvm-mc-19 -triple=amdgcn -mcpu=gfx90a -show-encoding`.
//!
//! Layouts (LLVM's `SIInstrFormats.td`/`SMInstructions.td`, checked against
//! llvm-mc): SOP*, VOP1/VOP2/VOPC and the VOP3 dwords sit where gfx10+ puts
//! them, but VOP3 numbers VOP1 ops from 0x140 (not 0x180) and has no literal;
//! SMEM is `110000` with imm/soe bits and a 21-bit signed offset; FLAT/GLOBAL
//! use seg (bits 15:14) and a 13-bit offset, with saddr 0x7f meaning `off`. Operand
//! codes: m0 is 124 (decoded to the gfx10+ index [`M0`] so the emulator sees
//! one register file), 102-105 are flat_scratch and xnack_mask, there is no
//! `null`. DPP has only DPP16-style words, with gfx9's wave-wide controls;
//! SDWA is refused.
//!
//! The shared decoder (`decode`) reads gfx9's SOP* and VOP1/VOP2/VOPC too,
//! asking the generation's [`super::EncodingLayout`] where GCN differs; this
//! module gives it the GCN operand codes (`gcn_src`, `gcn_sdst`), the e32
//! src0 (gfx9's DPP controls, SDWA refused), the one-scalar constant bus
//! rule, and the VOP3, SMEM and FLAT layouts.
//!
//! Per target inside gfx9: `v_lshl_add_u64` (opcode 0x208, LLVM's
//! GFX940Insts) decodes only where [`super::Isa::gfx940_insts`] is set (gfx942,
//! gfx950, gfx9-4-generic); on gfx908, gfx90a and gfx9-generic those bits are
//! no instruction and decode to a [`DecodeError`] ([`GFX940_ONLY`]).
//!
//! `v_cmpx_*` on gfx9 writes its lane mask to EXEC and to an SGPR pair (VCC
//! in VOPC, any pair in VOP3), where gfx10+ writes EXEC only (Vega ISA
//! "VOPC Instructions": "v_cmpx_* write the result to EXEC and to VCC or the
//! SGPR destination"): decoded as the gfx10+ op with `sdst` EXEC and the
//! pair in `dst` ([`Inst::cmpx_sgpr_dst`]).
//!
//! Not decoded (a [`DecodeError`], never a guess): `s_sendmsg`
//! (its message numbers differ), SDWA, scratch, LDS-direct and the
//! shared/private aperture sources, AGPR data (gfx90a's acc bit).

use super::decode::{bits, DecodeError, Decoder, Enc, Inst};
use super::operand::{inline_constant, pair_name, reg_name, Dpp, Src, EXEC, M0, VCC};
use super::table::{self, Format, Op, OpInfo, Shape};
use super::{Generation, MemoryCounters};

use Format::*;

/// The gfx9 row for `opcode` in gfx9 `format`.
pub fn lookup(format: Format, opcode: u16) -> Option<&'static OpInfo> {
    table::lookup(Generation::Gfx9, format, opcode)
}

/// gfx9's (format, opcode) of `op`, if gfx9 has it.
pub fn opcode(op: Op) -> Option<(Format, u16)> {
    table::info(op)
        .encoding(Generation::Gfx9)
        .map(|e| (e.format, e.opcode))
}

/// The mnemonic LLVM prints for `op` on gfx9 (its gfx11 name if gfx9 has none).
pub fn mnemonic(op: Op) -> &'static str {
    table::mnemonic(op, Generation::Gfx9)
}

pub use super::table::{GFX90A_ONLY, GFX940_ONLY};

/// gfx9's m0 code (gfx10+ put `null` here and moved m0 to 125).
const M0_GFX9: u32 = 124;
/// The GLOBAL saddr code meaning `off` on gfx9.
const SADDR_OFF: u32 = 0x7f;
/// src0 codes announcing a DPP or SDWA word after the instruction.
const DPP: u32 = 0xFA;
const SDWA: u32 = 0xF9;
const LITERAL: u32 = 255;

/// The GCN layouts of VOP3, SMEM and FLAT, the e32 src0 (DPP/SDWA) and the
/// constant bus rule, read on the shared decoder (which calls them where
/// the generation's [`super::EncodingLayout`] is `gcn`).
impl Decoder<'_> {
    /// SMEM: sbase [5:0] (pair index), sdata [12:6], soe [14], nv [15], glc
    /// [16] (cache policy: no effect here), imm [17], opcode [25:18]; dword 1:
    /// a 21-bit signed byte offset [20:0] when imm, else an SGPR code [7:0];
    /// soffset [31:25] when soe (then with the immediate offset).
    pub(super) fn gcn_smem(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "SMEM";
        let w1 = self.word(1)?;
        let row = self.row(Smem, bits(w0, 25, 18))?;
        let Shape::Load(n) = row.shape else {
            return Err(self.unsupported("not a load"));
        };
        if bits(w0, 15, 15) != 0 || bits(w0, 13, 13) != 0 {
            return Err(self.unsupported("reserved (or nv) SMEM bits are set"));
        }
        let (imm, soe) = (bits(w0, 17, 17) == 1, bits(w0, 14, 14) == 1);
        let mut inst = self.inst(row.op, Enc::Native);
        inst.addr = (bits(w0, 5, 0) * 2) as u16;
        let sdata = bits(w0, 12, 6);
        if sdata % n.min(4) as u32 != 0 || sdata + u32::from(n) > 102 {
            return Err(self.unsupported(format!(
                "destination s[{sdata}:{}] is not an aligned range of s0-s101",
                sdata + u32::from(n) - 1
            )));
        }
        inst.dst = sdata as u16;
        let soffset = match (imm, soe) {
            (true, false) if bits(w1, 31, 21) == 0 => None,
            (true, true) if bits(w1, 24, 21) == 0 => Some(bits(w1, 31, 25)),
            (false, false) if bits(w1, 31, 8) == 0 => Some(bits(w1, 7, 0)),
            _ => {
                return Err(
                    self.unsupported("SMEM offset fields are inconsistent (imm/soe/reserved bits)")
                )
            }
        };
        inst.imm = if imm {
            ((bits(w1, 20, 0) << 11) as i32) >> 11
        } else {
            0
        };
        inst.saddr = match soffset {
            None => None,
            Some(code @ (0..=101 | 106 | 107)) => Some(code as u8),
            Some(M0_GFX9) => Some(M0),
            Some(code) => {
                return Err(self.unsupported(format!("soffset code {code} is not emulated")))
            }
        };
        Ok(inst)
    }

    /// FLAT/GLOBAL: offset [12:0] (13-bit signed for global, 12-bit unsigned
    /// for flat), lds [13], seg [15:14], glc [16], slc [17] and gfx940's sc1
    /// [25] (cache policy: no effect here), opcode [24:18]; dword 1: vaddr [7:0], data [15:8],
    /// saddr [22:16] (0x7f = off), nv / gfx90a acc [23], vdst [31:24].
    pub(super) fn gcn_flat(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "FLAT";
        let w1 = self.word(1)?;
        let format = match bits(w0, 15, 14) {
            0 => Flat,
            2 => Global,
            1 => {
                self.format = "SCRATCH";
                return Err(self.unsupported("scratch (private) memory is not emulated"));
            }
            _ => return Err(self.unsupported("segment 3 is reserved")),
        };
        self.format = format.name();
        let row = self.row(format, bits(w0, 24, 18))?;
        if bits(w0, 13, 13) != 0 || bits(w1, 23, 23) != 0 {
            return Err(self.unsupported("lds, nv or AGPR (acc) bits are set"));
        }
        let mut inst = self.inst(row.op, Enc::Native);
        let raw = bits(w0, 12, 0);
        inst.imm = match format {
            Flat if raw >> 12 == 1 => {
                return Err(self.unsupported(
                    "flat offset bit 12 set: flat offsets are 12-bit unsigned on gfx9",
                ))
            }
            Flat => raw as i32,
            _ => ((raw << 19) as i32) >> 19,
        };
        inst.addr = bits(w1, 7, 0) as u16;
        inst.data = bits(w1, 15, 8) as u16;
        inst.dst = bits(w1, 31, 24) as u16;
        inst.saddr = match (format, bits(w1, 22, 16)) {
            // LLVM writes 0 in a flat instruction's (unused) saddr field.
            (Flat, 0 | SADDR_OFF) | (_, SADDR_OFF) => None,
            (Flat, s) => {
                return Err(self.unsupported(format!("flat instructions take no saddr (code {s})")))
            }
            (_, s) if s % 2 == 0 && (s <= 100 || s == 106) => Some(s as u8),
            (_, s) => {
                return Err(self.unsupported(format!("saddr code {s} is not an aligned SGPR pair")))
            }
        };
        Ok(inst)
    }

    /// src0 of an e32 encoding: a 9-bit source (a literal may follow), or a
    /// DPP word (SDWA is refused).
    pub(super) fn gcn_e32_src0(
        &mut self,
        inst: &mut Inst,
        row: &OpInfo,
        code: u32,
    ) -> Result<(), DecodeError> {
        let wide = matches!(row.shape, Shape::Cmpw | Shape::Cmpxw | Shape::Mov64);
        match code {
            DPP => {
                self.format = "DPP";
                if !matches!(row.shape, Shape::V1 | Shape::V2 | Shape::Cnd) || row.op == Op::VNop {
                    return Err(self.unsupported(format!(
                        "DPP on {} is not emulated (only vector results without scalar outputs)",
                        mnemonic(row.op)
                    )));
                }
                let (src0, dpp) = self.gcn_dpp_word()?;
                inst.src[0] = src0;
                inst.dpp = Some(dpp);
            }
            SDWA => {
                self.format = "SDWA";
                return Err(self.unsupported("SDWA (sub-dword addressing) is not emulated"));
            }
            _ => inst.src[0] = self.gcn_src(code, wide, Some(1))?,
        }
        Ok(())
    }

    /// gfx9's DPP word (dword 1): src0 VGPR [7:0], control [16:8], bound_ctrl
    /// [19], source neg/abs [23:20], bank_mask [27:24], row_mask [31:28].
    /// Controls: quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror (0x130,
    /// 0x134, 0x138, 0x13c), row_mirror, row_half_mirror, row_bcast:15/31
    /// (0x142/0x143); gfx9 has no DPP8, row_share, row_xmask or fi.
    fn gcn_dpp_word(&mut self) -> Result<(Src, Dpp), DecodeError> {
        let w = self.word(1)?;
        let ctrl = bits(w, 16, 8) as u16;
        let valid = matches!(ctrl, 0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x130 | 0x134 | 0x138 | 0x13c | 0x140..=0x143);
        if !valid {
            return Err(self.unsupported(format!("DPP control 0x{ctrl:03x} is not valid on gfx9")));
        }
        if bits(w, 18, 17) != 0 {
            return Err(self.unsupported("reserved DPP bits 18:17 are set"));
        }
        if bits(w, 23, 20) != 0 {
            return Err(self.unsupported("DPP source neg/abs modifiers on an integer op"));
        }
        let dpp = Dpp::Dpp16 {
            ctrl,
            row_mask: bits(w, 31, 28) as u8,
            bank_mask: bits(w, 27, 24) as u8,
            bound_ctrl: bits(w, 19, 19) == 1,
            fi: false,
        };
        Ok((Src::Vgpr(bits(w, 7, 0) as u16), dpp))
    }

    /// gfx9 reads at most one scalar value per VALU instruction (SGPRs and
    /// literals; inline constants are free). `implicit_vcc`: the e32 form
    /// also reads VCC.
    pub(super) fn gcn_constant_bus(
        &self,
        inst: &Inst,
        implicit_vcc: bool,
    ) -> Result<(), DecodeError> {
        let implicit = implicit_vcc.then_some(Src::Sgpr(VCC));
        let mut scalars: Vec<Src> = Vec::new();
        for s in inst.src.iter().copied().chain(implicit) {
            if matches!(s, Src::Sgpr(_) | Src::Lit(_)) && !scalars.contains(&s) {
                scalars.push(s);
            }
        }
        if scalars.len() > 1 {
            return Err(self
                .unsupported("more than one scalar value read (gfx9's constant bus carries one)"));
        }
        Ok(())
    }

    /// VOP3 (VOP3b for carry and mad64 ops): VOPC ops at 0x000 + op, VOP2 at
    /// 0x100 + op, VOP1 at 0x140 + op, VOP3-only ops from 0x1c0.
    pub(super) fn gcn_vop3(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP3";
        let w1 = self.word(1)?;
        let opcode = bits(w0, 25, 16);
        let row = match opcode {
            0x000..=0x0ff => self.row(Vopc, opcode)?,
            0x100..=0x13f => self.row(Vop2, opcode - 0x100)?,
            0x140..=0x1bf => self.row(Vop1, opcode - 0x140)?,
            _ => self.row(Vop3, opcode)?,
        };
        if row.shape == Shape::PkMov {
            return self.gcn_pk_mov(row, w0, w1);
        }
        let sd = matches!(row.shape, Shape::Co | Shape::Ci | Shape::Mad64);
        if sd {
            self.format = "VOP3b";
        }
        let mods = self.check_vop3_modifiers(row, sd, w0, w1)?;
        let mut inst = self.inst(row.op, Enc::Vop3);
        inst.mods = mods;
        self.gcn_vop3_sources(&mut inst, row, w1)?;
        let vdst = bits(w0, 7, 0);
        match row.shape {
            Shape::Cmp | Shape::Cmpw => inst.sdst = self.gcn_sdst(vdst, true)?,
            Shape::Cmpx | Shape::Cmpxw => {
                (inst.sdst, inst.dst) = (EXEC, u16::from(self.gcn_sdst(vdst, true)?))
            }
            Shape::ToScalar1 | Shape::ToScalar2 => {
                inst.dst = u16::from(self.gcn_sdst(vdst, false)?)
            }
            _ => inst.dst = vdst as u16,
        }
        if sd {
            inst.sdst = self.gcn_sdst(bits(w0, 14, 8), true)?;
        }
        self.gcn_constant_bus(&inst, false)?;
        Ok(inst)
    }

    /// `v_pk_mov_b32` (VOP3P, gfx90a+): vdst [7:0], neg_hi [10:8], op_sel
    /// [13:11], op_sel_hi[2] [14], clamp [15]; dword 1: src0 [8:0], src1
    /// [17:9], src2 [26:18], op_sel_hi[1:0] [28:27], neg_lo [31:29]. AMD's
    /// CDNA2/3 guides define the op by OPSEL alone (each destination dword is
    /// the half OPSEL picks of its 64-bit source). Everything else is what
    /// LLVM writes (op_sel_hi all set, src2 0, no neg or clamp), or refused: a
    /// field the pseudocode does not read has no value we could check.
    fn gcn_pk_mov(&mut self, row: &OpInfo, w0: u32, w1: u32) -> Result<Inst, DecodeError> {
        self.format = "VOP3P";
        let op_sel_hi = bits(w0, 14, 14) << 2 | bits(w1, 28, 27);
        let refusal = if bits(w0, 10, 8) != 0 || bits(w1, 31, 29) != 0 {
            Some("neg_lo/neg_hi")
        } else if bits(w0, 15, 15) != 0 {
            Some("clamp")
        } else if bits(w0, 13, 13) != 0 || bits(w1, 26, 18) != 0 {
            Some("the third source (src2 or its op_sel bit)")
        } else if op_sel_hi != 0b111 {
            Some("op_sel_hi other than all set (LLVM's default)")
        } else {
            None
        };
        if let Some(field) = refusal {
            return Err(self.unsupported(format!(
                "v_pk_mov_b32 with {field}: AMD's pseudocode reads only OPSEL, so what \
                 silicon does with it is unsettled and it is not emulated"
            )));
        }
        let mut inst = self.inst(row.op, Enc::Vop3);
        inst.mods.op_sel = bits(w0, 12, 11) as u8;
        inst.dst = bits(w0, 7, 0) as u16;
        for i in 0..2 {
            inst.src[i] = self.gcn_src(bits(w1, 8 + 9 * i as u32, 9 * i as u32), true, None)?;
        }
        let odd = |r: u16| r % 2 == 1;
        let misaligned = odd(inst.dst)
            || inst
                .src
                .iter()
                .any(|s| matches!(s, Src::Vgpr(r) if odd(*r)));
        if misaligned {
            return Err(self.unsupported(
                "v_pk_mov_b32: a 64-bit VGPR operand starts at an odd register (gfx90a+ \
                 VGPR pairs are even-aligned)",
            ));
        }
        if !inst.src[..2].iter().all(|s| matches!(s, Src::Vgpr(_) | Src::Sgpr(_))) {
            return Err(self.unsupported(
                "v_pk_mov_b32 with a constant source: which half a constant gives is \
                 unsettled, so it is not emulated",
            ));
        }
        self.gcn_constant_bus(&inst, false)?;
        Ok(inst)
    }

    fn gcn_vop3_sources(
        &mut self,
        inst: &mut Inst,
        row: &OpInfo,
        w1: u32,
    ) -> Result<(), DecodeError> {
        let codes = [bits(w1, 8, 0), bits(w1, 17, 9), bits(w1, 26, 18)];
        let (nsrc, wide) = match row.shape {
            Shape::V1 | Shape::ToScalar1 => (1, [false; 3]),
            Shape::Mov64 => (1, [true, false, false]),
            Shape::V2
            | Shape::Co
            | Shape::Cmp
            | Shape::Cmpx
            | Shape::ToScalar2
            | Shape::WriteLane => (2, [false; 3]),
            Shape::Cmpw | Shape::Cmpxw => (2, [true, true, false]),
            Shape::Sh64 => (2, [false, true, false]),
            // Carry-in and select masks are 64-bit lane masks: gfx9 is wave64 only.
            Shape::Ci | Shape::Cnd => (3, [false, false, true]),
            Shape::V3 => (3, [false; 3]),
            Shape::Mad64 => (3, [false, false, true]),
            Shape::LshlAdd64 => (3, [true, false, true]),
            _ => return Err(self.unsupported(format!("{} has no VOP3 form", mnemonic(row.op)))),
        };
        for i in 0..nsrc {
            inst.src[i] = self.gcn_src(codes[i], wide[i], None)?;
        }
        if matches!(row.shape, Shape::Ci | Shape::Cnd) && matches!(inst.src[2], Src::Vgpr(_)) {
            return Err(self.unsupported(format!(
                "{}: lane mask operand must be scalar",
                mnemonic(row.op)
            )));
        }
        if matches!(row.shape, Shape::ToScalar2 | Shape::WriteLane)
            && matches!(inst.src[1], Src::Vgpr(_))
        {
            return Err(self.unsupported(format!(
                "{}: the lane select must be scalar",
                mnemonic(row.op)
            )));
        }
        if row.shape == Shape::WriteLane && matches!(inst.src[0], Src::Vgpr(_)) {
            return Err(self.unsupported("v_writelane_b32: the value must be scalar"));
        }
        Ok(())
    }
}

/// GCN operand codes, read for the shared decoder too (its SOP* readers).
impl Decoder<'_> {
    /// A source operand code (8-bit scalar or 9-bit vector field), mapped to
    /// the register indices the emulator uses (m0 -> [`M0`]). `literal_at`:
    /// the dword a literal would be in, `None` where gfx9 has no literal (VOP3).
    pub(super) fn gcn_src(
        &mut self,
        code: u32,
        wide: bool,
        literal_at: Option<usize>,
    ) -> Result<Src, DecodeError> {
        if let Some(value) = inline_constant(code, wide) {
            return Ok(Src::Const(value));
        }
        Ok(match code {
            0..=123 | 126 | 127 => {
                if wide && code % 2 == 1 {
                    return Err(self.unsupported(format!(
                        "64-bit scalar operand starts at odd register {}",
                        name(code as u8)
                    )));
                }
                Src::Sgpr(code as u8)
            }
            M0_GFX9 => Src::Sgpr(M0),
            251 => Src::Vccz,
            252 => Src::Execz,
            253 => Src::Scc,
            LITERAL => match literal_at {
                None => return Err(self.unsupported("gfx9 VOP3 has no literal operand")),
                Some(at) => {
                    let lit = self.word(at)?;
                    if wide && lit >> 31 == 1 {
                        return Err(self.unsupported(format!(
                            "unsettled: 32-bit literal 0x{lit:08x} with bit 31 set in a 64-bit operand"
                        )));
                    }
                    Src::Lit(lit)
                }
            },
            256..=511 => Src::Vgpr((code - 256) as u16),
            235..=239 => {
                return Err(self.unsupported(format!(
                    "aperture source code {code} (src_shared_base...) is not emulated"
                )))
            }
            254 => return Err(self.unsupported("lds_direct is not emulated")),
            other => {
                return Err(
                    self.unsupported(format!("source operand code {other} is reserved on gfx9"))
                )
            }
        })
    }

    /// A 7-bit scalar destination: s0-s101, flat_scratch, xnack_mask, vcc, m0, exec.
    pub(super) fn gcn_sdst(&self, code: u32, wide: bool) -> Result<u8, DecodeError> {
        let reg = match code {
            0..=107 | 126 | 127 => code as u8,
            M0_GFX9 => M0,
            108..=123 => {
                return Err(self
                    .unsupported("trap temporaries (ttmp) are read-only outside the trap handler"))
            }
            _ => {
                return Err(self.unsupported(format!(
                    "scalar destination code {code} is not a writable register"
                )))
            }
        };
        if wide && (code % 2 == 1 || code == M0_GFX9) {
            return Err(self.unsupported(format!(
                "scalar destination {} is not a register pair",
                name(reg)
            )));
        }
        Ok(reg)
    }
}

/// LLVM's gfx9 name of scalar register index `r` (after the decoder's m0 mapping).
pub fn name(r: u8) -> String {
    match r {
        102 => "flat_scratch_lo".into(),
        103 => "flat_scratch_hi".into(),
        104 => "xnack_mask_lo".into(),
        105 => "xnack_mask_hi".into(),
        _ => reg_name(r),
    }
}

/// LLVM's gfx9 name of the scalar register pair at index `r`.
pub fn pair(r: u8) -> String {
    match r {
        102 => "flat_scratch".into(),
        104 => "xnack_mask".into(),
        _ => pair_name(r),
    }
}

/// A source as LLVM prints it on gfx9, in a `width`-dword slot.
fn show(s: Src, width: u32) -> String {
    match s {
        Src::Sgpr(r) if width == 2 => pair(r),
        Src::Sgpr(r) => name(r),
        other => other.show(width),
    }
}

/// `_e32`, `_e64`, `_dpp` or nothing, as LLVM names a gfx9 encoding: ops that
/// gfx9 has only in VOP3 (and the SOP*/SMEM/FLAT ones) take no suffix.
pub(super) fn suffix(inst: &Inst) -> &'static str {
    let two_forms = matches!(opcode(inst.op), Some((Vop1 | Vop2 | Vopc, _)));
    match (inst.dpp, inst.enc) {
        (Some(_), _) => "_dpp",
        (None, _) if !two_forms || inst.op == Op::VNop => "",
        (None, Enc::Native) if inst.op == Op::VReadfirstlaneB32 => "",
        (None, Enc::Native) => "_e32",
        (None, Enc::Vop3) => "_e64",
    }
}

/// The operand list of a register (not memory) instruction on gfx9: lane
/// masks are 64-bit pairs (`vcc`, `s[4:5]`) since gfx9 is wave64 only.
/// `None` for the memory shapes, which print as on gfx10+.
pub(super) fn operands(inst: &Inst) -> Option<Vec<String>> {
    let s = inst.src;
    let v = |r: u16| format!("v{r}");
    let wide = |r: u16| format!("v[{}:{}]", r, u32::from(r) + 1);
    Some(match table::info(inst.op).shape {
        Shape::S1 => vec![name(inst.sgpr_dst()), show(s[0], 1)],
        Shape::S1w => vec![pair(inst.sgpr_dst()), show(s[0], 2)],
        Shape::S2 => vec![name(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::S2w => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 2)],
        Shape::S2sh => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 1)],
        Shape::Sc => vec![show(s[0], 1), show(s[1], 1)],
        Shape::Scw => vec![show(s[0], 2), show(s[1], 2)],
        Shape::K if inst.op == Op::SGetregB32 => vec![
            name(inst.sgpr_dst()),
            Generation::Gfx9.hwreg_text(inst.imm as u16),
        ],
        Shape::K | Shape::KWait => vec![name(inst.sgpr_dst()), format!("0x{:x}", inst.imm as u16)],
        Shape::SetReg => vec![
            Generation::Gfx9.hwreg_text(inst.imm as u16),
            match s[0] {
                Src::Lit(_) => super::operand::setreg_value(s[0]),
                other => show(other, 1),
            },
        ],
        Shape::Nop | Shape::Control => match inst.op {
            Op::SEndpgm | Op::SBarrier => vec![],
            Op::SNop | Op::SSleep => vec![format!("{}", inst.imm as u16)],
            Op::SWaitcnt => vec![MemoryCounters::VmcntLgkm4.waitcnt_text(inst.imm as u16)],
            _ => vec![format!("0x{:x}", inst.imm as u16)],
        },
        Shape::Branch => vec![format!("{} (to 0x{:x})", inst.imm, inst.branch_target())],
        Shape::V1 if inst.op == Op::VNop => vec![],
        Shape::V1 => vec![v(inst.dst), show(s[0], 1)],
        Shape::V2 | Shape::WriteLane => vec![v(inst.dst), show(s[0], 1), show(s[1], 1)],
        Shape::V3 => vec![v(inst.dst), show(s[0], 1), show(s[1], 1), show(s[2], 1)],
        Shape::Cnd => vec![v(inst.dst), show(s[0], 1), show(s[1], 1), show(s[2], 2)],
        Shape::Co => vec![v(inst.dst), pair(inst.sdst), show(s[0], 1), show(s[1], 1)],
        Shape::Ci => vec![
            v(inst.dst),
            pair(inst.sdst),
            show(s[0], 1),
            show(s[1], 1),
            show(s[2], 2),
        ],
        Shape::Mad64 => vec![
            wide(inst.dst),
            pair(inst.sdst),
            show(s[0], 1),
            show(s[1], 1),
            show(s[2], 2),
        ],
        Shape::Sh64 => vec![wide(inst.dst), show(s[0], 1), show(s[1], 2)],
        Shape::LshlAdd64 => vec![wide(inst.dst), show(s[0], 2), show(s[1], 1), show(s[2], 2)],
        Shape::PkMov => vec![wide(inst.dst), show(s[0], 2), show(s[1], 2)],
        Shape::Mov64 => vec![wide(inst.dst), show(s[0], 2)],
        Shape::Cmp => vec![pair(inst.sdst), show(s[0], 1), show(s[1], 1)],
        Shape::Cmpw => vec![pair(inst.sdst), show(s[0], 2), show(s[1], 2)],
        Shape::Cmpx => vec![pair(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::Cmpxw => vec![pair(inst.sgpr_dst()), show(s[0], 2), show(s[1], 2)],
        Shape::ToScalar1 => vec![name(inst.sgpr_dst()), show(s[0], 1)],
        Shape::ToScalar2 => vec![name(inst.sgpr_dst()), show(s[0], 1), show(s[1], 1)],
        Shape::Load(_) | Shape::MemLoad(_) | Shape::MemStore(_) => return None,
    })
}
