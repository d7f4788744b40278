//! Results: the JSON schema shared with the CUDA baseline, checksum checks, merging, and the
//! Markdown/SVG renderers ([`markdown`], [`plot`]).

pub mod markdown;
pub mod plot;

use crate::kernel::{Tolerance, DETERMINISTIC_REL_TOL};
use crate::kernels;
use crate::rpdata::Checksum;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version tag of [`ResultFile`].
pub const SCHEMA: &str = "omp-bench-results/1";

/// One kernel × variant measurement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// RAJAPerf kernel name, e.g. `Stream_TRIAD`.
    pub kernel: String,
    /// Group name.
    pub group: String,
    /// Variant name (`seq`, `rayon`, `c-omp`, `cuda`, ...).
    pub variant: String,
    /// RAJAPerf actual problem size.
    pub problem_size: u64,
    /// Reps of the timed loop.
    pub reps: u64,
    /// Checksum, decimal with 21 significant digits (long double round trip).
    pub checksum: String,
    /// Median over repeats of the timed rep loop, seconds.
    pub time_median_s: f64,
    /// Every repeat's time, seconds.
    pub times_s: Vec<f64>,
    /// Bytes moved per rep (compulsory traffic).
    pub bytes_per_rep: f64,
    /// Checksum rule: `deterministic` or `reordered-sum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<String>,
    /// Relative checksum tolerance against the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_tol: Option<f64>,
}

impl Record {
    /// Achieved bandwidth at the median time, GB/s (None for kernels without arrays).
    pub fn gbs(&self) -> Option<f64> {
        (self.bytes_per_rep > 0.0 && self.time_median_s > 0.0)
            .then(|| self.bytes_per_rep * self.reps as f64 / self.time_median_s / 1e9)
    }
}

/// A bandwidth ceiling: a copy kernel measured in the same run, or given on the command line.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Ceiling {
    /// What was measured, e.g. `cpu copy (rayon, 2 threads, 2x128 MiB)`.
    pub label: String,
    /// GB/s (1e9 bytes/s), read + write bytes counted.
    pub gbs: f64,
    /// Variants this ceiling applies to.
    pub variants: Vec<String>,
}

/// The JSON file written by `--json` (and by the CUDA baseline).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultFile {
    /// [`SCHEMA`].
    pub schema: String,
    /// Program that wrote it (`omp-bench`, `omp-bench-cuda`, `merge`).
    pub source: String,
    /// Machine / device description.
    pub device: String,
    /// The `--size` argument.
    pub size: String,
    /// Bandwidth ceilings.
    #[serde(default)]
    pub ceilings: Vec<Ceiling>,
    /// Measurements.
    pub results: Vec<Record>,
}

impl ResultFile {
    /// Reads and checks a result file.
    pub fn read(path: &Path) -> Result<ResultFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: ResultFile = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a result file: {e}", path.display()))?;
        if file.schema != SCHEMA {
            return Err(format!(
                "{}: schema {:?}, expected {SCHEMA:?}",
                path.display(),
                file.schema
            ));
        }
        Ok(file)
    }

    /// Writes pretty JSON.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).expect("result file serialises");
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Merges result files: records in file order; a later record for the same kernel and
/// variant replaces an earlier one (reported in the returned notes).
pub fn merge(files: Vec<ResultFile>) -> (ResultFile, Vec<String>) {
    let mut notes = Vec::new();
    let mut out = ResultFile {
        schema: SCHEMA.to_owned(),
        source: "merge".to_owned(),
        device: String::new(),
        size: String::new(),
        ceilings: Vec::new(),
        results: Vec::new(),
    };
    let mut devices = Vec::new();
    let mut sizes = Vec::new();
    for f in files {
        devices.push(f.device);
        sizes.push(f.size);
        out.ceilings.extend(f.ceilings);
        for r in f.results {
            if let Some(old) = out
                .results
                .iter_mut()
                .find(|o| o.kernel == r.kernel && o.variant == r.variant)
            {
                notes.push(format!(
                    "{} {}: later file replaces earlier record",
                    r.kernel, r.variant
                ));
                *old = r;
            } else {
                out.results.push(r);
            }
        }
    }
    devices.dedup();
    sizes.dedup();
    out.device = devices.join(" + ");
    out.size = sizes.join(" + ");
    (out, notes)
}

