//! Fault-injection knobs, read once from the environment when the library is
//! first called. Each models a real hardware or driver fault; see the crate
//! documentation for what each one does to which call.

use crate::devices;
use crate::status::{self, Status};
use xad_harness::platform::device::inject::{self, number};

/// Whether `XAD_EMUHIP_STATUS` may name `function`: every status-returning
/// entry point the harness calls (the error-text functions return strings).
pub fn is_status_function(function: &str) -> bool {
    status_functions().contains(&function)
}

/// The names `is_status_function` accepts, for messages and tests.
pub fn status_functions() -> Vec<&'static str> {
    let properties: &[&str] = if cfg!(hip_r0600) {
        &[
            "hipGetDeviceProperties",
            "hipGetDevicePropertiesR0000",
            "hipGetDevicePropertiesR0600",
        ]
    } else {
        &["hipGetDeviceProperties"]
    };
    properties
        .iter()
        .copied()
        .chain(
            xad_harness::platform::hip::FUNCTIONS
                .iter()
                .copied()
                .filter(|f| !f.starts_with("hipGetError")),
        )
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knobs {
    /// `XAD_EMUHIP_FLIP_BIT=LANE:BIT`, `_SKIP_LANE=LANE`, `_WRITE_PAST_END=N`,
    /// `_HANG=1`: what a launch does wrong ([`inject`], shared with the
    /// emulated KFD device).
    pub launch: inject::Knobs,
    /// `XAD_EMUHIP_XAD_FAULT=LANE:BIT[,LANE:BIT...]`: every `v_xad_u32` these
    /// global lanes execute, in every launch, yields its result with BIT flipped.
    pub xad_fault: Vec<(u64, u8)>,
    /// `XAD_EMUHIP_MODIFIERS`, `_DISAGREE`, `_DRIFT`: what a modified
    /// `v_xad_u32` computes ([`crate::modifiers`]); `None` when none is set.
    pub modifiers: Option<crate::modifiers::StandIn>,
    /// The physical devices' gcnArchNames: `XAD_EMUHIP_DEVICES=ARCH[,ARCH...]`
    /// or `XAD_EMUHIP_ARCH=NAME` (one device).
    pub devices: Vec<String>,
    /// The physical index of each device the process sees, in the order it
    /// sees them (ROCR_/HIP_/CUDA_VISIBLE_DEVICES, see [`devices`]).
    pub visible: Vec<usize>,
    /// `XAD_EMUHIP_FAULT_DEVICE=N[,N...]`: the visible devices the fault knobs
    /// act on; `None`, every device.
    pub fault_devices: Option<Vec<usize>>,
    /// `XAD_EMUHIP_FAIL_ALLOC=N`
    pub fail_alloc: Option<u64>,
    /// `XAD_EMUHIP_FAIL_COPY=N[:CODE]`
    pub fail_copy: Option<(u64, Status)>,
    /// `XAD_EMUHIP_STATUS=CODE[:FUNCTION]`
    pub forced_status: Option<(Status, String)>,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            launch: inject::Knobs {
                prefix: PREFIX,
                ..inject::Knobs::default()
            },
            xad_fault: Vec::new(),
            modifiers: None,
            devices: vec![devices::DEFAULT_ARCH.to_string()],
            visible: vec![0],
            fault_devices: None,
            fail_alloc: None,
            fail_copy: None,
            forced_status: None,
        }
    }
}

/// The prefix of this library's variables.
const PREFIX: &str = "XAD_EMUHIP_";

impl Knobs {
    pub fn from_env() -> Result<Knobs, String> {
        Knobs::parse(|name| std::env::var(name).ok())
    }

    /// Parse the knobs from `lookup` (the environment, or a table in tests). An
    /// empty value counts as unset.
    pub fn parse(lookup: impl Fn(&str) -> Option<String>) -> Result<Knobs, String> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let mut knobs = Knobs::default();

