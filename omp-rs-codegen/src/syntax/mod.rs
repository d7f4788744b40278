//! Syntax: directive and clause spellings, the attribute parser and its cross-clause checks, the statement
//! directives of a loop body, canonical loop nests, place expressions and token helpers.

pub mod body;
pub mod check;
pub mod keyword;
pub mod loops;
pub mod parse;
pub mod place;
pub(crate) mod tokens;
