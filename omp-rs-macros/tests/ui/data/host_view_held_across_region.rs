// A host view of a mapped variable borrows its token: no region of the block can use the variable while the view
// lives (the region would write the device copy the view's host code means to read in step with it).
#[omp::directives]
fn f(n: usize, a: &mut [f64], b: &mut [f64]) {
    #[omp::target_data(map(tofrom: a, b))]
    {
        omp::target_update!(from: a);
        let view = a.host_mut();
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] = 2.0 * b[i];
        }
        view[0] = 1.0;
    }
}

fn main() {}
