//! Finding one kernel in the device crate's source: the `kernel! { … }` block that defines it.
//!
//! The source is generated Rust, but a kernel body may hold strings, chars and comments with
//! braces in them, so structure is searched in a *masked* copy where every comment and literal
//! is blanked out (same byte offsets, newlines kept); the text shown comes from the original.

/// One kernel's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KernelSource {
    /// The text: the whole `kernel! { … }` invocation when it defines only this kernel, else the
    /// kernel's `fn` item with its doc comments and attributes.
    pub(crate) text: String,
    /// 1-based line of `text` in the file.
    pub(crate) line: usize,
    /// Parameter names after the leading `dyn_ptr` one (slot names).
    pub(crate) slot_names: Vec<String>,
}

/// Finds the kernel `name` in `src`.
pub(crate) fn find_kernel(src: &str, name: &str) -> Option<KernelSource> {
    let masked = mask(src);
    for (mac_start, open, close) in kernel_blocks(&masked) {
        let items = items(&masked, src, open + 1, close);
        let Some(&(start, end)) = items.iter().find(|(s, e)| fn_name(&masked[*s..*e]).is_some_and(|(n, _)| n == name)) else {
            continue;
        };
        let fn_count = items.iter().filter(|(s, e)| fn_name(&masked[*s..*e]).is_some()).count();
        let (from, to) = if fn_count == 1 { (mac_start, close + 1) } else { (start, end) };
        // from the start of the line when only indentation precedes, so the text keeps its shape
        let line_start = src[..from].rfind('\n').map_or(0, |p| p + 1);
        let from = if src[line_start..from].trim().is_empty() { line_start } else { from };
        let slot_names = fn_name(&masked[start..end]).map(|(_, at)| params(&masked[start + at..end], src, start + at)).unwrap_or_default();
        return Some(KernelSource {
            text: src.get(from..to)?.to_string(),
            line: src[..from].matches('\n').count() + 1,
            slot_names: slot_names.into_iter().skip(1).collect(),
        });
    }
    None
}

