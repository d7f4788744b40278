//! `cargo omp`: the command line of omp-rs.
//!
//! | subcommand | module | job |
//! |---|---|---|
//! | `info` | [`info`] (+ [`runtime_probe`]) | toolchain, buildable archs, caches, libomptarget and its devices |
//! | `setup` | [`setup`] | install the device toolchain (runs `scripts/setup-gpu-toolchain.sh`) |
//! | `explain` | [`explain`] | a kernel's slots, mapping, outlined source, registers and PTX |
//! | `census` | [`census`] | which OpenMP directives of a C/C++/Fortran tree omp-rs expresses as written |
//!
//! Installed as `cargo-omp`, cargo runs it as `cargo-omp omp <args>`; run directly it takes
//! `cargo-omp <args>`. Both work.

mod census;
mod error;
mod explain;
mod info;
mod runtime_probe;
mod setup;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::{Error, Result};

#[derive(Debug, Parser)]
#[command(name = "cargo-omp", bin_name = "cargo omp", version, about = "omp-rs: device toolchain, offload runtime and outlined kernels")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Toolchain status, buildable offload archs, caches, libomptarget and its devices.
    Info {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Also print libomptarget's description of every device.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Install the device toolchain: apt packages, ptxas + libdevice, ROCm bitcode, core sysroots.
    ///
    /// Runs the steps of scripts/setup-gpu-toolchain.sh (embedded); idempotent. The apt step needs root.
    Setup {
        /// Skip apt installs (rustc-web, LLVM 22, liboffload-22 already present).
        #[arg(long)]
        no_apt: bool,
        /// Skip pre-building the core sysroots (the first package build does it, ~20 s per arch).
        #[arg(long)]
        no_sysroot: bool,
        /// Arches to pre-build sysroots for [default: sm_90,gfx90a,gfx942,host].
        #[arg(long, value_name = "LIST")]
        arch: Option<String>,
    },
    /// Show what omp-rs made of a target region: slots, mapping, outlined source, registers, PTX.
    ///
    /// Reads the newest `<target>/<profile>/build/<pkg>-*/out/omp-rs/manifest.json`.
    /// Without KERNEL, lists the kernels.
    Explain {
        /// Kernel name, or the name of the user function holding the region.
        kernel: Option<String>,
        /// Package to read (default: whichever package was built last).
        #[arg(short, long, value_name = "P")]
        package: Option<String>,
        /// Target directory (default: CARGO_TARGET_DIR or the workspace's).
        #[arg(long, value_name = "DIR")]
        target_dir: Option<PathBuf>,
        /// Build profile: debug, release or a custom one.
        #[arg(long, default_value = "debug", conflicts_with = "release")]
        profile: String,
        /// Same as --profile release.
        #[arg(long)]
        release: bool,
        /// Image to take PTX and resources from (sm_90, gfx90a, host, …) [default: the first sm_XX].
        #[arg(long)]
        arch: Option<String>,
        /// Show the PTX section (with --source/--resources: only the sections named).
        #[arg(long)]
        ptx: bool,
        /// Show the outlined Rust source.
        #[arg(long)]
        source: bool,
        /// Show ptxas resources (registers, spills, stack, shared memory).
        #[arg(long)]
        resources: bool,
    },
    /// Which OpenMP directives of a tree of C/C++/Fortran programs omp-rs can express as written.
    ///
    /// Reads every source under DIR, finds its `#pragma omp` / `!$omp` directives and checks each against the
    /// directives' own tables at its place in the code (inside a target region, inside a loop directive).
    Census {
        /// Root of the tree (e.g. a HeCBench checkout's `src`).
        dir: PathBuf,
        /// What one program is: a directory directly under DIR, or one source file.
        #[arg(long, value_enum, default_value = "dirs")]
        programs: census::Programs,
        /// Only programs whose path under DIR contains this (e.g. `-omp`).
        #[arg(long, value_name = "TEXT")]
        matching: Option<String>,
        /// List every program with its blockers.
        #[arg(long)]
        list: bool,
    },
    /// (internal) Load libomptarget and count devices; run by `info` in a child process.
    #[command(name = "__probe-runtime", hide = true)]
    ProbeRuntime {
        /// Libraries to try, in order.
        candidates: Vec<String>,
    },
    /// (internal) Pre-build core sysroots; run by the setup script.
    #[command(name = "__build-sysroots", hide = true)]
    BuildSysroots {
        /// Comma-separated arches.
        archs: String,
    },
}

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    // `cargo omp info` runs `cargo-omp omp info`
    if args.get(1).is_some_and(|a| a == "omp") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn this_exe() -> Result<PathBuf> {
    std::env::current_exe().map_err(Error::io("locating this executable (needed to run the probe)", "/proc/self/exe"))
}

fn run(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Info { json, verbose } => {
            let report = info::collect(&this_exe()?);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", info::render(&report, verbose));
            }
        }
        Cmd::Setup { no_apt, no_sysroot, arch } => {
            setup::run(&this_exe()?, &setup::Options { no_apt, no_sysroot, arch })?;
        }
        Cmd::Census { dir, programs, matching, list } => {
            print!("{}", census::run(&census::Options { root: dir, programs, matching, list })?);
        }
        Cmd::Explain { kernel, package, target_dir, profile, release, arch, ptx, source, resources } => {
            let profile = if release { "release".to_string() } else { profile };
            let opts = explain::Options { kernel, package, target_dir, profile, arch, ptx, source, resources };
            print!("{}", explain::run(&opts)?);
        }
        Cmd::ProbeRuntime { candidates } => return Ok(ExitCode::from(runtime_probe::run_child(&candidates))),
        Cmd::BuildSysroots { archs } => setup::build_sysroots(&archs)?,
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod test {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
        assert_eq!(runtime_probe::CHILD_SUBCOMMAND, "__probe-runtime");
        assert_eq!(setup::SYSROOT_SUBCOMMAND, "__build-sysroots");
        let c = Cli::try_parse_from(["cargo-omp", "explain", "saxpy", "--release", "--arch", "sm_90", "--ptx"]).unwrap();
        assert!(matches!(c.command, Cmd::Explain { release: true, ptx: true, .. }));
        assert!(Cli::try_parse_from(["cargo-omp", "explain", "--release", "--profile", "debug"]).is_err());
    }
}
