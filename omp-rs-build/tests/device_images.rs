//! Builds the demo device crate (`omp_build::outline::demo`) for sm_90, sm_80, gfx90a, gfx942 and
//! the host, checks the images, and runs the host `.so` through kernel ABI v1.
//!
//! Without the toolchain each test prints `SKIPPED … run scripts/setup-gpu-toolchain.sh` and
//! passes, unless `OMP_RS_REQUIRE_TOOLCHAIN=1` (CI), where a missing toolchain fails.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use omp_build::{compile, outline, Arch, Image, Toolchain};

fn toolchain() -> &'static Toolchain {
    static TC: OnceLock<Toolchain> = OnceLock::new();
    TC.get_or_init(Toolchain::discover)
}

/// The toolchain if `arch` can be built; otherwise prints why and (outside CI) skips.
fn ready(arch: &Arch) -> Option<&'static Toolchain> {
    let tc = toolchain();
    match tc.check(arch) {
        Ok(()) => Some(tc),
        Err(e) => {
            if std::env::var("OMP_RS_REQUIRE_TOOLCHAIN").is_ok_and(|v| v == "1") {
                panic!("{arch}: {e}");
            }
            eprintln!("SKIPPED {arch}: {e}");
            None
        }
    }
}

fn out_dir(tag: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-rs-images").join(tag);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One build per arch per test process (several tests look at the same image).
fn image(arch: &Arch) -> Option<Image> {
    static CACHE: Mutex<Vec<(Arch, Image)>> = Mutex::new(Vec::new());
    let tc = ready(arch)?;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, i)) = cache.iter().find(|(a, _)| a == arch) {
        return Some(i.clone());
    }
    let img = compile(tc, &outline::demo().krate, arch, &out_dir(&arch.to_string()))
        .unwrap_or_else(|e| panic!("building the demo crate for {arch}: {e}"));
    // the header's allows + omp_device's prelude make std-style kernel code warning-free
    assert!(img.diagnostics.trim().is_empty(), "rustc warnings for {arch}:\n{}", img.diagnostics);
    let t = &img.timings;
    eprintln!(
        "{arch}: total {:.3}s (setup {:.3}s, rustc {:.3}s, link {:.3}s, opt {:.3}s, llc {:.3}s, ptxas/lld {:.3}s)",
        t.total.as_secs_f64(),
        t.setup.as_secs_f64(),
        t.rustc.as_secs_f64(),
        t.link.as_secs_f64(),
        t.opt.as_secs_f64(),
        t.llc.as_secs_f64(),
        t.finish.as_secs_f64()
    );
    cache.push((arch.clone(), img.clone()));
    Some(img)
}

fn e_machine(p: &Path) -> u16 {
    let b = std::fs::read(p).unwrap();
    assert_eq!(&b[..4], b"\x7fELF", "{} is not ELF", p.display());
    u16::from_le_bytes([b[18], b[19]])
}

/// The text of one `.entry` in a PTX file.
fn ptx_entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no .entry {name}"));
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

fn kernel_names() -> Vec<String> {
    outline::demo().krate.exports
}

