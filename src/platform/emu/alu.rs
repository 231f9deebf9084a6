//! The arithmetic of the opcode match ([`super::wave`]) that is more than
//! one expression: pure functions of one lane's (or one scalar's) operands,
//! no wave state, shared by no one else.

// Scalar results with SCC.

/// A result whose SCC is "result != 0".
#[inline(always)]
pub(super) fn nz(d: u32) -> (u32, Option<bool>) {
    (d, Some(d != 0))
}

/// A 64-bit result whose SCC is "result != 0".
#[inline(always)]
pub(super) fn nz64(d: u64) -> (u64, Option<bool>) {
    (d, Some(d != 0))
}

/// An `overflowing_*` result (u32 or i32) with SCC = the carry/overflow.
#[inline(always)]
pub(super) fn with_scc<T: Into<i64> + Copy>((d, c): (T, bool)) -> (u32, Option<bool>) {
    (d.into() as u32, Some(c))
}

/// s_bfe_u32: offset in S1[4:0], width in S1[22:16].
#[inline(always)]
pub(super) fn s_bfe_u32(a: u32, b: u32) -> u32 {
    let off = b & 31;
    let width = (b >> 16) & 0x7f;
    if width == 0 {
        0
    } else if width >= 32 {
        a >> off
    } else {
        (a >> off) & ((1u32 << width) - 1)
    }
}

// Vector lane arithmetic.

/// a + b + carry_in, and whether it carried out of 32 bits.
#[inline(always)]
pub(super) fn add_with_carry(a: u32, b: u32, c: u32) -> (u32, bool) {
    let t = u64::from(a) + u64::from(b) + u64::from(c);
    (t as u32, t >> 32 != 0)
}

/// a - b - borrow_in, and whether it borrowed.
#[inline(always)]
pub(super) fn sub_with_borrow(a: u32, b: u32, c: u32) -> (u32, bool) {
    (
        a.wrapping_sub(b).wrapping_sub(c),
        u64::from(b) + u64::from(c) > u64::from(a),
    )
}

#[inline(always)]
pub(super) fn sext24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

#[inline(always)]
pub(super) fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    a.max(b).min(a.min(b).max(c))
}

#[inline(always)]
pub(super) fn bfe_u32(a: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else if off + width < 32 {
        (a << (32 - off - width)) >> (32 - width)
    } else {
        a >> off
    }
}

#[inline(always)]
pub(super) fn bfe_i32(a: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        0
    } else if off + width < 32 {
        (((a << (32 - off - width)) as i32) >> (32 - width)) as u32
    } else {
        ((a as i32) >> off) as u32
    }
}

/// v_perm_b32 byte selection from the 64-bit value {S0, S1}.
#[inline(always)]
pub(super) fn perm(a: u32, b: u32, sel: u32) -> u32 {
    let x = u64::from(a) << 32 | u64::from(b);
    let mut d = 0u32;
    for i in 0..4 {
        let s = (sel >> (8 * i)) & 0xff;
        let byte = match s {
            0..=7 => (x >> (8 * s)) as u8,
            8..=11 => {
                // Sign of byte 1, 3, 5 or 7, replicated.
                if (x >> (16 * (s - 8) + 15)) & 1 == 1 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        d |= u32::from(byte) << (8 * i);
    }
    d
}
