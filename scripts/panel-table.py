#!/usr/bin/env python3
"""panel-table.py PORTS_DIR CUDA_DIR [--gcc | --blocking BLOCKING_DIR] -- the ports panel's Markdown table: each port's
own timer against its CUDA original's, from the logs `scripts/device/ports.sh` writes (port-<name>.log) and `CUDA=1
scripts/device/ports.sh` writes (cuda-<name>-cuda.log), then the geometric mean of the ratios. With `--gcc`, against
the OpenMP originals built by g++ on the host instead (gcc-<name>-omp.log, written by `scripts/cpu-panel.sh`). With
`--blocking`, a second CUDA column: the same CUDA programs run under `CUDA_LAUNCH_BLOCKING=1` (`BLOCKING=1 CUDA=1
scripts/device/ports.sh`), where every launch waits for its kernel as a region without `nowait` does in OpenMP. Each program is compared on
the line both versions print (the original's timer, kept by the port); a program whose line is missing on either
side is listed with its reason and left out of the mean."""
import math
import re
import sys
from pathlib import Path

# program: (CUDA folder, what is compared, regex with one number, unit of that number)
ROWS = {
    "bitonic_sort": ("bitonic-sort", "total kernel time", r"Total kernel execution time: ([\d.]+) \(ms\)", "ms"),
    "black_scholes": ("black-scholes", "average kernel", r"Average kernel execution time on GPU: ([\d.]+) \(ms\)", "ms"),
    "hausdorff": ("hausdorff", "average of the kernels", r"Average execution time of kernels: ([\d.]+) \(ms\)", "ms"),
    "haversine": ("haversine", "average kernel", r"Average kernel execution time ([\d.e-]+) \(s\)", "s"),
    "iso2dfd": ("iso2dfd", "average kernel", r"Average kernel execution time ([\d.]+) \(us\)", "µs"),
    "laplace": ("laplace", "per iteration", r"Total time for (\d+) iterations: ([\d.]+) s", "µs"),
    "mandelbrot": ("mandelbrot", "average kernel", r"Average kernel execution time: ([\d.]+) ms", "ms"),
    "nbody": ("nbody", "total time", r"# Total Time \(s\)\s*: ([\d.]+)", "s"),
    "norm2": ("norm2", "geometric mean over the sizes (CUDA: cublasSnrm2)", r"#elements = ([\d.]+) M: average .*? execution time = ([\d.]+) \(us\)", ""),
    "page_rank": ("page-rank", "total kernel time", r"Total kernel execution time: ([\d.]+) \(s\)", "s"),
    "scatter_add": ("scatterAdd", "kernel1 + kernel2 averages", r"Average execution time of kernel[12]: ([\d.]+) \(us\)", "µs"),
    "spm": ("spm", "average kernel", r"Average kernel execution time: ([\d.]+) \(ms\)", "ms"),
    "reverse": ("reverse", "total kernel time", r"Total kernel execution time: ([\d.]+) \(s\)", "s"),
    "stddev": ("stddev", "average of the kernels", r"Average execution time of stddev kernels: ([\d.]+) \(s\)", "s"),
    "nlll": ("nlll", "sum of the five team sizes' averages", r"Average execution time of nll loss forward kernel: ([\d.]+) \(us\)", "µs"),
    "minmax": ("minmax", "sum of the two loops' averages (CUDA: thrust)", r"Average execution time of \S+.*?: ([\d.]+) \(us\)", "µs"),
    "bsearch": ("bsearch", "sum of the four searches' averages", r"Average (?:device|kernel) execution time \(bs\d\) ([\d.e-]+) \(s\)", "s"),
}


def value(name, text):
    """The compared number of one log (None when its line is missing)."""
    pattern = ROWS[name][2]
    found = re.findall(pattern, text)
    if not found:
        return None
    if name == "laplace":
        iters, secs = found[-1]
        return float(secs) / int(iters) * 1e6
    if name == "scatter_add":
        return sum(float(v) for v in found[-2:]) if len(found) >= 2 else None
    if name == "nlll":
        return sum(float(v) for v in found[-5:]) if len(found) >= 5 else None
    if name == "minmax":
        return sum(float(v) for v in found[-2:]) if len(found) >= 2 else None
    if name == "bsearch":
        return sum(float(v) for v in found[-4:]) if len(found) >= 4 else None
    if name == "norm2":
        return {size: float(t) for size, t in found}
    return float(found[-1])


def ratio(name, pv, cv):
    """port / baseline; norm2's is the geometric mean over the sizes both logs have."""
    if name == "norm2":
        sizes = sorted(set(pv) & set(cv), key=float)
        return math.exp(sum(math.log(pv[s] / cv[s]) for s in sizes) / len(sizes))
    return pv / cv


def shown(name, v, unit):
    return "" if name == "norm2" else f"{v:.4g} {unit}"


def summary(ratios, against):
    g = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
    above = [n for n, r in ratios if r > 1.5]
    return f"Geometric mean over {len(ratios)} programs{against}: **{g:.2f}**; above 1.5x: {', '.join(above) or 'none'}."


def main():
    args = sys.argv[1:]
    gcc = args[2:] == ["--gcc"]
    blocking = Path(args[3]) if len(args) == 4 and args[2] == "--blocking" else None
    if len(args) != 2 and not gcc and blocking is None:
        sys.exit(__doc__)
    ports, base = Path(args[0]), Path(args[1])
    label, log = ("g++ -fopenmp", "gcc-{}-omp.log") if gcc else ("CUDA", "cuda-{}-cuda.log")
    ratios, blocked = [], []
    if blocking is None:
        print(f"| program | port | {label} | port / {label} |")
        print("|---|---:|---:|---:|")
    else:
        print("| program | port | CUDA | port / CUDA | CUDA, launches blocking | port / CUDA, launches blocking |")
        print("|---|---:|---:|---:|---:|---:|")
    for name, (folder, what, _, unit) in ROWS.items():
        logs = [ports / f"port-{name}.log", base / log.format(folder)]
        if blocking is not None:
            logs.append(blocking / log.format(folder))
        texts = [f.read_text(errors="replace") if f.exists() else None for f in logs]
        values = [value(name, t) if t is not None else None for t in texts]
        blank = "| |" if blocking is not None else ""
        failed = [str(f) for f, t in zip(logs, texts) if t is not None and re.search(r"^FAIL", t, re.M)]
        if failed:
            # A program that computed something else is not timed against the one that did not.
            print(f"| {name} ({what}) | | | FAIL in {', '.join(failed)} |{blank}")
            continue
        if None in values:
            missing = ", ".join(str(f) for f, v in zip(logs, values) if v is None)
            print(f"| {name} ({what}) | | | no line in {missing} |{blank}")
            continue
        sizes = f", {len(set(values[0]) & set(values[1]))} sizes" if name == "norm2" else ""
        r = ratio(name, values[0], values[1])
        ratios.append((name, r))
        cells = [f"{name} ({what}{sizes})", shown(name, values[0], unit), shown(name, values[1], unit), f"{r:.2f}"]
        if blocking is not None:
            rb = ratio(name, values[0], values[2])
            blocked.append((name, rb))
            cells += [shown(name, values[2], unit), f"{rb:.2f}"]
        print("|" + "|".join(f" {c} " if c else " " for c in cells) + "|")
    print()
    print(summary(ratios, ""))
    if blocking is not None:
        print()
        print(summary(blocked, " against CUDA with blocking launches"))


if __name__ == "__main__":
    main()