#[test]
fn nvidia_sm90_cubin() {
    let Some(img) = image(&Arch::Nvidia(90)) else { return };
    assert_eq!(e_machine(&img.path), 190, "EM_CUDA");
    let ptx = std::fs::read_to_string(img.ptx.as_ref().unwrap()).unwrap();
    assert!(ptx.contains(".target sm_90"));
    for k in kernel_names() {
        assert!(ptx.contains(&format!(".visible .entry {k}(")), "{k} not exported");
        let r = img.resources.iter().find(|r| r.name == k).unwrap_or_else(|| panic!("ptxas -v has no {k}"));
        eprintln!(
            "  {k}: {} regs, {} B stack, spills {}/{} B, {} B smem",
            r.registers, r.stack_frame_bytes, r.spill_store_bytes, r.spill_load_bytes, r.smem_bytes
        );
    }
    assert!(ptx.lines().any(|l| l.starts_with(".visible .global") && l.contains("__omp_rs_panic_record")), "panic record global not kept");
    // the read-only capture goes through the non-coherent cache, the written one does not
    let saxpy = ptx_entry(&ptx, "omp_demo_saxpy");
    assert!(saxpy.contains("ld.global.nc.b64"), "saxpy x loads are not ld.global.nc:\n{saxpy}");
    assert!(saxpy.contains("st.global.b64"));
    let r = img.resources.iter().find(|r| r.name == "omp_demo_saxpy").unwrap();
    assert_eq!((r.spill_store_bytes, r.spill_load_bytes, r.stack_frame_bytes), (0, 0, 0), "saxpy spills");
    // team_reduce: shared scratch + barrier, no warp shuffles
    let red = ptx_entry(&ptx, "omp_demo_sum_max");
    assert!(red.contains("barrier.sync 0"), "{red}");
    assert!(!red.contains("shfl"), "team_reduce must not shuffle");
    let rr = img.resources.iter().find(|r| r.name == "omp_demo_sum_max").unwrap();
    assert_eq!(rr.smem_bytes, 4096);
    // f64 atomic add: global-space atom after cvta.to.global
    let at = ptx_entry(&ptx, "omp_demo_atomic_sum");
    assert!(at.contains("atom.global.add.f64") || at.contains("red.global.add.f64"), "{at}");
    // math from libdevice, nothing unresolved
    assert!(!ptx.contains(".extern .func"), "unresolved externs in PTX");
    // panic path: record + exit, no trap
    assert!(ptx.contains("exit;") && !ptx.contains("trap;"));
}

