#!/usr/bin/env bash
# peers.sh -- omp-gpu beside its OpenMP peers c-omp-target and c-omp-target-simd (GCC 12 NVPTX offload) and the CUDA
# baseline, on the GPU machine from the checkout's root, .device/ carried: bin/omp-bench, bin/libomp_bench_gcc_target*.so
# (from target/release/build/omp-bench-*/out/), bin/omp-offload-suite (optional), lib/libgomp.so.1 and
# lib/libgomp-plugin-nvptx.so.1
# (Debian's GCC 12 runtime and its NVPTX plugin), debs/.  Needs nvcc there.   OUT=/some/dir bash scripts/device/peers.sh
# The offload suite once, CUDA once, then omp-bench with the three OpenMP offload variants (default size, --repeats 3:
# GCC's variants take ~20 s per pass). Merge here: omp-bench --merge cuda.json,peers.json --baseline cuda --markdown x.md
set -u
O=${OUT:-peers}; mkdir -p "$O"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
export LD_LIBRARY_PATH=$PWD/.device/lib:$LD_LIBRARY_PATH
# Both runtimes read it: libomptarget for omp-gpu, libgomp for c-omp-target (no silent host fallback).
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  [ -x .device/bin/omp-offload-suite ] && timeout 150 .device/bin/omp-offload-suite | grep -E "passed|FAIL|skipped"
} 2>&1 | tee "$O/suite.log"
BUILD_DIR=/tmp/omp-bench-cuda bash bench/cuda/run.sh --size default --repeats 5 --json "$O/cuda.json" > "$O/cuda.log" 2>&1
echo "cuda rc=$?"
gbs=$(grep -o '"gbs": *[0-9.eE+-]*' "$O/cuda.json" | head -n 1 | sed 's/.*: *//')
timeout 400 .device/bin/omp-bench --variants omp-gpu,c-omp-target,c-omp-target-simd --baseline omp-gpu --size default \
    --repeats 3 --quiet --device-ceiling-gbs "$gbs" --json "$O/peers.json" > "$O/peers.md" 2> "$O/peers.err"
echo "peers rc=$?"; head -n 4 "$O/peers.err"
