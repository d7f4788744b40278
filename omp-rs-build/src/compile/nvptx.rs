//! NVIDIA: PTX via LLVM, cubin via ptxas.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{occupancy, ptxas, Image, Job, KernelResources, Timings};
use crate::command::run_timed;
use crate::error::{Error, Result};
use crate::toolchain::LlvmTools;

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
    let (rustc_out, dt) = run_timed(&mut cmd).map_err(super::kernels_do_not_compile(job.arch))?;
    t.rustc = dt;

    // omp_device whole (its panic handler is only referenced by core, linked after it), then only
    // what is referenced from core, the helper and libdevice.
    let a =
        super::remainder::link_exact(&llvm.link, &w.join("kernels.bc"), bitcode, &w.join("kernels+dev.ll"), super::remainder::LIBDEVICE)?;
    let (_, b) = run_timed(
        Command::new(&llvm.link)
            .args(["--only-needed", "--ignore-non-bitcode"])
            .arg(w.join("kernels+dev.ll"))
            .arg(sysroot.core_rlib())
            .arg(helper)
            .arg(&cuda.libdevice)
            .arg("-o")
            .arg(w.join("linked.bc")),
    )?;
    t.link = a + b;
    // -mcpu here resolves __nvvm_reflect before O3 (otherwise libdevice keeps both paths). `__CUDA_FTZ` stays 0:
    // Rust keeps subnormals.
    t.opt = run_timed(
        Command::new(&llvm.opt)
            .args([&triple, &mcpu])
            .arg(super::FpModel::from_env()?.nvvm_prec_sqrt())
            .arg(format!("--internalize-public-api-list={}", job.krate.export_list().join(",")))
            .arg("-passes=internalize,default<O3>,globaldce")
            .args(extra_args("OMP_RS_OPT_ARGS"))
            .arg(w.join("linked.bc"))
            .arg("-o")
            .arg(w.join("opt.bc")),
    )?
    .1;
    let ptx = job.image.with_extension("ptx");
    t.llc = run_timed(llc(llvm, &triple, &mcpu)?.arg(w.join("opt.bc")).arg("-o").arg(&ptx))?.1;
    let (mut log, dt) = ptxas(&cuda.ptxas, &cpu, &ptx, job.image)?;
    t.finish = dt;
    let mut resources = ptxas::parse(&log);
    let t0 = Instant::now();
    match place_for_occupancy(job, (llvm, &triple, &mcpu), (&cuda.ptxas, &cpu), &ptx, &resources) {
        Ok(Some((l, r))) => (log, resources) = (l, r),
        Ok(None) => {}
        // Only speed is at stake: the image of the default placement stands, and the log says why.
        Err(e) => log.push_str(&format!("\nomp-rs: kept LLVM's default placement for every kernel: {e}\n")),
    }
    t.occupancy = t0.elapsed();
    let log_path = job.image.with_extension("ptxas.log");
    std::fs::write(&log_path, &log).map_err(Error::io("writing", &log_path))?;
    Ok(Image {
        arch: job.arch.clone(),
        kind: job.arch.image_kind(),
        path: job.image.to_path_buf(),
        ptx: Some(ptx),
        ptxas_log: Some(log_path),
        resources,
        diagnostics: String::from_utf8_lossy(&rustc_out.stderr).into_owned(),
        timings: t,
    })
}

/// `llc -O3` for the target, with the floating point `OMP_RS_FP_CONTRACT` and `OMP_RS_FAST_MATH` ask for.
fn llc(llvm: &LlvmTools, triple: &str, mcpu: &str) -> Result<Command> {
    let mut c = Command::new(&llvm.llc);
    c.args(["-O3", triple, mcpu]).args(super::FpModel::from_env()?.llc_args(true));
    Ok(c)
}

