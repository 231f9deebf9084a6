//! SDMA packets: decoding the dwords of a ring into what an engine does.
//! Pure functions over words, so every format is tested without a runtime.
//!
//! The formats are those ROCR-Runtime's SDMA blit writes
//! (`core/inc/sdma_registers.h`, `core/runtime/amd_blit_sdma.cpp`, rocm-5.2.3
//! to amd-staging) and the Linux amdgpu driver's `sdma_v*_pkt_open.h`
//! describe: dword 0 carries the opcode in bits 7:0 and the sub-opcode in
//! bits 15:8; each packet has a fixed length but NOP, whose bits 29:16 count
//! the dwords that follow it. A count of bytes is stored minus one (SDMA v4
//! and later). Fields that change what a packet does and that the engine does
//! not emulate (byte swapping, physical addresses, sub-window copies, atomic
//! operations other than a 64-bit add) are refused by name, never ignored.

use super::generation::SdmaGeneration;
use std::fmt;

/// Opcodes (dword 0, bits 7:0).
const OP_NOP: u32 = 0;
const OP_COPY: u32 = 1;
const OP_FENCE: u32 = 5;
const OP_TRAP: u32 = 6;
const OP_POLL_REGMEM: u32 = 8;
const OP_ATOMIC: u32 = 10;
const OP_CONST_FILL: u32 = 11;
const OP_TIMESTAMP: u32 = 13;
const OP_GCR: u32 = 17;
/// Sub-opcodes (dword 0, bits 15:8).
const SUB_COPY_LINEAR: u32 = 0;
const SUB_COPY_LINEAR_RECT: u32 = 4;
const SUB_TIMESTAMP_GET_GLOBAL: u32 = 2;
const SUB_USER_GCR: u32 = 1;
/// ATOMIC's operation (dword 0, bits 31:25) for a 64-bit add.
const ATOMIC_ADD64: u32 = 47;
/// CONSTANT_FILL's fill size (dword 0, bits 31:30) for dword fills.
const FILL_DWORDS: u32 = 2;

/// What one packet asks the engine to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packet {
    /// Nothing, for `dwords` dwords (ROCr pads submissions and the ring's
    /// end with them; a zero dword is a one-dword NOP).
    Nop { dwords: u32 },
    /// Copy `bytes` bytes from `src` to `dst`.
    CopyLinear { src: u64, dst: u64, bytes: u64 },
    /// Write `value` to every dword of `[dst, dst + bytes)`.
    ConstantFill { dst: u64, value: u32, bytes: u64 },
    /// Write the dword `value` at `addr` once everything before it is done.
    Fence { addr: u64, value: u32 },
    /// Interrupt the host with `context` (ROCr: the signal's event id).
    Trap { context: u32 },
    /// Wait until `compare(*addr & mask, reference)` holds, trying
    /// `retries` times (`None`: forever, ROCr's 0xfff).
    PollMemory { addr: u64, reference: u32, mask: u32, compare: Compare, retries: Option<u16> },
    /// The register form of POLL_REGMEM that ROCr sends as its HDP flush
    /// (or one with the HDP flush bit): no memory access.
    HdpFlush,
    /// `*addr += value`, atomically on 64 bits (ROCr decrements a signal
    /// with value 0xffff_ffff_ffff_ffff).
    AtomicAdd64 { addr: u64, value: u64 },
    /// Write the engine's global time stamp (64 bits) at `addr`.
    Timestamp { addr: u64 },
    /// Cache write-back / invalidation (GCR, SDMA v5 and later): `control`
    /// is dword 2's GCR_CONTROL bits 31:16.
    Gcr { control: u32 },
}

/// POLL_REGMEM's function (dword 0, bits 30:28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Always,
    Less,
    LessEqual,
    Equal,
    NotEqual,
    GreaterEqual,
    Greater,
}

impl Compare {
    fn of(func: u32) -> Option<Compare> {
        Some(match func {
            0 => Compare::Always,
            1 => Compare::Less,
            2 => Compare::LessEqual,
            3 => Compare::Equal,
            4 => Compare::NotEqual,
            5 => Compare::GreaterEqual,
            6 => Compare::Greater,
            _ => return None,
        })
    }

