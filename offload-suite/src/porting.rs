//! Code as a porter of a C/C++ OpenMP code writes it (issue #10), each region next to its sequential reference:
//! what used to need workarounds must work in its natural form.

use rand::rngs::StdRng;
use rand::Rng;

use crate::{same, vec_f64, Check};

/// Every porting check.
pub const CHECKS: &[Check] = &[
    ("port: module const in an index, scalars whose type the initialiser shows", check_consts_and_inferred_scalars),
    ("port: target_update!(from: b[0..n], depend(out: b)) in the short form", check_update_short_form_with_clauses),
    ("port: plain helper functions called in a target region (implicit declare target)", check_helper_functions),
    ("port: private and firstprivate fixed-size arrays in a target region", check_private_arrays),
    ("port: target_enter_data! as the first offload operation maps onto the device", check_enter_data_first),
    ("port: y[2 * i] and y[2 * i + 1] in one iteration; y[s * i + 2] with a run-time s", check_constant_offsets),
    ("port: a time loop in target_data calling one function per kernel (mapped parameters)", check_mapped_parameters),
    (
        "port: miniWeather's kernel calls as C writes them: alloc: scratch and tofrom tokens passed as they are, a let mut private stencil",
        check_kernel_calls_as_written,
    ),
    ("port: private(ind) assigned at the top of the body and used as the write index, in target_data", check_private_index),
    ("port: flux planes named by consts, f[ID_UMOM * plane + i]", check_named_planes),
    ("port: triangular inner loops, for j in 0..i and for j in i + 1..n", check_triangular),
    ("kernel identity: the same function in two modules with different consts runs two kernels", check_kernel_identity),
    ("escape hatch: unsafe(disjoint(..)) in target regions, an in-place halo copy and a permutation scatter", check_escape_hatch),
    (
        "port: serial target regions (a fn, a block in target_data, a one-iteration loop) read and write arrays anywhere",
        check_serial_target,
    ),
    (
        "port: scalars and structs in target_data, enter/exit data maps and updates beside the arrays (they travel by value)",
        check_scalars_in_data_maps,
    ),
    ("port: locals taken from struct fields (let (a, b) = (&mut self.a, &self.b), let (nx, nz) = (g.nx, g.nz))", check_field_locals),
    ("port: unannotated vec![..], [0.0f64; 4] private, std::f64::consts::PI, rem_euclid in a target region", check_unannotated_locals),
    ("port: host loops: critical push to a &mut Vec, atomics through &mut u64 and on [u64; 4], continue 'label", check_host_loop_idioms),
    ("port: a plain Copy struct (no declare_target) passed by value to a target region", check_plain_struct),
    (
        "port: host code in target_data: reads after target_update!(from:), halo writes before target_update!(to:)",
        check_host_code_in_data_region,
    ),
    (
        "port: a function with a plain signature called in target_data with host views (its region finds the data present)",
        check_plain_signature_in_data_region,
    ),
    ("port: atomic capture of the old value, { t = next[0]; next[0] += 1; }, and of the new one", check_atomic_capture_old),
    ("port: miniWeather's flux planes, flux[ll*(nz+1)*(nx+1) + k*(nx+1) + i] inside for ll", check_flux_planes),
    ("port: a [f64; 32] array mapped by target_data and read in its region", check_fixed_array_in_data_region),
    ("port: the split form, target(map / is_device_ptr / device) enclosing teams_distribute_parallel_for", check_split_target),
    (
        "port: writes at constant plane offsets, tend[plane + k*nx + i] and tend[2*plane + ..] += .., host and device",
        check_constant_offset_planes,
    ),
    ("port: omp::HostPinned vectors (page-locked) mapped by target_data, written by regions and updated both ways", check_host_pinned),
    ("port: LULESH's corner forces, a subslice &mut f[8 * k..8 * k + 8] passed to a helper, host and device", check_subslice_helper),
    (
        "port: a halo exchange on field locals: target_update!(from: .., nowait), taskwait, a host copy, update to",
        check_field_halo_exchange,
    ),
    ("port: a struct of slices with a lifetime parameter (self.y[i] += a * self.x[i]) and &[[f64; 3]] rows", check_slice_struct),
    (
        "port: reductions on array elements: reduction(max: d[0]) as hausdorff, reduction(+: beta[..3]) in target_data as aop, a host min",
        check_element_reductions,
    ),
    ("port: println! in a target region prints each thread's line by the region's end (a child process' stdout)", check_device_print),
    (
        "port: #[omp::atomic(compare)] if m[k] < v { m[k] = v } (and the > form) per bin, i32 on the device, f64 on the host",
        check_atomic_compare,
    ),
    ("port: reductions on a tuple's fields (acc.0, acc.1) and a struct's (stats.sum), host and target", check_field_reductions),
    (
        "port: declare reduction, minmax's min-location pair and min/max struct, host loop and target region (also in target_data)",
        check_declare_reduction,
    ),
    (
        "port: tokens chosen per step in target_data, let (src, dst) = if .. { (&*a, &mut *b) } else { .. } with nowait, a map(to:) source",
        check_chosen_tokens,
    ),
];

/// A ping-pong time loop whose source and destination swap each step (C's pointer swap), then a sum that reads one
/// of two `to:` arrays per step; at the end a host region (`if(false)`) through a borrowed token.
#[omp::directives]
fn ping_pong(a: &mut [f64], b: &mut [f64], w: &[f64], z: &[f64], out: &mut [f64], steps: usize) {
    #[omp::target_data(map(tofrom: a, b, out), map(to: w, z))]
    {
        for s in 0..steps {
            let (src, dst) = if s % 2 == 0 { (&*a, &mut *b) } else { (&*b, &mut *a) };
            #[omp::target_teams_distribute_parallel_for(nowait)]
            for i in 0..dst.len() {
                dst[i] = 0.5 * src[i] + 1.0;
            }
            omp::taskwait!();
            let weights = if s % 2 == 0 { &*w } else { &*z };
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..out.len() {
                out[i] += weights[i] * dst[i];
            }
        }
        // A region that runs on the host through a borrowed token works on the device's current copy.
        let last = &mut *a;
        #[omp::target_teams_distribute_parallel_for(if(false))]
        for i in 0..last.len() {
            last[i] *= 2.0;
        }
    }
}

fn check_chosen_tokens(rng: &mut StdRng) -> Result<(), String> {
    let (n, steps) = (rng.gen_range(1..3000), rng.gen_range(1..6));
    let random = |rng: &mut StdRng| -> Vec<f64> { (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect() };
    let (mut a, mut b, w, z) = (random(rng), random(rng), random(rng), random(rng));
    let mut out = vec![0.0; n];
    let (mut wa, mut wb, mut wout) = (a.clone(), b.clone(), out.clone());
    for s in 0..steps {
        let (src, dst) = if s % 2 == 0 { (&wa, &mut wb) } else { (&wb, &mut wa) };
        for i in 0..n {
            dst[i] = 0.5 * src[i] + 1.0;
        }
        let weights = if s % 2 == 0 { &w } else { &z };
        for i in 0..n {
            wout[i] += weights[i] * dst[i];
        }
    }
    for v in wa.iter_mut() {
        *v *= 2.0;
    }
    ping_pong(&mut a, &mut b, &w, &z, &mut out, steps);
    same("a", &a, &wa)?;
    same("b", &b, &wb)?;
    same("out", &out, &wout)
}

/// A running sum and count, as a struct a port keeps its statistics in.
struct Stats {
    sum: f64,
    count: u64,
}

/// Sums into a tuple's fields on the device, a struct's and a tuple's on the host.
#[omp::directives]
fn field_sums(x: &[f64], stats: &mut Stats) -> ((f64, f64), (i64, f64)) {
    let mut acc: (f64, f64) = (0.0, 0.0);
    let mut top: (i64, f64) = (0, f64::NEG_INFINITY);
    #[omp::target_teams_distribute_parallel_for(reduction(+: acc.0, acc.1) reduction(max: top.1))]
    for i in 0..x.len() {
        acc.0 += x[i];
        acc.1 += x[i] * x[i];
        top.1 = top.1.max(x[i]);
    }
    #[omp::parallel_for(reduction(+: stats.sum, stats.count, top.0))]
    for i in 0..x.len() {
        if x[i] > 0.0 {
            stats.sum += x[i];
            stats.count += 1;
            top.0 += 1;
        }
    }
    (acc, top)
}

fn check_field_reductions(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..20_000);
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let start = rng.gen_range(-5.0..5.0);
    let mut stats = Stats { sum: start, count: 3 };
    let ((s, s2), (positive, max)) = field_sums(&x, &mut stats);
    let abs: f64 = x.iter().map(|v| v.abs()).sum();
    crate::close("acc.0", s, x.iter().sum(), n, abs.max(1.0))?;
    crate::close("acc.1", s2, x.iter().map(|v| v * v).sum(), n, abs.max(1.0))?;
    let want_max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pos: Vec<f64> = x.iter().copied().filter(|&v| v > 0.0).collect();
    if max != want_max || positive != pos.len() as i64 || stats.count != 3 + pos.len() as u64 {
        return Err(format!("max {max} (want {want_max}), positive {positive} / count {} (want {})", stats.count, pos.len()));
    }
    crate::close("stats.sum", stats.sum, start + pos.iter().sum::<f64>(), n, abs.max(1.0) + start.abs())
}

