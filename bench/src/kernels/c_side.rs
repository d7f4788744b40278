//! What the two C variants share: the kernels of `csrc/omp/*.c` reached through a table of entry points, and the
//! arrays handed to them through [`Maps`].
//!
//! - `c-omp` ([`COmp`]): the kernels compiled with `#pragma omp parallel for` and linked into omp-bench; arrays are
//!   passed as they are.
//! - `c-omp-target` ([`COmpTarget`]): the same sources with `#pragma omp target teams distribute parallel for`,
//!   built by GCC's NVPTX offload into `libomp_bench_gcc_target.so` (build.rs) and loaded at run time, because
//!   GCC makes its offload images when the gcc driver links, which cargo's link of omp-bench is not. Each kernel's
//!   arrays are mapped before its timer starts and unmapped (outputs copied back) after it stopped, as RAJAPerf's
//!   Base_OpenMPTarget keeps its data on the device around the timed rep loop. The library is found in
//!   `OMP_BENCH_GCC_TARGET_DIR`, else next to the executable, else where build.rs wrote it.
//! - `c-omp-target-simd` ([`COmpTargetSimd`]): the same with `simd` added to every loop construct
//!   (`libomp_bench_gcc_target_simd.so`), see [`Spelling`].
//!
//! Each group's `c_omp.rs` declares its entry points with [`c_fns!`] and implements its kernels once, for every
//! [`CSide`].

use std::ffi::c_void;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::{LazyLock, OnceLock};

use crate::variant::{COmp, COmpTarget, COmpTargetSimd, Unsupported};

/// A table of C entry points: the struct, [`linked`](Self) (the symbols linked into omp-bench) and `load` (the
/// same symbols from the c-omp-target library). Written like an `extern "C"` block.
macro_rules! c_fns {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $(fn $f:ident($($a:ident: $t:ty),* $(,)?);)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy)]
        $vis struct $name {
            $(pub(crate) $f: unsafe extern "C" fn($($t),*),)*
        }

        impl $name {
            /// The kernels linked into omp-bench (c-omp).
            pub(crate) fn linked() -> Self {
                extern "C" {
                    $(fn $f($($a: $t),*);)*
                }
                Self { $($f,)* }
            }

            /// The same kernels from the c-omp-target library.
            pub(crate) fn load(lib: &libloading::Library) -> Result<Self, libloading::Error> {
                // SAFETY: the library is built from the same C sources as the linked kernels (csrc/omp with
                // -DOMP_BENCH_TARGET, build.rs), so every symbol has the signature declared here.
                unsafe { Ok(Self { $($f: *lib.get(concat!(stringify!($f), "\0").as_bytes())?,)* }) }
            }
        }
    };
}
pub(crate) use c_fns;

/// Every group's entry points.
pub(crate) struct CFns {
    pub(crate) stream: super::stream::c_omp::Fns,
    pub(crate) basic: super::basic::c_omp::Fns,
    pub(crate) lcals: super::lcals::c_omp::Fns,
    pub(crate) polybench: super::polybench::c_omp::Fns,
    pub(crate) apps: super::apps::c_omp::Fns,
}

impl CFns {
    fn linked() -> CFns {
        use super::*;
        CFns {
            stream: stream::c_omp::Fns::linked(),
            basic: basic::c_omp::Fns::linked(),
            lcals: lcals::c_omp::Fns::linked(),
            polybench: polybench::c_omp::Fns::linked(),
            apps: apps::c_omp::Fns::linked(),
        }
    }

    fn load(lib: &libloading::Library) -> Result<CFns, libloading::Error> {
        use super::*;
        Ok(CFns {
            stream: stream::c_omp::Fns::load(lib)?,
            basic: basic::c_omp::Fns::load(lib)?,
            lcals: lcals::c_omp::Fns::load(lib)?,
            polybench: polybench::c_omp::Fns::load(lib)?,
            apps: apps::c_omp::Fns::load(lib)?,
        })
    }
}

/// A C variant: where its entry points come from and how arrays reach them.
pub(crate) trait CSide: Sync {
    /// The entry points, or `Unsupported` when the variant cannot run here (the reason is printed once).
    fn fns(&self) -> Result<&'static CFns, Unsupported>;
    /// The mappings of one kernel run (see [`Maps`]).
    fn maps<'a>(&self) -> Maps<'a>;
}

impl CSide for COmp {
    fn fns(&self) -> Result<&'static CFns, Unsupported> {
        static LINKED: LazyLock<CFns> = LazyLock::new(CFns::linked);
        Ok(&LINKED)
    }

    fn maps<'a>(&self) -> Maps<'a> {
        Maps { target: None, mapped: Vec::new(), arrays: PhantomData }
    }
}

impl CSide for COmpTarget {
    fn fns(&self) -> Result<&'static CFns, Unsupported> {
        target_library(Spelling::Loop).map(|l| &l.fns)
    }

    fn maps<'a>(&self) -> Maps<'a> {
        Maps { target: target_library(Spelling::Loop).ok(), mapped: Vec::new(), arrays: PhantomData }
    }
}

impl CSide for COmpTargetSimd {
    fn fns(&self) -> Result<&'static CFns, Unsupported> {
        target_library(Spelling::Simd).map(|l| &l.fns)
    }

    fn maps<'a>(&self) -> Maps<'a> {
        Maps { target: target_library(Spelling::Simd).ok(), mapped: Vec::new(), arrays: PhantomData }
    }
}

