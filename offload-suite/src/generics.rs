//! Generic kernels (issue #10): BabelStream's `template <class T>` kernels as generic functions, run with `f32` and
//! `f64` (each its own device instance) and with `i64` (no instance: the host runs it), next to sequential Rust.

use std::ops::{Add, Mul};

use rand::rngs::StdRng;
use rand::Rng;

use crate::{close, same, Check};

/// Every generic-kernel check.
pub const CHECKS: &[Check] = &[
    ("generics: triad::<f32>, triad::<f64> (one kernel each) and triad::<i64> (host), a by-value T", check_triad),
    ("generics: dot::<T> with reduction(+: sum) over a T", check_dot),
    ("generics: BabelStream's class, #[omp::directives] on impl<T> Stream<T> with self.a[i] fields, f32 and f64", check_class),
    ("generics: T::from(0.5f32) in a generic region has a kernel per instance (MANDATORY runs it)", check_from_literal),
];

/// `T(0.5f)` in a C++ template: core's `From` of a literal both instances convert exactly.
#[omp::directives]
fn halve_from<T: Copy + Add<Output = T> + Mul<Output = T> + From<f32> + From<u8>>(x: &mut [T], y: &[T]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        x[i] = x[i] * T::from(0.5f32) + y[i] * T::from(3u8);
    }
}

fn check_from_literal(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut got = x.clone();
    halve_from(&mut got, &y);
    same("f64", &got, &(0..n).map(|i| x[i] * 0.5 + y[i] * 3.0).collect::<Vec<_>>())?;
    let (x32, y32): (Vec<f32>, Vec<f32>) = (x.iter().map(|&v| v as f32).collect(), y.iter().map(|&v| v as f32).collect());
    let mut got32 = x32.clone();
    halve_from(&mut got32, &y32);
    same("f32", &got32, &(0..n).map(|i| x32[i] * 0.5 + y32[i] * 3.0).collect::<Vec<_>>())
}

/// BabelStream's `OMPStream<T>`: the arrays and the scalar are members of a generic class, each kernel a method.
pub struct Stream<T> {
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    scalar: T,
}

#[omp::directives]
impl<T: Copy + Add<Output = T> + Mul<Output = T> + Default> Stream<T> {
    fn triad(&mut self) {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..self.a.len() {
            self.a[i] = self.b[i] + self.scalar * self.c[i];
        }
    }

    fn dot(&self) -> T {
        let mut sum: T = T::default();
        #[omp::target_teams_distribute_parallel_for(reduction(+: sum))]
        for i in 0..self.a.len() {
            sum = sum + self.a[i] * self.b[i];
        }
        sum
    }
}

fn check_class(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let b: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let c: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let mut s = Stream { a: vec![0.0; n], b: b.clone(), c: c.clone(), scalar: 0.4 };
    s.triad();
    let want: Vec<f64> = (0..n).map(|i| b[i] + 0.4 * c[i]).collect();
    same("f64 a", &s.a, &want)?;
    // Any summation order is within (n - 1)·eps·Σ|terms| of another: the terms' absolute sum is the scale.
    let abs_sum: f64 = (0..n).map(|i| (want[i] * b[i]).abs()).sum();
    close("f64 dot", s.dot(), (0..n).map(|i| want[i] * b[i]).sum(), n, abs_sum.max(1.0))?;
    let mut s32 =
        Stream { a: vec![0.0f32; n], b: b.iter().map(|&x| x as f32).collect(), c: c.iter().map(|&x| x as f32).collect(), scalar: 0.4f32 };
    s32.triad();
    let want32: Vec<f32> = (0..n).map(|i| s32.b[i] + 0.4f32 * s32.c[i]).collect();
    same("f32 a", &s32.a, &want32)
}

#[omp::directives]
fn triad<T: Copy + Add<Output = T> + Mul<Output = T>>(a: &mut [T], b: &[T], c: &[T], scalar: T) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..a.len() {
        a[i] = b[i] + scalar * c[i];
    }
}

#[omp::directives]
fn dot<T: Copy + Add<Output = T> + Mul<Output = T> + Default>(a: &[T], b: &[T]) -> T {
    let mut sum: T = T::default();
    #[omp::target_teams_distribute_parallel_for(reduction(+: sum))]
    for i in 0..a.len() {
        sum = sum + a[i] * b[i];
    }
    sum
}

fn check_triad(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let (b, c): (Vec<f64>, Vec<f64>) =
        ((0..n).map(|_| rng.gen_range(-1.0..1.0)).collect(), (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect());
    let s = rng.gen_range(-2.0..2.0);
    let mut a = vec![0.0; n];
    triad(&mut a, &b, &c, s);
    same("f64", &a, &(0..n).map(|i| b[i] + s * c[i]).collect::<Vec<_>>())?;
    let (b32, c32): (Vec<f32>, Vec<f32>) = (b.iter().map(|&x| x as f32).collect(), c.iter().map(|&x| x as f32).collect());
    let mut a32 = vec![0.0f32; n];
    triad(&mut a32, &b32, &c32, s as f32);
    same("f32", &a32, &(0..n).map(|i| b32[i] + s as f32 * c32[i]).collect::<Vec<_>>())?;
    let (bi, ci): (Vec<i64>, Vec<i64>) = ((0..n as i64).collect(), (0..n as i64).map(|x| 3 - x).collect());
    let mut ai = vec![0i64; n];
    // No `i64` instance: the region runs on the host, which OMP_TARGET_OFFLOAD=MANDATORY forbids (a panic that says so).
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| triad(&mut ai, &bi, &ci, 7)));
    let mandatory = std::env::var("OMP_TARGET_OFFLOAD").is_ok_and(|v| v.eq_ignore_ascii_case("mandatory"));
    match (ran, mandatory) {
        (Ok(()), false) => same("i64", &ai, &(0..n).map(|i| bi[i] + 7 * ci[i]).collect::<Vec<_>>()),
        (Err(_), true) => Ok(()),
        (Ok(()), true) => Err("triad::<i64> has no device instance but did not refuse to run on the host under MANDATORY".into()),
        (Err(_), false) => Err("triad::<i64> panicked on the host".into()),
    }
}

fn check_dot(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let a: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let b: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let want: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    close("f64", dot(&a, &b), want, n, 1.0)?;
    let (a32, b32): (Vec<f32>, Vec<f32>) = (a.iter().map(|&x| x as f32).collect(), b.iter().map(|&x| x as f32).collect());
    let want32: f32 = a32.iter().zip(&b32).map(|(x, y)| x * y).sum();
    let got32 = dot(&a32, &b32);
    let bound = n as f32 * f32::EPSILON * 4.0;
    if (got32 - want32).abs() > bound {
        return Err(format!("f32 = {got32}, sequential {want32}"));
    }
    Ok(())
}
