//! miniWeather: dry, stratified, compressible, non-hydrostatic 2-D flow (finite volumes, fourth-order stencils with
//! hyperviscosity, dimensionally split low-storage RK3), Matt Norman's mini-app (github mrnorman/miniWeather, commit
//! 7bfd5b4, `c/miniWeather_mpi_openmp45.cpp`: the `cpp/` directory has no OpenMP-offload version), ported as written.
//!
//! The original: `init` splits the x-direction over the MPI ranks, allocates the globals, sets `dt` and fills the
//! state by Gauss-Legendre quadrature of the chosen test case and the hydrostatic background. `main` holds one
//! `target data map(to: state_tmp, hy_*) map(alloc: flux, tend, sendbuf_*, recvbuf_*) map(tofrom: state)` region:
//! `reductions(mass0, te0)` (a `target teams distribute parallel for simd collapse(2) reduction(+: mass, te)` and an
//! `MPI_Allreduce`), `output` at time 0, `taskwait`, then the time loop timed by `std::chrono::steady_clock`
//! (`taskwait` before and after): `perform_timestep` does three `semi_discrete_step`s per direction, x then z or z
//! then x on alternate steps, each `set_halo_values_x/z` + `compute_tendencies_x/z` + the update loop, every loop a
//! `target teams distribute parallel for simd collapse(2|3) depend(inout: asyncid) nowait` (the flux loops with
//! `private(stencil, vals, d3_vals)`); every `output_freq` model seconds `output` brings the state back (`target
//! update from(state) depend nowait` + `taskwait`) and writes it with PnetCDF. At the end `reductions(mass, te)` and
//! `d_mass: %le` / `d_te: %le`, the relative changes of total mass and total energy. Verification is its CMake test,
//! `check_output.sh ./openmp45_test 1e-13 4.5e-5` on the `_test` build (`NX=100 NZ=50 SIM_TIME=400 OUT_FREQ=400
//! DATA_SPEC_THERMAL`): `|d_mass| < 1e-13`, `d_te < 0`, `|d_te| < 4.5e-5`. The port prints `PASS` when these hold.
//!
//! What changed, and why:
//! - One MPI rank, no MPI: `nranks = 1`, `myrank = 0`, `left_rank = right_rank = 0` (the original's formulas),
//!   `MPI_Barrier` dropped, `MPI_Allreduce` of one rank a copy. At one rank the original's `set_halo_values_x`
//!   itself takes its `nranks == 1` branch (the periodic copy as one target loop), kept as written. Its MPI branch
//!   is ported too: the pack loop, `target update from(sendbuf_l, sendbuf_r) nowait` + `taskwait`, the
//!   `Irecv`/`Isend` exchange with left neighbour = right neighbour = this rank, which is a host copy (the message
//!   tagged 0 into `recvbuf_l` is this rank's `sendbuf_r`, the one tagged 1 into `recvbuf_r` its `sendbuf_l`),
//!   `target update to(recvbuf_l, recvbuf_r) nowait`, the unpack loop. `MINIWEATHER_EXCHANGE=1` (port only, for
//!   testing) takes that branch at one rank; it prints the same `d_mass`/`d_te`.
//! - The `_NX`, `_NZ`, `_SIM_TIME`, `_OUT_FREQ`, `_DATA_SPEC` defines are the arguments `nx_glob nz_glob sim_time
//!   output_freq data_spec` (defaults: the CMake defaults `100 50 1000 10 DATA_SPEC_THERMAL`; `data_spec` as the
//!   name or its number), so `dx`, `dz` are computed in `init`. No NetCDF output: `output` keeps the `target update
//!   from(state)` + `taskwait`, the `*** OUTPUT ***` line and the host loop that fills `dens`, `uwnd`, `wwnd`,
//!   `theta`; the file creation and writes are left out. `NO_INFORM` is not defined, as in the original's builds:
//!   `Elapsed Time:` is printed every step.
//! - `device-args` is the configuration of the original's test (400 s, output at 400 s), not the default 1000 s:
//!   with `SIM_TIME=1000` the original itself prints `d_te: 1.005165e-04` (g++ build of the original with one-rank
//!   stubs of `mpi.h`/`pnetcdf.h`), which fails its own check; so does the port, with the same digits. The
//!   thresholds are for the thermal case: the other test cases fail them in the original too (collision 20 s:
//!   `d_te: -5.530413e-04`; injection adds mass).
//! - The C globals: the fixed scalars (`nx`, `nz`, `i_beg`, `k_beg`, `dx`, `dz`, `data_spec_int`, the ranks) are a
//!   `Grid` passed to each kernel function and read into locals before its loops; the `hy_*` arrays and the MPI
//!   buffers are the data region's tokens, passed as parameters of the kernel functions (bundled in `Hydro` and
//!   `Bufs` on the way down through `perform_timestep` and `semi_discrete_step`). C's `int` indices are `usize`;
//!   `(i_beg + i-hs+0.5)*dx` in `init` is `((i_beg + i) as f64 - HS as f64 + 0.5) * dx` (exact either way). The
//!   `constexpr` names are upper case; `pi` is `std::f64::consts::PI` (clippy's deny-by-default `approx_constant`
//!   refuses the literal `3.14159265358979323846264338327`; the same `f64`); `1.e5` is `1.0e5` (Rust syntax); the
//!   other long literals are kept. `%le` is printed C's way (`c_exp`), `std::cout << t` with `g6`.
//! - `semi_discrete_step(state_init, state_forcing, state_out, ...)` is called with aliased pointers, `(state,
//!   state, state_tmp)`, `(state, state_tmp, state_tmp)`, `(state, state_tmp, state)`: one array cannot be a `&` and
//!   a `&mut` token at once. It takes both tokens and which one each pointer argument is, `(State, State, StateTmp)`
//!   etc. (the calls keep the original's order), and its update loop is two functions: `apply_tendencies` (`state_out`
//!   other than `state_init`) and `apply_tendencies_in_place` (the third stage, `state[inds] = state[inds] + dt *
//!   tend[indt]`, the same arithmetic), as HPCCG's port does for `waxpby` with output = input.
//! - Workaround (a race in the original): the update loop, `collapse(3)` over `(ll, k, i)`, adds the gravity-wave
//!   forcing to `tend[ID_WMOM*nz*nx + k*nx + i]` in every `ll` iteration, and iteration `(ID_WMOM, k, i)` reads that
//!   element: omp-rs refuses it, "`tend` is written at `tend[indw]` but also read at `tend[indt]` in this parallel
//!   loop: another iteration may write that element. Keep one index per array, or indices that differ by a
//!   constant (`tend[2 * i]`, `tend[2 * i + 1]`); read inputs from a separate array". This is a data race in every
//!   parallel version of the original (OpenMP, OpenACC, OpenMP offload, YAKL `parallel_for`) when `data_spec` is
//!   `DATA_SPEC_GRAVITY_WAVES` (serially the forcing is added three times before `ll = ID_WMOM` uses it); in the
//!   other cases the branch never runs. The port keeps the loop as written under `unsafe(disjoint(tend))`, a promise
//!   that holds for every case but gravity waves, where the port races as the original does.
//! - Workaround: `state_tmp` is mapped `alloc:` instead of `to:`, refused with "`state_tmp` is mapped `to:` (copied
//!   to the device, never back), but this block writes it: the writes would be lost on a GPU and kept on the host.
//!   Map it `tofrom:` to keep them, copy them back with `omp::target_update!(from: state_tmp)`, or map it `alloc:` if
//!   it is scratch space whose contents after the block do not matter". omp-rs refuses a program whose result
//!   depends on where it ran (and sequential Rust keeps the writes); `alloc:` says that the contents after the block
//!   do not matter. omp-rs's `alloc:` starts from the host data and copies nothing back, so the transfers are the
//!   original's.
//! - As in C, the data region's variables go to the kernel functions as they are (`perform_timestep(state,
//!   state_tmp, flux, tend, ...)`, `reductions(state, ...)` for a function taking `&MappedRef`), and the
//!   `private(stencil, vals, d3_vals)` arrays are declared `let mut` before the loop, as C declares them.
//! - `depend(inout: asyncid)` and `nowait` are kept on every loop and update (omp-rs accepts the `depend` list without
//!   evaluating it and orders regions on common data itself, so `asyncid` is not declared); the `taskwait`s are
//!   `omp::taskwait!()`. Clippy's `identity_op`/`erasing_op` (`+ 0`, `(0)*(nx+2*hs)`), `assign_op_pattern` (`x = x +
//!   e`) and `too_many_arguments` are allowed: the original's forms.
//! - `kernel time:` is the original's `t1`..`t2` span (the time loop between its two `taskwait`s, printed as `CPU
//!   Time:`), in seconds.
//!
//! Checked against the original (built with g++ -O2 and one-rank stubs, sequential): at the test configuration it
//! prints `d_mass: -1.953276e-14`, `d_te: -4.141519e-05`; the port through libomptarget's host plugin prints the
//! same two lines, on the CPU path `d_mass: -2.734587e-15` (another summation order) and the same `d_te`. For each
//! of the five test cases (20 s) the host plugin and the one-thread CPU path print the original's digits.
//!
//! panel-args: 100 50 10 5 DATA_SPEC_THERMAL
//! device-args: 100 50 400 400 DATA_SPEC_THERMAL

