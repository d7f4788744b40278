//! The hand-over point between source scanning and device compilation.
//!
//! [`outline`] receives every parsed file of the package and returns the device crate (source
//! text, exported symbols) plus the kernels' manifest entries, from `omp_rs_codegen`'s outliner (the
//! same walk the macros run). The hand-written [`demo`] crate is a reference for generated code and
//! the pipeline's own tests.

use std::path::PathBuf;

use crate::compile::DeviceCrate;
use crate::error::{Error, Result};
use crate::manifest::{KernelEntry, SlotKind};
use crate::scan::SourceFile;
use omp_rs_codegen::plan::manifest::{HostOnly, Refusal};

/// What the outliner produces.
#[derive(Debug, Clone)]
pub struct Outlined {
    /// The device crate (its `lib.rs` starts with the header shown in `omp_device`'s docs).
    pub krate: DeviceCrate,
    /// One entry per kernel, in the manifest's format.
    pub kernels: Vec<KernelEntry>,
    /// Each kernel's own source file (path relative to the manifest's directory, text), for `cargo omp explain`.
    pub listings: Vec<(PathBuf, String)>,
}

/// The regions of a package that get no kernel, and why.
#[derive(Debug, Default)]
pub struct Unbuilt {
    /// Regions whose meaning the device build cannot reproduce: the macros make each a compile error.
    pub refused: Vec<Refusal>,
    /// Generic regions that run on the host: the build warns about each.
    pub host_only: Vec<HostOnly>,
}

