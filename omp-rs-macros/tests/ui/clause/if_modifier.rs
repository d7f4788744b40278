#[omp::parallel_for(if(target: x.len() > 100))]
fn zero(x: &mut [f64]) {
    for i in 0..x.len() {
        x[i] = 0.0;
    }
}

fn main() {}
