// Every team's thread t writes y[t]: the thread number alone does not tell the teams apart.
#[omp::directives]
fn f(teams: usize, y: &mut [f64]) {
    #[omp::target_teams(num_teams(teams), thread_limit(64))]
    {
        #[omp::parallel]
        {
            y[omp::get_thread_num()] = omp::get_team_num() as f64;
        }
    }
}

fn main() {}
