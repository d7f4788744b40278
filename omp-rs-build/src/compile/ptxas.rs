//! Parsing `ptxas -v` into per-kernel resource usage.

use serde::{Deserialize, Serialize};

/// What ptxas reports for one entry function (`.entry`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelResources {
    /// Kernel name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Named barriers used.
    pub barriers: u32,
    /// Static shared memory in bytes.
    pub smem_bytes: u64,
    /// Stack frame in bytes (local memory per thread).
    pub stack_frame_bytes: u64,
    /// Bytes spilled to local memory (stores).
    pub spill_store_bytes: u64,
    /// Bytes reloaded from spills.
    pub spill_load_bytes: u64,
    /// `Some(r)` when the kernel was compiled without LLVM's machine sinking because that fits more teams per SM
    /// than the default placement, which needed `r` registers (see the `compile` module's pipeline table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sunk_registers: Option<u32>,
}

/// Reads the `ptxas -v` log: `Compiling entry function 'k'`, then `Function properties for k` +
/// `N bytes stack frame, N bytes spill stores, N bytes spill loads`, then
/// `Used N registers, used N barriers, N bytes smem, …`. Lines for called `.func`s are skipped.
pub fn parse(log: &str) -> Vec<KernelResources> {
    let mut out: Vec<KernelResources> = Vec::new();
    let mut current: Option<usize> = None;
    let mut props_for_current = false;
    for line in log.lines() {
        let line = line.trim();
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            out.push(KernelResources { name, ..Default::default() });
            current = Some(out.len() - 1);
            props_for_current = false;
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            props_for_current = current.is_some_and(|i| out[i].name == rest.trim());
        } else if line.contains("bytes stack frame") {
            if let (true, Some(i)) = (props_for_current, current) {
                let k = &mut out[i];
                k.stack_frame_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
                k.spill_store_bytes = number_before(line, "bytes spill stores").unwrap_or(0);
                k.spill_load_bytes = number_before(line, "bytes spill loads").unwrap_or(0);
            }
            props_for_current = false;
        } else if line.contains("Used ") && line.contains(" registers") {
            if let Some(i) = current {
                let k = &mut out[i];
                k.registers = number_before(line, "registers").unwrap_or(0) as u32;
                k.barriers = number_before(line, "barriers").unwrap_or(0) as u32;
                k.smem_bytes = number_before(line, "bytes smem").unwrap_or(0);
            }
        }
    }
    out
}

/// The integer right before `what` (`"12 bytes spill stores"` → 12).
fn number_before(line: &str, what: &str) -> Option<u64> {
    let head = &line[..line.find(what)?];
    head.trim_end().rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn parses_ptxas_v() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Function properties for _RNvhelper\n    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Compiling entry function 'k_sum' for 'sm_90'\n\
ptxas info    : Function properties for k_sum\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 28 registers, used 1 barriers, 4096 bytes smem\n\
ptxas info    : Function properties for _RNvhelper\n    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n\
ptxas info    : Compiling entry function 'k_math' for 'sm_90'\n\
ptxas info    : Function properties for k_math\n    40 bytes stack frame, 12 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 32 registers, used 0 barriers, 40 bytes cumulative stack size, 380 bytes cmem[0]\n";
        let r = parse(log);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], KernelResources { name: "k_sum".into(), registers: 28, barriers: 1, smem_bytes: 4096, ..Default::default() });
        assert_eq!((r[1].registers, r[1].stack_frame_bytes, r[1].spill_store_bytes, r[1].spill_load_bytes), (32, 40, 12, 12));
    }
}
