//! Habits of the whole workspace, checked where every change is tested: the sources are formatted as `rustfmt.toml`
//! says (`cargo fmt --all` fixes a failure), and the library crates pass clippy with warnings denied (the lints the
//! workspace allows are in `Cargo.toml`, with why). Ports, examples, the bench and the suite are not held to clippy:
//! ports keep their original's constants and loop forms.

use std::path::Path;
use std::process::Command;

/// The workspace's root (this crate's parent).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("omp-rs lives in the workspace")
}

/// The crates that make up omp-rs (what a user depends on, and its tools).
const LIBRARY_CRATES: &[&str] =
    &["omp-rs", "omp-rs-abi", "omp-rs-codegen", "omp-rs-macros", "omp-rs-build", "libomptarget-sys", "cargo-omp"];

/// Without the tool there is nothing to compare with (a visible skip); CI has it (`OMP_RS_REQUIRE_TOOLCHAIN=1`).
fn tool_missing(tool: &str, stderr: &str) -> bool {
    if !stderr.contains("not installed") && !stderr.contains("no such command") {
        return false;
    }
    let required = std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1");
    assert!(!required, "{tool} is not installed: {stderr}");
    eprintln!("SKIPPED: {tool} is not installed (rustup component add {tool})");
    true
}

#[test]
fn the_library_crates_pass_clippy() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.arg("clippy").arg("--quiet");
    for c in LIBRARY_CRATES {
        cmd.args(["-p", c]);
    }
    // Its own target folder: the test's cargo may still hold the workspace's.
    cmd.args(["--all-targets", "--", "-D", "warnings"]).env("CARGO_TARGET_DIR", root().join("target/clippy")).current_dir(root());
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run `{cargo} clippy`: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && tool_missing("clippy", &stderr) {
        return;
    }
    assert!(out.status.success(), "clippy finds warnings in the library crates:\n{stderr}");
}

#[test]
fn the_workspace_is_formatted() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = match Command::new(&cargo).args(["fmt", "--all", "--check"]).current_dir(root()).output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run `{cargo} fmt`: {e}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && tool_missing("rustfmt", &stderr) {
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("Diff in ")).collect();
    assert!(out.status.success(), "not formatted (run `cargo fmt --all`): {files:#?}\n{stderr}");
}

/// The Rust version `Cargo.toml` declares (`rust-version`) builds what a user compiles: the library crates and
/// code written with the directives (the suite, the ports, the examples and the bench, whose expansions and build
/// scripts are what a user's crate gets). Dev-dependencies (trybuild, proptest) need a newer Rust and are not part
/// of it. The toolchain comes from `scripts/setup-msrv-toolchain.sh`; without it the test says SKIPPED (CI has it).
#[test]
fn the_declared_rust_version_builds_the_crates_and_code_using_them() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("the workspace's Cargo.toml");
    let version =
        manifest.lines().find_map(|l| l.strip_prefix("rust-version = \"")?.strip_suffix('"')).expect("Cargo.toml declares rust-version");
    let home = std::env::var_os("OMP_RS_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").expect("HOME is set")).join(".cache/omp-rs"));
    let toolchain = home.join(format!("msrv-{version}/usr"));
    if !toolchain.join("bin/cargo").is_file() {
        let required = std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1");
        assert!(!required, "no Rust {version} at {} (scripts/setup-msrv-toolchain.sh)", toolchain.display());
        eprintln!("SKIPPED: no Rust {version} toolchain (scripts/setup-msrv-toolchain.sh installs it)");
        return;
    }
    let bin = toolchain.join("bin");
    let path =
        std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())))
            .expect("PATH joins");
    let mut cmd = Command::new(bin.join("cargo"));
    cmd.args(["check", "--quiet", "--lib", "--bins", "--features", "omp-rs/ndarray"]);
    for c in LIBRARY_CRATES.iter().chain(&["omp-offload-suite", "omp-ports", "omp-examples", "omp-bench"]) {
        cmd.args(["-p", c]);
    }
    // Only that toolchain: rustup's proxies and the test's own cargo must not leak in.
    for var in ["RUSTC", "RUSTDOC", "RUSTC_WRAPPER", "RUSTUP_TOOLCHAIN", "CARGO", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        cmd.env_remove(var);
    }
    cmd.env("PATH", path)
        .env("RUSTC", bin.join("rustc"))
        .env("RUSTDOC", bin.join("rustdoc"))
        .env("LD_LIBRARY_PATH", toolchain.join("lib/x86_64-linux-gnu"))
        .env("CARGO_TARGET_DIR", root().join("target/msrv"))
        .current_dir(root());
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run Rust {version}'s cargo: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "Rust {version} (Cargo.toml's rust-version) does not build the workspace:\n{stderr}");
}

