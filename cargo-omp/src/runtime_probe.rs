//! Is libomptarget loadable here, and how many devices does it see?
//!
//! libomptarget aborts or segfaults on misuse (an API call before `__tgt_rtl_init` segfaults,
//! measured with LLVM 22), and a broken plugin can take the process down with it. So the probe runs
//! in a child process: `cargo-omp __probe-runtime <candidates>` (this same executable), which loads
//! the first candidate that opens, initialises every plugin and counts devices. It reports on its
//! stdout as `@@omp-rs-probe {json}` lines, one event at a time and flushed, so the parent knows how
//! far the child got even when it dies mid-way.
//!
//! The child loads through `libomptarget-sys`, the runtime's own loader, in the runtime's search order
//! (`libomptarget_sys::search_candidates`: `$OMP_RS_LIBOMPTARGET`, then, unless
//! `OMP_RS_LIBOMPTARGET_NO_SEARCH=1`, the loader's names and the LLVM install directories), so what it reports is
//! what a program's first target region will find.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The variable that names the library explicitly.
pub(crate) const ENV: &str = libomptarget_sys::ENV_PATH;
/// The hidden subcommand the child runs.
pub(crate) const CHILD_SUBCOMMAND: &str = "__probe-runtime";
/// Marks the child's protocol lines (libomptarget may print to stdout too).
const MARK: &str = "@@omp-rs-probe ";
/// CUDA/ROCm plugin start-up takes ~0.2–0.4 s; a minute means something hangs.
const TIMEOUT: Duration = Duration::from_secs(60);
/// Install hint for a missing runtime.
pub(crate) const FIX: &str = "apt-get install liboffload-22 libllvm22 libomp5-19 (as root; `cargo omp setup` does it), \
or set OMP_RS_LIBOMPTARGET=/path/to/libomptarget.so";

/// Where a candidate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Via {
    /// `$OMP_RS_LIBOMPTARGET`.
    Env,
    /// A soname resolved by the dynamic loader.
    Loader,
    /// An LLVM install directory (`/usr/lib/llvm-N/lib`, ...).
    InstallDir,
}

/// Which plugin a device belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Plugin {
    /// The host plugin's virtual CPU devices.
    Host,
    /// Anything else (CUDA, AMDGPU).
    Gpu,
    /// No UID to tell.
    Unknown,
}

/// One place to look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// A file path, or a bare soname for the loader.
    pub(crate) name: String,
    /// Where it comes from.
    pub(crate) via: Via,
}

/// What happened to one candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Attempt {
    /// The candidate.
    pub(crate) candidate: String,
    /// Why it was not used.
    pub(crate) error: String,
}

/// One device as libomptarget numbers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Device {
    /// Device number (`device(n)`).
    pub(crate) id: i32,
    /// `omp_get_uid_from_device`, when the library exports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) uid: Option<String>,
    /// Its plugin, from the UID.
    pub(crate) plugin: Plugin,
}

/// The outcome of the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum Runtime {
    /// Loaded and initialised.
    Found {
        /// The file that was loaded (resolved through `/proc/self/maps`).
        path: String,
        /// How it was found.
        via: Via,
        /// `22.1` from `libomptarget.so.22.1`, when the file name says.
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        /// `omp_get_num_devices()` after initialising every plugin.
        num_devices: i32,
        /// Per device.
        devices: Vec<Device>,
        /// `__tgt_print_device_info` for every device, as printed.
        #[serde(skip_serializing_if = "String::is_empty")]
        device_info: String,
        /// Candidates tried before it.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        searched: Vec<Attempt>,
    },
    /// No candidate could be loaded.
    NotFound {
        /// Everything tried, with the loader's error.
        searched: Vec<Attempt>,
        /// How to install it.
        fix: String,
    },
    /// It loaded (or the child never reported), then the child failed.
    ProbeFailed {
        /// The library, when the child got as far as loading it.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// What went wrong (exit status or signal, last lines of stderr).
        error: String,
    },
}

/// A protocol line of the child.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Event {
    Attempt { candidate: String, error: String },
    Loaded { candidate: String, path: String },
    Note { text: String },
    Calling { function: String },
    Initialized { num_devices: i32 },
    Device { id: i32, uid: Option<String> },
    Done,
}

