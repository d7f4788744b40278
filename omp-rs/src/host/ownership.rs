//! Which elements of an array each iteration of a parallel loop owns: the run-time half of "writes are disjoint".
//!
//! The macro's analysis proposes an affine index for every array the loop writes (`y[i * n + j]`); the runtime
//! evaluates its coefficients once, before the region, and turns it into an [`Ownership`]: iteration `t` (one
//! iteration number per collapsed dimension) owns the interval
//!
//! ```text
//! hull(t) = [origin + Σ stride_d·t_d,  origin + Σ stride_d·t_d + width]
//! ```
//!
//! (`width` covers sequential loops of the body that move the index, `for k in 0..m { y[i * m + k] }`).
//! [`Affine::check`] verifies, for the actual loop bounds, that the hulls of different iterations never overlap
//! (mixed-radix condition) and panics otherwise. Every access of the loop body to that array then goes through a
//! view that lets it reach only elements owned by the iterations it runs (see `sharing.rs`): if the analysis
//! misread the index (a shadowed name, a variable it took for loop-invariant), the access panics instead of
//! racing. So the soundness of a parallel loop rests on this module and the views, never on the analysis.
//!
//! All arithmetic is exact (`i128`, checked); a form whose values leave `i128` is rejected.

use omp_rs_abi::OwnerMode;

use super::{Dim, LoopIndex};

/// At most this many sequential-loop terms in one index form (more is rejected by the macro).
pub(crate) const MAX_INNER: usize = 6;

/// An affine index `c + Σ coefficient·variable` over the dimensions of a loop nest (and sequential loops of the
/// body), with run-time values, as built by the macro expansion.
#[derive(Debug, Clone, Copy)]
pub struct Affine<const D: usize> {
    /// The index with every iteration number at 0 (first value of every loop).
    origin: Option<i128>,
    /// How far iteration number `t_d` moves the index.
    strides: [Option<i128>; D],
    counts: [u64; D],
    /// Sequential-loop terms: (how far one iteration of the loop moves the index, its iteration count).
    inner: [(Option<i128>, u64); MAX_INNER],
    n_inner: usize,
}

impl<const D: usize> Affine<D> {
    /// The constant part of the index (`None`: it overflowed); `counts` are the iteration counts of the parallel
    /// dimensions.
    pub fn new(constant: Option<i128>, counts: [u64; D]) -> Self {
        Affine { origin: constant, strides: [Some(0); D], counts, inner: [(Some(0), 1); MAX_INNER], n_inner: 0 }
    }

    /// Adds `coefficient · v` for the variable `v` of parallel dimension `d`, which runs over `dim`.
    pub fn term<T: LoopIndex>(mut self, d: usize, coefficient: Option<i128>, dim: &Dim<T>) -> Self {
        let first = coefficient.and_then(|c| c.checked_mul(dim.first().to_i128()));
        let step = coefficient.and_then(|c| c.checked_mul(dim.signed_step()));
        if dim.count() > 0 {
            self.origin = add(self.origin, first);
        }
        self.strides[d] = add(self.strides[d], step);
        self
    }

    /// Adds `coefficient · w` for the variable `w` of a sequential loop of the body over `dim`: every iteration
    /// reaches all of this term's values.
    pub fn inner<T: LoopIndex>(mut self, coefficient: Option<i128>, dim: &Dim<T>) -> Self {
        let first = coefficient.and_then(|c| c.checked_mul(dim.first().to_i128()));
        let step = coefficient.and_then(|c| c.checked_mul(dim.signed_step()));
        if dim.count() > 0 {
            self.origin = add(self.origin, first);
        }
        if self.n_inner < MAX_INNER {
            self.inner[self.n_inner] = (step, dim.count());
            self.n_inner += 1;
        } else {
            self.origin = None;
        }
        self
    }

    /// Makes each iteration own every element from the form on (one sequential-loop-like term spanning all indices a
    /// slice can have): the ownership of a single-iteration loop, which [`Affine::check`] accepts only when the
    /// loop really has one iteration (two would overlap).
    pub fn whole(mut self) -> Self {
        if self.n_inner < MAX_INNER {
            self.inner[self.n_inner] = (Some(1), isize::MAX as u64);
            self.n_inner += 1;
        } else {
            self.origin = None;
        }
        self
    }

    /// Adds an iteration's other accesses at loop-invariant offsets from this form (`f[ID_UMOM * plane + i]` beside
    /// `f[ID_DENS * plane + i]`; `0` stands for the form itself): the iteration then owns the points `min + q·g`,
    /// `q ≤ (max - min) / g`, `g` the gcd of the offsets' distances — one more sequential-loop-like term, a superset
    /// of the offsets, which [`Affine::check`] keeps apart between iterations like any other.
    pub fn offsets(mut self, offsets: &[Option<i128>]) -> Self {
        let offs: Option<Vec<i128>> = offsets.iter().copied().collect();
        let (Some(offs), true) = (offs, self.n_inner < MAX_INNER) else {
            self.origin = None;
            return self;
        };
        let (Some(&min), Some(&max)) = (offs.iter().min(), offs.iter().max()) else { return self };
        let gcd = |mut a: u128, mut b: u128| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let g = offs.iter().fold(0u128, |g, &o| gcd(g, o.abs_diff(min)));
        let (stride, count) = match g {
            0 => (Some(0), 1),
            g => (i128::try_from(g).ok(), u64::try_from(max.abs_diff(min) / g + 1).unwrap_or(u64::MAX)),
        };
        self.origin = add(self.origin, Some(min));
        self.inner[self.n_inner] = (stride, count);
        self.n_inner += 1;
        self
    }