    pub fn holds(self, value: u32, reference: u32) -> bool {
        match self {
            Compare::Always => true,
            Compare::Less => value < reference,
            Compare::LessEqual => value <= reference,
            Compare::Equal => value == reference,
            Compare::NotEqual => value != reference,
            Compare::GreaterEqual => value >= reference,
            Compare::Greater => value > reference,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Compare::Always => "always",
            Compare::Less => "<",
            Compare::LessEqual => "<=",
            Compare::Equal => "==",
            Compare::NotEqual => "!=",
            Compare::GreaterEqual => ">=",
            Compare::Greater => ">",
        }
    }
}

/// Why the words at the read pointer are not a packet the engine executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// No packet of the family has this opcode and sub-opcode.
    Unknown { op: u32, sub_op: u32 },
    /// A packet of the family, with a form the engine does not emulate.
    Unsupported { packet: &'static str, why: String },
    /// The packet is `needs` dwords long, more than were published.
    Truncated { packet: &'static str, needs: usize },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Unknown { op, sub_op } => write!(f, "opcode {op} sub-opcode {sub_op}: not a packet of this engine's family"),
            DecodeError::Unsupported { packet, why } => write!(f, "{packet}: {why}, which the emulated engine does not do"),
            DecodeError::Truncated { packet, needs } => write!(f, "{packet} needs {needs} dwords, more than the write pointer published"),
        }
    }
}

impl Packet {
    /// The packet's name as ROCr's and the driver's headers spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Packet::Nop { .. } => "NOP",
            Packet::CopyLinear { .. } => "COPY_LINEAR",
            Packet::ConstantFill { .. } => "CONSTANT_FILL",
            Packet::Fence { .. } => "FENCE",
            Packet::Trap { .. } => "TRAP",
            Packet::PollMemory { .. } => "POLL_REGMEM",
            Packet::HdpFlush => "POLL_REGMEM",
            Packet::AtomicAdd64 { .. } => "ATOMIC",
            Packet::Timestamp { .. } => "TIMESTAMP",
            Packet::Gcr { .. } => "GCR",
        }
    }
}

impl fmt::Display for Packet {
    /// The packet with its fields, for the trace.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match *self {
            Packet::Nop { dwords } => write!(f, "{name} ({dwords} dwords)"),
            Packet::CopyLinear { src, dst, bytes } => write!(f, "{name} {bytes} bytes 0x{src:x} -> 0x{dst:x}"),
            Packet::ConstantFill { dst, value, bytes } => write!(f, "{name} {bytes} bytes at 0x{dst:x} with 0x{value:08x}"),
            Packet::Fence { addr, value } => write!(f, "{name} 0x{value:x} -> 0x{addr:x}"),
            Packet::Trap { context } => write!(f, "{name} context {context}"),
            Packet::PollMemory { addr, reference, mask, compare, retries } => write!(
                f,
                "{name} memory (*0x{addr:x} & 0x{mask:x}) {} 0x{reference:x}, {}",
                compare.symbol(),
                retries.map_or("retry forever".to_string(), |n| format!("{n} retries"))
            ),
            Packet::HdpFlush => write!(f, "{name} register form (HDP flush; no HDP is emulated)"),
            Packet::AtomicAdd64 { addr, value } => write!(f, "{name} ADD64 0x{addr:x} += 0x{value:x} ({})", value as i64),
            Packet::Timestamp { addr } => write!(f, "{name} GET_GLOBAL -> 0x{addr:x}"),
            Packet::Gcr { control } => write!(f, "{name} control 0x{control:04x} (no caches are emulated)"),
        }
    }
}

fn bits(word: u32, high: u32, low: u32) -> u32 {
    (word >> low) & (u32::MAX >> (31 - (high - low)))
}

fn addr(words: &[u32], at: usize) -> u64 {
    u64::from(words[at]) | (u64::from(words[at + 1]) << 32)
}

/// A count field of `gen`'s width in `word` (the bytes minus one), or why
/// it is not one: bits above the width are reserved.
fn count(word: u32, gen: &SdmaGeneration, packet: &'static str) -> Result<u64, DecodeError> {
    let reserved = u64::from(word) >> gen.count_bits;
    if reserved != 0 {
        return Err(DecodeError::Unsupported {
            packet,
            why: format!("count 0x{word:x} sets bits above {}'s {}-bit count", gen.name, gen.count_bits),
        });
    }
    Ok(u64::from(word))
}

