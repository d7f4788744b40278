//! nbody (HeCBench `src/nbody-omp/`, Intel's oneAPI gravity-simulation sample: `main.cpp`, `GSimulation.cpp`,
//! `GSimulation.hpp`, `Particle.hpp`, `type.hpp`, and the host reference `src/nbody-cuda/GSimulationReference.hpp` that
//! the Makefile includes; commit f27000a51). `n` particles (`struct Particle { float pos[3], vel[3], acc[3], mass; }`,
//! positions, velocities and masses from `std::mt19937(42)` and `uniform_real_distribution<float>`), `nsteps` steps of
//! `dt = 0.1`. `GSimulation::Start` maps `target data map(to: p[0:n]) map(alloc: e[0:n])` around the step loop; each
//! step runs three target regions: the accelerations (`target teams distribute parallel for thread_limit(256)`, each
//! particle against all `n`), the velocity/position update with each particle's kinetic energy `e[i]` (the same
//! construct), and a serial `#pragma omp target` loop summing `e[1..n]` into `e[0]`; then `target update from(e[0:1])`,
//! `kenergy = 0.5 * e[0]` on the host. A step's time feeds the GFLOPS average (steps 3 on); the total time is the clock
//! around the data region. `GSimulation::Verify` re-initialises the particles, runs the same steps on the host
//! (`accelerate_particles_ref`, `update_particles_ref`, `accumulate_energy_ref`) and prints PASS when `fabsf(kenergy -
//! ref_kenergy) < 1e-3f`.
//!
//!     nbody [n [nsteps]]     (defaults 16000 10; nsteps at least 3)
//!
//! `kernel time:` is the original's `# Total Time (s)` (the clock around the data region).
//!
//! What changed, and why:
//! - `using RealType = float;` (type.hpp) is `type RealType = f32;`, used where the original uses it.
//! - The acceleration kernel reads a second particle array. As written it reads `p[j]` (every particle's position and
//!   mass) while writing `p[i] = pi` (only `acc` changes), which omp-rs refuses: "error: `p` is written at `p[i]` but
//!   also read at `p[j]` in this parallel loop: another iteration may write that element. Keep one index per array, or
//!   indices that differ by a constant (`p[2 * i]`, `p[2 * i + 1]`); read inputs from a separate array" (the same error
//!   when only the fields are written, `p[i].acc[0] = acc0`: the analysis is per array, not per field; the escape hatch
//!   `unsafe(disjoint(p))` is unsafe code, which the ports do not use). So the kernel writes the updated particle into
//!   a scratch array `q` (`map(alloc)`, the same size as `p`) and the update kernel reads `q[i]` and writes `p[i]`: the
//!   same two kernels, the same arithmetic and the same bytes moved per step (kernel 1 writes a whole particle, kernel
//!   2 reads and writes one), `n` more particles of device memory.
//! - The data region is `omp::target_enter_data!(map(to: p), map(alloc: e, q))` … `omp::target_exit_data!(map(release:
//!   …))` instead of a `#[omp::target_data]` block, because the host reads `e[0]` after `target update from(e[0:1])`
//!   and sets `e[0] = 0` inside the region; in a block every such access is refused: "error[E0277]: `MappedMut<'_, '_,
//!   f32>` is mapped to the device by an enclosing `#[omp::target_data]` (or a pending `nowait` region before the next
//!   `omp::taskwait!()`): host code there cannot access its elements". (A block would also refuse `map(to: p)` with
//!   kernels writing `p`: "error: `p` is mapped `to:` (copied to the device, never back), but this block writes it: …
//!   Map it `tofrom:` to keep them, copy them back with `omp::target_update!(from: p)`, or map it `alloc:` …"; enter
//!   data keeps the original's `to`: the host particles stay the initial ones, as in C, and Verify re-initialises them
//!   anyway.) One transfer differs: omp-rs's `map(alloc: e, q)` copies the host's `e` and `q` in (omp-rs starts `alloc`
//!   mappings as a copy of the host data, by design): 44 bytes a particle, inside the `Total Time` span (as is the
//!   host allocation of `q`).
//! - `std::mt19937` and libstdc++'s `uniform_real_distribution<float>` (`generate_canonical<float, 24>`: one 32-bit
//!   draw over 2^32) are written out below, so the particles are the original's bit for bit. The printed numbers use
//!   C++'s default `cout` format (`%g`, 6 significant digits).
//!
//! Floating point: HeCBench builds the original with icpx, whose default `-fp-model=fast` approximates `1.0f /
//! sqrtf(d)` (the CUDA version calls `rsqrtf`); the port computes it correctly rounded, as Rust does on the host,
//! unless built with `OMP_RS_FAST_MATH=on` (then one `rsqrt.approx.f32` on NVIDIA GPUs; bench/RESULTS.md, "What a
//! thread executes").
//!
//! panel-args: 200 4
//! device-args: 16000 10
//! cpu-args: 4000 3