/// sm_80 gets its own core (see `omp_build::sysroot`): the PTX targets sm_80 and core code is
/// inlined exactly as for sm_90 (same set of non-inlined functions, no `core::fmt` left over).
#[test]
fn nvidia_sm80_inlines_like_sm90() {
    let (Some(i80), Some(i90)) = (image(&Arch::Nvidia(80)), image(&Arch::Nvidia(90))) else { return };
    assert_eq!(e_machine(&i80.path), 190);
    let p80 = std::fs::read_to_string(i80.ptx.unwrap()).unwrap();
    let p90 = std::fs::read_to_string(i90.ptx.unwrap()).unwrap();
    assert!(p80.contains(".target sm_80"));
    let funcs = |p: &str| {
        let mut v: Vec<String> = p.lines().filter(|l| l.starts_with(".func")).map(str::to_string).collect();
        v.sort();
        v
    };
    let names = |p: &str| -> Vec<String> {
        // sorted by name: a `.func` line starts with its return parameter, if any
        let mut v: Vec<String> = funcs(p).iter().map(|l| demangle_tail(l)).collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(names(&p80), names(&p90), "core functions were not inlined the same way for sm_80");
    assert!(!p80.contains("core3fmt"), "core::fmt left in the sm_80 build");
    let cubin = std::fs::read(&i80.path).unwrap();
    let flags = u32::from_le_bytes([cubin[48], cubin[49], cubin[50], cubin[51]]);
    // CUDA ≥ 13 cubins (ELF ABI version 8) keep the SM in bits 8..16, older ones in bits 0..8
    let sm = if cubin[8] >= 8 { (flags >> 8) & 0xff } else { flags & 0xff };
    assert_eq!(sm, 80, "cubin e_flags SM (flags {flags:#x})");
}

/// The function name of a `.func` line with v0-mangling crate hashes (`Cs<hash>_`) removed, so
/// two builds of the same crates compare equal.
fn demangle_tail(line: &str) -> String {
    let name = line.split_whitespace().last().unwrap_or_default().trim_end_matches('(');
    let mut out = String::new();
    let mut rest = name;
    while let Some(i) = rest.find("Cs") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('_') {
            Some(u) if after[..u].chars().all(|c| c.is_ascii_alphanumeric()) => rest = &after[u + 1..],
            _ => {
                out.push_str("Cs");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn llvm_tool(name: &str) -> PathBuf {
    let link = &toolchain().llvm.as_ref().unwrap().link;
    let file = link.file_name().unwrap().to_string_lossy().replace("llvm-link", name);
    link.with_file_name(file)
}

fn check_amd(gfx: &str) {
    let Some(img) = image(&Arch::Amd(gfx.into())) else { return };
    let b = std::fs::read(&img.path).unwrap();
    assert_eq!(e_machine(&img.path), 224, "EM_AMDGPU");
    assert_eq!(b[7], 64, "ELFOSABI_AMDGPU_HSA");
    assert_eq!(b[8], 3, "ABI version 3 = code object v5");
    let nm = |args: &[&str]| {
        let out = std::process::Command::new(llvm_tool("llvm-nm")).args(args).arg(&img.path).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let undef = nm(&["--undefined-only"]);
    assert!(undef.trim().is_empty(), "undefined symbols in {gfx} image:\n{undef}");
    let syms = nm(&["--defined-only"]);
    for k in kernel_names() {
        assert!(syms.contains(&format!(" {k}.kd")), "{k}.kd missing:\n{syms}");
    }
    assert!(syms.contains("__omp_rs_panic_record"));
}

#[test]
fn amd_gfx90a_code_object() {
    check_amd("gfx90a");
}

#[test]
fn amd_gfx942_code_object() {
    check_amd("gfx942");
}

/// Second build of an unchanged crate with warm caches: the per-kernel-crate cost.
#[test]
fn warm_build_time_per_arch() {
    for arch in [Arch::Nvidia(90), Arch::Amd("gfx90a".into()), Arch::Host] {
        let Some(tc) = ready(&arch) else { continue };
        let _ = image(&arch); // caches built
        let img = compile(tc, &outline::demo().krate, &arch, &out_dir(&format!("warm-{arch}"))).unwrap();
        let t = img.timings;
        eprintln!(
            "warm {arch}: {:.3}s (setup {:.3}s, rustc {:.3}s, link {:.3}s, opt {:.3}s, llc {:.3}s, ptxas/lld {:.3}s)",
            t.total.as_secs_f64(),
            t.setup.as_secs_f64(),
            t.rustc.as_secs_f64(),
            t.link.as_secs_f64(),
            t.opt.as_secs_f64(),
            t.llc.as_secs_f64(),
            t.finish.as_secs_f64()
        );
        // generous: the target is ≤ 1 s on an idle machine; CI shares 2 cores
        assert!(t.total.as_secs_f64() < 10.0, "{arch} took {:?}", t.total);
    }
}

mod host {
    use super::*;

    /// The record the device writes (the same definition, from `omp-rs-abi`).
    use omp_rs_abi::PanicRecord;

    // kernel ABI v1 on the host plugin: dyn_ptr + N integer-class 8-byte slots
    type S6 = unsafe extern "C" fn(*mut u8, u64, u64, u64, u64, u64, u64);
    type S7 = unsafe extern "C" fn(*mut u8, u64, u64, u64, u64, u64, u64, u64);
    type S8 = unsafe extern "C" fn(*mut u8, u64, u64, u64, u64, u64, u64, u64, u64);
    type S11 = unsafe extern "C" fn(*mut u8, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64);
    type S10 = unsafe extern "C" fn(*mut u8, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64);

    struct Rng(u64);
    impl Rng {
        fn f64(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0
        }
    }

    fn p<T>(v: &[T]) -> u64 {
        v.as_ptr() as u64
    }

    #[test]
    fn host_so_runs_kernels_per_abi_v1() {
        let Some(img) = image(&Arch::Host) else { return };
        assert_eq!(e_machine(&img.path), 62, "EM_X86_64");
        // exports: every kernel + the panic record, nothing from omp_device's Rust API
        let out = std::process::Command::new("nm").args(["-D", "--defined-only"]).arg(&img.path).output();
        if let Ok(out) = out {
            let syms = String::from_utf8_lossy(&out.stdout);
            for k in kernel_names() {
                assert!(syms.contains(&format!(" T {k}")), "{k} not exported:\n{syms}");
            }
            assert!(syms.contains("__omp_rs_panic_record"));
        }
        // SAFETY: the image is the demo crate built just above; signatures follow kernel ABI v1.
        unsafe {
            let lib = libloading::Library::new(&img.path).unwrap();
            let rec_global: libloading::Symbol<*mut *mut PanicRecord> = lib.get(b"__omp_rs_panic_record\0").unwrap();
            let rec_global: *mut *mut PanicRecord = *rec_global;
            let mut rec = Box::new(PanicRecord::default());
            *rec_global = &mut *rec;
            let dynp = usize::MAX as *mut u8; // libomptarget's bare-mode dyn_ptr

            let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
            eprintln!("seed {seed}");
            let mut rng = Rng(seed);
            let n = 10_007usize;
            let x: Vec<f64> = (0..n).map(|_| rng.f64()).collect();
            let y0: Vec<f64> = (0..n).map(|_| rng.f64()).collect();

            // saxpy over all of y, step 1
            let a = 2.5f64;
            let mut y = y0.clone();
            // slots: a, x (base, len), y (base, len), loop (first, trips, step)
            let saxpy8: libloading::Symbol<S8> = lib.get(b"omp_demo_saxpy\0").unwrap();
            saxpy8(dynp, a.to_bits(), p(&x), n as u64, y.as_mut_ptr() as u64, n as u64, 0, n as u64, 1);
            let want: Vec<f64> = y0.iter().zip(&x).map(|(y, x)| y + a * x).collect();
            assert_eq!(y, want, "saxpy differs from the sequential loop");
            assert_eq!(rec.count, 0);

            // saxpy on every other element from 1: lo=1, step=2
            let mut y = y0.clone();
            saxpy8(dynp, a.to_bits(), p(&x), n as u64, y.as_mut_ptr() as u64, n as u64, 1, (n as u64 - 1) / 2, 2);
            for i in 0..n {
                let w = if i % 2 == 1 && i < 1 + 2 * ((n - 1) / 2) { y0[i] + a * x[i] } else { y0[i] };
                assert_eq!(y[i], w, "strided saxpy at {i}");
            }

            // reduction(+) and reduction(max): one team on the host, partials[0]
            let sum_max: libloading::Symbol<S7> = lib.get(b"omp_demo_sum_max\0").unwrap();
            let (mut sp, mut mp) = ([f64::NAN; 1], [f64::NAN; 1]);
            sum_max(dynp, p(&x), n as u64, 0, n as u64, 1, sp.as_mut_ptr() as u64, mp.as_mut_ptr() as u64);
            let seq_sum = x.iter().fold(0.0, |s, v| s + v);
            let seq_max = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(sp[0], seq_sum);
            assert_eq!(mp[0], seq_max);

            // math
            let math: libloading::Symbol<S11> = lib.get(b"omp_demo_math\0").unwrap();
            let (mut e, mut s, mut r) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            math(
                dynp,
                p(&x),
                n as u64,
                e.as_mut_ptr() as u64,
                n as u64,
                s.as_mut_ptr() as u64,
                n as u64,
                r.as_mut_ptr() as u64,
                n as u64,
                0,
                n as u64,
                1,
            );
            for i in 0..n {
                assert_eq!(e[i], x[i].exp());
                assert_eq!(s[i], x[i].sin());
                assert_eq!(r[i], x[i].abs().sqrt() + x[i].max(0.0) + x[i].powi(2));
            }

            // atomic f64 add
            let atomic: libloading::Symbol<S6> = lib.get(b"omp_demo_atomic_sum\0").unwrap();
            let mut out = [0.0f64; 1];
            atomic(dynp, p(&x), n as u64, out.as_mut_ptr() as u64, 0, n as u64, 1);
            assert_eq!(out[0], seq_sum);

            // out of bounds: x has 10 elements, out 16, off 0 -> i = 10 panics; the call returns
            let oob: libloading::Symbol<S8> = lib.get(b"omp_demo_oob\0").unwrap();
            let xs: Vec<f64> = (0..10).map(|i| i as f64).collect();
            let mut o = vec![-7.0f64; 16];
            oob(dynp, p(&xs), 10, o.as_mut_ptr() as u64, 16, 0, 0, 16, 1);
            assert!(rec.count >= 1, "panic not recorded: {rec:?}");
            let want_line = outline::DEMO_SOURCE.lines().position(|l| l.contains("// OOB_LINE")).unwrap() as u64 + 1;
            assert_eq!(rec.line, want_line, "{rec:?}");
            assert!(rec.column > 0);
            let file = std::str::from_utf8(std::slice::from_raw_parts(rec.file_ptr as *const u8, rec.file_len as usize)).unwrap();
            assert_eq!(file, "omp_demo_kernels/lib.rs");
            assert_eq!((rec.block, rec.thread), (0, 0));
            for (i, v) in o.iter().enumerate().take(10) {
                assert_eq!(*v, 2.0 * i as f64);
            }
            assert_eq!(o[10], -7.0);

            // integer / bool reductions and atomics
            let ints: Vec<i64> = (0..n).map(|_| (rng.f64() * 1e6) as i64).collect();
            let int_ops: libloading::Symbol<S8> = lib.get(b"omp_demo_int_ops\0").unwrap();
            let mut out = [i64::MAX, i64::MIN, -1, 0, 0, 1000, 0, 5];
            let mut f = [0.5f32];
            let mut part = [0i64; 8];
            int_ops(dynp, p(&ints), n as u64, 0, n as u64, 1, out.as_mut_ptr() as u64, f.as_mut_ptr() as u64, part.as_mut_ptr() as u64);
            let mn = *ints.iter().min().unwrap();
            let mx = *ints.iter().max().unwrap();
            let and = ints.iter().fold(-1i64, |a, v| a & v);
            let or = ints.iter().fold(0i64, |a, v| a | v);
            let xor = ints.iter().fold(0i64, |a, v| a ^ v);
            let sum = ints.iter().fold(0i64, |a, v| a.wrapping_add(*v));
            let prod = ints.iter().fold(1u32, |a, v| a.wrapping_mul((*v as u32) | 1));
            let fsum = ints.iter().fold(0.5f32, |a, v| a + *v as f32);
            assert_eq!(part, [mn, mx, and, or, xor, ints.iter().all(|v| *v > 0) as i64, ints.iter().any(|v| *v < 0) as i64, prod as i64]);
            assert_eq!(out, [mn, mx, and, or, xor, 1000 - sum, n as i64, 5 + 2 * sum]);
            assert_eq!(f[0], fsum);

            // Ownership slots: y[i] owned by iteration i (hull mode, origin lo, width 0, stride step)
            let owned: libloading::Symbol<S10> = lib.get(b"omp_demo_owned\0").unwrap();
            *rec = PanicRecord::default();
            let count_before = rec.count;
            let mut yo = vec![-1.0f64; 64];
            owned(dynp, yo.as_mut_ptr() as u64, 64, 0, 0, 0, 1, 0, 0, 64, 1);
            assert_eq!(rec.count, count_before, "writes to owned elements must not panic");
            assert!(yo.iter().enumerate().all(|(i, v)| *v == i as f64));
            // shift 1: iteration i writes y[i + 1], owned by iteration i + 1 -> the first such write panics
            let mut yo = vec![-1.0f64; 64];
            owned(dynp, yo.as_mut_ptr() as u64, 64, 0, 0, 0, 1, 1, 0, 63, 1);
            assert_eq!(rec.count, count_before + 1, "a write to another iteration's element must panic: {rec:?}");
            assert_eq!(yo[1], -1.0, "the stray write must not happen");
            let want_line = outline::DEMO_SOURCE.lines().position(|l| l.contains("// OWNED_LINE")).unwrap() as u64 + 1;
            assert_eq!(rec.line, want_line, "{rec:?}");
            // Mode 3, the hull checked in 32-bit arithmetic (every owned element below 2^31): owned writes pass, a write
            // to the next iteration's element and one just below the iteration's base (the difference wraps past the
            // width) panic before writing.
            for (shift, lo, trips, stray) in [(0u64, 0u64, 64u64, false), (1, 0, 63, true), (u64::MAX, 1, 63, true)] {
                *rec = PanicRecord::default();
                let mut yo = vec![-1.0f64; 64];
                owned(dynp, yo.as_mut_ptr() as u64, 64, 3, lo, 0, 1, shift, lo, trips, 1);
                assert_eq!(rec.count > 0, stray, "mode 3, shift {shift}: {rec:?}");
                if stray {
                    let target = (lo as usize).wrapping_add(shift as usize);
                    assert_eq!(yo[target], -1.0, "mode 3, shift {shift}: the stray write must not happen");
                } else {
                    assert!(yo.iter().enumerate().all(|(i, v)| *v == i as f64));
                }
            }

            // null record: the panic is swallowed, nothing written
            *rec_global = std::ptr::null_mut();
            let before = *rec;
            oob(dynp, p(&xs), 10, o.as_mut_ptr() as u64, 16, 0, 0, 16, 1);
            assert_eq!(rec.count, before.count);
            drop(lib);
        }
    }
}
