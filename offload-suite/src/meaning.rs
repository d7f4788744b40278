//! The kernel means what the host code means: regions whose device kernel the outliner rebuilds from the user's
//! tokens in another crate, written where that rebuilding could resolve a name, a `cfg`, a type or a mapping
//! differently from rustc. Each check runs the region next to sequential Rust on fresh inputs (through the host
//! plugin in CI, on the host path with `OMP_TARGET_OFFLOAD=DISABLED`, on the GPU on a device machine). Refusals of
//! forms whose meaning the outliner cannot reproduce are UI tests (`omp-rs-macros/tests/ui/meaning/`).

#![allow(clippy::all, dead_code, unused_imports, non_upper_case_globals)]

use rand::rngs::StdRng;
use rand::Rng;

use crate::{same, vec_f64, Check};

/// Every check of this module.
pub const CHECKS: &[Check] = &[
    ("meaning: an explicit `use a::X` beside `use super::*` names a::X in the kernel too", check_explicit_use_wins),
    ("meaning: a const and a helper fn declared in the block after the region", check_items_after_region),
    ("meaning: a const generic W bound to a local (the module's const W is another)", check_const_generic_shadows),
    ("meaning: a helper's own names resolve in the helper's module, not the region's", check_helper_names_in_its_module),
    ("meaning: #[cfg(feature)] items and cfg!(feature) in the body take the host's branch", check_features),
    ("meaning: cfg!(debug_assertions) and debug_assert! in a kernel follow the profile", check_debug_assertions),
    ("meaning: an unsuffixed literal range -50..50 is i32 in the kernel too", check_literal_range_type),
    ("meaning: (u64::MAX - 3)..=u64::MAX", check_range_to_type_max),
    ("meaning: divided loop variables below, across and above 2^32, ascending by steps and descending", check_divided_near_2_32),
    ("meaning: a map(to: x[0..n]) section region reads the section's bound (x.len() there is refused)", check_section_len),
    ("meaning: mem::forget of a target_data token still copies back and unmaps", check_forgotten_token),
    ("meaning: max reduction in the `if x > m { m = x }` form keeps a NaN start", check_nan_start_if_form),
    ("meaning: min reduction in the `if m > x { m = x }` form, NaN start and NaN values", check_nan_min_forms),
    ("meaning: reduction(&&: ok) as `ok = e && ok` (e runs in every iteration, as sequentially)", check_and_reduction),
    ("meaning: OMP_RS_CHECK=host finds a stale device copy (a missing target_update!(to: x))", check_differential_finds_stale_copy),
    ("meaning: x % y on f64 and f32 is the exact remainder (fmod), large quotients and signs included", check_float_remainder),
    ("meaning: rem_euclid, div_euclid, fract, round_ties_even on f64 and f32 give the host's bits", check_std_float_methods),
    ("meaning: a match arm naming a const compares with it on the device too", check_const_patterns),
    ("meaning: a type alias in arrays, scalars, a declare_target struct's fields and consts (a value, a table)", check_type_alias),
    ("meaning: exp_m1, ln_1p, asinh, acosh, atanh in a kernel (f64 and f32)", check_more_math),
    ("meaning: f32 and f64 square roots are the host's bit for bit (correctly rounded, subnormals included)", check_exact_roots),
    ("meaning: a read-only static table read in a kernel and by its helper", check_static_table),
];

// ---------------------------------------------------------------------------------------------------------------
// Name resolution

const SCALE: f64 = 2.0;

pub mod scales {
    pub const SCALE: f64 = 3.0;
}

pub mod explicit {
    use super::*;
    // An explicit import shadows the glob's `SCALE` (Rust: a glob never shadows a named import).
    use crate::meaning::scales::SCALE;

    #[omp::target_teams_distribute_parallel_for]
    pub fn scaled(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = SCALE * x[i];
        }
    }
}

