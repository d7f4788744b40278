// Expected: compile error naming `off`: a `private` variable assigned in the body is not loop-invariant, so
// `y[i + off]` cannot be proven disjoint (with `off = i % 2`, iterations i and i+1 both write y[i+1]). (issue #3)
#[omp::parallel_for(private(off), schedule(static, 1))]
fn g(y: &mut [u64]) {
    let mut off = 0;
    for i in 0..y.len() - 1 {
        off = i % 2;
        y[i + off] += 1;
    }
}

fn main() {}
