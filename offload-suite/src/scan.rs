//! Scans (`reduction(inscan, op: s)` with `omp::scan!(inclusive(s))` / `exclusive(s)`, `omp_rs_codegen::desugar::scan`) as
//! RAJAPerf's SCAN and INDEXLIST kernels and HeCBench's prefix sums write them, each against the sequential loop.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{same, vec_f64, Check};

/// Every scan check.
pub const CHECKS: &[Check] = &[
    ("scan: RAJAPerf SCAN as written (split target form), an exclusive + scan (f64, bit for bit)", check_exclusive_sum),
    ("scan: an inclusive max scan on the host over an i64 range not starting at 0", check_inclusive_max),
    ("scan: a stream compaction, the exclusive count of earlier hits as each hit's slot", check_compaction),
];

/// RAJAPerf `algorithm/SCAN-OMPTarget.cpp` in its split form (`target` with the data clauses around `teams
/// distribute parallel for`): `y[i] = scan_var; #pragma omp scan exclusive(scan_var); scan_var += x[i];`.
#[omp::directives]
fn exclusive_sum(x: &[f64], y: &mut [f64], start: f64) -> f64 {
    let mut scan_var: f64 = start;
    #[omp::target(map(to: x), map(from: y))]
    {
        #[omp::teams_distribute_parallel_for(thread_limit(256), schedule(static, 1), reduction(inscan, +: scan_var))]
        for i in 0..x.len() {
            y[i] = scan_var;
            omp::scan!(exclusive(scan_var));
            scan_var += x[i];
        }
    }
    scan_var
}

fn check_exclusive_sum(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..50_000);
    let x = vec_f64(rng, n);
    let start: f64 = rng.gen_range(-1.0..1.0);
    let mut y = vec![f64::NAN; n];
    let total = exclusive_sum(&x, &mut y, start);
    let mut want = Vec::with_capacity(n);
    let mut s = start;
    for v in &x {
        want.push(s);
        s += v;
    }
    same("y", &y, &want)?;
    same("the total", &[total], &[s])
}

/// An inclusive running maximum, the loop variable an `i64` from `lo`.
#[omp::directives]
fn running_max(x: &[i64], y: &mut [i64], lo: i64) -> i64 {
    let hi = lo + x.len() as i64;
    let mut m: i64 = i64::MIN;
    #[omp::parallel_for(reduction(inscan, max: m))]
    for i in lo..hi {
        m = m.max(x[(i - lo) as usize]);
        omp::scan!(inclusive(m));
        y[(i - lo) as usize] = m;
    }
    m
}

fn check_inclusive_max(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..20_000);
    let x: Vec<i64> = (0..n).map(|_| rng.gen_range(-1_000_000..1_000_000)).collect();
    let lo: i64 = rng.gen_range(-50..50);
    let mut y = vec![0i64; n];
    let m = running_max(&x, &mut y, lo);
    let want: Vec<i64> = x
        .iter()
        .scan(i64::MIN, |acc, v| {
            *acc = (*acc).max(*v);
            Some(*acc)
        })
        .collect();
    same("y", &y, &want)?;
    same("m", &[m], &[want.last().copied().unwrap_or(i64::MIN)])
}

/// INDEXLIST's compaction in OpenMP's conforming form (each phase tests the element itself): the scan phase writes
/// a hit at the count of the hits before it.
#[omp::directives]
fn compact(x: &[f64], list: &mut [usize]) -> usize {
    let mut count: usize = 0;
    #[omp::target_teams_distribute_parallel_for(reduction(inscan, +: count), unsafe(disjoint(list)))]
    for i in 0..x.len() {
        if x[i] < 0.0 {
            list[count] = i;
        }
        omp::scan!(exclusive(count));
        if x[i] < 0.0 {
            count += 1;
        }
    }
    count
}

fn check_compaction(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..30_000);
    let x = vec_f64(rng, n);
    let mut list = vec![usize::MAX; n];
    let count = compact(&x, &mut list);
    let want: Vec<usize> = (0..n).filter(|i| x[*i] < 0.0).collect();
    same("count", &[count], &[want.len()])?;
    same("list", &list[..count.min(n)], &want)
}