#![allow(clippy::needless_range_loop)] // the original's loops, as written

use omp_ports::g6;
use std::time::Instant;

/// `RealType` (type.hpp).
type RealType = f32;

/// `Particle` of `Particle.hpp`.
#[omp::declare_target]
#[derive(Clone, Copy, Default)]
struct Particle {
    pos: [RealType; 3],
    vel: [RealType; 3],
    acc: [RealType; 3],
    mass: RealType,
}

/// Prevents explosion in the case the particles are really close to each other.
const K_SOFTENING_SQUARED: RealType = 1e-3;
const K_G: RealType = 6.67259e-11;

/// `std::mt19937`.
struct Mt19937 {
    mt: [u32; 624],
    index: usize,
}

impl Mt19937 {
    fn new(seed: u32) -> Mt19937 {
        let mut mt = [0u32; 624];
        mt[0] = seed;
        for i in 1..624 {
            mt[i] = 1812433253u32.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { mt, index: 624 }
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            for i in 0..624 {
                let y = (self.mt[i] & 0x8000_0000) | (self.mt[(i + 1) % 624] & 0x7fff_ffff);
                let mut v = self.mt[(i + 397) % 624] ^ (y >> 1);
                if y & 1 != 0 {
                    v ^= 0x9908_b0df;
                }
                self.mt[i] = v;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// libstdc++'s `uniform_real_distribution<float>(a, b)(gen)`: `generate_canonical<float, 24>` (one draw divided
    /// by 2^32 in float, clamped below 1) times `b - a` plus `a`.
    fn uniform(&mut self, a: f32, b: f32) -> f32 {
        let mut c = self.next_u32() as f32 / 4294967296.0f32;
        if c >= 1.0 {
            c = 1.0 - f32::EPSILON / 2.0; // nextafter(1.0f, 0.0f)
        }
        c * (b - a) + a
    }
}

/// The original's `GSimulation` state that `main` and `Start`/`Verify` use.
struct GSimulation {
    particles: Vec<Particle>,
    npart: usize,
    nsteps: usize,
    tstep: RealType,
    sfreq: usize,
    kenergy: RealType,
    ref_kenergy: RealType,
    total_time: f64,
}

impl GSimulation {
    /// The default constructor: 16000 particles, 10 steps, `dt = 0.1`, sample frequency 1.
    fn new() -> GSimulation {
        println!("===============================");
        println!(" Initialize Gravity Simulation");
        GSimulation {
            particles: Vec::new(),
            npart: 16000,
            nsteps: 10,
            tstep: 0.1,
            sfreq: 1,
            kenergy: 0.0,
            ref_kenergy: 0.0,
            total_time: 0.0,
        }
    }

    /// `InitPos`, `InitVel`, `InitAcc`, `InitMass`: each with its own `mt19937(42)`.
    fn init(&mut self) {
        let n = self.npart;
        self.particles = vec![Particle::default(); n];
        let mut gen = Mt19937::new(42);
        for p in self.particles.iter_mut() {
            p.pos[0] = gen.uniform(0.0, 1.0);
            p.pos[1] = gen.uniform(0.0, 1.0);
            p.pos[2] = gen.uniform(0.0, 1.0);
        }
        let mut gen = Mt19937::new(42);
        for p in self.particles.iter_mut() {
            p.vel[0] = gen.uniform(-1.0, 1.0) * 1.0e-3;
            p.vel[1] = gen.uniform(-1.0, 1.0) * 1.0e-3;
            p.vel[2] = gen.uniform(-1.0, 1.0) * 1.0e-3;
        }
        for p in self.particles.iter_mut() {
            p.acc = [0.0; 3];
        }
        let nf = n as RealType;
        let mut gen = Mt19937::new(42);
        for p in self.particles.iter_mut() {
            p.mass = nf * gen.uniform(0.0, 1.0);
        }
    }

    /// `GSimulation::Start`: the simulation on the device.
    fn start(&mut self) {
        let dt = self.tstep;
        let n = self.npart;
        let mut energy: Vec<RealType> = vec![0.0; n];
        self.init();
        self.total_time = 0.0;
        let gflops = 1e-9 * ((11.0 + 10.0) * n as f64 * n as f64 + n as f64 * 19.0);
        let mut nf = 0;
        let (mut av, mut dev) = (0.0f64, 0.0f64);
        let sfreq = self.sfreq;
        let nsteps = self.nsteps;
        let t0 = Instant::now();
        let kenergy = simulate(&mut self.particles, &mut energy, n, nsteps, dt, |s, elapsed_seconds| {
            if s % sfreq == 0 {
                nf += 1;
                if nf > 2 {
                    av += gflops * sfreq as f64 / elapsed_seconds;
                    dev += gflops * sfreq as f64 * gflops * sfreq as f64 / (elapsed_seconds * elapsed_seconds);
                }
            }
        });
        self.kenergy = kenergy;
        self.total_time = omp_ports::seconds_since(t0);
        av /= (nf - 2) as f64;
        // when nf = 3, deviation is 0 (N/A)
        dev = if nf == 3 { 0.0 } else { (dev / (nf - 2) as f64 - av * av).sqrt() };
        println!();
        println!("# Total Energy        : {}", g6(self.kenergy as f64));
        println!("# Total Time (s)      : {}", g6(self.total_time));
        println!("# Average Performance : {} +- {}", g6(av), g6(dev));
        println!("===============================");
    }

    /// `GSimulation::Verify`: the same steps on the host; PASS when the energies agree within 1e-3.
    fn verify(&mut self) -> bool {
        let dt = self.tstep;
        let n = self.npart;
        let mut energy: Vec<RealType> = vec![0.0; n];
        self.init();
        let p = &mut self.particles;
        for _s in 1..=self.nsteps {
            accelerate_particles_ref(p, n, K_SOFTENING_SQUARED, K_G);
            update_particles_ref(p, &mut energy, n, dt);
            accumulate_energy_ref(&mut energy, n);
            self.ref_kenergy = (0.5 * energy[0] as f64) as RealType;
        }
        println!();
        (self.kenergy - self.ref_kenergy).abs() < 1e-3
    }
}

/// The acceleration kernel: particle `i` against every particle of `p`, written to `q[i]` (the original writes it
/// back to `p[i]`; see the header).
#[omp::directives]
fn compute_accelerations(p: &[Particle], q: &mut [Particle], n: usize) {
    #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
    for i in 0..n {
        let mut pi = p[i];
        let mut acc0 = pi.acc[0];
        let mut acc1 = pi.acc[1];
        let mut acc2 = pi.acc[2];
        for j in 0..n {
            let pj = p[j];
            let dx = pj.pos[0] - pi.pos[0]; // 1flop
            let dy = pj.pos[1] - pi.pos[1]; // 1flop
            let dz = pj.pos[2] - pi.pos[2]; // 1flop
            let distance_sqr = dx * dx + dy * dy + dz * dz + K_SOFTENING_SQUARED; // 6flops
            let distance_inv = 1.0f32 / distance_sqr.sqrt(); // 1div+1sqrt
            let strength = K_G * pj.mass * distance_inv * distance_inv * distance_inv; // 4flops
            acc0 += dx * strength; // 2flops
            acc1 += dy * strength; // 2flops
            acc2 += dz * strength; // 2flops
        }
        pi.acc[0] = acc0;
        pi.acc[1] = acc1;
        pi.acc[2] = acc2;
        q[i] = pi;
    }
}

/// The second kernel: velocities and positions from `q[i]` into `p[i]`, each particle's kinetic energy into `e[i]`.
#[omp::directives]
fn update_particles(q: &[Particle], p: &mut [Particle], e: &mut [RealType], n: usize, dt: RealType) {
    #[omp::target_teams_distribute_parallel_for(thread_limit(256))]
    for i in 0..n {
        let mut pi = q[i];
        pi.vel[0] += pi.acc[0] * dt; // 2flops
        pi.vel[1] += pi.acc[1] * dt; // 2flops
        pi.vel[2] += pi.acc[2] * dt; // 2flops
        pi.pos[0] += pi.vel[0] * dt; // 2flops
        pi.pos[1] += pi.vel[1] * dt; // 2flops
        pi.pos[2] += pi.vel[2] * dt; // 2flops
        pi.acc[0] = 0.0;
        pi.acc[1] = 0.0;
        pi.acc[2] = 0.0;
        e[i] = pi.mass * (pi.vel[0] * pi.vel[0] + pi.vel[1] * pi.vel[1] + pi.vel[2] * pi.vel[2]); // 7flops
        p[i] = pi;
    }
}

/// The third kernel, the original's serial `#pragma omp target` loop `for (i = 1; i < n; i++) e[0] += e[i];`: one
/// device thread runs it.
#[omp::target]
fn accumulate_energy(e: &mut [RealType], n: usize) {
    for i in 1..n {
        e[0] += e[i];
    }
}

/// The step loop of `Start` inside its data region; `step(s, seconds)` gets each step's time. Returns the last
/// step's kinetic energy.
#[omp::directives]
fn simulate(
    p: &mut Vec<Particle>,
    e: &mut Vec<RealType>,
    n: usize,
    nsteps: usize,
    dt: RealType,
    mut step: impl FnMut(usize, f64),
) -> RealType {
    let mut q: Vec<Particle> = vec![Particle::default(); n];
    let mut kenergy = 0.0f32;
    // #pragma omp target data map (to: p[0:n]) map(alloc: e[0:n])
    omp::target_enter_data!(map(to: p), map(alloc: e, q));
    // Looping across integration steps
    for s in 1..=nsteps {
        let ts0 = Instant::now();
        // computes acceleration of all particles
        compute_accelerations(p, &mut q, n);
        // Second kernel updates the velocity and position for all particles
        update_particles(&q, p, e, n, dt);
        // Third kernel accumulates the energy of this Nbody system
        accumulate_energy(e, n);
        let elapsed_seconds = omp_ports::seconds_since(ts0);
        omp::target_update!(from: e[0..1]);
        kenergy = (0.5 * e[0] as f64) as RealType;
        e[0] = 0.0;
        step(s, elapsed_seconds);
    }
    omp::target_exit_data!(map(release: p, e, q));
    kenergy
}

/// `accelerate_particles_ref` (GSimulationReference.hpp).
fn accelerate_particles_ref(p: &mut [Particle], n: usize, k_softening_squared: RealType, k_g: RealType) {
    for i in 0..n {
        let mut pi = p[i];
        let mut acc0 = pi.acc[0];
        let mut acc1 = pi.acc[1];
        let mut acc2 = pi.acc[2];
        for j in 0..n {
            let pj = p[j];
            let dx = pj.pos[0] - pi.pos[0];
            let dy = pj.pos[1] - pi.pos[1];
            let dz = pj.pos[2] - pi.pos[2];
            let distance_sqr = dx * dx + dy * dy + dz * dz + k_softening_squared;
            let distance_inv = 1.0f32 / distance_sqr.sqrt();
            acc0 += dx * k_g * pj.mass * distance_inv * distance_inv * distance_inv;
            acc1 += dy * k_g * pj.mass * distance_inv * distance_inv * distance_inv;
            acc2 += dz * k_g * pj.mass * distance_inv * distance_inv * distance_inv;
        }
        pi.acc[0] = acc0;
        pi.acc[1] = acc1;
        pi.acc[2] = acc2;
        p[i] = pi;
    }
}

/// `update_particles_ref`.
fn update_particles_ref(p: &mut [Particle], e: &mut [RealType], n: usize, dt: RealType) {
    for i in 0..n {
        let mut pi = p[i];
        pi.vel[0] += pi.acc[0] * dt;
        pi.vel[1] += pi.acc[1] * dt;
        pi.vel[2] += pi.acc[2] * dt;
        pi.pos[0] += pi.vel[0] * dt;
        pi.pos[1] += pi.vel[1] * dt;
        pi.pos[2] += pi.vel[2] * dt;
        pi.acc = [0.0; 3];
        e[i] = pi.mass * (pi.vel[0] * pi.vel[0] + pi.vel[1] * pi.vel[1] + pi.vel[2] * pi.vel[2]);
        p[i] = pi;
    }
}

/// `accumulate_energy_ref`.
fn accumulate_energy_ref(e: &mut [RealType], n: usize) {
    for i in 1..n {
        e[0] += e[i];
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut sim = GSimulation::new();
    if args.len() > 1 {
        sim.npart = omp_ports::arg(1, 0);
        if args.len() == 3 {
            let nstep: usize = omp_ports::arg(2, 0);
            if nstep < 3 {
                eprintln!("The number of integration steps should be at least 3");
                std::process::exit(1);
            }
            sim.nsteps = nstep;
        }
    }
    sim.start();
    let ok = sim.verify();
    omp_ports::kernel_time(sim.total_time);
    omp_ports::verdict(ok);
}
