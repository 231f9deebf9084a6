//! The AMDGPU machine encoding, and nothing about execution: which opcodes
//! exist in which generation, how their operands are coded, how bytes decode
//! to an [`Inst`] and how an `Inst` prints. The emulator ([`crate::platform::emu`])
//! executes what this module decodes; `run` names instructions through it.
//!
//! | module      | what it is                                                           |
//! |-------------|----------------------------------------------------------------------|
//! | [`table`]   | the opcodes as data: one row per opcode, a column per [`Generation`] with its format and number there, format, mnemonic and each generation's spelling, operand shape, semantics |
//! | [`operand`] | operand codes: scalar register numbers (VCC, NULL, M0, EXEC), register names, inline constants, [`Src`] and [`Dpp`] |
//! | [`decode`](mod@decode) | machine code -> [`Inst`]; unknown encodings are [`DecodeError`] values naming offset, dwords and format |
//! | [`disasm`]  | `Display for Inst`: LLVM-like assembly text for messages and reports |
//! | [`gfx9`]    | gfx9 (GCN5/CDNA): its field layouts, operand codes and register spellings |
//! | [`gfx10`]   | gfx10 (RDNA1/2): its FLAT/GLOBAL reader (the rest of its differences are [`EncodingLayout`] values and the table's gfx10 columns) |
//! | [`unemulated`] | encodings LLVM knows that the emulator does not implement, with their mnemonics (for refusals) |
//! | [`vopd`]    | gfx11+ dual issue: one VOPD word as its X and Y halves (VOP1/VOP2 instructions at one offset) |
//!
//! Generations: the table has a column for each of gfx9, gfx10, gfx11 and
//! gfx12, all filled in and decoded, for a target's [`Isa`] (which also says
//! whether a DPP VOP3 may take a scalar src1); gfx10's layouts are in
//! [`gfx10`], gfx9's in [`gfx9`]. Adding a generation means filling
//! its column and adding its field layouts here, not a new code path through
//! the emulator: gfx12's ops are gfx11's ops under new numbers, names and
//! memory layouts.

pub mod decode;
pub mod disasm;
pub mod gfx10;
pub mod gfx9;
pub mod operand;
pub mod table;
pub mod unemulated;
pub mod vopd;

pub use decode::{
    decode, decode_at, decode_one, decode_one_for, DecodeError, Enc, Inst, Modifiers,
};
pub use operand::{reg_name, Dpp, Src, EXEC, M0, NULL, VCC};
pub use table::{Encoding, Format, Op, OpInfo, Shape};

mod generation;
pub use generation::{
    DescriptorLayout, EncodingLayout, Generation, HazardRules, HwIdLayout, Hwreg, Isa,
    MemoryCounters, ModeLayout, SmemLayout, VmemLayout, VopdRules, Waitcnt, IB_STS2,
};
