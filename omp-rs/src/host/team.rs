//! Teams of threads: one rayon pool per team size, kept for the process, and the OpenMP thread numbers seen
//! inside a region. `num_threads(n)` picks the pool of size n for that region only (no global side effect).

use std::cell::Cell;
use std::sync::{Arc, Mutex, OnceLock};

use rayon_core::{ThreadPool, ThreadPoolBuilder};

/// Where the current thread stands: its number in the innermost team and that team's size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TeamPosition {
    pub(crate) thread_num: usize,
    pub(crate) num_threads: usize,
    /// Number of enclosing parallel regions (active or not).
    pub(crate) level: usize,
    /// Number of enclosing parallel regions with more than one thread.
    pub(crate) active_level: usize,
}

thread_local! {
    static POSITION: Cell<Option<TeamPosition>> = const { Cell::new(None) };
}

/// The position of the calling thread (`None` outside every parallel region).
pub(crate) fn position() -> Option<TeamPosition> {
    POSITION.with(|p| p.get())
}

/// Sets the thread's position for the lifetime of the guard (restored on drop, also when unwinding).
pub(crate) struct PositionGuard(Option<TeamPosition>);

impl PositionGuard {
    pub(crate) fn enter(pos: TeamPosition) -> Self {
        PositionGuard(POSITION.with(|p| p.replace(Some(pos))))
    }
}

impl Drop for PositionGuard {
    fn drop(&mut self) {
        POSITION.with(|p| p.set(self.0));
    }
}

/// The pool with exactly `n` threads (created on first use).
pub(crate) fn pool(n: usize) -> Arc<ThreadPool> {
    static POOLS: OnceLock<Mutex<Vec<(usize, Arc<ThreadPool>)>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(Vec::new()));
    let mut pools = pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(size, _)| *size == n) {
        return Arc::clone(p);
    }
    let p = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(move |i| format!("omp-team{n}-{i}"))
            .build()
            .unwrap_or_else(|e| panic!("omp: cannot start a team of {n} threads: {e}")),
    );
    pools.push((n, Arc::clone(&p)));
    p
}
