//! Whether omp-rs can express a directive as written, read against the macros' own tables
//! (`omp_rs_codegen::syntax::keyword`: the constructs and clauses the directives accept, the clauses they refuse) plus
//! what the macros cannot see in a directive line: where it sits (inside a `target` region, inside another loop
//! directive) and what its region calls.

use omp_rs_codegen::syntax::keyword;

use super::scan::Directive;

/// OpenMP directive names, longest first within each prefix (C spellings; Fortran's `do` is read as `for`).
const NAMES: &[&str] = &[
    "target teams distribute parallel for simd",
    "target teams distribute parallel for",
    "target teams distribute simd",
    "target teams distribute",
    "target teams loop",
    "target teams",
    "target parallel for simd",
    "target parallel for",
    "target parallel loop",
    "target parallel",
    "target simd",
    "target enter data",
    "target exit data",
    "target update",
    "target data",
    "target",
    "teams distribute parallel for simd",
    "teams distribute parallel for",
    "teams distribute simd",
    "teams distribute",
    "teams loop",
    "teams",
    "distribute parallel for simd",
    "distribute parallel for",
    "distribute simd",
    "distribute",
    "parallel for simd",
    "parallel for",
    "parallel loop",
    "parallel sections",
    "parallel workshare",
    "parallel masked",
    "parallel master",
    "parallel",
    "for simd",
    "for",
    "simd",
    "loop",
    "begin declare target",
    "end declare target",
    "declare target",
    "declare reduction",
    "declare simd",
    "declare mapper",
    "declare variant",
    "atomic",
    "critical",
    "barrier",
    "taskwait",
    "taskgroup",
    "taskloop simd",
    "taskloop",
    "taskyield",
    "task",
    "single",
    "masked",
    "master",
    "sections",
    "section",
    "ordered",
    "flush",
    "threadprivate",
    "requires",
    "scan",
    "cancellation point",
    "cancel",
    "workshare",
    "metadirective",
    "allocate",
    "tile",
    "unroll",
];

/// The directive's name and the clause text after it (`None`: not an OpenMP directive this table knows).
pub(super) fn split(text: &str) -> Option<(&'static str, String)> {
    // Fortran spells the worksharing loop `do`; `end declare target` closes a C `declare target` block.
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == '(' || c == ',').filter(|w| !w.is_empty()).collect();
    let as_c: Vec<&str> = words.iter().map(|w| if *w == "do" { "for" } else { w }).collect();
    for name in NAMES {
        let n = name.split(' ').count();
        if as_c.len() >= n && as_c[..n].join(" ") == *name {
            // The clause text: after the name's words as written.
            let mut rest = text;
            for w in &words[..n] {
                rest = rest.trim_start().strip_prefix(w).unwrap_or(rest);
            }
            return Some((name, rest.trim().to_string()));
        }
    }
    None
}

/// `name(args)` or `name` clauses of a directive's clause text.
pub(super) fn clauses(text: &str) -> Vec<(String, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let name = text[s..i].to_string();
        let mut j = i;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let mut args = String::new();
        if b.get(j) == Some(&b'(') {
            let mut depth = 0;
            let mut k = j;
            while k < b.len() {
                match b[k] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            args = text[j + 1..k.min(b.len())].to_string();
            i = k + 1;
        }
        out.push((name, args));
    }
    out
}

/// Whether the innermost region around a directive is a host `parallel` block.
fn in_host_parallel(enclosing: &[&Directive]) -> bool {
    enclosing.iter().max_by_key(|e| e.extent.start).and_then(|e| split(&e.text)).is_some_and(|(n, _)| n == "parallel")
}

