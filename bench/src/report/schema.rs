//! The result file format (`omp-bench-results/1`), shared with the CUDA baseline.

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
        (self.bytes_per_rep > 0.0 && self.time_median_s > 0.0).then(|| self.bytes_per_rep * self.reps as f64 / self.time_median_s / 1e9)
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
        let file: ResultFile = serde_json::from_str(&text).map_err(|e| format!("{}: not a result file: {e}", path.display()))?;
        if file.schema != SCHEMA {
            return Err(format!("{}: schema {:?}, expected {SCHEMA:?}", path.display(), file.schema));
        }
        Ok(file)
    }

    /// Writes pretty JSON.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).expect("result file serialises");
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}
