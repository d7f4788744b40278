// A race on a struct field in a method's loop: the message names the field as written (`self.v`).

struct Grid {
    v: Vec<f64>,
    u: Vec<f64>,
}

impl Grid {
    #[omp::directives]
    fn shift(&mut self) {
        #[omp::parallel_for]
        for i in 0..self.v.len() - 1 {
            self.v[i + 1] = self.v[i] + self.u[i];
        }
    }

    #[omp::directives]
    fn total(&mut self) -> f64 {
        let mut s = 0.0;
        #[omp::parallel_for(reduction(+: s))]
        for i in 0..self.v.len() {
            s += self.v[i];
            self.u[0] = s;
        }
        s
    }
}

fn main() {}
