// Not every byte pattern is a `bool`: a device write of one could not be read back safely.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct Flags {
    scale: f64,
    active: bool,
}

fn main() {}
