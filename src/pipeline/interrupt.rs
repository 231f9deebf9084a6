//! SIGINT and SIGTERM during `run`: the handler only records which signal
//! came; the pipeline polls [`Interrupt::requested`] at each dispatch
//! boundary and between cases, stops there, and the session still writes
//! both reports, marked interrupted. A second signal ends the process at
//! once with the default action (for a user whose device hangs).
//!
//! Nothing runs in the signal handler but atomic stores (signal-hook's
//! `flag` module), so the handler is async-signal-safe.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// A signal that asked the run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Int,
    Term,
}

impl Signal {
    const ALL: [Signal; 2] = [Signal::Int, Signal::Term];

    pub fn number(self) -> i32 {
        match self {
            Signal::Int => signal_hook::consts::SIGINT,
            Signal::Term => signal_hook::consts::SIGTERM,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
        }
    }

    /// The shell's convention for a process ended by a signal: 128 + its
    /// number (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_code(self) -> i32 {
        128 + self.number()
    }

    fn from_number(n: usize) -> Option<Signal> {
        Signal::ALL.into_iter().find(|s| s.number() as usize == n)
    }
}

/// The stop request shared by the signal handlers and the run. Cloning it
/// shares the same flag. The default one is never set unless
/// [`request`](Self::request) is called (tests, embedding programs).
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    /// The number of the first signal that arrived; 0 while none has.
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Install handlers for SIGINT and SIGTERM that set the returned flag.
    /// The first signal is recorded; a second one of either kind ends the
    /// process with the signal's default action.
    pub fn install() -> std::io::Result<Interrupt> {
        let flag = Interrupt::default();
        // A `.s` kernel assembling when the signal comes is stopped, and
        // reported as interrupted, not as a source that does not assemble.
        *installed() = Some(flag.clone());
        crate::platform::toolchain::stop_when(|| {
            let latest = installed().clone();
            latest
                .and_then(|flag| flag.requested())
                .map(|s| s.name().to_string())
        });
        let seen = Arc::new(AtomicBool::new(false));
        for signal in Signal::ALL {
            // Registered first, so it sees `seen` as it was before this delivery.
            signal_hook::flag::register_conditional_default(signal.number(), Arc::clone(&seen))?;
            signal_hook::flag::register(signal.number(), Arc::clone(&seen))?;
            // Only a first signal gets here (a second one ended the process
            // above), so this records the signal that stopped the run.
            signal_hook::flag::register_usize(
                signal.number(),
                Arc::clone(&flag.signal),
                signal.number() as usize,
            )?;
        }
        Ok(flag)
    }

    /// Which signal asked the run to stop, if any did.
    pub fn requested(&self) -> Option<Signal> {
        Signal::from_number(self.signal.load(Ordering::Relaxed))
    }

    /// Ask the run to stop as if `signal` had arrived (the first request wins).
    pub fn request(&self, signal: Signal) {
        let _ = self.signal.compare_exchange(
            0,
            signal.number() as usize,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
}

/// The flag of the latest [`Interrupt::install`], which the toolchain
/// watches while a tool runs.
fn installed() -> std::sync::MutexGuard<'static, Option<Interrupt>> {
    static INSTALLED: std::sync::Mutex<Option<Interrupt>> = std::sync::Mutex::new(None);
    INSTALLED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_request_wins_and_names_its_exit_code() {
        assert_eq!(
            (Signal::Int.exit_code(), Signal::Term.exit_code()),
            (crate::error::exit::SIGINT, crate::error::exit::SIGTERM)
        );
        let flag = Interrupt::default();
        assert_eq!(flag.requested(), None);
        let shared = flag.clone();
        shared.request(Signal::Term);
        flag.request(Signal::Int);
        assert_eq!(flag.requested(), Some(Signal::Term));
        assert_eq!(Signal::Int.exit_code(), 130);
        assert_eq!(Signal::Term.exit_code(), 143);
    }
}
