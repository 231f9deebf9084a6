//! The HIP backend against whatever libamdhip64 this machine has. On the build
//! machines that is Debian's HIP 5.2.3 with no GPU (hipInit 101,
//! hipGetDeviceCount 100); these tests check that this is reported cleanly and
//! that status names come from the runtime. Nothing here asserts a hardware result.
//! Where a device is present (a ROCm runner, or the emulated HIP device
//! library) the no-device assertions give way to consistency checks.

use xad_harness::platform::device::DeviceError;
use xad_harness::platform::hip::{self, checked, HipDevice};

#[test]
fn known_statuses_are_named_by_the_runtime() {
    for (code, name) in [
        (0, "hipSuccess"),
        (1, "hipErrorInvalidValue"),
        (100, "hipErrorNoDevice"),
        (101, "hipErrorInvalidDevice"),
        (600, "hipErrorNotReady"),
        (700, "hipErrorIllegalAddress"),
    ] {
        let text = checked::status_text(code);
        assert!(text.known, "status {code}: {text:?}");
        assert_eq!(text.name, name, "status {code}");
        assert!(!text.description.is_empty(), "status {code}");
    }
    // 999 is hipErrorUnknown in the headers: the runtime's name is right for it.
    let text = checked::status_text(999);
    assert_eq!((text.name.as_str(), text.known), ("hipErrorUnknown", true));
}

#[test]
fn unknown_statuses_say_so_with_the_number() {
    // 911/912 are HIP 6.4 additions Debian's 5.2 does not know; the rest are
    // numbers no HIP version uses. The runtime answers "hipErrorUnknown" for them.
    // 1054 is hipErrorTbd, the enum's end marker: every runtime names it, none
    // means anything by it.
    for code in [911, 912, 1000, 1054, 12345, -1, i32::MIN, i32::MAX] {
        let text = checked::status_text(code);
        if text.known {
            // A newer runtime may know 911/912; then its name must be its own.
            assert!(
                matches!(code, 911 | 912)
                    && text.name.starts_with("hipError")
                    && text.name != "hipErrorUnknown",
                "status {code}: {text:?}"
            );
            continue;
        }
        assert_eq!(text.name, format!("unknown status {code}"));
        assert!(text.description.contains(&code.to_string()), "{text:?}");
    }
    let error = checked::error("hipModuleLaunchKernel", 12345);
    assert_eq!(
        error,
        DeviceError::Runtime {
            call: "hipModuleLaunchKernel".into(),
            code: 12345,
            name: "unknown status 12345".into(),
            description: "status 12345 is not one this HIP runtime knows".into(),
        }
    );
    assert!(
        error
            .to_string()
            .starts_with("hipModuleLaunchKernel failed: unknown status 12345"),
        "{error}"
    );
}

#[test]
fn header_status_values_are_the_ones_the_backend_relies_on() {
    assert_eq!(checked::SUCCESS, 0);
    assert_eq!(checked::NOT_READY, 600);
    assert_eq!(checked::NO_DEVICE, 100);
    assert_eq!(checked::INVALID_DEVICE, 101);
    assert_eq!(checked::ILLEGAL_ADDRESS, 700);
}

#[test]
fn probe_reports_the_runtime_and_devices_without_failing() {
    let probe = hip::probe();
    let listing = probe.to_string();
    let version = probe
        .runtime_version
        .clone()
        .unwrap_or_else(|e| panic!("hipRuntimeGetVersion: {e}"));
    assert!(version.major() >= 5, "{listing}");
    assert!(
        listing.starts_with(&format!("HIP runtime {version}")),
        "{listing}"
    );
    if probe.devices.is_empty() {
        let reason = probe
            .no_devices_reason()
            .expect("no devices means a reason");
        // Every failing status is reported with the runtime's name and its number.
        let mut statuses = 0;
        for result in [probe.init.clone(), probe.device_count.clone().map(|_| ())] {
            if let Err(DeviceError::Runtime {
                call, code, name, ..
            }) = result
            {
                assert!(
                    !name.starts_with("unknown"),
                    "{call} gave {code}, which the runtime should know"
                );
                assert!(
                    reason.contains(&format!("{call} returned {name} ({code})")),
                    "{reason}"
                );
                assert!(
                    [100, 101].contains(&code),
                    "{call} returned {code}: {reason}"
                );
                statuses += 1;
            }
        }
        assert!(statuses >= 1, "no devices but no failing status: {listing}");
        assert!(listing.contains("no devices: "), "{listing}");
        assert!(probe.runnable_devices().is_empty());
    } else {
        assert_eq!(
            probe.device_count.clone().ok(),
            Some(probe.devices.len() as u32),
            "{listing}"
        );
        for device in &probe.devices {
            if let Ok(info) = &device.info {
                assert_eq!(
                    device.target,
                    xad_harness::platform::embedded::target_of(&info.arch),
                    "{listing}"
                );
                assert_eq!(device.runnable, device.target.is_some(), "{listing}");
            }
        }
    }
}

#[test]
fn opening_a_missing_device_fails_with_one_clear_line() {
    let probe = hip::probe();
    let error = HipDevice::open(probe.devices.len() as u32)
        .expect_err("one past the last device cannot open");
    let message = error.to_string();
    assert!(!message.contains('\n'), "{message}");
    assert!(
        message.starts_with(&format!(
            "no HIP device {}: HIP runtime ",
            probe.devices.len()
        )),
        "{message}"
    );
    if probe.devices.is_empty() {
        assert!(matches!(error, DeviceError::Refused(_)), "{error:?}");
        assert!(message.contains("reports no devices ("), "{message}");
        // The status is named and numbered, as the runtime gave it.
        assert!(
            message.contains("hipErrorInvalidDevice (101)")
                || message.contains("hipErrorNoDevice (100)"),
            "{message}"
        );
        let runtime = hip::runtime_label(&probe.runtime_version);
        assert!(
            message.contains(&runtime),
            "{message} should name {runtime}"
        );
    }
}

#[test]
fn opening_device_zero_here_matches_the_probe() {
    let probe = hip::probe();
    match HipDevice::open(0) {
        Ok(device) => {
            assert!(
                !probe.devices.is_empty(),
                "opened device 0 though the probe found none: {probe}"
            );
            let info = probe.devices[0]
                .info
                .clone()
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(device.info(), &info);
        }
        Err(error) => {
            assert!(
                probe.devices.is_empty(),
                "probe found devices but open(0) failed: {error}\n{probe}"
            );
            assert!(
                error.to_string().starts_with("no HIP device 0: "),
                "{error}"
            );
        }
    }
}
