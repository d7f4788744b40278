//! Content-addressed cache directories under `$OMP_RS_HOME`, shared by concurrent builds.
//!
//! An entry `<root>/<key>/` is built at most once: builders take an exclusive file lock on
//! `<root>/<key>.lock`, build into `<root>/.tmp-<key>-<pid>/`, mark it complete and rename it into
//! place. A killed build leaves only a `.tmp-*` directory (removed by the next builder), never a
//! half-filled entry.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Marker written last into a finished entry.
const COMPLETE: &str = ".complete";

/// Hex SHA-256 (first 16 digits) over length-prefixed parts.
pub(crate) fn key(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    let d = h.finalize();
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Returns `<root>/<name>`, running `build` into a fresh directory first if the entry does not
/// exist yet. The `bool` is `true` when this call built it.
pub(crate) fn get_or_build(root: &Path, name: &str, build: impl FnOnce(&Path) -> Result<()>) -> Result<(PathBuf, bool)> {
    let entry = root.join(name);
    if entry.join(COMPLETE).is_file() {
        return Ok((entry, false));
    }
    fs::create_dir_all(root).map_err(Error::io("creating cache directory", root))?;
    let lock_path = root.join(format!("{name}.lock"));
    let lock =
        OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(Error::io("opening lock file", &lock_path))?;
    // Blocks while another build script builds the same entry.
    fs4::fs_std::FileExt::lock_exclusive(&lock).map_err(Error::io("locking", &lock_path))?;
    let result = build_locked(root, name, &entry, build);
    // Unlocks on close too; an explicit unlock just makes the order obvious.
    let _ = fs4::fs_std::FileExt::unlock(&lock);
    drop::<File>(lock);
    result
}

fn build_locked(root: &Path, name: &str, entry: &Path, build: impl FnOnce(&Path) -> Result<()>) -> Result<(PathBuf, bool)> {
    if entry.join(COMPLETE).is_file() {
        return Ok((entry.to_path_buf(), false));
    }
    // Leftovers of killed builds of this entry (we hold the lock, so none is running).
    let prefix = format!(".tmp-{name}-");
    if let Ok(rd) = fs::read_dir(root) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
    let tmp = root.join(format!("{prefix}{}", std::process::id()));
    fs::create_dir_all(&tmp).map_err(Error::io("creating", &tmp))?;
    if let Err(e) = build(&tmp) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    fs::write(tmp.join(COMPLETE), b"").map_err(Error::io("writing", tmp.join(COMPLETE)))?;
    if entry.exists() {
        fs::remove_dir_all(entry).map_err(Error::io("removing incomplete cache entry", entry))?;
    }
    fs::rename(&tmp, entry).map_err(Error::io("publishing cache entry", entry))?;
    Ok((entry.to_path_buf(), true))
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn builds_once_and_survives_failures() {
        let root = std::env::temp_dir().join(format!("omp-rs-cache-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        // a failed build leaves nothing behind
        let r = get_or_build(&root, "k1", |d| {
            fs::write(d.join("half"), b"x").unwrap();
            Err(Error::Unexpected("boom".into()))
        });
        assert!(r.is_err());
        assert!(!root.join("k1").exists());
        // a killed build's leftovers are cleaned
        fs::create_dir_all(root.join(".tmp-k1-999999")).unwrap();
        let (p, built) = get_or_build(&root, "k1", |d| fs::write(d.join("f"), b"1").map_err(Error::io("w", d))).unwrap();
        assert!(built && p.join("f").is_file());
        assert!(!root.join(".tmp-k1-999999").exists());
        let (_, built) = get_or_build(&root, "k1", |_| panic!("must not rebuild")).unwrap();
        assert!(!built);
        // concurrent builders: exactly one builds
        let count = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    get_or_build(&root, "k2", |d| {
                        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        fs::write(d.join("f"), b"2").map_err(Error::io("w", d))
                    })
                    .unwrap();
                });
            }
        });
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_ne!(key(&[b"a", b"bc"]), key(&[b"ab", b"c"]));
        let _ = fs::remove_dir_all(&root);
    }
}
