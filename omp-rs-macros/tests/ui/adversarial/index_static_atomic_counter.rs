// Expected: compile error naming `y`: the index calls a method on a static (`COUNTER.fetch_add(..)`); its value
// changes with every call and differs between threads.
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

#[omp::parallel_for]
fn f(y: &mut [u64]) {
    for i in 0..y.len() - 1 {
        y[i + COUNTER.fetch_add(1, Ordering::Relaxed) % 2] += 1;
    }
}

fn main() {}
