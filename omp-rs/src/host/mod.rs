//! The host path: every parallel loop (and every target region without a usable device) runs here, on a team
//! of threads with OpenMP semantics: thread numbers, schedules over the flattened `collapse` space, private
//! reduction copies combined in thread order, nested regions serialised (max-active-levels = 1).

pub mod atomic;
mod dim;
mod local;
pub mod nd;
pub(crate) mod ownership;
pub mod reduce;
pub(crate) mod schedule;
#[allow(unsafe_code)]
mod sharing;
#[allow(unsafe_code)]
pub mod spmd; // team-local arrays' memory and the teams' barrier, each unsafe block with its SAFETY argument
pub(crate) mod storage;
mod team; // its few unsafe blocks (the erased job pointer) allow themselves, each with its SAFETY argument
pub(crate) mod unchecked; // the escape hatch `unsafe(disjoint(..))`, an audited unsafe module
mod window;

pub use dim::{Dim, LoopIndex};
pub use local::{CopyValue, Probe, RefLocal, RefValue, SliceLocal};
pub use ownership::{form_product, form_sum, Affine, Ownership};
pub use storage::{as_slice, as_slice_mut, slice_len, SliceStorage, SliceStorageMut};
pub use unchecked::UncheckedSlice;
pub use window::{
    range_count, range_count_inclusive, range_nth, range_nth_inclusive, row_span, wrapping, NotSlice, Pick, PickAny, PickSlice, RefRows,
    RowWindow, RowsWindow, SliceRows, WindowIndex,
};

pub use schedule::Schedule;
pub use sharing::{
    critical_lock, AtomicElem, AtomicRef, AtomicSlice, AtomicUpdate, ChunkView, CriticalCell, CriticalGuard, DisjointArrays, DisjointMut,
    LatticeMut, OmpAt, OmpAtMut, WindowMut, WindowsMut,
};

pub(crate) use team::position;

use schedule::Dispatcher;
use team::{PositionGuard, TeamPosition};

/// The clauses of a parallel region, evaluated once at entry.
#[derive(Debug, Clone, Copy)]
pub struct RegionConfig {
    /// `num_threads(n)`.
    pub num_threads: Option<usize>,
    /// `schedule(...)`.
    pub schedule: Schedule,
    /// `if(cond)`: when false the region runs on the calling thread alone.
    pub active: bool,
}

/// The part `[first, last)` of the flattened iteration space that one chunk covers.
#[derive(Debug, Clone, Copy)]
pub struct Chunk<const D: usize> {
    first: u64,
    last: u64,
    counts: [u64; D],
}

impl Chunk<1> {
    /// The iteration numbers of a one-dimensional loop.
    #[inline]
    pub fn range(&self) -> std::ops::Range<u64> {
        self.first..self.last
    }
}

impl<const D: usize> Chunk<D> {
    /// The per-dimension iteration numbers (outermost first), in order.
    #[inline]
    pub fn indices(&self) -> Indices<D> {
        // Decode the first flat index once; the iterator then counts like an odometer.
        let mut idx = [0u64; D];
        let mut rest = self.first;
        for d in (0..D).rev() {
            let c = self.counts[d].max(1);
            idx[d] = rest % c;
            rest /= c;
        }
        Indices { idx, counts: self.counts, remaining: self.last - self.first }
    }
}

impl<const D: usize> Chunk<D> {
    /// The chunk as rows: runs of consecutive iterations that differ only in the innermost dimension, so the
    /// innermost loop of a collapsed nest stays a plain loop.
    #[inline]
    pub fn rows(&self) -> Rows<D> {
        let mut it = self.indices();
        let first = it.next();
        Rows { at: first, counts: self.counts, remaining: self.last - self.first }
    }
}

/// One row of a chunk: the outer indices (`outer[D-1]` unused) and the innermost indices.
#[derive(Debug, Clone)]
pub struct Row<const D: usize> {
    /// Indices of the outer dimensions.
    pub outer: [u64; D],
    /// Iteration numbers of the innermost dimension.
    pub inner: std::ops::Range<u64>,
}

/// Iterator over the rows of a chunk.
#[derive(Debug)]
pub struct Rows<const D: usize> {
    at: Option<[u64; D]>,
    counts: [u64; D],
    remaining: u64,
}

impl<const D: usize> Iterator for Rows<D> {
    type Item = Row<D>;

    #[inline]
    fn next(&mut self) -> Option<Row<D>> {
        let at = self.at?;
        if self.remaining == 0 {
            return None;
        }
        let last = D - 1;
        let len = (self.counts[last] - at[last]).min(self.remaining);
        let row = Row { outer: at, inner: at[last]..at[last] + len };
        self.remaining -= len;
        // Next row: innermost back to 0, carry into the outer dimensions.
        let mut next = at;
        next[last] = 0;
        let mut d = last;
        while d > 0 {
            d -= 1;
            next[d] += 1;
            if next[d] < self.counts[d] || d == 0 {
                break;
            }
            next[d] = 0;
        }
        self.at = Some(next);
        Some(row)
    }
}

