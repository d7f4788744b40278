//! Float remainders in kernels, exact as on the host.
//!
//! Rust's `x % y` on `f64`/`f32` is LLVM's `frem`, the exact remainder of C's `fmod` (x86 calls `fmod`). The NVPTX and
//! AMDGPU back ends lower `frem` as `x - trunc(x / y) * y`: when `x / y` rounds, that is off by a multiple of `y`
//! (`925785789609.2999 % 0.3` gives `-3.9e-5` instead of `0.29996`), so a kernel would compute something else than
//! the same code on the host. Before the vendor library is linked, every `frem` of the kernels and `omp_device` becomes
//! a call of the library's exact `fmod` (libdevice `__nv_fmod`/`__nv_fmodf`, ocml `__ocml_fmod_f64`/`_f32`), which
//! `llvm-link --only-needed` then pulls in. An `frem` of another form (a vector) fails the build instead of keeping
//! the back end's lowering.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// The library's exact remainder functions: `(f64, f32)`.
pub(super) type FmodNames = (&'static str, &'static str);

/// libdevice's.
pub(super) const LIBDEVICE: FmodNames = ("__nv_fmod", "__nv_fmodf");
/// ocml's.
pub(super) const OCML: FmodNames = ("__ocml_fmod_f64", "__ocml_fmod_f32");

/// Links the kernels' bitcode with `omp_device`'s into LLVM assembly at `out` (`kernels+dev.ll`) with every float
/// remainder exact ([`exact_remainders`]).
pub(super) fn link_exact(
    link: &std::path::Path,
    kernels: &std::path::Path,
    device_lib: &std::path::Path,
    out: &std::path::Path,
    names: FmodNames,
) -> Result<std::time::Duration> {
    let (_, dt) = crate::command::run_timed(std::process::Command::new(link).arg("-S").arg(kernels).arg(device_lib).arg("-o").arg(out))?;
    let ir = std::fs::read_to_string(out).map_err(Error::io("reading", out))?;
    if let Cow::Owned(exact) = exact_remainders(&ir, names)? {
        std::fs::write(out, exact).map_err(Error::io("writing", out))?;
    }
    Ok(dt)
}

/// `ir` (LLVM assembly) with each scalar `frem` a call of `names`' function for its type, declared once (borrowed
/// when it holds none).
pub(super) fn exact_remainders(ir: &str, names: FmodNames) -> Result<Cow<'_, str>> {
    if !ir.contains(" frem ") {
        return Ok(Cow::Borrowed(ir));
    }
    let (mut used64, mut used32) = (false, false);
    let mut out = String::with_capacity(ir.len() + 256);
    for line in ir.lines() {
        match rewrite(line, names) {
            Some((call, is_f64)) => {
                out.push_str(&call);
                used64 |= is_f64;
                used32 |= !is_f64;
            }
            None if line.contains(" = frem ") => {
                return Err(Error::Unexpected(format!(
                    "a float remainder of a form the device build cannot make exact (kernels would compute `x - trunc(x / y) * \
                     y` instead of Rust's `%`): `{}`",
                    line.trim()
                )));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    for (used, name, ty) in [(used64, names.0, "double"), (used32, names.1, "float")] {
        let declared = ir.lines().any(|l| (l.starts_with("declare ") || l.starts_with("define ")) && l.contains(&format!("@{name}(")));
        if used && !declared {
            out.push_str(&format!("declare {ty} @{name}({ty}, {ty})\n"));
        }
    }
    Ok(Cow::Owned(out))
}

/// `%r = frem [flags] double %a, %b[, !md]` as `%r = call double @fmod(double %a, double %b)[, !md]`, and whether
/// it is the `f64` one.
fn rewrite(line: &str, names: FmodNames) -> Option<(String, bool)> {
    let (lhs, rest) = line.split_once(" = frem ")?;
    let mut words = rest.split(' ').peekable();
    while words.peek().is_some_and(|w| matches!(*w, "fast" | "nnan" | "ninf" | "nsz" | "arcp" | "contract" | "afn" | "reassoc")) {
        words.next();
    }
    let ty = words.next()?;
    let is_f64 = match ty {
        "double" => true,
        "float" => false,
        _ => return None,
    };
    // The operands of a scalar `frem` are names or constants, which hold no comma.
    let joined = words.collect::<Vec<_>>().join(" ");
    let operands: Vec<&str> = joined.split(", ").map(str::trim).collect();
    let (a, b, tail) = match operands.as_slice() {
        [a, b] => (*a, *b, String::new()),
        [a, b, md @ ..] if md.iter().all(|m| m.starts_with('!')) => (*a, *b, format!(", {}", md.join(", "))),
        _ => return None,
    };
    let name = if is_f64 { names.0 } else { names.1 };
    Some((format!("{lhs} = call {ty} @{name}({ty} {a}, {ty} {b}){tail}"), is_f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_frem_calls_the_exact_function() {
        let ir = "define double @k(double %x, float %y) {\n  %a = frem double %x, 3.000000e-01\n  %b = frem fast float %y, %y, !dbg !7\n  %c = fadd double %a, 1.0\n  ret double %c\n}\n";
        let out = exact_remainders(ir, LIBDEVICE).unwrap();
        assert!(!out.contains("frem"), "{out}");
        assert!(out.contains("  %a = call double @__nv_fmod(double %x, double 3.000000e-01)\n"), "{out}");
        assert!(out.contains("  %b = call float @__nv_fmodf(float %y, float %y), !dbg !7\n"), "{out}");
        assert!(out.contains("declare double @__nv_fmod(double, double)\n") && out.contains("declare float @__nv_fmodf(float, float)\n"));
        // Not declared again where the module already declares it.
        let declared = "declare double @__nv_fmod(double, double)\n  %a = frem double %x, %y\n";
        assert_eq!(exact_remainders(declared, LIBDEVICE).unwrap().matches("@__nv_fmod(double, double)").count(), 1);
    }

    #[test]
    fn other_forms_fail_the_build() {
        let ir = "  %v = frem <2 x double> %x, %y\n";
        assert!(exact_remainders(ir, OCML).is_err());
        let untouched = "  %s = fadd double %x, %y ; no remainder\n";
        assert_eq!(exact_remainders(untouched, OCML).unwrap(), untouched);
    }
}
