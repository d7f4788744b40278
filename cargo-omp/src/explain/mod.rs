//! `cargo omp explain [KERNEL]`: what omp-rs made of a target region.
//!
//! Everything comes from the build's output directory (`$OUT_DIR/omp-rs/`): the manifest (kernels,
//! slot kinds, mapping decisions, images, ptxas resources), the device crate source the outliner
//! wrote, and the PTX `llc` wrote next to each cubin. Nothing is rebuilt.
//!
//! | module | job |
//! |---|---|
//! | [`discover`] | find the newest manifest under the target directory |
//! | [`source`] | cut one kernel out of the device crate source |
//! | [`ptx`] | cut one `.entry` out of the PTX |

pub(crate) mod discover;
pub(crate) mod ptx;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use omp_build::manifest::{ImageEntry, KernelEntry, SlotKind};
use omp_build::{Arch, ImageKind, KernelResources, Manifest};

use crate::error::{Error, Result};
use discover::Found;

/// `explain`'s options.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Kernel name (or its user fn's name); `None` lists the kernels.
    pub(crate) kernel: Option<String>,
    /// Package whose manifest to read (default: the newest of any package).
    pub(crate) package: Option<String>,
    /// Target directory (default: `CARGO_TARGET_DIR` / `cargo metadata`).
    pub(crate) target_dir: Option<PathBuf>,
    /// `debug`, `release` or a custom profile.
    pub(crate) profile: String,
    /// Image to take PTX and resources from (default: the first NVIDIA image).
    pub(crate) arch: Option<String>,
    /// Sections; none set means all.
    pub(crate) ptx: bool,
    /// Show the outlined source.
    pub(crate) source: bool,
    /// Show ptxas resources.
    pub(crate) resources: bool,
}

/// Runs `explain`, returning the text to print.
///
/// # Errors
/// No manifest, an unknown or ambiguous kernel, an arch without an image, unreadable files.
pub(crate) fn run(opts: &Options) -> Result<String> {
    let target_dir = opts.target_dir.clone().unwrap_or_else(discover::default_target_dir);
    let found = discover::newest(&target_dir, &opts.profile, opts.package.as_deref())?;
    let manifest = Manifest::read(&found.manifest).map_err(Error::Build)?;
    match &opts.kernel {
        None => Ok(list(&found, &manifest, &discover::other_packages(&target_dir, &opts.profile, &found.package))),
        Some(q) => {
            let k = resolve(&manifest, q, &found.manifest)?;
            let image = choose_image(&manifest, opts.arch.as_deref(), &found.manifest)?;
            Ok(explain_kernel(&found, &manifest, k, image, opts))
        }
    }
}

/// The kernel `query` names: its exact name, else its user fn, else a unique substring.
fn resolve<'m>(m: &'m Manifest, query: &str, path: &Path) -> Result<&'m KernelEntry> {
    if let Some(k) = m.kernel(query) {
        return Ok(k);
    }
    let by_fn: Vec<&KernelEntry> = m.kernels.iter().filter(|k| k.function == query).collect();
    let matches = if by_fn.is_empty() { m.kernels.iter().filter(|k| k.name.contains(query)).collect() } else { by_fn };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::UnknownKernel {
            query: query.into(),
            manifest: path.into(),
            available: if m.kernels.is_empty() {
                "none (no image was built: `cargo omp info` says which toolchain parts are missing)".into()
            } else {
                m.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
            },
        }),
        many => Err(Error::AmbiguousKernel {
            query: query.into(),
            count: many.len(),
            names: many.iter().map(|k| format!("{} (fn {}, region {})", k.name, k.function, k.region)).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// The image for PTX/resources: `arch` if given (must exist), else the first cubin, else none.
fn choose_image<'m>(m: &'m Manifest, arch: Option<&str>, path: &Path) -> Result<Option<&'m ImageEntry>> {
    let Some(a) = arch else {
        return Ok(m.images.iter().find(|i| i.kind == ImageKind::Cubin));
    };
    // `host` → `host-x86_64`, `SM_90` → `sm_90`
    let want = a.parse::<Arch>().map_err(|e| Error::Build(e.into()))?.to_string();
    match m.images.iter().find(|i| i.arch == want) {
        Some(i) => Ok(Some(i)),
        None => Err(Error::NoImage {
            arch: want,
            manifest: path.into(),
            available: if m.images.is_empty() {
                "none".into()
            } else {
                m.images.iter().map(|i| i.arch.as_str()).collect::<Vec<_>>().join(", ")
            },
        }),
    }
}