/// The places to look, in order: the runtime's ([`libomptarget_sys::search_candidates`]).
pub(crate) fn candidates() -> Vec<Candidate> {
    let from_env: Vec<String> = std::env::var_os(ENV)
        .map(|v| v.to_string_lossy().split(':').filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    libomptarget_sys::search_candidates()
        .into_iter()
        .map(|name| {
            let via = if from_env.contains(&name) {
                Via::Env
            } else if name.contains('/') {
                Via::InstallDir
            } else {
                Via::Loader
            };
            Candidate { name, via }
        })
        .collect()
}

/// Runs the probe in a child process (`exe __probe-runtime ...`).
pub(crate) fn probe(exe: &Path) -> Runtime {
    let all = candidates();
    let order: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
    // Paths that do not exist need no child; sonames always go to the loader.
    let mut searched = Vec::new();
    let mut live = Vec::new();
    for c in all {
        if c.via != Via::Loader && !Path::new(&c.name).exists() {
            searched.push(Attempt { candidate: c.name, error: "no such file".into() });
        } else {
            live.push(c);
        }
    }
    if live.is_empty() {
        return Runtime::NotFound { searched, fix: FIX.into() };
    }
    let mut cmd = Command::new(exe);
    cmd.arg(CHILD_SUBCOMMAND).args(live.iter().map(|c| &c.name));
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let (out, err, status) = match run_with_timeout(cmd, TIMEOUT) {
        Ok(r) => r,
        Err(e) => return Runtime::ProbeFailed { path: None, error: e },
    };
    interpret(&order, &live, searched, &out, &err, &status)
}

/// Turns the child's output into a [`Runtime`]. A `done` event wins over the exit status: a crash
/// in libomptarget's exit-time destructors does not make the answer wrong. `order` is the full
/// search order: attempts are reported in it, and only those before the library that loaded.
fn interpret(order: &[String], live: &[Candidate], mut searched: Vec<Attempt>, stdout: &str, stderr: &str, status: &str) -> Runtime {
    let mut loaded: Option<(String, String)> = None;
    let mut num_devices = None;
    let mut devices = Vec::new();
    let mut done = false;
    let mut notes = Vec::new();
    let mut info = String::new();
    let mut calling: Option<String> = None;
    for line in stdout.lines() {
        let Some(json) = line.strip_prefix(MARK) else {
            // after `done`: the device info libomptarget flushes at exit
            if done {
                info.push_str(line);
                info.push('\n');
            }
            continue;
        };
        match serde_json::from_str::<Event>(json) {
            Ok(Event::Attempt { candidate, error }) => searched.push(Attempt { candidate, error }),
            Ok(Event::Loaded { candidate, path }) => loaded = Some((candidate, path)),
            Ok(Event::Note { text }) => notes.push(text),
            Ok(Event::Calling { function }) => calling = Some(function),
            Ok(Event::Initialized { num_devices: n }) => num_devices = Some(n),
            Ok(Event::Device { id, uid }) => {
                let plugin = classify(uid.as_deref());
                devices.push(Device { id, uid, plugin });
            }
            Ok(Event::Done) => done = true,
            Err(_) => {}
        }
    }
    let rank = |c: &str| order.iter().position(|o| o == c).unwrap_or(usize::MAX);
    searched.sort_by_key(|a| rank(&a.candidate));
    if let Some((winner, _)) = &loaded {
        let w = rank(winner);
        searched.retain(|a| rank(&a.candidate) < w);
    }
    match (loaded, num_devices, done) {
        (Some((candidate, path)), Some(n), true) => {
            let via = live.iter().find(|c| c.name == candidate).map_or(Via::Loader, |c| c.via);
            Runtime::Found { version: version_of(&path), path, via, num_devices: n, devices, device_info: info, searched }
        }
        (None, _, true) => Runtime::NotFound { searched, fix: FIX.into() },
        (loaded, _, _) => {
            let stage = match (&loaded, &calling) {
                (None, _) => "while loading libomptarget".to_string(),
                (Some(_), Some(f)) => format!("in {f}()"),
                (Some(_), None) => "after loading libomptarget".to_string(),
            };
            let tail: Vec<&str> = stderr.lines().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
            let mut error = format!("the probe process {status} {stage}");
            if !notes.is_empty() {
                error.push_str(&format!(" ({})", notes.join("; ")));
            }
            if !tail.is_empty() {
                error.push_str(&format!("; its stderr ends with: {}", tail.join(" | ")));
            }
            error.push_str(". Try LIBOMPTARGET_INFO=-1 or LIBOMPTARGET_DEBUG=1 for libomptarget's own log");
            Runtime::ProbeFailed { path: loaded.map(|(_, p)| p), error }
        }
    }
}

/// Host when the UID is the host plugin's `<cpu arch>-<n>` (seen: `x86_64-0`), else GPU.
fn classify(uid: Option<&str>) -> Plugin {
    let host_prefix = format!("{}-", std::env::consts::ARCH);
    match uid {
        Some(u) if u.starts_with(&host_prefix) => Plugin::Host,
        Some(_) => Plugin::Gpu,
        None => Plugin::Unknown,
    }
}

/// `/x/libomptarget.so.22.1` → `22.1`.
fn version_of(path: &str) -> Option<String> {
    let file = Path::new(path).file_name()?.to_string_lossy().into_owned();
    let v = file.strip_prefix("libomptarget.so.")?;
    (!v.is_empty()).then(|| v.to_string())
}

/// Runs `cmd`, collecting stdout/stderr, killing it after `limit`. Returns (stdout, stderr, "exited
/// with …" / "was killed by signal …").
fn run_with_timeout(mut cmd: Command, limit: Duration) -> Result<(String, String, String), String> {
    let mut child = cmd.spawn().map_err(|e| format!("could not start the probe process `{cmd:?}`: {e}"))?;
    // Read both pipes on threads, so a chatty child cannot block on a full pipe.
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_t = std::thread::spawn(move || read_all(out_pipe.as_mut()));
    let err_t = std::thread::spawn(move || read_all(err_pipe.as_mut()));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break describe(&s),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break format!("did not finish within {} s and was killed", limit.as_secs());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => break format!("could not be waited for ({e})"),
        }
    };
    let out = out_t.join().unwrap_or_default();
    let err = err_t.join().unwrap_or_default();
    Ok((out, err, status))
}

