// Expected: compile error naming `a`: `format!("{a:?}")` inside `target_data` reads the mapped `a` on the host through
// an inline format argument (stale: the current copy is on the device).
#[omp::directives]
fn f(a: &mut [f64]) -> String {
    let mut shown = String::new();
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] *= 2.0;
        }
        shown = format!("{a:?}");
    }
    shown
}

fn main() {}
