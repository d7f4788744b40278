//! bsearch: four binary searches of `2 * n` keys in a sorted array of `n` floats, each timed over `repeat` regions
//! inside one data region (HeCBench `src/bsearch-omp/main.cpp`, commit f27000a51), ported as written. The fourth,
//! `bs4`, is an SPMD region: thread 0 of each team computes the search's first step into a team-local variable
//! (`size_t k;` in the `target teams` block), the team reads it after a barrier.
//!
//! The original: `a[i] = i` (`float`), `z[i] = rand() % (n - 1)` after `srand(2)`, `target data map(to: a, z)
//! map(from: r)` around the calls `bs`, `bs2`, `bs3`, `bs4`, each printing `Average device execution time (bsK)`;
//! with `-DDEBUG` it updates `r` from the device after each and verifies `a[r[i]] <= z[i] < a[r[i] + 1]`.
//!
//! What changed, and why:
//! - The verification always runs (the port checks itself), after each search's timer, through
//!   `omp::target_update!(from: r)` and the token's host view, as the original's `DEBUG` build does; it prints
//!   `PASS` or `FAIL` once for the four.
//! - Each search is a function taking the block's tokens (`&MappedRef` / `&mut MappedMut`), as the C functions take
//!   the mapped pointers; `size_t k;` is `let mut k: usize = 0;`; `zSize / 256` teams as written (the keys are
//!   `2 * n`, a multiple of 256 at the run lines).
//! - `kernel time:` is the sum of the four averages.
//!
//! panel-args: 65536 2
//! device-args: 8388608 100
//! cpu-args: 1048576 2

use std::time::Instant;

/// `Real_t`.
type Real = f32;

#[omp::directives]
fn bs(
    z_size: usize,
    acc_a: &omp::MappedRef<'_, '_, Real>,
    acc_z: &omp::MappedRef<'_, '_, Real>,
    acc_r: &mut omp::MappedMut<'_, '_, usize>,
    n: usize,
    repeat: usize,
) -> f64 {
    let start = Instant::now();
    for _ in 0..repeat {
        #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
        for i in 0..z_size {
            let z = acc_z[i];
            let mut low = 0usize;
            let mut high = n;
            while high - low > 1 {
                let mid = low + (high - low) / 2;
                if z < acc_a[mid] {
                    high = mid;
                } else {
                    low = mid;
                }
            }
            acc_r[i] = low;
        }
    }
    average("bs1", start, repeat)
}

#[omp::directives]
fn bs2(
    z_size: usize,
    acc_a: &omp::MappedRef<'_, '_, Real>,
    acc_z: &omp::MappedRef<'_, '_, Real>,
    acc_r: &mut omp::MappedMut<'_, '_, usize>,
    n: usize,
    repeat: usize,
) -> f64 {
    let start = Instant::now();
    for _ in 0..repeat {
        #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
        for i in 0..z_size {
            let mut nbits = 0u32;
            while n >> nbits != 0 {
                nbits += 1;
            }
            let mut k = 1usize << (nbits - 1);
            let z = acc_z[i];
            let mut idx = if acc_a[k] <= z { k } else { 0 };
            k >>= 1;
            while k != 0 {
                let r = idx | k;
                if r < n && z >= acc_a[r] {
                    idx = r;
                }
                k >>= 1;
            }
            acc_r[i] = idx;
        }
    }
    average("bs2", start, repeat)
}

#[omp::directives]
fn bs3(
    z_size: usize,
    acc_a: &omp::MappedRef<'_, '_, Real>,
    acc_z: &omp::MappedRef<'_, '_, Real>,
    acc_r: &mut omp::MappedMut<'_, '_, usize>,
    n: usize,
    repeat: usize,
) -> f64 {
    let start = Instant::now();
    for _ in 0..repeat {
        #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
        for i in 0..z_size {
            let mut nbits = 0u32;
            while n >> nbits != 0 {
                nbits += 1;
            }
            let mut k = 1usize << (nbits - 1);
            let z = acc_z[i];
            let mut idx = if acc_a[k] <= z { k } else { 0 };
            k >>= 1;
            while k != 0 {
                let r = idx | k;
                let w = if r < n { r } else { n };
                if z >= acc_a[w] {
                    idx = r;
                }
                k >>= 1;
            }
            acc_r[i] = idx;
        }
    }
    average("bs3", start, repeat)
}

