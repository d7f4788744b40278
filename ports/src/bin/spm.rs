//! spm (HeCBench `src/spm-omp/main.cpp`, commit f27000a51; built with `-DOMP_TARGET` as its Makefile does): the
//! rigid-body resampling step of image registration (SPM). Two random `v³` byte volumes (`srand(123)`, `rand() % 256`)
//! and a random 4×4 transform; the kernel `spm` (`target teams distribute parallel for num_teams(256)
//! thread_limit(128)`) moves every voxel's jittered coordinates through the transform, and where the result is inside
//! the volume interpolates both volumes trilinearly (`interp`, a `declare target` function reading eight bytes around
//! the point: a data-dependent gather) and marks the voxel. `main` runs it `repeat` times inside `target data map(to:
//! M, g, f) map(from: ivf, ivg, data_threshold)`, timed; then builds a 256×256 joint histogram of the marked voxels on
//! the host, runs `spm_reference` on the host into the same arrays, builds its histogram, and prints both counts and
//! the largest histogram difference.
//!
//!     spm <dimension> <repeat>     (both required; the Makefile runs 256 1000)
//!
//! `kernel time:` is the timed loop (the original prints its average per launch; that line is kept). The original
//! prints no verdict: PASS here means the device and host counts are equal and the histograms equal (largest difference
//! 0), as the original's output shows built with GCC on this machine (`g++ -O3 -fopenmp`, regions on the host: equal
//! counts, difference 0 at 32, 64 and 128). The kernel and the reference do the same arithmetic, and Rust contracts no
//! `a * b + c` into an FMA, so a GPU run should match exactly too; a CUDA/nvc build of the original that contracts may
//! differ in a few voxels.
//!
//! Why this program: a sparse kernel with irregular (data-dependent) reads. simpleSpmv-omp's CSR kernel (a
//! `target teams distribute` over the rows with a nested `parallel for reduction(+:temp)` per row) runs as written in
//! the offload suite (`nested: simpleSpmv's CSR rows`). Of the other sparse HeCBench `-omp` programs, none uses only the
//! constructs omp-rs has: bfs-omp and gd-omp need data sets the repository does not hold (DVC / LIBSVM download),
//! amgmk-omp's one offloaded kernel is an in-place relaxation that reads neighbours other iterations write, and
//! lanczos, mis, slu, crs, sptrsv and gc use SPMD `target teams` + `parallel` bodies with `omp_get_thread_num` and
//! barriers.
//!
//! What changed, and why:
//! - `data_threshold` (C's `bool *`) is a `u8` array holding 0/1 (C's `bool` is one byte too): a `&mut [bool]` in a
//!   target region is refused: "error[E0277]: `bool` cannot be copied to the device … not plain data" (note: "target
//!   regions take numbers, arrays of them and `#[omp::declare_target]` structs (…; no `bool`, references or
//!   pointers)").
//! - The kernel function takes the data region's tokens (`&MappedRef<'_, '_, f32>`, `&mut MappedMut<'_, '_, u8>`, …)
//!   instead of slices, as `docs/porting.md` prescribes for a function called inside `#[omp::target_data]`; with slice
//!   parameters the call is refused ("error[E0308]: arguments to this function are incorrect … expected `&[f32]`, found
//!   `&&mut MappedRef<'_, '_, f32>`").
//! - `rand()`/`srand(123)` is glibc's generator (`TYPE_3`), written out below, so the volumes and the transform are the
//!   original's on this machine; the 97 jitter values are the original's `double` literals converted to `float` (as C's
//!   `const float ran[] = {0.656619, ...}` converts them).
//! - `interp` takes the volume as a slice and the original's pointer `ff = f + offset` as an index offset.
//! - Transfers: omp-rs's `map(from: ivf_h, ivg_h, data_threshold_h)` also copies the three host arrays in at the start
//!   of the block (omp-rs starts `from`/`alloc` mappings as a copy of the host data, by design): 3 × v³ bytes (50 MB at
//!   256), outside the timed loop.
//!
//! panel-args: 32 3
//! device-args: 256 1000
//! cpu-args: 256 10

