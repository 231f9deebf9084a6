//! The vector ALU: lane-wise ops over `[u32; W]` rows (`map3`, grouped over
//! a lockstep workgroup), DPP permutation of src0, VOPC compares, carry and
//! 64-bit ops, and the lane <-> scalar moves. Called from [`Wave::step`].

// Lane loops index several lane arrays (and EXEC bits) by the same lane number.
#![allow(clippy::needless_range_loop)]

use super::dpp::{dpp_read, DppRead};
use super::fault::FaultKind;
use super::modifiers::sign_masks;
use super::wave::Wave;
use crate::isa::{reg_name, Dpp, Inst, Shape, Src};
use crate::platform::device::DeviceError;

impl<const W: usize> Wave<W> {
    /// Flip the injected bits in the `v_xad_u32` results just written (to
    /// `inst.dst`) by this wave and, when the op ran for a lockstep group,
    /// by the other waves `rest`: only active lanes, whose result the op wrote.
    #[cold]
    #[inline(never)]
    pub(super) fn inject_xad_faults(
        &mut self,
        faults: &[super::emulated::XadFault],
        inst: &Inst,
        rest: &mut [Wave<W>],
        grouped: bool,
    ) {
        let others: &mut [Wave<W>] = if grouped { rest } else { &mut [] };
        for w in std::iter::once(self).chain(others.iter_mut()) {
            let exec = w.exec();
            for f in faults {
                let Some(lane) = f.lane.checked_sub(w.first_lane) else {
                    continue;
                };
                if lane < W as u64 && (exec >> lane) & 1 != 0 {
                    w.v[inst.dst as usize][lane as usize] ^= 1u32 << (f.bit & 31);
                }
            }
        }
    }

    /// A lane-mask source (carry in, cndmask select): W bits.
    pub(super) fn mask_src(&self, src: Src, inst: &Inst) -> Result<u64, DeviceError> {
        if W == 32 {
            return Ok(u64::from(self.s32(src)));
        }
        match src {
            Src::Sgpr(r) if r % 2 == 1 => Err(self.fault(
                FaultKind::Unsupported,
                inst,
                format!("instruction at offset 0x{:x} ({inst}): wave64 lane mask in odd register {}", inst.offset, reg_name(r)),
            )),
            Src::Sgpr(_) => Ok(self.s64(src)),
            // Inline integers are sign-extended integers at any width.
            Src::Const(c) => Ok(c as u32 as i32 as i64 as u64),
            Src::Lit(l) if l >> 31 == 1 => Err(self.fault(
                FaultKind::Unsettled,
                inst,
                format!(
                    "unsettled: instruction at offset 0x{:x} ({inst}): 32-bit literal with bit 31 as a wave64 lane mask",
                    inst.offset
                ),
            )),
            other => Ok(self.s64(other)),
        }
    }

    #[inline(always)]
    pub(super) fn vsrc(&self, src: Src, out: &mut [u32; W]) {
        match src {
            Src::Vgpr(r) => *out = self.v[r as usize],
            other => *out = [self.s32(other); W],
        }
    }

    #[inline(always)]
    pub(super) fn vsrc64(&self, src: Src, lo: &mut [u32; W], hi: &mut [u32; W]) {
        match src {
            Src::Vgpr(r) => {
                *lo = self.v[r as usize];
                *hi = self.v[r as usize + 1];
            }
            other => {
                let x = self.s64(other);
                *lo = [x as u32; W];
                *hi = [(x >> 32) as u32; W];
            }
        }
    }

    #[inline(always)]
    pub(super) fn write_v(&mut self, dst: u16, r: &[u32; W], mask: u64) {
        let d = &mut self.v[dst as usize];
        if mask == Self::FULL {
            *d = *r;
        } else {
            for i in 0..W {
                if (mask >> i) & 1 != 0 {
                    d[i] = r[i];
                }
            }
        }
    }