// The original's index arithmetic as written: `(0)*(nx+2*hs)`, `+ 0`, `(1)*(nx+2*hs)`.
#![allow(clippy::identity_op, clippy::erasing_op)]
// and its `x = x + e` updates.
#![allow(clippy::assign_op_pattern)]

use omp::{MappedMut, MappedRef};
use std::time::Instant;

const PI: f64 = std::f64::consts::PI; //Pi
const GRAV: f64 = 9.8; //Gravitational acceleration (m / s^2)
const CP: f64 = 1004.; //Specific heat of dry air at constant pressure
const CV: f64 = 717.; //Specific heat of dry air at constant volume
const RD: f64 = 287.; //Dry air constant for equation of state (P=rho*rd*T)
const P0: f64 = 1.0e5; //Standard pressure at the surface in Pascals
#[allow(clippy::excessive_precision)]
const C0: f64 = 27.5629410929725921310572974482; //Constant to translate potential temperature into pressure (P=C0*(rho*theta)**gamma)
#[allow(clippy::excessive_precision)]
const GAMM: f64 = 1.40027894002789400278940027894; //gamma=cp/Rd , have to call this gamm because "gamma" is taken (I hate C so much)
                                                   //Define domain and stability-related constants
const XLEN: f64 = 2.0e4; //Length of the domain in the x-direction (meters)
const ZLEN: f64 = 1.0e4; //Length of the domain in the z-direction (meters)
const HV_BETA: f64 = 0.05; //How strong to diffuse the solution: hv_beta \in [0:1]
const CFL: f64 = 1.50; //"Courant, Friedrichs, Lewy" number (for numerical stability)
const MAX_SPEED: f64 = 450.; //Assumed maximum wave speed during the simulation (speed of sound + speed of wind) (meter / sec)
const HS: usize = 2; //"Halo" size: number of cells beyond the MPI tasks's domain needed for a full "stencil" of information for reconstruction
const STEN_SIZE: usize = 4; //Size of the stencil used for interpolation

//Parameters for indexing and flags
const NUM_VARS: usize = 4; //Number of fluid state variables
const ID_DENS: usize = 0; //index for density ("rho")
const ID_UMOM: usize = 1; //index for momentum in the x-direction ("rho * u")
const ID_WMOM: usize = 2; //index for momentum in the z-direction ("rho * w")
const ID_RHOT: usize = 3; //index for density * potential temperature ("rho * theta")
const DIR_X: i32 = 1; //Integer constant to express that this operation is in the x-direction
const DIR_Z: i32 = 2; //Integer constant to express that this operation is in the z-direction
const DATA_SPEC_COLLISION: i32 = 1;
const DATA_SPEC_THERMAL: i32 = 2;
const DATA_SPEC_GRAVITY_WAVES: i32 = 3;
const DATA_SPEC_DENSITY_CURRENT: i32 = 5;
const DATA_SPEC_INJECTION: i32 = 6;

const NQPOINTS: usize = 3;
#[allow(clippy::excessive_precision)]
const QPOINTS: [f64; 3] = [0.112701665379258311482073460022E0, 0.500000000000000000000000000000E0, 0.887298334620741688517926539980E0];
#[allow(clippy::excessive_precision)]
const QWEIGHTS: [f64; 3] = [0.277777777777777777777777777779E0, 0.444444444444444444444444444444E0, 0.277777777777777777777777777779E0];

/// The C globals that stay fixed over the simulation (`nx`, `nz`, `i_beg`, `k_beg`, the ranks) and the configuration
/// (`dx`, `dz`, `data_spec_int`).
#[derive(Clone, Copy)]
struct Grid {
    nx: usize,
    nz: usize,
    i_beg: usize,
    k_beg: usize,
    dx: f64,
    dz: f64,
    data_spec_int: i32,
    nranks: i32,
    myrank: i32,
    left_rank: i32,
    right_rank: i32,
    mainproc: bool,
    /// Port only: take the MPI branch of `set_halo_values_x` (pack, update from, exchange, update to, unpack) at one rank.
    exchange: bool,
}

/// The C global arrays `hy_*`, as the data region's tokens.
struct Hydro<'r, 's, 'a> {
    dens_cell: &'r MappedRef<'s, 'a, f64>,
    dens_theta_cell: &'r MappedRef<'s, 'a, f64>,
    dens_int: &'r MappedRef<'s, 'a, f64>,
    dens_theta_int: &'r MappedRef<'s, 'a, f64>,
    pressure_int: &'r MappedRef<'s, 'a, f64>,
}

/// The C global MPI buffers, as the data region's tokens.
struct Bufs<'r, 's, 'a> {
    sendbuf_l: &'r mut MappedMut<'s, 'a, f64>,
    sendbuf_r: &'r mut MappedMut<'s, 'a, f64>,
    recvbuf_l: &'r mut MappedMut<'s, 'a, f64>,
    recvbuf_r: &'r mut MappedMut<'s, 'a, f64>,
}

/// Which of the two state arrays a pointer argument of `semi_discrete_step` is.
#[derive(Clone, Copy, PartialEq)]
enum Arr {
    State,
    StateTmp,
}
use Arr::{State, StateTmp};

