//! VOPD, the dual-issue VALU encoding of gfx11 and later (wave32 only): one
//! 64-bit word (plus a shared literal) holding two operations, X and Y, that
//! issue together. LLVM forms them from two independent VALU instructions,
//! so compiled gfx11/gfx12 code is full of them (the HIP runtime's own copy
//! kernel among it).
//!
//! The emulator runs a VOPD as its two halves, X then Y, each decoded as the
//! VOP1/VOP2 instruction it names (the operand fields have the same meaning),
//! at the VOPD's offset: X has length 0, Y the whole word's. Running them in
//! order equals issuing them together only when Y reads nothing X writes;
//! LLVM never forms such a pair and the ISA guide gives no value for it, so
//! that pair is refused rather than guessed. Only the integer operations are
//! run (the emulator runs no floating-point VALU at all); the others are
//! refused by their `v_dual_*` name.
//!
//! Fields (AMD's RDNA3 ISA guide, "VOPD"; LLVM's `VOPDe`): src0X [8:0],
//! vsrc1X [16:9], opY [21:17], opX [25:22], encoding 0b110010 [31:26];
//! src0Y [40:32], vsrc1Y [48:41], vdstY[7:1] [55:49] (its bit 0 is the
//! complement of vdstX's, so the two never share a bank), vdstX [63:56].

use super::decode::{decode, DecodeError, Inst};
use super::table::{info, Format, Op};
use super::{Isa, VopdRules};

/// The encoding bits [31:26] of a VOPD word.
const VOPD_ENCODING: u32 = 0b110010;
/// A 9-bit source field naming the literal dword that follows the word.
const LITERAL: u32 = 0xff;

/// The `v_dual_*` name of operation `code` (X takes 0-13; Y also 16-18).
fn name(code: u32) -> &'static str {
    match code {
        0 => "v_dual_fmac_f32",
        1 => "v_dual_fmaak_f32",
        2 => "v_dual_fmamk_f32",
        3 => "v_dual_mul_f32",
        4 => "v_dual_add_f32",
        5 => "v_dual_sub_f32",
        6 => "v_dual_subrev_f32",
        7 => "v_dual_mul_dx9_zero_f32",
        8 => "v_dual_mov_b32",
        9 => "v_dual_cndmask_b32",
        10 => "v_dual_max_f32",
        11 => "v_dual_min_f32",
        12 => "v_dual_dot2acc_f32_f16",
        13 => "v_dual_dot2acc_f32_bf16",
        16 => "v_dual_add_nc_u32",
        17 => "v_dual_lshlrev_b32",
        18 => "v_dual_and_b32",
        _ => "a reserved VOPD operation",
    }
}

/// The VOP1/VOP2 instruction operation `code` is, where the emulator runs it.
fn op(code: u32, is_y: bool) -> Option<Op> {
    match code {
        8 => Some(Op::VMovB32),
        9 => Some(Op::VCndmaskB32),
        16 if is_y => Some(Op::VAddNcU32),
        17 if is_y => Some(Op::VLshlrevB32),
        18 if is_y => Some(Op::VAndB32),
        _ => None,
    }
}

fn bits(w: u32, hi: u32, lo: u32) -> u32 {
    (w >> lo) & ((1u32 << (hi - lo + 1)) - 1)
}

/// A VOPD word's fields.
struct Word {
    src0x: u32,
    vsrc1x: u32,
    op_x: u32,
    op_y: u32,
    src0y: u32,
    vsrc1y: u32,
    vdstx: u32,
    vdsty: u32,
}

impl Word {
    fn of(w0: u32, w1: u32) -> Word {
        let vdstx = bits(w1, 31, 24);
        Word {
            src0x: bits(w0, 8, 0),
            vsrc1x: bits(w0, 16, 9),
            op_y: bits(w0, 21, 17),
            op_x: bits(w0, 25, 22),
            src0y: bits(w1, 8, 0),
            vsrc1y: bits(w1, 16, 9),
            vdstx,
            vdsty: (bits(w1, 23, 17) << 1) | (!vdstx & 1),
        }
    }

    fn names(&self) -> String {
        format!("{} :: {}", name(self.op_x), name(self.op_y))
    }