    /// src0 for a vector op: permuted through DPP when present. Returns the
    /// lanes that may be written (EXEC narrowed by DPP's masks and bound_ctrl).
    #[inline(always)]
    pub(super) fn src0(&self, inst: &Inst, out: &mut [u32; W]) -> Result<u64, DeviceError> {
        let exec = self.exec();
        match &inst.dpp {
            None => {
                self.vsrc(inst.src[0], out);
                Ok(exec)
            }
            Some(dpp) => self.dpp_src0(inst, dpp, out, exec),
        }
    }

    /// DPP src0 by value, out of line: its staging array would otherwise be
    /// zeroed on every call of the function that inlines it.
    #[cold]
    #[inline(never)]
    fn dpp_row(&self, inst: &Inst, dpp: &Dpp) -> Result<([u32; W], u64), DeviceError> {
        let mut a = [0u32; W];
        let m = self.dpp_src0(inst, dpp, &mut a, self.exec())?;
        Ok((a, m))
    }

    fn dpp_src0(
        &self,
        inst: &Inst,
        dpp: &Dpp,
        out: &mut [u32; W],
        exec: u64,
    ) -> Result<u64, DeviceError> {
        let Src::Vgpr(r) = inst.src[0] else {
            return Err(self.fault(FaultKind::Internal, inst, "DPP source is not a VGPR".into()));
        };
        let v = &self.v[r as usize];
        let mut writable = 0u64;
        for n in 0..W {
            out[n] = 0;
            match dpp_read(dpp, exec, n) {
                // The unsettled read takes the source lane's value (as fi=1
                // would); the shadow marks the result unsettled either way.
                DppRead::Lane(s) | DppRead::Unsettled(s) => {
                    out[n] = v[s];
                    writable |= 1 << n;
                }
                DppRead::Zero => writable |= 1 << n,
                DppRead::Keep => {}
            }
        }
        Ok(writable)
    }

    /// D = f(S0, S1, S2) per lane, written under EXEC (and DPP's write mask).
    /// Not inlined: each op gets its own small instance, keeping the
    /// interpreter loop's stack frame small.
    #[inline(never)]
    pub(super) fn map3(
        &mut self,
        rest: &mut [Wave<W>],
        grouped: &mut bool,
        inst: &Inst,
        f: impl Fn(u32, u32, u32) -> u32,
    ) -> Result<(), DeviceError> {
        self.map3_one(inst, &f)?;
        for w in rest.iter_mut() {
            w.map3_one(inst, &f)?;
        }
        *grouped = true;
        Ok(())
    }

    #[inline(always)]
    fn map3_one(
        &mut self,
        inst: &Inst,
        f: impl Fn(u32, u32, u32) -> u32,
    ) -> Result<(), DeviceError> {
        let s = &inst.src;
        // Operands and the result live in rows of memory (VGPRs or the
        // wave's scratch rows), never in by-value arrays, which LLVM splits
        // into dozens of scalar registers and spills.
        let mask = match (&inst.dpp, s[0]) {
            (None, Src::Vgpr(_)) => self.exec(),
            (None, other) => {
                self.ta = [self.s32(other); W];
                self.exec()
            }
            (Some(dpp), _) => {
                let (a, m) = self.dpp_row(inst, dpp)?;
                self.ta = a;
                m
            }
        };
        let splat = |w: &Self, src: Src| match src {
            Src::Vgpr(_) => 0,
            other => w.s32(other),
        };
        let (kb, kc) = (splat(self, s[1]), splat(self, s[2]));
        let a: &[u32; W] = match (&inst.dpp, s[0]) {
            (None, Src::Vgpr(r)) => &self.v[r as usize],
            _ => &self.ta,
        };
        let r = &mut self.tr;
        match (s[1], s[2]) {
            (Src::Vgpr(rb), Src::Vgpr(rc)) => {
                lanes3(r, a, &self.v[rb as usize], &self.v[rc as usize], f)
            }
            (Src::Vgpr(rb), _) => lanes2(r, a, &self.v[rb as usize], |x, y| f(x, y, kc)),
            (_, Src::Vgpr(rc)) => lanes2(r, a, &self.v[rc as usize], |x, z| f(x, kb, z)),
            _ => lanes2(r, a, a, |x, _| f(x, kb, kc)),
        }
        let d = &mut self.v[inst.dst as usize];
        if mask == Self::FULL {
            *d = self.tr;
        } else {
            for i in 0..W {
                if (mask >> i) & 1 != 0 {
                    d[i] = self.tr[i];
                }
            }
        }
        Ok(())
    }

