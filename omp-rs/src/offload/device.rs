//! Device selection and the OpenMP device queries.
//!
//! Device numbers are libomptarget's: `0..omp_get_num_devices()`, counting the devices whose plugin accepted a
//! registered image (as in a clang-built program). `omp_get_initial_device()` (= the count) names the host.
//! Every number is validated here, so libomptarget never sees an invalid one (it would abort).

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use super::policy::{self, Policy};
use super::registry::{self, Family};
use crate::Error;

/// A validated offload device number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device(pub(crate) i32);

impl Device {
    /// The device number.
    pub fn num(self) -> i32 {
        self.0
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "device {}", self.0)
    }
}

/// Why a region or mapping runs on the host instead of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostReason {
    /// `if(false)`.
    IfFalse,
    /// `OMP_TARGET_OFFLOAD=DISABLED`.
    Disabled,
    /// `device(n)` named the initial (host) device.
    InitialDevice,
    /// libomptarget could not be loaded (message).
    NoLibrary(String),
    /// No device is usable (message).
    NoDevice(String),
    /// No image of this region fits the devices (message).
    NoImage(String),
    /// libomptarget declined the launch (`__tgt_target_kernel` returned -1).
    NotOffloaded,
}

impl fmt::Display for HostReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostReason::IfFalse => f.write_str("if(false)"),
            HostReason::Disabled => f.write_str("OMP_TARGET_OFFLOAD=DISABLED"),
            HostReason::InitialDevice => f.write_str("device(n) is the initial device"),
            HostReason::NoLibrary(m) => write!(f, "libomptarget unavailable: {}", m.lines().next().unwrap_or("")),
            HostReason::NoDevice(m) => write!(f, "no device: {m}"),
            HostReason::NoImage(m) => write!(f, "no image: {m}"),
            HostReason::NotOffloaded => f.write_str("libomptarget declined the launch (returned -1)"),
        }
    }
}

/// Where a region or mapping goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Offload to this device.
    Offload(Device),
    /// Run on the host, for this reason.
    Host(HostReason),
}

/// Resolve a device request under the policy, without any image (data mappings, `DeviceBuffer`).
///
/// `device = None` means the default device. Under `MANDATORY` every reason to stay on the host except an
/// explicit `if(false)`/initial device is an error; under `DEFAULT` it is a [`Decision::Host`].
///
/// # Errors
/// [`Error::InvalidDevice`] for a number out of range (any policy); [`Error::NoDevice`] /
/// [`Error::LibraryNotFound`] under `MANDATORY`.
pub(crate) fn resolve(device: Option<i64>, if_cond: bool) -> Result<Decision, Error> {
    if !if_cond {
        return Ok(Decision::Host(HostReason::IfFalse));
    }
    let pol = policy::policy();
    if pol == Policy::Disabled {
        return Ok(Decision::Host(HostReason::Disabled));
    }
    let rtm = match registry::runtime() {
        Ok(r) => r,
        Err(e) if pol == Policy::Mandatory => return Err(e),
        Err(e) => return Ok(Decision::Host(HostReason::NoLibrary(e.to_string()))),
    };
    let n = rtm.rt.num_devices();
    let dev = match device {
        Some(d) => d,
        None => i64::from(default_device_num()),
    };
    if dev == i64::from(n) && (device.is_some() || default_override().is_some()) {
        return Ok(Decision::Host(HostReason::InitialDevice));
    }
    if n == 0 {
        let reason = format!("0 offload devices ({}; a device counts once an image for it is registered)", rtm.devices_text());
        return if pol == Policy::Mandatory {
            Err(Error::NoDevice { policy: pol, reason })
        } else {
            Ok(Decision::Host(HostReason::NoDevice(reason)))
        };
    }
    if dev < 0 || dev >= i64::from(n) {
        return Err(Error::InvalidDevice { device: dev, num_devices: n });
    }
    Ok(Decision::Offload(Device(dev as i32)))
}

