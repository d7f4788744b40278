//! Adversarial corpus for the host path: "data races are compile errors" and "an out-of-bounds index panics".
//!
//! The rule under test: an analysis of the user's code may be wrong; its output may change speed, never meaning.
//! Every case below compiles (compile-time rejections live in `omp-rs-macros/tests/ui/adversarial/`), runs with
//! team sizes 1, 2 and 4 on fresh random inputs, and must end in one of the outcomes its class allows:
//!
//! - `MustEqual`: legitimate code; it must not panic and must equal sequential Rust (floats produced by a
//!   reduction may differ by reassociation only: those cases compare through [`Approx`]).
//! - `MustPanic`: the parallel loop must panic (overlapping writes that only the run-time check can see; the
//!   check does not depend on the team size, so a team of 1 panics too).
//! - `PanicOrEqual`: if sequential Rust panics on these inputs, the parallel loop must panic too; otherwise it
//!   must panic or equal sequential Rust. (Debug and release differ here: `n - 1` with `n == 0` panics in debug and
//!   wraps in release; the sequential reference is run in the same profile, so both are covered.)
//!
//! A SIGSEGV, an abort, a hang or a "proc macro panicked" anywhere fails the whole file, as it should.
//! `ADV_SEED=<u64>` repeats a run (each test prints its seed); `ADV_VERBOSE=1` prints the panic messages.
//! Each case prints `OUTCOME <case> nt=<n> <equal|differs|panics|returns>` (run with `--nocapture` to see them).

#![allow(clippy::all, dead_code, non_upper_case_globals, unused_assignments, unused_mut, unused_variables, unused_labels, unused_parens)]

use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Once;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What a case allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    MustEqual,
    MustPanic,
    PanicOrEqual,
}
use Expect::*;

/// Team sizes every case runs with.
const TEAMS: [usize; 3] = [1, 2, 4];

fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var("ADV_VERBOSE").is_err() {
            std::panic::set_hook(Box::new(|_| {}));
        }
    });
}

/// A generator for fresh inputs (seed printed, `ADV_SEED` repeats it).
fn rng() -> StdRng {
    quiet_panics();
    let seed: u64 = std::env::var("ADV_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

fn vf(rng: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect()
}

fn vu(rng: &mut StdRng, n: usize, hi: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..hi)).collect()
}

/// Floats that came out of a reduction: equal up to reassociation (relative 1e-9, absolute 1e-9).
#[derive(Debug, Clone)]
struct Approx(Vec<f64>);

impl PartialEq for Approx {
    fn eq(&self, o: &Self) -> bool {
        self.0.len() == o.0.len()
            && self
                .0
                .iter()
                .zip(&o.0)
                .all(|(a, b)| (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())))
    }
}

fn short<T: Debug>(v: &T) -> String {
    let s = format!("{v:?}");
    if s.len() > 160 {
        format!("{}…", &s[..s.char_indices().take_while(|(i, _)| *i < 160).last().map_or(0, |(i, c)| i + c.len_utf8())])
    } else {
        s
    }
}

/// Runs `par` for every team size and `seq` once, and checks the outcome against `expect`.
fn check<T: PartialEq + Debug>(case: &str, expect: Expect, par: impl Fn(usize) -> T, seq: impl Fn() -> T) {
    quiet_panics();
    let want = catch_unwind(AssertUnwindSafe(|| seq()));
    if expect == MustEqual {
        assert!(want.is_ok(), "{case}: the sequential reference panicked, the inputs of a MustEqual case are wrong");
    }
    let mut bad = Vec::new();
    for nt in TEAMS {
        let got = catch_unwind(AssertUnwindSafe(|| par(nt)));
        let (outcome, detail) = match (&got, &want) {
            (Err(_), _) => ("panics", String::new()),
            (Ok(g), Ok(w)) if g == w => ("equal", String::new()),
            (Ok(g), Ok(w)) => ("differs", format!(": got {}, sequential {}", short(g), short(w))),
            (Ok(g), Err(_)) => ("returns", format!(": got {} where sequential Rust panics", short(g))),
        };
        println!("OUTCOME {case} nt={nt} {outcome}");
        let ok = match expect {
            MustEqual => outcome == "equal",
            MustPanic => outcome == "panics",
            PanicOrEqual => outcome == "panics" || outcome == "equal",
        };
        if !ok {
            bad.push(format!("nt={nt}: {outcome}{detail}"));
        }
    }
    assert!(bad.is_empty(), "{case} ({expect:?}): {}", bad.join("; "));
}

/// `check`, with each parallel run given `secs` seconds: a run that does not finish counts as `Err("hangs")`, a
/// result no expectation accepts (the stuck thread is left behind; cases using this use their own lock names).
fn check_within<T: PartialEq + Debug + Send + 'static>(
    case: &str,
    expect: Expect,
    secs: u64,
    par: impl Fn(usize) -> T + Send + Sync + 'static,
    seq: impl Fn() -> T,
) {
    let par = std::sync::Arc::new(par);
    check(
        case,
        expect,
        |nt| -> Result<T, &'static str> {
            let (tx, rx) = std::sync::mpsc::channel();
            let p = par.clone();
            std::thread::spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| p(nt)));
                let _ = tx.send(r);
            });
            match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(p)) => std::panic::resume_unwind(p),
                Err(_) => Err("hangs"),
            }
        },
        || Ok(seq()),
    );
}

// =============================================================================================================
/// A name that the body rebinds must mean, at every access, what it means there in sequential Rust: a check (or a
/// faster copy of the body) computed from the outer binding must not be applied to the inner one.
mod shadowing {
    use super::*;

    fn rows_of(rng: &mut StdRng, k: usize, len: usize) -> Vec<Vec<f64>> {
        (0..k).map(|_| vf(rng, len)).collect()
    }

    // ---- case: for_binding_shadows_read_array — `for x in rows` rebinds the captured array `x` (issue #1) -----
    #[omp::parallel_for(num_threads(nt))]
    fn rows_sum(nt: usize, x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for x in rows {
                s += x[i];
            }
            y[i] = s;
        }
    }
    fn rows_sum_seq(x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for x in rows {
                s += x[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn for_binding_shadows_read_array_short_rows() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 3, 4));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::for_binding_shadows_read_array_short_rows",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                rows_sum(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                rows_sum_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    #[test]
    fn for_binding_shadows_read_array_full_rows() {
        let mut r = rng();
        let n = r.gen_range(0..400);
        let extra = r.gen_range(0..3);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 3, n + extra));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::for_binding_shadows_read_array_full_rows",
            MustEqual,
            |nt| {
                let mut y = y0.clone();
                rows_sum(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                rows_sum_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    // ---- case: tuple_for_pattern_shadows_read_array — `for (x, w) in rows.iter().zip(ws)` ----------------------
    #[omp::parallel_for(num_threads(nt))]
    fn weighted(nt: usize, x: &[f64], rows: &[Vec<f64>], ws: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for (x, w) in rows.iter().zip(ws) {
                s += w * x[i];
            }
            y[i] = s;
        }
    }
    fn weighted_seq(x: &[f64], rows: &[Vec<f64>], ws: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for (x, w) in rows.iter().zip(ws) {
                s += w * x[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn tuple_for_pattern_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows, ws) = (vf(&mut r, n), rows_of(&mut r, 2, 8), vf(&mut r, 2));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::tuple_for_pattern_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                weighted(nt, &x, &rows, &ws, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                weighted_seq(&x, &rows, &ws, &mut y);
                y
            },
        );
    }

    // ---- case: let_in_block_shadows_read_array — `{ let x = short; s += x[i]; }` after `x[i]` ---------------------
    #[omp::parallel_for(num_threads(nt))]
    fn block_shadow(nt: usize, x: &[f64], short: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 2.0 * x[i];
            {
                let x = short;
                s += x[i];
            }
            y[i] = s;
        }
    }
    fn block_shadow_seq(x: &[f64], short: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 2.0 * x[i];
            {
                let x = short;
                s += x[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn let_in_block_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let k = r.gen_range(1..8);
        let (x, short) = (vf(&mut r, n), vf(&mut r, k));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::let_in_block_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                block_shadow(nt, &x, &short, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                block_shadow_seq(&x, &short, &mut y);
                y
            },
        );
    }

    // ---- case: if_let_shadows_read_array — `if let Some(x) = rows.first()` ----------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn if_let_shadow(nt: usize, x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            if let Some(x) = rows.first() {
                s -= x[i];
            }
            y[i] = s;
        }
    }
    fn if_let_shadow_seq(x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            if let Some(x) = rows.first() {
                s -= x[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn if_let_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 1, 5));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::if_let_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                if_let_shadow(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                if_let_shadow_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    // ---- case: match_arm_shadows_read_array — `match rows.last() { Some(x) => x[i], .. }` ----------------------
    #[omp::parallel_for(num_threads(nt))]
    fn match_shadow(nt: usize, x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let a = x[i];
            let b = match rows.last() {
                Some(x) => x[i] * 0.5,
                None => 0.0,
            };
            y[i] = a + b;
        }
    }
    fn match_shadow_seq(x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let a = x[i];
            let b = match rows.last() {
                Some(x) => x[i] * 0.5,
                None => 0.0,
            };
            y[i] = a + b;
        }
    }

    #[test]
    fn match_arm_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 2, 6));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::match_arm_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                match_shadow(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                match_shadow_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    // ---- case: while_let_shadows_read_array — `while let Some(x) = it.next()` ------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn while_let_shadow(nt: usize, x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            let mut it = rows.iter();
            while let Some(x) = it.next() {
                s += x[i];
            }
            y[i] = s;
        }
    }
    fn while_let_shadow_seq(x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            let mut it = rows.iter();
            while let Some(x) = it.next() {
                s += x[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn while_let_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 2, 3));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::while_let_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                while_let_shadow(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                while_let_shadow_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    // ---- case: let_else_shadows_read_array — `let Some(x) = rows.first() else { continue };` ----------------------
    #[omp::parallel_for(num_threads(nt))]
    fn let_else_shadow(nt: usize, x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let s = x[i];
            let Some(x) = rows.first() else {
                continue;
            };
            y[i] = s + x[i];
        }
    }
    fn let_else_shadow_seq(x: &[f64], rows: &[Vec<f64>], y: &mut [f64]) {
        for i in 0..y.len() {
            let s = x[i];
            let Some(x) = rows.first() else {
                continue;
            };
            y[i] = s + x[i];
        }
    }

    #[test]
    fn let_else_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, rows) = (vf(&mut r, n), rows_of(&mut r, 1, 7));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::let_else_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                let_else_shadow(nt, &x, &rows, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                let_else_shadow_seq(&x, &rows, &mut y);
                y
            },
        );
    }

    // ---- case: closure_param_shadows_read_array — `let pick = |x: &[f64]| x[i];` --------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn closure_shadow(nt: usize, x: &[f64], short: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let pick = |x: &[f64]| x[i];
            y[i] = x[i] + pick(short);
        }
    }
    fn closure_shadow_seq(x: &[f64], short: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let pick = |x: &[f64]| x[i];
            y[i] = x[i] + pick(short);
        }
    }

    #[test]
    fn closure_param_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(64..400);
        let (x, short) = (vf(&mut r, n), vf(&mut r, 9));
        let y0 = vf(&mut r, n);
        check(
            "shadowing::closure_param_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                closure_shadow(nt, &x, &short, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                closure_shadow_seq(&x, &short, &mut y);
                y
            },
        );
    }

    // ---- case: local_vec_shadows_written_array — `{ let mut y = vec![0.0; 3]; y[i] = ..; }` after `y[i] = ..` -------
    #[omp::parallel_for(num_threads(nt))]
    fn written_shadow(nt: usize, x: &[f64], y: &mut [f64], z: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i];
            let mut t = 0.0;
            {
                let mut y = vec![0.0; 3];
                y[i] = x[i] * 2.0;
                t = y[0];
            }
            z[i] = t;
        }
    }
    fn written_shadow_seq(x: &[f64], y: &mut [f64], z: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i];
            let mut t = 0.0;
            {
                let mut y = vec![0.0; 3];
                y[i] = x[i] * 2.0;
                t = y[0];
            }
            z[i] = t;
        }
    }

    #[test]
    fn local_vec_shadows_written_array() {
        let mut r = rng();
        let n = r.gen_range(64..2000);
        let x = vf(&mut r, n);
        let (y0, z0) = (vf(&mut r, n), vf(&mut r, n));
        check(
            "shadowing::local_vec_shadows_written_array",
            PanicOrEqual,
            |nt| {
                let (mut y, mut z) = (y0.clone(), z0.clone());
                written_shadow(nt, &x, &mut y, &mut z);
                (y, z)
            },
            || {
                let (mut y, mut z) = (y0.clone(), z0.clone());
                written_shadow_seq(&x, &mut y, &mut z);
                (y, z)
            },
        );
    }

    // ---- case: const_item_shadows_coefficient — `const n: usize = 1000;` in the body, `x[i * n]` -----------------
    #[omp::parallel_for(num_threads(nt))]
    fn const_shadow(nt: usize, n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            const n: usize = 1000;
            y[i] = x[i * n];
        }
    }
    fn const_shadow_seq(n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            const n: usize = 1000;
            y[i] = x[i * n];
        }
    }

    #[test]
    fn const_item_shadows_coefficient() {
        let mut r = rng();
        let m = r.gen_range(16..200);
        let x = vf(&mut r, m);
        let y0 = vf(&mut r, m);
        check(
            "shadowing::const_item_shadows_coefficient",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                const_shadow(nt, 1, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                const_shadow_seq(1, &x, &mut y);
                y
            },
        );
    }

    // ---- case: static_item_shadows_read_array — `static x: [f64; 4]` declared in the body ---------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn static_shadow(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            static x: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
            y[i] = x[i];
        }
    }
    fn static_shadow_seq(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            static x: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
            y[i] = x[i];
        }
    }

    #[test]
    fn static_item_shadows_read_array() {
        let mut r = rng();
        let n = r.gen_range(5..300);
        let x = vf(&mut r, n);
        let y0 = vf(&mut r, n);
        check(
            "shadowing::static_item_shadows_read_array",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                static_shadow(nt, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                static_shadow_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: let_shadows_coefficient — `let n = n + 1;` between two reads `x[i * n]` ------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn coeff_shadow(nt: usize, n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let a = x[i * n];
            let n = n + 1;
            let b = x[i * n];
            y[i] = a + b;
        }
    }
    fn coeff_shadow_seq(n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let a = x[i * n];
            let n = n + 1;
            let b = x[i * n];
            y[i] = a + b;
        }
    }

    #[test]
    fn let_shadows_coefficient() {
        let mut r = rng();
        let (m, n) = (r.gen_range(8..300), r.gen_range(1..6));
        // Sometimes one element short for the second read: then sequential Rust panics and so must the loop.
        let cut = r.gen_range(0..2);
        let x = vf(&mut r, (m - 1) * (n + 1) + 1 - cut);
        let y0 = vf(&mut r, m);
        check(
            "shadowing::let_shadows_coefficient",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                coeff_shadow(nt, n, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                coeff_shadow_seq(n, &x, &mut y);
                y
            },
        );
    }

    // ---- case: inner_for_shadows_loop_variable — `for i in 0..k { s += w[i] }` inside the loop over `i` -------------
    #[omp::parallel_for(num_threads(nt))]
    fn inner_i(nt: usize, k: usize, x: &[f64], w: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for i in 0..k {
                s += w[i];
            }
            y[i] = s;
        }
    }
    fn inner_i_seq(k: usize, x: &[f64], w: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = x[i];
            for i in 0..k {
                s += w[i];
            }
            y[i] = s;
        }
    }

    #[test]
    fn inner_for_shadows_loop_variable() {
        let mut r = rng();
        let n = r.gen_range(8..300);
        let (x, w) = (vf(&mut r, n), vf(&mut r, 6));
        let k = r.gen_range(4..9);
        let y0 = vf(&mut r, n);
        check(
            "shadowing::inner_for_shadows_loop_variable",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                inner_i(nt, k, &x, &w, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                inner_i_seq(k, &x, &w, &mut y);
                y
            },
        );
    }

    // ---- case: let_rebinds_loop_variable — `let i = 2 * i;` then `y[i]`, `x[i]` (legitimate) ------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn doubled(nt: usize, n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            let i = 2 * i;
            y[i] = x[i] + 1.0;
        }
    }
    fn doubled_seq(n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            let i = 2 * i;
            y[i] = x[i] + 1.0;
        }
    }

    #[test]
    fn let_rebinds_loop_variable() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, 2 * n);
        let y0 = vf(&mut r, 2 * n);
        check(
            "shadowing::let_rebinds_loop_variable",
            MustEqual,
            |nt| {
                let mut y = y0.clone();
                doubled(nt, n, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                doubled_seq(n, &x, &mut y);
                y
            },
        );
    }

    // ---- case: match_guard_binding_shadows_loop_variable — `match idx[i] { i if i < x.len() => x[i], .. }` -----------
    #[omp::parallel_for(num_threads(nt))]
    fn gather(nt: usize, idx: &[usize], x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = match idx[i] {
                i if i < x.len() => x[i],
                _ => -1.0,
            };
        }
    }
    fn gather_seq(idx: &[usize], x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = match idx[i] {
                i if i < x.len() => x[i],
                _ => -1.0,
            };
        }
    }

    #[test]
    fn match_guard_binding_shadows_loop_variable() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n / 2 + 1);
        let idx: Vec<usize> = (0..n).map(|_| r.gen_range(0..n + 2)).collect();
        let y0 = vf(&mut r, n);
        check(
            "shadowing::match_guard_binding_shadows_loop_variable",
            MustEqual,
            |nt| {
                let mut y = y0.clone();
                gather(nt, &idx, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                gather_seq(&idx, &x, &mut y);
                y
            },
        );
    }

    // ---- case: closure_param_named_like_written_array — `let scale = |y: f64| 2.0 * y;` (legitimate) ----------------
    #[omp::parallel_for(num_threads(nt))]
    fn scaled(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let scale = |y: f64| 2.0 * y;
            y[i] = scale(x[i]);
        }
    }

    #[test]
    fn closure_param_named_like_written_array() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        check(
            "shadowing::closure_param_named_like_written_array",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                scaled(nt, &x, &mut y);
                y
            },
            || x.iter().map(|v| 2.0 * v).collect::<Vec<f64>>(),
        );
    }

    // ---- case: shadowed_reduction_name — `let s = ..` in the body next to the real `reduction(+: t)` ---------------
    #[omp::parallel_for(num_threads(nt), reduction(+: t))]
    fn shadow_red(nt: usize, x: &[i64], y: &mut [i64]) -> i64 {
        let mut t: i64 = 7;
        for i in 0..x.len() {
            let t2 = x[i] * 2;
            {
                let t = t2 + 1;
                y[i] = t;
            }
            t += x[i];
        }
        t
    }
    fn shadow_red_seq(x: &[i64], y: &mut [i64]) -> i64 {
        let mut t: i64 = 7;
        for i in 0..x.len() {
            let t2 = x[i] * 2;
            {
                let t = t2 + 1;
                y[i] = t;
            }
            t += x[i];
        }
        t
    }

    #[test]
    fn shadowed_reduction_name() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1000..1000)).collect();
        check(
            "shadowing::shadowed_reduction_name",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                let t = shadow_red(nt, &x, &mut y);
                (t, y)
            },
            || {
                let mut y = vec![0; n];
                let t = shadow_red_seq(&x, &mut y);
                (t, y)
            },
        );
    }
}

