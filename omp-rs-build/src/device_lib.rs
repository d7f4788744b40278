//! The `omp_device` support library: its embedded source, the per-target LLVM IR helper, and the
//! cache of compiled copies (`$OMP_RS_HOME/omp_device/<target>-<cpu>-<key>/`, keyed by a hash of
//! the source, the helper, the rustc and the target).
//!
//! GPU entries hold `libomp_device.rlib` (metadata for compiling kernels), `omp_device.bc` (its
//! code, linked whole into every kernel module) and `helper.bc`. The host entry holds a `std`
//! rlib for the host-plugin `.so`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::arch::Arch;
use crate::cache;
use crate::command::run;
use crate::error::{Error, Result};
use crate::sysroot::{self, Sysroot};
use crate::toolchain::Toolchain;

/// Source files of `omp_device` (`device/omp_device/src/`), root first.
pub const SOURCES: &[(&str, &str)] = &[
    ("lib.rs", include_str!("../device/omp_device/src/lib.rs")),
    ("abi.rs", include_str!("../device/omp_device/src/abi.rs")),
    ("affine.rs", include_str!("../device/omp_device/src/affine.rs")),
    ("atomic.rs", include_str!("../device/omp_device/src/atomic.rs")),
    ("launch.rs", include_str!("../device/omp_device/src/launch.rs")),
    ("math.rs", include_str!("../device/omp_device/src/math.rs")),
    ("nd.rs", include_str!("../device/omp_device/src/nd.rs")),
    ("panic.rs", include_str!("../device/omp_device/src/panic.rs")),
    ("print.rs", include_str!("../device/omp_device/src/print.rs")),
    ("reduce.rs", include_str!("../device/omp_device/src/reduce.rs")),
    ("spmd.rs", include_str!("../device/omp_device/src/spmd.rs")),
    ("team.rs", include_str!("../device/omp_device/src/team.rs")),
    ("view.rs", include_str!("../device/omp_device/src/view.rs")),
    // The kernel ABI's shared definitions, the same file the host crates compile (`omp-rs-abi`).
    ("abi_shared.rs", omp_rs_abi::SHARED_SOURCE),
];

/// Device globals defined by `omp_device` that every image exports (name, size in bytes).
pub const DEVICE_GLOBALS: &[(&str, u64)] = omp_rs_abi::DEVICE_GLOBALS;

const RECIPE: &str = "omp_device v1: opt3";

/// A compiled `omp_device` for one target.
#[derive(Debug, Clone)]
pub struct DeviceLib {
    /// `libomp_device.rlib`: pass as `--extern omp_device=…`.
    pub rlib: PathBuf,
    /// GPU: the library's bitcode.
    pub bitcode: Option<PathBuf>,
    /// GPU: the assembled IR helper.
    pub helper: Option<PathBuf>,
    /// The `core` sysroot it was compiled against (GPU).
    pub sysroot: Option<Sysroot>,
    /// Time spent building it in this call (`None`: cached).
    pub built_in: Option<Duration>,
}

/// Returns `omp_device` for `arch`, building the core sysroot and the library on first use.
///
/// # Errors
/// Missing toolchain or a failing compiler.
pub fn ensure(tc: &Toolchain, arch: &Arch) -> Result<DeviceLib> {
    if !arch.is_gpu() {
        return ensure_host(tc);
    }
    let sysroot = sysroot::ensure(tc, arch)?;
    let rustc = tc.device_rustc()?;
    let llvm = tc.llvm_tools()?;
    let cpu = arch.cpu().unwrap_or_default();
    let layout = data_layout(tc, arch)?;
    let helper = ir_helper(arch, &layout);
    let mut parts: Vec<&[u8]> = vec![RECIPE.as_bytes(), rustc.verbose_version.as_bytes(), sysroot.key.as_bytes()];
    parts.push(cpu.as_bytes());
    parts.push(helper.as_bytes());
    for (n, s) in SOURCES {
        parts.push(n.as_bytes());
        parts.push(s.as_bytes());
    }
    let name = format!("{}-{cpu}-{}", arch.target(), cache::key(&parts));
    let t = Instant::now();
    let (dir, built) = cache::get_or_build(&tc.home.join("omp_device"), &name, |tmp| {
        let src = write_sources(tmp)?;
        let mut cmd = Command::new(&rustc.path);
        cmd.env("RUSTC_BOOTSTRAP", "1")
            .args(["--crate-name", "omp_device", "--crate-type", "rlib", "--edition=2021"])
            .args(["-Copt-level=3", "-Cpanic=abort", "-Cdebuginfo=0", "--emit=link,llvm-bc"])
            .arg(format!("-Cmetadata=omp-device-{name}"))
            .arg("--sysroot")
            .arg(&sysroot.dir)
            .args(["--target", arch.target()])
            .arg(format!("-Ctarget-cpu={cpu}"))
            .args(sysroot::target_flags(arch))
            .arg(format!("--remap-path-prefix={}=omp_device", src.display()))
            .arg("--out-dir")
            .arg(tmp)
            .arg(src.join("src/lib.rs"));
        run(&mut cmd)?;
        let ll = tmp.join("helper.ll");
        std::fs::write(&ll, &helper).map_err(Error::io("writing", &ll))?;
        run(Command::new(&llvm.llvm_as).arg(&ll).arg("-o").arg(tmp.join("helper.bc")))?;
        std::fs::remove_dir_all(&src).map_err(Error::io("removing", &src))?;
        Ok(())
    })?;
    Ok(DeviceLib {
        rlib: dir.join("libomp_device.rlib"),
        bitcode: Some(dir.join("omp_device.bc")),
        helper: Some(dir.join("helper.bc")),
        sysroot: Some(sysroot),
        built_in: built.then(|| t.elapsed()),
    })
}

