// Expected: compile error naming `y`: the index calls a macro (`off!()` expands to `i % 2` through the macro's
// own view of `i`); omp-rs cannot see what it computes (issue #4).
#[omp::parallel_for(schedule(static, 1))]
fn f(y: &mut [u64]) {
    for i in 0..y.len() - 1 {
        macro_rules! off {
            () => {
                i % 2
            };
        }
        y[i + off!()] += 1;
    }
}

fn main() {}