    /// Verifies that the values of this (sub-)form over the whole iteration space fit in `bounds`, the range of the
    /// integer type its arithmetic is done in before a widening cast (so wrapping arithmetic gives exact values).
    ///
    /// # Panics
    /// When some iteration computes a value outside the type (the index would wrap).
    #[track_caller]
    pub fn check_type(self, bounds: (i128, i128), array: &'static str, index: &'static str, part: &'static str) {
        if self.counts.contains(&0) || self.inner[..self.n_inner].iter().any(|&(_, c)| c == 0) {
            return;
        }
        let range = (|| {
            let (mut lo, mut hi) = (self.origin?, self.origin?);
            let terms = (0..D).map(|d| (self.strides[d], self.counts[d])).chain(self.inner[..self.n_inner].iter().copied());
            for (s, c) in terms {
                let reach = s?.checked_mul(i128::from(c - 1))?;
                if reach < 0 {
                    lo = lo.checked_add(reach)?;
                } else {
                    hi = hi.checked_add(reach)?;
                }
            }
            Some((lo, hi))
        })();
        match range {
            Some((lo, hi)) if lo >= bounds.0 && hi <= bounds.1 => {}
            _ => panic!(
                "omp: in the index `{array}[{index}]` of this parallel loop, `{part}` is computed in a type that ranges over \
                 {}..={} but takes values {} for these loop bounds: the index would wrap. Cast the variables to `usize` \
                 before the arithmetic",
                bounds.0,
                bounds.1,
                range.map_or("beyond 128 bits".to_string(), |(lo, hi)| format!("{lo}..={hi}")),
            ),
        }
    }

    /// Verifies that no two iterations own a common element and returns the ownership; `array` and `index` name
    /// the access in the messages.
    ///
    /// # Panics
    /// When two iterations may reach the same element (the loop would race), or the index leaves `i128`.
    #[track_caller]
    pub fn check(self, array: &'static str, index: &'static str) -> Ownership<D> {
        match self.ownership(array, index) {
            Ok(o) => o,
            Err(msg) => panic!("{msg}"),
        }
    }

    fn ownership(self, array: &'static str, index: &'static str) -> Result<Ownership<D>, String> {
        let overflow = || {
            format!(
                "omp: the index `{array}[{index}]` of this parallel loop takes values beyond 128 bits for these loop bounds \
                 and coefficients"
            )
        };
        // No iteration (or an inner loop that never runs): nothing is ever accessed through this form.
        if self.counts.contains(&0) || self.inner[..self.n_inner].iter().any(|&(_, c)| c == 0) {
            return Ok(Ownership::empty(array, index, self.counts));
        }
        let origin = self.origin.ok_or_else(overflow)?;
        let mut strides = [0i128; D];
        for d in 0..D {
            strides[d] = self.strides[d].ok_or_else(overflow)?;
        }
        let mut inner = [(0i128, 1u64); MAX_INNER];
        for k in 0..self.n_inner {
            inner[k] = (self.inner[k].0.ok_or_else(overflow)?, self.inner[k].1);
        }
        let inner = &inner[..self.n_inner];
        // Every term as (stride, count, parallel dimension or None), each with its span `|stride|·(count - 1)`.
        let span = |s: i128, c: u64| s.unsigned_abs().checked_mul(u128::from(c - 1)).filter(|&x| x <= i128::MAX as u128);
        let mut width: u128 = 0;
        for &(s, c) in inner {
            width = span(s, c).and_then(|x| x.checked_add(width)).filter(|&x| x <= i128::MAX as u128).ok_or_else(overflow)?;
        }
        let parallel: Vec<Term> =
            (0..D).filter(|&d| self.counts[d] > 1).map(|d| Term { stride: strides[d], count: self.counts[d], dim: Some(d) }).collect();
        let inner_terms: Vec<Term> = inner.iter().filter(|t| t.1 > 1).map(|&(stride, count)| Term { stride, count, dim: None }).collect();
        // Hull mode: each iteration owns the interval its inner loops span, and the parallel terms keep those
        // intervals apart. Lattice mode (`px[i + r * n]`, the inner loop the slower digit): each iteration owns
        // exactly its lattice points, and all terms together are one mixed-radix number.
        let (mode, mut terms) = if mixed_radix(&parallel, width).is_ok() {
            (Mode::Hull, parallel)
        } else {
            let mut all = parallel;
            all.extend(inner_terms);
            if let Err((stride, count, covered)) = mixed_radix(&all, 0) {
                return Err(format!(
                    "omp: iterations of this parallel loop may write the same element of `{array}`: in `{array}[{index}]` \
                     a loop variable with {count} values moves the index by {stride}, which does not exceed the {covered} \
                     elements covered by the faster-moving terms. Check the row length / coefficients against the loop bounds"
                ));
            }
            (Mode::Lattice, all)
        };
        terms.sort_unstable_by_key(|t| std::cmp::Reverse(t.stride.unsigned_abs()));
        // `low`: the lowest element of iteration 0's set; `lowest..=highest`: everything any iteration owns.
        let mut low = origin;
        for &(s, c) in inner {
            if s < 0 {
                low = low.checked_add(s.checked_mul(i128::from(c - 1)).ok_or_else(overflow)?).ok_or_else(overflow)?;
            }
        }
        let (mut lowest, mut highest) = (low, low.checked_add(width as i128).ok_or_else(overflow)?);
        for d in 0..D {
            let reach = strides[d].checked_mul(i128::from(self.counts[d].max(1) - 1)).ok_or_else(overflow)?;
            if reach < 0 {
                lowest = lowest.checked_add(reach).ok_or_else(overflow)?;
            } else {
                highest = highest.checked_add(reach).ok_or_else(overflow)?;
            }
        }
        // Monotone (hull mode) when the strides shrink from the outermost dimension inwards and share one sign: a
        // contiguous chunk of iterations then owns one contiguous interval.
        let direction = match mode {
            Mode::Lattice => Direction::Mixed,
            Mode::Hull => {
                let dims: Vec<usize> = terms.iter().filter_map(|t| t.dim).collect();
                let nest_order = dims.windows(2).all(|w| w[0] < w[1]);
                if !nest_order {
                    Direction::Mixed
                } else if terms.iter().all(|t| t.stride > 0) {
                    Direction::Increasing
                } else if terms.iter().all(|t| t.stride < 0) {
                    Direction::Decreasing
                } else {
                    Direction::Mixed
                }
            }
        };
        let mut order = [Term { stride: 0, count: 1, dim: None }; MAX_TERMS];
        if terms.len() > MAX_TERMS {
            return Err(format!("omp: the index `{array}[{index}]` has more than {MAX_TERMS} loop variables"));
        }
        order[..terms.len()].copy_from_slice(&terms);
        Ok(Ownership {
            origin,
            strides,
            counts: self.counts,
            low_offset: low - origin,
            width: width as i128,
            mode,
            order,
            n_order: terms.len(),
            lowest,
            highest,
            direction,
            array,
            index,
        })
    }
}

