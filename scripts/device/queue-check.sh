#!/usr/bin/env bash
# queue-check.sh -- the queued-launch measurements of bench/RESULTS.md (2026-12-01), on the GPU machine, from the
# checkout's root with .device/ carried (bin/: omp-offload-suite, offload-bench, omp-bench, jacobi2d, nbody,
# advect1d, stripped release builds; debs/: scripts/device/fetch-runtime.sh). Needs nvcc there (bench/cuda/launch.cu).
#   OUT=/some/dir bash scripts/device/queue-check.sh
# 1. CUDA launch probe + offload-bench + offload suite under each OMP_RS_LAUNCH path
# 2. the examples, queued against OMP_RS_LAUNCH=sync
# 3. bench/gpu-run.sh (CUDA + omp-gpu queued), then omp-gpu with OMP_RS_LAUNCH=sync for the A/B table
# Everything lands in $OUT (default ./queue-check): launch.log, gpu/ (bench results, omp-gpu-sync.json).
set -u
O=${OUT:-queue-check}; mkdir -p "$O/gpu"
. scripts/device/runtime-env.sh .device/debs >/dev/null 2>&1 || { echo "runtime-env.sh failed" >&2; exit 2; }
[ -d .device/lib ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/.device/lib
export OMP_TARGET_OFFLOAD=MANDATORY
B=.device/bin
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc -O3 -arch=sm_90 bench/cuda/launch.cu -o /tmp/launch 2>&1 | tail -3
  for m in queued wait sync; do
    echo "== offload-bench, OMP_RS_LAUNCH=$m"; /tmp/launch 20000
    OMP_RS_LAUNCH=$m timeout 120 $B/offload-bench
    echo "== offload suite, OMP_RS_LAUNCH=$m"
    OMP_RS_LAUNCH=$m timeout 120 $B/omp-offload-suite | grep -E "passed|FAIL"
  done
  for e in jacobi2d nbody advect1d; do
    for m in queued sync; do echo "== $e OMP_RS_LAUNCH=$m"; OMP_RS_LAUNCH=$m timeout 120 $B/$e | tail -3; done
  done
} 2>&1 | tee "$O/launch.log"
OUT=$O/gpu BENCH_ARGS="--repeats 3" timeout 330 bash bench/gpu-run.sh > /dev/null 2>&1; echo "gpu-run rc=$?"
OMP_RS_LAUNCH=sync timeout 150 $B/omp-bench --variants omp-gpu --size default --repeats 3 --quiet --baseline omp-gpu \
  --json "$O/gpu/omp-gpu-sync.json" > "$O/gpu/sync.md" 2>&1; echo "sync rc=$?"
# On the dev machine: omp-bench --merge cuda.json,omp-gpu.json --baseline cuda (and omp-gpu-sync.json) for the ratios.