/// Outlines the target regions of `files` into a device crate (`None` when the package has none).
///
/// The walk is `omp_rs_codegen::driver::outline`, the same code the macros run, so kernel names and argument slots
/// agree with the launches the macros expand to. Regions with errors are left out: the macros report them.
///
/// # Errors
/// [`Error::KernelClash`] when two regions of one kernel name compile from different sources.
/// `debug_assertions` is the profile's setting (cargo before 1.93 does not pass it as `CARGO_CFG_DEBUG_ASSERTIONS`):
/// `cfg!(debug_assertions)` in kernel code evaluates to it.
pub fn outline(package: &str, root: &std::path::Path, files: &[SourceFile], debug_assertions: bool) -> Result<(Option<Outlined>, Unbuilt)> {
    let mut o = omp_rs_codegen::driver::outline::Outline::default();
    // Panic locations and the struct table name each file as the user does: relative to the package.
    let shown: Vec<String> = files.iter().map(|f| f.path.strip_prefix(root).unwrap_or(&f.path).display().to_string()).collect();
    // Every struct and module first: a region in one file may use the fields of a struct, or the items, of another.
    for (f, shown) in files.iter().zip(&shown) {
        o.structs.add_file(&f.ast, shown);
        o.modules.add_file(&f.ast, f.krate, &f.module);
        if f.module.is_empty() && shown == "src/lib.rs" {
            o.modules.set_lib(package, f.krate);
        }
    }
    let vars = std::env::vars().filter(|(k, _)| k != "CARGO_CFG_DEBUG_ASSERTIONS");
    let debug = debug_assertions.then(|| ("CARGO_CFG_DEBUG_ASSERTIONS".to_string(), String::new()));
    o.cfg = omp_rs_codegen::analyze::resolve::cfg::CfgSet::from_vars(vars.chain(debug));
    for (f, shown) in files.iter().zip(&shown) {
        o.add_file_at(&f.ast, shown, f.krate, &f.module);
    }
    o.settle_type_aliases();
    let unbuilt = Unbuilt { refused: std::mem::take(&mut o.refused), host_only: std::mem::take(&mut o.host_only) };
    if o.kernels.is_empty() {
        return Ok((None, unbuilt));
    }
    // Two regions with the same name and the same source (the same function seen from two targets of the package)
    // are one kernel. The same name with another source (the same function in two modules whose consts differ)
    // would make one region launch the other's kernel: every kernel of such a name is named by its location
    // instead (`abi::located_name`, which the macro computes for its region too).
    let mut sources: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    for (i, k) in o.kernels.iter().enumerate() {
        let source = o.kernel_source(i);
        let seen = sources.entry(k.name.clone()).or_default();
        if !seen.contains(&source) {
            seen.push(source);
        }
    }
    for i in 0..o.kernels.len() {
        if sources.get(&o.kernels[i].name).is_some_and(|s| s.len() > 1) {
            let line = o.kernels[i].region_line();
            o.kernels[i].name = omp_rs_codegen::plan::abi::located_name(&o.kernels[i].name, &o.files[i], line);
        }
    }
    let mut first: std::collections::HashMap<String, (usize, String)> = std::collections::HashMap::new();
    let mut keep = Vec::with_capacity(o.kernels.len());
    for (i, k) in o.kernels.iter().enumerate() {
        let source = o.kernel_source(i);
        match first.get(k.name.as_str()) {
            None => {
                first.insert(k.name.clone(), (i, source));
                keep.push(true);
            }
            Some((_, same)) if *same == source => keep.push(false),
            Some((j, _)) => {
                return Err(Error::KernelClash {
                    kernel: k.name.clone(),
                    function: k.function.clone(),
                    first: o.files[*j].clone(),
                    second: o.files[i].clone(),
                })
            }
        }
    }
    let mut it = keep.iter();
    o.kernels.retain(|_| *it.next().unwrap_or(&false));
    let mut it = keep.iter();
    o.files.retain(|_| *it.next().unwrap_or(&false));
    let mut listings = Vec::new();
    let kernels: Vec<KernelEntry> = o
        .kernels
        .iter()
        .zip(&o.files)
        .enumerate()
        .map(|(i, (k, file))| (k, file, o.kernel_listing(i)))
        .map(|(k, file, (text, line, params))| {
            let listing = format!("device/kernels/{}.rs", k.name);
            listings.push((PathBuf::from(&listing), text));
            (k, file, crate::manifest::KernelSource { file: listing, line, params })
        })
        .map(|(k, file, source)| KernelEntry {
            name: k.name.clone(),
            function: k.function.clone(),
            region: k.region,
            slots: k.slots(),
            maps: k.maps.clone(),
            location: Some(crate::manifest::Location { file: file.clone(), line: k.region_line() }),
            fields: k.field_types.iter().map(|(local, ty)| crate::manifest::FieldType { local: local.clone(), ty: ty.clone() }).collect(),
            checks: k.host_checks.clone(),
            source: Some(source),
        })
        .collect();
    // The device signature and the manifest's layout (which the launch checks the host's pack against) come from
    // one plan by two printers; a kernel whose parameters are not its slots is refused before it is compiled.
    for k in &kernels {
        let params = k.source.as_ref().map_or(0, |s| s.params.len());
        if params != k.slots.len() {
            return Err(Error::Unexpected(format!(
                "omp-rs internal error: kernel `{}` has {params} parameters after dyn_ptr but {} slots ({:?}); please report it",
                k.name,
                k.slots.len(),
                k.slots
            )));
        }
    }
    let crate_name = format!("omp_kernels_{}", package.replace('-', "_"));
    let crate_files = o.crate_files();
    let remap_path_prefix = crate_files.iter().filter_map(|f| f.remap_to.clone().map(|to| (PathBuf::from(&f.path), to))).collect();
    let outlined = Outlined {
        krate: DeviceCrate {
            name: crate_name,
            files: crate_files.into_iter().map(|f| (PathBuf::from(f.path), f.text)).collect(),
            exports: kernels.iter().map(|k| k.name.clone()).collect(),
            remap_path_prefix,
            overflow_checks: false,
            debug_assertions: false,
        },
        kernels,
        listings,
    };
    Ok((Some(outlined), unbuilt))
}

/// Source of the hand-written demo device crate (also the reference for generated code).
pub const DEMO_SOURCE: &str = include_str!("outline/demo_kernels.rs");