//How is this not in the standard?!
fn dmin(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `v` as C's `%le` prints it (`1.234568e-05`).
fn c_exp(v: f64) -> String {
    let s = format!("{v:.6e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}

//Performs a single dimensionally split time step using a simple low-storage three-stage Runge-Kutta time integrator
//The dimensional splitting is a second-order-accurate alternating Strang splitting in which the
//order of directions is alternated each time step.
//The Runge-Kutta method used here is defined as follows:
// q*     = q[n] + dt/3 * rhs(q[n])
// q**    = q[n] + dt/2 * rhs(q*  )
// q[n+1] = q[n] + dt/1 * rhs(q** )
#[allow(clippy::too_many_arguments)]
fn perform_timestep<'s, 'a>(
    state: &mut MappedMut<'s, 'a, f64>,
    state_tmp: &mut MappedMut<'s, 'a, f64>,
    flux: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    dt: f64,
    direction_switch: &mut i32,
    hy: &Hydro<'_, '_, '_>,
    bufs: &mut Bufs<'_, '_, '_>,
    g: &Grid,
) {
    if *direction_switch != 0 {
        //x-direction first
        semi_discrete_step(state, state_tmp, (State, State, StateTmp), dt / 3., DIR_X, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, StateTmp), dt / 2., DIR_X, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, State), dt / 1., DIR_X, flux, tend, hy, bufs, g);
        //z-direction second
        semi_discrete_step(state, state_tmp, (State, State, StateTmp), dt / 3., DIR_Z, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, StateTmp), dt / 2., DIR_Z, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, State), dt / 1., DIR_Z, flux, tend, hy, bufs, g);
    } else {
        //z-direction second
        semi_discrete_step(state, state_tmp, (State, State, StateTmp), dt / 3., DIR_Z, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, StateTmp), dt / 2., DIR_Z, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, State), dt / 1., DIR_Z, flux, tend, hy, bufs, g);
        //x-direction first
        semi_discrete_step(state, state_tmp, (State, State, StateTmp), dt / 3., DIR_X, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, StateTmp), dt / 2., DIR_X, flux, tend, hy, bufs, g);
        semi_discrete_step(state, state_tmp, (State, StateTmp, State), dt / 1., DIR_X, flux, tend, hy, bufs, g);
    }
    if *direction_switch != 0 {
        *direction_switch = 0;
    } else {
        *direction_switch = 1;
    }
}

//Perform a single semi-discretized step in time with the form:
//state_out = state_init + dt * rhs(state_forcing)
//Meaning the step starts from state_init, computes the rhs using state_forcing, and stores the result in state_out
#[allow(clippy::too_many_arguments)]
fn semi_discrete_step<'s, 'a>(
    state: &mut MappedMut<'s, 'a, f64>,
    state_tmp: &mut MappedMut<'s, 'a, f64>,
    (state_init, state_forcing, state_out): (Arr, Arr, Arr),
    dt: f64,
    dir: i32,
    flux: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    hy: &Hydro<'_, '_, '_>,
    bufs: &mut Bufs<'_, '_, '_>,
    g: &Grid,
) {
    {
        let state_forcing: &mut MappedMut<'s, 'a, f64> = if state_forcing == State { state } else { state_tmp };
        if dir == DIR_X {
            //Set the halo values for this MPI task's fluid state in the x-direction
            set_halo_values_x(
                state_forcing,
                bufs.sendbuf_l,
                bufs.sendbuf_r,
                bufs.recvbuf_l,
                bufs.recvbuf_r,
                hy.dens_cell,
                hy.dens_theta_cell,
                g,
            );
            //Compute the time tendencies for the fluid state in the x-direction
            compute_tendencies_x(state_forcing, flux, tend, dt, hy.dens_cell, hy.dens_theta_cell, g);
        } else if dir == DIR_Z {
            //Set the halo values for this MPI task's fluid state in the z-direction
            set_halo_values_z(state_forcing, hy.dens_cell, g);
            //Compute the time tendencies for the fluid state in the z-direction
            compute_tendencies_z(state_forcing, flux, tend, dt, hy.dens_int, hy.dens_theta_int, hy.pressure_int, g);
        }
    }

    //Apply the tendencies to the fluid state
    match (state_init, state_out) {
        (State, StateTmp) => apply_tendencies(state, state_tmp, tend, dt, hy.dens_cell, g),
        (StateTmp, State) => apply_tendencies(state_tmp, state, tend, dt, hy.dens_cell, g),
        (State, State) => apply_tendencies_in_place(state, tend, dt, hy.dens_cell, g),
        (StateTmp, StateTmp) => apply_tendencies_in_place(state_tmp, tend, dt, hy.dens_cell, g),
    }
}

/// The last loop of `semi_discrete_step`, for `state_out` != `state_init`.
#[omp::directives]
fn apply_tendencies(
    state_init: &MappedRef<'_, '_, f64>,
    state_out: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    dt: f64,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
) {
    let (nx, nz, dx, dz) = (g.nx, g.nz, g.dx, g.dz);
    let (i_beg, k_beg, data_spec_int) = (g.i_beg, g.k_beg, g.data_spec_int);
    #[omp::target_teams_distribute_parallel_for_simd(collapse(3), unsafe(disjoint(tend)), depend(inout: asyncid), nowait)]
    for ll in 0..NUM_VARS {
        for k in 0..nz {
            for i in 0..nx {
                if data_spec_int == DATA_SPEC_GRAVITY_WAVES {
                    let x = ((i_beg + i) as f64 + 0.5) * dx;
                    let z = ((k_beg + k) as f64 + 0.5) * dz;
                    let wpert: f64;
                    // Using sample_ellipse_cosine requires "acc routine" in OpenACC and "declare target" in OpenMP offload
                    // Neither of these are particularly well supported. So I'm manually inlining here
                    // wpert = sample_ellipse_cosine( x,z , 0.01 , xlen/8,1000., 500.,500. );
                    {
                        let x0 = XLEN / 8.;
                        let z0 = 1000.;
                        let xrad = 500.;
                        let zrad = 500.;
                        let amp = 0.01;
                        //Compute distance from bubble center
                        let dist = (((x - x0) / xrad) * ((x - x0) / xrad) + ((z - z0) / zrad) * ((z - z0) / zrad)).sqrt() * PI / 2.;
                        //If the distance from bubble center is less than the radius, create a cos**2 profile
                        if dist <= PI / 2. {
                            wpert = amp * dist.cos().powf(2.);
                        } else {
                            wpert = 0.;
                        }
                    }
                    let indw = ID_WMOM * nz * nx + k * nx + i;
                    tend[indw] += wpert * hy_dens_cell[HS + k];
                }
                let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
                let indt = ll * nz * nx + k * nx + i;
                state_out[inds] = state_init[inds] + dt * tend[indt];
            }
        }
    }
}

