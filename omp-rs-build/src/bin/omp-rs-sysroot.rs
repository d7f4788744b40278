//! `omp-rs-sysroot [ARCHES]`: builds (or finds) the cached `core` sysroots and `omp_device`
//! libraries for the given arches (default `sm_90,gfx90a,gfx942,host`), so the first package build
//! is fast. Run by `scripts/setup-gpu-toolchain.sh`; prints what it did and the times.

use std::process::ExitCode;
use std::time::Instant;

use omp_build::{device_lib, Arch, Toolchain};

fn main() -> ExitCode {
    let list = std::env::args().nth(1).unwrap_or_else(|| "sm_90,gfx90a,gfx942,host".into());
    let archs = match Arch::parse_list(&list) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("omp-rs-sysroot: {e}");
            return ExitCode::from(2);
        }
    };
    let tc = Toolchain::discover();
    if let Ok(r) = &tc.rustc {
        println!("omp-rs-sysroot: device rustc {} ({}), cache {}", r.release, r.path.display(), tc.home.display());
    }
    let mut failed = false;
    for a in &archs {
        if let Err(e) = tc.check(a) {
            println!("omp-rs-sysroot: {a}: skipped: {e}");
            failed = true;
            continue;
        }
        let t = Instant::now();
        match device_lib::ensure(&tc, a) {
            Ok(lib) => {
                let core = match &lib.sysroot {
                    Some(s) => match s.built_in {
                        Some(d) => format!("core built in {:.1} s", d.as_secs_f64()),
                        None => "core cached".into(),
                    },
                    None => "no core needed".into(),
                };
                let dev = match lib.built_in {
                    Some(d) => format!("omp_device built in {:.1} s", d.as_secs_f64()),
                    None => "omp_device cached".into(),
                };
                println!("omp-rs-sysroot: {a}: {core}, {dev} ({:.1} s) -> {}", t.elapsed().as_secs_f64(), lib.rlib.display());
            }
            Err(e) => {
                println!("omp-rs-sysroot: {a}: FAILED: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
