//! The device's settings, read once from the environment.
//!
//! | variable | effect |
//! |---|---|
//! | `XAD_KFD_DEVICES=gfx1030[,gfx90a...]` | the emulated GPUs, in node order (default one gfx1030); each a processor of the target table |
//! | `XAD_KFD_TRACE=1` | one line on stderr per file, ioctl and DRM query the stack made, with the answer |
//! | `XAD_KFD_WATCHDOG=SECONDS` | how long one dispatch may run on the emulator before it is a hung queue (default 60) |
//! | `XAD_KFD_FLIP_BIT=LANE:BIT`, `XAD_KFD_SKIP_LANE=LANE`, `XAD_KFD_WRITE_PAST_END=N`, `XAD_KFD_HANG=1` | faults injected into the harness's dispatches ([`crate::knobs`]) |
//! | `XAD_KFD_SDMA_FLIP_BIT=LANE:BIT` | a fault injected into the SDMA copy of the first harness output ([`crate::knobs::parse_sdma_flip_bit`]) |

use std::time::Duration;
use xad_harness::platform::device::inject;
use xad_harness::platform::target::{self, Target};

/// At most this many emulated GPUs (render minors 128..).
pub const MAX_GPUS: usize = 16;

#[derive(Debug)]
pub struct Config {
    pub gpus: Vec<&'static Target>,
    pub trace: bool,
    pub watchdog: Duration,
    /// The fault knobs, for the harness's dispatches ([`crate::knobs`]).
    pub launch: inject::Knobs,
    /// `XAD_KFD_SDMA_FLIP_BIT=LANE:BIT`: the SDMA engine corrupts that word
    /// of the first harness output it copies ([`crate::knobs::parse_sdma_flip_bit`]).
    pub sdma_flip_bit: Option<(u32, u32)>,
}

impl Config {
    /// The settings, or one line saying which variable is wrong.
    pub fn from_env() -> Result<Config, String> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let list = var("XAD_KFD_DEVICES").unwrap_or_else(|| "gfx1030".into());
        let mut gpus = Vec::new();
        for name in list.split(',').map(str::trim) {
            let t = target::find(name).ok_or_else(|| {
                format!("XAD_KFD_DEVICES: {name:?} is not a target of the table (xad-harness list prints the targets last)")
            })?;
            if gfx_version(t).is_none() {
                return Err(format!(
                    "XAD_KFD_DEVICES: {name} is a generic target; a GPU is one processor"
                ));
            }
            gpus.push(t);
        }
        if gpus.len() > MAX_GPUS {
            return Err(format!("XAD_KFD_DEVICES: at most {MAX_GPUS} GPUs"));
        }
        let trace = var("XAD_KFD_TRACE").is_some_and(|v| v != "0");
        let watchdog = match var("XAD_KFD_WATCHDOG") {
            None => Duration::from_secs(60),
            Some(v) => v
                .parse::<u64>()
                .ok()
                .filter(|&s| s > 0)
                .map(Duration::from_secs)
                .ok_or_else(|| format!("XAD_KFD_WATCHDOG: {v:?} is not a positive number of seconds"))?,
        };
        let launch = inject::Knobs::parse(crate::knobs::PREFIX, var)?;
        let sdma_flip_bit = crate::knobs::parse_sdma_flip_bit(var)?;
        Ok(Config {
            gpus,
            trace,
            watchdog,
            launch,
            sdma_flip_bit,
        })
    }
}

/// The KFD `gfx_target_version` of a processor (major * 10000 + minor * 100
/// + stepping), from its LLVM name: `gfx` then the major in decimal, then
/// one digit of minor and one hex digit of stepping (`gfx90a` is 9.0.10,
/// `gfx1151` 11.5.1). `None` for a generic target.
pub fn gfx_version(t: &Target) -> Option<u32> {
    let digits = t.name.strip_prefix("gfx")?;
    if digits.len() < 3 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let (major, rest) = digits.split_at(digits.len() - 2);
    let major: u32 = major.parse().ok()?;
    let minor = rest[..1].parse::<u32>().ok()?;
    let stepping = u32::from_str_radix(&rest[1..], 16).ok()?;
    Some(major * 10000 + minor * 100 + stepping)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_versions_come_from_the_names() {
        let v = |n: &str| gfx_version(target::find(n).unwrap());
        assert_eq!(v("gfx1030"), Some(100300));
        assert_eq!(v("gfx90a"), Some(90010));
        assert_eq!(v("gfx908"), Some(90008));
        assert_eq!(v("gfx1151"), Some(110501));
        assert_eq!(v("gfx942"), Some(90402));
        assert_eq!(v("gfx11-generic"), None);
    }
}