fn check_explicit_use_wins(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    explicit::scaled(&x, &mut y);
    let want: Vec<f64> = x.iter().map(|v| scales::SCALE * v).collect();
    same("y", &y, &want)
}

const LATE: f64 = 1.0;
fn late_helper(v: f64) -> f64 {
    v - 100.0
}

#[omp::directives]
fn items_after(x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = late_helper(x[i]) * LATE;
    }
    // Items of a block are visible in the whole block, before their declaration too.
    const LATE: f64 = 4.0;
    fn late_helper(v: f64) -> f64 {
        v + 10.0
    }
}

fn check_items_after_region(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    items_after(&x, &mut y);
    let want: Vec<f64> = x.iter().map(|v| (v + 10.0) * 4.0).collect();
    same("y", &y, &want)
}

const W: usize = 2;

// `W` itself in the region is refused (the kernel cannot see a const parameter): the local is the fix the error names.
#[omp::directives]
fn widened<const W: usize>(y: &mut [f64]) {
    let w: usize = W;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..y.len() {
        y[i] = (w * i) as f64;
    }
}

fn check_const_generic_shadows(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let mut y = vec![0.0; n];
    widened::<5>(&mut y);
    let want: Vec<f64> = (0..n).map(|i| (5 * i) as f64).collect();
    same("y", &y, &want)
}

const OFFSET: f64 = 0.5;

pub mod helper_home {
    use super::*;
    // The helper's `OFFSET` is this module's own; the region's module (the parent) has another.
    pub const OFFSET: f64 = 7.0;
    pub fn shifted(v: f64) -> f64 {
        v + OFFSET
    }
}

pub mod helper_user {
    use super::*;
    use crate::meaning::helper_home::shifted;

    // Not the helper's: the region does not name it (naming both is refused, the kernel has one scope).
    pub const OFFSET: f64 = -3.0;

    #[omp::target_teams_distribute_parallel_for]
    pub fn shift(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = shifted(x[i]) * 2.0;
        }
    }
}

fn check_helper_names_in_its_module(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    helper_user::shift(&x, &mut y);
    let want: Vec<f64> = x.iter().map(|v| (v + 7.0) * 2.0).collect();
    same("y", &y, &want)
}

// ---------------------------------------------------------------------------------------------------------------
// Configuration

#[cfg(feature = "meaning-probe")]
const FEATURED: f64 = 1.0;
#[cfg(not(feature = "meaning-probe"))]
const FEATURED: f64 = -1.0;

#[omp::target_teams_distribute_parallel_for]
fn featured(y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = FEATURED + if cfg!(feature = "meaning-probe") { 10.0 } else { 20.0 };
    }
}

fn check_features(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let mut y = vec![0.0; n];
    featured(&mut y);
    let want = FEATURED + if cfg!(feature = "meaning-probe") { 10.0 } else { 20.0 };
    same("y", &y, &vec![want; n])
}

#[omp::target_teams_distribute_parallel_for]
fn profiled(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        debug_assert!(x[i] < 0.75, "x[{i}] too large");
        y[i] = if cfg!(debug_assertions) { 1.0 } else { 2.0 };
    }
}

