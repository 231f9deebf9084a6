//! Why a launch failed, as one structured value: what kind of fault, which
//! instruction, which wave and global lane, which address. The printed text
//! is [`Fault::message`] behind "emulator: " (or "memory fault: " for memory
//! faults), worded as users and tests have grepped it all along; the fields
//! are for programs. The emulator is the one executor that builds these
//! (as `emu::Fault`); the type lives in the device seam, beside
//! [`crate::platform::device::DeviceError`] that carries it, and depends on nothing
//! else, so the seam does not import the emulator.

use std::fmt;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A kernel load or store outside every allocation (a GPU memory fault).
    MemoryFault,
    /// A host read, write or view outside every allocation.
    HostAccess,
    /// An instruction the emulator does not decode or execute in this form.
    Unsupported,
    /// An instruction uses VGPRs past the kernel descriptor's allocation.
    VgprOutOfRange,
    /// An instruction uses SGPRs past the kernel descriptor's allocation (gfx9).
    SgprOutOfRange,
    /// A wave executed more instructions than the step budget allows.
    StepBudget,
    /// A taken branch goes somewhere that is not an instruction of the kernel.
    BadBranch,
    /// Execution ran past the end of the decoded code.
    RanPastEnd,
    /// The wave executed the `s_code_end` padding.
    CodeEnd,
    /// The ISA documents contradict each other for this case; no guess is made.
    Unsettled,
    /// This wave stopped because another wave of the launch failed.
    Aborted,
    /// The emulator broke one of its own invariants (a bug here).
    Internal,
    /// A fault built from a bare message (test devices, tools).
    Other,
}

/// The instruction a fault happened at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstAt {
    /// Byte offset (virtual address in the code object).
    pub offset: u64,
    /// Its disassembly, or its dwords in hex when it did not decode.
    pub text: String,
}

/// The wave a fault happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveAt {
    /// Workgroup id (x, y, z).
    pub workgroup: [u32; 3],
    /// Index of the wave in its workgroup.
    pub index: u32,
}

/// An emulator fault: see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub inst: Option<InstAt>,
    pub wave: Option<WaveAt>,
    /// Global lane: workgroup linear id * workgroup lanes + wave index * wave size + lane.
    pub lane: Option<u64>,
    /// The (first faulting) device address.
    pub address: Option<u64>,
    /// The full text after the "emulator: " or "memory fault: " prefix.
    pub message: String,
}

impl Fault {
    pub fn new(kind: FaultKind, message: impl Into<String>) -> Fault {
        Fault {
            kind,
            inst: None,
            wave: None,
            lane: None,
            address: None,
            message: message.into(),
        }
    }

    pub fn with_inst(mut self, offset: u64, text: impl Into<String>) -> Fault {
        self.inst = Some(InstAt {
            offset,
            text: text.into(),
        });
        self
    }

    /// Names the wave, unless a more precise builder already did.
    pub fn with_wave(mut self, wave: WaveAt) -> Fault {
        self.wave.get_or_insert(wave);
        self
    }

    pub fn with_lane(mut self, global_lane: u64) -> Fault {
        self.lane = Some(global_lane);
        self
    }

    pub fn with_address(mut self, address: u64) -> Fault {
        self.address = Some(address);
        self
    }

    /// A memory fault, by the kernel or by the host.
    pub fn is_memory_fault(&self) -> bool {
        matches!(self.kind, FaultKind::MemoryFault | FaultKind::HostAccess)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.is_memory_fault() {
            "memory fault"
        } else {
            "emulator"
        };
        write!(f, "{prefix}: {}", self.message)
    }
}

impl std::error::Error for Fault {}

impl From<&str> for Fault {
    fn from(message: &str) -> Fault {
        Fault::new(FaultKind::Other, message)
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::new(FaultKind::Other, message)
    }
}

// `DeviceError::Emulation` holds a boxed fault; a message becomes one directly.
impl From<&str> for Box<Fault> {
    fn from(message: &str) -> Box<Fault> {
        Box::new(Fault::from(message))
    }
}

impl From<String> for Box<Fault> {
    fn from(message: String) -> Box<Fault> {
        Box::new(Fault::from(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::DeviceError;

    #[test]
    fn prints_the_message_behind_a_prefix_chosen_by_kind() {
        let memory = Fault::new(
            FaultKind::MemoryFault,
            "address 0x10, lane 3, store of 4 bytes",
        )
        .with_lane(35)
        .with_address(0x10);
        assert_eq!(
            memory.to_string(),
            "memory fault: address 0x10, lane 3, store of 4 bytes"
        );
        assert_eq!(
            DeviceError::from(memory.clone()).to_string(),
            memory.to_string()
        );
        assert!(DeviceError::from(memory).is_memory_fault());
        let host = Fault::new(
            FaultKind::HostAccess,
            "host read of 4 bytes at 0x0 is outside every allocation",
        );
        assert!(host.to_string().starts_with("memory fault: host read") && host.is_memory_fault());
        let budget = Fault::new(
            FaultKind::StepBudget,
            "step budget of 10 instructions per wave exhausted",
        );
        assert_eq!(
            budget.to_string(),
            "emulator: step budget of 10 instructions per wave exhausted"
        );
        assert!(!DeviceError::from(budget).is_memory_fault());
    }

    #[test]
    fn a_bare_message_is_an_other_fault_without_context() {
        let e = DeviceError::Emulation("unsupported instruction".into());
        assert_eq!(e.to_string(), "emulator: unsupported instruction");
        let DeviceError::Emulation(fault) = e else {
            panic!("{e:?}")
        };
        assert_eq!(
            *fault,
            Fault {
                kind: FaultKind::Other,
                inst: None,
                wave: None,
                lane: None,
                address: None,
                message: "unsupported instruction".into()
            }
        );
        assert_eq!(Fault::from(String::from("x")).kind, FaultKind::Other);
        // The first wave named stays: a fault built in a wave keeps its own.
        let at = |index| WaveAt {
            workgroup: [1, 2, 3],
            index,
        };
        assert_eq!(
            Fault::from("x").with_wave(at(1)).with_wave(at(2)).wave,
            Some(at(1))
        );
    }
}
