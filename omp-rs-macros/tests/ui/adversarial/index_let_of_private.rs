// Expected: compile error naming `off` (or `o`): `let o = off;` copies a private that the body assigns; following
// the `let` into `y[i + o]` must not make the index look loop-invariant.
#[omp::parallel_for(private(off), schedule(static, 1))]
fn f(y: &mut [u64]) {
    let mut off = 0usize;
    for i in 0..y.len() - 1 {
        off = i % 2;
        let o = off;
        y[i + o] += 1;
    }
}

fn main() {}
