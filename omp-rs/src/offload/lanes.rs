//! Which of a device's queues ("lanes") a queued launch goes on, so that launches on different data overlap on the
//! device while launches on common data keep their submission order.
//!
//! The runtime describes every queued launch by the device memory it can reach: the byte ranges of its mapped
//! arrays and `DeviceBuffer`s (kernels reach memory only through those arguments, bounds-checked; scalars travel by
//! value, reduction partials are leased to one launch). A launch whose ranges overlap nothing pending goes on an
//! idle lane and may run beside the others; one that overlaps the pending work of one lane goes on that lane (in
//! order after it); one that overlaps several goes on the first and makes it wait, through events, for the others,
//! whose pending ranges then move to it (whatever is ordered after the waiting lane is ordered after them too). Any
//! common byte counts, read or written alike: the description owes nothing to what the macro's analysis
//! concluded, only to the arguments the runtime itself passes.
//!
//! Pending ranges are forgotten when the device's queues settle (every lane synchronised).

use std::ops::Range;

/// At most this many distinct ranges are remembered per lane; past it the lane orders everything after it (it
/// then covers all of memory), which is always correct.
const MAX_RANGES: usize = 64;

/// Where a launch goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The lane to launch on.
    pub(crate) lane: usize,
    /// Lanes whose pending work the chosen lane must wait for first (an event recorded on each).
    pub(crate) waits: Vec<usize>,
}

/// The pending device ranges of each lane of one device.
#[derive(Debug, Clone)]
pub(crate) struct Lanes {
    pending: Vec<Vec<Range<u64>>>,
    /// Lanes that received a launch since the last settle (a launch reaching no memory leaves no range).
    used: Vec<bool>,
}

impl Lanes {
    /// `n` lanes (at least one), all idle.
    pub(crate) fn new(n: usize) -> Lanes {
        Lanes { pending: vec![Vec::new(); n.max(1)], used: vec![false; n.max(1)] }
    }

    /// Place a launch that reaches `footprint` and record it as pending on the chosen lane.
    pub(crate) fn place(&mut self, footprint: &[Range<u64>]) -> Placement {
        let touches = |lane: &[Range<u64>]| lane.iter().any(|p| footprint.iter().any(|f| overlaps(p, f)));
        let conflicts: Vec<usize> = (0..self.pending.len()).filter(|&l| touches(&self.pending[l])).collect();
        let (lane, waits) = match conflicts.split_first() {
            Some((&first, rest)) => (first, rest.to_vec()),
            // Independent of everything pending: an idle lane, else the one with the least remembered.
            None => {
                let idle = (0..self.pending.len()).min_by_key(|&l| self.pending[l].len()).unwrap_or(0);
                (idle, Vec::new())
            }
        };
        for &w in &waits {
            let moved = std::mem::take(&mut self.pending[w]);
            for r in moved {
                self.remember(lane, r);
            }
        }
        for r in footprint {
            self.remember(lane, r.clone());
        }
        self.used[lane] = true;
        Placement { lane, waits }
    }

    /// The lanes that received launches since the last [`clear`](Self::clear): the ones to wait for.
    pub(crate) fn used(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.used.len()).filter(|&l| self.used[l])
    }

    /// Everything settled: all lanes idle.
    pub(crate) fn clear(&mut self) {
        for p in &mut self.pending {
            p.clear();
        }
        self.used.fill(false);
    }

    fn remember(&mut self, lane: usize, r: Range<u64>) {
        let p = &mut self.pending[lane];
        if r.is_empty() || p.iter().any(|q| q.start <= r.start && r.end <= q.end) {
            return;
        }
        if p.len() >= MAX_RANGES {
            p.clear();
            p.push(0..u64::MAX);
            return;
        }
        p.push(r);
    }
}

/// Whether two byte ranges share a byte.
fn overlaps(a: &Range<u64>, b: &Range<u64>) -> bool {
    !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end
}

#[cfg(test)]
// `&[0..100]`: one byte range a launch reaches, as the queue passes them.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn independent_launches_spread_over_idle_lanes() {
        let mut l = Lanes::new(4);
        assert_eq!(l.place(&[0..100]), Placement { lane: 0, waits: vec![] });
        assert_eq!(l.place(&[100..200]), Placement { lane: 1, waits: vec![] });
        assert_eq!(l.place(&[300..400, 500..600]), Placement { lane: 2, waits: vec![] });
        assert_eq!(l.place(&[700..800]), Placement { lane: 3, waits: vec![] });
        // All lanes busy: the one remembering least (lane 0, one range).
        assert_eq!(l.place(&[900..1000]).lane, 0);
    }

    #[test]
    fn a_launch_on_common_data_follows_the_lane_that_has_it() {
        let mut l = Lanes::new(4);
        l.place(&[0..100]);
        l.place(&[100..200]);
        // Read or written alike: one common byte orders it.
        assert_eq!(l.place(&[99..100]), Placement { lane: 0, waits: vec![] });
        assert_eq!(l.place(&[150..151, 1000..2000]), Placement { lane: 1, waits: vec![] });
        // Ranges that only touch end to start do not overlap.
        assert_eq!(l.place(&[200..300]), Placement { lane: 2, waits: vec![] });
    }

    #[test]
    fn a_launch_on_the_data_of_several_lanes_waits_for_them_and_takes_their_ranges() {
        let mut l = Lanes::new(4);
        l.place(&[0..100]);
        l.place(&[100..200]);
        l.place(&[200..300]);
        assert_eq!(l.place(&[50..60, 250..260]), Placement { lane: 0, waits: vec![2] });
        // Lane 2's range moved to lane 0: a later launch on it follows lane 0 (which waited for lane 2's work).
        assert_eq!(l.place(&[200..210]), Placement { lane: 0, waits: vec![] });
        // Lane 2 is idle again for independent work.
        assert_eq!(l.place(&[5000..6000]).lane, 2);
        assert_eq!(l.place(&[0..1, 100..101, 5000..5001]), Placement { lane: 0, waits: vec![1, 2] });
    }

    #[test]
    fn settling_forgets_everything_and_one_lane_orders_all() {
        let mut l = Lanes::new(2);
        l.place(&[0..100]);
        l.place(&[]);
        assert_eq!(l.used().collect::<Vec<_>>(), vec![0, 1]);
        l.clear();
        assert_eq!(l.used().count(), 0);
        assert_eq!(l.place(&[1000..1100]).lane, 0);
        let mut one = Lanes::new(1);
        for k in 0..10u64 {
            assert_eq!(one.place(&[k * 10..k * 10 + 5]), Placement { lane: 0, waits: vec![] });
        }
        assert_eq!(Lanes::new(0).pending.len(), 1);
    }

    #[test]
    fn a_lane_remembering_too_much_orders_everything_after_it() {
        let mut l = Lanes::new(2);
        for k in 1..=MAX_RANGES as u64 {
            // Every launch shares 0..1, so all stay on lane 0, each adding a range.
            assert_eq!(l.place(&[0..1, k * 10..k * 10 + 1]).lane, 0);
        }
        assert_eq!(l.pending[0], vec![0..u64::MAX]);
        // Lane 0 now covers all memory: anything follows it.
        assert_eq!(l.place(&[1 << 40..(1 << 40) + 8]), Placement { lane: 0, waits: vec![] });
    }

    #[test]
    fn empty_footprints_conflict_with_nothing() {
        let mut l = Lanes::new(3);
        l.place(&[0..100]);
        assert_eq!(l.place(&[]), Placement { lane: 1, waits: vec![] });
        assert_eq!(l.place(&[10..10]), Placement { lane: 1, waits: vec![] });
    }
}
