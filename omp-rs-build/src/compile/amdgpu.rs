//! AMD: code object v5 via llc + ld.lld, with the ROCm device libraries linked as bitcode.

use std::process::Command;

use super::{Image, Job, Timings};
use crate::arch::Arch;
use crate::command::run_timed;
use crate::error::{Error, Result};

pub(super) fn compile(job: &Job<'_>) -> Result<Image> {
    let (rustc, llvm, rocm) = (job.tc.device_rustc()?, job.tc.llvm_tools()?, job.tc.rocm_tools()?);
    let sysroot = job.lib.sysroot.as_ref().ok_or_else(|| Error::Unexpected("omp_device without sysroot".into()))?;
    let (bitcode, helper) = match (&job.lib.bitcode, &job.lib.helper) {
        (Some(b), Some(h)) => (b, h),
        _ => return Err(Error::Unexpected("omp_device without bitcode".into())),
    };
    let Arch::Amd(gfx) = job.arch else {
        return Err(Error::Unexpected("amdgpu back end called for another arch".into()));
    };
    let libs = rocm.libraries(gfx)?;
    let triple = format!("-mtriple={}", job.arch.target());
    let mcpu = format!("-mcpu={gfx}");
    let w = job.work;
    let mut t = Timings::default();

    let mut cmd = Command::new(&rustc.path);
    cmd.env("RUSTC_BOOTSTRAP", "1")
        .args(["--crate-type", "rlib", "-Cpanic=abort", "--emit=llvm-bc", "--target", job.arch.target()])
        .arg(format!("-Ctarget-cpu={gfx}"))
        .args(crate::sysroot::target_flags(job.arch))
        .arg("--sysroot")
        .arg(&sysroot.dir)
        .arg("-o")
        .arg(w.join("kernels.bc"));
    job.rustc_common(&mut cmd);
    let (out, dt) = run_timed(&mut cmd).map_err(super::kernels_do_not_compile(job.arch))?;
    t.rustc = dt;

    let a = super::remainder::link_exact(&llvm.link, &w.join("kernels.bc"), bitcode, &w.join("kernels+dev.ll"), super::remainder::OCML)?;
    let (_, b) = run_timed(
        Command::new(&llvm.link)
            .args(["--only-needed", "--ignore-non-bitcode"])
            .arg(w.join("kernels+dev.ll"))
            .arg(sysroot.core_rlib())
            .arg(helper)
            .args(&libs)
            .arg("-o")
            .arg(w.join("linked.bc")),
    )?;
    t.link = a + b;
    t.opt = run_timed(
        Command::new(&llvm.opt)
            .args([&triple, &mcpu])
            .arg(format!("--internalize-public-api-list={}", job.krate.export_list().join(",")))
            .arg("-passes=internalize,default<O3>,globaldce")
            .arg(w.join("linked.bc"))
            .arg("-o")
            .arg(w.join("opt.bc")),
    )?
    .1;
    // LLVM 22 defaults to code object v6, which needs a recent ROCm runtime; v5 loads on ROCm ≥ 5.
    t.llc = run_timed(
        Command::new(&llvm.llc)
            .args(["-O3", &triple, &mcpu, "--amdhsa-code-object-version=5", "-filetype=obj"])
            .args(super::FpModel::from_env()?.llc_args(false))
            .arg(w.join("opt.bc"))
            .arg("-o")
            .arg(w.join("kernels.o")),
    )?
    .1;
    t.finish = run_timed(Command::new(&llvm.lld).args(["-shared", "--no-undefined"]).arg(w.join("kernels.o")).arg("-o").arg(job.image))?.1;
    Ok(Image {
        arch: job.arch.clone(),
        kind: job.arch.image_kind(),
        path: job.image.to_path_buf(),
        ptx: None,
        ptxas_log: None,
        resources: Vec::new(),
        diagnostics: String::from_utf8_lossy(&out.stderr).into_owned(),
        timings: t,
    })
}