/// At most this many terms (parallel dimensions and sequential loops) in one ownership.
const MAX_TERMS: usize = 12;

/// One variable term of an index form.
#[derive(Debug, Clone, Copy)]
struct Term {
    stride: i128,
    count: u64,
    /// The parallel dimension it belongs to (`None`: a sequential loop of the body).
    dim: Option<usize>,
}

/// Checks the mixed-radix condition: sorted by stride, each stride exceeds everything the smaller terms (and
/// `base` more elements) span. Err: the first term that fails, with the span it does not exceed.
fn mixed_radix(terms: &[Term], base: u128) -> Result<(), (u128, u64, u128)> {
    let mut sorted: Vec<(u128, u64)> = terms.iter().map(|t| (t.stride.unsigned_abs(), t.count)).collect();
    sorted.sort_unstable();
    let mut span = base;
    for (stride, count) in sorted {
        if stride <= span {
            return Err((stride, count, span));
        }
        span = stride
            .checked_mul(u128::from(count - 1))
            .and_then(|x| x.checked_add(span))
            .filter(|&x| x <= i128::MAX as u128)
            .ok_or((stride, count, span))?;
    }
    Ok(())
}

/// `lit · Π factors`, or `None` when it leaves `i128` (a coefficient of an index form).
pub fn form_product(lit: i128, factors: &[i128]) -> Option<i128> {
    factors.iter().try_fold(lit, |acc, &f| acc.checked_mul(f))
}

/// The sum of the constant monomials of an index form (`None` when one is, or when it leaves `i128`).
pub fn form_sum(parts: &[Option<i128>]) -> Option<i128> {
    parts.iter().try_fold(0i128, |acc, &p| acc.checked_add(p?))
}

fn add(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    a?.checked_add(b?)
}

/// How the owned intervals move along the flattened iteration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Later iterations own higher elements: a contiguous range of iterations owns one interval.
    Increasing,
    /// Later iterations own lower elements.
    Decreasing,
    /// Neither (e.g. a transposed write `y[j * n + i]`): ownership is decided element by element.
    Mixed,
}

/// What one iteration owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The interval its sequential loops span.
    Hull,
    /// Exactly the points its sequential loops reach.
    Lattice,
}

/// The verified, disjoint element sets of the iterations of a parallel loop for one written array (see the
/// module docs). Only [`Affine::check`] makes one.
#[derive(Debug, Clone, Copy)]
pub struct Ownership<const D: usize> {
    origin: i128,
    strides: [i128; D],
    counts: [u64; D],
    /// Lowest element of an iteration's set, relative to its base (`origin + Σ stride·t`).
    low_offset: i128,
    /// Hull mode: how far an iteration's interval spans above its lowest element.
    width: i128,
    mode: Mode,
    /// The terms to peel off, largest stride first (hull mode: parallel only; lattice mode: all).
    order: [Term; MAX_TERMS],
    n_order: usize,
    lowest: i128,
    highest: i128,
    direction: Direction,
    array: &'static str,
    index: &'static str,
}

impl<const D: usize> Ownership<D> {
    fn empty(array: &'static str, index: &'static str, counts: [u64; D]) -> Self {
        Ownership {
            origin: 0,
            strides: [0; D],
            counts,
            low_offset: 0,
            width: 0,
            mode: Mode::Hull,
            order: [Term { stride: 0, count: 1, dim: None }; MAX_TERMS],
            n_order: 0,
            lowest: 0,
            highest: -1,
            direction: Direction::Increasing,
            array,
            index,
        }
    }

