//! Fork/join cost of one parallel loop region on the host, omp-rs against libgomp (`csrc/omp/overhead.c`);
//! the `region-overhead` binary times them.

extern "C" {
    fn comp_region_overhead(y: *mut f64, n: i64, regions: i64);
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
