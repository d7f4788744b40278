// SPMD regions (`target_teams` + `parallel`) omp-rs does not reproduce, each refused with its fix.
use omp::get_thread_num;

#[omp::directives]
fn no_num_teams(y: &mut [f64]) {
    #[omp::target_teams(thread_limit(64))]
    {
        #[omp::parallel]
        {
            y[omp::get_thread_num()] = 1.0;
        }
    }
}

#[omp::directives]
fn untyped_team_local_array(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut tile = [0.0; 64];
        #[omp::parallel]
        {
            y[omp::get_team_num() * 64 + omp::get_thread_num()] = tile[0];
        }
    }
}

#[omp::directives]
fn barrier_under_a_condition(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            let gid = omp::get_team_num() * 64 + omp::get_thread_num();
            y[gid] = 1.0;
            if gid % 2 == 0 {
                omp::barrier!();
            }
        }
    }
}

#[omp::directives]
fn barrier_in_a_loop_of_the_threads_own_length(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            for k in 0..t {
                s[t] += k as f64;
                omp::barrier!();
            }
            y[omp::get_team_num() * 64 + t] = s[t];
        }
    }
}

#[omp::directives]
fn team_local_array_passed_whole(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut s = [0.0f64; 64];
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            s[t] = 1.0;
            omp::barrier!();
            y[omp::get_team_num() * 64 + t] = s.iter().sum();
        }
    }
}

#[omp::directives]
fn code_after_the_parallel_block(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            y[omp::get_team_num() * 64 + omp::get_thread_num()] = 1.0;
        }
        y[0] = 2.0;
    }
}

#[omp::directives]
fn imported_routine(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            y[omp::get_team_num() * 64 + get_thread_num()] = 1.0;
        }
    }
}

#[omp::directives]
fn routine_in_a_macro(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel]
        {
            let gid = omp::get_team_num() * 64 + omp::get_thread_num();
            y[gid] = f64::from(u8::try_from(omp::get_thread_num()).unwrap());
            debug_assert!(omp::get_thread_num() < 64);
        }
    }
}

#[omp::directives]
fn parallel_reduction_only(y: &[f64]) -> f64 {
    let mut s = 0.0;
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        #[omp::parallel(reduction(+: s))]
        {
            s += y[omp::get_team_num() * 64 + omp::get_thread_num()];
        }
    }
    s
}

#[omp::directives]
fn team_local_variable_from_a_thread_number(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut first = omp::get_team_num() * 64;
        #[omp::parallel]
        {
            y[first + omp::get_thread_num()] = 1.0;
        }
    }
}

#[omp::directives]
fn untyped_team_local_variable(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut scale = 0.0;
        #[omp::parallel]
        {
            if omp::get_thread_num() == 0 {
                scale = 2.0;
            }
            omp::barrier!();
            y[omp::get_team_num() * 64 + omp::get_thread_num()] = scale;
        }
    }
}

#[omp::directives]
fn team_local_variable_in_a_macro(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut count = 0u32;
        #[omp::parallel]
        {
            let t = omp::get_thread_num();
            #[omp::atomic]
            count += 1;
            omp::barrier!();
            debug_assert!(count == 64);
            y[omp::get_team_num() * 64 + t] = 1.0;
        }
    }
}

#[omp::directives]
fn team_local_variable_shadowed(y: &mut [f64]) {
    #[omp::target_teams(num_teams(4), thread_limit(64))]
    {
        let mut k = 0usize;
        #[omp::parallel]
        {
            let k = omp::get_thread_num();
            y[omp::get_team_num() * 64 + k] = 1.0;
        }
    }
}

fn main() {}