// =============================================================================================================
/// Integer arithmetic that the real loop performs in its own type (wrapping in release, panicking in debug) while an
/// analysis computes it exactly; narrow loop variables, casts, negative steps, `.rev()`, `step_by`.
mod wrapping {
    use super::*;

    // ---- case: inner_range_n_minus_one — `for k in 1..n - 1` with `n == 0` wraps in release (issue #2) ----------
    #[omp::parallel_for(num_threads(nt))]
    fn smooth(nt: usize, m: usize, n: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..m {
            let mut s = 0.0;
            for k in 1..n - 1 {
                s += a[i * n + k - 1] + a[i * n + k + 1];
            }
            y[i] = s;
        }
    }
    fn smooth_seq(m: usize, n: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..m {
            let mut s = 0.0;
            for k in 1..n - 1 {
                s += a[i * n + k - 1] + a[i * n + k + 1];
            }
            y[i] = s;
        }
    }

    #[test]
    fn inner_range_n_minus_one() {
        let mut r = rng();
        for n in [0usize, 1, 2, 3, 17] {
            let m = r.gen_range(4..200);
            let a = vf(&mut r, m * n);
            let y0 = vf(&mut r, m);
            check(
                &format!("wrapping::inner_range_n_minus_one[n={n}]"),
                PanicOrEqual,
                |nt| {
                    let mut y = y0.clone();
                    smooth(nt, m, n, &a, &mut y);
                    y
                },
                || {
                    let mut y = y0.clone();
                    smooth_seq(m, n, &a, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: inner_inclusive_range_n_minus_one — `for k in 0..=n - 1` with `n == 0` ------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn row_sums(nt: usize, n: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for k in 0..=n - 1 {
                s += a[i * n + k];
            }
            y[i] = s;
        }
    }
    fn row_sums_seq(n: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for k in 0..=n - 1 {
                s += a[i * n + k];
            }
            y[i] = s;
        }
    }

    #[test]
    fn inner_inclusive_range_n_minus_one() {
        let mut r = rng();
        for n in [0usize, 1, 5] {
            let m = r.gen_range(4..200);
            let a = vf(&mut r, m * n);
            let y0 = vf(&mut r, m);
            check(
                &format!("wrapping::inner_inclusive_range_n_minus_one[n={n}]"),
                PanicOrEqual,
                |nt| {
                    let mut y = y0.clone();
                    row_sums(nt, n, &a, &mut y);
                    y
                },
                || {
                    let mut y = y0.clone();
                    row_sums_seq(n, &a, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: inner_range_difference — `for k in 0..n - off` with `off > n` ----------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn tail_sums(nt: usize, n: usize, off: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for k in 0..n - off {
                s += a[i * n + k + off];
            }
            y[i] = s;
        }
    }
    fn tail_sums_seq(n: usize, off: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for k in 0..n - off {
                s += a[i * n + k + off];
            }
            y[i] = s;
        }
    }

    #[test]
    fn inner_range_difference() {
        let mut r = rng();
        for (n, off) in [(8usize, 3usize), (4, 4), (3, 5)] {
            let m = r.gen_range(4..200);
            let a = vf(&mut r, m * n);
            let y0 = vf(&mut r, m);
            check(
                &format!("wrapping::inner_range_difference[n={n},off={off}]"),
                PanicOrEqual,
                |nt| {
                    let mut y = y0.clone();
                    tail_sums(nt, n, off, &a, &mut y);
                    y
                },
                || {
                    let mut y = y0.clone();
                    tail_sums_seq(n, off, &a, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: parallel_range_n_minus_one — the parallel loop itself is `1..n - 1` with `n` of 0, 1, 2 ---------------
    #[omp::parallel_for(num_threads(nt))]
    fn diff1(nt: usize, n: usize, x: &[f64], y: &mut [f64]) {
        for i in 1..n - 1 {
            y[i] = x[i + 1] - x[i - 1];
        }
    }
    fn diff1_seq(n: usize, x: &[f64], y: &mut [f64]) {
        for i in 1..n - 1 {
            y[i] = x[i + 1] - x[i - 1];
        }
    }

    #[test]
    fn parallel_range_n_minus_one() {
        let mut r = rng();
        for n in [0usize, 1, 2, 3, 100] {
            let x = vf(&mut r, n);
            let y0 = vf(&mut r, n);
            check(
                &format!("wrapping::parallel_range_n_minus_one[n={n}]"),
                PanicOrEqual,
                |nt| {
                    let mut y = y0.clone();
                    diff1(nt, n, &x, &mut y);
                    y
                },
                || {
                    let mut y = y0.clone();
                    diff1_seq(n, &x, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: i8_doubled_read_index — `x[(2 * i) as usize]` with `i: i8` up to 100 (wraps negative at 64) --------------
    #[omp::parallel_for(num_threads(nt))]
    fn even_i8(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0i8..=100 {
            y[i as usize] = x[(2 * i) as usize];
        }
    }
    fn even_i8_seq(x: &[f64], y: &mut [f64]) {
        for i in 0i8..=100 {
            y[i as usize] = x[(2 * i) as usize];
        }
    }

    #[test]
    fn i8_doubled_read_index() {
        let mut r = rng();
        let x = vf(&mut r, 201);
        let y0 = vf(&mut r, 101);
        check(
            "wrapping::i8_doubled_read_index",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                even_i8(nt, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                even_i8_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: i8_offset_read_index — `x[(i + 100) as usize]` with `i: i8` in 0..100 (wraps at 28) -----------------
    #[omp::parallel_for(num_threads(nt))]
    fn shifted_i8(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0i8..100 {
            y[i as usize] = x[(i + 100) as usize];
        }
    }
    fn shifted_i8_seq(x: &[f64], y: &mut [f64]) {
        for i in 0i8..100 {
            y[i as usize] = x[(i + 100) as usize];
        }
    }

    #[test]
    fn i8_offset_read_index() {
        let mut r = rng();
        let x = vf(&mut r, 200);
        let y0 = vf(&mut r, 100);
        check(
            "wrapping::i8_offset_read_index",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                shifted_i8(nt, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                shifted_i8_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: i16_doubled_read_index — `x[(2 * i) as usize]` with `i: i16` up to 20000 (wraps at 16384) ---------------
    #[omp::parallel_for(num_threads(nt))]
    fn even_i16(nt: usize, n: i16, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            y[i as usize] = x[(2 * i) as usize];
        }
    }
    fn even_i16_seq(n: i16, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            y[i as usize] = x[(2 * i) as usize];
        }
    }

    #[test]
    fn i16_doubled_read_index() {
        let mut r = rng();
        let n: i16 = 20000;
        let x = vf(&mut r, 40000);
        let y0 = vf(&mut r, 20000);
        check(
            "wrapping::i16_doubled_read_index",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                even_i16(nt, n, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                even_i16_seq(n, &x, &mut y);
                y
            },
        );
    }

    // ---- case: u8_offset_read_index — `x[(i + 200) as usize]` with `i: u8` in 0..100 (debug: panic, release: wraps) ---
    #[omp::parallel_for(num_threads(nt))]
    fn shifted_u8(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0u8..100 {
            y[i as usize] = x[(i + 200) as usize];
        }
    }
    fn shifted_u8_seq(x: &[f64], y: &mut [f64]) {
        for i in 0u8..100 {
            y[i as usize] = x[(i + 200) as usize];
        }
    }

    #[test]
    fn u8_offset_read_index() {
        let mut r = rng();
        let x = vf(&mut r, 300);
        let y0 = vf(&mut r, 100);
        check(
            "wrapping::u8_offset_read_index",
            PanicOrEqual,
            |nt| {
                let mut y = y0.clone();
                shifted_u8(nt, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                shifted_u8_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: u8_full_inclusive_range — `for i in 0u8..=255` (legitimate: 256 iterations, no overflow) --------------
    #[omp::parallel_for(num_threads(nt))]
    fn all_u8(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0u8..=255 {
            y[i as usize] = x[i as usize] * 2.0 + i as f64;
        }
    }

    #[test]
    fn u8_full_inclusive_range() {
        let mut r = rng();
        let x = vf(&mut r, 256);
        check(
            "wrapping::u8_full_inclusive_range",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; 256];
                all_u8(nt, &x, &mut y);
                y
            },
            || (0..256).map(|i| x[i] * 2.0 + i as f64).collect::<Vec<f64>>(),
        );
    }

    // ---- case: u8_rev_step_by — `(0u8..=255).rev().step_by(3)` ---------------------------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn every_third_u8(nt: usize, y: &mut [u32]) {
        for i in (0u8..=255).rev().step_by(3) {
            y[i as usize] += 1 + i as u32;
        }
    }
    fn every_third_u8_seq(y: &mut [u32]) {
        for i in (0u8..=255).rev().step_by(3) {
            y[i as usize] += 1 + i as u32;
        }
    }

    #[test]
    fn u8_rev_step_by() {
        check(
            "wrapping::u8_rev_step_by",
            MustEqual,
            |nt| {
                let mut y = vec![0u32; 256];
                every_third_u8(nt, &mut y);
                y
            },
            || {
                let mut y = vec![0u32; 256];
                every_third_u8_seq(&mut y);
                y
            },
        );
    }

    // ---- case: i8_full_signed_range — `for i in -128i8..=127`, index `(i as isize + 128) as usize` -------------------
    #[omp::parallel_for(num_threads(nt))]
    fn all_i8(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in -128i8..=127 {
            y[(i as isize + 128) as usize] = x[(i as isize + 128) as usize] + i as f64;
        }
    }

    #[test]
    fn i8_full_signed_range() {
        let mut r = rng();
        let x = vf(&mut r, 256);
        check(
            "wrapping::i8_full_signed_range",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; 256];
                all_i8(nt, &x, &mut y);
                y
            },
            || (0..256).map(|k| x[k] + (k as f64 - 128.0)).collect::<Vec<f64>>(),
        );
    }

    // ---- case: i32_rev_across_zero — `for i in (-50i32..50).rev()`, index `(i + 50) as usize` -------------------------
    #[omp::parallel_for(num_threads(nt), schedule(static, 3))]
    fn around_zero(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in (-50i32..50).rev() {
            y[(i + 50) as usize] = x[(49 - i) as usize] * i as f64;
        }
    }

    #[test]
    fn i32_rev_across_zero() {
        let mut r = rng();
        let x = vf(&mut r, 100);
        check(
            "wrapping::i32_rev_across_zero",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; 100];
                around_zero(nt, &x, &mut y);
                y
            },
            || (0..100).map(|k| x[99 - k] * (k as f64 - 50.0)).collect::<Vec<f64>>(),
        );
    }

    // ---- case: step_by_beyond_range — `(0..n).step_by(s)` with `s` up to 2n, n of 0 and 1 included -------------------
    #[omp::parallel_for(num_threads(nt))]
    fn strided(nt: usize, n: usize, s: usize, y: &mut [u64]) {
        for i in (0..n).step_by(s) {
            y[i] = i as u64 * 3 + 1;
        }
    }
    fn strided_seq(n: usize, s: usize, y: &mut [u64]) {
        for i in (0..n).step_by(s) {
            y[i] = i as u64 * 3 + 1;
        }
    }

    #[test]
    fn step_by_beyond_range() {
        let mut r = rng();
        for n in [0usize, 1, 2, 300] {
            let s = r.gen_range(1..2 * n + 2);
            check(
                &format!("wrapping::step_by_beyond_range[n={n},s={s}]"),
                MustEqual,
                |nt| {
                    let mut y = vec![0; n];
                    strided(nt, n, s, &mut y);
                    y
                },
                || {
                    let mut y = vec![0; n];
                    strided_seq(n, s, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: step_by_zero — `(0..n).step_by(0)` panics in sequential Rust ---------------------------------------------
    #[test]
    fn step_by_zero() {
        check(
            "wrapping::step_by_zero",
            MustPanic,
            |nt| {
                let mut y = vec![0; 10];
                strided(nt, 10, 0, &mut y);
                y
            },
            || {
                let mut y = vec![0; 10];
                strided_seq(10, 0, &mut y);
                y
            },
        );
    }

    // ---- case: negative_cast_read_index — `x[(i - 3) as usize]` with `i: i32` from 0 -------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn back3(nt: usize, n: i32, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            y[i as usize] = x[(i - 3) as usize];
        }
    }
    fn back3_seq(n: i32, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            y[i as usize] = x[(i - 3) as usize];
        }
    }

    #[test]
    fn negative_cast_read_index() {
        let mut r = rng();
        let n = r.gen_range(1..300);
        let x = vf(&mut r, n as usize);
        let y0 = vf(&mut r, n as usize);
        check(
            "wrapping::negative_cast_read_index",
            MustPanic,
            |nt| {
                let mut y = y0.clone();
                back3(nt, n, &x, &mut y);
                y
            },
            || {
                let mut y = y0.clone();
                back3_seq(n, &x, &mut y);
                y
            },
        );
    }

    // ---- case: wrapping_sub_read_index — `x[i.wrapping_sub(1)]` from `i == 0` ------------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn prev(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i.wrapping_sub(1)];
        }
    }

    #[test]
    fn wrapping_sub_read_index() {
        let mut r = rng();
        let n = r.gen_range(1..300);
        let x = vf(&mut r, n);
        check(
            "wrapping::wrapping_sub_read_index",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; n];
                prev(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n];
                for i in 0..n {
                    y[i] = x[i.wrapping_sub(1)];
                }
                y
            },
        );
    }

    // ---- case: u16_range_to_max — `for i in u16::MAX - 300..=u16::MAX` ------------------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn top_u16(nt: usize, y: &mut [u32]) {
        for i in u16::MAX - 300..=u16::MAX {
            y[(i - (u16::MAX - 300)) as usize] = i as u32;
        }
    }

    #[test]
    fn u16_range_to_max() {
        check(
            "wrapping::u16_range_to_max",
            MustEqual,
            |nt| {
                let mut y = vec![0u32; 301];
                top_u16(nt, &mut y);
                y
            },
            || (0..301u32).map(|k| 65535 - 300 + k).collect::<Vec<u32>>(),
        );
    }

    // ---- case: u64_and_i64_loop_variables — `for i in 0u64..n`, `for i in -3i64..n` with widening casts ------------------
    #[omp::directives]
    fn wide(nt: usize, n: u64, x: &[f64], y: &mut [f64], z: &mut [f64]) {
        #[omp::parallel_for(num_threads(nt))]
        for i in 0u64..n {
            y[i as usize] = x[i as usize] + 1.0;
        }
        #[omp::parallel_for(num_threads(nt))]
        for i in -3i64..n as i64 {
            z[(i + 3) as usize] = x[(i + 3) as usize] * 2.0;
        }
    }

    #[test]
    fn u64_and_i64_loop_variables() {
        let mut r = rng();
        let n = r.gen_range(0..400u64);
        let x = vf(&mut r, n as usize + 3);
        check(
            "wrapping::u64_and_i64_loop_variables",
            MustEqual,
            |nt| {
                let (mut y, mut z) = (vec![0.0; n as usize], vec![0.0; n as usize + 3]);
                wide(nt, n, &x, &mut y, &mut z);
                (y, z)
            },
            || {
                let y: Vec<f64> = x[..n as usize].iter().map(|v| v + 1.0).collect();
                let z: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
                (y, z)
            },
        );
    }

    // ---- case: literal_coefficient_overflow_read — `x[i * 2^62 * 2^62 * 8]`: 2^127 overflows i128 in an exact analysis;
    //      the real index wraps to `x[0]` in release and overflows (panic) in debug ------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn big_coeff(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i * 4611686018427387904 * 4611686018427387904 * 8];
        }
    }
    fn big_coeff_seq(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i * 4611686018427387904 * 4611686018427387904 * 8];
        }
    }

    #[test]
    fn literal_coefficient_overflow_read() {
        let mut r = rng();
        let n = r.gen_range(2..100);
        let x = vf(&mut r, n);
        check(
            "wrapping::literal_coefficient_overflow_read",
            PanicOrEqual,
            |nt| {
                let mut y = vec![0.0; n];
                big_coeff(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n];
                big_coeff_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: huge_runtime_stride_wraps — `y[i * stride + j]` with `stride = 2^63` and even `i`: every row wraps onto
    //      row 0 in release (sequential Rust: an order-dependent update chain; a team: overlapping writes), overflow panic in debug
    #[omp::parallel_for(collapse(2), num_threads(nt), schedule(static, 1))]
    fn stride_wrap(nt: usize, n: usize, m: usize, stride: usize, y: &mut [u64]) {
        for i in (0..n).step_by(2) {
            for j in 0..m {
                y[i * stride + j] = y[i * stride + j].wrapping_mul(3).wrapping_add(i as u64);
            }
        }
    }
    fn stride_wrap_seq(n: usize, m: usize, stride: usize, y: &mut [u64]) {
        for i in (0..n).step_by(2) {
            for j in 0..m {
                y[i * stride + j] = y[i * stride + j].wrapping_mul(3).wrapping_add(i as u64);
            }
        }
    }

    #[test]
    fn huge_runtime_stride_wraps() {
        let (n, m) = (200_000, 3);
        check(
            "wrapping::huge_runtime_stride_wraps",
            PanicOrEqual,
            |nt| {
                let mut y = vec![0u64; m];
                stride_wrap(nt, n, m, 1 << 63, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; m];
                stride_wrap_seq(n, m, 1 << 63, &mut y);
                y
            },
        );
    }

    // ---- case: inner_range_n_minus_one_written — `for k in 0..=n - 1 { y[i * n + k] = .. }` writes with `n == 0` ---------
    #[omp::parallel_for(num_threads(nt))]
    fn zero_rows(nt: usize, m: usize, n: usize, y: &mut [f64]) {
        for i in 0..m {
            for k in 0..=n - 1 {
                y[i * n + k] = (i + k) as f64;
            }
        }
    }
    fn zero_rows_seq(m: usize, n: usize, y: &mut [f64]) {
        for i in 0..m {
            for k in 0..=n - 1 {
                y[i * n + k] = (i + k) as f64;
            }
        }
    }

    #[test]
    fn inner_range_n_minus_one_written() {
        let mut r = rng();
        for n in [0usize, 1, 9] {
            let m = r.gen_range(4..200);
            let y0 = vf(&mut r, m * n);
            check(
                &format!("wrapping::inner_range_n_minus_one_written[n={n}]"),
                PanicOrEqual,
                |nt| {
                    let mut y = y0.clone();
                    zero_rows(nt, m, n, &mut y);
                    y
                },
                || {
                    let mut y = y0.clone();
                    zero_rows_seq(m, n, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: i64_range_at_min — `for i in i64::MIN..i64::MIN + n`, index `(i - i64::MIN) as usize` ---------------------
    #[omp::parallel_for(num_threads(nt))]
    fn at_min(nt: usize, n: i64, y: &mut [i64]) {
        for i in i64::MIN..i64::MIN + n {
            y[(i - i64::MIN) as usize] = i / 3;
        }
    }

    #[test]
    fn i64_range_at_min() {
        let mut r = rng();
        let n = r.gen_range(0..500i64);
        check(
            "wrapping::i64_range_at_min",
            MustEqual,
            |nt| {
                let mut y = vec![0i64; n as usize];
                at_min(nt, n, &mut y);
                y
            },
            || (0..n).map(|k| (i64::MIN + k) / 3).collect::<Vec<i64>>(),
        );
    }

    // ---- case: u64_range_to_max — `for i in u64::MAX - n..=u64::MAX`, index `(u64::MAX - i) as usize` ---------------------
    #[omp::parallel_for(num_threads(nt))]
    fn to_max(nt: usize, n: u64, y: &mut [u64]) {
        for i in u64::MAX - n..=u64::MAX {
            y[(u64::MAX - i) as usize] = i % 1000;
        }
    }

    #[test]
    fn u64_range_to_max() {
        let mut r = rng();
        let n = r.gen_range(0..500u64);
        check(
            "wrapping::u64_range_to_max",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; n as usize + 1];
                to_max(nt, n, &mut y);
                y
            },
            || (0..=n).map(|k| (u64::MAX - k) % 1000).collect::<Vec<u64>>(),
        );
    }
}

// =============================================================================================================
/// `collapse` and affine indices whose injectivity depends on run-time values: row length against stride,
/// transposed writes, zero-trip loops, inner sequential loops inside the index.
mod collapse {
    use super::*;

    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn fill(nt: usize, r: usize, c: usize, stride: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 0..c {
                y[i * stride + j] += (i * 1000 + j) as u64 + 1;
            }
        }
    }
    fn fill_seq(r: usize, c: usize, stride: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 0..c {
                y[i * stride + j] += (i * 1000 + j) as u64 + 1;
            }
        }
    }

    fn run_fill(case: &str, expect: Expect, r: usize, c: usize, stride: usize) {
        let len = if r == 0 || c == 0 { 0 } else { (r - 1) * stride + c };
        check(
            case,
            expect,
            |nt| {
                let mut y = vec![0u64; len];
                fill(nt, r, c, stride, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; len];
                fill_seq(r, c, stride, &mut y);
                y
            },
        );
    }

    // ---- case: row_longer_than_stride — `y[i * n + j]` with `j in 0..m`, `m > n`: rows overlap (issue #5, host) -------
    #[test]
    fn row_longer_than_stride() {
        let mut r = rng();
        let (rows, n) = (r.gen_range(2..60), r.gen_range(1..40));
        let m = n + r.gen_range(1..5);
        run_fill("collapse::row_longer_than_stride", MustPanic, rows, m, n);
    }

    // ---- case: row_equal_to_stride — the legitimate dense form -------------------------------------------------------
    #[test]
    fn row_equal_to_stride() {
        let mut r = rng();
        let (rows, n) = (r.gen_range(0..60), r.gen_range(0..40));
        run_fill("collapse::row_equal_to_stride", MustEqual, rows, n, n);
    }

    // ---- case: row_shorter_than_stride — a padded layout (untouched gaps keep their values) -----------------------------
    #[test]
    fn row_shorter_than_stride() {
        let mut r = rng();
        let (rows, n) = (r.gen_range(0..60), r.gen_range(1..40));
        let m = r.gen_range(0..n);
        run_fill("collapse::row_shorter_than_stride", MustEqual, rows, m, n);
    }

    // ---- case: zero_stride — `y[i * w + j]` with `w == 0` at run time and at least two rows -----------------------------
    #[test]
    fn zero_stride() {
        let mut r = rng();
        let (rows, m) = (r.gen_range(2..60), r.gen_range(1..40));
        run_fill("collapse::zero_stride", MustPanic, rows, m, 0);
    }

    // ---- case: tiny_shapes — every shape with 0, 1, 2 rows and columns (zero-trip loops, empty arrays) ------------------
    #[test]
    fn tiny_shapes() {
        for rows in 0..3 {
            for m in 0..3 {
                run_fill(&format!("collapse::tiny_shapes[{rows}x{m}]"), MustEqual, rows, m, m);
            }
        }
    }

    // ---- case: transposed_write — `y[j * r + i]` (column-major output) ------------------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn transpose(nt: usize, r: usize, c: usize, ld: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                y[j * ld + i] = a[i * c + j];
            }
        }
    }
    fn transpose_seq(r: usize, c: usize, ld: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                y[j * ld + i] = a[i * c + j];
            }
        }
    }

    #[test]
    fn transposed_write() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..60), r.gen_range(0..60));
        let a = vf(&mut r, rows * c);
        check(
            "collapse::transposed_write",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; rows * c];
                transpose(nt, rows, c, rows, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; rows * c];
                transpose_seq(rows, c, rows, &a, &mut y);
                y
            },
        );
    }

    // ---- case: transposed_write_short_leading_dimension — `y[j * ld + i]` with `ld < r` ---------------------------------
    #[test]
    fn transposed_write_short_leading_dimension() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(3..60), r.gen_range(2..60));
        let ld = rows - r.gen_range(1..3);
        let a = vf(&mut r, rows * c);
        let len = (c - 1) * ld + rows;
        check(
            "collapse::transposed_write_short_leading_dimension",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; len];
                transpose(nt, rows, c, ld, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; len];
                transpose_seq(rows, c, ld, &a, &mut y);
                y
            },
        );
    }