/// Names of every kernel defined in `kernel!` blocks (for "did you mean").
pub(crate) fn kernel_names(src: &str) -> Vec<String> {
    let masked = mask(src);
    let mut v = Vec::new();
    for (_, open, close) in kernel_blocks(&masked) {
        for (s, e) in items(&masked, src, open + 1, close) {
            if let Some((n, _)) = fn_name(&masked[s..e]) {
                v.push(n.to_string());
            }
        }
    }
    v
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `src` with comments, string/char literals blanked (bytes → spaces, newlines kept).
pub(crate) fn mask(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for x in &mut out[from..to.min(b.len())] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let prev_ident = i > 0 && is_ident(b[i - 1]);
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = src[i..].find('\n').map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            // block comments nest in Rust
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some((quote, hashes)) = (!prev_ident && (b[i] == b'r' || (b[i] == b'b' && b.get(i + 1) == Some(&b'r'))))
            .then(|| raw_start(b, i))
            .flatten()
        {
            let closing: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let end = find_bytes(b, quote + 1, &closing).map_or(b.len(), |p| p + closing.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            i = char_literal_end(src, i).map_or(i + 1, |end| {
                blank(&mut out, i, end);
                end
            });
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// At `r"`, `r#"`, `br"`, …: (index of the opening quote, number of `#`).
fn raw_start(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut j = if b[i] == b'b' { i + 2 } else { i + 1 };
    let mut hashes = 0;
    while b.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&b'"')).then_some((j, hashes))
}

fn find_bytes(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// End (exclusive) of the char literal starting at the `'` at `i`, or `None` for a lifetime/label.
fn char_literal_end(src: &str, i: usize) -> Option<usize> {
    let rest = &src[i + 1..];
    let mut chars = rest.char_indices();
    let (_, c) = chars.next()?;
    if c == '\\' {
        // '\n', '\'', '\u{1F600}': up to the next quote after the escaped char
        let after = rest.get(2..)?.find('\'')?;
        return Some(i + 1 + 2 + after + 1);
    }
    let (k, next) = chars.next()?;
    (next == '\'').then_some(i + 1 + k + 1)
}

/// Every `kernel!` invocation: (start of its path, index of the opening delimiter, index of the
/// matching closing one).
fn kernel_blocks(m: &str) -> Vec<(usize, usize, usize)> {
    let b = m.as_bytes();
    let mut v = Vec::new();
    let mut from = 0;
    while let Some(p) = m[from..].find("kernel").map(|p| p + from) {
        from = p + 6;
        if p > 0 && is_ident(b[p - 1]) || b.get(p + 6).is_some_and(|&c| is_ident(c)) {
            continue;
        }
        let mut j = p + 6;
        while b.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if b.get(j) != Some(&b'!') {
            continue;
        }
        j += 1;
        while b.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if !matches!(b.get(j), Some(b'{' | b'(' | b'[')) {
            continue;
        }
        let Some(close) = matching(b, j) else { continue };
        // back over `omp_device::` so the whole path is shown
        let mut start = p;
        while start > 0 && (is_ident(b[start - 1]) || b[start - 1] == b':') {
            start -= 1;
        }
        v.push((start, j, close));
        from = close;
    }
    v
}

/// The index of the delimiter closing the one at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Top-level items in `m[from..to]` (`src` is the unmasked text): (start, end) byte ranges; an
/// item ends with a `}` or `;` at depth 0. It starts at the first visible byte of the original
/// text, so doc comments and attributes before it belong to it.
fn items(m: &str, src: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let (b, orig) = (m.as_bytes(), src.as_bytes());
    let mut v = Vec::new();
    let mut start = None;
    let mut depth = 0usize;
    let mut k = from;
    while k < to {
        let c = b[k];
        if start.is_none() && !orig[k].is_ascii_whitespace() {
            start = Some(k);
        }
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && c == b'}' {
                    if let Some(s) = start.take() {
                        v.push((s, k + 1));
                    }
                }
            }
            b';' if depth == 0 => {
                if let Some(s) = start.take() {
                    v.push((s, k + 1));
                }
            }
            _ => {}
        }
        k += 1;
    }
    v
}

/// `fn NAME` in an item: (NAME, offset just after NAME).
fn fn_name(item: &str) -> Option<(&str, usize)> {
    let b = item.as_bytes();
    let mut from = 0;
    while let Some(p) = item[from..].find("fn").map(|p| p + from) {
        from = p + 2;
        let before_ok = p == 0 || !is_ident(b[p - 1]);
        let after_ws = b.get(p + 2).is_some_and(u8::is_ascii_whitespace);
        if !(before_ok && after_ws) {
            continue;
        }
        let rest = &item[p + 2..];
        let name_start = p + 2 + (rest.len() - rest.trim_start().len());
        let len = item[name_start..].bytes().take_while(|&c| is_ident(c)).count();
        if len > 0 {
            return Some((&item[name_start..name_start + len], name_start + len));
        }
    }
    None
}

/// Parameter names of the signature starting at `m` (masked) = `src[base..]`.
fn params(m: &str, src: &str, base: usize) -> Vec<String> {
    let b = m.as_bytes();
    let Some(open) = m.find('(') else { return vec![] };
    let Some(close) = matching(b, open) else { return vec![] };
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut seg = open + 1;
    for k in open + 1..=close {
        let c = b[k];
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            // `->` inside a fn-pointer type is not a closing angle bracket
            b'>' if k > 0 && b[k - 1] != b'-' => depth -= 1,
            _ => {}
        }
        if (c == b',' && depth == 0) || k == close {
            let p = src.get(base + seg..base + k).unwrap_or("").trim();
            if let Some((pat, _)) = p.split_once(':') {
                let pat = pat.trim().trim_start_matches("mut ").trim();
                if !pat.is_empty() {
                    names.push(pat.to_string());
                }
            }
            seg = k + 1;
        }
    }
    names
}

#[cfg(test)]
mod test {
    use super::*;