/// Decode the packet at the start of `words` (the dwords published from the
/// read pointer on) for an engine of family `gen`: the packet and its length
/// in dwords.
pub fn decode(words: &[u32], gen: &SdmaGeneration) -> Result<(Packet, usize), DecodeError> {
    let Some(&head) = words.first() else {
        return Err(DecodeError::Truncated { packet: "a packet", needs: 1 });
    };
    let (op, sub_op) = (bits(head, 7, 0), bits(head, 15, 8));
    let (name, len) = match (op, sub_op) {
        (OP_NOP, _) => ("NOP", 1),
        (OP_COPY, SUB_COPY_LINEAR) => ("COPY_LINEAR", 7),
        (OP_COPY, SUB_COPY_LINEAR_RECT) => {
            return Err(DecodeError::Unsupported { packet: "COPY_LINEAR_RECT", why: "a sub-window copy".into() })
        }
        (OP_FENCE, 0) => ("FENCE", 4),
        (OP_TRAP, 0) => ("TRAP", 2),
        (OP_POLL_REGMEM, 0) => ("POLL_REGMEM", 6),
        (OP_ATOMIC, 0) => ("ATOMIC", 8),
        (OP_CONST_FILL, 0) => ("CONSTANT_FILL", 5),
        (OP_TIMESTAMP, SUB_TIMESTAMP_GET_GLOBAL) => ("TIMESTAMP", 3),
        (OP_GCR, SUB_USER_GCR) if gen.gcr => ("GCR", 5),
        _ => return Err(DecodeError::Unknown { op, sub_op }),
    };
    if words.len() < len {
        return Err(DecodeError::Truncated { packet: name, needs: len });
    }
    let unsupported = |why: String| DecodeError::Unsupported { packet: name, why };
    let packet = match op {
        OP_NOP => Packet::Nop { dwords: 1 + bits(head, 29, 16) },
        OP_COPY => {
            if bits(head, 31, 16) != 0 {
                return Err(unsupported(format!("header flags 0x{:x} (TMZ, broadcast or backwards copy)", bits(head, 31, 16))));
            }
            let (dst_swap, src_swap) = (bits(words[2], 17, 16), bits(words[2], 25, 24));
            if dst_swap != 0 || src_swap != 0 {
                return Err(unsupported(format!("byte swapping (src_swap {src_swap}, dst_swap {dst_swap})")));
            }
            let bytes = count(words[1], gen, name)? + 1;
            Packet::CopyLinear { src: addr(words, 3), dst: addr(words, 5), bytes }
        }
        OP_FENCE => {
            // Bits 18:16 mtype, 19 gcc, 20 sys, 22 snp, 25:24 l2_policy are
            // cache attributes (no caches here); bit 23 makes the address
            // physical.
            if bits(head, 23, 23) != 0 {
                return Err(unsupported("a physical address (gpa)".into()));
            }
            Packet::Fence { addr: addr(words, 1), value: words[3] }
        }
        OP_TRAP => Packet::Trap { context: bits(words[1], 27, 0) },
        OP_POLL_REGMEM => {
            let (hdp_flush, func, mem_poll) = (bits(head, 26, 26), bits(head, 30, 28), bits(head, 31, 31));
            let compare = Compare::of(func).ok_or_else(|| unsupported(format!("function {func} (reserved)")))?;
            if mem_poll == 0 {
                // A register poll. The engine has no registers: ROCr's HDP
                // flush (function "always", dword 2 bit 31) and the HDP
                // flush bit's form need none; any other would wait on one.
                if hdp_flush == 0 && compare != Compare::Always {
                    return Err(unsupported("a register poll (no registers are emulated)".into()));
                }
                Packet::HdpFlush
            } else {
                let retries = bits(words[5], 27, 16) as u16;
                Packet::PollMemory {
                    addr: addr(words, 1),
                    reference: words[3],
                    mask: words[4],
                    compare,
                    retries: (retries != 0xfff).then_some(retries),
                }
            }
        }
        OP_ATOMIC => {
            let (looped, operation) = (bits(head, 16, 16), bits(head, 31, 25));
            if operation != ATOMIC_ADD64 || looped != 0 {
                return Err(unsupported(format!("operation {operation}{} (only ADD64, {ATOMIC_ADD64}, is emulated)", if looped != 0 { " with the loop bit" } else { "" })));
            }
            Packet::AtomicAdd64 { addr: addr(words, 1), value: addr(words, 3) }
        }
        OP_CONST_FILL => {
            let (swap, fill_size) = (bits(head, 17, 16), bits(head, 31, 30));
            if fill_size != FILL_DWORDS || swap != 0 {
                return Err(unsupported(format!("fill size {fill_size} with swap {swap} (only dword fills, size 2, are emulated)")));
            }
            // Bytes minus one; a dword fill ignores the low two bits (ROCr
            // writes (dwords - 1) * 4, the driver bytes - 1).
            let bytes = (count(words[4], gen, name)? & !3) + 4;
            Packet::ConstantFill { dst: addr(words, 1), value: words[3], bytes }
        }
        OP_TIMESTAMP => Packet::Timestamp { addr: addr(words, 1) },
        OP_GCR => Packet::Gcr { control: bits(words[2], 31, 16) },
        _ => return Err(DecodeError::Unknown { op, sub_op }),
    };
    let len = match packet {
        Packet::Nop { dwords } => dwords as usize,
        _ => len,
    };
    Ok((packet, len))
}

