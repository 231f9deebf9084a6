//! Fault-injection knobs of the test devices: the emulated HIP library
//! (`tests/emuhip`, `XAD_EMUHIP_*`) and the emulated KFD device
//! (`tests/emukfd`, `XAD_KFD_*`) both corrupt a harness launch the same way,
//! so each harness diagnosis can be proven on either. Parsing and applying
//! live here once; each device supplies its memory ([`LaunchMemory`]) and
//! says which launches are the harness's.
//!
//! | knob | what the device does | the harness must report |
//! |---|---|---|
//! | `FLIP_BIT=LANE:BIT` | after the first launch, flips BIT of output lane LANE | that lane fails, with that bit |
//! | `SKIP_LANE=LANE` | the first launch leaves output lane LANE as it was | that lane unwritten (its poison) |
//! | `WRITE_PAST_END=N` | every launch also stores N words right after its output | the rear guard overwritten |
//! | `HANG=1` | a launch never completes | the watchdog's timeout (exit 3) |
//!
//! Nothing here runs in the harness itself: it is test support, kept in the
//! library because both test devices link it.

use crate::platform::codeobj::metadata::KernelMeta;

/// The launch knobs, read from `<prefix>FLIP_BIT` and so on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Knobs {
    /// `XAD_EMUHIP_` or `XAD_KFD_`: names the variables in notes and errors.
    pub prefix: &'static str,
    /// `FLIP_BIT=LANE:BIT`
    pub flip_bit: Option<(u32, u32)>,
    /// `SKIP_LANE=LANE`
    pub skip_lane: Option<u32>,
    /// `WRITE_PAST_END=N` (1..=65536 words)
    pub write_past_end: Option<u32>,
    /// `HANG=1`
    pub hang: bool,
}

/// Parse `part` of the setting `var=value` as a number; the error names the
/// whole setting.
pub fn number<T: std::str::FromStr>(
    var: &str,
    value: &str,
    part: &str,
    what: &str,
) -> Result<T, String> {
    part.trim()
        .parse::<T>()
        .map_err(|_| format!("{var}={value}: {what} {part:?} is not a number in range"))
}

impl Knobs {
    /// The knobs from `get` (the environment, or a table in tests), which
    /// gives `None` for an unset or empty variable. An error is one line
    /// naming the variable.
    pub fn parse(
        prefix: &'static str,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Knobs, String> {
        let mut knobs = Knobs {
            prefix,
            ..Knobs::default()
        };
        let var = |name: &str| format!("{prefix}{name}");
        if let Some(v) = get(&var("FLIP_BIT")) {
            let var = var("FLIP_BIT");
            let (lane, bit) = v
                .split_once(':')
                .ok_or_else(|| format!("{var}={v}: expected LANE:BIT"))?;
            let lane = number::<u32>(&var, &v, lane, "LANE")?;
            let bit = number::<u32>(&var, &v, bit, "BIT")?;
            if bit > 31 {
                return Err(format!("{var}={v}: BIT must be 0..31 (lanes are u32)"));
            }
            knobs.flip_bit = Some((lane, bit));
        }
        if let Some(v) = get(&var("SKIP_LANE")) {
            knobs.skip_lane = Some(number(&var("SKIP_LANE"), &v, &v, "LANE")?);
        }
        if let Some(v) = get(&var("WRITE_PAST_END")) {
            let var = var("WRITE_PAST_END");
            let words: u32 = number(&var, &v, &v, "N")?;
            if !(1..=65536).contains(&words) {
                return Err(format!("{var}={v}: N must be 1..65536 words"));
            }
            knobs.write_past_end = Some(words);
        }
        if let Some(v) = get(&var("HANG")) {
            knobs.hang = match v.trim() {
                "1" => true,
                "0" => false,
                _ => return Err(format!("{}={v}: expected 1 or 0", var("HANG"))),
            };
        }
        Ok(knobs)
    }

    /// Whether any knob that changes a launch's memory is set.
    pub fn corrupts(&self) -> bool {
        self.flip_bit.is_some() || self.skip_lane.is_some() || self.write_past_end.is_some()
    }

