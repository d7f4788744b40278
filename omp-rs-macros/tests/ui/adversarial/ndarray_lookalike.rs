// A type named like ndarray's `Array2`, with its own column-major indexing and the same method names: taking it
// apart as a row-major slice would read other elements than `a[[i, j]]` does, so it must not compile (only
// ndarray's own arrays implement `omp`'s `NdArray`).
#[allow(dead_code)]
struct Array2<T> {
    data: Vec<T>,
    rows: usize,
    cols: usize,
    dims: [usize; 2],
}

#[allow(dead_code)]
impl<T> Array2<T> {
    fn shape(&self) -> &[usize] {
        &self.dims
    }
    fn as_slice(&self) -> Option<&[T]> {
        Some(&self.data)
    }
}

impl<T> std::ops::Index<[usize; 2]> for Array2<T> {
    type Output = T;
    fn index(&self, [i, j]: [usize; 2]) -> &T {
        &self.data[j * self.rows + i]
    }
}

#[omp::directives]
fn f(a: &Array2<f64>, out: &mut [f64]) {
    #[omp::parallel_for]
    for i in 0..out.len() {
        out[i] = a[[i, 1]];
    }
}

fn main() {}
