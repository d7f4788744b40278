//! The bandwidth ceiling measured in the same run: a parallel copy far larger than the caches.

use rayon::prelude::*;
use std::time::Instant;

/// Elements per array of the copy (2 x 128 MiB): well beyond any L3 of the machines we use.
pub const COPY_ELEMS: usize = 1 << 24;
/// Timed copies; the best is reported (STREAM's convention).
const TRIALS: usize = 8;

/// Best copy bandwidth in GB/s (read + write counted, no write-allocate), with a label.
pub fn measure_cpu_copy() -> (f64, String) {
    let src = vec![1.0_f64; COPY_ELEMS];
    let mut dst = vec![0.0_f64; COPY_ELEMS];
    let chunk = COPY_ELEMS.div_ceil(4 * rayon::current_num_threads());
    let mut best = f64::MAX;
    for _ in 0..TRIALS {
        let t0 = Instant::now();
        dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk)).for_each(|(d, s)| d.copy_from_slice(s));
        best = best.min(t0.elapsed().as_secs_f64());
    }
    assert_eq!(dst[COPY_ELEMS - 1], 1.0);
    let bytes = 2.0 * 8.0 * COPY_ELEMS as f64;
    let label =
        format!("cpu copy kernel (rayon, {} threads, 2x{} MiB, best of {TRIALS})", rayon::current_num_threads(), (COPY_ELEMS * 8) >> 20);
    (bytes / best / 1e9, label)
}
