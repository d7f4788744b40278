//! Fuzzing of the macro entry points: whatever tokens a user writes, the macros give an expansion or spanned
//! errors, never a panic (a panicking proc macro is an ICE-like "proc macro panicked" with no useful span).
//!
//! Every property feeds generated inputs to `expand::attribute` (the construct's name, its arguments, the item),
//! `expand::directives`, `expand::standalone` (the three macro-form directives) and, when the item is a `fn`,
//! `expand::collect_kernels` and the build helper's path (`outline::Outline::add_file` + `crate_files`). Each
//! call runs under `catch_unwind`; a panic fails the property with the minimal input proptest shrinks it to.
//!
//! Properties (inputs are generated, not read from disk):
//! - `arbitrary_token_streams`: random token trees (identifiers incl. keywords, raw and non-ASCII ones,
//!   literals incl. huge integers and format strings, punctuation incl. joint operators, nested groups of
//!   every delimiter) for the arguments and the item, with fragments of real code spliced in.
//! - `directive_arguments`: argument lists from the real clause vocabulary (`keyword.rs`), randomly mutated at
//!   the token level, on every construct name, with plausible items.
//! - `loop_bodies`: `fn f(x: &[f64], y: &mut [f64], n: usize) { for i in 0..n { BODY } }` with random
//!   statements (indexed assignments with arbitrary index arithmetic, lets, inner loops, if/match, closures,
//!   macros, atomics/critical, break/continue/return/?, nested directives), optionally mutated.
//! - `directive_functions`: `#[omp::directives]` functions with statement directives, `target_data` blocks and
//!   `omp::target_update!` macros, optionally mutated.
//!
//! Running:
//! ```sh
//! cargo test -p omp-rs-codegen --test fuzz        # 500-1000 cases per property (~20 s in a debug build)
//! OMP_RS_FUZZ_CASES=1000000 cargo test --release -p omp-rs-codegen --test fuzz -- --nocapture
//! ```
//! Other knobs: `OMP_RS_FUZZ_SEED=<u64>` (replay a run; the seed is printed at the end of each property),
//! `OMP_RS_FUZZ_KEEP_GOING=1` (do not stop at the first panic: collect the smallest input for every distinct panic
//! location and list them at the end; the property still fails if there was any), `OMP_RS_FUZZ_DUMP=1` (print the
//! first error of every rejected `fn` expansion, to see how deep the generated inputs get), and the `replay` test
//! (`OMP_RS_FUZZ_REPLAY_NAME/ARGS/ITEM`: runs one input and prints its errors). Each property prints (eprintln,
//! visible with `--nocapture`) the number of inputs it ran, the time it took, how many of its `fn` items expanded
//! without errors and how many kernels were planned.
//!
//! Near-valid inputs (`clean_*` generators) get through the checks and the race analysis into planning and
//! lowering; the wild ones mostly stop at a (spanned) error, which is the other half of the contract.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::Instant;

use omp_rs_codegen::driver::{expand, outline};
use omp_rs_codegen::syntax::keyword;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use quote::quote;

// ------------------------------------------------------------------------------------------------------------
// Harness: panic capture, case counts, statistics.
// ------------------------------------------------------------------------------------------------------------

thread_local! {
    /// Inside `guard`: the panic hook records the message instead of printing it.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

fn install_hook() {
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) {
                let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                    (*s).to_string()
                } else if let Some(s) = info.payload().downcast_ref::<String>() {
                    s.clone()
                } else {
                    "<non-string panic payload>".to_string()
                };
                let loc = info.location().map_or_else(|| "<unknown>".to_string(), |l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}\x1f{loc}")));
            } else {
                default(info);
            }
        }));
    });
}

/// A caught panic: which entry point, the message and where it was raised.
#[derive(Debug, Clone)]
struct Caught {
    call: String,
    message: String,
    location: String,
}

/// Runs `f`, turning a panic into `Err` (silently: the hook records it instead of printing).
fn guard<T>(call: &str, f: impl FnOnce() -> T) -> Result<T, Caught> {
    CATCHING.with(|c| c.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    r.map_err(|_| {
        let raw = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
        let (message, location) = raw.split_once('\x1f').map_or((raw.clone(), String::new()), |(m, l)| (m.to_string(), l.to_string()));
        Caught { call: call.to_string(), message, location }
    })
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().replace('_', "").parse().ok())
}

/// `OMP_RS_FUZZ_CASES`, else the property's default (small: the properties run with every `cargo test`).
fn cases(default: u32) -> u32 {
    env_u64("OMP_RS_FUZZ_CASES").map_or(default, |n| n.clamp(1, u64::from(u32::MAX)) as u32)
}

fn keep_going() -> bool {
    std::env::var("OMP_RS_FUZZ_KEEP_GOING").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// What a property saw, printed at its end.
#[derive(Default)]
struct Stats {
    inputs: AtomicU64,
    /// Time spent in the entry points (the rest is generation and shrinking).
    exercise_ns: AtomicU64,
    /// Items that parsed as a `fn` (so the expansion should parse as a file).
    fn_items: AtomicU64,
    /// `attribute` expansions of a `fn` without errors (how deep the inputs get).
    accepted: AtomicU64,
    /// Kernels planned by `collect_kernels` (target regions that made it through analysis).
    kernels: AtomicU64,
    /// Expansions of a `fn` item that do not parse back as a file (not a panic; reported, not failed).
    unparsable: AtomicU64,
    first_unparsable: Mutex<Option<String>>,
    /// KEEP_GOING: the smallest input per distinct panic location.
    panics: Mutex<BTreeMap<String, (usize, String)>>,
}

/// Runs one property: `cases()` inputs from `strategy`, each exercised by `check`.
fn run_property<S>(name: &str, salt: u64, default_cases: u32, strategy: S)
where
    S: Strategy,
    S::Value: Describe,
{
    install_hook();
    let cases = cases(default_cases);
    let seed = env_u64("OMP_RS_FUZZ_SEED")
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64));
    let mut config = Config::with_cases(cases);
    config.failure_persistence = None;
    config.rng_seed = RngSeed::Fixed(seed ^ salt);
    config.max_shrink_iters = 20_000;
    config.max_shrink_time = 120_000;
    let stats = Stats::default();
    let keep = keep_going();
    let start = Instant::now();
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy, |case| {
        stats.inputs.fetch_add(1, Ordering::Relaxed);
        let t0 = Instant::now();
        let outcome = case.exercise(&stats);
        stats.exercise_ns.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        // Spans of the fallback proc-macro2 record their source text per thread; drop it so memory stays flat
        // over a million inputs (nothing from this case outlives it).
        proc_macro2::extra::invalidate_current_thread_spans();
        match outcome {
            Ok(()) => Ok(()),
            Err(c) if keep => {
                let input = format!("  call: {}\n{}", c.call, case.describe());
                let key = format!("{} at {}", c.message, c.location);
                let mut p = stats.panics.lock().unwrap_or_else(|e| e.into_inner());
                let e = p.entry(key).or_insert((usize::MAX, String::new()));
                if input.len() < e.0 {
                    *e = (input.len(), input);
                }
                Ok(())
            }
            Err(c) => Err(TestCaseError::fail(format!("`{}` panicked: {} at {}", c.call, c.message, c.location))),
        }
    });
    let elapsed = start.elapsed();
    let n = stats.inputs.load(Ordering::Relaxed);
    eprintln!(
        "fuzz {name}: {n} inputs ({cases} cases + shrinking) in {:.1} s ({:.0} inputs/s, {:.0} % of it in the entry \
         points), seed {seed}; {} fn items, {} expanded without errors, {} kernels planned, {} expansions of a fn \
         that do not parse as a file",
        elapsed.as_secs_f64(),
        n as f64 / elapsed.as_secs_f64().max(1e-9),
        100.0 * stats.exercise_ns.load(Ordering::Relaxed) as f64 / 1e9 / elapsed.as_secs_f64().max(1e-9),
        stats.fn_items.load(Ordering::Relaxed),
        stats.accepted.load(Ordering::Relaxed),
        stats.kernels.load(Ordering::Relaxed),
        stats.unparsable.load(Ordering::Relaxed),
    );
    if let Some(first) = stats.first_unparsable.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        eprintln!("fuzz {name}: first expansion that does not parse: {first}");
    }
    let panics = stats.panics.into_inner().unwrap_or_else(|e| e.into_inner());
    for (key, (_, input)) in &panics {
        eprintln!("fuzz {name}: PANIC {key}\n  smallest input seen:\n{input}\n");
    }
    match result {
        Ok(()) => assert!(panics.is_empty(), "fuzz {name}: {} distinct panics (listed above)", panics.len()),
        Err(TestError::Fail(reason, case)) => {
            panic!("fuzz {name}: {reason}\nminimal input (seed {seed}):\n{}", case.describe())
        }
        Err(TestError::Abort(reason)) => panic!("fuzz {name}: aborted: {reason}"),
    }
}

// ------------------------------------------------------------------------------------------------------------
// What every input goes through.
// ------------------------------------------------------------------------------------------------------------

const STANDALONE: &[&str] = &["target_update", "target_enter_data", "target_exit_data"];

/// A generated input: a directive name, its arguments and the item it is on.
trait Describe: std::fmt::Debug {
    fn exercise(&self, stats: &Stats) -> Result<(), Caught>;
    fn describe(&self) -> String;
}

