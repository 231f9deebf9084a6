//! What an instruction touches, decided once when a kernel is decoded: every
//! register it reads or writes as bit masks ([`Deps`]), and the flags that
//! send it to the run-time checks (a memory access, a DPP read that may be
//! unsettled, a hazard it consumes, ...). The static passes
//! ([`super::hazards`], [`super::counters`], [`super::unwritten`]) and the
//! run-time shadow ([`super::taint`]) all read the same masks; nothing here
//! knows a wave.

use crate::isa::{Dpp, Format, Inst, Op, Shape, Src, EXEC, NULL, VCC};

/// `null` holds no state, so its bit in the SGPR masks carries SCC.
pub(super) const SCC_BIT: u8 = NULL;
pub(super) const EXEC_HI: u8 = EXEC + 1;
pub(super) const VCC_HI: u8 = VCC + 1;

/// [`Deps::flags`]: a memory access (the memory shadow may matter).
pub(super) const F_MEM: u8 = 1;
/// A DPP16 read with bound_ctrl=0, fi=0 (unsettled when a source lane is off).
pub(super) const F_DPP: u8 = 2;
/// Always take the taint path (s_sendmsg MSG_DEALLOC_VGPRS, s_getreg_b32 of MODE).
pub(super) const F_SLOW: u8 = 4;
/// Writes EXEC (for [`may_read_unwritten`]; no runtime test).
pub(super) const F_EXEC: u8 = 8;
/// Touches exec_hi/vcc_hi in wave32.
pub(super) const F_HI: u8 = 16;
/// A read the documents leave open whatever the state (gfx9 row_bcast into a
/// row with no row to broadcast from): always unsettled.
pub(super) const F_UNDOC: u8 = 32;
/// Consumes a hazard ([`super::hazards`]): some source may be stale.
pub(super) const F_HAZ: u8 = 64;
/// A `v_xad_u32` whose modifiers leave lanes unsettled on this target
/// ([`super::modifiers::unsettled`], set by the program at load).
pub(super) const F_MODS: u8 = 128;
/// The flags that send an instruction to the taint test even in a clean wave.
pub(super) const F_RUNTIME: u8 = F_MEM | F_DPP | F_SLOW | F_HI | F_UNDOC | F_HAZ | F_MODS;

/// Every register an instruction touches, as masks (SGPR codes 0-127 with
/// SCC at [`SCC_BIT`]; VGPRs 0-255). `rs`/`rv`: the ones it reads (or
/// writes only in some lanes, or conditionally), which need the full taint
/// step when tainted; a tainted register it only writes becomes clean in
/// the written lanes without it. `ws`/`wv`: full writes; `xv`: VGPRs read
/// across lanes (DPP, lane moves). The last three feed [`may_read_unwritten`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deps {
    pub s: u128,
    pub v: VMask,
    pub rs: u128,
    pub rv: VMask,
    pub ws: u128,
    pub wv: VMask,
    pub xv: VMask,
    pub flags: u8,
}

/// Words of a VGPR mask: CDNA5's v0-v1023 (gfx1250 reaches them through
/// `s_set_vgpr_msb`); on every other target only the first four are ever set.
pub(crate) const VGPR_WORDS: usize = 16;

/// One bit per VGPR.
pub(crate) type VMask = [u64; VGPR_WORDS];

pub(super) fn sbits(r: u8, n: u8) -> u128 {
    (0..n)
        .map(|i| r.wrapping_add(i))
        .filter(|&r| r < 128 && r != NULL)
        .fold(0, |m, r| m | 1 << r)
}

pub(super) fn vbits(r: u16, n: u8) -> VMask {
    let mut m = [0u64; VGPR_WORDS];
    for r in (0..u16::from(n))
        .map(|i| usize::from(r + i))
        .filter(|&r| r < 64 * VGPR_WORDS)
    {
        m[r / 64] |= 1 << (r % 64);
    }
    m
}

pub(super) fn or_v(a: &mut VMask, b: VMask) {
    for k in 0..VGPR_WORDS {
        a[k] |= b[k];
    }
}

