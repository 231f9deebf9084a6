//! `Display for Inst`: a disassembly close to LLVM's syntax, enough to
//! recognise the instruction in an error message or a report (not meant to
//! round-trip). `tests/isa/decode_oracle.rs` compares it with llvm-mc's text for
//! every row of the assembler-generated table.

use super::decode::{Enc, Inst};
use super::operand::{float64_name, float_name, pair_name, reg_name, setreg_value, Dpp, Src};
use super::table::{self, Format, Op, OpInfo, Shape};
use super::{MemoryCounters, SmemLayout};
use std::fmt;

fn signed_hex(v: i32) -> String {
    if v < 0 {
        format!("-0x{:x}", -(v as i64))
    } else {
        format!("0x{v:x}")
    }
}

fn range(prefix: char, r: u16, n: u32) -> String {
    if n <= 1 {
        format!("{prefix}{r}")
    } else {
        format!("{prefix}[{}:{}]", r, u32::from(r) + n - 1)
    }
}

/// VGPRs `v[r:r+n-1]` as llvm-objdump-22 prints them: past v255 (CDNA5's
/// `s_set_vgpr_msb` reach) the encoded low 8 bits, then the real number in
/// a comment (`v5 /*v261*/`), so the text is the bytes and the register both.
pub(super) fn vgprs(r: u16, n: u32) -> String {
    if r < 256 {
        range('v', r, n)
    } else {
        format!("{} /*{}*/", range('v', r & 0xff, n), range('v', r, n))
    }
}