fn check_debug_assertions(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let mut x: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..0.5)).collect();
    let mut y = vec![0.0; n];
    profiled(&x, &mut y);
    same("y", &y, &vec![if cfg!(debug_assertions) { 1.0 } else { 2.0 }; n])?;
    x[rng.gen_range(0..n)] = 0.9;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| profiled(&x, &mut y)));
    match (r.is_err(), cfg!(debug_assertions)) {
        (true, true) | (false, false) => Ok(()),
        (false, true) => Err("debug_assert! did not fire in a debug build".into()),
        (true, false) => Err("debug_assert! fired in a release build".into()),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Types

#[omp::target_teams_distribute_parallel_for]
fn literal_range(y: &mut [f64]) {
    for i in -50..50 {
        y[(i + 50) as usize] = i as f64;
    }
}

fn check_literal_range_type(_: &mut StdRng) -> Result<(), String> {
    let mut y = vec![0.0; 100];
    literal_range(&mut y);
    let want: Vec<f64> = (-50..50).map(|i| i as f64).collect();
    same("y", &y, &want)
}

#[omp::target_teams_distribute_parallel_for]
fn top_of_range(y: &mut [f64]) {
    for v in (u64::MAX - 3)..=u64::MAX {
        y[(v - (u64::MAX - 3)) as usize] = (v % 1000) as f64;
    }
}

fn check_range_to_type_max(_: &mut StdRng) -> Result<(), String> {
    let mut y = vec![0.0; 4];
    top_of_range(&mut y);
    let want: Vec<f64> = ((u64::MAX - 3)..=u64::MAX).map(|v| (v % 1000) as f64).collect();
    same("y", &y, &want)
}

// The fast copy of a kernel computes a 64-bit loop variable that the body divides in 32 bits where the launch's
// values all fit there (`omp_device::abi::loop_value_u32`); values that reach 2^32 take the general copy.
#[omp::target_teams_distribute_parallel_for]
fn divided_ascending(base: u64, s: usize, y: &mut [u64]) {
    for k in (0..y.len()).step_by(s) {
        let v = base + k as u64;
        y[k] = v % 1_000_003 + (k % 7) as u64 * 3 + v / 65_536;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn divided_values(base: u64, y: &mut [u64]) {
    for v in base..base + y.len() as u64 {
        y[(v - base) as usize] = v % 1_000_003 + v / 65_536;
    }
}

#[omp::target_teams_distribute_parallel_for]
fn divided_descending(n: usize, y: &mut [u64]) {
    for i in (0..n).rev() {
        y[n - 1 - i] = (i % 13) as u64 + (i / 5) as u64;
    }
}

fn check_divided_near_2_32(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000usize);
    let top = 1u64 << 32;
    for base in [top - n as u64, top - n as u64 - rng.gen_range(1..1000), top - rng.gen_range(1..n as u64 + 1), top, top + 17] {
        let mut y = vec![0u64; n];
        divided_values(base, &mut y);
        let want: Vec<u64> = (base..base + n as u64).map(|v| v % 1_000_003 + v / 65_536).collect();
        same(&format!("values from {base}"), &y, &want)?;
        let s = rng.gen_range(1..8);
        let mut y = vec![0u64; n];
        divided_ascending(base, s, &mut y);
        let mut want = vec![0u64; n];
        for k in (0..n).step_by(s) {
            let v = base + k as u64;
            want[k] = v % 1_000_003 + (k % 7) as u64 * 3 + v / 65_536;
        }
        same(&format!("ascending from {base} by {s}"), &y, &want)?;
    }
    let mut y = vec![0u64; n];
    divided_descending(n, &mut y);
    let want: Vec<u64> = (0..n).rev().map(|i| (i % 13) as u64 + (i / 5) as u64).collect();
    same("descending", &y, &want)
}

// `x.len()` in the region would be the section's length on a GPU and the slice's on the host: refused
// (`omp-rs-macros/tests/ui/meaning/section_len.rs`); the bound is the fix the error names.
#[omp::directives]
fn section_len(n: usize, x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(map(to: x[0..n]))]
    for i in 0..y.len() {
        y[i] = x[i] + n as f64;
    }
}

fn check_section_len(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n + 17);
    let mut y = vec![0.0; n];
    section_len(n, &x, &mut y);
    let want: Vec<f64> = (0..n).map(|i| x[i] + n as f64).collect();
    same("y", &y, &want)
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping

#[omp::directives]
fn forget_token(a: &mut [f64]) {
    #[omp::target_data(map(tofrom: a))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..a.len() {
            a[i] += 1.0;
        }
        #[allow(forgetting_references)]
        std::mem::forget(a);
    }
}

#[omp::target_teams_distribute_parallel_for]
fn add_two(a: &mut [f64]) {
    for i in 0..a.len() {
        a[i] += 2.0;
    }
}

