//! The encoder: the instruction words a case kernel must contain for an
//! [`Op`]. The encoding tests (tests/cases_encoding.rs) disassemble every
//! kernel and check that its `v_xad_u32` words are exactly [`encode`] of its
//! ops, so a table cannot claim a form its kernel does not contain.
//!
//! The words are the same on every gfx11 and gfx12 target (VOP3 opcode 581,
//! same DPP words; checked against llvm-mc 19 for gfx1100, gfx1151 and
//! gfx1200). What differs is which forms a target accepts: [`encode_for`]
//! refuses an SGPR or inline constant as src1 of a DPP op unless the ISA has
//! [`Isa::dpp_src1_scalar`], as LLVM does.

use super::program::{
    Dpp, Op, Src, DPP16, DPP8, DPP8_FI, EXEC_HI, EXEC_LO, LITERAL, NULL, SRC_SCC,
};
use crate::isa::Isa;

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

/// The instruction words a kernel for a target with `isa` must contain for
/// `op`: [`encode`], after refusing an SGPR, special register or inline
/// constant as src1 of a DPP op where the ISA lacks
/// [`Isa::dpp_src1_scalar`] (gfx1100-1103, gfx11-generic: LLVM rejects it).
pub fn encode_for(op: &Op, isa: Isa) -> Result<Vec<u32>, String> {
    let dpp = !matches!(op.dpp, Dpp::None);
    if dpp && !isa.dpp_src1_scalar && !matches!(op.src[1], Src::V(..) | Src::Res(..)) {
        return Err(format!(
            "{op:?}: a DPP src1 must be a VGPR on {} without FeatureDPPSrc1SGPR",
            isa.generation
        ));
    }
    encode(op)
}

/// The instruction words the kernel must contain for `op` on a target that
/// accepts its form (VOP3 layout: dword0 = 0xD645_0000 | vdst with no
/// clamp/op_sel/abs; dword1 = src0 | src1 << 9 | src2 << 18 with no neg; then
/// the literal or the DPP word). Errors name an op no gfx11/gfx12 encoding can
/// express (two literals, DPP with a literal or a non-VGPR src0); whether the
/// target takes a scalar DPP src1 is [`encode_for`]'s question.
pub fn encode(op: &Op) -> Result<Vec<u32>, String> {
    let mut codes = op.src.map(|s| u32::from(src_code(&s)));
    let mut words = vec![0xD645_0000 | u32::from(op.vdst)];
    let literals: Vec<u32> = op
        .src
        .iter()
        .filter_map(|s| if let Src::Lit(v) = s { Some(*v) } else { None })
        .collect();
    if literals.iter().any(|&v| v != literals[0]) {
        return Err(format!("{op:?}: two different literals"));
    }
    let dpp_word = match op.dpp {
        Dpp::None => None,
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        } => {
            let Src::V(r, _) = op.src[0] else {
                return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR"));
            };
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
            let Src::V(r, _) = op.src[0] else {
                return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR"));
            };
            codes[0] = u32::from(if fi { DPP8_FI } else { DPP8 });
            Some(sel.iter().enumerate().fold(u32::from(r), |w, (i, &s)| {
                w | u32::from(s & 7) << (8 + 3 * i)
            }))
        }
    };
    // The DPP word takes the literal's place: no DPP form has a literal.
    if dpp_word.is_some() && !literals.is_empty() {
        return Err(format!("{op:?}: DPP leaves no room for a literal"));
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
        let lit = Op::new(
            0,
            5,
            [
                Src::Lit(0x8000_0000),
                Src::Sreg(1, 0),
                Src::Lit(0x8000_0000),
            ],
        );
        assert_eq!(
            encode(&lit).unwrap(),
            vec![0xD645_0005, 0x03FC_02FF, 0x8000_0000]
        );
        let qp = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]).dpp(Dpp::Row {
            ctrl: quad_perm([1, 2, 3, 0]),
            row_mask: 5,
            bank_mask: 3,
            bound_ctrl: true,
            fi: true,
        });
        assert_eq!(
            encode(&qp).unwrap(),
            vec![0xD645_0005, 0x0412_06FA, 0x530C_3902]
        );
        let d8 = Op::new(0, 5, [Src::V(2, A), Src::V(3, B), Src::V(4, C)]).dpp(Dpp::Lane8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: false,
        });
        assert_eq!(
            encode(&d8).unwrap(),
            vec![0xD645_0005, 0x0412_06E9, 0x0539_7702]
        );
        let two_lits = Op::new(0, 5, [Src::Lit(1), Src::Lit(2), Src::V(4, C)]);
        assert!(encode(&two_lits).is_err());
    }
}

#[cfg(test)]
mod dpp_src1_tests {
    use super::*;
    use crate::cases::program::{int, quad_perm, row_shl, Lane, M0, VCC_HI};

