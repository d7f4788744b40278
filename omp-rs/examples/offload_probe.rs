//! Measures the offload runtime's fixed costs and a resident saxpy, on whatever device the images fit.
//!
//! ```text
//! cargo run --release -p omp-rs --example offload_probe -- [--image KIND:ARCH:PATH]... [--n-log2 26] [--reps 2000]
//!     [--empty NAME] [--saxpy NAME] [--touch4 NAME] [--device N]
//! ```
//! KIND is `cubin`, `amd` or `host`. Without `--image`, the host-plugin fixture (`tests/fixtures/kernels_host.c`) is
//! compiled with `$CC`/gcc. Kernel names default to the fixture's; images from omp-rs-build must contain kernels with
//! these ABI v1 slots (after `dyn_ptr`):
//! - empty:  none                                   (`fn(dyn)`)
//! - saxpy:  a: f64 bits, x: (ptr, len), y: (ptr, len), dim i: (first, count, step);  `y[i] = a * x[i] + y[i]`
//! - touch4: a, b, c, d: (ptr, len) each f64;  adds 1.0 to element 0 of each (any body works)
//!
//! On the H200 (lead): build a cubin with those three kernels, carry the binary and the cubin, then
//! `OMP_TARGET_OFFLOAD=MANDATORY ./offload_probe --image cubin:sm_90:probe.sm90.cubin --empty E --saxpy S --touch4 T`.
//! `OMP_RS_CUDA_SCHED=keep` shows libomptarget's own BLOCKING_SYNC choice for comparison.
use std::time::Instant;

use omp::__private::offload::{launch, scope, should_offload, ArgPack, Decision, Device, Geometry, ImageKind, ImageSet, KernelRef};
use omp::DataRegion;

struct Opts {
    images: Vec<(ImageKind, String, Vec<u8>)>,
    n_log2: u32,
    reps: usize,
    empty: String,
    saxpy: String,
    touch4: String,
    device: Option<i64>,
}

fn parse() -> Opts {
    let mut o = Opts {
        images: Vec::new(),
        n_log2: 26,
        reps: 2000,
        empty: "omp_empty_0_fixture".into(),
        saxpy: "omp_saxpy_0_fixture".into(),
        touch4: "omp_touch4_0_fixture".into(),
        device: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--image" => {
                let v = val();
                let mut p = v.splitn(3, ':');
                let (kind, arch, path) = (p.next().unwrap_or(""), p.next().unwrap_or(""), p.next().unwrap_or(""));
                let kind = match kind {
                    "cubin" => ImageKind::Cubin,
                    "amd" => ImageKind::AmdCodeObject,
                    "host" => ImageKind::HostSo,
                    k => panic!("--image KIND:ARCH:PATH, KIND is cubin, amd or host (got {k:?})"),
                };
                let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
                o.images.push((kind, arch.to_owned(), bytes));
            }
            "--n-log2" => o.n_log2 = val().parse().expect("--n-log2 N"),
            "--reps" => o.reps = val().parse().expect("--reps N"),
            "--empty" => o.empty = val(),
            "--saxpy" => o.saxpy = val(),
            "--touch4" => o.touch4 = val(),
            "--device" => o.device = Some(val().parse().expect("--device N")),
            "-h" | "--help" => {
                println!("see the doc comment of omp-rs/examples/offload_probe.rs");
                std::process::exit(0);
            }
            other => panic!("unknown argument {other}"),
        }
    }
    if o.images.is_empty() {
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kernels_host.c");
        let out = std::env::temp_dir().join(format!("omp_rs_probe_{}.so", std::process::id()));
        let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".into());
        let st = std::process::Command::new(&cc).args(["-O2", "-fPIC", "-shared", "-o"]).arg(&out).arg(src).status();
        assert!(st.map(|s| s.success()).unwrap_or(false), "no --image given and `{cc} {src}` failed");
        o.images.push((ImageKind::HostSo, "host-x86_64".into(), std::fs::read(&out).unwrap()));
        let _ = std::fs::remove_file(&out);
    }
    o
}

/// Best of 5 means over `reps` calls, in µs.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed().as_secs_f64() * 1e6 / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// saxpy's ABI v1 slots over a region holding x (0) and y (1): a = 2.0, x, y, dim 0..n.
fn saxpy_args<'r>(r: &'r DataRegion<'_>, n: usize) -> ArgPack<'r> {
    ArgPack::new().scalar(2.0f64).present(r.arg::<f64>(0).unwrap()).present(r.arg::<f64>(1).unwrap()).dim(0, n as u64, 1)
}

