//! The offload policy: the only place that reads `OMP_TARGET_OFFLOAD`, `OMP_DEFAULT_DEVICE`, `OMP_RS_LOG` and
//! `OMP_RS_DEVICE_START`.
//!
//! Each variable is read once per process (the first time it is needed), as OpenMP's ICVs are. A bad value
//! gives one warning on stderr naming the variable and the accepted values, and the default is used.

use std::fmt;
use std::sync::OnceLock;

/// `OMP_TARGET_OFFLOAD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Unset or `DEFAULT`: offload when a device and an image for it exist, else run on the host.
    Default,
    /// `MANDATORY`: offload or return an error (never run a target region on the host silently).
    Mandatory,
    /// `DISABLED`: every target region runs on the host; libomptarget is never loaded.
    Disabled,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Default => "DEFAULT",
            Policy::Mandatory => "MANDATORY",
            Policy::Disabled => "DISABLED",
        })
    }
}

impl Policy {
    /// Parse a value of `OMP_TARGET_OFFLOAD` (case-insensitive, surrounding blanks ignored).
    pub fn parse(s: &str) -> Option<Policy> {
        match s.trim().to_ascii_uppercase().as_str() {
            "DEFAULT" | "" => Some(Policy::Default),
            "MANDATORY" => Some(Policy::Mandatory),
            "DISABLED" => Some(Policy::Disabled),
            _ => None,
        }
    }
}

/// The process's offload policy (reads `OMP_TARGET_OFFLOAD` on first call).
pub fn policy() -> Policy {
    static P: OnceLock<Policy> = OnceLock::new();
    *P.get_or_init(|| match std::env::var("OMP_TARGET_OFFLOAD") {
        Err(_) => Policy::Default,
        Ok(v) => Policy::parse(&v).unwrap_or_else(|| {
            eprintln!(
                "omp-rs: warning: OMP_TARGET_OFFLOAD={v:?} is not valid; accepted values are DEFAULT, MANDATORY \
                 and DISABLED (case-insensitive); using DEFAULT"
            );
            Policy::Default
        }),
    })
}

/// Whether the devices start before `main` (`early.rs`): unless `OMP_TARGET_OFFLOAD` says `DISABLED` or
/// `OMP_RS_DEVICE_START=first-region`. Read as the environment is when called, not cached: the constructor runs
/// before `main`, which may still set the variables for the rest of the process.
pub(crate) fn devices_start_early() -> bool {
    let disabled = std::env::var("OMP_TARGET_OFFLOAD").is_ok_and(|v| Policy::parse(&v) == Some(Policy::Disabled));
    let lazy = std::env::var("OMP_RS_DEVICE_START").is_ok_and(|v| v.trim().eq_ignore_ascii_case("first-region"));
    !disabled && !lazy
}

/// `OMP_DEFAULT_DEVICE` as parsed by omp-rs (a non-negative integer), read once. `None` when unset or invalid.
pub(crate) fn default_device_env() -> Option<i64> {
    static D: OnceLock<Option<i64>> = OnceLock::new();
    *D.get_or_init(|| {
        let v = std::env::var("OMP_DEFAULT_DEVICE").ok()?;
        match v.trim().parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => {
                eprintln!(
                    "omp-rs: warning: OMP_DEFAULT_DEVICE={v:?} is not valid; accepted values are device numbers \
                     0, 1, 2, ...; using device 0"
                );
                None
            }
        }
    })
}

/// Whether `OMP_RS_LOG` asks for per-region decisions (`info` or `debug`).
pub(crate) fn log_enabled() -> bool {
    static L: OnceLock<bool> = OnceLock::new();
    *L.get_or_init(|| match std::env::var("OMP_RS_LOG") {
        Err(_) => false,
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "info" | "debug" | "trace" => true,
            "" | "off" | "warn" | "error" | "0" => false,
            _ => {
                eprintln!(
                    "omp-rs: warning: OMP_RS_LOG={v:?} is not valid; accepted values are info, debug and off; \
                     logging stays off"
                );
                false
            }
        },
    })
}

/// Write one `omp-rs: ...` line to stderr when logging is on. The closure runs only then.
pub(crate) fn log(line: impl FnOnce() -> String) {
    if log_enabled() {
        eprintln!("omp-rs: {}", line());
    }
}

#[cfg(test)]
mod test {
    use super::Policy;

    #[test]
    fn policy_values_are_case_insensitive_and_bad_ones_rejected() {
        assert_eq!(Policy::parse("mandatory"), Some(Policy::Mandatory));
        assert_eq!(Policy::parse(" Disabled "), Some(Policy::Disabled));
        assert_eq!(Policy::parse("DEFAULT"), Some(Policy::Default));
        assert_eq!(Policy::parse("on"), None);
        assert_eq!(Policy::Mandatory.to_string(), "MANDATORY");
    }
}
