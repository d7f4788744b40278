// A type named like a primitive is not that primitive: the layout check compares with the real `u64` layout and
// refuses the struct rather than copy it with a layout the device may not share.
#[allow(non_camel_case_types)]
type u64 = u32;

#[omp::declare_target]
#[derive(Clone, Copy)]
struct Counts {
    a: u64,
    b: u64,
}

fn main() {}
