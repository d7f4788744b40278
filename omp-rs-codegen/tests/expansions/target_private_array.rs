#[omp::directives]
fn step(tmp: &mut MappedMut<'_, '_, f64>, out: &mut MappedMut<'_, '_, f64>) {
    let n = out.len();
    let mut stencil = [0.0f64; 4];
    #[omp::target_teams_distribute_parallel_for(private(stencil))]
    for i in 0..n {
        for s in 0..4 {
            stencil[s] = (i + s) as f64;
        }
        tmp[i] = stencil[0] + stencil[3];
        out[i] += tmp[i];
    }
}