/// Packets built field by field as ROCr's BlitSdma builds them, for the
/// tests of the decoder and of the engine.
#[cfg(test)]
pub mod build {
    use super::*;

    fn lo(a: u64) -> u32 {
        a as u32
    }
    fn hi(a: u64) -> u32 {
        (a >> 32) as u32
    }
    pub fn copy(src: u64, dst: u64, bytes: u32) -> Vec<u32> {
        vec![OP_COPY, bytes - 1, 0, lo(src), hi(src), lo(dst), hi(dst)]
    }
    /// With mtype 3, as ROCr sends it on gfx10+.
    pub fn fence(addr: u64, value: u32) -> Vec<u32> {
        vec![OP_FENCE | 3 << 16, lo(addr), hi(addr), value]
    }
    pub fn trap(context: u32) -> Vec<u32> {
        vec![OP_TRAP, context]
    }
    /// ADD64 of -1: a signal decrement.
    pub fn decrement(addr: u64) -> Vec<u32> {
        vec![OP_ATOMIC | ATOMIC_ADD64 << 25, lo(addr), hi(addr), u32::MAX, u32::MAX, 0, 0, 0]
    }
    /// Wait, forever, until the dword at `addr` is `reference`.
    pub fn poll_equal(addr: u64, reference: u32) -> Vec<u32> {
        vec![OP_POLL_REGMEM | 3 << 28 | 1 << 31, lo(addr), hi(addr), reference, u32::MAX, 0xfff << 16 | 4]
    }
    /// ROCr writes (dwords - 1) * 4.
    pub fn fill(dst: u64, value: u32, dwords: u32) -> Vec<u32> {
        vec![OP_CONST_FILL | FILL_DWORDS << 30, lo(dst), hi(dst), value, (dwords - 1) * 4]
    }
    pub fn timestamp(addr: u64) -> Vec<u32> {
        vec![OP_TIMESTAMP | SUB_TIMESTAMP_GET_GLOBAL << 8, lo(addr), hi(addr)]
    }
    /// GL2 and K$ write-back (dword 2 bits 31, 22), ROCr's after a copy.
    pub fn gcr_write_back() -> Vec<u32> {
        vec![OP_GCR | SUB_USER_GCR << 8, 0, 1 << 31 | 1 << 22, 0, 0]
    }
    /// ROCr's padding: a NOP counting the null dwords after it.
    pub fn nops(dwords: u32) -> Vec<u32> {
        let mut v = vec![0; dwords as usize];
        v[0] = (dwords - 1) << 16;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::build::*;
    use super::*;
    use crate::sdma::generation::of_gfx_version;

    fn gfx1030() -> &'static SdmaGeneration {
        of_gfx_version(100300).unwrap()
    }
    fn gfx908() -> &'static SdmaGeneration {
        of_gfx_version(90008).unwrap()
    }

    #[test]
    fn the_packets_rocr_sends_decode_with_their_fields() {
        let g = gfx1030();
        let table: Vec<(Vec<u32>, Packet, usize)> = vec![
            (copy(0x7f00_1000_0000, 0x7f00_2000_0004, 0x40000), Packet::CopyLinear { src: 0x7f00_1000_0000, dst: 0x7f00_2000_0004, bytes: 0x40000 }, 7),
            // To an event mailbox.
            (fence(0x7f_1234_5678, 9), Packet::Fence { addr: 0x7f_1234_5678, value: 9 }, 4),
            (trap(9), Packet::Trap { context: 9 }, 2),
            (decrement(0x7f_0000_0100), Packet::AtomicAdd64 { addr: 0x7f_0000_0100, value: u64::MAX }, 8),
            // A dependency signal's half reaching 0.
            (poll_equal(0x7f_0000_0200, 0), Packet::PollMemory { addr: 0x7f_0000_0200, reference: 0, mask: u32::MAX, compare: Compare::Equal, retries: None }, 6),
            // ROCr's HDP flush command, word for word.
            (vec![0x8, 0, 0x8000_0000, 0, 0, 0], Packet::HdpFlush, 6),
            (fill(0x7f_0000_0300, 0xdead_beef, 16), Packet::ConstantFill { dst: 0x7f_0000_0300, value: 0xdead_beef, bytes: 64 }, 5),
            (timestamp(0x7f_0000_0400), Packet::Timestamp { addr: 0x7f_0000_0400 }, 3),
            (gcr_write_back(), Packet::Gcr { control: 0x8040 }, 5),
            (nops(4), Packet::Nop { dwords: 4 }, 4),
            (vec![0], Packet::Nop { dwords: 1 }, 1),
        ];
        for (words, want, len) in table {
            let got = decode(&words, g);
            assert_eq!(got, Ok((want, len)), "words {words:08x?}");
        }
    }

    #[test]
    fn a_30_bit_count_is_a_copy_on_sdma_5_2_and_refused_on_a_22_bit_family() {
        let words = copy(0x1000, 0x2000, 1 << 29);
        assert_eq!(decode(&words, gfx1030()).map(|(p, _)| p), Ok(Packet::CopyLinear { src: 0x1000, dst: 0x2000, bytes: 1 << 29 }));
        let e = decode(&words, gfx908()).unwrap_err();
        assert!(e.to_string().contains("above SDMA v4's 22-bit count"), "{e}");
    }

    #[test]
    fn gcr_is_a_packet_from_sdma_5_on_and_unknown_before() {
        let words = [OP_GCR | SUB_USER_GCR << 8, 0, 0, 0, 0];
        assert!(decode(&words, gfx1030()).is_ok());
        assert_eq!(decode(&words, gfx908()), Err(DecodeError::Unknown { op: 17, sub_op: 1 }));
    }

    #[test]
    fn unknown_and_unemulated_forms_are_named_not_run() {
        let g = gfx1030();
        // WRITE (opcode 2) is a packet the engine has but does not emulate.
        assert_eq!(decode(&[2, 0, 0, 0, 0], g), Err(DecodeError::Unknown { op: 2, sub_op: 0 }));
        assert_eq!(decode(&[0xff | 7 << 8], g), Err(DecodeError::Unknown { op: 255, sub_op: 7 }));
        let refused = |words: &[u32]| decode(words, g).unwrap_err().to_string();
        assert!(refused(&[OP_COPY | SUB_COPY_LINEAR_RECT << 8]).contains("sub-window"));
        let mut swapped = copy(0, 0, 4);
        swapped[2] = 1 << 24;
        assert!(refused(&swapped).contains("byte swapping"));
        assert!(refused(&[OP_ATOMIC | 48 << 25, 0, 0, 0, 0, 0, 0, 0]).contains("operation 48"));
        assert!(refused(&[OP_FENCE | 1 << 23, 0, 0, 0]).contains("physical"));
        assert!(refused(&[OP_POLL_REGMEM | 3 << 28, 0, 0, 0, 0, 0]).contains("register poll"));
        assert!(refused(&[OP_CONST_FILL | 1 << 30, 0, 0, 0, 0]).contains("fill size 1"));
    }

    #[test]
    fn a_packet_longer_than_what_was_published_is_truncated() {
        let words = copy(0x1000, 0x2000, 64);
        assert_eq!(decode(&words[..5], gfx1030()), Err(DecodeError::Truncated { packet: "COPY_LINEAR", needs: 7 }));
        assert_eq!(decode(&[], gfx1030()), Err(DecodeError::Truncated { packet: "a packet", needs: 1 }));
    }

    #[test]
    fn compare_functions() {
        assert!(Compare::Equal.holds(0, 0) && !Compare::Equal.holds(1, 0));
        assert!(Compare::Less.holds(1, 2) && !Compare::Less.holds(2, 2));
        assert!(Compare::Greater.holds(3, 2) && Compare::Always.holds(9, 0));
    }
}
