//! page-rank (HeCBench `src/page-rank-omp/main.cpp`, with the host reference `src/page-rank-cuda/reference.h` that the
//! Makefile includes; commit f27000a51; originally from the Ostrich benchmark suite, Lavoie, Khan, Kathrotia,
//! Foley-Bourgon, Hendren). `random_pages` builds an `n × n` link matrix with glibc's `rand()` (a link `i → j` when
//! `abs(rand()) % divisor == 0`, at least one out-link per page); the ranks start at `1/n`. Inside one `target data
//! map(to: pages, page_ranks, noutlinks, diffs) map(alloc: maps)` each iteration runs two `target teams distribute
//! parallel for thread_limit(block_size)` kernels (the map: `maps[i][j] = pages[i][j] * rank[i] / noutlinks[i]`; the
//! reduce: each page's new rank from its column of `maps`, `diffs[j] = max(|new - old|, diffs[j])`), times them, then
//! `target update from(diffs)` and `max_diff = maximum_dif(diffs)` on the host, until `iter` iterations or `max_diff <
//! thresh`. Then the host reference (`map_ref`, `reduce_ref`, `#pragma omp parallel for` loops) runs from the initial
//! ranks (the device's ranks are never copied back) and PASS means `fabsf(max_diff - max_diff_ref) < 1e-3f`.
//!
//!     page_rank [-n pages] [-i max iterations] [-t threshold] [-q divisor]     (defaults 1000 1000 1e-16 2;
//!                                                                                the Makefile runs -n 20000 -i 100)
//!
//! `kernel time:` is the original's `Total kernel execution time` (the two kernels of every iteration).
//!
//! What changed, and why:
//! - The data region is `omp::target_enter_data!(map(to: pages, page_ranks, noutlinks, diffs), map(alloc: maps))` …
//!   `omp::target_exit_data!(map(release: …))` instead of a `#[omp::target_data]` block. Written as a block with the
//!   original's maps, omp-rs refuses it twice: the reduce kernel writes `page_ranks`, which is mapped `to`: "error:
//!   `page_ranks` is mapped `to:` (copied to the device, never back), but this block writes it: the writes would be
//!   lost on a GPU and kept on the host. Map it `tofrom:` to keep them, copy them back with `omp::target_update!(from:
//!   page_ranks)`, or map it `alloc:` if it is scratch space whose contents after the block do not matter" (`diffs`,
//!   also mapped `to` and written, passes: the block's `target update from(diffs)` copies it back); and the loop
//!   condition reads `diffs` on the host after that `target update from(diffs)` inside the region: "error[E0277]:
//!   `MappedMut<'_, '_, f32>` is mapped to the device by an enclosing `#[omp::target_data]` (or a pending `nowait`
//!   region before the next `omp::taskwait!()`): host code there cannot access its elements". The original relies on
//!   both: the device ranks are never copied back, so the host reference starts from the initial ranks. Enter/exit data
//!   keeps the original's host view and transfers but one: omp-rs's `map(alloc: maps)` copies the host's `maps` in
//!   (omp-rs starts `alloc` mappings as a copy of the host data, by design): `n² × 4` bytes, 1.6 GB at `-n 20000`, once
//!   before the loop (outside the timed kernels).
//! - On the CPU path (no device) the target regions work on the host arrays themselves, so the device loop leaves its
//!   ranks in `page_ranks` and the reference starts from them, as the original does under a host fallback (GCC
//!   `-fopenmp` without offload): at `-n 256 -i 20` both print `max_diff_ref = 0` there, and `max_diff` equal to the
//!   device run's. Through the host plugin (and on a GPU) the reference starts from the initial ranks and gives the
//!   same value as the device loop. Either way the original's check (`< 1e-3`) passes.
//! - `rand()` is glibc's generator (`TYPE_3`), written out below, so the link matrix is the original's on this machine;
//!   `pages` starts zeroed (the original `malloc`s it and sets only the links, relying on fresh pages being zero).
//! - `getopt_long`'s `-n N` / `-nN` forms are parsed by hand.
//!
//! panel-args: -n 256 -i 20
//! device-args: -n 20000 -i 100
//! cpu-args: -n 5000 -i 10

