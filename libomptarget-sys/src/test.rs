//! Unit tests: layouts are asserted at compile time in `types.rs`; these check discovery and the loaded library.
use super::*;

#[test]
fn version_is_read_from_the_file_name() {
    assert_eq!(parse_version(Path::new("/usr/lib/llvm-22/lib/libomptarget.so.22.1")), Some((22, 1)));
    assert_eq!(parse_version(Path::new("libomptarget.so.20")), Some((20, 0)));
    assert_eq!(parse_version(Path::new("/x/libomptarget.so")), None);
    assert_eq!(parse_version(Path::new("/x/libfoo.so.22.1")), None);
}

#[test]
fn load_of_a_missing_path_lists_it_and_names_the_variable() {
    let err = Lib::load("/nonexistent/libomptarget.so.22.1").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("/nonexistent/libomptarget.so.22.1"), "{msg}");
    assert!(msg.contains(ENV_PATH), "{msg}");
    match err {
        LoadError::NotFound { searched } => assert_eq!(searched.len(), 1),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_library_without_the_entry_points_is_rejected_by_symbol() {
    // libc is always loadable and has none of the __tgt_* entry points.
    let err = Lib::load("libc.so.6").unwrap_err();
    match &err {
        LoadError::MissingSymbol { symbol, .. } => assert_eq!(*symbol, SYMBOLS[0]),
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("__tgt_register_lib"));
}

#[test]
fn default_candidates_cover_loader_names_and_install_dirs() {
    let c = search_candidates();
    for name in LOADER_NAMES {
        assert!(c.iter().any(|x| x == name), "{name} missing from {c:?}");
    }
    assert!(c.iter().any(|x| x == "/usr/lib/llvm-22/lib/libomptarget.so.22.1"));
    assert!(c.iter().any(|x| x == "/usr/lib/llvm-20/lib/libomptarget.so"));
}

/// Runs where libomptarget is installed (CI has liboffload-22); skipped with a message elsewhere.
#[test]
fn system_library_loads_with_every_symbol_and_a_supported_version() {
    let lib = match Lib::search() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("skipping: {e}");
            return;
        }
    };
    if let Some((major, _)) = lib.version() {
        assert!(major >= MIN_LLVM_MAJOR);
    }
    assert!(lib.path().to_string_lossy().contains("libomptarget"));
    // __tgt_rtl_init must precede queries; afterwards the device count is a small non-negative number.
    // SAFETY: both are argument-free entry points of the loaded library, called in the documented order.
    let n = unsafe {
        (lib.rtl_init)();
        (lib.get_num_devices)()
    };
    assert!((0..1024).contains(&n), "{n}");
    // SAFETY: as above.
    assert_eq!(unsafe { (lib.get_initial_device)() }, n, "initial device == device count");
}