    /// These knobs with every fault cleared (a device the faults leave out).
    pub fn cleared(&self) -> Knobs {
        Knobs {
            prefix: self.prefix,
            ..Knobs::default()
        }
    }
}

/// The output of a launch as the knobs see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputView {
    /// Device address of lane 0's word.
    pub out: u64,
    /// The lanes the launch covers (its `count` argument), if it has one.
    pub count: Option<u32>,
}

/// The output buffer of a launch: the `global_buffer` argument named `out`,
/// else the last `global_buffer` argument; the lane count is the `by_value`
/// argument named `count`, when there is one. `None` for a kernel with no
/// buffer argument (or a kernarg segment too short for its metadata).
pub fn output_view(meta: &KernelMeta, kernarg: &[u8]) -> Option<OutputView> {
    let read_at = |offset: u32, n: usize| -> Option<&[u8]> {
        let start = offset as usize;
        kernarg.get(start..start.checked_add(n)?)
    };
    let buffers: Vec<_> = meta
        .args
        .iter()
        .filter(|a| a.value_kind == "global_buffer" && a.size == 8)
        .collect();
    let out_arg = buffers
        .iter()
        .find(|a| a.name.as_deref() == Some("out"))
        .or(buffers.last())?;
    let out = u64::from_le_bytes(read_at(out_arg.offset, 8)?.try_into().ok()?);
    let count = meta
        .args
        .iter()
        .find(|a| a.value_kind == "by_value" && a.size == 4 && a.name.as_deref() == Some("count"))
        .and_then(|a| read_at(a.offset, 4))
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes);
    Some(OutputView { out, count })
}

/// The device memory a launch wrote, as the knobs reach it.
pub trait LaunchMemory {
    /// The word at `addr`; `None` outside every allocation.
    fn read_u32(&mut self, addr: u64) -> Option<u32>;
    /// Store `value` at `addr`; false outside every allocation.
    fn write_u32(&mut self, addr: u64, value: u32) -> bool;
    /// The end of the allocation holding `addr`.
    fn allocation_end(&self, addr: u64) -> Option<u64>;
    /// One line saying what was injected (the device's own prefix added).
    fn note(&mut self, text: &str);
}

/// What [`Knobs::before`] saved for [`Knobs::after`]: the word of a lane
/// that must look unwritten.
#[derive(Debug, Clone, Copy, Default)]
pub struct Saved {
    skipped: Option<(u32, u64, u32)>,
}

/// A store the knobs made outside every allocation: a memory fault at this address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFault(pub u64);

impl Knobs {
    /// Before a harness launch runs: save what SKIP_LANE must put back.
    /// `first` is whether it is the device's first harness launch.
    pub fn before(&self, first: bool, view: &OutputView, mem: &mut dyn LaunchMemory) -> Saved {
        let skipped = match (first, self.skip_lane) {
            (true, Some(lane)) => self
                .lane_address(view, lane, "SKIP_LANE", mem)
                .and_then(|addr| mem.read_u32(addr).map(|old| (lane, addr, old))),
            _ => None,
        };
        Saved { skipped }
    }

