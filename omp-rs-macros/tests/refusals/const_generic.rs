// The kernel is compiled before `widened::<5>` exists: it cannot see `W`, and a module `const W` must not stand in.
const W: usize = 2;

#[omp::directives]
fn widened<const W: usize>(y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = (W * i) as f64;
    }
}

fn main() {
    let _ = W;
    widened::<5>(&mut [0.0; 4]);
}