/// Calls every entry point with (`name`, `args`, `item`).
fn exercise_all(name: &str, args: &TokenStream, item: &TokenStream, extra: bool, stats: &Stats) -> Result<(), Caught> {
    let item_fn = syn::parse2::<syn::ItemFn>(item.clone()).ok();
    if item_fn.is_some() {
        stats.fn_items.fetch_add(1, Ordering::Relaxed);
    }
    let out = guard(&format!("expand::attribute({name:?}, ..)"), || expand::attribute(name, args.clone(), item.clone()))?;
    if item_fn.is_some() {
        reparses(&format!("attribute {name}"), &out, args, item, stats);
        if !out.clone().into_iter().any(|tt| matches!(&tt, TokenTree::Ident(i) if i == "compile_error")) {
            stats.accepted.fetch_add(1, Ordering::Relaxed);
        } else if std::env::var_os("OMP_RS_FUZZ_DUMP").is_some() {
            let tokens: Vec<TokenTree> = out.into_iter().collect();
            let first = tokens.windows(3).find_map(|w| match (&w[0], &w[2]) {
                (TokenTree::Ident(i), TokenTree::Group(g)) if i == "compile_error" => Some(g.stream().to_string()),
                _ => None,
            });
            eprintln!("DUMP {name}({args}) {item}\n  -> {}", first.unwrap_or_default());
        }
    }
    let out = guard("expand::directives", || expand::directives(TokenStream::new(), item.clone()))?;
    if item_fn.is_some() {
        reparses("directives", &out, &TokenStream::new(), item, stats);
    }
    if extra && !args.is_empty() {
        guard("expand::directives (with arguments)", || expand::directives(args.clone(), item.clone()))?;
    }
    for s in STANDALONE {
        guard(&format!("expand::standalone({s:?}, ..)"), || expand::standalone(s, args.clone()))?;
    }
    if let Some(f) = item_fn {
        let ident = Ident::new(name, Span::call_site());
        let k1 = guard(&format!("expand::collect_kernels(Some({name:?}))"), || expand::collect_kernels(&f, Some((&ident, args.clone()))))?;
        let k2 = guard("expand::collect_kernels(None)", || expand::collect_kernels(&f, None))?;
        stats.kernels.fetch_add((k1.len() + k2.len()) as u64, Ordering::Relaxed);
        // The build helper's path: the file as it sees it, attribute included.
        let attr = if args.is_empty() { quote!(#[omp::#ident]) } else { quote!(#[omp::#ident(#args)]) };
        for file in [quote!(#attr #f), quote!(#[omp::directives] #f)] {
            if let Ok(file) = syn::parse2::<syn::File>(file) {
                guard("outline::Outline::add_file + crate_files", || {
                    let mut o = outline::Outline::default();
                    o.add_file(&file, "src/lib.rs");
                    let slots: usize = o.kernels.iter().map(|k| k.slots().len()).sum();
                    let files = o.crate_files();
                    let source = o.crate_source();
                    (slots, files.len(), source.len())
                })?;
            }
        }
    }
    Ok(())
}

/// The expansion of a `fn` item is a file (compile errors + the fn, or the lowered fn): count those that are not.
fn reparses(what: &str, out: &TokenStream, args: &TokenStream, item: &TokenStream, stats: &Stats) {
    if syn::parse2::<syn::File>(out.clone()).is_err() {
        stats.unparsable.fetch_add(1, Ordering::Relaxed);
        let mut first = stats.first_unparsable.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some(format!("{what}\n  args: {args}\n  item: {item}\n  expansion: {out}"));
        }
    }
}

// ------------------------------------------------------------------------------------------------------------
// Token-level building blocks (generated as plain data; turned into tokens inside the property so no span
// outlives a case).
// ------------------------------------------------------------------------------------------------------------

/// One generated token tree.
#[derive(Debug, Clone)]
enum Tok {
    Ident(String),
    Raw(String),
    Lifetime(String),
    Lit(String),
    /// Punctuation, joint chars included (`+=`, `..=`, `::`).
    Op(String),
    Group(u8, Vec<Tok>),
    /// A fragment of real code, lexed.
    Src(String),
}

const IDENTS: &[&str] = &[
    "i",
    "j",
    "k",
    "n",
    "m",
    "x",
    "y",
    "z",
    "s",
    "a",
    "b",
    "t",
    "v",
    "f",
    "g",
    "h",
    "p",
    "c",
    "idx",
    "buf",
    "omp",
    "directives",
    "fn",
    "for",
    "in",
    "let",
    "mut",
    "if",
    "else",
    "match",
    "while",
    "loop",
    "break",
    "continue",
    "return",
    "as",
    "move",
    "ref",
    "self",
    "Self",
    "super",
    "crate",
    "struct",
    "enum",
    "impl",
    "unsafe",
    "async",
    "await",
    "dyn",
    "where",
    "type",
    "const",
    "static",
    "use",
    "mod",
    "pub",
    "trait",
    "true",
    "false",
    "_",
    "union",
    "macro_rules",
    "yield",
    "box",
    "try",
    "gen",
    "usize",
    "isize",
    "u8",
    "u32",
    "u64",
    "u128",
    "i32",
    "i64",
    "i128",
    "f32",
    "f64",
    "bool",
    "Vec",
    "Box",
    "Option",
    "Some",
    "None",
    "Ok",
    "Err",
    "DeviceBuffer",
    "println",
    "format",
    "assert",
    "assert_eq",
    "vec",
    "dbg",
    "write",
    "panic",
    "step_by",
    "rev",
    "len",
    "max",
    "min",
    "sqrt",
    "iter",
    "reduction",
    "collapse",
    "map",
    "to",
    "from",
    "tofrom",
    "alloc",
    "release",
    "delete",
    "always",
    "present",
    "close",
    "schedule",
    "static",
    "dynamic",
    "guided",
    "auto",
    "runtime",
    "monotonic",
    "nonmonotonic",
    "simd",
    "dist_schedule",
    "num_threads",
    "num_teams",
    "thread_limit",
    "device",
    "nowait",
    "depend",
    "inout",
    "out",
    "is_device_ptr",
    "private",
    "firstprivate",
    "shared",
    "default",
    "none",
    "simdlen",
    "safelen",
    "proc_bind",
    "spread",
    "order",
    "concurrent",
    "read",
    "update",
    "capture",
    "seq_cst",
    "acq_rel",
    "acquire",
    "relaxed",
    "hint",
    "lastprivate",
    "linear",
    "target",
    "teams",
    "parallel",
    "parallel_for",
    "target_data",
    "target_update",
    "target_enter_data",
    "target_exit_data",
    "atomic",
    "critical",
    "declare_target",
    "name",
    "__omp_x",
    "omp_f_0_deadbeef",
    "__private",
    "é",
    "变量",
    "ñandú",
    "Δt",
    "x_ü",
    "_0",
    "__",
    "A",
    "N",
    "C",
    "T",
];

const RAW_IDENTS: &[&str] = &["type", "fn", "loop", "match", "for", "i", "x", "async", "try", "gen", "yield", "é"];

const LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "10",
    "-1",
    "255u8",
    "256u8",
    "1usize",
    "2i32",
    "1_000",
    "0x10",
    "0b101",
    "0o17",
    "100000000000000000000",
    "1000000000000000000000000000000",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "170141183460469231731687303715884105727i128",
    "0xFFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF",
    "18446744073709551616usize",
    "1u7",
    "1_u128",
    "0.0",
    "1.5",
    "2.5e300",
    "1e30",
    "1e400",
    "1e-400",
    "1.0f32",
    "2.",
    "0.5f64",
    "\"\"",
    "\"x\"",
    "\"{}\"",
    "\"{} {}\"",
    "\"{x}\"",
    "\"{x²}\"",
    "\"y = {x²}\"",
    "\"{{\"",
    "\"}}\"",
    "\"{\"",
    "\"}\"",
    "\"{0}\"",
    "\"{:?}\"",
    "\"{x:?}\"",
    "\"{x:>width$}\"",
    "\"{y[i]}\"",
    "\"{r#type}\"",
    "\"{self}\"",
    "\"{_}\"",
    "\"{1x}\"",
    "\"{ x }\"",
    "\"{x.y}\"",
    "\"{é}\"",
    "\"{i}{j}\"",
    "\"{i:{w}}\"",
    "\"{:.*}\"",
    "\"{x:#?}\"",
    "\"{0:1$}\"",
    "\"{}}{{\"",
    "\"{{{x}}}\"",
    "r\"raw {x}\"",
    "r#\"{x} \"quoted\"\"#",
    "'a'",
    "'\\n'",
    "'{'",
    "'é'",
    "b\"bytes {x}\"",
    "b'x'",
    "c\"cstr\"",
    "\"\\u{1F600}{x}\"",
    "\"\\n{i}\\t\"",
];

const OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "!", "&", "|", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=", "=",
    "==", "!=", ">", "<", ">=", "<=", "@", ".", "..", "...", "..=", ",", ";", ":", "::", "->", "=>", "#", "$", "?", "~",
];

const FRAGMENTS: &[&str] = &[
    "for i in 0..n { y[i] = x[i]; }",
    "for i in 0..n { for j in 0..n { y[i * n + j] += 1.0; } }",
    "#[omp::atomic]",
    "#[omp::critical] { s += 1.0; }",
    "#[omp::parallel_for(reduction(+: s))]",
    "#[omp::target_data(map(tofrom: y))] { }",
    "omp::target_update!(from: y);",
    "fn f(x: &[f64], y: &mut [f64], n: usize) {}",
    "reduction(+: s)",
    "map(to: x[0..n])",
    "collapse(2)",
    "schedule(dynamic, 4)",
    "y[i * 10^20 * 10^20] = 1.0;",
    "println!(\"{} {}\", \"y = {x²}\", y[i]);",
    "let t: f64 = x[i];",
    "s += x[i] * y[i];",
    "(0..n).step_by(2)",
    "'outer: loop { break 'outer; }",
    "|k: usize| k + 1",
];

fn delimiter(d: u8) -> Delimiter {
    match d % 4 {
        0 => Delimiter::Parenthesis,
        1 => Delimiter::Bracket,
        2 => Delimiter::Brace,
        _ => Delimiter::None,
    }
}

