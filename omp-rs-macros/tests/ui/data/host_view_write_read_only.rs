// A host view to write needs the variable itself mutable: `x.host_mut()` on data borrowed shared is refused.
#[omp::directives]
fn f(n: usize, a: &[f64], b: &mut [f64]) {
    #[omp::target_data(map(to: a), map(tofrom: b))]
    {
        a.host_mut()[0] = 1.0;
        omp::target_update!(to: a);
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            b[i] = 2.0 * a[i];
        }
    }
}

fn main() {}