impl Src {
    /// The operand as LLVM prints it in a `width_dwords`-wide slot.
    pub(super) fn show(&self, width_dwords: u32) -> String {
        match *self {
            Src::Sgpr(r) if width_dwords == 2 => pair_name(r),
            Src::Sgpr(r) => reg_name(r),
            Src::Vgpr(r) => vgprs(r, width_dwords),
            Src::Const(c) if width_dwords == 1 && float_name(c as u32).is_some() => {
                float_name(c as u32).unwrap_or("?").into()
            }
            Src::Const(c) if width_dwords == 2 && float64_name(c).is_some() => {
                float64_name(c).unwrap_or("?").into()
            }
            Src::Const(c) => {
                let as_i = if width_dwords == 2 {
                    c as i64
                } else {
                    i64::from(c as u32 as i32)
                };
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = table::info(self.op);
        let gcn = self.generation.layout().gcn;
        let suffix = if gcn {
            super::gfx9::suffix(self)
        } else {
            self.suffix(row)
        };
        write!(f, "{}{suffix}", self.mnemonic())?;
        // Modifiers LLVM prints after the operand list, space-separated.
        let mut trailing = String::new();
        let ops = match row.shape {
            Shape::Load(n) => self.smem_operands(n, &mut trailing),
            Shape::MemLoad(n) | Shape::MemStore(n) => self.vmem_operands(row, n, &mut trailing),
            // gfx9 (wave64 only) prints lane masks as pairs and names s102-s105.
            _ if gcn => super::gfx9::operands(self).unwrap_or_default(),
            _ => self.operands(row),
        };
        if !ops.is_empty() {
            write!(f, " {}", ops.join(", "))?;
        }
        f.write_str(&trailing)?;
        if row.shape == Shape::PkMov {
            // LLVM prints v_pk_mov_b32's two OPSEL bits only when set.
            let sel = self.mods.op_sel;
            if sel != 0 {
                write!(f, " op_sel:[{},{}]", sel & 1, sel >> 1 & 1)?;
            }
        } else if self.mods.any() {
            write!(f, "{}", ModifiersText(self.mods))?;
        }
        match self.dpp {
            None => Ok(()),
            Some(dpp) => write!(f, "{}", DppText(dpp)),
        }
    }
}

/// `v_xad_u32`'s VOP3 modifier fields, after the operands. LLVM has no
/// spelling for them on an integer op (it refuses to assemble them), so
/// each set field is shown in the bracketed form LLVM prints for packed and
/// float ops: ` neg:[1,0,0] abs:[0,1,0] op_sel:[0,0,0,1] clamp mul:2`
/// (OMOD 1, 2, 3: `mul:2`, `mul:4`, `div:2`), so a fault or an origin names
/// the fields the instruction carries.
struct ModifiersText(super::decode::Modifiers);

impl fmt::Display for ModifiersText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        let list = |bits: u8, n: u32| {
            (0..n)
                .map(|i| ((bits >> i) & 1).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        if m.neg != 0 {
            write!(f, " neg:[{}]", list(m.neg, 3))?;
        }
        if m.abs != 0 {
            write!(f, " abs:[{}]", list(m.abs, 3))?;
        }
        if m.op_sel != 0 {
            write!(f, " op_sel:[{}]", list(m.op_sel, 4))?;
        }
        if m.clamp {
            f.write_str(" clamp")?;
        }
        match m.omod {
            1 => f.write_str(" mul:2"),
            2 => f.write_str(" mul:4"),
            3 => f.write_str(" div:2"),
            _ => Ok(()),
        }
    }
}

impl Inst {
    /// `_e32`, `_e64`, `_dpp`, `_e64_dpp` or nothing, as LLVM names the encoding.
    fn suffix(&self, row: &OpInfo) -> &'static str {
        if self.op == Op::VNop {
            return ""; // LLVM prints v_nop bare in every encoding.
        }
        let vop = matches!(
            row.format,
            Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3
        );
        match (self.dpp, self.enc) {
            (None, _) if !vop || row.format == Format::Vop3 => "",
            (None, Enc::Native) if row.shape == Shape::ToScalar1 => "",
            (None, Enc::Vop3) if matches!(row.shape, Shape::Co | Shape::ToScalar1) => "",
            (None, Enc::Vop3) => "_e64",
            (None, Enc::Native) => "_e32",
            (Some(_), Enc::Vop3) => "_e64_dpp",
            (Some(_), Enc::Native) => "_dpp",
        }
    }

    /// The operand list of every shape but memory accesses.
    fn operands(&self, row: &OpInfo) -> Vec<String> {
        let s = &self.src;
        let v = |r: u16| vgprs(r, 1);
        match row.shape {
            Shape::S1 => vec![reg_name(self.sgpr_dst()), s[0].show(1)],
            Shape::S1w => vec![pair_name(self.sgpr_dst()), s[0].show(2)],
            Shape::S2 => vec![reg_name(self.sgpr_dst()), s[0].show(1), s[1].show(1)],
            Shape::S2w => vec![pair_name(self.sgpr_dst()), s[0].show(2), s[1].show(2)],
            Shape::S2sh => vec![pair_name(self.sgpr_dst()), s[0].show(2), s[1].show(1)],
            Shape::Sc => vec![s[0].show(1), s[1].show(1)],
            Shape::Scw => vec![s[0].show(2), s[1].show(2)],
            Shape::K if self.op == Op::SGetregB32 => {
                vec![
                    reg_name(self.sgpr_dst()),
                    self.generation.hwreg_text(self.imm as u16),
                ]
            }
            Shape::K | Shape::KWait => vec![
                reg_name(self.sgpr_dst()),
                format!("0x{:x}", self.imm as u16),
            ],
            Shape::SetReg => vec![
                self.generation.hwreg_text(self.imm as u16),
                setreg_value(s[0]),
            ],
            Shape::Nop | Shape::Control => match self.op {
                Op::SEndpgm | Op::SCodeEnd | Op::SBarrier | Op::SWaitIdle => vec![],
                Op::SNop | Op::SSleep => vec![format!("{}", self.imm as u16)],
                // LLVM 22 prints 0-64 in decimal, the rest as hex.
                Op::SSetVgprMsb if (0..=64).contains(&self.imm) => vec![self.imm.to_string()],
                // The packing gfx10's text reads (gfx11 packs anew: printed raw).
                Op::SWaitcnt if self.generation.memory_counters() == MemoryCounters::Vscnt => {
                    vec![MemoryCounters::Vscnt.waitcnt_text(self.imm as u16)]
                }
                _ => vec![format!("0x{:x}", self.imm as u16)],
            },
            Shape::Branch => vec![format!("{} (to 0x{:x})", self.imm, self.branch_target())],
            Shape::V1 if self.op == Op::VNop => vec![],
            Shape::V1 => vec![v(self.dst), s[0].show(1)],
            Shape::V2 | Shape::WriteLane => vec![v(self.dst), s[0].show(1), s[1].show(1)],
            Shape::V3 | Shape::Cnd => vec![v(self.dst), s[0].show(1), s[1].show(1), s[2].show(1)],
            Shape::Co => vec![v(self.dst), reg_name(self.sdst), s[0].show(1), s[1].show(1)],
            Shape::Ci => vec![
                v(self.dst),
                reg_name(self.sdst),
                s[0].show(1),
                s[1].show(1),
                s[2].show(1),
            ],
            Shape::Mad64 => vec![
                vgprs(self.dst, 2),
                reg_name(self.sdst),
                s[0].show(1),
                s[1].show(1),
                s[2].show(2),
            ],
            Shape::Sh64 => vec![vgprs(self.dst, 2), s[0].show(1), s[1].show(2)],
            Shape::LshlAdd64 => vec![vgprs(self.dst, 2), s[0].show(2), s[1].show(1), s[2].show(2)],
            Shape::PkMov => vec![vgprs(self.dst, 2), s[0].show(2), s[1].show(2)],
            Shape::Mov64 => vec![vgprs(self.dst, 2), s[0].show(2)],
            Shape::Cmp => vec![reg_name(self.sdst), s[0].show(1), s[1].show(1)],
            Shape::Cmpw => vec![reg_name(self.sdst), s[0].show(2), s[1].show(2)],
            Shape::Cmpx => vec![s[0].show(1), s[1].show(1)],
            Shape::Cmpxw => vec![s[0].show(2), s[1].show(2)],
            Shape::ToScalar1 => vec![reg_name(self.sgpr_dst()), s[0].show(1)],
            Shape::ToScalar2 => vec![reg_name(self.sgpr_dst()), s[0].show(1), s[1].show(1)],
            Shape::Load(n) => self.smem_operands(n, &mut String::new()),
            Shape::MemLoad(n) | Shape::MemStore(n) => {
                self.vmem_operands(row, n, &mut String::new())
            }
        }
    }

    /// SMEM: `s[d:d+n-1], s[base:base+1], soffset|offset` (+ ` offset:` when
    /// both; gfx12 prints it even when 0).
    fn smem_operands(&self, n: u8, trailing: &mut String) -> Vec<String> {
        let mut v = vec![
            range('s', self.dst, u32::from(n)),
            pair_name(self.sgpr_addr()),
        ];
        match self.saddr {
            Some(so) => {
                v.push(reg_name(so));
                if self.imm != 0 || self.generation.layout().smem == SmemLayout::Scope24 {
                    *trailing = format!(" offset:{}", signed_hex(self.imm));
                }
            }
            None => v.push(signed_hex(self.imm)),
        }
        v
    }

    /// FLAT/GLOBAL loads and stores of `n` bytes.
    fn vmem_operands(&self, row: &OpInfo, n: u8, trailing: &mut String) -> Vec<String> {
        let dwords = u32::from(n).div_ceil(4);
        let addr = if self.saddr.is_some() {
            vgprs(self.addr, 1)
        } else {
            vgprs(self.addr, 2)
        };
        let mut v = if matches!(row.shape, Shape::MemLoad(_)) {
            vec![vgprs(self.dst, dwords), addr]
        } else {
            vec![addr, vgprs(self.data, dwords)]
        };
        if row.format == Format::Global {
            v.push(self.saddr.map(pair_name).unwrap_or_else(|| "off".into()));
        }
        if self.imm != 0 {
            *trailing = format!(" offset:{}", self.imm);
        }
        if self.scale_offset {
            trailing.push_str(" scale_offset");
        }
        v
    }
}

/// A DPP control as LLVM prints it after the operands (with a leading space).
struct DppText(Dpp);

impl fmt::Display for DppText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Dpp::Dpp8 { sel, fi } => {
                write!(
                    f,
                    " dpp8:[{}]",
                    sel.iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )?;
                if fi {
                    write!(f, " fi:1")?;
                }
                Ok(())
            }
            Dpp::Dpp16 {
                ctrl,
                row_mask,
                bank_mask,
                bound_ctrl,
                fi,
            } => {
                write!(
                    f,
                    " {} row_mask:0x{row_mask:x} bank_mask:0x{bank_mask:x}",
                    dpp16_ctrl(ctrl)
                )?;
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

fn dpp16_ctrl(ctrl: u16) -> String {
    match ctrl {
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
        // gfx9's wave-wide controls and broadcasts (gfx10+ decoders refuse these codes).
        0x130 => "wave_shl:1".into(),
        0x134 => "wave_rol:1".into(),
        0x138 => "wave_shr:1".into(),
        0x13c => "wave_ror:1".into(),
        0x142 => "row_bcast:15".into(),
        0x143 => "row_bcast:31".into(),
        0x140 => "row_mirror".into(),
        0x141 => "row_half_mirror".into(),
        0x150..=0x15f => format!("row_share:{}", ctrl & 15),
        0x160..=0x16f => format!("row_xmask:{}", ctrl & 15),
        _ => format!("dpp_ctrl:0x{ctrl:x}"),
    }
}
