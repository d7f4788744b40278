//! Mandelbrot (Intel's oneAPI sample as HeCBench has it), ported from HeCBench `src/mandelbrot-omp/` (`main.cpp`,
//! `mandel.hpp`, `util.hpp`; commit f27000a51) as written: `<repeat>`; a 1080 x 1920 image, at most 100
//! iterations per point. `MandelParallel::Evaluate` opens `target data map(from: b[0:image_size]) map(to: p)` and
//! times one `target teams distribute parallel for simd collapse(2) thread_limit(16*16)` over the rows and columns,
//! each point computed by `MandelParameters::Point` on `ScaleRow(i)`, `ScaleCol(j)`; `Execute` runs it once to
//! warm up, then `repeat` times (timed: wall clock around the loop, and the sum of the kernel times), prints the
//! image when it is small, runs `MandelSerial`, and `Verify` fails when more than 5 % of the points differ.
//!
//!     cargo run --release -p omp-ports --bin mandelbrot -- REPEAT [ROWS COLS]
//!
//! Output as the original's (`std::setw(20)` labels, `std::cout`'s 6 significant digits); `PASS` when `Verify`
//! passes (the original prints `Success`, or `Failure` and terminates), `kernel time:` the sum of the `repeat` timed
//! kernels (the original prints their average, kept).
//!
//! What had to change:
//! - Optional `ROWS COLS` (the original's `row_size`/`col_size` are `constexpr` 1080 and 1920): the panel run needs a
//!   small image. Without them the size is the original's.
//! - `MandelParameters::ScaleRow`, `ScaleCol` and `Point` are free functions taking the parameters (`point(&p,
//!   &c)`), not methods: with the methods as written (`p.point(&ComplexF { real: p.scale_row(i), imag:
//!   p.scale_col(j) })` in the region, `MandelParameters` a `#[omp::declare_target]` struct) the host side compiles
//!   but the build script's device compile fails (the build panics at `omp-rs-build/src/builder.rs:114`, printing the
//!   rustc command) with "error[E0599]: no method named `point` found for struct `MandelParameters` in the current
//!   scope" (and the same for `scale_row`, `scale_col`): the device crate gets the struct but not its `impl` (the
//!   outliner skips methods with a receiver). The accessors (`row_count()` ...) stay methods: only the host calls
//!   them.
//! - `map(to: p)` is left out of the data region: `p` (a `MandelParameters` by value) goes to the kernel as a
//!   by-value argument, which is what the original's `map(to: p)` of a small struct does. Written
//!   `#[omp::target_data(map(from: b), map(to: p))]`, omp-rs takes `p` for an array: "error[E0277]: omp-rs cannot
//!   index `MandelParameters` as a plain slice" (label "not a slice, array, `Vec` or boxed slice"), "error[E0277]:
//!   `&mut MappedRef<'_, '_, MandelParameters>` cannot be copied to the device", and in the kernel "expected
//!   `&MandelParameters`, found `&&[MandelParameters]`".
//! - `let p: MandelParameters = ...; let cols: i32 = ...;` are annotated: without the types, "error: the device
//!   kernel of this target region needs the type of `p`, which its declaration does not show: annotate it (e.g. `let
//!   p: f64 = ...`, ...)" (and the same for `cols`), although `p = self.get_parameters()` and `cols = p.col_count()`
//!   have declared return types.
//! - `Mandel` with its `MandelSerial` and `MandelParallel` subclasses is one struct holding the image with both
//!   `evaluate` methods (no inheritance in Rust); the region writes `b`, a `&mut [i32]` bound to `self.data_` before
//!   the data region (the original's `auto b = data();`). `SetValue(int, int, float v)` stores `(int) v` of an `int`
//!   count, kept as the cast round trip. `Verify`'s failure (a `throw` caught in `main`, which prints `Failure` and
//!   calls `std::terminate`) prints the same lines and then `FAIL`.
//!
//! panel-args: 2 216 384
//! device-args: 1000
//! cpu-args: 4

