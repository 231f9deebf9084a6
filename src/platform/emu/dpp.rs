//! Which lane DPP makes each lane of src0 read ([`dpp_read`]), for the
//! vector ALU and the shadow alike (LLVM AMDGPUModifierSyntax, RDNA3 ISA 7.7):
//! DPP8's lane selects, DPP16's row controls, and the wave controls.
//!
//! The wave controls ([`crate::platform::target::Feature::DppWaveControls`]: gfx9,
//! GCN5/CDNA) are four wave-wide shifts and two row broadcasts beside the row
//! controls every generation shares (LLVM `DppCtrl`, AMD Vega/CDNA ISA "DPP"):
//! wave_shl:1 (0x130) lane n reads n+1, wave_rol:1 (0x134) (n+1) mod 64,
//! wave_shr:1 (0x138) n-1, wave_ror:1 (0x13c) (n-1) mod 64, row_bcast:15
//! (0x142) every lane of row r >= 1 reads lane 16r-1 ("broadcast the 15th
//! thread of each row to the next row"), row_bcast:31 (0x143) rows 2 and 3
//! read lane 31. The decoders of targets without the feature refuse these
//! codes, so a control code is the feature here. wave_shl past lane 63 and
//! wave_shr before lane 0 are out of range (bound_ctrl decides, as for
//! row_shl/row_shr). Those targets have no fi bit, so an inactive source lane
//! is read as gfx10+ read it with fi=0. What the documents leave open is
//! unsettled: row 0 under row_bcast:15 and rows 0-1 under row_bcast:31 (no
//! row to broadcast from), and, as everywhere, an inactive in-range source
//! with bound_ctrl=0, fi=0.

use crate::isa::Dpp;

/// What DPP makes lane `n` of src0 read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DppRead {
    /// This source lane's value; the lane is written.
    Lane(usize),
    /// 0 (bound_ctrl=1 or DPP8 with an inactive source); the lane is written.
    Zero,
    /// Not written (inactive, masked by row/bank mask, or an invalid source with bound_ctrl=0).
    Keep,
    /// An inactive in-range source with bound_ctrl=0, fi=0: the ISA guide
    /// contradicts itself (RDNA3 ISA 7.7.1 vs table 93).
    Unsettled(usize),
}

/// DPP's read for lane `n` under `exec` (LLVM AMDGPUModifierSyntax, RDNA3 ISA 7.7).
#[inline(always)]
pub(super) fn dpp_read(dpp: &Dpp, exec: u64, n: usize) -> DppRead {
    if (exec >> n) & 1 == 0 {
        return DppRead::Keep;
    }
    match *dpp {
        Dpp::Dpp8 { sel, fi } => {
            let s = (n & !7) | sel[n & 7] as usize;
            if fi || (exec >> s) & 1 == 1 {
                DppRead::Lane(s)
            } else {
                DppRead::Zero
            }
        }
        Dpp::Dpp16 {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            ..
        } if is_wave_control(ctrl) => {
            wave_control_read(ctrl, row_mask, bank_mask, bound_ctrl, exec, n)
        }
        Dpp::Dpp16 {
            ctrl,
            row_mask,
            bank_mask,
            bound_ctrl,
            fi,
        } => {
            if (row_mask >> (n / 16)) & 1 == 0 || (bank_mask >> ((n % 16) / 4)) & 1 == 0 {
                return DppRead::Keep;
            }
            match dpp16_source(ctrl, n) {
                Some(s) if (exec >> s) & 1 == 1 || fi => DppRead::Lane(s),
                Some(s) if !bound_ctrl => DppRead::Unsettled(s),
                _ if bound_ctrl => DppRead::Zero,
                _ => DppRead::Keep,
            }
        }
    }
}

/// The lane DPP16 control `ctrl` makes lane `n` read, or `None` when the
/// source is out of its row (row_shl/row_shr past the row's edge).
#[inline(always)]
fn dpp16_source(ctrl: u16, n: usize) -> Option<usize> {
    let base = n & !15;
    let i = n & 15;
    let k = (ctrl & 15) as usize;
    match ctrl {
        0x000..=0x0ff => Some((n & !3) + ((ctrl as usize >> (2 * (n & 3))) & 3)),
        0x101..=0x10f => (i + k < 16).then_some(n + k),
        0x111..=0x11f => (i >= k).then(|| n - k),
        0x121..=0x12f => Some(base + ((i + 16 - k) & 15)),
        0x140 => Some(base + 15 - i),
        0x141 => Some((n & !7) + 7 - (n & 7)),
        0x150..=0x15f => Some(base + k),
        0x160..=0x16f => Some(base + (i ^ k)),
        _ => None,
    }
}

/// The DPP16 wave controls: wave_shl/rol/shr/ror:1 and row_bcast:15/31.
/// The gfx10+ decoders refuse these codes, so only gfx9 (wave64) code reaches them.
pub(super) fn is_wave_control(ctrl: u16) -> bool {
    matches!(ctrl, 0x130 | 0x134 | 0x138 | 0x13c | 0x142 | 0x143)
}

