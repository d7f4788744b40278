// Expected: compile error naming `y`: a user type whose `IndexMut<usize>` wraps around (`i % 4`, storage reachable
// through `IndexMut<RangeFull>`): iterations write the same elements; only slices, arrays and `Vec`s may be written by
// index in a parallel loop.
use std::ops::{Index, IndexMut, RangeFull};

struct Ring([u64; 4]);
impl Index<usize> for Ring {
    type Output = u64;
    fn index(&self, i: usize) -> &u64 {
        &self.0[i % 4]
    }
}
impl IndexMut<usize> for Ring {
    fn index_mut(&mut self, i: usize) -> &mut u64 {
        &mut self.0[i % 4]
    }
}

impl Index<RangeFull> for Ring {
    type Output = [u64];
    fn index(&self, _: RangeFull) -> &[u64] {
        &self.0
    }
}
impl IndexMut<RangeFull> for Ring {
    fn index_mut(&mut self, _: RangeFull) -> &mut [u64] {
        &mut self.0
    }
}

#[omp::parallel_for]
fn f(n: usize, y: &mut Ring) {
    for i in 0..n {
        y[i] += 1;
    }
}

fn main() {}