fn slot_name(k: SlotKind) -> String {
    serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| format!("{k:?}"))
}

fn slot_meaning(k: SlotKind) -> &'static str {
    match k {
        SlotKind::Pointer => "device pointer to one value",
        SlotKind::Int => "integer, widened to 64 bits",
        SlotKind::Float64 => "f64 as its bits (f64::to_bits)",
        SlotKind::Float32 => "f32 as its bits, low 32 bits",
        SlotKind::ArrayBase => "array: device base pointer",
        SlotKind::ArrayLen => "array: length in elements",
        SlotKind::LoopFirst => "loop: first value",
        SlotKind::LoopTrips => "loop: trip count",
        SlotKind::LoopStep => "loop: step",
        SlotKind::ReductionPartials => "reduction: pointer to num_teams partial values",
        SlotKind::OwnerMode => "written array ownership: its mode (omp_rs_abi::OwnerMode: hull, lattice, nothing, hull in 32 bits)",
        SlotKind::OwnerOrigin => "written array ownership: lowest element of iteration 0",
        SlotKind::OwnerWidth => "written array ownership: elements per iteration above its base",
        SlotKind::OwnerStride => "written array ownership: base step per iteration of a dimension",
        SlotKind::OwnerInnerStride => "written array ownership: stride of a sequential-loop term",
        SlotKind::OwnerInnerCount => "written array ownership: count of a sequential-loop term",
        SlotKind::WalkTileRows => "collapsed nest: rows of the tiles threads walk it in (0: flat), set at launch",
        SlotKind::WalkTilesPerRow => "collapsed nest: tiles side by side along the innermost loop, set at launch",
        SlotKind::WalkTiles => "collapsed nest: tiles in all, set at launch",
        _ => "",
    }
}

/// `8: float64, array x2, loop`: arrays and loop dimensions folded, repeats counted.
pub(crate) fn slot_summary(slots: &[SlotKind]) -> String {
    let mut groups: Vec<String> = Vec::new();
    let mut i = 0;
    while i < slots.len() {
        let (name, n) = match &slots[i..] {
            [SlotKind::ArrayBase, SlotKind::ArrayLen, ..] => ("array".to_string(), 2),
            [SlotKind::LoopFirst, SlotKind::LoopTrips, SlotKind::LoopStep, ..] => ("loop".to_string(), 3),
            [SlotKind::WalkTileRows, SlotKind::WalkTilesPerRow, SlotKind::WalkTiles, ..] => ("walk".to_string(), 3),
            [k, ..] => (slot_name(*k), 1),
            [] => break,
        };
        groups.push(name);
        i += n;
    }
    let mut folded: Vec<String> = Vec::new();
    let mut k = 0;
    while k < groups.len() {
        let run = groups[k..].iter().take_while(|g| **g == groups[k]).count();
        folded.push(if run > 1 { format!("{} x{run}", groups[k]) } else { groups[k].clone() });
        k += run;
    }
    format!("{}: {}", slots.len(), folded.join(", "))
}

fn ago(t: SystemTime) -> String {
    let s = SystemTime::now().duration_since(t).map(|d| d.as_secs()).unwrap_or(0);
    match s {
        0..=119 => format!("{s} s ago"),
        120..=7199 => format!("{} min ago", s / 60),
        7200..=172_799 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86400),
    }
}

