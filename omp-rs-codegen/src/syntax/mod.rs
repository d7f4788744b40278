//! Syntax: the directive and clause spellings (`keyword`), the attribute parser (`parse`) and its cross-clause
//! checks (`check`), the statement directives of a loop body (`body`), canonical loop nests (`loops`), place
//! expressions (`place`) and token helpers. Imports `model`, `ctxt` and `names` only.

pub mod body;
pub(crate) mod check;
pub mod keyword;
pub(crate) mod loops;
pub(crate) mod parse;
pub(crate) mod place;
pub(crate) mod tokens;
