//! Helpers shared by the build tests: writing the files of a throw-away package.

use std::path::Path;

/// Writes `text` to `root/rel`, making its folders.
pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}
