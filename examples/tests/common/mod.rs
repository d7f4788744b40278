//! Helpers shared by the examples' integration tests.

use std::path::{Path, PathBuf};

/// The binary of example `name`, which `cargo test` builds next to the test binaries' directory.
pub(crate) fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let p = dir.join("examples").join(name);
    assert!(p.is_file(), "example binary {} not built (cargo test builds examples)", p.display());
    p
}