fn images_line(m: &Manifest) -> String {
    if m.images.is_empty() {
        return "none (target regions run on the host; `cargo omp info` says what is missing)".into();
    }
    m.images.iter().map(|i| format!("{} ({})", i.arch, i.file)).collect::<Vec<_>>().join(", ")
}

/// The kernel table.
fn list(found: &Found, m: &Manifest, others: &[String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "package `{}`: {} (written {})", found.package, found.manifest.display(), ago(found.modified));
    let _ = writeln!(s, "images: {}", images_line(m));
    if m.kernels.is_empty() {
        let _ = writeln!(s, "\nno kernels: the package has no target regions, or no image could be built");
    } else {
        let w = m.kernels.iter().map(|k| k.name.len()).max().unwrap_or(6).max(6);
        let wf = m.kernels.iter().map(|k| k.function.len()).max().unwrap_or(2).max(2);
        let _ = writeln!(s, "\n  {:<w$}  {:<wf$}  REGION  SLOTS", "KERNEL", "FN");
        for k in &m.kernels {
            let _ = writeln!(s, "  {:<w$}  {:<wf$}  {:<6}  {}", k.name, k.function, k.region, slot_summary(&k.slots));
        }
        let _ = writeln!(s, "\n`cargo omp explain <KERNEL or FN>` shows one kernel: slots, mapping, source, registers, PTX.");
    }
    if !others.is_empty() {
        let _ = writeln!(s, "other packages with a manifest (use --package): {}", others.join(", "));
    }
    s
}

/// The outlined source of kernel `k` (the file the build wrote for it, `KernelEntry::source`): (path, first line,
/// text), or the message explaining its absence.
fn kernel_source(dir: &Path, k: &KernelEntry) -> std::result::Result<(PathBuf, usize, String), String> {
    let Some(src) = &k.source else {
        return Err(
            "this manifest records no outlined source for the kernel (written by an older omp-rs-build): rebuild the package".into()
        );
    };
    let path = dir.join(&src.file);
    std::fs::read_to_string(&path)
        .map(|text| (path.clone(), src.line, text))
        .map_err(|e| format!("cannot read {} ({e}): rebuild the package", path.display()))
}

fn resources_text(image: &ImageEntry, r: &KernelResources) -> String {
    let mut s = format!(
        "  registers {}, stack frame {} B, spills {} B stored / {} B loaded, static shared memory {} B, barriers {}\n",
        r.registers, r.stack_frame_bytes, r.spill_store_bytes, r.spill_load_bytes, r.smem_bytes, r.barriers
    );
    if let Some(sunk) = r.sunk_registers {
        let _ = writeln!(
            s,
            "  compiled without LLVM's machine sinking: {} registers where the default placement needed {sunk} (more teams fit per SM)",
            r.registers
        );
    }
    if let Some((w, max)) = omp_build::register_occupancy(&image.arch, r.registers) {
        let _ = writeln!(s, "  registers allow {w} of {max} warps per SM ({}% occupancy before block-size and smem limits)", w * 100 / max);
    }
    if r.spill_store_bytes + r.spill_load_bytes > 0 {
        let _ = writeln!(s, "  spills go to local memory (slow): fewer live values per iteration, or a larger register budget, avoid them");
    }
    if r.stack_frame_bytes > 0 && r.spill_store_bytes == 0 {
        let _ =
            writeln!(s, "  the stack frame is local memory, typically a libdevice slow path (e.g. trig range reduction) or a local array");
    }
    s
}