fn check_forgotten_token(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let a0 = vec_f64(rng, n);
    let mut a = a0.clone();
    forget_token(&mut a);
    same("after the block", &a, &a0.iter().map(|v| v + 1.0).collect::<Vec<_>>())?;
    // A later region must see the host's data (the mapping ended with the block).
    a = a0.clone();
    add_two(&mut a);
    same("a later region", &a, &a0.iter().map(|v| v + 2.0).collect::<Vec<_>>())
}

// ---------------------------------------------------------------------------------------------------------------
// Reductions

#[omp::target_teams_distribute_parallel_for(reduction(max: m))]
fn max_if_form(m0: f64, x: &[f64]) -> f64 {
    let mut m = m0;
    for i in 0..x.len() {
        if x[i] > m {
            m = x[i];
        }
    }
    m
}

#[omp::parallel_for(reduction(max: m))]
fn max_if_form_host(m0: f64, x: &[f64]) -> f64 {
    let mut m = m0;
    for i in 0..x.len() {
        if x[i] > m {
            m = x[i];
        }
    }
    m
}

fn check_nan_start_if_form(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..30000);
    let x = vec_f64(rng, n);
    for m0 in [f64::NAN, -0.5, 2.0] {
        let mut want = m0;
        for &v in &x {
            if v > want {
                want = v;
            }
        }
        for (what, got) in [("target", max_if_form(m0, &x)), ("host", max_if_form_host(m0, &x))] {
            if got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan()) {
                return Err(format!("{what}: m0 = {m0}: {got}, sequential {want}"));
            }
        }
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for(reduction(min: m))]
fn min_if_form(m0: f64, x: &[f64]) -> f64 {
    let mut m = m0;
    for i in 0..x.len() {
        if m > x[i] {
            m = x[i];
        }
    }
    m
}

fn check_nan_min_forms(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..30000);
    let mut x = vec_f64(rng, n);
    for _ in 0..n / 50 {
        let k = rng.gen_range(0..n);
        x[k] = f64::NAN;
    }
    for m0 in [f64::NAN, 0.5, -2.0] {
        let mut want = m0;
        for &v in &x {
            if want > v {
                want = v;
            }
        }
        for (what, got) in [("if", min_if_form(m0, &x))] {
            if got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan()) {
                return Err(format!("{what}: m0 = {m0}: {got}, sequential {want}"));
            }
        }
    }
    Ok(())
}

#[omp::target_teams_distribute_parallel_for(reduction(&&: ok))]
fn all_below(limit: f64, x: &[f64]) -> bool {
    let mut ok = true;
    for i in 0..x.len() {
        ok = x[i] < limit && ok;
    }
    ok
}

