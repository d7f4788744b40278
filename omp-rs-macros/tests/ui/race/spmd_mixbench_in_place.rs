// mixbench-omp's benchmark_func as written: each thread reads `cd` at `idx + j * stride + k * big_stride` and writes
// it at `idx + k * big_stride`. No two threads meet only because `j * stride` stays below the team's stride, a bound
// the analysis does not prove, so the region is refused (read the input from its own array, as
// offload-suite/src/spmd.rs does).
#[omp::directives]
fn benchmark_func(seed: f32, cd: &mut [f32], grid_dim: usize, block_dim: usize) {
    #[omp::target_teams(num_teams(grid_dim), thread_limit(block_dim))]
    {
        #[omp::parallel]
        {
            let stride = block_dim;
            let idx = omp::get_team_num() * block_dim * 8 + omp::get_thread_num();
            let big_stride = omp::get_num_teams() * block_dim * 8;
            let mut tmps = [0.0f32; 8];
            for k in 0..4 {
                for j in 0..8 {
                    tmps[j] = cd[idx + j * stride + k * big_stride] * seed;
                }
                cd[idx + k * big_stride] = tmps[0] + tmps[7];
            }
        }
    }
}

fn main() {}
