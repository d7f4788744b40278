#[omp::directives]
fn f(x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        if i == 0 {
            dbg!(x[i]);
        }
        let tmp = vec![x[i]; 2];
        y[i] = tmp[1];
    }
}

fn main() {}