fn push_tokens(t: &Tok, out: &mut Vec<TokenTree>) {
    match t {
        Tok::Ident(s) => out.push(Ident::new(s, Span::call_site()).into()),
        Tok::Raw(s) => out.push(Ident::new_raw(s, Span::call_site()).into()),
        Tok::Lifetime(s) => {
            out.push(Punct::new('\'', Spacing::Joint).into());
            out.push(Ident::new(s, Span::call_site()).into());
        }
        Tok::Lit(s) => match Literal::from_str(s) {
            Ok(l) => out.push(l.into()),
            Err(_) => out.push(Literal::usize_unsuffixed(0).into()),
        },
        Tok::Op(s) => {
            let chars: Vec<char> = s.chars().collect();
            for (k, c) in chars.iter().enumerate() {
                let spacing = if k + 1 < chars.len() { Spacing::Joint } else { Spacing::Alone };
                out.push(Punct::new(*c, spacing).into());
            }
        }
        Tok::Group(d, inner) => out.push(Group::new(delimiter(*d), to_stream(inner)).into()),
        Tok::Src(s) => out.extend(TokenStream::from_str(s).unwrap_or_default()),
    }
}

fn to_stream(toks: &[Tok]) -> TokenStream {
    let mut out = Vec::new();
    for t in toks {
        push_tokens(t, &mut out);
    }
    out.into_iter().collect()
}

fn sel(items: &'static [&'static str]) -> BoxedStrategy<String> {
    select(items).prop_map(String::from).boxed()
}

fn random_ident() -> BoxedStrategy<String> {
    (select(&['a', 'b', 'x', 'y', 'z', '_', 'Q', 'é'][..]), prop::collection::vec(select(&['a', 'i', '0', '9', '_', 'Z', 'ü'][..]), 0..6))
        .prop_map(|(c, rest)| std::iter::once(c).chain(rest).collect())
        .boxed()
}

fn leaf_tok() -> BoxedStrategy<Tok> {
    let fmt_chars: &'static [char] = &['{', '}', 'x', '²', ':', '?', '0', ' ', 'é', '$', '.', '[', ']', '#', 'i', '*', '<'];
    prop_oneof![
        6 => sel(IDENTS).prop_map(Tok::Ident),
        2 => random_ident().prop_map(Tok::Ident),
        1 => sel(RAW_IDENTS).prop_map(Tok::Raw),
        1 => sel(&["a", "outer", "static", "_"]).prop_map(Tok::Lifetime),
        4 => sel(LITERALS).prop_map(Tok::Lit),
        1 => prop::collection::vec(select(fmt_chars), 0..10)
            .prop_map(|cs| Tok::Lit(format!("\"{}\"", cs.into_iter().collect::<String>()))),
        1 => any::<u128>().prop_map(|v| Tok::Lit(v.to_string())),
        1 => any::<i64>().prop_map(|v| Tok::Lit(format!("{v}"))),
        1 => any::<f64>().prop_map(|v| Tok::Lit(format!("{v:?}"))),
        6 => sel(OPS).prop_map(Tok::Op),
        2 => sel(FRAGMENTS).prop_map(Tok::Src),
    ]
    .boxed()
}

fn tok_tree() -> BoxedStrategy<Tok> {
    leaf_tok()
        .prop_recursive(5, 96, 8, |inner| {
            prop_oneof![
                3 => inner.clone(),
                1 => (0u8..4, prop::collection::vec(inner, 0..8)).prop_map(|(d, v)| Tok::Group(d, v)),
            ]
        })
        .boxed()
}

// ------------------------------------------------------------------------------------------------------------
// Token-level mutations of generated source text.
// ------------------------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Mutation {
    kind: u8,
    at: Index,
    tok: Tok,
}

fn mutation() -> BoxedStrategy<Mutation> {
    (0u8..10, any::<Index>(), leaf_tok()).prop_map(|(kind, at, tok)| Mutation { kind, at, tok }).boxed()
}

/// A token tree whose groups can be edited.
enum Node {
    Leaf(TokenTree),
    Group(Delimiter, Span, Vec<Node>),
}

fn nodes(ts: TokenStream) -> Vec<Node> {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => Node::Group(g.delimiter(), g.span(), nodes(g.stream())),
            other => Node::Leaf(other),
        })
        .collect()
}

fn from_nodes(ns: Vec<Node>) -> TokenStream {
    ns.into_iter()
        .map(|n| match n {
            Node::Leaf(tt) => tt,
            Node::Group(d, span, inner) => {
                let mut g = Group::new(d, from_nodes(inner));
                g.set_span(span);
                TokenTree::Group(g)
            }
        })
        .collect()
}

fn count(ns: &[Node]) -> usize {
    ns.iter().map(|n| 1 + if let Node::Group(_, _, inner) = n { count(inner) } else { 0 }).sum()
}

/// Applies `m` at node number `*target` (pre-order); returns true once applied.
fn apply_at(ns: &mut Vec<Node>, target: &mut usize, m: &Mutation) -> bool {
    let mut k = 0;
    while k < ns.len() {
        if *target == 0 {
            let fresh = || {
                let mut v = Vec::new();
                push_tokens(&m.tok, &mut v);
                nodes(v.into_iter().collect())
            };
            match m.kind {
                0 => {
                    ns.remove(k);
                }
                1 => {
                    ns.splice(k..=k, fresh());
                }
                2 => {
                    ns.splice(k..k, fresh());
                }
                3 => {
                    let dup = clone_node(&ns[k]);
                    ns.insert(k, dup);
                }
                4 => {
                    if let Node::Group(_, _, inner) = ns.remove(k) {
                        ns.splice(k..k, inner);
                    }
                }
                5 => {
                    let n = ns.remove(k);
                    ns.insert(k, Node::Group(delimiter(m.at.index(4) as u8), Span::call_site(), vec![n]));
                }
                6 => {
                    if let Node::Group(d, _, _) = &mut ns[k] {
                        *d = delimiter(m.at.index(4) as u8 + 1);
                    }
                }
                7 => ns.truncate(k + 1),
                8 => {
                    if k + 1 < ns.len() {
                        ns.swap(k, k + 1);
                    }
                }
                _ => {
                    // Cut the rest of the list (an unterminated statement or clause).
                    ns.truncate(k);
                }
            }
            return true;
        }
        *target -= 1;
        if let Node::Group(_, _, inner) = &mut ns[k] {
            if apply_at(inner, target, m) {
                return true;
            }
        }
        k += 1;
    }
    false
}

fn clone_node(n: &Node) -> Node {
    match n {
        Node::Leaf(tt) => Node::Leaf(tt.clone()),
        Node::Group(d, s, inner) => Node::Group(*d, *s, inner.iter().map(clone_node).collect()),
    }
}

/// Source text, lexed, then mutated.
fn mutated(text: &str, mutations: &[Mutation]) -> TokenStream {
    let Ok(ts) = TokenStream::from_str(text) else {
        // A generator bug: the text must lex. Fail loudly (outside any guard).
        panic!("generated text does not lex: {text}");
    };
    if mutations.is_empty() {
        return ts;
    }
    let mut ns = nodes(ts);
    for m in mutations {
        let total = count(&ns);
        if total == 0 {
            ns = nodes({
                let mut v = Vec::new();
                push_tokens(&m.tok, &mut v);
                v.into_iter().collect()
            });
            continue;
        }
        let mut target = m.at.index(total);
        apply_at(&mut ns, &mut target, m);
    }
    from_nodes(ns)
}

// ------------------------------------------------------------------------------------------------------------
// Structured generators: clause lists, index and value expressions, statements, functions.
// ------------------------------------------------------------------------------------------------------------

fn loop_constructs() -> Vec<&'static str> {
    keyword::CONSTRUCTS.iter().filter(|(_, k)| matches!(k, omp_rs_codegen::model::ConstructKind::Executable(_))).map(|(n, _)| *n).collect()
}

fn all_names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = keyword::construct_names().collect();
    v.extend(["directives", "parallel", "for", "target_teams_distribute_parallel_fo", "omp", "teams", "x", "é"]);
    v
}

fn any_name() -> BoxedStrategy<String> {
    prop_oneof![
        8 => select(all_names()).prop_map(String::from),
        1 => random_ident(),
    ]
    .boxed()
}

fn join(v: Vec<String>, sep: &str) -> String {
    v.join(sep)
}

fn vars() -> BoxedStrategy<String> {
    prop::collection::vec(
        sel(&["s", "t", "x", "y", "n", "i", "a", "b", "h", "buf", "r#type", "é", "self", "_", "std::x", "x[0]", "1"]),
        0..4,
    )
    .prop_map(|v| join(v, ", "))
    .boxed()
}

fn small_int_expr() -> BoxedStrategy<String> {
    prop_oneof![
        4 => sel(&["4", "n", "8", "0", "1", "-1", "n / 2", "omp::max_threads()", "100000000000000000000", "1e3", "\"4\"", "x[i]", "i", "2usize", "u64::MAX", "if n > 4 { 2 } else { 1 }", "{ 3 }", "|| 4"]),
        1 => idx_expr(),
    ]
    .boxed()
}

fn cond() -> BoxedStrategy<String> {
    prop_oneof![
        sel(&[
            "n > 1000",
            "true",
            "false",
            "c",
            "x.len() > 0",
            "i < n",
            "s > 0.0",
            "n",
            "1",
            "let Some(v) = o",
            "{ true }",
            "a && b || !c"
        ]),
        idx_expr().prop_map(|e| format!("{e} > 0")),
    ]
    .boxed()
}

fn map_item() -> BoxedStrategy<String> {
    prop_oneof![
        6 => sel(&["x", "y", "x[0..n]", "y[..]", "x[..n]", "y[1..=n]", "x[0:n]", "y[i]", "x.y", "s", "x[a..b][c..d]", "std::x", "h", "buf", "z[..n * m]", "y[n..]", "x[..=0]", "y[(0..n)]", "r#type", "é[0..1]"]),
        1 => (idx_expr(), idx_expr()).prop_map(|(a, b)| format!("x[{a}..{b}]")),
    ]
    .boxed()
}

fn map_items() -> BoxedStrategy<String> {
    prop::collection::vec(map_item(), 0..4).prop_map(|v| join(v, ", ")).boxed()
}

