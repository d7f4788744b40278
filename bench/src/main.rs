//! omp-bench command line: run the suite or merge result files, print a Markdown report.

use clap::Parser;
use omp_bench::cli::Args;
use omp_bench::harness::{self, Plan};
use omp_bench::report::{self, markdown, plot, Ceiling, CheckStatus, ResultFile, SCHEMA};
use omp_bench::{ceiling, kernels, variant};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("omp-bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn list() {
    println!("Variants:");
    for v in variant::all() {
        println!("  {:8} {}", v.name(), v.description());
    }
    println!("Kernels (default reps):");
    for k in kernels::all() {
        println!("  {:24} {:5}  checksum rule: {}", k.name, k.default_reps, k.tolerance.label());
    }
}

fn run(args: &Args) -> Result<ExitCode, String> {
    if args.list {
        list();
        return Ok(ExitCode::SUCCESS);
    }
    let file = if args.merge.is_empty() { run_suite(args)? } else { merge_files(args)? };

    let reference = report::checksum_reference(&file.results, &args.baseline);
    let checks = report::check(&file.results, &reference);
    let md = markdown::render(&file, &checks, &args.baseline, &reference);
    print_report(&md)?;
    if let Some(path) = &args.markdown {
        std::fs::write(path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        file.write(path)?;
    }
    if let Some(dir) = &args.plot {
        for p in plot::write_plots(&file, &args.baseline, dir)? {
            eprintln!("wrote {}", p.display());
        }
    }
    let failed: Vec<_> = checks.iter().filter(|c| c.status == CheckStatus::Fail).collect();
    for c in &failed {
        eprintln!(
            "checksum mismatch: {} {} differs from {} by {:.2e} (bound {:.1e}, {})",
            c.kernel,
            c.variant,
            reference,
            c.rel_diff.unwrap_or(f64::NAN),
            c.bound,
            c.rule
        );
    }
    Ok(if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Prints the report; a closed pipe (`| head`) is not an error.
fn print_report(md: &str) -> Result<(), String> {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{md}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}

fn run_suite(args: &Args) -> Result<ResultFile, String> {
    let kernels = harness::select_kernels(&kernels::all(), &args.kernels)?;
    let mut variants = Vec::new();
    for name in &args.variants {
        let v = variant::by_name(name).ok_or_else(|| {
            let known: Vec<_> = variant::all().iter().map(|v| v.name()).collect();
            format!("unknown variant {name:?}; known: {}", known.join(", "))
        })?;
        variants.push(v);
    }
    let plan = Plan {
        kernels,
        variants,
        size: args.size,
        reps: args.reps,
        repeats: args.repeats.max(1),
        warmup: !args.no_warmup,
        progress: !args.quiet,
    };
    let (gbs, label) = match args.ceiling_gbs {
        Some(g) => (g, "given by --ceiling-gbs".to_owned()),
        None => ceiling::measure_cpu_copy(),
    };
    let (results, skipped) = harness::run(&plan);
    for s in &skipped {
        eprintln!("note: variant {} does not implement {}", s.variant, s.kernel);
    }
    // omp-gpu's target regions ran on an offload device if there is one (with an image for
    // it); the CPU copy ceiling does not apply to them then. Asked after the run: libomptarget
    // counts a plugin's devices once an image has been registered, i.e. after the first region.
    let on_device = |v: &str| v == "omp-gpu" || v == "omp-gpu-tiled";
    let devices = if args.variants.iter().any(|v| on_device(v)) { omp::get_num_devices() } else { 0 };
    // The GCC offload variants have their own runtime, libgomp, which says whether it found a device.
    let (host_variants, device_variants): (Vec<String>, Vec<String>) =
        args.variants.iter().cloned().partition(|v| !((devices > 0 && on_device(v)) || kernels::gcc_target_on_device(v)));
    let mut ceilings = Vec::new();
    if !host_variants.is_empty() {
        ceilings.push(Ceiling { label, gbs, variants: host_variants });
    }
    if let (Some(g), false) = (args.device_ceiling_gbs, device_variants.is_empty()) {
        ceilings.push(Ceiling { label: "offload device, given by --device-ceiling-gbs".to_owned(), gbs: g, variants: device_variants });
    }
    let threads = rayon::current_num_threads();
    let mut device = format!("cpu ({threads} rayon threads)");
    if devices > 0 {
        device.push_str(&format!(", omp-gpu on {devices} offload device(s)"));
    }
    Ok(ResultFile {
        schema: SCHEMA.to_owned(),
        source: "omp-bench".to_owned(),
        device,
        size: format!("{:?} (target {})", args.size, args.size.target()),
        ceilings,
        results,
    })
}

fn merge_files(args: &Args) -> Result<ResultFile, String> {
    let mut files = Vec::new();
    for p in &args.merge {
        files.push(ResultFile::read(p)?);
    }
    let (merged, notes) = report::merge(files);
    for n in notes {
        eprintln!("note: {n}");
    }
    Ok(merged)
}