fn read_all<R: Read>(r: Option<&mut R>) -> String {
    let mut buf = Vec::new();
    if let Some(r) = r {
        let _ = r.read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn describe(s: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(11)) => "crashed (SIGSEGV)".into(),
        (None, Some(6)) => "aborted (SIGABRT)".into(),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        (None, None) => "ended without a status".into(),
    }
}

// ---------------------------------------------------------------------------------------------
// The child side.

fn emit(e: &Event) {
    // One line per event, flushed, so the parent sees it even if the next call crashes.
    if let Ok(s) = serde_json::to_string(e) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{MARK}{s}");
        let _ = out.flush();
    }
}

/// The child: load the first candidate that opens (with the runtime's loader), initialise, count devices.
/// Everything is reported through [`emit`]; the return value is the exit code.
pub(crate) fn run_child(candidates: &[String]) -> u8 {
    use libomptarget_sys::{Lib, LoadError};
    let mut lib = None;
    for c in candidates {
        match Lib::load(c) {
            Ok(l) => {
                emit(&Event::Loaded { candidate: c.clone(), path: mapped_path().unwrap_or_else(|| l.path().display().to_string()) });
                lib = Some(l);
                break;
            }
            Err(LoadError::NotFound { searched }) => {
                let error = searched.into_iter().next().map(|(_, e)| e).unwrap_or_default();
                emit(&Event::Attempt { candidate: c.clone(), error });
            }
            Err(e) => {
                // It opened, but omp-rs cannot use it (a symbol missing, too old): say so, as the runtime would.
                emit(&Event::Loaded { candidate: c.clone(), path: mapped_path().unwrap_or_else(|| c.clone()) });
                emit(&Event::Note { text: e.to_string() });
                return 3;
            }
        }
    }
    let Some(lib) = lib else {
        emit(&Event::Done);
        return 0;
    };
    let calling = |f: &str| emit(&Event::Calling { function: f.into() });
    calling("__tgt_rtl_init");
    // SAFETY: no arguments; must come first (an API call before it segfaults).
    unsafe { (lib.rtl_init)() };
    calling("__tgt_init_all_rtls");
    // SAFETY: after __tgt_rtl_init; creates the devices of every plugin that finds hardware.
    unsafe { (lib.init_all_rtls)() };
    calling("omp_get_num_devices");
    // SAFETY: the plugin manager exists now.
    let n = unsafe { (lib.get_num_devices)() };
    emit(&Event::Initialized { num_devices: n });
    if lib.get_uid_from_device.is_some() {
        calling("omp_get_uid_from_device");
    }
    for id in 0..n.max(0) {
        let uid = lib.get_uid_from_device.and_then(|f| {
            // SAFETY: `id` is a valid device number; the result is a static NUL-terminated string or null.
            let p = unsafe { f(id) };
            // SAFETY: non-null pointers from libomptarget point to NUL-terminated strings it owns.
            (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
        });
        emit(&Event::Device { id, uid });
    }
    emit(&Event::Done);
    // Last: it prints through LLVM's buffered stdout, which only reaches the pipe at exit.
    if let Some(f) = lib.print_device_info {
        for id in 0..n.max(0) {
            // SAFETY: a valid device number.
            unsafe { f(i64::from(id)) };
        }
    }
    // The library stays loaded until exit, as libomptarget expects.
    std::mem::forget(lib);
    0
}

/// The libomptarget file this process has mapped (what the loader resolved a soname to).
fn mapped_path() -> Option<String> {
    let f = std::fs::File::open("/proc/self/maps").ok()?;
    BufReader::new(f)
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| l.split_whitespace().nth(5).map(str::to_string))
        .find(|p| Path::new(p).file_name().is_some_and(|n| n.to_string_lossy().starts_with("libomptarget.so")))
}

