//! NVIDIA: per kernel, the better of two instruction placements, judged by how many teams fit on an SM.
//!
//! LLVM's machine sinking moves arithmetic out of a kernel's loop body into the block of the write it feeds, past
//! the bounds and ownership checks of that write (so that the cold panic path does not compute it). The loads stay
//! above the checks. For a body that loads a window and reduces it (RAJAPerf's FIR: 16 loads, 16 multiply-adds,
//! `out[i] = sum`) all 16 loaded values are then live at once: 48 registers, 5 teams of 256 threads per SM, where
//! CUDA's kernel (no checks) interleaves loads and arithmetic in 32 registers. Compiled without machine sinking the
//! same kernel needs 38 registers (6 teams) and ran 1.19x -> 1.01x CUDA's time at 32e6 elements on the H200; but
//! without it other kernels need more registers (HEAT_3D 40 -> 45, HYDRO_2D 54 -> 56) and ran up to 1.25x slower,
//! so neither placement is right for every kernel.
//!
//! Hence: a kernel whose registers let fewer teams of the runtime's default 256 threads onto an SM than the SM can
//! hold (above 32 registers on sm_80/sm_90) is compiled a second time without machine sinking, and keeps that
//! version when it fits more such teams without spilling or a larger stack. Both versions come from the same optimised
//! LLVM IR through the same instruction selection; only where instructions are placed differs, so the choice
//! changes speed, never results.

use std::ops::Range;

use super::ptxas::KernelResources;

/// Threads per team the runtime launches with when the region has no `thread_limit` (`omp::offload`'s geometry).
pub(super) const DEFAULT_TEAM_SIZE: u32 = 256;

/// Registers of one SM (every NVIDIA GPU from sm_50 to sm_120).
const REGISTERS_PER_SM: u32 = 65536;

/// Warps one SM of an NVIDIA arch can hold; `None` for arches not tabulated.
pub fn max_warps_per_sm(arch: &str) -> Option<u32> {
    match arch {
        "sm_70" | "sm_80" | "sm_90" | "sm_100" => Some(64),
        "sm_75" => Some(32),
        "sm_86" | "sm_87" | "sm_89" | "sm_120" => Some(48),
        _ => None,
    }
}

/// Warps per SM that `registers` registers per thread allow on `arch` (registers are allocated per warp in units
/// of 256), with the arch's maximum: `(warps, max)`; `None` for arches not tabulated.
pub fn register_occupancy(arch: &str, registers: u32) -> Option<(u32, u32)> {
    let max = max_warps_per_sm(arch)?;
    Some((warps_per_sm(registers, max), max))
}

/// Warps that fit on an SM of `max_warps` warps with `registers` registers per thread.
fn warps_per_sm(registers: u32, max_warps: u32) -> u32 {
    let per_warp = (registers.max(1) * 32).div_ceil(256) * 256;
    (REGISTERS_PER_SM / per_warp).min(max_warps)
}

/// Teams of `team_size` threads that fit on one SM of `max_warps` warps by registers and threads. Shared memory is
/// not counted: the kernels omp-rs makes use it only for reductions, whose size does not depend on the placement.
pub(super) fn teams_per_sm(registers: u32, team_size: u32, max_warps: u32) -> u32 {
    warps_per_sm(registers, max_warps) / team_size.div_ceil(32).max(1)
}

/// Kernels that could fit more teams with fewer registers on an SM of `max_warps` warps: worth compiling the other way.
pub(super) fn candidates(resources: &[KernelResources], max_warps: u32) -> Vec<String> {
    let most = teams_per_sm(1, DEFAULT_TEAM_SIZE, max_warps);
    resources.iter().filter(|k| teams_per_sm(k.registers, DEFAULT_TEAM_SIZE, max_warps) < most).map(|k| k.name.clone()).collect()
}

