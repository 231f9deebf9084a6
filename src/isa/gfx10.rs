//! What gfx10 (RDNA1/2: gfx1010, gfx1030) encodes differently from gfx11.
//! The differences that are values (operand numbering, SMEM reserved bits,
//! VOP3 opcode ranges and DPP, spellings) are [`crate::isa::EncodingLayout`]
//! and the table's gfx10 columns; the FLAT reader stays here. Measured with `llvm-mc-19 -show-encoding` for `-mcpu=gfx1030` and
//! `-mcpu=gfx1010` (the two encode every row of
//! `tests/kernels/emu/gfx10/*.part` identically) and, for bytes LLVM's
//! assembler refuses, its disassembler.
//!
//! - Scalar operand codes: m0 is 124 and null is 125 (gfx11 swapped them).
//!   The decoder stores gfx11's numbering ([`super::operand::M0`],
//!   [`super::operand::NULL`]), so an [`Inst`] means the same
//!   register whatever generation it came from.
//! - SMEM: as gfx11 but glc at bit 16 and dlc at bit 14; 21-bit signed
//!   offset (the shared reader, told by [`crate::isa::SmemLayout::Glc16`]).
//! - FLAT/GLOBAL: offset `[11:0]` (12-bit signed for global, 11-bit unsigned
//!   for flat), dlc `[12]`, lds `[13]`, segment `[15:14]`, glc `[16]`, slc `[17]`.
//! - VOP3: opcodes 0x140-0x17f are VOP3-only ops (gfx11 moved them to 0x200+),
//!   VOP2 ops sit at 0x100-0x13f; a literal may follow; no DPP form.
//! - `s_waitcnt`: vmcnt `[3:0]` and `[15:14]`, expcnt `[6:4]`, lgkmcnt `[13:8]`
//!   ([`crate::isa::MemoryCounters::Vscnt`]).
//! - Spellings: LLVM prints gfx10's names (`s_load_dwordx2`,
//!   `global_load_dword`, `s_andn2_b32`, `v_ffbh_u32`, ...): the gfx10
//!   name column of `isa::table`.

use super::decode::{bits, DecodeError, Decoder, Inst};
use crate::isa::table::Format;

impl Decoder<'_> {
    /// gfx10 FLAT/GLOBAL; dword 1 is laid out as on gfx11: vaddr `[7:0]`,
    /// data `[15:8]`, saddr `[22:16]`, vdst `[31:24]`.
    pub(super) fn flat10(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        self.format = "FLAT";
        let w1 = self.word(1)?;
        let format = match bits(w0, 15, 14) {
            0 => Format::Flat,
            2 => Format::Global,
            1 => {
                self.format = "SCRATCH";
                return Err(self.unsupported("scratch (private) memory is not emulated"));
            }
            _ => return Err(self.unsupported("segment 3 is reserved")),
        };
        self.format = format.name();
        let row = self.row(format, bits(w0, 24, 18))?;
        if bits(w0, 13, 13) != 0 {
            return Err(self.unsupported("lds (load to LDS) is not emulated"));
        }
        if bits(w0, 25, 25) != 0 || bits(w1, 23, 23) != 0 {
            return Err(self.unsupported("reserved FLAT bits are set"));
        }
        let raw_offset = bits(w0, 11, 0);
        let mut inst = self.inst(row.op, super::Enc::Native);
        inst.imm = match format {
            // LLVM refuses flat offsets past 11 bits on gfx10 (the flat
            // segment offset bug), so bit 11 has no settled meaning there.
            Format::Flat if raw_offset >> 11 == 1 => {
                return Err(self.unsupported(
                    "flat offset bit 11 set: flat offsets are 11-bit unsigned on gfx10",
                ))
            }
            Format::Flat => raw_offset as i32,
            _ => ((raw_offset << 20) as i32) >> 20,
        };
        inst.addr = bits(w1, 7, 0) as u16;
        inst.data = bits(w1, 15, 8) as u16;
        inst.dst = bits(w1, 31, 24) as u16;
        inst.saddr = self.vmem_saddr(format, bits(w1, 22, 16))?;
        Ok(inst)
    }
}