    // ---- case: reversed_rows — `y[(r - 1 - i) * c + j]` (negative coefficient) ----------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn flip(nt: usize, r: usize, c: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                y[(r - 1 - i) * c + j] = a[i * c + j];
            }
        }
    }

    #[test]
    fn reversed_rows() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(1..60), r.gen_range(0..60));
        let a = vf(&mut r, rows * c);
        check(
            "collapse::reversed_rows",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; rows * c];
                flip(nt, rows, c, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; rows * c];
                for i in 0..rows {
                    y[(rows - 1 - i) * c..(rows - i) * c].copy_from_slice(&a[i * c..(i + 1) * c]);
                }
                y
            },
        );
    }

    // ---- case: mirrored_columns — `y[(i + 1) * c - 1 - j]` ---------------------------------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn mirror(nt: usize, r: usize, c: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                y[(i + 1) * c - 1 - j] = a[i * c + j];
            }
        }
    }
    fn mirror_seq(r: usize, c: usize, a: &[f64], y: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                y[(i + 1) * c - 1 - j] = a[i * c + j];
            }
        }
    }

    #[test]
    fn mirrored_columns() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..60), r.gen_range(1..60));
        let a = vf(&mut r, rows * c);
        check(
            "collapse::mirrored_columns",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; rows * c];
                mirror(nt, rows, c, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; rows * c];
                mirror_seq(rows, c, &a, &mut y);
                y
            },
        );
    }

    // ---- case: sum_of_both_variables — `y[i + j]`: neighbouring rows overlap --------------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn antidiag(nt: usize, r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 0..c {
                y[i + j] += 1;
            }
        }
    }

    #[test]
    fn sum_of_both_variables() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(2..60), r.gen_range(2..60));
        check(
            "collapse::sum_of_both_variables",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; rows + c];
                antidiag(nt, rows, c, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; rows + c];
                for i in 0..rows {
                    for j in 0..c {
                        y[i + j] += 1;
                    }
                }
                y
            },
        );
    }

    // ---- case: inclusive_inner_one_too_many — `for j in 0..=c` with stride `c` ------------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn incl(nt: usize, r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 0..=c {
                y[i * c + j] = (i * 7 + j) as u64;
            }
        }
    }
    fn incl_seq(r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 0..=c {
                y[i * c + j] = (i * 7 + j) as u64;
            }
        }
    }

    #[test]
    fn inclusive_inner_one_too_many() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(2..60), r.gen_range(1..60));
        check(
            "collapse::inclusive_inner_one_too_many",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; rows * c + 1];
                incl(nt, rows, c, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; rows * c + 1];
                incl_seq(rows, c, &mut y);
                y
            },
        );
    }

    // ---- case: one_based_inner_range — `for j in 1..c + 1 { y[i * c + j - 1] }` ------------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn one_based(nt: usize, r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in 1..c + 1 {
                y[i * c + j - 1] = (i * 7 + j) as u64;
            }
        }
    }

    #[test]
    fn one_based_inner_range() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..60), r.gen_range(0..60));
        check(
            "collapse::one_based_inner_range",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; rows * c];
                one_based(nt, rows, c, &mut y);
                y
            },
            || (0..rows * c).map(|k| ((k / c.max(1)) * 7 + k % c.max(1) + 1) as u64).collect::<Vec<u64>>(),
        );
    }

    // ---- case: collapse3_middle_dimension_too_long — `y[(k * nj + j) * ni + i]` with `j in 0..nj + 1` -------------------
    #[omp::parallel_for(collapse(3), num_threads(nt))]
    fn cube(nt: usize, nk: usize, nj: usize, ni: usize, jr: usize, y: &mut [u64]) {
        for k in 0..nk {
            for j in 0..jr {
                for i in 0..ni {
                    y[(k * nj + j) * ni + i] = (k * 10000 + j * 100 + i) as u64;
                }
            }
        }
    }
    fn cube_seq(nk: usize, nj: usize, ni: usize, jr: usize, y: &mut [u64]) {
        for k in 0..nk {
            for j in 0..jr {
                for i in 0..ni {
                    y[(k * nj + j) * ni + i] = (k * 10000 + j * 100 + i) as u64;
                }
            }
        }
    }

    #[test]
    fn collapse3_middle_dimension_too_long() {
        let mut r = rng();
        let (nk, nj, ni) = (r.gen_range(2..12), r.gen_range(1..12), r.gen_range(1..12));
        let len = nk * nj * ni + ni;
        check(
            "collapse::collapse3_middle_dimension_too_long",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; len];
                cube(nt, nk, nj, ni, nj + 1, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; len];
                cube_seq(nk, nj, ni, nj + 1, &mut y);
                y
            },
        );
    }

    #[test]
    fn collapse3_exact() {
        let mut r = rng();
        let (nk, nj, ni) = (r.gen_range(0..12), r.gen_range(0..12), r.gen_range(0..12));
        check(
            "collapse::collapse3_exact",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; nk * nj * ni];
                cube(nt, nk, nj, ni, nj, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; nk * nj * ni];
                cube_seq(nk, nj, ni, nj, &mut y);
                y
            },
        );
    }

    // ---- case: inner_step_by_rev — `for j in (0..c).step_by(2).rev()` under collapse ------------------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt), schedule(dynamic, 3))]
    fn evens(nt: usize, r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in (0..c).step_by(2).rev() {
                y[i * c + j] += 1 + j as u64;
            }
        }
    }
    fn evens_seq(r: usize, c: usize, y: &mut [u64]) {
        for i in 0..r {
            for j in (0..c).step_by(2).rev() {
                y[i * c + j] += 1 + j as u64;
            }
        }
    }

    #[test]
    fn inner_step_by_rev() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..60), r.gen_range(0..60));
        check(
            "collapse::inner_step_by_rev",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; rows * c];
                evens(nt, rows, c, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; rows * c];
                evens_seq(rows, c, &mut y);
                y
            },
        );
    }

    // ---- case: signed_ranges_offset — `for i in -2i64..r`, `for j in -3i64..c`, index `((i + 2) * (c + 3) + j + 3)` --------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn signed_grid(nt: usize, r: i64, c: i64, y: &mut [i64]) {
        for i in -2i64..r {
            for j in -3i64..c {
                y[((i + 2) * (c + 3) + j + 3) as usize] = i * 100 + j;
            }
        }
    }
    fn signed_grid_seq(r: i64, c: i64, y: &mut [i64]) {
        for i in -2i64..r {
            for j in -3i64..c {
                y[((i + 2) * (c + 3) + j + 3) as usize] = i * 100 + j;
            }
        }
    }

    #[test]
    fn signed_ranges_offset() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..40i64), r.gen_range(0..40i64));
        let len = ((rows + 2) * (c + 3)) as usize;
        check(
            "collapse::signed_ranges_offset",
            MustEqual,
            |nt| {
                let mut y = vec![0i64; len];
                signed_grid(nt, rows, c, &mut y);
                y
            },
            || {
                let mut y = vec![0i64; len];
                signed_grid_seq(rows, c, &mut y);
                y
            },
        );
    }

    // ---- case: two_written_arrays_two_layouts — `a[i * c + j]` and `b[j * r + i]` in one nest -----------------------------
    #[omp::parallel_for(collapse(2), num_threads(nt))]
    fn both(nt: usize, r: usize, c: usize, x: &[f64], a: &mut [f64], b: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                a[i * c + j] = x[i * c + j] + 1.0;
                b[j * r + i] = x[i * c + j] - 1.0;
            }
        }
    }
    fn both_seq(r: usize, c: usize, x: &[f64], a: &mut [f64], b: &mut [f64]) {
        for i in 0..r {
            for j in 0..c {
                a[i * c + j] = x[i * c + j] + 1.0;
                b[j * r + i] = x[i * c + j] - 1.0;
            }
        }
    }

    #[test]
    fn two_written_arrays_two_layouts() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..50), r.gen_range(0..50));
        let x = vf(&mut r, rows * c);
        check(
            "collapse::two_written_arrays_two_layouts",
            MustEqual,
            |nt| {
                let (mut a, mut b) = (vec![0.0; rows * c], vec![0.0; rows * c]);
                both(nt, rows, c, &x, &mut a, &mut b);
                (a, b)
            },
            || {
                let (mut a, mut b) = (vec![0.0; rows * c], vec![0.0; rows * c]);
                both_seq(rows, c, &x, &mut a, &mut b);
                (a, b)
            },
        );
    }

    // ---- case: inner_sequential_loop_in_index — parallel `i`, `for k in 0..w { y[i * w + k] }` --------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn blocks(nt: usize, n: usize, w: usize, kr: usize, y: &mut [u64]) {
        for i in 0..n {
            for k in 0..kr {
                y[i * w + k] += (i + k) as u64 + 1;
            }
        }
    }
    fn blocks_seq(n: usize, w: usize, kr: usize, y: &mut [u64]) {
        for i in 0..n {
            for k in 0..kr {
                y[i * w + k] += (i + k) as u64 + 1;
            }
        }
    }

    #[test]
    fn inner_sequential_loop_in_index() {
        let mut r = rng();
        let (n, w) = (r.gen_range(0..200), r.gen_range(0..20));
        check(
            "collapse::inner_sequential_loop_in_index",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; n * w];
                blocks(nt, n, w, w, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; n * w];
                blocks_seq(n, w, w, &mut y);
                y
            },
        );
    }

    // ---- case: inner_sequential_loop_overlaps — `for k in 0..w + 1 { y[i * w + k] }`: block i's last element is block i+1's first
    #[test]
    fn inner_sequential_loop_overlaps() {
        let mut r = rng();
        let (n, w) = (r.gen_range(2..200), r.gen_range(1..20));
        check(
            "collapse::inner_sequential_loop_overlaps",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; n * w + 1];
                blocks(nt, n, w, w + 1, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; n * w + 1];
                blocks_seq(n, w, w + 1, &mut y);
                y
            },
        );
    }
}

// =============================================================================================================
/// Legitimate uses of `private`, `firstprivate` and every reduction operator, in the forms a port of C code has:
/// they must compile and match sequential Rust (floats up to reassociation). Misuses are compile-fail cases.
mod clauses {
    use super::*;

    // ---- case: private_temp_written_first — `private(t)` written before it is read in every iteration --------------
    #[omp::parallel_for(num_threads(nt), private(t))]
    fn priv_tmp(nt: usize, x: &[f64], y: &mut [f64]) {
        let mut t: f64 = 0.0;
        for i in 0..x.len() {
            t = x[i] * x[i];
            y[i] = t + 1.0;
        }
    }

