// SPMD target regions: CUDA-style kernels written with the team and thread numbers.
#[omp::directives]
fn saxpy(blocks: i32, a: f32, x: &[f32], y: &mut [f32]) {
    let n = y.len();
    #[omp::target_teams(num_teams(blocks), thread_limit(128))]
    {
        #[omp::parallel]
        {
            let gid = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
            if gid < n {
                y[gid] += a * x[gid];
            }
        }
    }
}

#[omp::directives]
fn total(x: &[f32]) -> f32 {
    let n = x.len();
    let mut s = 0.0;
    #[omp::target_teams(num_teams(3), thread_limit(32), reduction(+: s))]
    {
        #[omp::parallel(num_threads(16), reduction(+: s))]
        {
            let start = omp::get_team_num() * omp::get_num_threads() + omp::get_thread_num();
            for i in (start..n).step_by(omp::get_num_teams() * omp::get_num_threads()) {
                s += x[i];
            }
        }
    }
    s
}

fn main() {
    let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let mut y = vec![1.0f32; 1000];
    saxpy(8, 2.0, &x, &mut y);
    assert!(y.iter().zip(&x).all(|(y, x)| *y == 1.0 + 2.0 * x));
    assert_eq!(total(&x), 499_500.0);
}
