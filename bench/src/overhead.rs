//! Fork/join cost of one parallel loop region on the host, omp-rs against libgomp (`csrc/omp/overhead.c`), and the
//! cost of one worksharing step of a `parallel` block; the `region-overhead` binary times them.

extern "C" {
    fn comp_region_overhead(y: *mut f64, n: i64, regions: i64);
    fn comp_steps_in_region(y: *mut f64, n: i64, steps: i64);
}

/// `regions` back-to-back omp-rs parallel loops, each adding 1 to every element of `y`.
#[omp::directives]
pub fn omp_rs_regions(y: &mut [f64], regions: usize) {
    for _ in 0..regions {
        #[omp::parallel_for]
        for i in 0..y.len() {
            y[i] += 1.0;
        }
    }
}

/// The same with `#pragma omp parallel for` (gcc, libgomp).
pub fn libgomp_regions(y: &mut [f64], regions: usize) {
    // SAFETY: the C loop writes y[0..len) and nothing else; the slice is live and exclusive for the call.
    unsafe { comp_region_overhead(y.as_mut_ptr(), y.len() as i64, regions as i64) }
}

/// `steps` worksharing loops of one host `parallel` block, each adding 1 to every element of `y` (omp-rs runs each
/// step as a parallel loop of the block's team).
#[omp::directives]
pub fn omp_rs_steps(y: &mut [f64], steps: usize) {
    #[omp::parallel]
    {
        for _ in 0..steps {
            #[omp::r#for]
            for i in 0..y.len() {
                y[i] += 1.0;
            }
        }
    }
}

/// The same with `#pragma omp parallel` around `#pragma omp for` loops (gcc, libgomp: one fork, a barrier each).
pub fn libgomp_steps(y: &mut [f64], steps: usize) {
    // SAFETY: the C loops write y[0..len) and nothing else; the slice is live and exclusive for the call.
    unsafe { comp_steps_in_region(y.as_mut_ptr(), y.len() as i64, steps as i64) }
}
