// The device crate needs one concrete layout per struct.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct Pair<T> {
    a: T,
    b: T,
}

fn main() {}