/// Outcome of comparing one record's checksum with the baseline variant's.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckStatus {
    /// The baseline itself.
    Baseline,
    /// Within tolerance.
    Pass,
    /// Outside tolerance.
    Fail,
    /// No baseline record, or different problem size / reps.
    NotCompared(String),
}

/// One checksum comparison.
#[derive(Clone, Debug)]
pub struct Check {
    /// Kernel.
    pub kernel: String,
    /// Variant.
    pub variant: String,
    /// Relative difference, if compared.
    pub rel_diff: Option<f64>,
    /// Bound used.
    pub bound: f64,
    /// Rule label.
    pub rule: String,
    /// Result.
    pub status: CheckStatus,
}

/// The tolerance of `r`: from the kernel registry when the kernel is known (the rule is
/// stated in code there), else from the record, else RAJAPerf's 1e-10.
fn tolerance_of(r: &Record) -> (f64, String) {
    if let Some(k) = kernels::all().into_iter().find(|k| k.name == r.kernel) {
        let tol: Tolerance = k.tolerance;
        return (
            tol.rel_bound(r.problem_size as usize, r.reps as usize),
            tol.label().to_owned(),
        );
    }
    let rule = r
        .tolerance
        .clone()
        .unwrap_or_else(|| "deterministic".to_owned());
    (r.rel_tol.unwrap_or(DETERMINISTIC_REL_TOL), rule)
}

/// Compares every record's checksum with the `baseline` variant's record of the same kernel.
pub fn check(records: &[Record], baseline: &str) -> Vec<Check> {
    records
        .iter()
        .map(|r| {
            let (bound, rule) = tolerance_of(r);
            let mut c = Check {
                kernel: r.kernel.clone(),
                variant: r.variant.clone(),
                rel_diff: None,
                bound,
                rule,
                status: CheckStatus::Baseline,
            };
            if r.variant == baseline {
                return c;
            }
            let Some(base) = records
                .iter()
                .find(|b| b.kernel == r.kernel && b.variant == baseline)
            else {
                c.status = CheckStatus::NotCompared(format!("no {baseline} record"));
                return c;
            };
            if (base.problem_size, base.reps) != (r.problem_size, r.reps) {
                c.status = CheckStatus::NotCompared(format!(
                    "size/reps {}/{} vs {baseline} {}/{}",
                    r.problem_size, r.reps, base.problem_size, base.reps
                ));
                return c;
            }
            match (
                r.checksum.parse::<Checksum>(),
                base.checksum.parse::<Checksum>(),
            ) {
                (Ok(a), Ok(b)) => {
                    let d = a.rel_diff(&b);
                    c.rel_diff = Some(d);
                    c.status = if d <= bound {
                        CheckStatus::Pass
                    } else {
                        CheckStatus::Fail
                    };
                }
                _ => c.status = CheckStatus::NotCompared("unparsable checksum".to_owned()),
            }
            c
        })
        .collect()
}

/// The variant checksums are checked against: `seq` whenever present, else `fallback`.
pub fn checksum_reference(records: &[Record], fallback: &str) -> String {
    if records.iter().any(|r| r.variant == "seq") {
        "seq".to_owned()
    } else {
        fallback.to_owned()
    }
}

/// Geometric mean over kernels of `variant` time / `baseline` time (kernels with both).
pub fn geomean_ratio(records: &[Record], variant: &str, baseline: &str) -> Option<(f64, usize)> {
    let logs: Vec<f64> = records
        .iter()
        .filter(|r| r.variant == variant && r.time_median_s > 0.0)
        .filter_map(|r| {
            let b = records
                .iter()
                .find(|b| b.kernel == r.kernel && b.variant == baseline)?;
            (b.time_median_s > 0.0).then(|| (r.time_median_s / b.time_median_s).ln())
        })
        .collect();
    (!logs.is_empty()).then(|| {
        (
            (logs.iter().sum::<f64>() / logs.len() as f64).exp(),
            logs.len(),
        )
    })
}

/// Variants in first-appearance order.
pub fn variants_of(records: &[Record]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in records {
        if !v.contains(&r.variant) {
            v.push(r.variant.clone());
        }
    }
    v
}

/// Kernels in first-appearance order.
pub fn kernels_of(records: &[Record]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in records {
        if !v.contains(&r.kernel) {
            v.push(r.kernel.clone());
        }
    }
    v
}

#[cfg(test)]
mod test;
