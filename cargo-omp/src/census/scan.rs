//! Finding OpenMP directives in C/C++ and Fortran sources, with the extent of the code each one applies to (so that
//! nesting can be read off: a directive inside a `target` region's extent is in the region).
//!
//! Not a compiler front end: comments and string literals are blanked out, and a directive's extent is the
//! statement after it (C: a block, a `for`/`while`/`if` with its body, or up to the next `;`; Fortran: up to the
//! matching `!$omp end <name>`, or the `do` loop after a loop directive). Code the preprocessor would remove is
//! scanned as written.

/// One directive as written.
#[derive(Debug, Clone)]
pub(super) struct Directive {
    /// The file, relative to the scanned root.
    pub(super) file: String,
    /// 1-based line of the directive.
    pub(super) line: usize,
    /// The directive's text after `#pragma omp` / `!$omp`, continuation lines joined, in lower case.
    pub(super) text: String,
    /// Byte range of the code it applies to in the blanked source (empty for standalone directives).
    pub(super) extent: std::ops::Range<usize>,
    /// Byte offset of the directive itself in the blanked source.
    pub(super) at: usize,
}

/// A scanned source file: its directives and its text with comments and literals blanked (for the routines called
/// in a region).
#[derive(Debug)]
pub(super) struct Source {
    pub(super) directives: Vec<Directive>,
    pub(super) blanked: String,
}

/// Whether a path is a C/C++ or Fortran source the census reads.
pub(super) fn language(path: &std::path::Path) -> Option<Language> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "c" | "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" | "hxx" | "inc" => Some(Language::C),
        "f" | "f77" | "f90" | "f95" | "f03" | "f08" | "for" => Some(Language::Fortran),
        _ => None,
    }
}

/// Source languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Language {
    C,
    Fortran,
}

/// The byte range of the routine (C function body, Fortran subroutine/function/program) holding offset `at` of a
/// blanked source; the whole file where none is found. C: the outermost enclosing `{ }` that follows a `)` (a
/// function's parameter list), so namespaces and `extern "C"` blocks are looked through. Fortran: from the last
/// `subroutine` / `function` / `program` line before `at` to the next one.
pub(super) fn routine(blanked: &str, at: usize, lang: Language) -> std::ops::Range<usize> {
    match lang {
        Language::C => {
            let b = blanked.as_bytes();
            // The braces open at `at`, outermost first.
            let mut open: Vec<usize> = Vec::new();
            for (k, &c) in b.iter().enumerate().take(at.min(b.len())) {
                match c {
                    b'{' => open.push(k),
                    b'}' => {
                        open.pop();
                    }
                    _ => {}
                }
            }
            let after_parens = |o: &usize| b[..*o].iter().rev().find(|c| !c.is_ascii_whitespace()) == Some(&b')');
            let Some(&start) = open.iter().find(|o| after_parens(o)) else { return 0..blanked.len() };
            let mut depth = 0usize;
            for (k, &c) in b.iter().enumerate().skip(start) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return start..k + 1;
                        }
                    }
                    _ => {}
                }
            }
            start..blanked.len()
        }
        Language::Fortran => {
            let is_start = |line: &str| {
                let words: Vec<&str> = line.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').filter(|w| !w.is_empty()).collect();
                let first = words.iter().position(|w| !matches!(*w, "pure" | "elemental" | "recursive" | "integer" | "real" | "logical"));
                first.is_some_and(|i| matches!(words[i], "subroutine" | "function" | "program"))
            };
            let mut start = 0;
            let mut offset = 0;
            for line in blanked.split_inclusive('\n') {
                if is_start(line) {
                    if offset > at {
                        return start..offset;
                    }
                    start = offset;
                }
                offset += line.len();
            }
            start..blanked.len()
        }
    }
}

/// The directives of one file.
pub(super) fn scan(text: &str, file: &str, lang: Language) -> Source {
    match lang {
        Language::C => scan_c(text, file),
        Language::Fortran => scan_fortran(text, file),
    }
}

