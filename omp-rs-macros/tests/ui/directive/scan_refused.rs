// Scans (`reduction(inscan, ..)` + `omp::scan!`) omp-rs does not take apart, each refused with its fix.

#[omp::directives]
fn no_scan_point(x: &[f64], y: &mut [f64]) {
    let mut s: f64 = 0.0;
    #[omp::parallel_for(reduction(inscan, +: s))]
    for i in 0..x.len() {
        s += x[i];
        y[i] = s;
    }
}

#[omp::directives]
fn scan_point_in_a_block(x: &[f64], y: &mut [f64]) {
    let mut s: f64 = 0.0;
    #[omp::parallel_for(reduction(inscan, +: s))]
    for i in 0..x.len() {
        s += x[i];
        {
            omp::scan!(inclusive(s));
        }
        y[i] = s;
    }
}

#[omp::directives]
fn continue_leaves_a_phase(x: &[f64], y: &mut [f64]) {
    let mut s: f64 = 0.0;
    #[omp::parallel_for(reduction(inscan, +: s))]
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        s += x[i];
        omp::scan!(inclusive(s));
        y[i] = s;
    }
}

#[omp::directives]
fn another_variable(x: &[f64], y: &mut [f64]) {
    let mut s: f64 = 0.0;
    let t: f64 = 0.0;
    #[omp::parallel_for(reduction(inscan, +: s))]
    for i in 0..x.len() {
        s += x[i];
        omp::scan!(inclusive(t));
        y[i] = s + t;
    }
}

#[omp::parallel_for(reduction(inscan, +: s))]
fn on_a_fn(x: &[f64], y: &mut [f64]) {
    let mut s: f64 = 0.0;
    for i in 0..x.len() {
        s += x[i];
        y[i] = s;
    }
}

fn scan_outside_a_loop() {
    omp::scan!(inclusive(s));
}

fn main() {}
