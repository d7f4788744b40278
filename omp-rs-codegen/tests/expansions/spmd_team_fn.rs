#[omp::directives]
fn block_sums(x: &[f64], sums: &mut [f64]) {
    fn load(x: &[f64], team: usize) -> f64 {
        let t = omp::get_thread_num();
        x[team * 64 + t]
    }
    fn tree_sum(part: &mut [f64], t: usize) -> f64 {
        for s in [16, 8, 4, 2, 1] {
            if t < s {
                part[t] += part[t + s];
            }
            omp::barrier!();
        }
        part[0]
    }
    let teams = sums.len();
    #[omp::target_teams(num_teams(teams), thread_limit(32))]
    {
        let mut part = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let team = omp::get_team_num();
            part[32 + t] = load(x, team);
            omp::barrier!();
            let total = tree_sum(&mut part[32..], t);
            if t == 0 {
                sums[team] = total;
            }
        }
    }
}