    #[test]
    fn private_temp_written_first() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x = vf(&mut r, n);
        check(
            "clauses::private_temp_written_first",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                priv_tmp(nt, &x, &mut y);
                y
            },
            || x.iter().map(|v| v * v + 1.0).collect::<Vec<f64>>(),
        );
    }

    // ---- case: private_array_scratch — `private(buf)` with `buf: [f64; 4]` overwritten in full every iteration --------
    #[omp::parallel_for(num_threads(nt), private(buf))]
    fn priv_buf(nt: usize, x: &[f64], y: &mut [f64]) {
        let mut buf = [0.0f64; 4];
        for i in 0..y.len() {
            for k in 0..4 {
                buf[k] = x[i] * k as f64;
            }
            y[i] = buf[0] + buf[1] + buf[2] + buf[3];
        }
    }

    #[test]
    fn private_array_scratch() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x = vf(&mut r, n);
        check(
            "clauses::private_array_scratch",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                priv_buf(nt, &x, &mut y);
                y
            },
            || x.iter().map(|v| v * 0.0 + v * 1.0 + v * 2.0 + v * 3.0).collect::<Vec<f64>>(),
        );
    }

    // ---- case: firstprivate_read_only — `firstprivate(c)` used as a coefficient, never written -------------------------
    #[omp::parallel_for(num_threads(nt), firstprivate(c))]
    fn fp_coeff(nt: usize, c: f64, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            y[i] = c * x[i];
        }
    }

    #[test]
    fn firstprivate_read_only() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let (x, c) = (vf(&mut r, n), r.gen_range(-3.0..3.0));
        check(
            "clauses::firstprivate_read_only",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                fp_coeff(nt, c, &x, &mut y);
                y
            },
            || x.iter().map(|v| c * v).collect::<Vec<f64>>(),
        );
    }

    // ---- case: firstprivate_shadowed — `let c = c * 2.0;` rebinds the firstprivate inside the body ---------------------
    #[omp::parallel_for(num_threads(nt), firstprivate(c))]
    fn fp_shadow(nt: usize, c: f64, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            let c = c * 2.0;
            y[i] = c * x[i];
        }
    }

    #[test]
    fn firstprivate_shadowed() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let (x, c) = (vf(&mut r, n), r.gen_range(-3.0..3.0));
        check(
            "clauses::firstprivate_shadowed",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                fp_shadow(nt, c, &x, &mut y);
                y
            },
            || x.iter().map(|v| c * 2.0 * v).collect::<Vec<f64>>(),
        );
    }

    // ---- case: firstprivate_table — `firstprivate(table)` (a `Vec`) indexed by `i % table.len()` ------------------------
    #[omp::parallel_for(num_threads(nt), firstprivate(table))]
    fn fp_table(nt: usize, table: Vec<f64>, y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = table[i % table.len()];
        }
    }

    #[test]
    fn firstprivate_table() {
        let mut r = rng();
        let (n, k) = (r.gen_range(0..2000), r.gen_range(1..30));
        let t = vf(&mut r, k);
        check(
            "clauses::firstprivate_table",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                fp_table(nt, t.clone(), &mut y);
                y
            },
            || (0..n).map(|i| t[i % k]).collect::<Vec<f64>>(),
        );
    }

    // ---- case: sum_with_initial_value — `reduction(+: s)` starting from a non-zero value ---------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(+: s))]
    fn sum_from(nt: usize, s0: f64, x: &[f64]) -> f64 {
        let mut s = s0;
        for i in 0..x.len() {
            s += x[i];
        }
        s
    }

    #[test]
    fn sum_with_initial_value() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let (x, s0) = (vf(&mut r, n), r.gen_range(-100.0..100.0));
        check(
            "clauses::sum_with_initial_value",
            MustEqual,
            |nt| Approx(vec![sum_from(nt, s0, &x)]),
            || Approx(vec![x.iter().fold(s0, |a, v| a + v)]),
        );
    }

    // ---- case: minus_assign_under_plus — `s -= x[i]` under `reduction(+: s)` (OpenMP's `-` reduction) -------------------
    #[omp::parallel_for(num_threads(nt), reduction(+: s))]
    fn minus(nt: usize, x: &[i64]) -> i64 {
        let mut s: i64 = 1000;
        for i in 0..x.len() {
            s -= x[i];
        }
        s
    }

    #[test]
    fn minus_assign_under_plus() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1000..1000)).collect();
        check("clauses::minus_assign_under_plus", MustEqual, |nt| minus(nt, &x), || 1000 - x.iter().sum::<i64>());
    }

    // ---- case: plus_written_out — `s = s + x[i]` (the spelled-out update form) ------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(+: s))]
    fn spelled(nt: usize, x: &[i64]) -> i64 {
        let mut s: i64 = 0;
        for i in 0..x.len() {
            s = s + x[i] * 2;
        }
        s
    }

    #[test]
    fn plus_written_out() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1000..1000)).collect();
        check("clauses::plus_written_out", MustEqual, |nt| spelled(nt, &x), || x.iter().map(|v| v * 2).sum::<i64>());
    }

    // ---- case: product_f64 — `reduction(*: p)` -------------------------------------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(*: p))]
    fn prod(nt: usize, x: &[f64]) -> f64 {
        let mut p: f64 = 2.0;
        for i in 0..x.len() {
            p *= 1.0 + x[i] * 1e-3;
        }
        p
    }

    #[test]
    fn product_f64() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x = vf(&mut r, n);
        check(
            "clauses::product_f64",
            MustEqual,
            |nt| Approx(vec![prod(nt, &x)]),
            || Approx(vec![x.iter().fold(2.0, |a, v| a * (1.0 + v * 1e-3))]),
        );
    }

    // ---- case: min_max_with_nans — `m = m.max(x[i])` / `lo = lo.min(x[i])` over data with NaNs and infinities ---------
    #[omp::parallel_for(num_threads(nt), reduction(max: hi), reduction(min: lo))]
    fn extremes(nt: usize, x: &[f64]) -> (f64, f64) {
        let mut hi = f64::NEG_INFINITY;
        let mut lo = f64::INFINITY;
        for i in 0..x.len() {
            hi = hi.max(x[i]);
            lo = lo.min(x[i]);
        }
        (hi, lo)
    }

    #[test]
    fn min_max_with_nans() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let mut x = vf(&mut r, n);
        for _ in 0..n / 10 {
            let k = r.gen_range(0..n);
            x[k] = f64::NAN;
        }
        check(
            "clauses::min_max_with_nans",
            MustEqual,
            |nt| extremes(nt, &x),
            || x.iter().fold((f64::NEG_INFINITY, f64::INFINITY), |(h, l), v| (h.max(*v), l.min(*v))),
        );
    }

    // ---- case: integer_min_max — `reduction(max: m)` on `i32`, `reduction(min: k)` on `u16` -------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(max: m), reduction(min: k))]
    fn int_extremes(nt: usize, x: &[i32]) -> (i32, u16) {
        let mut m = i32::MIN;
        let mut k = u16::MAX;
        for i in 0..x.len() {
            m = m.max(x[i]);
            k = k.min((x[i] & 0xffff) as u16);
        }
        (m, k)
    }

    #[test]
    fn integer_min_max() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<i32> = (0..n).map(|_| r.gen()).collect();
        check(
            "clauses::integer_min_max",
            MustEqual,
            |nt| int_extremes(nt, &x),
            || x.iter().fold((i32::MIN, u16::MAX), |(m, k), v| (m.max(*v), k.min((v & 0xffff) as u16))),
        );
    }

    // ---- case: bool_and_or — `reduction(&&: all)`, `reduction(||: any)` ----------------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(&&: all), reduction(||: any))]
    fn flags(nt: usize, x: &[f64], limit: f64) -> (bool, bool) {
        let mut all = true;
        let mut any = false;
        for i in 0..x.len() {
            all = all && x[i] < limit;
            any = any || x[i] == limit;
        }
        (all, any)
    }

    #[test]
    fn bool_and_or() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x = vf(&mut r, n);
        for limit in [2.0, x.get(n / 2).copied().unwrap_or(0.0)] {
            check(
                "clauses::bool_and_or",
                MustEqual,
                |nt| flags(nt, &x, limit),
                || (x.iter().all(|v| *v < limit), x.iter().any(|v| *v == limit)),
            );
        }
    }

    // ---- case: bitwise_u64 — `&`, `|`, `^` reductions -----------------------------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(&: a), reduction(|: o), reduction(^: e))]
    fn bits(nt: usize, x: &[u64]) -> (u64, u64, u64) {
        let mut a = u64::MAX;
        let mut o = 0u64;
        let mut e = 0u64;
        for i in 0..x.len() {
            a &= x[i] | 0xff;
            o |= x[i] >> 3;
            e ^= x[i];
        }
        (a, o, e)
    }

    #[test]
    fn bitwise_u64() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<u64> = (0..n).map(|_| r.gen()).collect();
        check(
            "clauses::bitwise_u64",
            MustEqual,
            |nt| bits(nt, &x),
            || x.iter().fold((u64::MAX, 0, 0), |(a, o, e), v| (a & (v | 0xff), o | (v >> 3), e ^ v)),
        );
    }

    // ---- case: u8_sum_overflows — `reduction(+: s)` on `u8` whose total exceeds 255 -----------------------------------
    // A thread's own `s += x[i]` follows the profile (debug: panics on overflow); the partial sums combine with
    // wrapping arithmetic (CHANGELOG), as the kernels' do. So the region panics (a partial overflowed) or returns the
    // wrapped total (every partial fitted), and nothing else: which one depends on how the iterations split.
    #[omp::parallel_for(num_threads(nt), reduction(+: s))]
    fn sum_u8(nt: usize, x: &[u8]) -> u8 {
        let mut s: u8 = 0;
        for i in 0..x.len() {
            s += x[i];
        }
        s
    }

    #[test]
    fn u8_sum_overflows() {
        let mut r = rng();
        let n = r.gen_range(10..3000);
        let x: Vec<u8> = (0..n).map(|_| r.gen_range(0..20)).collect();
        check("clauses::u8_sum_overflows", PanicOrEqual, |nt| sum_u8(nt, &x), || x.iter().fold(0u8, |a, v| a.wrapping_add(*v)));
        // Both outcomes, deterministically: partial sums that fit (4 threads of 20 x 10) and one that cannot.
        let fits = vec![10u8; 80];
        assert_eq!(sum_u8(4, &fits), 800u32 as u8, "every partial fits: the wrapped total");
        let partial_overflows = vec![200u8; 8];
        let got = std::panic::catch_unwind(|| sum_u8(1, &partial_overflows));
        assert!(cfg!(not(debug_assertions)) || got.is_err(), "one thread's 8 x 200 overflows its own sum: {got:?}");
    }

    // ---- case: i8_partial_sums_overflow — `+100, -100, ...` never overflows in order; a thread's partial sum does ----------
    #[omp::parallel_for(num_threads(nt), reduction(+: s), schedule(static, 1))]
    fn sum_i8(nt: usize, x: &[i8]) -> i8 {
        let mut s: i8 = 0;
        for i in 0..x.len() {
            s += x[i];
        }
        s
    }

    #[test]
    fn i8_partial_sums_overflow() {
        let x: Vec<i8> = (0..1000).map(|k| if k % 2 == 0 { 100 } else { -100 }).collect();
        check("clauses::i8_partial_sums_overflow", PanicOrEqual, |nt| sum_i8(nt, &x), || 0i8);
    }

    // ---- case: reduction_over_no_iterations — the original value comes back untouched ---------------------------------
    #[test]
    fn reduction_over_no_iterations() {
        check(
            "clauses::reduction_over_no_iterations",
            MustEqual,
            |nt| (Approx(vec![sum_from(nt, 4.25, &[])]), prod(nt, &[]), extremes(nt, &[]), bits(nt, &[]), flags(nt, &[], 0.0)),
            || (Approx(vec![4.25]), 2.0, (f64::NEG_INFINITY, f64::INFINITY), (u64::MAX, 0, 0), (true, false)),
        );
    }

    // ---- case: reduction_on_parameter — `mut s: i64` parameter is the reduction variable, collapse(2) ------------------
    #[omp::parallel_for(num_threads(nt), collapse(2), reduction(+: s), reduction(max: best))]
    fn grid_stats(nt: usize, mut s: i64, r: usize, c: usize, a: &[i64]) -> (i64, i64) {
        let mut best = i64::MIN;
        for i in 0..r {
            for j in 0..c {
                s += a[i * c + j];
                best = best.max(a[i * c + j] - j as i64);
            }
        }
        (s, best)
    }

    #[test]
    fn reduction_on_parameter() {
        let mut r = rng();
        let (rows, c) = (r.gen_range(0..80), r.gen_range(0..80));
        let a: Vec<i64> = (0..rows * c).map(|_| r.gen_range(-1000..1000)).collect();
        check(
            "clauses::reduction_on_parameter",
            MustEqual,
            |nt| grid_stats(nt, 17, rows, c, &a),
            || {
                let s = 17 + a.iter().sum::<i64>();
                let best = (0..rows * c).map(|k| a[k] - (k % c) as i64).max().unwrap_or(i64::MIN);
                (s, best)
            },
        );
    }

    // ---- case: count_with_cast — `count += (x[i] > 0.0) as u64` -------------------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(+: count))]
    fn positives(nt: usize, x: &[f64]) -> u64 {
        let mut count = 0u64;
        for i in 0..x.len() {
            count += (x[i] > 0.0) as u64;
        }
        count
    }

    #[test]
    fn count_with_cast() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x = vf(&mut r, n);
        check("clauses::count_with_cast", MustEqual, |nt| positives(nt, &x), || x.iter().filter(|v| **v > 0.0).count() as u64);
    }
}

// =============================================================================================================
/// `#[omp::atomic]`, `#[omp::critical]`, std atomics and locks used correctly: results equal sequential Rust
/// (integers, so the order of updates cannot show); a critical section re-entered through a nested region must
/// not hang.
mod sync {
    use super::*;

    // ---- case: atomic_histogram — `#[omp::atomic] h[k] += 1` with `h.len()` also used ---------------------------------
    #[omp::directives]
    fn histogram(nt: usize, x: &[u32], h: &mut [u64]) {
        #[omp::parallel_for(num_threads(nt), schedule(dynamic, 7))]
        for i in 0..x.len() {
            let k = x[i] as usize % h.len();
            #[omp::atomic]
            h[k] += 1;
        }
    }

    #[test]
    fn atomic_histogram() {
        let mut r = rng();
        let (n, b) = (r.gen_range(0..5000), r.gen_range(1..17));
        let x: Vec<u32> = (0..n).map(|_| r.gen()).collect();
        check(
            "sync::atomic_histogram",
            MustEqual,
            |nt| {
                let mut h = vec![0u64; b];
                histogram(nt, &x, &mut h);
                h
            },
            || {
                let mut h = vec![0u64; b];
                for v in &x {
                    h[*v as usize % b] += 1;
                }
                h
            },
        );
    }

    // ---- case: atomic_scalar_sum_and_sub — `#[omp::atomic] total += ..` and `#[omp::atomic] neg -= ..` on scalars ------
    #[omp::directives]
    fn atomic_stats(nt: usize, x: &[i64]) -> (i64, i64) {
        let mut total = 0i64;
        let mut neg = 0i64;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..x.len() {
            #[omp::atomic]
            total += x[i];
            #[omp::atomic]
            neg -= 2 * x[i];
        }
        (total, neg)
    }