/// The last loop of `semi_discrete_step`, for `state_out` == `state_init` (the third stage of each direction).
#[omp::directives]
fn apply_tendencies_in_place(
    state: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    dt: f64,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
) {
    let (nx, nz, dx, dz) = (g.nx, g.nz, g.dx, g.dz);
    let (i_beg, k_beg, data_spec_int) = (g.i_beg, g.k_beg, g.data_spec_int);
    #[omp::target_teams_distribute_parallel_for_simd(collapse(3), unsafe(disjoint(tend)), depend(inout: asyncid), nowait)]
    for ll in 0..NUM_VARS {
        for k in 0..nz {
            for i in 0..nx {
                if data_spec_int == DATA_SPEC_GRAVITY_WAVES {
                    let x = ((i_beg + i) as f64 + 0.5) * dx;
                    let z = ((k_beg + k) as f64 + 0.5) * dz;
                    let wpert: f64;
                    // Using sample_ellipse_cosine requires "acc routine" in OpenACC and "declare target" in OpenMP offload
                    // Neither of these are particularly well supported. So I'm manually inlining here
                    // wpert = sample_ellipse_cosine( x,z , 0.01 , xlen/8,1000., 500.,500. );
                    {
                        let x0 = XLEN / 8.;
                        let z0 = 1000.;
                        let xrad = 500.;
                        let zrad = 500.;
                        let amp = 0.01;
                        //Compute distance from bubble center
                        let dist = (((x - x0) / xrad) * ((x - x0) / xrad) + ((z - z0) / zrad) * ((z - z0) / zrad)).sqrt() * PI / 2.;
                        //If the distance from bubble center is less than the radius, create a cos**2 profile
                        if dist <= PI / 2. {
                            wpert = amp * dist.cos().powf(2.);
                        } else {
                            wpert = 0.;
                        }
                    }
                    let indw = ID_WMOM * nz * nx + k * nx + i;
                    tend[indw] += wpert * hy_dens_cell[HS + k];
                }
                let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
                let indt = ll * nz * nx + k * nx + i;
                state[inds] = state[inds] + dt * tend[indt];
            }
        }
    }
}

//Compute the time tendencies of the fluid state using forcing in the x-direction
//Since the halos are set in a separate routine, this will not require MPI
//First, compute the flux vector at each cell interface in the x-direction (including hyperviscosity)
//Then, compute the tendencies using those fluxes
#[omp::directives]
fn compute_tendencies_x(
    state: &MappedRef<'_, '_, f64>,
    flux: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    dt: f64,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    hy_dens_theta_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
) {
    let (nx, nz, dx) = (g.nx, g.nz, g.dx);
    let mut stencil = [0.0f64; 4];
    let mut d3_vals = [0.0f64; NUM_VARS];
    let mut vals = [0.0f64; NUM_VARS];
    //Compute the hyperviscosity coefficient
    let hv_coef = -HV_BETA * dx / (16. * dt);
    //Compute fluxes in the x-direction for each cell
    #[omp::target_teams_distribute_parallel_for_simd(collapse(2), private(stencil, vals, d3_vals), depend(inout: asyncid), nowait)]
    for k in 0..nz {
        for i in 0..nx + 1 {
            //Use fourth-order interpolation from four cell averages to compute the value at the interface in question
            for ll in 0..NUM_VARS {
                for s in 0..STEN_SIZE {
                    let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + s;
                    stencil[s] = state[inds];
                }
                //Fourth-order-accurate interpolation of the state
                vals[ll] = -stencil[0] / 12. + 7. * stencil[1] / 12. + 7. * stencil[2] / 12. - stencil[3] / 12.;
                //First-order-accurate interpolation of the third spatial derivative of the state (for artificial viscosity)
                d3_vals[ll] = -stencil[0] + 3. * stencil[1] - 3. * stencil[2] + stencil[3];
            }

            //Compute density, u-wind, w-wind, potential temperature, and pressure (r,u,w,t,p respectively)
            let r = vals[ID_DENS] + hy_dens_cell[k + HS];
            let u = vals[ID_UMOM] / r;
            let w = vals[ID_WMOM] / r;
            let t = (vals[ID_RHOT] + hy_dens_theta_cell[k + HS]) / r;
            let p = C0 * (r * t).powf(GAMM);

            //Compute the flux vector
            flux[ID_DENS * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * u - hv_coef * d3_vals[ID_DENS];
            flux[ID_UMOM * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * u * u + p - hv_coef * d3_vals[ID_UMOM];
            flux[ID_WMOM * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * u * w - hv_coef * d3_vals[ID_WMOM];
            flux[ID_RHOT * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * u * t - hv_coef * d3_vals[ID_RHOT];
        }
    }

    //Use the fluxes to compute tendencies for each cell
    #[omp::target_teams_distribute_parallel_for_simd(collapse(3), depend(inout: asyncid), nowait)]
    for ll in 0..NUM_VARS {
        for k in 0..nz {
            for i in 0..nx {
                let indt = ll * nz * nx + k * nx + i;
                let indf1 = ll * (nz + 1) * (nx + 1) + k * (nx + 1) + i;
                let indf2 = ll * (nz + 1) * (nx + 1) + k * (nx + 1) + i + 1;
                tend[indt] = -(flux[indf2] - flux[indf1]) / dx;
            }
        }
    }
}

//Compute the time tendencies of the fluid state using forcing in the z-direction
//Since the halos are set in a separate routine, this will not require MPI
//First, compute the flux vector at each cell interface in the z-direction (including hyperviscosity)
//Then, compute the tendencies using those fluxes
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn compute_tendencies_z(
    state: &MappedRef<'_, '_, f64>,
    flux: &mut MappedMut<'_, '_, f64>,
    tend: &mut MappedMut<'_, '_, f64>,
    dt: f64,
    hy_dens_int: &MappedRef<'_, '_, f64>,
    hy_dens_theta_int: &MappedRef<'_, '_, f64>,
    hy_pressure_int: &MappedRef<'_, '_, f64>,
    g: &Grid,
) {
    let (nx, nz, dz) = (g.nx, g.nz, g.dz);
    let mut stencil = [0.0f64; 4];
    let mut d3_vals = [0.0f64; NUM_VARS];
    let mut vals = [0.0f64; NUM_VARS];
    //Compute the hyperviscosity coefficient
    let hv_coef = -HV_BETA * dz / (16. * dt);
    //Compute fluxes in the x-direction for each cell
    #[omp::target_teams_distribute_parallel_for_simd(collapse(2), private(stencil, vals, d3_vals), depend(inout: asyncid), nowait)]
    for k in 0..nz + 1 {
        for i in 0..nx {
            //Use fourth-order interpolation from four cell averages to compute the value at the interface in question
            for ll in 0..NUM_VARS {
                for s in 0..STEN_SIZE {
                    let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + s) * (nx + 2 * HS) + i + HS;
                    stencil[s] = state[inds];
                }
                //Fourth-order-accurate interpolation of the state
                vals[ll] = -stencil[0] / 12. + 7. * stencil[1] / 12. + 7. * stencil[2] / 12. - stencil[3] / 12.;
                //First-order-accurate interpolation of the third spatial derivative of the state
                d3_vals[ll] = -stencil[0] + 3. * stencil[1] - 3. * stencil[2] + stencil[3];
            }

            //Compute density, u-wind, w-wind, potential temperature, and pressure (r,u,w,t,p respectively)
            let r = vals[ID_DENS] + hy_dens_int[k];
            let u = vals[ID_UMOM] / r;
            let mut w = vals[ID_WMOM] / r;
            let t = (vals[ID_RHOT] + hy_dens_theta_int[k]) / r;
            let p = C0 * (r * t).powf(GAMM) - hy_pressure_int[k];
            //Enforce vertical boundary condition and exact mass conservation
            if k == 0 || k == nz {
                w = 0.;
                d3_vals[ID_DENS] = 0.;
            }

            //Compute the flux vector with hyperviscosity
            flux[ID_DENS * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * w - hv_coef * d3_vals[ID_DENS];
            flux[ID_UMOM * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * w * u - hv_coef * d3_vals[ID_UMOM];
            flux[ID_WMOM * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * w * w + p - hv_coef * d3_vals[ID_WMOM];
            flux[ID_RHOT * (nz + 1) * (nx + 1) + k * (nx + 1) + i] = r * w * t - hv_coef * d3_vals[ID_RHOT];
        }
    }

    //Use the fluxes to compute tendencies for each cell
    #[omp::target_teams_distribute_parallel_for_simd(collapse(3), depend(inout: asyncid), nowait)]
    for ll in 0..NUM_VARS {
        for k in 0..nz {
            for i in 0..nx {
                let indt = ll * nz * nx + k * nx + i;
                let indf1 = ll * (nz + 1) * (nx + 1) + (k) * (nx + 1) + i;
                let indf2 = ll * (nz + 1) * (nx + 1) + (k + 1) * (nx + 1) + i;
                tend[indt] = -(flux[indf2] - flux[indf1]) / dz;
                if ll == ID_WMOM {
                    let inds = ID_DENS * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
                    tend[indt] = tend[indt] - state[inds] * GRAV;
                }
            }
        }
    }
}

//Set this MPI task's halo values in the x-direction. This routine will require MPI
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn set_halo_values_x(
    state: &mut MappedMut<'_, '_, f64>,
    sendbuf_l: &mut MappedMut<'_, '_, f64>,
    sendbuf_r: &mut MappedMut<'_, '_, f64>,
    recvbuf_l: &mut MappedMut<'_, '_, f64>,
    recvbuf_r: &mut MappedMut<'_, '_, f64>,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    hy_dens_theta_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
) {
    let (nx, nz) = (g.nx, g.nz);
    let (k_beg, dz, data_spec_int) = (g.k_beg, g.dz, g.data_spec_int);

    if g.nranks == 1 && !g.exchange {
        #[omp::target_teams_distribute_parallel_for_simd(collapse(2), depend(inout: asyncid), nowait)]
        for ll in 0..NUM_VARS {
            for k in 0..nz {
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + 0] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + HS - 2];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + 1] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + HS - 1];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + HS] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + HS];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + HS + 1] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + HS + 1];
            }
        }
    } else {
        //Prepost receives: MPI_Irecv(recvbuf_l, .., left_rank, 0, ..), MPI_Irecv(recvbuf_r, .., right_rank, 1, ..)

        //Pack the send buffers
        #[omp::target_teams_distribute_parallel_for_simd(collapse(3), depend(inout: asyncid), nowait)]
        for ll in 0..NUM_VARS {
            for k in 0..nz {
                for s in 0..HS {
                    sendbuf_l[ll * nz * HS + k * HS + s] = state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + HS + s];
                    sendbuf_r[ll * nz * HS + k * HS + s] = state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + s];
                }
            }
        }

        omp::target_update!(from: sendbuf_l[0..nz * HS * NUM_VARS], sendbuf_r[0..nz * HS * NUM_VARS], depend(inout: asyncid), nowait);
        omp::taskwait!();

        //Fire off the sends: MPI_Isend(sendbuf_l, .., left_rank, 1, ..), MPI_Isend(sendbuf_r, .., right_rank, 0, ..)
        //Wait for receives to finish. One rank: left_rank == right_rank == myrank, so the message tagged 0 into
        //recvbuf_l is this rank's sendbuf_r and the one tagged 1 into recvbuf_r its sendbuf_l.
        assert!(g.left_rank == g.myrank && g.right_rank == g.myrank);
        recvbuf_l.host_mut().copy_from_slice(sendbuf_r.host());
        recvbuf_r.host_mut().copy_from_slice(sendbuf_l.host());

        omp::target_update!(to: recvbuf_l[0..nz * HS * NUM_VARS], recvbuf_r[0..nz * HS * NUM_VARS], depend(inout: asyncid), nowait);

        //Unpack the receive buffers
        #[omp::target_teams_distribute_parallel_for_simd(collapse(3), depend(inout: asyncid), nowait)]
        for ll in 0..NUM_VARS {
            for k in 0..nz {
                for s in 0..HS {
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + s] = recvbuf_l[ll * nz * HS + k * HS + s];
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + nx + HS + s] =
                        recvbuf_r[ll * nz * HS + k * HS + s];
                }
            }
        }

        //Wait for sends to finish: MPI_Waitall(2, req_s, ..)
    }

    if data_spec_int == DATA_SPEC_INJECTION && g.myrank == 0 {
        #[omp::target_teams_distribute_parallel_for_simd(collapse(2), depend(inout: asyncid), nowait)]
        for k in 0..nz {
            for i in 0..HS {
                let z = ((k_beg + k) as f64 + 0.5) * dz;
                if (z - 3. * ZLEN / 4.).abs() <= ZLEN / 16. {
                    let ind_r = ID_DENS * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i;
                    let ind_u = ID_UMOM * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i;
                    let ind_t = ID_RHOT * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i;
                    state[ind_u] = (state[ind_r] + hy_dens_cell[k + HS]) * 50.;
                    state[ind_t] = (state[ind_r] + hy_dens_cell[k + HS]) * 298. - hy_dens_theta_cell[k + HS];
                }
            }
        }
    }
}