/// The halo width of a stencil code, as a module-level constant.
const HS: usize = 2;

/// `let nx = n / 4;` needs no annotation (usize from `n`), nor a cast (f64) or a comparison (bool); `HS` in the
/// index is the module's const, not a captured variable.
#[omp::directives]
fn halo_interior(n: usize, w: usize, state: &[f64], out: &mut [f64], host: &mut [f64]) {
    let nx = n / 4;
    let scale = nx as f64 * 0.5;
    let wide = w > n;
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        let v = state[(1 + HS) * w + i + HS] * scale;
        out[i] = if wide { v + nx as f64 } else { -v };
    }
    #[omp::parallel_for]
    for i in 0..n {
        host[i] = state[(1 + HS) * w + i + HS] * scale - nx as f64;
    }
}

fn check_consts_and_inferred_scalars(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..2000);
    let w = n + 2 * HS + rng.gen_range(0..3);
    let state = vec_f64(rng, (n + 2 * HS) * w);
    let (mut out, mut host) = (vec![0.0; n], vec![0.0; n]);
    halo_interior(n, w, &state, &mut out, &mut host);
    let (nx, scale) = (n / 4, (n / 4) as f64 * 0.5);
    let want: Vec<f64> = (0..n).map(|i| state[(1 + HS) * w + i + HS] * scale + nx as f64).collect();
    let want_host: Vec<f64> = (0..n).map(|i| state[(1 + HS) * w + i + HS] * scale - nx as f64).collect();
    same("out", &out, &want)?;
    same("host", &host, &want_host)
}

/// The short motion form followed by clauses, as a porter writes `#pragma omp target update from(b[0:n]) depend(out: b)`.
#[omp::directives]
fn update_section(n: usize, b: &mut [f64]) {
    #[omp::target_data(map(to: b))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            b[i] = 2.0 * b[i] + 1.0;
        }
        omp::target_update!(from: b[0..n], depend(out: b));
    }
}

fn check_update_short_form_with_clauses(rng: &mut StdRng) -> Result<(), String> {
    let len = rng.gen_range(1..3000);
    let n = rng.gen_range(0..=len);
    let mut b = vec_f64(rng, len);
    let want: Vec<f64> = b.iter().enumerate().map(|(i, v)| if i < n { 2.0 * v + 1.0 } else { *v }).collect();
    update_section(n, &mut b);
    same("b", &b, &want)
}

/// A plain function of the module, as C codes have `static inline double flux(...)`: called in a target region it
/// is compiled for the device too (OpenMP 5's implicit `declare target`), with what it calls and the consts it names.
fn limiter(a: f64, b: f64) -> f64 {
    if a * b <= 0.0 {
        0.0
    } else {
        GAMMA * a.abs().min(b.abs()) * sign(a)
    }
}

fn sign(x: f64) -> f64 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

const GAMMA: f64 = 0.75;

#[omp::directives]
fn limited_slopes(u: &[f64], s: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 1..s.len() - 1 {
        s[i] = limiter(u[i] - u[i - 1], u[i + 1] - u[i]);
    }
}

fn check_helper_functions(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(3..5000);
    let u = vec_f64(rng, n);
    let mut s = vec![0.0; n];
    limited_slopes(&u, &mut s);
    let mut want = vec![0.0; n];
    for i in 1..n - 1 {
        want[i] = limiter(u[i] - u[i - 1], u[i + 1] - u[i]);
    }
    same("s", &s, &want)
}

/// Points of a stencil, as a module const sizing a private work array.
const TAPS: usize = 4;

/// `private(stencil)`: scratch each iteration fills before use; `firstprivate(w)`: weights each iteration starts from
/// (and changes locally, which no other iteration sees). The originals need no `mut`: each iteration's copy is
/// its own mutable variable.
#[omp::directives]
fn weighted(x: &[f64], y: &mut [f64]) {
    let stencil: [f64; TAPS] = [0.0; TAPS];
    let w: [f64; TAPS] = [0.5, 1.0, 2.0, 4.0];
    #[omp::target_teams_distribute_parallel_for(private(stencil), firstprivate(w))]
    for i in 0..y.len() {
        for k in 0..TAPS {
            stencil[k] = x[i + k];
        }
        w[i % TAPS] += 1.0;
        let mut s = 0.0;
        for k in 0..TAPS {
            s += w[k] * stencil[k];
        }
        y[i] = s;
    }
}

fn check_private_arrays(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000);
    let x = vec_f64(rng, n + TAPS - 1);
    let mut y = vec![0.0; n];
    weighted(&x, &mut y);
    let mut y_literal = vec![0.0; n];
    weighted_literal(&x, &mut y_literal);
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let mut w = [0.5, 1.0, 2.0, 4.0];
            w[i % TAPS] += 1.0;
            (0..TAPS).fold(0.0, |s, k| s + w[k] * x[i + k])
        })
        .collect();
    same("y", &y, &want)?;
    same("y (literal lengths: elements as kernel parameters)", &y_literal, &want)
}

/// `weighted` with literal array lengths: small arrays of literal length pass element by element as kernel
/// parameters (the GPU's constant bank), read-only ones and `firstprivate` copies alike.
#[omp::directives]
fn weighted_literal(x: &[f64], y: &mut [f64]) {
    let w: [f64; 4] = [0.5, 1.0, 2.0, 4.0];
    let taps: [usize; 4] = [0, 1, 2, 3];
    #[omp::target_teams_distribute_parallel_for(firstprivate(w))]
    for i in 0..y.len() {
        w[i % 4] += 1.0;
        let mut s = 0.0;
        for k in 0..4 {
            s += w[k] * x[i + taps[k]];
        }
        y[i] = s;
    }
}

/// Unstructured mapping before any region has run (the suite's host-plugin test runs this check alone, in a fresh
/// process, so that it really is the first offload operation).
#[omp::directives]
fn enter_data_first(x: &mut [f64]) -> bool {
    omp::target_enter_data!(map(to: x));
    let present = omp::get_num_devices() == 0 || omp::target_is_present(x, omp::get_default_device());
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        x[i] = 2.0 * x[i] + 1.0;
    }
    omp::target_exit_data!(map(from: x));
    present
}

fn check_enter_data_first(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let mut x = vec_f64(rng, n);
    let want: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    if !enter_data_first(&mut x) {
        return Err("target_enter_data! mapped nothing (no device yet)".into());
    }
    same("x", &x, &want)
}

/// Complex numbers stored interleaved: each iteration writes its real and imaginary part.
#[omp::target_teams_distribute_parallel_for]
fn interleave(re: &[f64], im: &[f64], z: &mut [f64]) {
    for i in 0..re.len() {
        z[2 * i] = re[i];
        z[2 * i + 1] = im[i];
    }
}

/// The step between iterations is a run-time value: the launch checks the ownership (s = 1 would overlap).
#[omp::target_teams_distribute_parallel_for]
fn spaced(s: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[s * i] = x[i];
        y[s * i + 2] = -x[i];
    }
}

fn check_constant_offsets(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..4000);
    let (re, im) = (vec_f64(rng, n), vec_f64(rng, n));
    let mut z = vec![0.0; 2 * n];
    interleave(&re, &im, &mut z);
    let want: Vec<f64> = (0..2 * n).map(|k| if k % 2 == 0 { re[k / 2] } else { im[k / 2] }).collect();
    same("z", &z, &want)?;
    let mut y = vec![0.0; 3 * n + 2];
    spaced(3, &re, &mut y);
    let mut want = vec![0.0; 3 * n + 2];
    for i in 0..n {
        want[3 * i] = re[i];
        want[3 * i + 2] = -re[i];
    }
    same("y", &y, &want)?;
    let overlapping = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut y = vec![0.0; 2 * n + 2];
        spaced(2, &re, &mut y);
    }));
    if n > 1 && overlapping.is_ok() {
        return Err("s = 2 makes iteration i write y[2i + 2] = iteration i + 1's y[2(i + 1)]: must panic".into());
    }
    Ok(())
}

/// The kernels of a time step as functions of the caller's mapped variables (`omp::MappedMut` / `omp::MappedRef`
/// parameters), as real codes call one function per kernel from a time loop inside `target data`.
#[omp::directives]
fn compute_flux(u: &omp::MappedRef<'_, '_, f64>, flux: &mut omp::MappedMut<'_, '_, f64>) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 1..u.len() {
        flux[i] = 0.5 * (u[i] - u[i - 1]);
    }
}

#[omp::directives]
fn apply_flux(u: &mut omp::MappedMut<'_, '_, f64>, flux: &omp::MappedRef<'_, '_, f64>, dt: f64) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 1..u.len() - 1 {
        u[i] += dt * (flux[i + 1] - flux[i]);
    }
}

