//! `--merge`: several result files (e.g. a CPU run and the CUDA baseline) into one.

use super::{ResultFile, SCHEMA};

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
            if let Some(old) = out.results.iter_mut().find(|o| o.kernel == r.kernel && o.variant == r.variant) {
                notes.push(format!("{} {}: later file replaces earlier record", r.kernel, r.variant));
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