impl Deps {
    fn read_s(&mut self, bits: u128) {
        self.s |= bits;
        self.rs |= bits;
    }
    fn read_v(&mut self, bits: VMask) {
        or_v(&mut self.v, bits);
        or_v(&mut self.rv, bits);
    }
    /// A scalar destination: `full` when written whatever happens.
    fn dst_s(&mut self, bits: u128, full: bool) {
        self.s |= bits;
        if full {
            self.ws |= bits;
        } else {
            self.rs |= bits;
        }
        if bits & (3u128 << EXEC) != 0 {
            self.flags |= F_EXEC;
        }
    }
    /// A vector destination: `full` when every active lane is written.
    fn dst_v(&mut self, bits: VMask, full: bool) {
        or_v(&mut self.v, bits);
        or_v(if full { &mut self.wv } else { &mut self.rv }, bits);
    }
    fn src(&mut self, src: Src, n: u8, mask: u8) {
        match src {
            Src::Sgpr(r) => self.read_s(sbits(r, n)),
            Src::Vgpr(r) => self.read_v(vbits(r, n)),
            Src::Scc => self.read_s(1 << SCC_BIT),
            Src::Vccz => self.read_s(sbits(VCC, mask)),
            Src::Const(_) | Src::Lit(_) | Src::Null | Src::Execz => {}
        }
    }
}

/// Whether a scalar op reads SCC besides its operands.
pub(super) fn reads_scc(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SAddcU32
            | SSubbU32
            | SCselectB32
            | SCselectB64
            | SCmovB32
            | SCmovB64
            | SCmovkI32
            | SCbranchScc0
            | SCbranchScc1
    )
}

/// Whether a scalar op writes SCC.
pub(super) fn writes_scc(op: Op) -> bool {
    use Op::*;
    let no = matches!(
        op,
        SMulI32
            | SMulHiU32
            | SAddNcU64
            | SSubNcU64
            | SPackLlB32B16
            | SCselectB32
            | SCselectB64
            | SMovB32
            | SMovB64
            | SCmovB32
            | SCmovB64
            | SBrevB32
            | SCtzI32B32
            | SSextI32I8
            | SSextI32I16
            | SMovkI32
            | SGetregB32
            | SSetregB32
            | SSetregImm32B32
            | SCmovkI32
            | SMulkI32
    );
    let info = crate::isa::table::info(op);
    let scalar = matches!(
        info.format,
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk
    );
    scalar && !no && info.shape != Shape::KWait
}

pub(super) fn is_saveexec(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        SAndSaveexecB32
            | SOrSaveexecB32
            | SXorSaveexecB32
            | SAndNot1SaveexecB32
            | SOrNot1SaveexecB32
            | SAndSaveexecB64
            | SOrSaveexecB64
            | SXorSaveexecB64
            | SAndNot1SaveexecB64
            | SOrNot1SaveexecB64
    )
}

/// Register `k` (0 low, 1 high) of a 64-bit register source (the decoder
/// gives `v_pk_mov_b32` register pairs only).
pub(super) fn half_of(src: Src, k: u8) -> Src {
    match src {
        Src::Vgpr(r) => Src::Vgpr(r + u16::from(k)),
        Src::Sgpr(r) => Src::Sgpr(r + k),
        other => other,
    }
}

/// Width in registers of source `i` of a vector op.
pub(super) fn vsrc_width(shape: Shape, i: usize, mask: u8) -> u8 {
    match (shape, i) {
        (Shape::Cmpw | Shape::Cmpxw, 0 | 1)
        | (Shape::Sh64, 1)
        | (Shape::Mad64, 2)
        | (Shape::LshlAdd64, 0 | 2)
        | (Shape::PkMov, 0 | 1)
        | (Shape::Mov64, 0) => 2,
        (Shape::Cnd | Shape::Ci, 2) => mask,
        _ => 1,
    }
}

/// Sources a vector op reads.
pub(super) fn vsrc_count(shape: Shape) -> usize {
    match shape {
        Shape::V1 | Shape::ToScalar1 | Shape::Mov64 => 1,
        Shape::V3 | Shape::Cnd | Shape::Ci | Shape::Mad64 | Shape::LshlAdd64 => 3,
        _ => 2,
    }
}