/// Why a host `parallel` block cannot be written as it is (omp_rs_codegen::desugar::host_parallel), if it can't. Without
/// worksharing constructs inside it is a loop over its threads; with them, a sequence of steps that takes no
/// `reduction` / `private` on the block and no variable each thread keeps across the steps (read here as a
/// declaration with an initial value in the block's own code before its first inner directive).
fn host_parallel(d: &Directive, inner: &[&Directive], source: &str) -> Option<&'static str> {
    const STEPS: &[&str] = &["for", "for simd", "single", "master", "barrier", "critical"];
    let names: Vec<&str> = inner.iter().filter_map(|i| split(&i.text).map(|(n, _)| n)).collect();
    if names.iter().any(|n| matches!(*n, "task" | "taskloop" | "taskloop simd" | "sections" | "section" | "taskgroup" | "ordered")) {
        return Some("host `parallel` regions with `task` / `sections` / `ordered`");
    }
    if names.iter().any(|n| n.starts_with("target") || n.starts_with("teams") || n.starts_with("distribute")) {
        return Some("target regions inside a host `parallel` block (one per thread)");
    }
    if !names.iter().any(|n| STEPS[..STEPS.len() - 1].contains(n)) {
        return None;
    }
    let (_, rest) = split(&d.text)?;
    if clauses(&rest).iter().any(|(c, _)| matches!(c.as_str(), "reduction" | "private" | "firstprivate")) {
        return Some("`reduction` / `private` on a host `parallel` block with worksharing steps");
    }
    let first_inner = inner.iter().map(|i| i.at).min().unwrap_or(d.extent.end).clamp(d.extent.start, d.extent.end);
    let before = without_loop_headers(&source[d.extent.start..first_inner]);
    const TYPES: &[&str] = &["int ", "long ", "float ", "double ", "size_t ", "unsigned ", "real", "integer"];
    if before.contains('=') && TYPES.iter().any(|t| before.contains(t)) {
        return Some("per-thread variables across the worksharing steps of a host `parallel` block");
    }
    None
}

/// Whether a reduction item names array elements by literal indices (`d[0]`, `beta[:3]`, `beta[1:2]`), which
/// omp-rs reduces as scalars (omp_rs_codegen::desugar::element_reduction).
fn literal_section(item: &str) -> bool {
    let Some(inside) = item.split_once('[').and_then(|(_, r)| r.strip_suffix(']').or_else(|| r.trim_end().strip_suffix(']'))) else {
        return false;
    };
    let numbers = |t: &str| t.trim().is_empty() || t.trim().parse::<u64>().is_ok();
    match inside.split_once(':') {
        Some((start, len)) => numbers(start) && !len.trim().is_empty() && numbers(len),
        None => !inside.trim().is_empty() && numbers(inside),
    }
}