    #[test]
    fn atomic_scalar_sum_and_sub() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1_000_000..1_000_000)).collect();
        check(
            "sync::atomic_scalar_sum_and_sub",
            MustEqual,
            |nt| atomic_stats(nt, &x),
            || (x.iter().sum::<i64>(), -2 * x.iter().sum::<i64>()),
        );
    }

    // ---- case: atomic_capture_total — tickets from `#[omp::atomic(capture)]`: only the final count is compared ----------
    #[omp::directives]
    fn tickets(nt: usize, n: usize) -> u64 {
        let mut next = 0u64;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..n {
            #[omp::atomic(capture)]
            let t = (next += 2);
            let _ = t;
        }
        next
    }

    #[test]
    fn atomic_capture_total() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        check("sync::atomic_capture_total", MustEqual, |nt| tickets(nt, n), || 2 * n as u64);
    }

    // ---- case: critical_sum_and_count — two variables updated in one unnamed critical section -----------------------
    #[omp::directives]
    fn crit_sum(nt: usize, x: &[i64]) -> (i64, usize) {
        let mut s = 0i64;
        let mut c = 0usize;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..x.len() {
            let v = x[i] * 3;
            #[omp::critical]
            {
                s += v;
                c += 1;
            }
        }
        (s, c)
    }

    #[test]
    fn critical_sum_and_count() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-1000..1000)).collect();
        check("sync::critical_sum_and_count", MustEqual, |nt| crit_sum(nt, &x), || (3 * x.iter().sum::<i64>(), n));
    }

    // ---- case: critical_argmax — the C idiom with an explicit tie-break on the index --------------------------------
    #[omp::directives]
    fn argmax(nt: usize, x: &[i32]) -> (i32, usize) {
        let mut best = i32::MIN;
        let mut at = usize::MAX;
        #[omp::parallel_for(num_threads(nt), schedule(guided))]
        for i in 0..x.len() {
            #[omp::critical(best)]
            {
                if x[i] > best || (x[i] == best && i < at) {
                    best = x[i];
                    at = i;
                }
            }
        }
        (best, at)
    }

    #[test]
    fn critical_argmax() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x: Vec<i32> = (0..n).map(|_| r.gen_range(-50..50)).collect();
        check(
            "sync::critical_argmax",
            MustEqual,
            |nt| argmax(nt, &x),
            || {
                let mut best = (i32::MIN, usize::MAX);
                for (i, v) in x.iter().enumerate() {
                    if *v > best.0 {
                        best = (*v, i);
                    }
                }
                best
            },
        );
    }

    // ---- case: two_named_critical_sections — `critical(a)` and `critical(b)` guard different variables ---------------
    #[omp::directives]
    fn two_locks(nt: usize, x: &[u32]) -> (u64, u64) {
        let mut even = 0u64;
        let mut odd = 0u64;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..x.len() {
            if x[i] % 2 == 0 {
                #[omp::critical(evens)]
                {
                    even += x[i] as u64;
                }
            } else {
                #[omp::critical(odds)]
                {
                    odd += x[i] as u64;
                }
            }
        }
        (even, odd)
    }

    #[test]
    fn two_named_critical_sections() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x: Vec<u32> = (0..n).map(|_| r.gen_range(0..1000)).collect();
        check(
            "sync::two_named_critical_sections",
            MustEqual,
            |nt| two_locks(nt, &x),
            || (x.iter().filter(|v| *v % 2 == 0).map(|v| *v as u64).sum(), x.iter().filter(|v| *v % 2 == 1).map(|v| *v as u64).sum()),
        );
    }

    // ---- case: critical_reentered_through_nested_region — a critical body calls a fn whose own parallel loop enters
    //      the same critical name (sequential Rust: no locks at all; the nested region runs on one thread) ------------
    #[omp::directives]
    fn inner_count(y: &mut [u64]) -> u64 {
        let mut c = 0u64;
        #[omp::parallel_for]
        for i in 0..y.len() {
            #[omp::critical(reentered)]
            {
                c += 1;
            }
        }
        c
    }

    #[omp::directives]
    fn outer_count(nt: usize, n: usize) -> u64 {
        let mut total = 0u64;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..n {
            let mut scratch = vec![0u64; 3];
            #[omp::critical(reentered)]
            {
                total += inner_count(&mut scratch);
            }
        }
        total
    }

    #[test]
    fn critical_reentered_through_nested_region() {
        check_within("sync::critical_reentered_through_nested_region", PanicOrEqual, 20, |nt| outer_count(nt, 50), || 150u64);
    }

    // ---- case: std_atomic_slice — a shared `&[AtomicU64]` updated with `fetch_add` (no omp clause needed) -------------
    #[omp::parallel_for(num_threads(nt))]
    fn std_hist(nt: usize, x: &[u32], h: &[AtomicU64]) {
        for i in 0..x.len() {
            h[x[i] as usize % h.len()].fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn std_atomic_slice() {
        let mut r = rng();
        let (n, b) = (r.gen_range(0..5000), r.gen_range(1..17));
        let x: Vec<u32> = (0..n).map(|_| r.gen()).collect();
        check(
            "sync::std_atomic_slice",
            MustEqual,
            |nt| {
                let h: Vec<AtomicU64> = (0..b).map(|_| AtomicU64::new(0)).collect();
                std_hist(nt, &x, &h);
                h.iter().map(|a| a.load(Relaxed)).collect::<Vec<u64>>()
            },
            || {
                let mut h = vec![0u64; b];
                for v in &x {
                    h[*v as usize % b] += 1;
                }
                h
            },
        );
    }

    // ---- case: mutex_collect — a shared `Mutex<Vec<_>>` gathers matches, compared after sorting ------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn collect(nt: usize, x: &[i32], out: &std::sync::Mutex<Vec<usize>>) {
        for i in 0..x.len() {
            if x[i] % 7 == 0 {
                out.lock().unwrap().push(i);
            }
        }
    }

    #[test]
    fn mutex_collect() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<i32> = (0..n).map(|_| r.gen_range(0..100)).collect();
        check(
            "sync::mutex_collect",
            MustEqual,
            |nt| {
                let m = std::sync::Mutex::new(Vec::new());
                collect(nt, &x, &m);
                let mut v = m.into_inner().unwrap();
                v.sort_unstable();
                v
            },
            || (0..n).filter(|i| x[*i] % 7 == 0).collect::<Vec<usize>>(),
        );
    }

    // ---- case: panic_inside_critical_then_reuse — an iteration panics while holding `critical(fragile)`; the same
    //      section must work afterwards (no poisoned lock, no deadlock) -------------------------------------------------
    #[omp::directives]
    fn fragile(nt: usize, x: &[i64]) -> i64 {
        let mut s = 0i64;
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..x.len() {
            #[omp::critical(fragile)]
            {
                if x[i] < 0 {
                    panic!("negative input at {i}");
                }
                s += x[i];
            }
        }
        s
    }

    #[test]
    fn panic_inside_critical_then_reuse() {
        let mut r = rng();
        let n = r.gen_range(10..2000);
        let mut x: Vec<i64> = (0..n).map(|_| r.gen_range(0..1000)).collect();
        let good = x.clone();
        let want: i64 = good.iter().sum();
        x[n / 2] = -1;
        check("sync::panic_inside_critical", MustPanic, |nt| fragile(nt, &x), || fragile(1, &x));
        check_within("sync::critical_after_panic", MustEqual, 20, move |nt| fragile(nt, &good), move || want);
    }
}

// =============================================================================================================
/// Captured values of user types with their own `Index`, `Deref` and `len`: the loop must go through the user's
/// impls exactly as sequential Rust does (writes to such types are compile-fail cases), and non-`Copy` elements
/// must be dropped and replaced as in sequential code.
mod user_types {
    use super::*;
    use std::ops::{Deref, Index, RangeFull};

    /// A 1-based vector (Fortran style): `v[1]` is the first element; `v[..]` is the whole storage.
    pub(crate) struct OneBased(pub(crate) Vec<f64>);
    impl Index<usize> for OneBased {
        type Output = f64;
        fn index(&self, i: usize) -> &f64 {
            &self.0[i - 1]
        }
    }
    impl Index<RangeFull> for OneBased {
        type Output = [f64];
        fn index(&self, _: RangeFull) -> &[f64] {
            &self.0
        }
    }
    impl OneBased {
        pub(crate) fn len(&self) -> usize {
            self.0.len()
        }
    }

    // ---- case: one_based_read_only — `x[i]` on a 1-based type, loop `1..=x.len()` ------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn from_one_based(nt: usize, x: &OneBased, y: &mut [f64]) {
        for i in 1..=x.len() {
            y[i - 1] = x[i] * 2.0;
        }
    }

    #[test]
    fn one_based_read_only() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x = OneBased(vf(&mut r, n));
        check(
            "user_types::one_based_read_only",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                from_one_based(nt, &x, &mut y);
                y
            },
            || x.0.iter().map(|v| v * 2.0).collect::<Vec<f64>>(),
        );
    }

    /// Derefs to its storage but indexes it 1-based: `w[i]` uses the `Index` impl, not the slice.
    pub(crate) struct Shifted(pub(crate) Vec<f64>);
    impl Deref for Shifted {
        type Target = [f64];
        fn deref(&self) -> &[f64] {
            &self.0
        }
    }
    impl Index<usize> for Shifted {
        type Output = f64;
        fn index(&self, i: usize) -> &f64 {
            &self.0[i + 1]
        }
    }

    // ---- case: deref_and_own_index_read_only — `w[i]` must be `Shifted::index`, not `<[f64]>::index` via `Deref` ---------
    #[omp::parallel_for(num_threads(nt))]
    fn from_shifted(nt: usize, w: &Shifted, y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = w[i];
        }
    }

    #[test]
    fn deref_and_own_index_read_only() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let w = Shifted(vf(&mut r, n + 1));
        check(
            "user_types::deref_and_own_index_read_only",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                from_shifted(nt, &w, &mut y);
                y
            },
            || w.0[1..].to_vec(),
        );
    }

    /// Counters behind `Index`: interior mutability through atomics, legitimately shared.
    pub(crate) struct Counters(pub(crate) Vec<AtomicU64>);
    impl Index<usize> for Counters {
        type Output = AtomicU64;
        fn index(&self, i: usize) -> &AtomicU64 {
            &self.0[i]
        }
    }

    // ---- case: index_returns_atomic — `c[k].fetch_add(..)` through a user `Index` returning `&AtomicU64` ----------------
    #[omp::parallel_for(num_threads(nt))]
    fn count_into(nt: usize, x: &[u32], c: &Counters) {
        for i in 0..x.len() {
            c[x[i] as usize % 5].fetch_add(x[i] as u64, Relaxed);
        }
    }

    #[test]
    fn index_returns_atomic() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x: Vec<u32> = (0..n).map(|_| r.gen_range(0..1000)).collect();
        check(
            "user_types::index_returns_atomic",
            MustEqual,
            |nt| {
                let c = Counters((0..5).map(|_| AtomicU64::new(0)).collect());
                count_into(nt, &x, &c);
                c.0.iter().map(|a| a.load(Relaxed)).collect::<Vec<u64>>()
            },
            || {
                let mut c = vec![0u64; 5];
                for v in &x {
                    c[*v as usize % 5] += *v as u64;
                }
                c
            },
        );
    }

    /// A vector whose `len()` claims `extra` more elements than it holds.
    pub(crate) struct Lying {
        pub v: Vec<f64>,
        pub extra: usize,
    }
    impl Lying {
        pub(crate) fn len(&self) -> usize {
            self.v.len() + self.extra
        }
    }
    impl Index<usize> for Lying {
        type Output = f64;
        fn index(&self, i: usize) -> &f64 {
            &self.v[i]
        }
    }

    // ---- case: lying_len_read_only — loop bound from a `len()` that overstates the storage -----------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn from_lying(nt: usize, x: &Lying, y: &mut [f64]) {
        for i in 0..x.len() {
            y[i] = x[i] + 1.0;
        }
    }
    fn from_lying_seq(x: &Lying, y: &mut [f64]) {
        for i in 0..x.len() {
            y[i] = x[i] + 1.0;
        }
    }

    #[test]
    fn lying_len_read_only() {
        let mut r = rng();
        let n = r.gen_range(1..2000);
        let extra = r.gen_range(0..3);
        let x = Lying { v: vf(&mut r, n), extra };
        check(
            "user_types::lying_len_read_only",
            PanicOrEqual,
            |nt| {
                let mut y = vec![0.0; n + extra];
                from_lying(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n + extra];
                from_lying_seq(&x, &mut y);
                y
            },
        );
    }

    /// A `len()` with a side effect (it counts its calls) and a value that grows with every call.
    pub(crate) struct Ticker {
        pub calls: AtomicUsize,
        pub grow: bool,
    }
    impl Ticker {
        pub(crate) fn len(&self) -> usize {
            let k = self.calls.fetch_add(1, Relaxed);
            if self.grow {
                k
            } else {
                0
            }
        }
    }

    // ---- case: len_with_side_effect_in_read_index — `x[i + t.len()]`: the program counts the calls; evaluating
    //      `t.len()` any extra time (e.g. to check bounds once per row) changes its result ---------------------------
    #[omp::parallel_for(num_threads(nt), schedule(static, 1))]
    fn tick(nt: usize, t: &Ticker, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i + t.len()];
        }
    }

    #[test]
    fn len_with_side_effect_in_read_index() {
        let mut r = rng();
        let n = r.gen_range(1..1000);
        let x = vf(&mut r, n);
        check(
            "user_types::len_with_side_effect_in_read_index",
            MustEqual,
            |nt| {
                let t = Ticker { calls: AtomicUsize::new(0), grow: false };
                let mut y = vec![0.0; n];
                tick(nt, &t, &x, &mut y);
                (y, t.calls.load(Relaxed))
            },
            || (x.clone(), n),
        );
    }

    // ---- case: growing_len_in_read_index — the same with a `len()` that grows, so `x[i + t.len()]` reads further every
    //      call: extra calls run past any bound computed ahead. With `x[j] = j`, the calls' values are a permutation of
    //      0..n in any team order, so the sum of `y` and the call count are fixed --------------------------------------
    #[test]
    fn growing_len_in_read_index() {
        let mut r = rng();
        let n = r.gen_range(2..1000);
        let x: Vec<f64> = (0..2 * n - 1).map(|j| j as f64).collect();
        check(
            "user_types::growing_len_in_read_index",
            MustEqual,
            |nt| {
                let t = Ticker { calls: AtomicUsize::new(0), grow: true };
                let mut y = vec![0.0; n];
                tick(nt, &t, &x, &mut y);
                (y.iter().sum::<f64>() as u64, t.calls.load(Relaxed))
            },
            || ((n * (n - 1)) as u64, n),
        );
    }

    // ---- case: string_elements_written — `y[i] = format!(..)` drops the old `String` of every element once ---------------
    #[omp::parallel_for(num_threads(nt))]
    fn label(nt: usize, x: &[u32], y: &mut [String]) {
        for i in 0..x.len() {
            y[i] = format!("{}:{}", i, x[i]);
        }
    }

    #[test]
    fn string_elements_written() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x: Vec<u32> = (0..n).map(|_| r.gen()).collect();
        check(
            "user_types::string_elements_written",
            MustEqual,
            |nt| {
                let mut y = vec![String::from("old"); n];
                label(nt, &x, &mut y);
                y
            },
            || (0..n).map(|i| format!("{}:{}", i, x[i])).collect::<Vec<String>>(),
        );
    }

    // ---- case: rows_of_vec_written — `y[i][j] = ..` on `&mut [Vec<f64>]` (the first index is the disjoint one) ------------
    #[omp::parallel_for(num_threads(nt))]
    fn rows(nt: usize, x: &[f64], y: &mut [Vec<f64>]) {
        for i in 0..y.len() {
            for j in 0..y[i].len() {
                y[i][j] = x[i] * j as f64;
            }
        }
    }

    #[test]
    fn rows_of_vec_written() {
        let mut r = rng();
        let n = r.gen_range(0..300);
        let x = vf(&mut r, n);
        let lens: Vec<usize> = (0..n).map(|_| r.gen_range(0..9)).collect();
        check(
            "user_types::rows_of_vec_written",
            MustEqual,
            |nt| {
                let mut y: Vec<Vec<f64>> = lens.iter().map(|l| vec![0.0; *l]).collect();
                rows(nt, &x, &mut y);
                y
            },
            || lens.iter().enumerate().map(|(i, l)| (0..*l).map(|j| x[i] * j as f64).collect()).collect::<Vec<Vec<f64>>>(),
        );
    }

    // ---- case: rows_under_collapse — `c[i][j]` on `&mut [Vec<f64>]` under `collapse(2)`, and `collapse(3)` with the two
    // inner variables in the row index: the row loop is split over threads, the others run inside each row (each row is
    // its own allocation). A second write to the row's first element counts as sequential Rust does.
    #[omp::parallel_for(num_threads(nt), collapse(2))]
    fn rows_collapsed(nt: usize, x: &[f64], c: &mut [Vec<f64>]) {
        for i in 0..c.len() {
            for j in 0..x.len() {
                c[i][j] += x[j] * i as f64;
                c[i][0] += 1.0;
            }
        }
    }

    #[omp::parallel_for(num_threads(nt), collapse(3))]
    fn rows_collapsed3(nt: usize, m: usize, c: &mut Vec<Vec<f64>>) {
        for i in 0..c.len() {
            for j in 0..m {
                for k in 0..m {
                    c[i][j * m + k] = (i + 2 * j + 3 * k) as f64;
                }
            }
        }
    }

    /// The row loop's variable shadowed inside the body: the narrowed nest runs the inner loop in order inside each
    /// row, so every iteration of a row writes its element 0 one after the other, as sequential Rust does.
    #[omp::parallel_for(num_threads(nt), collapse(2))]
    #[allow(unused_variables)]
    fn rows_shadowed(nt: usize, m: usize, c: &mut [Vec<f64>]) {
        for i in 0..c.len() {
            for j in 0..m {
                let j = 0;
                c[i][j] = 2.0 * c[i][j] + 1.0;
            }
        }
    }

    #[test]
    fn rows_under_collapse() {
        let mut r = rng();
        let (rows, m) = (r.gen_range(0..60), r.gen_range(1..40));
        let x = vf(&mut r, m);
        let c0: Vec<Vec<f64>> = (0..rows).map(|_| vf(&mut r, m)).collect();
        check(
            "user_types::rows_under_collapse",
            MustEqual,
            |nt| {
                let mut c = c0.clone();
                rows_collapsed(nt, &x, &mut c);
                c
            },
            || {
                let mut c = c0.clone();
                for i in 0..rows {
                    for j in 0..m {
                        c[i][j] += x[j] * i as f64;
                        c[i][0] += 1.0;
                    }
                }
                c
            },
        );
        let m3 = r.gen_range(1..8);
        check(
            "user_types::rows_under_collapse3",
            MustEqual,
            |nt| {
                let mut c = vec![vec![0.0; m3 * m3]; rows];
                rows_collapsed3(nt, m3, &mut c);
                c
            },
            || (0..rows).map(|i| (0..m3 * m3).map(|jk| (i + 2 * (jk / m3) + 3 * (jk % m3)) as f64).collect()).collect::<Vec<Vec<f64>>>(),
        );
        let rows0: Vec<Vec<f64>> = (0..rows).map(|_| vf(&mut r, 3)).collect();
        check(
            "user_types::rows_under_collapse_shadowed",
            MustEqual,
            |nt| {
                let mut c = rows0.clone();
                rows_shadowed(nt, m, &mut c);
                c
            },
            || {
                let mut c = rows0.clone();
                for row in c.iter_mut() {
                    for _ in 0..m {
                        row[0] = 2.0 * row[0] + 1.0;
                    }
                }
                c
            },
        );
        // A row shorter than the loop: the index panics, as sequentially.
        check(
            "user_types::rows_under_collapse_short_row",
            MustPanic,
            |nt| {
                let mut c = vec![vec![0.0; m], vec![0.0; m - 1]];
                rows_collapsed(nt, &x, &mut c);
                c
            },
            || {
                let mut c = vec![vec![0.0; m], vec![0.0; m - 1]];
                for i in 0..2 {
                    for j in 0..m {
                        c[i][j] += x[j] * i as f64;
                        c[i][0] += 1.0;
                    }
                }
                c
            },
        );
    }

    // ---- case: mut_ref_and_swap — `let e = &mut y[i];` and `std::mem::swap(&mut a[i], &mut b[i])` ------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn swap_scale(nt: usize, a: &mut [f64], b: &mut [f64], y: &mut [f64]) {
        for i in 0..y.len() {
            std::mem::swap(&mut a[i], &mut b[i]);
            let e = &mut y[i];
            *e += a[i] - b[i];
        }
    }

    #[test]
    fn mut_ref_and_swap() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let (a0, b0, y0) = (vf(&mut r, n), vf(&mut r, n), vf(&mut r, n));
        check(
            "user_types::mut_ref_and_swap",
            MustEqual,
            |nt| {
                let (mut a, mut b, mut y) = (a0.clone(), b0.clone(), y0.clone());
                swap_scale(nt, &mut a, &mut b, &mut y);
                (a, b, y)
            },
            || (b0.clone(), a0.clone(), (0..n).map(|i| y0[i] + b0[i] - a0[i]).collect::<Vec<f64>>()),
        );
    }

    // ---- case: boxed_slice_and_fixed_array — `Box<[f64]>` read, `[f64; 64]` written (by value, returned) ----------------
    #[omp::parallel_for(num_threads(nt))]
    fn fixed(nt: usize, x: Box<[f64]>, mut y: [f64; 64]) -> [f64; 64] {
        for i in 0..64 {
            y[i] = x[i] + y[i];
        }
        y
    }

    #[test]
    fn boxed_slice_and_fixed_array() {
        let mut r = rng();
        let x = vf(&mut r, 64).into_boxed_slice();
        let mut y0 = [0.0f64; 64];
        for v in y0.iter_mut() {
            *v = r.gen();
        }
        check(
            "user_types::boxed_slice_and_fixed_array",
            MustEqual,
            |nt| fixed(nt, x.clone(), y0).to_vec(),
            || (0..64).map(|i| x[i] + y0[i]).collect::<Vec<f64>>(),
        );
    }

    // ---- case: map_and_deque_read_only — `HashMap` and `VecDeque` (non-contiguous) indexed in the body ---------------
    #[omp::parallel_for(num_threads(nt))]
    fn lookups(nt: usize, m: &std::collections::HashMap<usize, f64>, d: &std::collections::VecDeque<f64>, y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = m[&(i % 7)] + d[i];
        }
    }

    #[test]
    fn map_and_deque_read_only() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let m: std::collections::HashMap<usize, f64> = (0..7).map(|k| (k, k as f64 * 1.5)).collect();
        let mut d: std::collections::VecDeque<f64> = vf(&mut r, n).into();
        // Make the deque wrap around its buffer.
        for _ in 0..n / 2 {
            let v = d.pop_front().unwrap();
            d.push_back(v);
        }
        check(
            "user_types::map_and_deque_read_only",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                lookups(nt, &m, &d, &mut y);
                y
            },
            || (0..n).map(|i| m[&(i % 7)] + d[i]).collect::<Vec<f64>>(),
        );
    }
}

