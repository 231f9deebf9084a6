//! The encoder: the instruction words a case kernel must contain for an
//! [`Op`]. The encoding tests (tests/isa/cases_encoding.rs,
//! tests/isa/cases_from_source.rs) disassemble every kernel and check that its
//! `v_xad_u32` words are exactly [`encode_for`] of its ops, and its
//! `v_mov_b32_dpp` words [`movs_for`] of them, so a table cannot claim a form
//! its kernel does not contain.
//!
//! [`encode`] gives the gfx11/gfx12 words (VOP3 opcode 581, the same on every
//! gfx11 and gfx12 target; checked against llvm-mc 19 for gfx1100, gfx1151
//! and gfx1200). [`encode_for`] gives a target's words: the first dword and
//! the m0/null codes its generation fixes (`Generation::xad_vop3_word`:
//! opcode 499, `D1F3`, on gfx9 and 837, `D745`, on gfx10;
//! `Generation::m0_code`, `null_code`: 124/125 there, gfx11 swapped them);
//! and it refuses what the target lacks, as LLVM does, asking its features
//! ([`Target::has`]): an SGPR or inline DPP src1 without
//! [`Feature::DppSrc1Scalar`], VOP3 DPP without [`Feature::Vop3Dpp`], and
//! without the gfx10 additions (gfx9) a VOP3 literal, `null`, s102-s105 or a
//! second scalar value (constant bus limit 1).

use super::model::{dpp16_ctrl_gfx10_on, dpp16_ctrl_gfx9_only, dpp16_ctrl_valid};
use super::op_table::{
    Dpp, Mov, Op, Src, DPP16, DPP8, DPP8_FI, EXEC_HI, EXEC_LO, LITERAL, M0, NULL, SRC_SCC,
};
use crate::platform::target::{Feature, Target};

/// The 9-bit source field of a non-DPP operand.
pub fn src_code(src: &Src) -> u16 {
    match *src {
        Src::V(r, _) | Src::Res(r, _) | Src::Moved(r, _) => 256 + u16::from(r),
        Src::Sreg(code, _) | Src::Gfx9Sreg(code, _) => code,
        Src::ExecLo => EXEC_LO,
        Src::ExecHi => EXEC_HI,
        Src::Null => NULL,
        Src::Scc(_) => SRC_SCC,
        Src::Inline(code) => code,
        Src::Lit(_) => LITERAL,
    }
}

/// The `v_xad_u32` words a kernel for `target` must contain for `op` (see the
/// module doc), or why its ISA has no such instruction.
pub fn encode_for(op: &Op, target: &Target) -> Result<Vec<u32>, String> {
    refuse_for(op, target)?;
    for slot in &op.src {
        if let Src::Moved(_, mov) = slot {
            mov_refusal(mov, target)?;
        }
    }
    let mut words = encode(op)?;
    let generation = target.generation();
    // `encode`'s words are gfx11's: the opcode and the m0/null codes are the
    // generation's values.
    words[0] = generation.xad_vop3_word() | (words[0] & 0xFFFF);
    let null = generation.null_code();
    // Source fields of dword 1: 9 bits each at 0, 9, 18.
    for shift in [0, 9, 18] {
        let code = ((words[1] >> shift) & 0x1FF) as u16;
        let code = match code {
            M0 => generation.m0_code(),
            // Refused above where the target has no null.
            NULL => null.ok_or_else(|| format!("{op:?}: {generation} has no null"))?,
            _ => code,
        };
        words[1] = (words[1] & !(0x1FF << shift)) | u32::from(code) << shift;
    }
    Ok(words)
}

