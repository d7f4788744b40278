// Team functions (helpers an SPMD region's `parallel` block calls with barriers, team-local arrays or the team
// routines) that omp-rs cannot inline as their call means, each refused with its fix.

#[omp::directives]
fn barrier_fn_in_an_expression(y: &mut [f64]) {
    fn sync(t: usize) -> usize {
        omp::barrier!();
        t
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            y[omp::get_team_num() * 64 + t] = 2.0 * sync(t) as f64;
        }
    }
}

#[omp::directives]
fn barrier_fn_called_on_the_host(y: &mut [f64]) {
    fn sync() {
        omp::barrier!();
    }
    sync();
    y[0] = 1.0;
}

#[omp::directives]
fn generic_team_fn(y: &mut [f64]) {
    fn fill<T: Copy>(s: &mut [T], v: T) {
        s[omp::get_thread_num()] = v;
        omp::barrier!();
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            fill(&mut s, 1.0);
            y[omp::get_team_num() * 64 + omp::get_thread_num()] = s[0];
        }
    }
}

#[omp::directives]
fn writes_a_mapped_array(y: &mut [f64]) {
    fn put(out: &mut [f64], i: usize) {
        out[i] = 1.0;
        omp::barrier!();
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            put(y, omp::get_team_num() * 64 + omp::get_thread_num());
        }
    }
}

#[omp::directives]
fn element_type_differs(y: &mut [f64]) {
    fn first(s: &[f32]) -> f32 {
        s[0]
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            s[omp::get_thread_num()] = 1.0;
            omp::barrier!();
            y[omp::get_team_num() * 64 + omp::get_thread_num()] = first(&s) as f64;
        }
    }
}

#[omp::directives]
fn returns_early(y: &mut [f64]) {
    fn half(s: &mut [f64], t: usize) {
        if t >= 32 {
            return;
        }
        s[t] = 0.5;
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            half(&mut s, t);
            y[omp::get_team_num() * 64 + t] = 1.0;
        }
    }
}

#[omp::directives]
fn name_the_region_binds(y: &mut [f64]) {
    fn gain() -> f64 {
        2.0
    }
    fn scaled(s: &[f64], t: usize) -> f64 {
        s[t] * gain()
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            let gain = 3.0;
            let t = omp::get_thread_num();
            s[t] = gain;
            omp::barrier!();
            y[omp::get_team_num() * 64 + t] = scaled(&s, t);
        }
    }
}

const K: f64 = 1.0;

#[omp::directives]
fn item_nearer_the_region(y: &mut [f64]) {
    fn scaled(s: &[f64], t: usize) -> f64 {
        s[t] * K
    }
    {
        const K: f64 = 2.0;
        #[omp::target_teams(num_teams(4), thread_limit(64))]
        {
            let mut s = [0.0f64; 64];
            #[omp::parallel]
            {
                let t = omp::get_thread_num();
                s[t] = K;
                omp::barrier!();
                y[omp::get_team_num() * 64 + t] = scaled(&s, t);
            }
        }
    }
}

#[omp::directives]
fn name_the_calling_team_fn_binds(y: &mut [f64]) {
    fn unit() -> f64 {
        1.0
    }
    fn inner(s: &[f64], t: usize) -> f64 {
        s[t] * unit()
    }
    fn outer(s: &mut [f64], t: usize) -> f64 {
        let unit = 2.0;
        s[t] = unit;
        omp::barrier!();
        inner(s, t)
    }
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            let v = outer(&mut s, t);
            y[omp::get_team_num() * 64 + t] = v;
        }
    }
}

fn main() {}
