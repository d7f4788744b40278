macro_rules! set {
    ($a:ident [ $i:expr ] <- $v:expr) => {
        $a[$i] = $v
    };
}

#[omp::parallel_for]
fn f(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 0.0;
        set!(y[0] <- 1.0);
    }
}

fn main() {}