/// C/C++: comments and string/char literals become spaces (newlines kept, so offsets and lines stay).
fn blank_c(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                let end = (i + 2).min(b.len());
                for c in &mut out[start..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        out[i] = b' ';
                        i += 1;
                    }
                    if i < b.len() {
                        out[i] = b' ';
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn scan_c(text: &str, file: &str) -> Source {
    let blanked = blank_c(text);
    let b = blanked.as_bytes();
    let mut directives = Vec::new();
    let mut line_start = 0;
    let mut line_no = 1;
    while line_start < b.len() {
        let line_end = b[line_start..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| line_start + k);
        let line = &blanked[line_start..line_end];
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let rest = rest.trim_start();
            if let Some(p) = rest.strip_prefix("pragma") {
                let p = p.trim_start();
                if let Some(omp) = p.strip_prefix("omp").filter(|r| r.starts_with(char::is_whitespace) || r.is_empty()) {
                    // Continuation lines (`\` at the end) belong to the directive.
                    let mut dtext = omp.trim_end().to_string();
                    let mut end = line_end;
                    let first_line = line_no;
                    while dtext.ends_with('\\') && end < b.len() {
                        dtext.pop();
                        let next_end = b[end + 1..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| end + 1 + k);
                        dtext.push(' ');
                        dtext.push_str(blanked[end + 1..next_end].trim());
                        end = next_end;
                        line_no += 1;
                    }
                    let text = dtext.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
                    let stmt_start = (end + 1).min(b.len());
                    let stmt_end = statement_end(b, stmt_start);
                    directives.push(Directive {
                        file: file.to_string(),
                        line: first_line,
                        text,
                        extent: stmt_start..stmt_end,
                        at: line_start,
                    });
                    line_start = end + 1;
                    line_no += 1;
                    continue;
                }
            }
        }
        line_start = line_end + 1;
        line_no += 1;
    }
    // A standalone directive applies to nothing.
    for d in &mut directives {
        if is_standalone(&d.text) {
            d.extent = d.extent.start..d.extent.start;
        }
    }
    Source { directives, blanked }
}

/// Directives that stand alone (no statement after them belongs to them).
fn is_standalone(text: &str) -> bool {
    const STANDALONE: &[&str] = &[
        "target update",
        "target enter data",
        "target exit data",
        "barrier",
        "taskwait",
        "taskyield",
        "flush",
        "threadprivate",
        "declare target",
        "end declare target",
        "begin declare target",
        "declare reduction",
        "declare simd",
        "declare mapper",
        "declare variant",
        "requires",
        "scan",
        "cancel",
        "cancellation point",
        "section",
        "allocate",
        "error",
        "nothing",
        "depobj",
    ];
    STANDALONE.iter().any(|s| text == *s || text.starts_with(&format!("{s} ")) || text.starts_with(&format!("{s}(")))
}

/// The end (exclusive) of the C statement starting at `i` (after whitespace).
fn statement_end(b: &[u8], mut i: usize) -> usize {
    i = skip_ws(b, i);
    if i >= b.len() {
        return i;
    }
    // Another directive (`#pragma omp target` then `#pragma omp teams ...`): its line, then its statement.
    if b[i] == b'#' {
        let eol = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k);
        let mut e = eol;
        while e > i && b[e - 1] == b'\\' && e < b.len() {
            e = b[e + 1..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| e + 1 + k);
        }
        return statement_end(b, e + 1);
    }
    if b[i] == b'{' {
        return matching(b, i, b'{', b'}');
    }
    let word = |i: usize, w: &str| {
        b[i..].starts_with(w.as_bytes()) && b.get(i + w.len()).is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
    };
    for kw in ["for", "while", "switch"] {
        if word(i, kw) {
            let p = skip_ws(b, i + kw.len());
            let close = if b.get(p) == Some(&b'(') { matching(b, p, b'(', b')') } else { p };
            return statement_end(b, close);
        }
    }
    if word(i, "if") {
        let p = skip_ws(b, i + 2);
        let close = if b.get(p) == Some(&b'(') { matching(b, p, b'(', b')') } else { p };
        let then_end = statement_end(b, close);
        let e = skip_ws(b, then_end);
        if word(e, "else") {
            return statement_end(b, e + 4);
        }
        return then_end;
    }
    if word(i, "do") {
        let body = statement_end(b, i + 2);
        return up_to_semicolon(b, body);
    }
    up_to_semicolon(b, i)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Past the bracket closing the one at `i`.
fn matching(b: &[u8], i: usize, open: u8, close: u8) -> usize {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(i) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return k + 1;
            }
        }
    }
    b.len()
}

