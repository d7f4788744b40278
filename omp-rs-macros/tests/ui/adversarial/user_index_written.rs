// Expected: compile error naming `y`: `y` is a user type with a 1-based `IndexMut<usize>` (and `IndexMut<RangeFull>`
// giving its storage); a parallel write `y[i]` cannot be rewritten to slice indexing (issue #6), and omp-rs cannot
// prove that the user's `index_mut` maps different `i` to different elements.
use std::ops::{Index, IndexMut, RangeFull};

struct OneBased(Vec<f64>);
impl Index<usize> for OneBased {
    type Output = f64;
    fn index(&self, i: usize) -> &f64 {
        &self.0[i - 1]
    }
}
impl IndexMut<usize> for OneBased {
    fn index_mut(&mut self, i: usize) -> &mut f64 {
        &mut self.0[i - 1]
    }
}
impl Index<RangeFull> for OneBased {
    type Output = [f64];
    fn index(&self, _: RangeFull) -> &[f64] {
        &self.0
    }
}
impl IndexMut<RangeFull> for OneBased {
    fn index_mut(&mut self, _: RangeFull) -> &mut [f64] {
        &mut self.0
    }
}

#[omp::parallel_for]
fn f(x: &[f64], y: &mut OneBased) {
    for i in 1..=x.len() {
        y[i] = x[i - 1];
    }
}

fn main() {}