#[omp::directives]
fn time_loop(u: &mut [f64], steps: usize, dt: f64) {
    let mut flux = vec![0.0; u.len()];
    #[omp::target_data(map(tofrom: u), map(alloc: flux))]
    {
        for _ in 0..steps {
            compute_flux(&u.as_mapped_ref(), &mut flux);
            apply_flux(&mut u, &flux.as_mapped_ref(), dt);
        }
    }
}

fn check_mapped_parameters(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(3..3000);
    let steps = rng.gen_range(1..6);
    let u0 = vec_f64(rng, n);
    let mut u = u0.clone();
    time_loop(&mut u, steps, 0.1);
    let mut want = u0;
    let mut flux = vec![0.0; n];
    for _ in 0..steps {
        for i in 1..n {
            flux[i] = 0.5 * (want[i] - want[i - 1]);
        }
        for i in 1..n - 1 {
            want[i] += 0.1 * (flux[i + 1] - flux[i]);
        }
    }
    same("u", &u, &want)
}

/// miniWeather's calls as its C is written, `compute_tendencies(state, flux, tend)`: the tokens go on as they are
/// (`&mut MappedMut` where a function takes `&MappedRef` too), the `alloc:` arrays are written by the callees, and the
/// `private` stencil is declared `let mut` before the loop (C's `double stencil[4]`) without an unused-`mut` warning
/// (the workspace's clippy run denies warnings).
#[omp::directives]
fn compute_tendencies(state: &omp::MappedRef<'_, '_, f64>, flux: &mut omp::MappedMut<'_, '_, f64>, tend: &mut omp::MappedMut<'_, '_, f64>) {
    let n = state.len();
    let mut stencil = [0.0f64; 3];
    #[omp::target_teams_distribute_parallel_for(private(stencil))]
    for i in 0..n {
        for s in 0..3 {
            stencil[s] = state[(i + s) % n];
        }
        flux[i] = stencil[0] - 2.0 * stencil[1] + stencil[2];
    }
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        tend[i] = 0.5 * flux[i];
    }
}

#[omp::directives]
fn apply_tendencies(state: &mut omp::MappedMut<'_, '_, f64>, tend: &omp::MappedRef<'_, '_, f64>, dt: f64) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..state.len() {
        state[i] += dt * tend[i];
    }
}

#[omp::directives]
fn calls_as_written(state: &mut [f64], steps: usize, dt: f64) {
    let mut flux = vec![0.0f64; state.len()];
    let mut tend = vec![0.0f64; state.len()];
    let (flux, tend) = (&mut flux, &mut tend);
    #[omp::target_data(map(tofrom: state), map(alloc: flux, tend))]
    {
        for _ in 0..steps {
            compute_tendencies(state, flux, tend);
            apply_tendencies(state, tend, dt);
        }
    }
}

fn check_kernel_calls_as_written(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let steps = rng.gen_range(1..5);
    let dt = rng.gen_range(0.01..0.2);
    let state0 = vec_f64(rng, n);
    let mut state = state0.clone();
    calls_as_written(&mut state, steps, dt);
    let mut want = state0;
    for _ in 0..steps {
        let flux: Vec<f64> = (0..n).map(|i| want[i] - 2.0 * want[(i + 1) % n] + want[(i + 2) % n]).collect();
        for i in 0..n {
            want[i] += dt * (0.5 * flux[i]);
        }
    }
    same("state", &state, &want)
}

/// C's `int ind;` + `private(ind)`, assigned first thing in the body and then the index of every access (miniWeather's
/// `inds`, `indt`), inside a data region.
#[omp::directives]
fn private_index(nz: usize, nx: usize, state: &mut [f64], tend: &[f64], dt: f64) {
    let mut ind: usize = 0;
    #[omp::target_data(map(tofrom: state), map(to: tend))]
    {
        #[omp::target_teams_distribute_parallel_for(collapse(2), private(ind))]
        for k in 0..nz {
            for i in 0..nx {
                ind = k * nx + i;
                state[ind] += dt * tend[ind];
            }
        }
    }
    let _ = ind;
}

fn check_private_index(rng: &mut StdRng) -> Result<(), String> {
    let (nz, nx) = (rng.gen_range(1..60), rng.gen_range(1..60));
    let dt = rng.gen_range(0.01..0.2);
    let state0 = vec_f64(rng, nz * nx);
    let tend = vec_f64(rng, nz * nx);
    let mut state = state0.clone();
    private_index(nz, nx, &mut state, &tend, dt);
    let want: Vec<f64> = state0.iter().zip(&tend).map(|(s, t)| s + dt * t).collect();
    same("state", &state, &want)
}

/// Variables of a stencil code's state, one plane each.
const ID_DENS: usize = 0;
const ID_UMOM: usize = 1;
const ID_RHOT: usize = 3;

/// Each iteration writes its element of three planes of one buffer (the run time checks the planes apart).
#[omp::target_teams_distribute_parallel_for]
fn fluxes(plane: usize, x: &[f64], f: &mut [f64]) {
    for i in 0..x.len() {
        f[ID_DENS * plane + i] = x[i];
        f[ID_UMOM * plane + i] = 2.0 * x[i];
        f[ID_RHOT * plane + i] = -x[i];
    }
}

fn check_named_planes(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(2..4000);
    let plane = n + rng.gen_range(0..5);
    let x = vec_f64(rng, n);
    let mut f = vec![0.0; 4 * plane];
    fluxes(plane, &x, &mut f);
    let mut want = vec![0.0; 4 * plane];
    for i in 0..n {
        want[ID_DENS * plane + i] = x[i];
        want[ID_UMOM * plane + i] = 2.0 * x[i];
        want[ID_RHOT * plane + i] = -x[i];
    }
    same("f", &f, &want)?;
    let overlapping = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut f = vec![0.0; 4 * n];
        fluxes(n - 1, &x, &mut f);
    }));
    match overlapping {
        Ok(()) => Err("planes n - 1 apart overlap the next iteration's elements: must panic".into()),
        Err(_) => Ok(()),
    }
}

/// A triangular inner loop (`for j in 0..i`, a lower triangle: Cholesky- and LU-style codes): each row writes its
/// own block; the run time checks the rows apart over the range widened to `0..n`.
#[omp::target_teams_distribute_parallel_for]
fn lower_triangle(n: usize, x: &[f64], a: &mut [f64]) {
    for i in 0..n {
        for j in 0..i {
            a[i * n + j] += x[i] * x[j];
        }
    }
}

/// `j` from `i + 1` to `n` (the strict upper triangle), on a matrix with a padded row length.
#[omp::target_teams_distribute_parallel_for]
fn upper_triangle(n: usize, ld: usize, x: &[f64], a: &mut [f64]) {
    for i in 0..n {
        for j in i + 1..n {
            a[i * ld + j] = x[j] - x[i];
        }
    }
}

fn check_triangular(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..120);
    let ld = n + rng.gen_range(0..3);
    let x = vec_f64(rng, n);
    let a0 = vec_f64(rng, n * ld);
    let mut a = a0[..n * n].to_vec();
    lower_triangle(n, &x, &mut a);
    let mut want = a0[..n * n].to_vec();
    for i in 0..n {
        for j in 0..i {
            want[i * n + j] += x[i] * x[j];
        }
    }
    same("lower triangle", &a, &want)?;
    let mut a = a0.clone();
    upper_triangle(n, ld, &x, &mut a);
    let mut want = a0;
    for i in 0..n {
        for j in i + 1..n {
            want[i * ld + j] = x[j] - x[i];
        }
    }
    same("upper triangle", &a, &want)
}

/// The same function in two modules whose consts differ (issue #12, kernel identity): the plain kernel names
/// (signature and body) are equal, the kernels are not; the build names both by their location and each region
/// must launch its own.
mod identity_a {
    const K: f64 = 2.0;

    #[omp::target_teams_distribute_parallel_for]
    pub(super) fn scale(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = K * x[i];
        }
    }
}

mod identity_b {
    const K: f64 = 3.0;

    #[omp::target_teams_distribute_parallel_for]
    pub(super) fn scale(x: &[f64], y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = K * x[i];
        }
    }
}

fn check_kernel_identity(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let x = vec_f64(rng, n);
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    identity_a::scale(&x, &mut a);
    identity_b::scale(&x, &mut b);
    same("module a (K = 2)", &a, &x.iter().map(|v| 2.0 * v).collect::<Vec<_>>())?;
    same("module b (K = 3)", &b, &x.iter().map(|v| 3.0 * v).collect::<Vec<_>>())
}

/// The escape hatch in a target region: an in-place halo copy (border cells get copies of interior cells of the same
/// array) and a scatter through a permutation, which the analysis cannot prove disjoint; the user promises it with
/// `unsafe(disjoint(..))`. Indices stay bounds-checked on the device.
#[omp::directives]
fn halo_and_scatter(n: usize, rows: usize, u: &mut [f64], p: &[usize], x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(unsafe(disjoint(u)))]
    for r in 0..rows {
        u[r * (n + 2)] = u[r * (n + 2) + n];
        u[r * (n + 2) + n + 1] = u[r * (n + 2) + 1];
    }
    #[omp::target_teams_distribute_parallel_for(unsafe(disjoint(y)))]
    for i in 0..x.len() {
        y[p[i]] = 2.0 * x[i];
    }
}

