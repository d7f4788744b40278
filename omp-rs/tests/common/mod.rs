//! Shared by the `offload_*` integration tests: builds the host-plugin fixture image from C at test time and
//! wraps it in an image set.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, Once, OnceLock};

use omp::__private::offload::{ImageKind, ImageSet, KernelRef};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// Kernels defined by `fixtures/kernels_host.c`.
pub(crate) const KERNELS: &[&str] = &[
    "omp_empty_0_fixture",
    "omp_saxpy_0_fixture",
    "omp_saxpyf_0_fixture",
    "omp_jacobi_0_fixture",
    "omp_dot_0_fixture",
    "omp_maxcount_0_fixture",
    "omp_oob_0_fixture",
    "omp_scale_0_fixture",
    "omp_touch4_0_fixture",
];

/// Set `OMP_TARGET_OFFLOAD` before anything in this process reads it (every test calls this first).
pub(crate) fn set_policy(value: &str) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::env::set_var("OMP_TARGET_OFFLOAD", value));
}

/// Compile `fixtures/<name>.c` into a shared object (gcc -O2 -fPIC -shared) and return its bytes.
pub(crate) fn compile_fixture(name: &str) -> Vec<u8> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(format!("{name}.c"));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.{}.so", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".into());
    let st = Command::new(&cc)
        .args(["-O2", "-fPIC", "-shared", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("cannot run `{cc}` to build the host-plugin fixture (install gcc or set CC): {e}"));
    assert!(st.success(), "{cc} failed on {}", src.display());
    let bytes = std::fs::read(&out).expect("read fixture .so");
    let _ = std::fs::remove_file(&out);
    bytes
}

/// The fixture image set (host-plugin image only), built once per process.
pub(crate) fn images() -> &'static ImageSet {
    static SET: OnceLock<&'static ImageSet> = OnceLock::new();
    SET.get_or_init(|| {
        ImageSet::leak(
            vec![(ImageKind::HostSo, "host-x86_64".into(), compile_fixture("kernels_host"))],
            KERNELS.iter().map(|s| (*s).to_owned()).collect(),
            vec![("omp_rs_fixture_dyn".into(), 16)],
        )
    })
}

/// A `KernelRef` for a fixture kernel (leaked once per name).
pub(crate) fn kernel(name: &str) -> &'static KernelRef {
    static REFS: OnceLock<Mutex<HashMap<String, &'static KernelRef>>> = OnceLock::new();
    let mut m = REFS.get_or_init(Default::default).lock().unwrap();
    m.entry(name.to_owned()).or_insert_with(|| {
        let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
        Box::leak(Box::new(KernelRef::new(images(), n)))
    })
}

/// A fresh RNG; the seed is printed so a failure can be replayed with OMP_RS_TEST_SEED.
pub(crate) fn rng(test: &str) -> StdRng {
    let seed = std::env::var("OMP_RS_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| rand::thread_rng().gen());
    eprintln!("{test}: seed {seed} (replay with OMP_RS_TEST_SEED={seed})");
    StdRng::seed_from_u64(seed)
}

pub(crate) fn random_f64(rng: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.gen_range(-10.0..10.0)).collect()
}
