//! A queued region panics and nothing waits for it before `main` returns (its data was entered with
//! `target_enter_data!` and never exited): the runtime reports the panic at exit, naming the region, and the
//! process exits with status 101. Run by `tests/host_plugin.rs` with `OMP_RS_LAUNCH=queued` (the region stays
//! queued; under OpenMP's end of region it waits and reports the panic itself).

#[omp::directives]
fn shifted(off: usize, x: &mut [f64], y: &mut [f64]) {
    let n = y.len();
    omp::target_enter_data!(map(to: x, y));
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        y[i] = x[i + off];
    }
}

fn main() {
    let (mut x, mut y) = (vec![1.0; 100], vec![0.0; 100]);
    shifted(7, &mut x, &mut y);
    println!("main returns");
}
