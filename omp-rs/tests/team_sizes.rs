//! A program that sweeps `num_threads` (issue 12, item 6): every region still runs with the team size it asked for
//! and computes what the sequential loop computes, and the process's threads stay bounded (8 team sizes are kept;
//! further sizes get a pool for their region only). Alone in its test binary, so the thread count is this test's.

#[omp::directives]
fn fill(nt: usize, out: &mut [usize], sizes: &mut [usize]) {
    #[omp::parallel_for(num_threads(nt))]
    for i in 0..out.len() {
        out[i] = i * 3 + 1;
    }
    let mut seen: usize = 0;
    #[omp::parallel_for(num_threads(nt), reduction(max: seen))]
    for _i in 0..64 {
        seen = seen.max(omp::get_num_threads() as usize);
    }
    sizes[0] = seen;
}

fn threads_of_process() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status.lines().find_map(|l| l.strip_prefix("Threads:")).and_then(|v| v.trim().parse().ok()).expect("Threads: line")
}

#[test]
fn sweeping_num_threads_keeps_threads_bounded() {
    let before = threads_of_process();
    let want: Vec<usize> = (0..1000).map(|i| i * 3 + 1).collect();
    // 16 distinct sizes of 30..45 threads: kept for the process, they would add about 580 threads.
    for round in 0..2 {
        for nt in 30..46 {
            let (mut out, mut sizes) = (vec![0; 1000], vec![0; 1]);
            fill(nt, &mut out, &mut sizes);
            assert_eq!(out, want, "num_threads({nt}), round {round}");
            assert_eq!(sizes[0], nt, "the region's team has the size it asked for");
        }
    }
    let added = threads_of_process() - before;
    // 8 kept sizes of at most 44 workers each (the first eight: 29 + … + 36 = 260 threads).
    assert!(added <= 8 * 45, "{added} threads added by 16 team sizes");
}