/// Why `target` has no `v_xad_u32` of `op`'s operand forms (the assembler's
/// refusal), if it has none.
fn refuse_for(op: &Op, target: &Target) -> Result<(), String> {
    let generation = target.generation();
    let lacks = |feature| !target.has(feature);
    let dpp = !matches!(op.dpp, Dpp::None);
    if dpp && lacks(Feature::Vop3Dpp) {
        return Err(format!(
            "{op:?}: {generation} has no VOP3 DPP (v_xad_u32_e64_dpp)"
        ));
    }
    if dpp && lacks(Feature::DppSrc1Scalar) && !matches!(op.src[1], Src::V(..) | Src::Res(..)) {
        return Err(format!(
            "{op:?}: a DPP src1 must be a VGPR on {generation} without FeatureDPPSrc1SGPR"
        ));
    }
    if lacks(Feature::Gfx9SpecialSgprs) && op.src.iter().any(|s| matches!(s, Src::Gfx9Sreg(..))) {
        return Err(format!(
            "{op:?}: flat_scratch and xnack_mask are not operands on {generation}"
        ));
    }
    if lacks(Feature::Vop3Literal) && op.src.iter().any(|s| matches!(s, Src::Lit(_))) {
        return Err(format!("{op:?}: {generation} has no literal in a VOP3"));
    }
    if lacks(Feature::NullSgpr) && op.src.contains(&Src::Null) {
        return Err(format!("{op:?}: {generation} has no null"));
    }
    if lacks(Feature::HighSgprs) && op.src.iter().any(|s| matches!(s, Src::Sreg(102..=105, _))) {
        return Err(format!(
            "{op:?}: {generation} addresses s0-s101 (codes 102-105 are flat_scratch and xnack_mask)"
        ));
    }
    let mut scalars: Vec<u16> = op
        .src
        .iter()
        .filter(|s| s.is_scalar())
        .map(src_code)
        .collect();
    scalars.sort_unstable();
    scalars.dedup();
    if lacks(Feature::TwoScalarReads) && scalars.len() > 1 {
        return Err(format!(
            "{op:?}: {generation} reads one scalar value per VALU op (constant bus limit 1)"
        ));
    }
    Ok(())
}

/// Why `target` has no `v_mov_b32_dpp` with `mov`'s control, if it has none:
/// wave_shl/rol/shr/ror and row_bcast are gfx9's only; row_share, row_xmask,
/// fi and DPP8 came with gfx10.
fn mov_refusal(mov: &Mov, target: &Target) -> Result<(), String> {
    let generation = target.generation();
    let has = |feature| target.has(feature);
    match mov.dpp {
        Dpp::None => Err(format!("{mov:?}: a move without a DPP control")),
        Dpp::Row { fi: true, .. } if !has(Feature::DppFetchInactive) => {
            Err(format!("{mov:?}: {generation} DPP has no fi"))
        }
        Dpp::Row { ctrl, .. } => {
            let known = if dpp16_ctrl_gfx9_only(ctrl) {
                has(Feature::DppWaveControls)
            } else if dpp16_ctrl_gfx10_on(ctrl) {
                has(Feature::DppRowShare)
            } else {
                dpp16_ctrl_valid(ctrl)
            };
            if known {
                Ok(())
            } else {
                Err(format!(
                    "{mov:?}: DPP control {ctrl:#x} is not a {generation} control"
                ))
            }
        }
        Dpp::Lane8 { .. } if !has(Feature::Dpp8) => {
            Err(format!("{mov:?}: {generation} has no DPP8"))
        }
        Dpp::Lane8 { .. } => Ok(()),
    }
}

/// The `v_mov_b32_dpp` words of each moved source of `op` (slot order), as
/// `target` encodes them: VOP1 (`0x7E000000 | vdst << 17 | 1 << 9 | src0`, src0
/// 0xFA for DPP16, 0xE9/0xEA for DPP8) then the DPP word, the same layout on
/// gfx9-gfx12 (llvm-mc 19: `v_mov_b32_dpp v10, v2 wave_shl:1 row_mask:0xf
/// bank_mask:0xf` is 7E1402FA FF013002 on gfx908).
pub fn movs_for(op: &Op, target: &Target) -> Result<Vec<[u32; 2]>, String> {
    let mut words = Vec::new();
    for slot in &op.src {
        if let Src::Moved(dst, mov) = slot {
            mov_refusal(mov, target)?;
            let (code, dpp_word) =
                dpp_word(mov.src, mov.dpp).ok_or_else(|| format!("{mov:?}: no DPP control"))?;
            words.push([
                0x7E00_0000 | u32::from(*dst) << 17 | 1 << 9 | u32::from(code),
                dpp_word,
            ]);
        }
    }
    Ok(words)
}

