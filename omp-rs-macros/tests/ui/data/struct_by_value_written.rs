// A struct passed by value is each region's copy: assigning it in the loop is a race unless it is private.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct Params {
    dt: f64,
    scale: f64,
}

#[omp::directives]
fn f(y: &mut [f64]) {
    let mut p = Params { dt: 0.1, scale: 1.0 };
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        p.dt = y[i];
        y[i] *= p.scale;
    }
}

fn main() {}
