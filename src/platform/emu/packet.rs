//! Dispatches read from a real queue: what the emulated KFD device's command
//! processor (`tests/emukfd`) asks of the emulator when the real ROCm runtime
//! writes an AQL kernel dispatch packet into a ring it created.
//!
//! Everything comes from device memory, as on the GPU: the kernel descriptor
//! at the packet's `kernel_object`, the code at the descriptor's entry, the
//! kernarg segment at `kernarg_address`, and the dispatch and queue pointers a
//! kernel may ask for are the packet's and the runtime's `amd_queue_t`. The
//! memory is the runtime's own, placed into the emulator's address space at
//! the process addresses the runtime uses ([`EmuDevice::place`]); nothing is
//! copied in or out.
//!
//! A word the emulator calls undefined or unsettled cannot be handed to the
//! runtime as such: it is written as a poison word (the complement of what
//! the emulator computed, so it never reads as that value), and the dispatch
//! reports how many it poisoned and why the first one was.

use super::launch_setup::{DispatchAddrs, RingAddrs};
use super::memory::Backing;
use super::program::{Allocation, Program};
use super::{EmuDevice, Fault, FaultKind};
use crate::platform::codeobj::descriptor::KD_SIZE;
use crate::platform::codeobj::KernelDescriptor;
use crate::platform::device::{Definedness, DeviceError, Dispatch, Origin, Taint, TaintedWord};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

/// Bytes of code decoded from a kernel's entry: the rest of its allocation,
/// at most this much (a loaded code segment holds every kernel of a module;
/// what follows the kernel is decoded too, and faults only if executed).
const CODE_WINDOW: u64 = 256 << 10;

/// One AQL kernel dispatch packet as the command processor reads it
/// (HSA `hsa_kernel_dispatch_packet_t`, 64 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketDispatch {
    /// Address of the packet in its ring (the dispatch pointer).
    pub packet: u64,
    /// Address of the runtime's `amd_queue_t` (the queue pointer).
    pub queue: u64,
    /// The packet's index in its queue (the dispatch id).
    pub dispatch_id: u64,
    pub setup: u16,
    pub workgroup: [u16; 3],
    /// Work-items per dimension.
    pub grid: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg: u64,
    pub completion_signal: u64,
}

impl PacketDispatch {
    /// Decode the 64 bytes of a kernel dispatch packet found at `packet`.
    pub fn parse(bytes: &[u8; 64], packet: u64, queue: u64, dispatch_id: u64) -> PacketDispatch {
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        PacketDispatch {
            packet,
            queue,
            dispatch_id,
            setup: u16_at(2),
            workgroup: [u16_at(4), u16_at(6), u16_at(8)],
            grid: [u32_at(12), u32_at(16), u32_at(20)],
            private_segment_size: u32_at(24),
            group_segment_size: u32_at(28),
            kernel_object: u64_at(32),
            kernarg: u64_at(40),
            completion_signal: u64_at(56),
        }
    }

    /// Workgroups per dimension and their size. A grid that is not a whole
    /// number of workgroups (a partial last workgroup, which HSA allows) is
    /// refused: the emulator runs whole workgroups only.
    pub fn shape(&self) -> Result<Dispatch, String> {
        let dims = (self.setup & 3).clamp(1, 3) as usize;
        let mut grid_blocks = [1u32; 3];
        let mut block = [1u32; 3];
        for d in 0..dims {
            let (g, w) = (self.grid[d], u32::from(self.workgroup[d]));
            if g == 0 || w == 0 {
                return Err(format!("dimension {d}: grid {g}, workgroup {w}: zero"));
            }
            if g % w != 0 {
                return Err(format!(
                    "dimension {d}: grid {g} is not a multiple of the workgroup size {w} (partial workgroups are not emulated)"
                ));
            }
            grid_blocks[d] = g / w;
            block[d] = w;
        }
        Ok(Dispatch { grid_blocks, block })
    }
}

/// Whose kernel a packet dispatches: it decides which rules are verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Issuer {
    /// A kernel under test (the harness's, or a user's `--kernel`): every
    /// rule the emulator knows is a verdict on it.
    UnderTest,
    /// The runtime's own kernel (ROCr's blit kernels, CLR's copy kernels),
    /// which the device runs so that the runtime works at all. Two rules that
    /// AMD's hand-written kernels break while working on silicon every day
    /// are reported as findings ([`PacketOutcome::findings`]) and the kernel
    /// runs as written: a must-be-0 descriptor field it sets (ROCr 7.2's
    /// gfx12 blits set RSRC1 bit 23, IEEE_MODE before gfx12) and a
    /// wait-state hazard window LLVM would pad (its gfx9 blits, run on
    /// gfx940+, read VCC right after the VALU that wrote it). Everything
    /// else (undefined values, refused instructions, faults) stays a verdict.
    Runtime,
}

