//! What each lane should hold, asked apart from what the device left there:
//! the case catalogue with its CPU model ([`cases`]), the seeded inputs
//! ([`inputs`]) and the comparison of a lane's words with the model's
//! ([`check`]). Shares no code with the emulator (ARCHITECTURE.md,
//! "Invariants"), so each checks the other.

pub mod cases;
pub mod check;
pub mod inputs;
