// Expected: compile error naming `s`: the reduction variable bounds an inner loop (`for _ in 0..s`), a read of a
// thread's partial value.
#[omp::parallel_for(reduction(+: s))]
fn f(y: &mut [u64]) -> u64 {
    let mut s = 1u64;
    for i in 0..y.len() {
        for _ in 0..s {
            y[i] += 1;
        }
        s += 1;
    }
    s
}

fn main() {}
