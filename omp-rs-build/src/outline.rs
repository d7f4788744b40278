//! The hand-over point between source scanning and device compilation.
//!
//! [`outline`] receives every parsed file of the package and returns the device crate (source
//! text, exported symbols) plus the kernels' manifest entries. **This is where the outliner of
//! `omp_rs_codegen` plugs in**; until it does, a package that uses a `#[omp::target…]` directive
//! gets the hand-written [`demo`] crate, so the whole pipeline (images + manifest) runs.

use std::path::PathBuf;

use crate::compile::DeviceCrate;
use crate::error::Result;
use crate::manifest::{KernelEntry, SlotKind};
use crate::scan::SourceFile;

/// What the outliner produces.
#[derive(Debug, Clone)]
pub struct Outlined {
    /// The device crate (its `lib.rs` starts with the header shown in `omp_device`'s docs).
    pub krate: DeviceCrate,
    /// One entry per kernel, in the manifest's format.
    pub kernels: Vec<KernelEntry>,
}

// ================================================================================================
// LEAD: plug the outliner in here.
// Input: the package name and every parsed source file (path + syn::File).
// Output: None when the package has no target regions, else the device crate source, its exported
// kernel names (DeviceCrate::exports; omp_device's globals are added automatically) and one
// KernelEntry per kernel. Errors in user code should be left to the proc macros (return what can
// be outlined); return Err only for internal failures.
// ================================================================================================
/// Outlines the target regions of `files` into a device crate.
///
/// # Errors
/// Internal failures of the outliner.
pub fn outline(package: &str, files: &[SourceFile]) -> Result<Option<Outlined>> {
    let _ = package;
    if files.iter().any(|f| uses_target_directive(&f.ast)) {
        return Ok(Some(demo()));
    }
    Ok(None)
}

/// `true` if any attribute is `#[omp::target…]` (placeholder detection until the outliner lands).
fn uses_target_directive(file: &syn::File) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
            let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
            if segs.len() >= 2 && segs[0] == "omp" && segs[segs.len() - 1].starts_with("target") {
                self.0 = true;
            }
        }
    }
    let mut f = Finder(false);
    syn::visit::visit_file(&mut f, file);
    f.0
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
        },
        kernels,
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn detects_target_directives() {
        let yes: syn::File = syn::parse_quote! {
            #[omp::target_teams_distribute_parallel_for]
            fn saxpy(a: f64, x: &[f64], y: &mut [f64]) {}
        };
        let no: syn::File = syn::parse_quote! {
            #[omp::parallel_for]
            fn f() {}
        };
        assert!(uses_target_directive(&yes));
        assert!(!uses_target_directive(&no));
        assert_eq!(demo().kernels.len(), demo().krate.exports.len());
    }
}