    /// Hand-copied from `llvm-mc-19 -show-encoding` for -mcpu=gfx1151 and
    /// -mcpu=gfx1200, which print the same bytes for every line (the asm is
    /// in each comment); tests/cases_dpp_src1.rs checks every catalogue op
    /// against the kernels LLVM assembled.
    #[test]
    fn scalar_src1_dpp_words_match_llvm_mc() {
        use Lane::*;
        let qp = Dpp::Row {
            ctrl: quad_perm([1, 2, 3, 0]),
            row_mask: 0xf,
            bank_mask: 0xf,
            bound_ctrl: false,
            fi: false,
        };
        let d8 = Dpp::Lane8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: false,
        };
        let d8fi = Dpp::Lane8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: true,
        };
        let shl = Dpp::Row {
            ctrl: row_shl(1),
            row_mask: 5,
            bank_mask: 3,
            bound_ctrl: true,
            fi: true,
        };
        let v = |src1: Src, src2: Src, dpp: Dpp| Op::new(0, 5, [Src::V(2, A), src1, src2]).dpp(dpp);
        let c = Src::V(4, C);
        let table: [(Op, [u32; 3]); 16] = [
            // v_xad_u32_e64_dpp v5, v2, s20, v4 quad_perm:[1,2,3,0]
            (
                v(Src::Sreg(20, 0), c, qp),
                [0xD645_0005, 0x0410_28FA, 0xFF00_3902],
            ),
            // ... v2, vcc_hi, v4 / m0 / exec_hi / null / src_scc, same control
            (
                v(Src::Sreg(VCC_HI, 0), c, qp),
                [0xD645_0005, 0x0410_D6FA, 0xFF00_3902],
            ),
            (
                v(Src::Sreg(M0, 0), c, qp),
                [0xD645_0005, 0x0410_FAFA, 0xFF00_3902],
            ),
            (
                v(Src::ExecHi, c, qp),
                [0xD645_0005, 0x0410_FEFA, 0xFF00_3902],
            ),
            (v(Src::Null, c, qp), [0xD645_0005, 0x0410_F8FA, 0xFF00_3902]),
            (
                v(Src::Scc(crate::cases::program::SccFrom::One), c, qp),
                [0xD645_0005, 0x0411_FAFA, 0xFF00_3902],
            ),
            // ... v2, 5 / -16 / 64 / 0.5 / 0.15915494, v4
            (v(int(5), c, qp), [0xD645_0005, 0x0411_0AFA, 0xFF00_3902]),
            (v(int(-16), c, qp), [0xD645_0005, 0x0411_A0FA, 0xFF00_3902]),
            (v(int(64), c, qp), [0xD645_0005, 0x0411_80FA, 0xFF00_3902]),
            (
                v(Src::Inline(240), c, qp),
                [0xD645_0005, 0x0411_E0FA, 0xFF00_3902],
            ),
            (
                v(Src::Inline(248), c, qp),
                [0xD645_0005, 0x0411_F0FA, 0xFF00_3902],
            ),
            // v_xad_u32_e64_dpp v5, v2, s20, s21 / s20, 7 / 3, 7 quad_perm:[1,2,3,0]
            (
                v(Src::Sreg(20, 0), Src::Sreg(21, 1), qp),
                [0xD645_0005, 0x0054_28FA, 0xFF00_3902],
            ),
            (
                v(Src::Sreg(20, 0), int(7), qp),
                [0xD645_0005, 0x021C_28FA, 0xFF00_3902],
            ),
            (
                v(int(3), int(7), qp),
                [0xD645_0005, 0x021D_06FA, 0xFF00_3902],
            ),
            // v_xad_u32_e64_dpp v5, v2, s20, v4 dpp8:[7,6,5,4,3,2,1,0] / 2.0 ... fi:1
            (
                v(Src::Sreg(20, 0), c, d8),
                [0xD645_0005, 0x0410_28E9, 0x0539_7702],
            ),
            (
                v(Src::Inline(244), c, d8fi),
                [0xD645_0005, 0x0411_E8EA, 0x0539_7702],
            ),
        ];
        for (op, want) in table {
            assert_eq!(encode_for(&op, Isa::GFX115X).unwrap(), want, "{op:?}");
            assert_eq!(encode_for(&op, Isa::GFX12).unwrap(), want, "{op:?}");
            // gfx1100: "invalid operand for instruction" / "src1 immediate operand invalid".
            let refused = encode_for(&op, Isa::GFX11).unwrap_err();
            assert!(refused.contains("DPP src1 must be a VGPR"), "{refused}");
        }
        // v_xad_u32_e64_dpp v5, v2, s20, v4 row_shl:1 row_mask:0x5 bank_mask:0x3 bound_ctrl:1 fi:1
        assert_eq!(
            encode_for(&v(Src::Sreg(20, 0), c, shl), Isa::GFX12).unwrap(),
            [0xD645_0005, 0x0410_28FA, 0x530D_0102]
        );
        // v_xad_u32_e64_dpp v5, v2, m0, v4 dpp8:[7,6,5,4,3,2,1,0] fi:1
        assert_eq!(
            encode_for(&v(Src::Sreg(M0, 0), c, d8fi), Isa::GFX115X).unwrap(),
            [0xD645_0005, 0x0410_FAEA, 0x0539_7702]
        );
    }

    #[test]
    fn what_no_target_takes_is_refused_everywhere() {
        use Lane::*;
        let qp = Dpp::Row {
            ctrl: quad_perm([1, 2, 3, 0]),
            row_mask: 0xf,
            bank_mask: 0xf,
            bound_ctrl: false,
            fi: false,
        };
        // llvm-mc-19 gfx1151/gfx1200: "invalid operand for instruction" for a literal src1 with DPP.
        let lit = Op::new(0, 5, [Src::V(2, A), Src::Lit(100), Src::V(4, C)]).dpp(qp);
        let sgpr_src0 = Op::new(0, 5, [Src::Sreg(20, 0), Src::V(3, B), Src::V(4, C)]).dpp(qp);
        for isa in [Isa::GFX11, Isa::GFX115X, Isa::GFX12] {
            assert!(encode_for(&lit, isa).is_err(), "{isa:?}");
            assert!(encode_for(&sgpr_src0, isa).is_err(), "{isa:?}");
        }
        // Without DPP a scalar src1 is fine everywhere.
        let plain = Op::new(0, 5, [Src::V(2, A), Src::Sreg(20, 0), Src::V(4, C)]);
        assert_eq!(
            encode_for(&plain, Isa::GFX11).unwrap(),
            encode(&plain).unwrap()
        );
    }
}
