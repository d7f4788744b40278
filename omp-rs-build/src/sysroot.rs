//! `core` sysroots for GPU targets, built once per (rustc, target, cpu) and cached in
//! `$OMP_RS_HOME/sysroot/<target>-<cpu>-<key>/` (outside every target dir, shared by all projects).
//!
//! The "direct route" of docs/device-toolchain.md: `rustc` on the toolchain's own
//! `library/core` source plus an empty `compiler_builtins` (rustc injects `extern crate
//! compiler_builtins` into every `no_std` crate). Only `.rlib`s are kept: kernels compile against
//! an rlib's embedded metadata, so the 40 MB `.rmeta` is never emitted.
//!
//! - **one core per CPU on both vendors.** A single sm_90 core *links* into an sm_80 kernel
//!   (`.target sm_80`, ptxas accepts it), but LLVM's default inline check compares the
//!   `target-cpu`/`target-features` attributes exactly, so no non-generic core function is
//!   inlined across SMs (measured: the sm_80 build kept `core::fmt` code from
//!   `panic_bounds_check` that the sm_90 build optimises away), and each function keeps its own
//!   subtarget in `llc`, which could put sm_90-only instructions into sm_80 PTX. Same on AMD (a
//!   gfx90a core in a gfx942 kernel left `s_swappc` calls). Each build costs ~20 s once per machine.
//! - amdgcn: built with
//!   `-Clinker-plugin-lto` so its members are bitcode.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::arch::Arch;
use crate::cache;
use crate::command::run;
use crate::error::{Error, Result};
use crate::toolchain::{DeviceRustc, Toolchain};

/// Bump when the recipe below changes, to invalidate existing caches.
const RECIPE: &str = "omp-rs core sysroot v1: opt3 panic=abort embed-bitcode";

/// A `core` sysroot for one GPU target and CPU.
#[derive(Debug, Clone)]
pub struct Sysroot {
    /// Pass as `--sysroot`.
    pub dir: PathBuf,
    /// Target triple.
    pub target: &'static str,
    /// The `-Ctarget-cpu` core was built for.
    pub cpu: String,
    /// Cache key (directory name).
    pub key: String,
    /// Time spent building it in this call (`None`: it was cached).
    pub built_in: Option<Duration>,
}

impl Sysroot {
    /// `…/lib/rustlib/<target>/lib`.
    pub fn lib_dir(&self) -> PathBuf {
        self.dir.join("lib/rustlib").join(self.target).join("lib")
    }
    /// `libcore.rlib` (bitcode members).
    pub fn core_rlib(&self) -> PathBuf {
        self.lib_dir().join("libcore.rlib")
    }
}

/// The cpu `core` is built for on `arch` (see the module docs).
pub fn sysroot_cpu(arch: &Arch) -> Option<String> {
    match arch {
        Arch::Nvidia(sm) => Some(format!("sm_{sm}")),
        Arch::Amd(gfx) => Some(gfx.clone()),
        Arch::Host => None,
    }
}

/// Extra codegen flags for a GPU target (core, omp_device and kernels alike).
pub(crate) fn target_flags(arch: &Arch) -> &'static [&'static str] {
    match arch {
        // bitcode rlib members on AMD (nvptx members are bitcode anyway)
        Arch::Amd(_) => &["-Clinker-plugin-lto"],
        _ => &[],
    }
}

/// Returns the sysroot for a GPU `arch`, building it on first use (~20 s, once).
///
/// # Errors
/// Missing toolchain, or rustc failing to build `core`.
pub fn ensure(tc: &Toolchain, arch: &Arch) -> Result<Sysroot> {
    let rustc = tc.device_rustc()?;
    let cpu = sysroot_cpu(arch).ok_or_else(|| Error::Unexpected("the host image needs no core sysroot".into()))?;
    let target = arch.target();
    let flags = target_flags(arch);
    let key = cache::key(&[
        RECIPE.as_bytes(),
        rustc.verbose_version.as_bytes(),
        rustc.path.as_os_str().as_encoded_bytes(),
        target.as_bytes(),
        cpu.as_bytes(),
        flags.join(" ").as_bytes(),
    ]);
    let name = format!("{target}-{cpu}-{key}");
    let t = Instant::now();
    let (dir, built) = cache::get_or_build(&tc.home.join("sysroot"), &name, |tmp| build(rustc, target, &cpu, flags, tmp))?;
    Ok(Sysroot { dir, target, cpu, key: name, built_in: built.then(|| t.elapsed()) })
}

/// `edition = "2024"` from `library/core/Cargo.toml` (the edition core's source needs).
fn core_edition(rustc: &DeviceRustc) -> String {
    std::fs::read_to_string(rustc.library.join("core/Cargo.toml"))
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                let l = l.trim();
                l.strip_prefix("edition").and_then(|r| r.trim_start().strip_prefix('=')).map(|v| v.trim().trim_matches('"').to_string())
            })
        })
        .unwrap_or_else(|| "2024".into())
}

fn build(rustc: &DeviceRustc, target: &str, cpu: &str, flags: &[&str], tmp: &Path) -> Result<()> {
    let lib = tmp.join("lib/rustlib").join(target).join("lib");
    std::fs::create_dir_all(&lib).map_err(Error::io("creating", &lib))?;
    let base = |cmd: &mut Command| {
        cmd.env("RUSTC_BOOTSTRAP", "1")
            .args(["--crate-type", "lib", "--emit=link", "-Copt-level=3", "-Cpanic=abort", "-Cdebuginfo=0"])
            .args(["-Cembed-bitcode=yes", "-Zforce-unstable-if-unmarked", "--cap-lints", "allow"])
            .arg("--target")
            .arg(target)
            .arg(format!("-Ctarget-cpu={cpu}"))
            .args(flags)
            .arg("--out-dir")
            .arg(&lib);
    };
    let mut core = Command::new(&rustc.path);
    core.args(["--crate-name", "core", "-Cmetadata=omp-rs-core"])
        .arg(format!("--edition={}", core_edition(rustc)))
        .arg(rustc.library.join("core/src/lib.rs"));
    base(&mut core);
    run(&mut core)?;
    let cb = tmp.join("compiler_builtins.rs");
    std::fs::write(&cb, "#![feature(compiler_builtins)]\n#![compiler_builtins]\n#![no_std]\n").map_err(Error::io("writing", &cb))?;
    let mut stub = Command::new(&rustc.path);
    stub.args(["--crate-name", "compiler_builtins", "--edition=2021", "-Cmetadata=omp-rs-cb"]).arg(&cb).arg("--sysroot").arg(tmp);
    base(&mut stub);
    run(&mut stub)?;
    let _ = std::fs::remove_file(&cb);
    Ok(())
}
