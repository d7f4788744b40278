//! Prints what `#[omp::directives]` makes of a function, for reading the host lowering (bounds-check hoisting,
//! disjointness checks, team calls) without a proc-macro expander:
//!
//!     cargo run -q -p omp-rs-codegen --example expand -- path/to/fn.rs | rustfmt --edition 2021
//!
//! The file holds one function whose loops carry `#[omp::...]` directives.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: expand FILE.rs (one function with #[omp::...] loops)");
        std::process::exit(2);
    };
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let item: proc_macro2::TokenStream = src.parse().unwrap_or_else(|e| panic!("{path} is not Rust tokens: {e}"));
    println!("{}", omp_rs_codegen::driver::expand::directives(proc_macro2::TokenStream::new(), item));
}