fn check_escape_hatch(rng: &mut StdRng) -> Result<(), String> {
    let (n, rows) = (rng.gen_range(1..40), rng.gen_range(1..300));
    let u0 = vec_f64(rng, rows * (n + 2));
    let len = rng.gen_range(1..3000);
    let mut p: Vec<usize> = (0..len).collect();
    for i in (1..len).rev() {
        p.swap(i, rng.gen_range(0..=i));
    }
    let x = vec_f64(rng, len);
    let (mut u, mut y) = (u0.clone(), vec![0.0; len]);
    halo_and_scatter(n, rows, &mut u, &p, &x, &mut y);
    let mut want = u0;
    for r in 0..rows {
        want[r * (n + 2)] = want[r * (n + 2) + n];
        want[r * (n + 2) + n + 1] = want[r * (n + 2) + 1];
    }
    same("u (halo copy)", &u, &want)?;
    let mut want_y = vec![0.0; len];
    for i in 0..len {
        want_y[p[i]] = 2.0 * x[i];
    }
    same("y (scatter)", &y, &want_y)
}

/// nbody's serial `#pragma omp target` energy sum: `for (i = 1; i < n; i++) e[0] += e[i];` on one device thread.
#[omp::target]
fn serial_sum(e: &mut [f64], n: usize) {
    for i in 1..n {
        e[0] += e[i];
    }
}

/// A serial block inside a data region after a kernel (a scan: every element depends on the one before), then a
/// one-iteration loop directive that gathers through a permutation.
#[omp::directives]
fn serial_scan_and_gather(a: &mut [f64], perm: &[usize], out: &mut [f64], n: usize) {
    #[omp::target_data(map(tofrom: a, out), map(to: perm))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            a[i] = 2.0 * a[i];
        }
        #[omp::target]
        {
            let mut k = 1;
            while k < n {
                a[k] += a[k - 1];
                k += 1;
            }
        }
        #[omp::target_teams_distribute_parallel_for]
        for _ in 0..1 {
            for i in 0..n {
                out[perm[i]] = a[i] + out[perm[n - 1 - i]];
            }
        }
    }
}

fn check_serial_target(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..3000);
    let mut e = vec_f64(rng, n);
    let mut want = e.clone();
    for i in 1..n {
        want[0] += want[i];
    }
    serial_sum(&mut e, n);
    same("e", &e, &want)?;

    let mut a = vec_f64(rng, n);
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        perm.swap(i, rng.gen_range(0..=i));
    }
    let mut out = vec_f64(rng, n);
    let (mut want_a, mut want_out) = (a.clone(), out.clone());
    for v in want_a.iter_mut() {
        *v *= 2.0;
    }
    for k in 1..n {
        want_a[k] += want_a[k - 1];
    }
    for i in 0..n {
        want_out[perm[i]] = want_a[i] + want_out[perm[n - 1 - i]];
    }
    serial_scan_and_gather(&mut a, &perm, &mut out, n);
    same("a", &a, &want_a)?;
    same("out", &out, &want_out)
}

/// C codes map their scalars with their arrays (`target enter data map(to: x0, xp, y, h)`); regions take scalars by
/// value (firstprivate, OpenMP's default), so those maps move nothing and the host's current value is what a region
/// sees.
#[omp::directives]
fn scaled_steps(x: &mut [f64], mut h: f64, n: usize, steps: usize) {
    omp::target_enter_data!(map(to: x, h, n));
    for _ in 0..steps {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..n {
            x[i] = x[i] * h + 1.0;
        }
        h *= 0.5;
        omp::target_update!(to: h);
    }
    omp::target_update!(from: h, n);
    omp::target_exit_data!(map(from: x), map(release: h), map(delete: n));
}

/// A step's parameters, mapped with the arrays as a C struct would be.
#[omp::declare_target]
#[derive(Clone, Copy, Debug)]
pub struct StepParams {
    pub h: f64,
    pub shift: f64,
}

/// Scalars and a struct in a `target_data` block's maps and in enter/update/exit beside the arrays: regions take
/// them by value, so the block's host code changes them between regions, as the host copy a C code updates `to`.
#[omp::directives]
fn struct_steps(x: &mut [f64], mut p: StepParams, steps: usize) {
    let n = x.len();
    omp::target_enter_data!(map(to: p));
    #[omp::target_data(map(tofrom: x), map(to: n, p))]
    {
        for _ in 0..steps {
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..n {
                x[i] = x[i] * p.h + p.shift;
            }
            p.h *= 0.5;
            omp::target_update!(to: p);
        }
    }
    omp::target_exit_data!(map(release: p));
}

fn check_scalars_in_data_maps(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..3000);
    let x0 = vec_f64(rng, n);
    let p = StepParams { h: rng.gen_range(0.5..2.0), shift: rng.gen_range(-1.0..1.0) };
    let steps = rng.gen_range(1..5);
    let mut x = x0.clone();
    struct_steps(&mut x, p, steps);
    let mut want = x0;
    let mut h = p.h;
    for _ in 0..steps {
        want.iter_mut().for_each(|v| *v = *v * h + p.shift);
        h *= 0.5;
    }
    same("x (a struct and scalars in data maps)", &x, &want)?;
    check_scalar_steps(rng)
}

fn check_scalar_steps(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let x0 = vec_f64(rng, n + 3);
    let (h, steps) = (rng.gen_range(0.5..2.0), rng.gen_range(1..5));
    let mut x = x0.clone();
    scaled_steps(&mut x, h, n, steps);
    let mut want = x0;
    let mut hh = h;
    for _ in 0..steps {
        for v in &mut want[..n] {
            *v = *v * hh + 1.0;
        }
        hh *= 0.5;
    }
    same("x", &x, &want)
}

/// A solver's state, as a C++ class holds its arrays.
struct Fields {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

/// Its grid's extents, read into locals as a port writes `int nx = g.nx, nz = g.nz;`.
struct Extents {
    nx: usize,
    nz: usize,
}

impl Fields {
    /// `let (a, b, c) = (&mut self.a, &self.b, &self.c);` then enter data, a region, `target update from(a)`.
    #[omp::directives]
    fn combine(&mut self, g: &Extents, scale: f64) {
        let (a, b, c) = (&mut self.a, &self.b, &self.c);
        let (nx, nz) = (g.nx, g.nz);
        omp::target_enter_data!(map(to: a, b, c));
        #[omp::target_teams_distribute_parallel_for(collapse(2))]
        for k in 0..nz {
            for i in 0..nx {
                a[k * nx + i] = scale * b[k * nx + i] + c[i];
            }
        }
        omp::target_update!(from: a);
        omp::target_exit_data!(map(release: a, b, c));
    }
}

fn check_field_locals(rng: &mut StdRng) -> Result<(), String> {
    let g = Extents { nx: rng.gen_range(1..200), nz: rng.gen_range(1..50) };
    let n = g.nx * g.nz;
    let mut f = Fields { a: vec_f64(rng, n), b: vec_f64(rng, n), c: vec_f64(rng, g.nx) };
    let scale: f64 = rng.gen_range(-2.0..2.0);
    let want: Vec<f64> = (0..n).map(|j| scale * f.b[j] + f.c[j % g.nx]).collect();
    f.combine(&g, scale);
    same("a", &f.a, &want)
}

/// A stencil helper as ported: a work vector, a private four-point stencil, a periodic index, a std constant.
#[omp::directives]
fn periodic_stencil(g: &Extents, out: &mut [f64]) {
    let (nx, nz) = (g.nx, g.nz);
    let u = vec![0.5f64; nx * nz];
    // No `mut`: each iteration's private copy is its own mutable variable (see `weighted`).
    let stencil = [0.0f64; 4];
    #[omp::target_teams_distribute_parallel_for(private(stencil))]
    for i in 0..nx * nz {
        for s in 0..4 {
            stencil[s] = u[i] * s as f64;
        }
        let k = (i as i64 - 3).rem_euclid(nz as i64) as f64;
        out[i] = stencil[0] + stencil[1] + stencil[2] + stencil[3] + std::f64::consts::PI * k;
    }
}

fn check_unannotated_locals(rng: &mut StdRng) -> Result<(), String> {
    let g = Extents { nx: rng.gen_range(1..100), nz: rng.gen_range(1..40) };
    let n = g.nx * g.nz;
    let mut out = vec_f64(rng, n);
    let want: Vec<f64> = (0..n).map(|i| 0.5 * 6.0 + std::f64::consts::PI * (i as i64 - 3).rem_euclid(g.nz as i64) as f64).collect();
    periodic_stencil(&g, &mut out);
    same("out", &out, &want)
}

/// A host loop as a port writes it: results pushed to an output vector under `critical`, a counter and a small
/// histogram behind `&mut` parameters updated atomically, and `continue 'rows;` naming the parallel loop itself.
#[omp::directives]
fn classify_rows(v: &[f64], selected: &mut Vec<usize>, count: &mut u64, hist: &mut [u64; 4]) {
    #[omp::parallel_for]
    'rows: for i in 0..v.len() {
        if v[i] < 0.0 {
            continue 'rows;
        }
        for k in 0..3 {
            if v[i] > 0.9 && k == 1 {
                continue 'rows;
            }
        }
        #[omp::critical]
        {
            selected.push(i);
        }
        #[omp::atomic]
        *count += 1;
        #[omp::atomic]
        hist[(v[i] * 4.0) as usize % 4] += 1;
    }
}

