//! What the ports share: the original programs' small helpers (a wall-clock timer, argument parsing), written once.
//!
//! Every port is `src/bin/<program>.rs`, the OpenMP-offload version of the program (`<program>-omp` in HeCBench)
//! ported as written: the same kernels, data regions, sizes, timers and verification. Its header says where the
//! original is, what had to change to port it (each such change is porting friction omp-rs should remove), and the
//! lines the panels read:
//! - `//! panel-args: ...` the arguments of the small run the tests make (CPU path and libomptarget's host plugin),
//! - `//! device-args: ...` the arguments of the run against the CUDA original on the H200,
//! - `//! cpu-args: ...` the arguments of the run against the OpenMP original built by g++ on the host
//!   (`scripts/cpu-panel.sh`; a port without the line is left out of that panel).
//!
//! A port prints the original's output, `PASS` when its own verification passes (and `FAIL` otherwise, exiting
//! with status 1), and `kernel time: <seconds> s` for the time its original's timer measures.

use std::time::Instant;

/// `omp_get_wtime()`-style seconds since `start`.
pub fn seconds_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// Positional argument `i` (after the program name) parsed as `T`, or `default` when it is absent.
///
/// # Panics
/// When the argument is there but does not parse (the originals exit with a usage message).
pub fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    match std::env::args().nth(i) {
        Some(a) => a.parse().unwrap_or_else(|_| panic!("argument {i} ({a}) is not valid")),
        None => default,
    }
}

/// Prints `PASS` or `FAIL` as the originals do and exits with status 1 on failure.
pub fn verdict(ok: bool) {
    println!("{}", if ok { "PASS" } else { "FAIL" });
    if !ok {
        std::process::exit(1);
    }
}

/// Prints the time of the region the original times, in the panel's format.
pub fn kernel_time(seconds: f64) {
    println!("kernel time: {seconds:.6} s");
}

/// glibc's `srand`/`rand` (the `TYPE_3` additive feedback generator `random_r` uses by default), so that a port's
/// random inputs are its original's on Linux (`GlibcRand::new(seed)` is `srand(seed)`; unseeded C is `new(1)`).
pub struct GlibcRand {
    r: [u32; 34],
    k: usize,
}

impl GlibcRand {
    pub fn new(seed: u32) -> GlibcRand {
        let mut s = [0i32; 344];
        s[0] = if seed == 0 { 1 } else { seed as i32 };
        for i in 1..31 {
            // (16807 * s) % 2147483647 by Schrage's method, as glibc computes it.
            let (hi, lo) = (s[i - 1] / 127773, s[i - 1] % 127773);
            let mut w = 16807 * lo - 2836 * hi;
            if w < 0 {
                w += 2147483647;
            }
            s[i] = w;
        }
        let mut r = [0u32; 344];
        for i in 0..31 {
            r[i] = s[i] as u32;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        for i in 34..344 {
            r[i] = r[i - 31].wrapping_add(r[i - 3]);
        }
        let mut ring = [0u32; 34];
        ring.copy_from_slice(&r[310..344]);
        GlibcRand { r: ring, k: 0 }
    }

    /// The next `rand()`, in `0..=RAND_MAX`.
    pub fn rand(&mut self) -> i32 {
        // r[n] = r[n - 31] + r[n - 3] over a ring of the last 34 values.
        let n = self.k;
        let v = self.r[(n + 34 - 31) % 34].wrapping_add(self.r[(n + 34 - 3) % 34]);
        self.r[n] = v;
        self.k = (n + 1) % 34;
        (v >> 1) as i32
    }
}

/// libstdc++'s `std::default_random_engine` (`minstd_rand0`) and the draws of its `uniform_int_distribution` and
/// `uniform_real_distribution<float>`, so that a port's random inputs are its original's (`Minstd::new(123)` is
/// `std::default_random_engine g(123)`).
pub struct Minstd(u64);

impl Minstd {
    pub fn new(seed: u64) -> Minstd {
        Minstd(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0 * 16807 % 2147483647;
        self.0
    }

    /// `uniform_int_distribution(lo, hi)`: a value in `lo..=hi` by libstdc++'s down-scaling (the engine's range
    /// `1..=2^31 - 2` cut into equal parts).
    pub fn uniform_int(&mut self, lo: u64, hi: u64) -> u64 {
        let (urng_range, range) = (2147483646 - 1, hi - lo);
        let scaling = urng_range / (range + 1);
        let past = (range + 1) * scaling;
        loop {
            let r = self.next() - 1;
            if r < past {
                return r / scaling + lo;
            }
        }
    }

    /// `uniform_real_distribution<float>(a, b)`: `generate_canonical<float, 24>` (one draw over the range
    /// `2^31 - 2`), then `c * (b - a) + a`.
    pub fn uniform_f32(&mut self, a: f32, b: f32) -> f32 {
        let mut c = (self.next() - 1) as f32 / 2147483646.0f64 as f32;
        if c >= 1.0 {
            c = 1.0 - f32::EPSILON / 2.0; // the largest f32 below 1 (`next_down`, Rust 1.86)
        }
        c * (b - a) + a
    }
}

/// `v` as `std::cout << v` prints a floating-point value (`%g`: 6 significant digits, trailing zeros dropped).
pub fn g6(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let exp = v.abs().log10().floor() as i32;
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if (-5..6).contains(&exp) {
        trim(format!("{:.*}", (5 - exp).max(0) as usize, v))
    } else {
        let s = format!("{v:.5e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        format!("{}e{}{:02}", trim(m.to_string()), if e < 0 { '-' } else { '+' }, e.abs())
    }
}
