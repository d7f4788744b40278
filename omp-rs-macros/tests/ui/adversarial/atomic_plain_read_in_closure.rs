// Expected: compile error naming `h`: `h` is updated by `#[omp::atomic]`; a plain read inside a closure races with
// those updates.
#[omp::directives]
fn f(x: &[u32], h: &mut [u64]) -> u64 {
    let mut big = 0u64;
    #[omp::parallel_for(reduction(+: big))]
    for i in 0..x.len() {
        #[omp::atomic]
        h[x[i] as usize % 4] += 1;
        let peek = |k: usize| h[k];
        big += peek(0);
    }
    big
}

fn main() {}
