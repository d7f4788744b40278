// `w.a` goes through `Wrapper`'s `Deref`, which the sequential loop runs at every access and a hoisted field once:
// a field path is hoisted only when it is a field of the root's own struct.
struct Inner {
    a: Vec<f64>,
}
struct Wrapper(Inner);
impl std::ops::Deref for Wrapper {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

#[omp::parallel_for(reduction(+: s))]
fn total(w: &Wrapper) -> f64 {
    let mut s = 0.0;
    for i in 0..w.a.len() {
        s += w.a[i];
    }
    s
}

fn main() {}
