//! NVIDIA: PTX via LLVM, cubin via ptxas.

use std::process::Command;

use super::{ptxas, Image, Job, Timings};
use crate::command::run_timed;
use crate::error::{Error, Result};

pub(super) fn compile(job: &Job<'_>) -> Result<Image> {
    let (rustc, llvm, cuda) = (job.tc.device_rustc()?, job.tc.llvm_tools()?, job.tc.cuda_tools()?);
    let sysroot = job.lib.sysroot.as_ref().ok_or_else(|| Error::Unexpected("omp_device without sysroot".into()))?;
    let (bitcode, helper) = match (&job.lib.bitcode, &job.lib.helper) {
        (Some(b), Some(h)) => (b, h),
        _ => return Err(Error::Unexpected("omp_device without bitcode".into())),
    };
    let cpu = job.arch.cpu().unwrap_or_default();
    let triple = format!("-mtriple={}", job.arch.target());
    let mcpu = format!("-mcpu={cpu}");
    let w = job.work;
    let mut t = Timings::default();

    let mut cmd = Command::new(&rustc.path);
    cmd.env("RUSTC_BOOTSTRAP", "1")
        .args(["--crate-type", "rlib", "-Cpanic=abort", "--emit=llvm-bc", "--target", job.arch.target()])
        .arg(format!("-Ctarget-cpu={cpu}"))
        .arg("--sysroot")
        .arg(&sysroot.dir)
        .arg("-o")
        .arg(w.join("kernels.bc"));
    job.rustc_common(&mut cmd);
    let (rustc_out, dt) = run_timed(&mut cmd)?;
    t.rustc = dt;

    // omp_device whole (its panic handler is only referenced by core, linked after it), then only
    // what is referenced from core, the helper and libdevice.
    let (_, a) = run_timed(Command::new(&llvm.link).arg(w.join("kernels.bc")).arg(bitcode).arg("-o").arg(w.join("kernels+dev.bc")))?;
    let (_, b) = run_timed(
        Command::new(&llvm.link)
            .args(["--only-needed", "--ignore-non-bitcode"])
            .arg(w.join("kernels+dev.bc"))
            .arg(sysroot.core_rlib())
            .arg(helper)
            .arg(&cuda.libdevice)
            .arg("-o")
            .arg(w.join("linked.bc")),
    )?;
    t.link = a + b;
    // -mcpu here resolves __nvvm_reflect before O3 (otherwise libdevice keeps both paths).
    t.opt = run_timed(
        Command::new(&llvm.opt)
            .args([&triple, &mcpu])
            .arg(format!("--internalize-public-api-list={}", job.krate.export_list().join(",")))
            .arg("-passes=internalize,default<O3>,globaldce")
            .args(extra_args("OMP_RS_OPT_ARGS"))
            .arg(w.join("linked.bc"))
            .arg("-o")
            .arg(w.join("opt.bc")),
    )?
    .1;
    let ptx = job.image.with_extension("ptx");
    t.llc = run_timed(Command::new(&llvm.llc).args(["-O3", &triple, &mcpu]).arg(w.join("opt.bc")).arg("-o").arg(&ptx))?.1;
    let (out, dt) = run_timed(
        Command::new(&cuda.ptxas)
            .arg(format!("-arch={cpu}"))
            .args(["-O3", "-v"])
            .args(extra_args("OMP_RS_PTXAS_ARGS"))
            .arg(&ptx)
            .arg("-o")
            .arg(job.image),
    )?;
    t.finish = dt;
    let mut log = String::from_utf8_lossy(&out.stdout).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    let log_path = job.image.with_extension("ptxas.log");
    std::fs::write(&log_path, &log).map_err(Error::io("writing", &log_path))?;
    Ok(Image {
        arch: job.arch.clone(),
        kind: job.arch.image_kind(),
        path: job.image.to_path_buf(),
        ptx: Some(ptx),
        ptxas_log: Some(log_path),
        resources: ptxas::parse(&log),
        diagnostics: String::from_utf8_lossy(&rustc_out.stderr).into_owned(),
        timings: t,
    })
}

/// More arguments for a stage, split at whitespace, from `OMP_RS_OPT_ARGS` (LLVM `opt`) or `OMP_RS_PTXAS_ARGS`: tuning
/// knobs for A/B runs (e.g. `--maxrregcount=64`); the images are rebuilt when they change.
fn extra_args(var: &str) -> Vec<String> {
    std::env::var(var).map(|v| v.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
}
