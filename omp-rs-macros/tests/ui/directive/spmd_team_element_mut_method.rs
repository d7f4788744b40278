// A method taking `&mut self` on a team-local element would change a copy the team never sees: a borrow error at
// the call (assign the element instead).
#[derive(Clone, Copy)]
struct Acc {
    sum: f64,
}

impl Acc {
    fn add(&mut self, v: f64) {
        self.sum += v;
    }
}

#[omp::directives]
fn team_struct_method(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut acc = Acc { sum: 0.0 };
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            if t == 0 {
                acc.add(1.0);
            }
            omp::barrier!();
            y[omp::get_team_num() * 64 + t] = acc.sum;
        }
    }
}

fn main() {}
