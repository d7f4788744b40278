// Expected: compile error naming `s`: `s = add(s, x[i])` hides the update in a function; omp-rs cannot know it is `+`.
fn add(a: i64, b: i64) -> i64 {
    a * 2 + b
}

#[omp::parallel_for(reduction(+: s))]
fn f(x: &[i64]) -> i64 {
    let mut s = 0;
    for i in 0..x.len() {
        s = add(s, x[i]);
    }
    s
}

fn main() {}
