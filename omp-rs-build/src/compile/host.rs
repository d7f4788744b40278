//! Host plugin: a `std` cdylib exporting the kernels as `extern "C"` symbols.
//!
//! Built with the host rustc (the device rustc when present: the same compiler and the same
//! omp_device source for every image; otherwise cargo's rustc). `panic=unwind`, so `host_guard`
//! can catch a kernel panic and the launch returns normally.

use std::process::Command;

use super::{Image, Job, Timings};
use crate::command::run_timed;
use crate::error::Result;

pub(super) fn compile(job: &Job<'_>) -> Result<Image> {
    let rustc = job.tc.host()?;
    let mut cmd = Command::new(&rustc.path);
    // strip: std's debug info would make the image (embedded in every user binary) ~10 MB;
    // the kernels stay in .dynsym, which is all dlsym needs
    cmd.args(["--crate-type", "cdylib", "-Cpanic=unwind", "-Cstrip=symbols"]).arg("-o").arg(job.image);
    job.rustc_common(&mut cmd);
    let (out, dt) = run_timed(&mut cmd)?;
    let t = Timings { rustc: dt, ..Timings::default() };
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
