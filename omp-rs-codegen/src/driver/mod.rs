//! The entry points: the attribute and function-like macros (`expand`, `standalone`, `declare_reduction`) and
//! the build helper's walk (`outline`), which run the stages in order.

pub mod declare_reduction;
pub mod expand;
pub mod outline;
pub(crate) mod standalone;
#[cfg(test)]
mod tests;