#![allow(clippy::needless_range_loop)] // the original's loops, as written

use std::time::Instant;

use omp::{MappedMut, MappedRef};
use omp_ports::GlibcRand;

/// `NUM_THREADS`, `NUM_BLOCKS` of the original.
const NUM_THREADS: usize = 128;
const NUM_BLOCKS: usize = 256;

/// C's `int3`.
#[omp::declare_target]
#[derive(Clone, Copy)]
struct Int3 {
    x: i32,
    y: i32,
    z: i32,
}

/// 97 random values (the original's `double` literals of `const float ran[]`).
const RAN: [f64; 97] = [
    0.656619, 0.891183, 0.488144, 0.992646, 0.373326, 0.531378, 0.181316, 0.501944, 0.422195, 0.660427, 0.673653, 0.95733, 0.191866,
    0.111216, 0.565054, 0.969166, 0.0237439, 0.870216, 0.0268766, 0.519529, 0.192291, 0.715689, 0.250673, 0.933865, 0.137189, 0.521622,
    0.895202, 0.942387, 0.335083, 0.437364, 0.471156, 0.14931, 0.135864, 0.532498, 0.725789, 0.398703, 0.358419, 0.285279, 0.868635,
    0.626413, 0.241172, 0.978082, 0.640501, 0.229849, 0.681335, 0.665823, 0.134718, 0.0224933, 0.262199, 0.116515, 0.0693182, 0.85293,
    0.180331, 0.0324186, 0.733926, 0.536517, 0.27603, 0.368458, 0.0128863, 0.889206, 0.866021, 0.254247, 0.569481, 0.159265, 0.594364,
    0.3311, 0.658613, 0.863634, 0.567623, 0.980481, 0.791832, 0.152594, 0.833027, 0.191863, 0.638987, 0.669, 0.772088, 0.379818, 0.441585,
    0.48306, 0.608106, 0.175996, 0.00202556, 0.790224, 0.513609, 0.213229, 0.10345, 0.157337, 0.407515, 0.407757, 0.0526927, 0.941815,
    0.149972, 0.384374, 0.311059, 0.168534, 0.896648,
];

/// `interp`: trilinear interpolation of the byte volume `f` (extents `d`) at `(x, y, z)`.
fn interp(d: Int3, f: &[u8], x: f32, y: f32, z: f32) -> f32 {
    let ix = x.floor() as i32;
    let dx1 = x - ix as f32;
    let dx2 = 1.0f32 - dx1;
    let iy = y.floor() as i32;
    let dy1 = y - iy as f32;
    let dy2 = 1.0f32 - dy1;
    let iz = z.floor() as i32;
    let dz1 = z - iz as f32;
    let dz2 = 1.0f32 - dz1;

    let mut ff = (ix - 1 + d.x * (iy - 1 + d.y * (iz - 1))) as usize;
    let dx = d.x as usize;
    let k222 = f[ff] as i32;
    let k122 = f[ff + 1] as i32;
    let k212 = f[ff + dx] as i32;
    let k112 = f[ff + dx + 1] as i32;
    ff += (d.x * d.y) as usize;
    let k221 = f[ff] as i32;
    let k121 = f[ff + 1] as i32;
    let k211 = f[ff + dx] as i32;
    let k111 = f[ff + dx + 1] as i32;

    ((k222 as f32 * dx2 + k122 as f32 * dx1) * dy2 + (k212 as f32 * dx2 + k112 as f32 * dx1) * dy1) * dz2
        + ((k221 as f32 * dx2 + k121 as f32 * dx1) * dy2 + (k211 as f32 * dx2 + k111 as f32 * dx1) * dy1) * dz1
}