    /// After a harness launch `kernel` ran: SKIP_LANE, FLIP_BIT (first
    /// launch only) and WRITE_PAST_END (every launch). A store outside every
    /// allocation stops there and is the launch's memory fault.
    pub fn after(
        &self,
        first: bool,
        view: &OutputView,
        saved: Saved,
        kernel: &str,
        mem: &mut dyn LaunchMemory,
    ) -> Result<(), StoreFault> {
        let prefix = self.prefix;
        if let Some((lane, addr, old)) = saved.skipped {
            mem.note(&format!(
                "{prefix}SKIP_LANE: lane {lane} of kernel {kernel} left unwritten"
            ));
            store(mem, addr, old)?;
        }
        if let (true, Some((lane, bit))) = (first, self.flip_bit) {
            if let Some(addr) = self.lane_address(view, lane, "FLIP_BIT", mem) {
                if let Some(word) = mem.read_u32(addr) {
                    mem.note(&format!(
                        "{prefix}FLIP_BIT: bit {bit} of lane {lane} of kernel {kernel} flipped"
                    ));
                    store(mem, addr, word ^ (1u32 << bit))?;
                }
            }
        }
        if let Some(words) = self.write_past_end {
            // Right after the logical output range, or after `out`'s
            // allocation when the kernel has no `count`. Each word is the
            // complement of what was there, so the store shows whatever
            // pattern the harness put there.
            let end = match view.count {
                Some(count) => view.out + 4 * u64::from(count),
                None => mem.allocation_end(view.out).unwrap_or(view.out),
            };
            mem.note(&format!(
                "{prefix}WRITE_PAST_END: kernel {kernel} stores {words} words at 0x{end:x}"
            ));
            for addr in (0..u64::from(words)).map(|i| end + 4 * i) {
                let old = mem.read_u32(addr).ok_or_else(|| fault(mem, addr))?;
                store(mem, addr, !old)?;
            }
        }
        Ok(())
    }

    /// Address of u32 element `lane` of the output, if the launch covers it.
    fn lane_address(
        &self,
        view: &OutputView,
        lane: u32,
        knob: &str,
        mem: &mut dyn LaunchMemory,
    ) -> Option<u64> {
        if let Some(count) = view.count.filter(|&count| lane >= count) {
            mem.note(&format!(
                "{}{knob}: lane {lane} is outside the first launch's {count} lanes; not applied",
                self.prefix
            ));
            return None;
        }
        Some(view.out + 4 * u64::from(lane))
    }
}

fn store(mem: &mut dyn LaunchMemory, addr: u64, value: u32) -> Result<(), StoreFault> {
    if mem.write_u32(addr, value) {
        Ok(())
    } else {
        Err(fault(mem, addr))
    }
}