fn check_host_loop_idioms(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..5000);
    let v: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let (mut selected, mut count, mut hist) = (Vec::new(), 0u64, [0u64; 4]);
    classify_rows(&v, &mut selected, &mut count, &mut hist);
    selected.sort_unstable();
    let want: Vec<usize> = (0..n).filter(|&i| v[i] >= 0.0 && v[i] <= 0.9).collect();
    let mut want_hist = [0u64; 4];
    for &i in &want {
        want_hist[(v[i] * 4.0) as usize % 4] += 1;
    }
    same("selected", &selected, &want)?;
    same("count", &[count], &[want.len() as u64])?;
    same("hist", &hist, &want_hist)
}

/// Coefficients as a C struct passed by value: OpenMP needs no annotation for the type, nor does omp-rs.
#[derive(Clone, Copy)]
struct Coefficients {
    a: f64,
    b: f64,
}

#[omp::directives]
fn affine_map(c: Coefficients, x: &[f64], y: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..x.len() {
        y[i] = c.a * x[i] + c.b;
    }
}

fn check_plain_struct(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..3000);
    let x = vec_f64(rng, n);
    let c = Coefficients { a: rng.gen_range(-2.0..2.0), b: rng.gen_range(-2.0..2.0) };
    let mut y = vec![0.0; n];
    affine_map(c, &x, &mut y);
    let want: Vec<f64> = x.iter().map(|v| c.a * v + c.b).collect();
    same("y", &y, &want)
}

/// Host code inside a data region, as C codes write it: the host copy is read after `target update from` (edge
/// values, a convergence test) and written before `target update to` (periodic halos, a changed coefficient of an
/// array mapped `to:`). Returns the number of sweeps.
#[omp::directives]
fn relax_with_host_halos(n: usize, tol: f64, max_sweeps: usize, u: &mut [f64], unew: &mut [f64], coef: &mut [f64]) -> usize {
    let mut sweeps = 0;
    let mut change = f64::INFINITY;
    let mut prev = vec![0.0; n];
    #[omp::target_data(map(tofrom: u), map(alloc: unew), map(to: coef))]
    {
        while sweeps < max_sweeps && change > tol {
            #[omp::target_teams_distribute_parallel_for]
            for i in 1..n + 1 {
                unew[i] = coef[0] * (u[i - 1] + u[i + 1]) + coef[1] * u[i];
            }
            #[omp::target_teams_distribute_parallel_for]
            for i in 1..n + 1 {
                u[i] = unew[i];
            }
            omp::target_update!(from: u[1..2], u[n..n + 1]);
            let h = u.host_mut();
            h[0] = h[n];
            h[n + 1] = h[1];
            omp::target_update!(to: u[0..1], u[n + 1..n + 2]);
            omp::target_update!(from: unew[1..n + 1]);
            let fresh = &unew.host()[1..n + 1];
            change = fresh.iter().zip(&prev).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            prev.copy_from_slice(fresh);
            sweeps += 1;
            if sweeps == 3 {
                coef.host_mut()[1] *= 0.5;
                omp::target_update!(to: coef);
            }
        }
    }
    sweeps
}

fn relax_with_host_halos_seq(n: usize, tol: f64, max_sweeps: usize, u: &mut [f64], coef: &mut [f64]) -> usize {
    let (mut sweeps, mut change, mut prev) = (0, f64::INFINITY, vec![0.0; n]);
    let mut unew = vec![0.0; n + 2];
    while sweeps < max_sweeps && change > tol {
        for i in 1..n + 1 {
            unew[i] = coef[0] * (u[i - 1] + u[i + 1]) + coef[1] * u[i];
        }
        u[1..n + 1].copy_from_slice(&unew[1..n + 1]);
        u[0] = u[n];
        u[n + 1] = u[1];
        change = unew[1..n + 1].iter().zip(&prev).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        prev.copy_from_slice(&unew[1..n + 1]);
        sweeps += 1;
        if sweeps == 3 {
            coef[1] *= 0.5;
        }
    }
    sweeps
}

fn check_host_code_in_data_region(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(2..4000);
    let mut u = vec_f64(rng, n + 2);
    let mut coef = vec![rng.gen_range(0.2..0.3), rng.gen_range(0.3..0.5)];
    let (mut want_u, mut want_coef) = (u.clone(), coef.clone());
    let max_sweeps = rng.gen_range(1..40);
    let mut unew = vec![0.0; n + 2];
    let sweeps = relax_with_host_halos(n, 1e-3, max_sweeps, &mut u, &mut unew, &mut coef);
    let want_sweeps = relax_with_host_halos_seq(n, 1e-3, max_sweeps, &mut want_u, &mut want_coef);
    same("sweeps", &[sweeps], &[want_sweeps])?;
    same("coef (mapped to:, written on the host)", &coef, &want_coef)?;
    same("u", &u, &want_u)
}

/// A function with C's signature (`void axpy(double a, const double *x, double *y)` with its own `target` region),
/// called inside a data region with the host views of the mapped arrays: its region finds them present and works on
/// the device copies, as the C code's does; the block's copy back brings the results.
#[omp::target_teams_distribute_parallel_for]
fn axpy_plain(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i];
    }
}

#[omp::directives]
fn axpy_steps(steps: usize, a: f64, x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        for _ in 0..steps {
            axpy_plain(a, x.host(), y.host_mut());
        }
    }
}

fn check_plain_signature_in_data_region(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let (x, mut y) = (vec_f64(rng, n), vec_f64(rng, n));
    let (steps, a) = (rng.gen_range(1..6), rng.gen_range(-2.0..2.0));
    let mut want = y.clone();
    for _ in 0..steps {
        for i in 0..n {
            want[i] += a * x[i];
        }
    }
    axpy_steps(steps, a, &x, &mut y);
    same("y", &y, &want)
}

/// `#pragma omp atomic capture` of the old value, `{ v = x; x += e; }` (C's `v = x++`): every iteration draws a
/// ticket from one counter, on the device and on the host; the tickets are a permutation of `0..n` and the counter
/// ends at `n` (plus, for the new-value form, each bin's count).
#[omp::directives]
fn draw_tickets(n: usize, next: &mut [u64], tickets: &mut [u64], bins: &mut [u64], last: &mut [u64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        let t;
        #[omp::atomic(capture)]
        {
            t = next[0];
            next[0] += 1;
        }
        tickets[i] = t;
        let seen;
        #[omp::atomic(capture)]
        {
            bins[i % bins.len()] += 1;
            seen = bins[i % bins.len()];
        }
        #[omp::atomic]
        last[i % last.len()] = last[i % last.len()].max(seen);
    }
}

#[omp::directives]
fn draw_tickets_host(n: usize, next: &mut [u64], tickets: &mut [u64]) {
    #[omp::parallel_for]
    for i in 0..n {
        let t;
        #[omp::atomic(capture)]
        {
            t = next[0];
            next[0] += 1;
        }
        tickets[i] = t;
    }
}

fn check_atomic_capture_old(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..200_000);
    let k = rng.gen_range(1..64);
    let (mut next, mut tickets, mut bins, mut last) = (vec![0u64], vec![u64::MAX; n], vec![0u64; k], vec![0u64; k]);
    draw_tickets(n, &mut next, &mut tickets, &mut bins, &mut last);
    let permutation = |t: &[u64]| {
        let mut s = t.to_vec();
        s.sort_unstable();
        s.iter().enumerate().all(|(i, &v)| v == i as u64)
    };
    if !permutation(&tickets) {
        return Err("the tickets drawn in the target region are not a permutation of 0..n".into());
    }
    let want_bins: Vec<u64> = (0..k).map(|b| (0..n).filter(|i| i % k == b).count() as u64).collect();
    same("counter", &next, &[n as u64])?;
    same("bins", &bins, &want_bins)?;
    // The new-value capture: the largest value seen in a bin is its final count.
    same("largest new value per bin", &last, &want_bins)?;
    let (mut next, mut tickets) = (vec![0u64], vec![u64::MAX; n]);
    draw_tickets_host(n, &mut next, &mut tickets);
    if !permutation(&tickets) {
        return Err("the tickets drawn in the host loop are not a permutation of 0..n".into());
    }
    same("host counter", &next, &[n as u64])
}

