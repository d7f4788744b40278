#[omp::directives]
fn copy(n: usize, did: i64, x: &omp::DeviceBuffer<f64>, y: &mut omp::DeviceBuffer<f64>) {
    #[omp::target(is_device_ptr(x, y), device(did))]
    {
        #[omp::teams_distribute_parallel_for(thread_limit(128))]
        for i in 0..n {
            y[i] = x[i];
        }
    }
}
