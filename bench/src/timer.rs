//! The rep-loop timer a variant drives, so that only the timed region is measured.
//!
//! RAJAPerf times the rep loop only: allocation, initialisation, device transfers and the
//! checksum stay outside. A variant calls [`Timer::time`] (or `start`/`stop` when the timed
//! region spans setup it owns, e.g. a GPU data region) exactly once per run.

use std::time::{Duration, Instant};

/// Measures one timed region.
#[derive(Debug, Default)]
pub struct Timer {
    started: Option<Instant>,
    elapsed: Option<Duration>,
}

impl Timer {
    /// A timer that has not run.
    pub fn new() -> Self {
        Self::default()
    }

    /// Times `f` (the rep loop).
    pub fn time<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.start();
        let r = f();
        self.stop();
        r
    }

    /// Starts the timed region. For variants that must set up state between start and stop.
    pub fn start(&mut self) {
        assert!(self.elapsed.is_none(), "a variant times one region per run");
        self.started = Some(Instant::now());
    }

    /// Ends the timed region, after the target regions still queued on a device have finished (as RAJAPerf's
    /// `stopTimer` synchronises the device): omp-rs queues regions on data that is already on the device.
    pub fn stop(&mut self) {
        let t0 = self.started.take().expect("Timer::stop without start");
        omp::offload::taskwait().unwrap_or_else(|e| panic!("{e}"));
        self.elapsed = Some(t0.elapsed());
    }

    /// The measured time, if the region ran.
    pub fn elapsed(&self) -> Option<Duration> {
        self.elapsed
    }
}