/// Iterator over the per-dimension indices of a chunk.
#[derive(Debug)]
pub struct Indices<const D: usize> {
    idx: [u64; D],
    counts: [u64; D],
    remaining: u64,
}

impl<const D: usize> Iterator for Indices<D> {
    type Item = [u64; D];

    #[inline]
    fn next(&mut self) -> Option<[u64; D]> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let out = self.idx;
        let mut d = D;
        while d > 0 {
            d -= 1;
            self.idx[d] += 1;
            if self.idx[d] < self.counts[d] || d == 0 {
                break;
            }
            self.idx[d] = 0;
        }
        Some(out)
    }
}

/// Whether a region met at `outer` runs on the thread that meets it: nested regions do (OpenMP's default
/// max-active-levels of 1), and so does a region started inside a critical block (other threads reaching the same
/// section would wait for this one forever; on this thread the section's re-entry check panics instead).
pub(crate) fn runs_on_its_thread(outer: Option<TeamPosition>) -> bool {
    outer.is_some_and(|p| p.active_level > 0) || sharing::inside_critical()
}

/// Runs a parallel loop over the iteration space `counts` (one count per collapsed dimension).
///
/// Each thread of the team gets its own copy of `init` (the reductions' identities), runs `body` on the chunks
/// the schedule gives it, and the copies are returned in thread order for the caller to combine. `arrays` are
/// the arrays the loop writes ([`DisjointMut`]s): each call of `body` gets one view of each, for its chunk.
pub fn parallel_for<const D: usize, R, A, F>(config: &RegionConfig, counts: [u64; D], init: R, arrays: A, body: F) -> Vec<R>
where
    R: Copy + Send + Sync,
    A: DisjointArrays<D>,
    F: Fn(Chunk<D>, &mut R, A::Views) + Sync,
{
    crate::icv::display_env_once();
    let total = counts
        .iter()
        .try_fold(1u64, |acc, &c| acc.checked_mul(c))
        .unwrap_or_else(|| panic!("omp: the collapsed iteration space {counts:?} has more than 2^64 iterations"));
    let outer = position();
    let level = outer.map_or(0, |p| p.level) + 1;
    let outer_active = outer.map_or(0, |p| p.active_level);
    let requested = config.num_threads.unwrap_or_else(crate::icv::num_threads);
    let serial = !config.active || runs_on_its_thread(outer);
    let threads = if serial { 1 } else { requested.max(1) };
    let schedule = match config.schedule {
        Schedule::Runtime => crate::icv::run_schedule(),
        Schedule::Auto => Schedule::Static(None),
        s => s,
    };
    let dispatcher = Dispatcher::new(schedule, total, threads);
    let run = |thread_num: usize| -> R {
        let _pos = PositionGuard::enter(TeamPosition {
            thread_num,
            num_threads: threads,
            level,
            active_level: outer_active + usize::from(threads > 1),
        });
        let mut acc = init;
        // The dispatcher hands out every flat iteration exactly once, so the views of different chunks own
        // disjoint elements (`sharing.rs`).
        dispatcher.for_each_chunk(thread_num, |first, last| {
            body(Chunk { first, last, counts }, &mut acc, arrays.views(first, last, sharing::Token(())))
        });
        acc
    };
    if threads == 1 {
        return vec![run(0)];
    }
    team::run(threads, run)
}

/// `omp::barrier!()` among a `#[omp::directives]` fn's own statements, outside every region (an orphaned barrier, as
/// BabelStream's Fortran writes `!$omp barrier` after a target loop). OpenMP binds it to the innermost parallel region
/// around the call: on the initial thread outside any region that is a team of one, and the barrier has nothing to
/// wait for. Called by a thread of a host team, the barrier would have to meet the team's other threads wherever they
/// are, which omp-rs does not do: it panics before any thread could wait for it, never a hang.
#[track_caller]
pub fn orphaned_barrier() {
    let team = crate::get_num_threads();
    if team > 1 {
        panic!(
            "omp: `omp::barrier!()` in a `#[omp::directives]` fn called by a thread of a {team}-thread team: omp-rs binds \
             a barrier only in the `#[omp::parallel]` block that starts the team (or in a team function that block \
             calls); move the barrier there"
        );
    }
}

/// The check of an SPMD region whose body uses its team (thread) number only divided by `e` and as the remainder
/// (`omp::get_team_num() / nb`, `% nb`): its nest walks the quotient and the remainder as two loops, which is the
/// same walk when `e` divides the count.
pub fn spmd_split(count: usize, e: usize, what: &str, routine: &str) {
    if e == 0 || count % e != 0 {
        panic!(
            "omp: this SPMD region uses `{routine}` only through `/ {e}` and `% {e}`, and omp-rs checks its writes on that \
             decomposition, which needs {what} ({count}) to be a multiple of {e}"
        );
    }
}

#[cfg(test)]
mod spmd_split_tests {
    #[test]
    fn a_split_needs_a_divisor_of_the_count() {
        super::spmd_split(64, 8, "the team size", "omp::get_thread_num()");
        assert!(std::panic::catch_unwind(|| super::spmd_split(60, 8, "the team size", "omp::get_thread_num()")).is_err());
        assert!(std::panic::catch_unwind(|| super::spmd_split(8, 0, "num_teams", "omp::get_team_num()")).is_err());
    }
}

