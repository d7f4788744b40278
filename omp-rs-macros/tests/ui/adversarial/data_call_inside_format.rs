// Expected: compile error naming `a`: `println!("{}", sum(&a))` inside `target_data` passes the mapped `a` to a
// host function.
fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

#[omp::directives]
fn f(a: &mut [f64]) -> f64 {
    let mut total = 0.0;
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        total = format!("{}", sum(&a)).parse().unwrap();
    }
    total
}

fn main() {}