//Set this MPI task's halo values in the z-direction. This does not require MPI because there is no MPI
//decomposition in the vertical direction
#[omp::directives]
fn set_halo_values_z(state: &mut MappedMut<'_, '_, f64>, hy_dens_cell: &MappedRef<'_, '_, f64>, g: &Grid) {
    let (nx, nz) = (g.nx, g.nz);
    #[omp::target_teams_distribute_parallel_for_simd(collapse(2), depend(inout: asyncid), nowait)]
    for ll in 0..NUM_VARS {
        for i in 0..nx + 2 * HS {
            if ll == ID_WMOM {
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (0) * (nx + 2 * HS) + i] = 0.;
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (1) * (nx + 2 * HS) + i] = 0.;
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS) * (nx + 2 * HS) + i] = 0.;
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS + 1) * (nx + 2 * HS) + i] = 0.;
            } else if ll == ID_UMOM {
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (0) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (HS) * (nx + 2 * HS) + i] / hy_dens_cell[HS] * hy_dens_cell[0];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (1) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (HS) * (nx + 2 * HS) + i] / hy_dens_cell[HS] * hy_dens_cell[1];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS - 1) * (nx + 2 * HS) + i] / hy_dens_cell[nz + HS - 1]
                        * hy_dens_cell[nz + HS];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS + 1) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS - 1) * (nx + 2 * HS) + i] / hy_dens_cell[nz + HS - 1]
                        * hy_dens_cell[nz + HS + 1];
            } else {
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (0) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (HS) * (nx + 2 * HS) + i];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (1) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (HS) * (nx + 2 * HS) + i];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS - 1) * (nx + 2 * HS) + i];
                state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS + 1) * (nx + 2 * HS) + i] =
                    state[ll * (nz + 2 * HS) * (nx + 2 * HS) + (nz + HS - 1) * (nx + 2 * HS) + i];
            }
        }
    }
}

/// The arrays `init` allocates (the C globals).
struct Fields {
    state: Vec<f64>,
    state_tmp: Vec<f64>,
    flux: Vec<f64>,
    tend: Vec<f64>,
    hy_dens_cell: Vec<f64>,
    hy_dens_theta_cell: Vec<f64>,
    hy_dens_int: Vec<f64>,
    hy_dens_theta_int: Vec<f64>,
    hy_pressure_int: Vec<f64>,
    sendbuf_l: Vec<f64>,
    sendbuf_r: Vec<f64>,
    recvbuf_l: Vec<f64>,
    recvbuf_r: Vec<f64>,
}