/// miniWeather's flux loop as its C++ writes it: a collapsed (k, i) nest whose body loops over the variables and
/// writes `flux[ll*(nz+1)*(nx+1) + k*(nx+1) + i]`, one plane per variable.
#[omp::directives]
fn flux_planes(nx: usize, nz: usize, num_vars: usize, state: &[f64], flux: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(collapse(2))]
    for k in 0..nz {
        for i in 0..nx + 1 {
            for ll in 0..num_vars {
                flux[ll * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = state[ll * nz * (nx + 1) + k * (nx + 1) + i] * 0.5 + ll as f64;
            }
        }
    }
}

/// The same loop with planes one row apart (`ll * (nx + 1)`): variable `ll` of iteration k reaches row k + 1, which
/// iteration k + 1 writes too: refused before any write.
#[omp::directives]
fn flux_planes_overlapping(nx: usize, nz: usize, num_vars: usize, flux: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for(collapse(2))]
    for k in 0..nz {
        for i in 0..nx + 1 {
            for ll in 0..num_vars {
                flux[ll * (nx + 1) + k * (nx + 1) + i] = ll as f64;
            }
        }
    }
}

/// Runs a loop that must be refused before it writes: it panics with the overlap report, and `data` is as it was.
/// `what` names the loop's accesses in the messages.
fn refused_before_writing(what: &str, array: &str, data: &mut [f64], run: impl FnOnce(&mut [f64])) -> Result<(), String> {
    let before = data.to_vec();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(data))) {
        Err(p) if p.downcast_ref::<String>().is_some_and(|m| m.contains("may write the same element")) => {}
        Err(_) => return Err(format!("{what}: the loop panicked, but not with the overlap report")),
        Ok(()) => return Err(format!("{what} were not refused")),
    }
    if data != before.as_slice() {
        return Err(format!("the refused loop wrote `{array}` before it was refused"));
    }
    Ok(())
}

fn check_flux_planes(rng: &mut StdRng) -> Result<(), String> {
    let (nx, nz) = (rng.gen_range(1..30), rng.gen_range(2..20));
    let mut flux = vec![-1.0; (nz + 2) * (nx + 1)];
    refused_before_writing("overlapping planes (ll * (nx + 1) + k * (nx + 1) + i)", "flux", &mut flux, |flux| {
        flux_planes_overlapping(nx, nz, 2, flux)
    })?;
    let (nx, nz, num_vars) = (rng.gen_range(1..60), rng.gen_range(1..40), rng.gen_range(1..5));
    let state = vec_f64(rng, num_vars * nz * (nx + 1));
    let mut flux = vec![0.0; num_vars * (nz + 1) * (nx + 1)];
    flux_planes(nx, nz, num_vars, &state, &mut flux);
    let mut want = vec![0.0; flux.len()];
    for k in 0..nz {
        for i in 0..nx + 1 {
            for ll in 0..num_vars {
                want[ll * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = state[ll * nz * (nx + 1) + k * (nx + 1) + i] * 0.5 + ll as f64;
            }
        }
    }
    same("flux", &flux, &want)
}

/// A fixed-size coefficient array mapped by the data region and read in its regions (the regions use the block's
/// device copy, as an array, rather than passing the 32 values by value).
#[omp::directives]
fn taps_in_data_region(taps: [f64; 32], x: &[f64], y: &mut [f64]) {
    #[omp::target_data(map(to: taps, x), map(tofrom: y))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..y.len() {
            y[i] += taps[i % 32] * x[i];
        }
    }
}

fn check_fixed_array_in_data_region(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let taps: [f64; 32] = std::array::from_fn(|_| rng.gen_range(-1.0..1.0));
    let (x, mut y) = (vec_f64(rng, n), vec_f64(rng, n));
    let want: Vec<f64> = (0..n).map(|i| y[i] + taps[i % 32] * x[i]).collect();
    taps_in_data_region(taps, &x, &mut y);
    same("y", &y, &want)
}

/// OpenMP's split form, as RAJAPerf writes its kernels: `target` with the data clauses, its body one
/// `teams distribute parallel for` with the loop's clauses: the combined construct.
#[omp::directives]
fn split_saxpy(a: f64, x: &[f64], y: &mut [f64]) {
    #[omp::target(map(to: x), map(tofrom: y))]
    {
        #[omp::teams_distribute_parallel_for(thread_limit(128))]
        for i in 0..y.len() {
            y[i] += a * x[i];
        }
    }
}

#[omp::directives]
fn split_scale_buffers(n: usize, did: i64, x: &omp::DeviceBuffer<f64>, y: &mut omp::DeviceBuffer<f64>) {
    #[omp::target(is_device_ptr(x, y), device(did))]
    {
        #[omp::teams_distribute_parallel_for]
        for i in 0..n {
            y[i] = 2.0 * x[i];
        }
    }
}

fn check_split_target(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..5000);
    let (x, mut y) = (vec_f64(rng, n), vec_f64(rng, n));
    let a = rng.gen_range(-2.0..2.0);
    let want: Vec<f64> = (0..n).map(|i| y[i] + a * x[i]).collect();
    split_saxpy(a, &x, &mut y);
    same("y (map clauses on the target)", &y, &want)?;
    // Device memory needs a device: the is_device_ptr form runs where there is one.
    let devices = omp::get_num_devices();
    if devices == 0 {
        return Ok(());
    }
    let did = i64::from(devices - 1);
    let xb = omp::DeviceBuffer::from_slice(&x, Some(did)).map_err(|e| e.to_string())?;
    let mut yb = omp::DeviceBuffer::<f64>::alloc(n, Some(did)).map_err(|e| e.to_string())?;
    split_scale_buffers(n, did, &xb, &mut yb);
    let got = yb.to_vec().map_err(|e| e.to_string())?;
    let want: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
    same("y (is_device_ptr and device on the target)", &got, &want)
}

/// miniWeather's tendencies as its C++ writes them: one statement per variable at a constant plane offset, written
/// and then updated in place (`+=`), in a collapsed host loop and in a target region.
#[omp::directives]
fn tendencies(nx: usize, nz: usize, dt: f64, flux: &[f64], tend: &mut [f64], host: &mut [f64]) {
    let plane: usize = nx * nz;
    #[omp::target_teams_distribute_parallel_for(collapse(2))]
    for k in 0..nz {
        for i in 0..nx {
            tend[k * nx + i] = -(flux[k * nx + i] * dt);
            tend[plane + k * nx + i] = -(flux[plane + k * nx + i] * dt);
            tend[2 * plane + k * nx + i] = flux[2 * plane + k * nx + i];
            tend[2 * plane + k * nx + i] += tend[plane + k * nx + i];
        }
    }
    #[omp::parallel_for(collapse(2))]
    for k in 0..nz {
        for i in 0..nx {
            host[k * nx + i] = -(flux[k * nx + i] * dt);
            host[plane + k * nx + i] = -(flux[plane + k * nx + i] * dt);
            host[2 * plane + k * nx + i] = flux[2 * plane + k * nx + i];
            host[2 * plane + k * nx + i] += host[plane + k * nx + i];
        }
    }
}

fn check_constant_offset_planes(rng: &mut StdRng) -> Result<(), String> {
    let (nx, nz) = (rng.gen_range(1..300), rng.gen_range(1..50));
    let plane = nx * nz;
    let flux = vec_f64(rng, 3 * plane);
    let (mut tend, mut host) = (vec![0.0; 3 * plane], vec![0.0; 3 * plane]);
    tendencies(nx, nz, 0.25, &flux, &mut tend, &mut host);
    let mut want = vec![0.0; 3 * plane];
    for c in 0..plane {
        want[c] = -(flux[c] * 0.25);
        want[plane + c] = -(flux[plane + c] * 0.25);
        want[2 * plane + c] = flux[2 * plane + c] + want[plane + c];
    }
    same("tend (target region)", &tend, &want)?;
    same("tend (host loop)", &host, &want)
}

/// `y += a * x` twice in a data region, with a host change of `x` sent by `target_update!(to:)` between and `y`
/// read back by `target_update!(from:)` before the block ends.
#[omp::directives]
fn pinned_steps(a: f64, x: &mut [f64], y: &mut [f64], mid: &mut Vec<f64>) {
    #[omp::target_data(map(to: x), map(tofrom: y))]
    {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..y.len() {
            y[i] += a * x[i];
        }
        omp::target_update!(from: y);
        mid.extend_from_slice(y.host());
        for v in x.host_mut().iter_mut() {
            *v *= 2.0;
        }
        omp::target_update!(to: x);
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..y.len() {
            y[i] += a * x[i];
        }
    }
}

fn check_host_pinned(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..200_000);
    let a: f64 = rng.gen_range(-2.0..2.0);
    let (x0, y0) = (vec_f64(rng, n), vec_f64(rng, n));
    let want_mid: Vec<f64> = y0.iter().zip(&x0).map(|(y, x)| y + a * x).collect();
    let want: Vec<f64> = want_mid.iter().zip(&x0).map(|(y, x)| y + a * (2.0 * x)).collect();
    let want_x: Vec<f64> = x0.iter().map(|x| 2.0 * x).collect();
    let (mut x, mut y) = (omp::HostPinned::new(x0), omp::HostPinned::new(y0));
    let mut mid = Vec::new();
    pinned_steps(a, &mut x, &mut y, &mut mid);
    same("y after the first region", &mid, &want_mid)?;
    same("y", &y, &want)?;
    same("x", &x.into_inner(), &want_x)
}

