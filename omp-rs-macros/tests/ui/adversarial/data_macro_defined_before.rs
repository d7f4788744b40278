// Expected: compile error naming `a` (or the macro `head!`): a `macro_rules!` defined before the block reads the
// mapped `a`; calling it inside `target_data` is a host access whose tokens do not mention `a`.
#[omp::directives]
fn f(a: &mut [f64]) -> f64 {
    let mut first = 0.0;
    macro_rules! head {
        () => {
            a[0]
        };
    }
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        first = head!();
    }
    first
}

fn main() {}