/// The initial state of one data specification at `(x, z)`.
#[allow(clippy::too_many_arguments)]
fn sample(data_spec_int: i32, x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    if data_spec_int == DATA_SPEC_COLLISION {
        collision(x, z, r, u, w, t, hr, ht);
    }
    if data_spec_int == DATA_SPEC_THERMAL {
        thermal(x, z, r, u, w, t, hr, ht);
    }
    if data_spec_int == DATA_SPEC_GRAVITY_WAVES {
        gravity_waves(x, z, r, u, w, t, hr, ht);
    }
    if data_spec_int == DATA_SPEC_DENSITY_CURRENT {
        density_current(x, z, r, u, w, t, hr, ht);
    }
    if data_spec_int == DATA_SPEC_INJECTION {
        injection(x, z, r, u, w, t, hr, ht);
    }
}

/// `init`: the one rank's share of the domain, the arrays, `dt`, the initial state and the hydrostatic background.
fn init(nx_glob: usize, nz_glob: usize, data_spec_int: i32, exchange: bool) -> (Grid, f64, Fields) {
    // MPI_Init, MPI_Comm_size, MPI_Comm_rank: one rank.
    let nranks: i32 = 1;
    let myrank: i32 = 0;
    let nper = (nx_glob as f64) / f64::from(nranks);
    let i_beg = (nper * f64::from(myrank)).round() as usize;
    let i_end = (nper * f64::from(myrank + 1)).round() as usize - 1;
    let nx = i_end - i_beg + 1;
    let mut left_rank = myrank - 1;
    if left_rank == -1 {
        left_rank = nranks - 1;
    }
    let mut right_rank = myrank + 1;
    if right_rank == nranks {
        right_rank = 0;
    }

    //Vertical direction isn't MPI-ized, so the rank's local values = the global values
    let k_beg = 0;
    let nz = nz_glob;
    let mainproc = myrank == 0;
    let dx = XLEN / nx_glob as f64; // grid spacing in the x-direction
    let dz = ZLEN / nz_glob as f64; // grid spacing in the x-direction
    let g = Grid { nx, nz, i_beg, k_beg, dx, dz, data_spec_int, nranks, myrank, left_rank, right_rank, mainproc, exchange };

    //Allocate the model data
    let mut f = Fields {
        state: vec![0.0; (nx + 2 * HS) * (nz + 2 * HS) * NUM_VARS],
        state_tmp: vec![0.0; (nx + 2 * HS) * (nz + 2 * HS) * NUM_VARS],
        flux: vec![0.0; (nx + 1) * (nz + 1) * NUM_VARS],
        tend: vec![0.0; nx * nz * NUM_VARS],
        hy_dens_cell: vec![0.0; nz + 2 * HS],
        hy_dens_theta_cell: vec![0.0; nz + 2 * HS],
        hy_dens_int: vec![0.0; nz + 1],
        hy_dens_theta_int: vec![0.0; nz + 1],
        hy_pressure_int: vec![0.0; nz + 1],
        sendbuf_l: vec![0.0; HS * nz * NUM_VARS],
        sendbuf_r: vec![0.0; HS * nz * NUM_VARS],
        recvbuf_l: vec![0.0; HS * nz * NUM_VARS],
        recvbuf_r: vec![0.0; HS * nz * NUM_VARS],
    };

    //Define the maximum stable time step based on an assumed maximum wind speed
    let dt = dmin(dx, dz) / MAX_SPEED * CFL;

    //If I'm the main process in MPI, display some grid information
    if mainproc {
        println!("nx_glob, nz_glob: {nx_glob} {nz_glob}");
        println!("dx,dz: {dx:.6} {dz:.6}");
        println!("dt: {dt:.6}");
    }

    let (mut r, mut u, mut w, mut t, mut hr, mut ht) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let state = &mut f.state;

    //////////////////////////////////////////////////////////////////////////
    // Initialize the cell-averaged fluid state via Gauss-Legendre quadrature
    //////////////////////////////////////////////////////////////////////////
    for k in 0..nz + 2 * HS {
        for i in 0..nx + 2 * HS {
            //Initialize the state to zero
            for ll in 0..NUM_VARS {
                let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                state[inds] = 0.;
            }
            //Use Gauss-Legendre quadrature to initialize a hydrostatic balance + temperature perturbation
            for kk in 0..NQPOINTS {
                for ii in 0..NQPOINTS {
                    //Compute the x,z location within the global domain based on cell and quadrature index
                    let x = ((i_beg + i) as f64 - HS as f64 + 0.5) * dx + (QPOINTS[ii] - 0.5) * dx;
                    let z = ((k_beg + k) as f64 - HS as f64 + 0.5) * dz + (QPOINTS[kk] - 0.5) * dz;

                    //Set the fluid state based on the user's specification
                    sample(data_spec_int, x, z, &mut r, &mut u, &mut w, &mut t, &mut hr, &mut ht);

                    //Store into the fluid state array
                    let mut inds = ID_DENS * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                    state[inds] = state[inds] + r * QWEIGHTS[ii] * QWEIGHTS[kk];
                    inds = ID_UMOM * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                    state[inds] = state[inds] + (r + hr) * u * QWEIGHTS[ii] * QWEIGHTS[kk];
                    inds = ID_WMOM * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                    state[inds] = state[inds] + (r + hr) * w * QWEIGHTS[ii] * QWEIGHTS[kk];
                    inds = ID_RHOT * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                    state[inds] = state[inds] + ((r + hr) * (t + ht) - hr * ht) * QWEIGHTS[ii] * QWEIGHTS[kk];
                }
            }
            for ll in 0..NUM_VARS {
                let inds = ll * (nz + 2 * HS) * (nx + 2 * HS) + k * (nx + 2 * HS) + i;
                f.state_tmp[inds] = state[inds];
            }
        }
    }
    //Compute the hydrostatic background state over vertical cell averages
    for k in 0..nz + 2 * HS {
        f.hy_dens_cell[k] = 0.;
        f.hy_dens_theta_cell[k] = 0.;
        for kk in 0..NQPOINTS {
            let z = ((k_beg + k) as f64 - HS as f64 + 0.5) * dz;
            //Set the fluid state based on the user's specification
            sample(data_spec_int, 0., z, &mut r, &mut u, &mut w, &mut t, &mut hr, &mut ht);
            f.hy_dens_cell[k] = f.hy_dens_cell[k] + hr * QWEIGHTS[kk];
            f.hy_dens_theta_cell[k] = f.hy_dens_theta_cell[k] + hr * ht * QWEIGHTS[kk];
        }
    }
    //Compute the hydrostatic background state at vertical cell interfaces
    for k in 0..nz + 1 {
        let z = ((k_beg + k) as f64) * dz;
        sample(data_spec_int, 0., z, &mut r, &mut u, &mut w, &mut t, &mut hr, &mut ht);
        f.hy_dens_int[k] = hr;
        f.hy_dens_theta_int[k] = hr * ht;
        f.hy_pressure_int[k] = C0 * (hr * ht).powf(GAMM);
    }
    (g, dt, f)
}

//This test case is initially balanced but injects fast, cold air from the left boundary near the model top
//x and z are input coordinates at which to sample
//r,u,w,t are output density, u-wind, w-wind, and potential temperature at that location
//hr and ht are output background hydrostatic density and potential temperature at that location
#[allow(clippy::too_many_arguments)]
fn injection(_x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    hydro_const_theta(z, hr, ht);
    *r = 0.;
    *t = 0.;
    *u = 0.;
    *w = 0.;
}

