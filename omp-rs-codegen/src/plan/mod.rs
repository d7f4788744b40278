//! A target region's kernel as both sides of the offload boundary see it: the plan (`kernel`), kernel names and
//! argument slots (`abi`), generic instances (`generic`), the items the kernel copies and the host confirms
//! (`copies`), the build's manifest (`manifest`) and struct table (`struct_table`).

pub mod abi;
pub(crate) mod copies;
pub(crate) mod generic;
pub mod kernel;
pub mod manifest;
pub mod struct_table;
