//! Finding and parsing every Rust source file of a package: the target roots (`src/lib.rs`,
//! `src/main.rs`, `src/bin/`, `examples/`, `tests/`, `benches/`) and the files their `mod`
//! declarations load, following `#[path]` and inline modules like rustc does.
//!
//! Targets with a custom `path` in Cargo.toml (`[lib]`, `[[bin]]`, `[[example]]`, `[[test]]`, `[[bench]]`) are
//! read from the manifest. Modules produced by macros are not found.
//! Files that do not parse are skipped (rustc reports them) but still watched.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A parsed source file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Its syntax tree.
    pub ast: syn::File,
    /// The crate (target root, in [`Scan::files`] order of roots) whose module tree holds it.
    pub krate: usize,
    /// Its module's path from that crate's root (`["grid", "halo"]`; empty for the root).
    pub module: Vec<String>,
}

/// The result of scanning a package.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Parsed files, roots first.
    pub files: Vec<SourceFile>,
    /// Files that exist but do not parse, with the parse error.
    pub unparsed: Vec<(PathBuf, String)>,
    /// Every file read plus the target directories (for `cargo:rerun-if-changed`; a directory
    /// entry makes cargo notice new files in it).
    pub watched: Vec<PathBuf>,
}

/// Scans the package rooted at `root` (the directory of its Cargo.toml).
pub fn scan_package(root: &Path) -> Scan {
    let mut scan = Scan::default();
    let mut seen = HashSet::new();
    for dir in ["src", "examples", "tests", "benches"] {
        let d = root.join(dir);
        if d.is_dir() {
            scan.watched.push(d);
        }
    }
    for (krate, r) in target_roots(root).into_iter().enumerate() {
        load(&r, true, &Place { krate, module: Vec::new() }, &mut scan, &mut seen);
    }
    scan
}

/// Crate roots of all cargo's auto-discovered targets.
fn target_roots(root: &Path) -> Vec<PathBuf> {
    let mut v = vec![root.join("src/lib.rs"), root.join("src/main.rs")];
    for dir in ["src/bin", "examples", "tests", "benches"] {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(root.join(dir)).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        entries.sort();
        for p in entries {
            if p.extension().is_some_and(|e| e == "rs") {
                v.push(p);
            } else if p.join("main.rs").is_file() {
                v.push(p.join("main.rs"));
            }
        }
    }
    v.extend(manifest_target_paths(root));
    v.into_iter().filter(|p| p.is_file()).collect()
}

/// `path = "..."` of the targets declared in `Cargo.toml`.
fn manifest_target_paths(root: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml")) else { return Vec::new() };
    let Ok(doc) = text.parse::<toml::Table>() else { return Vec::new() };
    let mut out = Vec::new();
    let mut add = |t: &toml::Value| {
        if let Some(p) = t.get("path").and_then(|p| p.as_str()) {
            out.push(root.join(p));
        }
    };
    if let Some(lib) = doc.get("lib") {
        add(lib);
    }
    for kind in ["bin", "example", "test", "bench"] {
        if let Some(toml::Value::Array(targets)) = doc.get(kind) {
            targets.iter().for_each(&mut add);
        }
    }
    out
}

/// Which crate a file belongs to and its module path there.
struct Place {
    krate: usize,
    module: Vec<String>,
}

impl Place {
    fn child(&self, name: &str) -> Place {
        let mut module = self.module.clone();
        module.push(name.to_string());
        Place { krate: self.krate, module }
    }
}