fn main() {
    let o = parse();
    let archs: Vec<String> = o.images.iter().map(|i| i.1.clone()).collect();
    let t0 = Instant::now();
    let set = ImageSet::leak(o.images, vec![o.empty.clone(), o.saxpy.clone(), o.touch4.clone()], vec![]);
    let kref = |n: &str| -> &'static KernelRef { Box::leak(Box::new(KernelRef::new(set, Box::leak(n.to_owned().into_boxed_str())))) };
    let (ke, ks, k4) = (kref(&o.empty), kref(&o.saxpy), kref(&o.touch4));
    let d: Device = match should_offload(ke, o.device, true) {
        Ok(Decision::Offload(d)) => d,
        Ok(Decision::Host(r)) => {
            eprintln!("not offloading: {r}");
            std::process::exit(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    };
    println!("images {archs:?}; {d} of {}; registration + init {:.1} ms", omp::get_num_devices(), t0.elapsed().as_secs_f64() * 1e3);
    let g1 = Geometry { num_teams: Some(1), thread_limit: Some(1), iterations: 1 };
    let reps = o.reps;

    // 1. Empty kernel, no arguments.
    let t_first = Instant::now();
    launch(ke, d, ArgPack::new(), g1).unwrap();
    let first = t_first.elapsed().as_secs_f64() * 1e6;
    let empty = time(reps, || {
        launch(ke, d, ArgPack::new(), g1).unwrap();
    });

    // 2-4. Resident data: four 4 KiB arrays mapped by a region.
    let (mut a, mut b, mut c, mut e) = (vec![0.0f64; 512], vec![0.0f64; 512], vec![0.0f64; 512], vec![0.0f64; 512]);
    let (pair, res4, nw) = {
        let region = DataRegion::builder().tofrom(&mut a).tofrom(&mut b).tofrom(&mut c).tofrom(&mut e).begin().unwrap();
        let pair = time(reps, || {
            let inner = DataRegion::builder().to(region.host::<f64>(0).unwrap()).begin().unwrap();
            drop(inner);
        });
        let args = || {
            ArgPack::new()
                .present(region.arg::<f64>(0).unwrap())
                .present(region.arg::<f64>(1).unwrap())
                .present(region.arg::<f64>(2).unwrap())
                .present(region.arg::<f64>(3).unwrap())
        };
        let res4 = time(reps, || {
            launch(k4, d, args(), g1).unwrap();
        });
        // nowait: queue `reps` launches, then wait for all (per-launch cost seen by the host thread).
        let nw = (0..5)
            .map(|_| {
                let t = Instant::now();
                scope(|s| {
                    let p: Vec<_> = (0..reps).map(|_| s.launch_nowait(k4, d, args(), g1)).collect();
                    p.into_iter().for_each(|p| {
                        p.wait().unwrap();
                    });
                })
                .unwrap();
                t.elapsed().as_secs_f64() * 1e6 / reps as f64
            })
            .fold(f64::INFINITY, f64::min);
        (pair, res4, nw)
    };
    // 5. Four arrays mapped tofrom by the launch itself (alloc + copy in + copy out + free each time).
    let fresh4 = time(reps, || {
        launch(k4, d, ArgPack::new().tofrom(&mut a).tofrom(&mut b).tofrom(&mut c).tofrom(&mut e), g1).unwrap();
    });
    println!("first launch (image load)                  {first:9.1} µs");
    println!("empty launch, no args                      {empty:9.2} µs");
    println!("begin/end pair on present data (4 KiB)     {pair:9.2} µs");
    println!("launch, 4 resident args (present)          {res4:9.2} µs");
    println!("launch, 4 args mapped tofrom (4 KiB each)  {fresh4:9.2} µs");
    println!("nowait launch + wait, 4 resident args      {nw:9.2} µs per launch ({reps} queued)");

    // 6. saxpy, n = 2^n_log2 f64, resident.
    let n = 1usize << o.n_log2;
    let x: Vec<f64> = (0..n).map(|i| (i % 1000) as f64 * 0.5).collect();
    let mut y: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    let t = Instant::now();
    let mut region = DataRegion::builder().to(&x).tofrom(&mut y).begin().unwrap();
    let map_s = t.elapsed().as_secs_f64();
    let geo = Geometry::for_iterations(n as u64);
    let iters = if n >= 1 << 24 { 10 } else { 100 };
    let out = launch(ks, d, saxpy_args(&region, n), geo).unwrap();
    let (teams, threads) = out.ran().map(|r| (r.teams, r.threads)).unwrap_or((0, 0));
    drop(out);
    let mut best = f64::INFINITY;
    for _ in 0..iters {
        let t = Instant::now();
        launch(ks, d, saxpy_args(&region, n), geo).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
    }
    region.update_from(1).unwrap();
    let yk = region.host::<f64>(1).unwrap();
    let runs = (1 + iters) as f64;
    let bad = (0..n).step_by(n / 1024 + 1).filter(|&i| yk[i] != (i % 7) as f64 + runs * 2.0 * x[i]).count();
    drop(region);
    let gbs = 24.0 * n as f64 / best / 1e9;
    println!(
        "saxpy n=2^{} resident: {:.1} µs/launch best of {iters} = {gbs:.1} GB/s (24 B/elem), grid {teams}x{threads}; \
         initial map (to x, tofrom y) {:.1} ms; check {}",
        o.n_log2,
        best * 1e6,
        map_s * 1e3,
        if bad == 0 { "PASS".to_owned() } else { format!("FAIL ({bad} wrong samples)") }
    );
}
