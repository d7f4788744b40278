//! Where the calling thread is in the launch (the kernel ABI: 1-D grid of teams, 1-D teams).
//!
//! GPUs: a team is a CUDA block / HIP workgroup. Host `.so`: the plugin calls a kernel once, so
//! there is one team of one thread and a grid-stride loop covers the whole iteration space.

#[cfg(target_arch = "amdgpu")]
extern "C" {
    // ockl (ROCm device libs, linked as bitcode): sizes from the dispatch / implicit kernel args
    fn __ockl_get_local_size(dim: u32) -> u64;
    fn __ockl_get_num_groups(dim: u32) -> u64;
}

/// Index of the calling thread among all threads of the launch: `team_id * team_size + thread_in_team`.
#[inline(always)]
pub fn global_thread() -> u64 {
    team_id() as u64 * team_size() as u64 + thread_in_team() as u64
}

/// Number of threads of the launch: `num_teams * team_size` (the grid-stride step).
#[inline(always)]
pub fn num_global_threads() -> u64 {
    num_teams() as u64 * team_size() as u64
}

/// Index of the calling team (block) in the grid.
#[inline(always)]
pub fn team_id() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_block_idx_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    return core::arch::amdgpu::workgroup_id_x();
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 0;
}

/// Number of teams (blocks) in the grid.
#[inline(always)]
pub fn num_teams() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_grid_dim_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    // SAFETY: ockl reads the dispatch packet / implicit arguments of the running kernel.
    return unsafe { __ockl_get_num_groups(0) } as u32;
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 1;
}

/// Index of the calling thread within its team.
#[inline(always)]
pub fn thread_in_team() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_thread_idx_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    return core::arch::amdgpu::workitem_id_x();
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 0;
}

/// Number of threads in the calling team.
#[inline(always)]
pub fn team_size() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    return unsafe { core::arch::nvptx::_block_dim_x() } as u32;
    #[cfg(target_arch = "amdgpu")]
    // SAFETY: ockl reads the dispatch packet / implicit arguments of the running kernel.
    return unsafe { __ockl_get_local_size(0) } as u32;
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "amdgpu")))]
    return 1;
}

/// Columns of a tile: one warp (NVIDIA) or half a wavefront (AMD) along the innermost loop (the runtime tiles
/// with the same constant).
pub use crate::abi_shared::TILE_COLUMNS;

/// How the threads of a kernel walk its loop nest's iteration space, flattened to `outer × inner` (`inner` is the
/// innermost loop's trip count, `outer` the product of the others; 1-deep nests have `inner = 1`).
///
/// * **Flat**: unit `u` is iteration `u` (row-major); thread `g` of the grid takes units `g, g + threads, ...`.
/// * **Flat, outer first** (chosen by the macro when the written arrays' index moves by 1 with the outer loop and
///   by more with the innermost, as in `t[col * nr + row]` under `for row { for col { .. } }`): unit `u` is outer
///   number `u % outer`, innermost iteration `u / outer`, so neighbouring threads touch neighbouring elements.
/// * **Tiled** (collapsed nests on GPUs, chosen by the runtime): unit `u` is a tile of `rows × 32` iterations and
///   team `t` takes tiles `t, t + teams, ...`; within a tile thread `l` takes row `l / 32`, column `l % 32`. A team
///   then reads a block of neighbouring rows instead of a long strip of one row, which is what 2-D stencils and
///   row × column products reuse through L1 (as a CUDA `dim3(32, 8)` block does). Iterations of partial tiles past
///   the edges are skipped.
///
/// The runtime passes the tiling it computed with the launch geometry (rows, tiles per row of tiles, tiles), so
/// that a kernel whose threads run one iteration each spends no divisions on it. Whatever it passes, every thread
/// locates distinct iterations inside the nest (the disjointness checks rely on it): units map to iterations
/// injectively, row and column are checked against the nest, and tiles whose rows do not make up the team (e.g. a
/// plugin that launched fewer threads) fall back to flat. Index arithmetic runs in 32 bits when the nest fits (64-bit
/// division is a long software sequence on GPUs).
#[derive(Clone, Copy)]
pub struct Walk {
    outer: u64,
    inner: u64,
    /// Tile rows, or 0 for flat.
    rows: u64,
    tiles_inner: u64,
    units: u64,
    small: bool,
    /// Flat walks: neighbouring units differ in the outer number (see the type's doc).
    outer_first: bool,
}