/// `ptxas -v` of `ptx` into `cubin`: the log (stdout and stderr) and the time it took.
fn ptxas(ptxas: &Path, cpu: &str, ptx: &Path, cubin: &Path) -> Result<(String, Duration)> {
    let (out, dt) = run_timed(
        Command::new(ptxas)
            .arg(format!("-arch={cpu}"))
            .args(["-O3", "-v"])
            .args(extra_args("OMP_RS_PTXAS_ARGS"))
            .arg(ptx)
            .arg("-o")
            .arg(cubin),
    )?;
    let mut log = String::from_utf8_lossy(&out.stdout).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok((log, dt))
}

/// [`occupancy`]: compiles the kernels whose registers keep teams off the SM once more without LLVM's machine sinking and
/// keeps each one that fits more teams per SM that way. When any is kept, `ptx` and the image are replaced by the
/// mixed module and its ptxas log and resources are returned; `None` when every kernel keeps the default placement.
fn place_for_occupancy(
    job: &Job<'_>,
    (llvm, triple, mcpu): (&LlvmTools, &str, &str),
    (ptxas_path, cpu): (&Path, &str),
    ptx: &Path,
    sunk: &[KernelResources],
) -> Result<Option<(String, Vec<KernelResources>)>> {
    let Some(max_warps) = occupancy::max_warps_per_sm(cpu) else { return Ok(None) };
    let wanted = occupancy::candidates(sunk, max_warps);
    if wanted.is_empty() {
        return Ok(None);
    }
    let w = job.work;
    let unsunk_ptx = w.join("unsunk.ptx");
    run_timed(llc(llvm, triple, mcpu)?.arg("-disable-machine-sink").arg(w.join("opt.bc")).arg("-o").arg(&unsunk_ptx))?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(Error::io("reading", p));
    let write = |p: &Path, text: &str| std::fs::write(p, text).map_err(Error::io("writing", p));
    let (base, unsunk_text) = (read(ptx)?, read(&unsunk_ptx)?);
    // Only the candidates, so that this second ptxas run costs what they cost.
    let trial = w.join("unsunk-candidates.ptx");
    write(&trial, &occupancy::only_entries(&unsunk_text, &wanted))?;
    let unsunk = ptxas::parse(&ptxas(ptxas_path, cpu, &trial, &w.join("unsunk-candidates.cubin"))?.0);
    let find = |all: &[KernelResources], name: &str| all.iter().find(|k| k.name == name).cloned();
    let chosen: Vec<String> = wanted
        .into_iter()
        .filter(|n| matches!((find(sunk, n), find(&unsunk, n)), (Some(a), Some(b)) if occupancy::better(&a, &b, max_warps)))
        .collect();
    if chosen.is_empty() {
        return Ok(None);
    }
    let mixed = occupancy::splice(&base, &unsunk_text, &chosen)
        .ok_or_else(|| Error::Unexpected(format!("an entry of {chosen:?} is missing from llc's PTX")))?;
    // Assembled beside the default image first: a failure leaves that one in place.
    let (mixed_ptx, mixed_cubin) = (w.join("mixed.ptx"), w.join("mixed.cubin"));
    write(&mixed_ptx, &mixed)?;
    let log = ptxas(ptxas_path, cpu, &mixed_ptx, &mixed_cubin)?.0;
    std::fs::rename(&mixed_cubin, job.image).map_err(Error::io("replacing", job.image))?;
    write(ptx, &mixed)?;
    let mut resources = ptxas::parse(&log);
    for k in resources.iter_mut().filter(|k| chosen.contains(&k.name)) {
        k.sunk_registers = find(sunk, &k.name).map(|s| s.registers);
    }
    Ok(Some((log, resources)))
}

/// More arguments for a stage, split at whitespace, from `OMP_RS_OPT_ARGS` (LLVM `opt`) or `OMP_RS_PTXAS_ARGS`: tuning
/// knobs for A/B runs (e.g. `--maxrregcount=64`); the images are rebuilt when they change.
fn extra_args(var: &str) -> Vec<String> {
    std::env::var(var).map(|v| v.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
}
