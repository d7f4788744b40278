//! The directive model of omp-rs, shared by the proc macros (`omp-rs-macros`) and the build helper
//! (`omp-rs-build`) so that both derive kernel names, argument order and layouts from one place.
//!
//! The modules are stages, and a stage imports only the stages before it in this list (the module graph has no
//! cycle):
//!
//! | stage | what | may import |
//! |---|---|---|
//! | `names` | the names expansions give hidden locals and rewritten code, and how messages show them | nothing |
//! | `ctxt` | the error collector | `names` |
//! | `model` | the typed directive model | nothing |
//! | `syntax` | spellings, the attribute parser and its checks, body directives, loop nests, places | the above |
//! | `analyze` | captures, data sharing, race freedom, affine indices, types, name resolution | the above |
//! | `desugar` | rewrites before the analysis and lowering (fields, ndarrays, SPMD, scans, `nowait`, ..) | the above |
//! | `plan` | a target region's kernel: the plan, ABI names and slots, the manifest, what it copies | the above but `desugar` |
//! | `lower` | host code, device kernels, the launch | the above but `desugar` |
//! | `driver` | the entry points of the macros and the outliner | everything |
//!
//! `model` comes before `syntax` because the parser produces it. The rewrites run before the analysis of the code
//! they rewrite but use its tools (the type environment, the capture walk; `nowait` its result), so `desugar`
//! imports `analyze`; the analyses and lowerings know of the rewrites only the names they make (`names`).
//!
//! Other crates name items by their stage path (`driver::expand::directives`, `plan::manifest::Refusal`,
//! `plan::kernel::MapDecision`); there are no re-exports at the root, so a path says which stage an item is of.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod analyze;
pub(crate) mod ctxt;
pub(crate) mod desugar;
pub mod driver;
pub(crate) mod lower;
pub mod model;
pub(crate) mod names;
pub mod plan;
pub mod syntax;