fn ensure_host(tc: &Toolchain) -> Result<DeviceLib> {
    let rustc = tc.host()?;
    let mut parts: Vec<&[u8]> = vec![RECIPE.as_bytes(), rustc.verbose_version.as_bytes(), b"host"];
    let path = rustc.path.as_os_str().as_encoded_bytes();
    parts.push(path);
    for (n, s) in SOURCES {
        parts.push(n.as_bytes());
        parts.push(s.as_bytes());
    }
    let name = format!("host-{}-{}", std::env::consts::ARCH, cache::key(&parts));
    let t = Instant::now();
    let (dir, built) = cache::get_or_build(&tc.home.join("omp_device"), &name, |tmp| {
        let src = write_sources(tmp)?;
        let mut cmd = Command::new(&rustc.path);
        cmd.args(["--crate-name", "omp_device", "--crate-type", "rlib", "--edition=2021"])
            .args(["-Copt-level=3", "-Cdebuginfo=0", "--emit=link"])
            .arg(format!("-Cmetadata=omp-device-{name}"))
            .arg(format!("--remap-path-prefix={}=omp_device", src.display()))
            .arg("--out-dir")
            .arg(tmp)
            .arg(src.join("src/lib.rs"));
        run(&mut cmd)?;
        std::fs::remove_dir_all(&src).map_err(Error::io("removing", &src))?;
        Ok(())
    })?;
    Ok(DeviceLib { rlib: dir.join("libomp_device.rlib"), bitcode: None, helper: None, sysroot: None, built_in: built.then(|| t.elapsed()) })
}

/// Writes the embedded sources to `<dir>/src/src/*.rs`; returns `<dir>/src`.
fn write_sources(dir: &Path) -> Result<PathBuf> {
    let src = dir.join("src");
    let files = src.join("src");
    std::fs::create_dir_all(&files).map_err(Error::io("creating", &files))?;
    for (n, s) in SOURCES {
        let p = files.join(n);
        std::fs::write(&p, s).map_err(Error::io("writing", &p))?;
    }
    Ok(src)
}

/// The target's LLVM data layout, as rustc uses it (so the helper links without warnings).
fn data_layout(tc: &Toolchain, arch: &Arch) -> Result<String> {
    let rustc = tc.device_rustc()?;
    let out = run(Command::new(&rustc.path).env("RUSTC_BOOTSTRAP", "1").args([
        "-Zunstable-options",
        "--print",
        "target-spec-json",
        "--target",
        arch.target(),
    ]))?;
    let spec: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| Error::Unexpected(format!("rustc --print target-spec-json: {e}")))?;
    spec.get("data-layout")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| Error::Unexpected("rustc's target spec has no data-layout".into()))
}