/// The src0 code and DPP word of control `dpp` reading VGPR `reg` (None for
/// [`Dpp::None`]): DPP16 ctrl 16:8, fi 18, bound_ctrl 19, bank_mask 27:24,
/// row_mask 31:28; DPP8 selectors 3 bits each from bit 8.
fn dpp_word(reg: u8, dpp: Dpp) -> Option<(u16, u32)> {
    match dpp {
        Dpp::None => None,
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        } => Some((
            DPP16,
            u32::from(reg)
                | u32::from(ctrl) << 8
                | u32::from(fi) << 18
                | u32::from(bound_ctrl) << 19
                | u32::from(bank_mask & 15) << 24
                | u32::from(row_mask & 15) << 28,
        )),
        Dpp::Lane8 { sel, fi } => {
            let word = sel.iter().enumerate().fold(u32::from(reg), |w, (i, &s)| {
                w | u32::from(s & 7) << (8 + 3 * i)
            });
            Some((if fi { DPP8_FI } else { DPP8 }, word))
        }
    }
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
    let dpp_word = match (op.dpp, op.src[0]) {
        (Dpp::None, _) => None,
        (dpp, Src::V(r, _)) => dpp_word(r, dpp).map(|(code, word)| {
            codes[0] = u32::from(code);
            word
        }),
        _ => return Err(format!("{op:?}: DPP src0 must be a lane-source VGPR")),
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

/// The target row `name`, for the test modules below.
#[cfg(test)]
fn on(name: &str) -> &'static Target {
    crate::platform::target::find(name).unwrap_or_else(|| panic!("{name} row"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Generation;
    use crate::model::cases::op_table::{quad_perm, Lane};

    /// The first dword each generation fixes for `v_xad_u32` carries the
    /// opcode the ISA table has for it: one number, two places that must agree.
    #[test]
    fn xad_word_opcodes_are_the_tables() {
        let row = crate::isa::table::info(crate::isa::Op::VXadU32);
        for generation in Generation::ALL {
            let opcode = (generation.xad_vop3_word() >> 16 & 0x3FF) as u16;
            assert_eq!(Some(opcode), row.opcode(generation), "{generation}");
        }
    }

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
    use crate::model::cases::op_table::{int, quad_perm, row_shl, Lane, M0, VCC_HI};

    const D8FI: Dpp = Dpp::Lane8 {
        sel: [7, 6, 5, 4, 3, 2, 1, 0],
        fi: true,
    };

    /// `v_xad_u32_e64_dpp v5, v2, <src1>, <src2> <dpp>`.
    fn v(src1: Src, src2: Src, dpp: Dpp) -> Op {
        Op::new(0, 5, [Src::V(2, Lane::A), src1, src2]).dpp(dpp)
    }

    /// Scalar-src1 DPP ops and their words from llvm-mc-19 (the asm is in
    /// each comment).
    fn llvm_mc_table() -> [(Op, [u32; 3]); 16] {
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
        let d8fi = D8FI;
        let c = Src::V(4, Lane::C);
        [
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
                v(Src::Scc(crate::model::cases::op_table::SccFrom::One), c, qp),
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
        ]
    }

    /// Hand-copied from `llvm-mc-19 -show-encoding` for -mcpu=gfx1151 and
    /// -mcpu=gfx1200, which print the same bytes for every line (the asm is
    /// in each comment); tests/isa/cases_dpp_src1.rs checks every catalogue op
    /// against the kernels LLVM assembled.
    #[test]
    fn scalar_src1_dpp_words_match_llvm_mc() {
        let shl = Dpp::Row {
            ctrl: row_shl(1),
            row_mask: 5,
            bank_mask: 3,
            bound_ctrl: true,
            fi: true,
        };
        let c = Src::V(4, Lane::C);
        for (op, want) in llvm_mc_table() {
            assert_eq!(encode_for(&op, on("gfx1151")).unwrap(), want, "{op:?}");
            assert_eq!(encode_for(&op, on("gfx1200")).unwrap(), want, "{op:?}");
            // gfx1100: "invalid operand for instruction" / "src1 immediate operand invalid".
            let refused = encode_for(&op, on("gfx1100")).unwrap_err();
            assert!(refused.contains("DPP src1 must be a VGPR"), "{refused}");
        }
        // v_xad_u32_e64_dpp v5, v2, s20, v4 row_shl:1 row_mask:0x5 bank_mask:0x3 bound_ctrl:1 fi:1
        assert_eq!(
            encode_for(&v(Src::Sreg(20, 0), c, shl), on("gfx1200")).unwrap(),
            [0xD645_0005, 0x0410_28FA, 0x530D_0102]
        );
        // v_xad_u32_e64_dpp v5, v2, m0, v4 dpp8:[7,6,5,4,3,2,1,0] fi:1
        assert_eq!(
            encode_for(&v(Src::Sreg(M0, 0), c, D8FI), on("gfx1151")).unwrap(),
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
        for isa in [on("gfx1100"), on("gfx1151"), on("gfx1200")] {
            assert!(encode_for(&lit, isa).is_err(), "{}", isa.name);
            assert!(encode_for(&sgpr_src0, isa).is_err(), "{}", isa.name);
        }
        // Without DPP a scalar src1 is fine everywhere.
        let plain = Op::new(0, 5, [Src::V(2, A), Src::Sreg(20, 0), Src::V(4, C)]);
        assert_eq!(
            encode_for(&plain, on("gfx1100")).unwrap(),
            encode(&plain).unwrap()
        );
    }
}

#[cfg(test)]
mod gfx9_gfx10_tests {
    use super::*;
    use crate::model::cases::op_table::{
        int, moved, quad_perm, row_share, row_shl, Lane::*, FLAT_SCRATCH_LO, M0, ROW_BCAST15,
        WAVE_SHL1,
    };

    fn row(ctrl: u16, row_mask: u8, bound_ctrl: bool, fi: bool) -> Dpp {
        Dpp::Row {
            ctrl,
            row_mask,
            bank_mask: 0xf,
            bound_ctrl,
            fi,
        }
    }
    /// `v_xad_u32 v5, <src0>, v2, v3` (src0 moved into v10 where it is a move).
    fn xad5(src0: Src) -> Op {
        Op::new(0, 5, [src0, Src::V(2, B), Src::V(3, C)])
    }

    /// Words hand-copied from `llvm-mc-19 -show-encoding` (gfx908, gfx90a,
    /// gfx942 print the same; gfx1010 and gfx1030 the same), the asm in each comment.
    #[test]
    fn gfx9_and_gfx10_words_match_llvm_mc() {
        // v_xad_u32 v5, m0, v2, v3: m0 is 124 on gfx9 and gfx10.
        let m0 = xad5(Src::Sreg(M0, 0));
        assert_eq!(
            encode_for(&m0, on("gfx908")).unwrap(),
            [0xD1F3_0005, 0x040E_047C]
        );
        assert_eq!(
            encode_for(&m0, on("gfx1030")).unwrap(),
            [0xD745_0005, 0x040E_047C]
        );
        // v_xad_u32 v5, flat_scratch_lo, v2, v3 (gfx9 only)
        let fs = xad5(Src::Gfx9Sreg(FLAT_SCRATCH_LO, 0));
        assert_eq!(
            encode_for(&fs, on("gfx908")).unwrap(),
            [0xD1F3_0005, 0x040E_0466]
        );
        assert!(encode_for(&fs, on("gfx1030")).is_err() && encode_for(&fs, on("gfx1100")).is_err());
        // v_mov_b32_dpp v10, v2 wave_shl:1 row_mask:0xf bank_mask:0xf; v_xad_u32 v5, v10, v2, v3
        let shl = xad5(moved(10, 2, A, row(WAVE_SHL1, 0xf, false, false), 0));
        assert_eq!(
            movs_for(&shl, on("gfx908")).unwrap(),
            [[0x7E14_02FA, 0xFF01_3002]]
        );
        assert_eq!(
            encode_for(&shl, on("gfx908")).unwrap(),
            [0xD1F3_0005, 0x040E_050A]
        );
        // v_mov_b32_dpp v10, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
        let bcast = xad5(moved(10, 2, A, row(ROW_BCAST15, 0xa, false, false), 0));
        assert_eq!(
            movs_for(&bcast, on("gfx908")).unwrap(),
            [[0x7E14_02FA, 0xAF01_4202]]
        );
        // v_mov_b32_dpp v10, v2 quad_perm:[1,2,3,0] row_mask:0x5 bank_mask:0x3 bound_ctrl:1 (gfx9 and gfx10)
        let qp = Dpp::Row {
            ctrl: quad_perm([1, 2, 3, 0]),
            row_mask: 5,
            bank_mask: 3,
            bound_ctrl: true,
            fi: false,
        };
        let qp = xad5(moved(10, 2, A, qp, 0));
        for isa in [on("gfx908"), on("gfx1030"), on("gfx1100")] {
            assert_eq!(
                movs_for(&qp, isa).unwrap(),
                [[0x7E14_02FA, 0x5308_3902]],
                "{}",
                isa.name
            );
        }
        // gfx1030: v_mov_b32_dpp v10, v2 row_shl:1 row_mask:0xf bank_mask:0xf fi:1 / dpp8:[7,6,5,4,3,2,1,0] / row_share:1
        let fi = xad5(moved(10, 2, A, row(row_shl(1), 0xf, false, true), 0));
        assert_eq!(
            movs_for(&fi, on("gfx1030")).unwrap(),
            [[0x7E14_02FA, 0xFF05_0102]]
        );
        let d8 = xad5(moved(
            10,
            2,
            A,
            Dpp::Lane8 {
                sel: [7, 6, 5, 4, 3, 2, 1, 0],
                fi: false,
            },
            0,
        ));
        assert_eq!(
            movs_for(&d8, on("gfx1030")).unwrap(),
            [[0x7E14_02E9, 0x0539_7702]]
        );
        let share = xad5(moved(10, 2, A, row(row_share(1), 0xf, false, false), 0));
        assert_eq!(
            movs_for(&share, on("gfx1030")).unwrap(),
            [[0x7E14_02FA, 0xFF01_5102]]
        );
    }

    /// What each generation refuses (llvm-mc-19: "not a valid operand", "literal
    /// operands are not supported", "violates constant bus restrictions", ...).
    #[test]
    fn gfx9_and_gfx10_refuse_what_llvm_refuses() {
        let v3 = Src::V(3, C);
        let mv = |dpp| xad5(moved(10, 2, A, dpp, 0));
        let fi = mv(row(row_shl(1), 0xf, false, true));
        let d8 = mv(Dpp::Lane8 {
            sel: [7, 6, 5, 4, 3, 2, 1, 0],
            fi: false,
        });
        let share = mv(row(row_share(1), 0xf, false, false));
        let shl = mv(row(WAVE_SHL1, 0xf, false, false));
        let bcast = mv(row(ROW_BCAST15, 0xa, false, false));
        for (op, isa) in [
            (&fi, on("gfx908")),
            (&d8, on("gfx908")),
            (&share, on("gfx908")),
            (&shl, on("gfx1030")),
            (&bcast, on("gfx1100")),
        ] {
            assert!(
                movs_for(op, isa).is_err() && encode_for(op, isa).is_err(),
                "{op:?} on {}",
                isa.name
            );
        }
        let lit = Op::new(0, 5, [Src::Lit(0x1234_5678), Src::V(2, B), v3]);
        let null = Op::new(0, 5, [Src::Null, Src::V(2, B), v3]);
        let two = Op::new(0, 5, [Src::Sreg(20, 0), Src::Sreg(21, 1), v3]);
        let s102 = Op::new(0, 5, [Src::Sreg(102, 0), Src::V(2, B), v3]);
        let vop3_dpp =
            Op::new(0, 5, [Src::V(2, A), Src::V(3, B), v3]).dpp(row(row_shl(1), 0xf, false, false));
        for op in [&lit, &null, &two, &s102, &vop3_dpp] {
            assert!(encode_for(op, on("gfx908")).is_err(), "{op:?} on gfx9");
        }
        assert!(encode_for(&vop3_dpp, on("gfx1030")).is_err());
        // One SGPR in two slots is one value, and inline constants are off the bus.
        let same = Op::new(0, 5, [Src::Sreg(20, 0), Src::Sreg(20, 0), int(7)]);
        assert_eq!(
            encode_for(&same, on("gfx908")).unwrap(),
            [0xD1F3_0005, 0x021C_2814]
        );
    }
}