/// LULESH's `SumElemStressesToNodeForces`-style helper: it fills the eight corner forces of one element.
fn corner_forces(fx: &mut [f64], sig: f64, b: &[f64]) {
    for (j, f) in fx.iter_mut().enumerate() {
        *f = -sig * b[j];
    }
}

/// Each element passes its eight corners to the helper as a subslice, as LULESH's `IntegrateStressForElems` does
/// (`fx_elem[k*8..]`); the last region reads another array's subslice and writes one element.
#[omp::directives]
fn stress_forces(sigxx: &[f64], b: &[f64], fx_host: &mut [f64], fx_dev: &mut [f64], sum: &mut [f64]) {
    let ne = sigxx.len();
    #[omp::parallel_for]
    for k in 0..ne {
        corner_forces(&mut fx_host[k * 8..k * 8 + 8], sigxx[k], &b[k * 8..(k + 1) * 8]);
    }
    #[omp::target_teams_distribute_parallel_for]
    for k in 0..ne {
        corner_forces(&mut fx_dev[8 * k..8 * k + 8], sigxx[k], &b[8 * k..8 * k + 8]);
    }
    #[omp::target_teams_distribute_parallel_for]
    for k in 0..ne {
        let corners = &fx_dev[8 * k..8 * k + 8];
        sum[k] = corners.iter().sum::<f64>();
    }
}

/// Nine corners per element: each subslice reaches into the next element's, so the loop must be refused.
#[omp::directives]
fn overlapping_corners(sigxx: &[f64], b: &[f64], fx: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for k in 0..sigxx.len() {
        corner_forces(&mut fx[8 * k..8 * k + 9], sigxx[k], b);
    }
}

fn check_subslice_helper(rng: &mut StdRng) -> Result<(), String> {
    let ne = rng.gen_range(2..50);
    let (sigxx, b) = (vec_f64(rng, ne), vec_f64(rng, 9));
    let mut fx = vec![-1.0; 8 * ne + 1];
    refused_before_writing("overlapping subslices (fx[8 * k..8 * k + 9])", "fx", &mut fx, |fx| overlapping_corners(&sigxx, &b, fx))?;
    let ne = rng.gen_range(0..500);
    let (sigxx, b) = (vec_f64(rng, ne), vec_f64(rng, 8 * ne));
    let (mut fx_host, mut fx_dev, mut sum) = (vec![0.0; 8 * ne], vec![0.0; 8 * ne], vec![0.0; ne]);
    stress_forces(&sigxx, &b, &mut fx_host, &mut fx_dev, &mut sum);
    let want: Vec<f64> = (0..8 * ne).map(|i| -sigxx[i / 8] * b[i]).collect();
    same("fx (host loop)", &fx_host, &want)?;
    same("fx (target region)", &fx_dev, &want)?;
    let want_sum: Vec<f64> = (0..ne).map(|k| want[8 * k..8 * k + 8].iter().sum()).collect();
    same("sum", &sum, &want_sum)
}

/// A solver's state with its exchange buffers, as miniWeather's MPI version keeps them.
struct Exchange {
    state: Vec<f64>,
    sendbuf: Vec<f64>,
    recvbuf: Vec<f64>,
}

impl Exchange {
    /// One step: pack the halo on the device, bring it to the host without waiting, meet it at `taskwait`, "send" it
    /// (a host copy into the receive buffer, where MPI would exchange them), update the device, unpack.
    #[omp::directives]
    fn step(&mut self, hs: usize) {
        let n = self.state.len();
        let (state, sendbuf, recvbuf) = (&mut self.state, &mut self.sendbuf, &mut self.recvbuf);
        #[omp::target_data(map(tofrom: state), map(alloc: sendbuf, recvbuf))]
        {
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..hs {
                sendbuf[i] = state[n - hs + i];
            }
            omp::target_update!(from: sendbuf, nowait);
            omp::taskwait!();
            recvbuf.host_mut().copy_from_slice(sendbuf.host());
            omp::target_update!(to: recvbuf);
            #[omp::target_teams_distribute_parallel_for]
            for i in 0..hs {
                state[i] += recvbuf[i];
            }
        }
    }
}

fn check_field_halo_exchange(rng: &mut StdRng) -> Result<(), String> {
    let hs = rng.gen_range(1..20);
    let n = hs + rng.gen_range(hs..200);
    let mut e = Exchange { state: vec_f64(rng, n), sendbuf: vec![0.0; hs], recvbuf: vec![0.0; hs] };
    let mut want = e.state.clone();
    for i in 0..hs {
        want[i] += want[n - hs + i];
    }
    e.step(hs);
    same("state", &e.state, &want)?;
    same("recvbuf", &e.recvbuf, &want[n - hs..].to_vec())
}

/// A solver's borrowed views of its arrays, as a port that keeps slices in a struct writes them.
struct Views<'a> {
    x: &'a [f64],
    y: &'a mut [f64],
}

impl Views<'_> {
    #[omp::directives]
    fn axpy(&mut self, a: f64) {
        #[omp::target_teams_distribute_parallel_for]
        for i in 0..self.y.len() {
            self.y[i] += a * self.x[i];
        }
    }
}

/// Points as `[x, y, z]` rows.
#[omp::directives]
fn row_sums(p: &[[f64; 3]], out: &mut [f64]) {
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..out.len() {
        out[i] = p[i][0] + 2.0 * p[i][1] + 3.0 * p[i][2];
    }
}

fn check_slice_struct(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..2000);
    let (x, y0) = (vec_f64(rng, n), vec_f64(rng, n));
    let a: f64 = rng.gen_range(-2.0..2.0);
    let mut y = y0.clone();
    Views { x: &x, y: &mut y }.axpy(a);
    let want: Vec<f64> = (0..n).map(|i| y0[i] + a * x[i]).collect();
    same("y", &y, &want)?;
    let p: Vec<[f64; 3]> = (0..n).map(|_| [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)]).collect();
    let mut out = vec![0.0; n];
    row_sums(&p, &mut out);
    let want: Vec<f64> = p.iter().map(|r| r[0] + 2.0 * r[1] + 3.0 * r[2]).collect();
    same("out", &out, &want)
}

/// HeCBench hausdorff's `computeDistance` (main.cpp:16-33): `reduction(max: distance[0])` over the points of A, each
/// the distance to the nearest point of B.
#[omp::directives]
fn directed_hausdorff(a: &[[f32; 2]], b: &[[f32; 2]], distance: &mut [f32]) {
    #[omp::target_teams_distribute_parallel_for(reduction(max: distance[0]), thread_limit(256))]
    for i in 0..a.len() {
        let mut d = f32::MAX;
        for j in 0..b.len() {
            let (dx, dy) = (a[i][0] - b[j][0], a[i][1] - b[j][1]);
            d = d.min((dx * dx + dy * dy).sqrt());
        }
        distance[0] = distance[0].max(d);
    }
}

/// HeCBench aop's `reduction(+: beta[:3])` (main.cpp:649) inside a data region: three sums over the paths into the
/// device copy of `beta`, which already holds values (they are combined, as OpenMP's reduction does), then
/// read back. `m[1]` gets a host loop's minimum.
#[omp::directives]
fn three_sums(x: &[f64], beta: &mut [f64], m: &mut [i64]) {
    #[omp::target_data(map(to: x), map(tofrom: beta))]
    {
        #[omp::target_teams_distribute_parallel_for(reduction(+: beta[..3]))]
        for p in 0..x.len() {
            beta[0] += x[p];
            beta[1] += x[p] * x[p];
            beta[2] += 1.0;
        }
    }
    #[omp::parallel_for(reduction(min: m[1]))]
    for p in 0..x.len() {
        m[1] = m[1].min((x[p] * 1000.0) as i64 - 7);
    }
}

fn check_element_reductions(rng: &mut StdRng) -> Result<(), String> {
    let (na, nb) = (rng.gen_range(1..300), rng.gen_range(1..300));
    let pts =
        |rng: &mut StdRng, n: usize| -> Vec<[f32; 2]> { (0..n).map(|_| [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)]).collect() };
    let (a, b) = (pts(rng, na), pts(rng, nb));
    let mut distance = vec![0.0f32, 7.5];
    directed_hausdorff(&a, &b, &mut distance);
    // The same distances (each `d` as the kernel computes it); max is exact in any order.
    let nearest = |p: &[f32; 2]| {
        b.iter().fold(f32::MAX, |d, q| {
            let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
            d.min((dx * dx + dy * dy).sqrt())
        })
    };
    let want = a.iter().map(nearest).fold(0.0f32, f32::max);
    same("distance", &distance, &[want, 7.5])?;

    let n = rng.gen_range(0..5000);
    let x = vec_f64(rng, n);
    let mut beta = vec![1.0, 2.0, 3.0, 4.0];
    let mut m = vec![5, 0, 9];
    three_sums(&x, &mut beta, &mut m);
    let (s1, s2): (f64, f64) = (x.iter().sum(), x.iter().map(|v| v * v).sum());
    let close = |got: f64, want: f64| (got - want).abs() <= 1e-9 * want.abs().max(1.0);
    if !(close(beta[0], 1.0 + s1) && close(beta[1], 2.0 + s2) && beta[2] == 3.0 + n as f64 && beta[3] == 4.0) {
        return Err(format!("beta {beta:?}, want [{}, {}, {}, 4]", 1.0 + s1, 2.0 + s2, 3.0 + n as f64));
    }
    let want_min = x.iter().map(|v| (v * 1000.0) as i64 - 7).fold(0i64, i64::min);
    same("m", &m, &[5, want_min, 9])
}

