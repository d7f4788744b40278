//! Target regions whose meaning the device build cannot reproduce are compile errors at the user's code: the build
//! helper's outliner (run here on each file, as a build script runs it on a package) records its refusals in the
//! manifest, and the macros, reading that manifest, report each at the region. Each file of `tests/refusals/` must
//! fail with the message in its `.stderr` (`TRYBUILD=overwrite` regenerates them).

use std::path::Path;

use omp_rs_codegen::analyze::resolve::cfg::CfgSet;
use omp_rs_codegen::driver::outline::Outline;

#[test]
fn refused_regions_are_compile_errors_at_the_region() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/refusals");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "rs")).collect();
    files.sort();
    let mut refused = Vec::new();
    for f in &files {
        let ast = syn::parse_file(&std::fs::read_to_string(f).unwrap()).unwrap();
        let mut o = Outline::default();
        // The trybuild crate builds in the dev profile, with debug assertions.
        o.cfg = CfgSet::with(&["debug_assertions", "unix"], &[]);
        o.add_file(&ast, "src/main.rs");
        assert!(!o.refused.is_empty(), "{}: nothing refused", f.display());
        refused.append(&mut o.refused);
    }
    // The manifest a build script would write (no images: the regions would run on the host, and are refused
    // all the same, so that a CPU-only build fails where a GPU build would).
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-rs-refusals");
    std::fs::create_dir_all(out.join("omp-rs")).unwrap();
    let manifest = serde_json::json!({
        "format_version": omp_rs_abi::MANIFEST_FORMAT_VERSION,
        "abi_version": omp_rs_abi::ABI_VERSION,
        "kernels": [],
        "images": [],
        "globals": [],
        "refused": refused,
    });
    std::fs::write(out.join("omp-rs/manifest.json"), serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    // The macros find the manifest through OUT_DIR, as in a package with a build script.
    std::env::set_var("OUT_DIR", &out);
    trybuild::TestCases::new().compile_fail("tests/refusals/*.rs");
}
