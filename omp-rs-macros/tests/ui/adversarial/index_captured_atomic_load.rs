// Expected: compile error naming `y` (or `c`): `c.load(..)` in the index reads a shared atomic that the same body
// modifies; it is not loop-invariant.
use std::sync::atomic::{AtomicUsize, Ordering};

#[omp::parallel_for(schedule(static, 1))]
fn f(c: &AtomicUsize, y: &mut [u64]) {
    for i in 0..y.len() - 1 {
        y[i + c.load(Ordering::Relaxed)] += 1;
        c.store(i % 2, Ordering::Relaxed);
    }
}

fn main() {}