/// The per-target LLVM IR helper: what Rust cannot express (an `addrspace(3)` static, a
/// convergent barrier, thread exit, float `atomicrmw`).
///
/// - `__omp_rs_team_scratch()`: generic pointer to 4 KiB of team-shared memory (256 × 16 B).
/// - `__omp_rs_team_arena()`: generic pointer to the team's arena (`omp_rs_abi::TEAM_ARENA_BYTES`), where
///   kernels combine atomic updates of small arrays before adding them to global memory. Shared memory is
///   allocated per kernel for the globals it reaches, so kernels that never call this pay nothing.
/// - `__omp_rs_team_barrier()`: NVIDIA `barrier.sync 0` (waits for non-exited threads only);
///   AMD workgroup release fence + `s_barrier` + acquire fence (what HIP's `__syncthreads` is).
/// - `__omp_rs_thread_exit()`: NVIDIA `exit` (this thread), AMD `s_endpgm` (this wavefront).
/// - `__omp_rs_team_fence()`: a sequentially consistent fence of team (CTA / workgroup) scope, for the team-local
///   arrays' checks; `__omp_rs_spmd_arena_{2,4,8,16,32,48}k()`: generic pointers to shared buffers of those sizes,
///   the team memory of SPMD regions' team-local arrays (a kernel picks one at compile time).
/// - `__omp_rs_atomic_fadd_f64/_f32(p, v)`: `atomicrmw fadd` on the global address space,
///   device / agent scope, relaxed; `__omp_rs_atomic_fadd_shared_f64/_f32(p, v)` the same on the shared
///   address space (`p` points into the arena).
pub fn ir_helper(arch: &Arch, data_layout: &str) -> String {
    let (triple, barrier, exit, scope, team_fence) = match arch {
        Arch::Nvidia(_) => (
            crate::arch::NVPTX_TARGET,
            "  call void asm sideeffect \"barrier.sync 0;\", \"~{memory}\"() #2\n",
            "  call void asm sideeffect \"exit;\", \"\"() #2\n",
            "device",
            "  call void asm sideeffect \"fence.sc.cta;\", \"~{memory}\"() #2\n",
        ),
        _ => (
            crate::arch::AMDGPU_TARGET,
            "  fence syncscope(\"workgroup\") release\n  call void @llvm.amdgcn.s.barrier() #2\n  fence syncscope(\"workgroup\") acquire\n",
            "  call void @llvm.amdgcn.endpgm()\n",
            "agent",
            "  fence syncscope(\"workgroup\") seq_cst\n",
        ),
    };
    // `__omp_rs_spmd_arena_{2..48}k`: the team memory of SPMD regions' team-local arrays, one size per global.
    let mut spmd_arenas = String::new();
    for kib in [2, 4, 8, 16, 32, 48] {
        spmd_arenas.push_str(&format!(
            "@__omp_rs_spmd_arena_{kib}k_buf = internal addrspace(3) global [{slots} x i128] undef, align 16\n\n\
             define ptr @__omp_rs_spmd_arena_{kib}k() #0 {{\n  ret ptr addrspacecast (ptr addrspace(3) @__omp_rs_spmd_arena_{kib}k_buf to ptr)\n}}\n\n",
            slots = kib * 1024 / 16
        ));
    }
    let decls =
        if matches!(arch, Arch::Amd(_)) { "declare void @llvm.amdgcn.s.barrier()\ndeclare void @llvm.amdgcn.endpgm()\n" } else { "" };
    let arena_slots = omp_rs_abi::TEAM_ARENA_BYTES / 16;
    // `__omp_rs_atomic_fadd[_shared]_{f64,f32}`: one body, on global (1) or shared (3) memory.
    let mut fadds = String::new();
    for (suffix, space) in [("", 1), ("_shared", 3)] {
        for (rust, ir, align) in [("f64", "double", 8), ("f32", "float", 4)] {
            fadds.push_str(&format!(
                "define {ir} @__omp_rs_atomic_fadd{suffix}_{rust}(ptr %p, {ir} %v) #0 {{\n  %g = addrspacecast ptr %p to ptr \
                 addrspace({space})\n  %old = atomicrmw fadd ptr addrspace({space}) %g, {ir} %v syncscope(\"{scope}\") monotonic, \
                 align {align}\n  ret {ir} %old\n}}\n\n"
            ));
        }
    }
    format!(
        r#"; omp-rs device helper ({arch}), generated by omp-rs-build
target datalayout = "{data_layout}"
target triple = "{triple}"

@__omp_rs_team_scratch_buf = internal addrspace(3) global [256 x i128] undef, align 16
@__omp_rs_team_arena_buf = internal addrspace(3) global [{arena_slots} x i128] undef, align 16

define ptr @__omp_rs_team_scratch() #0 {{
  ret ptr addrspacecast (ptr addrspace(3) @__omp_rs_team_scratch_buf to ptr)
}}

define ptr @__omp_rs_team_arena() #0 {{
  ret ptr addrspacecast (ptr addrspace(3) @__omp_rs_team_arena_buf to ptr)
}}

define void @__omp_rs_team_barrier() #1 {{
{barrier}  ret void
}}

define void @__omp_rs_thread_exit() #3 {{
{exit}  unreachable
}}

define void @__omp_rs_team_fence() #0 {{
{team_fence}  ret void
}}

{spmd_arenas}
{fadds}
{decls}
attributes #0 = {{ alwaysinline nounwind }}
attributes #1 = {{ alwaysinline convergent nounwind }}
attributes #2 = {{ convergent nounwind }}
attributes #3 = {{ noreturn nounwind }}
"#
    )
}