    /// v_mbcnt_lo/hi: popcount of src0 over the lanes below this one, plus src1.
    pub(super) fn mbcnt(&mut self, inst: &Inst, hi: bool) -> Result<(), DeviceError> {
        let mut a = [0u32; W];
        let mut b = [0u32; W];
        let mask = self.src0(inst, &mut a)?;
        self.vsrc(inst.src[1], &mut b);
        let mut r = [0u32; W];
        for i in 0..W {
            let below = (1u64 << i) - 1;
            let part = if hi {
                (below >> 32) as u32
            } else {
                below as u32
            };
            r[i] = (a[i] & part).count_ones().wrapping_add(b[i]);
        }
        self.write_v(inst.dst, &r, mask);
        Ok(())
    }

    /// v_cndmask_b32: D = mask[lane] ? S1 : S0.
    pub(super) fn cndmask(&mut self, inst: &Inst) -> Result<(), DeviceError> {
        let sel = self.mask_src(inst.src[2], inst)?;
        let mut a = [0u32; W];
        let mut b = [0u32; W];
        let mask = self.src0(inst, &mut a)?;
        self.vsrc(inst.src[1], &mut b);
        let mut r = [0u32; W];
        for i in 0..W {
            r[i] = if (sel >> i) & 1 == 1 { b[i] } else { a[i] };
        }
        self.write_v(inst.dst, &r, mask);
        Ok(())
    }

    /// Carry-producing ops: `f(a, b, carry_in)` returns (result, carry out).
    #[inline(always)]
    pub(super) fn carry(
        &mut self,
        inst: &Inst,
        f: impl Fn(u32, u32, u32) -> (u32, bool),
    ) -> Result<(), DeviceError> {
        let s = &inst.src;
        let mut a = [0u32; W];
        let mut b = [0u32; W];
        self.vsrc(s[0], &mut a);
        self.vsrc(s[1], &mut b);
        let cin = if inst.shape() == Shape::Ci {
            self.mask_src(s[2], inst)?
        } else {
            0
        };
        let mut r = [0u32; W];
        let mut m = 0u64;
        for i in 0..W {
            let (res, co) = f(a[i], b[i], ((cin >> i) & 1) as u32);
            r[i] = res;
            m |= u64::from(co) << i;
        }
        let exec = self.exec();
        self.write_v(inst.dst, &r, exec);
        self.set_mask(inst.sdst, m & exec);
        Ok(())
    }

    /// v_mad_u64_u32 / v_mad_i64_i32: D.64, carry = S0 * S1 + S2.64.
    pub(super) fn mad64(&mut self, inst: &Inst, signed: bool) {
        let s = &inst.src;
        let mut a = [0u32; W];
        let mut b = [0u32; W];
        let (mut cl, mut ch) = ([0u32; W], [0u32; W]);
        self.vsrc(s[0], &mut a);
        self.vsrc(s[1], &mut b);
        self.vsrc64(s[2], &mut cl, &mut ch);
        let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
        let mut m = 0u64;
        for i in 0..W {
            let c = u64::from(cl[i]) | u64::from(ch[i]) << 32;
            let (d, co) = if signed {
                let p = i64::from(a[i] as i32) * i64::from(b[i] as i32);
                let (d, o) = p.overflowing_add(c as i64);
                (d as u64, o)
            } else {
                (u64::from(a[i]) * u64::from(b[i])).overflowing_add(c)
            };
            lo[i] = d as u32;
            hi[i] = (d >> 32) as u32;
            m |= u64::from(co) << i;
        }
        let exec = self.exec();
        self.write_v(inst.dst, &lo, exec);
        self.write_v(inst.dst + 1, &hi, exec);
        self.set_mask(inst.sdst, m & exec);
    }