    /// X's and Y's instructions, or why the pair is not run.
    fn ops(&self, rules: VopdRules) -> Result<(Op, Op), String> {
        let (Some(x), Some(y)) = (op(self.op_x, false), op(self.op_y, true)) else {
            let lacking = if op(self.op_x, false).is_none() { self.op_x } else { self.op_y };
            return Err(format!("{} ({}) is a VOPD operation the emulator does not implement", name(lacking), self.names()));
        };
        // Y reading v[vdstX]: in order, Y would see X's result; issued
        // together, the guide does not say.
        let vop2 = |op: Op| info(op).format == Format::Vop2;
        if self.src0y == 256 + self.vdstx || (vop2(y) && self.vsrc1y == self.vdstx) {
            return Err(format!(
                "{}: the Y operation reads v{}, which the X operation writes in the same issue; the ISA guide gives no value for that, and LLVM never pairs them",
                self.names(),
                self.vdstx
            ));
        }
        // The register-bank rule (the ISA guide; LLVM's assembler enforces
        // it): X's and Y's VGPR src0, and their vsrc1, come from different
        // banks (register number mod 4); gfx12 lets both name one register.
        let pairs = [
            (self.src0x, self.src0y, "src0", self.src0x >= 256 && self.src0y >= 256),
            (256 + self.vsrc1x, 256 + self.vsrc1y, "vsrc1", vop2(x) && vop2(y)),
        ];
        for (a, b, field, both) in pairs {
            let same_ok = rules.same_vgpr_in_one_bank && a == b;
            if both && a % 4 == b % 4 && !same_ok {
                return Err(format!(
                    "{}: the X and Y {field} operands (v{} and v{}) are in the same VGPR bank, which VOPD does not allow",
                    self.names(),
                    a - 256,
                    b - 256
                ));
            }
        }
        Ok((x, y))
    }
}

/// The VOP1/VOP2 encoding of `op` (plus `literal` when src0 names it),
/// decoded at `offset`.
fn half(isa: Isa, op: Op, vdst: u32, src0: u32, vsrc1: u32, literal: Option<u32>, offset: u64) -> Result<Inst, DecodeError> {
    let opcode = u32::from(info(op).opcode(isa.generation).unwrap_or(0));
    let e32 = match info(op).format {
        Format::Vop1 => (0b0111111 << 25) | (vdst << 17) | (opcode << 9) | src0,
        _ => (opcode << 25) | (vdst << 17) | (vsrc1 << 9) | src0,
    };
    let mut buf = e32.to_le_bytes().to_vec();
    if let Some(l) = literal.filter(|_| src0 == LITERAL) {
        buf.extend_from_slice(&l.to_le_bytes());
    }
    decode(isa, &buf, 0, offset)
}