fn clause() -> BoxedStrategy<String> {
    let map_kind = sel(&[
        "",
        "to: ",
        "from: ",
        "tofrom: ",
        "alloc: ",
        "release: ",
        "delete: ",
        "always, to: ",
        "always to: ",
        "present: ",
        "close, from: ",
        "always, close, present, tofrom: ",
        "bogus: ",
        "to, from: ",
        "to:: ",
        ": ",
    ]);
    prop_oneof![
        3 => (sel(&["+", "*", "-", "min", "max", "&", "|", "^", "&&", "||", "foo", "inscan,+", "", "+ +", "::"]), vars()).prop_map(|(o, v)| format!("reduction({o}: {v})")),
        1 => vars().prop_map(|v| format!("reduction(+ {v})")),
        2 => sel(&["1", "2", "3", "4", "0", "10", "4294967296", "-1", "n", "2u8", "1.5", "", "2, 3", "0x2", "1_0", "99999999999999999999999"]).prop_map(|n| format!("collapse({n})")),
        3 => (map_kind, map_items()).prop_map(|(k, i)| format!("map({k}{i})")),
        1 => map_items().prop_map(|i| format!("to({i})")),
        1 => map_items().prop_map(|i| format!("from({i})")),
        2 => prop_oneof![
            sel(&["static", "dynamic", "guided, 4", "auto", "runtime, 2", "monotonic: dynamic", "nonmonotonic, simd: guided, 8", "simd", "bogus", "", "static,", "monotonic", "monotonic, bogus: static", "static, 4, 5"]),
            small_int_expr().prop_map(|e| format!("dynamic, {e}")),
        ].prop_map(|s| format!("schedule({s})")),
        1 => sel(&["dist_schedule(static)", "dist_schedule(static, 128)", "dist_schedule(dynamic)", "dist_schedule()", "dist_schedule(static,)"]),
        3 => (sel(&["num_threads", "num_teams", "thread_limit", "simdlen", "safelen", "hint", "device"]), small_int_expr()).prop_map(|(c, e)| format!("{c}({e})")),
        2 => (sel(&["", "target: ", "parallel: ", "teams: ", "simd: ", "target_data: ", "target_update: ", "bogus: ", "target::"]), cond()).prop_map(|(m, c)| format!("if({m}{c})")),
        1 => sel(&["nowait", "nowait()", "nowait(x)"]),
        1 => (sel(&["in", "out", "inout", "mutexinoutset", ""]), vars()).prop_map(|(k, v)| format!("depend({k}: {v})")),
        2 => (sel(&["is_device_ptr", "private", "firstprivate", "shared"]), vars()).prop_map(|(c, v)| format!("{c}({v})")),
        1 => sel(&["shared", "none", "firstprivate", "private", "bogus", ""]).prop_map(|k| format!("default({k})")),
        1 => sel(&["proc_bind(spread)", "proc_bind(close)", "proc_bind(primary)", "proc_bind(x)", "order(concurrent)", "order(reproducible: concurrent)", "order()"]),
        2 => sel(&["read", "write", "update", "capture", "seq_cst", "acq_rel", "acquire", "release", "relaxed", "read()", "hint(0)", "name"]),
        1 => sel(&["lastprivate(x)", "linear(i: 1)", "aligned(x: 64)", "ordered", "copyin(x)", "bind(thread)", "compare", "uses_allocators(a)", "defaultmap(tofrom: scalar)"]),
        1 => sel(&["reducton(+: s)", "foo", "foo(bar)", "map", "map()", "42", "\"str\"", "(x)", "#", "omp::reduction(+: s)", "r#map(to: x)", "Map(x)", "collapse(2)(3)", "reduction(+: s)[0]"]),
    ]
    .boxed()
}

fn clauses() -> BoxedStrategy<String> {
    (prop::collection::vec(clause(), 0..5), sel(&[", ", ", ", " ", ",", " , ", ",, "])).prop_map(|(v, sep)| v.join(&sep)).boxed()
}

/// Index-like integer expressions (where the affine analysis looks).
fn idx_expr() -> BoxedStrategy<String> {
    let leaf = sel(&[
        "i",
        "j",
        "k",
        "n",
        "0",
        "1",
        "2",
        "3",
        "7",
        "10",
        "i + 1",
        "n - 1",
        "i - 1",
        "t",
        "x.len()",
        "y.len() - 1",
        "100000000000000000000",
        "1000000000000000000000000000000",
        "340282366920938463463374607431768211455",
        "10^20",
        "usize::MAX",
        "i32::MAX as usize",
        "-1",
        "C",
        "N",
        "s as usize",
        "(i)",
        "i * n + j",
        "2 * i + 1",
        "i as usize",
        "i as u8 as usize",
        "1_000_000_000_000_000_000u128",
        "0xFFFF_FFFF_FFFF_FFFF",
        "i << 63",
        "1 << 200",
        "i * 10^20 * 10^20",
        "170141183460469231731687303715884105727 * 2",
        "-170141183460469231731687303715884105727 - 2",
        "i * 9223372036854775807 * 9223372036854775807",
        "i + 170141183460469231731687303715884105727",
        "i - 170141183460469231731687303715884105727 - 170141183460469231731687303715884105727",
        "idx[i]",
        "k2",
    ]);
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            4 => (inner.clone(), sel(&["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]), inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            1 => inner.clone().prop_map(|a| format!("({a})")),
            1 => (inner.clone(), sel(&["usize", "i32", "u8", "i64", "u128", "i128", "isize", "f64", "u64"])).prop_map(|(a, t)| format!("{a} as {t}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("g({a}, {b})")),
            1 => (inner.clone(), sel(&["min", "max", "wrapping_mul", "saturating_sub", "pow", "rem_euclid"]), inner.clone()).prop_map(|(a, m, b)| format!("{a}.{m}({b})")),
            1 => inner.clone().prop_map(|a| format!("idx[{a}]")),
            1 => inner.clone().prop_map(|a| format!("m!({a})")),
            1 => inner.clone().prop_map(|a| format!("-{a}")),
            1 => inner.clone().prop_map(|a| format!("{{ let t = {a}; t }}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("if {a} > {b} {{ {a} }} else {{ {b} }}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}..{b}")),
            1 => inner.clone().prop_map(|a| format!("*&{a}")),
            1 => inner.prop_map(|a| format!("[{a}, 0][0]")),
        ]
    })
    .boxed()
}

/// Value expressions (right-hand sides).
fn val_expr() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        6 => sel(&["x[i]", "y[i]", "1.0", "0.0", "2.5e300", "f64::NAN", "s", "a", "t", "i as f64", "n as f64", "v", "1e-400", "1", "true", "c(i)", "z[i][j]", "p.x", "x[i] * y[i]", "x.iter().sum::<f64>()", "x.len() as f64", "-x[i]", "y[i].abs()", "w", "r#type", "é", "(x[i], y[i]).0", "unsafe { *x.as_ptr().add(i) }", "vec![1.0; 3][0]", "format!(\"{i}\").len() as f64", "b[i]", "buf[i]", "h[i]"]),
        2 => idx_expr().prop_map(|e| format!("x[{e}]")),
        1 => idx_expr(),
    ];
    leaf.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            3 => (inner.clone(), sel(&["+", "-", "*", "/", "%", "&&", "==", "<"]), inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            1 => inner.clone().prop_map(|a| format!("({a}).sqrt()")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}).max({b})")),
            1 => inner.clone().prop_map(|a| format!("h2({a})")),
            1 => (cond(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
            1 => inner.clone().prop_map(|a| format!("{{ let t = {a}; t }}")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(|q: f64| q * {a})({b})")),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("match i {{ 0 => {a}, _ => {b} }}")),
            1 => inner.prop_map(|a| format!("{a} as f64")),
        ]
    })
    .boxed()
}

fn fmt_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => sel(&["\"{} {}\", \"y = {x²}\", y[i]", "\"{x} {y:?} {{}} {0}\", i", "\"{i}\"", "\"{x²}\"", "\"{r#type}\"", "\"{self}\"", "\"{1x}\"", "\"{é}\"", "\"{y[i]}\"", "\"{x:>width$}\", width = 3", "\"{:?}\", (x, y)", "\"{{{s}}}\"", "\"{\"", "\"{_}\"", "\"{ i }\"", "\"{i:{n}}\"", "\"{0:1$}\", s, n", "\"{}\", y[i * 10^20 * 10^20]", "\"{x.y}\"", "\"{n}\" \"{s}\"", "concat!(\"{\", \"x}\")", "r\"{raw}\"", "b\"{x}\"", "\"{async}\"", "\"{Self}\"", "\"{__omp_x}\""]),
        1 => prop::collection::vec(select(&["{", "}", "x", "²", ":", "?", "0", " ", "é", "$", ".", "[", "]", "i", "y", "{{", "}}", "r#", "_", "1"][..]), 0..10)
            .prop_map(|cs| format!("\"{}\", i", cs.concat())),
    ]
    .boxed()
}