/// Whether `unsunk` (compiled without machine sinking) fits more teams than `sunk` on an SM of `max_warps` warps,
/// without spilling or needing more local memory.
pub(super) fn better(sunk: &KernelResources, unsunk: &KernelResources, max_warps: u32) -> bool {
    let teams = |k: &KernelResources| teams_per_sm(k.registers, DEFAULT_TEAM_SIZE, max_warps);
    teams(unsunk) > teams(sunk)
        && unsunk.spill_store_bytes <= sunk.spill_store_bytes
        && unsunk.spill_load_bytes <= sunk.spill_load_bytes
        && unsunk.stack_frame_bytes <= sunk.stack_frame_bytes
}

/// Byte range of the `.entry` named `name` in PTX text as llc writes it: from its `.visible .entry name(` line to the
/// `}` in column 0 that closes its body (blocks inside a body are indented).
fn entry_span(ptx: &str, name: &str) -> Option<Range<usize>> {
    let head = format!(".visible .entry {name}(");
    let start = ptx.match_indices(&head).map(|(i, _)| i).find(|&i| i == 0 || ptx.as_bytes()[i - 1] == b'\n')?;
    let body = ptx[start..].find("\n{\n")? + start;
    let close = ptx[body..].find("\n}\n")? + body;
    Some(start..close + 3)
}

/// `ptx` with every entry except `keep` removed (the rest of the module stays: globals, `.func`s, declarations).
pub(super) fn only_entries(ptx: &str, keep: &[String]) -> String {
    let mut drop: Vec<Range<usize>> = Vec::new();
    for line_start in ptx.match_indices(".visible .entry ").map(|(i, _)| i) {
        if line_start != 0 && ptx.as_bytes()[line_start - 1] != b'\n' {
            continue;
        }
        let name: String = ptx[line_start + ".visible .entry ".len()..].chars().take_while(|&c| c != '(').collect();
        if !keep.contains(&name) {
            if let Some(r) = entry_span(ptx, &name) {
                drop.push(r);
            }
        }
    }
    let mut out = String::with_capacity(ptx.len());
    let mut at = 0;
    for r in drop {
        out.push_str(&ptx[at..r.start]);
        at = r.end;
    }
    out.push_str(&ptx[at..]);
    out
}

/// `base` with the entries `names` replaced by their text in `other` (both llc's output for the same module, so the
/// globals and functions the entries refer to are the same). `None` when an entry is missing from either.
pub(super) fn splice(base: &str, other: &str, names: &[String]) -> Option<String> {
    let mut spans: Vec<(Range<usize>, &str)> = Vec::new();
    for n in names {
        spans.push((entry_span(base, n)?, &other[entry_span(other, n)?]));
    }
    spans.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(base.len());
    let mut at = 0;
    for (r, text) in spans {
        out.push_str(&base[at..r.start]);
        out.push_str(text);
        at = r.end;
    }
    out.push_str(&base[at..]);
    Some(out)
}

#[cfg(test)]
mod test {
    use super::*;

    fn res(name: &str, registers: u32, spill: u64, stack: u64) -> KernelResources {
        KernelResources {
            name: name.into(),
            registers,
            spill_store_bytes: spill,
            spill_load_bytes: spill,
            stack_frame_bytes: stack,
            ..Default::default()
        }
    }

    #[test]
    fn teams_by_registers_of_256_thread_teams() {
        // ptxas numbers of RAJAPerf kernels and what they allow on sm_90 (65536 registers, 64 warps per SM).
        for (regs, teams) in [(16, 8), (32, 8), (36, 6), (38, 6), (40, 6), (48, 5), (54, 4), (64, 4), (72, 3), (125, 2), (255, 1)] {
            assert_eq!(teams_per_sm(regs, 256, 64), teams, "{regs} registers");
        }
        assert_eq!(teams_per_sm(32, 1024, 64), 2);
        assert_eq!(teams_per_sm(64, 64, 64), 16);
        assert_eq!(teams_per_sm(32, 256, 48), 6, "sm_89 holds 1536 threads");
        assert_eq!(register_occupancy("sm_90", 30), Some((64, 64)));
        assert_eq!(register_occupancy("sm_90", 38), Some((51, 64)));
        assert_eq!(register_occupancy("sm_90", 255), Some((8, 64)));
        assert_eq!(register_occupancy("sm_89", 0), Some((48, 48)));
        assert_eq!(register_occupancy("gfx90a", 30), None);
    }

