//! Command line (clap).

use crate::harness::Size;
use clap::Parser;
use std::path::PathBuf;

/// RAJAPerf-style benchmark suite for omp-rs: seq, rayon, C OpenMP, omp-rs CPU and GPU variants.
#[derive(Debug, Parser)]
#[command(name = "omp-bench", version)]
pub struct Args {
    /// Kernels or groups, comma-separated (e.g. Stream_TRIAD,Apps). Default: all.
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,

    /// Variants, comma-separated (see --list).
    #[arg(long, value_delimiter = ',', default_value = "seq,rayon,c-omp")]
    pub variants: Vec<String>,

    /// Target problem size: small, default (RAJAPerf's, 1e6) or a number such as 4e6.
    #[arg(long, default_value = "default", value_parser = Size::parse)]
    pub size: Size,

    /// Reps for every kernel (default: each kernel's RAJAPerf reps).
    #[arg(long)]
    pub reps: Option<usize>,

    /// Timed passes per kernel variant; the median is reported.
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,

    /// Skip the untimed 1-rep warm-up pass of each kernel variant.
    #[arg(long)]
    pub no_warmup: bool,

    /// Variant the time ratios and plots are relative to. Checksums are always checked against
    /// seq when the results contain it (else against this variant).
    #[arg(long, default_value = "seq")]
    pub baseline: String,

    /// Bandwidth ceiling in GB/s instead of measuring a copy kernel.
    #[arg(long)]
    pub ceiling_gbs: Option<f64>,

    /// Bandwidth ceiling in GB/s of omp-gpu when it runs on an offload device, e.g. the device
    /// copy kernel the CUDA baseline measured (`bench/gpu-run.sh` passes it). Without it, omp-gpu
    /// on a device has no ceiling (the CPU copy kernel does not apply to it).
    #[arg(long)]
    pub device_ceiling_gbs: Option<f64>,

    /// Write results as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// Write the Markdown report to a file (it is always printed to stdout).
    #[arg(long)]
    pub markdown: Option<PathBuf>,

    /// Write SVG plots (time ratio, bandwidth) into this directory.
    #[arg(long)]
    pub plot: Option<PathBuf>,

    /// Merge JSON result files (e.g. this suite's and the CUDA baseline's) instead of running.
    #[arg(long, value_delimiter = ',')]
    pub merge: Vec<PathBuf>,

    /// List kernels and variants, then exit.
    #[arg(long)]
    pub list: bool,

    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}