    /// The array's name in messages.
    pub fn array(&self) -> &'static str {
        self.array
    }

    /// The index expression as written, for messages.
    pub fn index(&self) -> &'static str {
        self.index
    }

    /// Iteration numbers of flat iteration `p` (row-major over the collapsed dimensions).
    fn decode(&self, mut p: u64) -> [u64; D] {
        let mut t = [0u64; D];
        for d in (0..D).rev() {
            let c = self.counts[d].max(1);
            t[d] = p % c;
            p /= c;
        }
        t
    }

    /// The lowest element iteration `t` owns.
    fn base(&self, t: &[u64; D]) -> i128 {
        // Cannot overflow: `check` bounded every element by `lowest..=highest`.
        (0..D).fold(self.origin + self.low_offset, |acc, d| acc + self.strides[d] * i128::from(t[d]))
    }

    /// The interval `[lo, hi]` owned by flat iterations `first..last`, when it is contiguous (monotone ownership)
    /// and the range is not empty.
    pub(crate) fn interval(&self, first: u64, last: u64) -> Option<(i128, i128)> {
        if first >= last || self.highest < self.lowest {
            return None;
        }
        let (a, b) = (self.base(&self.decode(first)), self.base(&self.decode(last - 1)));
        match self.direction {
            Direction::Increasing => Some((a, b + self.width)),
            Direction::Decreasing => Some((b, a + self.width)),
            Direction::Mixed => None,
        }
    }

    /// Lattice mode whose parallel part is dense (flat iteration `p` at `base + p`, as a collapsed nest over a
    /// row-major array is): the chunk `first..last` owns, for each point of the sequential terms (`y[k * 4 + v]`
    /// with `v` in `0..4`, miniWeather's `tend[ll * nz * nx + k * nx + i]`), one contiguous interval, `[lo, hi]`
    /// in `out`. The number written, 0 when the form is not of that kind or has more than `out.len()` points. A
    /// parallel part that is not dense gets [`Ownership::block_intervals`]'s intervals, where its form has them.
    pub(crate) fn lattice_intervals(&self, first: u64, last: u64, out: &mut [(i128, i128)]) -> usize {
        if self.mode != Mode::Lattice || first >= last || self.highest < self.lowest {
            return 0;
        }
        // Dense: the stride of each dimension is the number of iterations of the dimensions inside it.
        let mut inside: i128 = 1;
        for d in (0..D).rev() {
            if self.counts[d] > 1 && self.strides[d] != inside {
                return self.block_intervals(first, last, out);
            }
            inside = inside.saturating_mul(i128::from(self.counts[d].max(1)));
        }
        let seq: Vec<&Term> = self.order[..self.n_order].iter().filter(|t| t.dim.is_none()).collect();
        let points = seq.iter().try_fold(1usize, |n, t| n.checked_mul(usize::try_from(t.count).ok()?));
        let Some(points) = points.filter(|&n| n <= out.len()) else { return 0 };
        // Iteration p's points: `origin + p + low_offset + Σ q_k·|s_k|` (negative strides counted from their far end).
        let (a, b) = (self.origin + self.low_offset + i128::from(first), self.origin + self.low_offset + i128::from(last - 1));
        for (j, slot) in out.iter_mut().enumerate().take(points) {
            let (mut rest, mut off) = (j, 0i128);
            for t in &seq {
                let c = t.count as usize;
                off += (rest % c) as i128 * t.stride.abs();
                rest /= c;
            }
            *slot = (a + off, b + off);
        }
        points
    }

    /// Lattice mode whose terms are all one dense mixed-radix number with the sequential terms between the parallel
    /// ones: element `lowest + u·S·B + s·B + v` for flat iteration `p = u·B + v` (the outer dimensions number `u`, the
    /// inner ones, `B` iterations in all, number `v`) and sequential point `s < S`. A bitonic stage's
    /// `input[seq·2h + k]` and `input[seq·2h + k + h]` (`k < h`, the offset `h` the sequential term) is of this
    /// kind. The chunk `first..last` then owns, for a partial block `u` at either end, one interval per point, and
    /// for the whole blocks in between one interval: at most `2S + 1` intervals, written into `out` as `[lo, hi]`.
    /// The number written, 0 when the form is not of that kind or the intervals do not fit.
    fn block_intervals(&self, first: u64, last: u64, out: &mut [(i128, i128)]) -> usize {
        let terms = &self.order[..self.n_order];
        if terms.iter().any(|t| t.stride <= 0) {
            return 0;
        }
        // Walk the terms from the smallest stride up: the inner dimensions (the nest's last ones, in nest order),
        // then the sequential terms, then the outer dimensions, each stride the span of everything below it.
        let mut expected: i128 = 1;
        let mut next_dim = D;
        let (mut block, mut points) = (None::<i128>, 1i128);
        for t in terms.iter().rev() {
            if t.stride != expected {
                return 0;
            }
            match t.dim {
                Some(d) => {
                    // Parallel dimensions come in nest order, innermost first (a dimension of one iteration has no
                    // term; one of more that came out of order meets this test later, its stride being larger).
                    if d >= next_dim {
                        return 0;
                    }
                    next_dim = d;
                }
                None => {
                    if block.is_some_and(|b| b * points != expected) {
                        return 0; // a parallel dimension between two sequential terms
                    }
                    block.get_or_insert(expected);
                    points *= i128::from(t.count);
                }
            }
            expected = match expected.checked_mul(i128::from(t.count)) {
                Some(e) => e,
                None => return 0,
            };
        }
        let Some(b) = block else { return 0 };
        if 2 * points + 1 > out.len() as i128 {
            return 0;
        }
        let (base, sb) = (self.origin + self.low_offset, b * points);
        let (f, l) = (i128::from(first), i128::from(last - 1));
        let (u0, r0, u1, r1) = (f / b, f % b, l / b, l % b);
        let mut n = 0;
        let mut push = |lo: i128, hi: i128| {
            out[n] = (lo, hi);
            n += 1;
        };
        if u0 == u1 {
            for q in 0..points {
                push(base + u0 * sb + q * b + r0, base + u0 * sb + q * b + r1);
            }
        } else {
            let whole = (if r0 == 0 { u0 } else { u0 + 1 }, if r1 == b - 1 { u1 } else { u1 - 1 });
            if whole.0 <= whole.1 {
                push(base + whole.0 * sb, base + whole.1 * sb + (sb - 1));
            }
            if r0 != 0 {
                for q in 0..points {
                    push(base + u0 * sb + q * b + r0, base + u0 * sb + q * b + b - 1);
                }
            }
            if r1 != b - 1 {
                for q in 0..points {
                    push(base + u1 * sb + q * b, base + u1 * sb + q * b + r1);
                }
            }
        }
        n
    }

    /// The flat iteration that owns element `idx`, if any (exact, for any direction).
    #[inline]
    pub(crate) fn owner(&self, idx: usize) -> Option<u64> {
        self.digits(idx).map(|(p, _)| p)
    }

    /// Whether the chunk `first..last` owns every point `lo + Σ q_k·stride_k`, `q_k < count_k` (all inside
    /// `0..len`, strides walking upwards): they must lie in the chunk's interval (monotone hull mode), or each
    /// stride must walk one distinct term of the form from an owned point (mixed radix then puts every point of
    /// the box at the digits in between), with the owners of all corners in the chunk (a contiguous range of flat
    /// iterations, so everything between them is in it too).
    pub(crate) fn owns_box<const K: usize>(&self, first: u64, last: u64, lo: usize, dims: [(usize, usize); K], len: usize) -> bool {
        if dims.iter().any(|&(_, c)| c == 0) {
            return true;
        }
        let mut hi = lo;
        for &(s, c) in &dims {
            match s.checked_mul(c - 1).and_then(|x| x.checked_add(hi)) {
                Some(h) => hi = h,
                None => return false,
            }
        }
        if hi >= len {
            return false;
        }
        if let Some((a, b)) = self.interval(first, last) {
            return a <= lo as i128 && hi as i128 <= b;
        }
        if self.mode != Mode::Lattice {
            return false;
        }
        let Some((_, base)) = self.digits(lo) else { return false };
        // Each window dimension walks one term: stride equal, digit range inside the term.
        let mut used = [false; MAX_TERMS];
        for &(s, c) in &dims {
            if c == 1 {
                continue;
            }
            let k = (0..self.n_order).find(|&k| !used[k] && self.order[k].stride.unsigned_abs() == s as u128);
            match k {
                Some(k) if base[k] + (c as u64 - 1) < self.order[k].count => used[k] = true,
                _ => return false,
            }
        }
        // The corners' owners (the flat extremes of the box) in the chunk.
        (0..1usize << K).all(|corner| {
            let idx = dims.iter().enumerate().fold(lo, |acc, (k, &(s, c))| if corner >> k & 1 == 1 { acc + s * (c - 1) } else { acc });
            self.owner(idx).is_some_and(|p| (first..last).contains(&p))
        })
    }

    /// The owner of `idx` with the digits of its decomposition (one per term of `order`, counted from the term's
    /// lowest element, so that adding `|stride|` adds one).
    #[inline]
    fn digits(&self, idx: usize) -> Option<(u64, [u64; MAX_TERMS])> {
        let idx = idx as i128;
        if idx < self.lowest || idx > self.highest {
            return None;
        }
        // Write the negative strides as positive ones over reversed iteration numbers, then peel off the terms
        // from the largest stride down: mixed radix makes the decomposition unique.
        // Hull mode: from the lowest element of the iteration's interval (`low_offset` shifts the sequential
        // terms); lattice mode: the sequential terms are peeled off below like the parallel ones.
        let mut rest = idx - self.origin - if self.mode == Mode::Hull { self.low_offset } else { 0 };
        for term in &self.order[..self.n_order] {
            if term.stride < 0 {
                rest -= term.stride * i128::from(term.count - 1);
            }
        }
        let mut t = [0u64; D];
        let mut digits = [0u64; MAX_TERMS];
        for (k, term) in self.order[..self.n_order].iter().enumerate() {
            if rest < 0 {
                return None;
            }
            let s = term.stride.abs();
            // 64-bit division where both fit (every real index does): a 128-bit one is a library call, several
            // times slower, and this runs for every access outside a chunk's windows.
            let q = match (u64::try_from(rest), u64::try_from(s)) {
                (Ok(r), Ok(s)) => i128::from(r / s),
                _ => rest / s,
            };
            if q >= i128::from(term.count) {
                return None;
            }
            rest -= q * s;
            digits[k] = q as u64;
            if let Some(d) = term.dim {
                t[d] = if term.stride < 0 { term.count - 1 - q as u64 } else { q as u64 };
            }
        }
        let fits = match self.mode {
            Mode::Hull => (0..=self.width).contains(&rest),
            Mode::Lattice => rest == 0,
        };
        fits.then(|| (t.iter().zip(&self.counts).fold(0u64, |p, (&t, &c)| p * c.max(1) + t), digits))
    }

    /// The ownership as the 64-bit slots of a written array (see `omp_device::view::Owner`): its [`OwnerMode`],
    /// origin, width, one stride per
    /// dimension, then `inner` pairs (stride, count) of the sequential-loop terms, largest first (padded with
    /// `(0, 1)`). `None` when some owned element lies outside `i64`, or the form has more sequential-loop terms than
    /// `inner` slots.
    pub(crate) fn device_slots(&self, inner: usize) -> Option<Vec<u64>> {
        if self.highest < self.lowest {
            let mut out = vec![OwnerMode::Nothing.encode(), 0, 0];
            out.extend(std::iter::repeat_n(0, D));
            out.extend((0..inner).flat_map(|_| [0, 1]));
            return Some(out);
        }
        if self.lowest < i128::from(i64::MIN) || self.highest > i128::from(i64::MAX) {
            return None;
        }
        let mode = match self.mode {
            // Every element any iteration owns in 0..2^31: the kernel checks in 32-bit arithmetic (see
            // `omp_device::view::Owner`: modulo 2^32 the base is exact, and an index below it wraps past the width).
            Mode::Hull if self.lowest >= 0 && self.highest < 1 << 31 => OwnerMode::Hull32,
            Mode::Hull => OwnerMode::Hull,
            Mode::Lattice => OwnerMode::Lattice,
        };
        // Lattice mode: the lowest point of iteration 0's set (negative sequential terms at their far end).
        let origin = match self.mode {
            Mode::Hull => self.origin + self.low_offset,
            Mode::Lattice => {
                let shift: i128 = self.order[..self.n_order]
                    .iter()
                    .filter(|t| t.dim.is_none() && t.stride < 0)
                    .map(|t| t.stride * i128::from(t.count - 1))
                    .sum();
                self.origin + shift
            }
        };
        let mut out = Vec::with_capacity(3 + D + 2 * inner);
        out.extend([mode.encode(), i64::try_from(origin).ok()? as u64, u64::try_from(self.width).ok()?]);
        for d in 0..D {
            // A dimension of one iteration never moves the index; its stride may be anything.
            out.push(if self.counts[d] > 1 { i64::try_from(self.strides[d]).ok()? as u64 } else { 0 });
        }
        let terms: Vec<&Term> = match self.mode {
            Mode::Hull => Vec::new(),
            Mode::Lattice => self.order[..self.n_order].iter().filter(|t| t.dim.is_none()).collect(),
        };
        if terms.len() > inner {
            return None;
        }
        for t in &terms {
            out.push(u64::try_from(t.stride.unsigned_abs()).ok()?);
            out.push(t.count);
        }
        out.extend((terms.len()..inner).flat_map(|_| [0, 1]));
        Some(out)
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use proptest::prelude::*;

    fn dim(lo: i64, hi: i64) -> Dim<i64> {
        Dim::from(lo..hi)
    }

    #[test]
    fn kernels_check_in_32_bits_only_when_every_owned_element_is_below_2_pow_31() {
        let mode = |origin: i128, stride: i128, n: i64| {
            let d = dim(0, n);
            Affine::new(Some(origin), [n as u64]).term(0, Some(stride), &d).ownership("y", "i").unwrap().device_slots(0).unwrap()[0]
        };
        assert_eq!(mode(0, 1, 1000), 3);
        assert_eq!(mode((1 << 31) - 1000, 1, 1000), 3, "the last element is 2^31 - 1");
        assert_eq!(mode((1 << 31) - 999, 1, 1000), 0, "the last element is 2^31");
        assert_eq!(mode(-1, 1, 10), 0, "an element below zero");
        assert_eq!(mode(1 << 40, -3, 1000), 0);
        // Sequential-loop terms (lattice mode) keep their own check.
        let (d, k) = (dim(0, 10), dim(0, 4));
        let lattice = Affine::new(Some(0), [10]).term(0, Some(1), &d).inner(Some(10), &k).ownership("y", "i + 10 * k").unwrap();
        assert_eq!(lattice.device_slots(1).unwrap()[0], 1);
    }

    #[test]
    fn offsets_are_owned_and_kept_apart() {
        // f[i], f[p + i], f[3p + i] for i in 0..8: planes of p elements.
        let planes = |p: i128| {
            let d = dim(0, 8);
            Affine::new(Some(0), [8]).term(0, Some(1), &d).offsets(&[Some(0), Some(p), Some(3 * p)]).ownership("f", "k * p + i")
        };
        let o = planes(8).unwrap();
        for i in 0..8u64 {
            for k in [0, 1, 3] {
                assert_eq!(o.owner(k * 8 + i as usize), Some(i), "f[{k} * 8 + {i}]");
            }
        }
        assert!(planes(10).is_ok(), "planes wider than a row");
        assert!(planes(7).is_err(), "the planes overlap the next iteration's elements");
        // Offsets 0, 2, 3 of a stride-4 index: one iteration owns 4i..=4i+3, apart from the next one's.
        let d = dim(0, 5);
        let o = Affine::new(Some(1), [5]).term(0, Some(4), &d).offsets(&[Some(0), Some(3), Some(2)]).ownership("y", "4 * i + 1").unwrap();
        assert_eq!((o.owner(1), o.owner(4), o.owner(5), o.owner(20)), (Some(0), Some(0), Some(1), Some(4)));
        assert!(Affine::new(Some(0), [5]).term(0, Some(2), &d).offsets(&[Some(0), Some(2)]).ownership("y", "2 * i").is_err());
        assert!(Affine::new(Some(0), [5]).term(0, Some(2), &d).offsets(&[Some(0), None]).ownership("y", "2 * i").is_err(), "overflow");
    }

    #[test]
    fn constant_offsets_of_a_dense_nest_give_one_interval_each() {
        // tend[ll * plane + k * nx + i] for ll in 0..4 (miniWeather's C++ form), k in 0..3, i in 0..5.
        let (nz, nx, plane) = (3u64, 5u64, 20i128);
        let (dk, di) = (dim(0, nz as i64), dim(0, nx as i64));
        let offs: Vec<Option<i128>> = (0..4).map(|ll| Some(ll * plane)).collect();
        let o = Affine::new(Some(0), [nz, nx]).term(0, Some(nx as i128), &dk).term(1, Some(1), &di).offsets(&offs).check("tend", "...");
        assert_eq!(o.mode, Mode::Lattice);
        let mut out = [(0, 0); 8];
        assert_eq!(o.lattice_intervals(4, 11, &mut out), 4);
        assert_eq!(&out[..4], &[(4, 10), (24, 30), (44, 50), (64, 70)]);
        // Not dense (rows padded to 6): no intervals, every access is decided exactly.
        let o = Affine::new(Some(0), [nz, nx]).term(0, Some(6), &dk).term(1, Some(1), &di).offsets(&offs).check("tend", "...");
        assert_eq!(o.lattice_intervals(4, 11, &mut out), 0);
    }

    #[test]
    fn a_bitonic_stage_gives_a_chunk_two_intervals_per_partial_sequence_and_one_for_whole_ones() {
        // input[seq * 2h + k] and input[seq * 2h + k + h], seq in 0..4, k in 0..h, h = 8 (a bitonic stage).
        let h = 8u64;
        let (ds, dk) = (dim(0, 4), dim(0, h as i64));
        let o = Affine::new(Some(0), [4, h])
            .term(0, Some(2 * h as i128), &ds)
            .term(1, Some(1), &dk)
            .offsets(&[Some(0), Some(h as i128)])
            .check("input", "seq_num * seq_len + k");
        assert_eq!(o.mode, Mode::Lattice);
        let mut out = [(0, 0); 8];
        // Iterations 3..6 of sequence 0: k = 3..=5 and k + h.
        assert_eq!(o.lattice_intervals(3, 6, &mut out), 2);
        assert_eq!(&out[..2], &[(3, 5), (11, 13)]);
        // Iterations 5..29: the end of sequence 0, sequences 1 and 2 whole, the start of sequence 3.
        assert_eq!(o.lattice_intervals(5, 29, &mut out), 5);
        assert_eq!(&out[..5], &[(16, 47), (5, 7), (13, 15), (48, 52), (56, 60)]);
        // Whole sequences only: one interval.
        assert_eq!(o.lattice_intervals(8, 24, &mut out), 1);
        assert_eq!(out[0], (16, 47));
        // The parallel dimensions out of nest order (`y[i + 8 * j]` and `y[i + 8 * j + 4]` for i in 0..4, j in 0..3):
        // dense, but a chunk's flat iterations are not a block range; no intervals.
        let (di, dj) = (dim(0, 4), dim(0, 3));
        let o = Affine::new(Some(0), [4, 3]).term(0, Some(1), &di).term(1, Some(8), &dj).offsets(&[Some(0), Some(4)]).check("y", "...");
        assert_eq!(o.mode, Mode::Lattice);
        assert_eq!(o.lattice_intervals(1, 5, &mut out), 0);
        // A parallel dimension between two sequential terms: no intervals (each access decided exactly).
        let d = dim(0, 4);
        let o = Affine::new(Some(0), [4]).term(0, Some(2), &d).offsets(&[Some(0), Some(1)]).inner(Some(8), &dim(0, 2)).check("y", "...");
        assert_eq!(o.lattice_intervals(1, 3, &mut out), 0);
    }

    proptest! {
        /// A chunk's block intervals (sequential terms between the parallel dimensions) hold exactly the elements
        /// the chunk's iterations own.
        #[test]
        fn block_intervals_are_exactly_what_the_chunk_owns(
            outer in 1u64..5, inner in 1u64..6, points in 1usize..4, a in 0u64..40, len in 1u64..40, origin in 0i128..5,
        ) {
            let (d0, d1) = (dim(0, outer as i64), dim(0, inner as i64));
            let block = i128::from(inner);
            let offs: Vec<Option<i128>> = (0..points as i128).map(|q| Some(q * block)).collect();
            let stride = block * points as i128;
            let o = Affine::new(Some(origin), [outer, inner]).term(0, Some(stride), &d0).term(1, Some(1), &d1).offsets(&offs).check("y", "...");
            // One point, or one iteration per block: each iteration owns an interval (hull mode, `interval`).
            prop_assume!(o.mode == Mode::Lattice);
            let total = outer * inner;
            let (first, last) = (a.min(total), (a + len).min(total));
            let mut out = [(0, 0); 8];
            let k = o.lattice_intervals(first, last, &mut out);
            prop_assert!(first == last || k > 0, "no intervals for {first}..{last}");
            let covered = |idx: i128| out[..k].iter().any(|&(lo, hi)| (lo..=hi).contains(&idx));
            for idx in 0..(origin + i128::from(total) * points as i128 + 2) {
                let owner = o.owner(idx as usize).filter(|p| (first..last).contains(p));
                prop_assert_eq!(covered(idx), owner.is_some(), "element {}, owner {:?}, chunk {}..{}, {:?}", idx, o.owner(idx as usize), first, last, &out[..k]);
            }
        }

        /// Every element of a chunk's lattice intervals is owned by an iteration of the chunk.
        #[test]
        fn lattice_intervals_are_owned_by_the_chunk(
            nz in 1u64..5, nx in 1u64..7, extra in 0i128..9, step in 1i128..4, points in 1usize..6,
            a in 0u64..40, len in 1u64..40,
        ) {
            let plane = (nz * nx) as i128 + extra;
            let offs: Vec<Option<i128>> = (0..points as i128).map(|q| Some(q * step * plane)).collect();
            let (dk, di) = (dim(0, nz as i64), dim(0, nx as i64));
            let o = Affine::new(Some(3), [nz, nx]).term(0, Some(nx as i128), &dk).term(1, Some(1), &di).offsets(&offs).check("t", "...");
            let total = nz * nx;
            let (first, last) = (a.min(total), (a + len).min(total));
            let mut out = [(0, 0); 8];
            let k = o.lattice_intervals(first, last, &mut out);
            for &(lo, hi) in &out[..k] {
                for idx in lo..=hi {
                    let owner = o.owner(idx as usize);
                    prop_assert!(owner.is_some_and(|p| (first..last).contains(&p)), "element {idx}: owner {owner:?}, chunk {first}..{last}");
                }
            }
        }
    }

    #[test]
    fn row_major_is_disjoint_and_monotone() {
        let (d0, d1) = (dim(0, 8), dim(0, 10));
        let o = Affine::new(Some(0), [8, 10]).term(0, Some(10), &d0).term(1, Some(1), &d1).check("b", "i * n + j");
        assert_eq!(o.direction, Direction::Increasing);
        assert_eq!(o.interval(5, 23), Some((5, 22)));
        assert_eq!(o.owner(37), Some(37));
        let o = Affine::new(Some(0), [8, 9]).term(0, Some(10), &d0).term(1, Some(1), &dim(0, 9)).check("b", "i * n + j");
        assert_eq!(o.owner(9), None, "the gap between rows belongs to nobody");
    }

    #[test]
    #[should_panic(expected = "may write the same element of `b`")]
    fn short_rows_overlap() {
        Affine::new(Some(0), [8, 11]).term(0, Some(10), &dim(0, 8)).term(1, Some(1), &dim(0, 11)).check("b", "i * n + j");
    }

    #[test]
    #[should_panic(expected = "may write the same element")]
    fn zero_coefficient_overlaps() {
        Affine::new(Some(0), [8]).term(0, Some(0), &dim(0, 8)).check("y", "i * n");
    }

    #[test]
    fn inner_loops_widen_each_iteration() {
        // y[i * 4 + k], k in 0..4: iteration i owns [4i, 4i + 3].
        let o = Affine::new(Some(0), [5]).term(0, Some(4), &dim(0, 5)).inner(Some(1), &dim(0, 4)).check("y", "i * 4 + k");
        assert_eq!(o.interval(1, 3), Some((4, 11)));
        let r = std::panic::catch_unwind(|| {
            Affine::new(Some(0), [5]).term(0, Some(4), &dim(0, 5)).inner(Some(1), &dim(0, 5)).check("y", "i*4+k")
        });
        assert!(r.is_err(), "rows of 5 overlap at stride 4");
    }

    #[test]
    fn inner_loops_as_the_slow_digit_own_lattice_points() {
        // px[i + r * n], r in 4..14 (Lcals DIFF_PREDICT): iteration i owns i + 4n, i + 5n, ...
        let n = 7i64;
        let o = Affine::new(Some(0), [n as u64]).term(0, Some(1), &dim(0, n)).inner(Some(n as i128), &dim(4, 14)).check("px", "i + r * n");
        assert_eq!(o.mode, Mode::Lattice);
        assert_eq!(o.direction, Direction::Mixed);
        for i in 0..n as u64 {
            for r in 4..14u64 {
                assert_eq!(o.owner((i + r * n as u64) as usize), Some(i));
            }
        }
        assert_eq!(o.owner(3), None);
        assert_eq!(o.owner((14 * n) as usize), None);
        // Iteration 2's points, walked along the `r` term, belong to a chunk holding iteration 2 only.
        let (len, n) = (100, n as usize);
        assert!(o.owns_box(2, 3, 2 + 4 * n, [(n, 10)], len));
        assert!(!o.owns_box(2, 3, 2 + 4 * n, [(n, 11)], len), "past the last r");
        assert!(!o.owns_box(3, 5, 2 + 4 * n, [(n, 10)], len), "another chunk's");
        assert!(!o.owns_box(2, 3, 2 + 4 * n, [(1, 2)], len), "not along one term");
        // Iterations 1..4 × every r: a chunk's row times the inner loop.
        assert!(o.owns_box(1, 4, 1 + 4 * n, [(1, 3), (n, 10)], len));
        assert!(!o.owns_box(1, 3, 1 + 4 * n, [(1, 3), (n, 10)], len), "iteration 3 is another chunk's");
    }

    #[test]
    fn transposed_writes_are_disjoint_but_mixed() {
        // b[j * n + i] over collapse(i, j): injective, not monotone in the flat order.
        let o = Affine::new(Some(0), [4, 6]).term(0, Some(1), &dim(0, 4)).term(1, Some(4), &dim(0, 6)).check("b", "j * n + i");
        assert_eq!(o.direction, Direction::Mixed);
        assert_eq!(o.interval(0, 3), None);
        for i in 0..4u64 {
            for j in 0..6u64 {
                assert_eq!(o.owner((j * 4 + i) as usize), Some(i * 6 + j));
            }
        }
    }

    #[test]
    fn reversed_and_stepped_dimensions() {
        let d = Dim::from(0i64..10).step_by(3).rev(); // 9, 6, 3, 0
        let o = Affine::new(Some(1), [4]).term(0, Some(2), &d).check("y", "2 * i + 1");
        assert_eq!(o.direction, Direction::Decreasing);
        assert_eq!(o.owner(19), Some(0));
        assert_eq!(o.owner(1), Some(3));
        assert_eq!(o.owner(3), None);
        assert_eq!(o.interval(1, 3), Some((7, 13)));
    }

    #[test]
    fn narrow_arithmetic_must_fit_its_type() {
        let d = Dim::from(0u8..=255);
        // (2 * i) as usize with i: u8 wraps at i = 128.
        let r = std::panic::catch_unwind(|| {
            Affine::new(Some(0), [256]).term(0, Some(2), &d).check_type(u8::bounds(), "y", "(2 * i) as usize", "2 * i")
        });
        assert!(r.is_err());
        Affine::new(Some(0), [128]).term(0, Some(2), &Dim::from(0u8..128)).check_type(u8::bounds(), "y", "(2 * i) as usize", "2 * i");
    }

    #[test]
    fn overflow_is_rejected_not_wrapped() {
        let r = std::panic::catch_unwind(|| Affine::new(Some(0), [4]).term(0, Some(i128::MAX / 2), &dim(0, 4)).check("y", "i * big"));
        assert!(r.is_err());
        // An empty loop never indexes, whatever its coefficients.
        let o = Affine::new(Some(0), [0]).term(0, Some(i128::MAX), &dim(5, 5)).check("y", "i * big");
        assert_eq!(o.interval(0, 0), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        // Brute force: whatever `check` accepts has pairwise disjoint hulls, `owner` inverts them, and
        // `interval` is exactly the hull of a chunk when it claims one.
        #[test]
        fn accepted_forms_are_disjoint(
            c in -20i128..20,
            a in prop::collection::vec(-30i128..30, 1..=3),
            lo in prop::collection::vec(-5i64..5, 3),
            n in prop::collection::vec(0i64..6, 3),
            step in prop::collection::vec(1usize..3, 3),
            rev in prop::collection::vec(any::<bool>(), 3),
            inner in prop::option::of((-4i128..5, 0i64..4)),
        ) {
            let d = a.len();
            let dims: Vec<Dim<i64>> = (0..d).map(|k| {
                let x = Dim::from(lo[k]..lo[k] + n[k]).step_by(step[k]);
                if rev[k] { x.rev() } else { x }
            }).collect();
            macro_rules! run { ($D:literal) => {{
                let counts: [u64; $D] = std::array::from_fn(|k| dims[k].count());
                let mut f = Affine::<$D>::new(Some(c), counts);
                for k in 0..$D { f = f.term(k, Some(a[k]), &dims[k]); }
                let inner_dim = inner.map(|(b, m)| (b, Dim::from(0i64..m)));
                if let Some((b, id)) = &inner_dim { f = f.inner(Some(*b), id); }
                if let Ok(o) = f.ownership("y", "f") {
                    let total: u64 = counts.iter().product();
                    let mut owner_of = std::collections::HashMap::new();
                    for p in 0..total {
                        let t = o.decode(p);
                        let mut v = c;
                        for k in 0..$D { v += a[k] * dims[k].at(t[k]).to_i128(); }
                        let ws: Vec<i128> = match &inner_dim {
                            Some((b, id)) => (0..id.count()).map(|u| v + b * id.at(u).to_i128()).collect(),
                            None => vec![v],
                        };
                        for w in ws {
                            if o.mode == Mode::Hull {
                                prop_assert!(w >= o.base(&t) && w <= o.base(&t) + o.width);
                            }
                            if let Some(prev) = owner_of.insert(w, p) { prop_assert_eq!(prev, p, "element {} reached by two iterations", w); }
                            if w >= 0 { prop_assert_eq!(o.owner(w as usize), Some(p)); }
                        }
                    }
                    for first in 0..total {
                        for last in first + 1..=total {
                            if let Some((ilo, ihi)) = o.interval(first, last) {
                                for (&w, &p) in &owner_of {
                                    prop_assert_eq!(w >= ilo && w <= ihi, p >= first && p < last);
                                }
                            }
                        }
                    }
                }
            }}}
            match d { 1 => run!(1), 2 => run!(2), _ => run!(3) }
        }
    }
}