/// Code without its `for (..)` headers (a loop variable is no variable the threads keep).
fn without_loop_headers(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("for") {
        let after = rest[at + 3..].trim_start();
        let word_start = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        if !(word_start && after.starts_with('(')) {
            out.push_str(&rest[..at + 3]);
            rest = &rest[at + 3..];
            continue;
        }
        out.push_str(&rest[..at]);
        let open = rest.len() - after.len();
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Why a directive cannot be written as it is (the census's blocker categories). `enclosing` are the directives
/// whose regions hold `d`, `inner` those `d`'s region holds; `device_code`: whether `d`'s program (any of its files)
/// has SPMD regions or device functions; `offloading_routine`: whether `d`'s routine launches target regions (asked
/// only of a barrier outside every region, which then runs on the initial thread, not in a team).
pub(super) fn blockers(
    d: &Directive,
    enclosing: &[&Directive],
    inner: &[&Directive],
    source: &str,
    device_code: bool,
    offloading_routine: &dyn Fn() -> bool,
) -> Vec<String> {
    let region_code = &source[d.extent.clone()];
    let Some((name, rest)) = split(&d.text) else {
        return vec![format!("directive `{}`", d.text.split_whitespace().next().unwrap_or(""))];
    };
    let in_target = enclosing.iter().any(|e| split(&e.text).is_some_and(|(n, _)| n.starts_with("target") && !is_data(n)));
    let in_loop = enclosing.iter().any(|e| split(&e.text).is_some_and(|(n, _)| is_loop(n)));
    let mut out = Vec::new();
    match name {
        // omp_rs_codegen::desugar::spmd::team: a barrier of an SPMD region's `parallel` (where it stands there, the macro checks).
        "barrier" => {
            let spmd = enclosing
                .iter()
                .filter(|e| split(&e.text).is_some_and(|(n, _)| n == "parallel"))
                .max_by_key(|e| e.extent.start)
                .is_some_and(|p| {
                    let around_p: Vec<&Directive> = enclosing.iter().copied().filter(|e| e.at < p.at).collect();
                    in_target && spmd_region(p, &around_p, source).is_ok()
                });
            let host_team = !in_target && in_host_parallel(enclosing);
            // In a function (no region around it) of a program with SPMD regions or device functions, in whichever
            // of its files (a header): a team function, which omp-rs inlines where an SPMD region calls it
            // (omp_rs_codegen::desugar::spmd::inline; the port declares it in the region's function).
            let team_fn = enclosing.is_empty() && device_code;
            // omp_rs_codegen::driver::expand::orphaned_barriers: among a `#[omp::directives]` fn's own statements, the
            // initial thread's barrier (a team of one; omp-rs panics if the fn is called from a host team).
            let orphaned = || enclosing.is_empty() && offloading_routine();
            if !spmd && !host_team && !team_fn && !orphaned() {
                out.push("`barrier` outside a `parallel` block (in a function the region calls)".to_string());
            }
        }
        // omp_rs_codegen::desugar::host_parallel: the worksharing steps of a host `parallel` block.
        "for" | "for simd" | "single" | "master" if !in_target => {
            if !in_host_parallel(enclosing) {
                out.push("worksharing (`for`, `single`, `master`) outside a `parallel` region (in a function it calls)".into());
            }
        }
        "parallel" if !in_target => {
            if let Some(why) = host_parallel(d, inner, source) {
                out.push(why.into());
            }
        }
        // omp_rs_codegen::desugar::spmd: the whole body of a `target teams` with its geometry is the (team, thread) loop nest.
        // omp_rs_codegen::syntax::body::nested_parallel: a `parallel` in a target loop's iteration is nested, so inactive (a
        // team of one thread runs its statement), unless it asks for its team or holds worksharing.
        "parallel"
            if in_target
                && in_loop
                && inner.is_empty()
                && !["omp_get_thread_num", "omp_get_num_threads"].iter().any(|w| region_code.contains(w)) => {}
        "parallel" if in_target => {
            if let Err(why) = spmd_region(d, enclosing, source) {
                out.push(why.into());
            }
        }
        "parallel sections" | "parallel masked" | "parallel master" | "parallel workshare" if in_target => {
            out.push(SPMD_BESIDE.into());
        }
        "parallel sections" | "parallel masked" | "parallel master" | "parallel workshare" => {
            out.push("host `parallel sections` / `masked` / `master` / `workshare`".into());
        }
        "for" | "for simd" | "single" | "master" => out.push("worksharing inside a target region's `parallel`".into()),
        // OpenMP's split form: fused into the combined construct when it is the whole body of its `target`.
        "teams distribute parallel for"
        | "teams distribute parallel for simd"
        | "teams distribute"
        | "teams distribute simd"
        | "teams loop"
        | "teams"
            if in_target && !whole_body_of_target(d, enclosing, source) =>
        {
            out.push("`teams` inside a `target` whose body holds more than that one directive".into());
        }
        // Its clauses are the reduction's definition, not clauses of a construct: `#[omp::declare_reduction]`.
        "declare reduction" => return Vec::new(),
        // omp_rs_codegen::desugar::scan: the statement between the phases of a loop with `reduction(inscan, ..)`.
        "scan" => {
            let scanned = enclosing.iter().max_by_key(|e| e.extent.start).and_then(|e| split(&e.text)).is_some_and(|(n, rest)| {
                is_loop(n)
                    && clauses(&rest).iter().any(|(c, a)| c == "reduction" && a.split(':').next().is_some_and(|h| h.contains("inscan")))
            });
            return if scanned { Vec::new() } else { vec!["`scan` outside a loop with `reduction(inscan, ...)`".into()] };
        }
        "end declare target" | "begin declare target" | "declare target" | "taskwait" => {}
        _ => {
            let underscored = name.replace(' ', "_");
            if keyword::construct(&underscored).is_none() {
                // An unsupported directive blocks whatever its clauses say.
                return vec![format!("directive `{name}`")];
            }
        }
    }
    // A `parallel for` / `simd` there runs its loop sequentially (omp_rs_codegen::syntax::body::NestedLoop), unless it
    // has private copies.
    let private = clauses(&rest).iter().any(|(c, _)| c == "private" || c == "firstprivate");
    if is_loop(name) && in_loop && (private || !omp_rs_codegen::syntax::body::nests_in_a_parallel_loop(&name.replace(' ', "_"))) {
        out.push("loop directives nested in a parallel loop's body".into());
    }
    // In an SPMD `target teams` the routines mean the (team, thread) numbers.
    let spmd = name == "target teams"
        && inner.iter().any(|p| split(&p.text).is_some_and(|(n, _)| n == "parallel") && spmd_region(p, &[d], source).is_ok());
    if name.starts_with("target") && !is_data(name) && !in_target && !spmd {
        const ROUTINES: &[&str] = &["omp_get_thread_num", "omp_get_team_num", "omp_get_num_threads", "omp_get_num_teams"];
        if ROUTINES.iter().any(|r| region_code.contains(r)) {
            out.push("`omp_get_thread_num` / `omp_get_team_num` / ... on the device (SPMD kernels)".into());
        }
    }
    // `critical (name)`: the name is no clause.
    let rest = match (name, rest.strip_prefix('(')) {
        ("critical", Some(after)) => after.split_once(')').map_or(String::new(), |(_, tail)| tail.to_string()),
        _ => rest,
    };
    for (clause, args) in clauses(&rest) {
        // Fortran's `end` keywords and the atomic kinds are not clauses of their own here.
        if clause == "end" {
            continue;
        }
        // omp-rs takes `atomic compare`'s min / max forms (omp_rs_codegen::syntax::body): not a compare-and-swap (`==`) or
        // its capture.
        if clause == "compare" && (rest.contains("capture") || region_code.contains("==")) {
            out.push("`atomic compare` as a compare-and-swap (`==`) or with `capture`".into());
            continue;
        }
        if keyword::clause(&clause).is_none() {
            let known = keyword::UNSUPPORTED_CLAUSES.contains(&clause.as_str());
            out.push(if known { format!("clause `{clause}`") } else { format!("clause `{clause}` (unknown)") });
            continue;
        }
        if clause == "reduction" {
            let (head, vars) = args.split_once(':').unwrap_or(("", &args));
            if head.contains("inscan") && !is_loop(name) {
                out.push("`reduction(inscan, ...)` on a directive that is no loop".into());
            } else if vars.split(',').any(|v| v.contains('[') && !literal_section(v)) {
                out.push("array-section reductions with run-time bounds".into());
            }
            let op = head.rsplit(',').next().unwrap_or("").trim();
            const OPS: &[&str] = &["+", "-", "*", "min", "max", "&", "|", "^", "&&", "||", ".and.", ".or.", "iand", "ior", "ieor"];
            // A user-defined reduction (`#[omp::declare_reduction]`) reduces variables, not array elements.
            if !op.is_empty() && !OPS.contains(&op) && vars.contains('[') {
                out.push("a user-defined reduction of array elements".into());
            }
        }
        if matches!(clause.as_str(), "map" | "to" | "from") && multi_dimensional_section(&args) {
            out.push("multi-dimensional array sections (a row of an array of pointers, part of each row)".into());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `d` is the whole body of the `target` directly enclosing it (only blanks between them, and its statement
/// ends the target's).
fn whole_body_of_target(d: &Directive, enclosing: &[&Directive], source: &str) -> bool {
    let target = enclosing.iter().filter(|e| split(&e.text).is_some_and(|(n, _)| n == "target")).max_by_key(|e| e.extent.start);
    target.is_some_and(|t| whole_body_of(d, t, source))
}

/// Whether `d` is the whole body of `outer`: C: `outer`'s statement is `d`'s own, or a block holding only it;
/// Fortran: `outer`'s `end` line follows.
fn whole_body_of(d: &Directive, outer: &Directive, source: &str) -> bool {
    let open = source.get(outer.extent.start..d.at).unwrap_or("x").trim();
    let close = source.get(d.extent.end..outer.extent.end).unwrap_or("x").trim();
    (open.is_empty() && close.is_empty()) || (open == "{" && close == "}")
}

const SPMD_BESIDE: &str = "`parallel` inside `target teams` beside per-team code or team-local pointers (SPMD kernels)";

/// Whether a `parallel` inside a target region is an SPMD region omp-rs writes as the loop nest over its teams and
/// threads (omp_rs_codegen::desugar::spmd): the whole body of the `target teams` directly enclosing it, which gives
/// `num_teams` and a team size (`thread_limit` there or `num_threads` here), without `if`, its reductions repeated
/// on the teams; before it the `target teams` block may declare team-local arrays (then without a reduction).
fn spmd_region(d: &Directive, enclosing: &[&Directive], source: &str) -> Result<(), &'static str> {
    let teams = enclosing.iter().max_by_key(|e| e.extent.start).filter(|e| split(&e.text).is_some_and(|(n, _)| n == "target teams"));
    let Some(teams) = teams else { return Err("`parallel` inside a target loop or a split `target` + `teams` (SPMD kernels)") };
    let team_arrays = !whole_body_of(d, teams, source);
    if team_arrays && !only_team_locals_before(d, teams, source) {
        return Err(SPMD_BESIDE);
    }
    let of = |dir: &Directive| clauses(&split(&dir.text).map_or(String::new(), |(_, rest)| rest));
    let (outer, inner) = (of(teams), of(d));
    let has = |cs: &[(String, String)], c: &str| cs.iter().any(|(n, _)| n == c);
    if !has(&outer, "num_teams") || !(has(&outer, "thread_limit") || has(&inner, "num_threads")) {
        return Err("SPMD `target teams` + `parallel` without `num_teams` and a team size (implementation-defined geometry)");
    }
    if has(&inner, "if") {
        return Err("`if` on the `parallel` of an SPMD `target teams`");
    }
    let reductions = |cs: &[(String, String)]| -> Vec<String> {
        cs.iter().filter(|(n, _)| n == "reduction").map(|(_, a)| a.chars().filter(|c| !c.is_whitespace()).collect()).collect()
    };
    let on_teams = reductions(&outer);
    if team_arrays && !on_teams.is_empty() {
        return Err("`reduction` on an SPMD `target teams` with team-local arrays");
    }
    if reductions(&inner).iter().any(|r| !on_teams.contains(r)) {
        return Err("`reduction` on the `parallel` of an SPMD `target teams` that the teams do not repeat");
    }
    Ok(())
}

/// Whether the `target teams` block around `d` (C) holds only declarations before it and nothing after it: team-local
/// arrays (`float tile[16][16];`, which omp-rs writes `let mut tile = [[0.0f32; 16]; 16];`) and team-local variables
/// (`size_t k;`, `uint lo, hi;`: `let mut k: usize = 0;`), without initial values or pointers; preprocessor lines between them are skipped (both branches of an `#ifdef` declare alike).
fn only_team_locals_before(d: &Directive, teams: &Directive, source: &str) -> bool {
    let (Some(open), Some(close)) = (source.get(teams.extent.start..d.at), source.get(d.extent.end..teams.extent.end)) else {
        return false;
    };
    let (open, close) = (open.trim(), close.trim());
    let Some(decls) = open.strip_prefix('{') else { return false };
    if close != "}" {
        return false;
    }
    let decls: String = decls.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    let stmts: Vec<&str> = decls.split(';').map(str::trim).filter(|s| !s.is_empty()).collect();
    !stmts.is_empty() && stmts.iter().all(|s| team_local_declaration(s))
}

/// `type name[dims]..` or `type a, b[n]` (one C declaration without initial values): the type one or more words
/// (qualifiers, `unsigned int`, a typedef, a template argument), each declarator a name with optional dimensions.
fn team_local_declaration(stmt: &str) -> bool {
    let ident = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    if stmt.contains('=') {
        return false;
    }
    // Declarators split at the commas outside their dimensions.
    let parts = split_top_level(stmt);
    let mut declarators = parts.iter().map(|p| p.trim());
    let Some(first) = declarators.next() else { return false };
    let (head, first_dims) = first.split_once('[').map_or((first, ""), |(h, d)| (h, d));
    let words: Vec<&str> = head.split_whitespace().collect();
    let Some((name, ty)) = words.split_last() else { return false };
    // A type word is an identifier or a template instance (`Stack<n>`); a struct (CUDA's `float4` too) is a
    // `#[omp::declare_target]` struct, its fields assigned in place.
    let type_word = |w: &&str| ident(w.split('<').next().unwrap_or(""));
    let dims_ok = |dims: &str| dims.is_empty() || dims.trim_end().ends_with(']');
    !ty.is_empty()
        && ty.iter().all(type_word)
        && ident(name)
        && dims_ok(first_dims)
        && declarators.all(|d| {
            let (n, dims) = d.split_once('[').map_or((d, ""), |(n, dims)| (n.trim(), dims));
            ident(n) && dims_ok(dims)
        })
}

/// Whether a directive's text starts a target region (not a data construct).
pub(super) fn is_target_region(text: &str) -> bool {
    split(text).is_some_and(|(n, _)| n.starts_with("target") && !is_data(n))
}

fn is_data(name: &str) -> bool {
    matches!(name, "target data" | "target enter data" | "target exit data" | "target update")
}

fn is_loop(name: &str) -> bool {
    name.split(' ').any(|w| matches!(w, "for" | "distribute" | "loop" | "simd" | "taskloop"))
}

/// A multi-dimensional section omp-rs cannot map as written: C's `a[k][0:n]` (a row of an array of pointers, each
/// its own allocation) or `a[0:n][j:m]` (part of each row), or Fortran's `a(1:n, 1:m)`. C's `a[0:n][0:m]` (whole
/// rows of an array of rows, `double (*a)[m]`) is the slice of rows `&[[f64; M]]`, mapped as written.
fn multi_dimensional_section(args: &str) -> bool {
    let fortran_2d = args.split('(').skip(1).any(|inner| inner.split(')').next().is_some_and(|i| i.contains(':') && i.contains(',')));
    if fortran_2d {
        return true;
    }
    // Each C item's dimensions after the first: `[0:m]` (or `[:m]`, `[:]`) keeps whole rows.
    // The item's top-level bracket groups (`a[o:o + n[i]]` has one).
    let dims = |item: &str| -> Vec<String> {
        let (mut out, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
        for c in item.chars() {
            match c {
                '[' => {
                    depth += 1;
                    if depth == 1 {
                        continue;
                    }
                }
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(std::mem::take(&mut cur).replace(char::is_whitespace, ""));
                        continue;
                    }
                }
                _ => {}
            }
            if depth > 0 {
                cur.push(c);
            }
        }
        out
    };
    let whole_rows = |dims: &[String]| dims[0].contains(':') && dims[1..].iter().all(|d| d.starts_with("0:") || d.starts_with(':'));
    split_items(args).iter().map(|item| dims(item)).any(|d| d.len() > 1 && !whole_rows(&d))
}

/// A map clause's items (`to: a[0:n][0:m], b` gives `a[0:n][0:m]` and `b`).
fn split_items(args: &str) -> Vec<String> {
    let list = args.split_once(':').filter(|(head, _)| !head.contains('[')).map_or(args, |(_, rest)| rest);
    split_top_level(list)
}

/// `text` split at the commas outside brackets and parentheses.
fn split_top_level(text: &str) -> Vec<String> {
    let (mut out, mut depth) = (vec![String::new()], 0i32);
    for c in text.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn names_and_clauses() {
        assert_eq!(
            split("target teams distribute parallel for map(to: a[0:n]) reduction(+: s)").map(|p| p.0),
            Some("target teams distribute parallel for")
        );
        assert_eq!(split("target teams distribute parallel do collapse(2)").map(|p| p.0), Some("target teams distribute parallel for"));
        assert_eq!(split("parallel").map(|p| p.0), Some("parallel"));
        let c = clauses("map(to: a[0:n], b) nowait reduction(max: m)");
        assert_eq!(c, [("map".into(), "to: a[0:n], b".into()), ("nowait".into(), String::new()), ("reduction".into(), "max: m".into())]);
        assert!(!multi_dimensional_section("to: table[0:4][0:256]"));
        assert!(!multi_dimensional_section("alloc: max_tracker_g[0:PE_NUM][0:BACK_SEARCH_COUNT_GPU], j[0 : P][ : Q]"));
        assert!(multi_dimensional_section("to: d_real[0][0:numel], d_imag[0][0:numel]"));
        assert!(multi_dimensional_section("to: a[0:n][2:m]"));
        assert!(!multi_dimensional_section("to: a[0:n], b[0:m]"));
        assert!(!multi_dimensional_section("dbuf[offset:offset+off[i]]"));
        assert!(!multi_dimensional_section("out[0: (pass==1) ? size : sizes[1]]"));
        assert!(multi_dimensional_section("tofrom: a(1:n, 1:m)"));
    }

    #[test]
    fn team_local_declarations() {
        for yes in [
            "size_t k",
            "float tile[16][16]",
            "uint ltsum, gtsum",
            "T mys[N], mysn[N], temp[M]",
            "volatile int32_t x_top",
            "Stack<n> stack[K]",
            "unsigned char s",
            "double4 lsums",
        ] {
            assert!(team_local_declaration(yes), "{yes}");
        }
        for no in ["T *s, *sn", "State* st", "int k = 0", "foo(x)", "k", "int x[n] = {0}"] {
            assert!(!team_local_declaration(no), "{no}");
        }
    }
}
