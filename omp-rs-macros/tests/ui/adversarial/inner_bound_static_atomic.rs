// Expected: compile error naming `y` (or `k`): the inner loop's bound is read from a static atomic that the body
// itself stores to, so its value is not the one a check before the loop sees.
use std::sync::atomic::{AtomicUsize, Ordering};

static WIDTH: AtomicUsize = AtomicUsize::new(1);

#[omp::parallel_for(schedule(static, 1))]
fn f(y: &mut [u64]) {
    for i in 0..y.len() - 2 {
        for k in 0..WIDTH.load(Ordering::Relaxed) {
            y[i + k] += 1;
        }
        WIDTH.store(2, Ordering::Relaxed);
    }
}

fn main() {}
