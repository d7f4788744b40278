// Host and device must lay a declare_target struct out alike: only `repr(C)` (or no repr) is accepted.
#[omp::declare_target]
#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Params {
    dt: f64,
    n: u32,
}

fn main() {}
