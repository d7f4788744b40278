// The first thread of each group of 32 writes, but its index names only the team: the groups of one team (the
// thread number divided by 32) all write `sums[team]`.
#[omp::directives]
fn f(teams: usize, x: &[f64], sums: &mut [f64]) {
    #[omp::target_teams(num_teams(teams), thread_limit(256))]
    {
        #[omp::parallel]
        {
            let lane = omp::get_thread_num() % 32;
            let g = omp::get_thread_num() / 32;
            let team = omp::get_team_num();
            if lane == 0 {
                sums[team] = x[team * 8 + g];
            }
        }
    }
}

fn main() {}