/// The kernel `spm`.
#[omp::directives]
#[allow(clippy::too_many_arguments)]
fn spm(
    m: &MappedRef<'_, '_, f32>,
    data_size: usize,
    g_d: &MappedRef<'_, '_, u8>,
    f_d: &MappedRef<'_, '_, u8>,
    dg: Int3,
    df: Int3,
    ivf_d: &mut MappedMut<'_, '_, u8>,
    ivg_d: &mut MappedMut<'_, '_, u8>,
    data_threshold_d: &mut MappedMut<'_, '_, u8>,
) {
    // 97 random values
    let ran: [f32; 97] = RAN.map(|v| v as f32);
    #[omp::target_teams_distribute_parallel_for(num_teams(NUM_BLOCKS), thread_limit(NUM_THREADS))]
    for i in 0..data_size {
        let x_datasize = dg.x - 2;
        let y_datasize = dg.y - 2;
        let ii = i as i32;

        let xx_temp = (ii % x_datasize) as f32 + 1.0f32;
        let yy_temp = (((ii as f32 / x_datasize as f32).floor() as i32) % y_datasize) as f32 + 1.0f32;
        let zz_temp = (ii as f32 / x_datasize as f32).floor() / y_datasize as f32 + 1.0f32;

        // generate rx,ry,rz coordinates
        let rx = xx_temp + ran[i % 97];
        let ry = yy_temp + ran[i % 97];
        let rz = zz_temp + ran[i % 97];

        // rigid transformation over rx,ry,rz coordinates
        let xp = m[0] * rx + m[4] * ry + m[8] * rz + m[12];
        let yp = m[1] * rx + m[5] * ry + m[9] * rz + m[13];
        let zp = m[2] * rx + m[6] * ry + m[10] * rz + m[14];

        if zp >= 1.0f32 && zp < df.z as f32 && yp >= 1.0f32 && yp < df.y as f32 && xp >= 1.0f32 && xp < df.x as f32 {
            // interpolation
            ivf_d[i] = (interp(df, f_d, xp, yp, zp) + 0.5f32).floor() as u8;
            ivg_d[i] = (interp(dg, g_d, rx, ry, rz) + 0.5f32).floor() as u8;
            data_threshold_d[i] = 1; // true
        } else {
            ivf_d[i] = 0;
            ivg_d[i] = 0;
            data_threshold_d[i] = 0; // false
        }
    }
}

/// `spm_reference`: the same on the host.
#[allow(clippy::too_many_arguments)]
fn spm_reference(
    m: &[f32],
    data_size: usize,
    g_d: &[u8],
    f_d: &[u8],
    dg: Int3,
    df: Int3,
    ivf_d: &mut [u8],
    ivg_d: &mut [u8],
    data_threshold_d: &mut [u8],
) {
    let ran: [f32; 97] = RAN.map(|v| v as f32);
    let x_datasize = dg.x - 2;
    let y_datasize = dg.y - 2;
    for i in 0..data_size {
        let ii = i as i32;
        let xx_temp = (ii % x_datasize) as f32 + 1.0f32;
        let yy_temp = (((ii as f32 / x_datasize as f32).floor() as i32) % y_datasize) as f32 + 1.0f32;
        let zz_temp = (ii as f32 / x_datasize as f32).floor() / y_datasize as f32 + 1.0f32;
        let rx = xx_temp + ran[i % 97];
        let ry = yy_temp + ran[i % 97];
        let rz = zz_temp + ran[i % 97];
        let xp = m[0] * rx + m[4] * ry + m[8] * rz + m[12];
        let yp = m[1] * rx + m[5] * ry + m[9] * rz + m[13];
        let zp = m[2] * rx + m[6] * ry + m[10] * rz + m[14];
        if zp >= 1.0f32 && zp < df.z as f32 && yp >= 1.0f32 && yp < df.y as f32 && xp >= 1.0f32 && xp < df.x as f32 {
            ivf_d[i] = (interp(df, f_d, xp, yp, zp) + 0.5f32).floor() as u8;
            ivg_d[i] = (interp(dg, g_d, rx, ry, rz) + 0.5f32).floor() as u8;
            data_threshold_d[i] = 1; // true
        } else {
            ivf_d[i] = 0;
            ivg_d[i] = 0;
            data_threshold_d[i] = 0; // false
        }
    }
}

