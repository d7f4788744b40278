//! Directive model of omp-rs.