    const SRC: &str = r##"#![no_std]
extern crate omp_device;
use omp_device::prelude::*;

omp_device::kernel! {
    /// y[i] += a * x[i]
    pub unsafe fn omp_saxpy_0_1a2b3c4d(_dyn: *mut u8, a: u64, x: &[f64; 0], x_len: u64,
                                       y: *mut f64, y_len: u64, lo: u64, trips: u64, step: u64) {
        let s = "} not a brace { fn omp_fake_0_00000000(";
        let c = '}';
        let r = r#"}"#;
        /* } /* nested } */ */
        let _l: &'static str = "x";
        let mut y = View::from_raw_parts(y, y_len as usize);
        y[0] += f64::from_bits(a);
    }
}

omp_device::kernel! {
    pub unsafe fn omp_dot_0_deadbeef(_dyn: *mut u8, x: &[f64; 0], x_len: u64, partials: *mut f64) {
        if true { let _ = '{'; }
    }

    #[inline(never)]
    pub unsafe fn omp_dot_1_deadbeef(_dyn: *mut u8, mut n: u64) { let _ = n; }
}
"##;

    #[test]
    fn single_kernel_block_is_shown_whole() {
        let k = find_kernel(SRC, "omp_saxpy_0_1a2b3c4d").unwrap();
        assert_eq!(k.line, 5);
        assert!(k.text.starts_with("omp_device::kernel! {"), "{}", k.text);
        assert!(k.text.trim_end().ends_with('}'));
        assert!(k.text.contains("y[0] += f64::from_bits(a);"));
        assert!(!k.text.contains("omp_dot"), "{}", k.text);
        assert_eq!(k.slot_names, ["a", "x", "x_len", "y", "y_len", "lo", "trips", "step"]);
    }

    #[test]
    fn a_kernel_in_a_shared_block_is_shown_as_its_fn() {
        let k = find_kernel(SRC, "omp_dot_0_deadbeef").unwrap();
        assert!(k.text.starts_with("    pub unsafe fn omp_dot_0_deadbeef("), "{}", k.text);
        assert!(k.text.ends_with('}'));
        assert!(!k.text.contains("omp_dot_1"), "{}", k.text);
        assert_eq!(k.slot_names, ["x", "x_len", "partials"]);
        let k = find_kernel(SRC, "omp_dot_1_deadbeef").unwrap();
        assert!(k.text.starts_with("    #[inline(never)]"), "{}", k.text);
        assert_eq!(k.slot_names, ["n"]);
        assert_eq!(k.line, 24);
    }

    #[test]
    fn names_in_strings_and_missing_kernels_are_not_found() {
        assert!(find_kernel(SRC, "omp_fake_0_00000000").is_none());
        assert!(find_kernel(SRC, "omp_saxpy").is_none());
        assert!(find_kernel("fn main() {}", "main").is_none());
        assert_eq!(kernel_names(SRC), ["omp_saxpy_0_1a2b3c4d", "omp_dot_0_deadbeef", "omp_dot_1_deadbeef"]);
    }

    #[test]
    fn masking_keeps_offsets() {
        let m = mask(SRC);
        assert_eq!(m.len(), SRC.len());
        assert_eq!(m.matches('\n').count(), SRC.matches('\n').count());
        assert!(!m.contains("not a brace"));
        assert!(m.contains("&'static str"), "lifetimes are code");
    }

    #[test]
    fn the_demo_crate() {
        let names = kernel_names(omp_build::outline::DEMO_SOURCE);
        assert!(names.len() >= 6, "{names:?}");
        for n in &names {
            let k = find_kernel(omp_build::outline::DEMO_SOURCE, n).unwrap();
            assert!(k.text.contains(&format!("fn {n}(")));
        }
        let saxpy = find_kernel(omp_build::outline::DEMO_SOURCE, "omp_demo_saxpy").unwrap();
        assert!(saxpy.text.trim_start().starts_with("/// y[i] += a * x[i]"), "{}", saxpy.text);
        assert_eq!(saxpy.slot_names[0], "a");
    }
}
