// A `static mut`'s copy in the kernel would be another object than the host's (a read-only static is copied like a
// const).
static mut COUNTER: [f64; 4] = [1.0, 2.0, 3.0, 4.0];

#[omp::target_teams_distribute_parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = unsafe { COUNTER[i % 4] };
    }
}

fn main() {
    f(&mut [0.0]);
}
