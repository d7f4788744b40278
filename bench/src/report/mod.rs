//! Results: the JSON schema shared with the CUDA baseline ([`schema`]), checksum checks
//! ([`mod@check`]), merging result files ([`mod@merge`]), aggregates ([`summary`]) and the
//! Markdown/SVG renderers ([`markdown`], [`plot`]).

pub mod check;
pub mod markdown;
pub mod merge;
pub mod plot;
pub mod schema;
pub mod summary;

pub use check::{check, checksum_reference, Check, CheckStatus};
pub use merge::merge;
pub use schema::{Ceiling, Record, ResultFile, SCHEMA};
pub use summary::{geomean_ratio, kernels_of, variants_of};

#[cfg(test)]
mod test;