fn leaf_stmt() -> BoxedStrategy<String> {
    let assign_op = sel(&["=", "+=", "-=", "*=", "/=", "%=", "<<=", "^=", "|=", "&="]);
    let array = sel(&["y", "z", "h", "x", "b", "buf", "w", "s", "t", "é", "r#type", "r#in", "ñ"]);
    let let_name = sel(&[
        "t",
        "v",
        "w",
        "i",
        "j",
        "k",
        "n",
        "x",
        "s",
        "q",
        "r#type",
        "é",
        "_",
        "y",
        "(a, b)",
        "[p, ..]",
        "P { x }",
        "ref r",
        "mut q @ 1..=3",
    ]);
    let let_ty =
        sel(&["", ": f64", ": usize", ": Vec<f64>", ": &[f64]", ": [f64; 4]", ": i128", ": _", ": impl Fn()", ": &mut [f64]", ": u8"]);
    prop_oneof![
        8 => (array.clone(), idx_expr(), assign_op.clone(), val_expr()).prop_map(|(a, i, o, v)| format!("{a}[{i}] {o} {v};")),
        2 => (array.clone(), idx_expr(), idx_expr(), val_expr()).prop_map(|(a, i, j, v)| format!("{a}[{i}][{j}] = {v};")),
        3 => (sel(&["s", "t", "a", "v", "n", "i"]), assign_op, val_expr()).prop_map(|(a, o, v)| format!("{a} {o} {v};")),
        1 => val_expr().prop_map(|v| format!("s = s.max({v});")),
        1 => val_expr().prop_map(|v| format!("s = {v} + s;")),
        4 => (sel(&["", "mut "]), let_name, let_ty, val_expr()).prop_map(|(m, n, t, v)| format!("let {m}{n}{t} = {v};")),
        1 => sel(&["let t;", "let mut t: f64;", "let Some(q) = o else { continue };", "let (a, b) = (x[i], y[i]);", "let i = i * 2;", "let y = x;", "let z = &mut *y;", "let r = &mut y[i]; *r = 1.0;"]),
        3 => fmt_string().prop_map(|f| format!("println!({f});")),
        2 => (sel(&["assert!", "debug_assert!", "eprint!", "print!", "format!", "panic!", "dbg!", "write!", "std::println!", "::std::println!", "todo!", "unreachable!", "assert_eq!", "my_macro!", "vec!", "format_args!"]), fmt_string()).prop_map(|(m, f)| format!("{m}({f});")),
        2 => sel(&["assert!(i < n, \"{i}\");", "assert_eq!(x[i], y[i]);", "let v = vec![0.0; n];", "let v = vec![x[i], y[i]];", "my_macro!(y, i);", "my_macro! { y[i] = 1.0 }", "m![i; n];", "write!(out, \"{}\", i).unwrap();", "dbg!(i);", "let s2 = format!(\"{x:?} {}\", i);", "assert!(y[i * 10^20 * 10^20] > 0.0);", "println!(\"{}\", { y[i] = 1.0; 2 });", "println!();", "println!(\"{x}\", x = y[i]);"]),
        4 => (idx_expr(), val_expr(), sel(&["", "(update)", "(read)", "(write)", "(capture)", "(update, seq_cst)", "(bogus)", "()", "(read, write)", "(hint(1))"]), sel(&["+=", "-=", "*=", "/=", "&=", "|=", "^=", "%=", "=", "<<="]))
            .prop_map(|(i, v, k, o)| format!("#[omp::atomic{k}] y[{i}] {o} {v};")),
        2 => sel(&["#[omp::atomic] s += 1.0;", "#[omp::atomic(read)] let v = y[i];", "#[omp::atomic(write)] y[i] = 2.0;", "#[omp::atomic(capture)] let v = (h[i] += 1);", "#[omp::atomic(update)] s = s.max(x[i]);", "#[omp::atomic] y[i] = y[i] * 2.0;", "#[omp::atomic] y[i] = 2.0 * y[i];", "#[omp::atomic] let q = 1;", "#[omp::atomic] { y[i] += 1.0; }", "#[omp::atomic(read)] v = y[i];", "#[omp::atomic(capture)] v = (y[i] += 1.0);", "#[omp::atomic] h[x[i] as usize] += 1;", "#[omp::atomic] t += 1;", "#[omp::atomic] y[i].x += 1.0;", "#[omp::atomic] *r += 1.0;", "#[omp::atomic] y[i] = y[i].min(x[i]);", "#[omp::atomic = 1] s += 1.0;", "#[omp::atomic] #[omp::critical] s += 1.0;", "#[omp::atomic] println!(\"{s}\");"]),
        2 => sel(&["break;", "continue;", "return;", "return s;", "g(i)?;", "break 'outer;", "continue 'outer;", "return Ok(());", "let _ = g(i)?;", "yield;", "break 1;"]),
        2 => sel(&["y.swap(i, j);", "y[i..j].fill(0.0);", "x.len();", "std::mem::swap(&mut a, &mut b);", "p.x = 1.0;", "drop(y);", "y.push(1.0);", "h[x[i] as usize] += 1;", "unsafe { *y.as_mut_ptr().add(i) = 1.0; }", "y.iter_mut().for_each(|e| *e = 0.0);", "y[i].x = 1.0;", "(y[i], z[i]) = (1.0, 2.0);", "*y.get_mut(i).unwrap() = 1.0;", "y[..].copy_from_slice(x);", "s.set(1);", "i += 1;", "n = 3;", "x[i] = 1.0;", "y = &mut z;"]),
        1 => sel(&["const C: usize = 4;", "fn h2(a: f64) -> f64 { a * 2.0 }", "struct P { x: f64 }", "static S: f64 = 1.0;", "use std::cmp::max;", "macro_rules! m { ($e:expr) => { $e } }", "#[omp::declare_target] fn dt(a: f64) -> f64 { a }", "const N: usize = 10^20;", "impl P { fn f(&self) {} }", "type T = f64;", "enum E { A }", "mod q {}"]),
        2 => sel(&["omp::target_update!(from: y);", "omp::target_update!(to: x[0..n]);", "omp::target_enter_data!(map(to: x));", "omp::target_exit_data!(map(from: y));", "omp::target_update!();", "omp::target_update!(from y);", "omp::target_update!(to: x, from: y);", "omp::target_enter_data!(map(bogus: x));", "omp::target_exit_data!(nowait);", "omp::target_update!(from: y[i * 10^20 * 10^20..]);"]),
        1 => clauses().prop_map(|c| format!("omp::target_update!({c});")),
        1 => Just(String::new()),
        1 => Just(";".to_string()),
    ]
    .boxed()
}

fn range() -> BoxedStrategy<String> {
    prop_oneof![
        6 => sel(&["0..n", "0..m", "1..n - 1", "(0..n).step_by(2)", "(0..=n).rev()", "x.iter()", "0..10u8", "0..", "(i..n).step_by(0)", "0..x.len()", "(0..n).rev().step_by(3)", "0..=usize::MAX", "-5..5", "0..n as i32", "(0..n).map(|q| q)", "(0..n)", "0..100000000000000000000", "0i128..10", "a..b", "0.0..1.0", "'a'..'z'", "[1, 2]"]),
        1 => (idx_expr(), idx_expr()).prop_map(|(a, b)| format!("{a}..{b}")),
        1 => (idx_expr(), idx_expr()).prop_map(|(a, b)| format!("({a}..={b}).step_by({b})")),
    ]
    .boxed()
}

fn loop_var() -> BoxedStrategy<String> {
    sel(&["j", "k", "i", "_", "w", "(a, b)", "mut q", "ref r", "r#type", "é"])
}

/// Statements, recursively (blocks hold 0..4 of them).
fn stmt() -> BoxedStrategy<String> {
    leaf_stmt()
        .prop_recursive(3, 12, 3, |inner| {
            let block = prop::collection::vec(inner.clone(), 0..3).prop_map(|v| v.join(" ")).boxed();
            prop_oneof![
                4 => inner.clone(),
                3 => (sel(&["", "'outer: "]), loop_var(), range(), block.clone()).prop_map(|(l, v, r, b)| format!("{l}for {v} in {r} {{ {b} }}")),
                1 => (cond(), block.clone()).prop_map(|(c, b)| format!("while {c} {{ {b} }}")),
                1 => block.clone().prop_map(|b| format!("loop {{ {b} break; }}")),
                2 => (cond(), block.clone(), block.clone()).prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
                1 => block.clone().prop_map(|b| format!("if let Some(q) = x.get(i) {{ {b} }}")),
                1 => (idx_expr(), block.clone(), block.clone()).prop_map(|(e, a, b)| format!("match {e} {{ 0 => {{ {a} }} _ => {{ {b} }} }}")),
                1 => block.clone().prop_map(|b| format!("let c = |k: usize| {{ {b} }};")),
                1 => block.clone().prop_map(|b| format!("let c = move || {{ {b} }}; c();")),
                1 => block.clone().prop_map(|b| format!("{{ {b} }}")),
                1 => block.clone().prop_map(|b| format!("unsafe {{ {b} }}")),
                2 => (sel(&["", "(name)", "(hint(1))", "(name, hint(2))", "(a b)", "(1)", "(r#type)"]), block.clone()).prop_map(|(n, b)| format!("#[omp::critical{n}] {{ {b} }}")),
                1 => block.clone().prop_map(|b| format!("#[omp::critical] for q in 0..2 {{ {b} }}")),
                2 => (select(loop_constructs()), clauses(), loop_var(), range(), block.clone()).prop_map(|(c, cl, v, r, b)| format!("#[omp::{c}({cl})] for {v} in {r} {{ {b} }}")),
                1 => (clauses(), block.clone()).prop_map(|(cl, b)| format!("#[omp::target_data({cl})] {{ {b} }}")),
                1 => (select(all_names()), inner.clone()).prop_map(|(c, s)| format!("#[omp::{c}] {s}")),
                1 => (block.clone(), val_expr()).prop_map(|(b, v)| format!("let v = {{ {b} {v} }};")),
                1 => block.prop_map(|b| format!("'blk: {{ {b} }}")),
            ]
        })
        .boxed()
}

fn body() -> BoxedStrategy<String> {
    prop::collection::vec(stmt(), 0..5).prop_map(|v| v.join(" ")).boxed()
}

fn params() -> BoxedStrategy<String> {
    let param = sel(&[
        "x: &[f64]",
        "y: &mut [f64]",
        "n: usize",
        "s: f64",
        "a: f64",
        "h: &mut [u32]",
        "z: &mut Vec<f32>",
        "m: usize",
        "idx: &[usize]",
        "v: [f64; 4]",
        "b: &mut omp::DeviceBuffer<f64>",
        "buf: omp::DeviceBuffer<f32>",
        "p: P",
        "c: impl Fn(usize) -> f64",
        "s: &mut f64",
        "t: (f64, f64)",
        "mut n: usize",
        "(a, b): (usize, usize)",
        "_: usize",
        "r#type: usize",
        "é: f64",
        "w: &mut [[f64; 3]]",
        "k: i32",
        "x: &Vec<f64>",
        "y: Vec<f64>",
        "y: &mut [f64; 10]",
        "z: Box<[f64]>",
        "n: i128",
        "n: u8",
        "s: &mut [f64]",
        "y: &'a mut [f64]",
        "x: &[T]",
        "y: &mut [Complex]",
        "x: &[&[f64]]",
        "n: omp::DeviceBuffer<f64>",
        "x: *const f64",
        "f: fn(f64) -> f64",
        "y: &mut dyn Index<usize>",
        "q: Option<usize>",
        "b: bool",
        "x: [[f64; 4]; 4]",
        "r#type: &mut [f64]",
        "r#in: &[f64]",
        "ñ: &mut [u64]",
        "r#type: f64",
    ]);
    (
        sel(&[
            "x: &[f64], y: &mut [f64], n: usize",
            "x: &[f64], y: &mut [f64], n: usize, s: f64",
            "",
            "n: usize, m: usize, x: &[f64], y: &mut [f64]",
        ]),
        prop::collection::vec(param, 0..3),
    )
        .prop_map(|(base, extra)| {
            let mut all: Vec<String> = if base.is_empty() { Vec::new() } else { vec![base] };
            all.extend(extra);
            all.join(", ")
        })
        .boxed()
}

