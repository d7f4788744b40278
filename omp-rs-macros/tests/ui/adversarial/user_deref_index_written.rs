// Expected: compile error naming `w`: `w` derefs (mutably) to a slice but has its own shifted `IndexMut<usize>`;
// `w[i]` means the user's impl, and that impl may map two `i` to one element (here `i / 2`).
use std::ops::{Deref, DerefMut, Index, IndexMut};

struct Halved(Vec<f64>);
impl Deref for Halved {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}
impl DerefMut for Halved {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.0
    }
}
impl Index<usize> for Halved {
    type Output = f64;
    fn index(&self, i: usize) -> &f64 {
        &self.0[i / 2]
    }
}
impl IndexMut<usize> for Halved {
    fn index_mut(&mut self, i: usize) -> &mut f64 {
        &mut self.0[i / 2]
    }
}

#[omp::parallel_for]
fn f(w: &mut Halved) {
    for i in 0..w.len() {
        w[i] += 1.0;
    }
}

fn main() {}