#[omp::directives]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        println!("Usage: {} <dimension> <repeat>", args[0]);
        std::process::exit(1);
    }
    let v: i32 = omp_ports::arg(1, 0);
    let repeat: usize = omp_ports::arg(2, 0);

    // sizes of 3D volumns
    let g_vol = Int3 { x: v, y: v, z: v };
    let f_vol = Int3 { x: v, y: v, z: v };
    // size determined by the way rx,ry,rz coordinates are computed
    let data_size = ((g_vol.x + 1) * (g_vol.y + 1) * (g_vol.z + 5)) as usize;
    // size determined by the bound check after rigid transformation
    let vol_size = (g_vol.x * g_vol.y * g_vol.z) as usize;

    // 256x256-bin joint histogram computed on a host and a device
    let mut hist_d = vec![0i32; 65536];
    let mut hist_h = vec![0i32; 65536];

    let mut rng = GlibcRand::new(123);
    // random displacement and rotation parameters
    let mut m_h: Vec<f32> = vec![0.0; 16];
    for i in 0..16 {
        m_h[i] = rng.rand() as f32 / 2147483647.0f32; // (float)rand() / (float)RAND_MAX
    }
    // 3D source volumns
    let mut f_h: Vec<u8> = vec![0; data_size];
    let mut g_h: Vec<u8> = vec![0; data_size];
    for i in 0..data_size {
        f_h[i] = (rng.rand() % 256) as u8;
        g_h[i] = (rng.rand() % 256) as u8;
    }
    // 3D transformed volumns
    let mut ivf_h: Vec<u8> = vec![0; vol_size];
    let mut ivg_h: Vec<u8> = vec![0; vol_size];
    // Do interpolation within a threshold over the transformed volumn
    let mut data_threshold_h: Vec<u8> = vec![0; vol_size]; // bool (one byte, 0 or 1)

    let time;
    #[omp::target_data(map(to: m_h, g_h, f_h), map(from: ivf_h, ivg_h, data_threshold_h))]
    {
        let start = Instant::now();
        for _ in 0..repeat {
            spm(m_h, vol_size, g_h, f_h, g_vol, f_vol, ivf_h, ivg_h, data_threshold_h);
        }
        time = omp_ports::seconds_since(start);
        println!("Average kernel execution time: {:.6} (ms)", time * 1e3 / repeat as f64);
    }

    // histogram over a 256x256 region
    let mut count = 0;
    for i in 0..vol_size {
        if data_threshold_h[i] != 0 {
            hist_d[ivf_h[i] as usize + ivg_h[i] as usize * 256] += 1;
            count += 1;
        }
    }
    println!("Device count: {count}");
    let device_count = count;

    // verify
    count = 0;
    spm_reference(&m_h, vol_size, &g_h, &f_h, g_vol, f_vol, &mut ivf_h, &mut ivg_h, &mut data_threshold_h);
    for i in 0..vol_size {
        if data_threshold_h[i] != 0 {
            hist_h[ivf_h[i] as usize + ivg_h[i] as usize * 256] += 1;
            count += 1;
        }
    }
    println!("Host count: {count}");

    let mut max_diff = 0;
    for i in 0..65536 {
        if hist_h[i] != hist_d[i] {
            max_diff = max_diff.max((hist_h[i] - hist_d[i]).abs());
        }
    }
    // maximum difference may increase with the volumn size
    println!("Maximum difference {max_diff}");
    omp_ports::kernel_time(time);
    omp_ports::verdict(device_count == count && max_diff == 0);
}