/// Parses `path` and follows its `mod` declarations. `owns_dir`: a crate root, `mod.rs` or
/// `#[path]` file, whose child modules live next to it (else in `<dir>/<stem>/`).
fn load(path: &Path, owns_dir: bool, place: &Place, scan: &mut Scan, seen: &mut HashSet<PathBuf>) {
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if !seen.insert(key) {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else { return };
    scan.watched.push(path.to_path_buf());
    let ast = match syn::parse_file(&text) {
        Ok(ast) => ast,
        Err(e) => {
            scan.unparsed.push((path.to_path_buf(), e.to_string()));
            return;
        }
    };
    let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let child_dir = if owns_dir || path.file_name().is_some_and(|n| n == "mod.rs") {
        file_dir.clone()
    } else {
        file_dir.join(path.file_stem().unwrap_or_default())
    };
    let items = ast.items.clone();
    scan.files.push(SourceFile { path: path.to_path_buf(), ast, krate: place.krate, module: place.module.clone() });
    walk(&items, &child_dir, &file_dir, place, scan, seen);
}

/// `child_dir`: where `mod m;` looks for `m.rs` / `m/mod.rs`; `path_base`: what `#[path]` is
/// relative to (the file's directory at file level, `child_dir` inside inline modules).
fn walk(items: &[syn::Item], child_dir: &Path, path_base: &Path, place: &Place, scan: &mut Scan, seen: &mut HashSet<PathBuf>) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name);
        let path_attr = m.attrs.iter().find_map(|a| {
            if !a.path().is_ident("path") {
                return None;
            }
            match &a.meta {
                syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }), .. }) => {
                    Some(s.value())
                }
                _ => None,
            }
        });
        let child = place.child(name);
        match (&m.content, path_attr) {
            (Some((_, inner)), _) => {
                let d = child_dir.join(name);
                walk(inner, &d, &d, &child, scan, seen);
            }
            (None, Some(p)) => load(&path_base.join(p), true, &child, scan, seen),
            (None, None) => {
                let flat = child_dir.join(format!("{name}.rs"));
                let nested = child_dir.join(name).join("mod.rs");
                if flat.is_file() {
                    load(&flat, false, &child, scan, seen);
                } else if nested.is_file() {
                    load(&nested, true, &child, scan, seen);
                }
            }
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn follows_mods_paths_and_targets() {
        let root = std::env::temp_dir().join(format!("omp-rs-scan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let w = |p: &str, s: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        w("src/lib.rs", "mod a; mod b; #[path = \"other/c_impl.rs\"] mod c; mod inl { mod d; #[path = \"e_file.rs\"] mod e; }");
        w("src/a.rs", "mod a_child;");
        w("src/a/a_child.rs", "fn x() {}");
        w("src/b/mod.rs", "mod b_child;");
        w("src/b/b_child.rs", "fn y() {}");
        w("src/other/c_impl.rs", "mod c_child;");
        w("src/other/c_child.rs", "");
        w("src/inl/d.rs", "");
        w("src/inl/e_file.rs", "");
        w("src/bin/tool.rs", "fn main() {}");
        w("examples/ex/main.rs", "fn main() {}");
        w("tests/t.rs", "this is not rust {");
        w("benches/bb.rs", "");
        w("src/unused.rs", "");
        let s = scan_package(&root);
        let rel = |p: &Path| p.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let mut got: Vec<String> = s.files.iter().map(|f| rel(&f.path)).collect();
        got.sort();
        let mut want = vec![
            "src/lib.rs",
            "src/a.rs",
            "src/a/a_child.rs",
            "src/b/mod.rs",
            "src/b/b_child.rs",
            "src/other/c_impl.rs",
            "src/other/c_child.rs",
            "src/inl/d.rs",
            "src/inl/e_file.rs",
            "src/bin/tool.rs",
            "examples/ex/main.rs",
            "benches/bb.rs",
        ];
        want.sort();
        assert_eq!(got, want);
        assert_eq!(s.unparsed.len(), 1);
        // Module paths from each file's crate root, `#[path]` and inline modules included.
        let module = |p: &str| s.files.iter().find(|f| rel(&f.path) == p).map(|f| f.module.join("::")).unwrap_or_default();
        assert_eq!(module("src/a/a_child.rs"), "a::a_child");
        assert_eq!(module("src/other/c_child.rs"), "c::c_child");
        assert_eq!(module("src/inl/e_file.rs"), "inl::e");
        assert_eq!(module("src/bin/tool.rs"), "");
        assert!(s.watched.iter().any(|p| rel(p) == "tests/t.rs"));
        assert!(s.watched.iter().any(|p| rel(p) == "src"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