fn signature() -> BoxedStrategy<String> {
    (
        sel(&["", "", "pub ", "unsafe ", "async ", "const ", "extern \"C\" ", "pub(crate) "]),
        sel(&["f", "f", "saxpy", "r#loop", "é", "_f", "omp_f_0_deadbeef", "main"]),
        sel(&["", "", "<T: Copy>", "<'a>", "<const N: usize>"]),
        params(),
        sel(&["", "", " -> f64", " -> Result<(), String>", " -> usize", " -> !", " -> impl Fn()"]),
        sel(&["", "", " where T: Send"]),
    )
        .prop_map(|(pre, name, gen, ps, ret, wh)| format!("{pre}fn {name}{gen}({ps}){ret}{wh}"))
        .boxed()
}

/// A `fn` whose body is one loop nest (what a loop directive on a fn applies to), with statements around it.
fn loop_fn() -> BoxedStrategy<String> {
    let pre = prop::collection::vec(
        prop_oneof![
            3 => sel(&["let mut s: f64 = 0.0;", "let t = 1;", "let m: usize = n / 2;", "const C: usize = 3;", "let c = 2.0;", "let h2 = |a: f64| a;", "let w: Vec<f64> = vec![0.0; n];", "let mut z: Vec<f32> = Vec::new();", "let x: &[f64] = &y;", "let k2 = 3usize;", "let idx: Vec<usize> = (0..n).collect();"]),
            1 => leaf_stmt(),
        ],
        0..3,
    );
    let post = prop::collection::vec(
        sel(&["s", "return s;", "s as usize", "for k in 0..n {}", "Ok(())", "y[0]", "println!(\"{s}\");", "0", "loop {}"]),
        0..2,
    );
    (
        signature(),
        pre,
        sel(&["", "", "", "'outer: "]),
        prop_oneof![
            4 => (loop_var(), range(), body()).prop_map(|(v, r, b)| format!("for {v} in {r} {{ {b} }}")),
            2 => (range(), range(), body()).prop_map(|(r1, r2, b)| format!("for i in {r1} {{ for j in {r2} {{ {b} }} }}")),
            1 => (range(), body()).prop_map(|(r, b)| format!("for i in {r} {{ for j in 0..n {{ for k in 0..i {{ {b} }} }} }}")),
            1 => (range(), body(), body()).prop_map(|(r, b1, b2)| format!("for i in {r} {{ {b1} for j in 0..n {{ {b2} }} }}")),
        ],
        post,
    )
        .prop_map(|(sig, pre, label, nest, post)| format!("{sig} {{ {} {label}{nest} {} }}", pre.join(" "), post.join(" ")))
        .boxed()
}

/// A `#[omp::directives]` fn: statement directives, data regions, update macros.
fn directives_fn() -> BoxedStrategy<String> {
    let dstmt = prop_oneof![
        4 => (select(loop_constructs()), clauses(), loop_var(), range(), body()).prop_map(|(c, cl, v, r, b)| format!("#[omp::{c}({cl})] for {v} in {r} {{ {b} }}")),
        2 => (select(loop_constructs()), range(), range(), body()).prop_map(|(c, r1, r2, b)| format!("#[omp::{c}(collapse(2))] for i in {r1} {{ for j in {r2} {{ {b} }} }}")),
        2 => (clauses(), prop::collection::vec((select(loop_constructs()), clauses(), range(), body()).prop_map(|(c, cl, r, b)| format!("#[omp::{c}({cl})] for i in {r} {{ {b} }}")), 0..3), prop::collection::vec(leaf_stmt(), 0..3))
            .prop_map(|(cl, loops, stmts)| format!("#[omp::target_data({cl})] {{ {} {} }}", loops.join(" "), stmts.join(" "))),
        1 => (sel(&["target", "target_teams", "target_parallel", "parallel_for", "atomic", "critical", "bogus"]), clauses(), body(), range()).prop_map(|(c, cl, b, r)| format!("#[omp::{c}({cl})] {{ {b} #[omp::teams_distribute_parallel_for] for i in {r} {{ {b} }} }}")),
        2 => stmt(),
    ];
    (signature(), prop::collection::vec(dstmt, 1..4), sel(&["", "s", "return s;", "y[0]"]))
        .prop_map(|(sig, stmts, tail)| format!("{sig} {{ let mut s: f64 = 0.0; {} {tail} }}", stmts.join(" ")))
        .boxed()
}

// Near-valid inputs: only declared names, writes at disjoint indices, clauses that fit. These get through the
// checks and the race analysis into planning and lowering (the wild generators above mostly stop at an error).

const CLEAN_SIG: &str = "fn f(x: &[f64], y: &mut [f64], z: &mut [f64], h: &mut [u32], idx: &[usize], n: usize, m: usize, a: f64) -> f64";

/// The index the body writes at: `@W`, replaced by one index per body (the iteration's own element, see
/// `clean_nest`), so that most bodies pass the race analysis; sometimes something else.
fn write_idx() -> BoxedStrategy<String> {
    prop_oneof![
        12 => Just("@W".to_string()),
        2 => sel(&["i", "i * m + j", "2 * i", "i + 1", "n * i + j", "i - 1", "idx[i]"]),
        1 => idx_expr(),
    ]
    .boxed()
}

/// Keeps the clauses (`name(...)` strings) that `construct` allows, so clean inputs are not stopped by
/// "clause not allowed" (the wild generators cover that). Also drops a `reduction` when another one is kept.
fn allowed_only(construct: &str, args: &str) -> String {
    let Some(kind) = keyword::construct(construct) else { return args.to_string() };
    let c = omp_rs_codegen::model::Construct { name: "x", kind, span: Span::call_site() };
    let allowed: Vec<&str> = c.allowed_clauses().iter().map(|n| n.as_str()).collect();
    let mut kept: Vec<&str> = Vec::new();
    // Split at top-level commas (`schedule(dynamic, 4)` is one clause).
    let mut clauses = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, ch) in args.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                clauses.push(args[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    clauses.push(args[start..].trim());
    for clause in clauses.into_iter().filter(|c| !c.is_empty()) {
        let head = clause.split('(').next().unwrap_or("").trim();
        let dup = kept.iter().any(|k| k.split('(').next().unwrap_or("").trim() == head);
        if allowed.contains(&head) && !(dup && head != "map") {
            kept.push(clause);
        }
    }
    kept.join(", ")
}

/// Makes a clean body consistent: one write index, and the reduction its updates of `s` need.
fn settle(body: &str, w: &str, clauses: &mut Vec<String>) -> String {
    let body = body.replace("@W", w);
    if !clauses.iter().any(|c| c.contains("reduction")) {
        if body.contains("s += ") && !body.contains("#[omp::atomic] s") && !body.contains("#[omp::critical] { s") {
            clauses.push("reduction(+: s)".into());
        } else if body.contains("s = s.max(") {
            clauses.push("reduction(max: s)".into());
        }
    }
    body
}

fn clean_val() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        12 => sel(&["x[i]", "a * x[i]", "x[i] * x[i]", "1.0", "i as f64", "x[i].abs()", "x[idx[i]]", "a", "x[i * m + j]", "(x[i] - a).max(0.0)", "0.5 * (x[i] + x[i])", "x[n - 1 - i]", "x.len() as f64", "f64::EPSILON", "x[(i + 1) % n]", "x[i * 10^20 * 10^20]", "x[i + 170141183460469231731687303715884105727]"]),
        1 => idx_expr().prop_map(|e| format!("x[{e}]")),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), sel(&["+", "-", "*", "/"]), inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            inner.clone().prop_map(|a| format!("({a}).sqrt()")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("if x[i] > 0.0 {{ {a} }} else {{ {b} }}")),
        ]
    })
    .boxed()
}