/// The hand-written demo crate: saxpy (bounds-checked `View`, read-only slice), a `+`/`max`
/// reduction through `team_reduce`, exp/sin/sqrt/powi, an `atomic` f64 add, a kernel that
/// indexes out of bounds, and integer/bool reductions with integer/f32 atomics.
pub fn demo() -> Outlined {
    use SlotKind::*;
    let loop3 = [LoopFirst, LoopTrips, LoopStep];
    let arr = [ArrayBase, ArrayLen];
    let k = |name: &str, slots: Vec<SlotKind>| KernelEntry {
        name: name.into(),
        function: name.trim_start_matches("omp_demo_").into(),
        region: 0,
        slots,
        maps: Vec::new(),
        location: None,
        fields: Vec::new(),
        source: None,
        checks: Vec::new(),
    };
    let cat = |parts: &[&[SlotKind]]| parts.concat();
    let kernels = vec![
        k("omp_demo_saxpy", cat(&[&[Float64], &arr, &arr, &loop3])),
        k("omp_demo_sum_max", cat(&[&arr, &loop3, &[ReductionPartials, ReductionPartials]])),
        k("omp_demo_math", cat(&[&arr, &arr, &arr, &arr, &loop3])),
        k("omp_demo_atomic_sum", cat(&[&arr, &[Pointer], &loop3])),
        k("omp_demo_oob", cat(&[&arr, &arr, &[Int], &loop3])),
        k("omp_demo_int_ops", cat(&[&arr, &loop3, &[Pointer, Pointer, ReductionPartials]])),
    ];
    Outlined {
        krate: DeviceCrate {
            name: "omp_demo_kernels".into(),
            files: vec![(PathBuf::from("lib.rs"), DEMO_SOURCE.to_string())],
            exports: kernels.iter().map(|k| k.name.clone()).collect(),
            remap_path_prefix: Vec::new(),
            overflow_checks: false,
            debug_assertions: false,
        },
        kernels,
        listings: Vec::new(),
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn outlines_target_regions_only() {
        let file: syn::File = syn::parse_quote! {
            #[omp::target_teams_distribute_parallel_for]
            fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {
                for i in 0..y.len() {
                    y[i] += a * x[i];
                }
            }
            #[omp::parallel_for]
            fn host_only(y: &mut [f64]) {
                for i in 0..y.len() {
                    y[i] = 0.0;
                }
            }
        };
        let files = [SourceFile { path: "/pkg/src/lib.rs".into(), ast: file, krate: 0, module: Vec::new() }];
        let o = outline("demo-pkg", std::path::Path::new("/pkg"), &files, false).unwrap().0.unwrap();
        assert_eq!(o.kernels.len(), 1);
        let k = &o.kernels[0];
        assert!(k.name.starts_with("omp_saxpy_0_"), "{}", k.name);
        use SlotKind::*;
        // The written `y` carries its ownership (mode, origin, width, one stride) after base and length.
        let y = [ArrayBase, ArrayLen, OwnerMode, OwnerOrigin, OwnerWidth, OwnerStride];
        let want: Vec<SlotKind> = [&[Float64, ArrayBase, ArrayLen][..], &y[..], &[LoopFirst, LoopTrips, LoopStep][..]].concat();
        assert_eq!(k.slots, want);
        assert_eq!(o.krate.exports, vec![k.name.clone()]);
        assert_eq!(o.krate.name, "omp_kernels_demo_pkg");
        assert_eq!(demo().kernels.len(), demo().krate.exports.len());
    }

    /// The slot list the launch code follows (`KernelPlan::slots`, recorded in the manifest) and the parameter list
    /// of the generated kernel are made by different code from one plan: they must have the same length for every
    /// kind of argument (arrays with and without ownership, scalars, inline arrays, a struct by value, device
    /// buffers, reductions, a tiled collapsed nest).
    #[test]
    fn kernel_parameters_match_the_slots_the_launch_passes() {
        let file: syn::File = syn::parse_quote! {
            #[omp::declare_target]
            #[derive(Clone, Copy)]
            struct P { a: f64, b: f64 }
            #[omp::target_teams_distribute_parallel_for(reduction(+: s), reduction(max: m))]
            fn red(x: &[f64], mut s: f64, mut m: f64) -> (f64, f64) {
                for i in 0..x.len() {
                    s += x[i];
                    m = m.max(x[i]);
                }
                (s, m)
            }
            #[omp::target_teams_distribute_parallel_for(collapse(2))]
            fn mm(n: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
                for i in 0..n {
                    for j in 0..n {
                        let mut t: f64 = 0.0;
                        for k in 0..n {
                            t += a[i * n + k] * b[k * n + j];
                        }
                        c[i * n + j] = t;
                    }
                }
            }
            #[omp::target_teams_distribute_parallel_for(collapse(3))]
            fn fill(p: P, taps: [f64; 3], y: &mut [f64], n: usize) {
                for i in 0..n {
                    for j in 0..n {
                        for k in 0..3 {
                            y[(i * n + j) * 3 + k] = p.a * taps[k] + p.b;
                        }
                    }
                }
            }
            #[omp::target_teams_distribute_parallel_for(is_device_ptr(x, y))]
            fn dev(n: usize, x: &omp::DeviceBuffer<f64>, y: &mut omp::DeviceBuffer<f64>) {
                for i in 0..n {
                    y[i] = 2.0 * x[i];
                }
            }
        };
        let files = [SourceFile { path: "/pkg/src/lib.rs".into(), ast: file, krate: 0, module: Vec::new() }];
        let o = outline("demo-pkg", std::path::Path::new("/pkg"), &files, false).unwrap().0.unwrap();
        assert_eq!(o.kernels.len(), 4, "{:?}", o.kernels.iter().map(|k| &k.name).collect::<Vec<_>>());
        for k in &o.kernels {
            let params = &k.source.as_ref().expect("every kernel has its listing").params;
            assert_eq!(params.len(), k.slots.len(), "kernel {}: parameters {params:?}, slots {:?}", k.name, k.slots);
        }
    }

    /// The same function in two modules: one kernel when it compiles the same; two kernels named by their location
    /// when the modules' consts make them differ (one name would launch the first module's kernel for both).
    #[test]
    fn same_name_kernels_must_compile_the_same() {
        let module = |k: f64| -> syn::File {
            syn::parse_quote! {
                const K: f64 = #k;
                #[omp::target_teams_distribute_parallel_for]
                fn fill(y: &mut [f64]) {
                    for i in 0..y.len() {
                        y[i] = K;
                    }
                }
            }
        };
        let root = std::path::Path::new("/pkg");
        let files = |a: f64, b: f64| {
            [
                SourceFile { path: "/pkg/src/a.rs".into(), ast: module(a), krate: 0, module: vec!["a".into()] },
                SourceFile { path: "/pkg/src/b.rs".into(), ast: module(b), krate: 0, module: vec!["b".into()] },
            ]
        };
        let same = outline("p", root, &files(1.0, 1.0), false).unwrap().0.unwrap();
        assert_eq!(same.kernels.len(), 1, "identical regions share their kernel");
        let differ = outline("p", root, &files(1.0, 2.0), false).unwrap().0.unwrap();
        let names: Vec<&str> = differ.kernels.iter().map(|k| k.name.as_str()).collect();
        let plain = &same.kernels[0].name;
        assert_eq!(names.len(), 2, "{names:?}");
        assert_ne!(names[0], names[1]);
        for (name, (file, k)) in names.iter().zip([("src/a.rs", 1.0), ("src/b.rs", 2.0)]) {
            assert!(name.starts_with(plain.as_str()) && *name != plain, "{name} is not named by its location");
            let mut o = omp_rs_codegen::driver::outline::Outline::default();
            o.add_file(&module(k), file);
            let line = o.kernels[0].region_line();
            assert_eq!(*name, omp_rs_codegen::plan::abi::located_name(plain, file, line), "the name the macro computes for {file}");
        }
    }
}