use omp_ports::g6;
use std::time::Instant;

const ROW_SIZE: i32 = 1080;
const COL_SIZE: i32 = 1920;
const MAX_ITERATIONS: i32 = 100;

const THREADS_PER_BLOCK_X: i32 = 16;
const THREADS_PER_BLOCK_Y: i32 = 16;

/// define a type of floating-point complex number
#[omp::declare_target]
#[derive(Clone, Copy)]
struct ComplexF {
    real: f32,
    imag: f32,
}

/// `MandelParameters`.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct MandelParameters {
    row_count_: i32,
    col_count_: i32,
    max_iterations_: i32,
}

impl MandelParameters {
    fn new(row_count: i32, col_count: i32, max_iterations: i32) -> Self {
        MandelParameters { row_count_: row_count, col_count_: col_count, max_iterations_: max_iterations }
    }

    fn row_count(&self) -> i32 {
        self.row_count_
    }

    fn col_count(&self) -> i32 {
        self.col_count_
    }

    fn max_iterations(&self) -> i32 {
        self.max_iterations_
    }
}

// `MandelParameters::ScaleRow`, `ScaleCol` and `Point`, free functions taking the parameters (see the header).

/// scale from 0..row_count to -1.5..0.5
fn scale_row(p: &MandelParameters, i: i32) -> f32 {
    -1.5f32 + (i as f32 * (2.0f32 / p.row_count_ as f32))
}

/// scale from 0..col_count to -1..1
fn scale_col(p: &MandelParameters, i: i32) -> f32 {
    -1.0f32 + (i as f32 * (2.0f32 / p.col_count_ as f32))
}

/// mandelbrot set are points that do not diverge within max_iterations
fn point(p: &MandelParameters, c: &ComplexF) -> i32 {
    let mut count = 0;
    let mut z = ComplexF { real: 0.0, imag: 0.0 };
    for _ in 0..p.max_iterations_ {
        let r = z.real;
        let im = z.imag;
        // leave loop if diverging
        if ((r * r) + (im * im)) >= 4.0f32 {
            break;
        }
        //z = z * z + c;
        z.real = r * r - im * im + c.real;
        z.imag = 2.0 * r * im + c.imag;

        count += 1;
    }
    count
}

/// `Mandel` (with the `Evaluate` of `MandelSerial` and of `MandelParallel`).
struct Mandel {
    p_: MandelParameters,
    data_: Vec<i32>, // [p_.row_count_][p_.col_count_]
}

impl Mandel {
    fn new(row_count: i32, col_count: i32, max_iterations: i32) -> Self {
        let p_ = MandelParameters::new(row_count, col_count, max_iterations);
        Mandel { p_, data_: vec![0; (p_.row_count() * p_.col_count()) as usize] }
    }

    fn get_parameters(&self) -> MandelParameters {
        self.p_
    }

    /// use only for debugging with small dimensions
    fn print(&self) {
        if self.p_.row_count() > 128 || self.p_.col_count() > 128 {
            println!("No Print() output due to size too large");
            return;
        }
        for i in 0..self.p_.row_count() {
            let line: String =
                (0..self.p_.col_count_).map(|j| if self.get_value(i, j) >= self.p_.max_iterations() { 'x' } else { ' ' }).collect();
            println!("{line}");
        }
    }

    /// accessors to store a value into the mandelbrot data matrix
    fn set_value(&mut self, i: i32, j: i32, v: f32) {
        self.data_[(i * self.p_.col_count_ + j) as usize] = v as i32;
    }

    /// accessors to read a value into the mandelbrot data matrix
    fn get_value(&self, i: i32, j: i32) -> i32 {
        self.data_[(i * self.p_.col_count_ + j) as usize]
    }