#![allow(clippy::needless_range_loop)] // the original's loops, as written

use omp_ports::GlibcRand;
use std::time::Instant;

const D_FACTOR: f32 = 0.85;
/// `BLOCK_SIZE`: the kernels' `thread_limit` (or `n` when smaller).
const BLOCK_SIZE: usize = 256;
// default values
const MAX_ITER: i32 = 1000;
const THRESHOLD: f32 = 1e-16;

/// `random_pages`: the link matrix (`pages[i * n + j] == 1`: a link from page `i` to page `j`) and the out-link
/// counts.
fn random_pages(rng: &mut GlibcRand, n: usize, noutlinks: &mut [u32], divisor: i32) -> Vec<i32> {
    let mut pages = vec![0i32; n * n]; // matrix 1 means link from j->i
    if divisor <= 0 {
        eprintln!("ERROR: Invalid divisor '{divisor}' for random initialization, divisor should be greater or equal to 1");
        std::process::exit(1);
    }
    for i in 0..n {
        noutlinks[i] = 0;
        for j in 0..n {
            if i != j && rng.rand().abs() % divisor == 0 {
                pages[i * n + j] = 1;
                noutlinks[i] += 1;
            }
        }
        // the case with no outlinks is avoided
        if noutlinks[i] == 0 {
            let mut k;
            loop {
                k = rng.rand().unsigned_abs() as usize % n;
                if k != i {
                    break;
                }
            }
            pages[i * n + k] = 1;
            noutlinks[i] = 1;
        }
    }
    pages
}

fn maximum_dif(difs: &[f32], n: usize) -> f32 {
    let mut max = 0.0f32;
    for i in 0..n {
        max = if difs[i] > max { difs[i] } else { max };
    }
    max
}

/// The first kernel: each page's rank shared over its out-links.
#[omp::directives]
fn map_kernel(pages: &[i32], page_ranks: &[f32], maps: &mut [f32], noutlinks: &[u32], n: usize, block_size: usize) {
    #[omp::target_teams_distribute_parallel_for(thread_limit(block_size))]
    for i in 0..n {
        let outbound_rank = page_ranks[i] / noutlinks[i] as f32;
        for j in 0..n {
            maps[i * n + j] = pages[i * n + j] as f32 * outbound_rank;
        }
    }
}

/// The second kernel: each page's new rank from its column of `maps`, and its largest change so far.
#[omp::directives]
fn reduce_kernel(page_ranks: &mut [f32], maps: &[f32], n: usize, diffs: &mut [f32], block_size: usize) {
    #[omp::target_teams_distribute_parallel_for(thread_limit(block_size))]
    for j in 0..n {
        let old_rank = page_ranks[j];
        let mut new_rank = 0.0f32;
        for i in 0..n {
            new_rank += maps[i * n + j];
        }
        new_rank = ((1.0f32 - D_FACTOR) / n as f32) + (D_FACTOR * new_rank);
        diffs[j] = (new_rank - old_rank).abs().max(diffs[j]);
        page_ranks[j] = new_rank;
    }
}

/// `map_ref` (reference.h), a host `parallel for`.
#[omp::directives]
fn map_ref(pages: &[i32], page_ranks: &[f32], maps: &mut [f32], noutlinks: &[u32], n: usize) {
    #[omp::parallel_for]
    for i in 0..n {
        let outbound_rank = page_ranks[i] / noutlinks[i] as f32;
        for j in 0..n {
            maps[i * n + j] = pages[i * n + j] as f32 * outbound_rank;
        }
    }
}

/// `reduce_ref`, a host `parallel for`.
#[omp::directives]
fn reduce_ref(page_ranks: &mut [f32], maps: &[f32], n: usize, dif: &mut [f32]) {
    #[omp::parallel_for]
    for j in 0..n {
        let old_rank = page_ranks[j];
        let mut new_rank = 0.0f32;
        for i in 0..n {
            new_rank += maps[i * n + j];
        }
        new_rank = ((1.0f32 - D_FACTOR) / n as f32) + (D_FACTOR * new_rank);
        dif[j] = (new_rank - old_rank).abs().max(dif[j]);
        page_ranks[j] = new_rank;
    }
}