// =============================================================================================================
/// Panics inside iterations, legitimate control flow inside the body (inner `break`, labelled inner loops,
/// `continue`), nested regions, `if`, schedules, zero-trip loops.
mod control {
    use super::*;

    // ---- case: panic_in_one_iteration — `assert!` fails for one element; the team must still work afterwards --------
    #[omp::parallel_for(num_threads(nt), schedule(dynamic, 5))]
    fn sqrt_all(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            assert!(x[i] >= 0.0, "negative input {} at {}", x[i], i);
            y[i] = x[i].sqrt();
        }
    }

    #[test]
    fn panic_in_one_iteration() {
        let mut r = rng();
        let n = r.gen_range(10..3000);
        let mut x: Vec<f64> = (0..n).map(|_| r.gen_range(0.0..4.0)).collect();
        let good = x.clone();
        let k = r.gen_range(0..n);
        x[k] = -1.0;
        check(
            "control::panic_in_one_iteration",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; n];
                sqrt_all(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n];
                sqrt_all(1, &x, &mut y);
                y
            },
        );
        check(
            "control::team_usable_after_panic",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                sqrt_all(nt, &good, &mut y);
                y
            },
            || good.iter().map(|v| v.sqrt()).collect::<Vec<f64>>(),
        );
    }

    // ---- case: neighbour_read_out_of_bounds — `x[i + 1]` with `x.len() == y.len()` panics on the last iteration ---------
    #[omp::parallel_for(num_threads(nt))]
    fn fwd(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = x[i + 1] - x[i];
        }
    }

    #[test]
    fn neighbour_read_out_of_bounds() {
        let mut r = rng();
        let n = r.gen_range(1..3000);
        let x = vf(&mut r, n);
        check(
            "control::neighbour_read_out_of_bounds",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; n];
                fwd(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n];
                for i in 0..n {
                    y[i] = x[i + 1] - x[i];
                }
                y
            },
        );
    }

    // ---- case: written_index_out_of_bounds — `y[i + 3]` on `y` of the loop's length -----------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn shift3(nt: usize, n: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..n {
            y[i + 3] = x[i];
        }
    }

    #[test]
    fn written_index_out_of_bounds() {
        let mut r = rng();
        let n = r.gen_range(1..3000);
        let x = vf(&mut r, n);
        check(
            "control::written_index_out_of_bounds",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; n + 2];
                shift3(nt, n, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; n + 2];
                for i in 0..n {
                    y[i + 3] = x[i];
                }
                y
            },
        );
    }

    // ---- case: panic_any_payload — a non-string payload crosses the team unchanged -------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn payload(nt: usize, x: &[u32], y: &mut [u32]) {
        for i in 0..x.len() {
            if x[i] == 7 {
                std::panic::panic_any(i);
            }
            y[i] = x[i];
        }
    }

    #[test]
    fn panic_any_payload() {
        let mut r = rng();
        let n = r.gen_range(2..3000);
        let mut x: Vec<u32> = (0..n).map(|_| r.gen_range(0..7)).collect();
        x[n - 1] = 7;
        check(
            "control::panic_any_payload",
            MustPanic,
            |nt| {
                let mut y = vec![0; n];
                payload(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                payload(1, &x, &mut y);
                y
            },
        );
        let caught = catch_unwind(AssertUnwindSafe(|| {
            let mut y = vec![0; n];
            payload(2, &x, &mut y);
        }));
        let p = caught.expect_err("payload(2, ..) must panic");
        assert_eq!(p.downcast_ref::<usize>(), Some(&(n - 1)), "the panic payload must reach the caller unchanged");
    }

    // ---- case: break_in_inner_loops — `break` out of an inner `for` and an inner `while`, then `continue` ----------------
    #[omp::parallel_for(num_threads(nt))]
    fn first_hits(nt: usize, k: usize, a: &[i32], y: &mut [i64]) {
        for i in 0..y.len() {
            let mut hit: i64 = -1;
            for j in 0..k {
                if a[i * k + j] == 0 {
                    hit = j as i64;
                    break;
                }
            }
            let mut steps = 0;
            let mut j = 0;
            while j < k {
                steps += 1;
                if a[i * k + j] < 0 {
                    break;
                }
                j += 1;
            }
            if hit < 0 {
                y[i] = -(steps as i64);
                continue;
            }
            y[i] = hit * 100 + steps as i64;
        }
    }
    fn first_hits_seq(k: usize, a: &[i32], y: &mut [i64]) {
        for i in 0..y.len() {
            let mut hit: i64 = -1;
            for j in 0..k {
                if a[i * k + j] == 0 {
                    hit = j as i64;
                    break;
                }
            }
            let mut steps = 0;
            let mut j = 0;
            while j < k {
                steps += 1;
                if a[i * k + j] < 0 {
                    break;
                }
                j += 1;
            }
            if hit < 0 {
                y[i] = -(steps as i64);
                continue;
            }
            y[i] = hit * 100 + steps as i64;
        }
    }

    #[test]
    fn break_in_inner_loops() {
        let mut r = rng();
        let (n, k) = (r.gen_range(0..500), r.gen_range(1..12));
        let a: Vec<i32> = (0..n * k).map(|_| r.gen_range(-2..8)).collect();
        check(
            "control::break_in_inner_loops",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                first_hits(nt, k, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                first_hits_seq(k, &a, &mut y);
                y
            },
        );
    }

    // ---- case: nested_region_in_call — the body calls a fn that runs its own parallel loop ----------------------------
    #[omp::parallel_for]
    fn row_scale(c: f64, row: &mut [f64]) {
        for j in 0..row.len() {
            row[j] *= c;
        }
    }

    #[omp::parallel_for(num_threads(nt))]
    fn scale_rows(nt: usize, c: &[f64], rows: &mut [Vec<f64>]) {
        for i in 0..rows.len() {
            row_scale(c[i], &mut rows[i]);
        }
    }

    #[test]
    fn nested_region_in_call() {
        let mut r = rng();
        let n = r.gen_range(0..100);
        let c = vf(&mut r, n);
        let rows0: Vec<Vec<f64>> = (0..n).map(|_| vf(&mut r, 17)).collect();
        check(
            "control::nested_region_in_call",
            MustEqual,
            |nt| {
                let mut rows = rows0.clone();
                scale_rows(nt, &c, &mut rows);
                rows
            },
            || rows0.iter().enumerate().map(|(i, row)| row.iter().map(|v| v * c[i]).collect()).collect::<Vec<Vec<f64>>>(),
        );
    }

    // ---- case: zero_trip_with_panicking_body — nothing runs, so nothing may panic ----------------------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn never(nt: usize, lo: usize, hi: usize, y: &mut [f64]) {
        for i in lo..hi {
            y[i + 1_000_000] = 1.0 / 0.0;
            panic!("iteration {i} ran");
        }
    }

    #[test]
    fn zero_trip_with_panicking_body() {
        check(
            "control::zero_trip_with_panicking_body",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; 3];
                never(nt, 5, 5, &mut y);
                never(nt, 9, 2, &mut y);
                y
            },
            || vec![0.0; 3],
        );
    }

    // ---- case: if_clause_and_schedules — `if(cond)`, static/dynamic/guided/runtime/auto with odd chunk sizes ----------
    #[omp::directives]
    fn scheds(nt: usize, on: bool, chunk: usize, x: &[f64], y: &mut [f64]) {
        #[omp::parallel_for(num_threads(nt), if(on), schedule(static, chunk))]
        for i in 0..y.len() {
            y[i] = x[i] + 1.0;
        }
        #[omp::parallel_for(num_threads(nt), schedule(dynamic, chunk))]
        for i in (0..y.len()).rev() {
            y[i] *= 2.0;
        }
        #[omp::parallel_for(num_threads(nt), schedule(guided, chunk))]
        for i in (0..y.len()).step_by(3) {
            y[i] -= 1.0;
        }
        #[omp::parallel_for(num_threads(nt), schedule(runtime))]
        for i in 0..y.len() {
            y[i] += 0.5;
        }
        #[omp::parallel_for(num_threads(nt), schedule(auto))]
        for i in 0..y.len() {
            y[i] = -y[i];
        }
    }

    #[test]
    fn if_clause_and_schedules() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x = vf(&mut r, n);
        for (on, chunk) in [(true, 1), (false, 7), (true, 100_000)] {
            check(
                "control::if_clause_and_schedules",
                MustEqual,
                |nt| {
                    let mut y = vec![0.0; n];
                    scheds(nt, on, chunk, &x, &mut y);
                    y
                },
                || (0..n).map(|i| -(((x[i] + 1.0) * 2.0 - if i % 3 == 0 { 1.0 } else { 0.0 }) + 0.5)).collect::<Vec<f64>>(),
            );
        }
    }

    // ---- case: loop_bound_evaluated_once — a bound with a side effect is evaluated exactly once ---------------------------
    fn bound(calls: &AtomicUsize, n: usize) -> usize {
        calls.fetch_add(1, Relaxed);
        n
    }

    #[omp::parallel_for(num_threads(nt))]
    fn bounded(nt: usize, calls: &AtomicUsize, n: usize, y: &mut [u64]) {
        for i in 0..bound(calls, n) {
            y[i] = i as u64;
        }
    }

    #[test]
    fn loop_bound_evaluated_once() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        check(
            "control::loop_bound_evaluated_once",
            MustEqual,
            |nt| {
                let c = AtomicUsize::new(0);
                let mut y = vec![0; n];
                bounded(nt, &c, n, &mut y);
                (y, c.load(Relaxed))
            },
            || ((0..n as u64).collect::<Vec<u64>>(), 1),
        );
    }
}

// =============================================================================================================
/// Macros and unusual tokens in loop bodies: format strings that are only string *values*, raw identifiers,
/// assertion macros that read written arrays at the written index. None of this may make the macro panic.
mod macros {
    use super::*;

    // ---- case: format_value_with_non_identifier_braces — `format!("{} {}", "y = {x²}", ..)`: the literal is an argument,
    //      not a format string (issue #7: "`x²` is not a valid identifier" inside the macro) -------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn labels(nt: usize, x: &[f64], y: &mut [usize]) {
        for i in 0..x.len() {
            let s = format!("{} {}", "y = {x²}", x[i]);
            y[i] = s.len();
        }
    }

    #[test]
    fn format_value_with_non_identifier_braces() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        check(
            "macros::format_value_with_non_identifier_braces",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                labels(nt, &x, &mut y);
                y
            },
            || x.iter().map(|v| format!("{} {}", "y = {x²}", v).len()).collect::<Vec<usize>>(),
        );
    }

    // ---- case: assert_message_with_odd_braces — `assert!(.., "{}", "{½}")` and `debug_assert!(.., "{{i}}")` ----------
    #[omp::parallel_for(num_threads(nt))]
    fn checked_copy(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            assert!(x[i].is_finite(), "{} at {}", "{½}", i);
            debug_assert!(x[i] < 2.0, "{{i}} {{x²}}");
            y[i] = x[i];
        }
    }

    #[test]
    fn assert_message_with_odd_braces() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        check(
            "macros::assert_message_with_odd_braces",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                checked_copy(nt, &x, &mut y);
                y
            },
            || x.clone(),
        );
    }

    // ---- case: assert_reads_written_element — `assert_eq!(y[i], ..)` after writing `y[i]` (same index) ----------------
    #[omp::parallel_for(num_threads(nt))]
    fn write_then_assert(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            y[i] = x[i] * 2.0;
            assert_eq!(y[i], x[i] * 2.0, "element {}", i);
        }
    }

    #[test]
    fn assert_reads_written_element() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        check(
            "macros::assert_reads_written_element",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                write_then_assert(nt, &x, &mut y);
                y
            },
            || x.iter().map(|v| v * 2.0).collect::<Vec<f64>>(),
        );
    }

    // ---- case: std_macros_in_body — `vec![..; 3]`, `matches!`, `write!` into a local `String` ----------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn std_macros(nt: usize, k: &[u8], x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            use std::fmt::Write;
            let w = vec![x[i]; 3];
            let mut s = String::new();
            write!(s, "{:.3}", x[i]).unwrap();
            y[i] = if matches!(k[i], 1 | 2) { w.iter().sum::<f64>() } else { s.len() as f64 };
        }
    }

    #[test]
    fn std_macros_in_body() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        let k: Vec<u8> = (0..n).map(|_| r.gen_range(0..4)).collect();
        check(
            "macros::std_macros_in_body",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                std_macros(nt, &k, &x, &mut y);
                y
            },
            || (0..n).map(|i| if matches!(k[i], 1 | 2) { x[i] * 3.0 } else { format!("{:.3}", x[i]).len() as f64 }).collect::<Vec<f64>>(),
        );
    }

    // ---- case: raw_identifier_inner_loop — `for r#type in 0..m` inside an index that needs a run-time check -----------
    #[omp::parallel_for(num_threads(nt))]
    fn raw_inner(nt: usize, n: usize, m: usize, y: &mut [u64]) {
        for i in 0..n {
            for r#type in 0..m {
                y[i * m + r#type] = (i + r#type) as u64;
            }
        }
    }

    #[test]
    fn raw_identifier_inner_loop() {
        let mut r = rng();
        let (n, m) = (r.gen_range(0..200), r.gen_range(0..20));
        check(
            "macros::raw_identifier_inner_loop",
            MustEqual,
            |nt| {
                let mut y = vec![0; n * m];
                raw_inner(nt, n, m, &mut y);
                y
            },
            || (0..n * m).map(|k| (k / m.max(1) + k % m.max(1)) as u64).collect::<Vec<u64>>(),
        );
    }

    // ---- case: raw_identifier_names — raw identifiers as loop variable, written array and critical name ---------------
    #[omp::directives]
    fn raw_names(nt: usize, r#in: &[i64], r#box: &mut [i64]) -> i64 {
        let mut r#sum = 0i64;
        #[omp::parallel_for(num_threads(nt))]
        for r#loop in 0..r#in.len() {
            r#box[r#loop] = r#in[r#loop] + 1;
            #[omp::critical(r#match)]
            {
                r#sum += r#in[r#loop];
            }
        }
        r#sum
    }

    #[test]
    fn raw_identifier_names() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x: Vec<i64> = (0..n).map(|_| r.gen_range(-100..100)).collect();
        check(
            "macros::raw_identifier_names",
            MustEqual,
            |nt| {
                let mut b = vec![0; n];
                let s = raw_names(nt, &x, &mut b);
                (s, b)
            },
            || (x.iter().sum::<i64>(), x.iter().map(|v| v + 1).collect::<Vec<i64>>()),
        );
    }

    // ---- case: non_ascii_identifiers — `for ί in ..`, array `ŷ` -----------------------------------------------------
    #[omp::parallel_for(num_threads(nt), reduction(+: λ))]
    fn greek(nt: usize, ξ: &[f64], ŷ: &mut [f64]) -> f64 {
        let mut λ = 0.0;
        for ί in 0..ξ.len() {
            ŷ[ί] = 2.0 * ξ[ί];
            λ += ξ[ί];
        }
        λ
    }

    #[test]
    fn non_ascii_identifiers() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vf(&mut r, n);
        check(
            "macros::non_ascii_identifiers",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                let s = greek(nt, &x, &mut y);
                (Approx(vec![s]), y)
            },
            || (Approx(vec![x.iter().sum()]), x.iter().map(|v| 2.0 * v).collect::<Vec<f64>>()),
        );
    }
}

// =====================================================================================================================
// Cases that compile by design and whose meaning is documented (README, "What the compiler checks"): narrow
// arithmetic and truncating casts in a written index are checked before the loop (a wrap panics); `private` and
// `firstprivate` copies are per iteration (each starts from the value before the loop); the original of a
// `private` variable keeps that value.
// =====================================================================================================================
mod documented {
    use super::*;

    // ---- case: i8_wrapping_offset_write — `y[(i + 100) as usize]` with `i: i8` (`i + 100` wraps for i ≥ 28) -------
    #[omp::parallel_for(num_threads(nt))]
    fn i8_offset(nt: usize, y: &mut [f64]) {
        for i in 0i8..100 {
            y[(i + 100) as usize] = 1.0;
        }
    }

