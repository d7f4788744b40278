//! The kernel ABI (ARCHITECTURE.md): kernel names and argument slots. The host expansion and the device crate both
//! take them from here, so they cannot drift.

use std::fmt::Write;

use proc_macro2::{TokenStream, TokenTree};

pub use omp_rs_abi::SlotKind;

/// The types a generic kernel's parameters are instantiated with (their kernels are named by them: `<kernel>_f32`).
pub const INSTANCES: &[&str] = &["f32", "f64"];

/// The ownership slots of a written array in a nest of `depth` dimensions with `inner` sequential-loop terms
/// (the kernel ABI), after its base and length.
pub fn owner_slots(depth: usize, inner: usize) -> Vec<SlotKind> {
    omp_rs_abi::owner_slots(depth, inner).collect()
}

/// The slot kind of a primitive scalar type.
pub fn scalar_slot(ty: &str) -> SlotKind {
    match ty {
        "f64" => SlotKind::Float64,
        "f32" => SlotKind::Float32,
        _ => SlotKind::Int,
    }
}

/// A 64-bit FNV-1a hash of a token stream in a canonical spelling (identifiers, literals and punctuation
/// separated by one space, delimiters explicit), so the proc macro and the build script, which see the same
/// source through different token implementations, get the same value.
pub fn token_hash(tokens: &TokenStream) -> u64 {
    let mut text = String::new();
    canonical(tokens.clone(), &mut text);
    fnv1a(text.as_bytes())
}

fn canonical(tokens: TokenStream, out: &mut String) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                let _ = write!(out, "{i} ");
            }
            TokenTree::Literal(l) => {
                let _ = write!(out, "{l} ");
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                out.push(' ');
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ('(', ')'),
                    proc_macro2::Delimiter::Brace => ('{', '}'),
                    proc_macro2::Delimiter::Bracket => ('[', ']'),
                    proc_macro2::Delimiter::None => ('«', '»'),
                };
                out.push(open);
                out.push(' ');
                canonical(g.stream(), out);
                out.push(close);
                out.push(' ');
            }
        }
    }
}

/// `omp_<fn>_<region>_<hash>`: the kernel of region number `region` (in walk order) of function `function`,
/// whose signature and body hash to `fn_hash`.
pub fn kernel_name(function: &str, region: u32, fn_hash: u64) -> String {
    format!("omp_{function}_{region}_{:08x}", fn_hash as u32)
}

/// The name of a kernel whose plain name ([`kernel_name`]) is shared by functions that compile to different
/// kernels: the same function (signature and body) in two modules whose `const`s differ. The build names each such
/// kernel by where its region is (the file relative to the package, and the line of its `for`), and the macro,
/// which sees its region's location too, picks the same name (`lower::offload`).
pub fn located_name(name: &str, file: &str, line: usize) -> String {
    format!("{name}_{:08x}", fnv1a(format!("{file}:{line}").as_bytes()) as u32)
}

/// Inside the proc macro: [`located_name`] of the region whose `for` is at `span` (as the build names it), or `None`
/// when the compiler does not say where the file is.
pub fn located_name_at(name: &str, span: proc_macro2::Span) -> Option<String> {
    Some(located_name(name, &package_relative_file(span)?, span.start().line))
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Inside the proc macro: the file of `span` relative to the package being compiled (`CARGO_MANIFEST_DIR`), as the
/// build names it; `None` when the compiler does not say (rustc before 1.88) or the file is outside the package.
pub fn package_relative_file(span: proc_macro2::Span) -> Option<String> {
    let mut file = span.local_file()?;
    // rustc names files relative to its working directory (the workspace root under cargo).
    if file.is_relative() {
        file = std::env::current_dir().ok()?.join(file);
    }
    let root = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let rel = file.strip_prefix(&root).ok()?;
    Some(rel.to_string_lossy().into_owned())
}

/// The hash that names a function's kernels: its signature and body, not its attributes (the macro does not
/// see the attribute it expands).
pub fn fn_hash(sig: &syn::Signature, block: &syn::Block) -> u64 {
    let mut ts = quote::ToTokens::to_token_stream(sig);
    quote::ToTokens::to_tokens(block, &mut ts);
    token_hash(&ts)
}

/// [`fn_hash`] of a method of an `impl` that carries `#[omp::directives]`: its kernels depend on the impl's `Self`
/// type and type parameters too (`self.a` is a `Vec<T>` of `Stream<T>`), so they are part of the name.
pub fn method_hash(sig: &syn::Signature, block: &syn::Block, imp_generics: &syn::Generics, self_ty: &syn::Type) -> u64 {
    let mut ts = quote::ToTokens::to_token_stream(imp_generics);
    quote::ToTokens::to_tokens(self_ty, &mut ts);
    fn_hash(sig, block) ^ token_hash(&ts).rotate_left(1)
}
