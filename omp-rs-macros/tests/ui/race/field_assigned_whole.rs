// Expected: compile error naming `self`: every iteration assigns the field `self.last` as a whole (a race). Field
// paths are only rewritten to locals when the loop writes their elements; this one stays as written.
struct S {
    a: Vec<f64>,
    last: usize,
}

impl S {
    #[omp::directives]
    fn f(&mut self) {
        #[omp::parallel_for]
        for i in 0..self.a.len() {
            self.a[i] = 1.0;
            self.last = i;
        }
    }
}

fn main() {}
