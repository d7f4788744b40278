// `#[omp::atomic(compare)]` takes OpenMP's min / max forms only: a compare-and-swap (`==`), an `else`, or a store of
// another value than the compared one is refused with the forms it takes.
#[omp::directives]
fn forms(v: &[i32], hi: &mut [i32], tag: &mut [i32]) {
    #[omp::parallel_for]
    for i in 0..v.len() {
        let k = i % hi.len();
        #[omp::atomic(compare)]
        if tag[k] == 0 {
            tag[k] = v[i];
        }
        #[omp::atomic(compare)]
        if hi[k] < v[i] {
            hi[k] = v[i];
        } else {
            hi[k] = 0;
        }
        #[omp::atomic(compare)]
        if hi[k] < v[i] {
            hi[k] = v[i] + 1;
        }
    }
}

fn main() {}