fn usage() -> ! {
    let name = std::env::args().next().unwrap_or_default();
    eprintln!("Usage: {name} [-n number of pages] [-i max iterations] [-t threshold] [-q divsor for zero density]");
    std::process::exit(1)
}

/// The options `getopt_long(argc, argv, "::n:i:t:q:", ...)` accepts: `-n 20000` or `-n20000`.
fn options() -> (usize, i32, f32, i32) {
    let (mut n, mut iter, mut thresh, mut divisor) = (1000usize, MAX_ITER, THRESHOLD, 2i32);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut k = 0;
    while k < args.len() {
        let a = &args[k];
        let (flag, inline) = match a.strip_prefix('-') {
            Some(rest) if !rest.is_empty() => (rest.chars().next().unwrap_or(' '), &rest[1..]),
            _ => usage(),
        };
        let value = if inline.is_empty() {
            k += 1;
            args.get(k).cloned().unwrap_or_else(|| usage())
        } else {
            inline.to_string()
        };
        // atoi/atof: a number that does not parse is 0, as in C.
        match flag {
            'n' => n = value.parse().unwrap_or(0),
            'i' => iter = value.parse().unwrap_or(0),
            't' => thresh = value.parse().unwrap_or(0.0),
            'q' => divisor = value.parse().unwrap_or(0),
            _ => usage(),
        }
        k += 1;
    }
    (n, iter, thresh, divisor)
}

#[omp::directives]
fn main() {
    let (n, iter, thresh, divisor) = options();
    let mut rng = GlibcRand::new(1); // the original never calls srand
    let mut noutlinks: Vec<u32> = vec![0; n];
    let mut max_diff: f32 = 99.0;
    let mut max_diff_ref: f32 = 99.0;
    let pages: Vec<i32> = random_pages(&mut rng, n, &mut noutlinks, divisor);
    let mut page_ranks: Vec<f32> = vec![1.0 / n as f32; n];
    let mut maps: Vec<f32> = vec![0.0; n * n];
    let mut diffs: Vec<f32> = vec![0.0; n];
    let block_size = if n < BLOCK_SIZE { n } else { BLOCK_SIZE };
    let mut ktime = 0.0f64;

    // #pragma omp target data map(to: pages[0:n*n], page_ranks[0:n], noutlinks[0:n], diffs[0:n])
    //                         map(alloc: maps[0:n*n])
    omp::target_enter_data!(map(to: pages, page_ranks, noutlinks, diffs), map(alloc: maps));
    let mut t = 1;
    while t <= iter && max_diff >= thresh {
        let start = Instant::now();
        map_kernel(&pages, &page_ranks, &mut maps, &noutlinks, n, block_size);
        reduce_kernel(&mut page_ranks, &maps, n, &mut diffs, block_size);
        ktime += omp_ports::seconds_since(start);
        omp::target_update!(from: diffs);
        max_diff = maximum_dif(&diffs, n);
        t += 1;
    }
    eprintln!("Max difference {max_diff:.6} is reached at iteration {t}");
    println!("\"Options\": \"-n {n} -i {iter} -t {thresh:.6}\". Total kernel execution time: {ktime:.6} (s)");
    omp::target_exit_data!(map(release: pages, page_ranks, noutlinks, diffs, maps));

    diffs.fill(0.0);
    let mut t = 1;
    while t <= iter && max_diff_ref >= thresh {
        map_ref(&pages, &page_ranks, &mut maps, &noutlinks, n);
        reduce_ref(&mut page_ranks, &maps, n, &mut diffs);
        max_diff_ref = maximum_dif(&diffs, n);
        t += 1;
    }
    let ok = (max_diff - max_diff_ref).abs() < 1e-3;
    omp_ports::kernel_time(ktime);
    omp_ports::verdict(ok);
}