impl Walk {
    /// The flat walk of `outer × inner` iterations.
    #[inline(always)]
    pub fn flat(outer: u64, inner: u64) -> Walk {
        let units = outer.wrapping_mul(inner);
        Walk { outer, inner, rows: 0, tiles_inner: 0, units, small: (outer | inner | units) >> 32 == 0, outer_first: false }
    }

    /// The flat walk of `outer × inner` iterations with the outer number fastest (see the type's doc).
    #[inline(always)]
    pub fn flat_outer_first(outer: u64, inner: u64) -> Walk {
        Walk { outer_first: true, ..Walk::flat(outer, inner) }
    }

    /// The walk of `outer × inner` iterations the runtime chose: tiles of `rows` rows (0: flat), `tiles_inner` tiles
    /// per row of tiles, `tiles` in all.
    #[inline(always)]
    pub fn new(outer: u64, inner: u64, rows: u64, tiles_inner: u64, tiles: u64) -> Walk {
        Walk::for_team_size(outer, inner, rows, tiles_inner, tiles, u64::from(team_size()))
    }

    /// [`new`](Self::new) for teams of `team_size` threads.
    #[inline(always)]
    pub fn for_team_size(outer: u64, inner: u64, rows: u64, tiles_inner: u64, tiles: u64, team_size: u64) -> Walk {
        // Tiles only in 32 bits and with at most 32 rows (teams have at most 1024 threads): `row` and `col` in
        // `locate` cannot overflow into the nest.
        let fits = (outer | inner | tiles | tiles_inner) >> 32 == 0;
        if rows == 0 || rows > 32 || rows * TILE_COLUMNS != team_size || tiles_inner == 0 || !fits {
            return Walk::flat(outer, inner);
        }
        Walk { outer, inner, rows, tiles_inner, units: tiles, small: true, outer_first: false }
    }

    /// Whether the walk is tiled (one unit per team) or flat (one per thread).
    #[inline(always)]
    pub fn is_tiled(&self) -> bool {
        self.rows != 0
    }

    /// Number of units.
    #[inline(always)]
    pub fn units(&self) -> u64 {
        self.units
    }

    /// The calling thread's first unit.
    #[inline(always)]
    pub fn first(&self) -> u64 {
        if self.rows != 0 {
            u64::from(team_id())
        } else {
            global_thread()
        }
    }

    /// Distance between a thread's units.
    #[inline(always)]
    pub fn step(&self) -> u64 {
        if self.rows != 0 {
            u64::from(num_teams())
        } else {
            num_global_threads()
        }
    }

    /// The iteration `(outer, inner)` the calling thread runs for `unit` (`< units()`), or `None` past the edges
    /// of a partial tile.
    #[inline(always)]
    pub fn locate(&self, unit: u64) -> Option<(u64, u64)> {
        self.locate_for_thread(unit, u64::from(thread_in_team()))
    }

    /// [`locate`](Self::locate) for thread `lane` of its team (tiled walks; flat ones ignore it).
    #[inline(always)]
    pub fn locate_for_thread(&self, unit: u64, lane: u64) -> Option<(u64, u64)> {
        if self.rows == 0 && self.outer_first {
            let (i, o) = self.divmod(unit, self.outer);
            return (i < self.inner).then_some((o, i));
        }
        if self.rows == 0 {
            let (o, i) = self.divmod(unit, self.inner);
            return (o < self.outer).then_some((o, i));
        }
        let (ti, tj) = self.divmod(unit, self.tiles_inner);
        let row = ti * self.rows + lane / TILE_COLUMNS;
        let col = tj * TILE_COLUMNS + lane % TILE_COLUMNS;
        (row < self.outer && col < self.inner).then_some((row, col))
    }

    /// `(a / b, a % b)`, in 32 bits when the space fits (`a` and `b` then do); a shift and a mask when `b` is a
    /// power of two (every thread of the launch takes the same branch: `b` is the nest's).
    #[inline(always)]
    pub fn divmod(&self, a: u64, b: u64) -> (u64, u64) {
        if self.small {
            // The power-of-two test, the shift and the mask in 32 bits too (half the instructions of 64-bit ones).
            let (a, b) = (a as u32, b as u32);
            if b.is_power_of_two() {
                (u64::from(a >> b.trailing_zeros()), u64::from(a & (b - 1)))
            } else {
                (u64::from(a / b), u64::from(a % b))
            }
        } else if b.is_power_of_two() {
            (a >> b.trailing_zeros(), a & (b - 1))
        } else {
            (a / b, a % b)
        }
    }
}