/// The registers a SOPK instruction touches (its sdst field is a source,
/// a destination or both).
fn deps_sopk(inst: &Inst, d: &mut Deps) {
    match inst.op {
        // s_getreg_b32 reads no SGPR: its value comes from the wave's place,
        // or from MODE, whose unwritten bits are unsettled: that read
        // always takes the taint step (F_SLOW).
        Op::SMovkI32 | Op::SGetregB32 => {
            d.dst_s(sbits(inst.sgpr_dst(), 1), true);
            if inst.op == Op::SGetregB32
                && crate::isa::Hwreg::of(inst.imm as u32).id
                    == inst.generation.mode_register().register
            {
                d.flags |= F_SLOW;
            }
        }
        Op::SAddkI32 | Op::SMulkI32 => {
            d.read_s(sbits(inst.sgpr_dst(), 1));
            d.dst_s(sbits(inst.sgpr_dst(), 1), true);
        }
        _ => d.read_s(sbits(inst.sgpr_dst(), 1)),
    }
}

/// The registers `inst` touches in a wave of 64 (`wave64`) or 32 lanes.
pub fn deps(inst: &Inst, wave64: bool) -> Deps {
    use Shape::*;
    let mut d = Deps::default();
    let mask = if wave64 { 2 } else { 1 };
    let shape = inst.shape();
    match shape {
        S1 | S1w | S2 | S2w | S2sh | Sc | Scw => {
            let w = |i: usize| u8::from(matches!((shape, i), (S1w | S2w | Scw, _) | (S2sh, 0))) + 1;
            let n = if matches!(shape, S1 | S1w) { 1 } else { 2 };
            for i in 0..n {
                d.src(inst.src[i], w(i), mask);
            }
            // A conditional move may keep the old value: a read, too.
            let cmov = matches!(inst.op, Op::SCmovB32 | Op::SCmovB64);
            if !matches!(shape, Sc | Scw) {
                d.dst_s(
                    sbits(
                        inst.sgpr_dst(),
                        if matches!(shape, S1w | S2w | S2sh) {
                            2
                        } else {
                            1
                        },
                    ),
                    !cmov,
                );
            }
            if is_saveexec(inst.op) {
                let exec = sbits(EXEC, if shape == S1w { 2 } else { 1 });
                d.read_s(exec);
                d.dst_s(exec, true);
            }
        }
        K => deps_sopk(inst, &mut d),
        SetReg => d.src(inst.src[0], 1, mask),
        KWait | Nop => {}
        Control => d.flags |= if inst.op == Op::SSendmsg { F_SLOW } else { 0 },
        Branch => match inst.op {
            Op::SCbranchVccz | Op::SCbranchVccnz => d.read_s(sbits(VCC, mask)),
            _ => {}
        },
        Load(n) => {
            d.read_s(sbits(inst.sgpr_addr(), 2) | inst.saddr.map_or(0, |r| sbits(r, 1)));
            d.dst_s(sbits(inst.sgpr_dst(), n), true);
        }
        MemLoad(n) | MemStore(n) => {
            d.flags |= F_MEM;
            d.read_v(vbits(inst.addr, if inst.saddr.is_some() { 1 } else { 2 }));
            d.read_s(inst.saddr.map_or(0, |r| sbits(r, 2)));
            let dwords = n.div_ceil(4);
            match shape {
                MemLoad(_) => d.dst_v(vbits(inst.dst, dwords), true),
                _ => d.read_v(vbits(inst.data, dwords)),
            }
        }
        _ if inst.op == Op::VNop => {}
        V1 | V2 | V3 | Cnd | Co | Ci | Mad64 | Sh64 | LshlAdd64 | PkMov | Mov64 | Cmp | Cmpw
        | Cmpx | Cmpxw | ToScalar1 | ToScalar2 | WriteLane => vector_deps(&mut d, inst, mask),
    }
    if reads_scc(inst.op) {
        d.read_s(1 << SCC_BIT);
    } else if writes_scc(inst.op) {
        d.s |= 1 << SCC_BIT;
        d.ws |= 1 << SCC_BIT;
    }
    if !wave64 && d.s & HI != 0 {
        // exec_hi/vcc_hi in wave32 turn unsettled when written: always the full step.
        d.rs |= d.s & HI;
        d.flags |= F_HI;
    }
    d
}

/// Whether `inst` (with [`Deps`] `d`) writes register `reg` (SGPR code, or
/// 256 + VGPR number), in all lanes or some.
pub(super) fn writes(inst: &Inst, d: &Deps, reg: u16) -> bool {
    if reg >= 256 {
        let r = usize::from(reg - 256);
        let vector_dst = !matches!(
            inst.shape(),
            Shape::MemStore(_)
                | Shape::ToScalar1
                | Shape::ToScalar2
                | Shape::Cmp
                | Shape::Cmpw
                | Shape::Cmpx
                | Shape::Cmpxw
        ) && crate::isa::table::info(inst.op).format != Format::Smem;
        d.wv[r / 64] >> (r % 64) & 1 == 1 || (vector_dst && usize::from(inst.dst) == r)
    } else {
        d.ws >> reg & 1 == 1 || (d.s >> reg & 1 == 1 && inst.dst == reg)
    }
}

