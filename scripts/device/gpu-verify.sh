#!/usr/bin/env bash
# Runs on the GPU machine (see docs/gpu-verification.md): the offload suite, the examples and the launch/bandwidth
# benchmark, all under OMP_TARGET_OFFLOAD=MANDATORY, from binaries built on the dev machine and carried in
# .device/bin, with Debian's libomptarget 22 from .device/debs. Logs go to $OUT (or ./gpu-logs).
set -u
OUT=${OUT:-gpu-logs}
mkdir -p "$OUT"
. scripts/device/runtime-env.sh .device/debs || exit 1
B=.device/bin
export OMP_TARGET_OFFLOAD=MANDATORY
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "== offload suite (every construct vs sequential Rust, fresh random inputs)"
  $B/omp-offload-suite
  echo "== examples"
  for e in ${EXAMPLES:-saxpy dot jacobi2d nbody advect1d}; do $B/$e; done
  echo "== offload-bench"
  # The nowait measurement launches the minimal region's kernel through the runtime API from the suite's cubin.
  if [ -f .device/img/suite.sm_90.cubin ]; then
    export OFFLOAD_BENCH_IMAGE=cubin:sm_90:.device/img/suite.sm_90.cubin
    OFFLOAD_BENCH_KERNEL=$(cat .device/img/minimal-kernel.txt)
    export OFFLOAD_BENCH_KERNEL
  fi
  $B/offload-bench
} 2>&1 | tee "$OUT/gpu-verify.log"
echo "== LIBOMPTARGET_INFO=-1 (saxpy check only)"
LIBOMPTARGET_INFO=-1 $B/omp-offload-suite saxpy > "$OUT/libomptarget-info.log" 2>&1
head -c 20000 "$OUT/libomptarget-info.log" | grep -E "Launching|Mapping|Creating|Copying|Entering|entry|BARE" | head -40