#[cfg(test)]
mod test {
    use super::*;

    fn live() -> Vec<Candidate> {
        vec![Candidate { name: "libomptarget.so.22.1".into(), via: Via::Loader }]
    }

    fn line(e: &Event) -> String {
        format!("{MARK}{}\n", serde_json::to_string(e).unwrap())
    }

    #[test]
    fn found_with_devices_and_info() {
        let mut out = String::new();
        out += &line(&Event::Attempt { candidate: "x".into(), error: "nope".into() });
        out += &line(&Event::Loaded { candidate: "libomptarget.so.22.1".into(), path: "/lib/libomptarget.so.22.1".into() });
        out += &line(&Event::Initialized { num_devices: 2 });
        out += &line(&Event::Device { id: 0, uid: Some(format!("{}-0", std::env::consts::ARCH)) });
        out += &line(&Event::Device { id: 1, uid: Some("GPU-1234".into()) });
        out += &line(&Event::Done);
        out += "    Device Type    Generic-elf-64bit\n";
        let order = ["x".to_string(), "libomptarget.so.22.1".into(), "/usr/lib/llvm-22/lib/libomptarget.so".into()];
        let later = vec![Attempt { candidate: order[2].clone(), error: "no such file".into() }];
        let r = interpret(&order, &live(), later, &out, "", "exited with status 0");
        let Runtime::Found { path, via, version, num_devices, devices, device_info, searched } = r else { panic!("{r:?}") };
        assert_eq!((path.as_str(), via, version.as_deref(), num_devices), ("/lib/libomptarget.so.22.1", Via::Loader, Some("22.1"), 2));
        assert_eq!(devices[0].plugin, Plugin::Host);
        assert_eq!(devices[1].plugin, Plugin::Gpu);
        assert!(device_info.contains("Generic-elf-64bit"));
        assert_eq!(searched, [Attempt { candidate: "x".into(), error: "nope".into() }], "only what was tried before");
    }

    #[test]
    fn crash_after_loading_is_reported_with_the_stage() {
        let out = line(&Event::Loaded { candidate: "libomptarget.so.22.1".into(), path: "/l/libomptarget.so.22.1".into() })
            + &line(&Event::Calling { function: "__tgt_init_all_rtls".into() });
        let r = interpret(&[], &live(), vec![], &out, "a\nb\nomptarget fatal error 1\n", "crashed (SIGSEGV)");
        let Runtime::ProbeFailed { path, error } = r else { panic!("{r:?}") };
        assert_eq!(path.as_deref(), Some("/l/libomptarget.so.22.1"));
        assert!(error.contains("SIGSEGV") && error.contains("in __tgt_init_all_rtls()") && error.contains("fatal error 1"), "{error}");
    }

    #[test]
    fn nothing_loads() {
        let out = line(&Event::Attempt { candidate: "libomptarget.so".into(), error: "cannot open".into() }) + &line(&Event::Done);
        let r = interpret(&[], &live(), vec![], &out, "", "exited with status 0");
        assert!(matches!(r, Runtime::NotFound { ref searched, .. } if searched.len() == 1), "{r:?}");
    }

    #[test]
    fn search_order() {
        // (only when the variable is unset here; tests must not change the process environment)
        if std::env::var_os(ENV).is_none() {
            let c = candidates();
            // The runtime's order, classified.
            let names: Vec<String> = c.iter().map(|c| c.name.clone()).collect();
            assert_eq!(names, libomptarget_sys::search_candidates());
            assert_eq!((c[0].name.as_str(), c[0].via), ("libomptarget.so.22.1", Via::Loader));
            assert_eq!((c[1].name.as_str(), c[1].via), ("libomptarget.so", Via::Loader));
            assert!(c[2].name.starts_with("/usr/lib/llvm-22/lib/") && c[2].via == Via::InstallDir);
        }
        assert_eq!(version_of("/usr/lib/x86_64-linux-gnu/libomptarget.so.22.1").as_deref(), Some("22.1"));
        assert_eq!(version_of("/usr/lib/libomptarget.so"), None);
    }
}
