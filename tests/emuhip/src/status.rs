//! HIP status numbers as plain integers (HIP 5.2's `hipError_t`, from
//! /usr/include/hip/hip_runtime_api.h), and their names as Debian's runtime
//! reports them.

use std::ffi::CStr;

/// A HIP status as the C ABI carries it.
pub type Status = i32;

pub const SUCCESS: Status = 0;
pub const INVALID_VALUE: Status = 1;
pub const OUT_OF_MEMORY: Status = 2;
pub const NOT_INITIALIZED: Status = 3;
pub const NO_DEVICE: Status = 100;
pub const INVALID_DEVICE: Status = 101;
pub const INVALID_IMAGE: Status = 200;
pub const NO_BINARY_FOR_GPU: Status = 209;
pub const INVALID_HANDLE: Status = 400;
pub const NOT_FOUND: Status = 500;
pub const NOT_READY: Status = 600;
pub const ILLEGAL_ADDRESS: Status = 700;
pub const LAUNCH_TIMEOUT: Status = 702;
pub const LAUNCH_FAILURE: Status = 719;
pub const UNKNOWN: Status = 999;

/// `HIP_VERSION` of the header this library is built against (build.rs reads
/// hip_version.h: major * 10^7 + minor * 10^5 + patch, e.g. 50221153 for
/// Debian's 5.2.3, 60443484 for 6.4.3); the real runtime reports its own from
/// both hipRuntimeGetVersion and hipDriverGetVersion.
pub const HIP_VERSION: i32 = parse_version(env!("XAD_EMUHIP_HIP_VERSION"));

/// A decimal `i32` at compile time (build.rs writes the digits).
const fn parse_version(digits: &str) -> i32 {
    let bytes = digits.as_bytes();
    let mut value: i32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(
            bytes[i].is_ascii_digit(),
            "XAD_EMUHIP_HIP_VERSION is not a number"
        );
        value = value * 10 + (bytes[i] - b'0') as i32;
        i += 1;
    }
    value
}

/// Every status HIP 5.2's header names, with the name its runtime returns. Debian's
/// 5.2 runtime also returns the name from `hipGetErrorString`, so this library
/// does too; codes not listed (e.g. ROCm 6.4's 911 and 912) read `hipErrorUnknown`.
const NAMES: &[(Status, &CStr)] = &[
    (0, c"hipSuccess"),
    (1, c"hipErrorInvalidValue"),
    (2, c"hipErrorOutOfMemory"),
    (3, c"hipErrorNotInitialized"),
    (4, c"hipErrorDeinitialized"),
    (5, c"hipErrorProfilerDisabled"),
    (6, c"hipErrorProfilerNotInitialized"),
    (7, c"hipErrorProfilerAlreadyStarted"),
    (8, c"hipErrorProfilerAlreadyStopped"),
    (9, c"hipErrorInvalidConfiguration"),
    (12, c"hipErrorInvalidPitchValue"),
    (13, c"hipErrorInvalidSymbol"),
    (17, c"hipErrorInvalidDevicePointer"),
    (21, c"hipErrorInvalidMemcpyDirection"),
    (35, c"hipErrorInsufficientDriver"),
    (52, c"hipErrorMissingConfiguration"),
    (53, c"hipErrorPriorLaunchFailure"),
    (98, c"hipErrorInvalidDeviceFunction"),
    (100, c"hipErrorNoDevice"),
    (101, c"hipErrorInvalidDevice"),
    (200, c"hipErrorInvalidImage"),
    (201, c"hipErrorInvalidContext"),
    (202, c"hipErrorContextAlreadyCurrent"),
    (205, c"hipErrorMapFailed"),
    (206, c"hipErrorUnmapFailed"),
    (207, c"hipErrorArrayIsMapped"),
    (208, c"hipErrorAlreadyMapped"),
    (209, c"hipErrorNoBinaryForGpu"),
    (210, c"hipErrorAlreadyAcquired"),
    (211, c"hipErrorNotMapped"),
    (212, c"hipErrorNotMappedAsArray"),
    (213, c"hipErrorNotMappedAsPointer"),
    (214, c"hipErrorECCNotCorrectable"),
    (215, c"hipErrorUnsupportedLimit"),
    (216, c"hipErrorContextAlreadyInUse"),
    (217, c"hipErrorPeerAccessUnsupported"),
    (218, c"hipErrorInvalidKernelFile"),
    (219, c"hipErrorInvalidGraphicsContext"),
    (300, c"hipErrorInvalidSource"),
    (301, c"hipErrorFileNotFound"),
    (302, c"hipErrorSharedObjectSymbolNotFound"),
    (303, c"hipErrorSharedObjectInitFailed"),
    (304, c"hipErrorOperatingSystem"),
    (400, c"hipErrorInvalidHandle"),
    (401, c"hipErrorIllegalState"),
    (500, c"hipErrorNotFound"),
    (600, c"hipErrorNotReady"),
    (700, c"hipErrorIllegalAddress"),
    (701, c"hipErrorLaunchOutOfResources"),
    (702, c"hipErrorLaunchTimeOut"),
    (704, c"hipErrorPeerAccessAlreadyEnabled"),
    (705, c"hipErrorPeerAccessNotEnabled"),
    (708, c"hipErrorSetOnActiveProcess"),
    (709, c"hipErrorContextIsDestroyed"),
    (710, c"hipErrorAssert"),
    (712, c"hipErrorHostMemoryAlreadyRegistered"),
    (713, c"hipErrorHostMemoryNotRegistered"),
    (719, c"hipErrorLaunchFailure"),
    (720, c"hipErrorCooperativeLaunchTooLarge"),
    (801, c"hipErrorNotSupported"),
    (900, c"hipErrorStreamCaptureUnsupported"),
    (901, c"hipErrorStreamCaptureInvalidated"),
    (902, c"hipErrorStreamCaptureMerge"),
    (903, c"hipErrorStreamCaptureUnmatched"),
    (904, c"hipErrorStreamCaptureUnjoined"),
    (905, c"hipErrorStreamCaptureIsolation"),
    (906, c"hipErrorStreamCaptureImplicit"),
    (907, c"hipErrorCapturedEvent"),
    (908, c"hipErrorStreamCaptureWrongThread"),
    (910, c"hipErrorGraphExecUpdateFailure"),
    (1052, c"hipErrorRuntimeMemory"),
    (1053, c"hipErrorRuntimeOther"),
    (1054, c"hipErrorTbd"),
];

/// The name Debian's HIP 5.2 runtime gives `code`.
pub fn name(code: Status) -> &'static CStr {
    NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
        .unwrap_or(c"hipErrorUnknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_debian_runtime_for_known_and_unknown_codes() {
        // Pairs printed by Debian's libamdhip64.so.5 (hipGetErrorName) on this machine.
        for (code, expected) in [
            (0, "hipSuccess"),
            (2, "hipErrorOutOfMemory"),
            (101, "hipErrorInvalidDevice"),
            (400, "hipErrorInvalidHandle"),
            (719, "hipErrorLaunchFailure"),
            (911, "hipErrorUnknown"),
            (912, "hipErrorUnknown"),
            (999, "hipErrorUnknown"),
            (1055, "hipErrorUnknown"),
            (-1, "hipErrorUnknown"),
        ] {
            assert_eq!(name(code).to_str().ok(), Some(expected), "code {code}");
        }
    }
}