/// The environment variable that makes the suite's binary run [`print_probe`] instead of the checks.
pub const PRINT_PROBE: &str = "OMP_SUITE_PRINT_PROBE";

/// A target region that prints a line per multiple of 7 below `n` (with an `f64` and a `{:>4}` width), then a
/// host line after it: the device's lines come first, as the region has ended.
#[omp::directives]
pub fn print_probe(n: usize) {
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let mut y = vec![0.0; n];
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..n {
        y[i] = 2.0 * x[i];
        if i % 7 == 0 {
            println!("device line {i:>4}: x = {}", x[i]);
        }
    }
    println!("host after the region: {}", y.iter().sum::<f64>());
}

fn check_device_print(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(1..400);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // Without `OMP_RS_CHECK=host`, whose rerun of the region on the host prints every line a second time.
    let out =
        std::process::Command::new(exe).env(PRINT_PROBE, n.to_string()).env_remove("OMP_RS_CHECK").output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("the probe failed: {}\n{text}{}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut device: Vec<String> = lines.iter().filter(|l| l.starts_with("device line")).map(|l| l.to_string()).collect();
    device.sort();
    let mut want: Vec<String> = (0..n).step_by(7).map(|i| format!("device line {i:>4}: x = {}", i as f64 * 0.5)).collect();
    want.sort();
    if device != want {
        return Err(format!("device lines {device:?}, want {want:?}"));
    }
    let total: f64 = (0..n).map(|i| i as f64).sum();
    let last = format!("host after the region: {total}");
    if lines.last() != Some(&last.as_str()) {
        return Err(format!("the host's line after the region is not last: {lines:?}"));
    }
    Ok(())
}

/// OpenMP 5.1's `atomic compare` min / max forms, per bin: the largest and the smallest value of each bin, on the
/// device (`i32`) and on the host (`f64`, the condition written `v > hi[k]`).
#[omp::directives]
fn bin_extremes(v: &[i32], w: &[f64], hi: &mut [i32], lo: &mut [i32], whi: &mut [f64]) {
    let bins = hi.len();
    #[omp::target_teams_distribute_parallel_for]
    for i in 0..v.len() {
        let k = i % bins;
        #[omp::atomic(compare)]
        if hi[k] < v[i] {
            hi[k] = v[i];
        }
        #[omp::atomic(compare)]
        if lo[k] > v[i] {
            lo[k] = v[i];
        }
    }
    #[omp::parallel_for]
    for i in 0..w.len() {
        let k = i % bins;
        #[omp::atomic(compare)]
        if w[i] > whi[k] {
            whi[k] = w[i];
        }
    }
}

fn check_atomic_compare(rng: &mut StdRng) -> Result<(), String> {
    let (n, bins) = (rng.gen_range(0..20_000), rng.gen_range(1..40));
    let v: Vec<i32> = (0..n).map(|_| rng.gen_range(-1_000_000..1_000_000)).collect();
    let w = vec_f64(rng, n);
    let (mut hi, mut lo, mut whi) = (vec![i32::MIN; bins], vec![i32::MAX; bins], vec![f64::NEG_INFINITY; bins]);
    bin_extremes(&v, &w, &mut hi, &mut lo, &mut whi);
    let (mut want_hi, mut want_lo, mut want_whi) = (vec![i32::MIN; bins], vec![i32::MAX; bins], vec![f64::NEG_INFINITY; bins]);
    for i in 0..n {
        let k = i % bins;
        want_hi[k] = want_hi[k].max(v[i]);
        want_lo[k] = want_lo[k].min(v[i]);
        if w[i] > want_whi[k] {
            want_whi[k] = w[i];
        }
    }
    same("hi", &hi, &want_hi)?;
    same("lo", &lo, &want_lo)?;
    same("whi", &whi, &want_whi)
}

/// HeCBench minmax's `MinPair` (`declare reduction(minpair : MinPair : omp_out = min_pair(omp_out, omp_in))`), with
/// RAJAPerf FIRST_MIN's `double` value (the original's `{float; int64_t}` has padding, which a `declare_target`
/// struct may not have): the smallest value and its index, the lowest index among equal values.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinLoc {
    pub val: f64,
    pub idx: i64,
}

#[omp::declare_reduction(identity = MinLoc { val: f64::INFINITY, idx: -1 })]
fn minloc(a: MinLoc, b: MinLoc) -> MinLoc {
    if b.idx >= 0 && (a.idx < 0 || b.val < a.val || (b.val == a.val && b.idx < a.idx)) {
        b
    } else {
        a
    }
}

/// minmax's second reduction: the range of the values in one struct of four fields.
#[omp::declare_target]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: f64,
    pub max: f64,
    pub count: u64,
    pub sum: f64,
}

#[omp::declare_reduction(identity = Range { min: f64::INFINITY, max: f64::NEG_INFINITY, count: 0, sum: 0.0 })]
fn range(a: Range, b: Range) -> Range {
    Range { min: a.min.min(b.min), max: a.max.max(b.max), count: a.count + b.count, sum: a.sum + b.sum }
}

#[omp::directives]
fn min_locations(x: &[f64], y: &[f64]) -> (MinLoc, MinLoc, Range, Range) {
    let mut on_device = MinLoc { val: f64::INFINITY, idx: -1 };
    #[omp::target_teams_distribute_parallel_for(reduction(minloc: on_device))]
    for i in 0..x.len() {
        if x[i] < on_device.val {
            on_device = MinLoc { val: x[i], idx: i as i64 };
        }
    }
    let mut on_host = MinLoc { val: f64::INFINITY, idx: -1 };
    #[omp::parallel_for(reduction(minloc: on_host))]
    for i in 0..x.len() {
        on_host = minloc(on_host, MinLoc { val: x[i], idx: i as i64 });
    }
    // The variable's value before the loop takes part, as in OpenMP.
    let mut device_range = Range { min: 0.5, max: 0.5, count: 1, sum: 0.5 };
    let mut host_range = Range { min: f64::INFINITY, max: f64::NEG_INFINITY, count: 0, sum: 0.0 };
    #[omp::target_data(map(to: y))]
    {
        #[omp::target_teams_distribute_parallel_for(reduction(range: device_range))]
        for i in 0..y.len() {
            device_range.min = device_range.min.min(y[i]);
            device_range.max = device_range.max.max(y[i]);
            device_range.count += 1;
            device_range.sum += y[i];
        }
    }
    #[omp::parallel_for(reduction(range: host_range))]
    for i in 0..y.len() {
        host_range = range(host_range, Range { min: y[i], max: y[i], count: 1, sum: y[i] });
    }
    (on_device, on_host, device_range, host_range)
}

fn check_declare_reduction(rng: &mut StdRng) -> Result<(), String> {
    let n = rng.gen_range(0..20_000);
    // Few distinct values, so that ties decide the index.
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(0..50) as f64 * 0.25).collect();
    let y = vec_f64(rng, n);
    let (on_device, on_host, device_range, host_range) = min_locations(&x, &y);
    let mut want = MinLoc { val: f64::INFINITY, idx: -1 };
    for (i, &v) in x.iter().enumerate() {
        if v < want.val {
            want = MinLoc { val: v, idx: i as i64 };
        }
    }
    same("minloc (target)", &[on_device], &[want])?;
    same("minloc (host)", &[on_host], &[want])?;
    let fold =
        |start: Range| y.iter().fold(start, |r, &v| Range { min: r.min.min(v), max: r.max.max(v), count: r.count + 1, sum: r.sum + v });
    let close = |got: &Range, want: &Range| {
        got.min == want.min
            && got.max == want.max
            && got.count == want.count
            && (got.sum - want.sum).abs() <= 1e-9 * want.sum.abs().max(1.0)
    };
    let want_device = fold(Range { min: 0.5, max: 0.5, count: 1, sum: 0.5 });
    if !close(&device_range, &want_device) {
        return Err(format!("range (target) {device_range:?}, want {want_device:?}"));
    }
    let want_host = fold(Range { min: f64::INFINITY, max: f64::NEG_INFINITY, count: 0, sum: 0.0 });
    if !close(&host_range, &want_host) {
        return Err(format!("range (host) {host_range:?}, want {want_host:?}"));
    }
    Ok(())
}
