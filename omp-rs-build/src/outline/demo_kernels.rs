// Hand-written device crate in the shape the outliner must emit (the kernel ABI): exercises
// View bounds checks, read-only slices, team_reduce, math, float atomics and panics.
// Slot order per kernel: captures (arrays as base + length), loop (first, trips, step),
// reduction partial pointers.
#![no_std]
#![cfg_attr(any(target_arch = "nvptx64", target_arch = "amdgpu"), feature(abi_gpu_kernel))]
#![allow(unused_imports, unused_unsafe, unknown_lints, improper_gpu_kernel_arg)]
#![allow(improper_ctypes_definitions, unstable_name_collisions, non_snake_case)]
extern crate omp_device;
use omp_device::launch::{global_thread, num_global_threads, team_id};
use omp_device::prelude::*;
use omp_device::view::ro_slice;

omp_device::kernel! {
    /// y[i] += a * x[i] for i in lo, lo+step, … (trips iterations)
    pub unsafe fn omp_demo_saxpy(_dyn: *mut u8, a: u64, x: &[f64; 0], x_len: u64, y: *mut f64,
                                 y_len: u64, lo: u64, trips: u64, step: u64) {
        let a = f64::from_bits(a);
        let x = ro_slice(x, x_len);
        let mut y = View::from_raw_parts(y, y_len as usize);
        let mut k = global_thread();
        while k < trips {
            let i = (lo + k * step) as usize;
            y[i] += a * x[i];
            k += num_global_threads();
        }
    }

    /// reduction(+: sum) reduction(max: big) over x
    pub unsafe fn omp_demo_sum_max(_dyn: *mut u8, x: &[f64; 0], x_len: u64, lo: u64, trips: u64,
                                   step: u64, sum_partials: *mut f64, max_partials: *mut f64) {
        let x = ro_slice(x, x_len);
        let mut sum = <Add as Reducer<f64>>::identity();
        let mut big = <Max as Reducer<f64>>::identity();
        let mut k = global_thread();
        while k < trips {
            let v = x[(lo + k * step) as usize];
            sum = <Add as Reducer<f64>>::combine(sum, v);
            big = <Max as Reducer<f64>>::combine(big, v);
            k += num_global_threads();
        }
        let team = team_id() as usize;
        if let Some(s) = omp_device::reduce::team_reduce::<Add, f64>(sum) {
            *sum_partials.add(team) = s;
        }
        if let Some(m) = omp_device::reduce::team_reduce::<Max, f64>(big) {
            *max_partials.add(team) = m;
        }
    }

    /// e[i] = exp(x[i]), s[i] = sin(x[i]), r[i] = sqrt(|x[i]|) + max(x[i], 0) + x[i].powi(2)
    pub unsafe fn omp_demo_math(_dyn: *mut u8, x: &[f64; 0], x_len: u64, e: *mut f64, e_len: u64,
                                s: *mut f64, s_len: u64, r: *mut f64, r_len: u64, lo: u64,
                                trips: u64, step: u64) {
        let x = ro_slice(x, x_len);
        let (mut e, mut s, mut r) = (View::from_raw_parts(e, e_len as usize),
            View::from_raw_parts(s, s_len as usize), View::from_raw_parts(r, r_len as usize));
        let mut k = global_thread();
        while k < trips {
            let i = (lo + k * step) as usize;
            let v = x[i];
            e[i] = v.exp();
            s[i] = v.sin();
            r[i] = v.abs().sqrt() + v.max(0.0) + v.powi(2);
            k += num_global_threads();
        }
    }

    /// #pragma omp atomic: *out += x[i]
    pub unsafe fn omp_demo_atomic_sum(_dyn: *mut u8, x: &[f64; 0], x_len: u64, out: *mut f64,
                                      lo: u64, trips: u64, step: u64) {
        let x = ro_slice(x, x_len);
        let mut k = global_thread();
        while k < trips {
            omp_device::atomic::atomic_add(out, x[(lo + k * step) as usize]);
            k += num_global_threads();
        }
    }

    /// Integer and bool reductions (team partials: 8 per team) and integer / f32 atomics on out[0..8], f[0].
    pub unsafe fn omp_demo_int_ops(_dyn: *mut u8, x: &[i64; 0], x_len: u64, lo: u64, trips: u64, step: u64,
                                   out: *mut i64, f: *mut f32, partials: *mut i64) {
        use omp_device::atomic::*;
        use omp_device::reduce::team_reduce;
        let x = ro_slice(x, x_len);
        let (mut mn, mut mx) = (<Min as Reducer<i64>>::identity(), <Max as Reducer<i64>>::identity());
        let (mut and, mut or, mut xor) = (<BitAnd as Reducer<i64>>::identity(), <BitOr as Reducer<i64>>::identity(),
            <BitXor as Reducer<i64>>::identity());
        let (mut all_pos, mut any_neg) = (<LogAnd as Reducer<bool>>::identity(), <LogOr as Reducer<bool>>::identity());
        let mut prod = <Mul as Reducer<u32>>::identity();
        let mut k = global_thread();
        while k < trips {
            let v = x[(lo + k * step) as usize];
            mn = Min::combine(mn, v);
            mx = Max::combine(mx, v);
            and = BitAnd::combine(and, v);
            or = BitOr::combine(or, v);
            xor = BitXor::combine(xor, v);
            all_pos = LogAnd::combine(all_pos, v > 0);
            any_neg = LogOr::combine(any_neg, v < 0);
            prod = Mul::combine(prod, (v as u32) | 1);
            atomic_min(out, v);
            atomic_max(out.add(1), v);
            atomic_and(out.add(2), v);
            atomic_or(out.add(3), v);
            atomic_xor(out.add(4), v);
            atomic_sub(out.add(5), v);
            atomic_fetch_add(out.add(6), 1);
            atomic_update(out.add(7), |o| o.wrapping_add(v.wrapping_mul(2)));
            atomic_add(f, v as f32);
            k += num_global_threads();
        }
        let p = partials.add(8 * team_id() as usize);
        let r = [
            team_reduce::<Min, i64>(mn), team_reduce::<Max, i64>(mx), team_reduce::<BitAnd, i64>(and),
            team_reduce::<BitOr, i64>(or), team_reduce::<BitXor, i64>(xor),
            team_reduce::<LogAnd, bool>(all_pos).map(i64::from), team_reduce::<LogOr, bool>(any_neg).map(i64::from),
            team_reduce::<Mul, u32>(prod).map(i64::from),
        ];
        for (j, v) in r.into_iter().enumerate() {
            if let Some(v) = v {
                *p.add(j) = v;
            }
        }
    }

    /// out[i] = 2 * x[i + off]: panics (index out of bounds) when i + off >= x.len()
    pub unsafe fn omp_demo_oob(_dyn: *mut u8, x: &[f64; 0], x_len: u64, out: *mut f64,
                               out_len: u64, off: u64, lo: u64, trips: u64, step: u64) {
        let x = View::from_raw_parts(x.as_ptr() as *mut f64, x_len as usize);
        let mut out = View::from_raw_parts(out, out_len as usize);
        let mut k = global_thread();
        while k < trips {
            let i = (lo + k * step) as usize;
            out[i] = 2.0 * x[i + off as usize]; // OOB_LINE
            k += num_global_threads();
        }
    }

    /// y[i + shift] = i for i in lo.., y owned one element per iteration (`y[i]`, the kernel ABI ownership
    /// slots): shift != 0 writes another iteration's element, which the ownership check turns into a panic.
    pub unsafe fn omp_demo_owned(_dyn: *mut u8, y: *mut f64, y_len: u64, mode: u64, origin: u64, width: u64,
                                 stride: u64, shift: u64, lo: u64, trips: u64, step: u64) {
        // SAFETY: the caller passes y's base and length and an ownership verified disjoint.
        let y = unsafe {
            omp_device::view::Disjoint::<f64, 1, 0>::new(
                View::from_raw_parts(y, y_len as usize),
                omp_device::view::Owner::from_slots(mode, origin, width, [stride], []),
            )
        };
        let mut k = global_thread();
        while k < trips {
            let i = (lo + k * step) as usize;
            let mut y = y.at([k]);
            y[i + shift as usize] = i as f64; // OWNED_LINE
            k += num_global_threads();
        }
    }
}
