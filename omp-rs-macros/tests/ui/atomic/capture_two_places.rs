// A structured capture reads and updates one place: `{ v = x; x += e; }`. Reading one element and updating another
// is two operations, not one atomic.
#[omp::directives]
fn f(next: &mut [u64], tickets: &mut [u64]) {
    #[omp::parallel_for]
    for i in 0..tickets.len() {
        let t;
        #[omp::atomic(capture)]
        {
            t = next[0];
            next[1] += 1;
        }
        tickets[i] = t;
    }
}

fn main() {}
