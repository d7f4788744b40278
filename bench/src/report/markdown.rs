//! Markdown tables: times with ratios to the baseline, bandwidth, checksum checks.

use super::{geomean_ratio, kernels_of, variants_of, Ceiling, Check, CheckStatus, Record, ResultFile};
use std::fmt::Write;

fn find<'a>(records: &'a [Record], kernel: &str, variant: &str) -> Option<&'a Record> {
    records.iter().find(|r| r.kernel == kernel && r.variant == variant)
}

fn ceiling_for<'a>(ceilings: &'a [Ceiling], variant: &str) -> Option<&'a Ceiling> {
    ceilings.iter().find(|c| c.variants.iter().any(|v| v == variant))
}

/// Formats seconds with a unit that keeps 3-4 significant digits.
pub fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.2} µs", s * 1e6)
    }
}

/// The whole report: times relative to `baseline`, checksums checked against `reference`.
pub fn render(file: &ResultFile, checks: &[Check], baseline: &str, reference: &str) -> String {
    let records = &file.results;
    let variants = variants_of(records);
    let kernels = kernels_of(records);
    let mut md = String::new();
    let _ = writeln!(md, "# omp-bench results\n");
    let _ = writeln!(md, "Device: {}. Size: {}. Source: {}.\n", file.device, file.size, file.source);

    let _ = writeln!(md, "## Time of the rep loop (median of repeats); in parentheses time / {baseline} time\n");
    let _ = write!(md, "| Kernel | N | Reps |");
    for v in &variants {
        let _ = write!(md, " {v} |");
    }
    let _ = write!(md, "\n|---|---:|---:|");
    for _ in &variants {
        let _ = write!(md, "---:|");
    }
    md.push('\n');
    for k in &kernels {
        let any = records.iter().find(|r| &r.kernel == k).expect("kernel has a record");
        let _ = write!(md, "| {k} | {} | {} |", any.problem_size, any.reps);
        let base = find(records, k, baseline);
        for v in &variants {
            match find(records, k, v) {
                Some(r) => {
                    let ratio = base
                        .filter(|b| b.time_median_s > 0.0)
                        .map(|b| format!(" ({:.2})", r.time_median_s / b.time_median_s))
                        .unwrap_or_default();
                    let _ = write!(md, " {}{ratio} |", fmt_time(r.time_median_s));
                }
                None => md.push_str(" n/a |"),
            }
        }
        md.push('\n');
    }

    let _ = write!(md, "| geometric mean of time / {baseline} time | | |");
    for v in &variants {
        match geomean_ratio(records, v, baseline) {
            Some((g, n)) => {
                let _ = write!(md, " {g:.2} ({n} kernels) |");
            }
            None => md.push_str(" n/a |"),
        }
    }
    md.push('\n');

    let _ = writeln!(md, "\n## Achieved bandwidth, GB/s (in parentheses % of the variant's ceiling)\n");
    for c in &file.ceilings {
        let _ = writeln!(md, "- Ceiling {:.1} GB/s: {} (variants: {})", c.gbs, c.label, c.variants.join(", "));
    }
    if !file.ceilings.is_empty() {
        md.push('\n');
    }
    let _ = write!(md, "| Kernel | MB/rep |");
    for v in &variants {
        let _ = write!(md, " {v} |");
    }
    let _ = write!(md, "\n|---|---:|");
    for _ in &variants {
        let _ = write!(md, "---:|");
    }
    md.push('\n');
    for k in &kernels {
        let any = records.iter().find(|r| &r.kernel == k).expect("kernel has a record");
        if any.bytes_per_rep <= 0.0 {
            continue;
        }
        let _ = write!(md, "| {k} | {:.2} |", any.bytes_per_rep / 1e6);
        for v in &variants {
            match find(records, k, v).and_then(|r| r.gbs()) {
                Some(g) => {
                    let pct = ceiling_for(&file.ceilings, v).map(|c| format!(" ({:.0}%)", 100.0 * g / c.gbs)).unwrap_or_default();
                    let _ = write!(md, " {g:.1}{pct} |");
                }
                None => md.push_str(" n/a |"),
            }
        }
        md.push('\n');
    }

    let _ = writeln!(md, "\n## Checksums against {reference}\n");
    let _ = writeln!(
        md,
        "Tolerance (relative): `deterministic` kernels 1e-10 (RAJAPerf's threshold); `reordered-sum` \
         kernels (reductions whose order a variant may change) 2(n + reps)u with u = 2^-53, at least 1e-10.\n"
    );
    let _ = writeln!(md, "| Kernel | Variant | Checksum | Rel. diff | Bound | Rule | Check |");
    let _ = writeln!(md, "|---|---|---:|---:|---:|---|---|");
    for c in checks {
        let r = find(records, &c.kernel, &c.variant).expect("check has a record");
        let diff = c.rel_diff.map(|d| format!("{d:.1e}")).unwrap_or_else(|| "-".to_owned());
        let status = match &c.status {
            CheckStatus::Reference => "reference".to_owned(),
            CheckStatus::Pass => "ok".to_owned(),
            CheckStatus::Fail => "**MISMATCH**".to_owned(),
            CheckStatus::NotCompared(why) => format!("not compared: {why}"),
        };
        let _ = writeln!(md, "| {} | {} | {} | {diff} | {:.1e} | {} | {status} |", c.kernel, c.variant, r.checksum, c.bound, c.rule);
    }
    md
}