/// Past the next `;` outside brackets.
fn up_to_semicolon(b: &[u8], i: usize) -> usize {
    let mut depth = 0i64;
    for (k, &c) in b.iter().enumerate().skip(i) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return k;
                }
            }
            b';' if depth == 0 => return k + 1,
            _ => {}
        }
    }
    b.len()
}

/// Fortran: `!$omp` lines (free or fixed form, `&` continuations); a block directive's extent ends at its
/// `!$omp end <name>`, a loop directive's (`... do`) at the end of the `do` loop after it when no `end` follows.
fn scan_fortran(text: &str, file: &str) -> Source {
    // `!` comments (other than directives) are blanked; directive lines are blanked in the code and kept apart.
    let mut blanked = String::with_capacity(text.len());
    let mut lines: Vec<(usize, String)> = Vec::new(); // (offset, directive text or "") per line
    for line in text.split_inclusive('\n') {
        let offset = blanked.len();
        let t = line.trim_start();
        let lower = t.to_ascii_lowercase();
        // Free form `!$omp`; fixed form also `c$omp` / `*$omp` in column 1.
        let fixed = line.starts_with(['c', 'C', '*']) && line.get(1..5).is_some_and(|s| s.eq_ignore_ascii_case("$omp"));
        let is_dir = lower.starts_with("!$omp") || fixed;
        if is_dir {
            let rest = if fixed { line[5..].to_ascii_lowercase() } else { lower[5..].to_string() };
            lines.push((offset, rest.trim().to_string()));
            blanked.push_str(&" ".repeat(line.trim_end_matches('\n').len()));
            if line.ends_with('\n') {
                blanked.push('\n');
            }
            continue;
        }
        lines.push((offset, String::new()));
        let (code, newline) = match line.strip_suffix('\n') {
            Some(c) => (c, "\n"),
            None => (line, ""),
        };
        // A `!` comment to the end of the line (a `!` inside a string literal is rare in OpenMP codes' loops).
        let code = match code.find('!') {
            Some(k) => format!("{}{}", &code[..k], " ".repeat(code.len() - k)),
            None => code.to_string(),
        };
        blanked.push_str(&code.to_ascii_lowercase());
        blanked.push_str(newline);
    }
    // Join continuations: a directive ending in `&` continues on the next directive line (`!$omp&` or `!$omp`).
    let mut directives: Vec<Directive> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let (at, ref t) = lines[k];
        if t.is_empty() {
            k += 1;
            continue;
        }
        let first = k;
        let mut text = t.trim_start_matches('&').trim().to_string();
        while text.ends_with('&') && k + 1 < lines.len() && !lines[k + 1].1.is_empty() {
            text.pop();
            k += 1;
            text.push(' ');
            text.push_str(lines[k].1.trim_start_matches('&').trim());
        }
        k += 1;
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let start = lines.get(k).map_or(blanked.len(), |l| l.0);
        directives.push(Directive { file: file.into(), line: first + 1, text, extent: start..start, at });
    }
    // Extents: each `end X` closes the latest open `X`; a loop directive without an `end` covers the next do loop.
    let code_lines: Vec<(usize, &str)> = blanked
        .split_inclusive('\n')
        .scan(0usize, |o, l| {
            let r = (*o, l);
            *o += l.len();
            Some(r)
        })
        .collect();
    let mut open: Vec<usize> = Vec::new();
    for idx in 0..directives.len() {
        let t = directives[idx].text.clone();
        if let Some(closed) = t.strip_prefix("end ") {
            // The latest open directive of that very name (`end target` closes a `target`, not a `target data`).
            let name_of = |text: &str| super::classify::split(text).map(|(n, _)| n);
            let name = name_of(closed);
            if let Some(pos) = open.iter().rposition(|&o| name.is_some() && name_of(&directives[o].text) == name) {
                let o = open.remove(pos);
                directives[o].extent.end = directives[idx].at;
            }
            continue;
        }
        if is_standalone(&t) {
            continue;
        }
        let is_loop = t.split([' ', '(']).any(|w| w == "do" || w == "loop" || w == "simd" || w == "distribute");
        if is_loop {
            // The do loop after it.
            let start = directives[idx].extent.start;
            let (mut depth, mut seen_do) = (0i64, false);
            let mut end = start;
            for &(off, l) in code_lines.iter().filter(|(off, _)| *off >= start) {
                let mut words = l.split_whitespace();
                let first = words.next().unwrap_or("");
                // `do i = ...`, `do while`, `name: do ...`
                let starts_do = first == "do" || (first.ends_with(':') && words.next() == Some("do"));
                let ends_do = first == "enddo" || (first == "end" && l.split_whitespace().nth(1) == Some("do"));
                seen_do |= starts_do;
                depth += i64::from(starts_do) - i64::from(ends_do);
                end = off + l.len();
                if seen_do && depth <= 0 {
                    break;
                }
            }
            directives[idx].extent.end = end;
        } else {
            directives[idx].extent.end = blanked.len();
            open.push(idx);
        }
    }
    directives.retain(|d| !d.text.starts_with("end "));
    Source { directives, blanked }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn c_directives_with_their_statements() {
        let src = "int f() {\n  /* #pragma omp parallel */\n  #pragma omp target teams \\\n      map(to: a[0:n])\n  {\n    #pragma omp parallel\n    { x(); }\n  }\n  #pragma omp target update from(a[0:n])\n  #pragma omp target teams distribute parallel for\n  for (i = 0; i < n; i++) a[i] = 1;\n  y();\n}\n";
        let s = scan(src, "f.c", Language::C);
        let texts: Vec<&str> = s.directives.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(
            texts,
            ["target teams map(to: a[0:n])", "parallel", "target update from(a[0:n])", "target teams distribute parallel for"]
        );
        let (outer, inner) = (&s.directives[0], &s.directives[1]);
        assert!(outer.extent.contains(&inner.at), "the parallel block is inside the target region");
        assert!(s.directives[2].extent.is_empty(), "update is standalone");
        let body = &src[s.directives[3].extent.clone()];
        assert!(body.contains("a[i] = 1;") && !body.contains("y()"), "{body}");
    }

    #[test]
    fn routines_around_an_offset() {
        let c = "namespace n {\nvoid f(int a) {\n  if (a) { x(); }\n  y();\n}\nvoid g() { z(); }\n}\n";
        let at = c.find("y()").unwrap();
        assert_eq!(&c[routine(c, at, Language::C)], "{\n  if (a) { x(); }\n  y();\n}");
        let at = c.find("z()").unwrap();
        assert_eq!(&c[routine(c, at, Language::C)], "{ z(); }");
        let f = "subroutine a()\n  x = 1\nend subroutine a\nsubroutine b()\n  y = 2\nend subroutine b\n";
        let at = f.find("y = 2").unwrap();
        assert!(f[routine(f, at, Language::Fortran)].starts_with("subroutine b()"));
        let at = f.find("x = 1").unwrap();
        assert!(f[routine(f, at, Language::Fortran)].ends_with("end subroutine a\n"));
    }

    #[test]
    fn fortran_directives_with_their_blocks() {
        let src = "subroutine s\n!$omp target data map(b)\n!$omp target teams distribute &\n!$omp& parallel do map(tofrom: a)\ndo i = 1, n\n  a(i) = 1\nend do\n!$omp end target teams distribute parallel do\n!$omp target data map(a)\n!$omp target\n  call f()\n!$omp end target\n!$omp end target data\n!$omp end target data\nend subroutine\n";
        let s = scan(src, "s.f90", Language::Fortran);
        let texts: Vec<&str> = s.directives.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(texts, ["target data map(b)", "target teams distribute parallel do map(tofrom: a)", "target data map(a)", "target"]);
        assert!(s.directives[2].extent.contains(&s.directives[3].at));
        assert!(!s.directives[1].extent.contains(&s.directives[2].at));
        // The loop's optional `end` closes nothing else: the outer data region still holds everything.
        assert!(s.directives[0].extent.contains(&s.directives[3].at), "the outer target data region ends at its own `end`");
    }
}