/// What one packet's dispatch left behind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PacketOutcome {
    /// Words the emulator called undefined or unsettled, written as poison.
    pub poisoned: u64,
    /// Why the first poisoned word was (the emulator's origin text).
    pub first_poison: Option<String>,
    /// Waves stopped on an undefined value (their lanes stored nothing after the stop).
    pub stopped_waves: usize,
    /// Why the first stopped wave stopped (the emulator's origin text).
    pub first_stop: Option<String>,
    /// Rules a runtime's kernel broke that were not enforced ([`Issuer::Runtime`]).
    pub findings: Vec<String>,
}

impl EmuDevice {
    /// Make `bytes` of `backing` device memory at address `base` (the address
    /// the runtime uses for it); see [`super::memory::Memory::place`].
    pub fn place(&mut self, base: u64, bytes: u64, backing: Arc<dyn Backing>) -> Result<(), String> {
        self.memory.place(base, bytes, backing)
    }

    /// Remove the memory placed at `base`; false if none was.
    pub fn unplace(&mut self, base: u64) -> bool {
        self.memory.unplace(base)
    }

    /// Read `dst.len()` bytes of device memory at `addr` (a fault outside it).
    pub fn read_device(&self, addr: u64, dst: &mut [u8]) -> Result<(), DeviceError> {
        self.memory
            .read_bytes(addr, dst)
            .map_err(|f| fault(FaultKind::MemoryFault, "read", f))
    }

    /// Write `src` to device memory at `addr` (a fault outside it).
    pub fn write_device(&self, addr: u64, src: &[u8]) -> Result<(), DeviceError> {
        self.memory
            .write_bytes(addr, src)
            .map_err(|f| fault(FaultKind::MemoryFault, "write", f))
    }

    /// The end of the device memory placed around `addr`, if any is.
    pub fn mapping_end(&self, addr: u64) -> Option<u64> {
        self.memory
            .resolve(addr, 1)
            .map(|(buf, off)| addr - off + buf.bytes)
    }

    /// Run the kernel dispatch `p` from device memory, as a command processor
    /// would. `xnack_off` is the device's XNACK mode (it decides which memory
    /// hazards exist, whatever the code object says).
    pub fn run_packet(
        &mut self,
        p: &PacketDispatch,
        issuer: Issuer,
        xnack_off: bool,
        timeout: Duration,
    ) -> Result<PacketOutcome, DeviceError> {
        self.last_taint = None;
        let mut kd_bytes = [0u8; KD_SIZE];
        self.read_device(p.kernel_object, &mut kd_bytes)?;
        let kd = KernelDescriptor::parse(&kd_bytes).ok_or_else(|| {
            DeviceError::Refused(format!(
                "no kernel descriptor at 0x{:x}",
                p.kernel_object
            ))
        })?;
        let waived = match issuer {
            Issuer::UnderTest => Vec::new(),
            Issuer::Runtime => kd.reserved_rsrc_set(self.target.name),
        };
        let mut findings: Vec<String> = waived
            .iter()
            .map(|f| {
                format!(
                    "kernel descriptor at 0x{:x}: {} on {}; run as if 0",
                    p.kernel_object,
                    kd.must_be_zero_text(*f),
                    self.target.name
                )
            })
            .collect();
        let kd = kd.with_cleared(&waived);
        super::launch_setup::check(&kd, self.target).map_err(|why| {
            DeviceError::Refused(format!(
                "kernel descriptor at 0x{:x}: {why}",
                p.kernel_object
            ))
        })?;
        let dispatch = p.shape().map_err(DeviceError::Refused)?;
        let program = self.program_at(p.kernel_object, &kd, xnack_off, issuer)?;
        findings.extend(program.waived_hazards.iter().cloned());
        let addrs = DispatchAddrs {
            kernarg: p.kernarg,
            block: 0,
            dispatch_id: p.dispatch_id,
            ring: Some(RingAddrs {
                queue: p.queue,
                packet: p.packet,
            }),
        };
        self.execute(&program, kd, dispatch, addrs, timeout, |why| {
            DeviceError::Refused(format!("dispatch: {why}"))
        })?;
        let stopped_waves = self.stops.len();
        let first_stop = self
            .stops
            .first()
            .map(|(stop, origin)| format!("lanes {}.. {:?}: {} ({})", stop.first_lane, stop.taint, origin.what, origin.instruction));
        let (poisoned, first_poison) = self.poison_tainted();
        Ok(PacketOutcome {
            poisoned,
            first_poison,
            stopped_waves,
            first_stop,
            findings,
        })
    }

