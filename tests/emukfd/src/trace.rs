//! `XAD_KFD_TRACE=1`: one line per file, ioctl and DRM query, on stderr.
//! Lines that report a refusal or a fault are printed whether tracing is on
//! or not ([`always`]).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

static ON: AtomicBool = AtomicBool::new(false);

pub fn enable(on: bool) {
    ON.store(on, Relaxed);
}

pub fn on() -> bool {
    ON.load(Relaxed)
}

/// A trace line (only with `XAD_KFD_TRACE=1`).
pub fn line(text: std::fmt::Arguments<'_>) {
    if on() {
        eprintln!("xad-emukfd: {text}");
    }
}

/// A line the user must see: a request the device refuses, a fault.
pub fn always(text: std::fmt::Arguments<'_>) {
    eprintln!("xad-emukfd: {text}");
}

#[macro_export]
macro_rules! trace {
    ($($t:tt)*) => { $crate::trace::line(format_args!($($t)*)) };
}

#[macro_export]
macro_rules! warn {
    ($($t:tt)*) => { $crate::trace::always(format_args!($($t)*)) };
}
