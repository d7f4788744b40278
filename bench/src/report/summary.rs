//! Aggregates over records: variant and kernel order, geometric-mean time ratios.

use super::Record;

/// Geometric mean over kernels of `variant` time / `baseline` time (kernels with both).
pub fn geomean_ratio(records: &[Record], variant: &str, baseline: &str) -> Option<(f64, usize)> {
    let logs: Vec<f64> = records
        .iter()
        .filter(|r| r.variant == variant && r.time_median_s > 0.0)
        .filter_map(|r| {
            let b = records.iter().find(|b| b.kernel == r.kernel && b.variant == baseline)?;
            (b.time_median_s > 0.0).then(|| (r.time_median_s / b.time_median_s).ln())
        })
        .collect();
    (!logs.is_empty()).then(|| ((logs.iter().sum::<f64>() / logs.len() as f64).exp(), logs.len()))
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
