//! `cargo omp census DIR`: which OpenMP directives of a tree of C/C++/Fortran programs omp-rs can express as written,
//! per directive and per program, read against the macros' own tables (`classify`) at each directive's place in its
//! source (`scan`). A program counts as expressible when every directive of it is.
//!
//! What it cannot see: types (a scalar in a data map reads like an array), code the preprocessor removes (scanned as
//! written), routines a region calls in other functions (only the region's own text is searched for
//! `omp_get_thread_num` and its kin).

mod classify;
mod scan;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// How the tree is cut into programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Programs {
    /// Each directory directly under DIR is one program (HeCBench's `src/<name>-omp`).
    Dirs,
    /// Each source file is one program (RAJAPerf's `<kernel>-OMPTarget.cpp`).
    Files,
}

/// The command's options.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) root: PathBuf,
    pub(crate) programs: Programs,
    /// Only programs whose path (relative to DIR) contains this.
    pub(crate) matching: Option<String>,
    /// Also list every program with its blockers.
    pub(crate) list: bool,
}

/// One program's result.
#[derive(Debug, Default)]
struct Program {
    directives: usize,
    expressible: usize,
    /// Blocker → the directives it blocks (`file:line`).
    blockers: BTreeMap<String, Vec<String>>,
}

/// Runs the census and renders its report.
pub(crate) fn run(o: &Options) -> Result<String> {
    let mut files = Vec::new();
    collect(&o.root, &mut files)?;
    files.sort();
    // Each source with its program, read first: whether a program holds device code is a property of all its files.
    let mut sources = Vec::new();
    for f in &files {
        let Some(lang) = scan::language(f) else { continue };
        let rel = f.strip_prefix(&o.root).unwrap_or(f).to_string_lossy().into_owned();
        let key = match o.programs {
            Programs::Files => rel.clone(),
            Programs::Dirs => match rel.split_once('/') {
                Some((dir, _)) => dir.to_string(),
                None => continue,
            },
        };
        if o.matching.as_ref().is_some_and(|m| !key.contains(m.as_str())) {
            continue;
        }
        let bytes = std::fs::read(f).map_err(Error::io("reading a source", f))?;
        let src = scan::scan(&String::from_utf8_lossy(&bytes), &rel, lang);
        sources.push((key, src, lang));
    }
    // Programs with SPMD regions or device functions (in any of their files): a barrier in a function of theirs,
    // outside every region, is a team function's (`classify::blockers`), wherever the function is (a header).
    let device_code: Vec<&str> = sources
        .iter()
        .filter(|(_, src, _)| src.blanked.contains("declare target") || src.blanked.contains("target teams"))
        .map(|(key, _, _)| key.as_str())
        .collect();
    let mut programs: BTreeMap<String, Program> = BTreeMap::new();
    for (key, src, lang) in &sources {
        let has_device_code = device_code.contains(&key.as_str());
        let p = programs.entry(key.clone()).or_default();
        for d in &src.directives {
            let enclosing: Vec<&scan::Directive> =
                src.directives.iter().filter(|e| !std::ptr::eq(*e, d) && e.extent.contains(&d.at)).collect();
            let inner: Vec<&scan::Directive> = src.directives.iter().filter(|e| !std::ptr::eq(*e, d) && d.extent.contains(&e.at)).collect();
            // Whether `d`'s routine also launches target regions (BabelStream's Fortran `copy()`: a target loop, then
            // `!$omp barrier`): asked only of a barrier outside every region, which then runs on the initial thread.
            let offloading_routine = || {
                let routine = scan::routine(&src.blanked, d.at, *lang);
                src.directives.iter().any(|e| routine.contains(&e.at) && classify::is_target_region(&e.text))
            };
            let why = classify::blockers(d, &enclosing, &inner, &src.blanked, has_device_code, &offloading_routine);
            p.directives += 1;
            if why.is_empty() {
                p.expressible += 1;
            }
            for w in why {
                p.blockers.entry(w).or_default().push(format!("{}:{}", d.file, d.line));
            }
        }
    }
    programs.retain(|_, p| p.directives > 0);
    Ok(render(o, &programs))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(Error::io("reading a directory", dir))?;
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => collect(&p, out)?,
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
    Ok(())
}

fn render(o: &Options, programs: &BTreeMap<String, Program>) -> String {
    let n = programs.len();
    let dirs: usize = programs.values().map(|p| p.directives).sum();
    let ok_dirs: usize = programs.values().map(|p| p.expressible).sum();
    let ok_progs = programs.values().filter(|p| p.blockers.is_empty()).count();
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    let mut s = String::new();
    let _ = writeln!(s, "census of {}: {n} programs, {dirs} OpenMP directives", o.root.display());
    let _ = writeln!(s, "directives expressible as written: {ok_dirs} / {dirs} ({:.1} %)", pct(ok_dirs, dirs));
    let _ = writeln!(s, "programs expressible as written:   {ok_progs} / {n} ({:.1} %)", pct(ok_progs, n));
    let mut by_blocker: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for p in programs.values() {
        for (b, at) in &p.blockers {
            let e = by_blocker.entry(b).or_default();
            e.0 += 1;
            e.1 += at.len();
        }
    }
    let mut rows: Vec<(&str, (usize, usize))> = by_blocker.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    if !rows.is_empty() {
        let _ = writeln!(s, "\n| blocker | programs | directives |\n|---|---:|---:|");
        for (b, (progs, ds)) in rows {
            let _ = writeln!(s, "| {b} | {progs} | {ds} |");
        }
    }
    if o.list {
        let _ = writeln!(s);
        for (name, p) in programs {
            if p.blockers.is_empty() {
                let _ = writeln!(s, "{name}: expressible ({} directives)", p.directives);
            } else {
                let why: Vec<String> = p.blockers.iter().map(|(b, at)| format!("{b} ({})", at.join(", "))).collect();
                let _ = writeln!(s, "{name}: {} of {} directives expressible; {}", p.expressible, p.directives, why.join("; "));
            }
        }
    }
    s
}
