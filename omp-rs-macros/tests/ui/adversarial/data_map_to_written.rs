// Expected: compile error naming `a`: `target_data(map(to: a))` never copies `a` back, but a target region inside
// the block writes `a`; sequential Rust would see those writes after the block.
#[omp::directives]
fn f(a: &mut [f64]) {
    #[omp::target_data(map(to: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] += 1.0;
        }
    }
}

fn main() {}
