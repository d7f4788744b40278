//! What a target region's kernel is.

pub mod abi;
pub mod copies;
pub mod generic;
pub mod kernel;
pub mod manifest;
pub mod struct_table;