fn check_and_reduction(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..30000);
    let x = vec_f64(rng, n);
    for limit in [2.0, 0.99, -2.0] {
        let want = x.iter().all(|v| *v < limit);
        if all_below(limit, &x) != want {
            return Err(format!("limit {limit}: {}, sequential {want}", !want));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// The differential mode

#[omp::target_teams_distribute_parallel_for]
fn doubled(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = 2.0 * x[i];
    }
}

/// `x` stays mapped (`target_enter_data!`) while the host changes it without `target_update!(to: x)`: a device run
/// reads the old values (OpenMP's meaning), the host path the new ones. `OMP_RS_CHECK=host` must say so, naming `y`.
fn check_differential_finds_stale_copy(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let mut x = vec_f64(rng, n);
    let old = x.clone();
    let mut y = vec![0.0; n];
    omp::target_enter_data!(map(to: x));
    for v in x.iter_mut() {
        *v += 1.0;
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| doubled(&x, &mut y)));
    omp::target_exit_data!(map(release: x));
    let checking = std::env::var("OMP_RS_CHECK").is_ok_and(|v| v == "host");
    let must_offload = std::env::var("OMP_TARGET_OFFLOAD").is_ok_and(|v| v == "MANDATORY");
    let stale: Vec<f64> = old.iter().map(|v| 2.0 * v).collect();
    let fresh: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
    match r {
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
            if checking && msg.contains("OMP_RS_CHECK=host") && msg.contains("`y[") {
                Ok(())
            } else {
                Err(format!("panicked: {msg}"))
            }
        }
        Ok(()) if checking && must_offload => Err("the device run read a stale copy and the check did not say so".into()),
        // On the device, without the check: the old values; on the host: the new ones.
        Ok(()) if y == stale && !checking => Ok(()),
        Ok(()) if y == fresh => Ok(()),
        Ok(()) => Err(format!("y[0] = {} (old x gives {}, new x {})", y[0], stale[0], fresh[0])),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Patterns

const CALL: i32 = 0;
const PUT: i32 = 1;

/// Black-Scholes' option types as consts matched in the kernel: a copy that missed them would make `CALL` a binding
/// (every option a call).
#[omp::target_teams_distribute_parallel_for]
fn payoff(kind: &[i32], y: &mut [f64]) {
    for i in 0..y.len() {
        let k = kind[i];
        y[i] = match k {
            CALL => 1.0,
            PUT => -1.0,
            other => other as f64 * 10.0,
        };
    }
}

fn check_const_patterns(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let kind: Vec<i32> = (0..n).map(|_| rng.gen_range(0..3)).collect();
    let mut y = vec![0.0; n];
    payoff(&kind, &mut y);
    let want: Vec<f64> = kind
        .iter()
        .map(|&k| match k {
            CALL => 1.0,
            PUT => -1.0,
            other => other as f64 * 10.0,
        })
        .collect();
    same("y", &y, &want)
}

// ---------------------------------------------------------------------------------------------------------------
// Type aliases

/// The precision of a code that builds in both (HeCBench's `RealType`, laplace's `Real`).
pub type Real = f32;

/// A body whose fields are typed with the alias.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    pub pos: [Real; 3],
    pub mass: Real,
}

/// Constants of the alias type, as nbody's `kSofteningSquared` (a value and a table).
const SOFTENING: Real = 1e-3;
const AXIS_WEIGHTS: [Real; 3] = [1.0, -0.5, 0.25];

#[omp::target_teams_distribute_parallel_for]
fn weighted(bodies: &[Body], w: Real, out: &mut [Real]) {
    for i in 0..out.len() {
        let b = bodies[i];
        out[i] = w * b.mass * (b.pos[0] + b.pos[1] + b.pos[2]);
    }
}

#[omp::target_teams_distribute_parallel_for]
fn softened(bodies: &[Body], out: &mut [Real]) {
    for i in 0..out.len() {
        let p = bodies[i].pos;
        out[i] = 1.0 / (p[0] * AXIS_WEIGHTS[0] + p[1] * AXIS_WEIGHTS[1] + p[2] * AXIS_WEIGHTS[2] + SOFTENING).abs().sqrt();
    }
}

fn check_type_alias(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let bodies: Vec<Body> = (0..n)
        .map(|_| Body {
            pos: [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)],
            mass: rng.gen_range(0.0..2.0),
        })
        .collect();
    let w: Real = rng.gen_range(0.5..1.5);
    let mut out = vec![0.0; n];
    weighted(&bodies, w, &mut out);
    let want: Vec<Real> = bodies.iter().map(|b| w * b.mass * (b.pos[0] + b.pos[1] + b.pos[2])).collect();
    same("out", &out, &want)?;
    softened(&bodies, &mut out);
    let want: Vec<Real> = bodies
        .iter()
        .map(|b| {
            let p = b.pos;
            1.0 / (p[0] * AXIS_WEIGHTS[0] + p[1] * AXIS_WEIGHTS[1] + p[2] * AXIS_WEIGHTS[2] + SOFTENING).abs().sqrt()
        })
        .collect();
    same("softened", &out, &want)
}

