// Expected: compile error naming `self`: every iteration pushes onto the field `self.log` (a race).
struct S {
    a: Vec<f64>,
    log: Vec<usize>,
}

impl S {
    #[omp::directives]
    fn f(&mut self) {
        #[omp::parallel_for]
        for i in 0..self.a.len() {
            self.a[i] = 1.0;
            self.log.push(i);
        }
    }
}

fn main() {}
