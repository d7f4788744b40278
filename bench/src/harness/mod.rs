//! Runs kernels × variants like RAJAPerf: warm-up, repeats, median, records.
//!
//! Each repeat is one full RAJAPerf pass of a kernel variant: setup (outside the timer),
//! the timed rep loop, checksum (outside the timer). The median over repeats is reported.

use crate::kernel::{KernelDef, RunSpec, DEFAULT_TARGET};
use crate::report::Record;
use crate::timer::Timer;
use crate::variant::Variant;
use indicatif::{ProgressBar, ProgressStyle};

/// Target size of `--size small`: about 1/32 of RAJAPerf's default, so the whole suite runs
/// in seconds with default reps, while every kernel still has a non-trivial loop.
pub const SMALL_TARGET: usize = 32_768;

/// `--size`: RAJAPerf's target problem size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Each kernel's default (1e6 for every kernel here).
    Default,
    /// [`SMALL_TARGET`].
    Small,
    /// An explicit target.
    Target(usize),
}

impl Size {
    /// The target size this resolves to.
    pub fn target(self) -> usize {
        match self {
            Size::Default => DEFAULT_TARGET,
            Size::Small => SMALL_TARGET,
            Size::Target(n) => n,
        }
    }

    /// Parses `small`, `default`, an integer or a float such as `1e6`.
    pub fn parse(s: &str) -> Result<Size, String> {
        match s {
            "default" => Ok(Size::Default),
            "small" => Ok(Size::Small),
            _ => {
                let v: f64 = s.parse().map_err(|_| format!("--size takes small, default or a number, not {s:?}"))?;
                if !(v >= 1.0 && v.fract() == 0.0 && v <= 1e12) {
                    return Err(format!("--size must be a whole number >= 1, not {s}"));
                }
                Ok(Size::Target(v as usize))
            }
        }
    }
}

/// What to run.
#[derive(Debug)]
pub struct Plan {
    /// Kernels, in order.
    pub kernels: Vec<KernelDef>,
    /// Variants, in order.
    pub variants: Vec<&'static dyn Variant>,
    /// Target size.
    pub size: Size,
    /// Reps for every kernel instead of its default.
    pub reps: Option<usize>,
    /// Timed passes per kernel variant (median reported).
    pub repeats: usize,
    /// Run one untimed 1-rep pass of each kernel variant first.
    pub warmup: bool,
    /// Show a progress bar.
    pub progress: bool,
}

/// One kernel variant that could not run.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// Kernel name.
    pub kernel: &'static str,
    /// Variant name.
    pub variant: &'static str,
}

/// Runs the plan; returns a record per supported kernel variant and the unsupported ones.
pub fn run(plan: &Plan) -> (Vec<Record>, Vec<Skipped>) {
    let steps = (plan.kernels.len() * plan.variants.len()) as u64;
    let bar = if plan.progress { ProgressBar::new(steps) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}").expect("valid template").progress_chars("=> "),
    );
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for k in &plan.kernels {
        for &v in &plan.variants {
            bar.set_message(format!("{} {}", k.name, v.name()));
            match run_one(plan, k, v) {
                Some(r) => records.push(r),
                None => skipped.push(Skipped { kernel: k.name, variant: v.name() }),
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    (records, skipped)
}

/// Warm-up and timed repeats of one kernel variant; `None` if the variant lacks the kernel.
pub fn run_one(plan: &Plan, k: &KernelDef, v: &dyn Variant) -> Option<Record> {
    let target = plan.size.target();
    let reps = plan.reps.unwrap_or(k.default_reps);
    if plan.warmup {
        let spec = RunSpec { target, reps: 1 };
        (k.run)(v, &spec, &mut Timer::new()).ok()?;
    }
    let spec = RunSpec { target, reps };
    let mut times = Vec::with_capacity(plan.repeats);
    let mut first = None;
    for _ in 0..plan.repeats.max(1) {
        let mut timer = Timer::new();
        let out = (k.run)(v, &spec, &mut timer).ok()?;
        let t = timer.elapsed().unwrap_or_else(|| panic!("variant {} did not time {}", v.name(), k.name));
        times.push(t.as_secs_f64());
        first.get_or_insert(out);
    }
    let out = first.expect("at least one repeat");
    Some(Record {
        kernel: k.name.to_owned(),
        group: k.group.name().to_owned(),
        variant: v.name().to_owned(),
        problem_size: out.problem_size as u64,
        reps: reps as u64,
        checksum: out.checksum.to_string(),
        time_median_s: median(&times),
        times_s: times,
        bytes_per_rep: out.bytes_per_rep,
        tolerance: Some(k.tolerance.label().to_owned()),
        rel_tol: Some(k.tolerance.rel_bound(out.problem_size, reps)),
    })
}

/// Median (mean of the two middle values for an even count).
pub fn median(xs: &[f64]) -> f64 {
    assert!(!xs.is_empty());
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Selects kernels by RAJAPerf name (`Stream_TRIAD`) or group name (`Stream`).
pub fn select_kernels(all: &[KernelDef], names: &[String]) -> Result<Vec<KernelDef>, String> {
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let mut out: Vec<KernelDef> = Vec::new();
    for name in names {
        let hits: Vec<&KernelDef> = all.iter().filter(|k| k.name == name || k.group.name() == name).collect();
        if hits.is_empty() {
            let known: Vec<&str> = all.iter().map(|k| k.name).collect();
            return Err(format!("unknown kernel or group {name:?}; known kernels: {}", known.join(", ")));
        }
        for k in hits {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(*k);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod test;