fn clean_stmt() -> BoxedStrategy<String> {
    let arr = prop_oneof![6 => Just("y"), 2 => Just("z"), 1 => Just("x"), 1 => Just("h")];
    let leaf = prop_oneof![
        8 => (arr, write_idx(), sel(&["=", "+=", "-=", "*="]), clean_val()).prop_map(|(a, i, o, v)| format!("{a}[{i}] {o} {v};")),
        2 => (write_idx(), clean_val(), clean_val()).prop_map(|(i, v, u)| format!("y[{i}] = {v}; z[{i}] = {u};")),
        2 => clean_val().prop_map(|v| format!("s += {v};")),
        1 => clean_val().prop_map(|v| format!("s = s.max({v});")),
        2 => (clean_val(), write_idx()).prop_map(|(v, w)| format!("let t: f64 = {v}; y[{w}] = t;")),
        1 => (clean_val(), write_idx()).prop_map(|(v, w)| format!("let mut acc: f64 = 0.0; for k in 0..m {{ acc += {v}; }} y[{w}] = acc;")),
        1 => (clean_val(), write_idx()).prop_map(|(v, w)| format!("for k in 0..m {{ y[{w}] += {v} * x[k]; }}")),
        2 => (write_idx(), clean_val()).prop_map(|(w, v)| format!("#[omp::atomic] h[{w}] += 1; #[omp::atomic] y[idx[i]] += {v};")),
        1 => clean_val().prop_map(|v| format!("#[omp::critical] {{ s += {v}; }}")),
        1 => clean_val().prop_map(|v| format!("#[omp::critical(lock)] {{ s = s + {v}; }}")),
        1 => clean_val().prop_map(|v| format!("#[omp::atomic] s += {v};")),
        2 => sel(&[
            "println!(\"{} {}\", i, x[i]);", "println!(\"{i} {a}\");", "println!(\"{} {}\", \"y = {x²}\", y[i]);",
            "assert!(i < n);", "debug_assert!(x[i] >= 0.0, \"{i}\");", "let v: Vec<f64> = vec![0.0; 4];",
            "if i == 0 { continue; }", "let c = |q: f64| q * 2.0; y[@W] = c(x[i]);",
            "match i % 3 { 0 => y[@W] = 1.0, _ => y[@W] = 2.0 }", "y[@W] = x[i].sqrt().max(0.0);",
            "if x[i] > a { y[@W] = x[i]; } else { z[@W] = a; }", "let (p, q) = (x[i], a); y[@W] = p * q;",
            "y[@W] = x[i..i + 1].iter().sum::<f64>();", "let r = &mut y[@W]; *r += 1.0;",
            "#[omp::atomic(read)] let v = h[i]; y[@W] = v as f64;", "#[omp::atomic(capture)] let v = (h[idx[i]] += 1);",
            "#[omp::atomic(write)] h[i] = 1;", "#[omp::atomic] y[idx[i]] = y[idx[i]].max(x[i]);",
            "const K: usize = 2; y[@W] = x[i * K];", "fn sq(v: f64) -> f64 { v * v } y[@W] = sq(x[i]);",
            "y[i * 10^20 * 10^20] = 1.0;", "y[i + 170141183460469231731687303715884105727] = 1.0;",
            "y[(i as i64 - 1) as usize] = 0.0;", "y[i as u8 as usize] = 1.0;", "z[2 * i] = 1.0; z[2 * i + 1] = 2.0;",
            "y[i] = x[i]; y[i + 1] = x[i];",
        ]),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        let block = prop::collection::vec(inner.clone(), 0..3).prop_map(|v| v.join(" ")).boxed();
        prop_oneof![
            3 => inner,
            1 => (block.clone(), block.clone()).prop_map(|(a, b)| format!("if x[i] > 0.0 {{ {a} }} else {{ {b} }}")),
            1 => block.clone().prop_map(|b| format!("for k in 0..m {{ {b} }}")),
            1 => block.clone().prop_map(|b| format!("{{ {b} }}")),
        ]
    })
    .boxed()
}

fn clean_body() -> BoxedStrategy<String> {
    prop::collection::vec(clean_stmt(), 1..4).prop_map(|v| v.join(" ")).boxed()
}

fn clean_clauses() -> BoxedStrategy<String> {
    prop::collection::vec(
        sel(&[
            "reduction(+: s)",
            "reduction(max: s)",
            "schedule(dynamic, 4)",
            "schedule(static)",
            "schedule(guided)",
            "num_threads(4)",
            "private(t)",
            "firstprivate(a)",
            "if(n > 100)",
            "map(to: x[0..n])",
            "map(tofrom: y)",
            "map(from: z[..n])",
            "map(to: idx), map(tofrom: h)",
            "num_teams(8)",
            "thread_limit(64)",
            "nowait",
            "shared(y)",
            "default(shared)",
            "order(concurrent)",
            "simdlen(8)",
            "dist_schedule(static, 64)",
            "device(0)",
            "collapse(1)",
            "reduction(*: s)",
            "reduction(min: s)",
            "if(target: n > 10)",
        ]),
        0..3,
    )
    .prop_map(|v| v.join(", "))
    .boxed()
}

/// A clean loop nest over `i` (and `j`) with the clauses it needs: `(clauses, nest)`, for the fn body of a loop
/// directive or a statement directive.
fn clean_nest() -> BoxedStrategy<(String, String)> {
    let one = sel(&["i", "i", "i", "2 * i", "i + 1", "i * 2 + 1", "(i)", "i as usize", "n - 1 - i", "i * 10^20 * 10^20"]);
    let two = sel(&["i * m + j", "i * m + j", "n * i + j", "j * n + i", "(i * m + j) * 2", "i * m + j + 1"]);
    prop_oneof![
        4 => (sel(&["0..n", "0..n", "1..n - 1", "(0..n).step_by(2)", "(0..n).rev()", "0..y.len()", "0..=n - 1", "0u32..n as u32"]), one, clean_body(), clean_clauses())
            .prop_map(|(r, w, b, cl)| (vec![cl], format!("for i in {r} {{ @B }}"), b, w)),
        2 => (two.clone(), clean_body(), clean_clauses()).prop_map(|(w, b, cl)| (vec!["collapse(2)".to_string(), cl], "for i in 0..n { for j in 0..m { @B } }".to_string(), b, w)),
        1 => (two, clean_body(), clean_clauses()).prop_map(|(w, b, cl)| (vec![cl], "for i in 0..n { for j in 0..m { @B } }".to_string(), b, w)),
    ]
    .prop_map(|(mut clauses, nest, body, w)| {
        let body = settle(&body, &w, &mut clauses);
        let args = clauses.into_iter().filter(|c| !c.is_empty()).collect::<Vec<_>>().join(", ");
        (args, nest.replace("@B", &body))
    })
    .boxed()
}

/// `(args, item)` for a loop directive on a clean fn.
fn clean_loop_fn() -> BoxedStrategy<(String, String)> {
    (clean_nest(), sel(&["", "let t: f64 = 0.0;", "const C: usize = 3;", "let w: Vec<f64> = vec![0.0; n];"]))
        .prop_map(|((args, nest), pre)| (args, format!("{CLEAN_SIG} {{ let mut s: f64 = 0.0; {pre} {nest} s }}")))
        .boxed()
}

/// A clean `#[omp::directives]` fn: loops with directives, data regions, updates, sequential loops around them.
fn clean_directives_fn() -> BoxedStrategy<String> {
    let directive_loop =
        (select(loop_constructs()), clean_nest()).prop_map(|(c, (args, nest))| format!("#[omp::{c}({})] {nest}", allowed_only(c, &args)));
    let dstmt = directive_loop.prop_recursive(2, 6, 3, |inner| {
        let block = prop::collection::vec(inner.clone(), 1..3).prop_map(|v| v.join(" ")).boxed();
        prop_oneof![
            3 => inner,
            2 => (sel(&["map(tofrom: y)", "map(to: x), map(tofrom: y)", "map(tofrom: y[0..n]), map(alloc: z)", "map(to: x[..n], idx), map(from: z)", ""]), block.clone(), sel(&["", "omp::target_update!(from: y);", "omp::target_update!(to: x);", "omp::target_update!(from: y[0..n]);"]))
                .prop_map(|(m, b, u)| format!("#[omp::target_data({m})] {{ {b} {u} }}")),
            1 => block.clone().prop_map(|b| format!("for _ in 0..3 {{ {b} s = 0.0; }}")),
            1 => clean_nest().prop_map(|(a, n)| {
                format!("#[omp::target] {{ #[omp::teams_distribute_parallel_for({})] {n} }}", allowed_only("teams_distribute_parallel_for", &a))
            }),
            1 => block.prop_map(|b| format!("omp::target_enter_data!(map(to: x)); {b} omp::target_exit_data!(map(from: y));")),
        ]
    });
    prop::collection::vec(dstmt, 1..3).prop_map(|v| format!("{CLEAN_SIG} {{ let mut s: f64 = 0.0; {} s }}", v.join(" "))).boxed()
}

/// Items a directive can be put on, for the argument fuzzing.
const ITEM_TEMPLATES: &[&str] = &[
    "fn saxpy(a: f64, x: &[f64], y: &mut [f64]) { for i in 0..y.len() { y[i] += a * x[i]; } }",
    "fn dot(x: &[f64], y: &[f64], n: usize) -> f64 { let mut s: f64 = 0.0; for i in 0..n { s += x[i] * y[i]; } s }",
    "fn mm(n: usize, a: &[f64], b: &mut [f64]) { for i in 0..n { for j in 0..n { b[i * n + j] = a[j * n + i]; } } }",
    "fn hist(x: &[usize], h: &mut [u32]) { for i in 0..x.len() { #[omp::atomic] h[x[i]] += 1; } }",
    "fn crit(n: usize, y: &mut [f64]) { let mut s: f64 = 0.0; for i in 0..n { #[omp::critical] { s += y[i]; } } }",
    "fn body(n: usize, y: &mut [f64]) { for i in 0..n { y[i] = 1.0; } for i in 0..n { y[i] = 2.0; } }",
    "fn t(n: usize, y: &mut [f64]) { #[omp::teams_distribute_parallel_for] for i in 0..n { y[i] = 1.0; } }",
    "fn dev(b: &mut omp::DeviceBuffer<f64>, n: usize) { for i in 0..n { b[i] = 0.0; } }",
    "fn nothing() {}",
    "y[i] += 1.0;",
    "{ y[0] = 1.0; }",
    "for i in 0..n { y[i] = x[i]; }",
    "let v = y[i];",
    "s = s.max(x[i]);",
    "struct P { x: f64 }",
    "const C: usize = 4;",
    "mod m { fn f() {} }",
    "impl P { fn f() { for i in 0..4 {} } }",
];

// ------------------------------------------------------------------------------------------------------------
// The cases.
// ------------------------------------------------------------------------------------------------------------

/// Where the arbitrary item tokens go.
#[derive(Debug, Clone, Copy)]
enum Wrap {
    /// They are the item.
    None,
    /// `fn f(x: &[f64], y: &mut [f64], n: usize) { for i in 0..n { TOKENS } }`
    LoopBody,
    /// `fn f(x: &[f64], y: &mut [f64], n: usize, s: f64) { TOKENS }`
    FnBody,
}

/// Arbitrary tokens for both the arguments and the item.
#[derive(Debug, Clone)]
struct ArbitraryCase {
    name: String,
    args: Vec<Tok>,
    wrap: Wrap,
    item: Vec<Tok>,
}