// ---------------------------------------------------------------------------------------------------------------
// Math functions of std beyond C's basic set

#[omp::target_teams_distribute_parallel_for]
fn more_math(x: &[f64], xf: &[f32], y: &mut [f64], yf: &mut [f32]) {
    for i in 0..y.len() {
        let v = x[i];
        y[i] = v.exp_m1() + v.ln_1p() + v.asinh() + (1.5 + v).acosh() + (0.5 * v).atanh();
        let w = xf[i];
        yf[i] = w.exp_m1() + w.ln_1p() + w.asinh() + (1.5 + w).acosh() + (0.5 * w).atanh();
    }
}

fn check_more_math(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(-0.9..0.9)).collect();
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let (mut y, mut yf) = (vec![0.0; n], vec![0.0f32; n]);
    more_math(&x, &xf, &mut y, &mut yf);
    for i in 0..n {
        let v = x[i];
        let want = v.exp_m1() + v.ln_1p() + v.asinh() + (1.5 + v).acosh() + (0.5 * v).atanh();
        let w = xf[i];
        let wantf = w.exp_m1() + w.ln_1p() + w.asinh() + (1.5 + w).acosh() + (0.5 * w).atanh();
        // The device's math library rounds within a few ulps of the host's.
        if (y[i] - want).abs() > 1e-12 * (1.0 + want.abs()) || (yf[i] - wantf).abs() > 1e-5 * (1.0 + wantf.abs()) {
            return Err(format!("element {i}: {} / {} (f32 {} / {}), host {want} / {wantf}", y[i], want, yf[i], wantf));
        }
    }
    Ok(())
}

// IEEE 754 makes the square root correctly rounded (Rust's `f32::sqrt` and `f64::sqrt` are), so the device's must
// equal the host's bit for bit, over the whole exponent range, subnormals included.
#[omp::target_teams_distribute_parallel_for]
fn roots(xf: &[f32], x: &[f64], yf: &mut [f32], y: &mut [f64]) {
    for i in 0..yf.len() {
        yf[i] = xf[i].sqrt();
        y[i] = x[i].sqrt();
    }
}