    #[test]
    fn i8_wrapping_offset_write() {
        let seq = || {
            let mut y = vec![0.0; 300];
            for i in 0i8..100 {
                y[(i.wrapping_add(100)) as usize] = 1.0;
            }
            y
        };
        check(
            "documented::i8_wrapping_offset_write",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; 300];
                i8_offset(nt, &mut y);
                y
            },
            seq,
        );
    }

    // ---- case: truncating_cast_write — `y[(i as u8) as usize] += 1` for i in 0..512: iterations i and i + 256 collide -
    #[omp::parallel_for(num_threads(nt))]
    fn truncating(nt: usize, n: usize, y: &mut [u64]) {
        for i in 0..n {
            y[(i as u8) as usize] += 1;
        }
    }

    #[test]
    fn truncating_cast_write() {
        check(
            "documented::truncating_cast_write",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; 256];
                truncating(nt, 512, &mut y);
                y
            },
            || vec![2u64; 256],
        );
        // values that fit: exact, equal
        check(
            "documented::non_truncating_cast_write",
            MustEqual,
            |nt| {
                let mut y = vec![0u64; 256];
                truncating(nt, 256, &mut y);
                y
            },
            || vec![1u64; 256],
        );
    }

    // ---- case: u8_doubling_write — `y[(2 * i) as usize]` with `i: u8` in 0..=255 (`2 * i` wraps for i ≥ 128) -----------
    #[omp::parallel_for(num_threads(nt), schedule(static, 3))]
    fn u8_double(nt: usize, y: &mut [u64]) {
        for i in 0u8..=255 {
            y[(2 * i) as usize] += 1;
        }
    }

    #[test]
    fn u8_doubling_write() {
        check(
            "documented::u8_doubling_write",
            MustPanic,
            |nt| {
                let mut y = vec![0u64; 512];
                u8_double(nt, &mut y);
                y
            },
            || {
                let mut y = vec![0u64; 512];
                for i in 0u8..=255 {
                    y[(i.wrapping_mul(2)) as usize] += 1;
                }
                y
            },
        );
    }

    // ---- case: firstprivate_copy_per_iteration — `c += 1.0; y[i] = c * x[i]`: every iteration starts from `c` --------
    #[omp::parallel_for(num_threads(nt), firstprivate(c), schedule(dynamic, 7))]
    fn fp_carried(nt: usize, mut c: f64, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            c += 1.0;
            y[i] = c * x[i];
        }
    }

    #[test]
    fn firstprivate_copy_per_iteration() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let (x, c) = (vf(&mut r, n), r.gen_range(-5.0..5.0));
        check(
            "documented::firstprivate_copy_per_iteration",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                fp_carried(nt, c, &x, &mut y);
                y
            },
            || x.iter().map(|v| (c + 1.0) * v).collect::<Vec<f64>>(),
        );
    }

    // ---- case: firstprivate_vec_per_iteration — `v.push(..); y[i] = v.len()` on a firstprivate `Vec` -------------------
    #[omp::parallel_for(num_threads(nt), firstprivate(v))]
    fn fp_vec(nt: usize, mut v: Vec<f64>, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            v.push(x[i]);
            y[i] = v.len() as f64 + v[v.len() - 1];
        }
    }

    #[test]
    fn firstprivate_vec_per_iteration() {
        let mut r = rng();
        let (n, m) = (r.gen_range(0..2000), r.gen_range(0..5));
        let x = vf(&mut r, n);
        check(
            "documented::firstprivate_vec_per_iteration",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                fp_vec(nt, vec![0.5; m], &x, &mut y);
                y
            },
            || x.iter().map(|v| (m + 1) as f64 + v).collect::<Vec<f64>>(),
        );
    }

    // ---- case: private_original_unchanged — `private(last)` read after the loop keeps its value from before -----------
    #[omp::parallel_for(num_threads(nt), private(last))]
    fn priv_last(nt: usize, x: &[f64], y: &mut [f64]) -> f64 {
        let mut last = -1.0;
        for i in 0..x.len() {
            last = x[i] * 2.0;
            y[i] = last;
        }
        last
    }

    #[test]
    fn private_original_unchanged() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x = vf(&mut r, n);
        check(
            "documented::private_original_unchanged",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                let last = priv_last(nt, &x, &mut y);
                (last, y)
            },
            || (-1.0, x.iter().map(|v| v * 2.0).collect::<Vec<f64>>()),
        );
    }
}

// =============================================================================================================
/// Windows computed from what the analysis believes: an index through a body `let` (`let c = j + k * n; a[c]`) and
/// the rows an inner loop reads (`x[i + j]`, checked once per chunk). Each case gives the window a wrong idea (a
/// shadowed definition, a changing bound, a read past the end) and the result must still be the sequential one.
mod windows {
    use super::*;

    // ---- case: let_defined_index — `let c = j + k * n;` then reads and writes at `c`, `c - 1`, `c + n` -------------
    #[omp::parallel_for(num_threads(nt))]
    fn let_index(nt: usize, kn: usize, n: usize, a: &[f64], b: &[f64], y: &mut [f64]) {
        for k in 1..kn - 1 {
            for j in 1..n - 1 {
                let c = j + k * n;
                y[c] = a[c] + a[c - 1] * b[c + n] - b[c - n];
            }
        }
    }
    fn let_index_seq(kn: usize, n: usize, a: &[f64], b: &[f64], y: &mut [f64]) {
        for k in 1..kn - 1 {
            for j in 1..n - 1 {
                let c = j + k * n;
                y[c] = a[c] + a[c - 1] * b[c + n] - b[c - n];
            }
        }
    }

    #[test]
    fn let_defined_index() {
        let mut r = rng();
        for (kn, n, len) in [(r.gen_range(3..40), r.gen_range(3..60), None), (5, 7, Some(5 * 7 - 7 - 3)), (2, 2, None)] {
            let a = vf(&mut r, len.unwrap_or(kn * n));
            let b = vf(&mut r, kn * n);
            let expect = if len.is_some() { MustPanic } else { MustEqual };
            check(
                "windows::let_defined_index",
                expect,
                |nt| {
                    let mut y = vec![0.0; kn * n];
                    let_index(nt, kn, n, &a, &b, &mut y);
                    y
                },
                || {
                    let mut y = vec![0.0; kn * n];
                    let_index_seq(kn, n, &a, &b, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: let_shadowed_between — the definition's name is shadowed before the access ------------------------
    #[omp::parallel_for(num_threads(nt))]
    fn let_shadow(nt: usize, n: usize, off: usize, a: &[u64], y: &mut [u64]) {
        for i in 0..n {
            let mut s = 0;
            for j in 0..4 {
                let c = i + j + off;
                let off = 2 * j;
                let c = c + off;
                s += a[c] * (off as u64 + 1);
            }
            y[i] = s;
        }
    }
    fn let_shadow_seq(n: usize, off: usize, a: &[u64], y: &mut [u64]) {
        for i in 0..n {
            let mut s = 0;
            for j in 0..4 {
                let c = i + j + off;
                let off = 2 * j;
                let c = c + off;
                s += a[c] * (off as u64 + 1);
            }
            y[i] = s;
        }
    }

    #[test]
    fn let_shadowed_between() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let a = vu(&mut r, n + 12, 1000);
        check(
            "windows::let_shadowed_between",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                let_shadow(nt, n, 3, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                let_shadow_seq(n, 3, &a, &mut y);
                y
            },
        );
        let a = vu(&mut r, n + 11, 1000);
        check(
            "windows::let_shadowed_between (one short)",
            if n == 0 { MustEqual } else { MustPanic },
            |nt| {
                let mut y = vec![0; n];
                let_shadow(nt, n, 3, &a, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                let_shadow_seq(n, 3, &a, &mut y);
                y
            },
        );
    }

    // ---- case: rows_of_inner_loop — FIR-style `x[i + j]`, taps fixed or from a variable, reads past the end -------
    #[omp::parallel_for(num_threads(nt))]
    fn fir(nt: usize, taps: usize, c: &[f64], x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for j in 0..taps {
                s += c[j] * x[i + j];
            }
            y[i] = s;
        }
    }
    fn fir_seq(taps: usize, c: &[f64], x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for j in 0..taps {
                s += c[j] * x[i + j];
            }
            y[i] = s;
        }
    }

    #[test]
    fn rows_of_inner_loop() {
        let mut r = rng();
        let n = r.gen_range(1..3000);
        let c = vf(&mut r, 16);
        for (taps, extra, expect) in [(16, 15, MustEqual), (16, 14, MustPanic), (3, 2, MustEqual), (0, 0, MustEqual)] {
            let x = vf(&mut r, n + extra);
            check(
                "windows::rows_of_inner_loop",
                expect,
                |nt| {
                    let mut y = vec![0.0; n];
                    fir(nt, taps, &c, &x, &mut y);
                    y
                },
                || {
                    let mut y = vec![0.0; n];
                    fir_seq(taps, &c, &x, &mut y);
                    y
                },
            );
        }
    }

    // ---- case: rows_triangular — the inner range names the outer loop's variable (`for j in 0..i`) -----------------
    #[omp::parallel_for(num_threads(nt))]
    fn triangular(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let mut s = 0.0;
            for j in 0..i {
                s += x[i + j];
            }
            y[i] = s;
        }
    }

    #[test]
    fn rows_triangular() {
        let mut r = rng();
        let n = r.gen_range(0..400);
        let x = vf(&mut r, 2 * n);
        check(
            "windows::rows_triangular",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; n];
                triangular(nt, &x, &mut y);
                y
            },
            || (0..n).map(|i| (0..i).fold(0.0, |s, j| s + x[i + j])).collect::<Vec<f64>>(),
        );
    }

    // ---- case: rows_guarded_tail — the inner loop guards its reads, so the last rows lie past the end ----------
    #[omp::parallel_for(num_threads(nt))]
    fn guarded(nt: usize, x: &[u64], y: &mut [u64]) {
        for i in 0..y.len() {
            let mut s = 0;
            for j in 0..8 {
                if i + 2 * j < x.len() {
                    s += x[i + 2 * j] << j;
                }
            }
            y[i] = s;
        }
    }
    fn guarded_seq(x: &[u64], y: &mut [u64]) {
        for i in 0..y.len() {
            let mut s = 0;
            for j in 0..8 {
                if i + 2 * j < x.len() {
                    s += x[i + 2 * j] << j;
                }
            }
            y[i] = s;
        }
    }

    #[test]
    fn rows_guarded_tail() {
        let mut r = rng();
        let n = r.gen_range(0..2000);
        let x = vu(&mut r, n, 1 << 20);
        check(
            "windows::rows_guarded_tail",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                guarded(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                guarded_seq(&x, &mut y);
                y
            },
        );
    }

    // ---- case: rows_rebound_array — the body rebinds the array between the rows check and the inner loop -------
    #[omp::parallel_for(num_threads(nt))]
    fn rebound(nt: usize, x: &[f64], z: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let x = if i % 3 == 0 { z } else { x };
            let mut s = 0.0;
            for j in 0..4 {
                s += x[i + j];
            }
            y[i] = s;
        }
    }
    fn rebound_seq(x: &[f64], z: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            let x = if i % 3 == 0 { z } else { x };
            let mut s = 0.0;
            for j in 0..4 {
                s += x[i + j];
            }
            y[i] = s;
        }
    }

    #[test]
    fn rows_rebound_array() {
        let mut r = rng();
        let n = r.gen_range(1..2000);
        let x = vf(&mut r, n + 3);
        for zlen in [n + 3, n] {
            let z = vf(&mut r, zlen);
            // rows starting at a multiple of 3 read `z`; one of the last three does, and reads past its end
            let expect = if zlen == n + 3 { MustEqual } else { MustPanic };
            check(
                "windows::rows_rebound_array",
                expect,
                |nt| {
                    let mut y = vec![0.0; n];
                    rebound(nt, &x, &z, &mut y);
                    y
                },
                || {
                    let mut y = vec![0.0; n];
                    rebound_seq(&x, &z, &mut y);
                    y
                },
            );
        }
    }
}

// =============================================================================================================
/// One iteration writing several elements at constant offsets of one index (`y[2 * i]`, `y[2 * i + 1]`): accepted
/// when the offsets stay below the step between iterations, checked at run time when the step is a run-time value.
mod offsets {
    use super::*;

    #[omp::parallel_for(num_threads(nt))]
    fn pairs(nt: usize, x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            y[2 * i + 1] = -x[i];
            y[2 * i] = x[i] + y[2 * i + 1];
        }
    }
    fn pairs_seq(x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            y[2 * i + 1] = -x[i];
            y[2 * i] = x[i] + y[2 * i + 1];
        }
    }

    #[test]
    fn pairs_written_and_read_back() {
        let mut r = rng();
        let n = r.gen_range(0..3000);
        let x = vf(&mut r, n);
        check(
            "offsets::pairs_written_and_read_back",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; 2 * n];
                pairs(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; 2 * n];
                pairs_seq(&x, &mut y);
                y
            },
        );
    }

    #[omp::parallel_for(num_threads(nt))]
    fn stepped(nt: usize, x: &[u64], y: &mut [u64]) {
        for i in (0..y.len() - 1).step_by(2) {
            y[i] = x[i];
            y[i + 1] = x[i] * 3;
        }
    }
    fn stepped_seq(x: &[u64], y: &mut [u64]) {
        for i in (0..y.len() - 1).step_by(2) {
            y[i] = x[i];
            y[i + 1] = x[i] * 3;
        }
    }

    #[test]
    fn step_by_two_writes_both() {
        let mut r = rng();
        let n = r.gen_range(1..3000);
        let x = vu(&mut r, n, 1000);
        check(
            "offsets::step_by_two_writes_both",
            MustEqual,
            |nt| {
                let mut y = vec![0; n];
                stepped(nt, &x, &mut y);
                y
            },
            || {
                let mut y = vec![0; n];
                stepped_seq(&x, &mut y);
                y
            },
        );
    }

    // The step is a run-time value: s = 3 keeps iterations apart, s = 2 makes y[s*i + 2] the next iteration's
    // y[s*(i+1)]: the run time must refuse it (panic), never race.
    #[omp::parallel_for(num_threads(nt))]
    fn strided(nt: usize, s: usize, x: &[u64], y: &mut [u64]) {
        for i in 0..x.len() {
            y[s * i] = x[i];
            y[s * i + 2] = x[i] + 1;
        }
    }
    fn strided_seq(s: usize, x: &[u64], y: &mut [u64]) {
        for i in 0..x.len() {
            y[s * i] = x[i];
            y[s * i + 2] = x[i] + 1;
        }
    }

    // Planes of a struct-of-arrays buffer, as a stencil code's flux array: plane k at k * plane.
    #[omp::parallel_for(num_threads(nt))]
    fn planes(nt: usize, plane: usize, x: &[f64], f: &mut [f64]) {
        for i in 0..x.len() {
            f[i] = x[i];
            f[plane + i] = 2.0 * x[i];
            f[3 * plane + i] = -x[i];
        }
    }
    fn planes_seq(plane: usize, x: &[f64], f: &mut [f64]) {
        for i in 0..x.len() {
            f[i] = x[i];
            f[plane + i] = 2.0 * x[i];
            f[3 * plane + i] = -x[i];
        }
    }

    #[test]
    fn planes_apart_or_refused() {
        let mut r = rng();
        let n = r.gen_range(2..2000);
        let x = vf(&mut r, n);
        for (plane, expect) in [(n, MustEqual), (n + 7, MustEqual), (n - 1, MustPanic)] {
            check(
                "offsets::planes_apart_or_refused",
                expect,
                |nt| {
                    let mut f = vec![0.0; 3 * plane + n];
                    planes(nt, plane, &x, &mut f);
                    f
                },
                || {
                    let mut f = vec![0.0; 3 * plane + n];
                    planes_seq(plane, &x, &mut f);
                    f
                },
            );
        }
    }

    // An in-place halo copy: the ghost cells take the values of interior cells one row further (nx >= hs: the
    // cells read are never written by the loop; nx < hs: they are, a race the run time refuses).
    #[omp::parallel_for(num_threads(nt))]
    fn halo(nt: usize, hs: usize, nx: usize, s: &mut [f64]) {
        for i in 0..hs {
            s[i] = s[i + nx];
        }
    }
    fn halo_seq(hs: usize, nx: usize, s: &mut [f64]) {
        for i in 0..hs {
            s[i] = s[i + nx];
        }
    }

    #[test]
    fn in_place_halo_copy() {
        let mut r = rng();
        let hs = r.gen_range(2..6);
        for (nx, expect) in [(hs, MustEqual), (hs + 40, MustEqual), (hs - 1, MustPanic)] {
            let s0 = vf(&mut r, nx + hs + 3);
            check(
                "offsets::in_place_halo_copy",
                expect,
                |nt| {
                    let mut s = s0.clone();
                    halo(nt, hs, nx, &mut s);
                    s
                },
                || {
                    let mut s = s0.clone();
                    halo_seq(hs, nx, &mut s);
                    s
                },
            );
        }
    }

    // Planes named by constants, as a stencil code's `flux[ID_UMOM * plane + k * (nx + 1) + i]`.
    const ID_DENS: usize = 0;
    const ID_UMOM: usize = 1;
    const ID_RHOT: usize = 3;

    #[omp::parallel_for(num_threads(nt))]
    fn named_planes(nt: usize, plane: usize, x: &[f64], f: &mut [f64]) {
        for i in 0..x.len() {
            f[ID_DENS * plane + i] = x[i];
            f[ID_UMOM * plane + i] = 2.0 * x[i];
            f[ID_RHOT * plane + i] = -x[i];
        }
    }
    fn named_planes_seq(plane: usize, x: &[f64], f: &mut [f64]) {
        for i in 0..x.len() {
            f[ID_DENS * plane + i] = x[i];
            f[ID_UMOM * plane + i] = 2.0 * x[i];
            f[ID_RHOT * plane + i] = -x[i];
        }
    }

    #[test]
    fn planes_named_by_consts() {
        let mut r = rng();
        let n = r.gen_range(2..2000);
        let x = vf(&mut r, n);
        for (plane, expect) in [(n, MustEqual), (n + 3, MustEqual), (n - 1, MustPanic)] {
            check(
                "offsets::planes_named_by_consts",
                expect,
                |nt| {
                    let mut f = vec![0.0; 4 * plane + n];
                    named_planes(nt, plane, &x, &mut f);
                    f
                },
                || {
                    let mut f = vec![0.0; 4 * plane + n];
                    named_planes_seq(plane, &x, &mut f);
                    f
                },
            );
        }
    }

    #[test]
    fn runtime_step_checked() {
        let mut r = rng();
        let n = r.gen_range(2..2000);
        let x = vu(&mut r, n, 1000);
        for (s, expect) in [(3, MustEqual), (2, MustPanic), (1, MustPanic)] {
            check(
                "offsets::runtime_step_checked",
                expect,
                |nt| {
                    let mut y = vec![0; s * n + 2];
                    strided(nt, s, &x, &mut y);
                    y
                },
                || {
                    let mut y = vec![0; s * n + 2];
                    strided_seq(s, &x, &mut y);
                    y
                },
            );
        }
    }
}

