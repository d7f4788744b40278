//! Procedural macros of omp-rs.
