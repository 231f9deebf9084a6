//! The encoder: the instruction words a case kernel must contain for an
//! [`Op`]. The encoding tests (tests/cases_encoding.rs) disassemble every
//! kernel and check that its `v_xad_u32` words are exactly [`encode`] of its
//! ops, so a table cannot claim a form its kernel does not contain.

use super::program::{Dpp, Op, Src, DPP16, DPP8, DPP8_FI, EXEC_HI, EXEC_LO, LITERAL, NULL, SRC_SCC};

/// The 9-bit source field of a non-DPP operand.
pub fn src_code(src: &Src) -> u16 {
    match *src {
        Src::V(r, _) | Src::Res(r, _) => 256 + u16::from(r),
        Src::Sreg(code, _) => code,
        Src::ExecLo => EXEC_LO,
        Src::ExecHi => EXEC_HI,
        Src::Null => NULL,
        Src::Scc(_) => SRC_SCC,
        Src::Inline(code) => code,
        Src::Lit(_) => LITERAL,
    }
}

/// The instruction words the kernel must contain for `op` (VOP3 layout: dword0
/// = 0xD645_0000 | vdst with no clamp/op_sel/abs; dword1 = src0 | src1 << 9 |
/// src2 << 18 with no neg; then the literal or the DPP word). Errors name an
/// op no gfx11 encoding can express.
pub fn encode(op: &Op) -> Result<Vec<u32>, String> {
    let mut codes = op.src.map(|s| u32::from(src_code(&s)));
    let mut words = vec![0xD645_0000 | u32::from(op.vdst)];
    let literals: Vec<u32> = op.src.iter().filter_map(|s| if let Src::Lit(v) = s { Some(*v) } else { None }).collect();
    if literals.iter().any(|&v| v != literals[0]) {
        return Err(format!("{op:?}: two different literals"));
    }
    let dpp_word = match op.dpp {
        Dpp::None => None,
        Dpp::Row { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
            let Src::V(r, _) = op.src[0] else { return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR")) };
            codes[0] = u32::from(DPP16);
            Some(
                u32::from(r)
                    | u32::from(ctrl) << 8
                    | u32::from(fi) << 18
                    | u32::from(bound_ctrl) << 19
                    | u32::from(bank_mask & 15) << 24
                    | u32::from(row_mask & 15) << 28,
            )
        }
        Dpp::Lane8 { sel, fi } => {
            let Src::V(r, _) = op.src[0] else { return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR")) };
            codes[0] = u32::from(if fi { DPP8_FI } else { DPP8 });
            Some(sel.iter().enumerate().fold(u32::from(r), |w, (i, &s)| w | u32::from(s & 7) << (8 + 3 * i)))
        }
    };
    if dpp_word.is_some() && (!literals.is_empty() || !matches!(op.src[1], Src::V(..) | Src::Res(..))) {
        return Err(format!("{op:?}: DPP needs a VGPR src1 and no literal on gfx1100"));
    }
    words.push(codes[0] | codes[1] << 9 | codes[2] << 18);
    words.extend(literals.first());
    words.extend(dpp_word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::program::{quad_perm, Lane};

    #[test]
    fn encodings_match_llvm_mc() {
        // Words from llvm-mc-19 -mcpu=gfx1100 -show-encoding.
        use Lane::*;
        let basic = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]);
        assert_eq!(encode(&basic).unwrap(), vec![0xD645_0005, 0x0412_0702]);
        let lit = Op::new(0, 5, [Src::Lit(0x8000_0000), Src::Sreg(1, 0), Src::Lit(0x8000_0000)]);
        assert_eq!(encode(&lit).unwrap(), vec![0xD645_0005, 0x03FC_02FF, 0x8000_0000]);
        let qp = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)])
            .dpp(Dpp::Row { ctrl: quad_perm([1, 2, 3, 0]), row_mask: 5, bank_mask: 3, bound_ctrl: true, fi: true });
        assert_eq!(encode(&qp).unwrap(), vec![0xD645_0005, 0x0412_06FA, 0x530C_3902]);
        let d8 = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]).dpp(Dpp::Lane8 { sel: [7, 6, 5, 4, 3, 2, 1, 0], fi: false });
        assert_eq!(encode(&d8).unwrap(), vec![0xD645_0005, 0x0412_06E9, 0x0539_7702]);
        let two_lits = Op::new(0, 5, [Src::Lit(1), Src::Lit(2), Src::V(4, C)]);
        assert!(encode(&two_lits).is_err());
    }
}
