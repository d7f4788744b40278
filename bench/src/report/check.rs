//! Checksum checks: every record against the reference variant's record of the same kernel,
//! within the kernel's stated tolerance.

use super::Record;
use crate::kernel::{Tolerance, DETERMINISTIC_REL_TOL};
use crate::kernels;
use crate::rpdata::Checksum;

/// Outcome of comparing one record's checksum with the reference variant's.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckStatus {
    /// The reference variant itself.
    Reference,
    /// Within tolerance.
    Pass,
    /// Outside tolerance.
    Fail,
    /// No reference record, or different problem size / reps.
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
        return (tol.rel_bound(r.problem_size as usize, r.reps as usize), tol.label().to_owned());
    }
    let rule = r.tolerance.clone().unwrap_or_else(|| "deterministic".to_owned());
    (r.rel_tol.unwrap_or(DETERMINISTIC_REL_TOL), rule)
}

/// Compares every record's checksum with the `reference` variant's record of the same kernel.
pub fn check(records: &[Record], reference: &str) -> Vec<Check> {
    records
        .iter()
        .map(|r| {
            let (bound, rule) = tolerance_of(r);
            let mut c =
                Check { kernel: r.kernel.clone(), variant: r.variant.clone(), rel_diff: None, bound, rule, status: CheckStatus::Reference };
            if r.variant == reference {
                return c;
            }
            let Some(base) = records.iter().find(|b| b.kernel == r.kernel && b.variant == reference) else {
                c.status = CheckStatus::NotCompared(format!("no {reference} record"));
                return c;
            };
            if (base.problem_size, base.reps) != (r.problem_size, r.reps) {
                c.status = CheckStatus::NotCompared(format!(
                    "size/reps {}/{} vs {reference} {}/{}",
                    r.problem_size, r.reps, base.problem_size, base.reps
                ));
                return c;
            }
            match (r.checksum.parse::<Checksum>(), base.checksum.parse::<Checksum>()) {
                (Ok(a), Ok(b)) => {
                    let d = a.rel_diff(&b);
                    c.rel_diff = Some(d);
                    c.status = if d <= bound { CheckStatus::Pass } else { CheckStatus::Fail };
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