    /// validate the results match
    fn verify(&self, m: &Mandel) -> bool {
        if (m.p_.row_count() != self.p_.row_count_) || (m.p_.col_count() != self.p_.col_count_) {
            println!("Fail verification - matrix size is different");
            return false;
        }

        let mut diff = 0;
        for i in 0..self.p_.row_count() {
            for j in 0..self.p_.col_count() {
                if m.get_value(i, j) != self.get_value(i, j) {
                    diff += 1;
                }
            }
        }

        let tolerance = 0.05;
        let ratio = diff as f64 / (self.p_.row_count() * self.p_.col_count()) as f64;

        if ratio > tolerance {
            println!("Fail verification - diff larger than tolerance");
            return false;
        }
        true
    }

    /// `MandelSerial::Evaluate`: iterate over image and compute mandel for each point
    fn evaluate_serial(&mut self) {
        let p = self.get_parameters();

        for i in 0..p.row_count() {
            for j in 0..p.col_count() {
                let c = ComplexF { real: scale_row(&p, i), imag: scale_col(&p, j) };
                self.set_value(i, j, point(&p, &c) as f32);
            }
        }
    }

    /// `MandelParallel::Evaluate`: iterate over image and check if each point is in mandelbrot set; returns the
    /// kernel's seconds.
    #[omp::directives]
    fn evaluate_parallel(&mut self) -> f64 {
        let p: MandelParameters = self.get_parameters();

        let rows: i32 = p.row_count();
        let cols: i32 = p.col_count();

        let b: &mut [i32] = &mut self.data_;
        let kernel_time: f64;

        #[omp::target_data(map(from: b))]
        {
            let t_ker = Instant::now();

            #[omp::target_teams_distribute_parallel_for_simd(collapse(2), thread_limit(THREADS_PER_BLOCK_X * THREADS_PER_BLOCK_Y))]
            for i in 0..rows {
                for j in 0..cols {
                    b[(i * cols + j) as usize] = point(&p, &ComplexF { real: scale_row(&p, i), imag: scale_col(&p, j) });
                }
            }

            kernel_time = t_ker.elapsed().as_secs_f64();
        }

        kernel_time
    }
}

/// `Execute`: demonstrate the Mandelbrot calculation serial and parallel; returns the verification and the summed
/// kernel time.
fn execute(repetitions: i32, row_size: i32, col_size: i32) -> (bool, f64) {
    let mut m_par = Mandel::new(row_size, col_size, MAX_ITERATIONS);
    let mut m_ser = Mandel::new(row_size, col_size, MAX_ITERATIONS);

    // Run the code once to trigger JIT
    m_par.evaluate_parallel();

    let mut kernel_time = 0.0;

    // Run and time the parallel version
    let t_par = Instant::now();

    for _ in 0..repetitions {
        kernel_time += m_par.evaluate_parallel();
    }

    let parallel_time = t_par.elapsed().as_secs_f64();

    // Print the results
    m_par.print();

    // Run the serial version
    let t_ser = Instant::now();
    m_ser.evaluate_serial();
    let serial_time = t_ser.elapsed().as_secs_f64();

    // Report the results
    println!("{:>20}{}s", "serial time: ", g6(serial_time));
    println!("{:>20}{} ms", "Average parallel time: ", g6(parallel_time / repetitions as f64 * 1e3));
    println!("{:>20}{} ms", "Average kernel execution time: ", g6(kernel_time / repetitions as f64 * 1e3));

    // Validating
    (m_par.verify(&m_ser), kernel_time)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 && args.len() != 4 {
        // Utility function to display argument usage
        println!(" Incorrect parameters");
        println!(" Usage: {} <repeat> [rows cols]\n", args[0]);
        std::process::exit(255);
    }

    let repetitions: i32 = args[1].parse().unwrap_or(0);
    let (row_size, col_size): (i32, i32) = (omp_ports::arg(2, ROW_SIZE), omp_ports::arg(3, COL_SIZE));
    let (ok, kernel_time) = execute(repetitions, row_size, col_size);
    println!("{}", if ok { "Success" } else { "Failure" });
    omp_ports::kernel_time(kernel_time);
    omp_ports::verdict(ok);
}