    /// 64-bit shifts: D.64 = f(S1.64, S0[5:0]).
    pub(super) fn shift64(&mut self, inst: &Inst, f: impl Fn(u64, u32) -> u64) {
        let mut a = [0u32; W];
        let (mut bl, mut bh) = ([0u32; W], [0u32; W]);
        self.vsrc(inst.src[0], &mut a);
        self.vsrc64(inst.src[1], &mut bl, &mut bh);
        let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
        for i in 0..W {
            let d = f(u64::from(bl[i]) | u64::from(bh[i]) << 32, a[i] & 63);
            lo[i] = d as u32;
            hi[i] = (d >> 32) as u32;
        }
        let exec = self.exec();
        self.write_v(inst.dst, &lo, exec);
        self.write_v(inst.dst + 1, &hi, exec);
    }

    /// v_lshl_add_u64 (gfx940+): D.u64 = (S0.u64 << S1[2:0]) + S2.u64, wrapping.
    /// AMD's CDNA3 guide reads the shift from S1[2:0] (LLVM selects it only
    /// for constant shifts 0..4), so higher bits of S1 are ignored here.
    pub(super) fn lshl_add64(&mut self, inst: &Inst) {
        let (mut al, mut ah) = ([0u32; W], [0u32; W]);
        let mut sh = [0u32; W];
        let (mut cl, mut ch) = ([0u32; W], [0u32; W]);
        self.vsrc64(inst.src[0], &mut al, &mut ah);
        self.vsrc(inst.src[1], &mut sh);
        self.vsrc64(inst.src[2], &mut cl, &mut ch);
        let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
        for i in 0..W {
            let a = u64::from(al[i]) | u64::from(ah[i]) << 32;
            let c = u64::from(cl[i]) | u64::from(ch[i]) << 32;
            let d = (a << (sh[i] & 7)).wrapping_add(c);
            lo[i] = d as u32;
            hi[i] = (d >> 32) as u32;
        }
        let exec = self.exec();
        self.write_v(inst.dst, &lo, exec);
        self.write_v(inst.dst + 1, &hi, exec);
    }

    /// v_pk_mov_b32 (gfx90a+): D.b32[0] = S0.b32[OPSEL[0]], D.b32[1] =
    /// S1.b32[OPSEL[1]]. Both sources are read before either dword is
    /// written, so a destination overlapping a source moves the old values.
    pub(super) fn pk_mov(&mut self, inst: &Inst) {
        let (mut al, mut ah) = ([0u32; W], [0u32; W]);
        let (mut bl, mut bh) = ([0u32; W], [0u32; W]);
        self.vsrc64(inst.src[0], &mut al, &mut ah);
        self.vsrc64(inst.src[1], &mut bl, &mut bh);
        let sel = inst.mods.op_sel;
        let lo = if sel & 1 == 0 { al } else { ah };
        let hi = if sel & 2 == 0 { bl } else { bh };
        let exec = self.exec();
        self.write_v(inst.dst, &lo, exec);
        self.write_v(inst.dst + 1, &hi, exec);
    }

    /// v_mov_b64 (gfx940+): D.b64 = S0.b64.
    pub(super) fn mov64(&mut self, inst: &Inst) {
        let (mut lo, mut hi) = ([0u32; W], [0u32; W]);
        self.vsrc64(inst.src[0], &mut lo, &mut hi);
        let exec = self.exec();
        self.write_v(inst.dst, &lo, exec);
        self.write_v(inst.dst + 1, &hi, exec);
    }

    /// The value of src0 in `lane` (a scalar source reads the same in every lane).
    fn lane_value(&self, src: Src, lane: usize) -> u32 {
        match src {
            Src::Vgpr(r) => self.v[r as usize][lane],
            other => self.s32(other),
        }
    }

    pub(super) fn readfirstlane(&mut self, inst: &Inst) {
        let exec = self.exec();
        let lane = if exec == 0 {
            0
        } else {
            exec.trailing_zeros() as usize
        };
        let v = self.lane_value(inst.src[0], lane);
        self.ws(inst.sgpr_dst(), v);
    }

    pub(super) fn readlane(&mut self, inst: &Inst) {
        let lane = self.s32(inst.src[1]) as usize % W;
        let v = self.lane_value(inst.src[0], lane);
        self.ws(inst.sgpr_dst(), v);
    }

