// Padding bytes are not plain data (uninitialised on the host): reorder the fields or add explicit ones.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct Mixed {
    n: u32,
    x: f64,
}

fn main() {}