    #[test]
    fn only_a_better_tier_without_spills_wins() {
        assert!(better(&res("fir", 48, 0, 0), &res("fir", 38, 0, 0), 64), "5 -> 6 teams");
        assert!(better(&res("eos", 36, 0, 0), &res("eos", 32, 0, 0), 64), "6 -> 8 teams");
        assert!(!better(&res("eos", 36, 0, 0), &res("eos", 32, 0, 0), 48), "6 teams either way on sm_89");
        assert!(!better(&res("energy", 39, 0, 0), &res("energy", 36, 0, 0), 64), "both 6 teams");
        assert!(!better(&res("heat", 40, 0, 0), &res("heat", 45, 0, 0), 64), "worse");
        assert!(!better(&res("k", 48, 0, 0), &res("k", 40, 8, 0), 64), "spills");
        assert!(!better(&res("k", 48, 0, 0), &res("k", 40, 0, 16), 64), "more local memory");
        let all = [res("a", 28, 0, 0), res("b", 32, 0, 0), res("c", 33, 0, 0), res("d", 125, 0, 0)];
        assert_eq!(candidates(&all, 64), ["c", "d"]);
        assert_eq!(candidates(&[res("c", 40, 0, 0), res("d", 41, 0, 0)], 48), ["d"], "40 registers fill an sm_89");
    }

    const PTX: &str = "//\n.version 8.7\n.target sm_90\n.address_size 64\n\n.global .align 1 .b8 msg[2] = {104, 105};\n\
.func  (.param .b64 func_retval0) helper(\n\t.param .b64 helper_param_0\n)\n{\n\tret;\n\n}\n\
\t// .globl\tk_a\n.visible .entry k_a(\n\t.param .u64 k_a_param_0\n)\n{\n\t.reg .b64 \t%rd<4>;\n\t{ // callseq 0\n\t}\n\tA-BODY\n\tret;\n\n}\n\
\t// .globl\tk_ab\n.visible .entry k_ab(\n\t.param .u64 k_ab_param_0\n)\n{\n\tAB-BODY\n\tret;\n\n}\n";

    #[test]
    fn entries_are_cut_at_their_closing_brace() {
        let a = entry_span(PTX, "k_a").unwrap();
        assert!(PTX[a.clone()].starts_with(".visible .entry k_a(") && PTX[a.clone()].ends_with("\tret;\n\n}\n"));
        assert!(PTX[a].contains("A-BODY") && !PTX[entry_span(PTX, "k_a").unwrap()].contains("AB-BODY"));
        assert!(PTX[entry_span(PTX, "k_ab").unwrap()].contains("AB-BODY"), "k_a is a prefix of k_ab's name, not its entry");
        assert_eq!(entry_span(PTX, "k"), None);

        let kept = only_entries(PTX, &["k_ab".to_string()]);
        assert!(!kept.contains("A-BODY") && kept.contains("AB-BODY") && kept.contains("helper(") && kept.contains("msg[2]"));

        let other = PTX.replace("A-BODY", "A-OTHER").replace("AB-BODY", "AB-OTHER");
        let mixed = splice(PTX, &other, &["k_ab".to_string()]).unwrap();
        assert_eq!(mixed, PTX.replace("AB-BODY", "AB-OTHER"));
        assert_eq!(splice(PTX, &other, &["k_c".to_string()]), None);
    }
}