#[omp::directives]
fn bs4(
    z_size: usize,
    acc_a: &omp::MappedRef<'_, '_, Real>,
    acc_z: &omp::MappedRef<'_, '_, Real>,
    acc_r: &mut omp::MappedMut<'_, '_, usize>,
    n: usize,
    repeat: usize,
) -> f64 {
    let start = Instant::now();
    for _ in 0..repeat {
        #[omp::target_teams(num_teams(z_size / 256), thread_limit(256))]
        {
            let mut k: usize = 0;
            #[omp::parallel]
            {
                let lid = omp::get_thread_num();
                let gid = omp::get_team_num() * omp::get_num_threads() + lid;
                if lid == 0 {
                    let mut nbits = 0u32;
                    while n >> nbits != 0 {
                        nbits += 1;
                    }
                    k = 1usize << (nbits - 1);
                }
                omp::barrier!();

                let mut p = k;
                let z = acc_z[gid];
                let mut idx = if acc_a[p] <= z { p } else { 0 };
                p >>= 1;
                while p != 0 {
                    let r = idx | p;
                    let w = if r < n { r } else { n };
                    if z >= acc_a[w] {
                        idx = r;
                    }
                    p >>= 1;
                }
                acc_r[gid] = idx;
            }
        }
    }
    average("bs4", start, repeat)
}

/// Prints and returns one search's average time per region.
fn average(name: &str, start: Instant, repeat: usize) -> f64 {
    let time = omp_ports::seconds_since(start) / repeat as f64;
    println!("Average device execution time ({name}) {time} (s)");
    time
}

/// The original's `verify`: every result brackets its key; the first wrong one is reported.
fn verify(a: &[Real], z: &[Real], r: &[usize], msg: &str) -> bool {
    for i in 0..z.len() {
        if !(r[i] + 1 < a.len() && a[r[i]] <= z[i] && z[i] < a[r[i] + 1]) {
            println!("{msg}: incorrect result:");
            println!("index = {i} r[index] = {}", r[i]);
            return false;
        }
    }
    true
}

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        println!("Usage ./main <number of elements> <repeat>");
        std::process::exit(1);
    }
    let num_elem: usize = omp_ports::arg(1, 0);
    let repeat: usize = omp_ports::arg(2, 1);

    let mut rng = omp_ports::GlibcRand::new(2);
    let a_size = num_elem;
    let z_size = 2 * a_size;
    let n = a_size - 1;

    // strictly ascending
    let a: Vec<Real> = (0..a_size).map(|i| i as Real).collect();
    // lower = 0, upper = n-1
    let z: Vec<Real> = (0..z_size).map(|_| (rng.rand() as usize % n) as Real).collect();
    let mut r = vec![0usize; z_size];

    let mut ok = true;
    let mut total = 0.0;
    #[omp::target_data(map(to: a, z), map(from: r))]
    {
        total += bs(z_size, &a, &z, &mut r, n, repeat);
        omp::target_update!(from: r);
        ok &= verify(a.host(), z.host(), r.host(), "bs1");

        total += bs2(z_size, &a, &z, &mut r, n, repeat);
        omp::target_update!(from: r);
        ok &= verify(a.host(), z.host(), r.host(), "bs2");

        total += bs3(z_size, &a, &z, &mut r, n, repeat);
        omp::target_update!(from: r);
        ok &= verify(a.host(), z.host(), r.host(), "bs3");

        total += bs4(z_size, &a, &z, &mut r, n, repeat);
        omp::target_update!(from: r);
        ok &= verify(a.host(), z.host(), r.host(), "bs4");
    }
    omp_ports::verdict(ok);
    omp_ports::kernel_time(total);
}
