//! The emulated host's GPUs: the physical list (`XAD_EMUHIP_DEVICES`, or one
//! device of `XAD_EMUHIP_ARCH`), what ROCm's visibility variables leave of it
//! and in which order, and each physical device's PCI address.
//!
//! Visibility follows ROCm's two layers:
//! - ROCr (the HSA runtime) enumerates the agents first and applies
//!   `ROCR_VISIBLE_DEVICES`. Set, even to the empty string, it is a filter:
//!   empty leaves no device.
//! - clr (the HIP runtime) then applies `HIP_VISIBLE_DEVICES` to ROCr's list,
//!   or `CUDA_VISIBLE_DEVICES` when HIP's is unset or empty. clr reads an
//!   empty value as unset (`rocdevice.cpp`: `HIP_VISIBLE_DEVICES[0] != '\0'`
//!   picks the variable, and an empty result filters nothing).
//!
//! Both read a list the same way ([`ordinals`]): comma-separated decimal
//! indices into the list before them, in canonical form (clr compares each
//! entry with `std::to_string(atoi(entry))`, so `01`, ` 1`, `+1` and `-1` are
//! invalid); the first invalid or out-of-range entry ends the list, and
//! everything after it is dropped; a repeated index is skipped. The devices
//! are renumbered from 0 in the listed order. ROCr also accepts `GPU-<uuid>`
//! entries; the emulated devices have no UUIDs, so such an entry ends the list
//! like any other invalid one.

/// More emulated devices than any host has slots for; also keeps the PCI bus
/// numbers below and the handle tags of `runtime` small.
pub const MAX_DEVICES: usize = 16;

pub const DEFAULT_ARCH: &str = "gfx1100";

/// The variables ROCm reads, in the order it applies them.
pub const VISIBILITY_VARIABLES: [&str; 3] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
];

fn check_arch(var: &str, arch: &str) -> Result<(), String> {
    if arch.is_empty() {
        return Err(format!("{var}: an empty device name"));
    }
    if arch.len() > 255 || arch.contains('\0') {
        return Err(format!(
            "{var}: {arch:?} must be at most 255 bytes without NUL"
        ));
    }
    Ok(())
}

/// The physical devices' gcnArchNames: `XAD_EMUHIP_DEVICES=ARCH[,ARCH...]`, or
/// one device of `XAD_EMUHIP_ARCH=NAME` (default gfx1100). Setting both is
/// refused: which one is meant cannot be guessed.
pub fn physical_devices(devices: Option<&str>, arch: Option<&str>) -> Result<Vec<String>, String> {
    match (devices, arch) {
        (Some(list), Some(arch)) => Err(format!(
            "XAD_EMUHIP_DEVICES={list} and XAD_EMUHIP_ARCH={arch} are both set; set one (a one-entry XAD_EMUHIP_DEVICES is XAD_EMUHIP_ARCH)"
        )),
        (Some(list), None) => {
            let archs: Vec<String> = list.split(',').map(|a| a.trim().to_string()).collect();
            for arch in &archs {
                check_arch(&format!("XAD_EMUHIP_DEVICES={list}"), arch)?;
            }
            if archs.len() > MAX_DEVICES {
                return Err(format!(
                    "XAD_EMUHIP_DEVICES={list}: {} devices, at most {MAX_DEVICES}",
                    archs.len()
                ));
            }
            Ok(archs)
        }
        (None, Some(arch)) => {
            let arch = arch.trim();
            check_arch("XAD_EMUHIP_ARCH", arch)?;
            Ok(vec![arch.to_string()])
        }
        (None, None) => Ok(vec![DEFAULT_ARCH.to_string()]),
    }
}

/// The entries of `list` that select one of `count` devices, read as ROCr and
/// clr read a visibility list (see the module documentation): stops at the
/// first entry that is not a canonical decimal index below `count`, skips
/// repeats.
pub fn ordinals(list: &str, count: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::new();
    for entry in list.split(',') {
        match entry.parse::<usize>() {
            Ok(index) if index < count && index.to_string() == entry => {
                if !chosen.contains(&index) {
                    chosen.push(index);
                }
            }
            _ => break,
        }
    }
    chosen
}

/// The physical index of each visible device, in visible order, for
/// `physical` devices and the three variables' values (`None`: unset).
pub fn visible_devices(
    physical: usize,
    rocr: Option<&str>,
    hip: Option<&str>,
    cuda: Option<&str>,
) -> Vec<usize> {
    let agents: Vec<usize> = match rocr {
        Some(list) => ordinals(list, physical),
        None => (0..physical).collect(),
    };
    match hip
        .filter(|s| !s.is_empty())
        .or(cuda.filter(|s| !s.is_empty()))
    {
        Some(list) => ordinals(list, agents.len())
            .into_iter()
            .map(|i| agents[i])
            .collect(),
        None => agents,
    }
}

/// PCI domain, bus and device number of physical device `physical`: one card
/// per bus from bus 3, as on a board whose GPUs sit behind their own switch
/// ports. A device keeps its address whatever number visibility gives it,
/// which is what lets a user tell renumbered devices apart.
pub fn pci_address(physical: usize) -> (i32, i32, i32) {
    (0, 3 + physical as i32, 0)
}

/// `XAD_EMUHIP_FAULT_DEVICE=N[,N...]`: the visible indices the fault knobs act
/// on, each below `visible` (the number of visible devices).
pub fn fault_devices(list: &str, visible: usize) -> Result<Vec<usize>, String> {
    let var = "XAD_EMUHIP_FAULT_DEVICE";
    let mut chosen = Vec::new();
    for entry in list.split(',') {
        let index: usize = entry
            .trim()
            .parse()
            .map_err(|_| format!("{var}={list}: {entry:?} is not a device index"))?;
        if index >= visible {
            return Err(format!(
                "{var}={list}: device {index} does not exist; {visible} device(s) are visible (indices count after ROCR_/HIP_/CUDA_VISIBLE_DEVICES)"
            ));
        }
        if !chosen.contains(&index) {
            chosen.push(index);
        }
    }
    Ok(chosen)
}