impl ArbitraryCase {
    fn item_tokens(&self) -> TokenStream {
        let inner = to_stream(&self.item);
        match self.wrap {
            Wrap::None => inner,
            Wrap::LoopBody => quote!(fn f(x: &[f64], y: &mut [f64], n: usize) { for i in 0..n { #inner } }),
            Wrap::FnBody => quote!(fn f(x: &[f64], y: &mut [f64], n: usize, s: f64) { #inner }),
        }
    }
}

impl Describe for ArbitraryCase {
    fn exercise(&self, stats: &Stats) -> Result<(), Caught> {
        exercise_all(&self.name, &to_stream(&self.args), &self.item_tokens(), true, stats)
    }
    fn describe(&self) -> String {
        format!("  name: {}\n  args: {}\n  item: {}\n  (as data: {:?})", self.name, to_stream(&self.args), self.item_tokens(), self)
    }
}

/// Generated text (arguments and item), each with token-level mutations.
#[derive(Debug, Clone)]
struct TextCase {
    name: String,
    args: String,
    args_mutations: Vec<Mutation>,
    item: String,
    item_mutations: Vec<Mutation>,
}

impl Describe for TextCase {
    fn exercise(&self, stats: &Stats) -> Result<(), Caught> {
        exercise_all(&self.name, &mutated(&self.args, &self.args_mutations), &mutated(&self.item, &self.item_mutations), false, stats)
    }
    fn describe(&self) -> String {
        format!(
            "  name: {}\n  args: {}\n  item: {}\n  (as data: {:?})",
            self.name,
            mutated(&self.args, &self.args_mutations),
            mutated(&self.item, &self.item_mutations),
            self
        )
    }
}

fn mutations(max: usize) -> BoxedStrategy<Vec<Mutation>> {
    prop_oneof![
        2 => Just(Vec::new()),
        1 => prop::collection::vec(mutation(), 1..=max),
    ]
    .boxed()
}

fn arbitrary_case() -> impl Strategy<Value = ArbitraryCase> {
    (
        any_name(),
        prop::collection::vec(tok_tree(), 0..12),
        prop_oneof![
            3 => Just(Wrap::None),
            1 => Just(Wrap::LoopBody),
            1 => Just(Wrap::FnBody),
        ],
        prop::collection::vec(tok_tree(), 0..24),
    )
        .prop_map(|(name, args, wrap, item)| ArbitraryCase { name, args, wrap, item })
}

#[test]
fn arbitrary_token_streams() {
    run_property("arbitrary_token_streams", 0x9e37_79b9_7f4a_7c15, 1000, arbitrary_case());
}

#[test]
fn directive_arguments() {
    let strategy = (any_name(), clauses(), mutations(4), prop_oneof![4 => sel(ITEM_TEMPLATES), 1 => loop_fn()], mutations(1))
        .prop_map(|(name, args, args_mutations, item, item_mutations)| TextCase { name, args, args_mutations, item, item_mutations });
    run_property("directive_arguments", 0x2545_f491_4f6c_dd1d, 1000, strategy);
}

#[test]
fn loop_bodies() {
    let wild = (
        prop_oneof![8 => select(loop_constructs()).prop_map(String::from), 1 => any_name()],
        prop_oneof![3 => Just(String::new()), 2 => clauses()],
        loop_fn(),
        mutations(2),
    );
    let clean = (select(loop_constructs()), clean_loop_fn(), prop_oneof![3 => Just(Vec::new()), 1 => mutations(1)])
        .prop_map(|(name, (args, item), m)| (name.to_string(), allowed_only(name, &args), item, m));
    let strategy = prop_oneof![wild, clean].prop_map(|(name, args, item, item_mutations)| TextCase {
        name,
        args,
        args_mutations: Vec::new(),
        item,
        item_mutations,
    });
    run_property("loop_bodies", 0x5851_f42d_4c95_7f2d, 1000, strategy);
}

#[test]
fn directive_functions() {
    let strategy = (
        prop_oneof![4 => Just("target".to_string()), 2 => select(loop_constructs()).prop_map(String::from), 1 => any_name()],
        prop_oneof![3 => Just(String::new()), 1 => clauses()],
        prop_oneof![1 => directives_fn(), 1 => clean_directives_fn()],
        mutations(2),
    )
        .prop_map(|(name, args, item, item_mutations)| TextCase { name, args, args_mutations: Vec::new(), item, item_mutations });
    run_property("directive_functions", 0x1405_7b7e_f767_814f, 500, strategy);
}

// ------------------------------------------------------------------------------------------------------------
// Regression inputs (panics found by the properties above), run on every `cargo test`.
// ------------------------------------------------------------------------------------------------------------

fn expect_no_panic(name: &str, args: &str, item: &str) {
    install_hook();
    let args = TokenStream::from_str(args).expect("args lex");
    let item = TokenStream::from_str(item).expect("item lexes");
    let stats = Stats::default();
    if let Err(c) = exercise_all(name, &args, &item, true, &stats) {
        panic!("`{}` panicked: {} at {}\n  name: {name}\n  args: {args}\n  item: {item}", c.call, c.message, c.location);
    }
}

/// Inline format arguments that are not identifiers (`{x²}`) must not become `Ident`s.
#[test]
fn regression_format_string_with_non_identifier_argument() {
    expect_no_panic(
        "parallel_for",
        "",
        r#"fn f(x: &[f64], y: &mut [f64], n: usize) { for i in 0..n { println!("{} {}", "y = {x²}", y[i]); } }"#,
    );
}

/// Index arithmetic whose constants overflow i128 in the affine analysis.
#[test]
fn regression_index_constant_overflow() {
    expect_no_panic("parallel_for", "", "fn f(x: &[f64], y: &mut [f64], n: usize) { for i in 0..n { y[i * 10^20 * 10^20] = 1.0; } }");
}

/// A raw identifier as a critical name (`critical(r#type)`) became part of a generated identifier
/// (`__omp_cs_r#type`) and made `Ident::new` panic; body.rs now keeps the name unraw.
#[test]
fn regression_raw_critical_name() {
    for name in ["parallel_for", "target_teams_distribute_parallel_for"] {
        expect_no_panic(
            name,
            "",
            "fn f(y: &mut [f64], n: usize) { let mut s: f64 = 0.0; for i in 0..n { #[omp::critical(r#type)] { s += y[i]; } } }",
        );
    }
}

/// Raw identifiers (`r#type`) of the user's code spliced into generated names (`__omp_w_r#type`) or re-created
/// with `Ident::new("r#type")` panicked in lower/names.rs and lower/device.rs (found by `loop_bodies` and
/// `directive_functions`).
#[test]
fn regression_raw_identifiers() {
    let target = "target_teams_distribute_parallel_for";
    let cases: &[(&str, &str, &str)] = &[
        ("parallel_for", "", "fn f(r#type: &mut [f64], n: usize) { for i in 0..n { r#type[i] = 1.0; } }"),
        ("parallel_for", "", "fn f(r#type: &mut [u64], n: usize) { for i in 0..n { #[omp::atomic] r#type[0] += 1; } }"),
        ("parallel_for", "", "fn f(y: &mut [f64], n: usize) { for i in 0..n { for r#in in 0..2 { y[2 * i + r#in] = 1.0; } } }"),
        ("parallel_for", "reduction(+: r#type)", "fn f(x: &[f64], n: usize) -> f64 { let mut r#type: f64 = 0.0; for i in 0..n { r#type += x[i]; } r#type }"),
        (target, "", "fn f(n: usize) { for r#type in 0..n {} }"),
        (target, "", "fn f(r#in: &[f64], y: &mut [f64], n: usize) { for i in 0..n { y[i] = r#in[i]; } }"),
        (target, "", "fn f(r#type: &mut [u64], n: usize) { for i in 0..n { #[omp::atomic] r#type[0] += 1; } }"),
        (target, "reduction(+: r#type)", "fn f(x: &[f64], n: usize) -> f64 { let mut r#type: f64 = 0.0; for i in 0..n { r#type += x[i]; } r#type }"),
        (target, "map(to: r#in[0..n])", "fn f(r#in: &[f64], y: &mut [f64], n: usize) { for i in 0..n { y[i] = r#in[i]; } }"),
        ("target", "", "fn f(r#in: &mut [f64], n: usize) { #[omp::target_data(map(tofrom: r#in))] { #[omp::teams_distribute_parallel_for] for i in 0..n { r#in[i] = 1.0; } omp::target_update!(from: r#in); } }"),
    ];
    for (name, args, item) in cases {
        expect_no_panic(name, args, item);
    }
}

/// Replays one input from the environment (for minimising a panic by hand):
/// `OMP_RS_FUZZ_REPLAY_NAME=parallel_for OMP_RS_FUZZ_REPLAY_ARGS='collapse(2)' OMP_RS_FUZZ_REPLAY_ITEM='fn f() {}'
/// cargo test -p omp-rs-codegen --test fuzz replay -- --nocapture`. Does nothing without `OMP_RS_FUZZ_REPLAY_ITEM`.
#[test]
fn replay() {
    let Ok(item) = std::env::var("OMP_RS_FUZZ_REPLAY_ITEM") else { return };
    let name = std::env::var("OMP_RS_FUZZ_REPLAY_NAME").unwrap_or_else(|_| "parallel_for".to_string());
    let args = std::env::var("OMP_RS_FUZZ_REPLAY_ARGS").unwrap_or_default();
    expect_no_panic(&name, &args, &item);
    // The errors the attribute reports (or its whole expansion with OMP_RS_FUZZ_REPLAY_SHOW=all).
    let out = expand::attribute(&name, TokenStream::from_str(&args).expect("args lex"), TokenStream::from_str(&item).expect("item lexes"));
    if std::env::var("OMP_RS_FUZZ_REPLAY_SHOW").is_ok_and(|v| v == "all") {
        eprintln!("expansion: {out}");
    }
    let tokens: Vec<TokenTree> = out.into_iter().collect();
    for w in tokens.windows(3) {
        if let (TokenTree::Ident(i), TokenTree::Group(g)) = (&w[0], &w[2]) {
            if i == "compile_error" {
                eprintln!("error: {}", g.stream());
            }
        }
    }
}
