//! The bit histogram: for every result bit, how many wrong words the device
//! set where the model has 0 (up, above the axis) and cleared where it has 1
//! (down, below), from the case's `pattern` counters. Bit 31 is on the left,
//! as a word is written.

use crate::report::document::Pattern;

/// Bar height for the largest count, in pixels.
const BAR: u64 = 48;
/// Width of one bit's column.
const COLUMN: u64 = 16;

/// The histogram, or one line when no word was wrong.
pub fn histogram(pattern: &Pattern) -> String {
    let words = pattern.wrong_words;
    let (up, down) = (&pattern.bits_up, &pattern.bits_down);
    if words == 0 || up.len() != 32 || down.len() != 32 {
        return "<p class=\"note\">bit histogram: no wrong words</p>\n".into();
    }
    let most = up.iter().chain(down).copied().max().unwrap_or(1).max(1);
    let (left, axis) = (30, 14 + BAR);
    let mut out = format!(
        "<p>bits flipped in the {words} wrong word(s): 0&#8594;1 above the axis, 1&#8594;0 below</p>\n<svg class=\"bits\" width=\"{}\" height=\"{}\">",
        left + 32 * COLUMN,
        axis + BAR + 28
    );
    for bit in 0..32u64 {
        let x = left + (31 - bit) * COLUMN;
        for (direction, n, fill) in [
            ("up", up[bit as usize], "#d62728"),
            ("down", down[bit as usize], "#1f5fbf"),
        ] {
            let h = if n == 0 {
                0
            } else {
                (n * BAR).div_ceil(most).max(2)
            };
            let y = if direction == "up" { axis - h } else { axis };
            out += &format!(
                "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{h}\" fill=\"{fill}\" data-bit=\"{bit}\" data-direction=\"{direction}\" data-count=\"{n}\"><title>bit {bit} {direction}: {n}</title></rect>",
                x + 2,
                COLUMN - 4
            );
            if n > 0 {
                let ty = if direction == "up" { y - 2 } else { y + h + 10 };
                out += &format!("<text x=\"{}\" y=\"{ty}\">{n}</text>", x + 1);
            }
        }
        if bit % 4 == 0 || bit == 31 {
            out += &format!(
                "<text x=\"{}\" y=\"{}\">{bit}</text>",
                x + 2,
                axis + BAR + 24
            );
        }
    }
    out += &format!(
        "<path d=\"M{left} {axis}H{}\" stroke=\"#333\"/><text x=\"0\" y=\"{}\">bit</text></svg>\n",
        left + 32 * COLUMN,
        axis + BAR + 24
    );
    out
}