        knobs.launch = inject::Knobs::parse(PREFIX, &get)?;
        if let Some(v) = get("XAD_EMUHIP_XAD_FAULT") {
            let var = "XAD_EMUHIP_XAD_FAULT";
            for part in v.split(',') {
                let (lane, bit) = part
                    .split_once(':')
                    .ok_or_else(|| format!("{var}={v}: expected LANE:BIT[,LANE:BIT...]"))?;
                let lane = number::<u64>(var, &v, lane, "LANE")?;
                let bit = number::<u8>(var, &v, bit, "BIT")?;
                if bit > 31 {
                    return Err(format!("{var}={v}: BIT must be 0..31 (results are u32)"));
                }
                knobs.xad_fault.push((lane, bit));
            }
        }
        let stand_in =
            ["", "_DISAGREE", "_DRIFT"].map(|s| get(&format!("XAD_EMUHIP_MODIFIERS{s}")));
        if stand_in.iter().any(Option::is_some) {
            let [r, d, x] = stand_in.each_ref().map(Option::as_deref);
            knobs.modifiers = Some(crate::modifiers::StandIn::parse(r, d, x)?);
        }
        knobs.devices = devices::physical_devices(
            get("XAD_EMUHIP_DEVICES").as_deref(),
            get("XAD_EMUHIP_ARCH").as_deref(),
        )?;
        // ROCR_VISIBLE_DEVICES set to the empty string is a filter that leaves
        // nothing, so this one is looked up raw; HIP's and CUDA's empty values
        // count as unset in `visible_devices`.
        let [rocr, hip, cuda] = devices::VISIBILITY_VARIABLES.map(&lookup);
        knobs.visible = devices::visible_devices(
            knobs.devices.len(),
            rocr.as_deref(),
            hip.as_deref(),
            cuda.as_deref(),
        );
        if let Some(v) = get("XAD_EMUHIP_FAULT_DEVICE") {
            knobs.fault_devices = Some(devices::fault_devices(&v, knobs.visible.len())?);
        }
        if let Some(v) = get("XAD_EMUHIP_FAIL_ALLOC") {
            let nth: u64 = number("XAD_EMUHIP_FAIL_ALLOC", &v, &v, "N")?;
            if nth == 0 {
                return Err(format!("XAD_EMUHIP_FAIL_ALLOC={v}: N counts from 1"));
            }
            knobs.fail_alloc = Some(nth);
        }
        if let Some(v) = get("XAD_EMUHIP_FAIL_COPY") {
            let var = "XAD_EMUHIP_FAIL_COPY";
            let (nth, code) = match v.split_once(':') {
                Some((nth, code)) => (
                    number::<u64>(var, &v, nth, "N")?,
                    number::<Status>(var, &v, code, "CODE")?,
                ),
                None => (number::<u64>(var, &v, &v, "N")?, status::ILLEGAL_ADDRESS),
            };
            if nth == 0 {
                return Err(format!("{var}={v}: N counts from 1"));
            }
            if code == status::SUCCESS {
                return Err(format!("{var}={v}: CODE 0 is hipSuccess, not a fault"));
            }
            knobs.fail_copy = Some((nth, code));
        }
        if let Some(v) = get("XAD_EMUHIP_STATUS") {
            let var = "XAD_EMUHIP_STATUS";
            let (code, function) = match v.split_once(':') {
                Some((code, function)) => (
                    number::<Status>(var, &v, code, "CODE")?,
                    function.trim().to_string(),
                ),
                None => (
                    number::<Status>(var, &v, &v, "CODE")?,
                    "hipModuleLaunchKernel".to_string(),
                ),
            };
            if code == status::SUCCESS {
                return Err(format!("{var}={v}: CODE 0 is hipSuccess, not a fault"));
            }
            if !is_status_function(&function) {
                return Err(format!(
                    "{var}={v}: {function} is not a status-returning function of this library ({})",
                    status_functions().join(", ")
                ));
            }
            knobs.forced_status = Some((code, function));
        }
        Ok(knobs)
    }

    /// Whether the fault knobs act on visible device `device`.
    pub fn faults_apply_to(&self, device: usize) -> bool {
        self.fault_devices
            .as_ref()
            .is_none_or(|chosen| chosen.contains(&device))
    }

    /// The knobs as visible device `device` sees them: the fault knobs
    /// cleared when `XAD_EMUHIP_FAULT_DEVICE` leaves it out.
    pub fn for_device(&self, device: usize) -> Knobs {
        if self.faults_apply_to(device) {
            return self.clone();
        }
        Knobs {
            launch: self.launch.cleared(),
            xad_fault: Vec::new(),
            modifiers: None,
            fail_alloc: None,
            fail_copy: None,
            forced_status: None,
            ..self.clone()
        }
    }

    /// The `XAD_EMUHIP_STATUS` override of a call that acts on no device
    /// (hipInit, hipGetDeviceCount, the version queries): only while the
    /// knobs act on every device.
    pub fn forced_status_of_host(&self, function: &str) -> Option<Status> {
        self.fault_devices
            .is_none()
            .then(|| self.forced_status(function))
            .flatten()
    }

    /// The gcnArchName of visible device `device`.
    pub fn arch_of(&self, device: usize) -> &str {
        self.visible
            .get(device)
            .and_then(|&physical| self.devices.get(physical))
            .map_or(devices::DEFAULT_ARCH, String::as_str)
    }

    /// The status `function` must return instead of doing its work, if any.
    pub fn forced_status(&self, function: &str) -> Option<Status> {
        // `hipGetDeviceProperties` names the family: a ROCm 6+ binary calls it
        // under its R0600 name, and the knob should not depend on the header.
        let family = |f: &str| {
            f == "hipGetDeviceProperties" && function.starts_with("hipGetDeviceProperties")
        };
        self.forced_status
            .as_ref()
            .filter(|(_, f)| f == function || family(f))
            .map(|(code, _)| *code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Knobs, String> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Knobs::parse(|name| {
            owned
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn no_variables_means_no_faults() {
        assert_eq!(parse(&[]), Ok(Knobs::default()));
        assert_eq!(parse(&[("XAD_EMUHIP_FLIP_BIT", "")]), Ok(Knobs::default()));
    }

    #[test]
    fn each_knob_parses() {
        let k = parse(&[
            ("XAD_EMUHIP_FLIP_BIT", "7:31"),
            ("XAD_EMUHIP_SKIP_LANE", "3"),
            ("XAD_EMUHIP_WRITE_PAST_END", "2"),
            ("XAD_EMUHIP_ARCH", "gfx1030"),
            ("XAD_EMUHIP_HANG", "1"),
            ("XAD_EMUHIP_FAIL_ALLOC", "4"),
            ("XAD_EMUHIP_FAIL_COPY", "2:719"),
            ("XAD_EMUHIP_STATUS", "912:hipStreamSynchronize"),
        ])
        .expect("valid knobs");
        assert_eq!(k.launch.flip_bit, Some((7, 31)));
        let x = parse(&[("XAD_EMUHIP_XAD_FAULT", "5:3, 70:31")]).expect("valid");
        assert_eq!(x.xad_fault, [(5, 3), (70, 31)]);
        assert_eq!(k.launch.skip_lane, Some(3));
        assert_eq!(k.launch.write_past_end, Some(2));
        assert_eq!(k.devices, ["gfx1030"]);
        assert_eq!(k.visible, [0]);
        assert!(k.launch.hang);
        assert_eq!(k.fail_alloc, Some(4));
        assert_eq!(k.fail_copy, Some((2, 719)));
        assert_eq!(k.forced_status("hipStreamSynchronize"), Some(912));
        assert_eq!(k.forced_status("hipModuleLaunchKernel"), None);
    }

    #[test]
    fn defaults_of_optional_parts() {
        let k =
            parse(&[("XAD_EMUHIP_FAIL_COPY", "3"), ("XAD_EMUHIP_STATUS", "999")]).expect("valid");
        assert_eq!(k.fail_copy, Some((3, 700)));
        assert_eq!(k.forced_status("hipModuleLaunchKernel"), Some(999));
    }

    #[test]
    fn malformed_values_are_one_line_errors() {
        for (var, value) in [
            ("XAD_EMUHIP_FLIP_BIT", "7"),
            ("XAD_EMUHIP_FLIP_BIT", "7:32"),
            ("XAD_EMUHIP_FLIP_BIT", "x:1"),
            ("XAD_EMUHIP_XAD_FAULT", "7"),
            ("XAD_EMUHIP_XAD_FAULT", "7:32"),
            ("XAD_EMUHIP_XAD_FAULT", "1:2,x:1"),
            ("XAD_EMUHIP_SKIP_LANE", "-1"),
            ("XAD_EMUHIP_WRITE_PAST_END", "0"),
            ("XAD_EMUHIP_HANG", "yes"),
            ("XAD_EMUHIP_FAIL_ALLOC", "0"),
            ("XAD_EMUHIP_FAIL_COPY", "1:0"),
            ("XAD_EMUHIP_STATUS", "912:hipGetErrorName"),
            ("XAD_EMUHIP_STATUS", "0"),
        ] {
            let err = parse(&[(var, value)]).expect_err(&format!("{var}={value} must be rejected"));
            assert!(err.starts_with(var) && !err.contains('\n'), "{err}");
        }
    }
}
