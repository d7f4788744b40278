// C's `int ind;` + `private(ind)`, set in the body only under a condition: the private copies would start from a
// variable without a value; the message says to declare it in the body (or give it a value). (Set first thing in
// every iteration, `ind = 2 * i;`, it is a `let` of the body: `pass/private_set_first.rs`.)
#[omp::directives]
fn f(n: usize, x: &[f64], y: &mut [f64]) {
    let mut ind: usize;
    #[omp::target_teams_distribute_parallel_for(private(ind))]
    for i in 0..n {
        if i > 0 {
            ind = 2 * i;
        } else {
            ind = 1;
        }
        y[i] = x[ind] + x[ind + 1];
    }
}

fn main() {}