/// The two halves of the VOPD at `bytes[pos..]`, or `None` when `isa` has no
/// VOPD or the word there is not one (then [`decode`] reads it).
pub fn decode_pair(isa: Isa, bytes: &[u8], pos: usize, base: u64) -> Option<Result<[Inst; 2], DecodeError>> {
    let rules = isa.generation.layout().vopd?;
    let word = |i: usize| -> Option<u32> {
        let at = pos + 4 * i;
        bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let w0 = word(0)?;
    if w0 >> 26 != VOPD_ENCODING {
        return None;
    }
    let offset = base.wrapping_add(pos as u64);
    let truncated = |needed: usize, dwords: Vec<u32>| DecodeError::Truncated {
        offset,
        format: "VOPD",
        needed,
        available: bytes.len().saturating_sub(pos),
        dwords,
    };
    let Some(w1) = word(1) else {
        return Some(Err(truncated(8, vec![w0])));
    };
    let f = Word::of(w0, w1);
    let literal = match (f.src0x == LITERAL || f.src0y == LITERAL, word(2)) {
        (false, _) => None,
        (true, Some(l)) => Some(l),
        (true, None) => return Some(Err(truncated(12, vec![w0, w1]))),
    };
    let dwords = [w0, w1, literal.unwrap_or(0)];
    let shown = dwords[..if literal.is_some() { 3 } else { 2 }].to_vec();
    let len = (4 * shown.len()) as u8;
    let (x, y) = match f.ops(rules) {
        Ok(ops) => ops,
        Err(reason) => {
            return Some(Err(DecodeError::Unsupported { offset, dwords: shown, format: "VOPD".to_string(), reason }))
        }
    };
    let pair = half(isa, x, f.vdstx, f.src0x, f.vsrc1x, literal, offset).and_then(|mut x| {
        let mut y = half(isa, y, f.vdsty, f.src0y, f.vsrc1y, literal, offset)?;
        (x.dwords, y.dwords, x.len, y.len) = (dwords, dwords, 0, len);
        Ok([x, y])
    });
    Some(pair)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The halves' text, or the refusal's reason (bytes from llvm-mc-19,
    /// gfx1100 and gfx1200 alike).
    fn read(isa: Isa, bytes: &[u8]) -> Result<(String, String, u8), String> {
        match decode_pair(isa, bytes, 0, 0x100).expect("a VOPD word") {
            Ok([x, y]) => {
                assert_eq!((x.offset, y.offset, x.len), (0x100, 0x100, 0));
                Ok((x.to_string(), y.to_string(), y.len))
            }
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn the_halves_are_the_vop1_vop2_instructions_they_name() {
        for isa in [Isa::GFX11, Isa::GFX12] {
            let r = read(isa, &[0x02, 0x01, 0x10, 0xca, 0x01, 0x01, 0x04, 0x06]).unwrap();
            assert_eq!(r, ("v_mov_b32_e32 v6, v2".into(), "v_mov_b32_e32 v5, v1".into(), 8));
            // A shared literal: the word is 12 bytes, X takes it.
            let r = read(isa, &[0xff, 0x00, 0x10, 0xca, 0x03, 0x00, 0x04, 0x00, 0x00, 0xa0, 0x01, 0x00]).unwrap();
            assert_eq!(r, ("v_mov_b32_e32 v0, 0x1a000".into(), "v_mov_b32_e32 v5, s3".into(), 12));
            let r = read(isa, &[0x80, 0x08, 0x60, 0xca, 0x05, 0x02, 0x00, 0x06]).unwrap();
            assert_eq!(r.0, "v_cndmask_b32_e32 v6, 0, v4, vcc_lo");
            assert_eq!(r.1, "v_add_nc_u32_e32 v1, s5, v1");
            let r = read(isa, &[0x05, 0x01, 0x22, 0xca, 0x82, 0x0e, 0x02, 0x02]).unwrap();
            assert_eq!(r.1, "v_lshlrev_b32_e32 v3, 2, v7");
            let r = read(isa, &[0x05, 0x01, 0x24, 0xca, 0x06, 0x0f, 0x02, 0x02]).unwrap();
            assert_eq!(r.1, "v_and_b32_e32 v3, v6, v7");
        }
    }

    #[test]
    fn float_operations_a_y_reading_x_and_bank_conflicts_are_refused_by_name() {
        let e = read(Isa::GFX11, &[0x01, 0x05, 0x10, 0xc8, 0x04, 0x01, 0x02, 0x00]).unwrap_err();
        assert!(e.contains("v_dual_fmac_f32 (v_dual_fmac_f32 :: v_dual_mov_b32) is a VOPD operation the emulator does not implement"), "{e}");
        // v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v3, v0 (LLVM assembles it).
        let e = read(Isa::GFX11, &[0x01, 0x01, 0x10, 0xca, 0x00, 0x01, 0x02, 0x00]).unwrap_err();
        assert!(e.contains("the Y operation reads v0, which the X operation writes"), "{e}");
        let e = read(Isa::GFX11, &[0x01, 0x01, 0x20, 0xca, 0x04, 0x01, 0x02, 0x00]).unwrap_err();
        assert!(e.contains("reads v0"), "{e}");
        // src0 v1 and v5: both bank 1 (hand-made: LLVM refuses to assemble it).
        let e = read(Isa::GFX11, &[0x01, 0x01, 0x10, 0xca, 0x05, 0x01, 0x04, 0x06]).unwrap_err();
        assert!(e.contains("src0 operands (v1 and v5) are in the same VGPR bank"), "{e}");
        // Truncated, and not a VOPD at all.
        assert!(read(Isa::GFX11, &[0xff, 0x00, 0x10, 0xca, 0x03, 0x00, 0x04, 0x00]).unwrap_err().contains("truncated"));
        assert!(decode_pair(Isa::GFX11, &[0x01, 0x05, 0x04, 0x7e], 0, 0).is_none());
        // gfx10 has no VOPD: the same bits are not read as one.
        assert!(decode_pair(Isa::GFX10, &[0x02, 0x01, 0x10, 0xca, 0x01, 0x01, 0x04, 0x06], 0, 0).is_none());
    }
}