/// exec_hi and vcc_hi: in wave32 stored registers the hardware ignores for masking.
pub(super) const HI: u128 = 1u128 << EXEC_HI | 1u128 << VCC_HI;

/// [`deps`] of a vector ALU op.
fn vector_deps(d: &mut Deps, inst: &Inst, mask: u8) {
    use Shape::*;
    let shape = inst.shape();
    for i in 0..vsrc_count(shape) {
        d.src(inst.src[i], vsrc_width(shape, i, mask), mask);
    }
    if let (Src::Vgpr(r), true) = (
        inst.src[0],
        inst.dpp.is_some() || matches!(shape, ToScalar1 | ToScalar2),
    ) {
        or_v(&mut d.xv, vbits(r, 1));
    }
    // DPP may leave lanes unwritten, v_writelane writes one lane: reads, too.
    let full = inst.dpp.is_none() && shape != WriteLane;
    match shape {
        Cmp | Cmpw | Cmpx | Cmpxw => d.dst_s(sbits(inst.sdst, mask), true),
        ToScalar1 | ToScalar2 => d.dst_s(sbits(inst.sgpr_dst(), 1), true),
        Mad64 | Sh64 | LshlAdd64 | PkMov | Mov64 => d.dst_v(vbits(inst.dst, 2), true),
        _ => d.dst_v(vbits(inst.dst, 1), full),
    }
    if matches!(shape, Co | Ci | Mad64) {
        d.dst_s(sbits(inst.sdst, mask), true);
    }
    if let Some(Dpp::Dpp16 {
        bound_ctrl: false,
        fi: false,
        ..
    }) = inst.dpp
    {
        d.flags |= F_DPP;
    }
    if let Some(Dpp::Dpp16 { ctrl, row_mask, .. }) = inst.dpp {
        d.flags |= if super::dpp::always_unsettled(ctrl, row_mask) {
            F_UNDOC
        } else {
            0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::table::TABLE;

    /// The SCC lists agree with the table's semantics text (the two are
    /// written apart, so a new op missing from one shows up here).
    #[test]
    fn scc_reads_and_writes_match_the_semantics_column() {
        for row in TABLE.iter().filter(|r| {
            matches!(
                r.format,
                Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk | Format::Sopp
            )
        }) {
            let sem = row.semantics;
            let writes = sem.contains("SCC = ");
            let reads = sem
                .split("SCC = ")
                .next()
                .is_some_and(|before| before.contains("SCC"));
            assert_eq!(writes_scc(row.op), writes, "{}: {sem}", row.mnemonic);
            assert_eq!(reads_scc(row.op), reads, "{}: {sem}", row.mnemonic);
        }
    }

    fn inst(words: &[u32]) -> Inst {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        crate::isa::decode_at(&bytes, 0, 0).expect("decodes")
    }

    #[test]
    fn deps_split_reads_from_full_writes() {
        // v_add_nc_u32 v1, s13, v0 (VOP2 e32: 0x4a 25:31... encoded by llvm-mc 19: 4A02000D).
        let d = deps(&inst(&[0x4a02_000d]), false);
        assert_eq!(d.rs, 1 << 13);
        assert_eq!((d.rv[0], d.wv[0]), (1, 2));
        // s_and_saveexec_b32 s14, vcc_lo: reads vcc_lo and EXEC, writes s14, EXEC and SCC.
        let d = deps(&inst(&[0xbe8e_206a]), false);
        assert_eq!(d.rs & (1 << VCC), 1 << VCC);
        assert_eq!(d.ws, 1 << 14 | 1 << EXEC | 1 << SCC_BIT);
        assert!(d.flags & F_EXEC != 0);
        // In wave32 an instruction touching exec_hi always takes the taint step.
        let d = deps(&inst(&[0xbeff_0080]), false); // s_mov_b32 exec_hi, 0
        assert!(d.flags & F_HI != 0 && d.rs & (1 << EXEC_HI) != 0, "{d:?}");
    }
}