/// The loaded c-omp-target library.
struct TargetLibrary {
    fns: CFns,
    on_device: bool,
    enter: unsafe extern "C" fn(*const c_void, usize),
    exit: unsafe extern "C" fn(*const c_void, usize, i32),
    // Keeps the code of the pointers above loaded.
    _lib: libloading::Library,
}

/// The two spellings of the GCC peer: `target teams distribute parallel for` as written (c-omp-target), and
/// with `simd` added (c-omp-target-simd), which GCC needs to run a loop on every lane of a warp: without it, an
/// OpenMP thread of GCC's NVPTX runtime is a whole warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    Loop,
    Simd,
}

impl Spelling {
    fn variant(self) -> &'static str {
        match self {
            Spelling::Loop => "c-omp-target",
            Spelling::Simd => "c-omp-target-simd",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Spelling::Loop => "libomp_bench_gcc_target.so",
            Spelling::Simd => "libomp_bench_gcc_target_simd.so",
        }
    }

    /// Where to look for the library, in order: `OMP_BENCH_GCC_TARGET_DIR`, the executable's folder, build.rs's.
    fn candidates(self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::env::var_os("OMP_BENCH_GCC_TARGET_DIR").map(PathBuf::from).into_iter().collect();
        dirs.extend(std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())));
        dirs.push(PathBuf::from(env!("OMP_BENCH_GCC_TARGET_DIR")));
        dirs.into_iter().map(|d| d.join(self.file())).collect()
    }
}

fn target_library(spelling: Spelling) -> Result<&'static TargetLibrary, Unsupported> {
    static LIBS: [OnceLock<Result<TargetLibrary, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let lib = LIBS[spelling as usize].get_or_init(|| {
        let candidates = spelling.candidates();
        let path =
            candidates.iter().find(|p| p.is_file()).ok_or_else(|| format!("{} not found (looked at {candidates:?})", spelling.file()))?;
        // SAFETY: the library's initialisers are libgomp's offload-image registration, which runs once.
        let lib = unsafe { libloading::Library::new(&path) }.map_err(|e| format!("{}: {e}", path.display()))?;
        let fns = CFns::load(&lib).map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: signatures of csrc/omp-target/map.c.
        let (enter, exit, on_host) = unsafe {
            (
                *lib.get::<unsafe extern "C" fn(*const c_void, usize)>(b"ompbench_target_enter\0").map_err(|e| e.to_string())?,
                *lib.get::<unsafe extern "C" fn(*const c_void, usize, i32)>(b"ompbench_target_exit\0").map_err(|e| e.to_string())?,
                *lib.get::<unsafe extern "C" fn() -> i32>(b"ompbench_target_on_host\0").map_err(|e| e.to_string())?,
            )
        };
        // SAFETY: a target region that writes one mapped int.
        let on_device = unsafe { on_host() } == 0;
        let where_ = if on_device { "an offload device" } else { "the host (no offload device)" };
        eprintln!(
            "{}: {} (GCC offload: {}), target regions run on {where_}",
            spelling.variant(),
            path.display(),
            env!("OMP_BENCH_GCC_TARGET_OFFLOAD")
        );
        Ok(TargetLibrary { fns, on_device, enter, exit, _lib: lib })
    });
    lib.as_ref().map_err(|why| {
        static SAID: [OnceLock<()>; 2] = [OnceLock::new(), OnceLock::new()];
        SAID[spelling as usize].get_or_init(|| eprintln!("{} unavailable: {why}", spelling.variant()));
        Unsupported
    })
}

/// Whether this spelling's regions run on an offload device (its library loaded, and libgomp found a device).
pub(crate) fn target_on_device(spelling: Spelling) -> bool {
    target_library(spelling).is_ok_and(|l| l.on_device)
}

/// The arrays of one kernel run. For c-omp, [`to`](Maps::to) and [`tofrom`](Maps::tofrom) return the host
/// pointers; for c-omp-target they also map the array onto the device (copied in now), and dropping the `Maps`
/// unmaps them, copying the `tofrom` ones back. Create it, take the pointers, then start the timer. The arrays
/// stay borrowed for `'a`, so they outlive their mappings.
pub(crate) struct Maps<'a> {
    target: Option<&'static TargetLibrary>,
    mapped: Vec<(*const c_void, usize, bool)>,
    arrays: PhantomData<&'a mut ()>,
}

impl<'a> Maps<'a> {
    /// An input array.
    pub(crate) fn to<T>(&mut self, s: &'a [T]) -> *const T {
        self.map(s.as_ptr().cast(), std::mem::size_of_val(s), false);
        s.as_ptr()
    }

    /// An array the kernel writes (and may read).
    pub(crate) fn tofrom<T>(&mut self, s: &'a mut [T]) -> *mut T {
        self.map(s.as_ptr().cast(), std::mem::size_of_val(s), true);
        s.as_mut_ptr()
    }

    fn map(&mut self, p: *const c_void, bytes: usize, copy_out: bool) {
        if let Some(t) = self.target {
            // SAFETY: `p..p + bytes` is a slice borrowed for `'a`, which outlives this `Maps`; it is unmapped
            // in `drop`.
            unsafe { (t.enter)(p, bytes) };
            self.mapped.push((p, bytes, copy_out));
        }
    }
}

impl Drop for Maps<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.target {
            for &(p, bytes, copy_out) in self.mapped.iter().rev() {
                // SAFETY: mapped by `map` above; the slice is still borrowed (`'a`).
                unsafe { (t.exit)(p, bytes, i32::from(copy_out)) };
            }
        }
    }
}
