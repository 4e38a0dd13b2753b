//! Progress of a fetch on stderr: shown only on a terminal, only when asked for, and only once
//! the fetch has taken more than a second (a quick fetch prints nothing).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counts planned and answered requests; [`Progress::ticker`] draws them.
#[derive(Clone, Default)]
pub struct Progress {
    inner: Option<Arc<Counts>>,
}

struct Counts {
    planned: AtomicUsize,
    done: AtomicUsize,
    drawn: AtomicBool,
}

/// Wait before the first draw.
const QUIET_FOR: Duration = Duration::from_secs(1);

impl Progress {
    /// No progress (tests, scripts, `-o json|yaml`, `--quiet`).
    pub fn off() -> Progress {
        Progress::default()
    }

    /// Progress when `wanted` and stderr is a terminal.
    pub fn on_terminal(wanted: bool) -> Progress {
        if !wanted || !std::io::stderr().is_terminal() {
            return Progress::off();
        }
        Progress {
            inner: Some(Arc::new(Counts {
                planned: AtomicUsize::new(0),
                done: AtomicUsize::new(0),
                drawn: AtomicBool::new(false),
            })),
        }
    }

    pub fn add(&self, n: usize) {
        if let Some(c) = &self.inner {
            c.planned.fetch_add(n, Ordering::Relaxed);
        }
    }

    pub fn done(&self) {
        if let Some(c) = &self.inner {
            c.done.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Redraw every 100 ms after the first second, until dropped (run it beside the fetch).
    pub async fn ticker(&self) {
        let Some(c) = &self.inner else {
            return std::future::pending().await;
        };
        let start = Instant::now();
        tokio::time::sleep(QUIET_FOR).await;
        loop {
            let (done, planned) = (
                c.done.load(Ordering::Relaxed),
                c.planned.load(Ordering::Relaxed),
            );
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[2Kfetching from the cluster: {done}/{planned} requests answered ({:.1}s)",
                start.elapsed().as_secs_f64()
            );
            let _ = err.flush();
            c.drawn.store(true, Ordering::Relaxed);
            drop(err);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clear the line if anything was drawn.
    pub fn finish(&self) {
        if let Some(c) = &self.inner {
            if c.drawn.load(Ordering::Relaxed) {
                let _ = write!(std::io::stderr(), "\r\x1b[2K");
            }
        }
    }
}
