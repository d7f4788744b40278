// Expected: compile error: the loop writes `self.a[i]` (rewritten to a local borrowing `self.a` mutably before the
// loop) and also calls a method on `self` as a whole, which would reach `self.a` a second way. The borrow checker
// refuses it; nothing runs with two paths to the field.
struct S {
    a: Vec<f64>,
    k: f64,
}

impl S {
    fn weight(&self, i: usize) -> f64 {
        self.k * i as f64
    }

    #[omp::directives]
    fn f(&mut self) {
        #[omp::parallel_for]
        for i in 0..self.a.len() {
            self.a[i] = self.weight(i);
        }
    }
}

fn main() {}