    /// The decoded program of the kernel whose descriptor is at `kd_at`,
    /// decoded once per distinct code (a module loaded again at the same
    /// address with other code decodes again).
    fn program_at(
        &mut self,
        kd_at: u64,
        kd: &KernelDescriptor,
        xnack_off: bool,
        issuer: Issuer,
    ) -> Result<Arc<Program>, DeviceError> {
        let entry = kd_at.wrapping_add_signed(kd.entry_offset);
        let (buf, off) = self.memory.resolve(entry, 4).ok_or_else(|| {
            DeviceError::from(
                Fault::new(
                    FaultKind::MemoryFault,
                    format!("kernel entry 0x{entry:x} is outside every mapping"),
                )
                .with_address(entry),
            )
        })?;
        let len = (buf.bytes - off).min(CODE_WINDOW) as usize;
        let mut code = vec![0u8; len];
        buf.read(off, &mut code);
        let mut h = DefaultHasher::new();
        code.hash(&mut h);
        kd.to_bytes().hash(&mut h);
        xnack_off.hash(&mut h);
        issuer.hash(&mut h);
        let key = (entry, h.finish());
        if let Some(p) = self.programs.get(&key) {
            return Ok(Arc::clone(p));
        }
        let mut program = Program::decode_for(
            self.target,
            &code,
            entry,
            entry,
            &Allocation::of(kd, self.target).with_xnack_off(xnack_off),
        );
        if issuer == Issuer::Runtime {
            program.waived_hazards = program.waive_hazards();
        }
        let program = Arc::new(program);
        self.programs.insert(key, Arc::clone(&program));
        Ok(program)
    }

    /// What the last packet's dispatch left undefined or unsettled in
    /// `[addr, addr + 4 * words)` and the waves it stopped: the emulator's
    /// verdict on words it wrote to memory as poison. The emulated KFD device
    /// hands it to a harness that asks (`hip::emulated_kfd`), so a result
    /// through the real runtime keeps the emulator's distinctions.
    pub fn packet_definedness(&self, addr: u64, words: usize) -> Definedness {
        let Some((origins, marks)) = &self.last_taint else {
            return Definedness::default();
        };
        let (first, end) = (addr / 4, addr / 4 + words as u64);
        let mut out = Definedness::default();
        let mut renumber = std::collections::HashMap::new();
        for (w, mark) in marks.range(first..end) {
            let id = *renumber.entry(mark.origin).or_insert_with(|| {
                out.origins.push(origins.get(mark.origin as usize).cloned().unwrap_or(Origin {
                    what: "undefined value of unknown origin".into(),
                    offset: 0,
                    instruction: String::new(),
                }));
                out.origins.len() - 1
            });
            out.words.push(TaintedWord {
                word: (w - first) as usize,
                taint: if mark.undefined { Taint::Undefined } else { Taint::Unsettled },
                origin: id,
            });
        }
        self.push_stops(&mut out);
        out
    }

    /// Write every tainted word as the complement of its value and forget the
    /// taint (kept for [`EmuDevice::packet_definedness`] until the next
    /// packet): returns how many and the first one's origin.
    fn poison_tainted(&mut self) -> (u64, Option<String>) {
        let (origins, words) = self.memory.taint.drain();
        self.last_taint = Some((origins.clone(), words.iter().copied().collect()));
        let mut first = None;
        let mut n = 0;
        for (word, mark) in words {
            let addr = word * 4;
            if let Some((buf, off)) = self.memory.resolve(addr, 4) {
                let v = buf.load_u32(off);
                buf.store_u32(off, !v);
                n += 1;
                if first.is_none() {
                    let kind = if mark.undefined { "undefined" } else { "unsettled" };
                    let why = origins
                        .get(mark.origin as usize)
                        .map(|o| format!("{} ({})", o.what, o.instruction))
                        .unwrap_or_default();
                    first = Some(format!("0x{addr:x} {kind}: {why}"));
                }
            }
        }
        (n, first)
    }
}

