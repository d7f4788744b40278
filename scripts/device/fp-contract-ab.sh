#!/usr/bin/env bash
# fp-contract-ab.sh -- OMP_RS_FP_CONTRACT=fast against the default on the GPU machine, in one call: the ports whose
# kernels do floating-point arithmetic, each run with both builds back to back, then RAJAPerf's kernels with both
# builds, each against CUDA built the same way (`--fmad=false` for the default, nvcc's default `--fmad=true` for
# `fast`). From the checkout's root with .device/ carried: bin/ holding the default release binaries of this commit
# (the ports, omp-bench) and the same binaries built with OMP_RS_FP_CONTRACT=fast under the names <name>-fma; debs/.
#   OUT=/some/dir bash scripts/device/fp-contract-ab.sh      # everything goes into $OUT/fp-contract-ab.tgz
# Tables on the dev machine: the ports' `kernel time:` pairs from progress.log; `omp-bench --merge cuda.json,
# omp-bench.json --baseline cuda` and `omp-bench --merge cuda-fmad.json,omp-bench-fma.json --baseline cuda`.
set -u
W=/tmp/fp-contract-ab; rm -rf $W; mkdir -p $W/ports
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export OMP_TARGET_OFFLOAD=MANDATORY
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $W/date.txt
for name in black_scholes hausdorff haversine iso2dfd mandelbrot nbody norm2 page_rank spm stddev nlll miniweather scatter_add; do
  read -r -a args <<< "$(grep -m1 '^//! device-args:' "ports/src/bin/$name.rs" | sed 's|^//! device-args:||')"
  for v in "" -fma; do
    ( timeout 60 .device/bin/$name$v "${args[@]}" ) > $W/ports/port-$name$v.log 2>&1
    echo "$name$v rc=$? $(grep -E '^(PASS|FAIL)$' $W/ports/port-$name$v.log | tail -1) $(grep -E '^kernel time:' $W/ports/port-$name$v.log | tail -1)" |
      tee -a $W/progress.log
  done
done
tar czf "${OUT:-.}/fp-contract-ab.tgz" -C $W .
C=/tmp/omp-bench-cuda
BUILD_DIR=$C timeout 150 bash bench/cuda/run.sh --size default --repeats 5 --json "$W/cuda.json" > "$W/cuda.log" 2>&1
echo "cuda --fmad=false rc=$?" | tee -a $W/progress.log
FMAD=true BUILD_DIR=$C-fmad timeout 150 bash bench/cuda/run.sh --size default --repeats 5 --json "$W/cuda-fmad.json" > "$W/cuda-fmad.log" 2>&1
echo "cuda --fmad=true rc=$?" | tee -a $W/progress.log
for b in omp-bench omp-bench-fma; do
  timeout 100 .device/bin/$b --variants omp-gpu --baseline omp-gpu --size default --repeats 5 --quiet --json "$W/$b.json" > "$W/$b.log" 2>&1
  echo "$b rc=$?" | tee -a $W/progress.log
done
tar czf "${OUT:-.}/fp-contract-ab.tgz" -C $W .