/// The module graph of a crate's source tree (`root`: its `src`), modules named by their path at `depth` (1: the
/// top-level modules, folders merged): an edge for each `crate::` / `super::` path, `use` groups included; comments
/// and `#[cfg(test)]` modules left out (a doc link is no import).
fn module_graph(root: &Path, depth: usize) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("a source folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    files(root, &mut paths);
    let module_of = |p: &Path| -> Vec<String> {
        let rel = p.strip_prefix(root).expect("under the root").with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
            parts.pop();
        }
        parts
    };
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|p| module_of(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &paths {
        let here = module_of(p);
        let mut src = std::fs::read_to_string(p).expect("a source file");
        if let Some(k) = src.find("#[cfg(test)]") {
            src.truncate(k);
        }
        let code: String = src.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        // Every path after `crate::` or `super::`, a `{a, b::c}` group expanded into its members.
        let mut targets: Vec<Vec<String>> = Vec::new();
        for (k, _) in code.match_indices("::") {
            let before = &code[..k];
            let word_start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |i| i + 1);
            let head = &code[word_start..k];
            if head.contains("::") || !(head == "crate" || head == "super") {
                continue;
            }
            let mut base: Vec<String> = if head == "crate" { Vec::new() } else { here[..here.len().saturating_sub(1)].to_vec() };
            let mut rest = &code[k + 2..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let members: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end].split(',').map(|m| m.trim().to_string()).collect()
            } else {
                vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect()]
            };
            for m in members {
                let mut path = base.clone();
                path.extend(m.split("::").filter(|s| !s.is_empty() && *s != "self").map(str::to_string));
                targets.push(path);
            }
        }
        for t in targets {
            let Some(found) = (1..=t.len()).rev().map(|n| t[..n].to_vec()).find(|c| modules.contains(c)) else { continue };
            let (a, b) = (here.iter().take(depth).cloned().collect::<Vec<_>>(), found.iter().take(depth).cloned().collect::<Vec<_>>());
            if !a.is_empty() && !b.is_empty() && a != b && !a.starts_with(&b) && !b.starts_with(&a) {
                graph.entry(a.join("::")).or_default().insert(b.join("::"));
            }
        }
    }
    graph
}

/// A cycle of `graph`, if it has one.
fn cycle(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        n: &'a str,
        graph: &'a std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        stack: &mut Vec<&'a str>,
        done: &mut std::collections::BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(k) = stack.iter().position(|s| *s == n) {
            return Some(stack[k..].iter().map(|s| s.to_string()).chain([n.to_string()]).collect());
        }
        if !done.insert(n) {
            return None;
        }
        stack.push(n);
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Codegen runs in stages (syntax → analyze → desugar → plan → lower → driver, `omp-rs-codegen/src/lib.rs`) and the
/// runtime in layers (`offload`: result → map → registry → device → queue → data → launch): no module imports one
/// that imports it back, at the level of files and of top-level folders.
#[test]
fn codegen_and_the_runtime_have_no_import_cycle() {
    for (src, depth) in [("omp-rs-codegen/src", 1), ("omp-rs-codegen/src", 2), ("omp-rs/src", 2)] {
        let graph = module_graph(&root().join(src), depth);
        assert!(graph.len() > 3, "{src}: the graph was not read ({graph:?})");
        if let Some(c) = cycle(&graph) {
            panic!("{src} (modules at depth {depth}) imports in a circle: {}", c.join(" -> "));
        }
    }
}