fn fault(kind: FaultKind, access: &str, f: super::memory::Fault) -> DeviceError {
    DeviceError::from(
        Fault::new(
            kind,
            format!(
                "device {access} of {} bytes at 0x{:x} is outside every mapping",
                f.bytes, f.address
            ),
        )
        .with_address(f.address),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::emu::memory::Backing;
    use std::sync::atomic::AtomicU32;

    fn packet(setup: u16, wg: [u16; 3], grid: [u32; 3]) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0..2].copy_from_slice(&0x0b02u16.to_le_bytes());
        b[2..4].copy_from_slice(&setup.to_le_bytes());
        for d in 0..3 {
            b[4 + 2 * d..6 + 2 * d].copy_from_slice(&wg[d].to_le_bytes());
            b[12 + 4 * d..16 + 4 * d].copy_from_slice(&grid[d].to_le_bytes());
        }
        b[32..40].copy_from_slice(&0x1234_5000u64.to_le_bytes());
        b[40..48].copy_from_slice(&0x6789_0000u64.to_le_bytes());
        b[56..64].copy_from_slice(&0xabcd_ef00u64.to_le_bytes());
        b
    }

    #[test]
    fn a_dispatch_packet_decodes_as_the_hsa_layout() {
        let p = PacketDispatch::parse(&packet(1, [256, 1, 1], [65536, 1, 1]), 0x40, 0x1000, 3);
        assert_eq!((p.kernel_object, p.kernarg, p.completion_signal), (0x1234_5000, 0x6789_0000, 0xabcd_ef00));
        assert_eq!((p.packet, p.queue, p.dispatch_id), (0x40, 0x1000, 3));
        let d = p.shape().unwrap();
        assert_eq!((d.grid_blocks, d.block), ([256, 1, 1], [256, 1, 1]));
        // Dimensions past `setup` are ignored; a partial workgroup and a zero are refused.
        let two = PacketDispatch::parse(&packet(2, [8, 4, 9], [16, 8, 0]), 0, 0, 0);
        assert_eq!(two.shape().unwrap().grid_blocks, [2, 2, 1]);
        let partial = PacketDispatch::parse(&packet(1, [64, 1, 1], [100, 1, 1]), 0, 0, 0);
        assert!(partial.shape().unwrap_err().contains("partial workgroups"));
        let zero = PacketDispatch::parse(&packet(1, [0, 1, 1], [64, 1, 1]), 0, 0, 0);
        assert!(zero.shape().is_err());
    }

    struct Words(Vec<AtomicU32>);
    impl Backing for Words {
        fn words(&self) -> &[AtomicU32] {
            &self.0
        }
    }

    /// Place `bytes` at `base` as one zero-padded object of `len` bytes.
    fn place_bytes(dev: &mut EmuDevice, base: u64, len: usize, bytes: &[u8]) -> Arc<Words> {
        let mut padded = bytes.to_vec();
        padded.resize(len, 0);
        let words = Arc::new(Words(
            padded
                .chunks_exact(4)
                .map(|q| AtomicU32::new(u32::from_le_bytes([q[0], q[1], q[2], q[3]])))
                .collect(),
        ));
        dev.place(base, len as u64, words.clone()).unwrap();
        words
    }

    /// One wave64 of `code` on emulated `target` with descriptor `kd` (the
    /// code at descriptor + 256, kernarg = the address of a 256-byte output),
    /// dispatched by `issuer`: the outcome and the output words.
    fn run_as(target: &str, kd: KernelDescriptor, code: &[u8], issuer: Issuer) -> (Result<PacketOutcome, DeviceError>, Vec<u32>) {
        let mut dev = EmuDevice::for_target(crate::platform::target::find(target).unwrap());
        let (kd_at, kernarg, out) = (0x7f00_0000_0000u64, 0x7f00_0001_0000u64, 0x7f00_0002_0000u64);
        let mut image = KernelDescriptor { entry_offset: 256, ..kd }.to_bytes().to_vec();
        image.resize(256, 0);
        image.extend_from_slice(code);
        place_bytes(&mut dev, kd_at, 4096, &image);
        place_bytes(&mut dev, kernarg, 256, &out.to_le_bytes());
        let words = place_bytes(&mut dev, out, 256, &[]);
        let mut b = packet(1, [64, 1, 1], [64, 1, 1]);
        b[32..40].copy_from_slice(&kd_at.to_le_bytes());
        b[40..48].copy_from_slice(&kernarg.to_le_bytes());
        let p = PacketDispatch::parse(&b, 0, 0, 1);
        let outcome = dev.run_packet(&p, issuer, true, Duration::from_secs(10));
        let read = words.0.iter().map(|w| w.load(std::sync::atomic::Ordering::Relaxed)).collect();
        (outcome, read)
    }

    /// A runtime's own kernel runs as written where it breaks a wait-state
    /// hazard or sets a reserved descriptor bit (a finding), while the same
    /// kernel under test gets the emulator's verdicts (poisoned words, a
    /// refusal). Both bytes are what ROCr 7.2's blits do on gfx942 and gfx1201.
    #[test]
    fn a_runtime_kernel_runs_as_written_with_findings_and_a_kernel_under_test_keeps_its_verdicts() {
        // llvm-mc-19 -mcpu=gfx942: s_load_dwordx2 s[4:5], s[0:1], 0x0;
        // s_waitcnt lgkmcnt(0); v_mov_b32 v6, s5; v_add_co_u32_e64 v2, vcc, v0, s4;
        // v_addc_co_u32_e64 v3, vcc, 0, v6, vcc (VCC read inside the gfx940
        // VALU-writes-SGPR window); v_lshlrev_b32 v5, 2, v0;
        // global_store_dword v5, v3, s[4:5]; s_endpgm.
        let code: Vec<u8> = [
            0xc006_0100u32, 0x0000_0000, 0xbf8c_c07f, 0x7e0c_0205, 0xd119_6a02, 0x0000_0900,
            0xd11c_6a03, 0x01aa_0c80, 0x240a_0082, 0xdc70_8000, 0x0004_0305, 0xbf81_0000,
        ]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
        // Kernarg segment pointer (2 user SGPRs), wave64, 16 VGPRs and AGPRs with the AGPRs from 8 (ACCUM_OFFSET 1).
        let kd = KernelDescriptor { rsrc1: 1 | 1 << 6, rsrc2: 2 << 1, code_properties: 1 << 3, rsrc3: 1, ..Default::default() };
        let (strict, _) = run_as("gfx942", kd, &code, Issuer::UnderTest);
        let strict = strict.unwrap();
        assert_eq!((strict.poisoned, strict.findings.len()), (64, 0), "{strict:?}");
        let (lenient, out) = run_as("gfx942", kd, &code, Issuer::Runtime);
        let lenient = lenient.unwrap();
        assert_eq!(lenient.poisoned, 0, "{lenient:?}");
        assert!(lenient.findings.len() == 1 && lenient.findings[0].contains("gfx940+ VALU writes an SGPR"), "{:?}", lenient.findings);
        // v3 = high dword of (out address + lane): the carry ran as written.
        assert!(out.iter().enumerate().all(|(lane, &w)| w == ((0x7f00_0002_0000u64 + lane as u64) >> 32) as u32), "{out:x?}");

        // gfx1201, wave32 s_endpgm with COMPUTE_PGM_RSRC1 bit 23 set.
        let endpgm = 0xbfb0_0000u32.to_le_bytes();
        let kd12 = KernelDescriptor { rsrc1: 1 << 23, rsrc2: 2 << 1, code_properties: 1 << 3 | 1 << 10, ..Default::default() };
        let (refused, _) = run_as("gfx1201", kd12, &endpgm, Issuer::UnderTest);
        assert!(matches!(&refused, Err(DeviceError::Refused(why)) if why.contains("must be 0")), "{refused:?}");
        let (ran, _) = run_as("gfx1201", kd12, &endpgm, Issuer::Runtime);
        let ran = ran.unwrap();
        assert!(ran.findings.len() == 1 && ran.findings[0].contains("bits 23..23"), "{:?}", ran.findings);
    }

    #[test]
    fn placed_memory_is_read_and_written_at_its_owners_address() {
        let mut dev = EmuDevice::new();
        let words = Arc::new(Words((0..16).map(AtomicU32::new).collect()));
        dev.place(0x7f00_0000_0000, 64, words.clone()).unwrap();
        // An overlapping placement is refused; outside every placement faults.
        assert!(dev.place(0x7f00_0000_0020, 64, words.clone()).is_err());
        let mut b = [0u8; 4];
        dev.read_device(0x7f00_0000_0008, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 2);
        dev.write_device(0x7f00_0000_000c, &9u32.to_le_bytes()).unwrap();
        assert_eq!(words.0[3].load(std::sync::atomic::Ordering::Relaxed), 9, "written through to the owner");
        assert!(dev.read_device(0x7f00_0000_0040, &mut b).is_err());
        assert!(dev.unplace(0x7f00_0000_0000));
        assert!(dev.read_device(0x7f00_0000_0008, &mut b).is_err());
        // Nothing tainted yet: nothing to report.
        assert!(dev.packet_definedness(0x7f00_0000_0000, 16).is_empty());
    }
}