fn check_exact_roots(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1000..20_000);
    // Random bit patterns of positive finite values (subnormals included), and a few edge values.
    let mut xf: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.gen_range(0..0x7f80_0000u32))).collect();
    let mut x: Vec<f64> = (0..n).map(|_| f64::from_bits(rng.gen_range(0..0x7ff0_0000_0000_0000u64))).collect();
    xf[..4].copy_from_slice(&[0.0, 1.0, f32::MIN_POSITIVE, f32::MAX]);
    x[..4].copy_from_slice(&[0.0, 2.0, f64::MIN_POSITIVE, f64::MAX]);
    let (mut yf, mut y) = (vec![0.0f32; n], vec![0.0f64; n]);
    roots(&xf, &x, &mut yf, &mut y);
    for i in 0..n {
        if yf[i].to_bits() != xf[i].sqrt().to_bits() || y[i].to_bits() != x[i].sqrt().to_bits() {
            return Err(format!(
                "sqrt({:e}) = {:e} on the device, {:e} here; sqrt({:e}) = {:e}, {:e}",
                xf[i],
                yf[i],
                xf[i].sqrt(),
                x[i],
                y[i],
                x[i].sqrt()
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// Read-only statics

/// Gauss-Legendre weights, as codes keep them in a `static` table.
static WEIGHTS: [f64; 4] = [0.347854845137454, 0.652145154862546, 0.652145154862546, 0.347854845137454];

fn weight(k: usize) -> f64 {
    WEIGHTS[k % 4]
}

#[omp::target_teams_distribute_parallel_for]
fn weighted_sum(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = x[i] * WEIGHTS[i % 4] + weight(i + 1);
    }
}

fn check_static_table(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n);
    let mut y = vec![0.0; n];
    weighted_sum(&x, &mut y);
    let want: Vec<f64> = (0..n).map(|i| x[i] * WEIGHTS[i % 4] + weight(i + 1)).collect();
    same("y", &y, &want)
}

/// Float remainders: exact, as the host's `fmod` (GPU back ends would lower `%` as `x - trunc(x / y) * y`).
#[omp::directives]
fn remainders(x: &[f64], y: &[f64], r: &mut [f64], xf: &[f32], yf: &[f32], rf: &mut [f32]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..r.len() {
        r[i] = x[i] % y[i];
    }
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..rf.len() {
        rf[i] = xf[i] % yf[i];
    }
}

fn check_float_remainder(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    // Quotients from below 1 to 2^60, both signs, divisors that are not powers of two.
    let mut x: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-4..60))).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.gen_range(0.05..3.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 }).collect();
    x[0] = 925785789609.2999; // `x - trunc(x / y) * y` gives -3.9e-5 for y = 0.3
    let y = {
        let mut y = y;
        y[0] = 0.3;
        y
    };
    let xf: Vec<f32> = x.iter().map(|&v| (v / 2f64.powi(30)) as f32).collect();
    let yf: Vec<f32> = y.iter().map(|&v| v as f32).collect();
    let (mut r, mut rf) = (vec![0.0; n], vec![0.0f32; n]);
    remainders(&x, &y, &mut r, &xf, &yf, &mut rf);
    for i in 0..n {
        if r[i].to_bits() != (x[i] % y[i]).to_bits() {
            return Err(format!("{} % {} = {} in the kernel, {} on the host", x[i], y[i], r[i], x[i] % y[i]));
        }
        if rf[i].to_bits() != (xf[i] % yf[i]).to_bits() {
            return Err(format!("{}f32 % {}f32 = {} in the kernel, {} on the host", xf[i], yf[i], rf[i], xf[i] % yf[i]));
        }
    }
    Ok(())
}

#[omp::directives]
fn std_float_methods(x: &[f64], y: &[f64], r: &mut [[f64; 4]], xf: &[f32], yf: &[f32], rf: &mut [[f32; 4]]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..r.len() {
        r[i] = [x[i].rem_euclid(y[i]), x[i].div_euclid(y[i]), x[i].fract(), x[i].round_ties_even()];
    }
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..rf.len() {
        rf[i] = [xf[i].rem_euclid(yf[i]), xf[i].div_euclid(yf[i]), xf[i].fract(), xf[i].round_ties_even()];
    }
}

fn check_std_float_methods(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-3..50))).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.gen_range(0.1..5.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 }).collect();
    // Halves, where round_ties_even and round differ.
    let x: Vec<f64> = x.iter().enumerate().map(|(i, &v)| if i % 7 == 0 { (v * 4.0).round() / 2.0 } else { v }).collect();
    let xf: Vec<f32> = x.iter().map(|&v| (v / 2f64.powi(25)) as f32).collect();
    let yf: Vec<f32> = y.iter().map(|&v| v as f32).collect();
    let (mut r, mut rf) = (vec![[0.0; 4]; n], vec![[0.0f32; 4]; n]);
    std_float_methods(&x, &y, &mut r, &xf, &yf, &mut rf);
    for i in 0..n {
        let want = [x[i].rem_euclid(y[i]), x[i].div_euclid(y[i]), x[i].fract(), x[i].round_ties_even()];
        if r[i].map(f64::to_bits) != want.map(f64::to_bits) {
            return Err(format!("x = {}, y = {}: kernel {:?}, host {want:?}", x[i], y[i], r[i]));
        }
        let want = [xf[i].rem_euclid(yf[i]), xf[i].div_euclid(yf[i]), xf[i].fract(), xf[i].round_ties_even()];
        if rf[i].map(f32::to_bits) != want.map(f32::to_bits) {
            return Err(format!("x = {}f32, y = {}f32: kernel {:?}, host {want:?}", xf[i], yf[i], rf[i]));
        }
    }
    Ok(())
}
