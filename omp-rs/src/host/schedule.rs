//! Worksharing: how the chunks of a flattened iteration space `0..total` are handed to the threads of a team,
//! with OpenMP's schedule kinds.

use std::sync::atomic::{AtomicU64, Ordering};

/// `schedule(...)` as evaluated at region entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// `static` (equal contiguous blocks) or `static, c` (chunks of c, round robin).
    Static(Option<u64>),
    /// `dynamic[, c]`: chunks of c (default 1) on demand.
    Dynamic(Option<u64>),
    /// `guided[, c]`: on demand, chunk = max(remaining / threads, c).
    Guided(Option<u64>),
    /// `auto`: the runtime's choice (static).
    Auto,
    /// `runtime`: from `OMP_SCHEDULE`.
    Runtime,
}

/// Hands out chunks to the threads of one team.
#[derive(Debug)]
pub(crate) struct Dispatcher {
    schedule: Schedule,
    total: u64,
    threads: u64,
    next: AtomicU64,
}

impl Dispatcher {
    /// `schedule` must not be `Runtime` or `Auto` (resolve them first).
    pub(crate) fn new(schedule: Schedule, total: u64, threads: usize) -> Self {
        Dispatcher { schedule, total, threads: threads.max(1) as u64, next: AtomicU64::new(0) }
    }

    /// Runs `f(first, last)` for every chunk `[first, last)` that thread `t` executes, in order.
    pub(crate) fn for_each_chunk(&self, t: usize, mut f: impl FnMut(u64, u64)) {
        let (t, n, total) = (t as u64, self.threads, self.total);
        match self.schedule {
            Schedule::Static(None) | Schedule::Auto | Schedule::Runtime => {
                // Blocks of q or q + 1 iterations, the larger ones first (as libgomp).
                let (q, r) = (total / n, total % n);
                let first = t * q + t.min(r);
                let len = q + u64::from(t < r);
                if len > 0 {
                    f(first, first + len);
                }
            }
            Schedule::Static(Some(c)) => {
                let c = c.max(1);
                let mut first = t.saturating_mul(c);
                while first < total {
                    f(first, first.saturating_add(c).min(total));
                    first = first.saturating_add(n.saturating_mul(c));
                }
            }
            Schedule::Dynamic(c) => {
                let c = c.unwrap_or(1).max(1);
                loop {
                    let first = self.next.fetch_add(c, Ordering::Relaxed);
                    if first >= total {
                        break;
                    }
                    f(first, first.saturating_add(c).min(total));
                }
            }
            Schedule::Guided(c) => {
                let c = c.unwrap_or(1).max(1);
                let mut first = self.next.load(Ordering::Relaxed);
                loop {
                    if first >= total {
                        break;
                    }
                    let remaining = total - first;
                    let size = remaining.div_ceil(n).max(c).min(remaining);
                    match self.next.compare_exchange_weak(first, first + size, Ordering::Relaxed, Ordering::Relaxed) {
                        Ok(_) => {
                            f(first, first + size);
                            first = self.next.load(Ordering::Relaxed);
                        }
                        Err(now) => first = now,
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod test {
    use super::{Dispatcher, Schedule};

    fn coverage(s: Schedule, total: u64, threads: usize) -> Vec<u32> {
        let d = Dispatcher::new(s, total, threads);
        let mut hits = vec![0u32; total as usize];
        for t in 0..threads {
            d.for_each_chunk(t, |a, b| (a..b).for_each(|i| hits[i as usize] += 1));
        }
        hits
    }

    #[test]
    fn every_iteration_exactly_once() {
        for total in [0u64, 1, 2, 7, 64, 1000, 1001] {
            for threads in [1usize, 2, 3, 8] {
                for s in [
                    Schedule::Static(None),
                    Schedule::Static(Some(1)),
                    Schedule::Static(Some(7)),
                    Schedule::Dynamic(None),
                    Schedule::Dynamic(Some(5)),
                    Schedule::Guided(None),
                    Schedule::Guided(Some(3)),
                ] {
                    assert!(coverage(s, total, threads).iter().all(|&h| h == 1), "{s:?} total={total} threads={threads}");
                }
            }
        }
    }

    #[test]
    fn static_blocks_are_contiguous_and_balanced() {
        let d = Dispatcher::new(Schedule::Static(None), 10, 3);
        let mut blocks = Vec::new();
        for t in 0..3 {
            d.for_each_chunk(t, |a, b| blocks.push((t, a, b)));
        }
        assert_eq!(blocks, vec![(0, 0, 4), (1, 4, 7), (2, 7, 10)]);
    }

    #[test]
    fn static_chunks_round_robin() {
        let d = Dispatcher::new(Schedule::Static(Some(2)), 9, 2);
        let mut t1 = Vec::new();
        d.for_each_chunk(1, |a, b| t1.push((a, b)));
        assert_eq!(t1, vec![(2, 4), (6, 8)]);
    }
}
