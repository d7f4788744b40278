// Host `parallel` blocks: what a region with worksharing constructs cannot hold, each refused with its fix.

// A statement every thread would run (a write of a shared variable).
#[omp::directives]
fn every_thread_writes(x: &mut [f64], total: &mut f64) {
    #[omp::parallel(num_threads(4))]
    {
        *total = 0.0;
        #[omp::r#for]
        for i in 0..x.len() {
            x[i] = 1.0;
        }
    }
}

// A variable each thread keeps across the steps (a per-thread partial sum).
#[omp::directives]
fn per_thread_partial(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    #[omp::parallel]
    {
        let mut local = 0.0;
        #[omp::r#for]
        for i in 0..x.len() {
            local += x[i];
        }
        #[omp::critical]
        {
            sum += local;
        }
    }
    sum
}

// A worksharing loop under a thread-dependent `if` (some threads would not reach it).
#[omp::directives]
fn construct_under_if(x: &mut [f64]) {
    #[omp::parallel]
    {
        if omp::get_thread_num() == 0 {
            #[omp::r#for]
            for i in 0..x.len() {
                x[i] = 2.0;
            }
        }
    }
}

// A reduction on the region whose work is shared out by its `for`.
#[omp::directives]
fn reduction_on_region(x: &[f64]) -> f64 {
    let mut s = 0.0;
    #[omp::parallel(reduction(+: s))]
    {
        #[omp::r#for]
        for i in 0..x.len() {
            s += x[i];
        }
    }
    s
}

// A loop directive inside the region: a region of its own run by every thread.
#[omp::directives]
fn nested_loop_directive(x: &mut [f64]) {
    #[omp::parallel]
    {
        #[omp::parallel_for]
        for i in 0..x.len() {
            x[i] = 3.0;
        }
        omp::barrier!();
    }
}

// `for` with no `parallel` block around it.
#[omp::directives]
fn orphaned_for(x: &mut [f64]) {
    #[omp::r#for]
    for i in 0..x.len() {
        x[i] = 4.0;
    }
}

fn main() {}