// =============================================================================================================
/// Elements changed through their own `&mut self` methods (`v[i].push(x)`, `rows[i].sort()`): writes of element
/// `i`, proved disjoint like assignments.
mod element_methods {
    use super::*;

    #[omp::parallel_for(num_threads(nt))]
    fn push_and_sort(nt: usize, x: &[u64], v: &mut [Vec<u64>]) {
        for i in 0..v.len() {
            v[i].push(x[i]);
            v[i].push(x[i] % 7);
            v[i].sort_unstable();
        }
    }
    fn push_and_sort_seq(x: &[u64], v: &mut [Vec<u64>]) {
        for i in 0..v.len() {
            v[i].push(x[i]);
            v[i].push(x[i] % 7);
            v[i].sort_unstable();
        }
    }

    // Gathering into one Vec under a critical section: every element arrives once, in some order.
    #[omp::directives]
    fn gather(nt: usize, x: &[u64]) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        #[omp::parallel_for(num_threads(nt))]
        for i in 0..x.len() {
            if x[i] % 3 == 0 {
                #[omp::critical]
                {
                    out.push(x[i]);
                }
            }
        }
        out
    }

    #[test]
    fn critical_push_gathers_everything_once() {
        let mut r = rng();
        let n = r.gen_range(0..5000);
        let x = vu(&mut r, n, 1 << 30);
        check(
            "element_methods::critical_push_gathers_everything_once",
            MustEqual,
            |nt| {
                let mut v = gather(nt, &x);
                v.sort_unstable();
                v
            },
            || {
                let mut v: Vec<u64> = x.iter().copied().filter(|v| v % 3 == 0).collect();
                v.sort_unstable();
                v
            },
        );
    }

    #[test]
    fn push_then_sort_each_row() {
        let mut r = rng();
        let n = r.gen_range(0..500);
        let x = vu(&mut r, n, 1000);
        let start: Vec<Vec<u64>> = (0..n).map(|i| (0..(i % 5) as u64).rev().collect()).collect();
        check(
            "element_methods::push_then_sort_each_row",
            MustEqual,
            |nt| {
                let mut v = start.clone();
                push_and_sort(nt, &x, &mut v);
                v
            },
            || {
                let mut v = start.clone();
                push_and_sort_seq(&x, &mut v);
                v
            },
        );
    }
}

// =============================================================================================================
/// Triangular inner loops (`for j in 0..i`, issue #10): the ownership of a row is computed from a loop-invariant
/// superset of the inner range (the bounds at the corners of the parallel space). Rows that stay inside their own
/// block must equal sequential Rust; bounds that reach into the next row must panic, never race; names of the body
/// in a bound are not widened (a compile error, see the UI tests), and a shadowed parallel variable in a bound means
/// what it means in sequential Rust.
mod triangular {
    use super::*;

    #[omp::parallel_for(num_threads(nt))]
    fn lower(nt: usize, n: usize, x: &[f64], a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i {
                a[i * n + j] = x[i] * x[j];
            }
        }
    }
    fn lower_seq(n: usize, x: &[f64], a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i {
                a[i * n + j] = x[i] * x[j];
            }
        }
    }

    #[omp::parallel_for(num_threads(nt))]
    fn upper_inclusive_rev(nt: usize, n: usize, x: &[f64], a: &mut [f64]) {
        for i in 1..n + 1 {
            for j in (i..=n).rev() {
                a[(i - 1) * n + (j - 1)] += x[j - 1] - x[i - 1];
            }
        }
    }
    fn upper_inclusive_rev_seq(n: usize, x: &[f64], a: &mut [f64]) {
        for i in 1..n + 1 {
            for j in (i..=n).rev() {
                a[(i - 1) * n + (j - 1)] += x[j - 1] - x[i - 1];
            }
        }
    }

    /// Row `i` writes `a[i * w + j]` for `j < i + reach`: its last write is `i * w + i + reach - 1`, the next row
    /// starts at `(i + 1) * w`.
    #[omp::parallel_for(num_threads(nt))]
    fn reach(nt: usize, n: usize, w: usize, reach: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i + reach {
                a[i * w + j] = (i + j) as f64;
            }
        }
    }
    fn reach_seq(n: usize, w: usize, reach: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i + reach {
                a[i * w + j] = (i + j) as f64;
            }
        }
    }

    /// A step and a bound with a coefficient: `j` in `(2 * i..2 * n).step_by(2)`.
    #[omp::parallel_for(num_threads(nt))]
    fn stepped(nt: usize, n: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in (2 * i..2 * n).step_by(2) {
                a[i * 2 * n + j] = j as f64;
            }
        }
    }
    fn stepped_seq(n: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in (2 * i..2 * n).step_by(2) {
                a[i * 2 * n + j] = j as f64;
            }
        }
    }

    #[test]
    fn lower_and_upper_triangles_equal_sequential() {
        let mut r = rng();
        let n = r.gen_range(1..90);
        let x = vf(&mut r, n);
        let a0 = vf(&mut r, n * n);
        check(
            "triangular::lower",
            MustEqual,
            |nt| {
                let mut a = a0.clone();
                lower(nt, n, &x, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                lower_seq(n, &x, &mut a);
                a
            },
        );
        check(
            "triangular::upper_inclusive_rev",
            MustEqual,
            |nt| {
                let mut a = a0.clone();
                upper_inclusive_rev(nt, n, &x, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                upper_inclusive_rev_seq(n, &x, &mut a);
                a
            },
        );
        let s0 = vf(&mut r, 2 * n * n);
        check(
            "triangular::stepped",
            MustEqual,
            |nt| {
                let mut a = s0.clone();
                stepped(nt, n, &mut a);
                a
            },
            || {
                let mut a = s0.clone();
                stepped_seq(n, &mut a);
                a
            },
        );
    }

    /// `0..i - 1` underflows at `i = 0`: debug builds panic on the subtraction, release builds wrap to an endless
    /// range that indexes out of bounds. The widened range is evaluated from the same expression before the loop,
    /// so the parallel loop must panic as well, never write.
    #[omp::parallel_for(num_threads(nt))]
    fn below_zero(nt: usize, n: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i - 1 {
                a[i * n + j] = 1.0;
            }
        }
    }
    fn below_zero_seq(n: usize, a: &mut [f64]) {
        for i in 0..n {
            for j in 0..i - 1 {
                a[i * n + j] = 1.0;
            }
        }
    }

    #[test]
    fn a_bound_that_underflows_panics_as_sequential_rust_does() {
        let mut r = rng();
        let n = r.gen_range(1..40);
        let a0 = vf(&mut r, n * n);
        check(
            "triangular::below_zero",
            PanicOrEqual,
            |nt| {
                let mut a = a0.clone();
                below_zero(nt, n, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                below_zero_seq(n, &mut a);
                a
            },
        );
    }

    #[test]
    fn a_row_reaching_into_the_next_one_panics() {
        let mut r = rng();
        let n = r.gen_range(3..60);
        let w = n + 1;
        // j < i + 2 stays below w = n + 1 for every i < n: the rows are disjoint.
        let a0 = vf(&mut r, n * w + 4);
        check(
            "triangular::reach_inside",
            MustEqual,
            |nt| {
                let mut a = a0.clone();
                reach(nt, n, w, 2, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                reach_seq(n, w, 2, &mut a);
                a
            },
        );
        // j < i + 4: row n - 2 writes the first element of row n - 1, a race.
        check(
            "triangular::reach_overlaps",
            MustPanic,
            |nt| {
                let mut a = a0.clone();
                reach(nt, n, w, 4, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                reach_seq(n, w, 4, &mut a);
                a
            },
        );
        // j < i + 3: only the last row, which has no successor, reaches w. The ownership of every row is the hull of
        // the widened range 0..n + 2, which overlaps the next row's block, so the check may refuse a loop whose rows
        // never meet: conservative, never a race.
        check(
            "triangular::reach_last_row_only",
            PanicOrEqual,
            |nt| {
                let mut a = a0.clone();
                reach(nt, n, w, 3, &mut a);
                a
            },
            || {
                let mut a = a0.clone();
                reach_seq(n, w, 3, &mut a);
                a
            },
        );
    }
}

// =============================================================================================================
/// Struct fields in host parallel loops (issue #10): `self.c[i] = self.a[i]`, `s.a[i] = x[i]`, nested paths and
/// scalar fields read as values. The loop is rewritten to locals bound before it; every case must equal
/// sequential Rust, and a field path that could mean two things (a root the body rebinds) is left alone.
mod fields {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Grid {
        u: Vec<f64>,
        nx: usize,
    }

    #[derive(Clone, Debug, PartialEq)]
    struct Stream {
        a: Vec<f64>,
        b: Vec<f64>,
        c: Vec<f64>,
        scalar: f64,
        grid: Grid,
    }

    impl Stream {
        #[omp::directives]
        fn triad(&mut self, nt: usize) {
            #[omp::parallel_for(num_threads(nt))]
            for i in 0..self.a.len() {
                self.a[i] = self.b[i] + self.scalar * self.c[i];
            }
        }

        fn triad_seq(&mut self) {
            for i in 0..self.a.len() {
                self.a[i] = self.b[i] + self.scalar * self.c[i];
            }
        }

        #[omp::directives]
        fn dot(&self, nt: usize) -> f64 {
            let mut s: f64 = 0.0;
            #[omp::parallel_for(num_threads(nt), reduction(+: s))]
            for i in 0..self.a.len() {
                s += self.a[i] * self.b[i];
            }
            s
        }

        /// A nested path and a scalar of the nested struct in the loop bound; a stencil reading neighbours.
        #[omp::directives]
        fn smooth(&mut self, nt: usize) {
            #[omp::parallel_for(num_threads(nt))]
            for i in 1..self.grid.nx - 1 {
                self.grid.u[i] += 0.25 * (self.c[i - 1] - 2.0 * self.c[i] + self.c[i + 1]);
            }
        }

        fn smooth_seq(&mut self) {
            for i in 1..self.grid.nx - 1 {
                self.grid.u[i] += 0.25 * (self.c[i - 1] - 2.0 * self.c[i] + self.c[i + 1]);
            }
        }
    }

    /// A collapsed nest over two scalar fields, an index using a field, and a local named like the rewrite's
    /// local for `self.c` (which must then pick another name, not capture this one).
    impl Stream {
        #[omp::directives]
        fn blocks(&mut self, nt: usize, rows: usize, cols: usize) {
            let self_c = 0.5;
            #[omp::parallel_for(num_threads(nt), collapse(2))]
            for i in 0..rows {
                for j in 0..cols {
                    self.c[i * cols + j] = self.a[i * cols + j] * self.scalar + self_c;
                }
            }
        }
    }

    /// A struct of arrays passed by reference, written through a field, read through another.
    #[omp::parallel_for(num_threads(nt))]
    fn scale(nt: usize, s: &mut Stream, k: f64) {
        for i in 0..s.c.len() {
            s.c[i] = k * s.b[i];
        }
    }

    /// The root `s` is rebound inside the body: `s.a` there is the local's field, so nothing is hoisted and
    /// `t` is written through a plain captured array.
    #[omp::parallel_for(num_threads(nt))]
    fn rebound_root(nt: usize, s: &Stream, t: &mut [f64]) {
        for i in 0..t.len() {
            let s = Grid { u: vec![i as f64; 1], nx: 1 };
            t[i] = s.u[0] + s.nx as f64;
        }
    }

    fn stream(r: &mut StdRng, n: usize) -> Stream {
        Stream { a: vf(r, n), b: vf(r, n), c: vf(r, n), scalar: r.gen_range(-2.0..2.0), grid: Grid { u: vf(r, n), nx: n } }
    }

    #[test]
    fn fields_equal_sequential() {
        let mut r = rng();
        let n = r.gen_range(3..3000);
        let s0 = stream(&mut r, n);
        check(
            "fields::triad",
            MustEqual,
            |nt| {
                let mut s = s0.clone();
                s.triad(nt);
                s
            },
            || {
                let mut s = s0.clone();
                s.triad_seq();
                s
            },
        );
        check(
            "fields::smooth",
            MustEqual,
            |nt| {
                let mut s = s0.clone();
                s.smooth(nt);
                s
            },
            || {
                let mut s = s0.clone();
                s.smooth_seq();
                s
            },
        );
        let k = r.gen_range(-3.0..3.0);
        check(
            "fields::scale",
            MustEqual,
            |nt| {
                let mut s = s0.clone();
                scale(nt, &mut s, k);
                s
            },
            || {
                let mut s = s0.clone();
                for i in 0..s.c.len() {
                    s.c[i] = k * s.b[i];
                }
                s
            },
        );
        check("fields::dot", MustEqual, |nt| Approx(vec![s0.dot(nt)]), || Approx(vec![s0.a.iter().zip(&s0.b).map(|(a, b)| a * b).sum()]));
        let (rows, cols) = (n / 3, 3);
        check(
            "fields::blocks",
            MustEqual,
            |nt| {
                let mut s = s0.clone();
                s.blocks(nt, rows, cols);
                s
            },
            || {
                let mut s = s0.clone();
                for k in 0..rows * cols {
                    s.c[k] = s.a[k] * s.scalar + 0.5;
                }
                s
            },
        );
        let t0 = vf(&mut r, n);
        check(
            "fields::rebound_root",
            MustEqual,
            |nt| {
                let mut t = t0.clone();
                rebound_root(nt, &s0, &mut t);
                t
            },
            || (0..n).map(|i| i as f64 + 1.0).collect::<Vec<_>>(),
        );
    }
}

// =============================================================================================================
/// The escape hatch `unsafe(disjoint(u))` (issue #10): accesses the analysis cannot prove disjoint, asserted by the
/// user. Correct programs equal sequential Rust; indices stay bounds-checked (an out-of-bounds index panics).
mod escape_hatch {
    use super::*;

    /// Halo copy in place: each row's border cells get copies of interior cells of the same array.
    #[omp::parallel_for(num_threads(nt), unsafe(disjoint(u)))]
    fn halo(nt: usize, n: usize, h: usize, rows: usize, u: &mut [f64]) {
        for r in 0..rows {
            for k in 0..h {
                u[r * (n + 2 * h) + k] = u[r * (n + 2 * h) + n + k];
                u[r * (n + 2 * h) + n + h + k] = u[r * (n + 2 * h) + h + k];
            }
        }
    }
    fn halo_seq(n: usize, h: usize, rows: usize, u: &mut [f64]) {
        for r in 0..rows {
            for k in 0..h {
                u[r * (n + 2 * h) + k] = u[r * (n + 2 * h) + n + k];
                u[r * (n + 2 * h) + n + h + k] = u[r * (n + 2 * h) + h + k];
            }
        }
    }

    /// `c[i][j]` on rows under `collapse(2)`.
    #[omp::parallel_for(num_threads(nt), collapse(2), unsafe(disjoint(c)))]
    fn rows(nt: usize, x: &[f64], c: &mut [Vec<f64>]) {
        for i in 0..c.len() {
            for j in 0..x.len() {
                c[i][j] += x[j] * i as f64;
            }
        }
    }

    /// A scatter through a permutation (distinct indices the analysis cannot see).
    #[omp::parallel_for(num_threads(nt), unsafe(disjoint(y)))]
    fn scatter(nt: usize, p: &[usize], x: &[f64], y: &mut [f64]) {
        for i in 0..x.len() {
            y[p[i]] = 2.0 * x[i];
        }
    }

    #[test]
    fn asserted_disjoint_accesses_equal_sequential() {
        let mut r = rng();
        let (n, h, nrows) = (r.gen_range(1..40), r.gen_range(1..4), r.gen_range(1..50));
        let u0 = vf(&mut r, nrows * (n + 2 * h));
        check(
            "escape_hatch::halo",
            MustEqual,
            |nt| {
                let mut u = u0.clone();
                halo(nt, n, h, nrows, &mut u);
                u
            },
            || {
                let mut u = u0.clone();
                halo_seq(n, h, nrows, &mut u);
                u
            },
        );
        let m = r.gen_range(1..30);
        let x = vf(&mut r, m);
        let c0: Vec<Vec<f64>> = (0..r.gen_range(1..30)).map(|_| vf(&mut r, m)).collect();
        check(
            "escape_hatch::rows",
            MustEqual,
            |nt| {
                let mut c = c0.clone();
                rows(nt, &x, &mut c);
                c
            },
            || {
                let mut c = c0.clone();
                for i in 0..c.len() {
                    for j in 0..m {
                        c[i][j] += x[j] * i as f64;
                    }
                }
                c
            },
        );
        let len = r.gen_range(1..2000);
        let mut p: Vec<usize> = (0..len).collect();
        for i in (1..len).rev() {
            p.swap(i, r.gen_range(0..=i));
        }
        let xs = vf(&mut r, len);
        check(
            "escape_hatch::scatter",
            MustEqual,
            |nt| {
                let mut y = vec![0.0; len];
                scatter(nt, &p, &xs, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; len];
                for i in 0..len {
                    y[p[i]] = 2.0 * xs[i];
                }
                y
            },
        );
    }

    #[test]
    fn indices_stay_bounds_checked() {
        let mut r = rng();
        let len = r.gen_range(2..500);
        let mut p: Vec<usize> = (0..len).collect();
        p[r.gen_range(0..len)] = len + r.gen_range(0..3);
        let xs = vf(&mut r, len);
        check(
            "escape_hatch::scatter_out_of_bounds",
            MustPanic,
            |nt| {
                let mut y = vec![0.0; len];
                scatter(nt, &p, &xs, &mut y);
                y
            },
            || {
                let mut y = vec![0.0; len];
                for i in 0..len {
                    y[p[i]] = 2.0 * xs[i];
                }
                y
            },
        );
    }
}