/// Where a wave control makes lane `n` read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Lane(usize),
    /// Past the wave's end (wave_shl:1 in lane 63, wave_shr:1 in lane 0).
    OutOfRange,
    /// A row the broadcast has no source for: not documented.
    Undocumented,
}

fn source(ctrl: u16, n: usize) -> Source {
    let row = n / 16;
    match ctrl {
        0x130 if n < 63 => Source::Lane(n + 1),
        0x134 => Source::Lane((n + 1) % 64),
        0x138 if n > 0 => Source::Lane(n - 1),
        0x13c => Source::Lane((n + 63) % 64),
        0x142 if row >= 1 => Source::Lane(16 * row - 1),
        0x143 if row >= 2 => Source::Lane(31),
        0x130 | 0x138 => Source::OutOfRange,
        _ => Source::Undocumented,
    }
}

/// DPP's read for active lane `n` under a wave control ([`is_wave_control`]):
/// row_mask/bank_mask gate the write, then the source decides.
fn wave_control_read(
    ctrl: u16,
    row_mask: u8,
    bank_mask: u8,
    bound_ctrl: bool,
    exec: u64,
    n: usize,
) -> DppRead {
    if (row_mask >> (n / 16)) & 1 == 0 || (bank_mask >> ((n % 16) / 4)) & 1 == 0 {
        return DppRead::Keep;
    }
    match source(ctrl, n) {
        Source::Lane(s) if (exec >> s) & 1 == 1 => DppRead::Lane(s),
        Source::Lane(s) if !bound_ctrl => DppRead::Unsettled(s),
        Source::Lane(_) => DppRead::Zero,
        Source::OutOfRange if bound_ctrl => DppRead::Zero,
        Source::OutOfRange => DppRead::Keep,
        // The lane's own value stands in; the shadow marks it unsettled.
        Source::Undocumented => DppRead::Unsettled(n),
    }
}

/// Whether a DPP16 control with `row_mask` writes a row it has no source
/// for (row_bcast:15 into row 0, row_bcast:31 into rows 0-1): unsettled in
/// every wave, whatever EXEC and bound_ctrl are.
pub(super) fn always_unsettled(ctrl: u16, row_mask: u8) -> bool {
    match ctrl {
        0x142 => row_mask & 1 != 0,
        0x143 => row_mask & 3 != 0,
        _ => false,
    }
}

/// The origin text of an unsettled DPP read under a wave control, or
/// `None` for the other controls (gfx10+'s text applies).
pub(super) fn unsettled_origin(ctrl: u16, s: usize, n: usize) -> Option<String> {
    if !is_wave_control(ctrl) {
        return None;
    }
    Some(match source(ctrl, n) {
        Source::Undocumented => format!(
            "gfx9 DPP row_bcast:{} in lane {n} (and maybe others): a row with no row to broadcast from is not documented",
            if ctrl == 0x142 { 15 } else { 31 }
        ),
        _ => format!("gfx9 DPP read of inactive lane {s} (by lane {n}, and maybe others) with bound_ctrl=0: not documented"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wave_control_sources() {
        assert_eq!(source(0x130, 0), Source::Lane(1));
        assert_eq!(source(0x130, 63), Source::OutOfRange);
        assert_eq!(source(0x134, 63), Source::Lane(0));
        assert_eq!(source(0x138, 0), Source::OutOfRange);
        assert_eq!(source(0x138, 17), Source::Lane(16));
        assert_eq!(source(0x13c, 0), Source::Lane(63));
        assert_eq!(source(0x142, 5), Source::Undocumented);
        assert_eq!(source(0x142, 40), Source::Lane(31));
        assert_eq!(source(0x143, 20), Source::Undocumented);
        assert_eq!(source(0x143, 63), Source::Lane(31));
    }

    #[test]
    fn bound_ctrl_and_masks() {
        let all = u64::MAX;
        assert_eq!(
            wave_control_read(0x130, 0xf, 0xf, true, all, 63),
            DppRead::Zero
        );
        assert_eq!(
            wave_control_read(0x130, 0xf, 0xf, false, all, 63),
            DppRead::Keep
        );
        assert_eq!(
            wave_control_read(0x130, 0xe, 0xf, true, all, 3),
            DppRead::Keep,
            "row 0 masked"
        );
        assert_eq!(
            wave_control_read(0x130, 0xf, 0xe, true, all, 3),
            DppRead::Keep,
            "bank 0 masked"
        );
        let no_lane_1 = all & !2;
        assert_eq!(
            wave_control_read(0x130, 0xf, 0xf, true, no_lane_1, 0),
            DppRead::Zero
        );
        assert_eq!(
            wave_control_read(0x130, 0xf, 0xf, false, no_lane_1, 0),
            DppRead::Unsettled(1)
        );
        assert_eq!(
            wave_control_read(0x142, 0xf, 0xf, true, all, 2),
            DppRead::Unsettled(2)
        );
        assert!(unsettled_origin(0x142, 2, 2)
            .unwrap()
            .contains("row_bcast:15"));
        assert_eq!(unsettled_origin(0x101, 2, 1), None);
    }
}