/// `device(n)` with validation: the device, or an error naming the valid range. Unlike [`resolve`], staying on
/// the host is an error here too (`NoDevice`), whatever the policy.
///
/// # Errors
/// [`Error::InvalidDevice`], [`Error::NoDevice`], [`Error::LibraryNotFound`].
pub fn device(n: i64) -> Result<Device, Error> {
    match resolve(Some(n), true)? {
        Decision::Offload(d) => Ok(d),
        Decision::Host(r) => Err(Error::NoDevice { policy: policy::policy(), reason: r.to_string() }),
    }
}

/// What [`set_default_device`] set (`i64::MIN`: nothing, the environment and libomp decide).
static DEFAULT_DEVICE: AtomicI64 = AtomicI64::new(i64::MIN);

fn default_override() -> Option<i64> {
    Some(DEFAULT_DEVICE.load(Ordering::Relaxed)).filter(|&d| d != i64::MIN)
}

/// `omp_set_default_device(n)`: the device of every region, data region and `DeviceBuffer` without a `device`
/// clause from now on. omp-rs keeps this ICV per process, not per thread: a port sets it once (e.g.
/// `rank % num_devices` in an MPI code) and its parallel loops' threads, which are omp-rs's own, follow it. `n`
/// equal to [`get_initial_device`] means the host; a number that is no device is reported by the first region
/// that uses it ([`Error::InvalidDevice`]).
pub fn set_default_device(n: i32) {
    DEFAULT_DEVICE.store(i64::from(n), Ordering::Relaxed);
}

fn default_device_num() -> i32 {
    if let Some(d) = default_override() {
        return d as i32;
    }
    match registry::runtime_if_loaded() {
        Some(r) => r.rt.default_device(),
        None => policy::default_device_env().and_then(|d| i32::try_from(d).ok()).unwrap_or(0),
    }
}

/// `omp_get_num_devices()`: offload devices usable by this process (0 when offload is disabled or libomptarget
/// is missing). Devices count once an image for them has been registered (first use of a region, or
/// [`register`](crate::offload::register)).
pub fn get_num_devices() -> i32 {
    if policy::policy() == Policy::Disabled {
        return 0;
    }
    registry::runtime().map(|r| r.rt.num_devices()).unwrap_or(0)
}

/// `omp_get_default_device()`: what [`set_default_device`] set, else `OMP_DEFAULT_DEVICE`, else 0.
pub fn get_default_device() -> i32 {
    if let Some(d) = default_override() {
        return d as i32;
    }
    if policy::policy() == Policy::Disabled {
        return policy::default_device_env().and_then(|d| i32::try_from(d).ok()).unwrap_or(0);
    }
    default_device_num()
}

/// `omp_get_initial_device()`: the device number that means "the host" (equals [`get_num_devices`]).
pub fn get_initial_device() -> i32 {
    get_num_devices()
}

/// `omp_is_initial_device()`: whether this code runs on the host. Host code always does (device code is compiled
/// separately and never calls this function).
pub fn is_initial_device() -> bool {
    true
}

/// `omp_target_is_present`: whether the first element of `x` is mapped on `device`. The initial device always has
/// the data; an invalid device number or an empty slice gives `false`.
pub fn target_is_present<T>(x: &[T], device: i32) -> bool {
    if x.is_empty() {
        return false;
    }
    let n = get_num_devices();
    if device == n {
        return true;
    }
    if device < 0 || device > n {
        return false;
    }
    match registry::runtime() {
        Ok(r) => r.rt.is_present(x.as_ptr().cast(), device),
        Err(_) => false,
    }
}

/// Whether `device` (valid) belongs to the host plugin (kernels called once) rather than a GPU.
pub(crate) fn is_host_plugin(_device: Device) -> bool {
    registry::runtime_if_loaded().and_then(|r| r.family()) == Some(Family::Host)
}
