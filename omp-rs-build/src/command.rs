//! Running the toolchain's programs with readable failures and timings.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Renders a command line for messages (`RUSTC_BOOTSTRAP=1 /usr/bin/rustc --target …`).
pub(crate) fn render(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            s.push_str(&format!("{}={} ", k.to_string_lossy(), v.to_string_lossy()));
        }
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs `cmd` to completion; a non-zero exit becomes [`Error::Command`] with its stderr.
pub(crate) fn run(cmd: &mut Command) -> Result<Output> {
    let out = cmd.output().map_err(|source| Error::Spawn { command: render(cmd), source })?;
    if !out.status.success() {
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        // Keep the end: that is where rustc and LLVM put the summary.
        const MAX: usize = 16 * 1024;
        if text.len() > MAX {
            let mut cut = text.len() - MAX;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            text = format!("[… {cut} bytes cut …]\n{}", &text[cut..]);
        }
        return Err(Error::Command { command: render(cmd), status: out.status.to_string(), stderr: text });
    }
    Ok(out)
}

/// [`run`] and how long it took.
pub(crate) fn run_timed(cmd: &mut Command) -> Result<(Output, Duration)> {
    let t = Instant::now();
    let out = run(cmd)?;
    Ok((out, t.elapsed()))
}