/// `num_threads(e)` for any integer expression.
pub fn team_size<T: TryInto<usize> + Copy + std::fmt::Debug>(n: T) -> usize {
    match n.try_into() {
        Ok(v) if v > 0 => v,
        _ => panic!("omp: `num_threads({n:?})` must be a positive number of threads"),
    }
}

/// The team count (`num_teams(e)`) or team size (`thread_limit(e)`, `num_threads(e)`) of an SPMD region, for any
/// integer expression: the loop bound of its (team, thread) nest.
pub fn spmd_count<T: TryInto<usize> + Copy + std::fmt::Debug>(n: T, clause: &str) -> usize {
    match n.try_into() {
        Ok(v) if v > 0 => v,
        _ => panic!("omp: `{clause}({n:?})` of an SPMD `target_teams` region must be positive"),
    }
}

/// A chunk size for `schedule(kind, c)`.
pub fn chunk_size<T: TryInto<u64> + Copy + std::fmt::Debug>(c: T) -> u64 {
    match c.try_into() {
        Ok(v) if v > 0 => v,
        _ => panic!("omp: the chunk size in `schedule(..., {c:?})` must be positive"),
    }
}

/// The range of the integer type of `v` (a variable of some index arithmetic), for [`Affine::check_type`].
pub fn int_bounds<T: LoopIndex>(_: &T) -> (i128, i128) {
    T::bounds()
}

/// The range of the integer type `T` (written in some index arithmetic), for [`Affine::check_type`].
pub fn type_bounds<T: LoopIndex>() -> (i128, i128) {
    T::bounds()
}

/// The smallest of an inner loop bound's values at the corners of the parallel iteration space (the start of a
/// triangular loop's widened range, see the macro's `widened_range`).
pub fn corner_min<T: PartialOrd + Copy, const N: usize>(values: [T; N]) -> T {
    values.into_iter().reduce(|a, b| if b < a { b } else { a }).expect("at least one corner")
}

/// The largest of an inner loop bound's values at the corners of the parallel iteration space.
pub fn corner_max<T: PartialOrd + Copy, const N: usize>(values: [T; N]) -> T {
    values.into_iter().reduce(|a, b| if b > a { b } else { a }).expect("at least one corner")
}

/// A loop-invariant factor of an index, as `i128`, for the ownership of written arrays ([`Affine`]).
pub fn coefficient<T: TryInto<i128> + Copy + std::fmt::Debug>(v: T) -> i128 {
    v.try_into().unwrap_or_else(|_| panic!("omp: index coefficient {v:?} does not fit in i128"))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn indices_follow_the_flat_order() {
        let c = Chunk { first: 5, last: 12, counts: [3, 4] };
        let got: Vec<[u64; 2]> = c.indices().collect();
        let want: Vec<[u64; 2]> = (5..12).map(|k| [k / 4, k % 4]).collect();
        assert_eq!(got, want);
        let c3 = Chunk { first: 0, last: 24, counts: [2, 3, 4] };
        let got: Vec<[u64; 3]> = c3.indices().collect();
        let want: Vec<[u64; 3]> = (0..24).map(|k| [k / 12, (k / 4) % 3, k % 4]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn rows_cover_the_chunk() {
        for (first, last) in [(0, 12), (5, 12), (3, 4), (7, 7), (1, 11)] {
            let c = Chunk { first, last, counts: [3, 4] };
            let got: Vec<[u64; 2]> = c.rows().flat_map(|r| r.inner.map(move |j| [r.outer[0], j])).collect();
            let want: Vec<[u64; 2]> = c.indices().collect();
            assert_eq!(got, want, "chunk {first}..{last}");
        }
        let c = Chunk { first: 4, last: 23, counts: [2, 3, 4] };
        let got: Vec<[u64; 3]> = c.rows().flat_map(|r| r.inner.map(move |k| [r.outer[0], r.outer[1], k])).collect();
        assert_eq!(got, c.indices().collect::<Vec<_>>());
    }

    #[test]
    fn thread_numbers_and_reduction_copies() {
        let cfg = RegionConfig { num_threads: Some(3), schedule: Schedule::Static(None), active: true };
        let parts = parallel_for(&cfg, [30], (0u64, 0usize), (), |chunk, acc, ()| {
            for k in chunk.range() {
                acc.0 += k;
                acc.1 = crate::get_thread_num();
            }
        });
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.iter().map(|p| p.0).sum::<u64>(), (0..30).sum());
        assert_eq!(parts.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0, 1, 2]);
    }

    #[test]
    fn if_false_runs_on_one_thread() {
        let cfg = RegionConfig { num_threads: Some(4), schedule: Schedule::Static(None), active: false };
        let parts = parallel_for(&cfg, [10], (), (), |_, _, ()| assert_eq!(crate::get_num_threads(), 1));
        assert_eq!(parts.len(), 1);
    }
}
