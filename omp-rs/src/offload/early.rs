//! Device start-up before `main`, as clang's offload binaries do it (they register their images with libomptarget
//! in a global constructor, which initialises the devices): every expansion that embeds the crate's image set also
//! puts a constructor into the binary's `.init_array` ([`__omp_start_early!`](crate::__omp_start_early)), and the
//! first one to run registers its set. A program whose first region sits inside its own timer (or after MPI's
//! start-up) then does not pay the driver's initialisation there — 0.2-0.3 s for CUDA on the H200.
//!
//! The default device's queue is opened and the set's program loaded there too (`queue::preload`), so the
//! first launch does not pay liboffload's program load either. Nothing is decided early that the first region
//! would decide otherwise: registration reads no policy, a failure
//! (no device, no image that fits) is kept and met again by the first region, which then runs on the host or
//! reports it as it always does. `OMP_TARGET_OFFLOAD=DISABLED` (libomptarget is never loaded) and
//! `OMP_RS_DEVICE_START=first-region` leave the start-up to the first region. Linux only (`.init_array`); elsewhere
//! the devices start at the first region.

use std::sync::Once;

use super::device::Device;
use super::registry::ImageSet;
use super::{policy, queue, registry};

/// Registers `set` (and so starts the devices) once per process, from a constructor. Never panics: a panic in a
/// constructor would abort the process before `main`.
pub fn start_early(set: &'static ImageSet) {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        if !policy::devices_start_early() {
            return;
        }
        let _ = std::panic::catch_unwind(|| {
            if let Ok(rt) = registry::runtime() {
                if let Ok(reg) = registry::ensure_registered(set) {
                    // The default device's program too (the device a region without `device(..)` uses).
                    let device = super::device::get_default_device();
                    if (0..rt.rt.num_devices()).contains(&device) {
                        queue::preload(Device(device), reg);
                    }
                }
            }
        });
    });
}

/// Puts a constructor that calls [`start_early`] with the image set `$set` (a `static` in scope) into the binary.
/// For macro expansions (`omp-rs-codegen` emits it beside every `static __OMP_IMAGES`).
#[doc(hidden)]
#[macro_export]
macro_rules! __omp_start_early {
    ($set:ident) => {
        #[cfg(target_os = "linux")]
        #[used]
        // SAFETY: `.init_array` holds `extern "C" fn()` pointers that the dynamic loader calls once before `main`;
        // this is one, and what it calls catches every panic (none unwinds out of it) and needs nothing `main` sets
        // up (the environment is readable; libomptarget is loaded with `dlopen`, allowed in a constructor).
        #[unsafe(link_section = ".init_array")]
        static __OMP_START_EARLY: extern "C" fn() = {
            extern "C" fn start() {
                $crate::__private::offload::start_early(&$set);
            }
            start
        };
    };
}
