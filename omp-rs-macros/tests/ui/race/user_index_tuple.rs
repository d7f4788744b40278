// A user type's `Index<(usize, usize)>`: the element `g[(i, j)]` reaches is the impl's, omp-rs cannot see it.
use std::ops::{Index, IndexMut};

struct Grid {
    nx: usize,
    v: Vec<f64>,
}

impl Index<(usize, usize)> for Grid {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.v[i * self.nx + j]
    }
}

impl IndexMut<(usize, usize)> for Grid {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.v[i * self.nx + j]
    }
}

#[omp::directives]
fn fill(g: &mut Grid, n: usize) {
    let nx = g.nx;
    #[omp::parallel_for]
    for i in 0..n {
        for j in 0..nx {
            g[(i, j)] = (i * nx + j) as f64;
        }
    }
}

fn main() {
    let mut g = Grid { nx: 2, v: vec![0.0; 4] };
    fill(&mut g, 2);
}