//Initialize a density current (falling cold thermal that propagates along the model bottom)
//x and z are input coordinates at which to sample
//r,u,w,t are output density, u-wind, w-wind, and potential temperature at that location
//hr and ht are output background hydrostatic density and potential temperature at that location
#[allow(clippy::too_many_arguments)]
fn density_current(x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    hydro_const_theta(z, hr, ht);
    *r = 0.;
    *t = 0.;
    *u = 0.;
    *w = 0.;
    *t = *t + sample_ellipse_cosine(x, z, -20., XLEN / 2., 5000., 4000., 2000.);
}

//x and z are input coordinates at which to sample
//r,u,w,t are output density, u-wind, w-wind, and potential temperature at that location
//hr and ht are output background hydrostatic density and potential temperature at that location
#[allow(clippy::too_many_arguments)]
fn gravity_waves(_x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    hydro_const_bvfreq(z, 0.02, hr, ht);
    *r = 0.;
    *t = 0.;
    *u = 15.;
    *w = 0.;
}

//Rising thermal
//x and z are input coordinates at which to sample
//r,u,w,t are output density, u-wind, w-wind, and potential temperature at that location
//hr and ht are output background hydrostatic density and potential temperature at that location
#[allow(clippy::too_many_arguments)]
fn thermal(x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    hydro_const_theta(z, hr, ht);
    *r = 0.;
    *t = 0.;
    *u = 0.;
    *w = 0.;
    *t = *t + sample_ellipse_cosine(x, z, 3., XLEN / 2., 2000., 2000., 2000.);
}

//Colliding thermals
//x and z are input coordinates at which to sample
//r,u,w,t are output density, u-wind, w-wind, and potential temperature at that location
//hr and ht are output background hydrostatic density and potential temperature at that location
#[allow(clippy::too_many_arguments)]
fn collision(x: f64, z: f64, r: &mut f64, u: &mut f64, w: &mut f64, t: &mut f64, hr: &mut f64, ht: &mut f64) {
    hydro_const_theta(z, hr, ht);
    *r = 0.;
    *t = 0.;
    *u = 0.;
    *w = 0.;
    *t = *t + sample_ellipse_cosine(x, z, 20., XLEN / 2., 2000., 2000., 2000.);
    *t = *t + sample_ellipse_cosine(x, z, -20., XLEN / 2., 8000., 2000., 2000.);
}

//Establish hydrostatic balance using constant potential temperature (thermally neutral atmosphere)
//z is the input coordinate
//r and t are the output background hydrostatic density and potential temperature
fn hydro_const_theta(z: f64, r: &mut f64, t: &mut f64) {
    let theta0 = 300.; //Background potential temperature
    let exner0 = 1.; //Surface-level Exner pressure
                     //Establish hydrostatic balance first using Exner pressure
    *t = theta0; //Potential Temperature at z
    let exner = exner0 - GRAV * z / (CP * theta0); //Exner pressure at z
    let p = P0 * exner.powf(CP / RD); //Pressure at z
    let rt = (p / C0).powf(1. / GAMM); //rho*theta at z
    *r = rt / *t; //Density at z
}

//Establish hydrostatic balance using constant Brunt-Vaisala frequency
//z is the input coordinate
//bv_freq0 is the constant Brunt-Vaisala frequency
//r and t are the output background hydrostatic density and potential temperature
fn hydro_const_bvfreq(z: f64, bv_freq0: f64, r: &mut f64, t: &mut f64) {
    let theta0 = 300.; //Background potential temperature
    let exner0 = 1.; //Surface-level Exner pressure
    *t = theta0 * (bv_freq0 * bv_freq0 / GRAV * z).exp(); //Pot temp at z
    let exner = exner0 - GRAV * GRAV / (CP * bv_freq0 * bv_freq0) * (*t - theta0) / (*t * theta0); //Exner pressure at z
    let p = P0 * exner.powf(CP / RD); //Pressure at z
    let rt = (p / C0).powf(1. / GAMM); //rho*theta at z
    *r = rt / *t; //Density at z
}

//Sample from an ellipse of a specified center, radius, and amplitude at a specified location
//x and z are input coordinates
//amp,x0,z0,xrad,zrad are input amplitude, center, and radius of the ellipse
fn sample_ellipse_cosine(x: f64, z: f64, amp: f64, x0: f64, z0: f64, xrad: f64, zrad: f64) -> f64 {
    //Compute distance from bubble center
    let dist = (((x - x0) / xrad) * ((x - x0) / xrad) + ((z - z0) / zrad) * ((z - z0) / zrad)).sqrt() * PI / 2.;
    //If the distance from bubble center is less than the radius, create a cos**2 profile
    if dist <= PI / 2. {
        amp * dist.cos().powf(2.)
    } else {
        0.
    }
}

//Output the fluid state (state) to a NetCDF file at a given elapsed model time (etime)
//The port writes no file: it brings the state back and fills the temporary arrays as the original does.
#[omp::directives]
fn output(
    state: &mut MappedMut<'_, '_, f64>,
    _etime: f64,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    hy_dens_theta_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
    num_out: &mut i32,
) {
    let (nx, nz) = (g.nx, g.nz);
    omp::target_update!(from: state[0..(nz + 2 * HS) * (nx + 2 * HS) * NUM_VARS], depend(inout: asyncid), nowait);
    omp::taskwait!();

    //Inform the user
    if g.mainproc {
        println!("*** OUTPUT ***");
    }
    //Allocate some (big) temp arrays
    let mut dens = vec![0.0f64; nx * nz];
    let mut uwnd = vec![0.0f64; nx * nz];
    let mut wwnd = vec![0.0f64; nx * nz];
    let mut theta = vec![0.0f64; nx * nz];

    //(The original creates or opens output.nc here.)

    let (state, hy_dens_cell, hy_dens_theta_cell) = (state.host(), hy_dens_cell.host(), hy_dens_theta_cell.host());
    //Store perturbed values in the temp arrays for output
    for k in 0..nz {
        for i in 0..nx {
            let ind_r = ID_DENS * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_u = ID_UMOM * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_w = ID_WMOM * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_t = ID_RHOT * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            dens[k * nx + i] = state[ind_r];
            uwnd[k * nx + i] = state[ind_u] / (hy_dens_cell[k + HS] + state[ind_r]);
            wwnd[k * nx + i] = state[ind_w] / (hy_dens_cell[k + HS] + state[ind_r]);
            theta[k * nx + i] = (state[ind_t] + hy_dens_theta_cell[k + HS]) / (hy_dens_cell[k + HS] + state[ind_r])
                - hy_dens_theta_cell[k + HS] / hy_dens_cell[k + HS];
        }
    }

    //(The original writes dens, uwnd, wwnd, theta and etime to output.nc here.)
    std::hint::black_box((&dens, &uwnd, &wwnd, &theta));

    //Increment the number of outputs
    *num_out += 1;
}

