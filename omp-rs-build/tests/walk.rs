//! The device kernels' iteration walk (`omp_device::launch::Walk`), compiled for the host: every iteration of a
//! nest is located exactly once, by one thread, in the flat and the tiled walk, for the grids the runtime launches;
//! and whatever tiling the kernel is passed, no iteration is located twice (the disjointness checks rely on it).
//! (On the host the file's thread-position functions report one thread; these tests pass positions explicitly.)

#[allow(dead_code, unreachable_pub)]
#[path = "../device/omp_device/src/launch.rs"]
mod launch;
/// What `launch.rs` finds as `crate::abi_shared` in `omp_device` (re-exported from there, so `pub`).
#[allow(unreachable_pub)]
mod abi_shared {
    pub use omp_rs_abi::*;
}

use launch::{Walk, TILE_COLUMNS};

/// The tiling the runtime passes (omp-rs's `launch::tiles`): rows, tiles per row of tiles, tiles.
fn runtime_tiles(outer: u64, inner: u64, rows: u64) -> (u64, u64, u64) {
    if rows == 0 {
        return (0, 0, 0);
    }
    let per_row = inner.div_ceil(TILE_COLUMNS);
    (rows, per_row, outer.div_ceil(rows) * per_row)
}

/// Runs every thread of a `teams × team_size` grid through the kernels' loop (loop-free path when each thread has
/// at most one unit, else grid-stride) and counts how often each iteration is located.
fn coverage(outer: u64, inner: u64, tiles: (u64, u64, u64), teams: u64, team_size: u64) -> Vec<u32> {
    let mut hits = vec![0u32; (outer * inner) as usize];
    for team in 0..teams {
        for lane in 0..team_size {
            let w = Walk::for_team_size(outer, inner, tiles.0, tiles.1, tiles.2, team_size);
            let (mut unit, step) = if w.is_tiled() { (team, teams) } else { (team * team_size + lane, teams * team_size) };
            while unit < w.units() {
                if let Some((o, i)) = w.locate_for_thread(unit, lane) {
                    assert!(o < outer && i < inner, "({o}, {i}) outside {outer} x {inner}");
                    hits[(o * inner + i) as usize] += 1;
                }
                unit += step;
            }
        }
    }
    hits
}

const NESTS: [(u64, u64); 9] = [(1, 1), (7, 33), (8, 32), (9, 31), (64, 100), (100, 64), (3, 1000), (1000, 3), (17, 257)];

#[test]
fn every_iteration_once_flat_and_tiled() {
    for (outer, inner) in NESTS {
        for (rows, team_size) in [(0, 256), (8, 256), (4, 128), (1, 32), (8, 128), (3, 96), (32, 1024)] {
            for teams in [1u64, 3, 64, 10_000] {
                let hits = coverage(outer, inner, runtime_tiles(outer, inner, rows), teams, team_size);
                if let Some(k) = hits.iter().position(|&h| h != 1) {
                    panic!("{outer} x {inner}, rows {rows}, {teams} x {team_size}: iteration {k} located {} times", hits[k]);
                }
            }
        }
    }
}

#[test]
fn no_iteration_twice_whatever_tiling_is_passed() {
    for (outer, inner) in NESTS {
        for tiles in [(8, 1, 5), (8, 100, 3), (8, 2, 1 << 40), (40, 4, 9), (8, u64::MAX, 7), (1 << 33, 1, 1), (8, 0, 9)] {
            for (teams, team_size) in [(1, 256), (50, 256), (7, 32)] {
                let hits = coverage(outer, inner, tiles, teams, team_size);
                assert!(hits.iter().all(|&h| h <= 1), "{outer} x {inner}, tiles {tiles:?}, {teams} x {team_size}");
            }
        }
    }
}

#[test]
fn tiles_are_warp_rows_of_neighbouring_columns() {
    // 20 x 70 with 8 rows of 32: thread l of tile (1, 2) runs row 8 + l / 32, column 64 + l % 32 (columns 70.. skipped).
    let w = Walk::for_team_size(20, 70, 8, 3, 9, 256);
    assert!(w.is_tiled());
    assert_eq!(w.units(), 9);
    let unit = 3 + 2;
    assert_eq!(w.locate_for_thread(unit, 0), Some((8, 64)));
    assert_eq!(w.locate_for_thread(unit, 5), Some((8, 69)));
    assert_eq!(w.locate_for_thread(unit, 6), None);
    assert_eq!(w.locate_for_thread(unit, 32 + 1), Some((9, 65)));
    // Rows that do not make up the team: flat.
    let flat = Walk::for_team_size(20, 70, 8, 3, 9, 128);
    assert!(!flat.is_tiled());
    assert_eq!(flat.units(), 20 * 70);
}

#[test]
fn divmod_agrees_in_32_and_64_bits() {
    let small = Walk::flat(1000, 1000);
    let big = Walk::flat(1 << 20, 1 << 20);
    for (a, b) in [(0u64, 1u64), (999_999, 1000), (123_456, 7), (4_000_000_000, 3)] {
        assert_eq!(small.divmod(a, b), (a / b, a % b));
        assert_eq!(big.divmod(a, b), (a / b, a % b));
    }
    assert_eq!(big.divmod(1 << 40, 3), ((1u64 << 40) / 3, (1u64 << 40) % 3));
}