fn fault(mem: &mut dyn LaunchMemory, addr: u64) -> StoreFault {
    mem.note(&format!(
        "store to 0x{addr:x} is outside every allocation: memory fault"
    ));
    StoreFault(addr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::codeobj::launch::tests::meta;
    use std::collections::BTreeMap;

    fn parse(pairs: &[(&str, &str)]) -> Result<Knobs, String> {
        Knobs::parse("XAD_T_", |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn each_knob_parses_and_bad_values_are_one_line_naming_the_variable() {
        let k = parse(&[
            ("XAD_T_FLIP_BIT", "7:31"),
            ("XAD_T_SKIP_LANE", "3"),
            ("XAD_T_WRITE_PAST_END", "2"),
            ("XAD_T_HANG", "1"),
        ])
        .expect("valid");
        assert_eq!(
            (k.flip_bit, k.skip_lane, k.write_past_end, k.hang),
            (Some((7, 31)), Some(3), Some(2), true)
        );
        assert_eq!(
            parse(&[]),
            Ok(Knobs {
                prefix: "XAD_T_",
                ..Knobs::default()
            })
        );
        for (var, value) in [
            ("XAD_T_FLIP_BIT", "7"),
            ("XAD_T_FLIP_BIT", "7:32"),
            ("XAD_T_FLIP_BIT", "x:1"),
            ("XAD_T_SKIP_LANE", "-1"),
            ("XAD_T_WRITE_PAST_END", "0"),
            ("XAD_T_HANG", "yes"),
        ] {
            let err = parse(&[(var, value)]).expect_err(value);
            assert!(
                err.starts_with(&format!("{var}={value}:")) && !err.contains('\n'),
                "{err}"
            );
        }
    }

    #[test]
    fn the_output_is_the_buffer_named_out_else_the_last_buffer() {
        let mut kernarg = vec![0u8; 40];
        kernarg[8..16].copy_from_slice(&0x2000u64.to_le_bytes());
        kernarg[24..32].copy_from_slice(&0x5000u64.to_le_bytes());
        kernarg[32..36].copy_from_slice(&9u32.to_le_bytes());
        let case = meta(&[
            ("a", 8, 8, "global_buffer"),
            ("out", 24, 8, "global_buffer"),
            ("count", 32, 4, "by_value"),
        ]);
        assert_eq!(
            output_view(&case, &kernarg),
            Some(OutputView {
                out: 0x5000,
                count: Some(9)
            })
        );
        let last = meta(&[("out", 8, 8, "by_value"), ("z", 8, 8, "global_buffer")]);
        assert_eq!(
            output_view(&last, &kernarg),
            Some(OutputView {
                out: 0x2000,
                count: None
            })
        );
        assert_eq!(
            output_view(&meta(&[("n", 0, 4, "by_value")]), &kernarg),
            None
        );
        assert_eq!(
            output_view(&case, &kernarg[..30]),
            None,
            "a segment too short"
        );
    }

    /// Words 0x1000.. (16 of them) are one allocation.
    #[derive(Default)]
    struct Mem(BTreeMap<u64, u32>, Vec<String>);
    impl LaunchMemory for Mem {
        fn read_u32(&mut self, addr: u64) -> Option<u32> {
            (0x1000..0x1040)
                .contains(&addr)
                .then(|| *self.0.get(&addr).unwrap_or(&0))
        }
        fn write_u32(&mut self, addr: u64, value: u32) -> bool {
            let inside = (0x1000..0x1040).contains(&addr);
            if inside {
                self.0.insert(addr, value);
            }
            inside
        }
        fn allocation_end(&self, _addr: u64) -> Option<u64> {
            Some(0x1040)
        }
        fn note(&mut self, text: &str) {
            self.1.push(text.to_string());
        }
    }

    #[test]
    fn each_knob_changes_only_its_words() {
        let view = OutputView {
            out: 0x1000,
            count: Some(8),
        };
        let k = parse(&[
            ("XAD_T_FLIP_BIT", "2:4"),
            ("XAD_T_SKIP_LANE", "3"),
            ("XAD_T_WRITE_PAST_END", "2"),
        ])
        .unwrap();
        let mut mem = Mem::default();
        for lane in 0..10u64 {
            mem.0.insert(0x1000 + 4 * lane, 100);
        }
        let saved = k.before(true, &view, &mut mem);
        // The "kernel" writes every lane.
        for lane in 0..8u64 {
            mem.0.insert(0x1000 + 4 * lane, 7);
        }
        k.after(true, &view, saved, "xad_basic", &mut mem).unwrap();
        let words: Vec<u32> = (0..10u64).map(|l| mem.0[&(0x1000 + 4 * l)]).collect();
        assert_eq!(words, [7, 7, 7 ^ 16, 100, 7, 7, 7, 7, !100, !100]);
        assert!(
            mem.1[0].starts_with("XAD_T_SKIP_LANE: lane 3 of kernel xad_basic"),
            "{:?}",
            mem.1
        );
        // Not the first launch: only WRITE_PAST_END acts.
        let saved = k.before(false, &view, &mut mem);
        k.after(false, &view, saved, "xad_basic", &mut mem).unwrap();
        assert_eq!(mem.0[&0x1008], 7 ^ 16);
        assert_eq!(mem.0[&0x1020], 100);
        // A lane outside the launch is a note, not a store; a store past the
        // allocation is a fault at its address.
        let small = OutputView {
            out: 0x1038,
            count: Some(1),
        };
        let far = parse(&[("XAD_T_FLIP_BIT", "5:0"), ("XAD_T_WRITE_PAST_END", "3")]).unwrap();
        let saved = far.before(true, &small, &mut mem);
        assert_eq!(
            far.after(true, &small, saved, "k", &mut mem),
            Err(StoreFault(0x1040))
        );
        assert!(
            mem.1
                .iter()
                .any(|n| n.contains("lane 5 is outside the first launch's 1 lanes")),
            "{:?}",
            mem.1
        );
        assert!(
            mem.1
                .last()
                .unwrap()
                .contains("0x1040 is outside every allocation"),
            "{:?}",
            mem.1
        );
    }
}
