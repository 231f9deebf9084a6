//! The progress bar of `run` on a terminal (indicatif): lanes checked over
//! lanes asked, with lanes/s, drawn on stderr only for runs that last over
//! a second, so short runs and logs see plain lines. Case lines are printed
//! above the bar. Not a terminal, or `--quiet`: no bar, plain lines.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct Bar {
    bar: Option<ProgressBar>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Bar {
    /// A bar fed from `done` (the session's lanes-checked counter), or none.
    pub fn start(quiet: bool, done: Arc<AtomicU64>) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return Bar {
                bar: None,
                stop,
                ticker: None,
            };
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {human_pos}/{human_len} lanes, {msg} ({eta} left)",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        let (shown, stopping) = (bar.clone(), stop.clone());
        let ticker = std::thread::spawn(move || {
            let started = Instant::now();
            let mut visible = false;
            while !stopping.load(Ordering::Relaxed) {
                let lanes = done.load(Ordering::Relaxed);
                shown.set_position(lanes);
                let rate = lanes as f64 / started.elapsed().as_secs_f64().max(1e-3);
                shown.set_message(format!("{:.1} M lanes/s", rate / 1e6));
                if !visible && started.elapsed() >= SHOW_AFTER {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    visible = true;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Bar {
            bar: Some(bar),
            stop,
            ticker: Some(ticker),
        }
    }

    /// Lanes the run will check in all (known once the cases are chosen).
    pub fn set_total(&self, lanes: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(lanes);
        }
    }

    /// Print `lines` on stdout (stderr when a report has stdout), above the
    /// bar. A closed stdout is ignored.
    pub fn print(&self, lines: Vec<String>) {
        self.above(|| {
            let mut out = crate::commands::shared::text_out();
            for line in &lines {
                let _ = writeln!(out, "{line}");
            }
        });
    }

    /// Print `line` on stderr, above the bar.
    pub fn warn(&self, line: String) {
        self.above(|| {
            let _ = writeln!(std::io::stderr(), "{line}");
        });
    }

    fn above(&self, print: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