    pub(super) fn writelane(&mut self, inst: &Inst) {
        let lane = self.s32(inst.src[1]) as usize % W;
        let value = self.s32(inst.src[0]);
        self.v[inst.dst as usize][lane] = value;
    }

    /// v_cmp_t / v_cmpx_t: every active lane.
    pub(super) fn compare_true(&mut self, inst: &Inst) {
        let e = self.exec();
        self.set_compare_mask(inst, e)
    }

    /// A compare's lane mask into its destination, and a gfx9 `v_cmpx`'s
    /// into its SGPR pair too ([`Inst::cmpx_sgpr_dst`]; `m` is already
    /// masked by the old EXEC, so both get the same value).
    #[inline(always)]
    pub(super) fn set_compare_mask(&mut self, inst: &Inst, m: u64) {
        self.set_mask(inst.sdst, m);
        if let Some(pair) = inst.cmpx_sgpr_dst() {
            self.set_mask(pair, m);
        }
    }

    /// A VOPC compare for this wave and `rest` (see `step`).
    #[inline(never)]
    pub(super) fn compare(
        &mut self,
        rest: &mut [Wave<W>],
        grouped: &mut bool,
        inst: &Inst,
        f: impl Fn(u32, u32) -> bool,
    ) {
        self.compare_one(inst, &f);
        for w in rest.iter_mut() {
            w.compare_one(inst, &f);
        }
        *grouped = true;
    }

    #[inline(always)]
    fn compare_one(&mut self, inst: &Inst, f: impl Fn(u32, u32) -> bool) {
        if let Src::Vgpr(_) = inst.src[0] {
        } else {
            self.ta = [self.s32(inst.src[0]); W];
        }
        if let Src::Vgpr(_) = inst.src[1] {
        } else {
            self.tb = [self.s32(inst.src[1]); W];
        }
        let a: &[u32; W] = match inst.src[0] {
            Src::Vgpr(r) => &self.v[r as usize],
            _ => &self.ta,
        };
        let b: &[u32; W] = match inst.src[1] {
            Src::Vgpr(r) => &self.v[r as usize],
            _ => &self.tb,
        };
        // Bytes first (a loop that vectorises), then packed 8 lanes at a time.
        let bits = &mut self.bits;
        lanes_cmp(bits, a, b, f);
        let mut m = 0u64;
        for (j, chunk) in bits.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes([
                chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
            ]);
            // Each byte is 0 or 1; the multiply gathers bit 0 of every byte into the top byte.
            let packed = (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) & 0xff;
            m |= packed << (8 * j);
        }
        let m = m & self.exec();
        self.set_compare_mask(inst, m);
    }

    #[inline(never)]
    pub(super) fn compare64(&mut self, inst: &Inst, f: impl Fn(u64, u64) -> bool) {
        let (mut al, mut ah, mut bl, mut bh) = ([0u32; W], [0u32; W], [0u32; W], [0u32; W]);
        self.vsrc64(inst.src[0], &mut al, &mut ah);
        self.vsrc64(inst.src[1], &mut bl, &mut bh);
        let mut m = 0u64;
        for i in 0..W {
            let a = u64::from(al[i]) | u64::from(ah[i]) << 32;
            let b = u64::from(bl[i]) | u64::from(bh[i]) << 32;
            m |= u64::from(f(a, b)) << i;
        }
        let m = m & self.exec();
        self.set_compare_mask(inst, m);
    }
}

// Lane loops as functions: Rust marks `&mut` parameters noalias, which tells
// LLVM the result row does not overlap the sources (fields of one wave, so it
// cannot prove that itself), and the loops vectorise without runtime overlap
// checks or a scalar fallback.
#[inline(always)]
fn lanes3<const W: usize>(
    r: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    c: &[u32; W],
    f: impl Fn(u32, u32, u32) -> u32,
) {
    for i in 0..W {
        r[i] = f(a[i], b[i], c[i]);
    }
}

#[inline(always)]
fn lanes2<const W: usize>(
    r: &mut [u32; W],
    a: &[u32; W],
    b: &[u32; W],
    f: impl Fn(u32, u32) -> u32,
) {
    for i in 0..W {
        r[i] = f(a[i], b[i]);
    }
}