fn explain_kernel(found: &Found, m: &Manifest, k: &KernelEntry, image: Option<&ImageEntry>, opts: &Options) -> String {
    let all = !(opts.ptx || opts.source || opts.resources);
    let dir = found.dir();
    let mut s = String::new();
    let at = k.location.as_ref().map(|l| format!(" at {}:{}", l.file, l.line)).unwrap_or_default();
    let _ = writeln!(s, "kernel {}  (fn {}, region {}{at}; package `{}`)", k.name, k.function, k.region, found.package);
    let _ = writeln!(s, "manifest: {} (written {})", found.manifest.display(), ago(found.modified));
    let _ = writeln!(s, "images: {}", images_line(m));
    let src = kernel_source(dir, k);

    if all {
        let names = k.source.as_ref().map(|s| s.params.clone()).unwrap_or_default();
        let _ = writeln!(s, "\n== slots (8 bytes each; libomptarget passes dyn_ptr first) ==");
        let _ = writeln!(s, "  {:>4}  {:<20} {:<12} meaning", "slot", "kind", "param");
        let _ = writeln!(s, "  {:>4}  {:<20} {:<12} added by libomptarget (KernelArgs v3)", "-", "dyn_ptr", "");
        for (i, kind) in k.slots.iter().enumerate() {
            let param = names.get(i).map_or("", String::as_str);
            let _ = writeln!(s, "  {i:>4}  {:<20} {param:<12} {}", slot_name(*kind), slot_meaning(*kind));
        }
        if !names.is_empty() && names.len() != k.slots.len() {
            let _ = writeln!(s, "  (the source declares {} slot parameters, the manifest {}: stale build?)", names.len(), k.slots.len());
        }
        let _ = writeln!(s, "\n== mapping ==");
        if k.maps.is_empty() {
            let _ = writeln!(s, "  not recorded in this manifest (the outliner writes its decisions into `maps`)");
        } else {
            let wv = k.maps.iter().map(|d| d.var.len()).max().unwrap_or(3).max(3);
            let wm = k.maps.iter().map(|d| d.map.len()).max().unwrap_or(3).max(3);
            for d in &k.maps {
                let _ = writeln!(s, "  {:<wv$}  {:<wm$}  {}", d.var, d.map, d.why);
            }
        }
    }

    if all || opts.source {
        match &src {
            Ok((file, line, text)) => {
                let _ = writeln!(s, "\n== outlined source ({}, from line {line} of the region's file) ==", file.display());
                let _ = writeln!(s, "{text}");
            }
            Err(e) => {
                let _ = writeln!(s, "\n== outlined source ==\n  {e}");
            }
        }
    }

    if all || opts.resources {
        let _ = writeln!(s, "\n== resources ==");
        match image {
            Some(i) if i.kind == ImageKind::Cubin => match i.resources.iter().find(|r| r.name == k.name) {
                Some(r) => {
                    let _ =
                        writeln!(s, "  {} (ptxas -v; log: {})", i.arch, dir.join(Path::new(&i.file).with_extension("ptxas.log")).display());
                    s.push_str(&resources_text(i, r));
                }
                None => {
                    let _ = writeln!(
                        s,
                        "  {}: ptxas reported nothing for this kernel (see {})",
                        i.arch,
                        dir.join(Path::new(&i.file).with_extension("ptxas.log")).display()
                    );
                }
            },
            Some(i) => {
                let _ = writeln!(s, "  {}: register and spill counts come from ptxas, so only sm_XX images have them", i.arch);
            }
            None => {
                let _ = writeln!(
                    s,
                    "  no NVIDIA image in this build: register and spill counts come from ptxas (build with OMP_RS_OFFLOAD_ARCH=sm_90)"
                );
            }
        }
    }

    if all || opts.ptx {
        let _ = writeln!(s, "\n== PTX ==");
        match image {
            Some(i) if i.kind == ImageKind::Cubin => s.push_str(&ptx_text(dir, i, &k.name)),
            Some(i) => {
                let f = dir.join(&i.file);
                let hint = match i.kind {
                    ImageKind::AmdCodeObject => format!("llvm-objdump-22 -d --mcpu={} {}", i.arch, f.display()),
                    _ => format!("objdump -d --disassemble={} {}", k.name, f.display()),
                };
                let _ = writeln!(s, "  {} images have no PTX; disassemble with: {hint}", i.arch);
            }
            None => {
                let _ = writeln!(s, "  no NVIDIA image in this build (PTX exists for sm_XX images only)");
            }
        }
    }
    s
}

