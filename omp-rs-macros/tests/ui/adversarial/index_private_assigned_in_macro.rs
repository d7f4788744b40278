// Expected: compile error naming `off`: the private `off` is assigned inside a macro (`set!(off, i % 2)`) and then
// used in the written index `y[i + off]`.
macro_rules! set {
    ($v:ident, $e:expr) => {
        $v = $e
    };
}

#[omp::parallel_for(private(off), schedule(static, 1))]
fn f(y: &mut [u64]) {
    let mut off = 0usize;
    for i in 0..y.len() - 1 {
        set!(off, i % 2);
        y[i + off] += 1;
    }
}

fn main() {}