#[inline(always)]
fn lanes_cmp<const W: usize>(
    bits: &mut [u8; W],
    a: &[u32; W],
    b: &[u32; W],
    f: impl Fn(u32, u32) -> bool,
) {
    for i in 0..W {
        bits[i] = u8::from(f(a[i], b[i]));
    }
}

/// `v_xad_u32` with modifiers ([`super::modifiers`] decides at load what
/// is documented; these compute it).
impl<const W: usize> Wave<W> {
    /// `v_xad_u32` with modifiers, out of the hot path: NEG/ABS on bit 31
    /// as measured on gfx1200, then `(S0 ^ S1) + S2`; CLAMP, OPSEL and OMOD
    /// leave the result as it is (where that is not documented, the taint
    /// step has marked the lanes unsettled).
    #[cold]
    #[inline(never)]
    pub(super) fn xad_modified(
        &mut self,
        rest: &mut [Wave<W>],
        grouped: &mut bool,
        inst: &Inst,
    ) -> Result<(), crate::platform::device::DeviceError> {
        let [(a0, x0), (a1, x1), (a2, x2)] = sign_masks(inst.mods);
        self.map3(rest, grouped, inst, move |a, b, c| {
            (((a & a0) ^ x0) ^ ((b & a1) ^ x1)).wrapping_add((c & a2) ^ x2)
        })
    }

    /// `v_xad_u32` with modifiers as a stand-in says
    /// ([`super::EmuDevice::set_modifier_stand_in`]): the sources of this
    /// wave and of the lockstep group `rest` are read first (the result may
    /// overwrite one), the instruction writes its lanes as usual, then each
    /// active lane's word is the stand-in's.
    #[cold]
    #[inline(never)]
    pub(super) fn xad_stand_in(
        &mut self,
        stand_in: &dyn super::emulated::ModifierStandIn,
        launch: u64,
        rest: &mut [Wave<W>],
        grouped: &mut bool,
        inst: &Inst,
    ) -> Result<(), crate::platform::device::DeviceError> {
        let mut sources = Vec::with_capacity(1 + rest.len());
        for w in std::iter::once(&*self).chain(rest.iter()) {
            let (mut a, mut b, mut c) = ([0u32; W], [0u32; W], [0u32; W]);
            w.src0(inst, &mut a)?;
            w.vsrc(inst.src[1], &mut b);
            w.vsrc(inst.src[2], &mut c);
            sources.push((a, b, c));
        }
        self.map3(rest, grouped, inst, |a, _, _| a)?;
        let waves = std::iter::once(self).chain(rest.iter_mut());
        for (w, (a, b, c)) in waves.zip(sources) {
            let exec = w.exec();
            for i in (0..W).filter(|&i| exec >> i & 1 == 1) {
                let lane = w.first_lane + i as u64;
                w.v[inst.dst as usize][i] =
                    stand_in.xad(inst.mods, [a[i], b[i], c[i]], lane, launch);
            }
        }
        Ok(())
    }

    /// The lanes (of those `inst` may write) whose `(S0 ^ S1) + S2`, the
    /// sign modifiers applied, overflows 32 bits; read before `inst`
    /// executes. Every lane it may write when src0 cannot be read (the
    /// instruction faults when it executes).
    pub(super) fn xad_overflow_lanes(&self, inst: &Inst) -> u64 {
        let [(a0, x0), (a1, x1), (a2, x2)] = sign_masks(inst.mods);
        let (mut a, mut b, mut c) = ([0u32; W], [0u32; W], [0u32; W]);
        let Ok(lanes) = self.src0(inst, &mut a) else {
            return self.exec();
        };
        self.vsrc(inst.src[1], &mut b);
        self.vsrc(inst.src[2], &mut c);
        let mut over = 0u64;
        for i in 0..W {
            let x = ((a[i] & a0) ^ x0) ^ ((b[i] & a1) ^ x1);
            if x.checked_add((c[i] & a2) ^ x2).is_none() {
                over |= 1 << i;
            }
        }
        over & lanes
    }
}