fn ptx_text(dir: &Path, image: &ImageEntry, name: &str) -> String {
    let path = dir.join(Path::new(&image.file).with_extension("ptx"));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            return format!("  cannot read {} ({e}): rebuild the package (omp-rs-build keeps the PTX next to the cubin)\n", path.display())
        }
    };
    match ptx::find_entry(&text, name) {
        Some(e) => {
            let mut s = format!("  {} ({}:{})\n{}\n", image.arch, path.display(), e.line, e.text);
            if !e.calls.is_empty() {
                let _ = writeln!(s, "  calls (out-of-line .func, in the same file): {}", e.calls.join(", "));
            }
            s
        }
        None => format!("  no `.entry {name}` in {} (entries: {})\n", path.display(), ptx::entries(&text).join(", ")),
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use SlotKind::*;

    #[test]
    fn summaries_fold_arrays_and_loops() {
        let s = [Float64, ArrayBase, ArrayLen, ArrayBase, ArrayLen, LoopFirst, LoopTrips, LoopStep];
        assert_eq!(slot_summary(&s), "8: float64, array x2, loop");
        let s = [ArrayBase, ArrayLen, LoopFirst, LoopTrips, LoopStep, ReductionPartials, ReductionPartials];
        assert_eq!(slot_summary(&s), "7: array, loop, reduction_partials x2");
        assert_eq!(slot_summary(&[]), "0: ");
    }

    fn manifest() -> Manifest {
        let mut m = Manifest::new();
        let k = |name: &str, f: &str, region| KernelEntry {
            name: name.into(),
            function: f.into(),
            region,
            slots: vec![Int],
            maps: vec![],
            location: None,
            fields: vec![],
            source: None,
            checks: vec![],
        };
        m.kernels = vec![k("omp_f_0_aaaaaaaa", "f", 0), k("omp_f_1_aaaaaaaa", "f", 1), k("omp_g_0_bbbbbbbb", "g", 0)];
        m.images.push(ImageEntry {
            arch: "host-x86_64".into(),
            file: "k.host-x86_64.so".into(),
            kind: ImageKind::HostSo,
            resources: vec![],
        });
        m
    }

    #[test]
    fn kernel_names_resolve() {
        let m = manifest();
        let p = Path::new("/m.json");
        assert_eq!(resolve(&m, "omp_f_1_aaaaaaaa", p).unwrap().region, 1);
        assert_eq!(resolve(&m, "g", p).unwrap().name, "omp_g_0_bbbbbbbb");
        assert_eq!(resolve(&m, "bbbb", p).unwrap().name, "omp_g_0_bbbbbbbb");
        let e = resolve(&m, "f", p).unwrap_err().to_string();
        assert!(e.contains("matches 2 kernels") && e.contains("region 1"), "{e}");
        let e = resolve(&m, "h", p).unwrap_err().to_string();
        assert!(e.contains("no kernel `h`") && e.contains("omp_g_0_bbbbbbbb"), "{e}");
        // images
        assert!(choose_image(&m, None, p).unwrap().is_none(), "no cubin: no default image");
        assert_eq!(choose_image(&m, Some("host"), p).unwrap().unwrap().arch, "host-x86_64");
        let e = choose_image(&m, Some("sm_90"), p).unwrap_err().to_string();
        assert!(e.contains("no sm_90 image") && e.contains("host-x86_64") && e.contains("OMP_RS_OFFLOAD_ARCH=sm_90"), "{e}");
        assert!(choose_image(&m, Some("cuda"), p).unwrap_err().to_string().contains("unknown offload arch"));
    }
}
