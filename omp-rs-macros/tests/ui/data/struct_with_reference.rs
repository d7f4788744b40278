// A reference is a host address: it means nothing on the device.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct View {
    data: &'static [f64],
}

fn main() {}