//Compute reduced quantities for error checking without resorting to the "ncdiff" tool
#[omp::directives]
fn reductions(
    state: &MappedRef<'_, '_, f64>,
    hy_dens_cell: &MappedRef<'_, '_, f64>,
    hy_dens_theta_cell: &MappedRef<'_, '_, f64>,
    g: &Grid,
) -> (f64, f64) {
    let (nx, nz, dx, dz) = (g.nx, g.nz, g.dx, g.dz);
    let mut mass: f64 = 0.;
    let mut te: f64 = 0.;
    #[omp::target_teams_distribute_parallel_for_simd(collapse(2), reduction(+: mass, te))]
    for k in 0..nz {
        for i in 0..nx {
            let ind_r = ID_DENS * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_u = ID_UMOM * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_w = ID_WMOM * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let ind_t = ID_RHOT * (nz + 2 * HS) * (nx + 2 * HS) + (k + HS) * (nx + 2 * HS) + i + HS;
            let r = state[ind_r] + hy_dens_cell[HS + k]; // Density
            let u = state[ind_u] / r; // U-wind
            let w = state[ind_w] / r; // W-wind
            let th = (state[ind_t] + hy_dens_theta_cell[HS + k]) / r; // Potential Temperature (theta)
            let p = C0 * (r * th).powf(GAMM); // Pressure
            let t = th / (P0 / p).powf(RD / CP); // Temperature
            let ke = r * (u * u + w * w); // Kinetic Energy
            let ie = r * CV * t; // Internal Energy
            mass += r * dx * dz; // Accumulate domain mass
            te += (ke + ie) * dx * dz; // Accumulate domain total energy
        }
    }
    // MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, ..) over one rank: glob = loc.
    let loc = [mass, te];
    let glob = loc;
    (glob[0], glob[1])
}

/// `data_spec` as a number or the original's name (`DATA_SPEC_THERMAL`, or `thermal`).
fn data_spec(a: &str) -> i32 {
    match a.to_ascii_lowercase().trim_start_matches("data_spec_") {
        "collision" => DATA_SPEC_COLLISION,
        "thermal" => DATA_SPEC_THERMAL,
        "gravity_waves" => DATA_SPEC_GRAVITY_WAVES,
        "density_current" => DATA_SPEC_DENSITY_CURRENT,
        "injection" => DATA_SPEC_INJECTION,
        n => n.parse().unwrap_or_else(|_| panic!("data_spec {a} is not valid")),
    }
}

///////////////////////////////////////////////////////////////////////////////////////
// THE MAIN PROGRAM STARTS HERE
///////////////////////////////////////////////////////////////////////////////////////
#[omp::directives]
fn main() {
    // BEGIN USER-CONFIGURABLE PARAMETERS (the original's _NX, _NZ, _SIM_TIME, _OUT_FREQ, _DATA_SPEC defines)
    let nx_glob: usize = omp_ports::arg(1, 100); //Number of total cells in the x-direction
    let nz_glob: usize = omp_ports::arg(2, 50); //Number of total cells in the z-direction
    let sim_time: f64 = omp_ports::arg(3, 1000.); //How many seconds to run the simulation
    let output_freq: f64 = omp_ports::arg(4, 10.); //How frequently to output data to file (in seconds)
    let data_spec_int: i32 = data_spec(&std::env::args().nth(5).unwrap_or_else(|| "DATA_SPEC_THERMAL".to_string())); //How to initialize the data
                                                                                                                     // END USER-CONFIGURABLE PARAMETERS
    let exchange = std::env::var("MINIWEATHER_EXCHANGE").is_ok_and(|v| v == "1");

    let (g, mut dt, mut fields) = init(nx_glob, nz_glob, data_spec_int, exchange);
    let mut etime: f64 = 0.; //Elapsed model time
    let mut output_counter: f64 = 0.; //Helps determine when it's time to do output
    let mut num_out: i32 = 0; //The number of outputs performed so far
    let mut direction_switch: i32 = 1;
    let (mass0, te0): (f64, f64); //Initial domain totals for mass and total energy
    let (mass, te): (f64, f64); //Domain totals for mass and total energy
    let seconds: f64;

    let (state, state_tmp, flux, tend) = (&mut fields.state, &mut fields.state_tmp, &mut fields.flux, &mut fields.tend);
    let (hy_dens_cell, hy_dens_theta_cell) = (&fields.hy_dens_cell, &fields.hy_dens_theta_cell);
    let (hy_dens_int, hy_dens_theta_int, hy_pressure_int) = (&fields.hy_dens_int, &fields.hy_dens_theta_int, &fields.hy_pressure_int);
    let (sendbuf_l, sendbuf_r) = (&mut fields.sendbuf_l, &mut fields.sendbuf_r);
    let (recvbuf_l, recvbuf_r) = (&mut fields.recvbuf_l, &mut fields.recvbuf_r);

    #[omp::target_data(
        map(to: hy_dens_cell, hy_dens_theta_cell, hy_dens_int, hy_dens_theta_int, hy_pressure_int),
        map(alloc: state_tmp, flux, tend, sendbuf_l, sendbuf_r, recvbuf_l, recvbuf_r),
        map(tofrom: state)
    )]
    {
        let hy = Hydro {
            dens_cell: hy_dens_cell,
            dens_theta_cell: hy_dens_theta_cell,
            dens_int: hy_dens_int,
            dens_theta_int: hy_dens_theta_int,
            pressure_int: hy_pressure_int,
        };
        let mut bufs = Bufs { sendbuf_l, sendbuf_r, recvbuf_l, recvbuf_r };

        //Initial reductions for mass, kinetic energy, and total energy
        (mass0, te0) = reductions(state, hy_dens_cell, hy_dens_theta_cell, &g);

        //Output the initial state
        if output_freq >= 0. {
            output(state, etime, hy_dens_cell, hy_dens_theta_cell, &g, &mut num_out);
        }

        ////////////////////////////////////////////////////
        // MAIN TIME STEP LOOP
        ////////////////////////////////////////////////////
        omp::taskwait!();
        let t1 = Instant::now();
        while etime < sim_time {
            //If the time step leads to exceeding the simulation time, shorten it for the last step
            if etime + dt > sim_time {
                dt = sim_time - etime;
            }
            //Perform a single time step
            perform_timestep(state, state_tmp, flux, tend, dt, &mut direction_switch, &hy, &mut bufs, &g);
            //Inform the user
            if g.mainproc {
                println!("Elapsed Time: {etime:.6} / {sim_time:.6}");
            }
            //Update the elapsed time and output counter
            etime = etime + dt;
            output_counter = output_counter + dt;
            //If it's time for output, reset the counter, and do output
            if output_freq >= 0. && output_counter >= output_freq {
                output_counter = output_counter - output_freq;
                output(state, etime, hy_dens_cell, hy_dens_theta_cell, &g, &mut num_out);
            }
        }
        omp::taskwait!();
        seconds = omp_ports::seconds_since(t1);
        if g.mainproc {
            println!("CPU Time: {} sec", omp_ports::g6(seconds));
        }

        //Final reductions for mass, kinetic energy, and total energy
        (mass, te) = reductions(state, hy_dens_cell, hy_dens_theta_cell, &g);
    }

    let d_mass = (mass - mass0) / mass0;
    let d_te = (te - te0) / te0;
    if g.mainproc {
        println!("d_mass: {}", c_exp(d_mass));
        println!("d_te:   {}", c_exp(d_te));
    }

    // check_output.sh (the CMake tests, `check_output.sh ./openmp45_test 1e-13 4.5e-5`)
    omp_ports::kernel_time(seconds);
    omp_ports::verdict(d_mass.abs() < 1e-13 && d_te < 0. && d_te.abs() < 4.5e-5);
}
