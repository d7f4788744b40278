// C's `int ind;` + `private(ind)`: the variable has no value for the private copies to start from; the message
// says to declare it in the body (or give it a value).
#[omp::directives]
fn f(n: usize, x: &[f64], y: &mut [f64]) {
    let mut ind: usize;
    #[omp::target_teams_distribute_parallel_for(private(ind))]
    for i in 0..n {
        ind = 2 * i;
        y[i] = x[ind] + x[ind + 1];
    }
}

fn main() {}
