// Expected: compile error naming `w`: the inner loop's bound is a private assigned in the body (`w = 1 + i % 2`),
// so `for k in 0..w { y[i + k] }` overlaps the next iteration; a check before the loop would see w's initial value.
#[omp::parallel_for(private(w), schedule(static, 1))]
fn f(y: &mut [u64]) {
    let mut w = 1usize;
    for i in 0..y.len() - 2 {
        w = 1 + i % 2;
        for k in 0..w {
            y[i + k] += 1;
        }
    }
}

fn main() {}
