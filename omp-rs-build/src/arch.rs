//! Offload architectures: `sm_XX` (NVIDIA), `gfxXXX` (AMD), `host` (libomptarget host plugin).

use std::fmt;
use std::str::FromStr;

/// An offload architecture name that is not one (its own type, so that this module needs no other of the crate;
/// [`crate::Error::UnknownArch`] wraps it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown offload arch `{0}`: expected sm_XX (e.g. sm_90), gfxXXX (e.g. gfx90a, gfx942) or host")]
pub struct UnknownArch(pub String);

/// One image to build.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// NVIDIA compute capability, e.g. `Nvidia(90)` for `sm_90`.
    Nvidia(u32),
    /// AMD GPU, e.g. `Amd("gfx90a".into())`.
    Amd(String),
    /// A shared object for libomptarget's host plugin, for the machine running the build.
    Host,
}

/// What kind of file an image is (`omp-rs-abi`: the runtime registers the same kinds).
pub use omp_rs_abi::ImageKind;

/// Target triple of NVIDIA images.
pub const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";
/// Target triple of AMD images.
pub const AMDGPU_TARGET: &str = "amdgcn-amd-amdhsa";

impl Arch {
    /// The default list: every GPU arch whose tools exist (the caller filters), no host image.
    pub fn defaults() -> Vec<Arch> {
        vec![Arch::Nvidia(90), Arch::Amd("gfx90a".into()), Arch::Amd("gfx942".into())]
    }

    /// Parses a comma-separated list (`OMP_RS_OFFLOAD_ARCH` syntax); empty entries are ignored.
    ///
    /// # Errors
    /// [`UnknownArch`] for the first entry that is not an arch.
    pub fn parse_list(s: &str) -> Result<Vec<Arch>, UnknownArch> {
        let mut v: Vec<Arch> = Vec::new();
        for a in s.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            let a: Arch = a.parse()?;
            if !v.contains(&a) {
                v.push(a);
            }
        }
        Ok(v)
    }

    /// LLVM/rustc target triple.
    pub fn target(&self) -> &'static str {
        match self {
            Arch::Nvidia(_) => NVPTX_TARGET,
            Arch::Amd(_) => AMDGPU_TARGET,
            Arch::Host => host_target(),
        }
    }

    /// `-Ctarget-cpu` for GPUs.
    pub fn cpu(&self) -> Option<String> {
        match self {
            Arch::Nvidia(sm) => Some(format!("sm_{sm}")),
            Arch::Amd(gfx) => Some(gfx.clone()),
            Arch::Host => None,
        }
    }

    /// The image file kind.
    pub fn image_kind(&self) -> ImageKind {
        match self {
            Arch::Nvidia(_) => ImageKind::Cubin,
            Arch::Amd(_) => ImageKind::AmdCodeObject,
            Arch::Host => ImageKind::HostSo,
        }
    }

    /// `true` for NVIDIA and AMD.
    pub fn is_gpu(&self) -> bool {
        !matches!(self, Arch::Host)
    }
}

/// The host triple (the machine running the build script / tool).
fn host_target() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-gnu",
        _ => "x86_64-unknown-linux-gnu",
    }
}

impl fmt::Display for Arch {
    /// The manifest name: `sm_90`, `gfx90a`, `host-x86_64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arch::Nvidia(sm) => write!(f, "sm_{sm}"),
            Arch::Amd(gfx) => f.write_str(gfx),
            Arch::Host => write!(f, "host-{}", std::env::consts::ARCH),
        }
    }
}

impl FromStr for Arch {
    type Err = UnknownArch;
    fn from_str(s: &str) -> Result<Arch, UnknownArch> {
        let l = s.trim().to_ascii_lowercase();
        if let Some(n) = l.strip_prefix("sm_") {
            if let Ok(sm) = n.parse::<u32>() {
                if (50..1000).contains(&sm) {
                    return Ok(Arch::Nvidia(sm));
                }
            }
        } else if let Some(n) = l.strip_prefix("gfx") {
            if (3..=5).contains(&n.len()) && n.chars().all(|c| c.is_ascii_hexdigit()) {
                return Ok(Arch::Amd(l));
            }
        } else if l == "host" || l == format!("host-{}", std::env::consts::ARCH) {
            return Ok(Arch::Host);
        }
        Err(UnknownArch(s.to_string()))
    }
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let v = Arch::parse_list("sm_90, gfx90a,gfx942,host,,sm_90").unwrap();
        assert_eq!(v, vec![Arch::Nvidia(90), Arch::Amd("gfx90a".into()), Arch::Amd("gfx942".into()), Arch::Host]);
        assert_eq!(v[0].to_string(), "sm_90");
        assert_eq!(v[2].to_string(), "gfx942");
        assert!(v[3].to_string().starts_with("host-"));
        assert!("sm90".parse::<Arch>().is_err());
        assert!("gfxzz".parse::<Arch>().is_err());
        assert!(matches!("cuda".parse::<Arch>(), Err(UnknownArch(_))));
    }
}
