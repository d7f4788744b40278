//! Snapshot tests of expansions: every `tests/expansions/NAME.rs` (one function carrying an `#[omp::...]`
//! attribute) is expanded as the proc macro would expand it, formatted, and compared with `NAME.expanded`. They
//! guard refactors of the pipeline (parse → analysis → lowering) against unintended changes of the generated code;
//! a deliberate change is reviewed in the diff of the `.expanded` files after
//!
//!     OMP_RS_BLESS=1 cargo test -p omp-rs-codegen --test expansions
//!
//! A manifest listing every kernel of the fixtures (with one stand-in image) is written first, and the comparison
//! runs in a child process whose `OUT_DIR` names it, as cargo names the build helper's (the macros read the
//! manifest once per process), so target regions expand to their launch code; its directory appears as `$OUT_DIR`
//! in the snapshots.

use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expansions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()).unwrap_or_else(|e| panic!("{e}")))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    files
}

/// The fixture's function without its attribute, the attribute's name and its arguments.
fn fixture(path: &Path) -> (syn::ItemFn, syn::Ident, proc_macro2::TokenStream) {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file: syn::File = syn::parse_str(&src).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    let [syn::Item::Fn(mut f)] = <[syn::Item; 1]>::try_from(file.items).unwrap_or_else(|_| panic!("{}: one fn", path.display())) else {
        panic!("{}: the item must be a fn", path.display());
    };
    let attr = f.attrs.remove(0);
    let name = attr.path().segments.last().cloned().unwrap_or_else(|| panic!("{}: no attribute", path.display())).ident;
    let args = match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    };
    (f, name, args)
}

/// Writes the manifest of every fixture's kernels; returns the directory to name as `OUT_DIR`.
fn manifest(files: &[PathBuf]) -> PathBuf {
    let mut kernels = Vec::new();
    for path in files {
        let (f, name, args) = fixture(path);
        let attr = (name != "directives").then_some((&name, args));
        kernels.extend(
            omp_rs_codegen::driver::expand::collect_kernels(&f, attr)
                .into_iter()
                .map(|k| serde_json::json!({ "name": k.name, "slots": k.slots() })),
        );
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("expansions-out");
    let dir = out.join("omp-rs");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let manifest = serde_json::json!({
        "format_version": omp_rs_abi::MANIFEST_FORMAT_VERSION,
        "abi_version": omp_rs_abi::ABI_VERSION,
        "kernels": kernels,
        "images": [{ "arch": "sm_90", "file": "kernels.sm_90.cubin", "kind": "cubin" }],
    });
    std::fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap_or_else(|e| panic!("cannot write the manifest: {e}"));
    out
}

/// The expansion of the file's function, formatted, with the manifest's directory written `$OUT_DIR`.
fn expand(path: &Path, out_dir: &Path) -> String {
    let (f, name, args) = fixture(path);
    let name = name.to_string();
    let item = quote::ToTokens::to_token_stream(&f);
    let out = if name == "directives" {
        omp_rs_codegen::driver::expand::directives(args, item)
    } else {
        omp_rs_codegen::driver::expand::attribute(&name, args, item)
    };
    let formatted: syn::File =
        syn::parse2(out.clone()).unwrap_or_else(|e| panic!("{}: the expansion does not parse ({e}):\n{out}", path.display()));
    prettyplease::unparse(&formatted).replace(&out_dir.display().to_string(), "$OUT_DIR")
}

#[test]
fn expansions_match_their_snapshots() {
    let files = fixtures();
    assert!(files.len() >= 6, "the snapshot fixtures are missing");
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("expansions-out");
    if std::env::var_os("OUT_DIR").is_none_or(|d| Path::new(&d) != out_dir) {
        // This process: write the manifest, then compare in a child that reads it from the start.
        manifest(&files);
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
        let status = std::process::Command::new(exe)
            .args(["--exact", "expansions_match_their_snapshots", "--nocapture", "--test-threads=1"])
            .env("OUT_DIR", &out_dir)
            .status()
            .unwrap_or_else(|e| panic!("cannot run the comparison: {e}"));
        assert!(status.success(), "the expansions differ from their snapshots (output above)");
        return;
    }
    let bless = std::env::var("OMP_RS_BLESS").is_ok_and(|v| v == "1");
    let mut changed = Vec::new();
    for path in &files {
        let got = expand(path, &out_dir);
        let snapshot = path.with_extension("expanded");
        if bless {
            std::fs::write(&snapshot, &got).unwrap_or_else(|e| panic!("cannot write {}: {e}", snapshot.display()));
            continue;
        }
        let want = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if got != want {
            let first = got.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(got.lines().count().min(want.lines().count()));
            changed.push(format!(
                "{} differs from its snapshot at line {}:\n  got:  {}\n  want: {}",
                path.display(),
                first + 1,
                got.lines().nth(first).unwrap_or("<end>"),
                want.lines().nth(first).unwrap_or("<end>")
            ));
        }
    }
    assert!(changed.is_empty(), "{}\n(review, then OMP_RS_BLESS=1 to accept)", changed.join("\n"));
}
